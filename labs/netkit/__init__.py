"""netkit: network labs of several hosts, run for real in Linux namespaces or in labsim.

A lab is a folder under ``labs/net/`` with a ``topology.toml``: the LAN segments, the hosts
(each with an address on one or more segments, its WireGuard interfaces, a command script,
optionally files, an /etc/hosts and services), optional variants (other scripts or files for
some hosts) and the checks ``validate`` runs. The same script lines run unchanged on both
backends:

* ``netkit.real``: one network namespace per host, with its own mount namespace and tmpfs
  on /run (wireguard-go's control socket, /var/run/wireguard/IF.sock, would otherwise be
  shared by every namespace) and on /etc/wireguard (wg-quick's configuration files), one
  bridge per segment in a namespace of their own, and one wireguard-go per WireGuard
  interface the runner makes (wg-quick starts its own).
* ``netkit.sim``: one labsim Session per host, sharing one labsim.net Network.

Scripts are divided into steps by ``# step NAME: title`` comments. The runner runs the steps
in order, each on every host that has it. Before a host's step it installs the lab files
meant for that step, and in them and in the step's lines it replaces ``${HOST_PUBKEY}``
(HOST upper-cased) by that host's public key and ``${HOST_IF_PUBKEY}`` by the key of the
host's interface IF. A key is read after every step: from the running interface (`wg show
IF public-key`), or for an interface wg-quick will make, from the private key its
configuration's PostUp reads, /etc/wireguard/IF.key. That is how hosts learn each other's
keys. netkit (and the real backend) use the standard library only.

The parts: ``netkit.topology`` (the lab format, :func:`load`), ``netkit.steps`` (the step
markers, shared with labkit through labsteps, and the run order :func:`plan`),
``netkit.run`` (a backend's shell, key placeholders, :func:`configure`) and
``netkit.checks`` (:class:`Check`, :func:`evaluate`, :func:`validate`); this module
re-exports what they define, so ``netkit.load`` and the others keep their names.
"""

from labsteps import EXPECT_FAIL, STEP_MARKER
from netkit.checks import (
    CHECK_KINDS,
    FAILED,
    NO_TESTS,
    PASSED,
    Check,
    Outcome,
    evaluate,
    snapshot,
    validate,
)
from netkit.errors import NetkitError
from netkit.run import (
    PLACEHOLDER,
    PUBLIC_KEY,
    Installer,
    Result,
    Shell,
    configure,
    read_keys,
    substitute,
)
from netkit.steps import plan, steps
from netkit.topology import (
    DEFAULT_SEGMENT,
    FILE_ROOTS,
    HOST_KEYS,
    LAB_NAME,
    LABS_ROOT,
    NAME,
    NET_DIR,
    SERVICE,
    Host,
    LabFile,
    Service,
    Topology,
    Variant,
    find,
    hosts_text,
    load,
)

__all__ = [
    "CHECK_KINDS", "DEFAULT_SEGMENT", "EXPECT_FAIL", "FAILED", "FILE_ROOTS", "HOST_KEYS",
    "LABS_ROOT", "LAB_NAME", "NAME", "NET_DIR", "NO_TESTS", "PASSED", "PLACEHOLDER",
    "PUBLIC_KEY", "SERVICE", "STEP_MARKER", "Check", "Host", "Installer", "LabFile",
    "NetkitError", "Outcome", "Result", "Service", "Shell", "Topology", "Variant", "configure",
    "evaluate", "find", "hosts_text", "load", "plan", "read_keys", "snapshot", "steps",
    "substitute", "validate",
]
