"""What a scrub after an overwrite finds: not the MOS blocks an import and the scrub's
setup wrote anew before it read (labsim.zfs.mos.mos_written_anew(); recorded on 2.3.9
with zdb -ddddd at the export and after the scrub,
tests/fixtures/real/2.3.9/probes/lab15-scrub-births.txt), and not RAID-Z's skip sectors,
which are never read (labsim.zfs.layouts.raidz_written())."""

from labsim.shell.session import Session
from labsim.zfs.labels import VDEV_LABEL_START_SIZE
from labsim.zfs.layouts import raidz_asize, raidz_written
from labsim.zfs.mos import mos_written_anew
from labsim.zfs.pool import Extent, Pool
from labsim.zfs.scan import damage_leaf
from labsim.zfs.versions import get_version

SETUP = """
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/a.raw /var/tmp/labs/b.raw
zpool create -o ashift=12 p mirror /var/tmp/labs/a.raw /var/tmp/labs/b.raw
zfs set compression=off p
dd if=/dev/urandom of=/p/data bs=1M count=8 status=none
zpool sync p
zpool export p
dd if=/dev/urandom of=/var/tmp/labs/b.raw bs=1M seek=4 count=60 conv=notrunc status=none
zpool import -d /var/tmp/labs p
"""


def _imported(release: str = "2.3") -> Pool:
    session = Session(version=get_version(release))
    for line in SETUP.strip().splitlines():
        assert session.run(line).status == 0, line
    return session.pools["p"]


def _damaged(pool: Pool, extent: Extent) -> bool:
    """Whether the mirror's second member holds damage inside the extent."""
    lo = VDEV_LABEL_START_SIZE + extent.offset
    hi = lo + extent.length
    return any(a < hi and lo < b for a, b in pool.vdevs[0].leaves[1].damaged)


def test_the_import_writes_the_churning_mos_blocks_anew_and_leaves_the_rest():
    for release in ("2.1", "2.3"):
        pool = _imported(release)
        live = {id(e) for e in pool.metadata}
        churn = [e for e in pool.mos_churn if id(e) in live]
        assert churn and not any(_damaged(pool, e) for e in churn)
        # the object directory waits for a scan's setup; the feature ZAPs, the root file
        # system's blocks and the space maps are not written again at all
        assert any(_damaged(pool, e) for e in pool.mos_directory)
        churning = {id(e) for e in pool.mos_churn} | {id(e) for e in pool.mos_directory}
        assert any(_damaged(pool, e) for e in pool.metadata if id(e) not in churning)


def test_a_scans_setup_writes_the_object_directory_anew():
    pool = _imported()
    mos_written_anew(pool, scan_setup=True)
    assert not any(_damaged(pool, e) for e in pool.mos_directory)


def test_the_mirror_probes_scrub_counts_the_stable_blocks_only():
    # lab15-scrub-births: 18 checksum errors on real OpenZFS (two runs); before labsim
    # wrote the churning blocks anew it counted 36 on the same shape
    # (lab15-mirror-overwrite)
    session = Session(version=get_version("2.3"))
    script = SETUP.replace("count=8 ", "count=48 ").replace("seek=4 count=60", "seek=20 count=16")
    for line in [*script.strip().splitlines(), "zpool scrub -w p"]:
        assert session.run(line).status == 0, line
    assert session.pools["p"].vdevs[0].leaves[1].cksum_errors == 18


def test_raidz_skip_sectors_are_not_part_of_what_is_read():
    # RAID-Z1 of four at ashift 9: 1K is two data sectors and a parity sector, padded
    # to four; 1.5K is three and one, no padding
    assert (raidz_written(1024, 9, 4, 1), raidz_asize(1024, 9, 4, 1)) == (1536, 2048)
    assert raidz_written(1536, 9, 4, 1) == raidz_asize(1536, 9, 4, 1) == 2048
    # RAID-Z2 of five: one data sector and two parity sectors need no padding
    assert raidz_written(512, 9, 5, 2) == raidz_asize(512, 9, 5, 2) == 1536


def _raidz_pool_and_a_padded_block() -> tuple[Session, Pool, Extent]:
    session = Session(version=get_version("2.3"))
    for line in ("mkdir -p /var/tmp/labs", "truncate -s 64M /var/tmp/labs/1.raw "
                 "/var/tmp/labs/2.raw /var/tmp/labs/3.raw /var/tmp/labs/4.raw",
                 "zpool create -o ashift=9 z raidz1 /var/tmp/labs/1.raw /var/tmp/labs/2.raw "
                 "/var/tmp/labs/3.raw /var/tmp/labs/4.raw", "zpool sync z"):
        assert session.run(line).status == 0, line
    pool = session.pools["z"]
    rewritten = {id(e) for e in [*pool.mos_churn, *pool.mos_directory]}
    padded = next(e for e in pool.metadata if e.read and id(e) not in rewritten)
    return session, pool, padded


def _damage_vdev_sector(pool: Pool, sector: int) -> None:
    """Overwrite the one leaf sector that holds the vdev's sector ``sector``."""
    vdev = pool.vdevs[0]
    width, shift = vdev.layout.width, vdev.ashift
    start = VDEV_LABEL_START_SIZE + ((sector // width) << shift)
    damage_leaf(vdev.leaves[sector % width], start, 1 << shift)


def test_damage_to_a_raidz_blocks_skip_sector_is_never_found():
    session, pool, padded = _raidz_pool_and_a_padded_block()
    skip = (padded.offset + padded.read) >> 9  # the first sector after the read ones
    _damage_vdev_sector(pool, skip)
    assert session.run("zpool scrub -w z").status == 0
    assert sum(leaf.cksum_errors for leaf in pool.vdevs[0].leaves) == 0
    # a sector the block is read from is found, and counted on its member
    _damage_vdev_sector(pool, padded.offset >> 9)
    assert session.run("zpool scrub -w z").status == 0
    assert sum(leaf.cksum_errors for leaf in pool.vdevs[0].leaves) == 1
