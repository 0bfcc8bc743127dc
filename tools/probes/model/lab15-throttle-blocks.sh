# Probe (issue 15): how the allocation throttle splits one write of random bytes between a
# 1 GiB and a 256 MiB file vdev, by record size and compression. The rotor alone (aliquot and
# free-space bias) gives the small vdev about a fifth; a throttle that keeps the queues full
# gives it about half. The compressor runs before the throttle in the write pipeline
# (ZIO_STAGE_WRITE_COMPRESS before ZIO_STAGE_DVA_THROTTLE, module/zfs/zio.c), so a slow one
# paces the blocks. Each shape runs twice, on a new pool each time, so the spread shows.
mkdir -p /var/tmp/labs
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=128K -o compression=off lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=16K -o compression=off lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=16K -o compression=lz4 lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=16K -o compression=gzip lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=128K -o compression=gzip lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=4K -o compression=off lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=8 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=1M -o compression=off lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=16K -o compression=zstd lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=128K -o compression=zstd lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=16K -o compression=gzip-1 lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=128K -o compression=lz4 lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=128K -o compression=off lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=16K -o compression=off lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=16K -o compression=lz4 lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=16K -o compression=gzip lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=128K -o compression=gzip lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=4K -o compression=off lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=8 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=1M -o compression=off lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=16K -o compression=zstd lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=128K -o compression=zstd lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=16K -o compression=gzip-1 lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
truncate -s 1G /var/tmp/labs/lab15t-large.raw
truncate -s 256M /var/tmp/labs/lab15t-small.raw
zpool create -o ashift=12 lab15t /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
zfs create -o recordsize=128K -o compression=lz4 lab15t/d
zpool sync lab15t
zpool list -p -v lab15t
dd if=/dev/urandom of=/lab15t/d/f bs=1M count=24 status=none
zpool sync lab15t
zpool list -p -v lab15t
zpool destroy lab15t
rm /var/tmp/labs/lab15t-large.raw /var/tmp/labs/lab15t-small.raw
