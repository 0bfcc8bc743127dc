# Probe (issue 15): what the pool's own metadata (the MOS, $MOS under the root's USEDCHILD)
# and a dataset's objset are made of, object by object, at ashift 9 and 12, on a mirror and
# on RAID-Z1: zdb -dd lists every object with its block sizes and dsize, zdb -bb sums the
# blocks by type. After creation, after a write, after a new dataset and a snapshot.
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15z-a.raw /var/tmp/labs/lab15z-b.raw /var/tmp/labs/lab15z-c.raw
zpool create -o ashift=9 lab15z mirror /var/tmp/labs/lab15z-a.raw /var/tmp/labs/lab15z-b.raw
zpool sync lab15z
zfs list -p -o name,used,refer,usedds,usedchild,logicalused,logicalreferenced lab15z
zdb -dd lab15z
zdb -bb lab15z
dd if=/dev/urandom of=/lab15z/f1 bs=1M count=8 status=none
zpool sync lab15z
zfs list -p -o name,used,refer,usedds,usedchild,logicalused,logicalreferenced lab15z
zdb -dd lab15z
zfs create lab15z/fs
zfs snapshot lab15z/fs@s1
zpool sync lab15z
zfs list -p -r -t all -o name,used,refer,usedds,usedchild,usedsnap,logicalused,logicalreferenced lab15z
zdb -dd lab15z
zdb -bb lab15z
zpool destroy lab15z
zpool create -o ashift=12 lab15z mirror /var/tmp/labs/lab15z-a.raw /var/tmp/labs/lab15z-b.raw
zpool sync lab15z
zfs list -p -o name,used,refer,usedds,usedchild,logicalused,logicalreferenced lab15z
zdb -dd lab15z
zdb -bb lab15z
dd if=/dev/urandom of=/lab15z/f1 bs=1M count=8 status=none
zpool sync lab15z
zfs list -p -o name,used,refer,usedds,usedchild,logicalused,logicalreferenced lab15z
zdb -dd lab15z
zfs create lab15z/fs
zfs snapshot lab15z/fs@s1
zpool sync lab15z
zfs list -p -r -t all -o name,used,refer,usedds,usedchild,usedsnap,logicalused,logicalreferenced lab15z
zdb -dd lab15z
zdb -bb lab15z
zpool destroy lab15z
zpool create -o ashift=12 lab15z raidz1 /var/tmp/labs/lab15z-a.raw /var/tmp/labs/lab15z-b.raw /var/tmp/labs/lab15z-c.raw
zpool sync lab15z
zfs list -p -o name,used,refer,usedds,usedchild,logicalused,logicalreferenced lab15z
zdb -dd lab15z
zdb -bb lab15z
dd if=/dev/urandom of=/lab15z/f1 bs=1M count=8 status=none
zpool sync lab15z
zfs list -p -o name,used,refer,usedds,usedchild,logicalused,logicalreferenced lab15z
zdb -dd lab15z
zdb -bb lab15z
zpool destroy lab15z
rm /var/tmp/labs/lab15z-a.raw /var/tmp/labs/lab15z-b.raw /var/tmp/labs/lab15z-c.raw
