#!/usr/bin/env bash
# Runs the VM labs on real OpenZFS: builds (or reuses) the CI box, boots it through
# vagrant/Vagrantfile with vagrant-libvirt (KVM when it works, TCG otherwise), with labs/ synced
# to /labs and tests/vm/guest/ pushed to /labs/vm, runs `pytest --nbval-lax` on /labs inside the
# guest (every lab notebook, and the verify/solve proof of every lab step), brings the results out to
# test-results/vm/, destroys the VM and puts the host back as it found it (libvirt networks,
# iptables chains, net.ipv4.ip_forward, daemons it started, kernel/initrd it staged).
#
# A host that cannot run VMs fails LOUDLY: there is no silent skip.
#
# Usage (as root):  tools/vm/run-labs.sh [pytest args for the guest...]
# Environment:
#   ZFL_BOX            use this .box instead of building/looking up the cached one
#   ZFL_BOX_CACHE      box cache root (see vagrant/build-ci-box.sh)
#   ZFL_ACCEL          kvm | tcg | auto (default auto: probe)
#   ZFL_RESULTS        where results go (default <repo>/test-results/vm)
#   ZFL_KEEP_VM=1      do not destroy the VM at the end (debugging; host is not restored)
#   ZFL_VM_TESTS       guest path(s) pytest runs (default /labs: notebooks and /labs/vm)
#   ZFL_VM_UP_TIMEOUT  seconds for `vagrant up` (default 1800)
#   ZFL_VM_TEST_TIMEOUT  seconds for pytest in the guest (default 2700)
set -euo pipefail
# The body is one function, so bash has parsed all of it before running any of it: editing
# this file while a run is in progress cannot derail that run.
main() {

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RESULTS=${ZFL_RESULTS:-$ROOT/test-results/vm}
T0=$(date +%s)
ZFL_TAG=run-labs
ZFL_WHAT="VM LABS"
# shellcheck source=tools/vm/vm-lib.sh
. "$ROOT/tools/vm/vm-lib.sh"
mkdir -p "$RESULTS"
rm -rf "$RESULTS"/junit.xml "$RESULTS"/pytest.log "$RESULTS"/measured
vm_up

# --- tests in, run, results out ----------------------------------------------------------------
step "push guest tests"
rsync -a --delete -e "ssh -F $STATE/ssh-config" --rsync-path="sudo rsync" \
  --exclude __pycache__/ "$ROOT/tests/vm/guest/" "$HOSTALIAS:/labs/vm/"
"${SSH[@]}" 'uname -r; zfs version; nproc; free -m' \
  >"$RESULTS/guest-info.txt" 2>&1 || true
log "guest: $(tr '\n' ' ' <"$RESULTS/guest-info.txt")"

step "pytest in the guest"
set +e
# shellcheck disable=SC2029  # expanded on purpose on this side
timeout "${ZFL_VM_TEST_TIMEOUT:-2700}" "${SSH[@]}" "cd /labs && sudo /opt/labs-venv/bin/python -m pytest --nbval-lax -p no:cacheprovider \
  -o addopts= -o testpaths= --confcutdir=/labs --junitxml=/tmp/zfl-junit.xml -ra -v ${*:-${ZFL_VM_TESTS:-/labs}}" \
  2>&1 | tee "$RESULTS/pytest.log"
PYTEST_RC=${PIPESTATUS[0]}
set -e
"${SSH[@]}" 'sudo cat /tmp/zfl-junit.xml' >"$RESULTS/junit.xml" 2>/dev/null || rm -f "$RESULTS/junit.xml"
# Whatever the notebooks measured (/tmp/zfl-results in the guest) comes out too.
rm -rf "$RESULTS/measured"
"${SSH[@]}" 'sudo tar -C /tmp -cf - zfl-results 2>/dev/null' | tar -C "$RESULTS" -xf - 2>/dev/null \
  && mv "$RESULTS/zfl-results" "$RESULTS/measured" || true

if [ "$PYTEST_RC" = 124 ]; then
  loud_fail "pytest in the guest did not finish within ${ZFL_VM_TEST_TIMEOUT:-2700} s"
elif [ "$PYTEST_RC" = 5 ]; then
  loud_fail "pytest in the guest collected no tests"
elif [ "$PYTEST_RC" != 0 ]; then
  echo "run-labs: pytest in the guest failed (exit $PYTEST_RC); see $RESULTS/pytest.log" >&2
  exit "$PYTEST_RC"
fi
log "VM labs passed"
}
main "$@"
exit
