# Probe (issue 15): the MOS objects a missing mirror member's dirty time log takes
# (vdev_dtl_sync() keeps each leaf's DTL as a space map object of the MOS), through an
# import without the member, a write, and the import that brings it back and its
# resilver. zdb -C shows each leaf's DTL object, zdb -dd the MOS's objects and sizes.
mkdir -p /var/tmp/labs/lab15x/away
truncate -s 128M /var/tmp/labs/lab15x/a.raw /var/tmp/labs/lab15x/b.raw
zpool create -o ashift=12 lab15x mirror /var/tmp/labs/lab15x/a.raw /var/tmp/labs/lab15x/b.raw
zpool sync lab15x
zfs list -p -o name,used,usedchild lab15x
zdb -C lab15x
zpool export lab15x
mv /var/tmp/labs/lab15x/b.raw /var/tmp/labs/lab15x/away/
zpool import -d /var/tmp/labs/lab15x lab15x
zpool sync lab15x
zfs list -p -o name,used,usedchild lab15x
zdb -C lab15x
zdb -dd lab15x
dd if=/dev/urandom of=/lab15x/f1 bs=1M count=1 status=none
zpool sync lab15x
zfs list -p -o name,used,usedchild lab15x
zpool export lab15x
mv /var/tmp/labs/lab15x/away/b.raw /var/tmp/labs/lab15x/b.raw
zpool import -d /var/tmp/labs/lab15x lab15x
zpool sync lab15x
zpool wait -t resilver lab15x
zpool sync lab15x
zpool status lab15x
zfs list -p -o name,used,usedchild lab15x
zdb -C lab15x
zdb -dd lab15x
zpool destroy lab15x
rm -r /var/tmp/labs/lab15x
