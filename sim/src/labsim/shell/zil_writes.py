"""The intent log's side of a write command (fio): counts its log commits into the
machine's /proc/spl/kstat/zfs/zil counters and the log vdevs' write counts, keeps what
a frozen pool's import would replay, and says how long the writer waited for its
commits. The rules are labsim.zfs.zil's; this module only applies them to a session.
"""

from __future__ import annotations

from labsim.shell.session import Session
from labsim.zfs import zil
from labsim.zfs.compression import DataPattern
from labsim.zfs.pool import Dataset, Pool, log_record, property_value
from labsim.zfs.zil import Durability

# Seconds one log commit takes on the lab VM's file vdevs: a log block written through
# the guest's page cache to a sparse file, and the cache flush that follows it. A
# teaching figure for fio's report, calibrated roughly on the lab 5 recordings (real
# times under software emulation vary by a factor of two from run to run).
LOG_COMMIT_SECONDS = 0.004

__all__ = ["Durability", "log_writes", "LOG_COMMIT_SECONDS"]


def log_writes(session: Session, pool: Pool, dataset: Dataset, name: str, written: int,
               write_size: int, content: str | DataPattern, durability: Durability) -> float:
    """Apply the log commits of a writer that wrote ``written`` bytes in ``write_size``
    writes into a new file ``name``; returns the seconds it spent waiting for them."""
    if written <= 0:
        return 0.0
    writes = -(-written // write_size)
    sync_property = str(property_value(pool, dataset, "sync")[0])
    logbias = str(property_value(pool, dataset, "logbias")[0])
    result = zil.commit_writes(
        session.zil_stats, writes=writes, write_size=write_size, name=name,
        durability=durability, sync_property=sync_property, logbias=logbias,
        has_slog=bool(pool.logs),
        writes_per_txg=max(1, pool.version.txg_bytes // write_size))
    if result.commits:
        for block in result.blocks:
            target = pool.logs[0] if block.slog else pool.vdevs[0]
            target.write_ops += 1
            target.write_bytes += block.nused
        # Everything committed is in the log: a frozen pool's import replays it. (A
        # commit that came only at the end still covers every write of the file that
        # is not in a written txg; labsim replays the whole file.)
        log_record(pool, dataset, name, written, content, session.clock)
    return result.commits * LOG_COMMIT_SECONDS
