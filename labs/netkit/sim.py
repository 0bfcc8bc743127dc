"""The labsim backend: one Session per host, all sharing one labsim.net Network.

The hosts are added in topology order with their addresses (eth0 on the first segment, one
more ethernet link per further segment), their /etc/hosts and their services, and the
runner makes each WireGuard interface of ``wireguard`` with `ip link add IF type wireguard`
(the lab VM's kernel WireGuard way; the real backend starts wireguard-go instead). Lab files
become the session's host files. Then the same scripts and checks run.

The simulated machine has nftables or not (``firewall``: "nft", the lab VM's and the
default, or "iptables"), which decides what wg-quick does for a default route: with nft it
writes a table of its own (`[#] nft -f /dev/fd/63`), without it iptables rules
(`[#] iptables-restore -n`); labsim.net.model.FirewallBackend.
"""

from __future__ import annotations

import posixpath
import sys

from netkit import LABS_ROOT, NetkitError, Result, Topology, hosts_text

WIREGUARD_CONFIG_DIR = "/etc/wireguard"


def _labsim():
    try:
        import labsim  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(LABS_ROOT.parent / "sim" / "src"))


FIREWALL_BACKENDS = ("nft", "iptables")


def up(topology: Topology, wireguard: str = "kernel", firewall: str = "nft"):
    """A ``netkit.Shell`` on a new simulated network with the lab's hosts (its ``sessions``
    are the hosts' Sessions, its ``network`` the Network). ``wireguard`` is the WireGuard
    the hosts run, as the real backend's --wireguard names it: "kernel" (the lab VM's, and
    the default) or "go" (wireguard-go), which labsim.net.delivery models apart where they
    differ. ``firewall`` is "nft" when the machine has nftables (the lab VM's, and the
    default), "iptables" when it has only iptables (see the module docstring)."""
    _labsim()
    from labsim.net import model
    from labsim.shell.session import Session

    if wireguard not in ("kernel", "go"):
        raise NetkitError(f"labsim: --wireguard {wireguard}: give kernel or go")
    if firewall not in FIREWALL_BACKENDS:
        raise NetkitError(f"labsim: --firewall {firewall}: give nft or iptables")
    network = model.Network(wireguard_implementation=wireguard,  # type: ignore[arg-type]
                            firewall_backend=model.FirewallBackend(firewall))
    sessions = {}
    for host in topology.hosts.values():
        (segment, address), *more = host.addresses
        added = model.add_host(network, host.name, underlay=address, segment=segment)
        added.package_sshd = False  # a namespace runs no sshd until a script starts one
        for index, (segment, address) in enumerate(more, start=1):
            model.add_ether_link(added, f"eth{index}", segment, address)
        session = Session(network=network, hostname=host.name)
        # The real backend mounts an empty /etc/wireguard on every host, as wireguard-tools
        # leaves it on a fresh machine.
        session.host_dirs.update({"/etc", WIREGUARD_CONFIG_DIR})
        for iface in host.wireguard:
            made = session.run(f"ip link add {iface} type wireguard")
            assert made.status == 0, made
        if host.hosts_file:
            _write(session, "/etc/hosts", hosts_text(host), 0o644)
        for service in host.services:
            # The model of netkit/http_server.py, which another part of labsim adds; until
            # it is there, a lab with a service cannot run in labsim.
            start = getattr(model, f"start_{service.kind}_server", None)
            if start is None:
                raise NetkitError(f"labsim: the {service.kind} server of {host.name} is not "
                                  "modelled (labsim.net.model has no "
                                  f"start_{service.kind}_server)")
            start(network, host.name, service.port)
        sessions[host.name] = session

    def run(host: str, line: str) -> Result:
        # The hosts share one clock, as namespaces on one machine do: a command starts when
        # the one before it, on whichever host, ended (each Session keeps its own clock).
        session = sessions[host]
        session.clock = max(s.clock for s in sessions.values())
        result = session.run(line)
        return Result(result.stdout, result.stderr, result.status)

    run.sessions = sessions  # type: ignore[attr-defined]
    run.network = network  # type: ignore[attr-defined]
    return run


def installer(shell):
    """A ``netkit.Installer`` writing a host file of the host's Session."""

    def install(host: str, path: str, text: str, mode: int) -> None:
        _write(shell.sessions[host], path, text, mode)

    return install


def _write(session, path: str, text: str, mode: int) -> None:
    from labsim.shell.base import HostFile

    parent = posixpath.dirname(path)
    while parent not in session.host_dirs:
        session.host_dirs.add(parent)
        parent = posixpath.dirname(parent)
    session.host_files[path] = HostFile(len(text.encode()), session.clock, text)
    # labsim's HostFile has no mode yet; wg-quick's world-readable warning depends on it.
    if hasattr(session.host_files[path], "mode"):
        session.host_files[path].mode = mode
