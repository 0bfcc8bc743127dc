# Lesson 1 lab: a lopsided pool of sparse files, scaled for a small VM.
# Runs unchanged in the simulator (python -m labsim) and, as root, on real OpenZFS (2.3 in the lab VM; the 2.1.11 recordings show the older release).
# "# step" comments divide it into the lab's steps (labs/steps/01-pools-vdevs.toml checks them).

# step files: Two sparse files, one four times the size of the other
mkdir -p /var/tmp/labs
truncate -s 1G /var/tmp/labs/lab1-a.raw
truncate -s 256M /var/tmp/labs/lab1-b.raw

# step pool: A pool striped across both files
zpool create -o ashift=12 lab1 /var/tmp/labs/lab1-a.raw /var/tmp/labs/lab1-b.raw
zfs set compression=off lab1
zpool list -v lab1
zpool list -vp lab1

# step write: Write three files and see which vdev they landed on
dd if=/dev/urandom of=/lab1/f1.bin bs=1M count=64
dd if=/dev/urandom of=/lab1/f2.bin bs=1M count=64
dd if=/dev/urandom of=/lab1/f3.bin bs=1M count=64
zpool sync lab1
zpool list -vp lab1

# step grow: Add a third, empty vdev
truncate -s 512M /var/tmp/labs/lab1-c.raw
zpool add -o ashift=12 lab1 /var/tmp/labs/lab1-c.raw

# step more: Write two more files after the pool grew
dd if=/dev/urandom of=/lab1/f4.bin bs=1M count=64
dd if=/dev/urandom of=/lab1/f5.bin bs=1M count=64
zpool sync lab1
zpool list -vp lab1

# step delete: Delete every other file
rm /lab1/f2.bin /lab1/f4.bin
zpool sync lab1
zpool list -vp lab1
zfs list -p lab1
zpool status lab1

# step cleanup: Destroy the pool and its files
zpool destroy lab1
rm /var/tmp/labs/lab1-a.raw /var/tmp/labs/lab1-b.raw /var/tmp/labs/lab1-c.raw
