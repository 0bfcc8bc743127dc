# Probe (issue 15): which object numbers new files and directories get, and what the first
# dnode blocks compress to. Settles two things labsim cannot tell from `zfs list`:
# (1) whether a file made after a `zfs create` / `zfs destroy` lands in the first chunk of
#     object numbers or in another CPU's (objects 128 on, dmu_object_alloc_impl()), which
#     generated seed 66 suggests (its root keeps a dnode block more once `seq > f3` made a
#     file after a child's mountpoint directory came and went); and whether an import
#     starts the chunks again (labsim.zfs.objset.objsets_reopened());
# (2) the physical size of dnode block 0 with files of one data block, of holes, embedded
#     in their pointer (labsim.zfs.dnode_contents), at ashift 9: zdb -dddddd lists the
#     meta-dnode's L0 blocks with their psize, and each object's number.
# `zdb -dd` after each step gives the object numbers; `zdb -dddddd POOL/ 0` the meta-dnode.
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15d-a.raw
zpool create -o ashift=9 lab15d /var/tmp/labs/lab15d-a.raw
yes dataset | head -c 20480 > /lab15d/f1
zfs create -o compression=off lab15d/fs2
zpool sync lab15d
zdb -dd lab15d/
dd if=/dev/zero of=/lab15d/f1 bs=4K seek=1 count=3 conv=notrunc status=none
zfs destroy lab15d/fs2
seq 1 585 > /lab15d/f3
zpool sync lab15d
zdb -dd lab15d/
zdb -dddddd lab15d/ 0
zfs list -p -o name,refer,logicalreferenced lab15d
dd if=/dev/urandom of=/lab15d/f4 bs=128K count=1 status=none
dd if=/dev/zero of=/lab15d/f5 bs=128K count=2 status=none
seq 1 5 > /lab15d/f6
zpool sync lab15d
zdb -dddddd lab15d/ 0
zfs list -p -o name,refer,logicalreferenced lab15d
zpool export lab15d
zpool import -d /var/tmp/labs lab15d
seq 1 9 > /lab15d/f7
zfs create lab15d/fs8
zfs create lab15d/fs9
zpool sync lab15d
zdb -dd lab15d/
zdb -dddddd lab15d/ 0
zfs list -p -o name,refer,logicalreferenced lab15d
zpool destroy lab15d
rm /var/tmp/labs/lab15d-a.raw
