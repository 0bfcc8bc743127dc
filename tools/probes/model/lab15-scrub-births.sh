# Probe (issue 15): which blocks a scrub after an import still finds damaged. Where part of
# a member was overwritten while the pool was exported, real OpenZFS counts about half the
# checksum errors labsim does (lab15-mirror-overwrite: 17-18 against 36; generated seed
# 173's RAID-Z1: 2-3 against 20). The hypothesis: the import's txgs and the scrub's own
# setup rewrite most of the MOS elsewhere before the scrub reads it, so only blocks born
# before the export and not rewritten since can be found damaged. zdb -ddddd lists every
# block pointer with its DVAs and birth txg: at the export (zdb -e), and after the scrub.
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab15b-a.raw /var/tmp/labs/lab15b-b.raw
zpool create -o ashift=12 lab15b mirror /var/tmp/labs/lab15b-a.raw /var/tmp/labs/lab15b-b.raw
zfs set compression=off lab15b
dd if=/dev/urandom of=/lab15b/data bs=1M count=48 status=none
zpool sync lab15b
zpool export lab15b
zdb -e -p /var/tmp/labs -ddddd lab15b
dd if=/dev/urandom of=/var/tmp/labs/lab15b-b.raw bs=1M seek=20 count=16 conv=notrunc status=none
zpool import -d /var/tmp/labs lab15b
zpool scrub -w lab15b
zpool status lab15b
zdb -ddddd lab15b
zpool destroy lab15b
rm /var/tmp/labs/lab15b-a.raw /var/tmp/labs/lab15b-b.raw
truncate -s 64M /var/tmp/labs/lab15c-1.raw /var/tmp/labs/lab15c-2.raw /var/tmp/labs/lab15c-3.raw /var/tmp/labs/lab15c-4.raw
zpool create -o ashift=9 -O compression=zstd lab15c raidz1 /var/tmp/labs/lab15c-1.raw /var/tmp/labs/lab15c-2.raw /var/tmp/labs/lab15c-3.raw /var/tmp/labs/lab15c-4.raw
zfs create -V 24M -o volblocksize=64K lab15c/vol1
udevadm settle
zpool sync lab15c
zpool export lab15c
zdb -e -p /var/tmp/labs -ddddd lab15c
dd if=/dev/urandom of=/var/tmp/labs/lab15c-4.raw bs=1M seek=10 count=50 conv=notrunc status=none
zpool import -d /var/tmp/labs lab15c
udevadm settle
zpool scrub -w lab15c
zpool status lab15c
zdb -ddddd lab15c
zpool destroy lab15c
rm /var/tmp/labs/lab15c-1.raw /var/tmp/labs/lab15c-2.raw /var/tmp/labs/lab15c-3.raw /var/tmp/labs/lab15c-4.raw
