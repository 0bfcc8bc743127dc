# Probe (issue 15): which kind of change, left unsynced at an export, leaves a file system
# with a ZIL header after the import (zdb -i), and so a clone of its snapshot that owns an
# objset block. Generated seeds 159 (a file removed) and 63 (a child's mountpoint made)
# had none in every real run; 96 and 97 (a file written) had one. One file system per
# kind, one export and import per kind, the change the last command before the export.
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15k.raw
zpool create -o ashift=9 lab15k /var/tmp/labs/lab15k.raw
zfs create lab15k/rm
zfs create lab15k/dd
zfs create lab15k/mkdir
zfs create lab15k/seq
zfs create lab15k/child
seq 1 14628 > /lab15k/rm/f
seq 1 14628 > /lab15k/f
zpool sync lab15k
rm /lab15k/rm/f
zpool export lab15k
zpool import -d /var/tmp/labs lab15k
zdb -i lab15k
dd if=/dev/urandom of=/lab15k/dd/g bs=128K count=4 status=none
zpool export lab15k
zpool import -d /var/tmp/labs lab15k
zdb -i lab15k
mkdir /lab15k/mkdir/d
zpool export lab15k
zpool import -d /var/tmp/labs lab15k
zdb -i lab15k
seq 1 602 > /lab15k/seq/g
zpool export lab15k
zpool import -d /var/tmp/labs lab15k
zdb -i lab15k
zfs create lab15k/child/sub
zpool export lab15k
zpool import -d /var/tmp/labs lab15k
zdb -i lab15k
rm /lab15k/f
zpool export lab15k
zpool import -d /var/tmp/labs lab15k
zdb -i lab15k
zfs snapshot -r lab15k@s
zfs clone lab15k/rm@s lab15k/crm
zfs clone lab15k/dd@s lab15k/cdd
zfs clone lab15k/mkdir@s lab15k/cmkdir
zfs clone lab15k/seq@s lab15k/cseq
zfs clone lab15k/child@s lab15k/cchild
zfs clone lab15k@s lab15k/croot
zpool sync lab15k
zfs list -p -r -t filesystem -o name,used,refer,usedds,origin lab15k
zpool destroy lab15k
rm /var/tmp/labs/lab15k.raw
