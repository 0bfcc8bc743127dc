#!/usr/bin/env bash
# The lab VM's one provisioning script: Debian 13 (trixie) with OpenZFS 2.3 from contrib
# (zfs-dkms, compiled for the guest's kernel), kernel WireGuard with wireguard-tools, nftables
# (Debian 13's firewall, so wg-quick takes the same path in every lab VM), fio, qemu-utils, the
# tools of the network labs, and JupyterLab in /opt/labs-venv serving /labs on port 8888.
# Debian 12 (bookworm, OpenZFS 2.1) works too: that is how the 2.1 recordings are re-made.
#
# It runs in three places, and is idempotent in all of them (it installs only what is missing):
#   a learner's VM    `vagrant up` / `vagrant provision` (debian/trixie64 on VirtualBox and
#                     libvirt, bento/debian-13 on arm64): apt, dkms, modprobe, JupyterLab started;
#   the CI box build  vagrant/build-ci-box.sh runs it inside the image's chroot with
#                     ZFL_BAKE=1 ZFL_KERNEL=<kernel ABI> ZFL_WHEELS=<dir>: no running kernel of
#                     its own (dkms builds for ZFL_KERNEL, nothing is loaded or started), the venv
#                     from wheels downloaded on the host;
#   the CI VM         `vagrant up` with ZFL_OFFLINE=1 ZFL_JUPYTER=0: nothing to install (the box
#                     has no route to a registry), so it only checks and loads zfs.ko.
# Settings:
#   ZFL_OFFLINE=1      everything must already be there: fail instead of using apt or pip
#   ZFL_JUPYTER=0      do not start JupyterLab (CI runs the notebooks with pytest instead)
#   ZFL_BAKE=1         building an image (see above); needs ZFL_KERNEL, and ZFL_WHEELS for pip
#   ZFL_REQUIREMENTS   the pinned Python packages (default: labs-requirements.txt beside this)
#   --packages         print the lab packages (for ZFL_KERNEL, default the running kernel)
#                      and exit: the CI box build installs the same list in one apt run
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
HERE=$(dirname "$(readlink -f "$0")")
OFFLINE=${ZFL_OFFLINE:-0}
JUPYTER=${ZFL_JUPYTER:-1}
BAKE=${ZFL_BAKE:-0}
REQS=${ZFL_REQUIREMENTS:-$HERE/labs-requirements.txt}
VENV=/opt/labs-venv
say() { echo "provision: $*"; }
die() { echo "provision: ERROR: $*" >&2; exit 1; }
KREL=${ZFL_KERNEL:-$(uname -r)}

# The lab packages. zfs-dkms compiles zfs.ko against the headers of the kernel it is for;
# openssh-server and libnss-mdns are for the slow-SSH network lab (labs/net/05-slow-ssh);
# nftables decides what wg-quick prints for a default route (`nft -f`, not iptables-restore).
PACKAGES=(dkms zfs-dkms zfsutils-linux wireguard-tools nftables iptables curl fio qemu-utils
          python3-venv rsync iputils-ping iproute2 openssh-server libnss-mdns
          "linux-headers-$KREL")
if [ "${1:-}" = --packages ]; then printf '%s\n' "${PACKAGES[@]}"; exit 0; fi
[ "$(id -u)" = 0 ] || exec sudo -E bash "$0" "$@"

. /etc/os-release
[ "$ID" = debian ] || die "this is $PRETTY_NAME; the lab VM is Debian 13 (see vagrant/README.md)"
case "${VERSION_ID:-}" in
  13) ;;
  12) say "Debian 12: OpenZFS 2.1, for re-recording the 2.1 transcripts (the course teaches 2.3)" ;;
  *) die "Debian ${VERSION_ID:-unknown} is not supported: use Debian 13 (or 12 for OpenZFS 2.1)" ;;
esac
[ "$BAKE" = 1 ] && [ -z "${ZFL_KERNEL:-}" ] && die "ZFL_BAKE=1 needs ZFL_KERNEL, the kernel ABI to build zfs.ko for"

missing_packages() {  # the packages of "$@" that are not installed yet
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
  done
}

enable_contrib() {  # contrib is where Debian keeps zfs-dkms; returns 0 if it changed anything
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

# 1. Packages.
mapfile -t missing < <(missing_packages "${PACKAGES[@]}")
if [ ${#missing[@]} -gt 0 ]; then
  [ "$OFFLINE" = 1 ] && die "offline, but packages are missing: ${missing[*]}"
  if enable_contrib; then say "enabled the contrib component"; fi
  apt-get update -qq
  if ! apt-cache show "linux-headers-$KREL" >/dev/null 2>&1; then
    # A box whose kernel Debian has since replaced: its headers are gone from the archive.
    die "no linux-headers-$KREL in the archive (the box's kernel is older than Debian's):
  run 'sudo apt-get install linux-image-$(dpkg --print-architecture)', then 'vagrant reload --provision'"
  fi
  say "installing: ${missing[*]} (zfs-dkms compiles the module: several minutes)"
  # zfs-dkms shows a licence note through debconf; noninteractive accepts it.
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  say "packages already installed"
fi

# 2. The kernel module: built by dkms for $KREL, loaded now (not in an image build) and at boot.
if ! ls /lib/modules/"$KREL"/updates/dkms/zfs.ko* >/dev/null 2>&1; then
  [ "$OFFLINE" = 1 ] && die "offline, and zfs.ko is not built for $KREL"
  say "zfs.ko is not built for $KREL yet: dkms autoinstall"
  dkms autoinstall -k "$KREL"
fi
ls /lib/modules/"$KREL"/updates/dkms/zfs.ko* >/dev/null 2>&1 \
  || die "dkms did not build zfs.ko for $KREL (see: dkms status)"
echo zfs > /etc/modules-load.d/zfs.conf
if [ "$BAKE" = 1 ]; then
  depmod -a "$KREL"
else
  lsmod | grep -q '^zfs ' || modprobe zfs || die "modprobe zfs failed (see: dkms status)"
  say "$(zfs version 2>/dev/null | tr '\n' ' ')"
fi

# 3. JupyterLab, nbval, pytest, ipykernel in $VENV (pinned in labs-requirements.txt).
stamp="$VENV/.requirements.sha256"
want=$(sha256sum "$REQS" 2>/dev/null | cut -c1-64 || true)
if [ -x "$VENV/bin/jupyter-lab" ] && { [ ! -f "$REQS" ] || [ "$OFFLINE" = 1 ] \
     || [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; }; then
  say "JupyterLab venv already in $VENV"
else
  [ "$OFFLINE" = 1 ] && die "offline, but $VENV has no JupyterLab"
  [ -f "$REQS" ] || die "missing $REQS"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  say "installing Python packages into $VENV"
  if [ -n "${ZFL_WHEELS:-}" ]; then
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-index \
      --find-links "$ZFL_WHEELS" -r "$REQS"
  else
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQS"
  fi
  "$VENV/bin/pip" freeze > "$VENV/FROZEN.txt"
  echo "$want" > "$stamp"
fi
echo "PATH=\"$VENV/bin:\$PATH\"" > /etc/profile.d/labs-venv.sh
install -d -m 0755 /var/tmp/labs

# 4. JupyterLab as a service on port 8888 (as root: the labs run zpool and zfs).
cat > /etc/systemd/system/zfl-jupyterlab.service <<UNIT
[Unit]
Description=ZFS Field Labs JupyterLab on port 8888
After=network-online.target zfs.target

[Service]
ExecStart=$VENV/bin/jupyter-lab --allow-root --no-browser --ip=0.0.0.0 --port=8888 \\
  --ServerApp.root_dir=/labs --IdentityProvider.token= --ServerApp.password=
WorkingDirectory=/labs
Restart=on-failure

[Install]
WantedBy=multi-user.target
UNIT
if [ "$BAKE" = 1 ]; then
  say "JupyterLab installed, not enabled (image build)"
elif [ "$JUPYTER" = 1 ]; then
  systemctl daemon-reload
  systemctl enable --now zfl-jupyterlab.service
  systemctl restart zfl-jupyterlab.service
  say "JupyterLab: http://127.0.0.1:8888 on the host (labs in /labs)"
else
  systemctl daemon-reload
  say "JupyterLab installed, not started (ZFL_JUPYTER=0)"
fi
