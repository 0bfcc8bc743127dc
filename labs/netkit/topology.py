"""A network lab's topology.toml: its segments, hosts (addresses, WireGuard interfaces,
script, files, /etc/hosts, services), variants and checks, read and validated by
:func:`load`."""

from __future__ import annotations

import ipaddress
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from netkit.checks import Check
from netkit.errors import NetkitError
from netkit.steps import plan

LABS_ROOT = Path(__file__).resolve().parents[1]
NET_DIR = LABS_ROOT / "net"

NAME = re.compile(r"^[a-z][a-z0-9]{0,7}$")
LAB_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,23}$")
SERVICE = re.compile(r"^(http):([0-9]{1,5})$")
# Where lab files may go: the host's private tmpfs mounts (never the machine's own /etc).
FILE_ROOTS = ("/etc/wireguard/", "/run/")
DEFAULT_SEGMENT = "lan"



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
