# Lesson 2 lab: a mirror and a RAID-Z1 of sparse files; damage and scrub, replace and resilver,
# and the detach/attach trick for building a balanced pool of mirrors. Sized for a slow VM.
# Runs unchanged in the simulator (python -m labsim) and, as root, on real OpenZFS (2.3 in the lab VM; the 2.1.11 recordings show the older release).

# step files: Eight 512 MiB sparse files
mkdir -p /var/tmp/labs
truncate -s 512M /var/tmp/labs/lab2-a.raw /var/tmp/labs/lab2-b.raw
truncate -s 512M /var/tmp/labs/lab2-c.raw /var/tmp/labs/lab2-d.raw /var/tmp/labs/lab2-e.raw
truncate -s 512M /var/tmp/labs/lab2-f.raw /var/tmp/labs/lab2-g.raw /var/tmp/labs/lab2-h.raw

# step layouts: A two-way mirror and a three-wide RAID-Z1
zpool create -o ashift=12 lab2m mirror /var/tmp/labs/lab2-a.raw /var/tmp/labs/lab2-b.raw
zpool create -o ashift=12 lab2r raidz1 /var/tmp/labs/lab2-c.raw /var/tmp/labs/lab2-d.raw /var/tmp/labs/lab2-e.raw
zfs set compression=off lab2m
zfs set compression=off lab2r
zpool list -v lab2m
zpool list -v lab2r
zpool list -vp lab2m
zpool list -vp lab2r
zfs list -p lab2m
zfs list -p lab2r
zpool status lab2r

# step fill: 48 MiB of random data on each pool
dd if=/dev/urandom of=/lab2m/f1.bin bs=1M count=48
dd if=/dev/urandom of=/lab2r/f1.bin bs=1M count=48
zpool sync lab2m
zpool sync lab2r
zpool list -vp lab2m
zpool list -vp lab2r
zfs list -p lab2m
zfs list -p lab2r

# step damage: Overwrite one mirror member between its labels, then scrub
dd if=/dev/zero of=/var/tmp/labs/lab2-b.raw bs=1M seek=4 count=480 conv=notrunc
zpool scrub -w lab2m
zpool status lab2m
zpool clear lab2m
zpool status -x lab2m

# step replace: Take a RAID-Z member offline and resilver onto a new file
zpool offline lab2r /var/tmp/labs/lab2-e.raw
zpool status lab2r
zpool replace -w lab2r /var/tmp/labs/lab2-e.raw /var/tmp/labs/lab2-f.raw
zpool status lab2r

# step rebalance: Break the mirror, build a pool of two vdevs, copy, and attach
zpool detach lab2m /var/tmp/labs/lab2-b.raw
zpool create -o ashift=12 lab2t /var/tmp/labs/lab2-b.raw mirror /var/tmp/labs/lab2-g.raw /var/tmp/labs/lab2-h.raw  # expect-fail
zpool create -f -o ashift=12 lab2t /var/tmp/labs/lab2-b.raw mirror /var/tmp/labs/lab2-g.raw /var/tmp/labs/lab2-h.raw
zfs set compression=off lab2t
cp /lab2m/f1.bin /lab2t/f1.bin
zpool sync lab2t
zpool destroy lab2m
zpool attach -w lab2t /var/tmp/labs/lab2-b.raw /var/tmp/labs/lab2-a.raw
zpool list -vp lab2t
zpool status lab2t

# step cleanup: Destroy the pools and remove the files
zpool destroy lab2t
zpool destroy lab2r
rm /var/tmp/labs/lab2-a.raw /var/tmp/labs/lab2-b.raw /var/tmp/labs/lab2-c.raw /var/tmp/labs/lab2-d.raw
rm /var/tmp/labs/lab2-e.raw /var/tmp/labs/lab2-f.raw /var/tmp/labs/lab2-g.raw /var/tmp/labs/lab2-h.raw
