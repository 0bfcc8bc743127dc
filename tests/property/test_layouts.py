"""Invariants of RAID-Z and mirror arithmetic (vdev_raidz_asize(), vdev_mirror_open(),
vdev_set_deflate_ratio()) and of pools built from them."""

import contextlib

from hypothesis import given, settings
from hypothesis import strategies as st

from labsim.zfs.errors import NoSpace
from labsim.zfs.labels import leaf_asize
from labsim.zfs.layouts import Layout, deflate_ratio, raidz_asize, top_level_asize
from labsim.zfs.lifecycle import create_pool
from labsim.zfs.space import dataset_available
from labsim.zfs.vdevs import mirror, raidz
from labsim.zfs.versions import ZFS_2_1, KiB, MiB
from labsim.zfs.write_path import remove_file, write_file

parity = st.integers(min_value=1, max_value=3)
ashifts = st.sampled_from([9, 12, 13])


@st.composite
def raidz_shapes(draw):
    nparity = draw(parity)
    cols = draw(st.integers(min_value=nparity + 1, max_value=16))
    return cols, nparity


@given(st.integers(min_value=1, max_value=16 << 20), ashifts, raidz_shapes())
def test_raidz_asize_bounds(psize, ashift, shape):
    cols, nparity = shape
    asize = raidz_asize(psize, ashift, cols, nparity)
    sector = 1 << ashift
    sectors = asize >> ashift
    data = -(-psize // sector)
    assert asize % sector == 0
    assert sectors % (nparity + 1) == 0  # no gap smaller than the smallest block
    # At least the data plus its share of parity, and never more than one extra row of
    # parity plus the padding.
    assert sectors * (cols - nparity) >= data * cols
    assert sectors <= data + nparity * (data // (cols - nparity) + 1) + nparity
    assert asize >= psize


@given(ashifts, raidz_shapes())
def test_deflate_ratio_never_exceeds_the_data_fraction(ashift, shape):
    cols, nparity = shape
    ratio = deflate_ratio(Layout("raidz", cols, nparity), ashift)
    # Deflated space is at most the data disks' share of the raw space.
    assert 0 < ratio <= 512 * (cols - nparity) // cols


sizes = st.lists(st.integers(min_value=64, max_value=2048), min_size=2, max_size=6)


@given(sizes)
def test_group_sizes_follow_the_smallest_child(sizes_mib):
    sizes_b = [s * MiB for s in sizes_mib]
    smallest = min(leaf_asize(s) for s in sizes_b)
    assert top_level_asize(Layout("mirror", len(sizes_b)), sizes_b) == smallest
    assert top_level_asize(Layout("raidz", len(sizes_b), 1), sizes_b) == smallest * len(sizes_b)


operations = st.lists(
    st.one_of(st.tuples(st.just("write"), st.integers(min_value=0, max_value=1500)),
              st.tuples(st.just("delete"), st.integers(min_value=0, max_value=30))),
    max_size=15,
)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=2, max_value=6), parity, st.sampled_from(["mirror", "raidz"]),
       st.integers(min_value=64, max_value=1024), ashifts, operations)
def test_layout_pools_keep_their_books(width, nparity, kind, size_mib, ashift, ops):
    devices = [(f"/v{i}", size_mib * MiB) for i in range(max(width, nparity + 1))]
    spec = mirror(*devices) if kind == "mirror" else raidz(nparity, *devices)
    pool = create_pool("tank", [spec], ZFS_2_1, ashift)
    ds = pool.root
    for n, (op, amount) in enumerate(ops):
        if op == "write":
            with contextlib.suppress(NoSpace):
                write_file(pool, ds, f"f{n}", amount * MiB, "random")
        elif ds.files:
            remove_file(pool, ds, sorted(ds.files)[amount % len(ds.files)])
        for vdev in pool.vdevs:
            assert 0 <= vdev.alloc <= vdev.space
        assert pool.dalloc <= pool.dspace
        # Ordinary writes stop at the slop line, counted in deflated space, give or take
        # the last txg: dsl_dir_tempreserve_impl() refuses a write once what is on disk
        # reached the quota, and the txg before may pass it by 1/24 of the quota's 1/32
        # (24 times its data had to stay under 33/32 of the quota), a record and the
        # metadata the txg rewrites (under 128K at any ashift). The line is about what the
        # DSL counts: ALLOC also holds the blocks freed in the last TXG_DEFER_SIZE txgs
        # until they come back (metaslab_sync_done()), which pool.dsl_used leaves out.
        assert dataset_available(pool, ds) >= 0
        quota = pool.dspace - pool.slop_space
        overshoot = (quota >> 5) // 24 + 2 * 128 * KiB
        assert pool.dspace - pool.dsl_used >= pool.slop_space - overshoot
