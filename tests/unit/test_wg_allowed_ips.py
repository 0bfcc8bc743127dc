"""Cryptokey routing: longest-prefix lookup, the inbound source check, prefixes moving between
peers, and prefixes parsed and printed as `wg` does.

The transcripts below were recorded with Debian's wireguard-tools 1.0.20210914 (`wg set`,
`wg show IFACE allowed-ips`) driving an interface of wireguard-go; the rules they show are
the kernel's too (drivers/net/wireguard/allowedips.c), which is what the model follows.
"""

import ipaddress
import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsim.wg.allowed_ips import (
    AllowedIPsTable,
    add_allowed_ips,
    add_peer,
    allowed_ips_of,
    allowed_source,
    format_allowed_ips,
    format_prefix,
    host_bits_warning,
    lookup,
    parse_allowed_ips,
    parse_prefix,
    remove_peer,
    set_allowed_ips,
)

EMPTY = AllowedIPsTable()


def table_of(*peers: tuple[str, str]) -> AllowedIPsTable:
    """A table built by `wg set IFACE peer NAME allowed-ips LIST` for each pair, in order."""
    table = EMPTY
    for peer, allowed in peers:
        table = set_allowed_ips(table, peer, parse_allowed_ips(allowed))
    return table


# --- parsing and printing -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("10.0.0.1/24", "10.0.0.0/24"),
        ("10.0.0.7", "10.0.0.7/32"),
        ("192.168.1.7/32", "192.168.1.7/32"),
        ("0.0.0.0/0", "0.0.0.0/0"),
        ("10.9.8.7/0", "0.0.0.0/0"),
        (" 10.0.0.0/8", "10.0.0.0/8"),
        ("10.0.0.0 / 08", "10.0.0.0/8"),
        ("fd00::1/64", "fd00::/64"),
        ("fd00::1", "fd00::1/128"),
        ("::/0", "::/0"),
        ("FE80::1:2:3:4/10", "fe80::/10"),
    ],
)
def test_prefixes_are_masked_as_wg_show_prints_them(text, shown):
    assert format_prefix(parse_prefix(text)) == shown


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("10.0.0.0/33", "AllowedIP is not in the correct format: `10.0.0.0/33'"),
        ("fd00::/129", "AllowedIP is not in the correct format: `fd00::/129'"),
        ("10.0.0.0/255.255.255.0",
         "AllowedIP is not in the correct format: `10.0.0.0/255.255.255.0'"),
        ("10.0.0.0/", "AllowedIP is not in the correct format: `10.0.0.0/'"),
        ("10.0.0.0/+8", "AllowedIP is not in the correct format: `10.0.0.0/+8'"),
        ("010.0.0.1/32", "Unable to parse IP address: `010.0.0.1'"),
        ("fe80::1%lo/128", "Unable to parse IP address: `fe80::1%lo'"),
        ("10.0.0/24", "Unable to parse IP address: `10.0.0'"),
        ("", "Unable to parse IP address: `'"),
    ],
)
def test_bad_prefixes_fail_with_wg_messages(text, message):
    # Each message is what `wg set wgprobe1 peer KEY allowed-ips TEXT` printed.
    with pytest.raises(ValueError) as caught:
        parse_prefix(text)
    assert str(caught.value) == message


def test_allowed_ips_list_is_comma_separated_and_may_be_empty():
    assert parse_allowed_ips("10.0.0.1/24, fd00::1/64") == [
        ipaddress.ip_network("10.0.0.0/24"),
        ipaddress.ip_network("fd00::/64"),
    ]
    assert parse_allowed_ips("") == []
    with pytest.raises(ValueError, match="Unable to parse IP address"):
        parse_allowed_ips("10.0.0.0/8,")


def test_host_bits_warning():
    assert host_bits_warning("10.0.0.1/24") == (
        "Warning: AllowedIP has nonzero host part: 10.0.0.1/24")
    assert host_bits_warning("fd00::1/64") == (
        "Warning: AllowedIP has nonzero host part: fd00::1/64")
    assert host_bits_warning("10.0.0.0/24") is None
    assert host_bits_warning("10.0.0.1") is None


def test_ipv6_is_printed_as_wg_show_printed_it():
    table = table_of(
        ("TNkWM2j9G/R3PLxhSnuFNAycmq2nUjKthMcVFAWpnQ4=",
         "::ffff:1.2.3.4/128,::1.2.3.4/128,2001:db8:0:0:1:0:0:1/128,"
         "2001:db8:0:1:1:1:1:1/128,::1/128,::/0,::ffff:0:0/96,64:ff9b::1.2.3.4/128,"
         "::ffff:1.2.3.4/120,fe80::1:2:3:4/10,1:0:0:2:0:0:0:3/128"),
    )
    assert format_allowed_ips(table) == (
        "TNkWM2j9G/R3PLxhSnuFNAycmq2nUjKthMcVFAWpnQ4=\t"
        "::ffff:1.2.3.4/128 ::1.2.3.4/128 2001:db8::1:0:0:1/128 2001:db8:0:1:1:1:1:1/128 "
        "::1/128 ::/0 ::ffff:0.0.0.0/96 64:ff9b::102:304/128 ::ffff:1.2.3.0/120 fe80::/10 "
        "1:0:0:2::3/128"
    )


# 16-bit groups drawn mostly from a few values, so that runs of zeros and the IPv4 forms
# (::a.b.c.d, ::ffff:a.b.c.d) come up often.
groups = st.one_of(st.sampled_from([0, 0, 0, 1, 0xFFFF]), st.integers(0, 0xFFFF))


@settings(max_examples=500, deadline=None)
@given(st.lists(groups, min_size=8, max_size=8), st.integers(0, 128))
def test_ipv6_text_is_glibc_inet_ntop(words, length):
    # wg show prints with glibc's inet_ntop(); CPython's socket module calls the same one.
    packed = b"".join(word.to_bytes(2, "big") for word in words)
    prefix = ipaddress.ip_network((packed, 128))
    assert format_prefix(prefix) == socket.inet_ntop(socket.AF_INET6, packed) + "/128"
    masked = ipaddress.ip_network((packed, length), strict=False)
    assert format_prefix(masked) == (
        socket.inet_ntop(socket.AF_INET6, masked.network_address.packed) + f"/{length}")


# --- who owns a prefix ------------------------------------------------------------------

PEER_A = "zhiiKjudUPCyydsvIOhXgJXDLHfkcPg/nMqHr2fXRgg="
PEER_B = "0SirnAeccC1dEVEa9bNPRjs57o+jgtk6FDUhNhG0TUs="


def test_a_prefix_moves_to_the_peer_that_is_given_it():
    # Recorded: the same `wg set` commands, then `wg show wgprobe0 allowed-ips` after each.
    allowed = parse_allowed_ips("10.0.0.1/24,fd00::1/64,192.168.1.7/32")
    table = set_allowed_ips(EMPTY, PEER_A, allowed)
    assert format_allowed_ips(table) == f"{PEER_A}\t10.0.0.0/24 fd00::/64 192.168.1.7/32"

    table = set_allowed_ips(table, PEER_B, parse_allowed_ips("10.0.0.9/24"))
    assert format_allowed_ips(table) == (
        f"{PEER_A}\tfd00::/64 192.168.1.7/32\n"
        f"{PEER_B}\t10.0.0.0/24"
    )
    assert lookup(table, "10.0.0.200") == PEER_B

    table = set_allowed_ips(table, PEER_A, parse_allowed_ips("0.0.0.0/0,::/0"))
    assert format_allowed_ips(table) == (
        f"{PEER_A}\t0.0.0.0/0 ::/0\n"
        f"{PEER_B}\t10.0.0.0/24"
    )


def test_a_peer_without_prefixes_is_shown_as_none():
    table = add_peer(table_of(("A", "10.1.2.3")), "B")
    assert format_allowed_ips(table) == "A\t10.1.2.3/32\nB\t(none)"
    assert allowed_ips_of(table, "B") == ()
    assert set_allowed_ips(table, "A", []) == add_peer(add_peer(EMPTY, "A"), "B")


def test_adding_a_prefix_again_moves_it_to_the_end_of_the_list():
    # add() in allowedips.c list_move_tail()s the existing node, even for the same peer.
    table = add_allowed_ips(EMPTY, "A", ["10.0.0.0/8", "fd00::/8", "10.0.0.1/8"])
    assert [format_prefix(p) for p in allowed_ips_of(table, "A")] == ["fd00::/8", "10.0.0.0/8"]


def test_setting_replaces_only_that_peers_prefixes():
    table = table_of(("A", "10.0.0.0/8,10.2.0.0/16"), ("B", "192.168.0.0/16"))
    table = set_allowed_ips(table, "A", ["10.3.0.0/16"])
    assert format_allowed_ips(table) == "A\t10.3.0.0/16\nB\t192.168.0.0/16"
    assert lookup(table, "10.9.9.9") is None


def test_adding_keeps_the_peers_other_prefixes():
    table = add_allowed_ips(table_of(("A", "10.0.0.0/8")), "A", [ipaddress.ip_network("fd00::/8")])
    assert format_allowed_ips(table) == "A\t10.0.0.0/8 fd00::/8"


def test_removing_a_peer_removes_its_routes():
    table = remove_peer(table_of(("A", "10.0.0.0/8"), ("B", "10.1.0.0/16")), "B")
    assert lookup(table, "10.1.2.3") == "A"
    with pytest.raises(KeyError, match="no peer 'B'"):
        allowed_ips_of(table, "B")


def test_changes_return_a_new_table():
    before = table_of(("A", "10.0.0.0/8"))
    after = set_allowed_ips(before, "B", ["10.0.0.0/8"])
    assert allowed_ips_of(before, "A") == (ipaddress.ip_network("10.0.0.0/8"),)
    assert allowed_ips_of(after, "A") == ()


# --- outbound: lookup --------------------------------------------------------------------


def test_longest_prefix_wins():
    table = table_of(("A", "10.0.0.0/8"), ("B", "10.1.0.0/16"), ("C", "10.1.2.0/24"),
                     ("D", "10.1.2.3/32"))
    assert lookup(table, "10.1.2.3") == "D"
    assert lookup(table, "10.1.2.4") == "C"
    assert lookup(table, "10.1.9.9") == "B"
    assert lookup(table, "10.9.9.9") == "A"
    assert lookup(table, "11.0.0.1") is None


def test_insertion_order_does_not_change_the_answer():
    one = table_of(("A", "10.0.0.0/8"), ("B", "10.1.0.0/16"))
    other = table_of(("B", "10.1.0.0/16"), ("A", "10.0.0.0/8"))
    for address in ["10.1.0.1", "10.2.0.1"]:
        assert lookup(one, address) == lookup(other, address)


def test_ipv6_longest_prefix():
    table = table_of(("A", "fd00::/8"), ("B", "fd00:1::/32"), ("C", "fd00:1::5/128"))
    assert lookup(table, "fd00:1::5") == "C"
    assert lookup(table, "fd00:1::6") == "B"
    assert lookup(table, "fdff::1") == "A"
    assert lookup(table, "fe80::1") is None
    assert lookup(table, ipaddress.ip_address("fd00:1::5")) == "C"


def test_default_routes_catch_everything_of_their_family_only():
    table = table_of(("server", "0.0.0.0/0"), ("printer", "192.168.1.0/24"))
    assert lookup(table, "8.8.8.8") == "server"
    assert lookup(table, "192.168.1.5") == "printer"
    assert lookup(table, "2001:db8::1") is None
    table = add_allowed_ips(table, "server", ["::/0"])
    assert lookup(table, "2001:db8::1") == "server"


def test_ipv4_mapped_ipv6_does_not_match_ipv4_prefixes():
    table = table_of(("A", "10.0.0.0/8"))
    assert lookup(table, "::ffff:10.0.0.1") is None


def test_lookup_rejects_what_is_not_an_address():
    with pytest.raises(ValueError):
        lookup(EMPTY, "10.0.0.0/8")


# --- inbound: the source check -------------------------------------------------------------


def test_source_must_route_back_to_the_sender():
    table = table_of(("A", "10.0.0.0/8"), ("B", "10.1.0.0/16"))
    assert allowed_source(table, "A", "10.2.0.1")
    assert allowed_source(table, "B", "10.1.0.1")
    # Inside A's 10.0.0.0/8, but B's 10.1.0.0/16 is longer: A may not send from it.
    assert not allowed_source(table, "A", "10.1.0.1")
    assert not allowed_source(table, "B", "10.2.0.1")
    assert not allowed_source(table, "A", "192.168.0.1")
    assert not allowed_source(table, "C", "10.2.0.1")


def test_a_peer_with_the_default_route_may_send_from_anywhere_else():
    table = table_of(("server", "0.0.0.0/0, ::/0"), ("laptop", "10.8.0.2/32"))
    assert allowed_source(table, "server", "93.184.216.34")
    assert allowed_source(table, "server", "2606:2800:220:1::1")
    assert not allowed_source(table, "server", "10.8.0.2")
    assert allowed_source(table, "laptop", "10.8.0.2")
