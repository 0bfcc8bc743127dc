#!/usr/bin/env bash
# Provisions an Ubuntu 24.04 guest for ZFS Field Labs: OpenZFS (zfsutils-linux; Ubuntu's kernel
# ships zfs.ko), WireGuard tools, fio, qemu-utils and JupyterLab in /opt/labs-venv, served on
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
say() { echo "provision-ubuntu: $*"; }
die() { echo "provision-ubuntu: ERROR: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || exec sudo -E bash "$0" "$@"
. /etc/os-release
[ "$ID" = ubuntu ] || die "this is $PRETTY_NAME, not Ubuntu (use provision-debian.sh)"

KREL=$(uname -r)
pkgs=(zfsutils-linux wireguard-tools fio qemu-utils python3-venv rsync)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$OFFLINE" = 1 ] && die "offline, but packages are missing: ${missing[*]}"
  say "installing: ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  say "packages already installed"
fi

# 1. The kernel module.
if ! lsmod | grep -q '^zfs '; then
  modprobe zfs || die "modprobe zfs failed (does $KREL ship zfs.ko? linux-modules-extra may be missing)"
fi
echo zfs > /etc/modules-load.d/zfs.conf
say "$(zfs version 2>/dev/null | tr '\n' ' ')"

# 2. Python: JupyterLab, nbval, pytest, ipykernel (pinned in labs-requirements.txt).
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

# 3. JupyterLab as a service on port 8888 (root: the labs run zpool and zfs).
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
