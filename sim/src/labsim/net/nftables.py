"""nftables tables made with `nft`, as far as wg-quick uses them: what `nft -f` reads and what
`nft list` prints (nftables 1.0.6, Debian 12; recorded in tests/unit/test_wg_quick_firewall.py
from tools/probes/wg_quick_nft_probe.sh).

When `nft` is installed, wireguard-tools' wg-quick (src/wg-quick/linux.bash, add_default())
puts its rules for a default route in a table of its own, `table ip wg-quick-IF` (ip6 for an
IPv6 default route), with three base chains: preraw (prerouting, priority -300, which nft
lists as "raw"), premangle (prerouting, -150, "mangle") and postmangle (postrouting, -150).
remove_firewall() deletes every table `nft list tables` names that ends in " wg-quick-IF".

The model keeps each table's chains and rules in the form `nft list` prints them: a rule read
from a script is turned into that form by ``canonical_rule`` (`mark 51820` is listed as `meta
mark 0x0000ca6c`, `ct mark set mark` as `ct mark set meta mark`, `ip daddr 10.0.0.1/32` as
`ip daddr 10.0.0.1`). Only the statements wg-quick writes are known; anything else, and every
error `nft` would report, is ``NotModelled``: the caller says so rather than guess nft's
text. What the rules do to packets is not modelled either: the preraw DROP keeps other hosts
from reaching the tunnel's address from another interface, and the mark rules carry
WireGuard's fwmark to the answers for the reverse-path filter; neither changes a lesson's
traffic.

Everything here is pure: scripts and tables in, tables and text out.
"""

from __future__ import annotations

import ipaddress
import re
import shlex
from dataclasses import dataclass, field, replace

# The families the model knows (nft also has inet, arp, bridge and netdev).
FAMILIES = ("ip", "ip6")
HOOKS = ("prerouting", "input", "forward", "output", "postrouting")
# The standard priorities of the ip and ip6 families that nft lists by name (nftables'
# std_prios in src/rule.c: raw -300, mangle -150, filter 0); nft prints any other value
# relative to the nearest name ("raw + 1", "mangle - 10"), which the model does not.
PRIORITY_NAMES = {-300: "raw", -150: "mangle", 0: "filter"}


class NotModelled(Exception):
    """A command or script line the model does not know, or one nft would refuse (its
    errors are not modelled); ``line`` says which."""

    def __init__(self, line: str):
        super().__init__(line)
        self.line = line


@dataclass(frozen=True)
class NftChain:
    """A base chain (`type filter hook HOOK priority N; policy accept;`) and its rules, in
    order, as `nft list` prints them."""

    name: str
    hook: str
    priority: int
    rules: tuple[str, ...] = ()


@dataclass(frozen=True)
class NftTable:
    family: str
    name: str
    chains: tuple[NftChain, ...] = ()


@dataclass(frozen=True)
class Command:
    """One line of an `nft -f` script: ``verb`` "add" or "delete", ``what`` "table", "chain"
    or "rule"; ``chain`` for a chain or rule, ``spec`` a chain's (hook, priority) and
    ``rule`` a rule in listed form."""

    verb: str
    what: str
    family: str
    table: str
    chain: str | None = None
    spec: tuple[str, int] | None = None
    rule: str | None = None


# --- reading scripts ---------------------------------------------------------------------------


def _family(words: list[str]) -> str:
    """An optional family first (nft's default is ip)."""
    if words and words[0] in FAMILIES:
        return words.pop(0)
    if words and words[0] in ("inet", "arp", "bridge", "netdev"):
        raise NotModelled(f"the {words[0]} family")
    return "ip"


def _priority(text: str) -> int:
    names = {name: value for value, name in PRIORITY_NAMES.items()}
    if text in names:
        return names[text]
    if re.fullmatch(r"-?[0-9]+", text) and int(text) in PRIORITY_NAMES:
        return int(text)
    raise NotModelled(f"priority {text}")


def _chain_spec(text: str) -> tuple[str, int]:
    """`{ type filter hook HOOK priority N; }`, the only kind of chain wg-quick makes."""
    match = re.fullmatch(r"\{\s*type\s+filter\s+hook\s+(\w+)\s+priority\s+(-?\w+)\s*;?\s*\}",
                         text.strip())
    if match is None or match.group(1) not in HOOKS:
        raise NotModelled(text)
    return match.group(1), _priority(match.group(2))


def parse_line(line: str) -> Command | None:
    """One script line: `add table`, `add chain ... { type filter hook ... }`, `add rule` or
    `delete table` (None for a blank line or a comment)."""
    # A comment runs from # to the end of the line (no name wg-quick quotes can hold one).
    text = line.split("#", 1)[0].strip()
    if not text:
        return None
    try:
        words = shlex.split(text.split("{", 1)[0], posix=False)
    except ValueError:
        raise NotModelled(line) from None
    if len(words) < 3 or (words[0], words[1]) not in (
            ("add", "table"), ("add", "chain"), ("add", "rule"), ("delete", "table")):
        raise NotModelled(line)
    verb, what, rest = words[0], words[1], words[2:]
    family = _family(rest)
    if not rest:
        raise NotModelled(line)
    table = rest.pop(0)
    if what == "table":
        if rest or "{" in text:
            raise NotModelled(line)
        return Command(verb, what, family, table)
    if not rest:
        raise NotModelled(line)
    chain = rest.pop(0)
    if what == "chain":
        if rest or "{" not in text:
            raise NotModelled(line)
        return Command(verb, what, family, table, chain, spec=_chain_spec(text[text.index("{"):]))
    if "{" in text:
        raise NotModelled(line)
    return Command(verb, what, family, table, chain, rule=canonical_rule(rest, family))


def parse_script(text: str) -> list[Command]:
    """Every command of an `nft -f` script, in order; NotModelled names the first line the
    model does not know (as "line N: TEXT")."""
    commands = []
    for number, line in enumerate(text.split("\n"), 1):
        try:
            command = parse_line(line)
        except NotModelled:
            raise NotModelled(f"line {number}: {line}") from None
        if command is not None:
            commands.append(command)
    return commands


def _address(text: str, family: str) -> str:
    """An address or prefix as nft lists it: a host's full-length prefix without its
    length, IPv6 compressed."""
    try:
        network = (ipaddress.IPv4Network if family == "ip" else ipaddress.IPv6Network)(text)
    except ValueError:
        raise NotModelled(text) from None
    if network.prefixlen == network.max_prefixlen:
        return str(network.network_address)
    return str(network)


def _mark(text: str) -> str:
    try:
        value = int(text, 0)
    except ValueError:
        raise NotModelled(text) from None
    if not 0 <= value <= 0xFFFFFFFF:
        raise NotModelled(text)
    return f"0x{value:08x}"


def canonical_rule(words: list[str], family: str) -> str:
    """A rule's statements as `nft list` prints them. Known: iifname/oifname [!=] NAME,
    ip|ip6 saddr|daddr [!=] ADDRESS (of the table's family), fib saddr type [!=] local,
    meta l4proto udp|tcp, [meta] mark N, ct mark set [meta] mark, [meta] mark set ct mark,
    and the verdicts drop and accept: what add_default() in wg-quick/linux.bash writes."""
    words = list(words)
    out: list[str] = []

    def negation() -> str:
        if words[:1] == ["!="]:
            words.pop(0)
            return "!= "
        return ""

    def take() -> str:
        if not words:
            raise NotModelled(" ".join(out))
        return words.pop(0)

    while words:
        word = words.pop(0)
        if word in ("iifname", "oifname"):
            negate = negation()
            name = take().strip('"')
            if not re.fullmatch(r"[a-zA-Z0-9_=+.-]{1,15}", name):
                raise NotModelled(name)
            out.append(f'{word} {negate}"{name}"')
        elif word in FAMILIES and words[:1] in (["saddr"], ["daddr"]):
            if word != family:
                raise NotModelled(f"{word} in a table of family {family}")
            selector = take()
            negate = negation()
            out.append(f"{word} {selector} {negate}{_address(take(), family)}")
        elif word == "fib" and words[:2] == ["saddr", "type"]:
            del words[:2]
            negate = negation()
            if take() != "local":
                raise NotModelled("fib saddr type")
            out.append(f"fib saddr type {negate}local")
        elif word == "meta" and words[:1] == ["l4proto"]:
            words.pop(0)
            protocol = take()
            if protocol not in ("udp", "tcp"):
                raise NotModelled(f"meta l4proto {protocol}")
            out.append(f"meta l4proto {protocol}")
        elif word in ("mark", "meta"):
            if word == "meta" and take() != "mark":
                raise NotModelled("meta")
            if words[:3] == ["set", "ct", "mark"]:
                del words[:3]
                out.append("meta mark set ct mark")
            else:
                out.append(f"meta mark {_mark(take())}")
        elif word == "ct" and words[:3] == ["mark", "set", "mark"]:
            del words[:3]
            out.append("ct mark set meta mark")
        elif word == "ct" and words[:4] == ["mark", "set", "meta", "mark"]:
            del words[:4]
            out.append("ct mark set meta mark")
        elif word in ("drop", "accept") and not words:
            out.append(word)
        else:
            raise NotModelled(word)
    if not out:
        raise NotModelled("an empty rule")
    return " ".join(out)


# --- running scripts ----------------------------------------------------------------------------


@dataclass
class Ruleset:
    """A host's nf_tables tables: every one in the order it was made (``order``, (family,
    name) pairs), iptables-nft's as well as nft's, which is the order `nft list tables` and
    `nft list ruleset` show; and the contents of those nft made (``tables``). The rules of
    iptables-nft's tables are kept apart, as iptables-save prints them (Host.firewall in
    labsim.net.model)."""

    order: list[tuple[str, str]] = field(default_factory=list)
    tables: dict[tuple[str, str], NftTable] = field(default_factory=dict)


def apply(ruleset: Ruleset, commands: list[Command]) -> Ruleset:
    """The ruleset after ``commands``, all or nothing as nft commits a script (a new
    Ruleset). `add table` and `add chain` of what exists already (with the same hook and
    priority) change nothing, as in nft; adding to a table or chain that does not exist,
    deleting a table that does not, or one iptables-nft made, is not modelled (nft's
    errors are not)."""
    order, tables = list(ruleset.order), dict(ruleset.tables)
    for command in commands:
        key = (command.family, command.table)
        table = tables.get(key)
        if key in order and table is None:
            raise NotModelled(f"table {command.family} {command.table}, which iptables-nft "
                              "made")
        if command.what == "table":
            if command.verb == "add" and table is None:
                tables[key] = NftTable(*key)
                order.append(key)
            elif command.verb == "delete":
                if table is None:
                    raise NotModelled(f"delete table {command.family} {command.table}, "
                                      "which does not exist")
                del tables[key]
                order.remove(key)
            continue
        if table is None:
            raise NotModelled(f"{command.what} in table {command.family} {command.table}, "
                              "which does not exist")
        chains = {c.name: c for c in table.chains}
        chain = chains.get(command.chain or "")
        if command.what == "chain":
            assert command.spec is not None and command.chain is not None
            if chain is None:
                chains[command.chain] = NftChain(command.chain, *command.spec)
            elif (chain.hook, chain.priority) != command.spec:
                raise NotModelled(f"chain {command.chain} changed")
        else:
            assert command.rule is not None
            if chain is None:
                raise NotModelled(f"rule in chain {command.chain}, which does not exist")
            chains[chain.name] = replace(chain, rules=(*chain.rules, command.rule))
        tables[key] = replace(table, chains=tuple(chains.values()))
    return Ruleset(order, tables)


# --- listing -------------------------------------------------------------------------------------


def list_table(table: NftTable) -> str:
    """`nft list table FAMILY NAME`: the chains in the order they were made, a blank line
    between two, each with its hook line and rules (a tab per level)."""
    chains = []
    for chain in table.chains:
        lines = [f"\tchain {chain.name} {{\n",
                 f"\t\ttype filter hook {chain.hook} priority "
                 f"{PRIORITY_NAMES[chain.priority]}; policy accept;\n"]
        lines += [f"\t\t{rule}\n" for rule in chain.rules]
        lines.append("\t}\n")
        chains.append("".join(lines))
    return f"table {table.family} {table.name} {{\n" + "\n".join(chains) + "}\n"


def list_tables(names: list[tuple[str, str]], family: str | None = None) -> str:
    """`nft list tables [FAMILY]`: one line per table, in the order they were made."""
    return "".join(f"table {f} {n}\n" for f, n in names if family in (None, f))


def list_ruleset(ruleset: Ruleset, family: str | None = None) -> str:
    """`nft list ruleset [FAMILY]`: each table as list_table() prints it, one after the
    other. A table iptables-nft made is listed by nft with its rules translated (and their
    counters, and a warning on stderr), which the model does not do: NotModelled."""
    out = []
    for key in ruleset.order:
        if family not in (None, key[0]):
            continue
        if key not in ruleset.tables:
            raise NotModelled(f"table {key[0]} {key[1]}, which iptables-nft made")
        out.append(list_table(ruleset.tables[key]))
    return "".join(out)
