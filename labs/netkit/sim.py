"""The labsim backend: one Session per host, all sharing one labsim.net Network.

The hosts are added in topology order with their underlay addresses, and the runner makes
each WireGuard interface with `ip link add IF type wireguard` (the lab VM's kernel WireGuard
way; the real backend starts wireguard-go instead). Then the same scripts and checks run.
"""

from __future__ import annotations

import sys

from netkit import LABS_ROOT, Result, Topology


def _labsim():
    try:
        import labsim  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(LABS_ROOT.parent / "sim" / "src"))


def up(topology: Topology):
    """A ``netkit.Shell`` on a new simulated network with the lab's hosts."""
    _labsim()
    from labsim.net.model import Network, add_host
    from labsim.shell.session import Session

    network = Network()
    sessions = {}
    for host in topology.hosts.values():
        add_host(network, host.name, underlay=host.address)
        session = Session(network=network, hostname=host.name)
        for iface in host.wireguard:
            made = session.run(f"ip link add {iface} type wireguard")
            assert made.status == 0, made
        sessions[host.name] = session

    def run(host: str, line: str) -> Result:
        result = sessions[host].run(line)
        return Result(result.stdout, result.stderr, result.status)

    run.sessions = sessions  # type: ignore[attr-defined]
    return run
