# Probe (issue 15): vdev files renamed, moved away or joined by strangers while the pool is
# exported. zpool import -d scans the directory and finds vdevs by their labels.
mkdir -p /var/tmp/labs
truncate -s 128M /var/tmp/labs/lab15r-a.raw
truncate -s 128M /var/tmp/labs/lab15r-b.raw
zpool create lab15r /var/tmp/labs/lab15r-a.raw /var/tmp/labs/lab15r-b.raw
dd if=/dev/urandom of=/lab15r/f bs=1M count=8 status=none
zpool export lab15r
mv /var/tmp/labs/lab15r-b.raw /var/tmp/labs/lab15r-renamed.raw
truncate -s 128M /var/tmp/labs/lab15r-stranger.raw
zpool import -d /var/tmp/labs
zpool import -d /var/tmp/labs lab15r
zpool status lab15r
zpool list -v lab15r
zpool export lab15r
mkdir -p /var/tmp/labs/lab15r-away
mv /var/tmp/labs/lab15r-renamed.raw /var/tmp/labs/lab15r-away/lab15r-b.raw
zpool import -d /var/tmp/labs
zpool import -d /var/tmp/labs lab15r
zpool import -d /var/tmp/labs -d /var/tmp/labs/lab15r-away lab15r
zpool status lab15r
zpool destroy lab15r
rm -r /var/tmp/labs/lab15r-a.raw /var/tmp/labs/lab15r-stranger.raw /var/tmp/labs/lab15r-away
