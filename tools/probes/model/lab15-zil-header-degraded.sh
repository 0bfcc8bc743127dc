# Probe (issue 15): the root's ZIL header through generated seed 63's steps, where a clone
# of the root's snapshot owned nothing in every real run (so the snapshot's ZIL header was
# zero) and labsim's owned an objset block: writes, a child file system, export and
# import with a renamed device, more writes, export and import with a device missing,
# the child destroyed, a snapshot, a clone. zdb -i after each import and at the end.
mkdir -p /var/tmp/labs/lab15h/away
truncate -s 96M /var/tmp/labs/lab15h/d1.raw /var/tmp/labs/lab15h/d2.raw /var/tmp/labs/lab15h/d3.raw /var/tmp/labs/lab15h/d4.raw /var/tmp/labs/lab15h/d5.raw
zpool create -o ashift=9 -O compression=lz4 lab15h raidz3 /var/tmp/labs/lab15h/d1.raw /var/tmp/labs/lab15h/d2.raw /var/tmp/labs/lab15h/d3.raw /var/tmp/labs/lab15h/d4.raw /var/tmp/labs/lab15h/d5.raw
dd if=/dev/urandom of=/lab15h/f1 bs=1M count=2 status=none
zfs create -o recordsize=32K -o compression=off -o copies=3 lab15h/fs3
zpool export lab15h
mv /var/tmp/labs/lab15h/d5.raw /var/tmp/labs/lab15h/d5-r4.raw
zpool import -d /var/tmp/labs/lab15h lab15h
zdb -i lab15h
zpool sync lab15h
dd if=/dev/urandom of=/lab15h/f5 bs=1M count=2 status=none
zpool export lab15h
zpool import -d /var/tmp/labs/lab15h lab15h
zdb -i lab15h
zpool export lab15h
mv /var/tmp/labs/lab15h/d2.raw /var/tmp/labs/lab15h/away/
zpool import -d /var/tmp/labs/lab15h lab15h
zdb -i lab15h
zfs destroy lab15h/fs3
zpool sync lab15h
zdb -i lab15h
zfs snapshot lab15h@s7
zfs clone lab15h@s7 lab15h/clone9
zpool sync lab15h
zfs list -p -r -t all -o name,used,refer,usedds lab15h
zdb -i lab15h
zpool destroy lab15h
rm -r /var/tmp/labs/lab15h
