# Probe (issue 15): what a txg that changes only a property (zfs set: the dsl_dir's props
# ZAP and the pool history, in the MOS) adds to the pool, on a RAID-Z1 of four files at
# ashift 12, the shape of generated seed 35, where three zfs set and a zpool sync grew ALLOC
# by 147456 in every real run (and in seed 61's RAID-Z3) while labsim's did not move.
mkdir -p /var/tmp/labs
truncate -s 192M /var/tmp/labs/lab15s-1.raw /var/tmp/labs/lab15s-2.raw /var/tmp/labs/lab15s-3.raw /var/tmp/labs/lab15s-4.raw
zpool create -o ashift=12 lab15s raidz1 /var/tmp/labs/lab15s-1.raw /var/tmp/labs/lab15s-2.raw /var/tmp/labs/lab15s-3.raw /var/tmp/labs/lab15s-4.raw
zpool sync lab15s
zpool list -p lab15s
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15s
zdb -dd lab15s
zfs set recordsize=1M lab15s
zpool sync lab15s
zpool list -p lab15s
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15s
zdb -dd lab15s
zfs set compression=lz4 lab15s
zpool sync lab15s
zpool list -p lab15s
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15s
zdb -dd lab15s
zfs set sync=always lab15s
zpool sync lab15s
zpool list -p lab15s
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15s
zdb -dd lab15s
zpool sync lab15s
zpool sync lab15s
zpool list -p lab15s
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15s
zdb -dd lab15s
zdb -m lab15s
zpool destroy lab15s
rm /var/tmp/labs/lab15s-1.raw /var/tmp/labs/lab15s-2.raw /var/tmp/labs/lab15s-3.raw /var/tmp/labs/lab15s-4.raw
