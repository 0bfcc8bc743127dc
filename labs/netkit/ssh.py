"""SSH logins in netkit labs: the ``ssh`` and ``ssh_mux`` checks and the hosts' SSH keys.

The slow-SSH lab (labs/net/05-slow-ssh/) runs a real sshd on one host and logs in from
another. Its scripts start sshd themselves (it daemonizes; ``netkit down`` stops every process
in the lab's namespaces), so netkit needs only two things from this module:

* Checks, on a host with an ssh client:

  - ``ssh = "TARGET"``: `ssh -o ControlPath=none TARGET true` succeeds (a fresh connection:
    TCP, key exchange and authentication, never an existing master), and with
    ``under = SECONDS`` it does so in less wall time than that, in the faster of at most two
    tries. The time is the whole command, as a person waiting at the prompt sees it (in
    labsim, `netkit sim`, the time the login model gives: the host's simulated clock).
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

    from netkit import Check, Outcome, Shell, Topology

KINDS = ("ssh", "ssh_mux")
# Where a lab's scripts put the keys (the host's own tmpfs on /run).
KEY_FILES = {"SSH": "/run/lab/id_ed25519.pub", "SSHHOST": "/run/lab/host_key.pub"}
KEY_PLACEHOLDER = re.compile(r"\$\{([A-Z][A-Z0-9]*)_(SSH|SSHHOST)_PUBKEY\}")
# A timed login that took too long is tried once more: a slow cause (a resolver timeout) is
# slow every time, while a login that was merely unlucky on a busy machine is not.
TRIES = 2
# OpenSSH mux.c: what a client that joined a master logs at debug level 1.
MUX_SESSION = "mux_client_request_session"


def describe(check: Check) -> str:
    negated = check.expect == "failure"
    if check.ssh_mux is not None:
        verb = "does not reuse" if negated else "reuses"
        return f"ssh {check.ssh_mux} {verb} a master connection"
    limit = f" in under {check.under:g} s" if check.under is not None else ""
    return f"ssh {check.ssh} true {'fails' if negated else 'succeeds'}{limit}"


def evaluate(check: Check, shell: Shell) -> Outcome:
    from netkit import Outcome

    want = check.expect == "success"
    if check.ssh_mux is not None:
        result = shell(check.host, f"ssh -v -o ControlMaster=no {check.ssh_mux} true")
        ok = result.status == 0 and MUX_SESSION in result.stderr
        detail = ("over the master" if ok else "a connection of its own" if result.status == 0
                  else _last_error(result.stderr, result.status))
        return Outcome(check, ok == want, "success" if ok else "failure", detail)
    tries = []
    clock = _clock(shell)
    for _ in range(TRIES if check.under is not None else 1):
        started = clock()
        result = shell(check.host, f"ssh -o ControlPath=none {check.ssh} true")
        tries.append(clock() - started)
        if result.status != 0 or check.under is None or tries[-1] < check.under:
            break
    seconds = min(tries)
    ok = result.status == 0 and (check.under is None or seconds < check.under)
    detail = f"{seconds:.2f} s" + (f", fastest of {len(tries)}" if len(tries) > 1 else "")
    if result.status != 0:
        detail += f", {_last_error(result.stderr, result.status)}"
    return Outcome(check, ok == want, "success" if ok else "failure", detail)


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
    if check.under is not None and check.ssh is None:
        return "under goes with ssh"
    if check.under is not None and not check.under > 0:
        return "under is a number of seconds above 0"
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
