"""`iptables`, `iptables-restore`, `iptables-save` (iptables 1.8.9 (nf_tables), Debian 12)
and `ip6tables-save` on the session's host's firewall (labsim.net.model), in the forms the
WireGuard lessons, the slow-SSH lab and wg-quick use; any other form gets a message that says
so. Outputs and errors were recorded from the real tools (tests/unit/test_net_policy.py,
test_wg_quick_firewall.py).
"""

from __future__ import annotations

import ipaddress
import shlex
import time
from typing import TYPE_CHECKING

from labsim.net import model
from labsim.shell.base import CommandResult
from labsim.shell.commands.net_common import host_of, unmodelled
from labsim.shell.registry import command

if TYPE_CHECKING:
    from labsim.shell.session import Session


class _NotModelled(Exception):
    pass


@command("iptables")
def iptables(session: Session, argv: list[str]) -> CommandResult:
    """`iptables -t nat -A|-D POSTROUTING -o IF -j MASQUERADE`, `iptables [-t TABLE]
    -A|-I|-D CHAIN RULE` for the rules _canonical_rule() knows (the slow-SSH lab's
    `iptables -A INPUT -p udp --dport 53 -j DROP`), and `iptables [-t TABLE] -S [CHAIN]` for
    every table the model keeps."""
    host = host_of(session)
    args = argv[1:]
    table = "filter"
    if args[:1] == ["-t"] and len(args) > 1:
        table, args = args[1], args[2:]
    if table not in model.FIREWALL_CHAINS:
        return unmodelled("iptables", argv)
    if args[:1] == ["-S"] and len(args) <= 2:
        chains = model.FIREWALL_CHAINS[table]
        if args[1:] and args[1] not in chains:
            return unmodelled("iptables", argv)
        chains = tuple(args[1:]) or chains
        table_rules = host.firewall.get(table, {})
        lines = [f"-P {chain} ACCEPT\n" for chain in chains]
        lines += [f"-A {chain} {rule}\n" for chain in chains
                  for rule in table_rules.get(chain, [])]
        return CommandResult(stdout="".join(lines))
    if (table, len(args)) == ("nat", 6) and args[0] in ("-A", "-D") and args[1] == "POSTROUTING" \
            and args[2] == "-o" and args[4:] == ["-j", "MASQUERADE"]:
        if args[0] == "-A":
            model.add_masquerade(host, args[3])
            return CommandResult()
        # A rule that is not there makes no table either (iptables-nft 1.8.9, recorded).
        rule = f"-o {args[3]} -j MASQUERADE"
        if rule not in host.firewall.get("nat", {}).get("POSTROUTING", []):
            return CommandResult.fail(IPTABLES_NO_RULE, 1)
        model.firewall_rules(host, "nat", "POSTROUTING").remove(rule)
        return CommandResult()
    if len(args) > 2 and args[0] in ("-A", "-I", "-D") \
            and args[1] in model.FIREWALL_CHAINS[table]:
        # Any other rule is kept and listed; what it does is modelled only where a command
        # reads it (ssh and getent: a DROP of port 53 on a name server's host).
        try:
            rule = _canonical_rule(args[2:])
        except _NotModelled:
            return unmodelled("iptables", argv)
        if args[0] == "-D" and rule not in host.firewall.get(table, {}).get(args[1], []):
            return CommandResult.fail(IPTABLES_NO_RULE, 1)
        rules = model.firewall_rules(host, table, args[1])
        if args[0] == "-A":
            rules.append(rule)
        elif args[0] == "-I":
            rules.insert(0, rule)
        else:
            rules.remove(rule)
        return CommandResult()
    return unmodelled("iptables", argv)


IPTABLES_NO_RULE = "iptables: Bad rule (does a matching rule exist in that chain?)."
IPTABLES_VERSION = "v1.8.9 (nf_tables)"


def _canonical_rule(words: list[str]) -> str:
    """A rule as iptables-save prints it, from the options it was given with: the
    addresses (a bare address gets /32) and interfaces, the protocol, the matches in the
    order given, the target last (save_rule_details() in iptables/xshared.c; nft_rule_print_
    save()). Only what wg-quick's rules and the slow-SSH lab use: -d/-s, -i/-o, -p (and
    --sport/--dport after -p udp|tcp), -m addrtype --src-type, -m comment, -m mark --mark,
    -j DROP/ACCEPT/MASQUERADE/CONNMARK --save-mark/--restore-mark.
    """
    fields: dict[str, str] = {}
    matches: list[str] = []
    # -p udp|tcp --sport/--dport load the protocol's match implicitly; iptables-save shows
    # it first, source port before destination port (udp_save() in libxt_udp.c, tcp_save()).
    ports: dict[str, str] = {}
    target = None
    words = list(words)
    negate = ""
    while words:
        word = words.pop(0)
        if word == "!":
            negate = "! "
            continue
        if word in ("-s", "-d", "-i", "-o", "-p") and words:
            value = words.pop(0)
            if word in ("-s", "-d"):
                try:
                    value = str(ipaddress.IPv4Network(value, strict=False))
                except ValueError:
                    raise _NotModelled from None
            fields[word] = f"{negate}{word} {value}"
        elif word == "-m" and words:
            matches.append(_canonical_match(words.pop(0), words))
        elif word in ("--sport", "--dport") and words and not negate \
                and fields.get("-p") in ("-p udp", "-p tcp"):
            ports[word] = words.pop(0)
        elif word == "-j" and words and target is None:
            target = _canonical_target(words.pop(0), words)
        else:
            raise _NotModelled
        negate = ""
    if target is None or negate:
        raise _NotModelled
    parts = [fields[o] for o in ("-s", "-d", "-i", "-o", "-p") if o in fields]
    if ports:
        protocol = fields["-p"].split()[1]
        matches.insert(0, " ".join([f"-m {protocol}", *(f"{o} {ports[o]}" for o in
                                                        ("--sport", "--dport") if o in ports)]))
    return " ".join([*parts, *matches, target])


def _canonical_match(name: str, words: list[str]) -> str:
    """``-m NAME`` and its options, taken from the front of ``words``."""
    negate = ""
    if words[:1] == ["!"] and name == "addrtype":
        negate = "! "
        words.pop(0)
    if name == "addrtype" and words[:1] == ["--src-type"] and len(words) > 1:
        words.pop(0)
        return f"-m addrtype {negate}--src-type {words.pop(0)}"
    if name == "comment" and words[:1] == ["--comment"] and len(words) > 1 and not negate:
        words.pop(0)
        return f'-m comment --comment "{words.pop(0)}"'
    if name == "mark" and words[:1] == ["--mark"] and len(words) > 1 and not negate:
        words.pop(0)
        mark, _, mask = words.pop(0).partition("/")
        try:
            value = int(mark, 0)
            shown_mask = f"/0x{int(mask, 0):x}" if mask and int(mask, 0) != 0xFFFFFFFF else ""
        except ValueError:
            raise _NotModelled from None
        return f"-m mark --mark 0x{value:x}{shown_mask}"
    raise _NotModelled


def _canonical_target(name: str, words: list[str]) -> str:
    if name in ("DROP", "ACCEPT", "MASQUERADE"):
        return f"-j {name}"
    if name == "CONNMARK" and words[:1] in (["--save-mark"], ["--restore-mark"]):
        action = words.pop(0)
        # The masks are printed even when left at their defaults (connmark_tg_save() in
        # libxt_CONNMARK.c); iptables-save's own output gives them, and reads back.
        masks = {"--nfmask": 0xFFFFFFFF, "--ctmask": 0xFFFFFFFF}
        while words[:1] in (["--nfmask"], ["--ctmask"]) and len(words) > 1:
            option = words.pop(0)
            try:
                masks[option] = int(words.pop(0), 0)
            except ValueError:
                raise _NotModelled from None
        return (f"-j CONNMARK {action} --nfmask 0x{masks['--nfmask']:x} "
                f"--ctmask 0x{masks['--ctmask']:x}")
    raise _NotModelled


@command("iptables-restore")
def iptables_restore(session: Session, argv: list[str], stdin: str | None = None) -> CommandResult:
    """`iptables-restore -n` (--noflush), as wg-quick pipes its rules into it when nft is not
    installed (a network whose firewall_backend is IPTABLES: add_default() and
    remove_firewall() in wg-quick/linux.bash): `*TABLE`, then -A, -I or -D lines, then COMMIT;
    each table's changes are committed at its COMMIT, or none of them if one fails. The rules
    are stored and listed (iptables-save, iptables -S); their effect is not modelled: the
    raw-table DROP keeps other hosts from sending to the tunnel address over the LAN, and the
    mangle CONNMARK rules carry the fwmark to the answers of WireGuard's datagrams for the
    reverse-path filter. Neither changes a lesson's traffic, so they are no-ops here."""
    if argv[1:] not in (["-n"], ["--noflush"]):
        return unmodelled("iptables-restore", argv)
    host = host_of(session)
    table: str | None = None
    staged: dict[str, list[str]] = {}
    for number, line in enumerate((stdin or "").splitlines(), 1):
        words = shlex.split(line, comments=True) if line.strip() else []
        if not words:
            continue
        if words[0].startswith("*") and len(words) == 1 and table is None:
            table = words[0][1:]
            if table not in model.FIREWALL_CHAINS:
                return unmodelled("iptables-restore", [*argv, f"(line {number}: {line})"])
            staged = {c: list(r) for c, r in host.firewall.get(table, {}).items()}
            continue
        if words == ["COMMIT"] and table is not None:
            if any(staged.values()) or table in host.firewall:
                model.set_firewall_rules(host, table, staged)
            table = None
            continue
        if table is None or len(words) < 3 or words[0] not in ("-A", "-I", "-D") \
                or words[1] not in model.FIREWALL_CHAINS[table]:
            return unmodelled("iptables-restore", [*argv, f"(line {number}: {line})"])
        try:
            rule = _canonical_rule(words[2:])
        except _NotModelled:
            return unmodelled("iptables-restore", [*argv, f"(line {number}: {line})"])
        rules = staged.setdefault(words[1], [])
        if words[0] == "-A":
            rules.append(rule)
        elif words[0] == "-I":
            rules.insert(0, rule)
        elif rule in rules:
            rules.remove(rule)
        else:
            return CommandResult.fail(f"iptables-restore: line {number} failed: Bad rule (does "
                                      "a matching rule exist in that chain?).", 1)
    return CommandResult()


@command("iptables-save")
def iptables_save(session: Session, argv: list[str]) -> CommandResult:
    """`iptables-save`: every table that has had a rule, in iptables' order, each chain
    with policy ACCEPT and no counters (nf_tables keeps none for them), dated by the
    session's clock in UTC."""
    if argv[1:]:
        return unmodelled("iptables-save", argv)
    host = host_of(session)
    when = time.asctime(time.gmtime(session.now()))
    out = []
    for table, chains in model.FIREWALL_CHAINS.items():
        if table not in host.firewall:
            continue
        out.append(f"# Generated by iptables-save {IPTABLES_VERSION} on {when}\n*{table}\n")
        out += [f":{chain} ACCEPT [0:0]\n" for chain in chains]
        out += [f"-A {chain} {rule}\n" for chain in chains
                for rule in host.firewall[table].get(chain, [])]
        out.append(f"COMMIT\n# Completed on {when}\n")
    return CommandResult(stdout="".join(out))


@command("ip6tables-save")
def ip6tables_save(session: Session, argv: list[str]) -> CommandResult:
    """`ip6tables-save`: the model has no IPv6 firewall, so nothing, as on a host where
    no ip6tables rule was ever added."""
    if argv[1:]:
        return unmodelled("ip6tables-save", argv)
    return CommandResult()
