# Probe (issue 15): generated seed 145's file system of zeros (zstd, copies=2, on a RAID-Z2
# at ashift 12), where real OpenZFS referenced one 4K metadata block more than labsim in
# every run (three copies: 21816 bytes of REFER, 4096 of LREFER). zdb -dddd lists the file
# system's objects before and after the exports and imports of the seed.
mkdir -p /var/tmp/labs/lab15e
truncate -s 256M /var/tmp/labs/lab15e/d1.raw /var/tmp/labs/lab15e/d2.raw /var/tmp/labs/lab15e/d3.raw /var/tmp/labs/lab15e/d4.raw /var/tmp/labs/lab15e/d5.raw
zpool create -o ashift=12 lab15e raidz2 /var/tmp/labs/lab15e/d1.raw /var/tmp/labs/lab15e/d2.raw /var/tmp/labs/lab15e/d3.raw /var/tmp/labs/lab15e/d4.raw /var/tmp/labs/lab15e/d5.raw
zfs create -o compression=zstd -o copies=2 lab15e/fs2
dd if=/dev/zero of=/lab15e/fs2/f3 bs=1M count=4 status=none
zfs create -o compression=gzip lab15e/fs2/fs4
dd if=/dev/zero of=/lab15e/fs2/f3 bs=4K seek=178 count=232 conv=notrunc status=none
zpool sync lab15e
zfs list -p -r -o name,used,refer,logicalused,logicalreferenced lab15e
zdb -dddd lab15e/fs2
zpool export lab15e
zpool import -d /var/tmp/labs/lab15e lab15e
zpool export lab15e
zpool import -d /var/tmp/labs/lab15e lab15e
zpool sync lab15e
zfs list -p -r -o name,used,refer,logicalused,logicalreferenced lab15e
zdb -dddd lab15e/fs2
zpool destroy lab15e
rm -r /var/tmp/labs/lab15e
