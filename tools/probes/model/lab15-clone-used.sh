# Probe (issue 15): what a fresh clone holds (its metadata), and how snapshot and clone space
# moves as the clone diverges and is promoted.
mkdir -p /var/tmp/labs
truncate -s 512M /var/tmp/labs/lab15c.raw
zpool create -o ashift=12 lab15c /var/tmp/labs/lab15c.raw
zfs create -o compression=off lab15c/src
dd if=/dev/urandom of=/lab15c/src/a bs=1M count=16 status=none
dd if=/dev/urandom of=/lab15c/src/b bs=128k count=40 status=none
zfs snapshot lab15c/src@s1
zfs clone lab15c/src@s1 lab15c/copy
zpool sync lab15c
zfs list -p -r -t all -o name,used,refer,usedds,usedsnap,usedchild,origin lab15c
zfs get -p -H -o name,property,value written,logicalused,logicalreferenced lab15c/copy
dd if=/dev/urandom of=/lab15c/copy/a bs=1M count=4 conv=notrunc status=none
rm /lab15c/copy/b
zpool sync lab15c
zfs list -p -r -t all -o name,used,refer,usedds,usedsnap,usedchild,origin lab15c
zfs promote lab15c/copy
zpool sync lab15c
zfs list -p -r -t all -o name,used,refer,usedds,usedsnap,usedchild,origin lab15c
zfs destroy -r lab15c/src
zfs list -p -r -t all -o name,used,refer,usedds,usedsnap,usedchild,origin lab15c
zpool destroy lab15c
rm /var/tmp/labs/lab15c.raw
