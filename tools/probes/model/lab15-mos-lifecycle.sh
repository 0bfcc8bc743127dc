# Probe (issue 15): what the MOS grows or shrinks by with the dataset operations the generated
# scripts use and lab15-mos-commands.sh / lab15-mos-growth.sh do not (a second property set,
# clones, promote, rollback, a snapshot's and a clone's destroy), on one disk at ashift 9
# (512-byte resolution) and on RAID-Z1 at ashift 12: after each step a `zpool sync`, the
# root's USEDCHILD beside its children's USED (the MOS-ish rest), and after some the MOS's
# objects (zdb -dd).
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15x-a.raw /var/tmp/labs/lab15x-b.raw /var/tmp/labs/lab15x-c.raw
zpool create -o ashift=9 lab15x /var/tmp/labs/lab15x-a.raw
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zfs create lab15x/fs
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zdb -dd lab15x
zfs set compression=gzip lab15x/fs
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zfs set recordsize=64K lab15x/fs
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zfs set atime=off lab15x
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
dd if=/dev/urandom of=/lab15x/fs/a bs=64K count=4 status=none
zpool sync lab15x
zfs snapshot lab15x/fs@s1
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zdb -dd lab15x
dd if=/dev/urandom of=/lab15x/fs/b bs=64K count=2 status=none
zpool sync lab15x
zfs snapshot lab15x/fs@s2
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zfs clone lab15x/fs@s1 lab15x/c1
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zdb -dd lab15x
dd if=/dev/urandom of=/lab15x/c1/c bs=64K count=2 status=none
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zfs promote lab15x/c1
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zdb -dd lab15x
zfs rollback lab15x/fs@s2
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
dd if=/dev/urandom of=/lab15x/fs/d bs=64K count=1 status=none
zpool sync lab15x
zfs rollback lab15x/fs@s2
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zfs destroy lab15x/fs@s2
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zfs destroy lab15x/fs
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zdb -dd lab15x
zfs destroy -r lab15x/c1
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zdb -dd lab15x
zpool destroy lab15x
zpool create -o ashift=12 lab15x raidz1 /var/tmp/labs/lab15x-a.raw /var/tmp/labs/lab15x-b.raw /var/tmp/labs/lab15x-c.raw
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zdb -dd lab15x
zfs create lab15x/fs
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zfs set compression=gzip lab15x/fs
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
dd if=/dev/urandom of=/lab15x/fs/a bs=64K count=4 status=none
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zfs snapshot lab15x/fs@s1
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zfs clone lab15x/fs@s1 lab15x/c1
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zfs promote lab15x/c1
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zfs destroy lab15x/fs
zpool sync lab15x
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15x
zdb -dd lab15x
zpool destroy lab15x
rm /var/tmp/labs/lab15x-a.raw /var/tmp/labs/lab15x-b.raw /var/tmp/labs/lab15x-c.raw
