"""labsim: a simulator of OpenZFS (and, later, WireGuard) that speaks the real command lines.

The model lives in :mod:`labsim.zfs` (plain dataclasses plus functions), the command
lines are parsed and answered in :mod:`labsim.shell`, output formats are in
:mod:`labsim.format`, lesson simulations in :mod:`labsim.scenarios`, charts in
:mod:`labsim.figures`, and the browser bridge in :mod:`labsim.web`.
"""

from labsim.shell.base import CommandResult
from labsim.shell.session import Session, run_script

__all__ = ["CommandResult", "Session", "run_script", "__version__"]
__version__ = "0.1.0"
