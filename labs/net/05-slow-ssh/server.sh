# step setup: the server's resolver settings and a host key of its own
mount --bind /run/lab/resolv.conf /etc/resolv.conf
mount --bind /run/lab/nsswitch.conf /etc/nsswitch.conf
ssh-keygen -q -t ed25519 -N "" -C server -f /run/lab/host_key

# step sshd: the client's key may log in as root; check the configuration, then start sshd
mount --bind /run/lab/sshd_config /etc/ssh/sshd_config
mkdir -p -m 0755 /run/sshd
# sshd's privilege separation drops groups with setgroups(), which a user namespace
# (`netkit run` without root) refuses: fail here, not at the first login.
setpriv --clear-groups true
/usr/sbin/sshd -t
/usr/sbin/sshd
