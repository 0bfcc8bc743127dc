# Shared machinery of the VM tools (tools/vm/run-labs.sh, tools/vm/record-transcripts.sh),
# sourced, not run. `vm_up` does everything up to a booted, provisioned VM with one reusable ssh
# connection: host packages, the CI box (vagrant/build-ci-box.sh), the KVM/TCG probe, the host's
# state saved, libvirt daemons, `vagrant up`. It installs an EXIT trap (`restore_host`) that
# destroys the VM and puts the host back as it was (see vagrant/README.md).
#
# The caller sets before `vm_up`:
#   ROOT      the repository          RESULTS   where logs and timings go (created)
#   ZFL_TAG   log prefix, e.g. run-labs          ZFL_WHAT  loud-failure headline, e.g. "VM LABS"
# and gets after it: SSH (array: ssh to the guest), STATE (private temp dir, ssh config in
# $STATE/ssh-config), HOSTALIAS, ACCEL (kvm|tcg), and the helpers log, step, loud_fail.
# Environment: ZFL_BOX, ZFL_BOX_CACHE, ZFL_ACCEL, ZFL_KEEP_VM, ZFL_VM_UP_TIMEOUT as documented in
# run-labs.sh; ZFL_REPROVISION=0 skips the second `vagrant provision` (idempotency check).
# shellcheck shell=bash

vm_up() {
STEP_T=$T0
log() { printf '[%s %4ss] %s\n' "$ZFL_TAG" "$(( $(date +%s) - T0 ))" "$*" >&2; }
step() {  # step NAME: log the previous step's duration, start timing the next
  local now; now=$(date +%s)
  [ -n "${STEP_NAME:-}" ] && TIMINGS+=("$STEP_NAME=$((now - STEP_T))s")
  STEP_NAME=$1; STEP_T=$now
  log "== $1"
}
TIMINGS=()
loud_fail() {  # loud_fail MESSAGE [host]: "host" adds what a host needs to run the VM labs
  {
    echo
    echo "################################################################################"
    echo "#  ${ZFL_WHAT:-VM LABS} FAILED: $1"
    if [ "${2:-}" = host ]; then
      echo "#  The VM labs need a host that can run a virtual machine (qemu, with KVM or TCG)"
      echo "#  and libvirt, as root. This is a failure, not a skip."
    fi
    echo "################################################################################"
  } >&2
  exit 1
}

[ "$(id -u)" = 0 ] || loud_fail "must run as root (libvirt system daemon, iptables, sysctl)" host
mkdir -p "$RESULTS"
rm -rf "$RESULTS"/guest-info.txt "$RESULTS"/timings.txt \
  "$RESULTS"/serial.log "$RESULTS"/vagrant-up.log "$RESULTS"/vagrant-provision.log

# --- host packages -----------------------------------------------------------------------------
step "host packages"
"$ROOT/tools/vm/host-packages.sh" || loud_fail "could not install the host packages the VM needs (above)" host

# --- the box -----------------------------------------------------------------------------------
step "box"
if [ -n "${ZFL_BOX:-}" ]; then
  BOX=$(readlink -f "$ZFL_BOX")
  [ -s "$BOX" ] || loud_fail "ZFL_BOX=$ZFL_BOX does not exist"
else
  BOX=$("$ROOT/vagrant/build-ci-box.sh" | tail -n1) \
    || loud_fail "building the CI box failed (vagrant/build-ci-box.sh, messages above)"
fi
BOOT_DIR=$(dirname "$BOX")
[ -s "$BOOT_DIR/vmlinuz" ] && [ -s "$BOOT_DIR/initrd.img" ] \
  || loud_fail "the box has no vmlinuz/initrd.img beside it in $BOOT_DIR"
export ZFL_BOX="$BOX" ZFL_BOOT_DIR="$BOOT_DIR"
log "box: $BOX"

# --- can this host run a VM at all? ------------------------------------------------------------
step "accelerator probe"
ACCEL=${ZFL_ACCEL:-auto}
if [ "$ACCEL" = auto ]; then
  ACCEL=$("$ROOT/tools/vm/kvm-probe.sh" "$BOOT_DIR/vmlinuz") \
    || loud_fail "neither KVM nor TCG could boot the box's kernel (tools/vm/kvm-probe.sh)" host
fi
export ZFL_ACCEL=$ACCEL
log "accelerator: $ACCEL"

# --- remember the host's state -----------------------------------------------------------------
STATE=$(mktemp -d /tmp/zfl-run-labs.XXXXXX)
chmod 0755 "$STATE"
IP_FORWARD=$(cat /proc/sys/net/ipv4/ip_forward)
IP6_FORWARD=$(cat /proc/sys/net/ipv6/conf/all/forwarding 2>/dev/null || echo "")
save_chains() {  # save_chains FILE: "<tool> <table> <chain>" for every chain that exists now
  local tool table
  : >"$1"
  for tool in iptables ip6tables; do
    command -v $tool >/dev/null || continue
    for table in filter nat mangle raw; do
      $tool -w -t $table -S 2>/dev/null | awk -v t=$tool -v tb=$table '$1 == "-N" || $1 == "-P" {print t, tb, $2}' >>"$1"
    done
  done
  sort -u -o "$1" "$1"
}
save_chains "$STATE/chains.before"
ls /var/lib/libvirt/boot >"$STATE/boot.before" 2>/dev/null || : >"$STATE/boot.before"
STARTED_LIBVIRTD=0
STARTED_VIRTLOGD=0
: >"$STATE/nets.before"

# --- Vagrant: private dot-dir and a unique domain name, so a learner's VM is never touched -----
export VAGRANT_CWD="$ROOT/vagrant"
export VAGRANT_DOTFILE_PATH="$STATE/dot-vagrant"
export VAGRANT_CHECKPOINT_DISABLE=1 VAGRANT_NO_COLOR=1 VAGRANT_DEFAULT_PROVIDER=libvirt
export ZFL_VM_NAME="zfl-ci-$$-"
export ZFL_SERIAL_LOG="$STATE/serial.log"
: >"$ZFL_SERIAL_LOG"   # qemu runs as libvirt-qemu: give it a file it may write
chown libvirt-qemu:libvirt-qemu "$ZFL_SERIAL_LOG" 2>/dev/null || chmod 0666 "$ZFL_SERIAL_LOG"
VM_UP=0

restore_host() {
  local rc=$?
  set +e
  step "teardown"
  if [ "$VM_UP" = 1 ] && [ "${ZFL_KEEP_VM:-0}" = 1 ]; then
    log "ZFL_KEEP_VM=1: leaving the VM running; VAGRANT_DOTFILE_PATH=$VAGRANT_DOTFILE_PATH"
    log "host NOT restored (state in $STATE)"
    exit "$rc"
  fi
  [ -s "$ZFL_SERIAL_LOG" ] && cp "$ZFL_SERIAL_LOG" "$RESULTS/serial.log" 2>/dev/null
  [ -n "${HOSTALIAS:-}" ] && ssh -F "$STATE/ssh-config" -O exit "$HOSTALIAS" >/dev/null 2>&1
  if [ -d "$VAGRANT_DOTFILE_PATH" ]; then
    timeout 300 vagrant destroy -f >"$STATE/destroy.log" 2>&1 || cat "$STATE/destroy.log" >&2
  fi
  # Any domain of ours still defined (an interrupted up): remove it and its disks.
  for dom in $(virsh -c qemu:///system list --all --name 2>/dev/null | grep "^$ZFL_VM_NAME"); do
    virsh -c qemu:///system destroy "$dom" >/dev/null 2>&1
    virsh -c qemu:///system undefine "$dom" --remove-all-storage >/dev/null 2>&1
  done
  # libvirt networks that were not there before (vagrant-libvirt's management network),
  # unless another VM still runs on them (a second run of these tools started meanwhile).
  local others
  others=$(virsh -c qemu:///system list --name 2>/dev/null | sed '/^$/d' | grep -v "^$ZFL_VM_NAME" || true)
  if [ -n "$others" ]; then
    log "leaving libvirt networks in place: other VMs still run ($(echo $others))"
  fi
  [ -f "$STATE/nets.recorded" ] && [ -z "$others" ] \
  && for net in $(virsh -c qemu:///system net-list --all --name 2>/dev/null | sed '/^$/d' | sort \
               | comm -13 "$STATE/nets.before" -); do
    log "removing libvirt network $net"
    virsh -c qemu:///system net-destroy "$net" >/dev/null 2>&1
    virsh -c qemu:///system net-undefine "$net" >/dev/null 2>&1
  done
  # Daemons we started.
  if [ "$STARTED_LIBVIRTD" = 1 ]; then
    if [ "$(cat /proc/1/comm)" = systemd ]; then systemctl stop libvirtd
    else kill "$(cat /run/libvirtd.pid 2>/dev/null)" 2>/dev/null
      for _ in $(seq 1 20); do pgrep -x libvirtd >/dev/null || break; sleep 0.5; done
    fi
  fi
  if [ "$STARTED_VIRTLOGD" = 1 ]; then
    kill "$(cat /run/virtlogd.pid 2>/dev/null)" 2>/dev/null
  fi
  # iptables chains libvirt added (it leaves them behind, empty): unhook, flush, delete;
  # not while another VM's network still needs them.
  save_chains "$STATE/chains.after"
  [ -n "$others" ] && cp "$STATE/chains.before" "$STATE/chains.after"
  comm -13 "$STATE/chains.before" "$STATE/chains.after" | while read -r tool table chain; do
    $tool -w -t "$table" -S | awk -v c="$chain" '$1 == "-A" && $2 != c && / -j / {
        for (i = 1; i <= NF; i++) if ($i == "-j" && $(i+1) == c) print }' \
      | sed 's/^-A /-D /' | while read -r rule; do
        # shellcheck disable=SC2086
        $tool -w -t "$table" $rule
      done
    $tool -w -t "$table" -F "$chain"
  done
  comm -13 "$STATE/chains.before" "$STATE/chains.after" | while read -r tool table chain; do
    $tool -w -t "$table" -X "$chain" 2>/dev/null || log "could not delete $tool -t $table $chain"
  done
  save_chains "$STATE/chains.final"
  cmp -s "$STATE/chains.before" "$STATE/chains.final" \
    || log "WARNING: iptables chains differ from before: $(diff "$STATE/chains.before" "$STATE/chains.final" | tr '\n' ' ')"
  # Kernel/initrd copies the Vagrantfile staged for libvirt.
  for f in $(ls /var/lib/libvirt/boot 2>/dev/null | comm -13 "$STATE/boot.before" -); do
    rm -f "/var/lib/libvirt/boot/$f"
  done
  [ -z "$others" ] && echo "$IP_FORWARD" >/proc/sys/net/ipv4/ip_forward
  [ -n "$IP6_FORWARD" ] && echo "$IP6_FORWARD" >/proc/sys/net/ipv6/conf/all/forwarding
  step "done"
  printf '%s\n' "${TIMINGS[@]}" "total=$(( $(date +%s) - T0 ))s" "accel=$ACCEL" "rc=$rc" \
    >"$RESULTS/timings.txt"
  log "timings: ${TIMINGS[*]} total=$(( $(date +%s) - T0 ))s"
  rm -rf "$STATE"
  if [ "$rc" != 0 ]; then
    echo "$ZFL_TAG: FAILED (exit $rc); results and logs in $RESULTS" >&2
  fi
  exit "$rc"
}
trap restore_host EXIT
trap 'exit 130' INT TERM

# --- libvirt daemons ---------------------------------------------------------------------------
step "libvirt"
if [ "$(cat /proc/1/comm)" = systemd ]; then
  systemctl is-active --quiet libvirtd || { systemctl start libvirtd && STARTED_LIBVIRTD=1; }
else
  if ! pgrep -x virtlogd >/dev/null; then virtlogd -d && STARTED_VIRTLOGD=1; fi
  if ! pgrep -x libvirtd >/dev/null; then libvirtd -d && STARTED_LIBVIRTD=1; fi
fi
for _ in $(seq 1 30); do virsh -c qemu:///system version >/dev/null 2>&1 && break; sleep 1; done
virsh -c qemu:///system version >/dev/null 2>&1 || loud_fail "libvirtd does not answer on qemu:///system" host
virsh -c qemu:///system net-list --all --name | sed '/^$/d' | sort >"$STATE/nets.before"
touch "$STATE/nets.recorded"
# vagrant-libvirt wants a storage pool named "default"; the box image is uploaded there once and
# reused by later runs (a cache, like the box itself).
if ! virsh -c qemu:///system pool-info default >/dev/null 2>&1; then
  virsh -c qemu:///system pool-define-as default dir --target /var/lib/libvirt/images >/dev/null \
    || virsh -c qemu:///system pool-info default >/dev/null \
    || loud_fail "cannot define libvirt's default storage pool" host
  virsh -c qemu:///system pool-autostart default >/dev/null || true
fi
virsh -c qemu:///system pool-start default >/dev/null 2>&1 || true


# Older CI boxes (other keys) in Vagrant and in libvirt's pool: remove them, keep only this one.
KEY=$(basename "$BOX" .box)
for old in $(vagrant box list 2>/dev/null | awk '$1 ~ /^zfl\/zfl-ci-/ {print $1}' | sort -u); do
  [ "$old" = "zfl/$KEY" ] && continue
  log "removing stale box $old"
  vagrant box remove --force --all "$old" >/dev/null 2>&1 || true
done
for vol in $(virsh -c qemu:///system vol-list default 2>/dev/null | awk '$1 ~ /^zfl-VAGRANTSLASH-zfl-ci-/ {print $1}'); do
  case "$vol" in *"$KEY"*) continue ;; esac
  log "removing stale libvirt volume $vol"
  virsh -c qemu:///system vol-delete --pool default "$vol" >/dev/null 2>&1 || true
done

# --- up ----------------------------------------------------------------------------------------
step "vagrant up"
VM_UP=1
if ! timeout "${ZFL_VM_UP_TIMEOUT:-1800}" vagrant up --provider=libvirt --no-tty \
     >"$RESULTS/vagrant-up.log" 2>&1; then
  tail -n 40 "$RESULTS/vagrant-up.log" >&2
  [ -s "$ZFL_SERIAL_LOG" ] && { echo "--- guest serial console (last 40 lines):" >&2; tail -n 40 "$ZFL_SERIAL_LOG" >&2; }
  loud_fail "vagrant up failed (log: $RESULTS/vagrant-up.log)" host
fi
# Provisioning must be re-runnable: run it a second time on the running VM (ZFL_REPROVISION=0
# skips this check, e.g. when only recording transcripts).
if [ "${ZFL_REPROVISION:-1}" = 1 ]; then
step "vagrant provision (idempotency)"
vagrant provision --no-tty >"$RESULTS/vagrant-provision.log" 2>&1 \
  || { tail -n 20 "$RESULTS/vagrant-provision.log" >&2; loud_fail "re-running the provisioning failed"; }
fi

step "ssh config"
vagrant ssh-config >"$STATE/ssh-config"
HOSTALIAS=$(awk '/^Host / {print $2; exit}' "$STATE/ssh-config")
# One ssh connection, reused: each new handshake costs seconds of emulated crypto under TCG.
cat >>"$STATE/ssh-config" <<EOF
Host *
  ControlMaster auto
  ControlPath $STATE/ssh-%C
  ControlPersist 600
  LogLevel ERROR
EOF
SSH=(ssh -F "$STATE/ssh-config" "$HOSTALIAS")
}
