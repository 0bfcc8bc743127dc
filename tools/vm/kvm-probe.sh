#!/usr/bin/env bash
# Which accelerator can boot a Linux kernel here? Prints one word: kvm, tcg or none.
#   kvm-probe.sh [--kvm-only] VMLINUZ
# /dev/kvm existing is not enough: on some hosts (nested paravirtual KVM) a stock kernel hangs
# under KVM. So boot the given kernel with no root file system and wait for its panic ("VFS:
# Unable to mount root fs"), which proves the kernel ran its whole early boot. KVM gets
# ZFL_KVM_PROBE_TIMEOUT s (default 25), TCG ZFL_TCG_PROBE_TIMEOUT s (default 240).
# --kvm-only: print kvm or tcg and skip the TCG boot (the Vagrantfile's quick decision).
# Exit status: 0 when kvm or tcg works, 1 when nothing does ("none").
set -uo pipefail
KVM_ONLY=0
[ "${1:-}" = --kvm-only ] && { KVM_ONLY=1; shift; }
KERNEL=${1:?usage: kvm-probe.sh [--kvm-only] VMLINUZ}
QEMU=${QEMU:-qemu-system-x86_64}
log() { echo "kvm-probe: $*" >&2; }
command -v "$QEMU" >/dev/null || { log "$QEMU not installed"; echo none; exit 1; }
[ -r "$KERNEL" ] || { log "cannot read $KERNEL"; echo none; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

boot() {  # boot ACCEL CPU TIMEOUT -> 0 when the kernel reached its root-mount panic
  local accel=$1 cpu=$2 limit=$3 out="$TMP/$1.log" t0=$SECONDS
  # (a subshell, so a qemu that aborts does not make bash print "Aborted" here)
  ( timeout --kill-after=5 "$limit" "$QEMU" -accel "$accel" -cpu "$cpu" -m 256 -smp 1 \
    -nodefaults -display none -no-reboot -serial "file:$out" \
    -kernel "$KERNEL" -append "console=ttyS0 panic=-1 root=/dev/zfl-none rootwait=0" \
    >"$TMP/$accel.qemu" 2>&1; : ) 2>/dev/null
  if grep -q -E 'Kernel panic|VFS: Unable to mount root' "$out" 2>/dev/null; then
    log "$accel: kernel booted to its root-mount panic in $((SECONDS - t0)) s"
    return 0
  fi
  log "$accel: no panic line within $limit s ($(wc -c <"$out" 2>/dev/null || echo 0) bytes of console;" \
      "qemu said: $(tail -c 300 "$TMP/$accel.qemu" | tr '\n' ' '))"
  return 1
}

if [ -r /dev/kvm ] && [ -w /dev/kvm ] && boot kvm host "${ZFL_KVM_PROBE_TIMEOUT:-25}"; then
  echo kvm; exit 0
fi
if [ "$KVM_ONLY" = 1 ]; then echo tcg; exit 0; fi
if boot tcg qemu64 "${ZFL_TCG_PROBE_TIMEOUT:-240}"; then
  echo tcg; exit 0
fi
echo none
exit 1
