"""Lesson 7: what a guest's small writes cost the pool for each way of storing a VM disk, and
what the guest sees when the pool fills.

The chart compares record sizes (recordsize of the file system holding a raw or qcow2
image, or volblocksize of a zvol) for the chosen format and workload, with the bytes the
pool writes per guest byte split by cause: the records holding the guest's data, the zero
fill of new qcow2 clusters, and the qcow2 table records (labsim.zfs.qcow2, whose module
docstring states the model: writes spread thin, one record each). The transcript runs the
lab's fio run in labsim for a raw file or a zvol: 4K random writes over a 48 MiB image,
with the bytes labsim's vdevs wrote counted before and after (for qcow2, qemu-img create
and info). The summary adds the read-modify-write reads and the pool-full outcome under the
chosen QEMU werror policy.
"""

from __future__ import annotations

from dataclasses import dataclass

from labsim.figures import image_amplification_chart
from labsim.scenarios.base import ScenarioResult, Simulation, typed_params
from labsim.scenarios.controls import Control
from labsim.shell.base import CommandResult
from labsim.shell.session import Session, transcript
from labsim.zfs import qcow2

KiB = 1 << 10
RECORDS = [4 * KiB, 8 * KiB, 16 * KiB, 32 * KiB, 64 * KiB, 128 * KiB, 1024 * KiB]
CLUSTERS = [4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1024 * KiB, 2048 * KiB]
POOL = "tank"


def _size(n: int) -> str:
    return f"{n // 1024 // 1024}M" if n >= 1 << 20 else f"{n // 1024}K"


CONTROLS: list[Control] = [
    {"name": "format", "label": "Image", "kind": "select",
     "options": [["raw", "raw file"], ["zvol", "zvol"], ["qcow2", "qcow2 file"]],
     "default": "qcow2"},
    {"name": "record", "label": "recordsize / volblocksize", "kind": "select",
     "options": [[r, _size(r)] for r in RECORDS], "default": 128 * KiB},
    {"name": "cluster", "label": "qcow2 cluster_size", "kind": "select",
     "options": [[c, _size(c)] for c in CLUSTERS], "default": 64 * KiB},
    {"name": "workload", "label": "Guest workload", "kind": "select",
     "options": [["overwrite", "4K random overwrites (image written before)"],
                 ["fresh", "4K random writes into a fresh image"],
                 ["big", "64K random overwrites"]],
     "default": "overwrite"},
    {"name": "thick", "label": "zvol reservation", "kind": "select",
     "options": [["thick", "thick (-V)"], ["sparse", "sparse (-s -V)"]], "default": "thick"},
    {"name": "werror", "label": "QEMU werror", "kind": "select",
     "options": [[w, w] for w in qcow2.WERROR_POLICIES], "default": qcow2.DEFAULT_WERROR},
]

PARTS = ["guest data's records", "zero fill of new clusters", "qcow2 table records"]


@dataclass(frozen=True)
class Params:
    format: str
    record: int
    cluster: int
    workload: str
    thick: str
    werror: str
    notes: tuple[str, ...] = ()


def read(values: object) -> Params:
    return typed_params(Params, CONTROLS, values)


def _cost(p: Params, record: int) -> qcow2.ImageWriteCost:
    size = 64 * KiB if p.workload == "big" else 4 * KiB
    return qcow2.image_write_cost(p.format, size, record, cluster=p.cluster,
                                  allocated=p.workload != "fresh")


def _script(p: Params) -> list[str]:
    """The lab's measurement, in labsim (raw file or zvol; qcow2: the image itself)."""
    lines = ["truncate -s 256M /var/tmp/tank.raw",
             f"zpool create -o ashift=12 -O compression=off {POOL} /var/tmp/tank.raw"]
    record = p.record
    if p.format == "qcow2":
        return lines + [f"zfs create -o recordsize={_size(record)} {POOL}/images",
                        f"qemu-img create -f qcow2 -o cluster_size={p.cluster} "
                        f"/{POOL}/images/vm.qcow2 1G",
                        f"qemu-img info /{POOL}/images/vm.qcow2"]
    bs = "64k" if p.workload == "big" else "4k"
    if p.format == "zvol":
        sparse = "-s " if p.thick == "sparse" else ""
        lines.append(f"zfs create {sparse}-b {_size(record)} -V 48M {POOL}/vm")
        target = f"/dev/zvol/{POOL}/vm"
    else:
        lines += [f"zfs create -o recordsize={_size(record)} {POOL}/images",
                  f"truncate -s 48M /{POOL}/images/disk.raw"]
        target = f"/{POOL}/images/disk.raw"
    if p.workload != "fresh":
        lines.append(f"dd if=/dev/urandom of={target} bs=1M count=48 status=none")
    lines += [f"zpool sync {POOL}",
              f"fio --name=guest --filename={target} --rw=randwrite --bs={bs} --size=48M "
              "--io_size=1M --ioengine=psync --output=/dev/null",
              f"zpool sync {POOL}"]
    return lines


def _pool_written(session: Session) -> int:
    """Bytes labsim's vdevs have written (what zpool iostat's write bandwidth counts)."""
    return sum(int(v.write_bytes) for pool in session.pools.values() for v in pool.vdevs)


def run(p: Params) -> ScenarioResult:
    costs = [_cost(p, r) for r in RECORDS]
    parts = [(PARTS[0], [c.data / c.guest for c in costs]),
             (PARTS[1], [c.zero_fill / c.guest for c in costs]),
             (PARTS[2], [c.metadata / c.guest for c in costs])]
    chosen = RECORDS.index(p.record) if p.record in RECORDS else 5
    label = {"raw": "raw file", "zvol": "zvol", "qcow2": f"qcow2, {_size(p.cluster)} "
             "clusters"}[p.format]
    figure = image_amplification_chart(
        [_size(r) for r in RECORDS], parts, chosen=chosen,
        title=f"{label}: pool bytes per guest byte, by recordsize/volblocksize")
    session = Session()
    pairs: list[tuple[str, CommandResult]] = []
    readings: list[int] = []
    for line in _script(p):
        if line.startswith("fio "):
            readings.append(_pool_written(session))
        pairs.append((line, session.run(line)))
        if line.startswith("fio "):
            readings.append(_pool_written(session))
    measured = (readings[1] - readings[0]) / (1 << 20) if len(readings) == 2 else None
    cost = costs[chosen]
    thick = p.format == "zvol" and p.thick == "thick"
    outcome = qcow2.pool_full_outcome(p.format, thick, p.werror)
    lines = [f"Each guest write of {_size(cost.guest)} costs the pool {cost.written // KiB}K"
             f" ({cost.amplification:.1f}×) in this model"
             + (f", and a read of {cost.read // KiB}K first unless the record is cached"
                if cost.read else "") + "."]
    if measured is not None:
        lines.append(f"labsim's fio run over a 48 MiB image wrote {measured:.1f} bytes per "
                     "guest byte of data records (several writes share a record there).")
    lines.append(f"When the pool fills: {outcome.guest_sees}.")
    return ScenarioResult(figure, " ".join(lines + [n + "." for n in p.notes]),
                          transcript(pairs))


SCENARIO = Simulation("vm-images", "VM images: write amplification and a full pool", CONTROLS,
                      read, run)
