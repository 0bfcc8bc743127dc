#!/usr/bin/env bash
# Runs a batch of generated lab scripts (tools/difftest/generate.py) back to back in the lab
# VM, each through transcript-driver.sh, in one go: the guest half of
# tools/vm/record-generated.sh, so a batch needs one ssh call instead of one per script.
#
# Usage (in the lab VM, as root):  generated-runner.sh DIR [TIMEOUT]
# DIR holds transcript-driver.sh and scripts/seed-NNNN.sh; for each script it writes
# out/seed-NNNN.txt (the transcript), out/seed-NNNN.status (the driver's per-line exit
# statuses, "done" last) and out/seed-NNNN.rc ("<exit status of the driver> <seconds>";
# 124 when it ran longer than TIMEOUT seconds, default 300). Before each script, pools named
# labg* are destroyed and /var/tmp/labs/labg* removed (a script that broke off leaves its
# pool behind); nothing else is touched. Progress goes to stderr. Exit 3 if that clean-up
# fails (the rest of the batch would not start clean), 0 otherwise: a script that failed is
# reported in its .rc, not by stopping the batch.
set -u
dir=$1
limit=${2:-300}
mkdir -p "$dir/out"
total=$(find "$dir/scripts" -name 'seed-*.sh' | wc -l)
n=0
for script in "$dir"/scripts/seed-*.sh; do
  [ -f "$script" ] || continue
  name=$(basename "$script" .sh)
  n=$((n + 1))
  for p in $(zpool list -H -o name 2>/dev/null); do
    case "$p" in labg*) echo "cleanup: zpool destroy -f $p" >&2; zpool destroy -f "$p" || exit 3 ;; esac
  done
  rm -rf /var/tmp/labs/labg* || exit 3
  started=$(date +%s%N)
  (cd /root && timeout "$limit" bash "$dir/transcript-driver.sh" "$script" "$dir/out/$name.status" \
    >"$dir/out/$name.txt")
  rc=$?
  seconds=$(awk -v a="$started" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
  echo "$rc $seconds" >"$dir/out/$name.rc"
  echo "[$n/$total] $name: exit $rc in $seconds s" >&2
done
for p in $(zpool list -H -o name 2>/dev/null); do
  case "$p" in labg*) zpool destroy -f "$p" || exit 3 ;; esac
done
rm -rf /var/tmp/labs/labg*
exit 0
