"""Invariants of the crash model (labsim.zfs.zil.write_fate) for any write and instant."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from labsim.zfs import zil

writes = st.builds(zil.AppWrite, time=st.floats(0, 30), nbytes=st.integers(512, 1 << 20),
                   wants_sync=st.booleans())
settings = st.builds(zil.SyncSettings, sync=st.sampled_from(zil.SYNC_VALUES),
                     logbias=st.sampled_from(zil.LOGBIAS_VALUES),
                     log_device=st.sampled_from(sorted(zil.LOG_DEVICES)))
crashes = st.floats(0, 40)


@given(writes, settings, crashes)
def test_an_acknowledged_sync_write_is_lost_only_with_sync_disabled(write, s, crash):
    fate = zil.write_fate(write, s, crash)
    if fate.outcome == zil.LOST_PROMISED:
        assert s.sync == "disabled" and write.wants_sync
    if s.sync != "disabled" and write.wants_sync and fate.acknowledged <= crash:
        assert fate.outcome in (zil.ON_DISK, zil.REPLAYED)


@given(writes, settings, crashes)
def test_on_disk_exactly_when_the_txg_was_written(write, s, crash):
    fate = zil.write_fate(write, s, crash)
    assert (fate.outcome == zil.ON_DISK) == (zil.txg_on_disk(fate.txg, s) <= crash)


@given(writes, settings, crashes)
def test_sync_always_loses_nothing_that_was_answered(write, s, crash):
    s = zil.SyncSettings(sync="always", logbias=s.logbias, log_device=s.log_device)
    fate = zil.write_fate(write, s, crash)
    assert fate.outcome in (zil.ON_DISK, zil.REPLAYED, zil.IN_FLIGHT)


@given(st.lists(writes, max_size=40), settings)
def test_log_traffic_accounts_for_every_byte(ws, s):
    traffic = zil.log_traffic(ws, s)
    data = sum(w.nbytes for w in ws)
    # every byte reaches the pool once, in place or with its txg; copied bytes also go
    # to the log
    assert traffic.indirect_bytes + traffic.txg_bytes == data
    assert (traffic.log_bytes == 0) or (traffic.pool_log_bytes == 0)
