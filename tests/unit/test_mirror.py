"""Mirrors: vdev_mirror_open() (module/zfs/vdev_mirror.c) sizes a mirror by its smallest
child; a block is written to every child but accounted once on the top-level vdev."""

from labsim.zfs.labels import leaf_asize
from labsim.zfs.lifecycle import create_pool
from labsim.zfs.metaslab import metaslab_shift
from labsim.zfs.space import dataset_available
from labsim.zfs.vdevs import mirror, single
from labsim.zfs.versions import ZFS_2_1, GiB, KiB, MiB
from labsim.zfs.write_path import write_file


def test_mirror_of_1g_and_512m_is_as_big_as_the_512m_file():
    pool = create_pool("t", [mirror(("/a", 1 * GiB), ("/b", 512 * MiB))], ZFS_2_1, 12)
    (vdev,) = pool.vdevs
    asize = leaf_asize(512 * MiB)  # 532152320
    shift = metaslab_shift(asize, ZFS_2_1)
    assert shift == 25  # 32 MiB metaslabs: 15 of them
    assert pool.space == (asize >> shift) << shift == 15 * 32 * MiB
    assert vdev.name == "mirror-0"
    assert [leaf.path for leaf in vdev.leaves] == ["/a", "/b"]
    assert pool.dspace == pool.space  # no parity to deflate


def test_mirror_writes_cost_one_copy():
    pool = create_pool("t", [mirror(("/a", 1 * GiB), ("/b", 1 * GiB))], ZFS_2_1, 12)
    plain = create_pool("p", [("/c", 1 * GiB)], ZFS_2_1, 12)
    for p in (pool, plain):
        write_file(p, p.root, "f", 32 * MiB, "random")
    assert pool.alloc == plain.alloc
    assert dataset_available(pool, pool.root) == dataset_available(plain, plain.root)


def test_two_mirrors_share_writes():
    pool = create_pool("t", [mirror(("/a", 1 * GiB), ("/b", 1 * GiB)),
                             mirror(("/c", 1 * GiB), ("/d", 1 * GiB))], ZFS_2_1, 12)
    assert [v.name for v in pool.vdevs] == ["mirror-0", "mirror-1"]
    write_file(pool, pool.root, "f", 64 * MiB, "random")
    first, second = (v.alloc for v in pool.vdevs)
    assert abs(first - second) <= 1 * MiB


def test_single_device_spec_is_the_plain_vdev():
    a = create_pool("t", [single("/a", 1 * GiB)], ZFS_2_1, 9)
    b = create_pool("t", [("/a", 1 * GiB)], ZFS_2_1, 9)
    # The new pool's blocks at ashift 9 (versions.py, 2.1.11's MOS as zdb lists it): 81K of
    # MOS with its three copies, the root objset's 24K with two, 24 deferred 1K blocks.
    assert a.space == b.space and a.alloc == b.alloc == (81 + 24 + 24) * KiB
    assert a.vdevs[0].name == "/a"


def test_aliquot_scaling_by_release():
    # metaslab.c: mg_aliquot = metaslab_aliquot * MAX(1, n); n = children up to 2.0,
    # data disks (vdev_get_ndisks - vdev_get_nparity) since 2.1.
    from labsim.zfs.vdevs import raidz
    from labsim.zfs.versions import ZFS_0_6_5, AliquotScaling

    pool = create_pool("t", [mirror(("/a", 1 * GiB), ("/b", 1 * GiB)),
                             raidz(1, ("/c", 1 * GiB), ("/d", 1 * GiB), ("/e", 1 * GiB)),
                             ("/f", 1 * GiB)], ZFS_2_1, 12)
    assert [v.aliquot_disks(AliquotScaling.DATA_DISKS) for v in pool.vdevs] == [1, 2, 1]
    assert [v.aliquot_disks(AliquotScaling.CHILDREN) for v in pool.vdevs] == [2, 3, 1]
    assert ZFS_2_1.aliquot_scaling is AliquotScaling.DATA_DISKS
    assert ZFS_0_6_5.aliquot_scaling is AliquotScaling.CHILDREN
