# Shared by provision-debian.sh and provision-ubuntu.sh (sourced, not run): the steps that do
# not depend on the distribution. The caller sets DISTRO and has already become root.
#   ZFL_OFFLINE=1   everything must already be there (the CI box): fail instead of using apt/pip
#   ZFL_JUPYTER=0   do not start JupyterLab (CI runs notebooks with pytest instead)
export DEBIAN_FRONTEND=noninteractive
OFFLINE=${ZFL_OFFLINE:-0}
JUPYTER=${ZFL_JUPYTER:-1}
REQS=${ZFL_REQUIREMENTS:-/tmp/zfl-provision/labs-requirements.txt}
VENV=/opt/labs-venv
KREL=$(uname -r)
say() { echo "provision-$DISTRO: $*"; }
die() { echo "provision-$DISTRO: ERROR: $*" >&2; exit 1; }

# The packages of "$@" that are not installed yet.
missing_packages() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
  done
}

# Installs "$@" with apt (the caller has checked that something is missing).
apt_install() {
  [ "$OFFLINE" = 1 ] && die "offline, but packages are missing: $*"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "$@"
}

# Loads zfs.ko now and at every boot; $1 says where to look if it is missing.
load_zfs() {
  if ! lsmod | grep -q '^zfs '; then
    modprobe zfs || die "modprobe zfs failed ($1)"
  fi
  echo zfs > /etc/modules-load.d/zfs.conf
  say "$(zfs version 2>/dev/null | tr '\n' ' ')"
}

# JupyterLab, nbval, pytest, ipykernel in $VENV (pinned in labs-requirements.txt).
labs_venv() {
  local stamp="$VENV/.requirements.sha256" want
  want=$(sha256sum "$REQS" 2>/dev/null | cut -c1-64 || true)
  if [ -x "$VENV/bin/jupyter-lab" ] && { [ ! -f "$REQS" ] \
       || [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] || [ "$OFFLINE" = 1 ]; }; then
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
}

# JupyterLab as a service on port 8888 (root: the labs run zpool and zfs).
jupyter_service() {
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
}
