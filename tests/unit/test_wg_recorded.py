"""Random `wg set` command lines, each run on an interface freshly set from BASE_CONF, as
recorded on the real tools: what `wg` printed, its status, and `wg showconf` afterwards.

Recorded with Debian 12's wireguard-tools 1.0.20210914 over wireguard-go 0.0.20220316 in a
private network and mount namespace (250 generated lines; these are all the kinds of error
that came up and a sample of the lines that were accepted). Two things were changed from the
recording, where wireguard-go differs from the kernel module that the model follows: where
wireguard-go had bound a random port for port 0, the kernel's (down) interface keeps port 0
and `wg showconf` prints no ListenPort; and wireguard-go's peers came in Go-map order,
where the kernel's come in the order they were added, so the peers of `wg showconf` are
compared as a set of [Peer] blocks.
One line whose endpoint needed a name lookup is left out: the recording machine had no network.
"""

# ruff: noqa: E501  (recorded lines are kept whole)
import pytest

from labsim import Session
from labsim.shell.base import HostFile
from labsim.wg.device import add_interface

IF0_PRIV = "+DYa1mgGemfMtLnbD/03oYvQSovhj9ZG6itRP8V59WA="
IF0_PUB = "S6b8N1/IV19qXZSU9u00muESx78J6f6MDJ0kDv+MUQc="
IF1_PRIV = "oLWQokqX3wj57z/5CtWHcQJbSnlBZweTj1dREAEAGFA="
P1_PUB = "9OvDm8avt0nMWJ/5bWdfOuxHbPwD5nHFpJHpsHOJxSk="
P2_PUB = "gDdC53cBQu184jTfvno77eO1dBv5f/GznjdVrphgdx0="
P3_PUB = "/QQx1S07IzWG9Om0elgQg4gFYrdqrXQhLXG970HCEEo="
PSK1 = "osi1R6vh0YbG5kpWpOcpq06Wc1+05tXMBfM/ZR+xqbE="
PSK2 = "b/LUHPl3zPsonE04qoo4PgWhrPswAsp27R5NcQlMcng="
UNCLAMPED = "yMnKy8zNzs/Q0dLT1NXW19jZ2tvc3d7f4OHi4+Tl5uc="

BASE_CONF = f"""[Interface]
ListenPort = 40000
[Peer]
PublicKey = {P2_PUB}
AllowedIPs = 10.0.0.0/8
Endpoint = 1.1.1.1:1
"""
FILES = {
    "base.conf": BASE_CONF,
    "if1.key": IF1_PRIV + "\n",
    "psk1": PSK1 + "\n",
    "psk2": PSK2 + "\n",
    "empty.key": "",
    "short.key": "short\n",
    "trail.key": IF0_PRIV + " x\n",
    "unclamped.key": UNCLAMPED + "\n",
    "ws.key": IF0_PRIV + "\n\n\t \n",
}

CASES = [
    (f'wg set wg0 private-key adir peer {P3_PUB} endpoint 08.1.1.1:0',
     'Invalid length key in key file\n', 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0',
     'Usage: wg set <interface> [listen-port <port>] [fwmark <mark>] [private-key <file path>] [peer <base64 public key> [remove] [preshared-key <file path>] [endpoint <ip>:<port>] [persistent-keepalive <interval seconds>] [allowed-ips <ip1>/<cidr1>[,<ip2>/<cidr2>]...] ]...\n', 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 private-key psk1 private-key nosuchfile peer {P3_PUB} preshared-key psk1',
     'fopen: No such file or directory\n', 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 listen-port 4294967296 fwmark +1 peer {P2_PUB} listen-port 1 peer {IF0_PUB} remove listen-port 1 remove',
     "Fwmark is neither 0/off nor 0-0xffffffff: `+1'\n", 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 fwmark Off peer {IF0_PUB} bogus 1 endpoint 08.1.1.1:65536 peer {P1_PUB}',
     'Invalid argument: bogus\n', 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {P1_PUB} persistent-keepalive off remove',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 peer bogus persistent-keepalive off',
     "Key is not the correct length or format: `bogus'\n", 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {P1_PUB}',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n\n[Peer]\nPublicKey = {P1_PUB}\n'),
    (f"wg set wg0 peer {P3_PUB} persistent-keepalive '' peer {P2_PUB} persistent-keepalive 010",
     "Persistent keepalive interval is neither 0/off nor 1-65535: `'\n", 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 fwmark 0xFFFFFFFF',
     '', 0,
     f'[Interface]\nListenPort = 40000\nFwMark = 0xffffffff\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 fwmark',
     'Invalid argument: fwmark\n', 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {IF0_PUB}',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {IF0_PUB}\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f"wg set wg0 private-key empty.key listen-port abc peer {P3_PUB} endpoint '[fd00::1:0' bogus 1 preshared-key /dev/null",
     "Servname not supported for ai_socktype: `abc'\n", 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {P2_PUB} endpoint :51820 listen-port 1 peer {P2_PUB} listen-port 1',
     "Name or service not known: `:51820'\n", 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 fwmark 019 listen-port 51820',
     '', 0,
     f'[Interface]\nListenPort = 51820\nFwMark = 0x13\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f"wg set wg0 private-key psk1 peer {P2_PUB} allowed-ips '' listen-port 1 peer bogus",
     'Invalid argument: listen-port\n', 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f"wg set wg0 listen-port '' private-key adir peer {P2_PUB} persistent-keepalive 010 allowed-ips 10.1.0.0/16",
     'Unable to parse empty port\n', 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 fwmark 0xFFFFFFFF listen-port 65536 peer {IF0_PUB}',
     '', 0,
     f'[Interface]\nFwMark = 0xffffffff\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n\n[Peer]\nPublicKey = {IF0_PUB}\n'),
    (f"wg set wg0 listen-port ' 6' private-key trail.key peer {P3_PUB}",
     "Found trailing character in key file: `x'\n", 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 fwmark 0xFFFFFFFF',
     '', 0,
     f'[Interface]\nListenPort = 40000\nFwMark = 0xffffffff\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 listen-port 65536',
     '', 0,
     f'[Interface]\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {P1_PUB} endpoint 0:1',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n\n[Peer]\nPublicKey = {P1_PUB}\nEndpoint = 0.0.0.0:1\n'),
    ('wg set wg0 fwmark 12 fwmark 0',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 private-key unclamped.key peer {P3_PUB} preshared-key unclamped.key',
     '', 0,
     f'[Interface]\nListenPort = 40000\nPrivateKey = yMnKy8zNzs/Q0dLT1NXW19jZ2tvc3d7f4OHi4+Tl5mc=\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n\n[Peer]\nPublicKey = {P3_PUB}\nPresharedKey = {UNCLAMPED}\n'),
    (f'wg set wg0 peer {P1_PUB} preshared-key if1.key remove persistent-keepalive off peer {P2_PUB}',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ("wg set wg0 listen-port ' 6' listen-port 0",
     '', 0,
     f'[Interface]\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {P3_PUB}',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n\n[Peer]\nPublicKey = {P3_PUB}\n'),
    (f'wg set wg0 peer {P2_PUB} remove',
     '', 0,
     '[Interface]\nListenPort = 40000\n\n'),
    ('wg set wg0 fwmark 0x0',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {P2_PUB} persistent-keepalive off',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 listen-port 1 private-key psk1',
     '', 0,
     f'[Interface]\nListenPort = 1\nPrivateKey = oMi1R6vh0YbG5kpWpOcpq06Wc1+05tXMBfM/ZR+xqXE=\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 listen-port 1',
     '', 0,
     f'[Interface]\nListenPort = 1\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f"wg set wg0 listen-port 4294967296 fwmark 12 peer {P2_PUB} endpoint '[fe80::1]x:' preshared-key trail.key",
     "Unable to find port of endpoint: `[fe80::1]x:'\n", 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {IF0_PUB}',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n\n[Peer]\nPublicKey = {IF0_PUB}\n'),
    (f'wg set wg0 peer {P3_PUB}',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n\n[Peer]\nPublicKey = {P3_PUB}\n'),
    ('wg set wg0 private-key /dev/null',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 listen-port -4294967295',
     '', 0,
     f'[Interface]\nListenPort = 1\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 listen-port -4294967295 private-key unclamped.key',
     '', 0,
     f'[Interface]\nListenPort = 1\nPrivateKey = yMnKy8zNzs/Q0dLT1NXW19jZ2tvc3d7f4OHi4+Tl5mc=\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 listen-port 65536',
     '', 0,
     f'[Interface]\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 private-key psk2 fwmark 0xFFFFFFFF',
     '', 0,
     f'[Interface]\nListenPort = 40000\nFwMark = 0xffffffff\nPrivateKey = aPLUHPl3zPsonE04qoo4PgWhrPswAsp27R5NcQlMcng=\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 fwmark Off',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 private-key psk2 listen-port +5',
     '', 0,
     f'[Interface]\nListenPort = 5\nPrivateKey = aPLUHPl3zPsonE04qoo4PgWhrPswAsp27R5NcQlMcng=\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 private-key psk1 fwmark 019',
     '', 0,
     f'[Interface]\nListenPort = 40000\nFwMark = 0x13\nPrivateKey = oMi1R6vh0YbG5kpWpOcpq06Wc1+05tXMBfM/ZR+xqXE=\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 listen-port 99999 peer {P3_PUB} preshared-key empty.key allowed-ips fe80::1%lo',
     "Unable to parse IP address: `fe80::1%lo'\n", 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {P3_PUB} remove allowed-ips 10.0.0.0/+8 remove peer {IF0_PUB} remove',
     "AllowedIP is not in the correct format: `10.0.0.0/+8'\n", 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 fwmark 0',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 private-key empty.key private-key ws.key',
     '', 0,
     f'[Interface]\nListenPort = 40000\nPrivateKey = {IF0_PRIV}\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {P2_PUB} preshared-key ws.key',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nPresharedKey = {IF0_PRIV}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {P2_PUB} allowed-ips 10.0.0.1/8',
     'Warning: AllowedIP has nonzero host part: 10.0.0.1/8\n', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {P3_PUB}',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n\n[Peer]\nPublicKey = {P3_PUB}\n'),
    ('wg set wg0 private-key psk1 listen-port 65536',
     '', 0,
     f'[Interface]\nPrivateKey = oMi1R6vh0YbG5kpWpOcpq06Wc1+05tXMBfM/ZR+xqXE=\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 fwmark 0 fwmark off',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 private-key ws.key private-key unclamped.key',
     '', 0,
     f'[Interface]\nListenPort = 40000\nPrivateKey = yMnKy8zNzs/Q0dLT1NXW19jZ2tvc3d7f4OHi4+Tl5mc=\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ("wg set wg0 listen-port ' 6'",
     '', 0,
     f'[Interface]\nListenPort = 6\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {IF0_PUB}',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {IF0_PUB}\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 private-key empty.key',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 fwmark 0 listen-port -4294967295 peer {P3_PUB} peer {P3_PUB} allowed-ips fd00::/8,10.0.0.1 allowed-ips ::ffff:1.2.3.4/96',
     'Warning: AllowedIP has nonzero host part: ::ffff:1.2.3.4/96\n', 0,
     f'[Interface]\nListenPort = 1\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n\n[Peer]\nPublicKey = {P3_PUB}\nAllowedIPs = fd00::/8, 10.0.0.1/32, ::ffff:0.0.0.0/96\n'),
    ('wg set wg0 private-key psk2 fwmark 019',
     '', 0,
     f'[Interface]\nListenPort = 40000\nFwMark = 0x13\nPrivateKey = aPLUHPl3zPsonE04qoo4PgWhrPswAsp27R5NcQlMcng=\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 private-key psk1',
     '', 0,
     f'[Interface]\nListenPort = 40000\nPrivateKey = oMi1R6vh0YbG5kpWpOcpq06Wc1+05tXMBfM/ZR+xqXE=\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 fwmark 0x10 peer {P1_PUB}',
     '', 0,
     f'[Interface]\nListenPort = 40000\nFwMark = 0x10\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n\n[Peer]\nPublicKey = {P1_PUB}\n'),
    (f'wg set wg0 peer {P1_PUB} preshared-key empty.key remove',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 listen-port +5',
     '', 0,
     f'[Interface]\nListenPort = 5\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ("wg set wg0 listen-port 65535 listen-port ' 6'",
     '', 0,
     f'[Interface]\nListenPort = 6\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 peer {IF0_PUB} remove',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 fwmark 0',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    (f'wg set wg0 listen-port -4294967295 peer {P2_PUB} preshared-key empty.key persistent-keepalive 010 remove',
     '', 0,
     '[Interface]\nListenPort = 1\n\n'),
    (f'wg set wg0 peer {P2_PUB}',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 peer',
     'Invalid argument: peer\n', 1,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
    ('wg set wg0 fwmark off',
     '', 0,
     f'[Interface]\nListenPort = 40000\n\n[Peer]\nPublicKey = {P2_PUB}\nAllowedIPs = 10.0.0.0/8\nEndpoint = 1.1.1.1:1\n'),
]


def peer_blocks(conf: str) -> tuple[str, list[str]]:
    head, *peers = conf.split("\n[Peer]")
    return head, sorted(peers)


@pytest.fixture(scope="module")
def session() -> Session:
    s = Session()
    for name, text in FILES.items():
        s.host_files["/root/" + name] = HostFile(len(text), 0.0, text)
    s.host_dirs.add("/root/adir")
    add_interface(s.wireguard, "wg0")
    return s


@pytest.mark.parametrize(("line", "stderr", "status", "conf"), CASES)
def test_recorded_wg_set(session, line, stderr, status, conf):
    assert session.run("wg setconf wg0 base.conf").status == 0
    result = session.run(line)
    assert (result.stdout, result.stderr, result.status) == ("", stderr, status)
    shown = session.run("wg showconf wg0").stdout
    # wireguard-go listed peers in random order; the blocks must be the same.
    assert peer_blocks(shown) == peer_blocks(conf)
