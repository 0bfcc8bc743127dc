# Lesson 6 lab: snapshots and clones. A dataset gets files, a snapshot, overwrites and more
# snapshots; zfs list shows where the space goes (usedbysnapshots, usedbydataset). A clone of
# an older snapshot pins that snapshot: destroying it is refused until the clone is promoted.
# zfs destroy -nv reports what destroying a run of snapshots would reclaim, and a rollback
# returns the dataset to a snapshot. Data is a few MiB from /dev/urandom (incompressible).
# Runs unchanged in the simulator (python -m labsim) and, as root, on real OpenZFS (2.3 in the lab VM; the 2.1.11 recordings show the older release).

# step files: A 256 MiB sparse file for the pool
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab6-a.raw

# step pool: A pool, a dataset and 8 MiB in two files
zpool create -o ashift=12 lab6 /var/tmp/labs/lab6-a.raw
zfs create lab6/data
dd if=/dev/urandom of=/lab6/data/a.bin bs=1M count=4 status=none
dd if=/dev/urandom of=/lab6/data/b.bin bs=1M count=4 status=none
zpool sync lab6
zfs list -p -r -t all -o name,used,refer,usedbysnapshots,usedbydataset,usedbychildren,origin lab6

# step snapshot: A snapshot, then a.bin rewritten: the snapshot keeps the old blocks
zfs snapshot lab6/data@mon
zfs list -p -r -t all -o name,used,refer,usedbysnapshots,usedbydataset,usedbychildren,origin lab6
dd if=/dev/urandom of=/lab6/data/a.bin bs=1M count=4 status=none
zpool sync lab6
zfs list -p -r -t all -o name,used,refer,usedbysnapshots,usedbydataset,usedbychildren,origin lab6

# step more: More snapshots, a file deleted, a file written and rewritten between them
zfs snapshot lab6/data@tue
rm /lab6/data/b.bin
dd if=/dev/urandom of=/lab6/data/c.bin bs=1M count=2 status=none
zpool sync lab6
zfs snapshot lab6/data@wed
dd if=/dev/urandom of=/lab6/data/c.bin bs=1M count=2 status=none
zpool sync lab6
zfs snapshot lab6/data@thu
dd if=/dev/urandom of=/lab6/data/c.bin bs=1M count=2 status=none
zpool sync lab6
zfs list -p -r -t all -o name,used,refer,usedbysnapshots,usedbydataset,usedbychildren,origin lab6

# step clone: A clone of @tue, with a new file and a rewritten one
zfs clone lab6/data@tue lab6/work
dd if=/dev/urandom of=/lab6/work/w.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/lab6/work/b.bin bs=1M count=1 status=none
zpool sync lab6
zfs list -p -r -t all -o name,used,refer,usedbysnapshots,usedbydataset,usedbychildren,origin lab6
zfs list -r -t all -o name,used,refer,usedbysnapshots,usedbydataset,usedbychildren,origin lab6

# step promote: The clone pins @tue, and lab6/data with it, until the clone is promoted
zfs destroy lab6/data@tue  # expect-fail
zfs destroy -r lab6/data  # expect-fail
zfs destroy -nv lab6/data@mon
zfs promote lab6/work
zfs list -p -r -t all -o name,used,refer,usedbysnapshots,usedbydataset,usedbychildren,origin lab6

# step range: What destroying @wed and @thu would reclaim, then destroy them
zfs destroy -nv lab6/data@wed%thu
zfs destroy -v lab6/data@wed%thu
zpool sync lab6
zfs list -p -r -t all -o name,used,refer,usedbysnapshots,usedbydataset,usedbychildren,origin lab6

# step rollback: Back to a snapshot: newer ones must go first
zfs snapshot lab6/work@fri
dd if=/dev/urandom of=/lab6/work/x.bin bs=1M count=1 status=none
zfs snapshot lab6/work@sat
zfs rollback lab6/work@fri  # expect-fail
zfs rollback -r lab6/work@fri
ls /lab6/work
zpool sync lab6
zfs list -p -r -t all -o name,used,refer,usedbysnapshots,usedbydataset,usedbychildren,origin lab6

# step cleanup: Destroy the pool and remove its file
zpool destroy lab6
rm /var/tmp/labs/lab6-a.raw
