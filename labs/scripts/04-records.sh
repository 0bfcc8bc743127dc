# Lesson 4 lab: records, recordsize and compression. The same half-compressible data is written
# to datasets with 4K, 128K and 1M records; random data and short files follow.
# Runs unchanged in the simulator (python -m labsim) and, as root, on real OpenZFS (2.3 in the lab VM; the 2.1.11 recordings show the older release).
# fio's buffer_compress_percentage=50 with 4K chunks gives data that LZ4 can halve: each 4 KiB
# chunk is 2 KiB of random bytes followed by 2 KiB of zeros.

# step files: One 512 MiB sparse file
mkdir -p /var/tmp/labs
truncate -s 512M /var/tmp/labs/lab4-a.raw

# step datasets: A pool with LZ4 and three datasets with different record sizes
zpool create -o ashift=12 -O compression=lz4 lab4 /var/tmp/labs/lab4-a.raw
zfs create -o recordsize=4K lab4/rs4k
zfs create -o recordsize=128K lab4/rs128k
zfs create -o recordsize=1M lab4/rs1m
zfs get -r recordsize,compression lab4

# step write: The same 32 MiB of half-compressible data into each dataset
fio --name=lab4 --filename=/lab4/rs4k/half.bin --rw=write --bs=1M --size=32M --buffer_compress_percentage=50 --buffer_compress_chunk=4k --refill_buffers --end_fsync=1 --output=/dev/null
fio --name=lab4 --filename=/lab4/rs128k/half.bin --rw=write --bs=1M --size=32M --buffer_compress_percentage=50 --buffer_compress_chunk=4k --refill_buffers --end_fsync=1 --output=/dev/null
fio --name=lab4 --filename=/lab4/rs1m/half.bin --rw=write --bs=1M --size=32M --buffer_compress_percentage=50 --buffer_compress_chunk=4k --refill_buffers --end_fsync=1 --output=/dev/null
zpool sync lab4
zfs list -p -r -o name,used,logicalused,referenced,compressratio lab4
zfs get -p -r compressratio,used,logicalused lab4
ls -ls /lab4/rs4k /lab4/rs128k /lab4/rs1m

# step random: Random data does not compress
dd if=/dev/urandom of=/lab4/rs128k/random.bin bs=1M count=16
zpool sync lab4
zfs list -p -o name,used,logicalused,compressratio lab4/rs128k

# step tails: Short files in 1M records, with and without compression
zfs create -o recordsize=1M -o compression=off lab4/plain
dd if=/dev/urandom of=/lab4/rs1m/short.bin bs=1K count=1100
dd if=/dev/urandom of=/lab4/plain/short.bin bs=1K count=1100
zpool sync lab4
ls -ls /lab4/rs1m/short.bin /lab4/plain/short.bin
du -k /lab4/rs1m/short.bin /lab4/plain/short.bin
zfs list -p -o name,used,logicalused,compressratio lab4/rs1m lab4/plain

# step cleanup: Destroy the pool and its file
zpool destroy lab4
rm /var/tmp/labs/lab4-a.raw
