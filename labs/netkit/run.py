"""Running a network lab on a backend: the backend's :data:`Shell` and :data:`Installer`,
the public-key placeholders of scripts and files (``${HOST_PUBKEY}``, ``${HOST_IF_PUBKEY}``),
and :func:`configure`, which runs every host's script step by step."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labsteps import EXPECT_FAIL
from netkit.errors import NetkitError
from netkit.steps import plan

if TYPE_CHECKING:
    from netkit.topology import Topology

# ${ALICE_PUBKEY} (alice's first interface) or ${SERVER_WG1_PUBKEY} (server's wg1).
PLACEHOLDER = re.compile(r"\$\{([A-Z][A-Z0-9]*(?:_[A-Z][A-Z0-9]*)?)_PUBKEY\}")
PUBLIC_KEY = re.compile(r"^[A-Za-z0-9+/]{43}=$")


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
