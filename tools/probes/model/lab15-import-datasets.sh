# Probe (issue 15): what an export and import add to the MOS of a pool that holds data and
# a file system. On the generated tuning scripts (2.3.9) labsim's root USEDCHILD after an
# export and import is short more often than over, by up to eight sectors of three copies
# at ashift 9 (a two-disk stripe with a file system and small files), while an empty
# mirror's export and import (lab15-import-cycles) agree. Two single disks at ashift 9,
# a file system and two small files of random bytes; `zdb -dd` and `zdb -m` before the
# export, after the import and after each of two syncs.
mkdir -p /var/tmp/labs/lab15k
truncate -s 64M /var/tmp/labs/lab15k/d1.raw /var/tmp/labs/lab15k/d2.raw
zpool create -o ashift=9 lab15k /var/tmp/labs/lab15k/d1.raw /var/tmp/labs/lab15k/d2.raw
zfs set recordsize=4K lab15k
dd if=/dev/urandom of=/lab15k/f1 bs=4K count=75 status=none
zfs create -o recordsize=64K lab15k/fs3
dd if=/dev/urandom of=/lab15k/fs3/f2 bs=4K count=25 status=none
zpool sync lab15k
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15k
zdb -dd lab15k
zdb -m lab15k
zpool export lab15k
zpool import -d /var/tmp/labs/lab15k lab15k
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15k
zpool sync lab15k
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15k
zdb -dd lab15k
zdb -m lab15k
zpool sync lab15k
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15k
dd if=/dev/urandom of=/lab15k/f1 bs=16K seek=9 count=7 conv=notrunc status=none
zpool sync lab15k
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15k
zdb -dd lab15k
zdb -m lab15k
zpool history -il lab15k
zpool destroy lab15k
rm -r /var/tmp/labs/lab15k
