"""The intent log's side of a write command (dd, fio, and the writes of other programs:
a shell redirection's, cp's): counts its log commits into the machine's
/proc/spl/kstat/zfs/zil counters and the log vdevs' write counts, keeps what a frozen
pool's import would replay, and says how long the writer waited for its commits. The
rules are labsim.zfs.zil's; this module only applies them to a session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.content.model import Content
from labsim.zfs import zil
from labsim.zfs.compression import DataPattern
from labsim.zfs.history import features_of
from labsim.zfs.lifecycle import log_record
from labsim.zfs.mos import activate_feature
from labsim.zfs.objset import commit_at_close
from labsim.zfs.pool import Dataset, LogRecord, Pool, property_value
from labsim.zfs.zil import Durability

if TYPE_CHECKING:
    from labsim.shell.session import Session

# Seconds one log commit takes on the lab VM's file vdevs (a log block written to a
# sparse file, and the cache flush after it), and the wait of a dataset's first commit,
# whose zil_create() waits for the open txg to sync: on average half of zfs_txg_timeout.
# Teaching figures for fio's report, from the lab 5 recordings under software emulation
# (256 O_SYNC 4K writes: 1.36 s with the log already there, 3.95 s for the first ones);
# real times vary from run to run, and on real disks they are quite different.
LOG_COMMIT_SECONDS = 0.0053
LOG_CREATE_SECONDS = 2.5

__all__ = ["Durability", "log_writes", "log_program_writes", "close_logs",
           "LOG_COMMIT_SECONDS"]


def log_writes(session: Session, pool: Pool, dataset: Dataset, name: str, written: int,
               write_size: int, content: str | DataPattern | Content,
               durability: Durability,
               first_record_alone: bool = True) -> float:
    """Apply the log commits of a writer that wrote ``written`` bytes in ``write_size``
    writes into a new file ``name``; returns the seconds it spent waiting for them.
    With sync=always, creating the file commits on its own first
    (``first_record_alone``, as dd does); fio lays its file out before it writes
    ("Laying out IO file"), and its first commit carries the create with a write."""
    if written <= 0:
        return 0.0
    sync_property = str(property_value(pool, dataset, "sync")[0])
    if sync_property == "disabled":
        # zil_replaying() is true with sync=disabled: zfs_log_write() makes no records.
        return 0.0
    writes = -(-written // write_size)
    logbias = str(property_value(pool, dataset, "logbias")[0])
    result = zil.commit_writes(
        session.zil_stats, writes=writes, write_size=write_size,
        first_record=zil.create_record_size(name),
        durability=durability, sync_property=sync_property, logbias=logbias,
        has_slog=bool(pool.logs),
        writes_per_txg=max(1, pool.version.txg_bytes // write_size),
        log_exists=dataset.log_exists,
        first_record_alone=first_record_alone and sync_property == "always",
        max_copied=pool.version.zil_max_copied)
    created = result.commits and not dataset.log_exists
    if result.commits:
        dataset.log_exists = True
        # zil_commit_activate_saxattr_feature() (module/zfs/zil.c, 2.2+): a file system's
        # first commit activates zilsaxattr on its dsl_dataset.
        volume = dataset.properties.get("type") == "volume"
        if "zilsaxattr" in features_of(pool.version.name) and not volume:
            activate_feature(pool, dataset.active_features, "zilsaxattr", dataset.ds_blocks)
    _count_blocks(pool, result.blocks)
    record = LogRecord(dataset.name, name, written, content, session.clock, write_size)
    if result.commits:
        # Everything committed is in the log: a frozen pool's import replays it. (A
        # commit that came only at the end still covers every write of the file that
        # is not in a written txg; labsim replays the whole file.)
        log_record(pool, record)
    elif pool.frozen_txg is not None:
        # In a frozen pool records are never dropped (zil_itx_assign() files them under
        # ZILTEST_TXG, which no txg sync cleans): they wait for a commit.
        pool.waiting_records.append(record)
    return result.commits * LOG_COMMIT_SECONDS + (LOG_CREATE_SECONDS if created else 0.0)


# The size of the write() calls a program makes into a file: head and yes copy through a
# BUFSIZ buffer (8192, coreutils' head_bytes() and yes), cat and cp through io_blksize()
# (at least 128 KiB, or st_blksize when larger); the others through stdio, whose buffer is
# the file's st_blksize, which ZFS gives a new file as the dataset's recordsize
# (zfs_getattr_fast(): z_max_blksz while the file has no block size yet), or write their
# output at once (echo, printf: bash builtins).
BUFSIZ_WRITERS = ("head", "yes")
IO_BLKSIZE_WRITERS = ("cat", "cp")
BUFSIZ = 8192
IO_BUFSIZE = 128 * 1024


def program_write_size(pool: Pool, dataset: Dataset, program: str) -> int:
    """The size of the writes ``program`` makes into a new file of ``dataset``."""
    if program in BUFSIZ_WRITERS:
        return BUFSIZ
    blksize = int(str(property_value(pool, dataset, "recordsize")[0]))
    return max(IO_BUFSIZE, blksize) if program in IO_BLKSIZE_WRITERS else blksize


def log_program_writes(session: Session, pool: Pool, dataset: Dataset, name: str,
                       written: int, program: str, content: str | DataPattern | Content
                       ) -> None:
    """A program other than dd and fio (which say how they write) wrote ``written``
    bytes into ``name``: in a file system with sync=always each of its write() calls is
    committed to the log (zfs_write() -> zil_commit(), module/zfs/zfs_vnops.c, 2.1.11
    and 2.3.9); otherwise its writes leave itxs that their txg's sync drops."""
    if str(property_value(pool, dataset, "sync")[0]) != "always":
        return
    session.clock += log_writes(session, pool, dataset, name, written,
                                program_write_size(pool, dataset, program), content,
                                Durability(), first_record_alone=False)


def _count_blocks(pool: Pool, blocks: tuple[zil.LogBlock, ...]) -> None:
    for block in blocks:
        target = pool.logs[0] if block.slog and pool.logs else pool.vdevs[0]
        target.write_ops += 1
        target.write_bytes += block.nused


def close_logs(session: Session, pool: Pool) -> None:
    """zil_close() as a pool is exported: every dataset's log is committed one last time
    (zil_commit(zilog, 0)), so records still waiting reach the log, unless the dataset
    now has sync=disabled (zil_commit() then returns at once). In a frozen pool this
    decides what the import replays. Changes not yet synced leave a log chain
    (labsim.zfs.objset.commit_at_close)."""
    commit_at_close(pool)
    keep = []
    for record in pool.waiting_records:
        dataset = pool.datasets.get(record.dataset)
        if dataset is None:
            continue
        logbias = str(property_value(pool, dataset, "logbias")[0])
        if str(property_value(pool, dataset, "sync")[0]) == "disabled":
            keep.append(record)
            continue
        writes = -(-record.nbytes // record.write_size)
        result = zil.commit_writes(
            session.zil_stats, writes=writes, write_size=record.write_size,
            first_record=zil.create_record_size(record.name),
            durability=Durability(end_fsync=True), sync_property="standard",
            logbias=logbias, has_slog=bool(pool.logs), writes_per_txg=0,
            log_exists=dataset.log_exists, max_copied=pool.version.zil_max_copied)
        dataset.log_exists = True
        _count_blocks(pool, result.blocks)
        log_record(pool, record)
    pool.waiting_records = keep
