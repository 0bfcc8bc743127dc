"""The exact error texts of zpool, zfs and bash that labsim reproduces, one module per tool,
and labsim's own notice where it stops (``notices``).

Convention: every function returns what the tool writes to stderr (or stdout
where noted) *without the final newline*; multi-line messages contain their
inner newlines.  Usage blocks ("usage:\\n\\tcreate ...") likewise end without the
last newline.  Each text cites the source it was taken from; "unverified" marks
text reconstructed from a neighbouring release rather than read in it.

Exit statuses (``EXIT_*``): the ``usage()`` functions of zpool and zfs exit 2
(cmd/zpool/zpool_main.c and cmd/zfs/zfs_main.c: ``exit(requested ? 0 : 2)``);
failures reported through libzfs exit 1; bash exits 127 for an unknown command.

How libzfs composes most messages: ``zfs_error()`` (lib/libzfs/libzfs_util.c)
prints "<action>: <reason>", e.g. "cannot create 'tank': pool already exists".

The modules: ``bash`` (an unknown command), ``zpool`` (usage, pools, names, properties),
``zpool_vdev`` (vdev specifications and device commands), ``zfs`` (datasets and their
properties), ``notices`` (the one "not simulated" form). Callers import this package
(``from labsim.shell import messages as msg``) and find every text here.
"""

from __future__ import annotations

from labsim.shell.messages.bash import *  # noqa: F403 - the package is the tools' texts
from labsim.shell.messages.notices import *  # noqa: F403
from labsim.shell.messages.zfs import *  # noqa: F403
from labsim.shell.messages.zpool import *  # noqa: F403
from labsim.shell.messages.zpool_vdev import *  # noqa: F403

EXIT_OK = 0
EXIT_FAILURE = 1  # libzfs errors: "cannot open 'x': no such pool", ...
EXIT_USAGE = 2  # usage(B_FALSE): bad option, missing argument, unknown subcommand
