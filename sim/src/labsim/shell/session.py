"""A shell session: the state a learner's commands act on.

A Session is the simulated machine: sparse files on the host, imported pools, the
current directory and a clock. ``Session.run(line)`` parses one command line and runs it
(labsim.shell.executor, which finds the commands in labsim.shell.registry), and returns what
the real command would print and its exit status. Sessions share nothing, so a page can hold
as many as it likes.

What the commands share (CommandResult, UsageError, HostFile) is labsim.shell.base; the names
are imported here too, for the session's own use and for those who import them with it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from labsim.content.model import Content
from labsim.net.model import HostFiles, Network, add_host
from labsim.shell.base import START_CLOCK, CommandResult, HostFile, interleaved
from labsim.wg.device import WireGuardHost
from labsim.zfs.labels import GuidSource
from labsim.zfs.pool import Pool
from labsim.zfs.versions import DEFAULT_VERSION, ZfsVersion
from labsim.zfs.zil import ZilStats

if TYPE_CHECKING:
    from labsim.shell.executor import Executor
    from labsim.shell.syntax.ast import Command


# The variables a root login shell on the lab VM starts with (Debian 12, bash 5.2).
SHELL_VARIABLES = {
    "HOME": "/root", "USER": "root", "LOGNAME": "root", "SHELL": "/bin/bash",
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "IFS": " \t\n", "PS1": "\\u@\\h:\\w\\$ ", "TERM": "xterm-256color",
}


@dataclass
class Session:
    version: ZfsVersion = DEFAULT_VERSION
    cwd: str = "/root"
    host_files: dict[str, HostFile] = field(default_factory=dict)
    host_dirs: set[str] = field(
        # /etc/wireguard as the wireguard-tools package leaves it (Debian: directory, mode 0700).
        default_factory=lambda: {"/", "/root", "/tmp", "/run", "/var", "/var/tmp", "/dev",
                                 "/mnt", "/etc", "/etc/wireguard"}
    )
    pools: dict[str, Pool] = field(default_factory=dict)
    # Pools exported with zpool export, by pool guid: what their devices hold, which
    # zpool import finds by the labels of the files it scans.
    exported_pools: dict[int, Pool] = field(default_factory=dict)
    # Where the guids of new pools and vdevs come from (seeded with the host's name in
    # __post_init__ unless given).
    guids: GuidSource = field(default_factory=GuidSource)
    # Seconds since the epoch, 2026-11-18 11:06:40 UTC at the start: a fixed time so that
    # transcripts are reproducible. Slow commands (dd, sleep, scrubs and resilvers)
    # advance it by their simulated duration. With ``host_clock`` set, now() reads the
    # host's clock instead (a terminal in a page may want the reader's own time).
    clock: float = START_CLOCK
    host_clock: bool = False
    # Relative write throughput of each vdev's backing file, by path (default 1.0).
    device_speed: dict[str, float] = field(default_factory=dict)
    # The zfs module's intent-log counters, /proc/spl/kstat/zfs/zil: for the whole
    # machine, every pool together, since the module was loaded.
    # The ZIL's kstat counters (their set is the release's; made in __post_init__).
    zil_stats: ZilStats = field(init=False)
    # Disk images qemu-img made, by path (labsim.shell.commands.qemu_img.Qcow2Image).
    images: dict[str, object] = field(default_factory=dict)
    # qemu-nbd servers by pid (labsim.shell.commands.qemu_nbd.NbdServer; None once stopped).
    nbd_servers: dict[int, object] = field(default_factory=dict)
    # The machine's WireGuard interfaces, and the seeded generator behind `wg genkey`;
    # always set after __init__ (None asks for the host's own, see __post_init__).
    wireguard: WireGuardHost | None = None
    # The network this machine is host ``hostname`` of (labsim.net): sessions for different
    # hosts of one lesson share one Network. Without one, the session gets a network of its
    # own with just this host. The host owns the WireGuard state: ``wireguard`` is the
    # host's (one given here goes to a new host; an existing host keeps its own).
    network: Network = field(default_factory=Network)
    hostname: str = "lab"
    # What each packet of the last `ping` met on its way (labsim.net.trace.Delivery),
    # for a page to show.
    last_ping: tuple = ()
    # The shell's own state (labsim.shell.executor): its variables, its functions (name ->
    # labsim.shell.syntax.ast command), $? and the budget of one command line: at most
    # step_limit simple commands, loop turns and packets, and time_limit seconds of the
    # host's time once past a thousand steps (labsim.shell.executor.Budget).
    variables: dict[str, str] = field(default_factory=lambda: dict(SHELL_VARIABLES))
    functions: dict[str, Command] = field(default_factory=dict)
    last_status: int = 0
    step_limit: int = 100_000
    time_limit: float = 5.0
    shell_pid: int = 4242
    random_seed: int = 4242  # $RANDOM's generator (labsim.shell.executor.Executor.random)
    device_reads: int = 0  # reads of /dev/urandom so far, each one's bytes its own
    # Volumes a writer closed since the last `udevadm settle`: name -> session clock of the
    # close (labsim.shell.udev).
    udev_probing: dict[str, tuple[float, int]] = field(default_factory=dict)
    # Command lines run so far, and whether they come from a script (run_script()), where
    # one follows another at once; a terminal's lines are a person's typing apart.
    lines_run: int = 0
    in_script: bool = False
    # The executor running a line now (a command that runs a line of its own joins it).
    running: Executor | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.zil_stats = ZilStats.zero(self.version.zil_kstat)
        host = self.network.hosts.get(self.hostname)
        if host is None:
            # A new host of a shared network gets a generator seeded with its position,
            # so that two hosts never generate the same keys.
            host = add_host(self.network, self.hostname, wireguard=self.wireguard)
        self.wireguard = host.wireguard
        if not self.guids.seed:
            self.guids.seed = self.hostname
        # The host's files are the host's, whichever of its sessions wrote them.
        files = self.network.files.setdefault(self.hostname,
                                              HostFiles(self.host_files, self.host_dirs))
        self.host_files, self.host_dirs = files.files, files.dirs
        self.variables.setdefault("HOSTNAME", self.hostname)

    def run(self, line: str) -> CommandResult:
        """Run one command line as bash would (labsim.shell.executor): what it printed to
        the terminal and its status."""
        from labsim.shell import executor

        self.lines_run += 1
        return executor.run_line(self, line)

    def for_host(self, hostname: str) -> Session:
        """A session of host ``hostname`` of this session's network, at this session's time
        (ssh runs the command it carries in one, labsim.shell.commands.ssh)."""
        return Session(network=self.network, hostname=hostname, clock=self.clock)

    def tick(self, steps: int = 1) -> None:
        """A long command (ping's packets) takes ``steps`` of the running line's budget; when
        it is used up the line stops (labsim.shell.executor.Budget)."""
        if self.running is not None:
            self.running.budget.step(steps)

    def run_with_input(self, line: str, stdin: str) -> CommandResult:
        """``line`` with ``stdin`` as its standard input (as if piped in)."""
        from labsim.shell import executor

        return executor.run_line(self, line, executor.Input(_text_content(stdin)))

    def now(self) -> float:
        """The current time for timestamps the tools print (zpool status scan lines)."""
        return time.time() if self.host_clock else self.clock

    def absolute(self, path: str) -> str:
        if not path.startswith("/"):
            path = self.cwd.rstrip("/") + "/" + path
        parts: list[str] = []
        for part in path.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if parts:
                    parts.pop()
            else:
                parts.append(part)
        return "/" + "/".join(parts)


def _text_content(text: str) -> Content:
    from labsim.content import model

    data = text.encode()
    return model.of_source(model.Literal(data)) if data else Content()


def run_script(text: str, session: Session | None = None) -> list[tuple[str, CommandResult]]:
    """Run every command of ``text``; returns (command, result) pairs in order. A command
    that goes on over several lines (a loop, a here-document, an open quote) runs whole, as
    bash reads a script."""
    session = session or Session()
    was_in_script, session.in_script = session.in_script, True
    try:
        return _run_lines(text, session)
    finally:
        session.in_script = was_in_script


def _run_lines(text: str, session: Session) -> list[tuple[str, CommandResult]]:
    return [(command, session.run(command)) for command in script_commands(text)]


def script_commands(text: str) -> Iterator[str]:
    """The commands of a script as bash reads them: one a line, but a command that goes
    on over several lines (a loop, a here-document, an open quote) whole; blank lines and
    comments between commands are skipped."""
    from labsim.shell.executor import incomplete

    pending: list[str] = []
    for raw in text.splitlines():
        line = raw if pending else raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        pending.append(line)
        command = "\n".join(pending)
        if incomplete(command):
            continue
        pending = []
        yield command.strip()
    if pending:
        yield "\n".join(pending).strip()


def transcript(pairs: list[tuple[str, CommandResult]], prompt: str = "$ ") -> str:
    """``$ command`` followed by what it printed, as a terminal would show it.

    A pair whose line starts with "#" is a note (for elided commands) and is printed as is.
    """
    chunks = []
    for line, result in pairs:
        if line.startswith("#"):
            chunks.append(line + "\n")
        else:
            shown = "".join(text for _, text in interleaved(result))
            chunks.append(f"{prompt}{line}\n{shown}")
    return "".join(chunks)


def note(text: str) -> tuple[str, CommandResult]:
    """A transcript entry that is a comment, not a command."""
    return ("# " + text, CommandResult())
