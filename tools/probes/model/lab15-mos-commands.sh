# Probe (issue 15): what each kind of command adds to the MOS, at ashift 9 on one disk
# (512-byte resolution): after each step a `zpool sync`, the root's USEDCHILD (the MOS, $FREE
# and the children) and the MOS's objects with their sizes (zdb -dd). The steps are the
# generated scripts' commands: a file system create and destroy, a property set, a snapshot
# and its destroy, a clone, export and import, a scrub, writes in separate txgs.
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15c-a.raw
zpool create -o ashift=9 lab15c /var/tmp/labs/lab15c-a.raw
zpool sync lab15c
zfs list -p -r -t all -o name,used,usedchild lab15c
zdb -dd lab15c
zfs create lab15c/fs
zpool sync lab15c
zfs list -p -r -t all -o name,used,usedchild lab15c
zdb -dd lab15c
zfs set compression=gzip lab15c/fs
zpool sync lab15c
zfs list -p -r -t all -o name,used,usedchild lab15c
zdb -dd lab15c
dd if=/dev/urandom of=/lab15c/fs/a bs=64K count=4 status=none
zpool sync lab15c
zfs list -p -r -t all -o name,used,usedchild lab15c
zdb -dd lab15c
zfs destroy lab15c/fs
zpool sync lab15c
zfs list -p -r -t all -o name,used,usedchild lab15c
zdb -dd lab15c
zpool sync lab15c
zfs list -p -r -t all -o name,used,usedchild lab15c
zpool export lab15c
zpool import -d /var/tmp/labs lab15c
zfs list -p -r -t all -o name,used,usedchild lab15c
zpool sync lab15c
zfs list -p -r -t all -o name,used,usedchild lab15c
zdb -dd lab15c
zpool scrub -w lab15c
zpool sync lab15c
zfs list -p -r -t all -o name,used,usedchild lab15c
zdb -dd lab15c
dd if=/dev/urandom of=/lab15c/b bs=64K count=4 status=none
zpool sync lab15c
dd if=/dev/urandom of=/lab15c/c bs=64K count=4 status=none
zpool sync lab15c
zfs list -p -r -t all -o name,used,usedchild lab15c
zdb -dd lab15c
zpool destroy lab15c
rm /var/tmp/labs/lab15c-a.raw
