# Probe (issue 15): what a resilver onto a whole new device reports. A sorted scan queues a
# block once per copy (dsl_scan_enqueue()) and each read writes every copy the new device
# lacks, so labsim counts each copy once per copy of its block. Lab 2's RAID-Z1 replace
# resilvered 24.3M-24.4M on real OpenZFS, where that rule alone gave 24.7M. Here: a mirror
# made from one device holding a copies=2 file (each record twice on the same vdev), and a
# RAID-Z1 member replaced, empty and with a file, so that the metadata's share shows alone.
# It showed that the MOS blocks the resilver's own txgs write anew are not scanned
# (labsim.zfs.scan.scanned_by_resilver()).
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15x-1.raw /var/tmp/labs/lab15x-2.raw
zpool create -o ashift=9 lab15x /var/tmp/labs/lab15x-1.raw
zfs set copies=2 lab15x
dd if=/dev/urandom of=/lab15x/f1 bs=128K count=16 status=none
zpool sync lab15x
zpool list -vp lab15x
zpool attach -w lab15x /var/tmp/labs/lab15x-1.raw /var/tmp/labs/lab15x-2.raw
zpool status lab15x
zpool destroy lab15x
truncate -s 256M /var/tmp/labs/lab15y-1.raw /var/tmp/labs/lab15y-2.raw /var/tmp/labs/lab15y-3.raw /var/tmp/labs/lab15y-4.raw /var/tmp/labs/lab15y-5.raw
zpool create -o ashift=12 lab15y raidz1 /var/tmp/labs/lab15y-1.raw /var/tmp/labs/lab15y-2.raw /var/tmp/labs/lab15y-3.raw
zpool sync lab15y
zpool list -vp lab15y
zpool offline lab15y /var/tmp/labs/lab15y-3.raw
zpool replace -w lab15y /var/tmp/labs/lab15y-3.raw /var/tmp/labs/lab15y-4.raw
zpool status lab15y
zfs set compression=off lab15y
dd if=/dev/urandom of=/lab15y/f1 bs=1M count=4 status=none
zpool sync lab15y
zpool list -vp lab15y
zpool offline lab15y /var/tmp/labs/lab15y-4.raw
zpool replace -w lab15y /var/tmp/labs/lab15y-4.raw /var/tmp/labs/lab15y-5.raw
zpool status lab15y
zpool destroy lab15y
rm /var/tmp/labs/lab15x-1.raw /var/tmp/labs/lab15x-2.raw /var/tmp/labs/lab15y-1.raw /var/tmp/labs/lab15y-2.raw /var/tmp/labs/lab15y-3.raw /var/tmp/labs/lab15y-4.raw /var/tmp/labs/lab15y-5.raw
