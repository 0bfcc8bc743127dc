"""Lesson 4's widget: write amplification, I/Os, space and dedup RAM per recordsize."""

import json

import pytest

from labsim.scenarios import get_scenario, records
from labsim.scenarios.base import description, simulate
from labsim.zfs.records import DDT_ENTRY_RAM, dedup_table_ram, write_cost
from labsim.zfs.versions import GiB, KiB, TiB


def test_registered_and_described():
    assert get_scenario("records") is records.SCENARIO
    described = description(records.SCENARIO)
    assert set(described["defaults"]) == {c["name"] for c in records.CONTROLS}


def test_defaults_give_strict_json():
    # (how fast a run is belongs to the benchmark, make bench, not to a test)
    result = simulate(records.SCENARIO, description(records.SCENARIO)["defaults"])
    json.dumps(result, allow_nan=False)
    assert len(result["figure"]["data"]) == 5
    assert "8.50 bytes written" in result["summary"]
    assert "2.50 GiB of RAM" in result["summary"]
    assert result["transcript"].startswith("$ zfs create -o recordsize=128K")


def test_small_records_stop_read_modify_write():
    row = records.recordsize_costs("database-8k", 8 * KiB, 12, "off")
    assert row.amplification == 1.0 and row.reads == 0 and row.ios == 1
    big = records.recordsize_costs("database-8k", 1024 * KiB, 12, "off")
    assert big.amplification == 128.0 and big.reads == 1


def test_sector_rounding_eats_small_record_compression():
    # A 4K record that LZ4 halves still takes a whole 4K sector at ashift 12.
    assert records.recordsize_costs("database-8k", 4 * KiB, 12, "lz4").ratio == 1.0
    assert records.recordsize_costs("database-8k", 4 * KiB, 9, "lz4").ratio > 1.5
    # 8K sectors: an 8K record cannot shrink either.
    assert records.recordsize_costs("database-8k", 8 * KiB, 13, "lz4").ratio == 1.0


def test_incompressible_media_gains_nothing_but_its_tail():
    row = records.recordsize_costs("media", 1024 * KiB, 12, "lz4")
    off = records.recordsize_costs("media", 1024 * KiB, 12, "off")
    assert row.space_percent < off.space_percent  # the zero-padded last record
    assert off.space_percent > 110  # 5.3 MiB in six 1M records


def test_bad_parameters_fall_back_to_defaults():
    result = simulate(records.SCENARIO, {"workload": "nonsense", "ashift": 10})
    assert "not one of its options" in result["summary"]
    assert simulate(records.SCENARIO, None)["figure"]["data"]


@pytest.mark.parametrize(("offset", "length", "expected"), [
    (0, 128 * KiB, (1, 0, 1)),          # a whole record: no read
    (8 * KiB, 8 * KiB, (1, 1, 2)),      # inside one record: read it, write it
    (120 * KiB, 16 * KiB, (2, 2, 4)),   # straddles two records, both partial
    (0, 256 * KiB + 1, (3, 1, 4)),      # two whole records and a partial third
])
def test_write_cost(offset, length, expected):
    cost = write_cost(offset, length, 128 * KiB, 64 * KiB)
    reads = cost.read_bytes // (64 * KiB)
    assert (cost.records, reads, cost.ios) == expected
    assert cost.written_bytes == cost.records * 64 * KiB
    assert write_cost(8 * KiB, 8 * KiB, 128 * KiB, 128 * KiB).amplification(8 * KiB) == 16
    assert write_cost(8 * KiB, 8 * KiB, 128 * KiB, 128 * KiB, cached=True).ios == 1


def test_dedup_ram():
    assert DDT_ENTRY_RAM == 320
    assert dedup_table_ram(TiB, 128 * KiB) == 8 * 2**20 * 320  # 2.5 GiB
    assert dedup_table_ram(TiB, 128 * KiB) / GiB == 2.5
    assert dedup_table_ram(1, 128 * KiB) == 320
