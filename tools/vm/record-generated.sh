#!/usr/bin/env bash
# Records a batch of generated lab scripts (tools/difftest/generate.py) on real OpenZFS in ONE
# boot of the CI VM, for the replay test (tests/fidelity/test_generated.py) and the agreement
# rate of `make bench`: generates the scripts of the seeds asked for on the host, refuses the
# batch if any breaks the labs' safety rules (python3 -m labkit check-script, each script's
# own pool labgNNNN only), boots the VM exactly as record-transcripts.sh does (vm-lib.sh),
# copies the scripts in with one tar, runs them back to back with tools/vm/generated-runner.sh
# in one ssh call (each through transcript-driver.sh, leftover labg* pools and files cleared
# before each), brings the results out with one tar, and writes for each script that ran to
# its end (tools/difftest/store.py)
#   tests/fixtures/real/<zfs release>/generated/seed-NNNN.txt        the transcript
#   tests/fixtures/real/<zfs release>/generated/seed-NNNN.sh         the script that ran
#   tests/fixtures/real/<zfs release>/generated/seed-NNNN.meta.json  versions, time, exits
# A seed recorded before with the same script gets the new run beside the first as
# seed-NNNN.runN.txt (real OpenZFS does not repeat itself; the comparator judges labsim
# against the range of the runs); a seed whose script has changed since (the generator
# changed) has its old recordings replaced. Then destroys the VM and puts the host back.
#
# Usage (as root):  tools/vm/record-generated.sh        (or: make record-generated)
# Environment: as record-transcripts.sh (ZFL_BOX, ZFL_BOX_CACHE, ZFL_ACCEL, ZFL_KEEP_VM,
# ZFL_VM_UP_TIMEOUT, ZFL_FIXTURES, ZFL_REPROVISION), and
#   ZFL_GENERATED_SEEDS   which seeds: "tuning", "held-out", "all" (default), or A-B,C,...
#   ZFL_RECORD_TIMEOUT    seconds per script (default 300)
#   ZFL_RESULTS           logs (default <repo>/test-results/record-generated)
# A script that does not run to its end (timeout, a dead guest shell) is logged and not
# stored; the batch goes on. The run fails loudly if no script at all could be recorded.
set -euo pipefail
# One function, parsed whole before it runs (see run-labs.sh).
main() {

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RESULTS=${ZFL_RESULTS:-$ROOT/test-results/record-generated}
FIXTURES=${ZFL_FIXTURES:-$ROOT/tests/fixtures/real}
SEEDS=${ZFL_GENERATED_SEEDS:-all}
LIMIT=${ZFL_RECORD_TIMEOUT:-300}
T0=$(date +%s)
ZFL_TAG=record-generated
ZFL_WHAT="RECORDING GENERATED SCRIPTS"
export ZFL_REPROVISION=${ZFL_REPROVISION:-0}
# shellcheck source=tools/vm/vm-lib.sh
. "$ROOT/tools/vm/vm-lib.sh"

command -v python3 >/dev/null || { echo "record-generated: python3 is needed on the host" >&2; exit 1; }
local BATCH
BATCH=$(mktemp -d /tmp/zfl-generated.XXXXXX)
mkdir -p "$BATCH/scripts"
python3 "$ROOT/tools/difftest/generate.py" --batch "$BATCH/scripts" --seeds "$SEEDS" \
  || { echo "record-generated: generating the scripts of seeds '$SEEDS' failed" >&2; exit 1; }
# The lab runner's safety rules, before anything boots: files under /var/tmp/labs only, and
# only the script's own pool (labgNNNN).
python3 - "$ROOT/labs" "$BATCH/scripts" <<'PY' || { echo "record-generated: a generated script breaks the labs' safety rules (above); nothing was run" >&2; exit 1; }
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from labkit.cli import main
bad = [p.name for p in sorted(Path(sys.argv[2]).glob("seed-*.sh"))
       if main(["check-script", "--pools", "labg" + p.stem.removeprefix("seed-"), str(p)]) != 0]
sys.exit(1 if bad else 0)
PY
local count
count=$(find "$BATCH/scripts" -name 'seed-*.sh' | wc -l)
[ "$count" -gt 0 ] || { echo "record-generated: no seeds in '$SEEDS'" >&2; exit 1; }

mkdir -p "$RESULTS"
rm -rf "$RESULTS"/transcripts "$RESULTS"/record.log
vm_up

# --- scripts in (one tar) -------------------------------------------------------------------
step "push $count scripts"
local GUEST_DIR=/root/zfl-generated
cp "$ROOT/tools/vm/transcript-driver.sh" "$ROOT/tools/vm/generated-runner.sh" "$BATCH/"
"${SSH[@]}" "sudo rm -rf $GUEST_DIR && sudo mkdir -p $GUEST_DIR" \
  || loud_fail "could not prepare $GUEST_DIR in the guest"
tar -C "$BATCH" -cf - transcript-driver.sh generated-runner.sh scripts \
  | "${SSH[@]}" "sudo tar -C $GUEST_DIR -xf -" || loud_fail "could not copy the scripts into the guest"

local ZFS_VERSION KMOD_VERSION RELEASE KERNEL
ZFS_VERSION=$("${SSH[@]}" 'sudo zfs version' | sed -n 1p) || loud_fail "zfs version failed in the guest"
KMOD_VERSION=$("${SSH[@]}" 'sudo zfs version' | sed -n 2p) || true
KERNEL=$("${SSH[@]}" 'uname -r') || loud_fail "uname -r failed in the guest"
RELEASE=$(printf '%s\n' "$ZFS_VERSION" | sed -n 's/^zfs-\([0-9][0-9.]*[0-9]\).*/\1/p')
[ -n "$RELEASE" ] || loud_fail "cannot read a release from \`zfs version\`: '$ZFS_VERSION'"
log "guest: $ZFS_VERSION / $KMOD_VERSION, kernel $KERNEL, $ACCEL; seeds $SEEDS ($count scripts)"

# --- run the batch (one ssh call) -----------------------------------------------------------
step "record $count scripts"
local started rc
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
set +e
# shellcheck disable=SC2029  # expanded on purpose on this side
timeout $(( count * (LIMIT + 30) + 600 )) "${SSH[@]}" \
  "sudo -H env LC_ALL=C bash $GUEST_DIR/generated-runner.sh $GUEST_DIR $LIMIT" 2>>"$RESULTS/record.log"
rc=$?
set -e
[ "$rc" = 3 ] && loud_fail "could not clear leftover labg* pools/files in the guest (see $RESULTS/record.log)"
[ "$rc" = 0 ] || loud_fail "the batch in the guest failed (exit $rc; see $RESULTS/record.log)"
local OUT=$RESULTS/transcripts/$RELEASE
mkdir -p "$OUT"
"${SSH[@]}" "sudo tar -C $GUEST_DIR/out -cf - ." | tar -C "$OUT" -xf - \
  || loud_fail "could not bring the transcripts out of the guest"

# --- fixtures out ---------------------------------------------------------------------------
step "fixtures"
local TARGET=$FIXTURES/$RELEASE/generated
mkdir -p "$TARGET"
python3 - "$BATCH/meta.json" <<PY || loud_fail "could not write the recordings' common meta"
import json, sys
json.dump({"zfs_release": "$RELEASE", "zfs_version": "$ZFS_VERSION",
           "zfs_kmod_version": "$KMOD_VERSION", "kernel": "$KERNEL", "date": "$started",
           "accel": "$ACCEL", "box": "$(basename "$ZFL_BOX" .box)"}, open(sys.argv[1], "w"))
PY
python3 "$ROOT/tools/difftest/store.py" "$BATCH/scripts" "$OUT" "$TARGET" "$BATCH/meta.json" \
  2>&1 | tee -a "$RESULTS/record.log" >&2
[ "${PIPESTATUS[0]}" = 0 ] || loud_fail "no generated script could be recorded (see $RESULTS/record.log)"
rm -rf "$BATCH"
}
main "$@"
exit
