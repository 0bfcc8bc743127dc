#!/usr/bin/env bash
# Provisions a Debian 12 guest for ZFS Field Labs: OpenZFS (contrib: zfs-dkms, built for the
# running kernel), WireGuard tools, fio, qemu-utils and JupyterLab in /opt/labs-venv, served on
# port 8888 with /labs as its root. Idempotent: `vagrant provision` re-runs it, and it installs
# only what is missing.
# Settings (ZFL_OFFLINE, ZFL_JUPYTER): see provision-common.sh.
set -euo pipefail
DISTRO=debian
[ "$(id -u)" = 0 ] || exec sudo -E bash "$0" "$@"
# shellcheck source=provision-common.sh
. "$(dirname "$(readlink -f "$0")")/provision-common.sh"
. /etc/os-release
[ "$ID" = debian ] || die "this is $PRETTY_NAME, not Debian (use provision-ubuntu.sh)"

# 1. contrib, where Debian keeps zfs-dkms and zfsutils-linux.
enable_contrib() {
  local changed=0 f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] || continue
    if grep -q '^Components:' "$f" && ! grep -q '^Components:.*contrib' "$f"; then
      sed -i '/^Components:/ s/$/ contrib/' "$f"; changed=1
    fi
  done
  if [ -f /etc/apt/sources.list ] && grep -E '^deb(-src)? ' /etc/apt/sources.list | grep -qv ' contrib'; then
    sed -i -E '/^deb(-src)? / { / contrib( |$)/! s/[[:space:]]*$/ contrib/ }' /etc/apt/sources.list
    changed=1
  fi
  return $((1 - changed))
}

# headers for the running kernel: zfs-dkms compiles against them
# openssh-server and libnss-mdns: the slow-SSH network lab (labs/net/05-slow-ssh).
mapfile -t missing < <(missing_packages dkms zfs-dkms zfsutils-linux wireguard-tools iptables curl fio \
  qemu-utils python3-venv rsync iputils-ping openssh-server libnss-mdns "linux-headers-$KREL")
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$OFFLINE" != 1 ] && enable_contrib; then say "enabled the contrib component"; fi
  say "installing: ${missing[*]} (zfs-dkms compiles the module: several minutes)"
  apt_install "${missing[@]}"  # zfs-dkms's debconf licence note: noninteractive accepts it
else
  say "packages already installed"
fi

# 2. The kernel module, 3. the Python venv, 4. JupyterLab (provision-common.sh).
load_zfs "is zfs.ko built for $KREL? see dkms status"
labs_venv
jupyter_service
