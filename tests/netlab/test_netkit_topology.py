"""netkit's lab format and runner logic, without namespaces: segments and the older single-LAN
form, /etc/hosts, lab files and variants, public-key placeholders, how each check kind reads
its fact, and the tiny HTTP server the labs use."""

from __future__ import annotations

import socket
import threading
from http.server import ThreadingHTTPServer

import pytest
from hypothesis import given
from hypothesis import strategies as st
from netlab_support import LABS_DIR, http_server, netkit

KEY_A = "A" * 43 + "="
KEY_B = "B" * 43 + "="


def write_lab(tmp_path, topology: str, scripts: dict[str, str], files: dict[str, str] = ()):
    lab = tmp_path / "lab"
    lab.mkdir()
    (lab / "topology.toml").write_text(topology)
    for name, text in {**scripts, **dict(files)}.items():
        (lab / name).write_text(text)
    return lab


def test_the_single_lan_form_still_loads():
    topology = netkit.load("01-wg-peers")
    assert topology.segments == {"lan": "192.168.50.0/24"}
    assert topology.hosts["bob"].addresses == (("lan", "192.168.50.11/24"),)
    assert topology.hosts["bob"].address == "192.168.50.11/24"
    assert topology.hosts["bob"].interfaces == ("wg0",)
    assert topology.files() == []


def test_segments_addresses_services_and_hosts_file():
    topology = netkit.load(LABS_DIR / "net" / "02-wg-gateway" / "topology.toml")
    assert topology.segments == {"lan": "192.168.50.0/24", "inet": "198.51.100.0/24"}
    gateway, web, client = (topology.hosts[h] for h in ("gateway", "web", "client"))
    assert gateway.addresses == (("lan", "192.168.50.1/24"), ("inet", "198.51.100.1/24"))
    assert gateway.wireguard == () and gateway.wg_quick == ("wg0",)
    assert web.services == (netkit.Service("http", 80),)
    assert netkit.hosts_text(client) == ("127.0.0.1\tlocalhost\n192.168.50.10\tclient\n"
                                         "192.168.50.1\tgateway\n198.51.100.80\tweb\n")
    assert gateway.hosts_file == ()


def test_a_variant_replaces_a_hosts_file_and_keeps_the_others():
    topology = netkit.load("03-wg-client-routing")
    as_written = {(f.host, f.path): f.source.name for f in topology.files()}
    overlapping = {(f.host, f.path): f.source.name
                   for f in topology.files("overlapping-allowed-ips")}
    assert as_written[("server", "/etc/wireguard/wg0.conf")] == "server-wg0.conf"
    assert overlapping[("server", "/etc/wireguard/wg0.conf")] == "server-wg0-overlapping.conf"
    assert overlapping[("client1", "/etc/wireguard/wg0.conf")] == "client1-wg0-no-keepalive.conf"
    assert overlapping[("server", "/etc/wireguard/wg1.conf")] == "server-wg1.conf"
    with pytest.raises(netkit.NetkitError, match="no variant 'nope'"):
        topology.files("nope")


def test_steps_run_in_order_of_first_appearance_host_by_host():
    topology = netkit.load("03-wg-client-routing")
    order = [(step, host) for step, host, _lines in netkit.plan(topology)]
    assert [s for s, _h in order] == sorted([s for s, _h in order],
                                            key=["keys", "up", "talk"].index)
    assert [h for s, h in order if s == "up"] == ["server", "router", "client1", "client2",
                                                  "client3"]


HOST = '[hosts.a]\nscript = "a.sh"\n'


@pytest.mark.parametrize(("topology", "message"), [
    ('[segments.lan]\nprefix = "10.1.0.0/24"\n' + HOST + 'addresses = { lan = "10.2.0.1/24" }',
     "10.2.0.1/24 is not in lan"),
    ('[segments.lan]\nprefix = "10.1.0.0/24"\n' + HOST + 'addresses = { wan = "10.1.0.1/24" }',
     "no segment 'wan'"),
    (HOST + 'address = "10.1.0.1/24"\naddresses = { lan = "10.1.0.1/24" }', "not both"),
    ('[lan]\nprefix = "10.1.0.0/24"\n[segments.lan]\nprefix = "10.1.0.0/24"\n' + HOST
     + 'address = "10.1.0.1/24"', "not both"),
    (HOST + 'address = "10.1.0.1/24"\nservices = ["ftp:21"]', "give http:PORT"),
    (HOST + 'address = "10.1.0.1/24"\nhosts_file = ["server"]', "ADDRESS NAME"),
    (HOST + 'address = "10.1.0.1/24"\n[[hosts.a.file]]\npath = "/etc/passwd"\n'
     'source = "a.conf"\nstep = "up"', "lab files go under"),
    (HOST + 'address = "10.1.0.1/24"\n[[hosts.a.file]]\npath = "/etc/wireguard/wg0.conf"\n'
     'source = "a.conf"\nstep = "later"', "step 'later', which a's script lacks"),
    (HOST + 'address = "10.1.0.1/24"\n[[check]]\nname = "x"\nhost = "a"\nping = "10.1.0.2"\n'
     'route = "default"', "give one of ping, handshake"),
    (HOST + 'address = "10.1.0.1/24"\n[[check]]\nname = "x"\nhost = "a"\n'
     'file = "/etc/hosts"', "contains or lacks"),
    (HOST + 'address = "10.1.0.1/24"\n[[check]]\nname = "x"\nhost = "a"\nping = "10.1.0.2"\n'
     'table = "51820"', "table goes with route"),
    (HOST + 'address = "10.1.0.1/24"\n[[check]]\nname = "x"\nhost = "a"\nping = "10.1.0.2"\n'
     'expect_body = "ok"', "expect_body goes with http"),
])
def test_malformed_labs_are_refused(tmp_path, topology, message):
    lab = write_lab(tmp_path, topology, {"a.sh": "# step up: nothing\nip route\n"},
                    {"a.conf": "[Interface]\n"})
    with pytest.raises(netkit.NetkitError, match=message):
        netkit.load(lab)


def test_placeholders_name_a_host_or_one_of_its_interfaces():
    keys = {"SERVER": KEY_A, "SERVER_WG0": KEY_A, "SERVER_WG1": KEY_B}
    line = "wg set wg0 peer ${SERVER_PUBKEY} ; peer ${SERVER_WG1_PUBKEY}"
    assert netkit.substitute(line, keys) == f"wg set wg0 peer {KEY_A} ; peer {KEY_B}"
    with pytest.raises(netkit.NetkitError, match="carol has no public key yet"):
        netkit.substitute("${CAROL_PUBKEY}", keys)
    with pytest.raises(netkit.NetkitError, match="server's wg2 has no public key yet"):
        netkit.substitute("${SERVER_WG2_PUBKEY}", keys)


@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9]{0,7}", fullmatch=True),
                       st.from_regex(r"[A-Za-z0-9+/]{43}=", fullmatch=True), min_size=1))
def test_substitution_leaves_no_placeholder(keys_by_host):
    keys = {h.upper(): k for h, k in keys_by_host.items()}
    line = " ".join(f"${{{h.upper()}_PUBKEY}}" for h in keys_by_host)
    assert netkit.substitute(line, keys).split() == list(keys_by_host.values())


class FakeShell:
    """A host's command lines answered from a table (line -> Result); unknown lines fail."""

    def __init__(self, answers: dict[str, netkit.Result]):
        self.answers = answers
        self.lines: list[tuple[str, str]] = []

    def __call__(self, host: str, line: str) -> netkit.Result:
        self.lines.append((host, line))
        return self.answers.get(line, netkit.Result("", "no such thing\n", 1))


def test_keys_come_from_the_interface_or_from_the_key_file_wg_quick_will_read(tmp_path):
    lab = write_lab(tmp_path, '[hosts.a]\naddress = "10.1.0.1/24"\nwireguard = ["wg0"]\n'
                    'script = "a.sh"\n[hosts.b]\naddress = "10.1.0.2/24"\n'
                    'wg_quick = ["wg0", "wg1"]\nscript = "b.sh"\n',
                    {"a.sh": "ip route\n", "b.sh": "ip route\n"})
    topology = netkit.load(lab)
    shell = FakeShell({"wg show wg0 public-key": netkit.Result(f"{KEY_A}\n", "", 0),
                       "cat /etc/wireguard/wg1.key | wg pubkey":
                       netkit.Result(f"{KEY_B}\n", "", 0)})
    keys: dict[str, str] = {}
    netkit.read_keys(topology, shell, keys)
    # b's wg0 answers `wg show` (the same fake answer); its wg1 only from the key file.
    assert keys == {"A_WG0": KEY_A, "A": KEY_A, "B_WG0": KEY_A, "B": KEY_A, "B_WG1": KEY_B}
    assert ("a", "cat /etc/wireguard/wg0.key | wg pubkey") not in shell.lines
    shell.lines.clear()
    netkit.read_keys(topology, shell, keys)
    assert shell.lines == []  # known keys are not read again


def check(**fields) -> netkit.Check:
    made = netkit.Check(name="c", host="h", **fields)
    assert made.problems() is None
    return made


def test_each_check_kind_reads_its_fact():
    ok, failed = netkit.Result, netkit.Result
    shell = FakeShell({
        "curl -s -m 1 http://198.51.100.80/": ok("web: request from 198.51.100.1\n", "", 0),
        "curl -s -m 2 http://198.51.100.81/": failed("", "", 28),
        "sysctl net.ipv4.ip_forward": ok("net.ipv4.ip_forward = 1\n", "", 0),
        "ip route show table 51820": ok("default dev wg0 scope link \n", "", 0),
        "ip route": ok("10.0.0.0/24 dev wg0 proto kernel scope link src 10.0.0.2 \n", "", 0),
        "cat /etc/wireguard/wg0.conf": ok(f"[Peer]\nPublicKey = {KEY_B}\n", "", 0),
    })
    keys = {"BOB": KEY_B}
    cases = [
        (check(http="http://198.51.100.80/", expect_body="from 198.51.100.1", wait=1),
         True, "success"),
        (check(http="http://198.51.100.80/", expect_body="from 10.0.0.2", wait=1),
         False, "failure"),
        (check(http="http://198.51.100.81/"), False, "failure"),
        (check(http="http://198.51.100.81/", expect="failure"), True, "failure"),
        (check(forwarding=True), True, "on"),
        (check(forwarding=False), False, "on"),
        (check(route="default dev wg0", table="51820"), True, "present"),
        (check(route="default"), False, "missing"),
        (check(route="default", expect="failure"), True, "missing"),
        (check(file="/etc/wireguard/wg0.conf", contains="PublicKey = ${BOB_PUBKEY}"),
         True, "present"),
        (check(file="/etc/wireguard/wg0.conf", lacks="# a comment"), True, "missing"),
        (check(file="/etc/wireguard/wg0.conf", lacks="[Peer]"), False, "present"),
        (check(file="/etc/wireguard/nothing.conf", lacks="[Peer]"), False, "missing"),
    ]
    for made, passed, observed in cases:
        outcome = netkit.evaluate(made, shell, keys)
        assert (outcome.passed, outcome.observed) == (passed, observed), made


def test_the_http_server_answers_with_the_clients_address_and_few_headers():
    server = ThreadingHTTPServer(("127.0.0.1", 0), http_server.handler("web"))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with socket.create_connection(server.server_address, timeout=5) as conn:
            conn.sendall(b"GET / HTTP/1.1\r\nHost: web\r\n\r\n")
            answer = b""
            while chunk := conn.recv(4096):
                answer += chunk
    finally:
        server.shutdown()
        server.server_close()
    head, body = answer.decode().split("\r\n\r\n", 1)
    assert body == "web: request from 127.0.0.1\n"
    lines = head.split("\r\n")
    assert lines[0] == "HTTP/1.0 200 OK"
    # labsim.net.delivery counts the bytes of exactly these headers.
    assert [line.split(":")[0] for line in lines[1:]] == ["Server", "Date", "Content-Length"]
    assert lines[3] == f"Content-Length: {len(body)}"


def test_keys_of_interfaces_the_topology_does_not_name(tmp_path):
    lab = write_lab(tmp_path, '[hosts.c]\naddress = "10.1.0.3/24"\nscript = "c.sh"\n',
                    {"c.sh": "ip route\n"})
    shell = FakeShell({"wg show interfaces": netkit.Result("wg7\n", "", 0),
                       "wg show wg7 public-key": netkit.Result(f"{KEY_B}\n", "", 0)})
    keys: dict[str, str] = {}
    netkit.read_keys(netkit.load(lab), shell, keys)
    assert keys == {"C_WG7": KEY_B, "C": KEY_B}
