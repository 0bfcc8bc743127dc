# Probe (issue 15): whether a file system's ZIL header is still non-zero after an export
# that closed the intent log with changes not yet synced, and what a clone of a snapshot
# taken then holds (dsl_dataset_create_sync() rewrites the clone's objset block only when
# the origin's ZIL header is not zero). zdb -i prints each dataset's ZIL header. The same
# with a `zpool sync` before the export (nothing left for zil_close() to commit), and with
# a sync task (zfs set) between the import and the snapshot. ashift 12, one file vdev.
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15z.raw
zpool create -o ashift=12 lab15z /var/tmp/labs/lab15z.raw
zfs create lab15z/a
zfs create lab15z/b
zfs create lab15z/c
zpool sync lab15z
dd if=/dev/urandom of=/lab15z/a/f bs=128K count=4 status=none
dd if=/dev/urandom of=/lab15z/b/f bs=128K count=4 status=none
zpool sync lab15z
dd if=/dev/urandom of=/lab15z/c/f bs=128K count=4 status=none
rm /lab15z/b/f
zpool export lab15z
zpool import -d /var/tmp/labs lab15z
zdb -i lab15z
zfs set compression=gzip lab15z/c
zfs snapshot lab15z/a@s1
zfs snapshot lab15z/b@s1
zfs snapshot lab15z/c@s1
zfs clone lab15z/a@s1 lab15z/ca
zfs clone lab15z/b@s1 lab15z/cb
zfs clone lab15z/c@s1 lab15z/cc
zpool sync lab15z
zfs list -p -r -t all -o name,used,refer,usedds,origin lab15z
zdb -i lab15z
zpool destroy lab15z
rm /var/tmp/labs/lab15z.raw
