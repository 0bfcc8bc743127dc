# Probe (issue 15, session 14): forms of zpool add, zfs get and zfs set that labsim
# answered wrongly: `zpool add -n` (it added the vdevs), the pool's ashift property as
# the default for add, 2.2's ashift check in spa_vdev_add(), the long --allow-...
# options, xattr's printed word, and the userspace and written@ properties.
mkdir -p /var/tmp/labs/lab15a
truncate -s 128M /var/tmp/labs/lab15a/d1.raw /var/tmp/labs/lab15a/d2.raw
truncate -s 128M /var/tmp/labs/lab15a/d3.raw /var/tmp/labs/lab15a/d4.raw
truncate -s 128M /var/tmp/labs/lab15a/d5.raw /var/tmp/labs/lab15a/d6.raw
zpool create -o ashift=12 lab15a mirror /var/tmp/labs/lab15a/d1.raw /var/tmp/labs/lab15a/d2.raw log /var/tmp/labs/lab15a/d3.raw
zpool add -n lab15a mirror /var/tmp/labs/lab15a/d4.raw /var/tmp/labs/lab15a/d5.raw log /var/tmp/labs/lab15a/d6.raw
zpool add -n lab15a raidz /var/tmp/labs/lab15a/d4.raw /var/tmp/labs/lab15a/d5.raw /var/tmp/labs/lab15a/d6.raw
zpool status lab15a
zpool add -o ashift=9 lab15a mirror /var/tmp/labs/lab15a/d4.raw /var/tmp/labs/lab15a/d5.raw
zpool add -f --allow-in-use lab15a mirror /var/tmp/labs/lab15a/d4.raw /var/tmp/labs/lab15a/d5.raw
zpool add lab15a mirror /var/tmp/labs/lab15a/d4.raw /var/tmp/labs/lab15a/d5.raw
zpool add --allow-ashift-mismatch -o ashift=9 lab15a /var/tmp/labs/lab15a/d6.raw
zpool add lab15a
zpool status lab15a
zpool get unsupported@com.example:nothing lab15a
zpool get feature@no_such_feature lab15a
zfs create lab15a/fs
zfs get -H -o value xattr lab15a/fs
zfs set xattr=sa lab15a/fs
zfs get -H -o value xattr lab15a/fs
zfs set xattr=dir lab15a/fs
zfs get -H -o value xattr lab15a/fs
zfs snapshot lab15a/fs@s
zfs set atime=off lab15a/fs@s
zfs set nosuchprop=1 lab15a/fs@s
zfs set written@s=1 lab15a/fs
zfs create -o written#b=1 lab15a/x
zfs get -H -o property userused@root lab15a/fs
zfs get -H -o property written@s lab15a/fs
zpool destroy lab15a
rm -r /var/tmp/labs/lab15a
