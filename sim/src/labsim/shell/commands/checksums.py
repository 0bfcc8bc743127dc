"""Commands that look at a file's bytes (coreutils 9.1, diffutils 3.8; LC_ALL=C as the lab
recordings run): md5sum, sha1sum, sha256sum,
sha512sum, base64 and cmp; touch and stat -c, which look at a file's metadata.

They read content (labsim.content.model) in chunks, up to READ_LIMIT bytes; beyond that they
say so rather than compute for minutes.
"""

from __future__ import annotations

import base64 as b64
import binascii
import getopt
import hashlib
from dataclasses import replace
from typing import TYPE_CHECKING

from labsim.content import model
from labsim.content.model import Content
from labsim.shell import fs
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, HostFile, UsageError, appended, written_whole
from labsim.shell.commands.textutils import read_file
from labsim.shell.gnu_options import option_error
from labsim.shell.registry import command, register
from labsim.zfs.write_path import write_file

if TYPE_CHECKING:
    from labsim.shell.session import Session

READ_LIMIT = 64 << 20
CHUNK = 1 << 20


def _usage(tool: str, message: str) -> UsageError:
    return UsageError(f"{tool}: {message}\nTry '{tool} --help' for more information.", 1)


def _chunks(data: Content):
    for offset in range(0, data.size, CHUNK):
        yield model.read(data, offset, min(CHUNK, data.size - offset))


def _input(session: Session, tool: str, name: str, stdin: Content | None
           ) -> Content | str:
    """The operand's content, or the error line."""
    if name == "-":
        return stdin if stdin is not None else Content()
    if fs.is_dir(session, session.absolute(name)):
        return f"{tool}: {name}: Is a directory\n"
    data = read_file(session, name)
    return data if data is not None else f"{tool}: {name}: No such file or directory\n"


def _digest(algorithm: str):
    def checksum(session: Session, argv: list[str], stdin_data: Content | None = None
                 ) -> CommandResult:
        tool = argv[0].rsplit("/", 1)[-1]
        try:
            opts, names = getopt.gnu_getopt(argv[1:], "bt", ["binary", "text"])
        except getopt.GetoptError as err:
            raise option_error(tool, err) from None
        out, errors = [], []
        for name in names or ["-"]:
            data = _input(session, tool, name, stdin_data)
            if isinstance(data, str):
                errors.append(data)
                continue
            if data.size > READ_LIMIT:
                errors.append(msg.tool_not_simulated(
                    tool, f"{name}: hashing more than {READ_LIMIT} bytes") + "\n")
                continue
            digest = hashlib.new(algorithm)
            for chunk in _chunks(data):
                digest.update(chunk)
            escaped = "\\" if "\\" in name or "\n" in name else ""
            shown = name.replace("\\", "\\\\").replace("\n", "\\n")
            out.append(f"{escaped}{digest.hexdigest()}  {shown}\n")
        return CommandResult(stdout="".join(out), stderr="".join(errors),
                             status=1 if errors else 0)

    return checksum


md5sum = _digest("md5")
sha1sum = _digest("sha1")
sha256sum = _digest("sha256")
sha512sum = _digest("sha512")
register("md5sum", md5sum)
register("sha1sum", sha1sum)
register("sha256sum", sha256sum)
register("sha512sum", sha512sum)


@command("base64")
def base64(session: Session, argv: list[str], stdin_data: Content | None = None
           ) -> CommandResult:
    """base64 [-d] [-w COLS] [FILE]: lines of 76 characters by default (-w 0: one line)."""
    try:
        opts, names = getopt.gnu_getopt(argv[1:], "diw:", ["decode", "ignore-garbage",
                                                            "wrap="])
    except getopt.GetoptError as err:
        raise option_error("base64", err) from None
    if len(names) > 1:
        raise _usage("base64", f"extra operand '{names[1]}'")
    wrap_arg = next((v for k, v in opts if k in ("-w", "--wrap")), "76")
    if not wrap_arg.isdigit():
        return CommandResult.fail(f"base64: invalid wrap size: '{wrap_arg}'")
    data = _input(session, "base64", names[0] if names else "-", stdin_data)
    if isinstance(data, str):
        return CommandResult.fail(data)
    if data.size > READ_LIMIT:
        return CommandResult.fail(msg.tool_not_simulated("base64",
                                                         f"more than {READ_LIMIT} bytes"))
    raw = b"".join(_chunks(data))
    if any(k in ("-d", "--decode") for k, _ in opts):
        text = b"".join(raw.split())
        if any(k in ("-i", "--ignore-garbage") for k, _ in opts):
            text = bytes(c for c in text if c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
                         b"tuvwxyz0123456789+/=")
        try:
            decoded = b64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return CommandResult(stderr="base64: invalid input\n", status=1)
        return CommandResult(data=model.of_source(model.Literal(decoded)) if decoded
                             else Content())
    encoded = b64.b64encode(raw)
    width = int(wrap_arg)
    if width:
        lines = [encoded[i:i + width] for i in range(0, len(encoded), width)]
    else:
        lines = [encoded] if encoded else []
    text = b"\n".join(lines) + (b"\n" if lines and width else b"")
    return CommandResult(data=model.of_source(model.Literal(text)) if text else Content())


@command("cmp")
def cmp(session: Session, argv: list[str], stdin_data: Content | None = None
        ) -> CommandResult:
    """cmp [-s] FILE1 [FILE2]: the first differing byte and its line (diffutils 3.8)."""
    try:
        opts, names = getopt.gnu_getopt(argv[1:], "sl", ["silent", "quiet", "verbose"])
    except getopt.GetoptError as err:
        raise option_error("cmp", err) from None
    silent = any(k in ("-s", "--silent", "--quiet") for k, _ in opts)
    if any(k in ("-l", "--verbose") for k, _ in opts):
        return CommandResult.fail(msg.tool_not_simulated("cmp", "-l"), 2)
    if not names:
        return CommandResult.fail("cmp: missing operand after 'cmp'\nTry 'cmp --help' for "
                                  "more information.", 2)
    if len(names) > 2:
        return CommandResult.fail(f"cmp: invalid --ignore-initial value '{names[2]}'\nTry "
                                  "'cmp --help' for more information.", 2)
    first, second = names[0], names[1] if len(names) > 1 else "-"
    contents = []
    for name in (first, second):
        data = _input(session, "cmp", name, stdin_data)
        if isinstance(data, str):
            return CommandResult(stderr="" if silent else data, status=2)
        contents.append(data)
    a, b = contents
    line, offset = 1, 0
    shortest = min(a.size, b.size)
    if shortest > READ_LIMIT:
        return CommandResult.fail(msg.tool_not_simulated(
            "cmp", f"comparing more than {READ_LIMIT} bytes"), 2)
    while offset < shortest:
        length = min(CHUNK, shortest - offset)
        left, right = model.read(a, offset, length), model.read(b, offset, length)
        if left != right:
            index = next(i for i in range(length) if left[i] != right[i])
            line += left[:index].count(b"\n")
            if silent:
                return CommandResult(status=1)
            # "char" in the POSIX locale the recordings run in (LC_ALL=C; "byte" elsewhere)
            return CommandResult(stdout=f"{first} {second} differ: char {offset + index + 1}, "
                                 f"line {line}\n", status=1)
        line += left.count(b"\n")
        offset += length
    if a.size == b.size:
        return CommandResult()
    shorter = first if a.size < b.size else second
    if silent:
        return CommandResult(status=1)
    return CommandResult(stderr=f"cmp: EOF on {shorter} after byte {shortest}, line {line}\n",
                         status=1)


@command("touch")
def touch(session: Session, argv: list[str]) -> CommandResult:
    """touch [-c] FILE...: an empty file, or the file's time set to now."""
    try:
        opts, names = getopt.gnu_getopt(argv[1:], "cam", ["no-create"])
    except getopt.GetoptError as err:
        raise option_error("touch", err) from None
    if not names:
        raise _usage("touch", "missing file operand")
    no_create = any(k in ("-c", "--no-create") for k, _ in opts)
    errors = []
    for name in names:
        path = session.absolute(name)
        hit = fs.mounted_dataset(session, path)
        if fs.is_dir(session, path):
            continue
        if hit is not None and hit.name:
            file = hit.dataset.files.get(hit.name)
            if file is None and not no_create:
                # A new empty file: its dnode and directory entry (labsim.zfs.objset).
                write_file(hit.pool, hit.dataset, hit.name, 0, "zero")
                file = hit.dataset.files[hit.name]
            if file is not None:
                file.mtime = session.clock
        elif path in session.host_files:
            session.host_files[path] = replace(session.host_files[path], mtime=session.clock)
        elif not fs.parent_exists(session, path):
            errors.append(f"touch: cannot touch '{name}': No such file or directory\n")
        elif not no_create:
            session.host_files[path] = HostFile(0, session.clock, "", allocated=0)
    return CommandResult(stderr="".join(errors), status=1 if errors else 0)


@command("stat")
def stat(session: Session, argv: list[str]) -> CommandResult:
    """stat -c FORMAT FILE...: %s (size), %n (name), %F (type); the other directives and the
    default long form are not simulated."""
    try:
        opts, names = getopt.gnu_getopt(argv[1:], "c:", ["format=", "printf="])
    except getopt.GetoptError as err:
        raise option_error("stat", err) from None
    form = next((v for k, v in opts if k in ("-c", "--format")), None)
    if form is None:
        return CommandResult.fail(msg.tool_not_simulated(
            "stat", "stat without -c (its inode numbers and times)")
            + "; or try stat -c '%s %n'", 1)
    if not names:
        raise _usage("stat", "missing operand")
    out, errors = [], []
    for name in names:
        path = session.absolute(name)
        if not fs.exists(session, path):
            errors.append(f"stat: cannot statx '{name}': No such file or directory\n")
            continue
        directory = fs.is_dir(session, path)
        data = None if directory else read_file(session, name)
        hit = fs.mounted_dataset(session, path)
        if directory and hit is not None:
            # a ZFS directory's size is its entries and two (zfs_mknode, zfs_link_create)
            size = 2 + len(fs.entries(session, path))
        else:
            size = 4096 if directory else (data.size if data is not None else 0)
        kind = "directory" if directory else ("regular empty file" if not size
                                              else "regular file")
        text, i = [], 0
        while i < len(form):
            if form[i] == "%" and i + 1 < len(form):
                code = form[i + 1]
                value = {"s": str(size), "n": name, "F": kind, "%": "%"}.get(code)
                if value is None:
                    return CommandResult.fail(msg.tool_not_simulated(
                        "stat", f"the directive %{code}"), 1)
                text.append(value)
                i += 2
            else:
                text.append(form[i])
                i += 1
        out.append("".join(text) + "\n")
    return CommandResult(stdout="".join(out), stderr="".join(errors), status=1 if errors else 0)


# OpenZFS's zfs_fallocate_reserve_percent (module/os/linux/zfs/zpl_file.c, 2.1 to 2.3): a
# preallocation must fit in the available space shrunk by this much.
FALLOCATE_RESERVE_PERCENT = 110


@command("fallocate")
def fallocate(session: Session, argv: list[str]) -> CommandResult:
    """fallocate [-n] [-o OFFSET] -l LENGTH FILE (util-linux 2.38). On a host file the file
    grows to OFFSET+LENGTH. In a dataset, OpenZFS's zpl_fallocate_common() (2.3.9) refuses
    with ENOSPC a length beyond f_bavail * (f_bsize * 100 / 110), f_bsize being the dataset's
    recordsize (zfs_statvfs), and otherwise only sets the size, allocating nothing."""
    from labsim.shell.units import parse_coreutils_size
    from labsim.zfs.pool import property_value
    from labsim.zfs.space import dataset_available

    try:
        opts, names = getopt.gnu_getopt(argv[1:], "l:o:nxpzd", ["length=", "offset=",
                                                                 "keep-size", "posix"])
    except getopt.GetoptError as err:
        raise option_error("fallocate", err) from None
    flags = {k for k, _ in opts}
    if flags & {"-p", "-z", "-d"}:
        return CommandResult.fail(msg.notice("fallocate: -p, -z and -d", plural=True), 1)
    length_arg = next((v for k, v in opts if k in ("-l", "--length")), None)
    offset_arg = next((v for k, v in opts if k in ("-o", "--offset")), "0")
    if not names:
        return CommandResult.fail("fallocate: no filename specified\nTry 'fallocate --help' "
                                  "for more information.", 1)
    length = parse_coreutils_size(length_arg) if length_arg is not None else None
    offset = parse_coreutils_size(offset_arg)
    if length_arg is None:
        return CommandResult.fail("fallocate: no length argument specified", 1)
    if length is None or length <= 0:
        return CommandResult.fail("fallocate: invalid length value specified", 1)
    if offset is None:
        return CommandResult.fail("fallocate: invalid offset value specified", 1)
    name = names[0]
    path = session.absolute(name)
    keep = bool(flags & {"-n", "--keep-size"})
    if fs.is_dir(session, path):
        return CommandResult.fail(f"fallocate: cannot open {name}: Is a directory", 1)
    if not fs.parent_exists(session, path):
        return CommandResult.fail(f"fallocate: cannot open {name}: No such file or directory", 1)
    hit = fs.mounted_dataset(session, path)
    if hit is not None and hit.name:
        available = dataset_available(hit.pool, hit.dataset)
        bsize = int(str(property_value(hit.pool, hit.dataset, "recordsize")[0]))
        bavail = available >> (bsize.bit_length() - 1)
        file = hit.dataset.files.get(hit.name)
        if file is None:
            write_file(hit.pool, hit.dataset, hit.name, 0, "zero")
            file = hit.dataset.files[hit.name]
            file.mtime = session.clock
        if length > bavail * (bsize * 100 // FALLOCATE_RESERVE_PERCENT):
            return CommandResult.fail("fallocate: fallocate failed: No space left on device", 1)
        if not keep and offset + length > file.size:
            file.size, file.mtime = offset + length, session.clock
        return CommandResult()
    old = session.host_files.get(path)
    size = max(old.size if old is not None else 0, 0 if keep else offset + length)
    if old is None:
        session.host_files[path] = HostFile(size, session.clock, data=model.zeros(size),
                                            allocated=written_whole(size))
    elif size != old.size:
        from labsim.shell import streams

        data = model.resize(streams.host_content(old), size)
        session.host_files[path] = replace(old, size=size, mtime=session.clock, text=None,
                                           data=data, allocated=appended(old, size))
    return CommandResult()
