import sys

from netkit.cli import main

sys.exit(main())
