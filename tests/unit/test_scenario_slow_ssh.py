"""The slow-SSH widget: the phases of a login laid end to end, coloured by cause."""

from __future__ import annotations

import json

from labsim.scenarios import get_scenario, slow_ssh
from labsim.scenarios.base import description, simulate


def spans(result: dict) -> dict[str, list[tuple[str, float, float]]]:
    """Legend entry -> (row, start, seconds) of its bars."""
    return {t["name"]: [(y, b, x) for y, b, x in zip(t["y"], t["base"], t["x"], strict=True)
                        if y is not None]
            for t in result["figure"]["data"]}


def test_registered_and_described():
    assert get_scenario("slow-ssh") is slow_ssh.SCENARIO
    described = description(slow_ssh.SCENARIO)
    assert set(described["defaults"]) == {c["name"] for c in slow_ssh.CONTROLS}


def test_defaults_are_debians_with_a_dead_name_server():
    result = simulate(slow_ssh.SCENARIO, description(slow_ssh.SCENARIO)["defaults"])
    json.dumps(result, allow_nan=False)
    assert [t["name"] for t in result["figure"]["data"]] == [g for g, _c in slow_ssh.GROUPS]
    assert result["summary"].startswith("This login takes 34.73 s; with every cause fixed, "
                                        "0.40 s. Waiting on: GSSAPI 20.00 s, UseDNS 14.34 s.")
    bars = spans(result)
    # sshd's lookup starts when the key exchange is done, 0.18 s in.
    assert bars["UseDNS"][0] == ("this login", 0.18, 10.0)
    assert [row for row, *_ in bars["GSSAPI"]] == ["this login"] * 2
    assert "options timeout:5 attempts:2" in result["transcript"]
    assert "real\t0m34.726s" in result["transcript"]


def test_the_lab_settings_give_the_labs_figures():
    base = {"timeout": 1, "attempts": 1, "use_dns": True, "client_gssapi": False}
    result = simulate(slow_ssh.SCENARIO, base)
    assert "This login takes 2.18 s" in result["summary"]
    gssapi = simulate(slow_ssh.SCENARIO, {**base, "use_dns": False, "client_gssapi": True})
    assert "This login takes 2.40 s" in gssapi["summary"]
    assert "GSSAPI 2.00 s" in gssapi["summary"]


def test_fixing_each_cause_removes_its_bars():
    result = simulate(slow_ssh.SCENARIO, {"use_dns": False, "client_gssapi": False})
    bars = spans(result)
    assert bars["UseDNS"] == [] and bars["GSSAPI"] == []
    assert "Nothing waits on a lookup." in result["summary"]


def test_a_refusing_name_server_is_harmless():
    result = simulate(slow_ssh.SCENARIO, {"nameserver": "refuses"})
    assert "This login takes 0.41 s" in result["summary"]


def test_an_mdns_name_with_avahi_fails_after_six_seconds():
    result = simulate(slow_ssh.SCENARIO,
                      {"timeout": 1, "attempts": 1, "target": "local", "avahi": True})
    assert result["summary"].startswith("ssh gives up after 6.00 s")
    assert result["figure"]["layout"]["shapes"][0]["x0"] == 6.0
    assert "$ time ssh server.local true   # fails" in result["transcript"]
    assert spans(result)["mDNS"][1] == ("this login", 1.0, 5.0)


def test_a_master_adds_the_next_login():
    result = simulate(slow_ssh.SCENARIO, {"control_master": True})
    rows = result["figure"]["layout"]["yaxis"]["categoryarray"]
    assert rows == ["next login (master)", "every cause fixed", "this login"]
    assert spans(result)["ControlMaster"] == [("next login (master)", 0.0, 0.13)]
    assert "The next login rides on the master: 0.13 s" in result["summary"]
    assert "ControlPersist 10m" in result["transcript"]


def test_bad_parameters_fall_back_with_a_note():
    result = simulate(slow_ssh.SCENARIO, {"timeout": 99, "target": "pigeon"})
    assert "using 5" in result["summary"] and "not one of its options" in result["summary"]
