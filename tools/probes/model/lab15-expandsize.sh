# Probe (issue 15): EXPANDSZ, and a vdev that grows. labsim printed "-" for EXPANDSZ
# always; real OpenZFS 2.3.9 printed 128M on a RAID-Z2 imported without its smallest
# disk (generated tuning seed 132: vdev_max_asize is taken over the children that open,
# vdev_asize stays). This probe records: a mirror whose smaller side is missing at
# import; a mirror whose files grow, reopened by zpool online without and with -e, by an
# export and import, and with autoexpand=on; a single-disk vdev grown and expanded.
mkdir -p /var/tmp/labs/lab15x/away
truncate -s 192M /var/tmp/labs/lab15x/m1.raw
truncate -s 256M /var/tmp/labs/lab15x/m2.raw
zpool create -f lab15x mirror /var/tmp/labs/lab15x/m1.raw /var/tmp/labs/lab15x/m2.raw
zpool list -p -v lab15x
zpool export lab15x
mv /var/tmp/labs/lab15x/m1.raw /var/tmp/labs/lab15x/away/
zpool import -d /var/tmp/labs/lab15x lab15x
zpool list -p -v lab15x
zpool get -p size,expandsize,autoexpand lab15x
zpool export lab15x
mv /var/tmp/labs/lab15x/away/m1.raw /var/tmp/labs/lab15x/
zpool import -d /var/tmp/labs/lab15x lab15x
zpool list -p -v lab15x
truncate -s 320M /var/tmp/labs/lab15x/m1.raw /var/tmp/labs/lab15x/m2.raw
zpool list -p -v lab15x
zpool online lab15x /var/tmp/labs/lab15x/m1.raw
zpool list -p -v lab15x
zpool online -e lab15x /var/tmp/labs/lab15x/m1.raw
zpool list -p -v lab15x
zpool online -e lab15x /var/tmp/labs/lab15x/m2.raw
zpool list -p -v lab15x
zpool list -v lab15x
truncate -s 384M /var/tmp/labs/lab15x/m1.raw /var/tmp/labs/lab15x/m2.raw
zpool export lab15x
zpool import -d /var/tmp/labs/lab15x lab15x
zpool list -p -v lab15x
zpool set autoexpand=on lab15x
zpool list -p -v lab15x
zpool online lab15x /var/tmp/labs/lab15x/m2.raw
zpool list -p -v lab15x
truncate -s 448M /var/tmp/labs/lab15x/m1.raw /var/tmp/labs/lab15x/m2.raw
zpool export lab15x
zpool import -d /var/tmp/labs/lab15x lab15x
zpool list -p -v lab15x
zpool get -p size,expandsize,autoexpand lab15x
zpool status lab15x
zpool destroy lab15x
truncate -s 100M /var/tmp/labs/lab15x/s1.raw
zpool create -o ashift=12 lab15x /var/tmp/labs/lab15x/s1.raw
dd if=/dev/urandom of=/lab15x/f1 bs=128K count=16 status=none
zpool sync lab15x
zpool list -p -v lab15x
truncate -s 300M /var/tmp/labs/lab15x/s1.raw
zpool online -e lab15x /var/tmp/labs/lab15x/s1.raw
zpool list -p -v lab15x
zfs list -p -o name,used,avail lab15x
zpool destroy lab15x
rm /var/tmp/labs/lab15x/m1.raw /var/tmp/labs/lab15x/m2.raw /var/tmp/labs/lab15x/s1.raw
