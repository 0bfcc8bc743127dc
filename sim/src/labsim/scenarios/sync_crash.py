"""Lesson 5: pull the plug. Which writes does each sync setting keep?

A few seconds of writes from a chosen workload run against a pool; the power fails at a
chosen instant. Every write issued before that is drawn on a timeline and coloured by
what the next import finds (labsim.zfs.zil.write_fate): on disk because its transaction
group was written, replayed from the intent log, lost without having been promised, lost
although the application was told it was durable (only sync=disabled does that), or still
waiting for its answer when the power failed.

The summary adds what each synchronous write waited for (the log device's latency) and
where the bytes went (labsim.zfs.zil.log_traffic).

Teaching model, stated in the lesson: txgs close every zfs_txg_timeout seconds and take a
fixed time to write; device latencies are round figures (labsim.zfs.zil.LOG_DEVICES);
writes arrive at fixed rates with a seeded jitter, so a page always draws the same chart.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from labsim.figures import TimelineClass, timeline_chart
from labsim.scenarios.base import ScenarioResult, Simulation, typed_params
from labsim.scenarios.controls import Control
from labsim.zfs import zil
from labsim.zfs.versions import KiB

HORIZON = 14.0  # seconds of workload drawn

# name -> label and its streams: (row label, write size, wants_sync, seconds between writes).
WORKLOADS = {
    "database": ("Database: WAL commits with fsync, table pages written lazily", [
        ("WAL commit (8K, fsync)", 8 * KiB, True, 0.4),
        ("table page (16K, async)", 16 * KiB, False, 0.7),
    ]),
    "nfs": ("NFS client copying a file (every write stable)", [
        ("NFS write (32K, stable)", 32 * KiB, True, 0.3),
    ]),
    "copy": ("Local file copy, one fsync at the end of each file", [
        ("cp data (128K, async)", 128 * KiB, False, 0.25),
        ("fsync at end of file", 4 * KiB, True, 4.5),
    ]),
    "vm": ("VM guest disk: small random writes, flushes from the guest", [
        ("guest write (4K, async)", 4 * KiB, False, 0.3),
        ("guest flush (4K, sync)", 4 * KiB, True, 1.1),
    ]),
}

CONTROLS: list[Control] = [
    {"name": "workload", "label": "Workload", "kind": "select",
     "options": [[k, v[0]] for k, v in WORKLOADS.items()], "default": "database"},
    {"name": "sync", "label": "sync property", "kind": "select",
     "options": list(zil.SYNC_VALUES), "default": "standard"},
    {"name": "logbias", "label": "logbias property", "kind": "select",
     "options": list(zil.LOGBIAS_VALUES), "default": "latency"},
    {"name": "log_device", "label": "Where the log blocks go", "kind": "select",
     "options": [[k, d.label] for k, d in zil.LOG_DEVICES.items()], "default": "pool-hdd"},
    {"name": "crash", "label": "Power fails at", "kind": "range", "min": 0.5,
     "max": HORIZON, "step": 0.1, "default": 8.3, "unit": "s"},
]

CLASSES = [
    TimelineClass(zil.ON_DISK, "#009E73", "circle"),
    TimelineClass(zil.REPLAYED, "#0072B2", "diamond"),
    TimelineClass(zil.LOST_ASYNC, "#E69F00", "square-open"),
    TimelineClass(zil.LOST_PROMISED, "#D55E00", "x"),
    TimelineClass(zil.IN_FLIGHT, "#999999", "circle-open"),
]


@dataclass(frozen=True)
class Params:
    workload: str
    sync: str
    logbias: str
    log_device: str
    crash: float
    notes: tuple[str, ...] = ()


def read(values: object) -> Params:
    return typed_params(Params, CONTROLS, values)


def workload_writes(workload: str, horizon: float = HORIZON, seed: int = 5) -> list[zil.AppWrite]:
    """The writes of a workload's streams over ``horizon`` seconds, each stream at its
    rate with up to a fifth of its period of jitter (seeded, so always the same)."""
    rng = random.Random(seed)
    writes = []
    for row, nbytes, wants_sync, period in WORKLOADS[workload][1]:
        t = period * (0.5 + 0.5 * rng.random())
        while t < horizon:
            writes.append(zil.AppWrite(round(t, 3), nbytes, wants_sync, row))
            t += period * (0.8 + 0.4 * rng.random())
    return sorted(writes, key=lambda w: w.time)


def run(p: Params) -> ScenarioResult:
    settings = zil.SyncSettings(sync=p.sync, logbias=p.logbias, log_device=p.log_device)
    crash = round(p.crash, 2)
    writes = workload_writes(p.workload)
    fates = zil.write_fates(writes, settings, crash)
    rows = [s[0] for s in WORKLOADS[p.workload][1]]
    points = [(f.write.time, f.write.stream, f.outcome, _hover(f)) for f in fates]
    bands = []
    for txg in range(int(HORIZON // settings.txg_timeout) + 1):
        x0 = txg * settings.txg_timeout
        bands.append((x0, min(HORIZON, x0 + settings.txg_timeout), f"txg {txg} open"))
    vlines = [(zil.txg_on_disk(txg, settings), f"txg {txg} on disk", "#009E73")
              for txg in range(int(HORIZON // settings.txg_timeout))
              if zil.txg_on_disk(txg, settings) < HORIZON]
    vlines.append((crash, "power fails", "#D55E00"))
    figure = timeline_chart(rows, points, CLASSES,
                            title=f"{WORKLOADS[p.workload][0]}: sync={p.sync}, "
                                  f"logbias={p.logbias}",
                            x_title="seconds", x_max=HORIZON, bands=bands, vlines=vlines)
    return ScenarioResult(figure, _summary(p, settings, writes, fates), _transcript(p))


def _hover(fate: zil.WriteFate) -> str:
    w = fate.write
    wait = (fate.acknowledged - w.time) * 1000
    how = f", logged as {fate.state}" if fate.state else ""
    return (f"{w.stream} at {w.time:.2f} s (txg {fate.txg})<br>"
            f"answered after {wait:.2f} ms{how}<br><b>{fate.outcome}</b>")


def _summary(p: Params, settings: zil.SyncSettings, writes: list[zil.AppWrite],
             fates: list[zil.WriteFate]) -> str:
    counts = {o: sum(1 for f in fates if f.outcome == o) for o in zil.OUTCOMES}
    issued = len(fates)
    kept = counts[zil.ON_DISK] + counts[zil.REPLAYED]
    lines = [f"Power fails at {p.crash:.1f} s: of {issued} writes issued, "
             f"{kept} survive ({counts[zil.ON_DISK]} on disk with their txg, "
             f"{counts[zil.REPLAYED]} replayed from the ZIL at import)."]
    if counts[zil.LOST_PROMISED]:
        lines.append(f"{counts[zil.LOST_PROMISED]} writes the application was told were "
                     "durable are gone: sync=disabled answered them without logging.")
    if counts[zil.LOST_ASYNC]:
        lines.append(f"{counts[zil.LOST_ASYNC]} asynchronous writes in unwritten txgs are "
                     "lost, as POSIX allows.")
    synced = [f for f in fates if f.write.wants_sync]
    if synced:
        mean = sum(f.acknowledged - f.write.time for f in synced) / len(synced) * 1000
        if settings.sync == "disabled":
            lines.append("Synchronous writes were answered at once, without waiting for "
                         "any disk.")
        else:
            lines.append(f"Each synchronous write waited {mean:.2f} ms on average for its "
                         "log block.")
    traffic = zil.log_traffic(writes, settings)
    where = "the SLOG" if settings.has_slog else "the pool's disks"
    log_bytes = traffic.log_bytes or traffic.pool_log_bytes
    lines.append(f"Over {HORIZON:.0f} s, {traffic.commits} log commits put "
                 f"{log_bytes / KiB:,.0f} KiB of log blocks on {where}; "
                 f"{traffic.indirect_bytes / KiB:,.0f} KiB of data was written in place "
                 f"at once (WR_INDIRECT) and {traffic.txg_bytes / KiB:,.0f} KiB with its txg.")
    return " ".join(lines + [n + "." for n in p.notes])


def _transcript(p: Params) -> str:
    """The commands that set this up on a real pool (the lab does the same on files)."""
    lines = []
    if p.log_device.startswith("slog"):
        lines.append("$ zpool add tank log /dev/disk/by-id/nvme-SLOG")
    lines.append(f"$ zfs set sync={p.sync} logbias={p.logbias} tank/data")
    lines.append("$ zfs get sync,logbias tank/data")
    lines.append("$ cat /proc/spl/kstat/zfs/zil      # commits and log blocks, where they went")
    return "\n".join(lines) + "\n"


SCENARIO = Simulation("sync-crash", "Pull the plug: what survives a power failure", CONTROLS,
                      read, run)
