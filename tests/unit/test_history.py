"""The pool history's block in the MOS (labsim.zfs.history): its size after `zpool create`
and its growth with the commands logged, against what `zdb -dd` showed on real OpenZFS
(tests/fixtures/real/*/probes/lab15-mos-*.txt: the SPA history object's dsize, three
copies)."""

import struct

import pytest

from labsim.shell.session import Session
from labsim.zfs import history
from labsim.zfs.versions import get_version

CREATE = "zpool create -o ashift={ashift} lab15c /var/tmp/labs/lab15c-a.raw"


def session_with_pool(release: str, ashift: int = 9) -> Session:
    session = Session(version=get_version(release))
    for line in ("mkdir -p /var/tmp/labs", "truncate -s 256M /var/tmp/labs/lab15c-a.raw",
                 CREATE.format(ashift=ashift)):
        assert session.run(line).status == 0
    return session


@pytest.mark.parametrize("release", ["2.1", "2.3"])
def test_a_new_pools_history_is_two_kib_a_copy(release):
    # zdb -dd after zpool create: "SPA history ... 6K" (three copies) on 2.1.11 and 2.3.9
    pool = session_with_pool(release).pools["lab15c"]
    assert pool.history.block_psize(9) == 2048
    assert pool.history_psize == 2048


def test_zfs_create_grows_the_2_3_history_by_a_sector_a_copy():
    # 2.3.9 (lab15-mos-commands): 6K -> 7.5K after `zfs create lab15c/fs`
    session = session_with_pool("2.3")
    pool = session.pools["lab15c"]
    before = pool.mos_physical
    assert session.run("zfs create lab15c/fs").status == 0
    assert pool.history_psize == 2560
    assert pool.mos_physical - before >= 512


def test_reading_commands_log_nothing():
    session = session_with_pool("2.3")
    pool = session.pools["lab15c"]
    logged = len(pool.history.log)
    for line in ("zpool list lab15c", "zfs list", "zpool status lab15c", "zpool sync lab15c",
                 "zfs get compression lab15c"):
        session.run(line)
    assert len(pool.history.log) == logged


def test_a_record_is_its_length_then_a_native_nvlist():
    log = history.History()
    log.append(history.command_record("zfs create p/fs", 0, "lab"))
    length = struct.unpack("<Q", log.log[:8])[0]
    packed = bytes(log.log[8:])
    assert length == len(packed)
    assert packed[:4] == bytes((0, 1, 0, 0))  # NV_ENCODE_NATIVE, little-endian
    assert b"history command\0" in packed and b"zfs create p/fs\0" in packed
    assert packed.endswith(bytes(4))  # the list's end


@pytest.mark.parametrize(("release", "count", "newest"), [
    ("2.1", 34, "draid"), ("2.2", 39, "vdev_zaps_v2"), ("2.3", 44, "large_microzap")])
def test_a_new_pool_logs_the_features_its_release_has(release, count, newest):
    # spa_feature_t in include/zfeature_common.h of zfs-2.1.11, zfs-2.2.7 and zfs-2.3.9:
    # 2.2 has no raidz_expansion or fast_dedup, which zpool create would otherwise log.
    features = history.features_of(release)
    assert len(features) == len(set(features)) == count
    assert features[-1] == newest
