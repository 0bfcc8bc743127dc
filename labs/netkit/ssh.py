"""SSH logins in netkit labs: the ``ssh`` and ``ssh_mux`` checks and the hosts' SSH keys.

The slow-SSH lab (labs/net/05-slow-ssh/) runs a real sshd on one host and logs in from
another. Its scripts start sshd themselves (it daemonizes; ``netkit down`` stops every process
in the lab's namespaces), so netkit needs only two things from this module:

* Checks, on a host with an ssh client:

  - ``ssh = "TARGET"``: `ssh -o ControlPath=none TARGET true` succeeds (a fresh connection:
    TCP, key exchange and authentication, never an existing master).
  - With ``baseline = "HOST"`` and ``within = SECONDS`` too, the login must also have
    waited for no name lookup: it must take less than ``within`` seconds longer than a
    baseline login that cannot wait for any, which the check makes itself, in the same run,
    between the same hosts. For it the check starts a second sshd on HOST, `sshd -p 2220 -o
    UseDNS=no -o GSSAPIAuthentication=no` (otherwise the host's own sshd_config: the same
    host key, authorized keys and PAM), logs in to it by HOST's address with `ssh -o
    ControlPath=none -o GSSAPIAuthentication=no -o CanonicalizeHostname=no -o
    VerifyHostKeyDNS=no -o HostKeyAlias=ADDRESS -p 2220 ADDRESS true` (otherwise the client's
    own ssh_config: the same user, key and known hosts), and stops that sshd when it is done
    (`pkill -F` its PidFile). The two logins take turns, at least TRIES times each (more,
    up to MAX_TRIES, while the fastest tries of a kind disagree or the difference is close
    to the limit), and the fastest of each counts: a busy machine only ever adds time, and
    a wait for a lookup nobody answers is there every time.

    Why a difference and not a number of seconds: both logins pay for the key exchange, the
    authentication and the session, which take tenths of a second on real hardware and
    seconds on a CPU that QEMU emulates (no KVM, as in CI), so what the login takes beyond
    the baseline is what it waited for, on any machine, while a lookup the resolver gives up
    on costs whole seconds everywhere (glibc waits at least 1 s per query, res_send.c
    send_dg()). Why not count the queries that reach a dead name server instead (the
    packet counters of its iptables DROP rules): that sees one kind of cause only; a lookup
    sent to a nameserver no host has, or an mDNS query avahi waits on, waits as long and is
    counted nowhere, and the time is what the learner feels. The times are the whole
    commands, as a person waiting at the prompt sees them (in labsim, `netkit sim`, the time
    the login model gives: the lab's simulated clock).
  - ``ssh_mux = "TARGET"``: `ssh -v -o ControlMaster=no TARGET true` succeeds through an
    existing master connection (ssh says ``mux_client_request_session`` in its debug
    output, OpenSSH mux.c). ControlMaster=no uses a master when there is one and never
    starts one: a master started under -v would keep our pipes open until ControlPersist
    runs out.

* Public keys for the lab files: ``${HOST_SSH_PUBKEY}`` is the user key a host made at
  /run/lab/id_ed25519.pub, ``${HOST_SSHHOST_PUBKEY}`` its sshd host key
  /run/lab/host_key.pub ("ssh-ed25519 AAAA... comment"), read once a step has made them,
  the way netkit reads WireGuard keys. So a server's authorized_keys and a client's
  known_hosts name each other's fresh keys.

Standard library only, like the rest of netkit.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from netkit import Check, Outcome, Result, Shell, Topology

KINDS = ("ssh", "ssh_mux")
# Where a lab's scripts put the keys (the host's own tmpfs on /run).
KEY_FILES = {"SSH": "/run/lab/id_ed25519.pub", "SSHHOST": "/run/lab/host_key.pub"}
KEY_PLACEHOLDER = re.compile(r"\$\{([A-Z][A-Z0-9]*)_(SSH|SSHHOST)_PUBKEY\}")
# How often a check with a baseline times each of its two logins (the fastest of each
# counts): at least TRIES times, and on, up to MAX_TRIES, until the two fastest tries of each
# kind are within SETTLED seconds of each other and the difference is more than UNCLEAR
# seconds from the check's limit. On a busy machine one kind of login can be unlucky three
# times running (measured: the fastest of three fixed logins 1.7 s above the fastest of three
# baselines, with other work coming and going on a 2-core machine); each further try can
# only bring a fastest time down to what that login costs.
TRIES = 3
MAX_TRIES = 8
SETTLED = 0.25
UNCLEAR = 0.3
# The baseline sshd: its port (any a lab's own sshd does not use) and PidFile (on the
# host's own tmpfs /run), and how long it may take to start listening (sshd writes its
# PidFile once its socket listens; seconds on an emulated CPU).
BASELINE_PORT = 2220
BASELINE_PID_FILE = "/run/netkit-baseline-sshd.pid"
BASELINE_START_SECONDS = 20.0
BASELINE_SSHD = (f"/usr/sbin/sshd -p {BASELINE_PORT} -o UseDNS=no -o GSSAPIAuthentication=no "
                 f"-o PidFile={BASELINE_PID_FILE}")
BASELINE_SSH = ("ssh -o ControlPath=none -o GSSAPIAuthentication=no -o CanonicalizeHostname=no "
                "-o VerifyHostKeyDNS=no -o HostKeyAlias={address} -p {port} {address} true")
# OpenSSH mux.c: what a client that joined a master logs at debug level 1.
MUX_SESSION = "mux_client_request_session"


def describe(check: Check) -> str:
    negated = check.expect == "failure"
    if check.ssh_mux is not None:
        verb = "does not reuse" if negated else "reuses"
        return f"ssh {check.ssh_mux} {verb} a master connection"
    limit = (f", within {check.within:g} s of a baseline login to {check.baseline} port "
             f"{BASELINE_PORT} that looks up no names" if check.within is not None else "")
    return f"ssh {check.ssh} true {'fails' if negated else 'succeeds'}{limit}"


def evaluate(check: Check, shell: Shell, topology: Topology | None = None) -> Outcome:
    from netkit import NetkitError, Outcome

    want = check.expect == "success"
    if check.ssh_mux is not None:
        result = shell(check.host, f"ssh -v -o ControlMaster=no {check.ssh_mux} true")
        ok = result.status == 0 and MUX_SESSION in result.stderr
        detail = ("over the master" if ok else "a connection of its own" if result.status == 0
                  else _last_error(result.stderr, result.status))
        return Outcome(check, ok == want, "success" if ok else "failure", detail)
    login = f"ssh -o ControlPath=none {check.ssh} true"
    clock = _clock(shell)
    if check.baseline is None:
        seconds, result = _timed(shell, clock, check.host, login)
        ok = result.status == 0
        detail = f"{seconds:.2f} s" + ("" if ok else
                                        f", {_last_error(result.stderr, result.status)}")
        return Outcome(check, ok == want, "success" if ok else "failure", detail)
    if topology is None or check.baseline not in topology.hosts:
        raise NetkitError(f"check {check.name!r}: its baseline host {check.baseline!r} is "
                          "not a host of the lab given")
    address = topology.hosts[check.baseline].address.split("/")[0]
    compared = BASELINE_SSH.format(address=address, port=BASELINE_PORT)
    try:
        problem = _start_baseline(shell, check.baseline)
        if problem is not None:
            return Outcome(check, not want, "failure", problem)
        logins: list[float] = []
        baselines: list[float] = []
        while len(logins) < MAX_TRIES:
            seconds, base = _timed(shell, clock, check.host, compared)
            baselines.append(seconds)
            if base.status != 0:
                return Outcome(check, not want, "failure", f"baseline {seconds:.2f} s, "
                               f"{_last_error(base.stderr, base.status)}")
            seconds, result = _timed(shell, clock, check.host, login)
            logins.append(seconds)
            if result.status != 0:
                # A login that fails has no time to compare: the check fails at once.
                return Outcome(check, not want, "failure", f"{seconds:.2f} s, baseline "
                               f"{baselines[-1]:.2f} s, "
                               f"{_last_error(result.stderr, result.status)}")
            extra = min(logins) - min(baselines)
            if (len(logins) >= TRIES and _settled(logins) and _settled(baselines)
                    and abs(extra - check.within) >= UNCLEAR):
                break
    finally:
        _stop_baseline(shell, check.baseline)
    ok = extra < check.within
    detail = (f"{min(logins):.2f} s, baseline {min(baselines):.2f} s: {extra:+.2f} s, "
              f"fastest of {len(logins)} each")
    return Outcome(check, ok == want, "success" if ok else "failure", detail)


def _settled(seconds: list[float]) -> bool:
    """Whether the two fastest of these tries agree (within SETTLED)."""
    fastest = sorted(seconds)[:2]
    return len(fastest) == 2 and fastest[1] - fastest[0] <= SETTLED


def _start_baseline(shell: Shell, host: str) -> str | None:
    """Start the baseline sshd on ``host`` (after stopping one an interrupted check may have
    left) and wait until it listens: None when it does, else what went wrong."""
    _stop_baseline(shell, host)
    result = shell(host, BASELINE_SSHD)
    if result.status != 0:
        return (f"the baseline sshd on {host} did not start: "
                f"{_last_error(result.stderr, result.status)}")
    # sshd forks into the background before it binds its port, and writes its PidFile
    # once it listens (sshd.c main(): daemon(), server_listen(), then the PidFile).
    if not _wait(shell, host, exists=True):
        return (f"the baseline sshd on {host} (port {BASELINE_PORT}) wrote no "
                f"{BASELINE_PID_FILE}")
    return None


def _stop_baseline(shell: Shell, host: str) -> None:
    """Stop the baseline sshd on ``host`` if one runs: on SIGTERM it closes its socket and
    removes its PidFile, then exits (sshd.c server_accept_loop()); a PidFile whose sshd is
    gone is removed."""
    if shell(host, f"pkill -F {BASELINE_PID_FILE}").status == 0:
        _wait(shell, host, exists=False)
    shell(host, f"rm -f {BASELINE_PID_FILE}")


def _wait(shell: Shell, host: str, exists: bool) -> bool:
    """Wait until the baseline PidFile exists (or is gone); False if it never does. In
    labsim a command has done its work when it returns: one look."""
    simulated = getattr(shell, "sessions", None) is not None
    deadline = time.monotonic() + BASELINE_START_SECONDS
    while (shell(host, f"cat {BASELINE_PID_FILE}").status == 0) != exists:
        if simulated or time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _timed(shell: Shell, clock: Callable[[], float], host: str, line: str
           ) -> tuple[float, Result]:
    started = clock()
    result = shell(host, line)
    return clock() - started, result


def _clock(shell: Shell) -> Callable[[], float]:
    """What a login is timed by: wall time, or in labsim (netkit/sim.py: a shell with the
    hosts' Sessions) the lab's simulated clock, which a login moves by the time
    labsim.net.ssh_login models for it (labsim runs it in no time at all). The lab's clock
    is the latest of its hosts' (netkit/sim.py starts each command there)."""
    sessions = getattr(shell, "sessions", None)
    if sessions is None:
        return time.monotonic
    return lambda: max(session.clock for session in sessions.values())


def _last_error(stderr: str, status: int) -> str:
    lines = [line.strip() for line in stderr.splitlines()
             if line.strip() and not line.startswith("debug")]
    return lines[-1] if lines else f"exit {status}" if status else ""


def problems(check: Check) -> str | None:
    """What is wrong with an ssh check's fields, if anything."""
    if (check.baseline is None) != (check.within is None):
        return "baseline and within go together"
    if check.baseline is not None and check.ssh is None:
        return "baseline and within go with ssh"
    if check.within is not None and not check.within > 0:
        return "within is a number of seconds above 0"
    return None


def read_keys(topology: Topology, shell: Shell, keys: dict[str, str]) -> None:
    """Add the SSH keys the lab's files and scripts name and that exist by now."""
    sources = [*topology.scripts().values(),
               *(f.source for host in topology.hosts.values() for f in host.files)]
    for variant in topology.variants.values():
        sources += [*variant.scripts.values(), *(f.source for f in variant.files)]
    wanted = set()
    for path in dict.fromkeys(sources):
        wanted.update(KEY_PLACEHOLDER.findall(path.read_text()))
    for host, kind in sorted(wanted):
        label = f"{host}_{kind}"
        if label in keys or host.lower() not in topology.hosts:
            continue
        result = shell(host.lower(), f"cat {KEY_FILES[kind]}")
        text = result.stdout.strip()
        if result.status == 0 and text.startswith(("ssh-", "ecdsa-")) and "\n" not in text:
            keys[label] = text
