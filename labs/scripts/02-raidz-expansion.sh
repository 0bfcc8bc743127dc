# Lesson 2 lab, second part: RAID-Z expansion (OpenZFS 2.3 and later). A three-wide RAID-Z1
# gets data, then a fourth disk with `zpool attach` onto the raidz group itself. The reflow
# moves the old data across four disks, but the old blocks keep their two-data-one-parity
# layout; blocks written afterwards use the new width. zfs list keeps converting raw space at
# the original width's ratio, so it shows less room than the disks now give.
# Runs unchanged in the simulator (python -m labsim) and, as root, on real OpenZFS 2.3 in the
# lab VM (2.1 and 2.2 refuse the attach: "can only attach to mirrors and top-level disks").

# step files: Four sparse files of 256 MiB
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab2x-a.raw /var/tmp/labs/lab2x-b.raw /var/tmp/labs/lab2x-c.raw /var/tmp/labs/lab2x-d.raw

# step pool: A three-wide RAID-Z1 with 48 MiB written at that width
zpool create -o ashift=12 -O compression=off lab2x raidz1 /var/tmp/labs/lab2x-a.raw /var/tmp/labs/lab2x-b.raw /var/tmp/labs/lab2x-c.raw
dd if=/dev/urandom of=/lab2x/old.bin bs=1M count=48 status=none
zpool sync lab2x
zpool list -vp lab2x
zfs list -p -o name,used,available,referenced lab2x

# step expand: A fourth disk in the RAID-Z group, then the reflow and the scrub after it
zpool attach -w lab2x raidz1-0 /var/tmp/labs/lab2x-d.raw
zpool wait -t scrub lab2x
zpool status lab2x
zpool list -vp lab2x
zfs list -p -o name,used,available,referenced lab2x

# step new: The same 48 MiB again, written at the new width
dd if=/dev/urandom of=/lab2x/new.bin bs=1M count=48 status=none
zpool sync lab2x
zpool list -vp lab2x
zfs list -p -o name,used,available,referenced lab2x
ls -ls /lab2x

# step cleanup: Destroy the pool and its files
zpool destroy lab2x
rm /var/tmp/labs/lab2x-a.raw /var/tmp/labs/lab2x-b.raw /var/tmp/labs/lab2x-c.raw /var/tmp/labs/lab2x-d.raw
