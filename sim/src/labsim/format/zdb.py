"""``zdb -m`` and ``zdb -mm`` output, as cmd/zdb/zdb.c prints it in OpenZFS 2.1.

dump_metaslabs() prints "Metaslabs:" and, per top-level vdev, print_vdev_metaslab_header()
and dump_metaslab() for each metaslab; dump_zpool() then adds dump_log_spacemaps() and
dump_log_spacemap_obsolete_stats() (pools with the log_spacemap feature, every 2.x pool).

Rules worth knowing:

* The free column is ``ms_size - space_map_allocated(ms_sm)``: what the metaslab's own
  space map says, so changes still kept in the log space maps are not in it.
* It goes through zdb_nicenum(), zfs_nicenum() without a unit: an exact multiple of the
  unit prints without decimals ("64M", a metaslab with nothing allocated), anything else
  with the most decimals that fit in 5 characters ("64.0M" for 64 MiB less 40 KiB,
  "63.9M", "33.3M"; lib/libzutil/zutil_nicenum.c).
* With -mm, metaslabs that have a space map add "On-disk histogram:" with their
  fragmentation and dump_histogram() of smp_histogram: the buckets from the lowest to the
  highest non-empty one, each numbered bucket + sm_shift (log2 of the segment size),
  with a bar of up to 40 stars scaled to the largest count (at least 40).
* Every metaslab ends with "Flush data:" and its unflushed txg, 0 if it never had a
  space map.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from labsim.format.numbers import nicenum

HISTO_STARS = "*" * 40  # histo_stars[] in zdb.c
HISTO_WIDTH = len(HISTO_STARS)


@dataclass(frozen=True)
class ZdbMetaslab:
    id: int
    start: int
    size: int
    sm_object: int  # 0: no space map
    sm_alloc: int  # smp_alloc
    sm_length: int  # smp_length, bytes of space map entries
    unflushed_txg: int
    fragmentation: int = 0
    histogram: tuple[int, ...] = ()  # smp_histogram
    sm_shift: int = 9


@dataclass(frozen=True)
class ZdbVdev:
    id: int
    unflushed_phys_object: int  # 0: no ms_unflushed_phys object (no log space maps)
    metaslabs: Sequence[ZdbMetaslab]
    ms_shift: int = 0  # vdev_ms_shift


@dataclass(frozen=True)
class ZdbLogSpaceMap:
    object: int
    txg: int
    length: int
    alloc: int  # smp_alloc: may be negative (more freed than allocated in that txg)
    valid_entries: int
    entries: int


@dataclass(frozen=True)
class ZdbPool:
    vdevs: Sequence[ZdbVdev]
    log_space_maps: Sequence[ZdbLogSpaceMap] = field(default_factory=tuple)
    # Whether the vdev lines name the metaslab shift (zdb of 2.3.6 and later).
    prints_ms_shift: bool = False


def histogram_lines(histogram: Sequence[int], offset: int) -> str:
    """dump_histogram(): buckets minidx..maxidx; "%3u: %6llu %s" after three tabs."""
    nonzero = [i for i, count in enumerate(histogram) if count]
    if not nonzero:
        # minidx = size - 1 and maxidx = 0: the loop prints nothing.
        return ""
    top = max(max(histogram), HISTO_WIDTH)
    lines = []
    for i in range(nonzero[0], nonzero[-1] + 1):
        stars = HISTO_STARS[(top - histogram[i]) * HISTO_WIDTH // top:]
        lines.append(f"\t\t\t{i + offset:3d}: {histogram[i]:6d} {stars}\n")
    return "".join(lines)


def space_map_lines(sm_object: int, length: int, alloc: int) -> str:
    """dump_spacemap() below -mmmm: the object, smp_length and smp_alloc (printed with
    %llx from a signed value, so a negative smp_alloc shows as its 64-bit two's
    complement)."""
    return (f"space map object {sm_object}:\n"
            f"  smp_length = 0x{length & ((1 << 64) - 1):x}\n"
            f"  smp_alloc = 0x{alloc & ((1 << 64) - 1):x}\n")


def metaslab_lines(ms: ZdbMetaslab, histograms: bool) -> str:
    """dump_metaslab()."""
    free = nicenum(ms.size - ms.sm_alloc)
    text = (f"\tmetaslab {ms.id:6d}   offset {ms.start:12x}   "
            f"spacemap {ms.sm_object:6d}   free {free:>8s}\n")
    if histograms and ms.sm_object:
        text += f"\tOn-disk histogram:\t\tfragmentation {ms.fragmentation}\n"
        text += histogram_lines(ms.histogram, ms.sm_shift)
    if ms.sm_object:
        text += space_map_lines(ms.sm_object, ms.sm_length, ms.sm_alloc)
    text += f"\tFlush data:\n\tunflushed txg={ms.unflushed_txg}\n\n"
    return text


def vdev_header(vdev: ZdbVdev, prints_ms_shift: bool = False) -> str:
    """print_vdev_metaslab_header() for a normal-class vdev (no bias string), as zdb of
    2.3.6 and later prints it with ``prints_ms_shift``, as earlier releases do without."""
    if prints_ms_shift:
        text = f"\tvdev {vdev.id:10d}\t  metaslab shift {vdev.ms_shift:4d}"
    else:
        text = f"\tvdev {vdev.id:10d}   "
    if vdev.unflushed_phys_object:
        text += f"   ms_unflushed_phys object {vdev.unflushed_phys_object}"
    text += (f"\n\t{'metaslabs':<10s}{len(vdev.metaslabs):5d}   {'offset':<19s}   "
             f"{'spacemap':<15s}   {'free':<12s}\n")
    text += f"\t{'-' * 15:>15s}   {'-' * 19:>19s}   {'-' * 15:>15s}   {'-' * 12:>12s}\n"
    return text


def format_zdb_metaslabs(pool: ZdbPool, level: int = 1) -> str:
    """What ``zdb -m`` (level 1) or ``zdb -mm`` (level 2) prints for a pool."""
    text = "\nMetaslabs:\n"
    for vdev in pool.vdevs:
        text += vdev_header(vdev, pool.prints_ms_shift)
        text += "".join(metaslab_lines(ms, level > 1) for ms in vdev.metaslabs)
        text += "\n"
    text += "\nLog Space Maps in Pool:\n"
    for sm in pool.log_space_maps:
        text += f"Log Spacemap object {sm.object} txg {sm.txg}\n"
        text += space_map_lines(sm.object, sm.length, sm.alloc)
    text += "\nLog Space Map Obsolete Entry Statistics:\n"
    for sm in pool.log_space_maps:
        text += f"{sm.valid_entries:<8d} valid entries out of {sm.entries:<8d} - txg {sm.txg}\n"
    valid = sum(sm.valid_entries for sm in pool.log_space_maps)
    total = sum(sm.entries for sm in pool.log_space_maps)
    text += f"{valid:<8d} valid entries out of {total:<8d} - total\n\n"
    return text


def cannot_open(target: str, reason: str = "No such file or directory") -> str:
    """zdb's main(): "zdb: can't open '%s': %s" with strerror() of the error."""
    return f"zdb: can't open '{target}': {reason}"
