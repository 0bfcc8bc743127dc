"""Lesson 4: what a recordsize costs a workload, with ashift and compression.

For every recordsize from 4K to 1M the scenario computes, for the chosen workload:

* write amplification: bytes written to disk per byte the application changed, with
  read-modify-write (labsim.zfs.records.write_cost: copy-on-write rewrites whole
  records, and reads a partly covered record first);
* the device I/Os one application write costs (records read, records written);
* space on disk against the data's logical size: each record compressed on its own
  (labsim.zfs.compression, the same LZ4 model labsim's shell uses, checked against real
  2.1.11 recordings) and rounded up to whole sectors of 2^ashift bytes;
* the RAM a dedup table of 1 TiB of such data would take (about 320 bytes per block).

Teaching model, stated in the summary: random writes land in different records and each
is committed on its own (no two share a transaction group), records are not in the ARC
(every partial write reads its record), sequential writers fill whole records. Data is
modelled as fio makes it: in each 4 KiB, a share of random bytes and then zeros; real
text or database pages compress differently, but sector rounding treats them alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from labsim.figures import BarPanel, BarSeries, bar_panels
from labsim.scenarios.base import ScenarioResult, Simulation, typed_params
from labsim.scenarios.controls import Control
from labsim.zfs import compression, records
from labsim.zfs.compression import DataPattern
from labsim.zfs.versions import GiB, KiB, MiB, TiB

RECORDSIZES_KIB = [4, 8, 16, 32, 64, 128, 256, 512, 1024]
CHUNK = 4 * KiB


def _size_text(kib: int) -> str:
    return f"{kib // 1024}M" if kib >= 1024 else f"{kib}K"


# name -> label, application write sizes (bytes, equally frequent), random or sequential,
# the percentage of each 4K chunk that is compressible, and a typical file size.
WORKLOADS = {
    "database-8k": ("Database, 8K pages (PostgreSQL)", [8 * KiB], True, 50, 8 * GiB),
    "database-16k": ("Database, 16K pages (InnoDB)", [16 * KiB], True, 50, 8 * GiB),
    "vm": ("VM disk images, 4K to 64K random", [4 * KiB, 16 * KiB, 64 * KiB], True, 40,
           32 * GiB),
    "media": ("Photos and video, large sequential, already compressed", [MiB], False, 0,
              5 * MiB + 300 * KiB),
    "torrent": ("Torrents, 16K pieces written at random into big files", [16 * KiB], True, 0,
                2 * GiB),
    "logs": ("Logs and text, appended sequentially, compressible", [128 * KiB], False, 75,
             64 * MiB + 10 * KiB),
}

CONTROLS: list[Control] = [
    {"name": "workload", "label": "Workload", "kind": "select",
     "options": [[k, v[0]] for k, v in WORKLOADS.items()], "default": "database-8k"},
    {"name": "recordsize_kib", "label": "recordsize (highlighted)", "kind": "select",
     "options": [[k, _size_text(k)] for k in RECORDSIZES_KIB], "default": 128},
    {"name": "ashift", "label": "ashift (sector size 2^ashift)", "kind": "select",
     "options": [[9, "9 (512 B)"], [12, "12 (4K)"], [13, "13 (8K)"]], "default": 12},
    {"name": "compression", "label": "Compression", "kind": "select",
     "options": ["off", "lz4"], "default": "lz4"},
]


@dataclass(frozen=True)
class Params:
    workload: str
    recordsize_kib: int
    ashift: int
    compression: str
    notes: tuple[str, ...] = ()


def read(values: object) -> Params:
    return typed_params(Params, CONTROLS, values)


@dataclass(frozen=True)
class RecordsizeCosts:
    """What one recordsize costs the workload (per application write, and in space)."""

    amplification: float  # bytes written to disk per byte changed
    ios: float  # device I/Os per application write
    reads: float  # of them, reads (read-modify-write)
    space_percent: float  # allocated space, % of the data's size
    ratio: float  # compressratio as zfs prints it (two decimals, rounded down)
    ddt_gib: float  # dedup table RAM for 1 TiB of such data


def recordsize_costs(workload: str, recordsize: int, ashift: int,
                     compression_name: str) -> RecordsizeCosts:
    """Every figure the widget shows for one recordsize."""
    _, sizes, random_io, percent, file_size = WORKLOADS[workload]
    pattern = DataPattern("fio", percent, CHUNK) if percent else DataPattern("random")
    runs = compression.record_runs(pattern, 0, recordsize, recordsize)
    psize = compression.block_psize(runs, compression_name, ashift)
    record_alloc = records.allocated_size(psize, ashift)
    written = changed = ios = reads = 0.0
    for size in sizes:
        if random_io:
            # A write aligned to its own size, somewhere in a large file.
            cost = records.write_cost(size, size, recordsize, record_alloc)
            written += cost.written_bytes
            reads += cost.read_bytes and cost.ios - cost.records
            ios += cost.ios
        else:
            # A sequential writer fills whole records: each costs its allocation once.
            written += size / recordsize * record_alloc
            ios += size / recordsize
        changed += size
    logical, physical, allocated = records.file_space(file_size, recordsize, pattern,
                                                      compression_name, ashift)
    return RecordsizeCosts(
        amplification=written / changed,
        ios=ios / len(sizes),
        reads=reads / len(sizes),
        space_percent=100 * allocated / file_size,
        ratio=(logical * 100 // physical) / 100 if physical else 1.0,
        ddt_gib=records.dedup_table_ram(TiB, recordsize) / GiB,
    )


def run(p: Params) -> ScenarioResult:
    workload, ashift, comp = p.workload, p.ashift, p.compression
    chosen = p.recordsize_kib
    rows = {k: recordsize_costs(workload, k * KiB, ashift, comp) for k in RECORDSIZES_KIB}
    labels = [_size_text(k) for k in RECORDSIZES_KIB]

    def values(key: str) -> list[float | None]:
        return [round(getattr(rows[k], key), 3) for k in RECORDSIZES_KIB]

    def marks(key: str, fmt: str) -> list[str]:
        return [format(getattr(rows[k], key), fmt) if k == chosen else ""
                for k in RECORDSIZES_KIB]

    panels = [
        BarPanel("Bytes written per byte changed", "× (log scale)",
                 [BarSeries("write amplification", values("amplification"), "×", ",.2f",
                            text=marks("amplification", ".1f"))], y_type="log"),
        BarPanel("Disk I/Os per application write", "I/Os",
                 [BarSeries("reads (read-modify-write)", values("reads"), "", ",.2f"),
                  BarSeries("all I/Os", values("ios"), "", ",.2f",
                            text=marks("ios", ".2f"))]),
        BarPanel("Space on disk, % of the data's size", "%",
                 [BarSeries("allocated", values("space_percent"), "%", ",.1f",
                            text=marks("space_percent", ".0f"))]),
        BarPanel("Dedup table RAM for 1 TiB of data", "GiB",
                 [BarSeries("DDT in RAM", values("ddt_gib"), "GiB", ",.2f",
                            text=marks("ddt_gib", ".2f"))]),
    ]
    label = WORKLOADS[workload][0]
    figure = bar_panels(labels, panels, title=f"{label}: ashift {ashift}, compression {comp}",
                        columns=2, height=620)
    return ScenarioResult(figure, _summary(p, rows[chosen]),
                          _transcript(workload, chosen, comp))


def _summary(p: Params, row: RecordsizeCosts) -> str:
    label, sizes, random_io, _, _ = WORKLOADS[p.workload]
    rs = _size_text(p.recordsize_kib)
    how = ("random writes, each in its own transaction group, records not cached"
           if random_io else "sequential writes filling whole records")
    lines = [f"{label}, recordsize {rs}, ashift {p.ashift}, compression "
             f"{p.compression} ({how})."]
    lines.append(f"Each byte changed costs {row.amplification:.2f} bytes written and each "
                 f"application write {row.ios:.2f} disk I/Os "
                 f"({row.reads:.2f} of them reads).")
    lines.append(f"The data takes {row.space_percent:.0f} % of its size on disk "
                 f"(compressratio {row.ratio:.2f}).")
    lines.append(f"A dedup table for 1 TiB of it would need about {row.ddt_gib:.2f} GiB of "
                 f"RAM ({records.DDT_ENTRY_RAM} bytes per {rs} block).")
    return " ".join(lines + [n + "." for n in p.notes])


def _transcript(workload: str, chosen_kib: int, comp: str) -> str:
    """The commands that would set up and measure this on a real pool (fio's random
    forms are for real OpenZFS; labsim's fio runs the sequential form only)."""
    _, sizes, random_io, percent, file_size = WORKLOADS[workload]
    rs = _size_text(chosen_kib)
    rw = "randwrite" if random_io else "write"
    bs = _size_text(sizes[0] // KiB)
    fill = (f" --buffer_compress_percentage={percent} --buffer_compress_chunk=4k"
            if percent else "")
    return (f"$ zfs create -o recordsize={rs} -o compression={comp} tank/{workload}\n"
            f"$ fio --name={workload} --filename=/tank/{workload}/data.bin --rw={rw} "
            f"--bs={bs} --size={max(file_size // MiB, 1)}M{fill} --refill_buffers "
            "--end_fsync=1\n"
            f"$ zfs get -p compressratio,used,logicalused tank/{workload}\n")


SCENARIO = Simulation("records", "What a recordsize costs a workload", CONTROLS, read, run)
