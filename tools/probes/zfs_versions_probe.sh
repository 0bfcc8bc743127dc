# What differs between OpenZFS releases, as the real tools show it: versions, defaults
# (compression, volblocksize and the refreservation it leads to), the pool properties of block
# cloning, `cp --reflink` and plain `cp` (copy_file_range) on a pool, and RAID-Z expansion
# (`zpool attach` onto a raidz vdev, its progress in `zpool status`, space before and after).
# Recorded on each release in the lab VM, for labsim.zfs.versions and the models of block
# cloning and RAID-Z expansion (tests/unit/test_zfs_versions_probe.py):
#   ZFL_RECORD_POOLS=labv,labvr ZFL_FIXTURES=tests/fixtures/probes/zfs \
#     tools/vm/record-transcripts.sh tools/probes/zfs_versions_probe.sh
# (ZFL_DEBIAN_SUITE=bookworm for 2.1.11). Runs in labsim too: python -m labsim THIS_FILE.
mkdir -p /var/tmp/labs
zfs version
zpool version

# Defaults of a new pool and volume
truncate -s 512M /var/tmp/labs/labv-a.raw
zpool create -o ashift=12 labv /var/tmp/labs/labv-a.raw
zpool list -p labv
zfs get -H -o property,value,source compression,recordsize,checksum labv
zfs create -V 16M labv/vol
zfs get -Hp -o property,value volblocksize,refreservation,used labv/vol
zpool get -H -o property,value bcloneused,bclonesaved,bcloneratio labv
zpool get -H -o property,value feature@block_cloning,feature@raidz_expansion labv

# Block cloning: cp --reflink, and a plain cp (copy_file_range)
dd if=/dev/urandom of=/labv/a.bin bs=1M count=8 status=none
zpool sync labv
zpool list -p labv
cp --reflink=always /labv/a.bin /labv/b.bin
cp /labv/a.bin /labv/c.bin
zpool sync labv
zpool get -Hp -o property,value bcloneused,bclonesaved,bcloneratio labv
zpool list -p labv
zfs list -p -o name,used,referenced,logicalused labv
rm /labv/a.bin
zpool sync labv
zpool get -Hp -o property,value bcloneused,bclonesaved,bcloneratio labv
zpool destroy labv

# RAID-Z expansion: a 3-wide RAID-Z1 with old data, then a fourth disk
truncate -s 256M /var/tmp/labs/labv-r1.raw /var/tmp/labs/labv-r2.raw /var/tmp/labs/labv-r3.raw /var/tmp/labs/labv-r4.raw
zpool create -o ashift=12 -O compression=off labvr raidz1 /var/tmp/labs/labv-r1.raw /var/tmp/labs/labv-r2.raw /var/tmp/labs/labv-r3.raw
dd if=/dev/urandom of=/labvr/old.bin bs=1M count=48 status=none
zpool sync labvr
zpool list -vp labvr
zfs list -p -o name,used,available,referenced labvr
zpool attach labvr raidz1-0 /var/tmp/labs/labv-r4.raw
zpool status labvr
zpool wait -t raidz_expand labvr
zpool status labvr
zpool list -vp labvr
zfs list -p -o name,used,available,referenced labvr
dd if=/dev/urandom of=/labvr/new.bin bs=1M count=48 status=none
zpool sync labvr
zpool list -vp labvr
zfs list -p -o name,used,available,referenced labvr
ls -ls /labvr
zpool destroy labvr
rm /var/tmp/labs/labv-a.raw /var/tmp/labs/labv-r1.raw /var/tmp/labs/labv-r2.raw /var/tmp/labs/labv-r3.raw /var/tmp/labs/labv-r4.raw
