# Lesson 6 lab, second part: block cloning (OpenZFS 2.3; 2.2 has it but leaves it off,
# zfs_bclone_enabled=0). A file of random data, then two copies: `cp --reflink=always` and a
# plain `cp`, which GNU cp makes with copy_file_range(), which OpenZFS turns into a clone too.
# The pool's ALLOC barely moves; bcloneused, bclonesaved and bcloneratio say what the clones
# share, while each file's USED and REFER still count all of its blocks.
# Runs unchanged in the simulator (python -m labsim) and, as root, on real OpenZFS 2.3 in the
# lab VM.

# step files: A 256 MiB sparse file for the pool
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/lab6c-a.raw

# step pool: A pool and an 8 MiB file of random data
zpool create -o ashift=12 lab6c /var/tmp/labs/lab6c-a.raw
dd if=/dev/urandom of=/lab6c/a.bin bs=1M count=8 status=none
zpool sync lab6c
zpool list -p lab6c
zpool get -Hp -o property,value bcloneused,bclonesaved,bcloneratio lab6c

# step clone: Two copies of the file, one with cp --reflink=always and one with a plain cp
cp --reflink=always /lab6c/a.bin /lab6c/b.bin
cp /lab6c/a.bin /lab6c/c.bin
zpool sync lab6c
zpool get -Hp -o property,value bcloneused,bclonesaved,bcloneratio lab6c
zpool list -p lab6c
zfs list -p -o name,used,referenced,logicalused lab6c

# step free: Delete the original: its blocks stay, shared by the two copies
rm /lab6c/a.bin
zpool sync lab6c
zpool get -Hp -o property,value bcloneused,bclonesaved,bcloneratio lab6c
zpool list -p lab6c

# step cleanup: Destroy the pool and its file
zpool destroy lab6c
rm /var/tmp/labs/lab6c-a.raw
