# Probe (issue 15): every block of a new pool's root file system with its physical and
# allocated size (zdb -dddddd lists each object's block pointers by level), on one disk, on
# RAID-Z1 of three and on RAID-Z2 of four at ashift 9: which blocks take one sector and
# which two, and what RAID-Z's parity and padding make of them. Then a file in the RAID-Z2
# root after a snapshot, to see what the snapshot keeps.
mkdir -p /var/tmp/labs
truncate -s 128M /var/tmp/labs/lab15o-a.raw /var/tmp/labs/lab15o-b.raw /var/tmp/labs/lab15o-c.raw /var/tmp/labs/lab15o-d.raw /var/tmp/labs/lab15o-e.raw /var/tmp/labs/lab15o-f.raw /var/tmp/labs/lab15o-g.raw /var/tmp/labs/lab15o-h.raw
zpool create -o ashift=9 lab15o /var/tmp/labs/lab15o-a.raw
zpool create -o ashift=9 lab15p raidz1 /var/tmp/labs/lab15o-b.raw /var/tmp/labs/lab15o-c.raw /var/tmp/labs/lab15o-d.raw
zpool create -o ashift=9 lab15q raidz2 /var/tmp/labs/lab15o-e.raw /var/tmp/labs/lab15o-f.raw /var/tmp/labs/lab15o-g.raw /var/tmp/labs/lab15o-h.raw
zpool sync
zfs list -p -o name,used,refer,logicalreferenced lab15o lab15p lab15q
zdb -dddddd lab15o/
zdb -dddddd lab15p/
zdb -dddddd lab15q/
zfs snapshot lab15q@s1
dd if=/dev/urandom of=/lab15q/f bs=128K count=1 status=none
zpool sync lab15q
zfs list -p -r -t all -o name,used,refer,usedsnap lab15q
zdb -dddddd lab15q/
zdb -dddddd lab15q@s1
zpool destroy lab15o
zpool destroy lab15p
zpool destroy lab15q
rm /var/tmp/labs/lab15o-a.raw /var/tmp/labs/lab15o-b.raw /var/tmp/labs/lab15o-c.raw /var/tmp/labs/lab15o-d.raw /var/tmp/labs/lab15o-e.raw /var/tmp/labs/lab15o-f.raw /var/tmp/labs/lab15o-g.raw /var/tmp/labs/lab15o-h.raw
