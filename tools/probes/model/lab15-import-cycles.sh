# Probe (issue 15): what each export and import adds to the MOS, object by object. On the
# generated tuning scripts (2.3.9, ashift 9 mirrors) labsim's MOS at the first listing is
# still short by two to four sectors (three copies each) for each export and import
# before it, and lab15-zil-header-kinds showed the MOS growing 9-13K at every export and
# import at ashift 12. A two-way mirror at ashift 9 (512-byte resolution), exported and
# imported three times; after each import and a sync, `zdb -dd` lists the MOS's objects
# and `zdb -dddddd POOL 0` its dnode blocks.
mkdir -p /var/tmp/labs/lab15e
truncate -s 256M /var/tmp/labs/lab15e/a.raw /var/tmp/labs/lab15e/b.raw
zpool create -o ashift=9 lab15e mirror /var/tmp/labs/lab15e/a.raw /var/tmp/labs/lab15e/b.raw
zpool sync lab15e
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15e
zdb -dd lab15e
zdb -dddddd lab15e 0
zpool export lab15e
zpool import -d /var/tmp/labs/lab15e lab15e
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15e
zpool sync lab15e
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15e
zdb -dd lab15e
zdb -dddddd lab15e 0
zpool export lab15e
zpool import -d /var/tmp/labs/lab15e lab15e
zpool sync lab15e
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15e
zdb -dd lab15e
zdb -dddddd lab15e 0
zpool export lab15e
zpool import -d /var/tmp/labs/lab15e lab15e
zpool sync lab15e
zfs list -p -r -t all -o name,used,refer,usedchild,logicalused lab15e
zdb -dd lab15e
zdb -dddddd lab15e 0
zpool history -il lab15e
zpool destroy lab15e
rm -r /var/tmp/labs/lab15e
