"""The WireGuard lessons' widget: each preset's lesson setup passes the ping, each lesson
mistake drops it where and why the network model says, the transcript is commands that
replay to the same output, and the figure is a valid plotly network diagram."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsim.net.model import Network, add_ether_link, add_host
from labsim.scenarios import controls, get_scenario, wg_topology
from labsim.scenarios.base import description, simulate
from labsim.scenarios.wg_presets import PRESETS
from labsim.shell.session import Session

RED, GREEN = wg_topology.RED, wg_topology.GREEN


def run(values: object) -> dict:
    """What the page gets for ``values``."""
    return simulate(wg_topology.SCENARIO, values)
LABS = Path(__file__).resolve().parents[2] / "labs" / "net"


def dropped_at(figure: dict) -> tuple[float, float] | None:
    """Where the diagram puts its cross, if it has one."""
    marks = [t for t in figure["data"] if t["name"] == "dropped"]
    assert len(marks) <= 1
    return (marks[0]["x"][0], marks[0]["y"][0]) if marks else None


def position(preset: str, node: str) -> tuple[float, float]:
    plan = next(h for h in PRESETS[preset].hosts if h.name == node)
    return (plan.x, plan.y)


def arrows(figure: dict) -> list[dict]:
    return [a for a in figure["layout"]["annotations"] if a.get("showarrow")]


def test_registered_and_described():
    assert get_scenario("wg-topology") is wg_topology.SCENARIO
    described = description(wg_topology.SCENARIO)
    assert set(described["defaults"]) == {c["name"] for c in wg_topology.CONTROLS}
    presets = set(PRESETS)
    for control in described["controls"]:
        if "follows" in control:
            assert control["follows"] == "preset"
            assert set(control["default_by"]) == presets, control["name"]
    send = next(c for c in described["controls"] if c["name"] == "send")
    for name, preset in PRESETS.items():
        assert [o[0] for o in send["options_by"][name]] == [s.value for s in preset.sends]
        assert send["default_by"][name] == preset.sends[0].value


@pytest.mark.parametrize("preset", list(PRESETS))
def test_each_preset_passes_its_default_packet(preset):
    result = run({"preset": preset})
    json.dumps(result, allow_nan=False)
    sender, address = PRESETS[preset].sends[0].pings[-1]
    assert result["summary"].startswith(f"{sender} pings {address}")
    assert "answered, round trip" in result["summary"]
    assert "dropped" not in result["summary"]
    assert dropped_at(result["figure"]) is None
    assert result["figure"]["layout"]["title"]["text"].endswith(": answered")
    # the packet's trip is drawn in green, hop by hop, numbered in order
    packet = [a for a in arrows(result["figure"]) if a["arrowcolor"] == GREEN]
    assert len(packet) >= 2
    steps = next(t for t in result["figure"]["data"] if t["name"] == "steps")
    assert steps["text"] == [str(n) for n in range(1, len(steps["text"]) + 1)]
    assert f"root@{sender}:~# ping -c 1 -W 1 {address}\n" in result["transcript"]
    assert "1 packets transmitted, 1 received, 0% packet loss" in result["transcript"]


# (params, where the cross is, words the summary must have)
MISTAKES = {
    "bob lists alice with an address that is not hers: dropped after decryption": (
        {"preset": "two-peers", "hub_allowed_ips": "10.0.0.3/32"}, "bob",
        "dropped at bob: source 10.0.0.1 is not in the AllowedIPs of peer alice"),
    "so bob has no peer for alice's address: ENOKEY on bob": (
        {"preset": "two-peers", "hub_allowed_ips": "10.0.0.3/32", "send": "bob-alice"}, "bob",
        'no peer of wg0 has AllowedIPs matching 10.0.0.1 (ENOKEY). ping prints '
        '"ping: sendmsg: Required key not available"'),
    "an address no peer of alice covers: ENOKEY": (
        {"preset": "two-peers", "send": "alice-nobody"}, "alice",
        "dropped at alice: no peer of wg0 has AllowedIPs matching 10.0.0.3 (ENOKEY)"),
    "no endpoint on either side: EDESTADDRREQ": (
        {"preset": "two-peers", "client_endpoint": False, "hub_endpoint": False}, "alice",
        'peer bob has no endpoint yet (EDESTADDRREQ). ping prints '
        '"ping: sendmsg: Destination address required"'),
    "the gateway does not forward": (
        {"preset": "gateway", "ip_forward": False}, "gateway",
        "dropped at gateway: 198.51.100.80 is not its address and net.ipv4.ip_forward = 0"),
    "the gateway does not masquerade: the answer is lost": (
        {"preset": "gateway", "masquerade": False}, "web",
        "dropped at web on the way back: no route to 10.0.0.2"),
    "the client's AllowedIPs do not cover the internet: no route (as wg-quick sets up)": (
        {"preset": "gateway", "client_allowed_ips": "10.0.0.0/24"}, "client",
        'no route to 198.51.100.80. ping prints "ping: connect: Network is unreachable". '
        "None of client's routes covers it: its main table has only its LAN"),
    "the gateway never heard from the client: no endpoint": (
        {"preset": "gateway", "send": "gateway-client"}, "gateway",
        "dropped at gateway: peer client has no endpoint yet (EDESTADDRREQ)"),
    "W4: after the server's restart, client 1 (no keepalive) is unknown to it": (
        {"preset": "hub", "server_restart": True, "keepalive": 0}, "server",
        "client2 pings 10.0.0.2 (client1): dropped at server: peer client1 has no endpoint "
        "yet (EDESTADDRREQ)"),
    "W4: the restarted server cannot start a conversation with client 1 either": (
        {"preset": "hub", "server_restart": True, "keepalive": 0, "send": "server-client1"},
        "server", 'peer client1 has no endpoint yet (EDESTADDRREQ). ping prints '
        '"ping: sendmsg: Destination address required"'),
    "client 1 never sent and has no keepalive: the server has no endpoint": (
        {"preset": "hub", "keepalive": 0}, "server",
        "dropped at server: peer client1 has no endpoint yet (EDESTADDRREQ)"),
    "an endpoint by hand does not help: the NAT drops what answers nothing": (
        {"preset": "hub", "keepalive": 0, "hub_endpoint": True}, wg_topology.NAT_NODE,
        "dropped at client1's NAT router: the NAT in front of client1 drops a datagram "
        "from 192.168.50.1:51820"),
    "client 2's AllowedIPs cover only the server": (
        {"preset": "hub", "client2_allowed_ips": "10.0.0.1/32"}, "client2",
        "dropped at client2: no peer of wg0 has AllowedIPs matching 10.0.0.2 (ENOKEY)"),
    "the server does not forward between its clients": (
        {"preset": "hub", "ip_forward": False}, "server",
        "dropped at server: 10.0.0.2 is not its address and net.ipv4.ip_forward = 0"),
}


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_lesson_mistakes_drop_the_packet_with_the_reason(mistake):
    params, where, words = MISTAKES[mistake]
    result = run(params)
    assert words in result["summary"]
    assert "answered" not in result["summary"]
    figure = result["figure"]
    assert " dropped " in figure["layout"]["title"]["text"]
    caption = figure["layout"]["annotations"][-1]
    assert caption["font"]["color"] == RED and caption["text"].startswith("✗ dropped")
    mark = dropped_at(figure)
    if where == wg_topology.NAT_NODE:
        assert mark == PRESETS["hub"].nat_at
        # the server's handshake initiation is drawn up to the NAT router, in red
        assert any(a["arrowcolor"] == RED for a in arrows(figure))
    else:
        assert mark == position(params["preset"], where)
    assert not any(a["arrowcolor"] == GREEN for a in arrows(figure))


def test_a_nat_client_reachable_once_it_has_sent_or_with_keepalive():
    # W3: "works sometimes": after client 1 has sent, client 2 reaches it
    later = run({"preset": "hub", "keepalive": 0, "send": "client1-then-client2"})
    assert later["summary"].count("answered") == 2
    # with PersistentKeepalive the server has client 1's endpoint from the start
    keepalive = run({"preset": "hub", "send": "server-client1"})
    assert "answered" in keepalive["summary"]
    assert "persistent-keepalive 25" in keepalive["transcript"]
    assert "  endpoint: 192.168.50.2:51820\n" in keepalive["transcript"]


def test_one_endpoint_is_enough_once_its_side_sends_first():
    result = run({"preset": "two-peers", "client_endpoint": False, "send": "bob-then-alice"})
    first, second = result["summary"].split(". ", 1)
    assert "bob pings 10.0.0.1 (alice): answered" in first
    assert "alice pings 10.0.0.2 (bob): answered" in second
    alone = run({"preset": "two-peers", "client_endpoint": False})
    assert "peer bob has no endpoint yet (EDESTADDRREQ)" in alone["summary"]


def test_transcript_has_the_commands_of_each_setting():
    on = run({"preset": "gateway"})["transcript"]
    assert "root@gateway:~# sysctl -w net.ipv4.ip_forward=1\nnet.ipv4.ip_forward = 1\n" in on
    assert "root@gateway:~# iptables -t nat -A POSTROUTING -o eth1 -j MASQUERADE\n" in on
    # the client's 0.0.0.0/0 is wg-quick's: its own table, rules and fwmark, no main default
    assert "ip route add default" not in on
    assert "root@client:~# wg-quick up wg0\n" in on
    off = run({"preset": "gateway", "ip_forward": False, "masquerade": False})["transcript"]
    assert "root@gateway:~# sysctl net.ipv4.ip_forward\nnet.ipv4.ip_forward = 0\n" in off
    assert "MASQUERADE" not in off
    # wg-quick's rule: a prefix already covered by a route on wg0 gets no route of its own
    peers = run({"preset": "two-peers", "client_allowed_ips": "10.0.0.0/24, 10.9.0.0/16"})
    assert "allowed-ips 10.0.0.0/24,10.9.0.0/16" in peers["transcript"]
    assert "root@alice:~# ip route add 10.9.0.0/16 dev wg0\n" in peers["transcript"]
    assert "ip route add 10.0.0.0/24" not in peers["transcript"]


def replay(preset: str, transcript: str) -> str:
    """Run the transcript's command lines again, on a network built as the preset's, with
    the hosts sharing one clock; returns the transcript this gives."""
    network = Network()
    sessions = {}
    for plan in PRESETS[preset].hosts:
        host = add_host(network, plan.name, underlay=plan.underlay,
                        nat_address=plan.nat_address, segment=plan.segment)
        for dev, segment, address in plan.links:
            add_ether_link(host, dev, segment, address)
        sessions[plan.name] = Session(network=network, hostname=plan.name)
    out = []
    for chunk in re.split(r"(?m)^(?=root@|# )", transcript):
        if not chunk or chunk.startswith("# "):
            out.append(chunk)
            continue
        # a command of several lines goes on after bash's continuation prompt, "> "
        match = re.match(r"root@(\w+):~# (.*\n(?:> .*\n|>\n)*)", chunk)
        line = re.sub(r"\n> ?", "\n", match.group(2))[:-1]
        now = max(s.clock for s in sessions.values())
        session = sessions[match.group(1)]
        session.clock = now
        result = session.run(line)
        out.append(f"{match.group(0)}{result.stdout}{result.stderr}")
    return "".join(out)


@pytest.mark.parametrize("params", [
    {"preset": "two-peers", "send": "bob-then-alice", "client_endpoint": False},
    {"preset": "gateway", "masquerade": False},
    {"preset": "hub", "keepalive": 0, "hub_endpoint": True},
    {"preset": "gateway"},
    {"preset": "gateway", "client_allowed_ips": "10.0.0.0/24", "keepalive": 25,
     "hub_endpoint": True},
    {"preset": "hub", "server_restart": True, "send": "client1-then-client2"},
])
def test_transcript_replays_to_the_same_output(params):
    transcript = run(params)["transcript"]
    assert transcript.count("root@") > 10
    assert replay(params["preset"], transcript) == transcript


@pytest.mark.parametrize("preset", list(PRESETS))
def test_figure_is_a_valid_plotly_network_diagram(preset):
    figure = run({"preset": preset})["figure"]
    go.Figure(figure)  # raises on any property plotly does not know
    layout = figure["layout"]
    assert layout["xaxis"]["visible"] is False and layout["yaxis"]["visible"] is False
    names = {t["name"] for t in figure["data"]}
    assert {"network cable", "WireGuard tunnel", "host", "switch", "steps"} <= names
    hosts = next(t for t in figure["data"] if t["name"] == "host")
    plans = PRESETS[preset].hosts
    assert hosts["x"] == [h.x for h in plans] and hosts["y"] == [h.y for h in plans]
    for plan, text in zip(plans, hosts["text"], strict=True):
        assert text.startswith(f"<b>{plan.name}</b><br>eth0 ")
    tunnel = next(t for t in figure["data"] if t["name"] == "WireGuard tunnel")
    assert tunnel["line"]["dash"] == "dash"
    assert len([x for x in tunnel["x"] if x is None]) == len(PRESETS[preset].clients)
    for arrow in arrows(figure):
        refs = (arrow["xref"], arrow["axref"], arrow["yref"], arrow["ayref"])
        assert refs == ("x", "x", "y", "y")  # both ends in data coordinates


def test_deterministic():
    params = {"preset": "hub", "send": "client1-then-client2"}
    assert json.dumps(run(params)) == json.dumps(run(params))


def test_bad_values_fall_back_with_a_note():
    result = run({"preset": "two-peers", "send": "client-web", "keepalive": 99,
                  "client_endpoint": "yes", "client_allowed_ips": "10.0.0.2/32; reboot"})
    summary = result["summary"]
    assert "Send: not one of its options, using alice-bob" in summary
    assert "must be 0 to 60" in summary and "must be true or false" in summary
    assert "only IPv4 addresses and prefixes" in summary
    assert "reboot" not in result["transcript"]
    assert "alice pings 10.0.0.2 (bob): answered" in summary
    assert "using the defaults" in run(["not", "an", "object"])["summary"]


def test_a_command_the_tools_refuse_is_shown_and_said():
    result = run({"preset": "two-peers", "client_allowed_ips": "10.0.0.300/32"})
    assert "Unable to parse IP address: `10.0.0.300'" in result["transcript"]
    assert "failed: Unable to parse IP address" in result["summary"]


def test_following_the_preset():
    described = description(wg_topology.SCENARIO)
    defaults = controls.with_overrides(described["controls"], described["defaults"],
                                       {"preset": "gateway"})
    assert defaults["client_allowed_ips"] == "0.0.0.0/0" and defaults["send"] == "client-web"
    given_too = controls.with_overrides(described["controls"], described["defaults"],
                                        {"preset": "hub", "keepalive": 0})
    assert given_too["keepalive"] == 0 and given_too["hub_allowed_ips"] == "10.0.0.2/32"
    # a reader's parameters that leave out a field get the preset's value for it
    params, notes = controls.read_params(described["controls"], {"preset": "hub"})
    assert params["keepalive"] == 25 and params["send"] == "client2-client1" and not notes
    masquerade = next(c for c in described["controls"] if c["name"] == "masquerade")
    assert masquerade["label_by"]["hub"] is None  # hidden where the preset has no eth1


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(list(PRESETS)), st.text(max_size=40), st.booleans(), st.booleans(),
       st.booleans())
def test_any_text_gives_a_chart(preset, text, client_endpoint, hub_endpoint, restart):
    result = run({"preset": preset, "client_allowed_ips": text, "hub_allowed_ips": text,
                  "client_endpoint": client_endpoint, "hub_endpoint": hub_endpoint,
                  "server_restart": restart})
    assert result["figure"]["data"] and result["summary"]
    assert ("answered" in result["summary"]) == (dropped_at(result["figure"]) is None)


# --- the gateway preset is lab 02, brought up by wg-quick -----------------------------------


def command_output(transcript: str, host: str, command: str) -> str:
    """What the transcript shows after the first ``root@HOST:~# COMMAND`` line (which may go
    on over continuation lines), up to the next prompt or note."""
    start = transcript.index(f"root@{host}:~# {command}")
    body = transcript[transcript.index("\n", start) + 1:]
    while body.startswith(">"):  # the rest of a command of several lines
        body = body[body.index("\n") + 1:]
    return re.split(r"(?m)^(?:root@|# )", body)[0]


def lab_lines(path: Path, keys: dict[str, str]) -> list[str]:
    """A lab's configuration file as wg-quick reads it: no comments or blank lines, the
    ${..._PUBKEY} placeholders replaced."""
    text = path.read_text()
    for name, key in keys.items():
        text = text.replace(f"${{{name.upper()}_PUBKEY}}", key)
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


def public_keys(transcript: str, hosts: tuple[str, ...]) -> dict[str, str]:
    return {host: command_output(transcript, host, "wg genkey").strip() for host in hosts}


def test_gateway_preset_writes_lab_02s_files_and_runs_wg_quick():
    transcript = run({"preset": "gateway"})["transcript"]
    keys = public_keys(transcript, ("client", "gateway"))
    for host in ("client", "gateway"):
        written = command_output(transcript, host, "echo '[Interface]")
        assert [line for line in written.splitlines() if line] == lab_lines(
            LABS / "02-wg-gateway" / f"{host}-wg0.conf", keys)
    # the client's 0.0.0.0/0, as wg-quick's add_default() makes it, in wg-quick's words.
    # Recorded on Debian 12 (wireguard-tools 1.0.20210914) in `unshare -Urnm` with this file;
    # over wireguard-go the real run also has "Error: Unknown device type.", the "[!] Missing
    # WireGuard kernel module" line and "[#] wireguard-go wg0", which kernel WireGuard (the
    # model's) does not print. `ip rule`, `ip route` and table 51820 are the same recording.
    # The widget's machine has nftables, as the lab VM does, so the firewall rules are
    # `nft -f` (recorded with nftables 1.0.6: tests/unit/test_wg_quick_firewall.py; without
    # nft this line is `[#] iptables-restore -n`).
    assert command_output(transcript, "client", "wg-quick up wg0") == (
        "[#] ip link add wg0 type wireguard\n"
        "[#] wg setconf wg0 /dev/fd/63\n"
        "[#] ip -4 address add 10.0.0.2/24 dev wg0\n"
        "[#] ip link set mtu 1420 up dev wg0\n"
        "[#] wg set wg0 fwmark 51820\n"
        "[#] ip -4 route add 0.0.0.0/0 dev wg0 table 51820\n"
        "[#] ip -4 rule add not fwmark 51820 table 51820\n"
        "[#] ip -4 rule add table main suppress_prefixlength 0\n"
        "[#] sysctl -q net.ipv4.conf.all.src_valid_mark=1\n"
        "[#] nft -f /dev/fd/63\n"
        "[#] wg set wg0 private-key /etc/wireguard/wg0.key\n")
    assert command_output(transcript, "client", "ip rule") == (
        "0:\tfrom all lookup local\n"
        "32764:\tfrom all lookup main suppress_prefixlength 0\n"
        "32765:\tnot from all fwmark 0xca6c lookup 51820\n"
        "32766:\tfrom all lookup main\n"
        "32767:\tfrom all lookup default\n")
    # lab 02's checks: the default route is in table 51820, the main table has none
    assert command_output(transcript, "client", "ip route show table 51820") == (
        "default dev wg0 scope link \n")
    assert "default" not in command_output(transcript, "client", "ip route\n")


def test_presets_have_the_labs_hosts_and_addresses():
    def topology(lab: str) -> dict:
        return tomllib.loads((LABS / lab / "topology.toml").read_text())

    def plan(preset: str, name: str) -> wg_topology.HostPlan:
        return next(h for h in PRESETS[preset].hosts if h.name == name)

    peers = topology("01-wg-peers")["hosts"]
    for name in ("alice", "bob"):
        assert plan("two-peers", name).underlay == peers[name]["address"]
    gateway = topology("02-wg-gateway")
    hosts = gateway["hosts"]
    assert plan("gateway", "client").underlay == hosts["client"]["addresses"]["lan"]
    assert plan("gateway", "gateway").underlay == hosts["gateway"]["addresses"]["lan"]
    assert plan("gateway", "gateway").links == (
        ("eth1", "inet", hosts["gateway"]["addresses"]["inet"]),)
    assert plan("gateway", "web").underlay == hosts["web"]["addresses"]["inet"]
    # the lab's client has no default route in its main table, and neither has the preset's
    assert {"host": "client", "route": "default", "expect": "failure"}.items() <= next(
        c for c in gateway["check"] if c.get("route") == "default").items()
    assert not plan("gateway", "client").setup
    hub = topology("03-wg-client-routing")["hosts"]
    assert plan("hub", "server").underlay == hub["server"]["addresses"]["lan"]
    assert plan("hub", "client2").underlay == hub["client2"]["addresses"]["lan"]
    assert plan("hub", "client1").underlay == hub["client1"]["addresses"]["home"]
    # client 1's router: its outside address is the NAT address, its inside one the gateway
    router = hub["router"]["addresses"]
    assert plan("hub", "client1").nat_address == router["lan"].split("/")[0]
    assert plan("hub", "client1").setup == (
        f"ip route add default via {router['home'].split('/')[0]}",)
    for preset, lab in (("gateway", "02-wg-gateway"), ("hub", "03-wg-client-routing")):
        for host in PRESETS[preset].hosts:
            conf = LABS / lab / f"{host.name}-wg0.conf"
            if host.tunnel is not None:
                assert f"Address = {host.tunnel}" in conf.read_text(), (preset, host.name)


def test_gateway_client_endpoint_and_keepalive():
    # the gateway can reach the client only at a port the client fixes
    known = run({"preset": "gateway", "hub_endpoint": True, "send": "gateway-client"})
    assert "gateway pings 10.0.0.2 (client): answered" in known["summary"]
    assert "> ListenPort = 51820\n" in known["transcript"].split("root@client:~# echo")[1]
    assert "> Endpoint = 192.168.50.10:51820\n" in known["transcript"]
    plain = run({"preset": "gateway"})["transcript"]
    assert "ListenPort" not in plain.split("root@client:~# echo")[1].split("root@")[0]
    # PersistentKeepalive set on the running interface sends a keepalive: a handshake
    keepalive = run({"preset": "gateway", "keepalive": 25, "send": "gateway-client"})
    assert "gateway pings 10.0.0.2 (client): answered" in keepalive["summary"]
    assert re.search(r"root@client:~# wg set wg0 peer \S+ persistent-keepalive 25\n",
                     keepalive["transcript"])
    assert "PersistentKeepalive = " not in keepalive["transcript"]


def test_a_default_route_by_hand_follows_wg_quick():
    """Hosts set up by hand still get wg-quick's table and rules for 0.0.0.0/0, and their
    tunnel's own datagrams keep to the main table (the fwmark rule)."""
    result = run({"preset": "two-peers", "client_allowed_ips": "0.0.0.0/0",
                  "send": "bob-then-alice"})
    assert result["summary"].count("answered") == 2
    transcript = result["transcript"]
    for line in ("wg set wg0 fwmark 51820", "ip -4 route add 0.0.0.0/0 dev wg0 table 51820",
                 "ip -4 rule add not fwmark 51820 table 51820",
                 "ip -4 rule add table main suppress_prefixlength 0"):
        assert f"root@alice:~# {line}\n" in transcript
    assert "ip route add default" not in transcript and "ip route add 0.0.0.0/0" not in transcript
    # client 1 has a default route of its own, via its home router: the tunnel's datagrams
    # still take it (to the server's endpoint), everything else takes the tunnel
    nat = run({"preset": "hub", "client_allowed_ips": "0.0.0.0/0",
               "send": "client1-then-client2"})
    assert nat["summary"].count("answered") == 2


# --- W4: the server restarts ------------------------------------------------------------------


def test_restart_forgets_endpoints_until_a_client_sends():
    result = run({"preset": "hub", "server_restart": True, "keepalive": 0,
                  "send": "client1-then-client2"})
    first, second = result["summary"].split(". ", 1)
    assert "client1 pings 10.0.0.1 (server): answered" in first
    assert "client2 pings 10.0.0.2 (client1): answered" in second
    transcript = result["transcript"]
    keys = public_keys(transcript, ("server",))
    assert transcript.index("root@server:~# wg-quick down wg0\n[#] ip link delete dev wg0\n") \
        < transcript.index("root@server:~# sleep 210\n")
    before, after = transcript.split("root@server:~# wg-quick down wg0")
    assert "192.168.50.2:51820\n" in command_output(before, "server", "wg show wg0 endpoints")
    forgotten = command_output(after, "server", "wg show wg0 endpoints")
    assert forgotten.count("\t(none)\n") == 2
    # brought up again from the same file: the lab's lines, with the server's own key
    assert "PostUp = wg set %i private-key /etc/wireguard/%i.key" in before
    assert keys["server"] in after


def test_restart_with_keepalive_client_1_is_found_again():
    result = run({"preset": "hub", "server_restart": True})  # keepalive 25, client2 -> client1
    assert "client2 pings 10.0.0.2 (client1): answered" in result["summary"]
    # with no restart there is no wg-quick down, and no waiting
    assert "wg-quick down" not in run({"preset": "hub"})["transcript"]
    assert "sleep" not in run({"preset": "hub"})["transcript"]


def test_restart_control_only_in_the_hub_preset():
    described = description(wg_topology.SCENARIO)
    restart = next(c for c in described["controls"] if c["name"] == "server_restart")
    assert restart["kind"] == "checkbox" and restart["default"] is False
    assert restart["label_by"]["two-peers"] is None and restart["label_by"]["gateway"] is None
    assert "wg-quick down" in restart["label_by"]["hub"]
    # set where it is hidden, it changes nothing
    assert run({"preset": "gateway", "server_restart": True}) == run({"preset": "gateway"})
