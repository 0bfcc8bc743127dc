# Lesson 7 lab: zvols and qcow2 images. A thick volume reserves its size plus room for its
# indirect blocks (refreservation); a sparse one (-s) reserves nothing. A full thick volume
# cannot be snapshotted on a pool without room for a second copy of it, while the same amount
# of data in a file system snapshots at once; refreservation=none lets the snapshot through.
# Then 1 MiB of 4K random writes from fio on a sparse volume and on sparse raw image files
# under two recordsizes: every record a write lands in is allocated whole, so the space each
# takes afterwards, per MiB fio wrote, is the write amplification. compression=off so the
# zero-filled rest of each record counts in full. Then the same writes into fresh qcow2
# images, 64K clusters on 128K records and 8K clusters on 8K records: qemu-nbd serves each
# image on a unix socket (no nbd kernel module) and fio's nbd engine writes to it, so every
# write goes through QEMU's qcow2 layer into the image file. qemu-nbd is stopped through its
# pid file as soon as fio is done (labkit's reset stops it too if a step broke off).
# Runs unchanged in the simulator (python -m labsim) and, as root, on real OpenZFS (2.3 in the lab VM; the 2.1.11 recordings show the older release).

# step files: A 256 MiB sparse file for the pool
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab7-a.raw

# step volumes: A thick and a sparse 48 MiB volume, and their udev links
zpool create -o ashift=12 -O compression=off lab7 /var/tmp/labs/lab7-a.raw
zfs create -V 48M lab7/thick
zfs create -s -V 48M lab7/sparse
udevadm settle
ls /dev/zvol/lab7
zfs get -Hp -o name,property,value volsize,volblocksize,refreservation lab7/thick lab7/sparse
zfs list -p -r -o name,used,avail,refer,usedbyrefreservation lab7

# step full: The thick volume filled, and the same 48 MiB as a file in a file system
dd if=/dev/urandom of=/dev/zvol/lab7/thick bs=1M count=48 oflag=direct status=none
zfs create lab7/files
dd if=/dev/urandom of=/lab7/files/disk.img bs=1M count=48 status=none
zpool sync lab7
zfs list -p -r -o name,used,avail,refer,usedbyrefreservation lab7

# step snapshot: The file system snapshots; the full thick volume does not, until unreserved
zfs snapshot lab7/files@s1
zfs snapshot lab7/thick@s1  # expect-fail
zfs set refreservation=none lab7/thick
zfs snapshot lab7/thick@s1
zpool sync lab7
zfs list -p -r -t all -o name,used,avail,refer,usedbyrefreservation lab7

# step random: 1 MiB of 4K random writes on the sparse volume (volblocksize 16K)
zfs destroy -r lab7/thick
zfs destroy -r lab7/files
fio --name=zvol --filename=/dev/zvol/lab7/sparse --rw=randwrite --bs=4k --size=48M --io_size=1M --direct=1 --ioengine=psync --output=/dev/null
zpool sync lab7
zfs get -Hp -o name,property,value used lab7/sparse

# step raw: The same writes on raw image files, recordsize 128K and 8K
zfs create lab7/rs128k
zfs create -o recordsize=8K lab7/rs8k
truncate -s 48M /lab7/rs128k/disk.raw
truncate -s 48M /lab7/rs8k/disk.raw
fio --name=rs128k --filename=/lab7/rs128k/disk.raw --rw=randwrite --bs=4k --size=48M --io_size=1M --ioengine=psync --output=/dev/null
fio --name=rs8k --filename=/lab7/rs8k/disk.raw --rw=randwrite --bs=4k --size=48M --io_size=1M --ioengine=psync --output=/dev/null
zpool sync lab7
zfs get -Hp -o name,property,value used lab7/sparse lab7/rs128k lab7/rs8k

# step qcow2: The same writes into fresh qcow2 images (64K clusters on 128K records, 8K on 8K) through qemu-nbd
zfs create lab7/q64k
zfs create -o recordsize=8K lab7/q8k
qemu-img create -f qcow2 -o cluster_size=65536 /lab7/q64k/vm.qcow2 48M
qemu-img create -f qcow2 -o cluster_size=8192 /lab7/q8k/vm.qcow2 48M
qemu-img info /lab7/q64k/vm.qcow2
qemu-nbd --fork --persistent --pid-file=/run/lab7-q64k.pid --socket=/run/lab7-q64k.sock --format=qcow2 /lab7/q64k/vm.qcow2
fio --name=q64k --ioengine=nbd --uri='nbd+unix:///?socket=/run/lab7-q64k.sock' --rw=randwrite --bs=4k --size=48M --io_size=1M --output=/dev/null
pkill -F /run/lab7-q64k.pid
qemu-nbd --fork --persistent --pid-file=/run/lab7-q8k.pid --socket=/run/lab7-q8k.sock --format=qcow2 /lab7/q8k/vm.qcow2
fio --name=q8k --ioengine=nbd --uri='nbd+unix:///?socket=/run/lab7-q8k.sock' --rw=randwrite --bs=4k --size=48M --io_size=1M --output=/dev/null
pkill -F /run/lab7-q8k.pid
sleep 2
zpool sync lab7
zfs get -Hp -o name,property,value used lab7/rs128k lab7/rs8k lab7/q64k lab7/q8k

# step cleanup: Destroy the pool and remove its file
zpool destroy lab7
rm /var/tmp/labs/lab7-a.raw
