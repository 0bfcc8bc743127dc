# Probe (issue 15): a mirror whose devices are replaced by larger ones, without and with
# autoexpand, and a detach of the smaller side. labsim follows spa_vdev_attach() and
# spa_vdev_detach() (module/zfs/spa.c): the new device is opened by itself and the
# top-level vdev is reopened, and so grows, only when autoexpand is on; this probe checks
# what EXPANDSZ and SIZE show after each step (lab15-expandsize recorded the opens).
# Each replace waits for its resilver (-w): a replace still resilvering shows its
# replacing-N vdev, which labsim, whose resilvers end at once, never shows.
mkdir -p /var/tmp/labs/lab15y
truncate -s 192M /var/tmp/labs/lab15y/a1.raw /var/tmp/labs/lab15y/a2.raw
truncate -s 320M /var/tmp/labs/lab15y/b1.raw /var/tmp/labs/lab15y/b2.raw
zpool create lab15y mirror /var/tmp/labs/lab15y/a1.raw /var/tmp/labs/lab15y/a2.raw
zpool replace -w lab15y /var/tmp/labs/lab15y/a1.raw /var/tmp/labs/lab15y/b1.raw
zpool list -p -v lab15y
zpool replace -w lab15y /var/tmp/labs/lab15y/a2.raw /var/tmp/labs/lab15y/b2.raw
zpool list -p -v lab15y
zpool list lab15y
zpool online lab15y /var/tmp/labs/lab15y/b1.raw
zpool list -p -v lab15y
zpool list lab15y
zpool online -e lab15y /var/tmp/labs/lab15y/b1.raw
zpool list -p -v lab15y
zpool list lab15y
zpool destroy lab15y
truncate -s 192M /var/tmp/labs/lab15y/a1.raw /var/tmp/labs/lab15y/a2.raw
zpool create -o autoexpand=on lab15y mirror /var/tmp/labs/lab15y/a1.raw /var/tmp/labs/lab15y/a2.raw
zpool replace -w lab15y /var/tmp/labs/lab15y/a1.raw /var/tmp/labs/lab15y/b1.raw
zpool list -p -v lab15y
zpool replace -w lab15y /var/tmp/labs/lab15y/a2.raw /var/tmp/labs/lab15y/b2.raw
zpool list -p -v lab15y
zpool destroy lab15y
zpool create -f lab15y mirror /var/tmp/labs/lab15y/a1.raw /var/tmp/labs/lab15y/b1.raw
zpool attach lab15y /var/tmp/labs/lab15y/b1.raw /var/tmp/labs/lab15y/b2.raw
zpool list -p -v lab15y
zpool detach lab15y /var/tmp/labs/lab15y/a1.raw
zpool list -p -v lab15y
zpool set autoexpand=on lab15y
zpool attach lab15y /var/tmp/labs/lab15y/b1.raw /var/tmp/labs/lab15y/a1.raw
zpool detach lab15y /var/tmp/labs/lab15y/a1.raw
zpool list -p -v lab15y
zpool destroy lab15y
rm /var/tmp/labs/lab15y/a1.raw /var/tmp/labs/lab15y/a2.raw /var/tmp/labs/lab15y/b1.raw /var/tmp/labs/lab15y/b2.raw
