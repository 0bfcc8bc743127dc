# Probe (issue 15): what a resilver copies after a degraded window (generated seed 146's
# shape). With one member of the second of two mirrors missing, a file with copies=2 is
# partly rewritten; each record's two copies should go one to each mirror, yet real
# OpenZFS 2.3.9 resilvered only 96K (five runs) once the member was back, where labsim
# copies 918K. zpool list -v and the file's block pointers (zdb -ddddd) show where the
# window's blocks went.
mkdir -p /var/tmp/labs/lab15d/away
truncate -s 192M /var/tmp/labs/lab15d/a.raw /var/tmp/labs/lab15d/b.raw
truncate -s 256M /var/tmp/labs/lab15d/c.raw /var/tmp/labs/lab15d/d.raw
zpool create -o ashift=9 lab15d mirror /var/tmp/labs/lab15d/a.raw /var/tmp/labs/lab15d/b.raw mirror /var/tmp/labs/lab15d/c.raw /var/tmp/labs/lab15d/d.raw
zfs create -o compression=off -o copies=3 lab15d/fs1
dd if=/dev/zero of=/lab15d/fs1/f2 bs=1M count=1 status=none
zpool sync lab15d
zpool list -vp lab15d
zpool export lab15d
mv /var/tmp/labs/lab15d/d.raw /var/tmp/labs/lab15d/away/
zpool import -d /var/tmp/labs/lab15d lab15d
zfs set copies=2 lab15d/fs1
dd if=/dev/zero of=/lab15d/fs1/f2 bs=16K seek=11 count=42 conv=notrunc status=none
dd if=/dev/urandom of=/lab15d/fs1/f2 bs=16K seek=25 count=34 conv=notrunc status=none
zpool sync lab15d
zpool list -vp lab15d
zdb -ddddd lab15d/fs1
zpool export lab15d
mv /var/tmp/labs/lab15d/away/d.raw /var/tmp/labs/lab15d/d.raw
zpool import -d /var/tmp/labs/lab15d lab15d
zpool wait -t resilver lab15d
zpool sync lab15d
zpool sync lab15d
zpool status lab15d
zdb -ddddd lab15d/fs1
zpool destroy lab15d
rm -r /var/tmp/labs/lab15d
