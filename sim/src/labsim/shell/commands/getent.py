"""`getent hosts` (glibc 2.36) through the host's resolver (labsim.shell.commands.resolver).
Recorded on Debian 12 in network namespaces (tools/probes/slow_ssh_probe.sh); the texts are in
tests/unit/test_ssh_commands.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.net import ssh_login as login_model
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session
from labsim.shell.commands.resolver import (
    NotModelled,
    client_settings,
    in_hosts,
    lookup_target,
    machine_of,
    parse_address,
)

GETENT_USAGE = ("getent: wrong number of arguments\n"
                "Try `getent --help' or `getent --usage' for more information.")


@command("getent")
def getent(session: Session, argv: list[str]) -> CommandResult:
    """`getent hosts KEY...` as glibc 2.36's getent does it (nss/getent.c hosts_keys()): an
    address is looked up by address; a name first as IPv6 (gethostbyname2(AF_INET6)), then
    as IPv4: a name /etc/hosts has only as IPv4 costs one DNS lookup (measured 1.0 s with
    the lab's resolver). Prints "ADDRESS NAMES" (%-15s); exit 2 if a key is not found."""
    if len(argv) < 2:
        return CommandResult.fail(GETENT_USAGE, 1)
    if argv[1] != "hosts" or len(argv) == 2:
        return CommandResult.fail(msg.command_line_not_simulated("getent", argv), 2)
    try:
        machine = machine_of(session, session.hostname)
    except NotModelled as err:
        return CommandResult.fail(msg.tool_not_simulated("getent", str(err)), 2)
    dns_lookup = login_model.lookup_seconds(machine.resolver)
    out, status, seconds = [], 0, 0.0
    for key in argv[2:]:
        found: tuple[str, list[str]] | None = None
        address = parse_address(key)
        if address is not None:
            if machine.hosts_line.files:
                found = next(((a, n) for a, n in machine.hosts if parse_address(a) == address),
                             None)
            if found is None and machine.hosts_line.dns:
                seconds += dns_lookup  # the PTR query
        else:
            if machine.hosts_line.files:
                found = in_hosts(machine.hosts, key, 6)
            if found is None and machine.hosts_line.dns:
                seconds += dns_lookup  # AAAA (mdns4_minimal passes IPv6 on to dns)
            if found is None and machine.hosts_line.files:
                found = in_hosts(machine.hosts, key, 4)
            if found is None:
                phases, _error = login_model.resolve(
                    client_settings(machine, lookup_target(key, machine.hosts_line, [])))
                seconds += sum(p.seconds for p in phases)
        if found is None:
            status = 2
        else:
            out.append(f"{found[0]:<15} {' '.join(found[1])}\n")
    session.clock += seconds
    return CommandResult(stdout="".join(out), status=status)
