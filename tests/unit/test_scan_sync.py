"""The txgs a scrub syncs and what they write to the MOS (labsim.zfs.scan_sync)."""

import pytest

from labsim import Session, run_script
from labsim.zfs.scan import SCAN_TXGS_CHANGING_MOS
from labsim.zfs.versions import get_version

V = "/var/tmp/labs/"
# Generated script 78's start (tests/fixtures/real/*/generated/seed-0078.sh): a new mirror at
# ashift 12, a scrub, a sync. Real OpenZFS's root USEDCHILD (the MOS) is 282624 in every
# run on 2.1.11 and on 2.3.9; without the scrub's txgs labsim had one MOS block (three 4K
# copies) less: the space map of a metaslab only the scrub's MOS rewrites touched.
SEED_78 = f"""
mkdir -p {V}
truncate -s 128M {V}d1.raw {V}d2.raw
zpool create -o ashift=12 -O recordsize=1M p mirror {V}d1.raw {V}d2.raw
"""
REAL_USEDCHILD_AFTER_SCRUB = 282624


def _session(release: str) -> Session:
    s = Session(version=get_version(release))
    for line, result in run_script(SEED_78, s):
        assert result.status == 0, (line, result.stderr)
    return s


def _usedchild(s: Session) -> int:
    out = s.run("zfs list -p -H -o usedchild p").stdout
    return int(out.split()[0])


@pytest.mark.parametrize("release", ["2.1", "2.3"])
def test_a_scrub_of_a_new_pool_leaves_the_mos_real_openzfs_has(release):
    s = _session(release)
    before = s.run("zfs list -p -H -o usedchild p").stdout
    assert s.run("zpool scrub -w p").status == 0
    assert s.run("zpool sync p").status == 0
    assert _usedchild(s) == REAL_USEDCHILD_AFTER_SCRUB
    assert int(before.split()[0]) < REAL_USEDCHILD_AFTER_SCRUB


def test_a_scrub_syncs_its_txgs():
    s = _session("2.3")
    pool = s.pools["p"]
    txg = pool.txg
    assert s.run("zpool scrub p").status == 0
    assert pool.txg == txg + len(SCAN_TXGS_CHANGING_MOS)

