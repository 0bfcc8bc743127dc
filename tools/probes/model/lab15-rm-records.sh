# Probe (issue 15): what removing a file of many small records leaves in the MOS, with no
# snapshot to keep its blocks (generated seed 9, where the root's USEDCHILD came out 137088
# larger than labsim's in every run after `rm`): RAID-Z3 of five files at ashift 12, 4K
# records; zdb -dd lists the MOS's objects and their sizes before and after.
mkdir -p /var/tmp/labs
truncate -s 64M /var/tmp/labs/lab15d-1.raw /var/tmp/labs/lab15d-2.raw /var/tmp/labs/lab15d-3.raw /var/tmp/labs/lab15d-4.raw /var/tmp/labs/lab15d-5.raw
zpool create -o ashift=12 -O recordsize=4K lab15d raidz3 /var/tmp/labs/lab15d-1.raw /var/tmp/labs/lab15d-2.raw /var/tmp/labs/lab15d-3.raw /var/tmp/labs/lab15d-4.raw /var/tmp/labs/lab15d-5.raw
dd if=/dev/urandom of=/lab15d/f1 bs=128K count=32 status=none
zpool sync lab15d
zpool list -p lab15d
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15d
zdb -dd lab15d
rm /lab15d/f1
zpool sync lab15d
zpool list -p lab15d
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15d
zdb -dd lab15d
zpool sync lab15d
zpool sync lab15d
zpool list -p lab15d
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15d
zdb -dd lab15d
zpool destroy lab15d
rm /var/tmp/labs/lab15d-1.raw /var/tmp/labs/lab15d-2.raw /var/tmp/labs/lab15d-3.raw /var/tmp/labs/lab15d-4.raw /var/tmp/labs/lab15d-5.raw
