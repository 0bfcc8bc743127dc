"""Metadata versions snapshots and clones keep are allocated (labsim.zfs.held_metadata):
once the pool syncs, ``zpool list`` ALLOC holds what ``zfs list`` USED counts.

The case is generated seed 68 (tests/fixtures/real/2.3.9/generated/seed-0068.*): a RAID-Z3
of six vdevs at ashift 12, a snapshot of the root, a file written and a child made after
it. Real OpenZFS allocated exactly the deflated USED times the vdev's asize ratio
(165 blocks of 16K raw for USED 1267200 = 165 x 7680), the snapshot's 153600 of kept
metadata included; labsim had counted them in USED and left them out of ALLOC.
"""

from __future__ import annotations

from labsim import Session, run_script
from labsim.zfs import snapshot_space

VDEVS = " ".join(f"/var/tmp/labs/h/d{i}.raw" for i in range(1, 7))
SETUP = f"""
mkdir -p /var/tmp/labs/h
truncate -s 192M {VDEVS}
zpool create -o ashift=12 h raidz3 {VDEVS}
zfs snapshot h@s1
zpool sync h
"""


def run_all(session: Session, script: str) -> None:
    for line, result in run_script(script, session):
        assert result.status == 0, (line, result.stderr)


def root_used(session: Session) -> int:
    pool = session.pools["h"]
    return snapshot_space.space(pool, pool.datasets["h"]).used


def test_kept_metadata_is_allocated_when_the_pool_syncs() -> None:
    session = Session()
    run_all(session, SETUP)
    pool = session.pools["h"]
    run_all(session, "seq 1 585 > /h/f2\nzfs create h/fs3")
    kept = snapshot_space.kept_metadata_bytes(pool)
    assert kept > 0  # the snapshot keeps the root's old objset, directory and dnode blocks
    assert pool.held_metadata_extents() == []  # not before the txg syncs
    assert pool.dsl_used < root_used(session)
    run_all(session, "zpool sync h")
    # USED counted them already; ALLOC now holds them too.
    assert sum(pool.vdevs[0].deflate(e.length) for e in pool.held_metadata_extents()) == kept
    # On one RAID-Z vdev every allocation is charged its deflated size: nothing that USED
    # counts is missing from ALLOC (the real pool's ALLOC was USED x 68/32 exactly).
    assert pool.dsl_used == root_used(session)


def test_destroying_the_snapshot_frees_what_it_kept() -> None:
    session = Session()
    run_all(session, SETUP)
    pool = session.pools["h"]
    run_all(session, "seq 1 585 > /h/f2\nzpool sync h")
    alloc = pool.alloc
    held = sum(e.length for e in pool.held_metadata_extents())
    assert held > 0
    run_all(session, "zfs destroy h@s1")  # a sync task: its txg frees them (deferred)
    assert pool.held_metadata_extents() == []
    assert pool.dsl_used == root_used(session)
    run_all(session, "zpool sync h")
    assert pool.alloc < alloc
    assert pool.dsl_used == root_used(session)


def test_a_scrub_reads_the_kept_versions() -> None:
    session = Session()
    run_all(session, SETUP)
    pool = session.pools["h"]
    run_all(session, "seq 1 585 > /h/f2\nzpool scrub -w h")
    assert pool.held_metadata_extents()  # dsl_scan()'s setup waited for the txg
