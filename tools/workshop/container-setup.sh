#!/bin/bash
# Runs inside a copy of the CI box's root file system (chroot, as root) and makes it an Incus
# system container image for the workshops (tools/workshop/image.py). The box itself is left
# as it is: everything here is what differs between a VM and a container.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8

# The root is the container's own; there is no /dev/vda to mount.
echo '# the root file system is the container'"'"'s (Incus)' > /etc/fstab

# A container cannot load kernel modules: zfs.ko is the host's business (the ZFS labs need the
# VM), and each of these would fail at every boot. Network labs need none of them.
for unit in zfs-load-module.service zfs-import-cache.service zfs-import-scan.service \
            zfs-mount.service zfs-share.service zfs-zed.service zfs-volume-wait.service \
            e2scrub_reap.service systemd-networkd-wait-online.service \
            apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
            fstrim.timer; do
  ln -sf /dev/null "/etc/systemd/system/$unit"
done

# Every container makes its own ssh host keys when sshd first starts, rather than all learners
# sharing the image's (Debian's sshd-keygen.service would, but only on a "first boot", which
# an empty /etc/machine-id is not; `sshd -t` fails without keys, so the keys come first).
rm -f /etc/ssh/ssh_host_*
install -d /etc/systemd/system/ssh.service.d
cat > /etc/systemd/system/ssh.service.d/zfl-host-keys.conf <<'EOF'
[Service]
ExecStartPre=
ExecStartPre=/usr/bin/ssh-keygen -A
ExecStartPre=/usr/sbin/sshd -t
EOF
: > /etc/machine-id   # each container gets its own at first boot

# The CI box's vagrant user has a published key and password: not in a learner's machine.
# The learner's own account gets its password from `workshop up`.
userdel -r vagrant 2>/dev/null || true
rm -f /etc/sudoers.d/vagrant
id learner >/dev/null 2>&1 || useradd --create-home --shell /bin/bash learner
passwd -l learner >/dev/null
echo 'learner ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/learner
chmod 0440 /etc/sudoers.d/learner
cat > /etc/ssh/sshd_config.d/zfl-workshop.conf <<'EOF'
UseDNS no
PasswordAuthentication yes
PermitRootLogin no
EOF
rm -f /etc/ssh/sshd_config.d/zfl.conf

# JupyterLab (installed by vagrant/provision.sh, not enabled in the CI box) starts at boot;
# `workshop up` gives it the learner's token in a drop-in.
ln -sf /etc/systemd/system/zfl-jupyterlab.service \
  /etc/systemd/system/multi-user.target.wants/zfl-jupyterlab.service
install -d -m 0755 /labs

# The network labs in a container run wireguard-go: the host's kernel decides, and a
# container cannot load wireguard.ko (labs/netkit/real.py falls back to wireguard-go).
echo 'exit 101' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
apt-get update -qq
apt-get install -y -qq --no-install-recommends wireguard-go >/dev/null
apt-get clean
rm -rf /var/lib/apt/lists/* /usr/sbin/policy-rc.d
