# Probe (issue 15): what an almost empty file system holds, object by object, at ashift 9 on
# one disk (512-byte resolution, one copy of data): the plain one; copies=2 (its metadata
# gets one more copy); a parent whose child's mount point is a directory in it; a 512K-record
# lz4 file of zeros written as 1M and then rewritten as 64K (hole blocks, and the dnode's
# levels, which never shrink); copies=2 with a small file.
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15m-a.raw
zpool create -o ashift=9 lab15m /var/tmp/labs/lab15m-a.raw
zfs create lab15m/plain
zfs create -o copies=2 lab15m/c2
zfs create -o recordsize=4K -o copies=2 lab15m/parent
zfs create lab15m/parent/child
zfs create -o recordsize=512K -o compression=lz4 lab15m/z
dd if=/dev/zero of=/lab15m/z/f bs=1M count=1 status=none
zpool sync lab15m
zfs list -p -r -t all -o name,used,refer,usedds,usedchild,logicalused lab15m
dd if=/dev/zero of=/lab15m/z/f bs=64K count=1 status=none
zfs create -o copies=2 lab15m/c2f
dd if=/dev/urandom of=/lab15m/c2f/f bs=8K count=1 status=none
zpool sync lab15m
zfs list -p -r -t all -o name,used,refer,usedds,usedchild,logicalused lab15m
zdb -dddd lab15m/plain
zdb -dddd lab15m/c2
zdb -dddd lab15m/parent
zdb -dddddd lab15m/z
zdb -dddd lab15m/c2f
zpool destroy lab15m
rm /var/tmp/labs/lab15m-a.raw
