"""python -m netkit {up,validate,down,run,sim,exec} LAB  (run in labs/, or give a path).

* ``up``: make the lab's namespaces, segments, WireGuard interfaces and services, and run the
  hosts' scripts (installing the lab's files before their steps).
* ``validate``: run the lab's checks, one line each; exit 0 when all pass, 1 when one fails,
  2 when the lab has none (as netlab validate).
* ``down``: remove everything ``up`` made; harmless when nothing is up.
* ``run``: up, validate, down -- down also when anything fails; exits as validate.
* ``sim``: the same scripts and checks in labsim (no root needed).
* ``exec LAB HOST -- COMMAND...``: one command on a host of a running lab.

validate, run and sim take ``--json`` (the checks' results as labsteps.StepResult JSON on
stdout, the check lines on stderr: the instructor's pull mode reads it) and ``--report-to
[URL]`` (send them to the workshop's instructor server, labsteps.report; never changes the
exit status: an unreachable server leaves them queued for the next run).

up, validate, down and exec need root: the lab lives on between commands, in the machine's
/run/netns. ``run`` puts itself in network and mount namespaces of its own with a private
/run (`unshare -nm`; without root also a user namespace, `unshare -Urnm`): its lab vanishes
with it, and two runs of one lab at the same time (two terminals, two CI jobs) cannot meet.
Its ``--report-to`` is sent from outside them: a fresh network namespace has no route to the
instructor's server, not even its loopback up, so the run in the namespaces leaves its results
in a file and the ``run`` that made the namespaces sends them.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import netkit
from netkit import NetkitError, real

# Set in the environment of a `run` that is in its private namespaces already.
PRIVATE_ENV = "NETKIT_PRIVATE"
# The file where such a run leaves the results --report-to sends (from outside).
RESULTS_ENV = "NETKIT_RESULTS_FILE"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="netkit", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("up", "validate", "down", "run", "sim", "exec"))
    parser.add_argument("lab", help="a folder with a topology.toml, or its name in labs/net/")
    parser.add_argument("rest", nargs="*", help="exec: HOST -- COMMAND...")
    parser.add_argument("--variant", help="run the scripts of this variant of the lab")
    parser.add_argument("--report", help="write the checks' outcomes to this JSON file")
    parser.add_argument("--json", action="store_true",
                        help="validate, run, sim: the checks' results as JSON on stdout")
    parser.add_argument("--report-to", nargs="?", const="", metavar="URL",
                        help="validate, run, sim: send the checks' results to the workshop's "
                        "instructor server (URL, or the one of the workshop file)")
    parser.add_argument("-q", "--quiet", action="store_true", help="do not echo the scripts")
    parser.add_argument("--wireguard", choices=real.WIREGUARD_MODES, default="auto",
                        help="up, run: make the runner's WireGuard interfaces with the kernel "
                        "module or wireguard-go (default auto: the kernel's when it can); "
                        "sim: the one labsim models (auto: the kernel's)")
    parser.add_argument("--firewall", choices=("nft", "iptables"), default="nft",
                        help="sim: whether the simulated machine has nftables, which decides "
                        "what wg-quick does for a default route (nft: a table of its own, "
                        "`nft -f`; iptables: `iptables-restore -n`); default nft, as on the "
                        "lab VM (Debian 13), whatever this machine has. up and run use this "
                        "machine's, and their --report says which")
    args = parser.parse_args(argv)
    try:
        topology = netkit.load(args.lab)
        topology.scripts(args.variant)
        if args.command == "sim":
            return _sim(topology, args)
        # Only up and run make interfaces; the others need no wireguard-go.
        wireguard = (real.wireguard_implementation(args.wireguard)
                     if args.command in ("up", "run") else "kernel")
        refusal = _privileges(args.command, wireguard)
        if refusal is not None:
            print(f"netkit: {refusal}", file=sys.stderr)
            return 1
        private = os.environ.get(PRIVATE_ENV) == "1"
        if args.command == "run" and not private:
            return _in_private_namespaces(argv if argv is not None else sys.argv[1:],
                                          args.report_to)
        if private:
            # Our own /run, so that /run/netns and /run/netkit die with us.
            subprocess.run(["mount", "-t", "tmpfs", "netkit", "/run"], check=True)
        return _real(topology, args, wireguard)
    except NetkitError as err:
        print(f"netkit: {err}", file=sys.stderr)
        return 1


def _privileges(command: str, wireguard: str = "go") -> str | None:
    missing = real.missing_tools(wireguard)
    if missing:
        return f"missing {', '.join(missing)} (Debian: {real.PACKAGES})"
    if os.geteuid() == 0:
        return None
    if command != "run":
        return (f"`netkit {command}` needs root (the lab's namespaces live on between "
                "commands): run it with sudo, or use `netkit run`, which works without root "
                "in a user namespace")
    probe = subprocess.run(["unshare", "-Urnm", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return ("not root, and this system does not let you make a user namespace "
                f"(`unshare -Urnm true`: {probe.stderr.strip() or probe.returncode}): "
                "run netkit with sudo")
    return None


def _in_private_namespaces(argv: list[str], report_to: str | None) -> int:
    """This `run` again, in namespaces of its own; then, with --report-to, the results it
    left in RESULTS_ENV's file sent from here, where the server is reachable."""
    unshare = shutil.which("unshare") or "unshare"
    namespaces = "-nm" if os.geteuid() == 0 else "-Urnm"
    with tempfile.TemporaryDirectory(prefix="netkit-") as folder:
        results = Path(folder) / "results.json"
        env = {**os.environ, PRIVATE_ENV: "1", RESULTS_ENV: str(results),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(netkit.LABS_ROOT),
                                                           os.environ.get("PYTHONPATH")]))}
        status = subprocess.run([unshare, namespaces, "--propagation", "private",
                                 sys.executable, "-m", "netkit", *argv], env=env).returncode
        if report_to is not None and results.is_file():
            from labsteps import StepResult

            _send([StepResult.from_dict(r) for r in json.loads(results.read_text())],
                  report_to)
    return status


def _log(args):
    """Where the scripts' echo goes: nowhere (-q), stderr (--json: stdout is the JSON's)."""
    if args.quiet:
        return lambda text: None
    return (lambda text: print(text, file=sys.stderr)) if args.json else print


def _validate(args, topology: netkit.Topology,
              shell: netkit.Shell) -> tuple[int, list[netkit.Outcome]]:
    """netkit.validate, then the results as JSON (--json) and to the instructor's server
    (--report-to); with --json the check lines go to stderr."""
    log = (lambda text: print(text, file=sys.stderr)) if args.json else print
    status, outcomes = netkit.validate(topology, shell, log)
    results = [o.result(topology.name) for o in outcomes]
    if args.json:
        print(json.dumps({"lab": topology.name, "results": [r.as_dict() for r in results]}))
    if args.report_to is not None:
        deferred = os.environ.get(RESULTS_ENV) if os.environ.get(PRIVATE_ENV) == "1" else None
        if deferred:   # `run` in its own network namespace: the run outside sends them
            Path(deferred).write_text(json.dumps([r.as_dict() for r in results]))
        else:
            _send(results, args.report_to)
    return status, outcomes


def _send(results, url: str) -> None:
    """--report-to: queue and send the results (labsteps.report); one line on stderr."""
    from labsteps import report

    try:
        config = report.load_config(url or None)
    except report.ReportError as err:
        print(f"netkit: not reported: {err}", file=sys.stderr)
    else:
        print(report.report(results, config).line(), file=sys.stderr)


def _report(args, topology: netkit.Topology, shell: netkit.Shell,
            outcomes: list[netkit.Outcome], backend: str, transcript=()) -> None:
    """The outcomes, the scripts' transcript and the WireGuard state after the checks
    (`wg show IF dump`) as JSON; for the real backend also the processes of the lab (pid
    and start time, field 22 of /proc/PID/stat), so that a test can prove they are gone, and
    which WireGuard made the runner's interfaces ("kernel" or "go"; labsim: "labsim"); and
    the firewall backend wg-quick had ("nft" or "iptables": for a real run whether nft was
    on the lab's PATH when it came up, real.firewall_backend(); for labsim --firewall)."""
    if args.report:
        state = real.State(topology).data if backend == "real" else {}
        processes = state.get("processes", {})
        wireguard = netkit.snapshot(topology, shell)
        firewall = state.get("firewall") if backend == "real" else args.firewall
        with open(args.report, "w") as out:
            json.dump({"backend": backend, "variant": args.variant,
                       "wireguard_implementation": state.get("wireguard") or backend,
                       "firewall_backend": firewall,
                       "checks": [o.as_dict() for o in outcomes], "wireguard": wireguard,
                       "transcript": [[host, line, r.stdout, r.stderr, r.status]
                                      for host, line, r in transcript],
                       "processes": processes}, out, indent=1)


def _real(topology: netkit.Topology, args, wireguard: str = "go") -> int:
    if args.command == "down":
        for what in real.down(topology):
            print(f"removed {what}")
        return 0
    if args.command == "exec":
        if len(args.rest) < 2 or args.rest[0] not in topology.hosts:
            raise NetkitError(f"exec: give a host ({', '.join(topology.hosts)}) and a command")
        result = real.shell(topology)(args.rest[0], shlex.join(args.rest[1:]))
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        return result.status
    if args.command == "validate":
        if not real.namespaces(topology):
            raise NetkitError(f"{topology.name} is not up (run `netkit up` first)")
        shell = real.shell(topology)
        status, outcomes = _validate(args, topology, shell)
        _report(args, topology, shell, outcomes, "real")
        return status
    started = time.monotonic()
    try:
        real.up(topology, wireguard)
        shell = real.shell(topology)
        transcript = netkit.configure(topology, shell, args.variant, _log(args),
                                      real.installer(topology))
        print(f"{topology.name} is up ({time.monotonic() - started:.1f} s)",
              file=sys.stderr if args.json else sys.stdout)
        if args.command == "up":
            return 0
        status, outcomes = _validate(args, topology, shell)
        _report(args, topology, shell, outcomes, "real", transcript)
        return status
    except BaseException:
        real.down(topology)
        raise
    finally:
        if args.command == "run":
            real.down(topology)
            print(f"{topology.name}: run and down in {time.monotonic() - started:.1f} s",
                  file=sys.stderr if args.json else sys.stdout)


def _sim(topology: netkit.Topology, args) -> int:
    from netkit import sim

    # auto is the kernel's: labsim stands for the lab VM (and a learner's Linux); so does the
    # firewall backend's default, nft.
    shell = sim.up(topology, "go" if args.wireguard == "go" else "kernel", args.firewall)
    transcript = netkit.configure(topology, shell, args.variant, _log(args),
                                  sim.installer(shell))
    status, outcomes = _validate(args, topology, shell)
    _report(args, topology, shell, outcomes, "labsim", transcript)
    return status
