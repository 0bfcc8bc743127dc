# The MOS before and after a pool's root and a file system get their first snapshot (2.2+
# zapifies the dsl_dir to record snapshots_changed), at ashift 12 on two file vdevs.
mkdir -p /var/tmp/labs
truncate -s 512M /var/tmp/labs/lab15s-a.raw
truncate -s 256M /var/tmp/labs/lab15s-b.raw
zpool create -o ashift=12 lab15s /var/tmp/labs/lab15s-a.raw /var/tmp/labs/lab15s-b.raw
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild lab15s
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild lab15s
zdb -dd lab15s
zfs snapshot lab15s@s1
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild lab15s
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild lab15s
zdb -dd lab15s
zfs create lab15s/fs
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild lab15s
zdb -dd lab15s
zfs snapshot lab15s/fs@s1
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild lab15s
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild lab15s
zdb -dd lab15s
zpool destroy lab15s
rm /var/tmp/labs/lab15s-a.raw /var/tmp/labs/lab15s-b.raw
