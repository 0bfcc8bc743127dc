"""The commands labsim runs, one module a tool (or a family of small ones).

Importing this package imports every command module once, and each registers its own names
(labsim.shell.registry); this list is the one place that names them.
"""

from labsim.shell.commands import (  # noqa: F401  (imported for their registrations)
    checksums,
    coreutils,
    curl,
    dd,
    df,
    filters,
    fio,
    getent,
    ip,
    iptables,
    mount,
    nft,
    ping,
    qemu_img,
    qemu_nbd,
    ss,
    ssh,
    ssh_keygen,
    sshd,
    sysctl,
    textutils,
    time_keyword,
    wg,
    wg_quick,
    zdb,
    zfs,
    zpool,
)
