"""`sysctl` (procps 4.0.2, Debian 12) for the kernel's network settings the model keeps
(net.ipv4.ip_forward and labsim.net.model.SYSCTL_DEFAULTS). Outputs were recorded from the
real tool (tests/unit/test_net_commands.py, test_net_policy.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.net import model
from labsim.net.model import Host
from labsim.shell.base import CommandResult
from labsim.shell.commands.net_common import host_of, unmodelled
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session


SYSCTL_KEYS = ("net.ipv4.ip_forward", *model.SYSCTL_DEFAULTS)


def _sysctl_value(host: Host, key: str) -> int:
    return host.ip_forward if key == "net.ipv4.ip_forward" else host.sysctls[key]


@command("sysctl")
def sysctl(session: Session, argv: list[str]) -> CommandResult:
    """`sysctl [-n] [-q] [-w] KEY[=VALUE]...` for net.ipv4.ip_forward and
    net.ipv4.conf.all.src_valid_mark. -q prints nothing for a value set (procps: it only
    silences the echo of writes; a read is still printed)."""
    host = host_of(session)
    args, value_only, quiet = argv[1:], False, False
    while args and args[0].startswith("-"):
        option = args.pop(0)
        if option == "-n":
            value_only = True
        elif option == "-q":
            quiet = True
        elif option != "-w":
            return unmodelled("sysctl", argv)
    if not args:
        return unmodelled("sysctl", argv)
    out: list[str] = []
    for item in args:
        key, equals, value = item.partition("=")
        key = key.replace("/", ".")
        if key not in SYSCTL_KEYS:
            path = "/proc/sys/" + key.replace(".", "/")
            return CommandResult(stdout="".join(out), stderr=f"sysctl: cannot stat {path}: "
                                 "No such file or directory\n", status=1)
        if equals:
            try:
                number = int(value)
            except ValueError:
                return unmodelled("sysctl", argv)
            if key == "net.ipv4.ip_forward":
                model.set_ip_forward(host, number)
            else:
                model.set_sysctl(host, key, number)
            if quiet:
                continue
        shown = _sysctl_value(host, key)
        out.append(f"{shown}\n" if value_only else f"{key} = {shown}\n")
    return CommandResult(stdout="".join(out))
