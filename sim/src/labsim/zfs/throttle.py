"""The allocation throttle: how a txg's blocks split between top-level vdevs once their
queues of outstanding writes fill up.

What OpenZFS does (module/zfs/metaslab.c, zio.c, spa.c, vdev_queue.c; the same code and
tunables in zfs-2.1.11 and zfs-2.3.9):

* spa_sync_adjust_vdev_max_queue_depth() (spa.c), at the start of every txg's sync: each
  top-level vdev's mga_cur_max_alloc_queue_depth starts at zfs_vdev_def_queue_depth (32),
  its ceiling mg_max_alloc_queue_depth is zfs_vdev_async_write_max_active (10) *
  zfs_vdev_queue_depth_pct (1000 in the kernel) / 100 = 100, and the class's
  mca_alloc_max_slots is the sum of the vdevs' 32s.
* zio_dva_throttle() (zio.c): an async write reserves a slot of the class
  (metaslab_class_throttle_reserve()) before it allocates; with none left it waits, in
  bookmark order, until a write completes (zio_dva_throttle_done() ->
  zio_allocate_dispatch()).
* metaslab_alloc_dva() asks metaslab_group_allocatable() of the rotor's vdev: one whose
  mga_alloc_queue_depth (allocations not yet completed) is at its current maximum is
  skipped, and the rotor moves on, if a vdev after it is below its own.
* When a write completes (metaslab_group_alloc_decrement(), io_complete):
  metaslab_group_increment_qdepth() raises that vdev's current maximum by one, up to 100,
  and the class's slots with it.

So while the vdevs complete writes as fast as the pipeline issues them the queues stay
short and the rotor (labsim.zfs.allocator: aliquot and free-space bias) decides alone. A
vdev that receives blocks faster than it completes them fills its queue; then it takes
only as many as it completes, and the others take the rest; when every queue is full the
pipeline waits and each vdev takes blocks at the pace it completes them. The split thus
depends on how many blocks a txg issues, and on how fast each vdev completes writes
relative to the pipeline.

labsim integrates this as a fluid model, one issued block per step: ``drain[i]`` is the
blocks vdev i completes per block the pipeline issues while its queue is not empty (a
property of the machine: the lab VM's file vdevs, ZfsVersion.write_completion_ratio);
the rotor's part for vdev i is its share of a turn (allocator.rotor_shares()). A vdev
skipped for a full queue hands its turn to the vdevs that have room, in proportion to
their shares. Deterministic, and cheap: once the split no longer changes from one step to
the next, the rest of the txg is split the same way.
"""

from __future__ import annotations

from functools import lru_cache

# module/zfs/vdev_queue.c (zfs-2.1.11 and zfs-2.3.9).
ZFS_VDEV_DEF_QUEUE_DEPTH = 32
ZFS_VDEV_ASYNC_WRITE_MAX_ACTIVE = 10
ZFS_VDEV_QUEUE_DEPTH_PCT = 1000  # the kernel's default (300 in userland ztest)
# spa_sync_adjust_vdev_max_queue_depth(): mg_max_alloc_queue_depth.
MAX_ALLOC_QUEUE_DEPTH = ZFS_VDEV_ASYNC_WRITE_MAX_ACTIVE * ZFS_VDEV_QUEUE_DEPTH_PCT // 100

# How long compressing a block holds it back before it reaches the throttle. The write
# pipeline compresses a block (ZIO_STAGE_WRITE_COMPRESS) before it asks the throttle for a
# slot (ZIO_STAGE_DVA_THROTTLE, module/zfs/zio.c, 2.1.11 and 2.3.9), so a slow compressor
# paces the blocks: fewer of them wait in the vdevs' queues, and the rotor splits more of
# the txg on its own. The pace is that of the machine, like write_completion_ratio: here,
# the lab VM's, from tools/probes/model/lab15-throttle-blocks.sh (24 MiB of random bytes
# into a 1 GiB and a 256 MiB file vdev; five runs of two rounds on 2.3.9, three on
# 2.1.11). There gzip and zstd at 16K and 128K records gave the small vdev the rotor's
# share (19.7-24.6 %) every time; no compression at 4K, 16K and 128K and lz4 at 16K left
# the queues to decide (20-66 %, varying from run to run); lz4 at 128K fell in between
# (22-27 % in eleven of fourteen, 29-40 % in three). As a model: compressing a
# block of ``lsize`` bytes takes as long as the rest of its way to the throttle when
# ``lsize`` is the compressor's pace size below, so it divides the rate at which blocks
# arrive by 1 + lsize / pace size. The size is read off those recordings, not the source:
# 4K slows 16K records fivefold, enough for the rotor to decide alone. lz4 and lzjb (one
# fast pass), zle (a scan that stops once the output outgrows the block) and no
# compression are left to the queues, as write_completion_ratio was measured.
COMPRESSION_PACE_BYTES = {
    "zstd": 4 * 1024,  # zstd-N; zstd-fast-N is left to the queues, as lz4
    "gzip": 4 * 1024,
}

_EPSILON = 1e-9
# Steps of the integration per block of the txg before the rest is given at the saturated
# pace (only vdevs that complete almost nothing take that long).
_MAX_TICKS_PER_BLOCK = 20


def throttled_split(shares: tuple[int, ...], drain: tuple[float, ...],
                    blocks: int) -> tuple[float, ...]:
    """The part of a txg of ``blocks`` blocks each vdev receives under the throttle: the
    rotor's ``shares`` (blocks per turn, 0 for a vdev that takes none) with the queues
    each vdev fills and drains at ``drain`` blocks per block issued. Sums to 1 (all zeros
    when no vdev takes blocks)."""
    total = sum(shares)
    if total == 0:
        return tuple(0.0 for _ in shares)
    rotor = tuple(s / total for s in shares)
    taking = [i for i, s in enumerate(shares) if s]
    if len(taking) < 2 or blocks <= 0 or any(drain[i] <= 0 for i in taking):
        # One vdev, or no throttle: metaslab_group_allocatable() skips nothing (mc_groups
        # <= 1, or mc_alloc_throttle_enabled off).
        return rotor
    return _split(rotor, tuple(drain), blocks)[0]


def queues_fill(shares: tuple[int, ...], drain: tuple[float, ...], blocks: int) -> bool:
    """Whether, in a txg of ``blocks`` blocks, a vdev's queue reaches its maximum or the
    class runs out of slots: only then does the throttle steer a block, and the split is
    a flow; otherwise every block goes where its allocator's rotor points."""
    taking = [i for i, s in enumerate(shares) if s]
    if len(taking) < 2 or blocks <= 0 or any(drain[i] <= 0 for i in taking):
        return False
    total = sum(shares)
    return _split(tuple(s / total for s in shares), tuple(drain), blocks)[1]


@lru_cache(maxsize=4096)
def _split(rotor: tuple[float, ...], drain: tuple[float, ...],
           blocks: int) -> tuple[tuple[float, ...], bool]:
    """The parts (see throttled_split()), and whether a queue or the class's slots ever
    held a block back."""
    n = len(rotor)
    held_back = False
    allocated = [0.0] * n
    queue = [0.0] * n
    qmax = [float(ZFS_VDEV_DEF_QUEUE_DEPTH) if rotor[i] else 0.0 for i in range(n)]
    offered = 0  # blocks the pipeline has issued into the throttle
    waiting = 0.0  # issued, waiting for a class slot
    done = 0.0
    last: list[float] | None = None
    steady = 0
    ticks = 0
    while done < blocks - _EPSILON:
        ticks += 1
        if ticks > _MAX_TICKS_PER_BLOCK * blocks + MAX_ALLOC_QUEUE_DEPTH:
            # Vdevs that hardly complete anything: the saturated pace, each its drain's part.
            held_back = True
            taking = sum(drain[i] for i in range(n) if rotor[i])
            for i in range(n):
                if rotor[i]:
                    allocated[i] += (blocks - done) * drain[i] / taking
            break
        if offered < blocks:
            offered += 1
            waiting += 1.0
        # metaslab_class_throttle_reserve(): the class's slots are the sum of the vdevs'
        # current maxima; those in use are the queued allocations.
        slots = sum(qmax) - sum(queue)
        give = min(waiting, max(0.0, slots))
        step = _place(rotor, queue, qmax, give)
        if sum(step) < waiting - _EPSILON or any(
                rotor[i] and queue[i] + step[i] >= qmax[i] - _EPSILON for i in range(n)):
            held_back = True  # a block waited for a slot, or a full queue was skipped
        waiting -= sum(step)
        done += sum(step)
        for i in range(n):
            allocated[i] += step[i]
            queue[i] += step[i]
            completed = min(queue[i], drain[i])
            queue[i] -= completed
            # metaslab_group_increment_qdepth(): one more per completed write, up to 100.
            qmax[i] = min(float(MAX_ALLOC_QUEUE_DEPTH), qmax[i] + completed) if rotor[i] else 0.0
        if last is not None and all(abs(a - b) < 1e-6 for a, b in zip(step, last, strict=True)):
            steady += 1
        else:
            steady = 0
        last = step
        rate = sum(step)
        if steady >= 4 and rate > _EPSILON and offered < blocks and not _changing(
                queue, qmax, step, drain):
            # Nothing will change any more: the rest of the txg goes as this step did.
            rest = blocks - done
            for i in range(n):
                allocated[i] += rest * step[i] / rate
            done = blocks
    return tuple(a / blocks for a in allocated), held_back


def _place(rotor: tuple[float, ...], queue: list[float], qmax: list[float],
           amount: float) -> list[float]:
    """Place ``amount`` blocks: the rotor's shares among the vdevs below their queue
    maximum (metaslab_group_allocatable() skips a full one while another has room)."""
    n = len(rotor)
    step = [0.0] * n
    room = [max(0.0, qmax[i] - queue[i]) for i in range(n)]
    open_ = [i for i in range(n) if rotor[i] and room[i] > _EPSILON]
    while amount > _EPSILON and open_:
        weight = sum(rotor[i] for i in open_)
        placed = 0.0
        for i in open_:
            x = min(amount * rotor[i] / weight, room[i] - step[i])
            step[i] += x
            placed += x
        amount -= placed
        open_ = [i for i in open_ if room[i] - step[i] > _EPSILON]
        if placed <= _EPSILON:
            break
    return step


def _changing(queue: list[float], qmax: list[float], step: list[float],
              drain: tuple[float, ...]) -> bool:
    """Whether a queue or a queue maximum is still moving: a queue that grows toward its
    maximum, or a maximum that grows toward 100, changes the split later."""
    for i in range(len(queue)):
        if qmax[i] < MAX_ALLOC_QUEUE_DEPTH and queue[i] > _EPSILON:
            return True  # writes complete: the maximum still grows
        if step[i] > drain[i] + _EPSILON and queue[i] < qmax[i] - _EPSILON:
            return True  # the queue still grows toward its maximum
    return False


def compression_pace(algorithm: str, level: int, lsize: int) -> float:
    """How many times longer the pipeline takes to bring a block of ``lsize`` logical
    bytes to the throttle when it compresses with ``algorithm`` at ``level`` (a
    compressors.parse() pair) than when it does not: 1 + lsize / pace size
    (COMPRESSION_PACE_BYTES), 1 without compression. The vdevs' drain per block issued
    (write_completion_ratio, measured without compression) grows by as much."""
    pace = COMPRESSION_PACE_BYTES.get(algorithm)
    if pace is None or (algorithm == "zstd" and level < 0):  # zstd-fast-N: fast, as lz4
        return 1.0
    return 1.0 + lsize / pace

