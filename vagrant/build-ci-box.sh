#!/usr/bin/env bash
# Builds the CI box: a Debian 13 (or 12) libvirt Vagrant box, provisioned by the same script as the
# learners' VMs (vagrant/provision.sh: OpenZFS from contrib with zfs.ko compiled for the guest
# kernel, WireGuard tools, fio, qemu-utils, a Python venv with JupyterLab, nbval and pytest in
# /opt/labs-venv), run inside the image at build time. The CI VM has no route to the package
# registries, so all of it is baked in here, with the host's network. What is only this image's
# (direct kernel boot, a small initrd, the vagrant user, networkd) is set up here.
#
# The box is cached OUTSIDE the repo, keyed on its inputs: the Debian kernel ABI and package
# version, the zfs-dkms version, this script's sha256 and labs-requirements.txt's sha256.
# A box whose key exists is reused; a missing one is built (6-12 min on 2 cores).
#
# Usage (as root):   vagrant/build-ci-box.sh [--force] [--print-key]
#   stdout: the absolute path of the .box file (last line), nothing else; progress goes to stderr.
# Environment:
#   ZFL_BOX_CACHE            cache root (default ~/.cache/zfs-field-labs/boxes)
#   ZFL_DEBIAN_MIRROR        Debian mirror (default http://deb.debian.org/debian)
#   ZFL_DEBIAN_SECURITY      security mirror (default http://deb.debian.org/debian-security)
#   ZFL_BOX_DISK_GB          virtual size of the guest disk in GiB (default 8)
#   ZFL_DEBIAN_SUITE         trixie (Debian 13, OpenZFS 2.3: the default, what CI boots) or
#                            bookworm (Debian 12, OpenZFS 2.1: for re-recording 2.1, see
#                            vagrant/README.md)
# Cache layout:  $ZFL_BOX_CACHE/<key>/{<key>.box, vmlinuz, initrd.img, manifest.json, build.log}
set -euo pipefail
# The body is one function, so bash has parsed all of it before running any of it: editing
# this file while a run is in progress cannot derail that run.
main() {

SCRIPT=$(readlink -f "${BASH_SOURCE[0]}")
HERE=$(dirname "$SCRIPT")
CACHE=${ZFL_BOX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zfs-field-labs/boxes}
MIRROR=${ZFL_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY=${ZFL_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
DISK_GB=${ZFL_BOX_DISK_GB:-8}
SUITE=${ZFL_DEBIAN_SUITE:-trixie}
# The guest's Debian release, CPython and glibc: the wheels downloaded on the host must fit them.
case "$SUITE" in
  trixie)   DEBIAN_MAJOR=13; GUEST_PY=3.13; GUEST_GLIBC=41 ;;
  bookworm) DEBIAN_MAJOR=12; GUEST_PY=3.11; GUEST_GLIBC=36 ;;
  *) echo "build-ci-box: ZFL_DEBIAN_SUITE must be trixie or bookworm, not '$SUITE'" >&2; exit 2 ;;
esac
REQS="$HERE/labs-requirements.txt"
PROVISION="$HERE/provision.sh"
FORCE=0
PRINT_KEY=0
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    --print-key) PRINT_KEY=1 ;;
    -h|--help) sed -n '2,22p' "$SCRIPT"; exit 0 ;;
    *) echo "build-ci-box: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

T0=$(date +%s)
log() { printf '[build-ci-box %4ss] %s\n' "$(( $(date +%s) - T0 ))" "$*" >&2; }
die() { printf 'build-ci-box: ERROR: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (mmdebstrap, chroot, dkms)"
[ -r "$REQS" ] || die "missing $REQS"
[ -r "$PROVISION" ] || die "missing $PROVISION"

# --- host dependencies -------------------------------------------------------------------------
need_pkgs=()
command -v mmdebstrap >/dev/null || need_pkgs+=(mmdebstrap)
command -v qemu-img >/dev/null || need_pkgs+=(qemu-utils)
command -v mkfs.ext4 >/dev/null || need_pkgs+=(e2fsprogs)
command -v zstd >/dev/null || need_pkgs+=(zstd)
[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] || need_pkgs+=(debian-archive-keyring)
python3 -c 'import venv, ensurepip' 2>/dev/null || need_pkgs+=(python3-venv)
# vagrant ships the well-known insecure public key the box authorises for the vagrant user
ls /usr/share/rubygems-integration/all/gems/vagrant-*/keys/vagrant.pub >/dev/null 2>&1 \
  || need_pkgs+=(vagrant)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  log "installing host packages: ${need_pkgs[*]}"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${need_pkgs[@]}" >&2
fi
VAGRANT_PUB=$(ls /usr/share/rubygems-integration/all/gems/vagrant-*/keys/vagrant.pub | head -n1)

# --- the key: ask Debian (main + contrib) for the versions, with a private apt state ----------
mkdir -p "$CACHE"
APTDIR="$CACHE/.apt-$SUITE"
mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
cat > "$APTDIR/sources.list" <<EOF
deb [signed-by=$KEYRING] $MIRROR $SUITE main contrib
deb [signed-by=$KEYRING] $MIRROR $SUITE-updates main contrib
deb [signed-by=$KEYRING] $SECURITY $SUITE-security main contrib
EOF
APTOPTS=(-o "Dir::Etc::SourceList=$APTDIR/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
         -o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache"
         -o "Dir::State::status=/dev/null" -o "APT::Architecture=amd64"
         -o "APT::Sandbox::User=root")
log "querying Debian $SUITE (main+contrib) for kernel and zfs versions"
apt-get "${APTOPTS[@]}" -qq update >&2 || die "apt-get update against $MIRROR failed"
candidate() { apt-cache "${APTOPTS[@]}" policy "$1" | awk '/Candidate:/ {print $2}'; }
KMETA_VER=$(candidate linux-image-amd64)
KPKG=$(apt-cache "${APTOPTS[@]}" show "linux-image-amd64=$KMETA_VER" \
       | sed -n 's/^Depends: .*\(linux-image-[0-9][^ ,]*-amd64\).*/\1/p' | head -n1)
[ -n "$KPKG" ] || die "could not find the kernel package linux-image-amd64 depends on"
KABI=${KPKG#linux-image-}            # e.g. 6.1.0-37-amd64
KVER=$(candidate "$KPKG")            # e.g. 6.1.140-1
ZFS_VER=$(candidate zfs-dkms)
[ -n "$ZFS_VER" ] && [ "$ZFS_VER" != "(none)" ] || die "zfs-dkms not found in contrib"
SCRIPT_SHA=$(sha256sum "$SCRIPT" | cut -c1-64)
REQS_SHA=$(sha256sum "$REQS" | cut -c1-64)
PROVISION_SHA=$(sha256sum "$PROVISION" | cut -c1-64)
INPUTS="kernel=$KPKG/$KVER zfs-dkms=$ZFS_VER script=$SCRIPT_SHA provision=$PROVISION_SHA requirements=$REQS_SHA disk=$DISK_GB"
HASH=$(printf '%s' "$INPUTS" | sha256sum | cut -c1-10)
ZFS_SHORT=${ZFS_VER%%-*}
KEY="zfl-ci-debian$DEBIAN_MAJOR-${KABI%-amd64}-zfs${ZFS_SHORT}-$HASH"
OUT="$CACHE/$KEY"
BOX="$OUT/$KEY.box"
log "inputs: $INPUTS"
log "key: $KEY"
if [ "$PRINT_KEY" = 1 ]; then echo "$KEY"; exit 0; fi

if [ -s "$BOX" ] && [ -s "$OUT/vmlinuz" ] && [ -s "$OUT/initrd.img" ] && [ "$FORCE" = 0 ]; then
  log "cached box found, not rebuilding: $BOX"
  echo "$BOX"
  exit 0
fi

# --- build -------------------------------------------------------------------------------------
df_avail_gb=$(df -P --block-size=1G "$CACHE" | awk 'NR==2 {print $4}')
[ "$df_avail_gb" -ge 10 ] || die "need 10 GiB free under $CACHE, have ${df_avail_gb} GiB"
WORK=$(mktemp -d "$CACHE/.build-XXXXXX")
cleanup() {
  # never leave a half-built chroot's mounts behind
  if [ -d "$WORK/rootfs" ]; then
    for m in $(awk -v r="$WORK/rootfs" 'index($2, r) == 1 {print $2}' /proc/mounts | sort -r); do
      umount -l "$m" 2>/dev/null || true
    done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
BUILDLOG="$WORK/build.log"
log "building in $WORK (full log: $BUILDLOG while it runs, then $OUT/build.log)"

# 1. Python wheels for the guest venv, downloaded on the host for the guest's CPython and glibc
#    (Debian 13: 3.13 and 2.41; Debian 12: 3.11 and 2.36): the chroot then installs them with no
#    network of its own.
log "downloading Python wheels for the guest (CPython $GUEST_PY, manylinux up to glibc 2.$GUEST_GLIBC)"
python3 -m venv "$WORK/pipvenv" >>"$BUILDLOG" 2>&1
# pip does not widen an explicit manylinux_2_X platform to older ones: list them all.
platforms=(--platform manylinux1_x86_64 --platform manylinux2010_x86_64
           --platform manylinux2014_x86_64)
for glibc in $(seq 5 "$GUEST_GLIBC"); do platforms+=(--platform "manylinux_2_${glibc}_x86_64"); done
"$WORK/pipvenv/bin/python" -m pip download --quiet --dest "$WORK/wheels" \
  --only-binary=:all: --implementation cp --python-version "$GUEST_PY" \
  "${platforms[@]}" -r "$REQS" >>"$BUILDLOG" 2>&1 \
  || { tail -n 30 "$BUILDLOG" >&2; die "pip download failed"; }
log "  $(ls "$WORK/wheels" | wc -l) wheels, $(du -sh "$WORK/wheels" | cut -f1)"

# 2. What runs inside the chroot once the packages are in.
cp "$REQS" "$WORK/labs-requirements.txt"
cp "$PROVISION" "$WORK/provision.sh"
cp "$VAGRANT_PUB" "$WORK/vagrant.pub"
cat > "$WORK/setup-guest.sh" <<'GUEST'
#!/bin/bash
set -euo pipefail
KABI=$1
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
# The host's pip settings (find-links, certificates) mean nothing in here.
for v in $(compgen -e | grep '^PIP_' || true); do unset "$v"; done

# The lab environment: the learners' provisioning script, in its image-build mode (zfs.ko for
# $KABI, the venv from the wheels downloaded on the host, nothing loaded or started).
ZFL_BAKE=1 ZFL_KERNEL="$KABI" ZFL_WHEELS=/tmp/zfl/wheels \
  ZFL_REQUIREMENTS=/tmp/zfl/labs-requirements.txt bash /tmp/zfl/provision.sh

# A small initrd: only what finds and mounts an ext4 root on virtio (boots faster under TCG).
cat > /etc/initramfs-tools/conf.d/zfl.conf <<'EOF'
MODULES=list
COMPRESS=zstd
EOF
printf '%s\n' virtio_pci virtio_blk virtio_net virtio_console ext4 > /etc/initramfs-tools/modules
update-initramfs -u -k "$KABI"

# Root file system, host name, console.
cat > /etc/fstab <<'EOF'
# The root is the whole virtio disk (no partition table); the kernel mounts it rw.
/dev/vda  /  ext4  defaults,errors=remount-ro  0  0
EOF
echo zfl-ci > /etc/hostname
printf '127.0.0.1 localhost\n127.0.1.1 zfl-ci\n::1 localhost ip6-localhost ip6-loopback\n' > /etc/hosts

# Networking: DHCP on every ethernet interface (libvirt's management network, or user-mode).
mkdir -p /etc/systemd/network
cat > /etc/systemd/network/80-dhcp.network <<'EOF'
[Match]
Name=en* eth*

[Network]
DHCP=yes

[DHCPv4]
UseDNS=yes
EOF
systemctl enable systemd-networkd.service
# Vagrant waits for ssh itself; don't let boot wait for "online" too.
systemctl mask systemd-networkd-wait-online.service
# Nothing here needs these at boot; each costs seconds under TCG.
systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
  man-db.timer 2>/dev/null || true

# ZFS: load the module at boot (zfsutils-linux ships zfs-load-module.service).
echo zfs > /etc/modules-load.d/zfs.conf

# The vagrant user: insecure key (vagrant replaces it on first up), passwordless sudo.
id vagrant >/dev/null 2>&1 || useradd --create-home --shell /bin/bash vagrant
echo 'vagrant:vagrant' | chpasswd
install -d -m 0700 -o vagrant -g vagrant /home/vagrant/.ssh
install -m 0600 -o vagrant -g vagrant /tmp/zfl/vagrant.pub /home/vagrant/.ssh/authorized_keys
echo 'vagrant ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/vagrant
chmod 0440 /etc/sudoers.d/vagrant
echo 'Defaults:vagrant !requiretty' >> /etc/sudoers.d/vagrant
cat > /etc/ssh/sshd_config.d/zfl.conf <<'EOF'
UseDNS no
PasswordAuthentication yes
EOF
passwd -l root

# Smaller image: package caches and docs are not needed in a CI VM.
apt-get clean
rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* /var/cache/debconf/*-old \
  /root/.cache /tmp/zfl
GUEST
chmod +x "$WORK/setup-guest.sh"

# 3. The root file system: packages from Debian main + contrib (dkms compiles zfs.ko here).
# The base system and this image's kernel, then the lab packages from provision.sh's own list.
mapfile -t LAB_PKGS < <(ZFL_KERNEL="$KABI" bash "$PROVISION" --packages)
PKGS=(systemd systemd-sysv udev dbus kmod
      "$KPKG" linux-image-amd64 linux-headers-amd64 initramfs-tools zstd build-essential
      sudo ca-certificates python3 procps less util-linux e2fsprogs
      "${LAB_PKGS[@]}")
log "mmdebstrap: Debian $SUITE minbase + ${#PKGS[@]} packages (compiles zfs.ko with dkms, ~6-9 min)"
# shellcheck disable=SC2016  # $1 is expanded by mmdebstrap's hook shell
mmdebstrap --mode=root --variant=minbase --components=main,contrib \
  --aptopt='APT::Install-Recommends "false"' \
  --dpkgopt='force-confold' \
  --include="$(IFS=,; echo "${PKGS[*]}")" \
  --customize-hook='mkdir -p "$1/tmp/zfl"' \
  --customize-hook="copy-in $WORK/wheels $WORK/labs-requirements.txt $WORK/provision.sh $WORK/vagrant.pub $WORK/setup-guest.sh /tmp/zfl" \
  --customize-hook="chroot \"\$1\" /bin/bash /tmp/zfl/setup-guest.sh $KABI" \
  "$SUITE" "$WORK/rootfs" \
  "deb $MIRROR $SUITE main contrib" \
  "deb $MIRROR $SUITE-updates main contrib" \
  "deb $SECURITY $SUITE-security main contrib" >>"$BUILDLOG" 2>&1 &
MMPID=$!
while kill -0 "$MMPID" 2>/dev/null; do
  sleep 30
  phase=$(grep '^I:' "$BUILDLOG" | tail -n1 | cut -c4-70)
  pkgs=$(grep -c '^Status: install ok installed' "$WORK/rootfs/var/lib/dpkg/status" 2>/dev/null || true)
  dkms=""
  if pgrep -f "make.*zfs-$ZFS_SHORT|/var/lib/dkms/zfs/$ZFS_SHORT/build" >/dev/null 2>&1; then
    dkms=", dkms compiling zfs.ko"
  elif ls "$WORK"/rootfs/lib/modules/*/updates/dkms/zfs.ko* >/dev/null 2>&1; then
    dkms=", zfs.ko built"
  fi
  last="$phase (${pkgs:-0} packages installed$dkms)"
  log "  ... ${last:-working}"
done
wait "$MMPID" || { tail -n 40 "$BUILDLOG" >&2; die "mmdebstrap failed (log above)"; }
ls "$WORK"/rootfs/lib/modules/"$KABI"/updates/dkms/zfs.ko* >/dev/null \
  || die "zfs.ko missing from the image"
log "rootfs: $(du -sh "$WORK/rootfs" | cut -f1)"

# 4. Disk image: ext4 straight from the directory (no loop mount), then compressed qcow2.
mkdir -p "$WORK/box"
cp "$WORK/rootfs/boot/vmlinuz-$KABI" "$WORK/vmlinuz"
cp "$WORK/rootfs/boot/initrd.img-$KABI" "$WORK/initrd.img"
log "mkfs.ext4 -d (${DISK_GB} GiB sparse)"
truncate -s "${DISK_GB}G" "$WORK/root.raw"
mkfs.ext4 -q -F -L zfl-root -d "$WORK/rootfs" "$WORK/root.raw" >>"$BUILDLOG" 2>&1
log "qemu-img convert to compressed qcow2"
qemu-img convert -c -O qcow2 -o compression_type=zstd "$WORK/root.raw" "$WORK/box/box.img"
rm -f "$WORK/root.raw"
log "  box.img $(du -h "$WORK/box/box.img" | cut -f1)"

cat > "$WORK/box/metadata.json" <<EOF
{"provider": "libvirt", "format": "qcow2", "virtual_size": $DISK_GB}
EOF
cat > "$WORK/box/Vagrantfile" <<'EOF'
# Defaults of the zfs-field-labs CI box (built by vagrant/build-ci-box.sh). The box has no
# boot loader: the project's Vagrantfile boots it with the kernel and initrd stored beside the
# .box file (direct kernel boot, root=/dev/vda).
Vagrant.configure("2") do |config|
  config.ssh.username = "vagrant"
  config.vm.provider :libvirt do |libvirt|
    libvirt.disk_bus = "virtio"
    libvirt.nic_model_type = "virtio"
  end
end
EOF
cp "$WORK/vmlinuz" "$WORK/initrd.img" "$WORK/box/"
log "tar the box"
tar -C "$WORK/box" -cf "$WORK/$KEY.box" metadata.json Vagrantfile box.img vmlinuz initrd.img

FROZEN=$(sed 's/.*/"&"/' "$WORK/rootfs/opt/labs-venv/FROZEN.txt" 2>/dev/null | paste -sd, -)
cat > "$WORK/manifest.json" <<EOF
{
  "key": "$KEY",
  "built": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "build_seconds": $(( $(date +%s) - T0 )),
  "kernel_package": "$KPKG",
  "kernel_version": "$KVER",
  "kernel_abi": "$KABI",
  "zfs_dkms": "$ZFS_VER",
  "script_sha256": "$SCRIPT_SHA",
  "provision_sha256": "$PROVISION_SHA",
  "requirements_sha256": "$REQS_SHA",
  "kernel_cmdline": "root=/dev/vda rw console=ttyS0,115200 net.ifnames=0",
  "python_packages": [$FROZEN]
}
EOF

# 5. Publish atomically: the key directory appears complete or not at all.
rm -rf "$OUT.tmp"
mkdir -p "$OUT.tmp"
mv "$WORK/$KEY.box" "$WORK/vmlinuz" "$WORK/initrd.img" "$WORK/manifest.json" "$OUT.tmp/"
cp "$BUILDLOG" "$OUT.tmp/build.log"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
# Keep this box and the one before it of the same Debian release (switching branches back and
# forth); drop older ones.
ls -dt "$CACHE"/zfl-ci-debian"$DEBIAN_MAJOR"-* 2>/dev/null | grep -v '\.tmp$' | tail -n +3 | while read -r old; do
  log "pruning old cached box $(basename "$old")"
  rm -rf "$old"
done
log "done in $(( $(date +%s) - T0 )) s: $BOX ($(du -h "$BOX" | cut -f1))"
echo "$BOX"
}
main "$@"
exit
