# Probe (issue 15): the MOS of two unequal mirrors at ashift 12 (generated seed 167's shape:
# 96M and 512M members) after the create and after one 4M file, where labsim's MOS was two
# blocks (three copies each, 24K) larger than real OpenZFS's in all five runs. zdb -dd
# lists the MOS's objects, zdb -m the space maps and which metaslabs hold data.
mkdir -p /var/tmp/labs/lab15t
truncate -s 96M /var/tmp/labs/lab15t/d1.raw /var/tmp/labs/lab15t/d2.raw
truncate -s 512M /var/tmp/labs/lab15t/d3.raw
truncate -s 576M /var/tmp/labs/lab15t/d4.raw
zpool create -f -o ashift=12 lab15t mirror /var/tmp/labs/lab15t/d1.raw /var/tmp/labs/lab15t/d2.raw mirror /var/tmp/labs/lab15t/d3.raw /var/tmp/labs/lab15t/d4.raw
zpool sync lab15t
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15t
zdb -dd lab15t
zdb -m lab15t
dd if=/dev/urandom of=/lab15t/f1 bs=1M count=4 status=none
zpool sync lab15t
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15t
zdb -dd lab15t
zdb -m lab15t
zpool destroy lab15t
rm -r /var/tmp/labs/lab15t
