# Probe (issue 15): how a deadlist's bpobj grows with the block pointers it holds. Blocks a
# snapshot keeps and the head then frees go to the head's deadlist (dsl_deadlist_insert() ->
# bpobj_enqueue(), a blkptr_t each, module/zfs/bpobj.c); zdb -dd shows the MOS's "bpobj"
# objects and their sizes. Generated seed 0's shape: a RAID-Z2 at ashift 12, 4K records.
mkdir -p /var/tmp/labs
truncate -s 192M /var/tmp/labs/lab15b-1.raw /var/tmp/labs/lab15b-2.raw /var/tmp/labs/lab15b-3.raw /var/tmp/labs/lab15b-4.raw /var/tmp/labs/lab15b-5.raw /var/tmp/labs/lab15b-6.raw
zpool create -o ashift=12 -O recordsize=4K lab15b raidz2 /var/tmp/labs/lab15b-1.raw /var/tmp/labs/lab15b-2.raw /var/tmp/labs/lab15b-3.raw /var/tmp/labs/lab15b-4.raw /var/tmp/labs/lab15b-5.raw /var/tmp/labs/lab15b-6.raw
dd if=/dev/urandom of=/lab15b/f1 bs=1M count=4 status=none
zfs snapshot lab15b@a
zpool sync lab15b
zpool list -p lab15b
zfs list -p -r -t all -o name,used,refer,usedsnap,usedchild lab15b
zdb -dd lab15b
seq 1 100 > /lab15b/f1
zpool sync lab15b
zpool list -p lab15b
zfs list -p -r -t all -o name,used,refer,usedsnap,usedchild lab15b
zdb -dd lab15b
dd if=/dev/urandom of=/lab15b/f2 bs=1M count=12 status=none
zfs snapshot lab15b@b
rm /lab15b/f2
zpool sync lab15b
zpool list -p lab15b
zfs list -p -r -t all -o name,used,refer,usedsnap,usedchild lab15b
zdb -dd lab15b
zfs set recordsize=128K lab15b
dd if=/dev/urandom of=/lab15b/f3 bs=1M count=16 status=none
zfs snapshot lab15b@c
rm /lab15b/f3
zpool sync lab15b
zpool list -p lab15b
zfs list -p -r -t all -o name,used,refer,usedsnap,usedchild lab15b
zdb -dd lab15b
zfs destroy lab15b@b
zpool sync lab15b
zpool list -p lab15b
zfs list -p -r -t all -o name,used,refer,usedsnap,usedchild lab15b
zdb -dd lab15b
zpool destroy lab15b
rm /var/tmp/labs/lab15b-1.raw /var/tmp/labs/lab15b-2.raw /var/tmp/labs/lab15b-3.raw /var/tmp/labs/lab15b-4.raw /var/tmp/labs/lab15b-5.raw /var/tmp/labs/lab15b-6.raw
