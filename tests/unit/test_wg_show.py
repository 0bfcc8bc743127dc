"""`wg show` and `wg showconf`: every parameter, `wg show all`, and the human formats of
times and byte counts.

The expected texts were recorded with Debian 12's wireguard-tools 1.0.20210914 into a pipe
(so without colour). Those of configured interfaces come from wireguard-go 0.0.20220316
interfaces in a private network and mount namespace. Handshake ages, byte counters and
keepalives need traffic and time, so for those the real `wg` read an interface from a small
stand-in for wireguard-go's control socket (/var/run/wireguard/NAME.sock, the UAPI `get=1`
exchange) that reported the values below, under faketime at the session's start time,
2026-11-18 11:06:40 UTC (1795000000): `wg` itself did all the formatting and sorting.
"""

import math

import pytest
from wg_samples import (
    FULL_CONF,
    IF0_PRIV,
    IF0_PUB,
    IF1_PRIV,
    IF1_PUB,
    P1_PUB,
    P2_PUB,
    P3_PUB,
    P4_PUB,
    PSK1,
)

from labsim import Session
from labsim.format import wg as fmt
from labsim.wg.allowed_ips import AllowedIPsTable, PeerAllowedIPs, parse_prefix
from labsim.wg.device import (
    Interface,
    Peer,
    add_interface,
    record_handshake,
    record_transfer,
)
from labsim.wg.keys import decode_key, public_key

NOW = 1_795_000_000

SHOW_USAGE = (
    "Usage: wg show { <interface> | all | interfaces } [public-key | private-key | "
    "listen-port | fwmark | peers | preshared-keys | endpoints | allowed-ips | "
    "latest-handshakes | transfer | persistent-keepalive | dump]\n"
)

ODD_CONF = f"""[Interface]
ListenPort = 51821
PrivateKey = {IF1_PRIV}
[Peer]
PublicKey = {P2_PUB}
AllowedIPs = 10.1.0.0/16, 10.2.0.0/16, fd00:1::/64
Endpoint = 198.51.100.7:7
"""


def configured(*names: str) -> Session:
    """A session with the interfaces given, created in that order, and wg0 and wg1
    configured from the two files above."""
    from labsim.shell.base import HostFile

    session = Session()
    for name, text in (("/root/full.conf", FULL_CONF), ("/root/odd.conf", ODD_CONF)):
        session.host_files[name] = HostFile(len(text), 0.0, text)
    for name in names:
        add_interface(session.wireguard, name)
    assert session.run("wg setconf wg0 full.conf").status == 0
    if "wg1" in names:
        assert session.run("wg setconf wg1 odd.conf").status == 0
    return session


def run(session: Session, line: str) -> tuple[str, str, int]:
    result = session.run(line)
    return result.stdout, result.stderr, result.status


WG0_SHOW = f"""interface: wg0
  public key: {IF0_PUB}
  private key: (hidden)
  listening port: 51820
  fwmark: 0x1234

peer: {P1_PUB}
  preshared key: (hidden)
  endpoint: 192.0.2.1:51820
  allowed ips: 10.0.0.2/32, fd00::2/128
  persistent keepalive: every 25 seconds
"""
WG1_SHOW = f"""interface: wg1
  public key: {IF1_PUB}
  private key: (hidden)
  listening port: 51821

peer: {P2_PUB}
  endpoint: 198.51.100.7:7
  allowed ips: 10.1.0.0/16, 10.2.0.0/16, fd00:1::/64
"""


@pytest.mark.parametrize(
    ("line", "stdout"),
    [
        ("wg show wg0", WG0_SHOW),
        ("wg show wg0 dump",
         f"{IF0_PRIV}\t{IF0_PUB}\t51820\t0x1234\n"
         f"{P1_PUB}\t{PSK1}\t192.0.2.1:51820\t10.0.0.2/32,fd00::2/128\t0\t0\t0\t25\n"),
        ("wg showconf wg0",
         f"[Interface]\nListenPort = 51820\nFwMark = 0x1234\nPrivateKey = {IF0_PRIV}\n\n"
         f"[Peer]\nPublicKey = {P1_PUB}\nPresharedKey = {PSK1}\n"
         "AllowedIPs = 10.0.0.2/32, fd00::2/128\nEndpoint = 192.0.2.1:51820\n"
         "PersistentKeepalive = 25\n"),
        ("wg show wg0 public-key", IF0_PUB + "\n"),
        ("wg show wg0 private-key", IF0_PRIV + "\n"),
        ("wg show wg0 listen-port", "51820\n"),
        ("wg show wg0 fwmark", "0x1234\n"),
        ("wg show wg0 peers", P1_PUB + "\n"),
        ("wg show wg0 preshared-keys", f"{P1_PUB}\t{PSK1}\n"),
        ("wg show wg0 endpoints", f"{P1_PUB}\t192.0.2.1:51820\n"),
        ("wg show wg0 allowed-ips", f"{P1_PUB}\t10.0.0.2/32 fd00::2/128\n"),
        ("wg show wg0 latest-handshakes", f"{P1_PUB}\t0\n"),
        ("wg show wg0 persistent-keepalive", f"{P1_PUB}\t25\n"),
        ("wg show wg0 transfer", f"{P1_PUB}\t0\t0\n"),
        ("wg show wg1", WG1_SHOW),
    ],
)
def test_show_a_configured_interface(line, stdout):
    assert run(configured("wg0", "wg1"), line) == (stdout, "", 0)


# `wg show all` lists interfaces in the kernel's order, that of their creation. The
# recording listed wg1 first (wireguard-go's sockets in directory order), so here wg1 is
# created first too.
@pytest.mark.parametrize(
    ("line", "stdout"),
    [
        ("wg show all", WG1_SHOW + "\n" + WG0_SHOW),
        ("wg", WG1_SHOW + "\n" + WG0_SHOW),
        ("wg show all dump",
         f"wg1\t{IF1_PRIV}\t{IF1_PUB}\t51821\toff\n"
         f"wg1\t{P2_PUB}\t(none)\t198.51.100.7:7\t10.1.0.0/16,10.2.0.0/16,fd00:1::/64\t0\t0\t0"
         "\toff\n"
         f"wg0\t{IF0_PRIV}\t{IF0_PUB}\t51820\t0x1234\n"
         f"wg0\t{P1_PUB}\t{PSK1}\t192.0.2.1:51820\t10.0.0.2/32,fd00::2/128\t0\t0\t0\t25\n"),
        ("wg show all peers", f"wg1\t{P2_PUB}\nwg0\t{P1_PUB}\n"),
        ("wg show all listen-port", "wg1\t51821\nwg0\t51820\n"),
        ("wg show all private-key", f"wg1\t{IF1_PRIV}\nwg0\t{IF0_PRIV}\n"),
        ("wg show interfaces", "wg1 wg0\n"),
    ],
)
def test_show_all(line, stdout):
    assert run(configured("wg1", "wg0"), line) == (stdout, "", 0)


@pytest.mark.parametrize(
    ("line", "stderr", "status"),
    [
        ("wg show wg0 bogus", "Invalid parameter: `bogus'\n" + SHOW_USAGE, 1),
        ("wg show all bogus", "Invalid parameter: `bogus'\n" + SHOW_USAGE, 1),
        ("wg show --help", SHOW_USAGE, 0),
        ("wg show -h", SHOW_USAGE, 0),
        ("wg show help", SHOW_USAGE, 0),
        ("wg show a b c", SHOW_USAGE, 1),
        ("wg show interfaces x", SHOW_USAGE, 1),
        # Recorded over wireguard-go without the kernel module as "Protocol not supported";
        # the module answers ENODEV.
        ("wg show nosuch", "Unable to access interface: No such device\n", 1),
        ("wg show nosuch dump", "Unable to access interface: No such device\n", 1),
        ("wg showconf nosuch", "Unable to access interface: No such device\n", 1),
        # showconf takes --help for an interface name.
        ("wg showconf --help", "Unable to access interface: No such device\n", 1),
        ("wg showconf", "Usage: wg showconf <interface>\n", 1),
        ("wg showconf a b", "Usage: wg showconf <interface>\n", 1),
    ],
)
def test_show_refuses(line, stderr, status):
    assert run(configured("wg0", "wg1"), line) == ("", stderr, status)


# --- handshakes, counters and keepalives, as the real `wg` formatted them ---------------------


def extra_key(i: int) -> bytes:
    return bytes([i]) * 32


# (public key, handshake age in seconds or None for never, received, sent, keepalive), in the
# interface's order; ages are relative to NOW, and -5 is a handshake in the future.
ROWS = [
    (P1_PUB, None, 0, 0, 0),
    (P2_PUB, 65, 1, 0, 1),
    (P3_PUB, 0, 1023, 1024, 60),
    (P4_PUB, None, 1536, 1048575, 61),
    (IF1_PUB, 65, 1048576, 5000000000, 3600),
    (extra_key(1), 3661, 1649267441664, 2**64 - 1, 65535),
    (extra_key(2), 86399, 0, 1, 3599),
    (extra_key(3), 86400, 0, 0, 20863),
    (extra_key(4), 90061, 10, 0, 0),
    (extra_key(5), 31536000, 0, 0, 0),
    (extra_key(6), 2 * 31536000 + 3 * 86400 + 4 * 3600 + 5 * 60 + 6, 0, 0, 0),
    (extra_key(7), -5, 0, 0, 0),
    (extra_key(8), 59, 0, 0, 0),
    (extra_key(9), 60, 0, 0, 0),
    (extra_key(10), 3600, 0, 0, 0),
    (extra_key(11), 1, 0, 0, 0),
]

RECORDED_SHOW = """interface: wgfake
  public key: S6b8N1/IV19qXZSU9u00muESx78J6f6MDJ0kDv+MUQc=
  private key: (hidden)
  listening port: 51820

peer: BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=
  allowed ips: 10.0.0.1/32
  latest handshake: (System clock wound backward; connection problems may ensue.)

peer: /QQx1S07IzWG9Om0elgQg4gFYrdqrXQhLXG970HCEEo=
  allowed ips: 10.0.0.1/32
  latest handshake: Now
  transfer: 1023 B received, 1.00 KiB sent
  persistent keepalive: every 1 minute

peer: CwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCws=
  allowed ips: 10.0.0.1/32
  latest handshake: 1 second ago

peer: CAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAg=
  allowed ips: 10.0.0.1/32
  latest handshake: 59 seconds ago

peer: CQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQk=
  allowed ips: 10.0.0.1/32
  latest handshake: 1 minute ago

peer: gDdC53cBQu184jTfvno77eO1dBv5f/GznjdVrphgdx0=
  allowed ips: 10.0.0.1/32
  latest handshake: 1 minute, 5 seconds ago
  transfer: 1 B received, 0 B sent
  persistent keepalive: every 1 second

peer: OyTIHHcA6YRXcDSvLHT0wM+MKNNsfO9u3zoT5WjQjxs=
  allowed ips: 10.0.0.1/32
  latest handshake: 1 minute, 5 seconds ago
  transfer: 1.00 MiB received, 4.66 GiB sent
  persistent keepalive: every 1 hour

peer: CgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgo=
  allowed ips: 10.0.0.1/32
  latest handshake: 1 hour ago

peer: AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=
  allowed ips: 10.0.0.1/32
  latest handshake: 1 hour, 1 minute, 1 second ago
  transfer: 1.50 TiB received, 16777216.00 TiB sent
  persistent keepalive: every 18 hours, 12 minutes, 15 seconds

peer: AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=
  allowed ips: 10.0.0.1/32
  latest handshake: 23 hours, 59 minutes, 59 seconds ago
  transfer: 0 B received, 1 B sent
  persistent keepalive: every 59 minutes, 59 seconds

peer: AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwM=
  allowed ips: 10.0.0.1/32
  latest handshake: 1 day ago
  persistent keepalive: every 5 hours, 47 minutes, 43 seconds

peer: BAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ=
  allowed ips: 10.0.0.1/32
  latest handshake: 1 day, 1 hour, 1 minute, 1 second ago
  transfer: 10 B received, 0 B sent

peer: BQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU=
  allowed ips: 10.0.0.1/32
  latest handshake: 1 year ago

peer: BgYGBgYGBgYGBgYGBgYGBgYGBgYGBgYGBgYGBgYGBgY=
  allowed ips: 10.0.0.1/32
  latest handshake: 2 years, 3 days, 4 hours, 5 minutes, 6 seconds ago

peer: 9OvDm8avt0nMWJ/5bWdfOuxHbPwD5nHFpJHpsHOJxSk=
  allowed ips: 10.0.0.1/32

peer: UkLFz7b1gTJFPcQ7OZrnXXpd9CDB86WNuzY5biqcFFA=
  allowed ips: 10.0.0.1/32
  transfer: 1.50 KiB received, 1024.00 KiB sent
  persistent keepalive: every 1 minute, 1 second
"""

RECORDED_DUMP = "".join([
    '+DYa1mgGemfMtLnbD/03oYvQSovhj9ZG6itRP8V59WA=\tS6b8N1/IV19qXZSU9u00muESx78J6f6MDJ0kDv+MUQc=\t51820\toff\n'
    '9OvDm8avt0nMWJ/5bWdfOuxHbPwD5nHFpJHpsHOJxSk=\t(none)\t(none)\t10.0.0.1/32\t0\t0\t0\toff\n'
    'gDdC53cBQu184jTfvno77eO1dBv5f/GznjdVrphgdx0=\t(none)\t(none)\t10.0.0.1/32\t1794999935\t1\t0\t1\n'
    '/QQx1S07IzWG9Om0elgQg4gFYrdqrXQhLXG970HCEEo=\t(none)\t(none)\t10.0.0.1/32\t1795000000\t1023\t1024\t60\n'
    'UkLFz7b1gTJFPcQ7OZrnXXpd9CDB86WNuzY5biqcFFA=\t(none)\t(none)\t10.0.0.1/32\t0\t1536\t1048575\t61\n'
    'OyTIHHcA6YRXcDSvLHT0wM+MKNNsfO9u3zoT5WjQjxs=\t(none)\t(none)\t10.0.0.1/32\t1794999935\t1048576\t5000000000\t3600\n'
    'AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=\t(none)\t(none)\t10.0.0.1/32\t1794996339\t1649267441664\t18446744073709551615\t65535\n'
    'AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=\t(none)\t(none)\t10.0.0.1/32\t1794913601\t0\t1\t3599\n'
    'AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwM=\t(none)\t(none)\t10.0.0.1/32\t1794913600\t0\t0\t20863\n'
    'BAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ=\t(none)\t(none)\t10.0.0.1/32\t1794909939\t10\t0\toff\n'
    'BQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU=\t(none)\t(none)\t10.0.0.1/32\t1763464000\t0\t0\toff\n'
    'BgYGBgYGBgYGBgYGBgYGBgYGBgYGBgYGBgYGBgYGBgY=\t(none)\t(none)\t10.0.0.1/32\t1731654094\t0\t0\toff\n'
    'BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=\t(none)\t(none)\t10.0.0.1/32\t1795000005\t0\t0\toff\n'
    'CAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAg=\t(none)\t(none)\t10.0.0.1/32\t1794999941\t0\t0\toff\n'
    'CQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQk=\t(none)\t(none)\t10.0.0.1/32\t1794999940\t0\t0\toff\n'
    'CgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgo=\t(none)\t(none)\t10.0.0.1/32\t1794996400\t0\t0\toff\n'
    'CwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCwsLCws=\t(none)\t(none)\t10.0.0.1/32\t1794999999\t0\t0\toff\n'
])


def stand_in() -> Interface:
    """The interface the stand-in socket reported. Every peer had AllowedIP 10.0.0.1/32,
    which a real interface cannot have (one prefix, one peer); the table is built by hand."""
    peers, table = [], []
    for key, age, rx, tx, keepalive in ROWS:
        raw = decode_key(key) if isinstance(key, str) else key
        peer = Peer(raw, last_handshake=0 if age is None else NOW - age, rx_bytes=rx,
                    tx_bytes=tx, persistent_keepalive=keepalive)
        peers.append(peer)
        table.append(PeerAllowedIPs(peer.name, (parse_prefix("10.0.0.1/32"),)))
    private = decode_key(IF0_PRIV)
    return Interface("wgfake", private, public_key(private), 51820, 0, tuple(peers),
                     AllowedIPsTable(tuple(table)))


def test_pretty_sorts_by_latest_handshake_and_formats_times_and_bytes():
    # Most recent first (the one in the future leads), ties and peers without a handshake
    # in the interface's order, as glibc's qsort() (a merge sort) left them.
    assert fmt.pretty(stand_in(), NOW) == RECORDED_SHOW
    assert fmt.pretty(stand_in(), NOW + 0.999) == RECORDED_SHOW  # time(NULL) is whole seconds


def test_dump_keeps_the_interface_order():
    assert fmt.dump(stand_in()) == RECORDED_DUMP


def test_fields_of_the_stand_in():
    iface = stand_in()
    rows = [line.split("\t") for line in RECORDED_DUMP.splitlines()[1:]]
    assert fmt.field(iface, "latest-handshakes") == "".join(f"{r[0]}\t{r[4]}\n" for r in rows)
    assert fmt.field(iface, "transfer") == "".join(f"{r[0]}\t{r[5]}\t{r[6]}\n" for r in rows)
    assert fmt.field(iface, "persistent-keepalive") == "".join(
        f"{r[0]}\t{r[7]}\n" for r in rows)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, ""),
        (1, "1 second"),
        (59, "59 seconds"),
        (60, "1 minute"),
        (65, "1 minute, 5 seconds"),
        (3599, "59 minutes, 59 seconds"),
        (3600, "1 hour"),
        (3661, "1 hour, 1 minute, 1 second"),
        (86399, "23 hours, 59 minutes, 59 seconds"),
        (86400, "1 day"),
        (90061, "1 day, 1 hour, 1 minute, 1 second"),
        (65535, "18 hours, 12 minutes, 15 seconds"),
        (31536000, "1 year"),
        (2 * 31536000 + 3 * 86400 + 4 * 3600 + 5 * 60 + 6,
         "2 years, 3 days, 4 hours, 5 minutes, 6 seconds"),
    ],
)
def test_pretty_time(seconds, text):
    assert fmt.pretty_time(seconds) == text


def test_ago():
    assert fmt.ago(NOW, NOW) == "Now"
    assert fmt.ago(NOW - 65, NOW) == "1 minute, 5 seconds ago"
    assert fmt.ago(NOW + 5, NOW) == (
        "(System clock wound backward; connection problems may ensue.)")


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (0, "0 B"), (1, "1 B"), (1023, "1023 B"), (1024, "1.00 KiB"), (1536, "1.50 KiB"),
        (1048575, "1024.00 KiB"), (1048576, "1.00 MiB"), (5000000000, "4.66 GiB"),
        (1649267441664, "1.50 TiB"), (2**64 - 1, "16777216.00 TiB"),
    ],
)
def test_human_bytes(count, text):
    assert fmt.human_bytes(count) == text


def test_a_handshake_ages_with_the_session_clock():
    session = configured("wg0")
    key = decode_key(P1_PUB)
    record_handshake(session.wireguard, "wg0", key, session.clock)
    record_transfer(session.wireguard, "wg0", key, rx=92, tx=180)
    lines = run(session, "wg show wg0")[0].splitlines()
    assert lines[-3:] == ["  latest handshake: Now", "  transfer: 92 B received, 180 B sent",
                          "  persistent keepalive: every 25 seconds"]
    session.run("sleep 65")
    assert run(session, "wg show wg0")[0].splitlines()[-3] == (
        "  latest handshake: 1 minute, 5 seconds ago")
    assert run(session, "wg show wg0 latest-handshakes")[0] == (
        f"{P1_PUB}\t{math.floor(session.clock) - 65}\n")
