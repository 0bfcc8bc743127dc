"""`nft` (nftables 1.0.6, Debian 12), only on a network whose firewall_backend is NFT
(elsewhere there is no `nft`): the rule files wg-quick loads and the listings it reads
(labsim.net.nftables).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.net import model, nftables
from labsim.net.model import Host
from labsim.shell.base import CommandResult
from labsim.shell.commands.net_common import host_of, unmodelled
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session


@command("nft")
def nft(session: Session, argv: list[str], stdin: str | None = None) -> CommandResult:
    """`nft -f FILE` (a host file, or - for standard input) with the lines wg-quick's
    add_default() and remove_firewall() write; `nft list tables [FAMILY]`; `nft list table
    [FAMILY] NAME` for a table nft made; `nft list ruleset [FAMILY]` while every table it
    would list is one nft made (labsim.net.nftables says what is modelled and why). Without
    nftables on the machine (Network.firewall_backend IPTABLES) bash finds no nft."""
    network = session.network
    assert network is not None
    if not model.nft_installed(network):
        return CommandResult.fail(f"bash: {argv[0]}: command not found", 127)
    host = host_of(session)
    args = argv[1:]
    try:
        if len(args) == 2 and args[0] in ("-f", "--file"):
            if args[1] in ("-", "/dev/stdin"):
                text = stdin or ""
            else:
                found = session.host_files.get(session.absolute(args[1]))
                if found is None or found.text is None:
                    return unmodelled("nft", [*argv, "(a file that is not a script)"])
                text = found.text
            host.nf_tables = nftables.apply(host.nf_tables, nftables.parse_script(text))
            return CommandResult()
        if args[:1] == ["list"] and len(args) in (2, 3, 4):
            return _nft_list(host, args[1], args[2:], argv)
    except nftables.NotModelled as err:
        return unmodelled("nft", [*argv, f"({err.line})"])
    return unmodelled("nft", argv)


def _nft_list(host: Host, what: str, rest: list[str], argv: list[str]) -> CommandResult:
    family = rest.pop(0) if rest and rest[0] in nftables.FAMILIES else None
    if rest and rest[0] in ("inet", "arp", "bridge", "netdev"):
        return unmodelled("nft", argv)
    if what in ("tables", "ruleset") and not rest:
        ruleset = host.nf_tables
        return CommandResult(stdout=nftables.list_tables(ruleset.order, family)
                             if what == "tables" else nftables.list_ruleset(ruleset, family))
    if what == "table" and len(rest) == 1:
        table = host.nf_tables.tables.get((family or "ip", rest[0]))
        if table is not None:
            return CommandResult(stdout=nftables.list_table(table))
        # A table iptables-nft made, or none: nft's listing of the one and its error for
        # the other are not modelled.
    return unmodelled("nft", argv)
