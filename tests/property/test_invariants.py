"""Invariants of the pool model, for any vdev sizes and any sequence of writes/deletes."""

import contextlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from labsim.scenarios import pools_vdevs
from labsim.scenarios.base import description, simulate
from labsim.zfs.errors import NoSpace
from labsim.zfs.lifecycle import create_pool
from labsim.zfs.versions import VERSIONS, GiB, KiB, MiB
from labsim.zfs.write_path import remove_file, write_file

vdev_sizes = st.lists(st.integers(min_value=64, max_value=4096), min_size=1, max_size=4)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("write"), st.integers(min_value=0, max_value=3000),
                  st.sampled_from(["zero", "random"])),
        st.tuples(st.just("delete"), st.integers(min_value=0, max_value=50), st.just("")),
    ),
    max_size=25,
)


def build(sizes_mib, ashift, version_name):
    devices = [(f"/v{i}", size * MiB) for i, size in enumerate(sizes_mib)]
    return create_pool("tank", devices, VERSIONS[version_name], ashift)


@settings(max_examples=60, deadline=None)
@given(vdev_sizes, st.sampled_from([9, 12, 13]), st.sampled_from(sorted(VERSIONS)), operations)
def test_alloc_never_exceeds_size_and_bytes_are_conserved(sizes, ashift, version, ops):
    pool = build(sizes, ashift, version)
    base = pool.alloc - sum(e.length for _, e in pool.deferred) - _mos(pool)
    ds = pool.root
    for n, (op, amount, content) in enumerate(ops):
        if op == "write":
            with contextlib.suppress(NoSpace):
                write_file(pool, ds, f"f{n}", amount * MiB, content)
        elif ds.files:
            names = sorted(ds.files)
            remove_file(pool, ds, names[amount % len(names)])
        for vdev in pool.vdevs:
            assert 0 <= vdev.alloc <= vdev.space
            assert sum(m.free for m in vdev.metaslabs) == vdev.free
        # every allocated byte belongs to a file, to the pool's own metadata (the MOS,
        # space maps included), to what the root's objset holds beyond a new pool's (its
        # files' dnodes and directory), or to a block freed so recently that it is still
        # deferred
        assert pool.alloc == (base + _mos(pool) + sum(f.allocated for f in ds.files.values())
                              + sum(e.length for e in ds.objset_extents)
                              + sum(e.length for _, e in pool.deferred))
    for name in list(ds.files):
        remove_file(pool, ds, name)
    # and with the files gone, the objset is a new pool's again
    assert not ds.objset_extents
    assert pool.alloc == base + _mos(pool) + sum(e.length for _, e in pool.deferred)


def _mos(pool) -> int:
    """The pool's own blocks: the MOS's (space maps among them) and those the last txg
    that changed a dataset rewrote (labsim.zfs.metadata_rewrite)."""
    return sum(e.length for e in [*pool.metadata, *pool.rewritten_metadata])


# dsl_dir_tempreserve_impl() refuses a write only once what is on disk reached the quota
# (the pool less the slop); the last txg before that may pass the quota by what it holds:
# its records' worst case (24 times) had to stay under the quota's 33/32, so at most 1/24
# of the quota's 1/32 of data, times its copies, plus a record of each copy, plus the
# metadata that txg rewrites (labsim.zfs.metadata_rewrite: under 128K at any ashift).
def last_txg_overshoot(pool, copies: int = 1, record: int = 128 * KiB) -> int:
    quota = pool.dspace - pool.slop_space
    return copies * ((quota >> 5) // 24 + record) + 128 * KiB


@settings(max_examples=30, deadline=None)
@given(vdev_sizes, st.integers(min_value=1, max_value=8000))
def test_ordinary_writes_never_eat_into_slop_space(sizes, mib):
    pool = build(sizes, 12, "2.1")
    with contextlib.suppress(NoSpace):
        write_file(pool, pool.root, "big", mib * MiB, "random")
    assert pool.free >= pool.slop_space - last_txg_overshoot(pool)


def test_same_parameters_same_result():
    params = {"vdev1_gib": 6, "vdev2_gib": 3, "delete_every_other": True, "add_vdev_gib": 4}
    assert simulate(pools_vdevs.SCENARIO, params) == simulate(pools_vdevs.SCENARIO, dict(params))


def test_random_data_with_lz4_allocates_like_compression_off():
    sizes = [1024, 1024]
    a, b = build(sizes, 12, "2.1"), build(sizes, 12, "2.1")
    b.root.properties["compression"] = "lz4"
    write_file(a, a.root, "f", 300 * MiB, "random")
    write_file(b, b.root, "f", 300 * MiB, "random")
    assert a.alloc == b.alloc


def test_zeros_with_compression_become_holes():
    pool = build([1024], 12, "2.1")
    before = pool.alloc
    pool.root.properties["compression"] = "lz4"
    write_file(pool, pool.root, "zeros", 1 * GiB // 4, "zero")
    assert pool.alloc == before


def _control_values(control):
    if control["kind"] == "checkbox":
        return st.booleans()
    if control["kind"] == "select":
        return st.sampled_from(control["options"])
    return st.integers(min_value=int(control["min"]), max_value=int(control["max"]))


@settings(max_examples=25, deadline=None)
@given(st.fixed_dictionaries({c["name"]: _control_values(c)
                              for c in description(pools_vdevs.SCENARIO)["controls"]}))
def test_lesson1_scenario_runs_for_any_control_values(params):
    result = simulate(pools_vdevs.SCENARIO, params)
    text = json.dumps(result, allow_nan=False)  # the page needs strict JSON
    assert result["figure"]["data"] and result["summary"] and result["transcript"]
    assert "Traceback" not in text
