# Lesson 3 lab: the metaslabs of a small and a large vdev, read with zdb.
# Runs unchanged in the simulator (python -m labsim) and, as root, on real OpenZFS (2.3 in the lab VM; the 2.1.11 recordings show the older release).
# zdb reads the pool from disk. On a live pool, OpenZFS 2.x keeps recent changes in its log
# space maps, so each look with zdb exports the pool first (every change written to its
# metaslab's own space map), reads it with zdb -e, and imports it again.

# step files: A 1 GiB and a 4 GiB sparse file
mkdir -p /var/tmp/labs
truncate -s 1G /var/tmp/labs/lab3-a.raw
truncate -s 4G /var/tmp/labs/lab3-b.raw

# step pool: A pool of both, and its metaslabs
zpool create -o ashift=12 lab3 /var/tmp/labs/lab3-a.raw /var/tmp/labs/lab3-b.raw
zfs set compression=off lab3
zpool list -v lab3
zpool export lab3
zdb -e -p /var/tmp/labs -m lab3
zpool import -d /var/tmp/labs lab3

# step fill: 96 MiB of data, and which metaslabs took it
dd if=/dev/urandom of=/lab3/f1.bin bs=1M count=96
zpool sync lab3
zpool list -vp lab3
zpool export lab3
zdb -e -p /var/tmp/labs -m lab3
zpool import -d /var/tmp/labs lab3

# step holes: Six small files, every other one deleted
dd if=/dev/urandom of=/lab3/s1.bin bs=1M count=8
dd if=/dev/urandom of=/lab3/s2.bin bs=1M count=8
dd if=/dev/urandom of=/lab3/s3.bin bs=1M count=8
dd if=/dev/urandom of=/lab3/s4.bin bs=1M count=8
dd if=/dev/urandom of=/lab3/s5.bin bs=1M count=8
dd if=/dev/urandom of=/lab3/s6.bin bs=1M count=8
zpool sync lab3
rm /lab3/s2.bin /lab3/s4.bin /lab3/s6.bin
zpool sync lab3
zpool list -vp lab3
zpool export lab3
zdb -e -p /var/tmp/labs -mm lab3
zpool import -d /var/tmp/labs lab3

# step cleanup: Destroy the pool and its files
zpool destroy lab3
rm /var/tmp/labs/lab3-a.raw /var/tmp/labs/lab3-b.raw
