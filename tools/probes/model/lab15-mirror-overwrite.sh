# Probe (issue 15): part of one mirror member overwritten while the pool is exported, then
# import and scrub. What the scrub repairs depends on which blocks sat in the overwritten
# range (on-disk geometry: labels, metaslab offsets, block placement).
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15m-a.raw
truncate -s 256M /var/tmp/labs/lab15m-b.raw
zpool create -o ashift=12 lab15m mirror /var/tmp/labs/lab15m-a.raw /var/tmp/labs/lab15m-b.raw
zfs set compression=off lab15m
dd if=/dev/urandom of=/lab15m/data bs=1M count=48 status=none
zpool sync lab15m
zpool list -vp lab15m
zpool export lab15m
dd if=/dev/urandom of=/var/tmp/labs/lab15m-b.raw bs=1M seek=20 count=16 conv=notrunc status=none
zpool import -d /var/tmp/labs lab15m
zpool scrub -w lab15m
zpool status lab15m
zpool clear lab15m
zpool status -x lab15m
zpool export lab15m
dd if=/dev/zero of=/var/tmp/labs/lab15m-a.raw bs=1M seek=4 count=8 conv=notrunc status=none
zpool import -d /var/tmp/labs lab15m
zpool scrub -w lab15m
zpool status lab15m
zpool destroy lab15m
rm /var/tmp/labs/lab15m-a.raw /var/tmp/labs/lab15m-b.raw
