"""netkit: network labs of several hosts, run for real in Linux namespaces or in labsim.

A lab is a folder under ``labs/net/`` with a ``topology.toml``: the LAN segments, the hosts
(each with an address on one or more segments, its WireGuard interfaces, a command script,
optionally files, an /etc/hosts and services), optional variants (other scripts or files for
some hosts) and the checks ``validate`` runs. The same script lines run unchanged on both
backends:

* ``netkit.real``: one network namespace per host, with its own mount namespace and tmpfs
  on /run (wireguard-go's control socket, /var/run/wireguard/IF.sock, would otherwise be
  shared by every namespace) and on /etc/wireguard (wg-quick's configuration files), one
  bridge per segment in a namespace of their own, and one wireguard-go per WireGuard
  interface the runner makes (wg-quick starts its own).
* ``netkit.sim``: one labsim Session per host, sharing one labsim.net Network.

Scripts are divided into steps by ``# step NAME: title`` comments. The runner runs the steps
in order, each on every host that has it. Before a host's step it installs the lab files
meant for that step, and in them and in the step's lines it replaces ``${HOST_PUBKEY}``
(HOST upper-cased) by that host's public key and ``${HOST_IF_PUBKEY}`` by the key of the
host's interface IF. A key is read after every step: from the running interface (`wg show
IF public-key`), or for an interface wg-quick will make, from the private key its
configuration's PostUp reads, /etc/wireguard/IF.key. That is how hosts learn each other's
keys. This module (and the real backend) use the standard library only.
"""

from __future__ import annotations

import ipaddress
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

LABS_ROOT = Path(__file__).resolve().parents[1]
NET_DIR = LABS_ROOT / "net"

STEP_MARKER = re.compile(r"^\s*#\s*step\s+([a-z][a-z0-9-]*)\s*:\s*(.+?)\s*$")
# ${ALICE_PUBKEY} (alice's first interface) or ${SERVER_WG1_PUBKEY} (server's wg1).
PLACEHOLDER = re.compile(r"\$\{([A-Z][A-Z0-9]*(?:_[A-Z][A-Z0-9]*)?)_PUBKEY\}")
PUBLIC_KEY = re.compile(r"^[A-Za-z0-9+/]{43}=$")
# A line that ends with this comment must fail (sh and labsim both read it as a comment).
EXPECT_FAIL = "# expect-fail"
NAME = re.compile(r"^[a-z][a-z0-9]{0,7}$")
LAB_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,23}$")
SERVICE = re.compile(r"^(http):([0-9]{1,5})$")
# Where lab files may go: the host's private tmpfs mounts (never the machine's own /etc).
FILE_ROOTS = ("/etc/wireguard/", "/run/")
DEFAULT_SEGMENT = "lan"

# Exit statuses of `validate`, as netlab's: all passed, some failed, nothing to check.
PASSED, FAILED, NO_TESTS = 0, 1, 2


class NetkitError(Exception):
    """A lab file is malformed, or a lab command failed."""


CHECK_KINDS = ("ping", "handshake", "route", "http", "forwarding", "file",
               "ssh", "ssh_mux")  # ssh, ssh_mux: netkit/ssh.py (slow-SSH lab)


@dataclass(frozen=True)
class Check:
    """One fact ``validate`` reads on ``host``; exactly one of:

    * ``ping``: an address that answers one ping within ``wait`` seconds;
    * ``handshake``: an interface that has a handshake with every peer;
    * ``route``: a line of `ip route` (of table ``table`` if given) starting with these words;
    * ``http``: a URL whose GET (curl) succeeds within ``wait`` seconds, with
      ``expect_body`` in the answer if given;
    * ``forwarding``: true if net.ipv4.ip_forward must be on, false if off;
    * ``file``: a path whose text has ``contains`` in it, or does not have ``lacks``.
    * ``ssh`` / ``ssh_mux`` (netkit/ssh.py, the slow-SSH lab): `ssh TARGET true` succeeds
      over a fresh connection / over a master one; with ``baseline`` and ``within``, the
      fresh login also takes less than ``within`` seconds longer than a login to a second
      sshd on host ``baseline`` that looks up no names.

    ``expect = "failure"`` turns the check around (a ping that must not be answered).
    ``contains`` and ``lacks`` may name public keys as ``${HOST_PUBKEY}``.
    """

    name: str
    host: str
    ping: str | None = None
    handshake: str | None = None
    route: str | None = None
    table: str | None = None
    http: str | None = None
    expect_body: str | None = None
    forwarding: bool | None = None
    file: str | None = None
    contains: str | None = None
    lacks: str | None = None
    # netkit/ssh.py: a login to this target (no more than ``within`` seconds slower than a
    # baseline login to host ``baseline`` that looks up no names), or one that reuses a
    # master connection.
    ssh: str | None = None
    baseline: str | None = None
    within: float | None = None
    ssh_mux: str | None = None
    expect: str = "success"
    wait: int = 2

    @property
    def kind(self) -> str:
        return next(k for k in CHECK_KINDS if getattr(self, k) is not None)

    def describe(self) -> str:
        if self.kind in ("ssh", "ssh_mux"):  # slow-SSH lab
            from netkit import ssh
            return ssh.describe(self)
        negated = self.expect == "failure"
        if self.ping:
            return f"ping {self.ping} {'does not answer' if negated else 'answers'}"
        if self.handshake:
            return f"{self.handshake} has a handshake with every peer" + (" (not)" * negated)
        if self.route:
            table = f" table {self.table}" if self.table else ""
            return f"ip route{table} {'lacks' if negated else 'has'} `{self.route}`"
        if self.http:
            body = f" with `{self.expect_body}`" if self.expect_body else ""
            return f"GET {self.http} {'fails' if negated else 'answers'}{body}"
        if self.forwarding is not None:
            return f"net.ipv4.ip_forward is {'on' if self.forwarding != negated else 'off'}"
        text = self.contains if self.contains is not None else self.lacks
        has = (self.contains is not None) != negated
        return f"{self.file} {'has' if has else 'lacks'} `{text}`"

    def problems(self) -> str | None:
        """What is wrong with the check's fields, if anything."""
        if sum(getattr(self, k) is not None for k in CHECK_KINDS) != 1:
            return f"give one of {', '.join(CHECK_KINDS)}"
        kind = self.kind
        from netkit import ssh  # slow-SSH lab: `baseline` and `within` go with ssh
        if ssh.problems(self):
            return ssh.problems(self)
        if self.table is not None and kind != "route":
            return "table goes with route"
        if self.expect_body is not None and kind != "http":
            return "expect_body goes with http"
        if kind == "file" and (self.contains is None) == (self.lacks is None):
            return "a file check gives contains or lacks"
        if kind != "file" and (self.contains is not None or self.lacks is not None):
            return "contains and lacks go with file"
        if self.expect not in ("success", "failure"):
            return "expect is success or failure"
        return None


@dataclass(frozen=True)
class LabFile:
    """A file of the lab folder (``source``) installed on ``host`` at ``path`` before the
    host's step ``step``, its ``${..._PUBKEY}`` placeholders replaced by public keys."""

    host: str
    path: str
    source: Path
    step: str
    mode: int = 0o600


@dataclass(frozen=True)
class Service:
    """A server the runner starts on a host: ``http`` is a tiny web server
    (netkit/http_server.py) answering every GET with ``HOST: request from CLIENT_IP``."""

    kind: str
    port: int


@dataclass(frozen=True)
class Host:
    name: str
    # (segment, address/prefix) of eth0, eth1, ... in this order.
    addresses: tuple[tuple[str, str], ...]
    # Interfaces the runner makes (wireguard-go; `ip link add IF type wireguard` in labsim).
    wireguard: tuple[str, ...]
    script: Path
    # Interfaces the script makes itself with `wg-quick up IF` from /etc/wireguard/IF.conf.
    wg_quick: tuple[str, ...] = ()
    # Lines (address, names) of the host's own /etc/hosts; empty: the machine's /etc/hosts.
    hosts_file: tuple[tuple[str, str], ...] = ()
    files: tuple[LabFile, ...] = ()
    services: tuple[Service, ...] = ()

    @property
    def address(self) -> str:
        """The address (with prefix) of eth0."""
        return self.addresses[0][1]

    @property
    def interfaces(self) -> tuple[str, ...]:
        """Every WireGuard interface of the host, the runner's first."""
        return self.wireguard + self.wg_quick


@dataclass(frozen=True)
class Variant:
    description: str
    scripts: dict[str, Path]
    files: tuple[LabFile, ...] = ()


@dataclass(frozen=True)
class Topology:
    name: str
    path: Path
    title: str
    hosts: dict[str, Host]
    checks: tuple[Check, ...]
    variants: dict[str, Variant] = field(default_factory=dict)
    # Segment name -> prefix; every host's eth links are on these.
    segments: dict[str, str] = field(default_factory=dict)

    def variant(self, name: str | None) -> Variant | None:
        if name is None:
            return None
        if name not in self.variants:
            known = ", ".join(self.variants) or "none"
            raise NetkitError(f"{self.name}: no variant {name!r} (variants: {known})")
        return self.variants[name]

    def scripts(self, variant: str | None = None) -> dict[str, Path]:
        scripts = {name: host.script for name, host in self.hosts.items()}
        chosen = self.variant(variant)
        if chosen is not None:
            scripts.update(chosen.scripts)
        return scripts

    def files(self, variant: str | None = None) -> list[LabFile]:
        """The lab files to install; a variant's file replaces the host's file with the same
        host, path and step."""
        files = {(f.host, f.path, f.step): f for h in self.hosts.values() for f in h.files}
        chosen = self.variant(variant)
        if chosen is not None:
            files.update({(f.host, f.path, f.step): f for f in chosen.files})
        return list(files.values())


def find(spec: str | Path) -> Path:
    """A lab's folder from a path (to the folder or its topology.toml) or a name in labs/net/."""
    path = Path(spec)
    if path.name == "topology.toml":
        path = path.parent
    for candidate in (path, NET_DIR / path):
        if (candidate / "topology.toml").is_file():
            return candidate.resolve()
    elsewhere = "" if path.is_absolute() else f" (nor in {NET_DIR / path})"
    raise NetkitError(f"no topology.toml in {spec}{elsewhere}")


HOST_KEYS = {"address", "addresses", "script", "wireguard", "wg_quick", "hosts_file", "file",
             "services"}


def load(spec: str | Path) -> Topology:
    folder = find(spec)
    name = folder.name
    if not LAB_NAME.match(name):
        raise NetkitError(f"lab name {name!r}: use up to 24 of a-z, 0-9 and '-'")
    try:
        data = tomllib.loads((folder / "topology.toml").read_text())
    except tomllib.TOMLDecodeError as err:
        raise NetkitError(f"{folder / 'topology.toml'}: {err}") from None
    segments = _segments(data)
    raw_hosts = data.get("hosts", {})
    for host_name in raw_hosts:
        if not NAME.match(host_name):
            raise NetkitError(f"host name {host_name!r}: use up to 8 of a-z and 0-9")
    addresses = {h: _addresses(h, spec_, segments) for h, spec_ in raw_hosts.items()}
    hosts = {h: _host(folder, h, spec_, addresses) for h, spec_ in raw_hosts.items()}
    checks = []
    for raw in data.get("check", []):
        try:
            check = Check(**raw)
        except TypeError as err:
            raise NetkitError(f"check {raw.get('name', '?')!r}: {err}") from None
        if check.host not in hosts:
            raise NetkitError(f"check {check.name!r}: no host {check.host!r}")
        if check.baseline is not None and check.baseline not in hosts:
            raise NetkitError(f"check {check.name!r}: no host {check.baseline!r} (baseline)")
        problem = check.problems()
        if problem:
            raise NetkitError(f"check {check.name!r}: {problem}")
        checks.append(check)
    variants = {}
    for variant, spec_ in data.get("variants", {}).items():
        scripts = spec_.get("scripts", {})
        unknown = set(scripts) - set(hosts)
        if unknown:
            raise NetkitError(f"variant {variant!r}: no host {sorted(unknown)[0]!r}")
        files = []
        for raw in spec_.get("file", []):
            host = raw.get("host")
            if host not in hosts:
                raise NetkitError(f"variant {variant!r}: a file's host {host!r} is no host")
            files.append(_lab_file(folder, host, {k: v for k, v in raw.items() if k != "host"}))
        variants[variant] = Variant(spec_.get("description", ""),
                                    {h: _script(folder, s) for h, s in scripts.items()},
                                    tuple(files))
    topology = Topology(name, folder, data.get("title", name), hosts, tuple(checks), variants,
                        segments)
    for variant in [None, *variants]:
        plan(topology, variant)  # every file's step exists
    return topology


def _segments(data: dict) -> dict[str, str]:
    """``[segments.NAME] prefix = ...``, or the older single ``[lan] prefix = ...``."""
    raw = dict(data.get("segments", {}))
    if "lan" in data:
        if DEFAULT_SEGMENT in raw:
            raise NetkitError("give [lan] or [segments.lan], not both")
        raw[DEFAULT_SEGMENT] = data["lan"]
    segments = {}
    for name, spec in raw.items():
        if not NAME.match(name):
            raise NetkitError(f"segment name {name!r}: use up to 8 of a-z and 0-9")
        try:
            segments[name] = str(ipaddress.IPv4Network(spec["prefix"]))
        except (KeyError, TypeError, ValueError) as err:
            raise NetkitError(f"segment {name}: give prefix, an IPv4 network ({err})") from None
    return segments


def _addresses(host: str, spec: dict, segments: dict[str, str]) -> tuple[tuple[str, str], ...]:
    if ("address" in spec) == ("addresses" in spec):
        raise NetkitError(f"host {host}: give address (on the one LAN) or addresses "
                          "(segment = address/prefix, one per segment), not both")
    pairs = ([(DEFAULT_SEGMENT, spec["address"])] if "address" in spec
             else list(spec["addresses"].items()))
    for segment, address in pairs:
        try:
            interface = ipaddress.IPv4Interface(address)
        except ValueError as err:
            raise NetkitError(f"host {host}: {err}") from None
        if segments and segment not in segments:
            raise NetkitError(f"host {host}: no segment {segment!r} "
                              f"(segments: {', '.join(segments)})")
        if segment in segments and interface.ip not in ipaddress.IPv4Network(segments[segment]):
            raise NetkitError(f"host {host}: {address} is not in {segment} "
                              f"({segments[segment]})")
    return tuple(pairs)


def _host(folder: Path, name: str, spec: dict,
          addresses: dict[str, tuple[tuple[str, str], ...]]) -> Host:
    if "script" not in spec or not set(spec) <= HOST_KEYS:
        raise NetkitError(f"host {name}: give address or addresses, script and optionally "
                          "wireguard, wg_quick (lists of interfaces), hosts_file, file, "
                          "services; nothing else")
    wireguard = tuple(spec.get("wireguard", ()))
    wg_quick = tuple(spec.get("wg_quick", ()))
    if len(set(wireguard + wg_quick)) != len(wireguard + wg_quick):
        raise NetkitError(f"host {name}: an interface is in wireguard or wg_quick twice")
    services = []
    for text in spec.get("services", ()):
        match = SERVICE.match(text)
        if not match or not 0 < int(match.group(2)) < 65536:
            raise NetkitError(f"host {name}: service {text!r}: give http:PORT")
        services.append(Service(match.group(1), int(match.group(2))))
    return Host(name, addresses[name], wireguard, _script(folder, spec["script"]), wg_quick,
                _hosts_file(name, spec.get("hosts_file", False), addresses),
                tuple(_lab_file(folder, name, raw) for raw in spec.get("file", ())),
                tuple(services))


def _hosts_file(host: str, spec: bool | list[str],
                addresses: dict[str, tuple[tuple[str, str], ...]]) -> tuple[tuple[str, str], ...]:
    """``true``: every host's name at its first address; or "ADDRESS NAME..." lines."""
    if spec is True:
        return tuple((pairs[0][1].split("/")[0], name) for name, pairs in addresses.items())
    if spec is False:
        return ()
    lines = []
    for entry in spec:
        parts = str(entry).split()
        try:
            ipaddress.ip_address(parts[0])
        except (IndexError, ValueError):
            raise NetkitError(f"host {host}: hosts_file entry {entry!r}: give "
                              "\"ADDRESS NAME...\"") from None
        if len(parts) < 2:
            raise NetkitError(f"host {host}: hosts_file entry {entry!r} names no host")
        lines.append((parts[0], " ".join(parts[1:])))
    return tuple(lines)


def hosts_text(host: Host) -> str:
    """The host's /etc/hosts, as the runner writes it."""
    lines = ["127.0.0.1\tlocalhost", *(f"{a}\t{n}" for a, n in host.hosts_file)]
    return "\n".join(lines) + "\n"


def _lab_file(folder: Path, host: str, raw: dict) -> LabFile:
    if not {"path", "source", "step"} <= set(raw) <= {"path", "source", "step", "mode"}:
        raise NetkitError(f"host {host}: a file gives path, source, step and optionally mode")
    path = raw["path"]
    if not path.startswith(FILE_ROOTS) or "/../" in path or path.endswith("/"):
        raise NetkitError(f"host {host}: file {path}: lab files go under "
                          f"{' or '.join(FILE_ROOTS)} (the host's own tmpfs)")
    source = folder / raw["source"]
    if not source.is_file():
        raise NetkitError(f"file {source} does not exist")
    mode = raw.get("mode", "600")
    try:
        return LabFile(host, path, source, raw["step"], int(str(mode), 8))
    except ValueError:
        raise NetkitError(f"host {host}: file {path}: mode {mode!r} is not octal") from None


def _script(folder: Path, name: str) -> Path:
    path = folder / name
    if not path.is_file():
        raise NetkitError(f"script {path} does not exist")
    return path


def steps(text: str) -> list[tuple[str, list[str]]]:
    """(step name, command lines) in order; lines before the first marker form step ''."""
    out: list[tuple[str, list[str]]] = [("", [])]
    for raw in text.splitlines():
        marker = STEP_MARKER.match(raw)
        if marker:
            out.append((marker.group(1), []))
            continue
        line = raw.strip()
        if line and not line.startswith("#"):
            out[-1][1].append(line)
    return [(name, lines) for name, lines in out if name or lines]


def plan(topology: Topology, variant: str | None = None) -> list[tuple[str, str, list[str]]]:
    """(step, host, lines): each step on every host that has it, in the order the steps
    first appear (hosts in topology order)."""
    per_host = {h: dict(steps(p.read_text())) for h, p in topology.scripts(variant).items()}
    for lab_file in topology.files(variant):
        if lab_file.step not in per_host[lab_file.host]:
            raise NetkitError(f"{lab_file.host}: {lab_file.path} is for step "
                              f"{lab_file.step!r}, which {lab_file.host}'s script lacks")
    order: list[str] = []
    for host_steps in per_host.values():
        order += [s for s in host_steps if s not in order]
    return [(step, host, per_host[host][step])
            for step in order for host in topology.hosts if step in per_host[host]]


@dataclass(frozen=True)
class Result:
    stdout: str
    stderr: str
    status: int


Shell = Callable[[str, str], Result]
"""Runs one command line on a host (host name, line) and returns what it printed."""

Installer = Callable[[str, str, str, int], None]
"""Writes a file on a host: (host name, path, text, mode)."""


def substitute(line: str, keys: dict[str, str]) -> str:
    def key(match: re.Match[str]) -> str:
        label = match.group(1)
        if label not in keys:
            owner = label.lower().replace("_", "'s ")
            raise NetkitError(f"{match.group(0)}: {owner} has no public key yet (set a "
                              "private key in an earlier step)")
        return keys[label]

    return PLACEHOLDER.sub(key, line)


def read_keys(topology: Topology, shell: Shell, keys: dict[str, str]) -> None:
    """Add to ``keys`` the public keys now readable: "HOST_IF" for every interface (those
    the topology names, and any other `wg show interfaces` lists), "HOST" for the first one
    that has a key. An interface that is up answers `wg show IF public-key`; for one wg-quick
    will make, the key is that of /etc/wireguard/IF.key, the private key its PostUp sets
    (`PostUp = wg set %i private-key /etc/wireguard/%i.key`)."""
    for host in topology.hosts.values():
        interfaces = list(host.interfaces)
        if host.name.upper() not in keys:
            # Also any interface the host has made without the topology naming it.
            listed = shell(host.name, "wg show interfaces")
            if listed.status == 0:
                interfaces += [i for i in listed.stdout.split() if i not in interfaces]
        for iface in interfaces:
            label = f"{host.name}_{iface}".upper()
            if label not in keys:
                key = _public_key(shell, host.name, iface, iface in host.wg_quick)
                if key is None:
                    continue
                keys[label] = key
            keys.setdefault(host.name.upper(), keys[label])
    from netkit import ssh  # slow-SSH lab: ${HOST_SSH_PUBKEY}, ${HOST_SSHHOST_PUBKEY}
    ssh.read_keys(topology, shell, keys)


def _public_key(shell: Shell, host: str, iface: str, key_file: bool) -> str | None:
    lines = [f"wg show {iface} public-key"]
    if key_file:
        lines.append(f"cat /etc/wireguard/{iface}.key | wg pubkey")
    for line in lines:
        result = shell(host, line)
        if result.status == 0 and PUBLIC_KEY.match(result.stdout.strip()):
            return result.stdout.strip()
    return None


def configure(topology: Topology, shell: Shell, variant: str | None = None,
              log: Callable[[str], None] = print,
              install: Installer | None = None) -> list[tuple[str, str, Result]]:
    """Run every host's script, step by step, installing each lab file (with ``install``)
    before its step; returns (host, line, result) in order."""
    keys: dict[str, str] = {}
    files = topology.files(variant)
    if files and install is None:
        raise NetkitError(f"{topology.name} installs files, and this backend cannot")
    done = []
    current = None
    for step, host, lines in plan(topology, variant):
        if step != current:
            if current is not None:
                read_keys(topology, shell, keys)
            current = step
        if step:
            log(f"# {host}: step {step}")
        for lab_file in files:
            if (lab_file.host, lab_file.step) == (host, step) and install is not None:
                install(host, lab_file.path, substitute(lab_file.source.read_text(), keys),
                        lab_file.mode)
                log(f"# {host}: installed {lab_file.path} from {lab_file.source.name}")
        for raw in lines:
            line = substitute(raw, keys)
            result = shell(host, line)
            done.append((host, line, result))
            log(f"{host}$ {line}\n{result.stdout}{result.stderr}".rstrip("\n"))
            expect_fail = raw.endswith(EXPECT_FAIL)
            if (result.status != 0) != expect_fail:
                raise NetkitError(f"{host}: `{line}` exited with {result.status}"
                                  + (" (it should fail)" if expect_fail else ""))
    return done


@dataclass(frozen=True)
class Outcome:
    check: Check
    passed: bool
    # "success"/"failure" for ping and http; "on"/"off" for forwarding; "present"/"missing"
    # otherwise (for a file check: whether the text is in the file).
    observed: str
    detail: str

    def as_dict(self) -> dict[str, object]:
        return {"name": self.check.name, "host": self.check.host, "kind": self.check.kind,
                "passed": self.passed, "observed": self.observed, "detail": self.detail}


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def evaluate(check: Check, shell: Shell, keys: dict[str, str] | None = None,
             topology: Topology | None = None) -> Outcome:
    """Read the check's fact on its host (``keys`` fill in a file check's placeholders; an
    ssh check with a baseline needs the ``topology`` for the baseline host's address)."""
    host = check.host
    if check.kind in ("ssh", "ssh_mux"):  # slow-SSH lab
        from netkit import ssh
        return ssh.evaluate(check, shell, topology)
    want = check.expect == "success"
    if check.ping:
        result = shell(host, f"ping -c 1 -W {check.wait} {check.ping}")
        ok = result.status == 0
        lines = (result.stderr + result.stdout).strip().splitlines()
        detail = next((x for x in lines if "packets transmitted" in x or "ping:" in x), "")
        return Outcome(check, ok == want, "success" if ok else "failure", detail)
    if check.handshake:
        result = shell(host, f"wg show {check.handshake} latest-handshakes")
        rows = [line.split() for line in result.stdout.splitlines() if line.strip()]
        missing = [r[0][:8] + "..." for r in rows if len(r) < 2 or r[1] == "0"]
        ok = bool(result.status == 0 and rows and not missing)
        detail = (result.stderr.strip() if result.status else "no peers" if not rows
                  else f"no handshake with {', '.join(missing)}" if missing
                  else f"{len(rows)} peer(s)")
        return Outcome(check, ok == want, "present" if ok else "missing", detail)
    if check.route:
        line = f"ip route show table {check.table}" if check.table else "ip route"
        result = shell(host, line)
        words = check.route.split()
        ok = any(r.split()[: len(words)] == words for r in result.stdout.splitlines())
        return Outcome(check, ok == want, "present" if ok else "missing",
                       "" if ok == want else f"{line}: {(result.stdout + result.stderr).strip()!r}")
    if check.http:
        result = shell(host, f"curl -s -m {check.wait} {check.http}")
        ok = result.status == 0 and (check.expect_body or "") in result.stdout
        detail = (_first_line(result.stdout) if result.status == 0
                  else f"curl exited with {result.status}")
        return Outcome(check, ok == want, "success" if ok else "failure", detail)
    if check.forwarding is not None:
        result = shell(host, "sysctl net.ipv4.ip_forward")
        value = result.stdout.strip().rsplit("=", 1)[-1].strip()
        observed = "on" if result.status == 0 and value not in ("", "0") else "off"
        ok = (observed == "on") == check.forwarding
        return Outcome(check, ok == want, observed, _first_line(result.stdout + result.stderr))
    result = shell(host, f"cat {check.file}")
    text = substitute(check.contains if check.contains is not None else check.lacks or "",
                      keys or {})
    present = result.status == 0 and text in result.stdout
    ok = present if check.contains is not None else result.status == 0 and not present
    detail = _first_line(result.stderr) if result.status else ""
    return Outcome(check, ok == want, "present" if present else "missing", detail)


def validate(topology: Topology, shell: Shell,
             log: Callable[[str], None] = print) -> tuple[int, list[Outcome]]:
    """Run every check, print one line each; returns (exit status, outcomes)."""
    if not topology.checks:
        log("no checks in this lab")
        return NO_TESTS, []
    keys: dict[str, str] = {}
    if any(PLACEHOLDER.search(f"{c.contains}{c.lacks}") for c in topology.checks):
        read_keys(topology, shell, keys)
    outcomes = []
    for check in topology.checks:
        outcome = evaluate(check, shell, keys, topology)
        outcomes.append(outcome)
        mark = "PASS" if outcome.passed else "FAIL"
        detail = f" ({outcome.detail})" if outcome.detail else ""
        log(f"[{mark}] {check.host}: {check.describe()} -- {check.name}{detail}")
    failed = sum(not o.passed for o in outcomes)
    log(f"{len(outcomes) - failed} of {len(outcomes)} checks passed")
    return (FAILED if failed else PASSED), outcomes


def snapshot(topology: Topology, shell: Shell) -> dict[str, dict[str, str]]:
    """`wg show IF dump` of every WireGuard interface, host by host: the keys, endpoints,
    handshake times and byte counters the lab ended with ("" for an interface that is
    down)."""
    return {name: {iface: shell(name, f"wg show {iface} dump").stdout
                   for iface in host.interfaces}
            for name, host in topology.hosts.items()}
