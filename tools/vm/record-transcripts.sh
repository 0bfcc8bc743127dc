#!/usr/bin/env bash
# Records each lab script's transcript on real OpenZFS, for the simulator-versus-reality test
# (tests/fidelity/test_against_real.py): boots the CI VM exactly as tools/vm/run-labs.sh does
# (shared machinery in tools/vm/vm-lib.sh), copies labs/scripts/*.sh in, runs each as root with
# tools/vm/transcript-driver.sh (the transcript format of `python -m labsim SCRIPT`), and writes
#   tests/fixtures/real/<zfs version, e.g. 2.1.11>/<script name>.txt  (first recording)
#   tests/fixtures/real/<zfs version>/<script name>.runN.txt            (each later one, N = 2, 3…)
#   and a .meta.json beside each
# then destroys the VM and puts the host back. Before each script, the guest's leftover pools
# named lab* are destroyed and files /var/tmp/labs/lab* removed (nothing else is touched).
# Any failure is loud: non-zero exit and a message saying what failed.
#
# Usage (as root):  tools/vm/record-transcripts.sh [SCRIPT.sh...]   (default: labs/scripts/*.sh)
# Environment: as run-labs.sh (ZFL_BOX, ZFL_BOX_CACHE, ZFL_ACCEL, ZFL_KEEP_VM, ZFL_VM_UP_TIMEOUT),
# plus ZFL_RESULTS (logs; default <repo>/test-results/record-real), ZFL_FIXTURES (default
# <repo>/tests/fixtures/real), ZFL_RECORD_TIMEOUT (seconds per script, default 1800),
# ZFL_REPROVISION (default 0 here: skip run-labs's second `vagrant provision`), ZFL_RECORD_POOLS
# (comma-separated pools a script that is not a lab may create, e.g. a one-off probe).
set -euo pipefail
# One function, parsed whole before it runs (see run-labs.sh).
main() {

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RESULTS=${ZFL_RESULTS:-$ROOT/test-results/record-real}
FIXTURES=${ZFL_FIXTURES:-$ROOT/tests/fixtures/real}
T0=$(date +%s)
ZFL_TAG=record-real
ZFL_WHAT="RECORDING REAL TRANSCRIPTS"
export ZFL_REPROVISION=${ZFL_REPROVISION:-0}
# shellcheck source=tools/vm/vm-lib.sh
. "$ROOT/tools/vm/vm-lib.sh"

# Scripts to record: arguments, or every labs/scripts/*.sh. Checked before booting anything.
local scripts=() s
if [ $# -gt 0 ]; then
  for s in "$@"; do
    [ -f "$s" ] || { echo "record-real: no such script: $s" >&2; exit 1; }
    case "$s" in *.sh) ;; *) echo "record-real: not a .sh script: $s" >&2; exit 1 ;; esac
    scripts+=("$(readlink -f "$s")")
  done
else
  for s in "$ROOT"/labs/scripts/*.sh; do [ -f "$s" ] && scripts+=("$s"); done
fi
[ ${#scripts[@]} -gt 0 ] || { echo "record-real: no lab scripts in $ROOT/labs/scripts" >&2; exit 1; }
command -v python3 >/dev/null || { echo "record-real: python3 is needed on the host (meta.json)" >&2; exit 1; }
# The lab runner's safety rules apply to recordings too: files under /var/tmp/labs only, the
# lab's own pools only (labs/labkit). A script that breaks them is not run at all.
for s in "${scripts[@]}"; do
  (cd "$ROOT/labs" && python3 -m labkit check-script ${ZFL_RECORD_POOLS:+--pools "$ZFL_RECORD_POOLS"} "$s") \
    || { echo "record-real: $s breaks the labs' safety rules (above); nothing was run" >&2; exit 1; }
done

mkdir -p "$RESULTS"
rm -rf "$RESULTS"/transcripts "$RESULTS"/record.log
vm_up

# --- scripts in ---------------------------------------------------------------------------------
step "push scripts"
local GUEST_DIR=/root/zfl-record
"${SSH[@]}" "sudo rm -rf $GUEST_DIR && sudo mkdir -p $GUEST_DIR/scripts $GUEST_DIR/out" \
  || loud_fail "could not prepare $GUEST_DIR in the guest"
tar -C "$ROOT/tools/vm" -cf - transcript-driver.sh \
  | "${SSH[@]}" "sudo tar -C $GUEST_DIR -xf -" || loud_fail "could not copy the driver into the guest"
for s in "${scripts[@]}"; do
  "${SSH[@]}" "sudo tee $GUEST_DIR/scripts/$(basename "$s") >/dev/null" <"$s" \
    || loud_fail "could not copy $s into the guest"
done

local ZFS_VERSION KMOD_VERSION RELEASE KERNEL
ZFS_VERSION=$("${SSH[@]}" 'sudo zfs version' | sed -n 1p) || loud_fail "zfs version failed in the guest"
KMOD_VERSION=$("${SSH[@]}" 'sudo zfs version' | sed -n 2p) || true
KERNEL=$("${SSH[@]}" 'uname -r') || loud_fail "uname -r failed in the guest"
# "zfs-2.1.11-1" -> "2.1.11"
RELEASE=$(printf '%s\n' "$ZFS_VERSION" | sed -n 's/^zfs-\([0-9][0-9.]*[0-9]\).*/\1/p')
[ -n "$RELEASE" ] || loud_fail "cannot read a release from \`zfs version\`: '$ZFS_VERSION'"
log "guest: $ZFS_VERSION / $KMOD_VERSION, kernel $KERNEL, $ACCEL"

# --- record -------------------------------------------------------------------------------------
local OUT=$RESULTS/transcripts/$RELEASE name rc started
mkdir -p "$OUT"
for s in "${scripts[@]}"; do
  name=$(basename "$s" .sh)
  step "record $name"
  started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  set +e
  # shellcheck disable=SC2029  # expanded on purpose on this side
  timeout "${ZFL_RECORD_TIMEOUT:-1800}" "${SSH[@]}" "sudo -H env LC_ALL=C bash -c '
    set -u
    # Leftovers of an earlier lab: only pools named lab*, only files /var/tmp/labs/lab*.
    for p in \$(zpool list -H -o name 2>/dev/null); do
      case \"\$p\" in lab*) echo \"cleanup: zpool destroy -f \$p\" >&2; zpool destroy -f \"\$p\" || exit 3 ;; esac
    done
    if [ -d /var/tmp/labs ]; then
      find /var/tmp/labs -maxdepth 1 -name \"lab*\" -type f -print -delete >&2 || exit 3
    fi
    cd /root && bash $GUEST_DIR/transcript-driver.sh $GUEST_DIR/scripts/$name.sh $GUEST_DIR/out/$name.status \
      >$GUEST_DIR/out/$name.txt
  '" 2>>"$RESULTS/record.log"
  rc=$?
  set -e
  [ "$rc" = 124 ] && loud_fail "$name did not finish within ${ZFL_RECORD_TIMEOUT:-1800} s in the guest"
  [ "$rc" = 3 ] && loud_fail "could not clean up leftover lab pools/files before $name (see $RESULTS/record.log)"
  [ "$rc" = 0 ] || loud_fail "running $name in the guest failed (exit $rc; see $RESULTS/record.log)"
  "${SSH[@]}" "sudo cat $GUEST_DIR/out/$name.txt" >"$OUT/$name.txt" \
    || loud_fail "could not bring $name.txt out of the guest"
  "${SSH[@]}" "sudo cat $GUEST_DIR/out/$name.status" >"$OUT/$name.status" \
    || loud_fail "could not bring $name.status out of the guest"
  [ "$(tail -n1 "$OUT/$name.status")" = done ] \
    || loud_fail "$name ended the guest shell early (no 'done' in its status; transcript in $OUT/$name.txt)"
  [ -s "$OUT/$name.txt" ] || loud_fail "$name produced an empty transcript"
  local failed
  failed=$(awk -F'\t' '$1 != "done" && $1 != 0' "$OUT/$name.status" | wc -l)
  [ "$failed" = 0 ] || log "note: $failed command(s) in $name exited non-zero (kept in the transcript)"
  python3 - "$OUT/$name.meta.json" "$OUT/$name.status" <<PY || loud_fail "could not write $name.meta.json"
import json, sys
status = [l.rstrip("\n").split("\t", 1) for l in open(sys.argv[2]) if "\t" in l]
meta = {
    "script": "labs/scripts/$name.sh",
    "zfs_release": "$RELEASE",
    "zfs_version": "$ZFS_VERSION",
    "zfs_kmod_version": "$KMOD_VERSION",
    "kernel": "$KERNEL",
    "date": "$started",
    "accel": "$ACCEL",
    "box": "$(basename "$ZFL_BOX" .box)",
    "nonzero_exits": [{"status": int(s), "command": c} for s, c in status if s != "0"],
}
with open(sys.argv[1], "w") as f:
    json.dump(meta, f, indent=2)
    f.write("\n")
PY
  rm -f "$OUT/$name.status"
  log "recorded $name: $(grep -c '^\$ ' "$OUT/$name.txt") commands"
done

# --- fixtures out -------------------------------------------------------------------------------
step "fixtures"
mkdir -p "$FIXTURES/$RELEASE"
# Real OpenZFS is not repeatable run to run (the allocation throttle), and the fidelity test
# judges labsim against the range of all recorded runs: a new recording is added as the next
# <name>.runN.txt beside the earlier ones, never written over them.
local target n
for s in "${scripts[@]}"; do
  name=$(basename "$s" .sh)
  target=$name
  if [ -e "$FIXTURES/$RELEASE/$name.txt" ]; then
    n=2
    while [ -e "$FIXTURES/$RELEASE/$name.run$n.txt" ]; do n=$((n + 1)); done
    target=$name.run$n
  fi
  cp "$OUT/$name.txt" "$FIXTURES/$RELEASE/$target.txt"
  cp "$OUT/$name.meta.json" "$FIXTURES/$RELEASE/$target.meta.json"
  log "wrote ${FIXTURES#"$ROOT"/}/$RELEASE/$target.txt"
done
}
main "$@"
exit
