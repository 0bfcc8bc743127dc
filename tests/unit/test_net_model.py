"""Hosts, links, addresses and the main routing table (labsim.net.model)."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labsim.net import model
from labsim.net.model import NetError, Network, Route, add_host


def host():
    return add_host(Network(), "a")


def test_a_new_host_has_lo_and_eth0_with_connected_route():
    h = host()
    assert model.link_names(h) == ["lo", "eth0"]
    assert h.routes == [Route(ipaddress.IPv4Network("192.168.50.0/24"), "eth0", kernel=True,
                              src=ipaddress.IPv4Address("192.168.50.10"))]
    assert h.underlay() == ipaddress.IPv4Address("192.168.50.10")
    assert add_host(Network(), "b", underlay="10.0.0.5/8").underlay() == ipaddress.IPv4Address(
        "10.0.0.5")


def test_connected_route_waits_for_the_link_to_come_up():
    h = host()
    model.add_wireguard_link(h, "wg0")
    model.add_address(h, "wg0", "10.9.0.1/24")
    assert [r.dev for r in h.routes] == ["eth0"]
    model.set_link(h, "wg0", True)
    assert h.routes[-1] == Route(ipaddress.IPv4Network("10.9.0.0/24"), "wg0", kernel=True,
                                 src=ipaddress.IPv4Address("10.9.0.1"))
    # An address added while up gets its route at once; a /32 gets none.
    model.add_address(h, "wg0", "10.8.0.1/16")
    model.add_address(h, "wg0", "10.7.0.1/32")
    assert [str(r.prefix) for r in h.routes if r.dev == "wg0"] == ["10.9.0.0/24", "10.8.0.0/16"]


def test_down_and_delete_flush_routes_through_the_link():
    h = host()
    model.add_wireguard_link(h, "wg0")
    model.add_address(h, "wg0", "10.9.0.1/24")
    model.set_link(h, "wg0", True)
    model.add_route(h, "10.1.0.0/24", dev="wg0")
    model.add_route(h, "10.2.0.0/24", via="10.9.0.7")
    assert {r.dev for r in h.routes} == {"eth0", "wg0"}
    model.set_link(h, "wg0", False)
    assert {r.dev for r in h.routes} == {"eth0"}
    model.set_link(h, "wg0", True)  # the connected route comes back, the others do not
    assert [str(r.prefix) for r in h.routes if r.dev == "wg0"] == ["10.9.0.0/24"]
    model.delete_link(h, "wg0")
    assert {r.dev for r in h.routes} == {"eth0"}
    assert all(dev != "wg0" for dev, _ in h.addresses)
    assert "wg0" not in h.wireguard.interfaces


def test_route_errors():
    h = host()
    with pytest.raises(NetError, match="File exists"):
        model.add_route(h, "192.168.50.0/24", dev="eth0")
    with pytest.raises(NetError, match="invalid gateway"):
        model.add_route(h, "10.0.0.0/8", via="10.1.1.1")
    with pytest.raises(NetError, match="Invalid prefix"):
        model.add_route(h, "10.0.0.1/8", dev="eth0")
    route = model.add_route(h, "default", via="192.168.50.1")
    assert (str(route.prefix), route.dev) == ("0.0.0.0/0", "eth0")


def test_lookup_prefers_the_longest_prefix_and_locals():
    h = host()
    model.add_route(h, "10.0.0.0/8", via="192.168.50.1")
    model.add_route(h, "10.1.0.0/16", via="192.168.50.2")
    found = model.lookup_route(h.routes, ipaddress.IPv4Address("10.1.2.3"))
    assert found.via == ipaddress.IPv4Address("192.168.50.2")
    assert model.lookup_route(h.routes, ipaddress.IPv4Address("172.16.0.1")) is None
    assert model.is_local(h, ipaddress.IPv4Address("127.0.0.53"))
    assert model.is_local(h, ipaddress.IPv4Address("192.168.50.10"))


def test_sysctl_and_masquerade_state():
    h = host()
    assert h.ip_forward == 0
    model.set_ip_forward(h, 1)
    model.add_masquerade(h, "eth1")  # iptables accepts interfaces that do not exist
    assert (h.ip_forward, model.masquerade_links(h)) == (1, ["eth1"])
    assert h.firewall == {"nat": {"POSTROUTING": ["-o eth1 -j MASQUERADE"]}}


prefixes = st.builds(lambda addr, length: ipaddress.IPv4Network((addr, length), strict=False),
                     st.integers(0, 2**32 - 1), st.integers(0, 32))


@given(st.lists(prefixes, min_size=1, max_size=20, unique=True), st.integers(0, 2**32 - 1))
def test_lookup_picks_the_longest_matching_prefix(table, number):
    address = ipaddress.IPv4Address(number)
    routes = [Route(prefix, f"dev{i}") for i, prefix in enumerate(table)]
    found = model.lookup_route(routes, address)
    matching = [p for p in table if address in p]
    if not matching:
        assert found is None
    else:
        assert address in found.prefix
        assert found.prefix.prefixlen == max(p.prefixlen for p in matching)
