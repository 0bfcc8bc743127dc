# Probe (issue 15): what the MOS's own dnode blocks compress to as objects join it. On the
# generated tuning scripts (2.3.9) labsim's MOS at the first checkpoint is short at ashift 9
# by about one sector (three copies) per `zfs create`, snapshot or clone before it, and
# lab15-mos-growth shows the MOS meta-dnode growing one sector with a `zfs create` and
# with a first snapshot: labsim does not grow the MOS's dnode blocks. A two-way mirror at
# ashift 9 (512-byte resolution); after each step `zdb -dd` numbers the MOS's objects and
# `zdb -dddddd POOL 0` lists the MOS meta-dnode's L0 blocks with their physical sizes.
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15n-a.raw /var/tmp/labs/lab15n-b.raw
zpool create -o ashift=9 lab15n mirror /var/tmp/labs/lab15n-a.raw /var/tmp/labs/lab15n-b.raw
zpool sync lab15n
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15n
zdb -dd lab15n
zdb -dddddd lab15n 0
zfs create lab15n/fs
zpool sync lab15n
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15n
zdb -dd lab15n
zdb -dddddd lab15n 0
zfs create lab15n/fs2
zpool sync lab15n
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15n
zdb -dd lab15n
zdb -dddddd lab15n 0
zfs snapshot lab15n/fs@s1
zpool sync lab15n
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15n
zdb -dd lab15n
zdb -dddddd lab15n 0
zfs create -V 8M lab15n/vol
udevadm settle
zpool sync lab15n
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15n
zdb -dd lab15n
zdb -dddddd lab15n 0
zfs clone lab15n/fs@s1 lab15n/cl
zpool sync lab15n
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15n
zdb -dd lab15n
zdb -dddddd lab15n 0
zpool destroy lab15n
rm /var/tmp/labs/lab15n-a.raw /var/tmp/labs/lab15n-b.raw
