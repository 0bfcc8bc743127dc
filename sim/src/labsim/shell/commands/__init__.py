"""The commands labsim runs, one module a tool (or a family of small ones).

Importing this package imports every command module once, and each registers its own names
(labsim.shell.registry); this list is the one place that names them.
"""

from labsim.shell.commands import (  # noqa: F401  (imported for their registrations)
    checksums,
    coreutils,
    dd,
    df,
    filters,
    fio,
    mount,
    netcmds,
    qemu_img,
    qemu_nbd,
    ssh,
    ssh_keygen,
    sshd,
    textutils,
    wg_quick,
    zdb,
    zfs,
    zpool,
)
