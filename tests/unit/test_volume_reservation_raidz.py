"""zfs create -V on RAID-Z: volsize_from_vdevs() (lib/libzfs/libzfs_dataset.c, 2.1.11 and
2.3.9) scales the refreservation's data part by what the volume's blocks cost on the least
space-efficient RAID-Z vdev against a 128K block there."""

from labsim.shell.session import Session
from labsim.zfs.volume_reservation import volsize_from_vdevs, volsize_to_reservation

MiB = 1 << 20


def test_the_scaling_follows_parity_and_padding():
    blocks = 64
    assert volsize_from_vdevs(blocks, 16384, [(5, 1, 12)]) / (blocks * 16384) == 1.199951171875
    assert volsize_from_vdevs(blocks, 16384, [(3, 1, 12)]) == blocks * 16384
    assert volsize_from_vdevs(2 * blocks, 8192, [(6, 2, 12)]) == 2 * (2 * blocks * 8192)
    assert volsize_from_vdevs(blocks, 16384) == blocks * 16384  # no RAID-Z: as it is
    # the least efficient vdev decides
    assert volsize_from_vdevs(128, 8192, [(3, 1, 12), (6, 2, 12)]) == \
        volsize_from_vdevs(128, 8192, [(6, 2, 12)])


def test_zfs_create_sets_it_on_a_raidz_pool():
    session = Session()
    for line in ("mkdir -p /var/tmp/labs",
                 "truncate -s 256M /var/tmp/labs/r1 /var/tmp/labs/r2 /var/tmp/labs/r3 "
                 "/var/tmp/labs/r4 /var/tmp/labs/r5",
                 "zpool create -o ashift=12 r raidz1 /var/tmp/labs/r1 /var/tmp/labs/r2 "
                 "/var/tmp/labs/r3 /var/tmp/labs/r4 /var/tmp/labs/r5",
                 "zfs create -V 64M -o volblocksize=16K r/v"):
        assert session.run(line).status == 0, line
    got = session.run("zfs get -Hp -o value refreservation r/v").stdout.strip()
    assert int(got) == volsize_to_reservation(64 * MiB, 16384, 1, [(5, 1, 12)])
    assert int(got) > volsize_to_reservation(64 * MiB, 16384) + 12 * MiB
