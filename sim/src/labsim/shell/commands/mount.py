"""`mount --bind FILE TARGET` (util-linux 2.38.1), as the slow-SSH lab
(labs/net/05-slow-ssh/) puts its resolv.conf, nsswitch.conf and ssh(d)_config over the
host's own: in labsim every host has its own files already (a netkit host's mount namespace),
so the bind mount changes what that host, and only that host, reads at TARGET.

The target shows the source's file itself (the same HostFile: a bind mount is the same
inode), so a change made in place shows at both paths. labsim's writers (tee, cp) replace a
file rather than change it, and there is no mount table: a file written to either path
after the mount is not seen at the other, and `umount` is not modelled.

A target must exist. Beside the host's own files, these are the files every Debian 12 host
has and labsim stands in for with their defaults (labsim.shell.commands.resolver and
ssh_config read them): /etc/resolv.conf, /etc/nsswitch.conf, /etc/hosts,
/etc/ssh/ssh_config, /etc/ssh/sshd_config.

Recorded on Debian 12 (the texts are in tests/unit/test_mount_command.py): nothing printed
on success; exit 32 with two lines on a failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.shell import messages as msg
from labsim.shell.base import CommandResult
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session

# Files a Debian 12 host has that labsim models by their defaults when the host has none.
SYSTEM_FILES = frozenset({"/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/hosts",
                          "/etc/ssh/ssh_config", "/etc/ssh/sshd_config"})
# mount(8)'s exit status for a failed mount (MNT_EX_FAIL).
MOUNT_FAILURE = 32
DMESG_HINT = "       dmesg(1) may have more information after failed mount system call.\n"


def _failed(target: str, reason: str) -> CommandResult:
    return CommandResult(stderr=f"mount: {target}: {reason}.\n{DMESG_HINT}",
                         status=MOUNT_FAILURE)


@command("mount")
def main(session: Session, argv: list[str]) -> CommandResult:
    args = argv[1:]
    if len(args) != 3 or args[0] not in ("--bind", "-B"):
        return CommandResult.fail(msg.command_line_not_simulated("mount", argv)
                                  + " (labsim has mount --bind FILE TARGET)", 2)
    source, target = args[1], args[2]
    source_path, target_path = session.absolute(source), session.absolute(target)
    source_is_dir = source_path in session.host_dirs
    target_is_dir = target_path in session.host_dirs
    if not source_is_dir and source_path not in session.host_files:
        return _failed(target, f"special device {source} does not exist")
    if not target_is_dir and target_path not in session.host_files \
            and target_path not in SYSTEM_FILES:
        return _failed(target, "mount point does not exist")
    if source_is_dir and not target_is_dir:
        return _failed(target, "mount point is not a directory")
    if target_is_dir and not source_is_dir:
        return _failed(target, "mount(2) system call failed: Not a directory")
    if source_is_dir:
        return CommandResult.fail(msg.tool_not_simulated("mount",
                                                         "a bind mount of a directory"), 2)
    session.host_files[target_path] = session.host_files[source_path]
    return CommandResult()
