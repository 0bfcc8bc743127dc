#!/usr/bin/env bash
# Proves the README's set-up on a truly fresh Debian machine: makes a throwaway Debian root
# with mmdebstrap, installs in it only what the README says a machine needs (python3 with venv,
# npm, make; git for the clone), clones this repository's committed HEAD into it and runs the
# README's host test command there, timing every phase.
#
# Why: the machines the project is developed on are "warm" (whatever was installed by hand
# stays), so a green run there can hide a missing install step. A fresh Debian 12 machine once
# failed the suite because nftables, which apt pulled in by Recommends, changed wg-quick's
# output. Only a root that starts from nothing proves the README's commands.
#
# Needs root (mmdebstrap --mode=root, chroot, mounts, network namespaces in the suite).
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: tools/fresh-machine.sh [--keep] [--clone-dir=DIR] bookworm|trixie [make target, default test-host]

Builds a throwaway fresh Debian root for the suite (mmdebstrap --variant=important) under
/var/tmp, installs the README's prerequisites in it with apt's defaults (Recommends on),
clones this repository's HEAD into it and runs `make TARGET` there as root (in its own mount
and PID namespaces, with /proc, /sys, /dev, /dev/pts, /dev/shm and a tmpfs /run), then
`make build` (the `make serve` path). Prints and records the wall time of each phase in
test-results/fresh-machine/SUITE.txt (full output: SUITE.log). Exits non-zero if a make fails.

  --keep     keep the root (its path is printed) instead of deleting it
  --clone-dir=DIR
             where in the root to clone (default /root/zfs-field-labs, root's home, which
             Debian makes mode 700: no other user can read a clone there)
  -h, --help this text

`make fresh-machine SUITE=trixie` runs it from the Makefile. Needs root.
EOF
}

KEEP=0
# Where the repository is cloned, inside the root: root's home, where `git clone` as root
# puts it. Debian makes /root mode 700, so no other user can read that clone (tests that run
# netkit as user nobody from the checkout fail there; --clone-dir=/srv/... shows the rest).
CLONE=/root/zfs-field-labs
ARGS=()
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --keep) KEEP=1 ;;
    --clone-dir=/*) CLONE=${arg#--clone-dir=} ;;
    -*) echo "fresh-machine: unknown option $arg" >&2; usage >&2; exit 2 ;;
    *) ARGS+=("$arg") ;;
  esac
done
if [ ${#ARGS[@]} -lt 1 ] || [ ${#ARGS[@]} -gt 2 ]; then usage >&2; exit 2; fi
SUITE=${ARGS[0]}
TARGET=${ARGS[1]:-test-host}
case "$SUITE" in
  bookworm|trixie) ;;
  *) echo "fresh-machine: suite must be bookworm or trixie, not '$SUITE'" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "fresh-machine: needs root (mmdebstrap, chroot, mounts)" >&2; exit 1; }

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESULTS_DIR=$REPO/test-results/fresh-machine   # test-results/ is git-ignored
RESULTS=$RESULTS_DIR/$SUITE.txt
LOG=$RESULTS_DIR/$SUITE.log
# What the README says a machine needs: "python3 (3.11 or newer) with venv, npm, and make";
# git to clone the repository. Everything else `make TARGET` must install by itself.
README_PACKAGES=(python3 python3-venv npm make git)
# The variant: Priority required + important, which is what the Debian installer always
# installs (the "standard system utilities" task, Priority standard, is an option one may
# untick). It is the smallest set a real Debian machine has, so a missing install step shows;
# and it has what every real machine has, among them nftables (Priority important), which
# once changed wg-quick's output.
# `--variant=minbase` would be smaller than any real machine, `standard` may hide a missing step.
VARIANT=important

mkdir -p "$RESULTS_DIR"
: >"$LOG"
WORK=$(mktemp -d "/var/tmp/fresh-machine-$SUITE.XXXXXX")
chmod 755 "$WORK"   # so that apt's _apt user can reach the root's lists
ROOT=$WORK/root
CHILD=""

say() { printf '[fresh-machine %s %s] %s\n' "$SUITE" "$(date +%H:%M:%S)" "$*" | tee -a "$LOG"; }
record() { printf '%s\n' "$*" >>"$RESULTS"; printf '%s\n' "$*"; }

# Mounts under $WORK that the host can see (none should exist: every mount of a run lives in
# that run's own mount namespace) and processes whose root is in $WORK (none should outlive
# their PID namespace).
leftover_mounts() { findmnt -rn -o TARGET | grep -F "$WORK" || true; }
leftover_pids() {
  local p r
  for p in /proc/[0-9]*; do
    r=$(readlink "$p/root" 2>/dev/null) || continue
    case "$r" in "$WORK"|"$WORK"/*) echo "${p#/proc/}" ;; esac
  done
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$CHILD" ]; then kill "$CHILD" 2>/dev/null || true; wait "$CHILD" 2>/dev/null || true; fi
  local pids mounts
  pids=$(leftover_pids)
  if [ -n "$pids" ]; then
    echo "fresh-machine: processes left in the root, killing: $pids" >&2
    # shellcheck disable=SC2086  # one pid a word
    kill -KILL $pids 2>/dev/null || true
    sleep 1
  fi
  mounts=$(leftover_mounts)
  if [ -n "$mounts" ]; then
    echo "fresh-machine: mounts left under $WORK, unmounting: $mounts" >&2
    sort -r <<<"$mounts" | while read -r m; do umount -l "$m" || true; done
  fi
  if [ "$KEEP" = 1 ]; then
    echo "fresh-machine: kept the root at $ROOT (nothing is mounted in it; delete $WORK when done)" >&2
  else
    # --one-file-system: never follow into something still mounted.
    rm -rf --one-file-system "$WORK" || echo "fresh-machine: could not remove $WORK" >&2
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs "$@" in the background and waits for it, so that the traps above run at once on a
# signal (bash runs a trap only after the foreground command ends) and can stop it by pid.
run_waited() {
  "$@" &
  CHILD=$!
  local rc=0
  wait "$CHILD" || rc=$?
  CHILD=""
  return "$rc"
}

# What pid 1 of a run does: mounts the kernel file systems into the root, makes the root the
# mount namespace's "/" (pivot_root, not chroot: on a real machine "/" is a mount point, which
# `ip netns exec` and `unshare` need for `mount --make-rslave /`, and the kernel refuses user
# namespaces, which netkit uses without root, to a chrooted process), then runs the command as
# a child, so that this bash stays pid 1 and reaps orphans as init would. Every mount is in the
# run's own mount namespace and every process in its own PID namespace: when this bash ends,
# the kernel kills what is left and the mounts go with the namespace.
# /dev is the host's devtmpfs (bind, without its submounts: /dev/net/tun for wireguard-go, the
# null and random devices), with a new devpts instance and a fresh /dev/shm (Chromium) on top;
# /run is a fresh tmpfs as on a booted machine (ip netns keeps its namespaces there, netkit its
# state), so nothing the suite names there meets what the host or another run names.
# The network is the host's, as a machine's own network would be: the suite makes its
# network namespaces itself (ip netns), and pip, npm and apt need the registries.
# With ORIGIN set, that folder is also bind-mounted read-only at /run/origin (for the clone).
INIT='set -eu
root=$1; shift
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --bind /dev "$root/dev"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5 devpts "$root/dev/pts"
mount --bind "$root/dev/pts/ptmx" "$root/dev/ptmx"
mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
mount -t tmpfs -o mode=0755,nosuid,nodev run "$root/run"
mkdir -m 1777 "$root/run/lock"
if [ -n "${ORIGIN:-}" ]; then
  mkdir "$root/run/origin"
  mount --bind -o ro "$ORIGIN" "$root/run/origin"
fi
mkdir "$root/run/oldroot"
cd "$root"
pivot_root . run/oldroot
cd /
umount -l /run/oldroot
rmdir /run/oldroot
rc=0
/usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  TERM="${TERM:-dumb}" LANG=C.UTF-8 /bin/bash -c "$1" || rc=$?
exit "$rc"'

# Runs "$@" (waited, as above) with its output on stdout and appended to the log; returns
# only once all of it is in the log.
logged() {
  local out tee_pid rc=0
  exec {out}> >(tee -a "$LOG")
  tee_pid=$!
  run_waited "$@" >&"$out" 2>&1 || rc=$?
  exec {out}>&-
  wait "$tee_pid" 2>/dev/null || true
  return "$rc"
}

# Runs the shell command $1 inside the root, as root, output to stdout and the log.
in_root() {
  # A fresh copy of the host's resolver address, as a machine on this network gets by DHCP.
  cp --remove-destination -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
  logged unshare --mount --pid --fork --kill-child --propagation private -- \
    bash -c "$INIT" fresh-machine-init "$ROOT" "$1"
}

# The host's settings for reaching the package registries, and nothing else (no caches, no
# credentials): on this workplace HTTPS to PyPI and npm goes through a TLS-intercepting egress
# proxy whose CA the host trusts (added in /usr/local/share/ca-certificates), and the host's
# pip (cert) and npm (cafile) are told to use the system bundle that holds it. A machine
# without such a proxy needs none of this. Copied: the locally added CA certificates (before
# ca-certificates, which npm depends on, is installed: its postinst adds them to the bundle);
# pip's index-url, extra-index-url, trusted-host, cert and proxy from the host's pip.conf
# files and PIP_* variables, into the root's /etc/pip.conf; npm's registry, scoped
# registries, cafile, ca, strict-ssl, proxy, https-proxy and noproxy where they differ from
# npm's defaults, into the root's /root/.npmrc. Anything with a password in it is left out.
copy_registry_settings() {
  local notes=()
  if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
    mkdir -p "$ROOT/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
    notes+=("CA certificates: $(cd /usr/local/share/ca-certificates && echo ./*.crt)")
  fi
  local py
  py=$(command -v python3 || true)
  if [ -n "$py" ]; then
    "$py" - "$ROOT" <<'PY'
import configparser, json, os, pathlib, shutil, subprocess, sys, urllib.parse
root = pathlib.Path(sys.argv[1])
home = pathlib.Path.home()

def has_password(value):
    return any(urllib.parse.urlsplit(v).password for v in str(value).split() if "://" in v)

pip_keys = ("index-url", "extra-index-url", "trusted-host", "cert", "proxy")
pip = {}
for path in ("/etc/xdg/pip/pip.conf", "/etc/pip.conf", home / ".pip/pip.conf",
             home / ".config/pip/pip.conf", os.environ.get("PIP_CONFIG_FILE") or ""):
    parser = configparser.ConfigParser()
    if path and parser.read(path):
        for section in ("global", "install"):
            for key in pip_keys:
                if parser.has_option(section, key):
                    pip[key] = parser.get(section, key)
for key in pip_keys:
    value = os.environ.get("PIP_" + key.upper().replace("-", "_"))
    if value:
        pip[key] = value
pip = {k: v for k, v in pip.items() if not has_password(v)}
if pip:
    (root / "etc/pip.conf").write_text(
        "[global]\n" + "".join(f"{k} = {v}\n" for k, v in sorted(pip.items())))
    print("pip:", ", ".join(f"{k}={v}" for k, v in sorted(pip.items())))

npm_defaults = {"registry": "https://registry.npmjs.org/", "cafile": None, "ca": None,
                "strict-ssl": True, "proxy": None, "https-proxy": None, "noproxy": [""]}
npm = {}
if shutil.which("npm"):
    try:
        out = subprocess.run(["npm", "config", "ls", "--json"], capture_output=True,
                             text=True, timeout=60, cwd="/").stdout
        config = json.loads(out)
    except (subprocess.SubprocessError, ValueError):
        config = {}
    for key, value in config.items():
        if (key in npm_defaults and value != npm_defaults[key]) or key.endswith(":registry"):
            if value not in (None, "", [""]) and not has_password(value):
                npm[key] = ",".join(value) if isinstance(value, list) else value
if npm:
    text = "".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}\n"
                   for k, v in sorted(npm.items()))
    (root / "root").mkdir(exist_ok=True)
    (root / "root/.npmrc").write_text(text)
    print("npm:", ", ".join(f"{k}={v}" for k, v in sorted(npm.items())))
PY
  fi
  for n in "${notes[@]}"; do echo "$n"; done
}

phase_start() { PHASE=$1; PHASE_T0=$EPOCHREALTIME; say "phase $PHASE: start (load $(cut -d' ' -f1-3 /proc/loadavg))"; }
phase_end() {
  local status=$1 secs
  secs=$(awk -v a="$PHASE_T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
  say "phase $PHASE: $status in ${secs}s"
  record "$(printf 'phase %-14s %6ss  %s  (load at end %s)' "$PHASE" "$secs" "$status" \
    "$(cut -d' ' -f1-3 /proc/loadavg)")"
}

: >"$RESULTS"
T0=$EPOCHREALTIME
record "fresh-machine: Debian $SUITE, variant $VARIANT, make $TARGET (+ make build)"
record "started: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
record "root: $ROOT, clone in $CLONE"

command -v mmdebstrap >/dev/null || {
  say "installing mmdebstrap on the host"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap
}

# --- 1. the root: what a new Debian machine has. mmdebstrap's defaults give the suite, its
# -updates and -security from deb.debian.org, and copy nothing from the host's apt setup.
phase_start root
# In its own mount namespace so that whatever it mounts goes away with it, even on a crash.
# Then the kernel every installed Debian machine has (the installer and the cloud images put
# in linux-image-amd64), with apt's defaults. Without it the root is a container, not a
# machine, and apt satisfies wireguard-tools' "Recommends: wireguard-modules" by installing
# some kernel that provides them (in trixie it picked linux-image-rt-amd64), which a real
# machine never does.
if logged unshare --mount --propagation private -- \
     mmdebstrap --mode=root --variant="$VARIANT" --format=directory "$SUITE" "$ROOT" \
   && { copy_registry_settings | while read -r line; do record "registry settings copied: $line"; done; } \
   && in_root "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y linux-image-amd64"
then
  phase_end ok
else
  phase_end FAILED; record "result: FAIL (the root)"; exit 1
fi

# --- 2. the README's prerequisites, with apt's defaults as on any machine: Recommends on (no
# --no-install-recommends, no apt.conf of ours; mmdebstrap writes no 99mmdebstrap without
# --aptopt), as a person would type it.
phase_start prerequisites
if in_root "apt-config dump | grep -i 'Install-Recommends' || true
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${README_PACKAGES[*]}"; then
  phase_end ok
else
  phase_end FAILED; record "result: FAIL (installing ${README_PACKAGES[*]})"; exit 1
fi

# --- 3. the repository: a clone of the committed HEAD, by the root's own git (the working
# tree's uncommitted changes, .venv, node_modules and caches stay out).
phase_start clone
# The repository is reachable, read-only, in the root only for this clone.
CLONE_CMD="git clone --no-local --quiet /run/origin $CLONE"
if ORIGIN=$REPO in_root "$CLONE_CMD"; then
  phase_end ok
  record "commit: $(git -C "$ROOT$CLONE" log -1 --format='%H %s')"
else
  phase_end FAILED; record "result: FAIL (git clone)"; exit 1
fi

# --- 4. the README's command, exactly; then `make build`, which `make serve` builds on.
FAILED=()
run_make() {
  local target=$1 from
  from=$(wc -l <"$LOG")
  phase_start "$target"
  if in_root "cd $CLONE && make $target"; then phase_end ok; else phase_end FAILED; FAILED+=("$target"); fi
  # pytest's closing line and its short summary of failures, if this make ran pytest.
  local summary
  summary=$(tail -n +"$from" "$LOG" | grep -E '^=+ .*(passed|failed|error).* in [0-9.]+s' | tail -n 1 || true)
  if [ -n "$summary" ]; then
    record "  pytest: $(sed -E 's/^=+ //; s/ =+$//' <<<"$summary")"
    { tail -n +"$from" "$LOG" | grep -E '^(FAILED|ERROR) ' || true; } \
      | while read -r l; do record "  $l"; done
  fi
}
run_make "$TARGET"
[ "$TARGET" = build ] || run_make build

# What the root ended up with: the versions that decide the suite's behaviour.
record "packages in the root: $(dpkg-query --admindir="$ROOT/var/lib/dpkg" -W -f '${Package}=${Version} ' \
  python3 nodejs npm chromium wireguard-tools wireguard-go nftables iptables iproute2 openssh-server 2>/dev/null || true)"

TOTAL=$(awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
record "total: ${TOTAL}s"
if [ ${#FAILED[@]} -eq 0 ]; then
  record "result: PASS"
else
  record "result: FAIL (make ${FAILED[*]})"
  exit 1
fi
