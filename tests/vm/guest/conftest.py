"""Runs inside the lab VM, where tools/vm/run-labs.sh puts this directory at /labs/vm and the
lab runner at /labs/labkit."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
