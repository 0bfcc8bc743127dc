"""`wg-quick` and `tee` in labsim against the real tools.

The RECORDED_* texts come from tools/probes/wg_quick_probe.sh: wireguard-tools 1.0.20210914
(Debian 12's /usr/bin/wg-quick), wireguard-go 0.0.20220316, iproute2 6.1.0 and iptables 1.8.9
(nf_tables; nftables is not installed, so wg-quick uses iptables-restore, and labsim's
machine here has no nft either: FirewallBackend.IPTABLES; tests/unit/test_wg_quick_firewall.py
has both backends), run in `unshare -Urnm` with a veth eth0 192.168.50.10/24 (alice's address
in labsim), /etc/wireguard a 0700 tmpfs and an /etc/hosts naming bob 192.168.50.11. The keys
are those of wg_samples.py.

The host has no WireGuard module, so real wg-quick fell back to wireguard-go; labsim models
the lab VM's kernel WireGuard. ``kernel`` turns a recording into what the kernel module gives,
as src/wg-quick/linux.bash says it does: add_if()'s `ip link add IF type wireguard` succeeds,
so its error, the "[!] Missing WireGuard kernel module" line, "[#] wireguard-go IF" and
wireguard-go's boxed warning go; a kernel WireGuard link has no IPv6 link-local address, so a
saved file has no `Address = fe80::.../64` line; and a missing interface is ENODEV ("No such
device") where the host without the module answered EPROTONOSUPPORT. The recorded files list
the peers in the order of the file, which is the kernel's order. ListenPort values picked at
random are masked.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wg_samples import IF0_PRIV, IF0_PUB, IF1_PRIV, IF1_PUB, P1_PUB

from labsim.net.model import FirewallBackend, Network, add_host
from labsim.shell.base import HostFile
from labsim.shell.commands.wg_quick import PrivateHostFile
from labsim.shell.session import Session
from labsim.wg import quick

BANNER = (
    "┌──────────────────────────────────────────────────────┐\n"
    "│                                                      │\n"
    "│   Running wireguard-go is not required because this  │\n"
    "│   kernel has first class support for WireGuard. For  │\n"
    "│   information on installing the kernel module,       │\n"
    "│   please visit:                                      │\n"
    "│         https://www.wireguard.com/install/           │\n"
    "│                                                      │\n"
    "└──────────────────────────────────────────────────────┘\n"
)


def userspace(interface: str) -> str:
    """What add_if() printed after `[#] ip link add IF type wireguard` failed on the host."""
    return ("Error: Unknown device type.\n"
            "[!] Missing WireGuard kernel module. Falling back to slow userspace "
            "implementation.\n"
            f"[#] wireguard-go {interface}\n" + BANNER)


def kernel(recorded: str) -> str:
    """A recording over wireguard-go as kernel WireGuard gives it (see the module docstring)."""
    text, count = re.subn(r"Error: Unknown device type\.\n\[!\] Missing WireGuard kernel "
                          r"module\..*\n\[#\] wireguard-go \S+\n" + re.escape(BANNER), "",
                          recorded)
    assert count == recorded.count("[#] ip link add ")
    text = re.sub(r"^Address = fe80::[0-9a-f:]+/64\n", "", text, flags=re.MULTILINE)
    return text.replace("Unable to access interface: Protocol not supported",
                        "Unable to access interface: No such device")


def mask_ports(text: str) -> str:
    return re.sub(r"^ListenPort = \d+$", "ListenPort = PORT", text, flags=re.MULTILINE)


# --- the recordings -----------------------------------------------------------------------------

WG0_CONF = f"""# alice's tunnel
[Interface]
# the key
PrivateKey = {IF0_PRIV}
Address = 10.0.0.1/24, 10.0.0.5/32
Address = 10.0.3.1/24
SaveConfig = true
PreUp = echo pre-up %i
PostUp = echo post-up %i; echo second
PreDown = echo pre-down %i
PostDown = echo post-down %i

[Peer]
# bob
PublicKey = {IF1_PUB}
Endpoint = bob:51820
AllowedIPs = 10.0.0.2/32, 10.0.1.0/24
PersistentKeepalive = 25

[Peer]
PublicKey = {P1_PUB}
AllowedIPs = 10.0.2.0/24, 10.0.0.0/16
"""

RECORDED_STRIP = f"""# alice's tunnel
[Interface]
# the key
PrivateKey = {IF0_PRIV}

[Peer]
# bob
PublicKey = {IF1_PUB}
Endpoint = bob:51820
AllowedIPs = 10.0.0.2/32, 10.0.1.0/24
PersistentKeepalive = 25

[Peer]
PublicKey = {P1_PUB}
AllowedIPs = 10.0.2.0/24, 10.0.0.0/16

"""

RECORDED_UP = (
    "[#] echo pre-up wg0\n"
    "[#] ip link add wg0 type wireguard\n" + userspace("wg0") +
    "[#] wg setconf wg0 /dev/fd/63\n"
    "[#] ip -4 address add 10.0.0.1/24 dev wg0\n"
    "[#] ip -4 address add 10.0.0.5/32 dev wg0\n"
    "[#] ip -4 address add 10.0.3.1/24 dev wg0\n"
    "[#] ip link set mtu 1420 up dev wg0\n"
    "[#] ip -4 route add 10.0.2.0/24 dev wg0\n"
    "[#] ip -4 route add 10.0.1.0/24 dev wg0\n"
    "[#] ip -4 route add 10.0.0.0/16 dev wg0\n"
    "[#] echo post-up wg0; echo second\n"
)
RECORDED_UP_STDOUT = "pre-up wg0\npost-up wg0\nsecond\n"
RECORDED_ROUTE = (
    "10.0.0.0/24 dev wg0 proto kernel scope link src 10.0.0.1 \n"
    "10.0.0.0/16 dev wg0 scope link \n"
    "10.0.1.0/24 dev wg0 scope link \n"
    "10.0.2.0/24 dev wg0 scope link \n"
    "10.0.3.0/24 dev wg0 proto kernel scope link src 10.0.3.1 \n"
    "192.168.50.0/24 dev eth0 proto kernel scope link src 192.168.50.10 \n"
)
RECORDED_ROUTE_AFTER_DOWN = "192.168.50.0/24 dev eth0 proto kernel scope link src 192.168.50.10 \n"
RECORDED_SHOWCONF = f"""[Interface]
ListenPort = 57103
PrivateKey = {IF0_PRIV}

[Peer]
PublicKey = {IF1_PUB}
AllowedIPs = 10.0.0.2/32, 10.0.1.0/24
Endpoint = 192.168.50.11:51820
PersistentKeepalive = 25

[Peer]
PublicKey = {P1_PUB}
AllowedIPs = 10.0.2.0/24, 10.0.0.0/16
"""
# `wg-quick save wg0`, and the same again after `wg-quick down wg0` (SaveConfig = true).
RECORDED_SAVED = f"""[Interface]
Address = 10.0.0.1/24
Address = 10.0.0.5/32
Address = 10.0.3.1/24
Address = fe80::4824:b693:cd9e:f6f/64
SaveConfig = true
PreUp = echo pre-up %i
PostUp = echo post-up %i; echo second
PreDown = echo pre-down %i
PostDown = echo post-down %i
ListenPort = 57103
PrivateKey = {IF0_PRIV}

[Peer]
PublicKey = {IF1_PUB}
AllowedIPs = 10.0.0.2/32, 10.0.1.0/24
Endpoint = 192.168.50.11:51820
PersistentKeepalive = 25

[Peer]
PublicKey = {P1_PUB}
AllowedIPs = 10.0.2.0/24, 10.0.0.0/16
"""
RECORDED_DOWN = ("[#] echo pre-down wg0\n[#] wg showconf wg0\n[#] ip link delete dev wg0\n"
                 "[#] echo post-down wg0\n")
RECORDED_DOWN_STDOUT = "pre-down wg0\npost-down wg0\n"

# MTU and Table = off, in /tmp/d (0755): the world-accessible warning.
WG1_CONF = (f"[Interface]\nPrivateKey = {IF0_PRIV}\nListenPort = 51000\nMTU = 1420\n"
            f"Table = off\n\n[Peer]\nPublicKey = {IF1_PUB}\nAllowedIPs = 10.0.1.0/24\n"
            "Endpoint = 192.168.50.11:51820\n")
RECORDED_UP_WG1 = (
    "Warning: `/tmp/d/wg1.conf' is world accessible\n"
    "[#] ip link add wg1 type wireguard\n" + userspace("wg1") +
    "[#] wg setconf wg1 /dev/fd/63\n"
    "[#] ip link set mtu 1420 up dev wg1\n"
)
RECORDED_SAVE_WG1 = "Warning: `/tmp/d/wg1.conf' is world accessible\n[#] wg showconf wg1\n"
RECORDED_SAVED_WG1 = f"""[Interface]
Address = fe80::198b:16a1:6c5:30f/64
MTU = 1420
Table = off
ListenPort = 51000
PrivateKey = {IF0_PRIV}

[Peer]
PublicKey = {IF1_PUB}
AllowedIPs = 10.0.1.0/24
Endpoint = 192.168.50.11:51820
"""
# After the save the file is 0600: no warning any more.
RECORDED_DOWN_WG1 = "[#] ip link delete dev wg1\n"

WG2_CONF = (f"[Interface]\nPrivateKey = {IF0_PRIV}\nAddress = 10.0.0.1/24\nTable = 1234\n\n"
            f"[Peer]\nPublicKey = {IF1_PUB}\nAllowedIPs = 10.0.1.0/24, 10.0.0.2/32\n")
RECORDED_UP_WG2 = (
    "[#] ip link add wg2 type wireguard\n" + userspace("wg2") +
    "[#] wg setconf wg2 /dev/fd/63\n"
    "[#] ip -4 address add 10.0.0.1/24 dev wg2\n"
    "[#] ip link set mtu 1420 up dev wg2\n"
    "[#] ip -4 route add 10.0.0.2/32 dev wg2 table 1234\n"
    "[#] ip -4 route add 10.0.1.0/24 dev wg2 table 1234\n"
)
RECORDED_TABLE_1234 = "10.0.0.2 dev wg2 scope link \n10.0.1.0/24 dev wg2 scope link \n"

# AllowedIPs = 0.0.0.0/0: wg-quick's policy routing and firewall rules.
WG0_DEFAULT_CONF = (f"[Interface]\nPrivateKey = {IF0_PRIV}\nAddress = 10.0.0.1/24\n"
                    f"SaveConfig = true\n\n[Peer]\nPublicKey = {IF1_PUB}\n"
                    "Endpoint = 192.168.50.11:51820\nAllowedIPs = 0.0.0.0/0\n")
RECORDED_UP_DEFAULT = (
    "[#] ip link add wg0 type wireguard\n" + userspace("wg0") +
    "[#] wg setconf wg0 /dev/fd/63\n"
    "[#] ip -4 address add 10.0.0.1/24 dev wg0\n"
    "[#] ip link set mtu 1420 up dev wg0\n"
    "[#] wg set wg0 fwmark 51820\n"
    "[#] ip -4 route add 0.0.0.0/0 dev wg0 table 51820\n"
    "[#] ip -4 rule add not fwmark 51820 table 51820\n"
    "[#] ip -4 rule add table main suppress_prefixlength 0\n"
    "[#] sysctl -q net.ipv4.conf.all.src_valid_mark=1\n"
    "[#] iptables-restore -n\n"
)
RECORDED_RULES_DEFAULT = (
    "0:\tfrom all lookup local\n"
    "32764:\tfrom all lookup main suppress_prefixlength 0\n"
    "32765:\tnot from all fwmark 0xca6c lookup 51820\n"
    "32766:\tfrom all lookup main\n"
    "32767:\tfrom all lookup default\n"
)
RECORDED_TABLE_51820 = "default dev wg0 scope link \n"
RECORDED_MAIN_DEFAULT = (
    "10.0.0.0/24 dev wg0 proto kernel scope link src 10.0.0.1 \n"
    "192.168.50.0/24 dev eth0 proto kernel scope link src 192.168.50.10 \n"
)
# iptables-save after up, less its "# Generated by/Completed on" lines with their dates.
RECORDED_IPTABLES_DEFAULT = """*mangle
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
-A PREROUTING -p udp -m comment --comment "wg-quick(8) rule for wg0" -j CONNMARK --restore-mark --nfmask 0xffffffff --ctmask 0xffffffff
-A POSTROUTING -p udp -m mark --mark 0xca6c -m comment --comment "wg-quick(8) rule for wg0" -j CONNMARK --save-mark --nfmask 0xffffffff --ctmask 0xffffffff
COMMIT
*raw
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
-A PREROUTING -d 10.0.0.1/32 ! -i wg0 -m addrtype ! --src-type LOCAL -m comment --comment "wg-quick(8) rule for wg0" -j DROP
COMMIT
"""  # noqa: E501
RECORDED_SAVED_DEFAULT = f"""[Interface]
Address = 10.0.0.1/24
Address = fe80::acd:26eb:d1ab:9447/64
SaveConfig = true
ListenPort = 55719
FwMark = 0xca6c
PrivateKey = {IF0_PRIV}

[Peer]
PublicKey = {IF1_PUB}
AllowedIPs = 0.0.0.0/0
Endpoint = 192.168.50.11:51820
"""
RECORDED_DOWN_DEFAULT = (
    "[#] wg showconf wg0\n"
    "[#] ip -4 rule delete table 51820\n"
    "[#] ip -4 rule delete table main suppress_prefixlength 0\n"
    "[#] ip link delete dev wg0\n"
    "[#] iptables-restore -n\n"
)
RECORDED_RULES_AFTER = ("0:\tfrom all lookup local\n32766:\tfrom all lookup main\n"
                        "32767:\tfrom all lookup default\n")
RECORDED_IPTABLES_AFTER = """*mangle
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
COMMIT
*raw
:PREROUTING ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
COMMIT
"""

USAGE = quick.USAGE


# --- helpers ------------------------------------------------------------------------------------


@pytest.fixture
def alice() -> Session:
    """alice (eth0 192.168.50.10/24) on a network with bob (192.168.50.11), and the
    /etc/wireguard that the wireguard-tools package makes; no nftables, as where the
    recordings were made."""
    network = Network(firewall_backend=FirewallBackend.IPTABLES)
    session = Session(network=network, hostname="alice")
    add_host(network, "bob")
    assert session.run("mkdir -p /etc/wireguard").status == 0
    return session


def write(session: Session, path: str, text: str) -> None:
    session.host_files[path] = HostFile(len(text.encode()), session.clock, text)


def run(session: Session, line: str) -> tuple[str, str, int]:
    result = session.run(line)
    return result.stdout, result.stderr, result.status


def without_dates(iptables_save: str) -> str:
    return "".join(line for line in iptables_save.splitlines(keepends=True)
                   if not line.startswith("# "))


# --- the whole life of a tunnel ----------------------------------------------------------------


def test_strip_keeps_comments_and_drops_wg_quick_keys(alice):
    write(alice, "/etc/wireguard/wg0.conf", WG0_CONF)
    assert run(alice, "wg-quick strip wg0") == (RECORDED_STRIP, "", 0)


def test_up_feeds_wg_setconf_what_strip_prints(alice):
    """set_config() is `wg setconf IF <(echo "$WG_CONFIG")`: the same as piping strip's
    output into `wg setconf` by hand."""
    write(alice, "/etc/wireguard/wg0.conf", WG0_CONF.replace("bob:51820", "192.168.50.11:51820"))
    assert alice.run("wg-quick up wg0").status == 0
    assert alice.run("ip link add wg1 type wireguard").status == 0
    assert run(alice, "wg-quick strip wg0 | wg setconf wg1 /dev/stdin") == ("", "", 0)
    assert alice.run("ip link set wg1 up").status == 0
    assert mask_ports(run(alice, "wg showconf wg1")[0]) == mask_ports(
        run(alice, "wg showconf wg0")[0])
    assert "/dev/fd/63" not in alice.host_files


def test_up_save_down_with_hooks_addresses_and_a_host_name(alice):
    write(alice, "/etc/wireguard/wg0.conf", WG0_CONF)
    assert run(alice, "wg-quick up wg0") == (RECORDED_UP_STDOUT, kernel(RECORDED_UP), 0)
    assert run(alice, "ip route") == (RECORDED_ROUTE, "", 0)
    shown, _, _ = run(alice, "wg showconf wg0")
    assert mask_ports(shown) == mask_ports(RECORDED_SHOWCONF)
    assert run(alice, "wg-quick up wg0") == ("", "wg-quick: `wg0' already exists\n", 1)

    assert run(alice, "wg-quick save wg0") == ("", "[#] wg showconf wg0\n", 0)
    saved = alice.host_files["/etc/wireguard/wg0.conf"].text
    assert mask_ports(saved) == mask_ports(kernel(RECORDED_SAVED))
    # The port the kernel picked is pinned in the file.
    port = alice.wireguard.interfaces["wg0"].listen_port
    assert f"ListenPort = {port}\n" in saved
    assert run(alice, "cat /etc/wireguard/wg0.conf") == (saved, "", 0)

    assert run(alice, "wg-quick down wg0") == (RECORDED_DOWN_STDOUT, RECORDED_DOWN, 0)
    assert alice.host_files["/etc/wireguard/wg0.conf"].text == saved
    assert run(alice, "ip route") == (RECORDED_ROUTE_AFTER_DOWN, "", 0)
    assert run(alice, "wg-quick down wg0") == (
        "", "wg-quick: `wg0' is not a WireGuard interface\n", 1)

    # The saved file brings the same tunnel back, on the same port.
    out, err, status = run(alice, "wg-quick up wg0")
    assert status == 0, err
    assert alice.wireguard.interfaces["wg0"].listen_port == port


def test_a_path_with_mtu_and_table_off(alice):
    assert alice.run("mkdir /tmp/d").status == 0
    write(alice, "/tmp/d/wg1.conf", WG1_CONF)
    assert run(alice, "wg-quick up /tmp/d/wg1.conf") == ("", kernel(RECORDED_UP_WG1), 0)
    assert run(alice, "ip route") == (RECORDED_ROUTE_AFTER_DOWN, "", 0)
    assert run(alice, "wg-quick save /tmp/d/wg1.conf") == ("", RECORDED_SAVE_WG1, 0)
    assert alice.host_files["/tmp/d/wg1.conf"].text == kernel(RECORDED_SAVED_WG1)
    assert isinstance(alice.host_files["/tmp/d/wg1.conf"], PrivateHostFile)
    assert run(alice, "wg-quick down /tmp/d/wg1.conf") == ("", RECORDED_DOWN_WG1, 0)


def test_a_table_of_its_own(alice):
    write(alice, "/etc/wireguard/wg2.conf", WG2_CONF)
    assert run(alice, "wg-quick up wg2") == ("", kernel(RECORDED_UP_WG2), 0)
    assert run(alice, "ip route show table 1234") == (RECORDED_TABLE_1234, "", 0)
    assert run(alice, "wg-quick down wg2") == ("", "[#] ip link delete dev wg2\n", 0)


def test_every_peer_through_the_tunnel(alice):
    """AllowedIPs = 0.0.0.0/0: fwmark and table 51820, the two rules, src_valid_mark and the
    raw and mangle rules through iptables-restore; down takes them all away again."""
    write(alice, "/etc/wireguard/wg0.conf", WG0_DEFAULT_CONF)
    assert run(alice, "wg-quick up wg0") == ("", kernel(RECORDED_UP_DEFAULT), 0)
    assert run(alice, "ip -4 rule show") == (RECORDED_RULES_DEFAULT, "", 0)
    assert run(alice, "ip -4 route show table 51820") == (RECORDED_TABLE_51820, "", 0)
    assert run(alice, "ip route") == (RECORDED_MAIN_DEFAULT, "", 0)
    assert run(alice, "wg show wg0 fwmark") == ("0xca6c\n", "", 0)
    assert run(alice, "sysctl net.ipv4.conf.all.src_valid_mark") == (
        "net.ipv4.conf.all.src_valid_mark = 1\n", "", 0)
    saved, err, status = run(alice, "iptables-save")
    assert (without_dates(saved), err, status) == (RECORDED_IPTABLES_DEFAULT, "", 0)
    assert run(alice, "wg-quick save wg0") == ("", "[#] wg showconf wg0\n", 0)
    assert mask_ports(alice.host_files["/etc/wireguard/wg0.conf"].text) == mask_ports(
        kernel(RECORDED_SAVED_DEFAULT))
    assert run(alice, "wg-quick down wg0") == ("", RECORDED_DOWN_DEFAULT, 0)
    assert run(alice, "ip -4 rule show") == (RECORDED_RULES_AFTER, "", 0)
    saved, err, status = run(alice, "iptables-save")
    assert (without_dates(saved), err, status) == (RECORDED_IPTABLES_AFTER, "", 0)


def test_table_off_adds_no_route_even_for_a_default_route(alice):
    write(alice, "/etc/wireguard/wg0.conf",
          WG0_DEFAULT_CONF.replace("SaveConfig = true\n", "Table = off\n"))
    assert run(alice, "wg-quick up wg0") == ("", (
        "[#] ip link add wg0 type wireguard\n[#] wg setconf wg0 /dev/fd/63\n"
        "[#] ip -4 address add 10.0.0.1/24 dev wg0\n[#] ip link set mtu 1420 up dev wg0\n"), 0)
    assert run(alice, "wg show wg0 fwmark") == ("off\n", "", 0)
    assert run(alice, "ip -4 rule show") == (RECORDED_RULES_AFTER, "", 0)
    assert run(alice, "wg-quick down wg0") == ("", "[#] ip link delete dev wg0\n", 0)


def test_save_config_keeps_a_peer_added_at_run_time(alice):
    """`wg set` changes the running interface only; SaveConfig = true writes it into the file
    at `down`, and the next `up` routes its AllowedIPs."""
    write(alice, "/etc/wireguard/wg0.conf", WG0_DEFAULT_CONF.replace(
        "0.0.0.0/0", "10.0.0.2/32"))
    assert alice.run("wg-quick up wg0").status == 0
    assert run(alice, f"wg set wg0 peer {P1_PUB} allowed-ips 10.0.2.0/24") == ("", "", 0)
    assert "10.0.2.0/24" not in run(alice, "ip route")[0]
    assert alice.run("wg-quick down wg0").status == 0
    saved = alice.host_files["/etc/wireguard/wg0.conf"].text
    assert saved.endswith(f"\n[Peer]\nPublicKey = {P1_PUB}\nAllowedIPs = 10.0.2.0/24\n")
    out, err, status = run(alice, "wg-quick up wg0")
    assert status == 0
    assert "[#] ip -4 route add 10.0.2.0/24 dev wg0\n" in err
    assert "10.0.2.0/24 dev wg0 scope link \n" in run(alice, "ip route")[0]


# --- file names ---------------------------------------------------------------------------------


def test_names_and_paths(alice):
    """`wg-quick up x.conf` is the interface x.conf (/etc/wireguard/x.conf.conf); ./x.conf is
    the file in the current directory, for interface x. A 0755 directory draws the warning."""
    conf = f"[Interface]\nPrivateKey = {IF0_PRIV}\n"
    write(alice, "/etc/wireguard/x.conf.conf", conf)
    assert alice.run("mkdir /tmp/d").status == 0
    write(alice, "/tmp/d/x.conf", conf)
    assert alice.run("cd /tmp/d").status == 0
    assert run(alice, "wg-quick up x.conf") == ("", kernel(
        "[#] ip link add x.conf type wireguard\n" + userspace("x.conf") +
        "[#] wg setconf x.conf /dev/fd/63\n[#] ip link set mtu 1420 up dev x.conf\n"), 0)
    assert run(alice, "wg-quick down x.conf") == ("", "[#] ip link delete dev x.conf\n", 0)
    warning = "Warning: `/tmp/d/x.conf' is world accessible\n"
    assert run(alice, "wg-quick up ./x.conf") == ("", kernel(
        warning + "[#] ip link add x type wireguard\n" + userspace("x") +
        "[#] wg setconf x /dev/fd/63\n[#] ip link set mtu 1420 up dev x\n"), 0)
    assert run(alice, "wg-quick down ./x.conf") == ("", warning + "[#] ip link delete dev x\n",
                                                    0)


def test_a_file_in_tmp_is_world_accessible(alice):
    write(alice, "/tmp/wg10.conf", f"[Interface]\nPrivateKey = {IF0_PRIV}\n")
    warning = "Warning: `/tmp/wg10.conf' is world accessible\n"
    assert run(alice, "wg-quick up /tmp/wg10.conf") == ("", kernel(
        warning + "[#] ip link add wg10 type wireguard\n" + userspace("wg10") +
        "[#] wg setconf wg10 /dev/fd/63\n[#] ip link set mtu 1420 up dev wg10\n"), 0)
    assert run(alice, "wg-quick down /tmp/wg10.conf") == (
        "", warning + "[#] ip link delete dev wg10\n", 0)


def test_a_config_in_root_is_private(alice):
    """/root is 0700: a file there draws no warning."""
    write(alice, "/root/wg0.conf", f"[Interface]\nPrivateKey = {IF0_PRIV}\n")
    out, err, status = run(alice, "wg-quick up ./wg0.conf")
    assert (status, err.splitlines()[0]) == (0, "[#] ip link add wg0 type wireguard")


# --- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "stderr"), [
    ("wg-quick up wg9", "wg-quick: `/etc/wireguard/wg9.conf' does not exist\n"),
    ("wg-quick down ./wg9.conf", "wg-quick: `./wg9.conf' does not exist\n"),
    ("wg-quick up /tmp/x.y",
     "wg-quick: The config file must be a valid interface name, followed by .conf\n"),
    ("wg-quick up /tmp/abcdefghijklmnop.conf",
     "wg-quick: The config file must be a valid interface name, followed by .conf\n"),
    ("wg-quick down eth0", "wg-quick: `eth0' is not a WireGuard interface\n"),
    ("wg-quick up eth0", "wg-quick: `eth0' already exists\n"),
    ("wg-quick down wg3", "wg-quick: `wg3' is not a WireGuard interface\n"),
    ("wg-quick save wg3", "wg-quick: `wg3' is not a WireGuard interface\n"),
    ("wg-quick up wg4", "wg-quick: `yes' is neither true nor false\n"),
    ("wg-quick", USAGE),
    ("wg-quick up wg0 extra", USAGE),
    ("wg-quick start wg3", USAGE),
])
def test_refused(alice, line, stderr):
    write(alice, "/tmp/x.y", "")
    write(alice, "/tmp/abcdefghijklmnop.conf", "")
    write(alice, "/etc/wireguard/eth0.conf", "[Interface]\n")
    write(alice, "/etc/wireguard/wg3.conf", f"[Interface]\nPrivateKey = {IF0_PRIV}\n")
    write(alice, "/etc/wireguard/wg4.conf", "[Interface]\nSaveConfig = yes\n")
    write(alice, "/etc/wireguard/wg0.conf", f"[Interface]\nPrivateKey = {IF0_PRIV}\n")
    assert run(alice, line) == ("", stderr, 1)
    assert alice.wireguard.interfaces == {}


def test_help(alice):
    assert run(alice, "wg-quick --help") == ("", USAGE, 0)
    assert run(alice, "wg-quick help") == ("", USAGE, 0)


def up_fails(alice: Session, conf: str, recorded: str, status: int) -> None:
    """`wg-quick up wg8` with ``conf`` fails as recorded, and leaves no interface."""
    write(alice, "/etc/wireguard/wg8.conf", conf)
    assert run(alice, "wg-quick up wg8") == ("", kernel(recorded), status)
    assert alice.wireguard.interfaces == {}
    assert run(alice, "ip route") == (RECORDED_ROUTE_AFTER_DOWN, "", 0)


def test_a_line_wg_does_not_know(alice):
    up_fails(alice, f"[Interface]\nPrivateKey = {IF0_PRIV}\nAddress = 10.0.0.1/24\nBogus = 1\n\n"
                    f"[Peer]\nPublicKey = {IF1_PUB}\nAllowedIPs = 10.0.1.0/24\n",
             "[#] ip link add wg8 type wireguard\n" + userspace("wg8") +
             "[#] wg setconf wg8 /dev/fd/63\nLine unrecognized: `Bogus=1'\n"
             "Configuration parsing error\n[#] ip link delete dev wg8\n", 1)


def test_the_same_address_twice(alice):
    up_fails(alice, f"[Interface]\nPrivateKey = {IF0_PRIV}\nAddress = 10.0.0.1/24,10.0.0.1/24\n",
             "[#] ip link add wg8 type wireguard\n" + userspace("wg8") +
             "[#] wg setconf wg8 /dev/fd/63\n"
             "[#] ip -4 address add 10.0.0.1/24 dev wg8\n"
             "[#] ip -4 address add 10.0.0.1/24 dev wg8\n"
             "Error: ipv4: Address already assigned.\n"
             "[#] ip link delete dev wg8\n", 2)


def test_an_address_that_is_not_one(alice):
    up_fails(alice, f"[Interface]\nPrivateKey = {IF0_PRIV}\nAddress = 10.0.0.300/24\n",
             "[#] ip link add wg8 type wireguard\n" + userspace("wg8") +
             "[#] wg setconf wg8 /dev/fd/63\n"
             "[#] ip -4 address add 10.0.0.300/24 dev wg8\n"
             'Error: inet prefix is expected rather than "10.0.0.300/24".\n'
             "[#] ip link delete dev wg8\n", 1)


def test_allowed_ips_that_another_link_routes(alice):
    up_fails(alice, f"[Interface]\nPrivateKey = {IF0_PRIV}\nAddress = 10.0.0.1/24\n"
                    f"[Peer]\nPublicKey = {IF1_PUB}\nAllowedIPs = 192.168.50.0/24\n",
             "[#] ip link add wg8 type wireguard\n" + userspace("wg8") +
             "[#] wg setconf wg8 /dev/fd/63\n"
             "[#] ip -4 address add 10.0.0.1/24 dev wg8\n"
             "[#] ip link set mtu 1420 up dev wg8\n"
             "[#] ip -4 route add 192.168.50.0/24 dev wg8\n"
             "RTNETLINK answers: File exists\n"
             "[#] ip link delete dev wg8\n", 2)


def test_dns_without_resolvconf(alice):
    """Debian 12 does not install resolvconf: DNS = makes wg-quick up fail."""
    up_fails(alice, f"[Interface]\nPrivateKey = {IF0_PRIV}\nAddress = 10.0.0.1/24\n"
                    "DNS = 10.0.0.53, example.com\n",
             "[#] ip link add wg8 type wireguard\n" + userspace("wg8") +
             "[#] wg setconf wg8 /dev/fd/63\n"
             "[#] ip -4 address add 10.0.0.1/24 dev wg8\n"
             "[#] ip link set mtu 1420 up dev wg8\n"
             "[#] resolvconf -a wg8 -m 0 -x\n"
             "/usr/bin/wg-quick: line 32: resolvconf: command not found\n"
             "[#] ip link delete dev wg8\n", 127)


def test_a_failing_post_up(alice):
    up_fails(alice, f"[Interface]\nPrivateKey = {IF0_PRIV}\nPostUp = nosuchcmd %i\n",
             "[#] ip link add wg8 type wireguard\n" + userspace("wg8") +
             "[#] wg setconf wg8 /dev/fd/63\n"
             "[#] ip link set mtu 1420 up dev wg8\n"
             "[#] nosuchcmd wg8\n"
             "/usr/bin/wg-quick: line 295: nosuchcmd: command not found\n"
             "[#] ip link delete dev wg8\n", 127)


def test_a_failing_pre_up(alice):
    """The EXIT trap's del_if() runs before there is an interface: its own failure is the
    exit status."""
    up_fails(alice, f"[Interface]\nPrivateKey = {IF0_PRIV}\nPreUp = nosuchcmd %i\n",
             "[#] nosuchcmd wg8\n"
             "/usr/bin/wg-quick: line 295: nosuchcmd: command not found\n"
             "Unable to access interface: Protocol not supported\n"
             "[#] ip link delete dev wg8\n"
             'Cannot find device "wg8"\n', 1)


def test_a_failing_pre_down_leaves_the_interface(alice):
    write(alice, "/etc/wireguard/wg8.conf",
          f"[Interface]\nPrivateKey = {IF0_PRIV}\nPreDown = nosuchcmd %i\n"
          "PostDown = echo post-down %i\n")
    assert run(alice, "wg-quick up wg8")[2] == 0
    assert run(alice, "wg-quick down wg8") == (
        "", "[#] nosuchcmd wg8\n/usr/bin/wg-quick: line 295: nosuchcmd: command not found\n", 127)
    assert run(alice, "wg show interfaces") == ("wg8\n", "", 0)


def test_an_endpoint_without_a_route(alice):
    """set_mtu_up() asks `ip route get` about each endpoint; its error shows."""
    write(alice, "/etc/wireguard/wg8.conf",
          f"[Interface]\nPrivateKey = {IF0_PRIV}\n[Peer]\nPublicKey = {IF1_PUB}\n"
          "Endpoint = 10.9.9.9:51820\nAllowedIPs = 10.0.1.0/24\n")
    assert run(alice, "wg-quick up wg8") == ("", kernel(
        "[#] ip link add wg8 type wireguard\n" + userspace("wg8") +
        "[#] wg setconf wg8 /dev/fd/63\n"
        "RTNETLINK answers: Network is unreachable\n"
        "[#] ip link set mtu 1420 up dev wg8\n"
        "[#] ip -4 route add 10.0.1.0/24 dev wg8\n"), 0)
    assert run(alice, "wg-quick down wg8") == ("", "[#] ip link delete dev wg8\n", 0)


CASING_CONF = f"""  [interface]
\tprivatekey = {IF0_PRIV}
  address=10.0.0.1/24   # trailing comment
mtu = 1400
[peer]
publickey = {IF1_PUB}
endpoint = 10.9.9.9:51820
allowedips = 10.0.1.0/24"""


def test_keys_in_any_case_and_white_space_around_lines(alice):
    write(alice, "/etc/wireguard/wg8.conf", CASING_CONF)
    assert run(alice, "wg-quick strip wg8") == (
        f"[interface]\nprivatekey = {IF0_PRIV}\n[peer]\npublickey = {IF1_PUB}\n"
        "endpoint = 10.9.9.9:51820\nallowedips = 10.0.1.0/24\n\n", "", 0)


def test_an_mtu_the_model_cannot_set(alice):
    write(alice, "/etc/wireguard/wg8.conf", CASING_CONF)
    assert run(alice, "wg-quick up wg8") == ("", kernel(
        "[#] ip link add wg8 type wireguard\n" + userspace("wg8") +
        "[#] wg setconf wg8 /dev/fd/63\n"
        "[#] ip -4 address add 10.0.0.1/24 dev wg8\n"
        "[#] ip link set mtu 1400 up dev wg8\n"
        "[#] ip -4 route add 10.0.1.0/24 dev wg8\n"), 0)


# --- host names --------------------------------------------------------------------------------


def test_a_host_name_from_etc_hosts(alice):
    write(alice, "/etc/hosts", "127.0.0.1\tlocalhost\n192.168.50.99 bob.lab Bob  # here\n")
    write(alice, "/etc/wireguard/wg0.conf", WG0_CONF.replace("bob:51820", "bob:51820 # b"))
    assert run(alice, "wg-quick up wg0")[2] == 0
    assert run(alice, "wg show wg0 endpoints")[0] == (
        f"{IF1_PUB}\t192.168.50.99:51820\n{P1_PUB}\t(none)\n")


def test_etc_hosts_is_the_only_source_when_it_exists(alice):
    write(alice, "/etc/hosts", "127.0.0.1\tlocalhost\n")
    write(alice, "/etc/wireguard/wg0.conf", WG0_CONF)
    out, err, status = run(alice, "wg-quick up wg0")
    assert status == 1
    assert ("[#] wg setconf wg0 /dev/fd/63\nName or service not known: `bob:51820'\n"
            "Configuration parsing error\n[#] ip link delete dev wg0\n") in err
    assert "/dev/fd/63" not in alice.host_files


def test_two_hosts_by_name_through_the_tunnel():
    """Each host's wg-quick up, alice naming bob's endpoint by host name (no /etc/hosts: the
    network's names): the ping crosses the tunnel and bob learns alice's endpoint."""
    network = Network()
    alice, bob = Session(network=network, hostname="alice"), Session(network=network,
                                                                     hostname="bob")
    for session in (alice, bob):
        assert session.run("mkdir -p /etc/wireguard").status == 0
    write(alice, "/etc/wireguard/wg0.conf",
          f"[Interface]\nPrivateKey = {IF0_PRIV}\nAddress = 10.0.0.1/24\n\n[Peer]\n"
          f"PublicKey = {IF1_PUB}\nEndpoint = bob:51820\nAllowedIPs = 10.0.0.2/32\n")
    write(bob, "/etc/wireguard/wg0.conf",
          f"[Interface]\nPrivateKey = {IF1_PRIV}\nAddress = 10.0.0.2/24\nListenPort = 51820\n\n"
          f"[Peer]\nPublicKey = {IF0_PUB}\nAllowedIPs = 10.0.0.1/32\n")
    assert bob.run("wg-quick up wg0").status == 0
    assert alice.run("wg-quick up wg0").status == 0
    assert run(alice, "wg show wg0 endpoints")[0] == f"{IF1_PUB}\t192.168.50.11:51820\n"
    pinged = alice.run("ping -c 2 10.0.0.2")
    assert pinged.status == 0 and "2 received" in pinged.stdout
    port = alice.wireguard.interfaces["wg0"].listen_port
    assert run(bob, "wg show wg0 endpoints")[0] == f"{IF0_PUB}\t192.168.50.10:{port}\n"
    assert bob.run("wg-quick down wg0").status == 0
    assert alice.run("ping -c 1 10.0.0.2").status == 1


# --- the parts, on their own ------------------------------------------------------------------


def test_routes_longest_prefix_first():
    shown = (f"{IF1_PUB}\t10.0.0.2/32 10.0.1.0/24\n{P1_PUB}\t10.0.2.0/24 10.0.0.0/16\n"
             f"{P1_PUB[:-2]}x=\t(none)\n")
    assert quick.allowed_ips_routes(shown) == [
        "10.0.0.2/32", "10.0.2.0/24", "10.0.1.0/24", "10.0.0.0/16"]


@settings(max_examples=200)
@given(st.lists(st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 32)), max_size=12))
def test_route_order_is_by_prefix_length(prefixes):
    entries = [f"{(n >> 24) & 255}.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}/{length}"
               for n, length in prefixes]
    ordered = quick.allowed_ips_routes(f"{IF1_PUB}\t" + " ".join(entries) + "\n"
                                       if entries else "")
    assert sorted(ordered) == sorted(entries)
    lengths = [int(e.split("/")[1]) for e in ordered]
    assert lengths == sorted(lengths, reverse=True)


LINE = st.text(st.sampled_from("[]=#, \tAdresMTUTabloffPrUpDwnSavCfgInterfacPe10./x"),
               max_size=30)


@settings(max_examples=300)
@given(st.lists(LINE, max_size=12))
def test_stripping_twice_changes_nothing(lines):
    """Stripping removes only key lines, never a section header, so what it leaves has no
    wg-quick key in an [Interface] section, and stripping that again changes nothing."""
    first = quick.parse_options("\n".join(lines), "wg0", "/etc/wireguard/wg0.conf")
    second = quick.parse_options(first.wg_config, "wg0", "/etc/wireguard/wg0.conf")
    assert second.wg_config == first.wg_config
    assert (second.addresses, second.mtu, second.table, second.pre_up) == ([], None, None, [])


def test_parse_options_lists_and_dns():
    config = quick.parse_options(
        "[Interface]\nAddress = 10.0.0.1/24,10.0.0.2/32  10.0.0.3/32\nDNS = 1.1.1.1, lab, fd00::1\n"
        "Table = auto\nMTU = 1420\nMTU = 1380\nSaveConfig = TRUE\n[Peer]\nAddress = 1.2.3.4\n",
        "wg0", "/etc/wireguard/wg0.conf")
    assert config.addresses == ["10.0.0.1/24", "10.0.0.2/32", "10.0.0.3/32"]
    assert (config.dns, config.dns_search) == (["1.1.1.1", "fd00::1"], ["lab"])
    assert (config.table, config.mtu, config.save_config) == ("auto", "1380", True)
    # Address in a [Peer] section is not wg-quick's: wg gets it (and refuses it).
    assert config.wg_config == "[Interface]\n[Peer]\nAddress = 1.2.3.4\n"


def test_the_firewall_rules_a_default_route_brings():
    assert quick.iptables_restore_up("wg0", ["10.0.0.1"], 51820) == (
        "*raw\n"
        '-I PREROUTING ! -i wg0 -d 10.0.0.1 -m addrtype ! --src-type LOCAL -j DROP '
        '-m comment --comment "wg-quick(8) rule for wg0"\n'
        "COMMIT\n*mangle\n"
        '-I POSTROUTING -m mark --mark 51820 -p udp -j CONNMARK --save-mark '
        '-m comment --comment "wg-quick(8) rule for wg0"\n'
        '-I PREROUTING -p udp -j CONNMARK --restore-mark '
        '-m comment --comment "wg-quick(8) rule for wg0"\n'
        "COMMIT\n")
    # remove_firewall() from the recorded iptables-save: the same rules, -A turned into -D.
    comment = '-m comment --comment "wg-quick(8) rule for wg0"'
    assert quick.iptables_restore_down(RECORDED_IPTABLES_DEFAULT, "wg0") == (
        "*mangle\n"
        f"-D PREROUTING -p udp {comment} -j CONNMARK --restore-mark --nfmask 0xffffffff "
        "--ctmask 0xffffffff\n"
        f"-D POSTROUTING -p udp -m mark --mark 0xca6c {comment} -j CONNMARK --save-mark "
        "--nfmask 0xffffffff --ctmask 0xffffffff\n"
        "COMMIT\n*raw\n"
        f"-D PREROUTING -d 10.0.0.1/32 ! -i wg0 -m addrtype ! --src-type LOCAL {comment} "
        "-j DROP\n"
        "COMMIT\n")
    assert quick.iptables_restore_down(RECORDED_IPTABLES_AFTER, "wg0") is None
    assert quick.iptables_restore_down(RECORDED_IPTABLES_DEFAULT, "wg1") is None


def test_fwmark_and_default_route_checks():
    assert quick.parse_fwmark("0xca6c\n") == 51820
    assert quick.parse_fwmark("off\n") is None
    assert quick.has_default_route(f"{IF1_PUB}\t0.0.0.0/0\n")
    assert quick.has_default_route(f"{IF1_PUB}\t0.0.0.0/0 10.0.0.0/8\n")
    assert not quick.has_default_route(f"{IF1_PUB}\t10.0.0.0/8\n")


# --- tee ----------------------------------------------------------------------------------------


def test_tee_writes_appends_and_echoes(alice):
    assert run(alice, "echo [Interface] | tee /etc/wireguard/wg0.conf") == (
        "[Interface]\n", "", 0)
    assert run(alice, f"echo PrivateKey = {IF0_PRIV} | tee -a /etc/wireguard/wg0.conf")[2] == 0
    assert run(alice, "cat /etc/wireguard/wg0.conf") == (
        f"[Interface]\nPrivateKey = {IF0_PRIV}\n", "", 0)
    assert run(alice, "echo x | tee /etc/wireguard/wg0.conf /tmp/copy")[0] == "x\n"
    assert alice.host_files["/etc/wireguard/wg0.conf"].text == "x\n"
    assert alice.host_files["/tmp/copy"].size == 2
    assert run(alice, "tee /tmp/empty") == ("", "", 0)
    assert alice.host_files["/tmp/empty"].text == ""


def test_tee_errors(alice):
    # Recorded (coreutils 9.1): the other files are still written, and stdout still echoes.
    assert run(alice, "echo hi | tee /nonexistent/x /tmp/y") == (
        "hi\n", "tee: /nonexistent/x: No such file or directory\n", 1)
    assert alice.host_files["/tmp/y"].text == "hi\n"
    assert run(alice, "echo hi | tee /tmp") == ("hi\n", "tee: /tmp: Is a directory\n", 1)
    assert run(alice, "tee --bogus") == (
        "", "tee: unrecognized option '--bogus'\nTry 'tee --help' for more information.\n", 1)


def test_tee_append_keeps_a_private_file_private(alice):
    write(alice, "/etc/wireguard/wg0.conf", f"[Interface]\nPrivateKey = {IF0_PRIV}\n")
    assert alice.run("wg-quick up wg0").status == 0
    assert alice.run("wg-quick save wg0").status == 0
    assert alice.run("echo '# note' | tee -a /etc/wireguard/wg0.conf").status == 0
    assert isinstance(alice.host_files["/etc/wireguard/wg0.conf"], PrivateHostFile)
    assert alice.host_files["/etc/wireguard/wg0.conf"].text.endswith("\n# note\n")
