# Lesson 5 lab: the intent log, a log vdev and the sync property. The same 1 MiB of
# synchronous 4K writes goes to the pool's own log blocks, to a log vdev, and nowhere with
# sync=disabled; /proc/spl/kstat/zfs/zil counts what each run committed and where its log
# blocks went. Then the pool is frozen (zpool freeze: later txgs never reach disk), files
# are written with and without the log, and an export and import show what a power failure
# would have kept. (A clean export commits the records still waiting, zil_close(); with
# sync=disabled set before it, it cannot, and the disks are left as a crash would leave them.)
# Runs unchanged in the simulator (python -m labsim) and, as root, on real OpenZFS (2.3 in the lab VM; the 2.1.11 recordings show the older release).

# step files: A 512 MiB sparse file for data and a 256 MiB one for the log
mkdir -p /var/tmp/labs
truncate -s 512M /var/tmp/labs/lab5-data.raw
truncate -s 256M /var/tmp/labs/lab5-log.raw

# step pool: A pool without a log vdev, and a dataset for the writes
zpool create -o ashift=12 lab5 /var/tmp/labs/lab5-data.raw
zfs create lab5/db
zfs get sync,logbias lab5/db

# step nolog: 256 synchronous 4K writes, logged in the pool's own blocks
cat /proc/spl/kstat/zfs/zil
fio --name=nolog --filename=/lab5/db/nolog.bin --rw=write --bs=4k --size=1M --sync=1 --ioengine=psync
cat /proc/spl/kstat/zfs/zil

# step slog: The same writes with a log vdev
zpool add lab5 log /var/tmp/labs/lab5-log.raw
zpool list -v lab5
zpool status lab5
fio --name=slog --filename=/lab5/db/slog.bin --rw=write --bs=4k --size=1M --sync=1 --ioengine=psync
cat /proc/spl/kstat/zfs/zil
zpool iostat -v lab5

# step disabled: sync=disabled: the same writes, and nothing logged
zfs set sync=disabled lab5/db
fio --name=disabled --filename=/lab5/db/disabled.bin --rw=write --bs=4k --size=1M --sync=1 --ioengine=psync
cat /proc/spl/kstat/zfs/zil

# step throughput: logbias=throughput: 64K writes logged as pointers to data written in place
zfs set sync=standard lab5/db
zfs set logbias=throughput lab5/db
zfs get sync,logbias lab5/db
fio --name=bias --filename=/lab5/db/bias.bin --rw=write --bs=64k --size=1M --sync=1 --ioengine=psync --output=/dev/null
cat /proc/spl/kstat/zfs/zil

# step crash: Freeze the pool, write with and without the log, and import it again
zfs set logbias=latency lab5/db
zpool freeze lab5
fio --name=logged --filename=/lab5/db/logged.bin --rw=write --bs=4k --size=256k --sync=1 --ioengine=psync --output=/dev/null
dd if=/dev/urandom of=/lab5/db/unlogged.bin bs=64k count=4
zfs set sync=disabled lab5/db
fio --name=promised --filename=/lab5/db/promised.bin --rw=write --bs=4k --size=256k --sync=1 --ioengine=psync --output=/dev/null
ls /lab5/db
zpool export lab5
zpool import -d /var/tmp/labs lab5
ls /lab5/db
zfs get sync lab5/db

# step cleanup: Destroy the pool and remove its files
zpool destroy lab5
rm /var/tmp/labs/lab5-data.raw /var/tmp/labs/lab5-log.raw
