"""A vdev's size over its life (labsim.zfs.vdev_size): what each open finds, EXPANDSZ, and
the growth that `zpool online -e` and autoexpand allow, as vdev_open() and vdev_online()
(module/zfs/vdev.c) and tools/probes/model/lab15-expandsize.sh on 2.1.11 and 2.3.9 show."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsim import Session
from labsim.zfs import vdev_size
from labsim.zfs.labels import leaf_asize
from labsim.zfs.versions import get_version

MiB = 1 << 20
D = "/var/tmp/labs/vs"


def _run(session: Session, *lines: str) -> None:
    for line in lines:
        result = session.run(line)
        assert result.status == 0, (line, result.stderr)


def _mirror(version: str = "2.3", small: int = 192, large: int = 256,
            options: str = "") -> Session:
    session = Session(version=get_version(version))
    _run(session, f"mkdir -p {D}/away", f"truncate -s {small}M {D}/m1",
         f"truncate -s {large}M {D}/m2",
         f"zpool create -f {options} p mirror {D}/m1 {D}/m2".replace("  ", " "))
    return session


def test_a_new_vdevs_room_to_grow_is_none() -> None:
    session = _mirror()
    vdev = session.pools["p"].vdevs[0]
    assert vdev.asize == vdev.max_asize == leaf_asize(192 * MiB)
    assert vdev_size.esize(vdev) == 0
    # the larger side's asize is its own (its first open), so it has no room either
    assert [vdev_size.esize(vdev, leaf) for leaf in vdev.leaves] == [0, 0]


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_a_mirror_imported_without_its_smaller_side_could_grow(version: str) -> None:
    session = _mirror(version)
    _run(session, "zpool export p", f"mv {D}/m1 {D}/away/", f"zpool import -d {D} p")
    pool = session.pools["p"]
    vdev = pool.vdevs[0]
    # max_asize over the children that opened; asize from the config, unchanged
    assert vdev.max_asize == leaf_asize(256 * MiB)
    assert vdev.asize == leaf_asize(192 * MiB)
    room = leaf_asize(256 * MiB) - leaf_asize(192 * MiB)
    assert vdev_size.expandable_space(pool.vdevs) == room - room % (1 << vdev.ms_shift)
    assert "67108864" in session.run("zpool get -p expandsize p").stdout
    assert pool.space == 176 * MiB  # degraded: it does not grow


def test_online_reopens_every_leaf_and_only_e_lets_them_grow() -> None:
    session = _mirror()
    _run(session, f"truncate -s 320M {D}/m1 {D}/m2")
    vdev = session.pools["p"].vdevs[0]
    assert vdev_size.esize(vdev) == 0  # nothing reopened yet
    _run(session, f"zpool online p {D}/m1")
    assert [leaf.psize for leaf in vdev.leaves] == [320 * MiB, 320 * MiB]
    assert vdev_size.esize(vdev) == 128 * MiB
    assert [vdev_size.esize(vdev, leaf) for leaf in vdev.leaves] == [128 * MiB, 64 * MiB]
    space = session.pools["p"].space
    _run(session, f"zpool online -e p {D}/m1")
    # m1 grew; the mirror only as far as m2, which was not expanding
    assert vdev.asize == leaf_asize(256 * MiB)
    assert session.pools["p"].space == (vdev.asize >> vdev.ms_shift) << vdev.ms_shift > space
    _run(session, f"zpool online -e p {D}/m2")
    assert vdev.asize == vdev.max_asize == leaf_asize(320 * MiB)
    assert vdev_size.expandable_space(session.pools["p"].vdevs) == 0


def test_an_import_takes_the_leaves_sizes_but_not_the_top_level_vdevs() -> None:
    session = _mirror(large=192, options="-o autoexpand=on")
    _run(session, f"truncate -s 320M {D}/m1 {D}/m2", "zpool export p",
         f"zpool import -d {D} p")
    vdev = session.pools["p"].vdevs[0]
    assert [vdev_size.esize(vdev, leaf) for leaf in vdev.leaves] == [0, 0]
    assert vdev_size.esize(vdev) == 128 * MiB  # autoexpand on, still not grown
    _run(session, f"zpool online p {D}/m2")  # autoexpand: any reopen grows it
    assert vdev_size.esize(vdev) == 0
    assert session.pools["p"].space == 304 * MiB


def test_replacing_both_sides_with_autoexpand_grows_the_pool() -> None:
    session = _mirror(large=192, options="-o autoexpand=on")
    _run(session, f"truncate -s 320M {D}/b1 {D}/b2", f"zpool replace p {D}/m1 {D}/b1")
    assert session.pools["p"].space == 176 * MiB
    _run(session, f"zpool replace p {D}/m2 {D}/b2")
    assert session.pools["p"].space == 304 * MiB


def test_a_device_may_be_smaller_than_the_others_by_less_than_a_metaslab() -> None:
    """vdev_get_min_asize(): the top-level vdev's asize rounded down to whole
    metaslabs, not the smallest child's size."""
    session = _mirror(small=200, large=200)
    vdev = session.pools["p"].vdevs[0]
    assert vdev_size.min_device_asize(vdev) == 192 * MiB
    _run(session, f"truncate -s 197M {D}/n1", f"zpool attach p {D}/m1 {D}/n1")
    assert len(vdev.leaves) == 3
    _run(session, f"truncate -s 196M {D}/n2")
    result = session.run(f"zpool attach p {D}/m1 {D}/n2")
    assert result.status == 1 and "device is too small" in result.stderr


def test_a_raidz_childs_minimum_is_its_share() -> None:
    session = Session(version=get_version("2.3"))
    _run(session, f"mkdir -p {D}", f"truncate -s 200M {D}/r1 {D}/r2 {D}/r3",
         f"zpool create p raidz1 {D}/r1 {D}/r2 {D}/r3")
    vdev = session.pools["p"].vdevs[0]
    whole = vdev.asize - vdev.asize % (1 << vdev.ms_shift)
    assert vdev_size.min_device_asize(vdev) == -(-whole // 3)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=64, max_value=400), min_size=2, max_size=3),
       st.lists(st.integers(min_value=0, max_value=300), min_size=3, max_size=3))
def test_growing_every_leaf_with_e_leaves_no_room_and_whole_metaslabs(
        sizes: list[int], growth: list[int]) -> None:
    session = Session(version=get_version("2.3"))
    paths = [f"{D}/g{i}" for i in range(len(sizes))]
    _run(session, f"mkdir -p {D}",
         *(f"truncate -s {s}M {p}" for s, p in zip(sizes, paths, strict=True)),
         f"zpool create -f p mirror {' '.join(paths)}")
    vdev = session.pools["p"].vdevs[0]
    before = session.pools["p"].space
    _run(session, *(f"truncate -s {s + g}M {p}"
                    for s, g, p in zip(sizes, growth, paths, strict=False)))
    for path in paths:
        _run(session, f"zpool online -e p {path}")
    pool = session.pools["p"]
    assert vdev_size.expandable_space(pool.vdevs) == 0
    assert vdev.asize == leaf_asize(min((s + g) * MiB for s, g in zip(sizes, growth,
                                                                      strict=False)))
    assert pool.space == (vdev.asize >> vdev.ms_shift) << vdev.ms_shift >= before
    assert pool.free == pool.space - pool.alloc


def test_reopening_a_vdev_whose_file_shrank_or_went_is_not_simulated() -> None:
    """vdev_open() fails a device whose file now holds less than the vdev uses, and a
    reopen that finds a file gone degrades the vdev: labsim says it does not model either,
    before changing anything, rather than carry on as if the files were whole."""
    session = _mirror(small=256, large=256)
    _run(session, f"truncate -s 250M {D}/m1")  # within the metaslab slack: accepted
    _run(session, f"zpool online p {D}/m1")
    _run(session, f"truncate -s 100M {D}/m1")
    result = session.run(f"zpool online p {D}/m2")
    assert result.status == 1 and "not simulated" in result.stderr
    _run(session, f"truncate -s 256M {D}/m1", f"rm {D}/m2")
    result = session.run(f"zpool online -e p {D}/m1")
    assert result.status == 1 and "not simulated" in result.stderr
    assert session.pools["p"].space == 240 * MiB
    _run(session, f"truncate -s 256M {D}/m2", "zpool export p", f"truncate -s 100M {D}/m2")
    result = session.run(f"zpool import -d {D} p")
    assert result.status == 1 and "not simulated" in result.stderr
