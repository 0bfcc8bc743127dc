"""The ZFS Intent Log, transaction groups, and what a crash keeps.

OpenZFS gathers every change in memory into the open transaction group (txg) and writes
the whole group to the pool at once, every ``zfs_txg_timeout`` seconds (5 by default,
module/zfs/txg.c) or sooner when dirty data piles up. A write the application merely
issues (asynchronous) is in memory until its txg is on disk; a crash before that loses it,
which POSIX allows.

A write the application asks to be durable (O_SYNC or O_DSYNC, fsync(), an NFS stable
write or COMMIT) cannot wait for the txg. OpenZFS writes a record of it to the ZIL (the
intent log, module/zfs/zil.c) and answers once that log block is on stable storage. After
a crash, importing the pool replays the log: the change is made again, into a new txg.
The log is only ever read then; on the normal path its records are dropped once their txg
is on disk.

The dataset properties change this:

* ``sync=standard``: as above.
* ``sync=always``: every write is treated as a synchronous one (logged before it returns).
* ``sync=disabled``: synchronous requests are answered at once and nothing is logged;
  the data is as safe as an asynchronous write, though the application was told it was
  durable (zfs_fsync() and zfs_write() skip zil_commit(), module/os/linux/zfs/zfs_vnops_os.c).
* ``logbias=throughput``: log records point to data blocks written straight into the pool
  instead of carrying the data (WR_INDIRECT below).

A separate log device (a ``log`` vdev, "SLOG") only changes *where* the log blocks go.
Without one they are allocated in the pool's normal metaslabs; with one, on it (zio_alloc_zil()
tries the log class first, module/zfs/zil.c). It matters when it is faster than the pool's
disks, and it is read only after a crash.

Everything here is a pure function of its arguments; the timeline model (``write_fates``)
is the teaching model behind lesson 5's widget, and ``write_state``/``lwb_bytes`` are the
rules the shell's fio follows (labsim.shell.commands.fio).
"""

from __future__ import annotations

from dataclasses import dataclass

from labsim.zfs.versions import KiB, ZilKstat

# zfs_txg_timeout (module/zfs/txg.c): the longest a txg stays open, in seconds.
ZFS_TXG_TIMEOUT = 5.0
# zfs_immediate_write_sz (module/zfs/zfs_log.c): without a log device, a synchronous write
# of at least this many bytes is logged as WR_INDIRECT (data written in place).
ZFS_IMMEDIATE_WRITE_SZ = 32 * KiB

# How a write is logged (itx_wr_state_t, include/sys/zil.h).
WR_INDIRECT = "indirect"  # data written to its final place now; the record points to it
WR_COPIED = "copied"  # data copied into the log record when the write is logged
WR_NEED_COPY = "needcopy"  # data copied into the record only if a commit comes before the txg

SYNC_VALUES = ("standard", "always", "disabled")
LOGBIAS_VALUES = ("latency", "throughput")


def write_state(nbytes: int, *, logbias: str, has_slog: bool, o_sync: bool) -> str:
    """zfs_log_write() (module/zfs/zfs_log.c, OpenZFS 2.1): how one write's intent-log
    record will hold its data.

    logbias=throughput always writes the data in place and logs a pointer. Without a log
    device, a large write (zfs_immediate_write_sz and up) does the same: copying 32 KiB
    or more into the pool's own log blocks would write it twice to the same disks. A
    write opened O_SYNC/O_DSYNC is copied into its record at once; any other write is
    copied only if someone commits the log before its txg is written (fsync, sync=always).
    """
    if logbias == "throughput":
        return WR_INDIRECT
    if not has_slog and nbytes >= ZFS_IMMEDIATE_WRITE_SZ:
        return WR_INDIRECT
    if o_sync:
        return WR_COPIED
    return WR_NEED_COPY


def commits_log(sync_property: str, wants_sync: bool) -> bool:
    """Whether a write ends with zil_commit() before it returns: asked-for synchronous
    writes unless sync=disabled, and every write with sync=always (zfs_write())."""
    if sync_property == "disabled":
        return False
    return wants_sync or sync_property == "always"


# ---------------------------------------------------------------- the crash timeline


@dataclass(frozen=True)
class AppWrite:
    """One write an application issues at ``time`` seconds: ``nbytes`` long, and
    ``wants_sync`` if the application asks for it to be durable before it continues
    (O_SYNC, fsync, an NFS client's stable write)."""

    time: float
    nbytes: int
    wants_sync: bool
    stream: str = ""


@dataclass(frozen=True)
class LogDevice:
    """Where log blocks go and how long a log write and its cache flush take, in
    seconds. These are round figures for teaching, not measurements: a 7,200 rpm disk
    averages about 8 ms per random write (seek plus half a rotation); a SATA SSD with
    power-loss protection acknowledges a flushed 4 KiB write in about 0.1 ms."""

    name: str
    label: str
    latency: float


LOG_DEVICES = {
    "pool-hdd": LogDevice("pool-hdd", "no SLOG: log blocks on the pool's hard disks", 0.008),
    "slog-hdd": LogDevice("slog-hdd", "SLOG on a hard disk of its own", 0.006),
    "slog-ssd": LogDevice("slog-ssd", "SLOG on an SSD with power-loss protection", 0.0001),
    "pool-ssd": LogDevice("pool-ssd", "no SLOG: log blocks on the pool's SSDs", 0.0002),
}


@dataclass(frozen=True)
class SyncSettings:
    sync: str = "standard"
    logbias: str = "latency"
    log_device: str = "pool-hdd"
    txg_timeout: float = ZFS_TXG_TIMEOUT
    # Seconds from a txg's close until its last block (and the uberblock) is on disk.
    txg_write_seconds: float = 1.0

    @property
    def has_slog(self) -> bool:
        return self.log_device.startswith("slog")


# Outcomes of one write when the power fails.
ON_DISK = "on disk"  # its txg was written before the crash
REPLAYED = "replayed from the ZIL"  # in the log; the import makes the change again
LOST_ASYNC = "lost, never promised"  # asynchronous; the application did not ask
LOST_PROMISED = "lost after being acknowledged as durable"  # only with sync=disabled
IN_FLIGHT = "still waiting when the power failed"  # not acknowledged: the caller knows

OUTCOMES = (ON_DISK, REPLAYED, LOST_ASYNC, LOST_PROMISED, IN_FLIGHT)


@dataclass(frozen=True)
class WriteFate:
    write: AppWrite
    txg: int  # 0 for the txg open at time 0, 1 for the next, ...
    acknowledged: float  # when the write returned to the application
    logged: bool  # whether a log record of it reached stable storage path
    state: str  # how its log record holds the data (write_state), "" if none
    outcome: str


def txg_of(time: float, settings: SyncSettings) -> int:
    """The txg open at ``time``: each stays open ``txg_timeout`` seconds. (A busy pool
    closes them sooner, when dirty data reaches zfs_dirty_data_sync_percent of
    zfs_dirty_data_max; the timeline model keeps the timer only.)"""
    return int(time // settings.txg_timeout)


def txg_on_disk(txg: int, settings: SyncSettings) -> float:
    """When a txg is safely on disk: closed, then written."""
    return (txg + 1) * settings.txg_timeout + settings.txg_write_seconds


def write_fate(write: AppWrite, settings: SyncSettings, crash: float) -> WriteFate:
    """What becomes of ``write`` if the power fails at ``crash`` seconds."""
    device = LOG_DEVICES[settings.log_device]
    txg = txg_of(write.time, settings)
    logs = commits_log(settings.sync, write.wants_sync)
    state = ""
    if logs:
        state = write_state(write.nbytes, logbias=settings.logbias,
                            has_slog=settings.has_slog,
                            o_sync=write.wants_sync)
        if state == WR_INDIRECT:
            # The data block goes to the pool first (dmu_sync()), at the pool's speed.
            pool = LOG_DEVICES["pool-ssd" if settings.log_device == "pool-ssd" else "pool-hdd"]
            acknowledged = write.time + pool.latency + device.latency
        else:
            acknowledged = write.time + device.latency
    else:
        acknowledged = write.time
    if txg_on_disk(txg, settings) <= crash:
        outcome = ON_DISK
    elif acknowledged > crash:
        outcome = IN_FLIGHT
    elif logs:
        outcome = REPLAYED
    elif write.wants_sync:
        outcome = LOST_PROMISED
    else:
        outcome = LOST_ASYNC
    return WriteFate(write, txg, acknowledged, logs and acknowledged <= crash, state, outcome)


def write_fates(writes: list[AppWrite], settings: SyncSettings, crash: float) -> list[WriteFate]:
    """The fate of every write issued before the crash."""
    return [write_fate(w, settings, crash) for w in writes if w.time < crash]


@dataclass(frozen=True)
class LogTraffic:
    """Bytes a run of writes sends to each place: log blocks (on the SLOG, or on the
    pool without one), data written in place for WR_INDIRECT records, and data written
    when their txgs sync; and the number of log commits (each ends with a cache flush)."""

    log_bytes: int
    pool_log_bytes: int
    indirect_bytes: int
    txg_bytes: int
    commits: int

    @property
    def pool_bytes(self) -> int:
        return self.pool_log_bytes + self.indirect_bytes + self.txg_bytes


# The size of a write record's header (lr_write_t, include/sys/zil.h: an lr_t of 32
# bytes, then foid, offset, length, blkoff and a 128-byte block pointer).
LR_WRITE_HEADER = 192


def log_traffic(writes: list[AppWrite], settings: SyncSettings) -> LogTraffic:
    """Where the bytes of ``writes`` go, all of whose txgs are eventually written. A
    WR_INDIRECT record's data is written once, in place; a copied record's data twice,
    into the log and again with its txg."""
    log = indirect = txg = commits = 0
    for w in writes:
        if not commits_log(settings.sync, w.wants_sync):
            txg += w.nbytes
            continue
        commits += 1
        state = write_state(w.nbytes, logbias=settings.logbias, has_slog=settings.has_slog,
                            o_sync=w.wants_sync)
        if state == WR_INDIRECT:
            log += LR_WRITE_HEADER
            indirect += w.nbytes
        else:
            log += LR_WRITE_HEADER + w.nbytes
            txg += w.nbytes
    if settings.has_slog:
        return LogTraffic(log, 0, indirect, txg, commits)
    return LogTraffic(0, log, indirect, txg, commits)


# ---------------------------------------------------------------- the module's counters


# The named kstat /proc/spl/kstat/zfs/zil (zil_stats_t in include/sys/zil.h, OpenZFS 2.1),
# in its order. They count for the whole module, every pool and dataset together, from
# the time it was loaded.
ZIL_KSTAT_NAMES_2_1 = (
    "zil_commit_count",  # zil_commit() calls that did something (not sync=disabled)
    "zil_commit_writer_count",  # of which the caller itself wrote the log blocks
    "zil_itx_count",  # log records written into log blocks
    "zil_itx_indirect_count",  # ... of which WR_INDIRECT (data written in place)
    "zil_itx_indirect_bytes",
    "zil_itx_copied_count",  # ... of which WR_COPIED (O_SYNC data copied in at once)
    "zil_itx_copied_bytes",
    "zil_itx_needcopy_count",  # ... of which WR_NEED_COPY (copied in at commit)
    "zil_itx_needcopy_bytes",
    "zil_itx_metaslab_normal_count",  # log blocks written to the pool's normal class
    "zil_itx_metaslab_normal_bytes",
    "zil_itx_metaslab_slog_count",  # log blocks written to a log vdev
    "zil_itx_metaslab_slog_bytes",
)
# From 2.2.0 (zil_stats_t, module/zfs/zil.c zil_kstats_global): commits that failed,
# stalled or were suspended, and per class the bytes written and allocated.
ZIL_KSTAT_NAMES_2_2 = (
    "zil_commit_count", "zil_commit_writer_count", "zil_commit_error_count",
    "zil_commit_stall_count", "zil_commit_suspend_count",
    *ZIL_KSTAT_NAMES_2_1[2:9],
    "zil_itx_metaslab_normal_count", "zil_itx_metaslab_normal_bytes",
    "zil_itx_metaslab_normal_write", "zil_itx_metaslab_normal_alloc",
    "zil_itx_metaslab_slog_count", "zil_itx_metaslab_slog_bytes",
    "zil_itx_metaslab_slog_write", "zil_itx_metaslab_slog_alloc",
)
ZIL_KSTAT_NAMES = {ZilKstat.COUNTS: ZIL_KSTAT_NAMES_2_1,
                   ZilKstat.COUNTS_WRITE_ALLOC: ZIL_KSTAT_NAMES_2_2}
# ZIL_MIN_BLKSZ (include/sys/zil.h): a slim log block is written up to the next 4K.
ZIL_MIN_BLKSZ = 4096


@dataclass
class ZilStats:
    """The counters of /proc/spl/kstat/zfs/zil, by name."""

    counters: dict[str, int]

    @classmethod
    def zero(cls, layout: ZilKstat = ZilKstat.COUNTS) -> ZilStats:
        return cls({name: 0 for name in ZIL_KSTAT_NAMES[layout]})

    def add(self, name: str, amount: int = 1) -> None:
        self.counters[name] += amount


# ---------------------------------------------------------------- one writer's log commits


@dataclass(frozen=True)
class Durability:
    """How a writer asks for durability: O_SYNC on open, fsync() every ``fsync_every``
    writes (0: never), or once at the end."""

    o_sync: bool = False
    fsync_every: int = 0
    end_fsync: bool = False


# Sizes in the log, from include/sys/zil.h (OpenZFS 2.1), confirmed by the byte counts of
# the lab 5 recordings: the header a log block starts with (zil_chain_t: a block
# pointer, zc_nused and the embedded checksum); a TX_CREATE record without its name
# (lr_create_t; the record, name and NUL included, is rounded up to 8 bytes); and the
# largest log block.
ZIL_CHAIN_HEADER = 184
LR_CREATE_BASE = 104
ZIL_MAX_BLOCK = 128 * KiB
# ZIL_MAX_COPIED_DATA in 2.1's zil.h: a WR_COPIED record must fit in half a log block,
# so a longer O_SYNC write is logged as WR_NEED_COPY, which may be split (zfs_log_write()).
# Measured: 64K O_SYNC writes with a log vdev counted as needcopy, 4K ones as copied.
ZIL_MAX_COPIED_DATA = (ZIL_MAX_BLOCK - ZIL_CHAIN_HEADER) // 2 - LR_WRITE_HEADER


def create_record_size(name: str) -> int:
    """A TX_CREATE record for a file called ``name`` (zfs_log_create())."""
    return (LR_CREATE_BASE + len(name.encode()) + 1 + 7) // 8 * 8


@dataclass(frozen=True)
class LogBlock:
    """One log write block (lwb) a commit wrote: ``nused`` bytes of records and header,
    on a log vdev (``slog``) or in the pool's normal class."""

    nused: int
    slog: bool


@dataclass(frozen=True)
class CommitResult:
    commits: int
    blocks: tuple[LogBlock, ...]
    # Data written in place at commit time for WR_INDIRECT records (dmu_sync()).
    indirect_bytes: int


def _record_size(state: str, nbytes: int) -> int:
    return LR_WRITE_HEADER + (0 if state == WR_INDIRECT else nbytes)


def commit_writes(stats: ZilStats, *, writes: int, write_size: int, first_record: int,
                  durability: Durability, sync_property: str, logbias: str, has_slog: bool,
                  writes_per_txg: int, log_exists: bool = True,
                  first_record_alone: bool = False,
                  max_copied: int | None = None) -> CommitResult:
    """Log commits of one writer that writes ``writes`` blocks of ``write_size`` bytes
    into a new file, counted into ``stats`` as zil.c counts them.

    Every write makes a TX_WRITE record (zfs_log_write(), state from write_state());
    making the file made one more, ``first_record`` bytes long (its TX_CREATE,
    create_record_size()). A commit (zil_commit())
    writes the records still waiting into log blocks: after every write with O_SYNC or
    sync=always (with sync=always the create commits on its own first,
    ``first_record_alone``), after every ``fsync_every`` writes but the last (as fio
    does), or at the end. Records whose txg was written first are dropped instead
    (zil_clean()): the txg closes after ``writes_per_txg`` writes. sync=disabled
    commits nothing.

    A dataset's first commit (``log_exists`` false) creates its log: zil_create()
    writes an empty first block and waits for a txg to sync, which drops the records
    waiting then. One writer commits alone, so each commit is its own writer and its
    records are packed into log blocks of up to ZIL_MAX_BLOCK (a copied record longer
    than the room left is split).

    Measured on 2.1.11 (tests/fixtures/real/2.1.11/05-zil-sync*): 256 O_SYNC 4K writes
    make 256 commits, 257 records and 256 blocks of 4472 bytes (one also holds the
    120-byte TX_CREATE of "slog.bin").
    """
    if sync_property == "disabled" or writes == 0:
        return CommitResult(0, (), 0)
    state = write_state(write_size, logbias=logbias, has_slog=has_slog,
                        o_sync=durability.o_sync)
    # zil_max_copied_data(): the release's limit (ZfsVersion.zil_max_copied), at most
    # half a log block.
    limit = ZIL_MAX_COPIED_DATA if max_copied is None else min(max_copied,
                                                                ZIL_MAX_COPIED_DATA)
    if state == WR_COPIED and write_size > limit:
        state = WR_NEED_COPY
    per_write = durability.o_sync or sync_property == "always"
    if not (per_write or durability.fsync_every or durability.end_fsync):
        return CommitResult(0, (), 0)  # nothing asks for a commit
    pending: list[tuple[str, int]] = [("first", first_record)]
    blocks: list[LogBlock] = []
    commits = indirect = 0
    exists = log_exists

    def commit() -> None:
        nonlocal commits, indirect, exists
        if not pending:
            return
        commits += 1
        stats.add("zil_commit_count")
        stats.add("zil_commit_writer_count")
        if not exists:
            # zil_create(): an empty first block, and a txg sync that drops the records
            # waiting now; this commit then writes a block with nothing in it.
            exists = True
            blocks.extend([LogBlock(ZIL_CHAIN_HEADER, has_slog)] * 2)
            pending.clear()
            return
        used = ZIL_CHAIN_HEADER
        for kind, size in pending:
            stats.add("zil_itx_count")
            if kind != "first":
                stats.add(f"zil_itx_{kind}_count")
                stats.add(f"zil_itx_{kind}_bytes", write_size)
                if kind == WR_INDIRECT:
                    indirect += write_size
            while used + size > ZIL_MAX_BLOCK:
                room = ZIL_MAX_BLOCK - used
                if kind in (WR_INDIRECT, "first") or room <= LR_WRITE_HEADER:
                    blocks.append(LogBlock(used, has_slog))
                    used = ZIL_CHAIN_HEADER
                    continue
                blocks.append(LogBlock(ZIL_MAX_BLOCK, has_slog))
                size -= room - LR_WRITE_HEADER
                used = ZIL_CHAIN_HEADER
            used += size
        blocks.append(LogBlock(used, has_slog))
        pending.clear()

    if first_record_alone and per_write:
        commit()
    record = (state, _record_size(state, write_size))
    if per_write or durability.fsync_every:
        for n in range(1, writes + 1):
            pending.append(record)
            if per_write or (n % durability.fsync_every == 0 and n < writes):
                commit()
            elif writes_per_txg and n % writes_per_txg == 0:
                pending.clear()  # the txg is written; its records are no longer needed
    else:
        # Nothing commits before the end: only the records of the last txg remain.
        if writes_per_txg and writes > writes_per_txg:
            pending.clear()
            writes = writes % writes_per_txg
        pending.extend([record] * writes)
    if durability.end_fsync:
        commit()
    for block in blocks:
        kind = "slog" if block.slog else "normal"
        stats.add(f"zil_itx_metaslab_{kind}_count")
        stats.add(f"zil_itx_metaslab_{kind}_bytes", block.nused)
        if f"zil_itx_metaslab_{kind}_write" in stats.counters:
            # zil_lwb_write_issue(): a slim block writes its used bytes rounded up to
            # ZIL_MIN_BLKSZ. Allocated: the block's size, which zil_lwb_plan() picks from
            # what the commit holds; labsim takes the written size (the allocation can be
            # larger when a commit was predicted bigger than it turned out).
            written = -(-block.nused // ZIL_MIN_BLKSZ) * ZIL_MIN_BLKSZ
            stats.add(f"zil_itx_metaslab_{kind}_write", written)
            stats.add(f"zil_itx_metaslab_{kind}_alloc", written)
    return CommitResult(commits, tuple(blocks), indirect)
