# Probe (issue 16): properties labsim stores without modelling their effect, and the refusals
# of zfs inherit / set / create it now answers from the OpenZFS source (labsim.zfs.property_table,
# shell/commands/zfs_properties.py): each answer here is the real one to compare with.
mkdir -p /var/tmp/labs
truncate -s 1G /var/tmp/labs/lab16p.raw
zpool create -o ashift=12 lab16p /var/tmp/labs/lab16p.raw
zfs create lab16p/child
zfs create -V 64M lab16p/vol
zfs snapshot lab16p/child@snap
zfs get xattr,acltype,checksum,atime lab16p
zfs set xattr=sa lab16p
zfs get xattr lab16p
zfs get refreservation,compression,recordsize,atime lab16p/child@snap
zfs get -r atime lab16p
zfs set atime=maybe lab16p
zfs set atime=off lab16p/vol
zfs create -o casesensitivity=mixed lab16p/c
zfs set casesensitivity=mixed lab16p/c
zfs inherit quota lab16p
zfs inherit used lab16p
zfs inherit bogus lab16p
zfs set com.example:dept=1 lab16p
zfs get com.example:dept lab16p lab16p/child
zfs list -o name,com.example:dept
zfs create -V 1E lab16p/v
zfs create -s -V 1E lab16p/v
zfs get all lab16p
zpool destroy lab16p
rm /var/tmp/labs/lab16p.raw
