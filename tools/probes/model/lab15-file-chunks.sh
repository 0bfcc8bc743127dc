# Probe (issue 15): which chunk of object numbers new files land in. Generated tuning
# seed 89 (both releases, every run): a snapshot taken between two file creations holds
# 56K uniquely at ashift 12, the root group and one dnode block, where labsim counted
# the root group and two (the files' first dnode block and the root directory's).
# dmu_object_alloc_impl() (module/zfs/dmu_object.c) gives each CPU its own chunk of 128
# object numbers; `ls -i` prints a file's object number, `zdb -dd` every object's.
mkdir -p /var/tmp/labs/lab15f
truncate -s 128M /var/tmp/labs/lab15f/d1.raw
zpool create -o ashift=12 lab15f /var/tmp/labs/lab15f/d1.raw
zfs snapshot lab15f@s1
seq -f 'ashift dataset %g vdev' 1 322638 > /lab15f/f2
zpool sync lab15f
ls -i /lab15f
zfs set sync=standard lab15f
seq 1 299593 > /lab15f/f3
ls -i /lab15f
zfs snapshot lab15f@s4
zfs destroy lab15f@s4
zfs snapshot lab15f@s5
yes parity | head -c 16777216 > /lab15f/f6
ls -i /lab15f
zfs snapshot lab15f@s7
dd if=/dev/urandom of=/lab15f/f8 bs=1M count=1 status=none
ls -i /lab15f
zpool sync lab15f
zfs list -p -r -t all -o name,used,refer,usedbysnapshots,usedbydataset lab15f
zdb -dd lab15f/
yes a | head -c 4096 > /lab15f/g1
yes b | head -c 4096 > /lab15f/g2
dd if=/dev/zero of=/lab15f/g3 bs=4K count=1 status=none
seq 1 10 > /lab15f/g4
ls -i /lab15f
zpool sync lab15f
zfs list -p -r -t all -o name,used,refer,usedbysnapshots,usedbydataset lab15f
zpool destroy lab15f
rm -r /var/tmp/labs/lab15f
