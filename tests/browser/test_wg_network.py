"""The WireGuard lesson page in headless chromium: two terminals that are hosts of one
simulated network (one pings the other, through a tunnel made from both), the network's
reset, and the topology widget's controls that follow its preset (labels, hidden controls,
defaults, a text field). Expected outputs come from labsim.web.Bridge in CPython."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from labsim.scenarios import controls as controls_helper
from labsim.web import Bridge, initial_payload

pytestmark = pytest.mark.browser

DOCS = Path(__file__).resolve().parents[2] / "docs"
PYTHON_TIMEOUT = 90_000
SCENARIO = "wg-topology"


def network_page() -> str:
    """The lesson with the WireGuard widget and two terminals on one network."""
    for path in sorted((DOCS / "lessons").glob("*.md")):
        text = path.read_text()
        networks = re.findall(r'class="labsim-terminal"[^>]*data-network="([^"]+)"', text)
        if f'data-scenario="{SCENARIO}"' in text and any(networks.count(n) > 1
                                                         for n in networks):
            return f"lessons/{path.stem}/"
    pytest.fail("no lesson page has the wg-topology widget and two terminals on one network")


def terminal_text(page, index: int) -> str:
    return page.evaluate(
        "i => document.querySelectorAll('.labsim-terminal')[i].labsimTerminal.text()", index)


def run_in(page, index: int, line: str) -> str:
    """Type ``line`` into terminal ``index``; returns its text once the answer is shown."""
    terminal = page.locator(".labsim-terminal").nth(index)
    before = int(terminal.get_attribute("data-commands") or 0)
    terminal.locator(".xterm").click()
    page.keyboard.type(line)
    page.keyboard.press("Enter")
    page.wait_for_function(
        f"() => Number(document.querySelectorAll('.labsim-terminal')[{index}]"
        f".dataset.commands) > {before}", timeout=PYTHON_TIMEOUT)
    return terminal_text(page, index)


def assert_shown(text: str, reply: dict) -> None:
    lines = [line for line in (reply["stdout"] + reply["stderr"]).splitlines() if line.strip()]
    for line in lines:
        expected = line.expandtabs(8).rstrip()
        assert expected in text, f"{expected!r} not in the terminal:\n{text}"


def test_two_terminals_are_hosts_of_one_network(page, site, results_dir):
    page.goto(site + network_page())
    page.wait_for_selector(".labsim-terminal .xterm")
    terminals = page.evaluate("""() => [...document.querySelectorAll('.labsim-terminal')]
        .map(t => ({...t.dataset}))""")
    network = next(t["network"] for t in terminals
                   if sum(u.get("network") == t.get("network") for u in terminals) > 1)
    mine = [i for i, t in enumerate(terminals) if t.get("network") == network]
    a, b = mine[:2]
    hosts = json.dumps([[terminals[i]["host"], terminals[i].get("setup", "")] for i in mine])
    bridge = Bridge()

    def both(index: int, line: str) -> dict:
        """The line in the page's terminal and in CPython's bridge; checks they agree."""
        t = terminals[index]
        reply = json.loads(bridge.terminal(t["session"], line, network, t["host"], hosts))
        text = run_in(page, index, line)
        assert f"{t['prompt']}{line}" in text.replace("\n", "")  # long lines wrap
        assert_shown(text, reply)
        return reply

    # the second host of the page is .11, whichever terminal is used first
    assert "192.168.50.11/24" in both(b, "ip -br addr")["stdout"]
    assert "1 received" in both(a, "ping -c 1 192.168.50.11")["stdout"]
    # a tunnel of its own (the page's hosts may have a wg0 already)
    keys = {}
    for index, address in ((a, "10.99.0.1/24"), (b, "10.99.0.2/24")):
        for line in ("ip link add wgt type wireguard",
                     "wg genkey | wg set wgt listen-port 51900 private-key /dev/stdin",
                     f"ip addr add {address} dev wgt", "ip link set wgt up"):
            assert both(index, line)["status"] == 0, line
        keys[index] = both(index, "wg show wgt public-key")["stdout"].strip()
    both(a, f"wg set wgt peer {keys[b]} endpoint 192.168.50.11:51900 allowed-ips 10.99.0.2/32")
    both(b, f"wg set wgt peer {keys[a]} allowed-ips 10.99.0.1/32")
    assert "1 received" in both(a, "ping -c 1 10.99.0.2")["stdout"]
    # bob's side learned alice's endpoint from her handshake
    assert "endpoint: 192.168.50.10:51900" in both(b, "wg show wgt")["stdout"]
    page.locator(".labsim-terminal").nth(b).screenshot(path=results_dir / "wg-network-b.png")

    # "Reset network" on one terminal starts every host afresh, and says so in the others
    button = page.locator(".labsim-terminal").nth(b).locator(".labsim-reset")
    assert button.text_content() == "Reset network"
    button.click()
    bridge.reset(terminals[b]["session"])
    page.wait_for_function(
        f"() => document.querySelectorAll('.labsim-terminal')[{a}].labsimTerminal.text()"
        ".includes('(fresh network: reset from')")
    assert "ping -c 1 10.99.0.2" not in terminal_text(page, a)
    after = both(a, "wg show wgt")
    assert after["status"] != 0 and keys[a] not in terminal_text(page, a)
    assert "1 received" in both(a, "ping -c 1 192.168.50.11")["stdout"]


def test_topology_widget_follows_its_preset(page, site, results_dir):
    page.goto(site + network_page())
    widget = page.locator(f".labsim-widget[data-scenario='{SCENARIO}']").first
    widget.locator(".labsim-chart .main-svg").first.wait_for()
    page.wait_for_selector(f".labsim-widget[data-scenario='{SCENARIO}'][data-state=ready]",
                           timeout=PYTHON_TIMEOUT)
    described = initial_payload(SCENARIO)["describe"]
    controls = described["controls"]

    def shown(name: str) -> tuple[bool, str]:
        wrapper = widget.locator(f"[name='{name}']").locator(
            "xpath=ancestor::div[contains(@class, 'labsim-control')][1]")
        return wrapper.is_visible(), wrapper.locator("label").text_content()

    def rerun(action) -> dict:
        before = int(widget.get_attribute("data-renders") or 0)
        action()
        page.wait_for_function(
            f"() => Number(document.querySelector(\".labsim-widget[data-scenario='{SCENARIO}']\")"
            f".dataset.renders) > {before}", timeout=PYTHON_TIMEOUT)
        params = widget.evaluate("el => el.labsimWidget.params")
        expected = json.loads(Bridge().simulate(SCENARIO, json.dumps(params)))
        assert widget.locator(".labsim-summary").text_content() == expected["summary"]
        plotted = widget.evaluate("""el => el.querySelector('.labsim-chart').data
            .map(t => ({name: t.name ?? null, x: Array.from(t.x ?? []),
                        y: Array.from(t.y ?? [])}))""")
        assert plotted == [{"name": t.get("name"), "x": list(t.get("x", [])),
                            "y": list(t.get("y", []))} for t in expected["figure"]["data"]]
        return params

    preset = next(c for c in controls if c["name"] == "preset")
    hub = [o[0] for o in preset["options"]].index("hub")
    params = rerun(lambda: widget.locator("select[name='preset']").select_option(str(hub)))
    wanted = controls_helper.with_overrides(controls, described["defaults"], {"preset": "hub"})
    assert params == wanted
    label_by = {c["name"]: c.get("label_by", {}) for c in controls}
    assert shown("keepalive") == (True, label_by["keepalive"]["hub"])
    assert shown("client2_allowed_ips") == (True, label_by["client2_allowed_ips"]["hub"])
    assert not shown("masquerade")[0]  # the hub has no internet side to masquerade to
    send = widget.locator("select[name='send'] option")
    assert send.all_text_contents() == [o[1] for o in
                                        next(c for c in controls if c["name"] == "send")
                                        ["options_by"]["hub"]]

    # lesson W4's restart, a checkbox of the hub preset: client 1 (keepalive 25) is found again
    assert shown("server_restart") == (True, label_by["server_restart"]["hub"])
    params = rerun(lambda: widget.locator("input[name='server_restart']").check())
    assert params["server_restart"] is True
    summary = widget.locator(".labsim-summary").text_content()
    assert summary.startswith("After the server's restart") and "answered" in summary

    # a text control: client 2 lists only the server, and the packet is dropped at once
    def narrow():
        field = widget.locator("input[name='client2_allowed_ips']")
        field.fill("10.0.0.1/32")
        field.press("Enter")
    params = rerun(narrow)
    assert params["client2_allowed_ips"] == "10.0.0.1/32"
    assert "(ENOKEY)" in widget.locator(".labsim-summary").text_content()
    widget.scroll_into_view_if_needed()
    widget.screenshot(path=results_dir / "wg-topology-widget.png")

    # the gateway preset has no server to restart; its client's 0.0.0.0/0 is wg-quick's
    gateway = [o[0] for o in preset["options"]].index("gateway")
    rerun(lambda: widget.locator("select[name='preset']").select_option(str(gateway)))
    assert not shown("server_restart")[0]
    transcript = widget.locator(".labsim-transcript").text_content()
    assert "[#] ip -4 rule add not fwmark 51820 table 51820" in transcript
