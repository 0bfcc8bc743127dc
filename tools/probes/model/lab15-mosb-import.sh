# Probe (issue 15, helper MB): what an import and a returning member do to the MOS, at
# ashift 9 (512-byte resolution) on a two-way mirror. Settles: (1) how many txgs an import
# syncs that change the MOS, and whether the space map objects they make hold a block
# before their metaslab is first flushed (lab15-mos-commands.txt shows three new empty
# "SPA space map" objects after an import: when do they get their block?); (2) the
# history records an import writes ("open" and "import": spa_load_impl() and
# spa_import(), module/zfs/spa.c); (3) when the resilver of a member found again starts
# (right after `zpool wait -t resilver`, after one `zpool sync`, after two), what it
# copies, and the DTL space map objects it leaves (zdb -dd of the MOS after each step).
mkdir -p /var/tmp/labs/lab15i/away
truncate -s 256M /var/tmp/labs/lab15i/a.raw /var/tmp/labs/lab15i/b.raw
zpool create -o ashift=9 lab15i mirror /var/tmp/labs/lab15i/a.raw /var/tmp/labs/lab15i/b.raw
dd if=/dev/urandom of=/lab15i/f1 bs=64K count=4 status=none
zpool sync lab15i
zfs list -p -r -t all -o name,used,usedchild lab15i
zdb -dd lab15i
zpool export lab15i
zpool import -d /var/tmp/labs/lab15i lab15i
zfs list -p -r -t all -o name,used,usedchild lab15i
zdb -dd lab15i
zpool sync lab15i
zfs list -p -r -t all -o name,used,usedchild lab15i
zdb -dd lab15i
zpool sync lab15i
zfs list -p -r -t all -o name,used,usedchild lab15i
zdb -dd lab15i
zpool history -il lab15i
zpool export lab15i
mv /var/tmp/labs/lab15i/b.raw /var/tmp/labs/lab15i/away/
zpool import -d /var/tmp/labs/lab15i lab15i
dd if=/dev/urandom of=/lab15i/f2 bs=64K count=4 status=none
zpool sync lab15i
zpool export lab15i
mv /var/tmp/labs/lab15i/away/b.raw /var/tmp/labs/lab15i/b.raw
zpool import -d /var/tmp/labs/lab15i lab15i
zpool wait -t resilver lab15i
zpool status lab15i
zfs list -p -r -t all -o name,used,usedchild lab15i
zpool sync lab15i
zpool status lab15i
zpool sync lab15i
zpool status lab15i
zfs list -p -r -t all -o name,used,usedchild lab15i
zdb -dd lab15i
zpool scrub -w lab15i
zpool status lab15i
zpool destroy lab15i
rm -r /var/tmp/labs/lab15i
