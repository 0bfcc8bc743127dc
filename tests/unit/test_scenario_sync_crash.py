"""Lesson 5's widget: which writes a power failure keeps under each sync setting."""

import json

from labsim.scenarios import get_scenario, sync_crash
from labsim.scenarios.base import description, simulate
from labsim.zfs import zil


def test_registered_and_described():
    assert get_scenario("sync-crash") is sync_crash.SCENARIO
    described = description(sync_crash.SCENARIO)
    assert set(described["defaults"]) == {c["name"] for c in sync_crash.CONTROLS}


def outcomes(result: dict) -> dict[str, int]:
    return {t["name"]: sum(x is not None for x in t["x"]) for t in result["figure"]["data"]}


def test_defaults_give_strict_json_with_every_outcome_in_the_legend():
    result = simulate(sync_crash.SCENARIO, description(sync_crash.SCENARIO)["defaults"])
    json.dumps(result, allow_nan=False)
    assert [t["name"] for t in result["figure"]["data"]] == list(zil.OUTCOMES)
    assert result["summary"].startswith("Power fails at 8.3 s")
    assert "zfs set sync=standard logbias=latency" in result["transcript"]


def test_standard_keeps_every_acknowledged_sync_write_and_disabled_does_not():
    standard = outcomes(simulate(sync_crash.SCENARIO, {"sync": "standard"}))
    disabled = outcomes(simulate(sync_crash.SCENARIO, {"sync": "disabled"}))
    assert standard[zil.LOST_PROMISED] == 0 and standard[zil.REPLAYED] > 0
    assert disabled[zil.REPLAYED] == 0
    # the WAL commits replayed under standard are the ones lost under disabled
    assert disabled[zil.LOST_PROMISED] == standard[zil.REPLAYED]
    assert "told were durable" in simulate(sync_crash.SCENARIO, {"sync": "disabled"})["summary"]


def test_sync_always_logs_the_asynchronous_writes_too():
    always = outcomes(simulate(sync_crash.SCENARIO, {"sync": "always"}))
    assert always[zil.LOST_ASYNC] == 0 and always[zil.LOST_PROMISED] == 0


def test_a_crash_after_a_txg_is_written_keeps_its_writes_on_disk():
    early = outcomes(simulate(sync_crash.SCENARIO, {"crash": 5.9}))
    late = outcomes(simulate(sync_crash.SCENARIO, {"crash": 6.1}))
    assert early[zil.ON_DISK] == 0 < late[zil.ON_DISK]


def test_a_slog_shortens_the_wait_not_what_survives():
    hdd = simulate(sync_crash.SCENARIO, {"log_device": "pool-hdd"})
    ssd = simulate(sync_crash.SCENARIO, {"log_device": "slog-ssd"})
    assert outcomes(hdd) == outcomes(ssd)
    assert "8.00 ms" in hdd["summary"] and "0.10 ms" in ssd["summary"]
    assert "on the SLOG" in ssd["summary"]


def test_large_nfs_writes_without_a_slog_are_written_in_place():
    result = simulate(sync_crash.SCENARIO, {"workload": "nfs"})
    assert "WR_INDIRECT" in result["summary"]
    assert "0 KiB with its txg" in result["summary"]


def test_bad_parameters_fall_back_to_defaults():
    result = simulate(sync_crash.SCENARIO, {"sync": "sometimes", "crash": "never", "workload": 3})
    assert "sync property: not one of its options, using standard" in result["summary"]
    assert "Power fails at: must be 0.5 to 14.0, using 8.3" in result["summary"]
    assert simulate(sync_crash.SCENARIO, [1, 2])["summary"].endswith(
        "parameters must be a JSON object; using the defaults.")
