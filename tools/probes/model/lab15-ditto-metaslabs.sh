# Probe (issue 15): which metaslabs the copies of a block go to. On one vdev, copies=3 puts
# the first copy in the allocator's primary metaslab, the second in its secondary and the
# third in a metaslab activated for METASLAB_WEIGHT_CLAIM (metaslab_group_alloc_normal(),
# module/zfs/metaslab.c): three metaslabs, each taking a third. On two vdevs, copies=2
# puts each block's second copy on the other vdev's primary metaslab, beside that vdev's
# first copies. zdb -m after an export (every metaslab flushed) shows each metaslab's free
# space. Generated seed 45 (2.3.9) writes 16M at copies=3 to one RAID-Z1 and its MOS did not
# grow, where labsim gave a space map to every metaslab of the vdev.
mkdir -p /var/tmp/labs/lab15d
truncate -s 512M /var/tmp/labs/lab15d/a.raw
zpool create -o ashift=12 -O copies=3 -O compression=off lab15d /var/tmp/labs/lab15d/a.raw
dd if=/dev/urandom of=/lab15d/f1 bs=1M count=16 status=none
zpool sync lab15d
zfs list -p -o name,used,refer,usedchild lab15d
zpool export lab15d
zdb -e -p /var/tmp/labs/lab15d -m lab15d
zpool import -d /var/tmp/labs/lab15d lab15d
zpool destroy lab15d
truncate -s 256M /var/tmp/labs/lab15d/b.raw
zpool create -o ashift=12 -O copies=2 -O compression=off lab15d /var/tmp/labs/lab15d/a.raw /var/tmp/labs/lab15d/b.raw
dd if=/dev/urandom of=/lab15d/f1 bs=1M count=16 status=none
zpool sync lab15d
zfs list -p -o name,used,refer,usedchild lab15d
zpool export lab15d
zdb -e -p /var/tmp/labs/lab15d -m lab15d
zpool import -d /var/tmp/labs/lab15d lab15d
zpool destroy lab15d
rm -r /var/tmp/labs/lab15d
