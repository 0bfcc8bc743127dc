"""The few GNU coreutils the lessons use: truncate, rm, ls, cp, mkdir, and shell built-ins."""

from __future__ import annotations

import getopt
from dataclasses import replace
from typing import TYPE_CHECKING

from labsim.content import model as content_model
from labsim.content.model import Content
from labsim.format import coreutils as fmt
from labsim.format import kstat as kstat_fmt
from labsim.shell import fs, streams
from labsim.shell import messages as msg
from labsim.shell.base import (
    START_CLOCK,
    CommandResult,
    HostFile,
    UsageError,
    appended,
    host_allocated,
    written_whole,
)
from labsim.shell.gnu_options import option_error
from labsim.shell.registry import command
from labsim.shell.units import parse_coreutils_size
from labsim.shell.zil_writes import log_program_writes
from labsim.zfs import bclone, labels, zvols
from labsim.zfs.compression import DataPattern
from labsim.zfs.errors import NoSpace
from labsim.zfs.objset import root_dir_read
from labsim.zfs.pool import File, Pool
from labsim.zfs.space import file_used_bytes
from labsim.zfs.write_path import remove_file, write_file

if TYPE_CHECKING:
    from labsim.shell.session import Session


def _usage(tool: str, message: str) -> UsageError:
    return UsageError(f"{tool}: {message}\nTry '{tool} --help' for more information.", 1)


@command("truncate")
def truncate(session: Session, argv: list[str]) -> CommandResult:
    try:
        opts, files = getopt.gnu_getopt(argv[1:], "cs:", ["size=", "no-create"])
    except getopt.GetoptError as err:
        raise option_error("truncate", err) from None
    size_arg = next((v for k, v in opts if k in ("-s", "--size")), None)
    no_create = any(k in ("-c", "--no-create") for k, _ in opts)
    if size_arg is None:
        raise _usage("truncate", "you must specify either '--size' or '--reference'")
    if not files:
        raise _usage("truncate", "missing file operand")
    mode, number = (size_arg[0], size_arg[1:]) if size_arg[:1] in "+-<>/%" else ("=", size_arg)
    amount = parse_coreutils_size(number)
    if amount is None:
        return CommandResult.fail(f"truncate: Invalid number: '{size_arg}'")
    errors, status = [], 0
    for name in files:
        path = session.absolute(name)
        if not fs.parent_exists(session, path):
            errors.append(fmt.open_for_writing_failed("truncate", name))
            status = 1
            continue
        hit = fs.mounted_dataset(session, path)
        current = _size_of(session, path)
        if current is None and no_create:
            continue
        new_size = _resize(current or 0, mode, amount)
        if hit is not None and hit.name:
            file = hit.dataset.files.setdefault(hit.name, File(hit.name))
            file.size, file.mtime = new_size, session.clock  # sparse: nothing allocated
        elif path in session.host_files:
            # The bytes before the new size stay, label copies among them (a vdev file
            # grown keeps its labels where they were: the back pair is no longer at the
            # end, where zpool import looks for it).
            old = session.host_files[path]
            known = old.data is not None or old.text is not None
            data = content_model.resize(streams.host_content(old), new_size) if known else None
            kept = None if old.allocated is None else min(old.allocated, written_whole(new_size))
            session.host_files[path] = replace(old, size=new_size, mtime=session.clock,
                                               text=None, data=data,
                                               labels=labels.truncated(old.labels, new_size),
                                               allocated=kept)
        else:
            session.host_files[path] = HostFile(new_size, session.clock, allocated=0)
    return CommandResult(stderr="".join(errors), status=status)


def _resize(current: int, mode: str, amount: int) -> int:
    if mode == "+":
        return current + amount
    if mode == "-":
        return max(0, current - amount)
    if mode == "<":
        return min(current, amount)
    if mode == ">":
        return max(current, amount)
    if mode == "/":
        return current // amount * amount if amount else current
    if mode == "%":
        return -(-current // amount) * amount if amount else current
    return amount


def _size_of(session: Session, path: str) -> int | None:
    if path in session.host_files:
        return session.host_files[path].size
    hit = fs.mounted_dataset(session, path)
    if hit is not None and hit.name in hit.dataset.files:
        return hit.dataset.files[hit.name].size
    return None


@command("rm")
def rm(session: Session, argv: list[str]) -> CommandResult:
    try:
        opts, names = getopt.gnu_getopt(argv[1:], "fr", ["force", "recursive"])
    except getopt.GetoptError as err:
        raise option_error("rm", err) from None
    force = any(k in ("-f", "--force") for k, _ in opts)
    recursive = any(k in ("-r", "--recursive") for k, _ in opts)
    if not names:
        if force:
            return CommandResult()
        raise _usage("rm", "missing operand")
    errors = []
    for name in names:
        path = session.absolute(name)
        hit = fs.mounted_dataset(session, path)
        if path in session.host_files:
            del session.host_files[path]
        elif hit is not None and hit.name in hit.dataset.files:
            remove_file(hit.pool, hit.dataset, hit.name)
        elif fs.is_dir(session, path) and recursive and path in session.host_dirs:
            # rm -r: the directory and everything under it (host directories only)
            inside = path.rstrip("/") + "/"
            for file in [f for f in session.host_files if f.startswith(inside)]:
                del session.host_files[file]
            session.host_dirs.difference_update(
                {d for d in session.host_dirs if d == path or d.startswith(inside)})
        elif fs.is_dir(session, path):
            errors.append(f"rm: cannot remove '{name}': Is a directory\n")
        elif not force:
            errors.append(f"rm: cannot remove '{name}': No such file or directory\n")
    return CommandResult(stderr="".join(errors), status=1 if errors else 0)


@command("ls")
def ls(session: Session, argv: list[str], stdout_is_terminal: bool = True) -> CommandResult:
    """ls [-lhas1C] [NAME]...: names in columns on a terminal, one a line into a pipe or a
    file (GNU ls's format follows isatty(1); -1 and -C choose)."""
    try:
        opts, names = getopt.gnu_getopt(argv[1:], "lhas1C", ["human-readable", "size"])
    except getopt.GetoptError as err:
        raise option_error("ls", err) from None
    columns = stdout_is_terminal
    for key, _ in opts:
        if key in ("-1", "-C"):
            columns = key == "-C"
    width = fmt.LS_WIDTH if columns else fmt.ONE_PER_LINE
    long = any(k == "-l" for k, _ in opts)
    show_all = any(k == "-a" for k, _ in opts)
    blocks = any(k in ("-s", "--size") for k, _ in opts)
    human = any(k in ("-h", "--human-readable") for k, _ in opts)
    names = names or ["."]
    out, errors = [], []
    files: list[tuple[str, int, int | None, float]] = []  # shown name, size, allocated, mtime
    dirs: list[tuple[str, str]] = []
    for name in names:
        path = session.absolute(name)
        entry = _stat(session, path)
        if entry is not None:
            files.append((name, *entry))
        elif fs.is_dir(session, path):
            dirs.append((name, path))
        else:
            errors.append(f"ls: cannot access '{name}': No such file or directory\n")
    files.sort()
    listings = {path: _listdir(session, path, dots=show_all) for _, path in dirs}
    notice = ""
    if blocks or long:
        unknown = [f[0] for f in files if f[2] is None] + [
            e.name for entries in listings.values() for e in entries if e.allocated is None]
        if unknown:  # said, not an error: the listing itself is right
            notice = msg.tool_not_simulated(
                "ls", f"counting the blocks of {unknown[0]} on the host's file system (total, -s)"
            ) + f" ({UNKNOWN_BLOCKS}); 0 is shown\n"
    shown = [(n, size, allocated or 0, mtime) for n, size, allocated, mtime in files]
    if shown:
        out.append(fmt.ls_lines(shown, long=long, human=human, now=session.clock,
                                blocks=blocks, width=width))
    for i, (name, path) in enumerate(sorted(dirs)):
        entries = sorted((replace(e, allocated=e.allocated or 0) for e in listings[path]),
                         key=lambda e: e.name)
        hit = fs.mounted_dataset(session, path)
        if hit is not None and hit.name == "":  # readdir: the directory's atime
            root_dir_read(hit.pool, hit.dataset)
        if len(names) > 1:
            out.append(("\n" if (i or files) else "") + f"{name}:\n")
        out.append(fmt.ls_lines(entries, long=long, human=human, now=session.clock,
                                total=long or blocks, blocks=blocks, width=width))
    return CommandResult(stdout="".join(out), stderr="".join(errors) + notice,
                         status=2 if errors else 0)


# Why labsim does not know a host file's blocks.
UNKNOWN_BLOCKS = ("a vdev file holds what ZFS wrote into it; dd's, fio's and qemu-img's "
                  "output what they wrote")


def _stat(session: Session, path: str) -> tuple[int, int | None, float] | None:
    """(size, allocated, mtime) of a file; allocated is None for a host file whose blocks
    labsim does not know (labsim.shell.base.host_allocated)."""
    if path in session.host_files:
        host_file = session.host_files[path]
        return host_file.size, host_allocated(host_file), host_file.mtime
    hit = fs.mounted_dataset(session, path)
    if hit is not None and hit.name in hit.dataset.files:
        file = hit.dataset.files[hit.name]
        return file.size, zfs_allocated(hit.pool, file), file.mtime
    return None


def zfs_allocated(pool: Pool, file: File) -> int:
    """st_blocks * 512 of a file in a dataset: dmu_object_size_from_db()
    (module/zfs/dmu.c) reports (DN_USED_BYTES + 256) >> 9 sectors, every copy of every
    block included, plus one for each 512-byte slot of the dnode itself."""
    used = file_used_bytes(pool, file)
    return ((used + 256) >> 9 << 9) + 512


@command("du")
def du(session: Session, argv: list[str]) -> CommandResult:
    """du [-k|-h] FILE...: the allocated size of each operand in KiB, rounded up (or human
    readable), in the
    order given. A directory counts its files (and not its own blocks, which labsim
    does not model)."""
    try:
        opts, names = getopt.gnu_getopt(argv[1:], "ksh", ["human-readable"])
    except getopt.GetoptError as err:
        raise option_error("du", err) from None
    # -h: du.c sets human_autoscale | human_SI | human_base_1024 with an output block of one
    # byte, gnulib rounding up, as ls -h does (labsim.format.coreutils.ls_size).
    human = any(k in ("-h", "--human-readable") for k, _ in opts)
    out, errors = [], []
    for name in names or ["."]:
        path = session.absolute(name)
        entry = _stat(session, path)
        allocated: int | None
        if entry is not None:
            allocated = entry[1]
        elif fs.is_dir(session, path):
            sizes = [e.allocated for e in _listdir(session, path) if not e.mode.startswith("d")]
            allocated = None if None in sizes else sum(s or 0 for s in sizes)
        else:
            errors.append(f"du: cannot access '{name}': No such file or directory\n")
            continue
        if allocated is None:
            what = f"counting the blocks of {name} on the host's file system"
            errors.append(msg.tool_not_simulated("du", what) + f" ({UNKNOWN_BLOCKS})\n")
            continue
        shown = fmt.ls_size(allocated, human=True) if human else str(-(-allocated // 1024))
        out.append(f"{shown}\t{name}\n")
    return CommandResult(stdout="".join(out), stderr="".join(errors),
                         status=1 if errors else 0)


def _listdir(session: Session, path: str, dots: bool = False) -> list[fmt.LsEntry]:
    """The entries of directory ``path``, with "." and ".." when ``dots`` (ls -a)."""
    prefix = path.rstrip("/") + "/"
    entries = []
    for name, host_file in session.host_files.items():
        if name.startswith(prefix) and "/" not in name[len(prefix):]:
            entries.append(fmt.LsEntry(name[len(prefix):], host_file.size,
                                       host_allocated(host_file), host_file.mtime))
    hit = fs.mounted_dataset(session, path)
    if hit is not None and hit.name == "":
        for name, file in hit.dataset.files.items():
            entries.append(fmt.LsEntry(name, file.size, zfs_allocated(hit.pool, file),
                                       file.mtime))
    # /dev/zvol/POOL: udev's links to the volumes (lab 7); shown by name only.
    for name in zvols.volume_links(session.pools, path) or []:
        entries.append(fmt.LsEntry(name, 0, 0, session.clock))
    listed = {entry.name for entry in entries}
    for name in fs.entries(session, path):
        if name not in listed:
            entries.append(_directory_entry(session, prefix + name, name))
    if dots:
        parent = path.rstrip("/").rsplit("/", 1)[0] or "/"
        entries += [_directory_entry(session, path, "."),
                    _directory_entry(session, parent, "..")]
    return entries


# A directory on the host's file system (ext4): one 4K block.
HOST_DIRECTORY_SIZE = 4096


def _directory_entry(session: Session, path: str, name: str) -> fmt.LsEntry:
    """A subdirectory as stat(2) shows it: two links and one more for each directory in
    it. A file system's root on ZFS has the size of its entries plus two (zfs_getattr():
    z_size counts "." and "..") and its micro ZAP's sector (labsim does not track a
    directory's own blocks); a host directory its 4K block."""
    inside = fs.entries(session, path)
    subdirs = sum(1 for entry in inside if fs.is_dir(session, f"{path}/{entry}"))
    hit = fs.mounted_dataset(session, path)
    if hit is not None and hit.name == "":
        return fmt.LsEntry(name, len(inside) + 2, 512, session.clock, "drwxr-xr-x",
                           2 + subdirs)
    return fmt.LsEntry(name, HOST_DIRECTORY_SIZE, HOST_DIRECTORY_SIZE, session.clock,
                       "drwxr-xr-x", 2 + subdirs)


REFLINK_MODES = ("auto", "always", "never")


def _reflink_mode(value: str) -> str:
    """argmatch() of --reflink's argument: a mode or an unambiguous start of one."""
    if value in REFLINK_MODES:
        return value
    matches = [mode for mode in REFLINK_MODES if mode.startswith(value)]
    if len(matches) == 1:
        return matches[0]
    problem = "ambiguous" if matches else "invalid"
    valid = "".join(f"\n  - '{mode}'" for mode in REFLINK_MODES)
    raise _usage("cp", f"{problem} argument '{value}' for '--reflink'\n"
                       f"Valid arguments are:{valid}")


@command("cp")
def cp(session: Session, argv: list[str]) -> CommandResult:
    """cp [--reflink[=WHEN]] SRC DST for a file in a pool's dataset (or a host file), as GNU
    coreutils 9 does it (--reflink=auto by default): it first asks for a clone (the
    FICLONE ioctl), then copies with copy_file_range(), and only then by reading and
    writing.

    On OpenZFS with block cloning on (zfs_bclone_enabled, 2.3; labsim.zfs.bclone) both of
    the first two reach zfs_clone_range(), so a plain cp within a pool clones the file;
    FICLONE alone insists on one file system (vfs_clone_file_range(): EXDEV across
    datasets), copy_file_range() does not. Otherwise (2.1, 2.2, another pool, a host
    file) the copy is a new file of the same size written through the destination's
    write path (write_path.write_file()), with the source's kind of data (zeros or random),
    all that compression looks at. --reflink=always fails where no clone can be made,
    leaving the destination created and empty, as cp does: "failed to clone 'DST' from
    'SRC': Operation not supported" (measured with coreutils 9.1 on tmpfs; the text is
    copy.c's "failed to clone %s from %s")."""
    # --reflink without an argument is --reflink=always (an optional argument, which
    # Python's getopt does not have).
    args = ["--reflink=always" if a == "--reflink" else a for a in argv[1:]]
    try:
        opts, names = getopt.gnu_getopt(args, "f", ["force", "reflink="])
    except getopt.GetoptError as err:
        raise option_error("cp", err) from None
    reflink = "auto"
    for key, value in opts:
        if key == "--reflink":
            reflink = _reflink_mode(value)
    if not names:
        raise _usage("cp", "missing file operand")
    if len(names) < 2:
        raise _usage("cp", f"missing destination file operand after '{names[0]}'")
    source, target = names[0], names[-1]
    src_path, dst_path = session.absolute(source), session.absolute(target)
    shown = target  # the destination as cp names it in messages
    if fs.is_dir(session, dst_path):
        base = src_path.rsplit("/", 1)[-1]
        dst_path = dst_path.rstrip("/") + "/" + base
        shown = target.rstrip("/") + "/" + base
    src = fs.mounted_dataset(session, src_path)
    copied_labels: tuple[labels.LabelCopy, ...] = ()
    if src_path in session.host_files:
        host = session.host_files[src_path]
        content: str | DataPattern | Content
        size = host.size
        known = host.data is not None or host.text is not None
        content = streams.host_content(host) if known else "zero"
        copied_labels = host.labels  # a vdev file's labels too
    elif src is not None and src.name in src.dataset.files:
        file = src.dataset.files[src.name]
        size, content = file.size, file.content
    elif fs.is_dir(session, src_path):
        return CommandResult.fail(f"cp: -r not specified; omitting directory '{source}'")
    else:
        return CommandResult.fail(f"cp: cannot stat '{source}': No such file or directory")
    if not fs.parent_exists(session, dst_path):
        return CommandResult.fail(f"cp: cannot create regular file '{target}': "
                                  "No such file or directory")
    if src_path == dst_path:
        return CommandResult.fail(f"cp: '{source}' and '{shown}' are the same file")
    dst = fs.mounted_dataset(session, dst_path)
    # Both ends in pools: the source a file of a dataset, the destination a file name in one.
    in_pools = (src if src is not None and src_path not in session.host_files else None,
                dst if dst is not None and dst.name else None)
    src_in_pool, dst_in_pool = in_pools
    clonable = (src_in_pool is not None and dst_in_pool is not None
                and bclone.can_clone(src_in_pool.pool, dst_in_pool.pool))
    same_dataset = (src_in_pool is not None and dst_in_pool is not None
                    and src_in_pool.dataset is dst_in_pool.dataset)
    if reflink == "always" and not (clonable and same_dataset):
        # FICLONE: another file system (dataset, pool or host) is EXDEV before the file
        # system is asked; a ZFS without cloning (or a host file system) says EOPNOTSUPP.
        both_in_pools = src_in_pool is not None and dst_in_pool is not None
        same_fs = same_dataset if both_in_pools else (src is None and dst is None)
        reason = "Operation not supported" if same_fs else "Invalid cross-device link"
        if dst is not None and dst.name:
            write_file(dst.pool, dst.dataset, dst.name, 0, "zero")  # opened with O_TRUNC
            dst.dataset.files[dst.name].mtime = session.clock
        else:
            session.host_files[dst_path] = HostFile(0, session.clock, allocated=0)
        return CommandResult.fail(f"cp: failed to clone '{shown}' from '{source}': {reason}")
    if clonable and reflink != "never" and src_in_pool is not None and dst_in_pool is not None:
        clone = bclone.clone_file(src_in_pool.pool, src_in_pool.dataset, file,
                                  dst_in_pool.dataset, dst_in_pool.name)
        clone.mtime = session.clock
    elif dst is not None and dst.name:
        try:
            write_file(dst.pool, dst.dataset, dst.name, size, content)
        except NoSpace:
            dst.dataset.files[dst.name].mtime = session.clock
            return CommandResult.fail(f"cp: error writing '{target}': No space left on device")
        dst.dataset.files[dst.name].mtime = session.clock
        log_program_writes(session, dst.pool, dst.dataset, dst.name, size, "cp", content)
    else:
        source_file = session.host_files.get(session.absolute(source))
        session.host_files[dst_path] = HostFile(
            size, session.clock, labels=copied_labels,
            data=content if isinstance(content, Content) else None,
            allocated=None if source_file is None else host_allocated(source_file))
    return CommandResult()


@command("sync", "true")
def noop(session: Session, argv: list[str]) -> CommandResult:
    return CommandResult()


@command("false")
def false(session: Session, argv: list[str]) -> CommandResult:
    return CommandResult(status=1)


# The session's clock stops at the end of year 9999, the last time the tools' dates can show.
CLOCK_END = 253_402_300_799.0
_SLEEP_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


@command("sleep")
def sleep(session: Session, argv: list[str]) -> CommandResult:
    """sleep NUMBER[SUFFIX]...: GNU sleep sums its operands (s, m, h, d; "inf"). Simulated time:
    the session's clock moves on at once. Sleeping past year 9999 stops as Ctrl-C would."""
    try:  # GNU sleep's only options are --help and --version
        _, args = getopt.gnu_getopt(argv[1:], "")
    except getopt.GetoptError as err:
        raise option_error("sleep", err) from None
    if not args:
        raise _usage("sleep", "missing operand")
    total = 0.0
    for arg in args:
        number, unit = (arg[:-1], arg[-1]) if arg[-1:] in "smhd" else (arg, "")
        try:
            value = float(number)
        except ValueError:
            value = float("nan")
        if value != value or value < 0 or number.strip() != number or not number:
            raise _usage("sleep", f"invalid time interval '{arg}'")
        total += value * _SLEEP_UNITS[unit]
    if session.clock + total > CLOCK_END:
        return CommandResult(stderr=msg.tool_not_simulated(
            "sleep", f"sleeping {' '.join(args)}, which goes past the year 9999,")
            + "; stopped as if by Ctrl-C\n", status=130)
    session.clock += total
    return CommandResult()


@command("echo")
def echo(session: Session, argv: list[str]) -> CommandResult:
    return CommandResult(stdout=" ".join(argv[1:]) + "\n")


@command("pwd")
def pwd(session: Session, argv: list[str]) -> CommandResult:
    return CommandResult(stdout=session.cwd + "\n")


@command("cd")
def cd(session: Session, argv: list[str]) -> CommandResult:
    target = session.absolute(argv[1]) if len(argv) > 1 else "/root"
    if not fs.is_dir(session, target):
        return CommandResult.fail(f"bash: cd: {argv[1]}: No such file or directory")
    session.cwd = target
    return CommandResult()


@command("mkdir")
def mkdir(session: Session, argv: list[str]) -> CommandResult:
    try:
        opts, names = getopt.gnu_getopt(argv[1:], "pm:", ["parents", "mode="])
    except getopt.GetoptError as err:
        raise option_error("mkdir", err) from None
    errors = []
    parents = any(k in ("-p", "--parents") for k, _ in opts)
    # -m MODE: labsim keeps no modes, so the mode is read and dropped.
    for name in names:
        path = session.absolute(name)
        if fs.is_dir(session, path):
            if not parents:
                errors.append(f"mkdir: cannot create directory '{name}': File exists\n")
            continue
        if not parents and not fs.parent_exists(session, path):
            errors.append(f"mkdir: cannot create directory '{name}': "
                          "No such file or directory\n")
            continue
        if fs.mounted_dataset(session, path) is not None:
            # labsim keeps a dataset's files at its top; real mkdir makes the directory.
            errors.append(msg.tool_not_simulated(
                "mkdir", f"a directory inside a dataset ('{name}')") + "\n")
            continue
        session.host_dirs.add(path)
        if parents:
            while path != "/":
                path = path.rsplit("/", 1)[0] or "/"
                session.host_dirs.add(path)
    return CommandResult(stderr="".join(errors), status=1 if errors else 0)


# Kernel files cat can read: the zfs module's intent-log counters and a few of its
# parameters, at their OpenZFS 2.1 defaults.
MODULE_PARAMETERS = {
    "zfs_txg_timeout": "5",
    "zfs_immediate_write_sz": "32768",
    "zil_slog_bulk": "786432",
    "zfs_dirty_data_sync_percent": "20",
}
ZIL_KSTAT = "/proc/spl/kstat/zfs/zil"
# The order the module creates its kstats in (15 in the 2.1.11 lab VM), and when: about
# 16 s after boot there, when the module was loaded.
ZIL_KSTAT_ID = 15
ZIL_KSTAT_CREATED_NS = 15_831_908_690


@command("cat")
def cat(session: Session, argv: list[str], stdin_data: Content | None = None
        ) -> CommandResult:
    """cat [FILE]...: the kernel files above, host files whose text labsim keeps (those
    written by tee, wg-quick or a redirection), the zeros of sparse host files, and files
    in datasets, whose content (labsim.content.model) it passes on: ``cat a > b`` writes
    b with a's bytes. With no file, or "-", standard input."""
    from labsim.shell import streams
    from labsim.shell.commands.textutils import read_file

    try:  # cat's options (-n, -A...) change what it prints: none is modelled
        _, names = getopt.gnu_getopt(argv[1:], "")
    except getopt.GetoptError as err:
        raise option_error("cat", err) from None
    parts, errors, status = [], [], 0
    for name in names or ["-"]:
        path = session.absolute(name)
        if name == "-":
            parts.append(stdin_data if stdin_data is not None else Content())
        elif path == ZIL_KSTAT:
            # the last update, in nanoseconds since boot: the session's clock, taking the
            # machine to have booted a minute before the session started
            since_boot = int((session.clock - START_CLOCK + 60) * 1e9)
            parts.append(streams.text_content(kstat_fmt.format_named_kstat(
                ZIL_KSTAT_ID, session.zil_stats.counters, ZIL_KSTAT_CREATED_NS, since_boot)))
        elif path.startswith("/sys/module/zfs/parameters/") and \
                path.rsplit("/", 1)[1] in MODULE_PARAMETERS:
            parts.append(streams.text_content(MODULE_PARAMETERS[path.rsplit("/", 1)[1]] + "\n"))
        elif fs.is_dir(session, path):
            errors.append(f"cat: {name}: Is a directory\n")
            status = 1
        else:
            data = read_file(session, name)
            if data is None:
                errors.append(f"cat: {name}: No such file or directory\n")
                status = 1
            else:
                parts.append(data)
    return CommandResult(data=content_model.concat(*parts), stderr="".join(errors),
                         status=status)


@command("tee")
def tee(session: Session, argv: list[str], stdin: str | None = None) -> CommandResult:
    """tee [-a] FILE...: standard input (a pipe, else nothing) to each file and to standard
    output. The files are host files that keep their text (cat shows it); -a appends.
    Errors as GNU coreutils 9.1 prints them; a failed file does not stop the others."""
    try:
        opts, names = getopt.gnu_getopt(argv[1:], "ai", ["append", "ignore-interrupts"])
    except getopt.GetoptError as err:
        raise option_error("tee", err) from None
    append = any(k in ("-a", "--append") for k, _ in opts)
    data = stdin or ""
    errors = []
    for name in names:
        path = session.absolute(name)
        if fs.is_dir(session, path):
            errors.append(f"tee: {name}: Is a directory\n")
        elif not fs.parent_exists(session, path):
            errors.append(f"tee: {name}: No such file or directory\n")
        elif fs.mounted_dataset(session, path) is not None:
            errors.append(msg.tool_not_simulated("tee", f"writing into a ZFS dataset ('{name}')")
                          + "\n")
        else:
            old = session.host_files.get(path)
            size = len(data.encode())
            if append and old is not None:
                text = None if old.text is None else old.text + data
                size += old.size
            else:
                text = data
            # replace() keeps what else the file is (its kind of HostFile), as writing into
            # an existing file keeps its mode.
            allocated = (written_whole(size) if old is None or not append
                         else appended(old, size))
            session.host_files[path] = (HostFile(size, session.clock, text, allocated=allocated)
                                        if old is None
                                        else replace(old, size=size, mtime=session.clock,
                                                     text=text, allocated=allocated))
    return CommandResult(stdout=data, stderr="".join(errors), status=1 if errors else 0)


@command("mv")
def mv(session: Session, argv: list[str]) -> CommandResult:
    """mv [-f|-n] [-v] SRC... DST for host files (GNU coreutils 9.7): into DST when it is a
    directory, else renamed to DST. A pool's vdev file takes its labels along: zpool import
    -d finds it by them wherever it is in the directories searched (labsim.zfs.discovery),
    and not when it was moved out of them (lesson 8); files inside datasets are not
    modelled."""
    try:
        opts, names = getopt.gnu_getopt(argv[1:], "fnv", ["force", "no-clobber", "verbose"])
    except getopt.GetoptError as err:
        raise option_error("mv", err) from None
    # The last of -f and -n wins (mv.c sets one `interactive` mode); since coreutils 9.5 -n
    # skips an existing destination silently with status 0 again (9.2-9.4 failed).
    modes = [k for k, _ in opts if k in ("-f", "--force", "-n", "--no-clobber")]
    no_clobber = bool(modes) and modes[-1] in ("-n", "--no-clobber")
    verbose = any(k in ("-v", "--verbose") for k, _ in opts)
    if not names:
        raise _usage("mv", "missing file operand")
    if len(names) == 1:
        raise _usage("mv", f"missing destination file operand after '{names[0]}'")
    *sources, target = names
    target_path = session.absolute(target)
    into = fs.is_dir(session, target_path)
    if len(sources) > 1 and not into:
        raise _usage("mv", f"target '{target}' is not a directory")
    output: list[tuple[int, str]] = []
    for name in sources:
        path = session.absolute(name)
        if path not in session.host_files:
            if fs.exists(session, path):
                output.append((2, msg.tool_not_simulated(
                    "mv", f"moving a file in a ZFS dataset ('{name}')") + "\n"))
            else:
                output.append((2, f"mv: cannot stat '{name}': No such file or directory\n"))
            continue
        base = path.rsplit("/", 1)[1]
        dest = target_path.rstrip("/") + "/" + base if into else target_path
        shown = target.rstrip("/") + "/" + base if into else target
        if not fs.parent_exists(session, dest):
            output.append((2, f"mv: cannot move '{name}' to '{target}': "
                              "No such file or directory\n"))
            continue
        if no_clobber and fs.exists(session, dest):
            continue
        if dest == path:
            output.append((2, f"mv: '{name}' and '{shown}' are the same file\n"))
            continue
        session.host_files[dest] = session.host_files.pop(path)
        if verbose:
            output.append((1, f"renamed '{name}' -> '{shown}'\n"))
    stdout = "".join(text for fd, text in output if fd == 1)
    stderr = "".join(text for fd, text in output if fd == 2)
    return CommandResult(stdout=stdout, stderr=stderr, status=1 if stderr else 0,
                         output=tuple(output))
