# Probe (issue 15): how a dsl_dataset object grows as per-dataset features are activated on
# it, and the pool's map of its vdev ZAPs. Every file system starts with the user-object and
# project accounting features; a third (zilsaxattr on the first intent-log commit, zstd_compress,
# large_blocks) takes its micro ZAP out of its block pointer in labsim's model. Generated
# seed 84's shape (a RAID-Z1 of four files at ashift 12, sync=always, a snapshot), then
# generated seed 18's property changes on the root (compression=off, recordsize=512K,
# compression=zstd), a zstd file system and one of 1M records; zdb -dd lists the MOS's
# objects after each step.
mkdir -p /var/tmp/labs
truncate -s 128M /var/tmp/labs/lab15f-1.raw /var/tmp/labs/lab15f-2.raw /var/tmp/labs/lab15f-3.raw /var/tmp/labs/lab15f-4.raw
zpool create -o ashift=12 lab15f raidz1 /var/tmp/labs/lab15f-1.raw /var/tmp/labs/lab15f-2.raw /var/tmp/labs/lab15f-3.raw /var/tmp/labs/lab15f-4.raw
zfs set sync=always lab15f
zpool sync lab15f
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15f
zdb -dd lab15f
dd if=/dev/urandom of=/lab15f/f2 bs=4K count=25 status=none
zpool sync lab15f
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15f
zdb -dd lab15f
zfs snapshot lab15f@s1
zpool sync lab15f
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15f
zdb -dd lab15f
zfs set compression=off lab15f
zfs set recordsize=512K lab15f
zpool sync lab15f
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15f
zdb -dd lab15f
zfs set compression=zstd lab15f
zpool sync lab15f
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15f
zdb -dd lab15f
zfs create -o compression=zstd lab15f/z
zpool sync lab15f
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15f
zdb -dd lab15f
zfs create -o recordsize=1M -o sync=standard lab15f/l
dd if=/dev/urandom of=/lab15f/l/f bs=1M count=2 status=none
zpool sync lab15f
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15f
zdb -dd lab15f
zpool destroy lab15f
rm /var/tmp/labs/lab15f-1.raw /var/tmp/labs/lab15f-2.raw /var/tmp/labs/lab15f-3.raw /var/tmp/labs/lab15f-4.raw
