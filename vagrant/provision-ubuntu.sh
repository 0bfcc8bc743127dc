#!/usr/bin/env bash
# Provisions an Ubuntu 24.04 guest for ZFS Field Labs: OpenZFS (zfsutils-linux; Ubuntu's kernel
# ships zfs.ko), WireGuard tools, fio, qemu-utils and JupyterLab in /opt/labs-venv, served on
# port 8888 with /labs as its root. Idempotent: `vagrant provision` re-runs it, and it installs
# only what is missing.
# Settings (ZFL_OFFLINE, ZFL_JUPYTER): see provision-common.sh.
set -euo pipefail
DISTRO=ubuntu
[ "$(id -u)" = 0 ] || exec sudo -E bash "$0" "$@"
# shellcheck source=provision-common.sh
. "$(dirname "$(readlink -f "$0")")/provision-common.sh"
. /etc/os-release
[ "$ID" = ubuntu ] || die "this is $PRETTY_NAME, not Ubuntu (use provision-debian.sh)"

# 1. Packages: Ubuntu's kernel ships zfs.ko, so zfsutils-linux is enough.
# openssh-server and libnss-mdns: the slow-SSH network lab (labs/net/05-slow-ssh).
mapfile -t missing < <(missing_packages zfsutils-linux wireguard-tools iptables curl fio qemu-utils \
  python3-venv rsync iputils-ping openssh-server libnss-mdns)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing: ${missing[*]}"
  apt_install "${missing[@]}"
else
  say "packages already installed"
fi

# 2. The kernel module, 3. the Python venv, 4. JupyterLab (provision-common.sh).
load_zfs "does $KREL ship zfs.ko? linux-modules-extra may be missing"
labs_venv
jupyter_service
