"""Lesson 7's widget: write amplification of VM images, and a full pool."""

import json

from labsim.scenarios import get_scenario, vm_images
from labsim.scenarios.base import description, simulate


def test_registered_and_described():
    assert get_scenario("vm-images") is vm_images.SCENARIO
    described = description(vm_images.SCENARIO)
    assert set(described["defaults"]) == {c["name"] for c in vm_images.CONTROLS}


def totals(result: dict) -> list[float]:
    traces = result["figure"]["data"]
    return [sum(t["y"][i] for t in traces) for i in range(len(traces[0]["x"]))]


def test_defaults_give_strict_json_and_a_qcow2_image():
    result = simulate(vm_images.SCENARIO, description(vm_images.SCENARIO)["defaults"])
    json.dumps(result, allow_nan=False)
    assert [t["name"] for t in result["figure"]["data"]] == vm_images.PARTS
    assert "qemu-img create -f qcow2 -o cluster_size=65536" in result["transcript"]
    assert "paused" in result["summary"]


def test_overwrites_cost_record_over_write_size():
    result = simulate(vm_images.SCENARIO, {"format": "raw", "workload": "overwrite"})
    by_record = dict(zip(result["figure"]["data"][0]["x"], totals(result), strict=True))
    assert by_record["4K"] == 1 and by_record["8K"] == 2 and by_record["128K"] == 32


def test_fresh_qcow2_clusters_add_zero_fill_and_tables():
    result = simulate(vm_images.SCENARIO, {"format": "qcow2", "workload": "fresh",
                                           "cluster": 2 << 20, "record": 128 << 10})
    zero_fill = result["figure"]["data"][1]["y"]
    tables = result["figure"]["data"][2]["y"]
    assert all(z > 0 for z in zero_fill) and all(t > 0 for t in tables)


def test_zvol_run_measures_in_labsim_and_thick_survives_a_full_pool():
    result = simulate(vm_images.SCENARIO, {"format": "zvol", "record": 8 << 10, "thick": "thick"})
    assert "fio --name=guest --filename=/dev/zvol/tank/vm" in result["transcript"]
    assert "labsim's fio run" in result["summary"]
    assert "reserved" in result["summary"]
    sparse = simulate(vm_images.SCENARIO, {"format": "zvol", "thick": "sparse", "werror": "report"})
    assert "I/O error" in sparse["summary"]
