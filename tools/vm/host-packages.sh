#!/usr/bin/env bash
# Installs, from Debian, what the VM labs need on the host and are missing: QEMU, libvirt,
# Vagrant with vagrant-libvirt (and with it ruby), rsync, dnsmasq and iptables. Needs root
# when anything is missing; prints what it installs on stderr and fails loudly otherwise.
# Used by tools/vm/vm-lib.sh before a VM starts, and by `make test` before pytest, so that
# the host-side checks of the VM tooling (tests/vm/test_vm_tooling.py) never skip there.
set -euo pipefail
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v qemu-img >/dev/null || need+=(qemu-utils)
command -v libvirtd >/dev/null || need+=(libvirt-daemon-system)
command -v virsh >/dev/null || need+=(libvirt-clients)
command -v vagrant >/dev/null || need+=(vagrant)
[ -d /usr/share/rubygems-integration/all/gems ] \
  && ls -d /usr/share/rubygems-integration/all/gems/vagrant-libvirt-* >/dev/null 2>&1 \
  || need+=(vagrant-libvirt)
command -v rsync >/dev/null || need+=(rsync)
command -v dnsmasq >/dev/null || [ -x /usr/sbin/dnsmasq ] || need+=(dnsmasq-base)
command -v iptables >/dev/null || need+=(iptables)
[ ${#need[@]} -eq 0 ] && exit 0
echo "host-packages: installing ${need[*]}" >&2
if [ "$(id -u)" != 0 ]; then
  echo "host-packages: must run as root to install ${need[*]}" >&2
  exit 1
fi
apt-get update -qq || { echo "host-packages: apt-get update failed" >&2; exit 1; }
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" \
  >/dev/null || { echo "host-packages: could not install ${need[*]}" >&2; exit 1; }
