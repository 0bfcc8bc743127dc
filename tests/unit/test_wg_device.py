"""The interface model on its own: creating interfaces, bringing them up, and applying changes
as the kernel's netlink.c does (set_device(), set_peer())."""

import ipaddress

import pytest

from labsim import Session
from labsim.shell.base import HostFile
from labsim.wg.device import (
    ZERO_KEY,
    DeviceChange,
    DeviceError,
    Endpoint,
    PeerChange,
    WireGuardHost,
    add_interface,
    apply_change,
    get_interface,
    record_handshake,
    record_transfer,
    remove_interface,
    set_link_up,
)
from labsim.wg.keys import clamp, public_key

KEY_A = bytes(range(32))
KEY_B = bytes(range(1, 33))
PEER = public_key(bytes(range(2, 34)))


def test_a_new_interface_is_empty_and_down():
    host = WireGuardHost()
    iface = add_interface(host, "wg0")
    assert (iface.private_key, iface.public_key, iface.listen_port, iface.fwmark,
            iface.peers, iface.up) == (None, None, 0, 0, (), False)
    assert get_interface(host, "wg0") is iface


@pytest.mark.parametrize("name", ["", "a" * 16, "a/b", "wg 0"])
def test_interface_names_follow_the_kernel(name):
    with pytest.raises(ValueError):
        add_interface(WireGuardHost(), name)


def test_names_are_unique_and_can_be_removed():
    host = WireGuardHost()
    add_interface(host, "wg0")
    with pytest.raises(ValueError, match="exists"):
        add_interface(host, "wg0")
    remove_interface(host, "wg0")
    with pytest.raises(DeviceError) as caught:
        get_interface(host, "wg0")
    assert caught.value.strerror == "No such device"


def test_a_missing_interface_changes_nothing():
    host = WireGuardHost()
    with pytest.raises(DeviceError, match="No such device"):
        apply_change(host, "wg9", DeviceChange(listen_port=1))
    assert host.interfaces == {}


def test_private_keys_are_stored_clamped_and_the_zero_key_removes_them():
    host = WireGuardHost()
    add_interface(host, "wg0")
    iface = apply_change(host, "wg0", DeviceChange(private_key=KEY_A))
    assert iface.private_key == clamp(KEY_A)
    assert iface.public_key == public_key(KEY_A)
    iface = apply_change(host, "wg0", DeviceChange(private_key=ZERO_KEY))
    assert (iface.private_key, iface.public_key) == (None, None)


def test_up_picks_a_seeded_port_and_keeps_a_set_one():
    ports = []
    for _ in range(2):
        host = WireGuardHost(seed=7)
        add_interface(host, "wg0")
        ports.append(set_link_up(host, "wg0").listen_port)
    assert ports[0] == ports[1] and 32768 <= ports[0] <= 60999
    host = WireGuardHost()
    add_interface(host, "wg0")
    apply_change(host, "wg0", DeviceChange(listen_port=51820))
    assert set_link_up(host, "wg0").listen_port == 51820
    # Setting port 0 on an up interface binds a new random port.
    port = apply_change(host, "wg0", DeviceChange(listen_port=0)).listen_port
    assert port != 0
    assert set_link_up(host, "wg0", up=False).up is False


def test_two_up_interfaces_cannot_share_a_port():
    host = WireGuardHost()
    for name in ("wg0", "wg1"):
        add_interface(host, name)
        apply_change(host, name, DeviceChange(listen_port=51820))
    set_link_up(host, "wg0")
    with pytest.raises(DeviceError, match="Address already in use"):
        set_link_up(host, "wg1")
    # While down, the port is only remembered.
    assert get_interface(host, "wg1").listen_port == 51820


def test_peer_changes():
    host = WireGuardHost()
    add_interface(host, "wg0")
    endpoint = Endpoint(ipaddress.ip_address("192.0.2.1"), 51820)
    prefix = ipaddress.ip_network("10.0.0.0/24")
    iface = apply_change(host, "wg0", DeviceChange(peers=(
        PeerChange(PEER, preshared_key=KEY_B, endpoint=endpoint, persistent_keepalive=25,
                   replace_allowed_ips=True, allowed_ips=(prefix,)),)))
    (peer,) = iface.peers
    assert (peer.preshared_key, peer.endpoint, peer.persistent_keepalive) == (KEY_B, endpoint, 25)
    assert iface.allowed_ips_of(peer) == (prefix,)
    # Fields not given stay; removing an unknown peer does nothing.
    iface = apply_change(host, "wg0", DeviceChange(peers=(
        PeerChange(PEER, persistent_keepalive=0), PeerChange(KEY_A, remove=True))))
    assert iface.peers[0].endpoint == endpoint and iface.peers[0].persistent_keepalive == 0
    iface = apply_change(host, "wg0", DeviceChange(peers=(PeerChange(PEER, remove=True),)))
    assert iface.peers == () and iface.allowed_ips.peers == ()


def test_handshakes_and_transfer_are_recorded_per_peer():
    host = WireGuardHost()
    add_interface(host, "wg0")
    apply_change(host, "wg0", DeviceChange(peers=(PeerChange(PEER),)))
    record_handshake(host, "wg0", PEER, 1_795_000_000.5)
    record_transfer(host, "wg0", PEER, rx=10, tx=20)
    iface = record_transfer(host, "wg0", PEER, rx=1)
    assert (iface.peers[0].last_handshake, iface.peers[0].rx_bytes,
            iface.peers[0].tx_bytes) == (1_795_000_000.5, 11, 20)
    with pytest.raises(KeyError):
        record_transfer(host, "wg0", KEY_A, rx=1)
    with pytest.raises(KeyError):
        record_handshake(host, "wg0", KEY_A, 1.0)


def test_sessions_have_their_own_wireguard_state():
    one, two = Session(), Session()
    add_interface(one.wireguard, "wg0")
    assert two.wireguard.interfaces == {}


def test_host_files_without_text_still_work():
    # HostFile grew an optional text; files made the old way have none.
    session = Session()
    assert session.run("truncate -s 1M /var/tmp/f").status == 0
    assert session.host_files["/var/tmp/f"] == HostFile(1 << 20, session.clock, allocated=0)
    assert session.host_files["/var/tmp/f"].text is None
