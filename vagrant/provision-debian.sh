#!/usr/bin/env bash
# Provisions a Debian 12 guest for ZFS Field Labs: OpenZFS (contrib: zfs-dkms, built for the
# running kernel), WireGuard tools, fio, qemu-utils and JupyterLab in /opt/labs-venv, served on
# port 8888 with /labs as its root. Idempotent: `vagrant provision` re-runs it, and it installs
# only what is missing.
#   ZFL_OFFLINE=1   everything must already be there (the CI box): fail instead of using apt/pip
#   ZFL_JUPYTER=0   do not start JupyterLab (CI runs notebooks with pytest instead)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
OFFLINE=${ZFL_OFFLINE:-0}
JUPYTER=${ZFL_JUPYTER:-1}
REQS=${ZFL_REQUIREMENTS:-/tmp/zfl-provision/labs-requirements.txt}
VENV=/opt/labs-venv
say() { echo "provision-debian: $*"; }
die() { echo "provision-debian: ERROR: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || exec sudo -E bash "$0" "$@"
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

KREL=$(uname -r)
pkgs=(dkms zfs-dkms zfsutils-linux wireguard-tools fio qemu-utils python3-venv rsync)
# headers for the running kernel (zfs-dkms compiles against them)
pkgs+=("linux-headers-$KREL")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$OFFLINE" = 1 ] && die "offline, but packages are missing: ${missing[*]}"
  enable_contrib && say "enabled the contrib component" || true
  say "installing: ${missing[*]} (zfs-dkms compiles the module: several minutes)"
  apt-get update -qq
  # zfs-dkms shows a licence note through debconf; noninteractive accepts it.
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  say "packages already installed"
fi

# 2. The kernel module.
if ! lsmod | grep -q '^zfs '; then
  modprobe zfs || die "modprobe zfs failed (is zfs.ko built for $KREL? see dkms status)"
fi
echo zfs > /etc/modules-load.d/zfs.conf
say "$(zfs version 2>/dev/null | tr '\n' ' ')"

# 3. Python: JupyterLab, nbval, pytest, ipykernel (pinned in labs-requirements.txt).
stamp="$VENV/.requirements.sha256"
want=$(sha256sum "$REQS" 2>/dev/null | cut -c1-64 || true)
if [ -x "$VENV/bin/jupyter-lab" ] && { [ ! -f "$REQS" ] || [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] \
     || [ "$OFFLINE" = 1 ]; }; then
  say "JupyterLab venv already in $VENV"
else
  [ "$OFFLINE" = 1 ] && die "offline, but $VENV has no JupyterLab"
  [ -f "$REQS" ] || die "missing $REQS"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  say "installing Python packages into $VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQS"
  echo "$want" > "$stamp"
fi
echo "PATH=\"$VENV/bin:\$PATH\"" > /etc/profile.d/labs-venv.sh
install -d -m 0755 /var/tmp/labs

# 4. JupyterLab as a service on port 8888 (root: the labs run zpool and zfs).
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
systemctl daemon-reload
if [ "$JUPYTER" = 1 ]; then
  systemctl enable --now zfl-jupyterlab.service
  systemctl restart zfl-jupyterlab.service
  say "JupyterLab: http://127.0.0.1:8888 on the host (labs in /labs)"
else
  say "JupyterLab installed, not started (ZFL_JUPYTER=0)"
fi
