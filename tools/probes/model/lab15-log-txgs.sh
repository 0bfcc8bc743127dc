# Probe (issue 15): which txgs each command dirties, and what the log space maps and the
# metaslabs' unflushed txgs are after each (zdb -mmm), with zpool history -il giving the
# txg of every internal event. RAID-Z1 of four files at ashift 12 (generated seed 35's
# shape): property changes, a snapshot, a write, a destroy.
mkdir -p /var/tmp/labs
truncate -s 192M /var/tmp/labs/lab15t-1.raw /var/tmp/labs/lab15t-2.raw /var/tmp/labs/lab15t-3.raw /var/tmp/labs/lab15t-4.raw
zpool create -o ashift=12 lab15t raidz1 /var/tmp/labs/lab15t-1.raw /var/tmp/labs/lab15t-2.raw /var/tmp/labs/lab15t-3.raw /var/tmp/labs/lab15t-4.raw
zpool sync lab15t
zpool list -p lab15t
zdb -mmm lab15t
zfs set recordsize=1M lab15t
zpool list -p lab15t
zdb -mmm lab15t
zpool sync lab15t
zpool list -p lab15t
zdb -mmm lab15t
zfs set compression=lz4 lab15t
zpool sync lab15t
zpool list -p lab15t
zdb -mmm lab15t
zfs set sync=always lab15t
zpool sync lab15t
zpool list -p lab15t
zdb -mmm lab15t
zfs snapshot lab15t@a
zpool sync lab15t
zpool list -p lab15t
zdb -mmm lab15t
dd if=/dev/urandom of=/lab15t/f1 bs=64K count=4 status=none
zpool sync lab15t
zpool list -p lab15t
zdb -mmm lab15t
zfs destroy lab15t@a
zpool sync lab15t
zpool list -p lab15t
zdb -mmm lab15t
zpool sync lab15t
zpool sync lab15t
zpool list -p lab15t
zdb -mmm lab15t
zpool history -il lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-1.raw /var/tmp/labs/lab15t-2.raw /var/tmp/labs/lab15t-3.raw /var/tmp/labs/lab15t-4.raw
