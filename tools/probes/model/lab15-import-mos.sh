# Probe (issue 15): what an export and an import leave in the MOS of a new pool (generated
# seed 35's shape, where the root's USED after `zpool export`, a renamed vdev file and
# `zpool import -d` came out 49152 bytes of allocation larger than labsim's in all four
# runs): a RAID-Z1 of four files at ashift 12; zdb -dd lists the MOS's objects and zdb -m
# the space maps before the export, after the import and after one more sync.
mkdir -p /var/tmp/labs/lab15i
truncate -s 192M /var/tmp/labs/lab15i/d1.raw /var/tmp/labs/lab15i/d2.raw /var/tmp/labs/lab15i/d3.raw /var/tmp/labs/lab15i/d4.raw
zpool create -o ashift=12 lab15i raidz1 /var/tmp/labs/lab15i/d1.raw /var/tmp/labs/lab15i/d2.raw /var/tmp/labs/lab15i/d3.raw /var/tmp/labs/lab15i/d4.raw
zpool sync lab15i
zpool list -p lab15i
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15i
zdb -dd lab15i
zdb -m lab15i
zpool export lab15i
mv /var/tmp/labs/lab15i/d1.raw /var/tmp/labs/lab15i/d1-r.raw
zpool import -d /var/tmp/labs/lab15i lab15i
zpool list -p lab15i
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15i
zdb -dd lab15i
zdb -m lab15i
zpool sync lab15i
zpool list -p lab15i
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15i
zdb -dd lab15i
zdb -m lab15i
zpool history -il lab15i
zpool destroy lab15i
rm -r /var/tmp/labs/lab15i
