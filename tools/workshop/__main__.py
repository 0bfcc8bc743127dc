"""``python3 tools/workshop ...``: the workshop command line (see workshop.cli)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workshop.cli import main  # noqa: E402

sys.exit(main())
