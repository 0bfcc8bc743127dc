"""qemu-nbd serving a qcow2 image on a unix socket, fio's nbd engine writing to it, and
`pkill -F PIDFILE` stopping the server: lab 7's way of putting fio's writes through QEMU's
qcow2 layer without the nbd kernel module.

    qemu-nbd --fork --persistent --pid-file=/run/lab7-q64k.pid \\
        --socket=/run/lab7-q64k.sock --format=qcow2 /lab7/q64k/vm.qcow2
    fio --name=q64k --ioengine=nbd --uri='nbd+unix:///?socket=/run/lab7-q64k.sock' \\
        --rw=randwrite --bs=4k --size=48M --io_size=1M --output=/dev/null
    pkill -F /run/lab7-q64k.pid

qemu-nbd (QEMU 7.2, Debian 12's qemu-utils) with --fork returns once the server listens;
--persistent keeps it serving after a client leaves, which fio needs: its nbd engine
connects once to learn the export's size and again for the I/O (fio engines/nbd.c), and
without --persistent the server is gone before the second connection. What a run writes
into the image is labsim.zfs.qcow2.fresh_image_random_write. Other forms are refused with
a "not modelled" message.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from labsim.shell import fs
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, HostFile, written_whole
from labsim.shell.registry import command
from labsim.zfs import qcow2
from labsim.zfs.compression import DataPattern
from labsim.zfs.write_path import write_file

if TYPE_CHECKING:
    from labsim.shell.session import Session

# The first pid labsim hands out to a server (any fixed number: transcripts only show it
# if someone cats the pid file).
FIRST_PID = 4100
URI_PREFIX = "nbd+unix:///?socket="


@dataclass(frozen=True)
class NbdServer:
    pid: int
    socket: str
    image: str


def _servers(session: Session) -> dict[int, NbdServer | None]:
    """The qemu-nbd servers this session started, by pid (the running ones; a stopped
    one keeps its entry as None so that pids are not handed out twice)."""
    return session.nbd_servers  # type: ignore[return-value]


def _running(session: Session) -> dict[str, NbdServer]:
    """The running servers, by socket path."""
    return {s.socket: s for s in _servers(session).values() if s is not None}


def not_modelled(what: str) -> CommandResult:
    return CommandResult.fail(msg.tool_not_simulated("qemu-nbd", what))


@command("qemu-nbd")
def qemu_nbd(session: Session, argv: list[str]) -> CommandResult:
    """qemu-nbd --fork --persistent --pid-file=P --socket=S --format=qcow2 IMAGE."""
    options: dict[str, str] = {}
    flags: set[str] = set()
    operands: list[str] = []
    for arg in argv[1:]:
        key, eq, value = arg.partition("=")
        if key in ("--pid-file", "--socket", "--format") and eq:
            options[key] = value
        elif arg in ("--fork", "--persistent", "-t"):
            flags.add("--persistent" if arg == "-t" else arg)
        elif arg.startswith("-"):
            return not_modelled(arg)
        else:
            operands.append(arg)
    if len(operands) != 1:
        return CommandResult.fail("qemu-nbd: Invalid number of arguments\nTry `qemu-nbd "
                                  "--help' for more information.", 1)
    if flags != {"--fork", "--persistent"} or "--socket" not in options:
        return not_modelled("other than --fork --persistent --socket=PATH")
    if options.get("--format") != "qcow2":
        return not_modelled("without --format=qcow2")
    # qemu-nbd.c binds the socket first, then opens the image, then (after --fork) writes
    # the pid file; the messages are QEMU 7.2's, recorded on Debian 12.
    name, socket_arg = operands[0], options["--socket"]
    socket = session.absolute(socket_arg)
    if not fs.parent_exists(session, socket):
        return CommandResult.fail(f"qemu-nbd: Failed to bind socket to {socket_arg}: No such "
                                  "file or directory", 1)
    image = session.absolute(name)
    if image not in session.images:
        if not fs.exists(session, image):
            return CommandResult.fail(f"qemu-nbd: Failed to blk_new_open '{name}': Could not "
                                      f"open '{name}': No such file or directory", 1)
        return not_modelled("on a file qemu-img create did not make")
    if any(s.image == image for s in _running(session).values()):
        return CommandResult.fail(f"qemu-nbd: Failed to blk_new_open '{name}': Failed to "
                                  f'get "write" lock\nIs another process using the image '
                                  f"[{name}]?", 1)
    pid = FIRST_PID + len(_servers(session))
    if "--pid-file" in options:
        pidfile = session.absolute(options["--pid-file"])
        if not fs.parent_exists(session, pidfile):
            return CommandResult.fail(f"qemu-nbd: Could not create '{options['--pid-file']}': "
                                      "No such file or directory", 1)
        session.host_files[pidfile] = HostFile(len(f"{pid}\n"), session.clock, f"{pid}\n",
                                              allocated=written_whole(len(f"{pid}\n")))
    # An existing socket at that path is replaced (unlinked, bound anew): a server already
    # there keeps running but can no longer be reached through it.
    _servers(session)[pid] = NbdServer(pid, socket, image)
    return CommandResult()


@command("pkill")
def pkill(session: Session, argv: list[str]) -> CommandResult:
    """pkill -F PIDFILE (procps-ng): signal the process whose pid the file holds; status 1
    if none runs. The processes labsim knows are the servers qemu-nbd started here and the
    sshd servers a host started (labsim.shell.commands.sshd: the PidFile is the server; on
    SIGTERM sshd closes its socket and removes the file, sshd.c server_accept_loop())."""
    from labsim.shell.commands.sshd import SshdProcess

    words = argv[1:]
    if len(words) == 2 and words[0] in ("-F", "--pidfile"):
        path = words[1]
    elif len(words) == 1 and words[0].startswith("--pidfile="):
        path = words[0].split("=", 1)[1]
    else:
        return CommandResult.fail(msg.command_line_not_simulated("pkill", ["pkill", *words])
                                  + " (labsim has pkill -F PIDFILE)")
    held = session.host_files.get(session.absolute(path))
    if held is None:  # procps-ng 4.0.2 (Debian 12), recorded
        return CommandResult.fail("pkill: pidfile not valid\nTry `pkill --help' for more "
                                  "information.", 1)
    if isinstance(held, SshdProcess):
        del session.host_files[session.absolute(path)]
        return CommandResult()
    text = (held.text or "").strip()
    servers = _servers(session)
    if text.isdigit() and servers.get(int(text)) is not None:
        servers[int(text)] = None  # SIGTERM: qemu-nbd flushes, closes the image, exits
        return CommandResult()
    return CommandResult(status=1)


def nbd_random_write(session: Session, uri: str, region: int, bs: int,
                     io_bytes: int) -> CommandResult:
    """fio's nbd engine: --rw=randwrite through the server at ``uri`` into its image."""
    if not uri.startswith(URI_PREFIX):
        return CommandResult.fail(msg.tool_not_simulated("fio", f"--uri={uri}")
                                  + f" (labsim has {URI_PREFIX}PATH)")
    server = _running(session).get(session.absolute(uri[len(URI_PREFIX):]))
    if server is None:
        return CommandResult.fail("fio: nbd_connect_uri: nbd_connect_uri: connect: No such "
                                  "file or directory\nfio: io engine nbd init failed.", 1)
    image = session.images[server.image]
    if image.written:  # type: ignore[attr-defined]
        return CommandResult.fail(msg.tool_not_simulated(
            "fio", "writing into a qcow2 image a second time"))
    virtual, cluster = image.virtual_size, image.cluster_size  # type: ignore[attr-defined]
    if region > virtual:
        return CommandResult.fail(f"fio: {server.image}: size {region} beyond the export's "
                                  f"{virtual} bytes", 1)
    grown = qcow2.fresh_image_random_write(region, cluster, bs, io_bytes)
    hit = fs.mounted_dataset(session, server.image)
    if hit is None or not hit.name:
        return CommandResult.fail(msg.tool_not_simulated(
            "fio", "writing into a qcow2 image outside a ZFS dataset"))
    # Each allocated cluster holds fio's bytes, then the zeros QEMU wrote to fill it.
    pattern = (DataPattern("fio", 100 - 100 * bs // cluster, cluster) if cluster > bs
               else DataPattern("random"))
    size = max(grown.file_size, hit.dataset.files[hit.name].size)
    write_file(hit.pool, hit.dataset, hit.name, size, pattern)
    hit.dataset.files[hit.name].mtime = session.clock
    session.images[server.image] = replace(image, written=True)  # type: ignore[type-var]
    return CommandResult()
