"""The pool's history (`zpool history`): a MOS object the pool appends a record to for
every command that changes it, and whose block grows with them.

spa_history_log_sync() (module/zfs/spa_history.c, 2.1.11 and 2.3.9) packs each record, an
nvlist, with nvlist_pack(NV_ENCODE_NATIVE) and appends its length (a little-endian uint64)
and the packed bytes to the history object, DMU_OT_SPA_HISTORY, created with 128K blocks
(SPA_OLD_MAXBLOCKSIZE, spa_history_create_obj()). While the log is shorter than 128K it is
one block of 128K whose tail is zeros; like all MOS blocks it is LZ4-compressed, rounded
up to the sector and written three times. So each record makes the block's physical size
creep up: `zdb -dd` shows the 2.3.9 history at 2K a copy (ashift 9) after `zpool create`,
2.5K after a `zfs create` and 3K after an export and import
(tests/fixtures/real/2.3.9/probes/lab15-mos-commands.txt, lab15-mos-growth.txt), and at
ashift 12 a new 4K sector a copy once the compressed log passes 4K.

Records (include/sys/fs/zfs.h ZPOOL_HIST_*):
* a command line (spa_history_log(), from zpool_log_history() in cmd/zpool and cmd/zfs
  after a command that made a logging ioctl): history command, who, time, hostname;
* an internal event (spa_history_log_internal[_ds](), log_internal()): for a dataset its
  name and id, then the message, the operation, txg, time, hostname;
* a new-style ioctl (zfsdev_ioctl_common() in module/zfs/zfs_ioctl.c, for those
  registered with allow_log): its name, its input nvlist, elapsed_ns, who, time,
  hostname.

The bytes labsim writes are these records with the names the real ones have; times,
txgs, ids and the kernel's uname are plausible values, so the compressed size matches the
real one to within some bytes, not exactly.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from functools import lru_cache

from labsim.zfs.lz4_zfs import lz4_block_size

HISTORY_BLOCK = 128 * 1024  # SPA_OLD_MAXBLOCKSIZE: the history object's block size
ZFS_LZ4_HEADER = 4  # zfs_lz4_compress() puts the compressed length in front

# data_type_t (include/sys/nvpair.h)
_BOOLEAN, _INT32, _INT64, _UINT64, _STRING, _NVLIST = 1, 5, 7, 8, 9, 19
_NVLIST_T = 24  # sizeof (nvlist_t) on a 64-bit kernel: an embedded list's value
_NV_UNIQUE_NAME = 1

# The clock of the recording VMs, about; labsim's session time counts from 0.
EPOCH = 1_764_100_000


def _align8(n: int) -> int:
    return (n + 7) & ~7


def _pair(name: str, value: object) -> tuple[bytes, bytes]:
    """One nvpair as nvs_native_nvp_op() copies it (the nvpair_t header, the name padded
    to 8, the value padded to 8), and the pairs of an embedded list that follow it."""
    encoded = name.encode() + b"\0"
    after = b""
    if isinstance(value, bool):
        kind, nelem, data = _BOOLEAN, 0, b""
    elif isinstance(value, tuple):  # ("int32" | "int64", n)
        kind = _INT32 if value[0] == "int32" else _INT64
        nelem, data = 1, struct.pack("<i" if kind == _INT32 else "<q", value[1])
    elif isinstance(value, int):
        kind, nelem, data = _UINT64, 1, struct.pack("<Q", value)
    elif isinstance(value, str):
        kind, nelem, data = _STRING, 1, value.encode() + b"\0"
    else:  # an nvlist: nvpair_native_embedded() writes its nvlist_t, priv zeroed
        kind, nelem = _NVLIST, 1
        data = struct.pack("<iI", 0, _NV_UNIQUE_NAME) + bytes(_NVLIST_T - 8)
        after = _pairs(value)  # type: ignore[arg-type]
    head = _align8(16 + len(encoded))
    size = head + _align8(len(data))
    out = (struct.pack("<ihhii", size, len(encoded), 0, nelem, kind)
           + encoded.ljust(head - 16, b"\0") + data.ljust(_align8(len(data)), b"\0"))
    return out, after


def _pairs(nvl: dict[str, object]) -> bytes:
    """The list's pairs in the order they were added, each followed by what an embedded
    list holds, and the four zero bytes that end a list (nvs_native_nvl_fini())."""
    out = []
    for name, value in nvl.items():
        pair, after = _pair(name, value)
        out += [pair, after]
    return b"".join(out) + bytes(4)


def pack(nvl: dict[str, object]) -> bytes:
    """nvlist_pack(NV_ENCODE_NATIVE) on a little-endian machine: the 4-byte stream header
    (encoding 0, endian 1), the list's version and flags, then its pairs."""
    return bytes((0, 1, 0, 0)) + struct.pack("<iI", 0, _NV_UNIQUE_NAME) + _pairs(nvl)


@dataclass
class History:
    """The pool's history log: the records' packed bytes, each after its length."""

    log: bytearray = field(default_factory=bytearray)

    def append(self, record: dict[str, object]) -> None:
        packed = pack(record)
        self.log += struct.pack("<Q", len(packed)) + packed

    def block_psize(self, ashift: int) -> int:
        """The physical size of the history's block: its 128K, the log then zeros,
        LZ4-compressed and rounded up to the sector (stored as it is if that saves
        nothing). The log is kept to its first block (a pool's history passes 128K only
        after thousands of commands, and then wraps inside sh_phys_max_off)."""
        return _block_psize(bytes(self.log[:HISTORY_BLOCK]), ashift)


@lru_cache(maxsize=256)
def _block_psize(log: bytes, ashift: int) -> int:
    """History.block_psize() of a log, kept: a widget's re-run logs the same commands again,
    and LZ4 over 128K is slow in pure Python (the page's worker has it in JavaScript)."""
    data = log.ljust(HISTORY_BLOCK, b"\0")
    compressed = lz4_block_size(data, HISTORY_BLOCK - HISTORY_BLOCK // 8)
    sector = 1 << ashift
    if not compressed:
        return HISTORY_BLOCK
    return -(-(compressed + ZFS_LZ4_HEADER) // sector) * sector


def command_record(line: str, time: int, host: str) -> dict[str, object]:
    """spa_history_log() of a command line (spa_history_log_nvl() adds who and time,
    spa_history_log_sync() the hostname)."""
    return {"history command": line, "history who": 0, "history time": time,
            "history hostname": host}


def internal_record(operation: str, message: str, txg: int, time: int, host: str,
                    dsname: str | None = None, dsid: int = 0) -> dict[str, object]:
    """log_internal(): spa_history_log_internal_ds() names the dataset first."""
    record: dict[str, object] = {}
    if dsname is not None:
        record |= {"dsname": dsname, "dsid": dsid}
    return record | {"history internal str": message, "internal_name": operation,
                     "history txg": txg, "history time": time, "history hostname": host}


def ioctl_record(name: str, innvl: dict[str, object], time: int,
                 host: str) -> dict[str, object]:
    """zfsdev_ioctl_common()'s record of a logging new-style ioctl."""
    record: dict[str, object] = {"ioctl": name}
    if innvl:
        record["in_nvl"] = innvl
    return record | {"elapsed_ns": ("int64", 1_234_567), "history who": 0,
                     "history time": time, "history hostname": host}


def version_message(version_release: str, package_release: str, host: str,
                    kernel: str) -> str:
    """spa_history_log_version()'s message (module/zfs/spa_history.c): the pool's and the
    software's version and uname."""
    return (f"pool version 5000; software version zfs-{version_release}-{package_release}; "
            f"uts {host} {kernel} #1 SMP PREEMPT_DYNAMIC Debian x86_64")


# spa_feature_t's order (include/zfeature_common.h), in which zpool_do_create()
# (cmd/zpool/zpool_main.c) adds "feature@NAME=enabled" for every feature to the new
# pool's properties; spa_create() then runs spa_sync_props(), which logs each as a "set"
# event (module/zfs/spa.c). 34 features in 2.1.11, 39 in zfs-2.2.x, 44 in 2.3.9.
FEATURES_2_1 = (
    "async_destroy", "empty_bpobj", "lz4_compress", "multi_vdev_crash_dump",
    "spacemap_histogram", "enabled_txg", "hole_birth", "extensible_dataset",
    "embedded_data", "bookmarks", "filesystem_limits", "large_blocks", "large_dnode",
    "sha512", "skein", "edonr", "userobj_accounting", "encryption", "project_quota",
    "device_removal", "obsolete_counts", "zpool_checkpoint", "spacemap_v2",
    "allocation_classes", "resilver_defer", "bookmark_v2", "redaction_bookmarks",
    "redacted_datasets", "bookmark_written", "log_spacemap", "livelist", "device_rebuild",
    "zstd_compress", "draid")
FEATURES_2_2 = (*FEATURES_2_1, "zilsaxattr", "head_errlog", "blake3", "block_cloning",
                "vdev_zaps_v2")
FEATURES_2_3 = (*FEATURES_2_2, "redaction_list_spill", "raidz_expansion", "fast_dedup",
                "longname", "large_microzap")


def features_of(release_name: str) -> tuple[str, ...]:
    """The features a new pool of labsim's release ``release_name`` ("2.1", "2.2", "2.3")
    has enabled; none for the older releases labsim models without a pool history."""
    return {"2.1": FEATURES_2_1, "2.2": FEATURES_2_2, "2.3": FEATURES_2_3}.get(release_name, ())
