# Probe (issue 15): how the MOS of a small RAID-Z2 grows as files of 128K and then 4K records
# are written, compressed, scrubbed and snapshotted. Generated seed 88 runs these steps and its
# root's USEDCHILD ends 107K-125K above labsim's on 2.3.9 (the MOS, three copies of each block)
# while it agreed after the first file. zdb -dd lists the MOS's objects after each step and
# zdb -m the space maps, so the objects that grow can be named.
mkdir -p /var/tmp/labs
truncate -s 64M /var/tmp/labs/lab15s-1.raw /var/tmp/labs/lab15s-2.raw /var/tmp/labs/lab15s-3.raw /var/tmp/labs/lab15s-4.raw
zpool create -o ashift=12 -O compression=off lab15s raidz2 /var/tmp/labs/lab15s-1.raw /var/tmp/labs/lab15s-2.raw /var/tmp/labs/lab15s-3.raw /var/tmp/labs/lab15s-4.raw
yes label | head -c 2097152 > /lab15s/f1
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15s
dd if=/dev/urandom of=/lab15s/f2 bs=128K count=16 status=none
dd if=/dev/urandom of=/lab15s/f1 bs=4K seek=240 count=269 conv=notrunc status=none
seq 1 599186 > /lab15s/f3
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15s
zdb -dd lab15s
zfs set recordsize=4K lab15s
zfs set compression=zstd lab15s
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15s
dd if=/dev/urandom of=/lab15s/f4 bs=1M count=4 status=none
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15s
zdb -dd lab15s
zdb -m lab15s
zpool scrub -w lab15s
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15s
zdb -dd lab15s
seq 1 299593 > /lab15s/f5
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15s
zfs snapshot lab15s@s6
zpool sync lab15s
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15s
zdb -dd lab15s
zdb -m lab15s
zpool destroy lab15s
rm /var/tmp/labs/lab15s-1.raw /var/tmp/labs/lab15s-2.raw /var/tmp/labs/lab15s-3.raw /var/tmp/labs/lab15s-4.raw
