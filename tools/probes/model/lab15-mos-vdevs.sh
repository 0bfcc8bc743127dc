# Probe (issue 15): what each further top-level vdev adds to a new pool's MOS (its space
# maps, its unflushed-txgs array, its vdev ZAPs, a larger config), at ashift 9 and 12: one,
# two and three single files, two mirrors.
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15x-a.raw /var/tmp/labs/lab15x-b.raw /var/tmp/labs/lab15x-c.raw /var/tmp/labs/lab15x-d.raw
zpool create -o ashift=9 lab15x /var/tmp/labs/lab15x-a.raw
zpool sync lab15x
zfs list -p -o name,used,refer,usedchild,logicalused,logicalreferenced lab15x
zdb -dd lab15x
zpool destroy lab15x
zpool create -o ashift=9 lab15x /var/tmp/labs/lab15x-a.raw /var/tmp/labs/lab15x-b.raw
zpool sync lab15x
zfs list -p -o name,used,refer,usedchild,logicalused,logicalreferenced lab15x
zdb -dd lab15x
zpool destroy lab15x
zpool create -o ashift=9 lab15x /var/tmp/labs/lab15x-a.raw /var/tmp/labs/lab15x-b.raw /var/tmp/labs/lab15x-c.raw
zpool sync lab15x
zfs list -p -o name,used,refer,usedchild,logicalused,logicalreferenced lab15x
zdb -dd lab15x
zpool destroy lab15x
zpool create -o ashift=9 lab15x mirror /var/tmp/labs/lab15x-a.raw /var/tmp/labs/lab15x-b.raw mirror /var/tmp/labs/lab15x-c.raw /var/tmp/labs/lab15x-d.raw
zpool sync lab15x
zfs list -p -o name,used,refer,usedchild,logicalused,logicalreferenced lab15x
zdb -dd lab15x
zpool destroy lab15x
zpool create -o ashift=12 lab15x /var/tmp/labs/lab15x-a.raw /var/tmp/labs/lab15x-b.raw
zpool sync lab15x
zfs list -p -o name,used,refer,usedchild,logicalused,logicalreferenced lab15x
zdb -dd lab15x
zpool destroy lab15x
rm /var/tmp/labs/lab15x-a.raw /var/tmp/labs/lab15x-b.raw /var/tmp/labs/lab15x-c.raw /var/tmp/labs/lab15x-d.raw
