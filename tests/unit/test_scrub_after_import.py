"""What an import and a scrub's setup write anew before the scrub reads: the MOS blocks
every txg that changes the MOS rewrites, and (the setup) the object directory
(labsim.zfs.mos.mos_written_anew()). Recorded on 2.3.9 with zdb -ddddd at the export
and after the scrub (tests/fixtures/real/2.3.9/probes/lab15-scrub-births.txt)."""

from labsim.shell.session import Session
from labsim.zfs.labels import VDEV_LABEL_START_SIZE
from labsim.zfs.mos import mos_written_anew
from labsim.zfs.pool import Extent, Pool
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
