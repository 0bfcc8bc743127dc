# Probe (issue 15): what the MOS grows by after the new pool's, step by step at ashift 9
# (512-byte resolution): a file system, its first snapshot, two more snapshots, writes in
# separate txgs (space maps and log space maps), and what each object is (zdb -dddd names
# the ZAPs' entries).
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15y-a.raw /var/tmp/labs/lab15y-b.raw
zpool create -o ashift=9 lab15y mirror /var/tmp/labs/lab15y-a.raw /var/tmp/labs/lab15y-b.raw
zpool sync lab15y
zdb -dd lab15y
zfs create lab15y/fs
zpool sync lab15y
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15y
zdb -dd lab15y
zfs snapshot lab15y/fs@s1
zpool sync lab15y
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15y
zdb -dddd lab15y
zfs snapshot lab15y/fs@s2
zpool sync lab15y
zfs snapshot lab15y/fs@s3
zpool sync lab15y
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15y
zdb -dd lab15y
dd if=/dev/urandom of=/lab15y/fs/a bs=1M count=4 status=none
zpool sync lab15y
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15y
dd if=/dev/urandom of=/lab15y/fs/b bs=1M count=4 status=none
zpool sync lab15y
dd if=/dev/urandom of=/lab15y/c bs=1M count=4 status=none
zpool sync lab15y
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15y
zdb -dd lab15y
zpool export lab15y
zpool import -d /var/tmp/labs lab15y
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15y
zdb -dd lab15y
zpool destroy lab15y
rm /var/tmp/labs/lab15y-a.raw /var/tmp/labs/lab15y-b.raw
