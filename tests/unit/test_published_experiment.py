"""The published 0.6.5 experiment, replayed through the command layer.

"ZFS allocates writes according to free space per vdev, not latency per vdev": a 10G
and a 2G sparse file at ashift=13, compression off, dd of 256M blocks from /dev/zero.
The post printed these ALLOC ratios (large:small): 3.54:1 after 2 GiB, 3.59:1 after
5 GiB, 4.98:1 once dd hit "No space left on device". That run used ZFS on Linux 0.6.5,
so the 0.6.5 allocator must reproduce it within 10 %.
"""

import pytest

from labsim import Session, run_script
from labsim.zfs.versions import ZFS_0_6_5, ZFS_2_1

SETUP = """
mkdir -p /rust /ssd
truncate -s 10G /rust/10Grust.raw
truncate -s 2G /ssd/2Gssd.raw
zpool create -oashift=13 alloctest /rust/10Grust.raw /ssd/2Gssd.raw
zfs set compression=off alloctest
"""


def ratio(session):
    big, small = session.pools["alloctest"].vdevs
    return big.alloc / small.alloc


@pytest.fixture
def session():
    s = Session(version=ZFS_0_6_5)
    for _, result in run_script(SETUP, s):
        assert result.status == 0, result.stderr
    return s


def test_ratios_match_the_published_run(session):
    run_script("dd if=/dev/zero bs=256M count=8 of=/alloctest/2G.bin", session)
    assert ratio(session) == pytest.approx(3.54, rel=0.10)
    run_script("dd if=/dev/zero bs=256M count=12 of=/alloctest/3G.bin", session)
    assert ratio(session) == pytest.approx(3.59, rel=0.10)
    (_, result), = run_script("dd if=/dev/zero bs=256M count=48 of=/alloctest/12G.bin",
                              session)
    assert result.status == 1
    assert "No space left on device" in result.stderr
    assert ratio(session) == pytest.approx(4.98, rel=0.10)


def test_the_full_pool_stops_near_the_published_byte_count(session):
    run_script("dd if=/dev/zero bs=256M count=8 of=/alloctest/2G.bin\n"
               "dd if=/dev/zero bs=256M count=12 of=/alloctest/3G.bin", session)
    (_, result), = run_script("dd if=/dev/zero bs=256M count=48 of=/alloctest/12G.bin",
                              session)
    # published: "27+0 records in / 26+0 records out / 7014973440 bytes ... copied"
    assert "27+0 records in\n26+0 records out\n" in result.stderr
    written = int(result.stderr.split("records out\n")[1].split(" bytes")[0])
    assert written == pytest.approx(7014973440, rel=0.01)
    pool = session.pools["alloctest"]
    assert pool.capacity == 96  # published CAP


def test_the_2_1_throttle_spreads_a_stream_more_evenly_than_0_6_5():
    shares = {}
    for version in (ZFS_0_6_5, ZFS_2_1):
        s = Session(version=version)
        run_script(SETUP + "dd if=/dev/zero bs=256M count=8 of=/alloctest/2G.bin", s)
        shares[version.name] = ratio(s)
    assert shares["2.1"] < shares["0.6.5"]
