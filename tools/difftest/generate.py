"""Seeded random lab scripts for differential testing of labsim against real OpenZFS (issue 15).

``generate(seed)`` is a pure function: the same seed gives the same script, byte for byte
(everything random comes from ``random.Random(seed)``). A script is a lab script like those
in labs/scripts/ (one command a line, run by tools/vm/transcript-driver.sh on real OpenZFS
and by ``python -m labsim``), built from a small model of the state it creates so that every
command is one real OpenZFS 2.3 and 2.1 accept in the state it runs in:

* a pool of sparse files (64 MiB - 1 GiB) in its own directory, /var/tmp/labs/labgNNNN/:
  stripe, mirror (2-3 way), raidz1-3, one or two top-level vdevs of the same kind (vdevs of
  different sizes side by side; inside a group sizes differ only with -f, as
  check_replication() in cmd/zpool/zpool_vdev.c demands beyond ZPOOL_FUZZ = 16 MiB),
  ashift 9 or 12;
* file systems with recordsize, compression (off, lz4, gzip, zstd), copies, sync, at
  creation or later with zfs set; volumes (thick or sparse, volblocksize);
* writes from /dev/urandom and /dev/zero (dd), `seq 1 N`, `yes TEXT | head -c N`, and text
  of repeated words (`seq -f`), new files, rewrites, partial rewrites in place
  (conv=notrunc), deletes;
* snapshots (also -r), clones, promote, rollback (-r when newer snapshots must go: never
  past a snapshot that has clones), destroy of snapshots and file systems (-r when they
  have children or snapshots; never one a clone depends on);
* export and import -d DIR, after renaming a vdev file, or with one member of a redundant
  group moved out of DIR (the pool imports DEGRADED; the file comes back at a later
  export, and the resilver is waited for);
* `dd seek=... conv=notrunc` over one member of a mirror or RAID-Z group while the pool is
  exported, then import, `zpool scrub -w`, `zpool status`, `zpool clear`;
* observations the comparator of tests/fidelity/transcripts.py reads (`zpool list -p -v`,
  `zfs list -p -o ...`, `zfs get -p ...`, `zpool status`), and at the end `zpool destroy` and
  the files removed, so that scripts run back to back in one VM.

Space: every write is charged what it allocates at worst (the RAID-Z asize of
vdev_raidz_asize(), module/zfs/vdev_raidz.c, times copies, nothing given back by deletes,
overwrites or rollbacks), and the total stays under about half of the pool's usable space
less the slop (spa_get_slop_space(), module/zfs/spa_misc.c: 1/32 of the pool, at least
128 MiB, at most half), and under 100 MB of writes per script.

Seeds: TUNING_SEEDS (0-199) may be looked at and tuned against; HELD_OUT_SEEDS (5000-5199)
are only ever measured (tools/difftest/agreement.py, `make bench`).

    python tools/difftest/generate.py --seed N              print one script
    python tools/difftest/generate.py --batch DIR --seeds 0-199,5000-5199
                                                            write DIR/seed-NNNN.sh for each
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

TUNING_SEEDS = range(0, 200)
HELD_OUT_SEEDS = range(5000, 5200)
LAB_DIR = "/var/tmp/labs"
MiB = 1 << 20
KiB = 1 << 10

VDEV_SIZES = (64, 96, 128, 128, 192, 256, 256, 384, 512, 1024)  # MiB, sparse
LABELS = 4 * MiB + 512 * KiB  # front labels and boot area, back labels: never data
ZPOOL_FUZZ = 16 * MiB
METASLAB = 16 * MiB  # the smallest metaslab: every vdev of these sizes has them
MAX_WRITTEN = 100 * 1000 * 1000  # bytes written into the pool per script
RECORDSIZES = ("4K", "8K", "16K", "32K", "64K", "128K", "512K", "1M")
COMPRESSIONS = ("off", "lz4", "gzip", "zstd")
SYNCS = ("standard", "always", "disabled")
VOLBLOCKSIZES = ("4K", "8K", "16K", "32K", "64K")
DEFAULTS = {"recordsize": 128 * KiB, "copies": 1}
WORDS = ("pool", "vdev", "block", "record", "snapshot", "clone", "mirror", "parity",
         "scrub", "sector", "ashift", "dataset", "volume", "label", "uberblock", "txg")
CONTENTS = ("urandom", "urandom", "urandom", "zero", "seq", "yes", "words")
FS_LIST = "name,used,avail,refer,usedbysnapshots,usedbydataset,usedbychildren,origin"
# logical sizes and ratios of file systems and volumes (labsim does not model them for
# snapshots yet, and they say little there)
FS_LOGICAL = "name,logicalused,logicalreferenced,compressratio"
FS_GET = "used,logicalused,referenced,compressratio"


def size_bytes(text: str) -> int:
    units = {"K": KiB, "M": MiB, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def raidz_asize(psize: int, ashift: int, children: int, nparity: int) -> int:
    """vdev_raidz_asize() (module/zfs/vdev_raidz.c): data sectors, parity per row, the
    whole rounded up to a multiple of nparity + 1 sectors."""
    sectors = ((psize - 1) >> ashift) + 1
    sectors += nparity * ((sectors + children - nparity - 1) // (children - nparity))
    return -(-sectors // (nparity + 1)) * (nparity + 1) << ashift


@dataclass
class Command:
    """One line of a script, and what the generator knows about it: ``feature`` names what
    it exercises (tools/difftest/agreement.py counts by it)."""

    line: str
    feature: str


@dataclass
class Dataset:
    name: str
    kind: str = "filesystem"  # or "volume"
    # Properties set on this dataset itself (recordsize and copies in bytes and copies);
    # the others are inherited through the names' hierarchy (effective()).
    local: dict[str, int] = field(default_factory=dict)
    files: dict[str, int] = field(default_factory=dict)  # name -> size
    snapshots: list[str] = field(default_factory=list)  # short names, oldest first
    origin: str | None = None  # "ds@snap" this is a clone of
    volsize: int = 0
    sparse: bool = False
    volblocksize: int = 16 * KiB


@dataclass
class Layout:
    kind: str  # "disk", "mirror", "raidz1", "raidz2", "raidz3"
    width: int  # leaves per top-level vdev
    groups: list[list[str]]  # leaf file names per top-level vdev
    sizes: dict[str, int]  # leaf file name -> bytes
    ashift: int

    @property
    def nparity(self) -> int:
        return int(self.kind[-1]) if self.kind.startswith("raidz") else 0


@dataclass
class State:
    seed: int
    rng: random.Random
    pool: str
    directory: str
    layout: Layout
    datasets: dict[str, Dataset]
    snapshot_files: dict[str, dict[str, int]] = field(default_factory=dict)  # "ds@s" -> files
    clones: dict[str, list[str]] = field(default_factory=dict)  # "ds@s" -> clone names
    budget: int = 0  # bytes of usable space the script may still allocate
    written: int = 0
    counter: int = 0
    away: str | None = None  # a leaf file moved out of the directory (pool DEGRADED)
    commands: list[Command] = field(default_factory=list)

    def emit(self, line: str, feature: str) -> None:
        self.commands.append(Command(line, feature))

    def next_name(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def leaf_path(self, leaf: str) -> str:
        return f"{self.directory}/{leaf}"

    def mountpoint(self, dataset: str) -> str:
        return "/" + dataset

    def filesystems(self) -> list[Dataset]:
        return [d for d in self.datasets.values() if d.kind == "filesystem"]

    def effective(self, dataset: Dataset, prop: str) -> int:
        """A property's value as ZFS inherits it: set here, or on the nearest parent by
        name (a clone inherits from its parent file system, not from its origin)."""
        name = dataset.name
        while True:
            found = self.datasets.get(name)
            if found is not None and prop in found.local:
                return found.local[prop]
            if "/" not in name:
                return DEFAULTS[prop]
            name = name.rsplit("/", 1)[0]


# --- the pool -------------------------------------------------------------------------------

def _layout(rng: random.Random) -> tuple[Layout, bool]:
    """A pool layout, and whether zpool create needs -f (a group of unequal sizes)."""
    kind = rng.choice(("disk", "disk", "mirror", "mirror", "raidz1", "raidz1", "raidz2",
                       "raidz3"))
    width = {"disk": 1, "mirror": rng.choice((2, 2, 3)), "raidz1": rng.randint(3, 4),
             "raidz2": rng.randint(4, 5), "raidz3": rng.randint(5, 6)}[kind]
    groups_count = rng.choice((1, 1, 2)) if kind != "disk" else rng.randint(1, 3)
    if width * groups_count > 6:
        groups_count = 1
    force = False
    groups, sizes, n = [], {}, 0
    for _ in range(groups_count):
        base = rng.choice(VDEV_SIZES) * MiB
        unequal = width > 1 and rng.random() < 0.15
        force = force or unequal
        group = []
        for i in range(width):
            n += 1
            leaf = f"d{n}.raw"
            sizes[leaf] = base + (rng.choice((32, 64, 128)) * MiB if unequal and i else 0)
            group.append(leaf)
        groups.append(group)
    return Layout(kind, width, groups, sizes, rng.choice((9, 12))), force


def _usable(layout: Layout) -> int:
    """Usable (deflated) space, roughly: each group's smallest leaf less labels in whole
    metaslabs (at least 16 MiB, vdev_metaslab_set_size(), module/zfs/vdev.c), times the
    data share of the group, less the slop (spa_get_slop_space())."""
    space = 0
    for group in layout.groups:
        leaf = (min(layout.sizes[x] for x in group) - LABELS) // METASLAB * METASLAB
        data = 1 if layout.kind in ("disk", "mirror") else layout.width - layout.nparity
        space += leaf * data
    slop = min(max(space // 32, 128 * MiB), space // 2)
    return space - slop


def charge(state: State, dataset: Dataset, size: int, block: int | None = None) -> int:
    """Usable space a write of ``size`` bytes into ``dataset`` takes at worst, in blocks of
    ``block`` (default: the dataset's recordsize or volblocksize), times its copies."""
    if size == 0:
        return 0
    layout = state.layout
    copies = state.effective(dataset, "copies")
    if block is None:
        block = (dataset.volblocksize if dataset.kind == "volume"
                 else state.effective(dataset, "recordsize"))
    blocks, tail = divmod(size, block)
    sizes = [block] * blocks + ([tail] if tail else [])
    if size < block:  # a file smaller than a record is one block of its size
        sizes = [size]
    total = 0
    for psize in sizes:
        sector = 1 << layout.ashift
        if layout.nparity:
            raw = raidz_asize(psize, layout.ashift, layout.width, layout.nparity)
            total += raw * (layout.width - layout.nparity) // layout.width
        else:
            total += -(-psize // sector) * sector
    return total * copies + 16 * KiB  # and a little metadata


def _fits(state: State, cost: int, written: int) -> bool:
    """Whether a write that allocates ``cost`` and writes ``written`` bytes stays in the
    script's budget. A dmu_tx that finds too little space with writes in flight waits for
    the txg and tries again (ERESTART in dsl_dir_tempreserve_impl(), module/zfs/dsl_dir.c);
    only a pool whose space on disk is used up refuses it (ENOSPC)."""
    return cost <= state.budget and state.written + written <= MAX_WRITTEN


def _spend(state: State, cost: int, written: int) -> None:
    state.budget -= cost
    state.written += written


def create_pool(state: State, force: bool) -> None:
    layout = state.layout
    state.emit(f"mkdir -p {state.directory}/away", "setup")
    leaves = [leaf for group in layout.groups for leaf in group]
    by_size: dict[int, list[str]] = {}
    for leaf in leaves:
        by_size.setdefault(layout.sizes[leaf], []).append(leaf)
    for size, names in by_size.items():
        mib = size // MiB
        text = f"{mib // 1024}G" if mib % 1024 == 0 else f"{mib}M"
        state.emit(f"truncate -s {text} " + " ".join(state.leaf_path(x) for x in names), "setup")
    spec = []
    for group in layout.groups:
        if layout.kind != "disk":
            spec.append(layout.kind)
        spec += [state.leaf_path(x) for x in group]
    options = f"-o ashift={layout.ashift}"
    rng = state.rng
    root = state.datasets[state.pool]
    if rng.random() < 0.3:
        compression = rng.choice(COMPRESSIONS)
        options += f" -O compression={compression}"
    if rng.random() < 0.2:
        root.local["recordsize"] = size_bytes(rng.choice(RECORDSIZES))
        options += f" -O recordsize={_size_text(root.local['recordsize'])}"
    flag = "-f " if force else ""
    state.emit(f"zpool create {flag}{options} {state.pool} " + " ".join(spec),
               f"create-{layout.kind}")


def _size_text(size: int) -> str:
    return f"{size // MiB}M" if size % MiB == 0 else f"{size // KiB}K"


# --- datasets --------------------------------------------------------------------------------

def _property_options(state: State, dataset: Dataset) -> list[str]:
    rng, options = state.rng, []
    if rng.random() < 0.5:
        dataset.local["recordsize"] = size_bytes(rng.choice(RECORDSIZES))
        options.append(f"recordsize={_size_text(dataset.local['recordsize'])}")
    if rng.random() < 0.5:
        options.append(f"compression={rng.choice(COMPRESSIONS)}")
    if rng.random() < 0.25:
        dataset.local["copies"] = rng.choice((2, 3))
        options.append(f"copies={dataset.local['copies']}")
    if rng.random() < 0.2:
        options.append(f"sync={rng.choice(SYNCS)}")
    return options


def op_create_filesystem(state: State) -> bool:
    parents = [d for d in state.filesystems() if d.name.count("/") < 2]
    parent = state.rng.choice(parents)
    name = f"{parent.name}/{state.next_name('fs')}"
    dataset = Dataset(name)
    options = "".join(f" -o {o}" for o in _property_options(state, dataset))
    state.datasets[name] = dataset
    state.emit(f"zfs create{options} {name}", "zfs-create")
    return True


def op_create_volume(state: State) -> bool:
    rng = state.rng
    volsize = rng.choice((16, 24, 32, 48, 64)) * MiB
    sparse = rng.random() < 0.5
    # refreservation: volsize and its metadata (zvol_volsize_to_reservation()), times copies
    copies = state.effective(state.datasets[state.pool], "copies")
    cost = 0 if sparse else (volsize + volsize // 8) * copies
    if not _fits(state, cost, 0):
        return False
    _spend(state, cost, 0)
    name = f"{state.pool}/{state.next_name('vol')}"
    volume = Dataset(name, kind="volume", volsize=volsize, sparse=sparse)
    options = ""
    if rng.random() < 0.6:
        volume.volblocksize = size_bytes(rng.choice(VOLBLOCKSIZES))
        options += f" -o volblocksize={_size_text(volume.volblocksize)}"
    if rng.random() < 0.3:
        options += f" -o compression={rng.choice(COMPRESSIONS)}"
    state.datasets[name] = volume
    state.emit(f"zfs create{' -s' if sparse else ''} -V {volsize // MiB}M{options} {name}",
               "zvol-create")
    state.emit("udevadm settle", "zvol-create")
    return True


def op_write_volume(state: State) -> bool:
    volumes = [d for d in state.datasets.values() if d.kind == "volume"]
    if not volumes:
        return False
    volume = state.rng.choice(volumes)
    bs = max(volume.volblocksize, 64 * KiB)
    count = state.rng.randint(1, max(1, min(volume.volsize, 16 * MiB) // bs))
    size = bs * count
    cost = charge(state, volume, size) if volume.sparse else 0
    if not _fits(state, cost, size):
        return False
    _spend(state, cost, size)
    source = state.rng.choice(("urandom", "urandom", "zero"))
    state.emit(f"dd if=/dev/{source} of=/dev/zvol/{volume.name} bs={_size_text(bs)} "
               f"count={count} oflag=direct status=none", f"zvol-write-{source}")
    return True


def op_set_property(state: State) -> bool:
    dataset = state.rng.choice(state.filesystems())
    options = _property_options(state, dataset)
    if not options:
        return False
    for option in options:
        state.emit(f"zfs set {option} {dataset.name}", "zfs-set-" + option.split("=")[0])
    return True


# --- file contents ----------------------------------------------------------------------------

def _seq_size(first: int, last: int, template_len: int = 0) -> int:
    """Bytes `seq` prints for first..last, each number and a newline (plus a template's
    own characters per line for seq -f)."""
    total, digits, low = 0, 1, 1
    while low <= last:
        high = min(last, 10 ** digits - 1)
        if high >= first:
            total += (high - max(low, first) + 1) * (digits + 1 + template_len)
        digits, low = digits + 1, 10 ** digits
    return total


def _content(state: State, path: str, size_hint: int) -> tuple[str, int, str]:
    """A command writing about ``size_hint`` bytes to ``path``: (line, bytes, feature)."""
    rng = state.rng
    kind = rng.choice(CONTENTS)
    if kind in ("urandom", "zero"):
        # at most 256 write() calls: sync=always makes each one a log commit
        bs = rng.choice([b for b in (4 * KiB, 64 * KiB, 128 * KiB, MiB, MiB)
                         if size_hint // b <= 256] or [MiB])
        count = max(1, size_hint // bs)
        return (f"dd if=/dev/{kind} of={path} bs={_size_text(bs)} count={count} status=none",
                bs * count, f"write-{kind}")
    if kind == "seq":
        last = max(10, size_hint // 7)
        return f"seq 1 {last} > {path}", _seq_size(1, last), "write-seq"
    if kind == "yes":
        word = rng.choice(WORDS)
        return f"yes {word} | head -c {size_hint} > {path}", size_hint, "write-yes"
    words = rng.sample(WORDS, rng.randint(3, 6))
    template = " ".join([*words[:2], "%g", *words[2:]])
    last = min(max(10, size_hint // (len(template) + 4)), 999_999)  # %g: 6 digits at most
    return (f"seq -f '{template}' 1 {last} > {path}",
            _seq_size(1, last, len(template) - 2), "write-words")


def _size_hint(rng: random.Random) -> int:
    return rng.choice((4 * KiB, 20 * KiB, 100 * KiB, 300 * KiB, MiB, 2 * MiB, 4 * MiB,
                       8 * MiB, 16 * MiB))


def op_write_file(state: State) -> bool:
    dataset = state.rng.choice(state.filesystems())
    name = state.next_name("f")
    path = f"{state.mountpoint(dataset.name)}/{name}"
    line, size, feature = _content(state, path, _size_hint(state.rng))
    cost = charge(state, dataset, size)
    if not _fits(state, cost, size):
        return False
    _spend(state, cost, size)
    dataset.files[name] = size
    state.emit(line, feature)
    return True


def op_rewrite_file(state: State) -> bool:
    """A whole file written again (truncated first, as dd and > do), or a part of it in
    place (dd conv=notrunc seek=...)."""
    candidates = [d for d in state.filesystems() if d.files]
    if not candidates:
        return False
    rng = state.rng
    dataset = rng.choice(candidates)
    name = rng.choice(sorted(dataset.files))
    path = f"{state.mountpoint(dataset.name)}/{name}"
    old = dataset.files[name]
    if rng.random() < 0.5 and old >= 8 * KiB:
        bs = rng.choice((4 * KiB, 16 * KiB, 128 * KiB))
        blocks = max(1, old // bs)
        seek = rng.randrange(blocks)
        count = rng.randint(1, max(1, min(blocks - seek, 2 * MiB // bs)))
        record = state.effective(dataset, "recordsize")
        cost = charge(state, dataset, count * bs, min(record, count * bs))
        cost += charge(state, dataset, 2 * record)  # the records at both ends, rewritten
        if not _fits(state, cost, count * bs):
            return False
        _spend(state, cost, count * bs)
        dataset.files[name] = max(old, (seek + count) * bs)
        source = rng.choice(("urandom", "urandom", "zero"))
        state.emit(f"dd if=/dev/{source} of={path} bs={_size_text(bs)} seek={seek} "
                   f"count={count} conv=notrunc status=none", f"rewrite-part-{source}")
        return True
    line, size, feature = _content(state, path, _size_hint(rng))
    cost = charge(state, dataset, size)
    if not _fits(state, cost, size):
        return False
    _spend(state, cost, size)
    dataset.files[name] = size
    state.emit(line, "rewrite-" + feature)
    return True


def op_delete_file(state: State) -> bool:
    candidates = [d for d in state.filesystems() if d.files]
    if not candidates:
        return False
    dataset = state.rng.choice(candidates)
    name = state.rng.choice(sorted(dataset.files))
    del dataset.files[name]
    state.emit(f"rm {state.mountpoint(dataset.name)}/{name}", "rm")
    return True


# --- snapshots, clones ------------------------------------------------------------------------

def _descendants(state: State, name: str) -> list[Dataset]:
    return [d for d in state.datasets.values() if d.name.startswith(name + "/")]


def op_snapshot(state: State) -> bool:
    dataset = state.rng.choice(state.filesystems())
    snap = state.next_name("s")
    below = _descendants(state, dataset.name)
    recursive = bool(below) and all(d.kind == "filesystem" for d in below) \
        and state.rng.random() < 0.5
    for d in [dataset, *(below if recursive else [])]:
        d.snapshots.append(snap)
        state.snapshot_files[f"{d.name}@{snap}"] = dict(d.files)
    flag = "-r " if recursive else ""
    state.emit(f"zfs snapshot {flag}{dataset.name}@{snap}", "snapshot-r" if recursive
               else "snapshot")
    return True


def op_clone(state: State) -> bool:
    snaps = [f"{d.name}@{s}" for d in state.filesystems() for s in d.snapshots]
    if not snaps:
        return False
    source = state.rng.choice(snaps)
    name = f"{state.pool}/{state.next_name('clone')}"
    clone = Dataset(name, files=dict(state.snapshot_files[source]), origin=source)
    state.datasets[name] = clone
    state.clones.setdefault(source, []).append(name)
    state.emit(f"zfs clone {source} {name}", "clone")
    return True


def op_promote(state: State) -> bool:
    """zfs promote CLONE: the origin's snapshots up to and including the clone's origin
    snapshot move to the clone (dsl_dataset_promote_sync()); the origin file system
    becomes a clone of the clone's copy of that snapshot. Snapshot names are unique in a
    script, so no name conflicts."""
    clones = [d for d in state.filesystems() if d.origin is not None
              and d.origin.split("@")[0] in state.datasets]
    if not clones:
        return False
    clone = state.rng.choice(clones)
    assert clone.origin is not None
    origin_name, snap = clone.origin.split("@")
    origin = state.datasets[origin_name]
    upto = origin.snapshots.index(snap) + 1
    moved, origin.snapshots = origin.snapshots[:upto], origin.snapshots[upto:]
    clone.snapshots = moved + clone.snapshots
    for s in moved:
        old, new = f"{origin_name}@{s}", f"{clone.name}@{s}"
        state.snapshot_files[new] = state.snapshot_files.pop(old)
        dependants = state.clones.pop(old, [])
        state.clones[new] = dependants
        for dependant in dependants:
            if dependant in state.datasets:
                state.datasets[dependant].origin = new
    # The clone takes the origin's place in the chain of origins.
    clone.origin, origin.origin = origin.origin, f"{clone.name}@{snap}"
    state.clones[f"{clone.name}@{snap}"].remove(clone.name)
    state.clones[f"{clone.name}@{snap}"].append(origin.name)
    if clone.origin is not None:
        siblings = state.clones[clone.origin]
        siblings[siblings.index(origin.name)] = clone.name
    state.emit(f"zfs promote {clone.name}", "promote")
    return True


def _has_clones(state: State, snapshot: str) -> bool:
    return any(c in state.datasets for c in state.clones.get(snapshot, []))


def op_rollback(state: State) -> bool:
    candidates = [d for d in state.filesystems() if d.snapshots]
    if not candidates:
        return False
    dataset = state.rng.choice(candidates)
    index = state.rng.randrange(len(dataset.snapshots))
    newer = dataset.snapshots[index + 1:]
    if any(_has_clones(state, f"{dataset.name}@{s}") for s in newer):
        index, newer = len(dataset.snapshots) - 1, []
    snap = dataset.snapshots[index]
    for s in newer:
        del state.snapshot_files[f"{dataset.name}@{s}"]
    dataset.snapshots = dataset.snapshots[:index + 1]
    dataset.files = dict(state.snapshot_files[f"{dataset.name}@{snap}"])
    flag = "-r " if newer else ""
    state.emit(f"zfs rollback {flag}{dataset.name}@{snap}", "rollback-r" if newer
               else "rollback")
    return True


def op_destroy_snapshot(state: State) -> bool:
    snaps = [(d, s) for d in state.filesystems() for s in d.snapshots
             if not _has_clones(state, f"{d.name}@{s}")]
    if not snaps:
        return False
    dataset, snap = state.rng.choice(snaps)
    dataset.snapshots.remove(snap)
    del state.snapshot_files[f"{dataset.name}@{snap}"]
    state.emit(f"zfs destroy {dataset.name}@{snap}", "destroy-snapshot")
    return True


def op_destroy_dataset(state: State) -> bool:
    """A file system or volume other than the pool's own, with -r when it has children or
    snapshots; never one whose snapshots (or its children's) have clones."""
    candidates = []
    for d in state.datasets.values():
        if d.name == state.pool:
            continue
        subtree = [d, *_descendants(state, d.name)]
        if any(_has_clones(state, f"{x.name}@{s}") for x in subtree for s in x.snapshots):
            continue
        candidates.append((d, subtree))
    if not candidates:
        return False
    dataset, subtree = state.rng.choice(candidates)
    recursive = len(subtree) > 1 or bool(dataset.snapshots)
    for x in subtree:
        for s in x.snapshots:
            del state.snapshot_files[f"{x.name}@{s}"]
        del state.datasets[x.name]
    flag = "-r " if recursive else ""
    state.emit(f"zfs destroy {flag}{dataset.name}", "destroy-" + dataset.kind)
    return True


# --- the pool's devices -----------------------------------------------------------------------

def _redundant(state: State) -> bool:
    return state.layout.kind != "disk"


def op_export_import(state: State) -> bool:
    """zpool export, then maybe a vdev file renamed, moved away (a redundant group's
    member: the pool imports DEGRADED) or moved back, then zpool import -d DIR."""
    rng, layout = state.rng, state.layout
    state.emit(f"zpool export {state.pool}", "export")
    feature = "import"
    if state.away is not None:
        leaf = state.away
        state.emit(f"mv {state.directory}/away/{leaf} {state.directory}/{leaf}", "import-back")
        state.away = None
        feature = "import-back"
    elif rng.random() < 0.4:
        group = rng.choice(layout.groups)
        index = rng.randrange(len(group))
        old = group[index]
        new = f"{old.removesuffix('.raw')}-{state.next_name('r')}.raw"
        layout.sizes[new] = layout.sizes.pop(old)
        group[index] = new
        state.emit(f"mv {state.leaf_path(old)} {state.leaf_path(new)}", "import-renamed")
        feature = "import-renamed"
    elif _redundant(state) and rng.random() < 0.4:
        leaf = rng.choice(rng.choice(layout.groups))
        state.emit(f"mv {state.leaf_path(leaf)} {state.directory}/away/", "import-degraded")
        state.away = leaf
        feature = "import-degraded"
    state.emit(f"zpool import -d {state.directory} {state.pool}", feature)
    if any(d.kind == "volume" for d in state.datasets.values()):
        state.emit("udevadm settle", "zvol-import")  # the /dev/zvol links come back
    if feature == "import-back":
        state.emit(f"zpool wait -t resilver {state.pool}", feature)
    if feature != "import":
        state.emit(f"zpool status {state.pool}", feature)
    return True


def op_corrupt_scrub(state: State) -> bool:
    """Part of one member of a mirror or RAID-Z group overwritten while the pool is
    exported, between the front labels and boot area (4 MiB) and the back labels; then
    import, scrub, status, clear."""
    if not _redundant(state) or state.away is not None:
        return False
    rng = state.rng
    leaf = rng.choice(rng.choice(state.layout.groups))
    size_mib = state.layout.sizes[leaf] // MiB
    seek = rng.randint(4, size_mib - 2)
    count = rng.randint(1, min(64, size_mib - 1 - seek))
    state.emit(f"zpool export {state.pool}", "corrupt")
    state.emit(f"dd if=/dev/urandom of={state.leaf_path(leaf)} bs=1M seek={seek} "
               f"count={count} conv=notrunc status=none", "corrupt")
    state.emit(f"zpool import -d {state.directory} {state.pool}", "corrupt")
    if any(d.kind == "volume" for d in state.datasets.values()):
        state.emit("udevadm settle", "zvol-import")
    state.emit(f"zpool scrub -w {state.pool}", "corrupt")
    state.emit(f"zpool status {state.pool}", "corrupt")
    state.emit(f"zpool clear {state.pool}", "corrupt")
    state.emit(f"zpool status {state.pool}", "corrupt")
    return True


def op_scrub(state: State) -> bool:
    state.emit(f"zpool scrub -w {state.pool}", "scrub")
    state.emit(f"zpool status {state.pool}", "scrub")
    return True


# --- observing --------------------------------------------------------------------------------

def observe(state: State, final: bool = False) -> None:
    pool = state.pool
    state.emit(f"zpool sync {pool}", "observe")
    state.emit(f"zpool list -p -v {pool}", "observe")
    state.emit(f"zfs list -p -r -t all -o {FS_LIST} {pool}", "observe")
    state.emit(f"zfs list -p -r -t filesystem,volume -o {FS_LOGICAL} {pool}", "observe")
    if final:
        written = [d.name for d in state.datasets.values() if d.files or d.kind == "volume"]
        if written:
            state.emit(f"zfs get -p {FS_GET} " + " ".join(sorted(written)), "observe")
        state.emit(f"zpool status {pool}", "observe")


def cleanup(state: State) -> None:
    state.emit(f"zpool destroy {state.pool}", "cleanup")
    leaves = [leaf for group in state.layout.groups for leaf in group]
    paths = [f"{state.directory}/away/{x}" if x == state.away else state.leaf_path(x)
             for x in leaves]
    state.emit("rm " + " ".join(paths), "cleanup")


OPERATIONS = (
    (op_write_file, 8), (op_rewrite_file, 4), (op_delete_file, 2), (op_create_filesystem, 3),
    (op_set_property, 2), (op_snapshot, 4), (op_clone, 2), (op_promote, 1), (op_rollback, 1),
    (op_destroy_snapshot, 1), (op_destroy_dataset, 1), (op_create_volume, 1),
    (op_write_volume, 2), (op_export_import, 2), (op_corrupt_scrub, 1), (op_scrub, 1),
)


def generate_commands(seed: int) -> list[Command]:
    """The script of ``seed`` as commands with the feature each exercises."""
    rng = random.Random(seed)
    pool = f"labg{seed:04d}"
    layout, force = _layout(rng)
    state = State(seed, rng, pool, f"{LAB_DIR}/{pool}", layout, {pool: Dataset(pool)})
    state.budget = _usable(layout) * 7 // 10
    create_pool(state, force)
    steps = rng.randint(6, 16)
    done = 0
    functions, weights = zip(*OPERATIONS, strict=True)
    while done < steps:
        operation = rng.choices(functions, weights)[0]
        if operation(state):
            done += 1
            if rng.random() < 0.2:
                observe(state)
    observe(state, final=True)
    cleanup(state)
    return state.commands


def features(commands: list[Command]) -> list[str]:
    return sorted({c.feature for c in commands})


def generate(seed: int) -> str:
    """The lab script of ``seed``: a header of comments, then one command a line."""
    commands = generate_commands(seed)
    set_name = ("tuning" if seed in TUNING_SEEDS else "held-out" if seed in HELD_OUT_SEEDS
                else "other")
    header = [f"# Generated lab script, seed {seed} ({set_name} set): "
              "python tools/difftest/generate.py --seed " + str(seed),
              "# features: " + " ".join(features(commands))]
    return "\n".join([*header, *(c.line for c in commands)]) + "\n"


def parse_seeds(text: str) -> list[int]:
    """"0-199,5000-5199,7" -> the seeds, in order, without repeats. "tuning", "held-out"
    and "all" name the sets."""
    named = {"tuning": list(TUNING_SEEDS), "held-out": list(HELD_OUT_SEEDS),
             "all": [*TUNING_SEEDS, *HELD_OUT_SEEDS]}
    seeds: list[int] = []
    for part in filter(None, text.split(",")):
        if part in named:
            seeds += named[part]
        elif "-" in part:
            low, high = (int(x) for x in part.split("-", 1))
            seeds += range(low, high + 1)
        else:
            seeds.append(int(part))
    return list(dict.fromkeys(seeds))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/difftest/generate.py",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, help="print the script of this seed")
    parser.add_argument("--batch", type=Path, help="write DIR/seed-NNNN.sh for --seeds")
    parser.add_argument("--seeds", default="all",
                        help="A-B,C,... or tuning, held-out, all (default: all)")
    args = parser.parse_args(argv)
    if args.seed is not None:
        sys.stdout.write(generate(args.seed))
        return 0
    if args.batch is None:
        parser.error("give --seed N or --batch DIR")
    args.batch.mkdir(parents=True, exist_ok=True)
    for seed in parse_seeds(args.seeds):
        (args.batch / f"seed-{seed:04d}.sh").write_text(generate(seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
