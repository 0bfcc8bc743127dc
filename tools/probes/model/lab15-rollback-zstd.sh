# Probe (issue 15): the MOS before and after a snapshot and a rollback of a new pool's root
# with a per-dataset feature active (compression=zstd at creation: zstd_compress), on a
# RAID-Z3 of five files at ashift 12, the shape of generated seed 27, where real OpenZFS's
# MOS came out larger than labsim's by the same amount in every run (78336 on 2.3.9).
mkdir -p /var/tmp/labs
truncate -s 96M /var/tmp/labs/lab15r-1.raw /var/tmp/labs/lab15r-2.raw /var/tmp/labs/lab15r-3.raw /var/tmp/labs/lab15r-4.raw /var/tmp/labs/lab15r-5.raw
zpool create -o ashift=12 -O compression=zstd -O recordsize=32K lab15r raidz3 /var/tmp/labs/lab15r-1.raw /var/tmp/labs/lab15r-2.raw /var/tmp/labs/lab15r-3.raw /var/tmp/labs/lab15r-4.raw /var/tmp/labs/lab15r-5.raw
zpool sync lab15r
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15r
zdb -dd lab15r
zfs snapshot lab15r@s1
zpool sync lab15r
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15r
zdb -dd lab15r
zfs rollback lab15r@s1
zpool sync lab15r
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15r
zdb -dd lab15r
zpool destroy lab15r
rm /var/tmp/labs/lab15r-1.raw /var/tmp/labs/lab15r-2.raw /var/tmp/labs/lab15r-3.raw /var/tmp/labs/lab15r-4.raw /var/tmp/labs/lab15r-5.raw
