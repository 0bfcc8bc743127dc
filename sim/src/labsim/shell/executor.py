"""Runs a command line: parses it (labsim.shell.syntax), then walks its AST as bash would.

Pipes pass each command's standard output to the next as content (labsim.content.model), so
``yes | head -c 10M > f`` never makes its bytes; redirections follow bash's descriptor table
(``> f 2>&1`` and ``2>&1 > f`` differ); ``$?``, variables, ``$(...)``, globs, ``for``,
``while``, ``if``, ``case``, functions and here-documents work as in bash 5.2.

Every command line runs under a budget (Budget): at most ``Session.step_limit`` steps (a simple
command, a loop turn, a ping packet each take one) and, once it has taken more than a thousand
steps, ``Session.time_limit`` seconds of the host's time. A line that uses it up stops with a
message and status 130, bash's status for a command interrupted by Ctrl-C. Time inside the
simulation (sleep, dd) is the session's clock, which never waits.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING

from labsim.content import model
from labsim.content.model import Content
from labsim.shell import arith, expand, registry, streams
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError
from labsim.shell.syntax import ast, backend, convert
from labsim.zfs.compressors import CompressorUnavailable

if TYPE_CHECKING:
    from labsim.shell.session import Session

# Bash's status for a command stopped by SIGINT (128 + 2).
INTERRUPTED = 130
# The longest command line labsim parses (a pasted script is far shorter).
MAX_LINE = 1 << 18
# The most bytes a command substitution keeps ($(cat big) is not simulated beyond it).
SUBSTITUTION_LIMIT = 1 << 20
# The deepest nesting of functions, subshells and substitutions (bash's own limit is the
# machine's stack; FUNCNEST is unset).
MAX_DEPTH = 50


# Commands a lab VM has that labsim does not run: they get labsim's notice rather than
# bash's "command not found", which would be false. The first block is Debian 12's; the
# second every program in the bin and sbin directories of Debian 13's coreutils 9.7,
# util-linux 2.41, e2fsprogs, iproute2, procps, psmisc, kmod, diffutils, grep and
# zfsutils-linux 2.3.9 packages that labsim does not run either (zilstat comes with 2.2).
_KNOWN_COMMANDS_TEXT = """
    awk basename bc blkid bzip2 chattr chgrp chmod chown chroot cksum column comm cpio crontab
    date dirname dmesg env expand expr factor file find findmnt fmt fold free fuser gawk getfacl
    gpg groups gunzip gzip hdparm hexdump hostname hostnamectl htop iconv id install iostat
    journalctl join kill killall last less lsattr lsblk lsmod lsof lspci lsusb make man mawk
    mkfifo mkfs mknod mktemp modinfo modprobe more mountpoint nano nc netstat nice nl nohup
    nproc numfmt od parted paste patch pgrep pidof pinky pr ps pstree ptx python3 readlink
    realpath renice reset resize2fs rev rmdir rmmod rsync runuser scp script sed setfacl sfdisk
    sgdisk sh sha224sum sha384sum shred shuf smartctl split ss stdbuf strace
    strings stty su sudo sum systemctl tac tar taskset tcpdump timeout top tput traceroute
    tree tsort tty umount uname unexpand unlink unxz unzip uptime useradd usermod users vi vim
    vmstat w watch wget whereis which who whoami xargs xxd xz zcat zstd b2sum basenc diff
    ln dmsetup losetup blockdev wipefs clear apt apt-get dpkg fdisk lscpu
    agetty arc_summary arch arcstat arpd badblocks base32 blkdiscard blkzone bridge chcon
    chcpu chmem choom chrt csplit ctstat dbufstat dcb debugfs depmod devlink diff3 dir
    dircolors dumpe2fs e2freefrag e2fsck e2image e2label e2mmpstatus e2scrub e2scrub_all
    e2undo e4crypt e4defrag egrep fgrep filefrag findfs flock fsck fsck.ext2 fsck.ext3
    fsck.ext4 fsck.zfs fsfreeze fstrim genl getopt getty hardlink hostid i386 insmod ionice
    ipcmk ipcrm ipcs isosize kmod ldattach link linux32 linux64 lnstat logname lsipc
    lslocks lslogins lsmem lsns mcookie mke2fs mkfs.ext2 mkfs.ext3 mkfs.ext4 mklost+found
    mkswap mount.zfs namei nsenter nstat partx pathchk peekfd pidwait pivot_root pmap
    printenv prlimit prtstat pslog pwdx rdma readprofile rename.ul rgrep routel rtacct
    rtcwake rtmon rtstat runcon sdiff setarch setsid setterm skill slabtop snice sulogin
    swaplabel switch_root tc tipc tload tune2fs uclampset unshare vdir vdpa wdctl x86_64
    zfs_ids_to_path zgenhostid zhack zilstat zpool_influxdb zramctl zstream zstreamdump
    zvol_wait
"""
KNOWN_COMMANDS = frozenset(_KNOWN_COMMANDS_TEXT.split())


class Stop(Exception):
    """The line stops here: its budget is used up, or something is too deep."""

    def __init__(self, message: str, status: int = INTERRUPTED):
        super().__init__(message)
        self.message = message
        self.status = status


class LoopControl(Exception):
    def __init__(self, levels: int, kind: str):
        super().__init__(kind)
        self.levels = levels
        self.kind = kind  # "break" or "continue"


class ExitShell(Exception):
    def __init__(self, status: int):
        super().__init__(status)
        self.status = status


class ReturnFromFunction(Exception):
    def __init__(self, status: int):
        super().__init__(status)
        self.status = status


@dataclass
class Budget:
    steps: int
    seconds: float
    deadline: float
    used: int = 0

    def step(self, steps: int = 1) -> None:
        before = self.used
        self.used += steps
        if self.used > self.steps:
            raise Stop(f"labsim: stopped after {self.steps} steps: "
                       + msg.notice_body("a command line running more commands and loop turns"))
        # The clock is read every 256 steps once a line has taken 1024: a line of a few
        # slow commands (a big dd in the page) is never stopped by time, only loops are.
        if self.used >= 1024 and self.used >> 8 != before >> 8 \
                and time.monotonic() > self.deadline:
            raise Stop(f"labsim: stopped after {self.seconds:g} seconds: "
                       + msg.notice_body("a command line running longer on this computer"))


@dataclass
class Input:
    """A command's standard input: content, read from ``offset`` on (read takes a line at a
    time; any other command takes the rest)."""

    data: Content
    offset: int = 0

    def rest(self) -> Content:
        size = self.data.size
        rest = model.window(self.data, self.offset, size - self.offset)
        self.offset = size
        return rest

    def line(self) -> str | None:
        """The next line without its newline; None at the end."""
        size = self.data.size
        if self.offset >= size:
            return None
        chunks: list[bytes] = []
        while self.offset < size:
            chunk = model.read(self.data, self.offset, min(4096, size - self.offset))
            newline = chunk.find(b"\n")
            if newline >= 0:
                chunks.append(chunk[:newline])
                self.offset += newline + 1
                break
            chunks.append(chunk)
            self.offset += len(chunk)
            if sum(len(c) for c in chunks) > SUBSTITUTION_LIMIT:
                break
        return b"".join(chunks).decode(errors="replace")


class _Logged(list):
    """A stream of the terminal itself: what is written to it is also noted, in order, in
    the log both of the terminal's streams share."""

    def __init__(self, fd: int, log: list[tuple[int, Content | str]]):
        super().__init__()
        self.fd = fd
        self.log = log

    def append(self, item: Content | str) -> None:
        super().append(item)
        self.log.append((self.fd, item))


@dataclass
class Sink:
    """What commands wrote: standard output as content, standard error as text.
    ``terminal``: standard output is the terminal (isatty(1)), not a pipe or a file."""

    out: list[Content] = field(default_factory=list)
    err: list[str] = field(default_factory=list)
    terminal: bool = False

    def write(self, text: str) -> None:
        if text:
            self.out.append(_text(text))

    def content(self) -> Content:
        return model.concat(*self.out)


def _text(text: str) -> Content:
    data = text.encode("utf-8", "surrogateescape")
    return model.of_source(model.Literal(data)) if data else Content()


def run_line(session: Session, line: str, stdin: Input | None = None) -> CommandResult:
    """One command line as the terminal runs it: what it printed and its status."""
    log: list[tuple[int, Content | str]] = []
    sink = Sink(out=_Logged(1, log), err=_Logged(2, log), terminal=True)
    line = line.encode("utf-8", "replace").decode()  # no lone surrogates
    if len(line) > MAX_LINE:
        return CommandResult.fail(msg.notice(f"a command line of more than {MAX_LINE} "
                                             "characters"))
    if session.running is not None:  # a command running a line of its own (wg-quick's hooks)
        status = session.running.line(line, sink, stdin)
        session.last_status = status
        return streams.to_terminal(_terminal_result(sink, status),
                                   session.running.last_command or "bash")
    budget = Budget(session.step_limit, session.time_limit,
                    time.monotonic() + session.time_limit)
    shell = Executor(session, budget)
    session.running = shell
    try:
        status = shell.line(line, sink, stdin)
    except Stop as stop:
        sink.err.append(stop.message + "\n")
        status = stop.status
    except (ExitShell, ReturnFromFunction) as leave:
        status = leave.status
    except RecursionError:
        sink.err.append(msg.notice("a command line nested this deeply") + "\n")
        status = 2
    except Exception as error:  # noqa: BLE001 - a learner never sees a traceback
        sink.err.append(f"labsim: internal error ({type(error).__name__}: {error}); this is "
                        "a bug in labsim, please report it with the command line\n")
        status = 70
    finally:
        session.running = None
    session.last_status = status
    shown = streams.to_terminal(_terminal_result(sink, status), shell.last_command or "bash")
    return replace(shown, output=_interleaved(log, shown))


def _interleaved(log: list[tuple[int, Content | str]], shown: CommandResult
                 ) -> tuple[tuple[int, str], ...]:
    """The terminal's streams in the order they were written (nothing if the output was too
    big to print: the terminal then shows the result's stdout and stderr)."""
    out: list[tuple[int, str]] = []
    size = 0
    for fd, item in log:
        if isinstance(item, str):
            text = item
        else:
            size += item.size
            if size > streams.TERMINAL_LIMIT:
                return ()
            text = model.read(item, 0, item.size).decode(errors="replace")
        if text:
            if out and out[-1][0] == fd:
                out[-1] = (fd, out[-1][1] + text)
            else:
                out.append((fd, text))
    joined_out = "".join(t for fd, t in out if fd == 1)
    joined_err = "".join(t for fd, t in out if fd == 2)
    return tuple(out) if (joined_out, joined_err) == (shown.stdout, shown.stderr) else ()


@lru_cache(maxsize=1024)
def parse(line: str) -> ast.Program | ast.SyntaxError_:
    """A line's AST; kept, since pages and scripts run the same lines again (ASTs are
    immutable, so one may be shared)."""
    return convert.convert(backend.parse(line))


def incomplete(text: str) -> bool:
    """Whether bash would read another line to finish ``text`` (its PS2 prompt): an open
    quote, loop, here-document, pipe or ``&&`` at the end."""
    try:
        program = parse(text)
    except backend.ParserUnavailable:
        return False
    return isinstance(program, ast.SyntaxError_) and (
        program.message.endswith("unexpected end of file")
        or program.message.startswith("unexpected EOF"))


def _terminal_result(sink: Sink, status: int) -> CommandResult:
    return CommandResult(stderr="".join(sink.err), status=status, data=sink.content())


class Executor:
    """The shell running one command line (and the lines it runs inside, like eval's)."""

    def __init__(self, session: Session, budget: Budget):
        self.session = session
        self.budget = budget
        self.positional_stack: list[list[str]] = [[]]
        self.depth = 0
        self.loops = 0
        self.err_sink = Sink()
        self.last_command = ""

    # ------------------------------------------------------------ the shell's state

    def variable(self, name: str) -> str | None:
        session = self.session
        if name == "?":
            return str(session.last_status)
        if name.isdigit():
            index = int(name)
            if index == 0:
                return "bash"
            positional = self.positional()
            return positional[index - 1] if index <= len(positional) else None
        if name == "#":
            return str(len(self.positional()))
        if name == "$":
            return str(session.shell_pid)
        if name == "PWD":
            return session.cwd
        if name == "RANDOM":
            return str(self.random())
        if name in ("-", "!"):
            return "" if name == "!" else "hB"
        return session.variables.get(name)

    def random(self) -> int:
        """$RANDOM: bash 5.2's generator (variables.c brand(): Park-Miller "minimal standard"
        steps, then the two halves of the seed XORed, 15 bits). bash seeds it from the time
        and its pid; labsim from the session's pid, so a session's numbers repeat."""
        seed = self.session.random_seed or 123459876
        high, low = divmod(seed, 127773)
        seed = 16807 * low - 2836 * high
        if seed < 0:
            seed += 0x7FFFFFFF
        self.session.random_seed = seed
        return ((seed >> 16) ^ (seed & 0xFFFF)) & 0x7FFF

    def assign(self, name: str, value: str) -> None:
        if name == "RANDOM":  # assigning seeds it (bash's sbrand)
            try:
                self.session.random_seed = int(value) & 0xFFFFFFFF
            except ValueError:
                self.session.random_seed = 0
            return
        if name in ("?", "#", "$", "!", "-", "*", "@") or name.isdigit() \
                or not name.isidentifier():
            raise expand.ExpansionError(f"${name}: cannot assign in this way")
        if name == "PWD":
            return
        self.session.variables[name] = value

    def positional(self) -> list[str]:
        return self.positional_stack[-1]

    def expand(self, word: ast.Word) -> str:
        return expand.single(self, word)

    def parse_arithmetic(self, text: str) -> ast.Arithmetic | None:
        program = self.parse("(( " + text + " ))")
        if isinstance(program, ast.Program) and len(program.commands) == 1 \
                and isinstance(program.commands[0], ast.ArithmeticCommand):
            return program.commands[0].expression
        return None

    def evaluate(self, expression: ast.Arithmetic) -> int:
        try:
            return arith.evaluate(expression, self)
        except arith.ArithmeticError_ as error:
            raise expand.ExpansionError(f"labsim: arithmetic: {error.what} ("
                                        + msg.notice_body("bash's message, which quotes the "
                                                          "expression,") + ")", 1) from None

    def substitute(self, program: ast.Program) -> str:
        """``$(...)``: the program run in a subshell; its output, its status into ``$?``."""
        sink = Sink(err=self.err_sink.err)
        status = self.subshell(lambda: self.program(program, sink, None))
        self.session.last_status = status
        data = sink.content()
        if data.size > SUBSTITUTION_LIMIT:
            raise expand.ExpansionError(msg.notice(
                f"a command substitution of {data.size} bytes (at most {SUBSTITUTION_LIMIT})"),
                1)
        return model.read(data, 0, data.size).decode(errors="replace").replace("\0", "")

    def subshell(self, body: Callable[[], int]) -> int:
        """Run ``body`` with the shell's state restored after it, as a forked shell does."""
        session = self.session
        saved = (session.cwd, dict(session.variables), dict(session.functions),
                 list(self.positional_stack))
        self.enter()
        try:
            return body()
        except ExitShell as leave:
            return leave.status
        finally:
            self.depth -= 1
            session.cwd, session.variables, session.functions, self.positional_stack = saved

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.depth -= 1
            raise Stop(msg.notice(f"nesting deeper than {MAX_DEPTH} functions, subshells or "
                                  "command substitutions"), 1)

    def parse(self, line: str) -> ast.Program | ast.SyntaxError_:
        try:
            return parse(line)
        except backend.ParserUnavailable as missing:
            raise Stop(f"labsim: {missing}", 2) from None

    # ------------------------------------------------------------ commands

    def line(self, line: str, sink: Sink, stdin: Input | None) -> int:
        program = self.parse(line)
        if isinstance(program, ast.SyntaxError_):
            sink.err.append(f"bash: {program.message}\n")
            return 2
        return self.program(program, sink, stdin)

    def program(self, program: ast.Program, sink: Sink, stdin: Input | None) -> int:
        status = self.session.last_status
        for command in program.commands:
            status = self.run(command, sink, stdin)
            self.session.last_status = status
        return status

    def run(self, command: ast.Command, sink: Sink, stdin: Input | None) -> int:
        from labsim.shell import compound

        if isinstance(command, ast.Simple):
            return self.simple(command, sink, stdin)
        if isinstance(command, ast.Redirected):
            from labsim.shell import redirect

            return redirect.run(self, command, sink, stdin)
        if isinstance(command, ast.Program):
            return self.program(command, sink, stdin)
        return compound.run(self, command, sink, stdin)

    def simple(self, command: ast.Simple, sink: Sink, stdin: Input | None) -> int:
        from labsim.shell import builtins

        self.budget.step()
        previous_err, self.err_sink = self.err_sink, sink
        try:
            argv = expand.words(self, command.words)
            values = [(a.name, self.expand(a.value), a.append) for a in command.assignments]
        except expand.ExpansionError as error:
            sink.err.append(error.line)
            return error.status
        finally:
            self.err_sink = previous_err
        if not argv:
            status = self.session.last_status if any(
                isinstance(p, ast.CommandSubstitution) for a in command.assignments
                for p in a.value.parts) else 0
            for name, value, append in values:
                try:
                    self.assign(name, (self.session.variables.get(name, "") if append else "")
                                + value)
                except expand.ExpansionError as error:
                    sink.err.append(error.line)
                    return 1
            return status
        name = argv[0]
        builtin = builtins.BUILTINS.get(name)
        if builtin is not None:
            return builtin(self, argv, sink, stdin)
        function = self.session.functions.get(name)
        if function is not None:
            return self.call(function, argv, sink, stdin)
        return self.external(argv, sink, stdin)

    def call(self, body: ast.Command, argv: list[str], sink: Sink, stdin: Input | None) -> int:
        self.enter()
        self.positional_stack.append(argv[1:])
        try:
            return self.run(body, sink, stdin)
        except ReturnFromFunction as leave:
            return leave.status
        finally:
            self.positional_stack.pop()
            self.depth -= 1

    def external(self, argv: list[str], sink: Sink, stdin: Input | None) -> int:
        """A command of labsim's table (labsim.shell.registry)."""

        self.last_command = argv[0]
        handler = registry.lookup(argv[0])
        if handler is None:
            from labsim.shell import builtins

            if argv[0] in builtins.UNSIMULATED_BUILTINS or argv[0] in KNOWN_COMMANDS:
                sink.err.append(msg.tool_not_simulated(argv[0], "this command") + "\n")
                return 1
            sink.err.append(f"bash: {argv[0]}: command not found\n")
            return 127
        try:
            if registry.takes(handler, "stdout_is_terminal"):
                result = handler(self.session, argv, stdout_is_terminal=sink.terminal)
            elif registry.takes(handler, "stdin_data"):
                result = handler(self.session, argv,
                                 stdin_data=stdin.rest() if stdin is not None else None)
            elif registry.takes(handler, "stdin"):
                text = None
                if stdin is not None:
                    text = streams.to_terminal(CommandResult(data=stdin.rest()), argv[0]).stdout
                result = handler(self.session, argv, stdin=text)
            else:
                result = handler(self.session, argv)
        except UsageError as err:
            result = CommandResult.fail(err.message, err.status)
        except CompressorUnavailable as missing:
            result = _no_compressor(argv[0], str(missing))
        if result.data is not None:
            sink.out.append(result.data)
        elif result.output:  # a command that interleaves its streams (ping)
            for fd, text in result.output:
                if fd == 1:
                    sink.write(text)
                elif text:
                    sink.err.append(text)
            return result.status
        else:
            sink.write(result.stdout)
        if result.stderr:
            sink.err.append(result.stderr)
        return result.status


def _no_compressor(command: str, algorithm: str) -> CommandResult:
    return CommandResult.fail(
        msg.tool_not_simulated(command, f"writing with compression={algorithm} in this "
                               f"Python, which has no {algorithm} module,")
        + " (or pip install 'labsim[compress]', or Python 3.14)")
