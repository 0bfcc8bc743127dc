"""A DSL directory's child map leaves its block pointer once LZ4 leaves more than 112 bytes
of it (labsim.zfs.mos.child_map_block): the pool's root, which holds $MOS, $FREE and
$ORIGIN besides its children, at its third child, as zdb -dd showed on 2.1.11 and 2.3.9
(tests/fixtures/real/*/probes/lab15-mos-dnodes.txt); and it goes back when children go."""

from __future__ import annotations

import pytest

from labsim import Session
from labsim.zfs.versions import get_version


def _run(session: Session, *lines: str) -> None:
    for line in lines:
        assert session.run(line).status == 0, line


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_the_roots_third_child_takes_its_child_map_out_of_the_block_pointer(
        version: str) -> None:
    session = Session(version=get_version(version))
    _run(session, "truncate -s 256M /tmp/d1 /tmp/d2",
         "zpool create -o ashift=9 p mirror /tmp/d1 /tmp/d2",
         "zfs create p/fs", "zfs create p/fs2")
    pool = session.pools["p"]
    root = pool.datasets["p"]
    assert root.child_map_psize == 0  # five entries: in the block pointer
    before = pool.mos_physical
    _run(session, "zfs create -V 8M p/vol")
    assert root.child_map_psize == 512  # six: a block of one sector, three copies
    assert pool.mos_physical is not None and before is not None
    assert pool.mos_physical >= before + 512
    assert len(root.child_map_blocks.extents) >= 1
    _run(session, "zfs destroy p/vol")
    assert root.child_map_psize == 0
    assert not root.child_map_blocks.extents


def test_a_file_systems_children_count_in_its_own_map_not_the_roots() -> None:
    session = Session(version=get_version("2.3"))
    _run(session, "truncate -s 256M /tmp/d1", "zpool create -o ashift=9 p /tmp/d1",
         "zfs create p/a", *(f"zfs create p/a/c{i}" for i in range(6)))
    pool = session.pools["p"]
    # Without the special directories, six short names still fit; a seventh does not.
    assert pool.datasets["p/a"].child_map_psize == 0
    _run(session, "zfs create p/a/c6")
    assert pool.datasets["p/a"].child_map_psize == 512
    assert pool.datasets["p"].child_map_psize == 0
