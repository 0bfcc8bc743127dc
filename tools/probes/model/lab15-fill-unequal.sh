# Probe (issue 15): continuous writes into a pool of two unequal file vdevs until it is full.
# How the allocator splits the data between a 256 MiB and a 1 GiB vdev over time (rotor,
# aliquot, free-space bias, throttle), what CAP/FREE/FRAG each vdev ends at.
# Runs unchanged in labsim (python -m labsim THIS) and as root on real OpenZFS (record-real).
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15a-small.raw
truncate -s 1G /var/tmp/labs/lab15a-large.raw
zpool create -o ashift=12 lab15a /var/tmp/labs/lab15a-small.raw /var/tmp/labs/lab15a-large.raw
zfs set compression=off lab15a
zpool list -vp lab15a
dd if=/dev/urandom of=/lab15a/f1 bs=1M count=96 status=none
zpool sync lab15a
zpool list -vp lab15a
dd if=/dev/urandom of=/lab15a/f2 bs=1M count=192 status=none
zpool sync lab15a
zpool list -vp lab15a
dd if=/dev/urandom of=/lab15a/f3 bs=1M count=384 status=none
zpool sync lab15a
zpool list -vp lab15a
dd if=/dev/urandom of=/lab15a/f4 bs=1M count=640 status=none
zpool sync lab15a
zpool list -vp lab15a
zpool list -v lab15a
zfs list -p -o name,used,avail,refer lab15a
rm /lab15a/f2
zpool sync lab15a
dd if=/dev/urandom of=/lab15a/f5 bs=128k count=400 status=none
zpool sync lab15a
zpool list -vp lab15a
zpool destroy lab15a
rm /var/tmp/labs/lab15a-small.raw /var/tmp/labs/lab15a-large.raw
