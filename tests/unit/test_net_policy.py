"""Policy routing as wg-quick sets it up for AllowedIPs = 0.0.0.0/0: routing tables by number,
`ip rule`, `ip route get`, the src_valid_mark sysctl and the firewall rules it loads with
`iptables-restore -n`, against recordings.

The RECORDED_* texts were recorded on Debian 12 with iproute2 6.1.0-3, procps 4.0.2, iptables
1.8.9-2 (nf_tables, no nft installed, so wg-quick uses iptables-restore), wireguard-tools
1.0.20210914 and wireguard-go 0.0.20220316, in network namespaces made with `unshare -Urnm`:
a client (eth0 192.168.50.10/24, wg0 10.0.0.2/24 from `wg-quick up` with AllowedIPs =
0.0.0.0/0 and Endpoint = 192.168.50.11:51820). The rule and table tests that need no peer
were recorded on tun devices standing in for wg0 and eth0 (tun has no carrier there, so those
recordings carry iproute2's "linkdown", removed by ``carrier``).
"""

from __future__ import annotations

import ipaddress

from hypothesis import given
from hypothesis import strategies as st

from labsim.net import model
from labsim.net.model import Network, add_host
from labsim.shell.base import START_CLOCK
from labsim.shell.session import Session

# What wg-quick printed for `wg-quick up wg0.conf` (after the wireguard-go fallback lines):
# the command lines labsim's wg-quick runs through the Session, in this order.
RECORDED_WG_QUICK_UP = [
    "ip -4 address add 10.0.0.2/24 dev wg0",
    "ip link set mtu 1420 up dev wg0",
    "wg set wg0 fwmark 51820",
    "ip -4 route add 0.0.0.0/0 dev wg0 table 51820",
    "ip -4 rule add not fwmark 51820 table 51820",
    "ip -4 rule add table main suppress_prefixlength 0",
    "sysctl -q net.ipv4.conf.all.src_valid_mark=1",
]
# add_default()'s input to `iptables-restore -n` for wg0 with address 10.0.0.2
# (wireguard-tools src/wg-quick/linux.bash).
WG_QUICK_RESTORE = (
    "*raw\n"
    '-I PREROUTING ! -i wg0 -d 10.0.0.2 -m addrtype ! --src-type LOCAL -j DROP -m comment '
    '--comment "wg-quick(8) rule for wg0"\n'
    "COMMIT\n"
    "*mangle\n"
    '-I POSTROUTING -m mark --mark 51820 -p udp -j CONNMARK --save-mark -m comment --comment '
    '"wg-quick(8) rule for wg0"\n'
    '-I PREROUTING -p udp -j CONNMARK --restore-mark -m comment --comment '
    '"wg-quick(8) rule for wg0"\n'
    "COMMIT\n"
)
RECORDED_RULES = (
    "0:\tfrom all lookup local\n"
    "32766:\tfrom all lookup main\n"
    "32767:\tfrom all lookup default\n"
)
RECORDED_RULES_IPV6 = "0:\tfrom all lookup local\n32766:\tfrom all lookup main\n"
RECORDED_RULES_WG_QUICK = (
    "0:\tfrom all lookup local\n"
    "32764:\tfrom all lookup main suppress_prefixlength 0\n"
    "32765:\tnot from all fwmark 0xca6c lookup 51820\n"
    "32766:\tfrom all lookup main\n"
    "32767:\tfrom all lookup default\n"
)
RECORDED_RULES_TWICE = (
    "0:\tfrom all lookup local\n"
    "32763:\tnot from all fwmark 0xca6c lookup 51820\n"
    "32764:\tfrom all lookup main suppress_prefixlength 0\n"
    "32765:\tnot from all fwmark 0xca6c lookup 51820\n"
    "32766:\tfrom all lookup main\n"
    "32767:\tfrom all lookup default\n"
)
RECORDED_ROUTE = (
    "10.0.0.0/24 dev wg0 proto kernel scope link src 10.0.0.2 \n"
    "192.168.50.0/24 dev eth0 proto kernel scope link src 192.168.50.10 \n"
)
RECORDED_TABLE_51820 = "default dev wg0 scope link \n"
NO_TABLE = "Error: ipv4: FIB table does not exist.\nDump terminated\n"
NO_TABLE_IPV6 = "Error: ipv6: FIB table does not exist.\nDump terminated\n"
NO_RULE = "RTNETLINK answers: No such file or directory\n"
RECORDED_GET_TUNNEL = "10.99.0.2 dev wg0 table 51820 src 10.0.0.2 uid 0 \n    cache \n"
RECORDED_GET_LAN = "192.168.50.11 dev eth0 src 192.168.50.10 uid 0 \n    cache \n"
RECORDED_GET_LAN_MARK = (
    "192.168.50.11 dev eth0 src 192.168.50.10 mark 0xca6c uid 0 \n    cache \n")
RECORDED_GET_LOCAL = "local 10.0.0.2 dev lo table local src 10.0.0.2 uid 0 \n    cache <local> \n"
RECORDED_GET_LOOPBACK = (
    "local 127.0.0.1 dev lo table local src 127.0.0.1 uid 0 \n    cache <local> \n")
RECORDED_GET_VIA = "10.7.0.5 via 192.168.50.1 dev eth0 src 192.168.50.10 uid 0 \n    cache \n"
RECORDED_GET_VIA_MARK = (
    "10.7.0.5 via 192.168.50.1 dev eth0 src 192.168.50.10 mark 0xca6c uid 0 \n    cache \n")
UNREACHABLE = "RTNETLINK answers: Network is unreachable\n"
RECORDED_ONELINE_WG0 = (
    "3: wg0    inet 10.0.0.2/24 scope global wg0\\       valid_lft forever preferred_lft "
    "forever\n")
RECORDED_ONELINE_LO = (
    "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n"
    "1: lo    inet6 ::1/128 scope host \\       valid_lft forever preferred_lft forever\n")
# wireguard-go's tun device; kernel WireGuard's link differs as in test_net_commands.py.
RECORDED_LINK_WG0 = (
    "3: wg0: <POINTOPOINT,MULTICAST,NOARP,UP,LOWER_UP> mtu 1420 qdisc pfifo_fast state UNKNOWN "
    "mode DEFAULT group default qlen 500\n"
    "    link/none \n")
RECORDED_SAVE_UP = (
    "*mangle\n"
    ":PREROUTING ACCEPT [0:0]\n"
    ":INPUT ACCEPT [0:0]\n"
    ":FORWARD ACCEPT [0:0]\n"
    ":OUTPUT ACCEPT [0:0]\n"
    ":POSTROUTING ACCEPT [0:0]\n"
    '-A PREROUTING -p udp -m comment --comment "wg-quick(8) rule for wg0" -j CONNMARK '
    "--restore-mark --nfmask 0xffffffff --ctmask 0xffffffff\n"
    '-A POSTROUTING -p udp -m mark --mark 0xca6c -m comment --comment "wg-quick(8) rule for '
    'wg0" -j CONNMARK --save-mark --nfmask 0xffffffff --ctmask 0xffffffff\n'
    "COMMIT\n"
    "*raw\n"
    ":PREROUTING ACCEPT [0:0]\n"
    ":OUTPUT ACCEPT [0:0]\n"
    '-A PREROUTING -d 10.0.0.2/32 ! -i wg0 -m addrtype ! --src-type LOCAL -m comment '
    '--comment "wg-quick(8) rule for wg0" -j DROP\n'
    "COMMIT\n"
)
RECORDED_SAVE_DOWN = (
    "*mangle\n"
    ":PREROUTING ACCEPT [0:0]\n"
    ":INPUT ACCEPT [0:0]\n"
    ":FORWARD ACCEPT [0:0]\n"
    ":OUTPUT ACCEPT [0:0]\n"
    ":POSTROUTING ACCEPT [0:0]\n"
    "COMMIT\n"
    "*raw\n"
    ":PREROUTING ACCEPT [0:0]\n"
    ":OUTPUT ACCEPT [0:0]\n"
    "COMMIT\n"
)
RECORDED_SAVE_NAT = (
    "*nat\n"
    ":PREROUTING ACCEPT [0:0]\n"
    ":INPUT ACCEPT [0:0]\n"
    ":OUTPUT ACCEPT [0:0]\n"
    ":POSTROUTING ACCEPT [0:0]\n"
    "-A POSTROUTING -o eth1 -j MASQUERADE\n"
    "COMMIT\n"
)
RECORDED_RAW_S = (
    "-P PREROUTING ACCEPT\n"
    "-P OUTPUT ACCEPT\n"
    '-A PREROUTING -d 10.0.0.2/32 ! -i wg0 -m addrtype ! --src-type LOCAL -m comment '
    '--comment "wg-quick(8) rule for wg0" -j DROP\n'
)
RECORDED_MANGLE_S = (
    "-P PREROUTING ACCEPT\n"
    "-P INPUT ACCEPT\n"
    "-P FORWARD ACCEPT\n"
    "-P OUTPUT ACCEPT\n"
    "-P POSTROUTING ACCEPT\n"
    '-A PREROUTING -p udp -m comment --comment "wg-quick(8) rule for wg0" -j CONNMARK '
    "--restore-mark --nfmask 0xffffffff --ctmask 0xffffffff\n"
    '-A POSTROUTING -p udp -m mark --mark 0xca6c -m comment --comment "wg-quick(8) rule for '
    'wg0" -j CONNMARK --save-mark --nfmask 0xffffffff --ctmask 0xffffffff\n'
)
RESTORE_FAILED = ("iptables-restore: line 2 failed: Bad rule (does a matching rule exist in "
                  "that chain?).\n")


def run(session: Session, line: str, stdin: str | None = None) -> tuple[str, str, int]:
    result = session.run(line) if stdin is None else session.run_with_input(line, stdin)
    return result.stdout, result.stderr, result.status


def ok(session: Session, line: str, stdin: str | None = None) -> str:
    stdout, stderr, status = run(session, line, stdin)
    assert (stderr, status) == ("", 0), (line, stderr)
    return stdout


def client(wg_quick: bool = True) -> Session:
    """The recorded client: eth0 192.168.50.10/24 and wg0 10.0.0.2/24, up, and with
    ``wg_quick`` the commands of `wg-quick up` for AllowedIPs = 0.0.0.0/0."""
    session = Session(network=Network(), hostname="client")  # the first host: .10
    ok(session, "ip link add wg0 type wireguard")
    if wg_quick:
        for line in RECORDED_WG_QUICK_UP:
            ok(session, line)
        ok(session, "iptables-restore -n", WG_QUICK_RESTORE)
    else:
        ok(session, "ip -4 address add 10.0.0.2/24 dev wg0")
        ok(session, "ip link set mtu 1420 up dev wg0")
    return session


def without_dates(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.startswith("# "))


def test_a_new_host_has_the_kernels_default_rules():
    session = client(wg_quick=False)
    for line in ("ip rule", "ip -4 rule show", "ip rule list", "ip rule show"):
        assert ok(session, line) == RECORDED_RULES
    assert ok(session, "ip -6 rule show") == RECORDED_RULES_IPV6


def test_wg_quick_rules_take_the_priorities_the_kernel_gives():
    session = client()
    assert ok(session, "ip rule") == ok(session, "ip -4 rule show") == RECORDED_RULES_WG_QUICK
    ok(session, "ip -4 rule add not fwmark 51820 table 51820")
    assert ok(session, "ip rule") == RECORDED_RULES_TWICE
    # wg-quick down: each delete takes the first rule with that table, lowest priority first.
    ok(session, "ip -4 rule delete table 51820")
    assert ok(session, "ip rule") == RECORDED_RULES_WG_QUICK
    ok(session, "ip -4 rule delete table 51820")
    assert run(session, "ip -4 rule delete table 51820") == ("", NO_RULE, 2)
    ok(session, "ip -4 rule delete table main suppress_prefixlength 0")
    assert run(session, "ip -4 rule delete table main suppress_prefixlength 0") == (
        "", NO_RULE, 2)
    assert ok(session, "ip rule") == RECORDED_RULES


def test_rule_priorities_masks_and_deletes_match_recordings():
    session = client(wg_quick=False)
    ok(session, "ip -4 rule add table main suppress_prefixlength 0")
    ok(session, "ip rule add fwmark 0x10/0xff table 7")
    ok(session, "ip rule add lookup 7")
    assert ok(session, "ip rule") == (
        "0:\tfrom all lookup local\n"
        "32763:\tfrom all lookup 7\n"
        "32764:\tfrom all fwmark 0x10/0xff lookup 7\n"
        "32765:\tfrom all lookup main suppress_prefixlength 0\n"
        "32766:\tfrom all lookup main\n"
        "32767:\tfrom all lookup default\n")
    ok(session, "ip rule del table 7")
    ok(session, "ip rule del table 7")
    ok(session, "ip -4 rule del table main suppress_prefixlength 0")
    # Any rule with table main matches now: the main rule itself goes.
    ok(session, "ip rule del table main")
    assert ok(session, "ip rule") == (
        "0:\tfrom all lookup local\n32767:\tfrom all lookup default\n")


def test_explicit_priorities_match_recording():
    session = client(wg_quick=False)
    ok(session, "ip rule add table 5 pref 10")
    assert run(session, "ip rule add table 5 pref 10") == (
        "", "RTNETLINK answers: File exists\n", 2)
    ok(session, "ip rule add table 5 pref 10 fwmark 0x5")
    ok(session, "ip rule add table 5 pref 0")
    # The second rule now has priority 0, so a rule without one gets 0 too.
    ok(session, "ip rule add table 6")
    assert ok(session, "ip rule") == (
        "0:\tfrom all lookup local\n"
        "0:\tfrom all lookup 5\n"
        "0:\tfrom all lookup 6\n"
        "10:\tfrom all lookup 5\n"
        "10:\tfrom all fwmark 0x5 lookup 5\n"
        "32766:\tfrom all lookup main\n"
        "32767:\tfrom all lookup default\n")
    ok(session, "ip rule del pref 10")
    assert "10:\tfrom all lookup 5\n" not in ok(session, "ip rule")
    assert "10:\tfrom all fwmark 0x5 lookup 5\n" in ok(session, "ip rule")
    ok(session, "ip rule del priority 10")
    assert "\n10:" not in ok(session, "ip rule")


def test_a_table_of_its_own_and_main():
    session = client(wg_quick=False)
    for line in ("ip route show table 51820", "ip -4 route show table 51820"):
        assert run(session, line) == ("", NO_TABLE, 2)
    assert run(session, "ip -6 route show table 51820") == ("", NO_TABLE_IPV6, 2)
    assert run(session, "ip route del default table 51820") == (
        "", "Error: FIB table does not exist.\n", 2)
    ok(session, "ip -4 route add 0.0.0.0/0 dev wg0 table 51820")
    assert run(session, "ip -4 route add 0.0.0.0/0 dev wg0 table 51820") == (
        "", "RTNETLINK answers: File exists\n", 2)
    assert ok(session, "ip route show table 51820") == RECORDED_TABLE_51820
    assert ok(session, "ip route") == ok(session, "ip route show table main") == RECORDED_ROUTE
    ok(session, "ip route del default table 51820")
    # The table stays, empty.
    assert run(session, "ip route show table 51820") == ("", "", 0)
    assert run(session, "ip route show table 51821") == ("", NO_TABLE, 2)


def test_route_show_filters_match_recordings():
    session = client(wg_quick=False)
    ok(session, "ip route add 10.7.0.0/24 via 192.168.50.1")
    assert ok(session, "ip route show dev eth0") == (
        "10.7.0.0/24 via 192.168.50.1 \n"
        "192.168.50.0/24 proto kernel scope link src 192.168.50.10 \n")
    assert ok(session, "ip -4 route show dev wg0 match 10.0.0.0/24") == (
        "10.0.0.0/24 proto kernel scope link src 10.0.0.2 \n")
    assert ok(session, "ip -4 route show dev wg0 match 10.9.0.0/24") == ""
    assert ok(session, "ip route show default") == ""
    ok(session, "ip route add default via 192.168.50.1")
    assert ok(session, "ip route show default") == "default via 192.168.50.1 dev eth0 \n"


def test_route_get_goes_through_the_rules():
    session = client(wg_quick=False)
    ok(session, "ip -4 route add 0.0.0.0/0 dev wg0 table 51820")
    assert run(session, "ip route get 10.99.0.2") == ("", UNREACHABLE, 2)
    ok(session, "ip -4 rule add not fwmark 51820 table 51820")
    ok(session, "ip -4 rule add table main suppress_prefixlength 0")
    assert ok(session, "ip route get 10.99.0.2") == RECORDED_GET_TUNNEL
    assert ok(session, "ip route get 192.168.50.11") == RECORDED_GET_LAN
    assert ok(session, "ip route get 192.168.50.11 mark 51820") == RECORDED_GET_LAN_MARK
    assert run(session, "ip route get 10.99.0.2 mark 51820") == ("", UNREACHABLE, 2)
    assert ok(session, "ip route get 10.0.0.2") == RECORDED_GET_LOCAL
    assert ok(session, "ip route get 127.0.0.1") == RECORDED_GET_LOOPBACK
    ok(session, "ip route add 10.7.0.0/24 via 192.168.50.1")
    assert ok(session, "ip route get 10.7.0.5") == RECORDED_GET_VIA
    assert ok(session, "ip route get 10.7.0.5 mark 51820") == RECORDED_GET_VIA_MARK
    ok(session, "ip route del default table 51820")
    assert run(session, "ip route get 10.99.0.2") == ("", UNREACHABLE, 2)


def test_a_default_route_in_main_is_suppressed_for_unmarked_packets_only():
    session = client()
    ok(session, "ip route add default via 192.168.50.1")
    assert ok(session, "ip route get 10.99.0.2") == RECORDED_GET_TUNNEL
    assert ok(session, "ip route get 10.99.0.2 mark 51820") == (
        "10.99.0.2 via 192.168.50.1 dev eth0 src 192.168.50.10 mark 0xca6c uid 0 \n"
        "    cache \n")


def test_oneline_addresses_and_link_show_match_recordings():
    session = client(wg_quick=False)
    assert ok(session, "ip -o -4 addr show dev wg0") == RECORDED_ONELINE_WG0
    assert ok(session, "ip -o addr show dev wg0") == RECORDED_ONELINE_WG0
    assert ok(session, "ip -o addr show dev lo") == RECORDED_ONELINE_LO
    kernel = (RECORDED_LINK_WG0.replace("POINTOPOINT,MULTICAST,NOARP", "POINTOPOINT,NOARP")
              .replace("pfifo_fast", "noqueue").replace("qlen 500", "qlen 1000"))
    assert ok(session, "ip link show dev wg0") == kernel
    assert run(session, "ip link show dev wg9") == ("", 'Device "wg9" does not exist.\n', 1)


def test_link_set_takes_its_words_in_any_order():
    session = client(wg_quick=False)
    ok(session, "ip link set wg0 down")
    assert "state DOWN" in ok(session, "ip link show wg0")
    ok(session, "ip link set mtu 1420 up dev wg0")
    assert "state UNKNOWN" in ok(session, "ip link show wg0")
    ok(session, "ip link set mtu 1280 up dev wg0")
    assert "mtu 1280 " in ok(session, "ip link show wg0")
    assert run(session, "ip link set mtu 67 dev wg0") == (
        "", "Error: mtu less than device minimum.\n", 2)
    assert run(session, "ip link set mtu 1420 up dev wg9") == (
        "", 'Cannot find device "wg9"\n', 1)


def test_invalid_arguments_match_recordings():
    session = client(wg_quick=False)
    assert run(session, "ip route add 0.0.0.0/0 dev wg0 table foo") == (
        "", 'Error: argument "foo" is wrong: "table" value is invalid\n\n', 255)
    assert run(session, "ip rule add table foo") == (
        "", 'Error: argument "foo" is wrong: invalid table ID\n\n', 255)
    assert run(session, "ip rule add fwmark foo table 5") == (
        "", 'Error: argument "foo" is wrong: fwmark value is invalid\n\n', 255)
    assert run(session, "ip rule add pref foo table 5") == (
        "", 'Error: argument "foo" is wrong: preference value is invalid\n\n', 255)
    assert run(session, "ip rule add suppress_prefixlength foo table 5") == (
        "", 'Error: argument "foo" is wrong: suppress_prefixlength value is invalid\n\n', 255)
    assert run(session, "ip route get 1.2.3.4 mark foo") == (
        "", 'Error: argument "foo" is wrong: invalid mark value\n', 255)


def test_src_valid_mark_sysctl_matches_recording():
    session = client(wg_quick=False)
    assert ok(session, "sysctl net.ipv4.conf.all.src_valid_mark") == (
        "net.ipv4.conf.all.src_valid_mark = 0\n")
    assert ok(session, "sysctl -q net.ipv4.conf.all.src_valid_mark=1") == ""
    assert ok(session, "sysctl -q net.ipv4.conf.all.src_valid_mark") == (
        "net.ipv4.conf.all.src_valid_mark = 1\n")
    assert ok(session, "sysctl -n net.ipv4.conf.all.src_valid_mark") == "1\n"
    assert ok(session, "sysctl net.ipv4.conf.all.src_valid_mark net.ipv4.ip_forward") == (
        "net.ipv4.conf.all.src_valid_mark = 1\nnet.ipv4.ip_forward = 0\n")
    assert ok(session, "sysctl -w net.ipv4.conf.all.src_valid_mark=0") == (
        "net.ipv4.conf.all.src_valid_mark = 0\n")
    assert run(session, "sysctl -q net.ipv4.conf.all.nonexist=1") == (
        "", "sysctl: cannot stat /proc/sys/net/ipv4/conf/all/nonexist: No such file or "
        "directory\n", 1)


def test_wg_quick_firewall_rules_load_list_and_go_as_recorded():
    session = client()
    saved = ok(session, "iptables-save")
    stamp = "Wed Nov 18 11:06:40 2026"
    assert saved.startswith(f"# Generated by iptables-save v1.8.9 (nf_tables) on {stamp}\n")
    assert saved.count(f"# Completed on {stamp}\n") == 2
    assert without_dates(saved) == RECORDED_SAVE_UP
    assert ok(session, "iptables -t raw -S") == RECORDED_RAW_S
    assert ok(session, "iptables -t mangle -S") == RECORDED_MANGLE_S
    assert ok(session, "ip6tables-save") == ""
    # remove_firewall(): iptables-save's lines of wg0, -A turned into -D.
    down = "".join(line.replace("-A ", "-D ", 1) + "\n" for line in saved.splitlines()
                   if line.startswith(("*", "COMMIT")) or ("-A " in line and "wg0" in line))
    ok(session, "iptables-restore -n", down)
    assert without_dates(ok(session, "iptables-save")) == RECORDED_SAVE_DOWN
    assert run(session, "iptables-restore -n", down) == ("", RESTORE_FAILED, 1)


def test_iptables_save_lists_tables_in_iptables_order():
    session = client(wg_quick=False)
    ok(session, "iptables -t nat -A POSTROUTING -o eth1 -j MASQUERADE")
    ok(session, "iptables-restore -n", WG_QUICK_RESTORE)
    assert without_dates(ok(session, "iptables-save")) == RECORDED_SAVE_UP + RECORDED_SAVE_NAT
    ok(session, "iptables -t nat -D POSTROUTING -o eth1 -j MASQUERADE")
    assert run(session, "iptables -t nat -D POSTROUTING -o eth1 -j MASQUERADE") == (
        "", "iptables: Bad rule (does a matching rule exist in that chain?).\n", 1)
    assert model.masquerade_links(session.network.hosts["client"]) == []


def test_iptables_save_is_dated_by_the_session_clock():
    session = client()
    session.clock = START_CLOCK + 86400 * 5 + 3600
    assert "on Mon Nov 23 12:06:40 2026\n" in ok(session, "iptables-save")


def test_unmodelled_restore_input_says_so_and_changes_nothing():
    session = client(wg_quick=False)
    for text in ("*filter\n-A INPUT -m state --state NEW -j ACCEPT\nCOMMIT\n",
                 "*raw\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n", "-A PREROUTING -j DROP\n"):
        stdout, stderr, status = run(session, "iptables-restore -n", text)
        assert status == 2 and "is not simulated" in stderr, text
    assert ok(session, "iptables-save") == ""
    _, stderr, status = run(session, "iptables-restore", WG_QUICK_RESTORE)
    assert status == 2 and "is not simulated" in stderr


def test_wireguard_datagrams_use_the_interface_fwmark():
    """The model's route lookup for WireGuard's own packets (the fwmark) against `ip route
    get ... mark`."""
    session = client()
    host = session.network.hosts["client"]
    endpoint = ipaddress.IPv4Address("192.168.50.11")
    assert host.wireguard.interfaces["wg0"].fwmark == 51820
    assert model.route_for(host, endpoint, 51820).dev == "eth0"
    assert model.route_for(host, ipaddress.IPv4Address("1.1.1.1"), 51820) is None
    assert model.route_for(host, ipaddress.IPv4Address("1.1.1.1")).dev == "wg0"


addresses = st.integers(0, 2**32 - 1).map(ipaddress.IPv4Address)
prefixes = st.builds(lambda a, n: ipaddress.IPv4Network((a, n), strict=False),
                     st.integers(0, 2**32 - 1), st.integers(0, 32))


@given(st.lists(prefixes, max_size=8, unique=True), addresses, st.integers(0, 2**32 - 1))
def test_wg_quick_rules_send_all_but_marked_packets_and_main_routes_into_the_tunnel(
        extra, address, mark):
    """With wg-quick's rules, a packet goes by main's route if main has one more specific
    than a default route, else into wg0 unless it carries wg0's mark, in which case main
    decides alone."""
    network = Network()
    host = add_host(network, "h", underlay="192.168.50.10/24")
    model.add_wireguard_link(host, "wg0")
    model.set_link(host, "wg0", True)
    for prefix in extra:
        if prefix != ipaddress.IPv4Network("192.168.50.0/24"):
            model.add_route(host, str(prefix), dev="eth0")
    model.add_route(host, "0.0.0.0/0", dev="wg0", table=51820)
    model.add_rule(host, model.Rule(0, 51820, fwmark=51820, invert=True), priority_given=False)
    model.add_rule(host, model.Rule(0, model.MAIN_TABLE, suppress_prefixlength=0),
                   priority_given=False)
    main = model.lookup_route(model.sorted_routes(host), address)
    found = model.route_for(host, address, mark)
    if main is not None and main.prefix.prefixlen > 0:
        assert found == main
    elif mark != 51820:
        assert found is not None and (found.dev, found.table) == ("wg0", 51820)
    else:
        assert found == main
