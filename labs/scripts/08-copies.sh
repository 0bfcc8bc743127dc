# Lesson 8 lab: copies=n, checksums and scrubs. A pool of two single-disk vdevs holds one
# dataset with copies=1 and one with copies=2; a mirror pool holds the same file. All of one
# disk of each pool is overwritten between its labels with dd; a scrub finds every bad block,
# repairs what has a good copy elsewhere and lists the files that have none. Then a disk of the
# striped pool is moved out of the directory zpool import searches: copies=2 or not, the pool
# cannot be imported without it. Data is 4 MiB per file from /dev/urandom.
# Runs unchanged in the simulator (python -m labsim) and, as root, on real OpenZFS (2.3 in the lab VM; the 2.1.11 recordings show the older release).

# step files: Four 128 MiB sparse files, and a directory zpool import -d /var/tmp/labs does not search
mkdir -p /var/tmp/labs/lab8-away
rm -f /var/tmp/labs/lab8-away/lab8-b.raw
truncate -s 128M /var/tmp/labs/lab8-a.raw
truncate -s 128M /var/tmp/labs/lab8-b.raw
truncate -s 128M /var/tmp/labs/lab8-m1.raw
truncate -s 128M /var/tmp/labs/lab8-m2.raw

# step pools: Two single-disk vdevs with a copies=1 and a copies=2 dataset, and a mirror
zpool create -o ashift=12 lab8 /var/tmp/labs/lab8-a.raw /var/tmp/labs/lab8-b.raw
zfs create -o copies=1 lab8/one
zfs create -o copies=2 lab8/two
zpool create -o ashift=12 lab8m mirror /var/tmp/labs/lab8-m1.raw /var/tmp/labs/lab8-m2.raw
dd if=/dev/urandom of=/lab8/one/f.bin bs=1M count=4 status=none
dd if=/dev/urandom of=/lab8/two/f.bin bs=1M count=4 status=none
dd if=/dev/urandom of=/lab8m/f.bin bs=1M count=4 status=none
zpool sync lab8 lab8m
zfs list -p -o name,used,refer lab8/one lab8/two lab8m

# step damage: Overwrite lab8-b.raw and lab8-m1.raw from 4 MiB (after the front labels) to 127 MiB
dd if=/dev/urandom of=/var/tmp/labs/lab8-b.raw bs=1M seek=4 count=123 conv=notrunc status=none
dd if=/dev/urandom of=/var/tmp/labs/lab8-m1.raw bs=1M seek=4 count=123 conv=notrunc status=none

# step scrub: Scrub both pools: the mirror and the copies=2 file are repaired, the copies=1 file is not
zpool scrub -w lab8m
zpool status -v lab8m
zpool scrub -w lab8
zpool status -v lab8
zpool clear lab8
zpool status -xv lab8

# step missing: Export lab8 and move lab8-b.raw into lab8-away/: the pool cannot be imported
zpool export lab8
mv /var/tmp/labs/lab8-b.raw /var/tmp/labs/lab8-away/
zpool import -d /var/tmp/labs
zpool import -d /var/tmp/labs lab8  # expect-fail

# step back: Move lab8-b.raw back and import: the pool returns, its list of damaged files with it
mv /var/tmp/labs/lab8-away/lab8-b.raw /var/tmp/labs/lab8-b.raw
zpool import -d /var/tmp/labs lab8
zpool status -v lab8
dd if=/lab8/two/f.bin of=/dev/null bs=1M status=none
dd if=/lab8/one/f.bin of=/dev/null bs=1M status=none  # expect-fail

# step cleanup: Destroy both pools and remove their files
zpool destroy lab8
zpool destroy lab8m
rm /var/tmp/labs/lab8-a.raw /var/tmp/labs/lab8-b.raw /var/tmp/labs/lab8-m1.raw /var/tmp/labs/lab8-m2.raw
