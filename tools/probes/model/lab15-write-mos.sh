# Probe (issue 15): the MOS of a new RAID-Z2 after one file is written, on 2.1.11 and 2.3.9.
# Generated seed 88 does this; real 2.1.11 ends with a MOS five blocks (three copies each)
# larger than real 2.3.9's, every run alike, and labsim's 2.1 model two blocks short of it.
# zdb -dd lists the MOS's objects after the create and after the write, zdb -m the space
# maps, so the two releases can be compared object by object.
mkdir -p /var/tmp/labs
truncate -s 64M /var/tmp/labs/lab15w-1.raw /var/tmp/labs/lab15w-2.raw /var/tmp/labs/lab15w-3.raw /var/tmp/labs/lab15w-4.raw
zpool create -o ashift=12 -O compression=off lab15w raidz2 /var/tmp/labs/lab15w-1.raw /var/tmp/labs/lab15w-2.raw /var/tmp/labs/lab15w-3.raw /var/tmp/labs/lab15w-4.raw
zpool sync lab15w
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15w
zdb -dd lab15w
zdb -m lab15w
yes label | head -c 2097152 > /lab15w/f1
zpool sync lab15w
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15w
zdb -dd lab15w
zdb -m lab15w
zpool destroy lab15w
rm /var/tmp/labs/lab15w-1.raw /var/tmp/labs/lab15w-2.raw /var/tmp/labs/lab15w-3.raw /var/tmp/labs/lab15w-4.raw
