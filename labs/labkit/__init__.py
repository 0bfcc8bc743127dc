"""labkit: the lab runner the VM notebooks and the CI step checks share.

A lab is two files:

* ``labs/scripts/NAME.sh``, the command script the simulator and the VM both run (the
  simulator-versus-reality tests compare their transcripts). ``# step NAME: title`` comments
  divide it into steps; the commands of a step are also that step's ``solve``.
* ``labs/steps/NAME.toml``, what the lab owns (pools, files under the lab directory) and, per
  step, a one-line hint and the checks ``verify`` runs against the real system.

Everything a lab runs goes through :func:`refusal` first: pools are only ever made of files
under :data:`LAB_DIR`, and only the lab's own pools are destroyed. This module uses the
standard library only, so it runs in the VM's Python and on the host.
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import re
import shlex
import signal
import subprocess
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

# The step format is labsteps' (netkit reads the same markers); STEP_MARKER re-exported.
from labsteps import EXPECT_FAIL, STEP_MARKER, StepResult, first_stray_line, sections  # noqa: F401

LABS_ROOT = Path(__file__).resolve().parents[1]
# Where every lab keeps its file vdevs. /var/tmp survives a reboot, unlike /tmp on some distros.
LAB_DIR = "/var/tmp/labs"


class LabError(Exception):
    """A lab command failed, or a lab file is malformed."""


class Refused(LabError):
    """A command the lab runner will not run (it could touch something that is not the lab's)."""


@dataclass(frozen=True)
class Check:
    """One fact ``verify`` reads from the real system: run ``run`` in bash, compare its output.

    Exactly one of ``equals`` (stdout, stripped), ``at_least``/``at_most`` (stdout as an integer)
    or ``exit`` (the exit status alone) says what is expected.
    """

    what: str
    run: str
    equals: str | None = None
    at_least: int | None = None
    at_most: int | None = None
    exit: int | None = None

    def expectation(self) -> str:
        if self.exit is not None:
            return f"exit status {self.exit}"
        if self.equals is not None:
            return repr(self.equals)
        bounds = []
        if self.at_least is not None:
            bounds.append(f">= {self.at_least}")
        if self.at_most is not None:
            bounds.append(f"<= {self.at_most}")
        return " and ".join(bounds)

    def judge(self, status: int, stdout: str) -> str | None:
        """None when the output meets the expectation, else what was seen instead."""
        out = stdout.strip()
        if self.exit is not None:
            return None if status == self.exit else f"exit status {status}"
        if self.equals is not None:
            return None if out == self.equals else repr(out)
        try:
            value = int(out)
        except ValueError:
            return repr(out) + " (not a number)"
        if self.at_least is not None and value < self.at_least:
            return str(value)
        if self.at_most is not None and value > self.at_most:
            return str(value)
        return None


@dataclass(frozen=True)
class Step:
    number: int
    name: str
    title: str
    commands: tuple[str, ...]
    hint: str
    checks: tuple[Check, ...]


@dataclass(frozen=True)
class Verdict:
    step: Step
    failures: tuple[tuple[Check, str], ...]

    @property
    def ok(self) -> bool:
        return not self.failures

    def result(self, lab: str) -> StepResult:
        """The verdict as labsteps reports it: the first unmet check as the detail."""
        if self.ok:
            return StepResult(lab, self.step.name, True)
        check, seen = self.failures[0]
        return StepResult(lab, self.step.name, False,
                          f"expected {check.what} ({check.expectation()}), got {seen}")

    def line(self) -> str:
        """One line for the learner: done, or the first unmet check and the step's hint."""
        head = f"step {self.step.number} ({self.step.name})"
        if self.ok:
            return f"✓ {head}: done"
        check, seen = self.failures[0]
        return (f"✗ {head} not done yet: expected {check.what} ({check.expectation()}), "
                f"got {seen}. Hint: {self.step.hint}")


@dataclass(frozen=True)
class Lab:
    name: str
    title: str
    script: Path
    pools: tuple[str, ...]
    files: tuple[str, ...]
    steps: tuple[Step, ...]
    # Pid files of servers a step starts (lab 7's qemu-nbd): reset stops them first.
    pidfiles: tuple[str, ...] = ()

    def step(self, name_or_number: str | int) -> Step:
        for step in self.steps:
            if name_or_number in (step.name, step.number, str(step.number)):
                return step
        names = ", ".join(f"{s.number} {s.name}" for s in self.steps)
        raise LabError(f"lab {self.name} has no step {name_or_number!r} (steps: {names})")


# --- loading -----------------------------------------------------------------------------------

def lab_names(root: Path = LABS_ROOT) -> list[str]:
    return sorted(p.stem for p in (root / "steps").glob("*.toml"))


def split_steps(script_text: str) -> list[tuple[str, str, list[str]]]:
    """The script's steps as (name, title, command lines), in order.

    Comment lines other than step markers and blank lines are not commands; a command before
    the first marker is an error, so no command can hide outside a step.
    """
    stray = first_stray_line(script_text)
    if stray is not None:
        raise LabError(f"line {stray[0]}: command {stray[1]!r} comes before the first "
                       "'# step NAME: title' marker")
    return [(s.name, s.title, list(s.lines)) for s in sections(script_text)]


def load_lab(name: str, root: Path = LABS_ROOT) -> Lab:
    script = root / "scripts" / f"{name}.sh"
    spec_path = root / "steps" / f"{name}.toml"
    if not spec_path.is_file():
        known = ", ".join(lab_names(root))
        raise LabError(f"no lab {name!r}: {spec_path} is missing (labs: {known})")
    spec = tomllib.loads(spec_path.read_text())
    script_steps = split_steps(script.read_text())
    spec_steps = spec.get("step", [])
    if [s[0] for s in script_steps] != [s.get("name") for s in spec_steps]:
        raise LabError(f"{script.name} has steps {[s[0] for s in script_steps]} but "
                       f"{spec_path.name} describes {[s.get('name') for s in spec_steps]}")
    steps = []
    for number, ((step_name, title, commands), step_spec) in enumerate(
            zip(script_steps, spec_steps, strict=True), 1):
        if not step_spec.get("hint") or not step_spec.get("check"):
            raise LabError(f"{spec_path.name}: step {step_name} needs a hint and checks")
        checks = tuple(Check(**c) for c in step_spec["check"])
        for c in checks:
            kinds = [c.equals is not None, c.exit is not None,
                     c.at_least is not None or c.at_most is not None]
            if sum(kinds) != 1:
                raise LabError(f"{spec_path.name}: check {c.what!r} must have exactly one of "
                               "equals, exit, at_least/at_most")
        steps.append(Step(number, step_name, title, tuple(commands), step_spec["hint"], checks))
    lab = spec["lab"]
    return Lab(name, lab["title"], script, tuple(lab["pools"]), tuple(lab["files"]),
               tuple(steps), tuple(lab.get("pidfiles", ())))


# --- safety ------------------------------------------------------------------------------------

# Words in a zpool vdev list that name a group or class, not a device (cmd/zpool/zpool_vdev.c).
VDEV_KEYWORDS = {"mirror", "raidz", "raidz1", "raidz2", "raidz3", "spare", "log", "cache",
                 "special", "dedup"}
# A top-level group's name as `zpool status` prints it (vdev_name() adds "-<id>").
EXISTING_GROUP = re.compile(r"(mirror|raidz[123]?|draid[0-9]*(:[0-9a-z]+)*)-[0-9]+")
# zpool create/add options that take a value (the value is not a device).
ZPOOL_VALUE_OPTIONS = {"-o", "-O", "-m", "-R", "-t", "--config"}


def _under(path: str, directory: str) -> bool:
    return os.path.normpath(path).startswith(directory.rstrip("/") + "/")


def _device_refusal(device: str, lab_dir: str) -> str | None:
    if device.startswith("draid"):
        return None if device[len("draid"):].replace(":", "").isalnum() else device
    if device in VDEV_KEYWORDS:
        return None
    if not device.startswith("/"):
        return (f"refused: {device!r} is not a path; zpool would look for /dev/{device}. "
                f"Lab pools are made only of files under {lab_dir}/")
    if not _under(device, lab_dir):
        return (f"refused: {device} is not under {lab_dir}/. Lab pools are made only of files "
                f"under {lab_dir}/, never of disks")
    real = os.path.realpath(device)
    if os.path.exists(real) and not _under(real, os.path.realpath(lab_dir)):
        return f"refused: {device} resolves to {real}, outside {lab_dir}/"
    if os.path.exists(real) and not os.path.isfile(real):
        return f"refused: {device} is not a regular file"
    return None


def refusal(command: str, pools: tuple[str, ...], lab_dir: str = LAB_DIR) -> str | None:
    """Why ``command`` must not run in a lab that owns ``pools``, or None if it may.

    Pool-building subcommands may only use files under ``lab_dir``; destroying, exporting or
    importing a pool is allowed only for the lab's own pools; dd may only write to files.
    """
    try:
        words = shlex.split(command, comments=True)
    except ValueError as err:
        return f"refused: cannot parse {command!r}: {err}"
    if not words:
        return None
    if words[0] == "sudo":
        words = words[1:]
    if words[:1] == ["zpool"] and len(words) > 1:
        sub, args = words[1], words[2:]
        positional: list[str] = []
        skip = False
        for word in args:
            if skip:
                skip = False
            elif word in ZPOOL_VALUE_OPTIONS:
                skip = True
            elif not word.startswith("-"):
                positional.append(word)
        if sub in {"create", "add", "attach", "replace", "split", "labelclear"}:
            pool, devices = (positional[0], positional[1:]) if sub != "labelclear" else (
                None, positional)
            if sub == "split":
                devices = devices[1:]
                if positional[1:2] and positional[1] not in pools:
                    return f"refused: the new pool {positional[1]!r} is not one of this lab's pools"
            # `zpool attach|replace POOL OLD NEW`: OLD is already in the pool, and may be a
            # group's name from `zpool status` (raidz1-0, mirror-0: RAID-Z expansion since 2.3
            # attaches to the raidz group itself), which names no device at all.
            if sub in {"attach", "replace"} and devices and EXISTING_GROUP.fullmatch(devices[0]):
                devices = devices[1:]
            # Devices first: pointing a lab at /dev/sda should hear about the disk, not the name.
            for device in devices:
                why = _device_refusal(device, lab_dir)
                if why:
                    return why
            if pool is not None and pool not in pools:
                return f"refused: {pool!r} is not one of this lab's pools ({', '.join(pools)})"
        elif sub in {"destroy", "export", "offline", "online", "detach", "clear", "scrub",
                     "remove", "reguid", "upgrade"}:
            if not positional or positional[0] not in pools:
                target = positional[0] if positional else "(no pool)"
                return f"refused: {target!r} is not one of this lab's pools ({', '.join(pools)})"
        elif sub == "import":
            # zpool import [-d dir] [-o prop] ... POOL [NEWNAME]: -d/-c/-o/-R take a value here.
            names, skip = [], False
            for word in args:
                if skip:
                    skip = False
                elif word in {"-d", "-c", "-o", "-R", "-T"}:
                    skip = True
                elif not word.startswith("-"):
                    names.append(word)
            if names and names[-1] not in pools:
                return f"refused: importing as {names[-1]!r}, not one of this lab's pools"
    if words[:1] == ["zfs"] and len(words) > 2 and words[1] in {"destroy", "rollback", "rename"}:
        target = [w for w in words[2:] if not w.startswith("-")]
        if not target or re.split(r"[/@#%]", target[0])[0] not in pools:
            return "refused: only this lab's own datasets may be destroyed or renamed"
    if words[:1] == ["fio"]:
        for word in words[1:]:
            target = word.split("=", 1)[1] if word.startswith("--filename=") else ""
            # A lab pool's own volume is fair game (lab 7), as for dd below.
            if target.startswith("/dev/zvol/") and target.split("/")[3] not in pools:
                return f"refused: {target} is not a volume of this lab's pools"
            if target.startswith("/dev/") and not target.startswith("/dev/zvol/"):
                return f"refused: fio would write to the device {target}"
    if words[:1] == ["qemu-nbd"] and any(
            w in ("-c", "-d") or w.startswith(("--connect", "--disconnect")) for w in words[1:]):
        # Lab 7 serves images on a unix socket; the kernel's /dev/nbdN devices stay untouched.
        return "refused: qemu-nbd may serve on a socket here, not attach a /dev/nbd device"
    if words[:1] == ["dd"]:
        for word in words[1:]:
            if word.startswith("of="):
                target = word[3:]
                if target.startswith("/dev/") and not target.startswith(("/dev/null",
                                                                         "/dev/zvol/")):
                    return f"refused: dd would write to the device {target}"
                if target.startswith("/dev/zvol/") and target.split("/")[3] not in pools:
                    return f"refused: {target} is not a volume of this lab's pools"
    return None


# --- running -----------------------------------------------------------------------------------

def run_commands(commands, pools: tuple[str, ...], *, echo: bool = True, lab_dir: str = LAB_DIR):
    """Run command lines one by one in bash, as a learner would at a prompt.

    Every line is checked by :func:`refusal` before the first one runs, so a refused line stops
    the whole block with nothing done. Output is shown as it comes (dd on a slow VM takes a
    while). Stops at the first command that fails.
    """
    lines = [c.strip() for c in commands if c.strip() and not c.strip().startswith("#")]
    for line in lines:
        why = refusal(line, pools, lab_dir)
        if why:
            raise Refused(f"{line}\n{why}")
    for line in lines:
        if echo:
            print(f"$ {line}", flush=True)
        proc = subprocess.run(["bash", "-c", line], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              env={**os.environ, "LC_ALL": "C"})
        if echo and proc.stdout:
            print(proc.stdout, end="", flush=True)
        if line.endswith(EXPECT_FAIL):
            if proc.returncode == 0:
                raise LabError(f"{line!r} was expected to fail, and succeeded")
        elif proc.returncode != 0:
            raise LabError(f"{line!r} exited with status {proc.returncode}"
                           + ("" if echo else f": {proc.stdout.strip()}"))


def run_check(check: Check) -> tuple[int, str]:
    proc = subprocess.run(["bash", "-c", check.run], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True,
                          env={**os.environ, "LC_ALL": "C"})
    return proc.returncode, proc.stdout


def verify(lab: Lab, step: str | int) -> Verdict:
    the_step = lab.step(step)
    failures = []
    for check in the_step.checks:
        seen = check.judge(*run_check(check))
        if seen is not None:
            failures.append((check, seen))
    return Verdict(the_step, tuple(failures))


def solve(lab: Lab, step: str | int, *, echo: bool = True) -> None:
    run_commands(lab.step(step).commands, lab.pools, echo=echo)


# Servers a lab may start and reset may stop (by pid file only, never by name).
LAB_SERVERS = {"qemu-nbd"}


def stop_server(pidfile: str, wait_seconds: float = 30.0) -> str | None:
    """Stop the lab server whose pid ``pidfile`` holds, if it still runs, and wait for it to
    exit (qemu-nbd flushes and closes its image on SIGTERM; until then the pool is busy).
    Only a process named in LAB_SERVERS is signalled: a stale pid file whose pid now
    belongs to something else is left alone. Returns "NAME (pid N)" if one was stopped."""
    try:
        pid = int(Path(pidfile).read_text().strip())
        name = Path(f"/proc/{pid}/comm").read_text().strip()
    except (OSError, ValueError):
        return None
    if name not in LAB_SERVERS or _process_state(pid) in (None, "Z"):
        return None
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return None
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline and _process_state(pid) not in (None, "Z"):
        time.sleep(0.1)  # "Z": exited, its parent has yet to reap it
    if _process_state(pid) not in (None, "Z"):
        # Still there: a server signalled while it was still starting may never act on
        # SIGTERM. The lab cannot wait for ever on its own server.
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        while _process_state(pid) not in (None, "Z"):
            time.sleep(0.1)
    return f"{name} (pid {pid})"


def _process_state(pid: int) -> str | None:
    """The state letter of /proc/PID/stat (R, S, D, Z...), None if there is no such process."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def reset(lab: Lab, *, echo: bool = True, lab_dir: str = LAB_DIR) -> list[str]:
    """Destroy this lab's leftover pools and remove its files under ``lab_dir``; nothing else.

    Returns what was removed, so a re-run after an interruption starts clean.
    """
    done = [f"stopped {server}" for server in map(stop_server, lab.pidfiles) if server]
    listed = subprocess.run(["zpool", "list", "-H", "-o", "name"], capture_output=True,
                            text=True)
    for pool in listed.stdout.split():
        if pool in lab.pools:
            subprocess.run(["zpool", "destroy", "-f", pool], check=True)
            done.append(f"zpool destroy -f {pool}")
    os.makedirs(lab_dir, exist_ok=True)
    for entry in sorted(os.listdir(lab_dir)):
        path = os.path.join(lab_dir, entry)
        if os.path.isfile(path) and any(fnmatch.fnmatch(entry, p) for p in lab.files):
            os.remove(path)
            done.append(f"rm {path}")
    if echo:
        print("\n".join(done) if done else f"nothing of lab {lab.name} left over", flush=True)
    return done


# --- notebooks ---------------------------------------------------------------------------------

class Notebook:
    """What a lab notebook holds: the lab, its reset, and the ``%%lab`` cell magic.

    ``%%lab`` runs the cell's lines through :func:`run_commands` (so the safety checks apply),
    ``check("name")`` prints the step's verdict and stops the notebook if it is not done.
    """

    def __init__(self, name: str):
        if os.geteuid() != 0:
            raise LabError("the labs run zpool and zfs: start JupyterLab as root (the lab VM does)")
        self.lab = load_lab(name)
        try:
            from IPython import get_ipython
        except ImportError:  # plain Python: no magic, lab.run() still works
            return
        shell = get_ipython()
        if shell is not None:
            shell.register_magic_function(self._cell_magic, "cell", "lab")

    def _cell_magic(self, line, cell):
        self.run(cell)

    def run(self, commands: str) -> None:
        run_commands(commands.splitlines(), self.lab.pools)

    def reset(self) -> None:
        reset(self.lab)

    def check(self, step: str | int) -> None:
        """Print the step's verdict (and, in a workshop, report it: labsteps.report); raise
        when the step is not done."""
        from labsteps.report import report_if_workshop

        verdict = verify(self.lab, step)
        print(verdict.line())
        delivery = report_if_workshop([verdict.result(self.lab.name)])
        if delivery is not None:
            print(delivery.line())
        if not verdict.ok:
            raise LabError(verdict.line())



def vdev_allocation(pool: str) -> list[tuple[str, int, int, int]]:
    """Print how a pool's allocation is split over its top-level vdevs (``zpool list -HPpv``).

    Returns the (vdev, size, allocated, free) rows, in bytes, for checks that need them.
    """
    # No -o: OpenZFS 2.1 prints all default columns on vdev rows whatever -o asks for, so the
    # default column order (name, size, alloc, free, ...) is the one both 2.1 and 2.2 keep.
    proc = subprocess.run(["zpool", "list", "-HPpv", pool], capture_output=True, text=True)
    if proc.returncode != 0:
        raise LabError(proc.stderr.strip() or f"zpool list {pool} failed")
    rows = []
    for line in proc.stdout.splitlines()[1:]:
        fields = line.strip().split("\t")
        if len(fields) >= 4 and fields[0].startswith("/") and fields[2] != "-":
            rows.append((fields[0], int(fields[1]), int(fields[2]), int(fields[3])))
    total_alloc = sum(r[2] for r in rows) or 1
    total_free = sum(r[3] for r in rows) or 1
    print(f"{'vdev':<28} {'SIZE MiB':>9} {'ALLOC MiB':>10} {'of ALLOC':>9} {'of FREE':>8}")
    for name, size, alloc, free in rows:
        print(f"{name:<28} {size / 2**20:9.0f} {alloc / 2**20:10.1f} "
              f"{100 * alloc / total_alloc:8.0f}% {100 * free / total_free:7.0f}%")
    return rows
