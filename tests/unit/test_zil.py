"""The intent-log model (labsim.zfs.zil) against the rules of OpenZFS 2.1's zfs_log.c,
zfs_vnops and zil.c."""

from __future__ import annotations

import pytest

from labsim.zfs import zil
from labsim.zfs.versions import KiB


@pytest.mark.parametrize(("nbytes", "logbias", "has_slog", "o_sync", "state"), [
    # logbias=throughput: always a pointer to the data written in place
    (4 * KiB, "throughput", True, True, zil.WR_INDIRECT),
    (4 * KiB, "throughput", False, False, zil.WR_INDIRECT),
    # no log device: 32K (zfs_immediate_write_sz) and up is written in place
    (32 * KiB, "latency", False, True, zil.WR_INDIRECT),
    (32 * KiB - 512, "latency", False, True, zil.WR_COPIED),
    # with a log device, any size is copied into the log
    (1024 * KiB, "latency", True, True, zil.WR_COPIED),
    # not O_SYNC: copied only if a commit comes first
    (4 * KiB, "latency", False, False, zil.WR_NEED_COPY),
    (64 * KiB, "latency", True, False, zil.WR_NEED_COPY),
])
def test_write_state_follows_zfs_log_write(nbytes, logbias, has_slog, o_sync, state):
    assert zil.write_state(nbytes, logbias=logbias, has_slog=has_slog, o_sync=o_sync) == state


@pytest.mark.parametrize(("sync", "wants", "logs"), [
    ("standard", True, True), ("standard", False, False),
    ("always", False, True), ("always", True, True),
    ("disabled", True, False), ("disabled", False, False),
])
def test_commits_log(sync, wants, logs):
    assert zil.commits_log(sync, wants) is logs


def fate(sync="standard", device="pool-hdd", time=6.0, wants=True, crash=7.0, nbytes=8 * KiB):
    settings = zil.SyncSettings(sync=sync, log_device=device)
    return zil.write_fate(zil.AppWrite(time, nbytes, wants), settings, crash)


def test_a_write_whose_txg_is_on_disk_survives_whatever_the_setting():
    # txg 0 is open 0-5 s and on disk at 6 s
    for sync in zil.SYNC_VALUES:
        assert fate(sync=sync, time=1.0, crash=6.5).outcome == zil.ON_DISK


def test_a_logged_sync_write_is_replayed_and_an_async_one_is_lost():
    assert fate(wants=True).outcome == zil.REPLAYED
    assert fate(wants=False).outcome == zil.LOST_ASYNC
    assert fate(sync="always", wants=False).outcome == zil.REPLAYED


def test_sync_disabled_loses_acknowledged_sync_writes():
    lost = fate(sync="disabled")
    assert lost.outcome == zil.LOST_PROMISED
    assert lost.acknowledged == lost.write.time  # answered at once


def test_a_write_still_waiting_for_its_log_block_was_never_acknowledged():
    # 8 ms on the pool's disks: the power fails 1 ms after the write was issued
    waiting = fate(time=6.0, crash=6.001)
    assert waiting.outcome == zil.IN_FLIGHT
    assert fate(device="slog-ssd", time=6.0, crash=6.001).outcome == zil.REPLAYED


def test_log_traffic_writes_copied_data_twice_and_indirect_data_once():
    writes = [zil.AppWrite(0.0, 8 * KiB, True), zil.AppWrite(0.1, 64 * KiB, True),
              zil.AppWrite(0.2, 128 * KiB, False)]
    pool_log = zil.log_traffic(writes, zil.SyncSettings())
    # 8K copied into the log; 64K written in place (no SLOG, >= 32K); 128K async
    assert pool_log.commits == 2
    assert pool_log.pool_log_bytes == 2 * zil.LR_WRITE_HEADER + 8 * KiB
    assert pool_log.indirect_bytes == 64 * KiB
    assert pool_log.txg_bytes == 8 * KiB + 128 * KiB
    slog = zil.log_traffic(writes, zil.SyncSettings(log_device="slog-ssd"))
    assert slog.pool_log_bytes == 0
    assert slog.log_bytes == 2 * zil.LR_WRITE_HEADER + 72 * KiB
    assert slog.indirect_bytes == 0
    disabled = zil.log_traffic(writes, zil.SyncSettings(sync="disabled"))
    assert disabled.commits == 0 and disabled.pool_bytes == 200 * KiB


def counters(**kwargs) -> dict[str, int]:
    stats = zil.ZilStats.zero()
    defaults = {"writes": 256, "write_size": 4 * KiB,
                "first_record": zil.create_record_size("a.bin"),
                "durability": zil.Durability(o_sync=True), "sync_property": "standard",
                "logbias": "latency", "has_slog": False, "writes_per_txg": 10_000}
    zil.commit_writes(stats, **(defaults | kwargs))
    return stats.counters


def test_o_sync_writes_commit_one_log_block_each():
    # as recorded on 2.1.11: 256 commits, 257 records, 256 blocks of 184 + 192 + 4096
    # bytes, one of them holding the file's TX_CREATE too (112 bytes for "a.bin")
    c = counters()
    assert c["zil_commit_count"] == 256
    assert c["zil_itx_copied_count"] == 256
    assert c["zil_itx_copied_bytes"] == 256 * 4 * KiB
    assert c["zil_itx_count"] == 257
    assert c["zil_itx_metaslab_normal_count"] == 256
    assert c["zil_itx_metaslab_normal_bytes"] == 256 * (184 + 192 + 4096) + 112
    assert c["zil_itx_metaslab_slog_count"] == 0
    slog = counters(has_slog=True)
    assert slog["zil_itx_metaslab_slog_count"] == 256
    assert slog["zil_itx_metaslab_normal_count"] == 0


def test_sync_disabled_commits_nothing():
    assert not any(counters(sync_property="disabled").values())


def test_logbias_throughput_logs_pointers():
    c = counters(logbias="throughput", write_size=64 * KiB, writes=16, has_slog=True)
    assert c["zil_itx_indirect_count"] == 16
    assert c["zil_itx_copied_count"] == 0
    # a pointer record is small: every block holds the header and one record
    assert c["zil_itx_metaslab_slog_bytes"] < 16 * 512


def test_fsync_commits_need_copy_records_in_batches():
    # fio calls fsync after every 4th write but not after the last one
    c = counters(durability=zil.Durability(fsync_every=4), writes=16)
    assert c["zil_commit_count"] == 3
    assert c["zil_itx_needcopy_count"] == 12


def test_a_datasets_first_commit_creates_its_log_and_loses_the_waiting_records():
    # zil_create() waits for a txg: recorded 2.1.11, 512 writes on a new dataset gave
    # 512 commits, 511 records and 513 log blocks
    c = counters(writes=512, log_exists=False)
    assert (c["zil_commit_count"], c["zil_itx_count"]) == (512, 511)
    assert c["zil_itx_metaslab_normal_count"] == 513
    assert c["zil_itx_metaslab_normal_bytes"] == 513 * 184 + 511 * (192 + 4096)


def test_o_sync_writes_above_half_a_log_block_are_not_copied_at_once():
    c = counters(writes=64, write_size=64 * KiB, has_slog=True)
    assert c["zil_itx_needcopy_count"] == 64 and c["zil_itx_copied_count"] == 0


def test_create_records_are_rounded_to_8_bytes():
    assert zil.create_record_size("d.bin") == 112
    assert zil.create_record_size("async.bin") == 120


def test_records_of_written_txgs_are_dropped_before_an_end_fsync():
    c = counters(durability=zil.Durability(end_fsync=True), writes=100, writes_per_txg=30)
    assert c["zil_commit_count"] == 1
    assert c["zil_itx_needcopy_count"] == 10  # only the last, unwritten txg's writes


def test_a_large_commit_fills_several_log_blocks():
    c = counters(durability=zil.Durability(end_fsync=True), writes=100, has_slog=True)
    assert c["zil_commit_count"] == 1
    blocks = c["zil_itx_metaslab_slog_count"]
    assert blocks == -(-c["zil_itx_metaslab_slog_bytes"] // zil.ZIL_MAX_BLOCK)
    assert blocks >= 100 * 4 * KiB // zil.ZIL_MAX_BLOCK
