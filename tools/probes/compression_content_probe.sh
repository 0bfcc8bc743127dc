# Compression of real bytes: what lz4, gzip and zstd make of seq output, yes, zeros, random data,
# a mix of random data and text, and a one-line text file, in records of 4K, 16K, 128K and 1M
# (ashift 12), against compression=off. For labsim.content and labsim.zfs.compressors (issue 15,
# "Compression of real bytes"). Small on purpose: 2 MiB per file, 16 datasets, about 180 MiB
# written in all, so that the lab VM under software emulation records it in minutes.
# Recorded on each release in the lab VM:
#   ZFL_RECORD_POOLS=labc ZFL_FIXTURES=tests/fixtures/probes/zfs \
#     tools/vm/record-transcripts.sh tools/probes/compression_content_probe.sh
# (ZFL_DEBIAN_SUITE=bookworm for 2.1.11). Runs in labsim too: python -m labsim THIS_FILE.
mkdir -p /var/tmp/labs
zfs version
truncate -s 1G /var/tmp/labs/labc-a.raw
zpool create -o ashift=12 -O compression=off labc /var/tmp/labs/labc-a.raw

# off, recordsize=4K
zfs create -o compression=off -o recordsize=4K labc/off-4k
seq 1 300000 > /labc/off-4k/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/off-4k/yes.txt
dd if=/dev/zero of=/labc/off-4k/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/off-4k/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/off-4k/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/off-4k/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/off-4k/small.txt

# off, recordsize=16K
zfs create -o compression=off -o recordsize=16K labc/off-16k
seq 1 300000 > /labc/off-16k/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/off-16k/yes.txt
dd if=/dev/zero of=/labc/off-16k/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/off-16k/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/off-16k/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/off-16k/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/off-16k/small.txt

# off, recordsize=128K
zfs create -o compression=off -o recordsize=128K labc/off-128k
seq 1 300000 > /labc/off-128k/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/off-128k/yes.txt
dd if=/dev/zero of=/labc/off-128k/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/off-128k/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/off-128k/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/off-128k/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/off-128k/small.txt

# off, recordsize=1M
zfs create -o compression=off -o recordsize=1M labc/off-1m
seq 1 300000 > /labc/off-1m/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/off-1m/yes.txt
dd if=/dev/zero of=/labc/off-1m/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/off-1m/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/off-1m/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/off-1m/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/off-1m/small.txt

# lz4, recordsize=4K
zfs create -o compression=lz4 -o recordsize=4K labc/lz4-4k
seq 1 300000 > /labc/lz4-4k/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/lz4-4k/yes.txt
dd if=/dev/zero of=/labc/lz4-4k/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/lz4-4k/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/lz4-4k/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/lz4-4k/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/lz4-4k/small.txt

# lz4, recordsize=16K
zfs create -o compression=lz4 -o recordsize=16K labc/lz4-16k
seq 1 300000 > /labc/lz4-16k/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/lz4-16k/yes.txt
dd if=/dev/zero of=/labc/lz4-16k/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/lz4-16k/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/lz4-16k/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/lz4-16k/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/lz4-16k/small.txt

# lz4, recordsize=128K
zfs create -o compression=lz4 -o recordsize=128K labc/lz4-128k
seq 1 300000 > /labc/lz4-128k/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/lz4-128k/yes.txt
dd if=/dev/zero of=/labc/lz4-128k/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/lz4-128k/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/lz4-128k/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/lz4-128k/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/lz4-128k/small.txt

# lz4, recordsize=1M
zfs create -o compression=lz4 -o recordsize=1M labc/lz4-1m
seq 1 300000 > /labc/lz4-1m/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/lz4-1m/yes.txt
dd if=/dev/zero of=/labc/lz4-1m/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/lz4-1m/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/lz4-1m/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/lz4-1m/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/lz4-1m/small.txt

# gzip, recordsize=4K
zfs create -o compression=gzip -o recordsize=4K labc/gzip-4k
seq 1 300000 > /labc/gzip-4k/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/gzip-4k/yes.txt
dd if=/dev/zero of=/labc/gzip-4k/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/gzip-4k/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/gzip-4k/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/gzip-4k/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/gzip-4k/small.txt

# gzip, recordsize=16K
zfs create -o compression=gzip -o recordsize=16K labc/gzip-16k
seq 1 300000 > /labc/gzip-16k/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/gzip-16k/yes.txt
dd if=/dev/zero of=/labc/gzip-16k/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/gzip-16k/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/gzip-16k/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/gzip-16k/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/gzip-16k/small.txt

# gzip, recordsize=128K
zfs create -o compression=gzip -o recordsize=128K labc/gzip-128k
seq 1 300000 > /labc/gzip-128k/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/gzip-128k/yes.txt
dd if=/dev/zero of=/labc/gzip-128k/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/gzip-128k/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/gzip-128k/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/gzip-128k/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/gzip-128k/small.txt

# gzip, recordsize=1M
zfs create -o compression=gzip -o recordsize=1M labc/gzip-1m
seq 1 300000 > /labc/gzip-1m/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/gzip-1m/yes.txt
dd if=/dev/zero of=/labc/gzip-1m/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/gzip-1m/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/gzip-1m/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/gzip-1m/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/gzip-1m/small.txt

# zstd, recordsize=4K
zfs create -o compression=zstd -o recordsize=4K labc/zstd-4k
seq 1 300000 > /labc/zstd-4k/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/zstd-4k/yes.txt
dd if=/dev/zero of=/labc/zstd-4k/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/zstd-4k/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/zstd-4k/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/zstd-4k/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/zstd-4k/small.txt

# zstd, recordsize=16K
zfs create -o compression=zstd -o recordsize=16K labc/zstd-16k
seq 1 300000 > /labc/zstd-16k/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/zstd-16k/yes.txt
dd if=/dev/zero of=/labc/zstd-16k/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/zstd-16k/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/zstd-16k/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/zstd-16k/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/zstd-16k/small.txt

# zstd, recordsize=128K
zfs create -o compression=zstd -o recordsize=128K labc/zstd-128k
seq 1 300000 > /labc/zstd-128k/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/zstd-128k/yes.txt
dd if=/dev/zero of=/labc/zstd-128k/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/zstd-128k/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/zstd-128k/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/zstd-128k/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/zstd-128k/small.txt

# zstd, recordsize=1M
zfs create -o compression=zstd -o recordsize=1M labc/zstd-1m
seq 1 300000 > /labc/zstd-1m/seq.txt
yes 'ZFS Field Labs' | head -c 2M > /labc/zstd-1m/yes.txt
dd if=/dev/zero of=/labc/zstd-1m/zero.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/zstd-1m/random.bin bs=1M count=2 status=none
dd if=/dev/urandom of=/labc/zstd-1m/mixed.bin bs=64K count=8 status=none
seq 1 200000 >> /labc/zstd-1m/mixed.bin
echo 'ZFS Field Labs: compression of real bytes' > /labc/zstd-1m/small.txt

zpool sync labc
zfs get -p -r used,logicalused,compressratio labc
ls -ls /labc/off-4k
ls -ls /labc/off-16k
ls -ls /labc/off-128k
ls -ls /labc/off-1m
ls -ls /labc/lz4-4k
ls -ls /labc/lz4-16k
ls -ls /labc/lz4-128k
ls -ls /labc/lz4-1m
ls -ls /labc/gzip-4k
ls -ls /labc/gzip-16k
ls -ls /labc/gzip-128k
ls -ls /labc/gzip-1m
ls -ls /labc/zstd-4k
ls -ls /labc/zstd-16k
ls -ls /labc/zstd-128k
ls -ls /labc/zstd-1m
zpool list -p labc
zpool destroy labc
rm /var/tmp/labs/labc-a.raw
