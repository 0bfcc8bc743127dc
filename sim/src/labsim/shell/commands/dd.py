"""dd: the lessons' way of writing data. Reads /dev/zero or /dev/urandom, writes a file.

Semantics follow GNU dd: output is truncated unless conv=notrunc; seek= skips that many
output blocks first; without count= it copies until the input ends (never, for
/dev/zero) or the output fills up; the summary goes to stderr; a short write followed by
an error counts the bytes but not the record.

Writing into the backing file of a vdev of an imported pool goes around ZFS: the pool
does not notice until it reads the blocks there and their checksums fail
(labsim.zfs.scan.damage_leaf records the byte range).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.content import model
from labsim.content.model import Content
from labsim.format import coreutils as fmt
from labsim.shell import fs, streams, udev, vdev_labels
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, HostFile, UsageError
from labsim.shell.registry import command
from labsim.shell.units import parse_dd_number
from labsim.shell.zil_writes import Durability, log_writes
from labsim.zfs import labels, scan, zvols
from labsim.zfs.errors import NoSpace
from labsim.zfs.overwrite import can_overwrite_in_place, overwrite_range
from labsim.zfs.pool import file_content, property_value
from labsim.zfs.write_path import write_file

if TYPE_CHECKING:
    from labsim.shell.session import Session

SOURCES = {"/dev/zero": "zero", "/dev/urandom": "random", "/dev/random": "random"}
# Throughput of the simulated machine, bytes per second, for dd's timing line.
WRITE_RATE = {"zero": 900e6, "random": 250e6}
HOST_FREE_BYTES = 40 << 30


@command("dd")
def main(session: Session, argv: list[str]) -> CommandResult:
    operands = _parse(argv[1:])
    bs = _number(operands.get("bs", "512"))
    if bs == 0:
        raise UsageError("dd: invalid number: '0'", 1)
    count = _number(operands["count"]) if "count" in operands else None
    source = operands.get("if")
    target = operands.get("of")
    if source is None or target is None:
        return CommandResult.fail(msg.command_line_not_simulated("dd", argv)
                                  + " (labsim's dd reads if=/dev/zero, if=/dev/urandom or a "
                                  "dataset's file and writes of=FILE)")
    content = SOURCES.get(source)
    if content is None and fs.mounted_dataset(session, session.absolute(source)) is not None:
        return _read_pool_file(session, source, target, bs, operands)
    if content is None:
        return CommandResult.fail(f"dd: failed to open '{source}': No such file or directory")
    path = session.absolute(target)
    if not fs.parent_exists(session, path):
        return CommandResult.fail(f"dd: failed to open '{target}': No such file or directory")

    wanted = bs * count if count is not None else None
    hit = fs.mounted_dataset(session, path)
    error = ""
    if hit is not None and hit.name:
        size = wanted if wanted is not None else 1 << 62
        start = bs * _number(operands.get("seek", "0"))
        notrunc = "notrunc" in operands.get("conv", "").split(",")
        existing = hit.dataset.files.get(hit.name)
        device_end = _volume_end(hit)
        if device_end is not None:
            # A zvol is a block device: O_TRUNC means nothing to it, so what dd does not
            # overwrite keeps its blocks; and it ends at volsize: Linux's
            # blkdev_write_iter() (block/fops.c) shortens a write that crosses the end
            # and fails the next with ENOSPC.
            notrunc = True
            if start > device_end:  # lseek() past a block device's end: not modelled
                return CommandResult.fail(msg.command_line_not_simulated("dd", argv)
                                          + " (a seek past the end of a volume)")
            if existing is not None and not (existing.plan or existing.runs):
                existing = None  # never written: all holes, nothing to keep
            if start + size > device_end:
                size = max(0, device_end - start)
                error = fmt.dd_write_error(target)
        data: str | Content = content
        if start or (notrunc and existing is not None):
            # The file is what it held up to the seek offset (all of it with
            # conv=notrunc), with the new bytes written from there.
            stream: model.Source = model.Zeros() if content == "zero" else \
                model.RandomBytes(streams.seed_for(session, path))
            before = file_content(existing) if existing is not None else Content()
            if not notrunc:
                before = model.window(before, 0, start)
            data = model.write_at(before, start, model.of_source(stream, size))
        try:
            total = data.size if isinstance(data, Content) else size
            if device_end is not None and start == device_end and wanted != 0:
                # At the end of the device: the first write fails (ENOSPC).
                raise NoSpace(0)
            if (isinstance(data, Content) and notrunc and wanted is not None
                    and can_overwrite_in_place(existing, start + size)):
                # Only the records the range touches are written anew (labsim.zfs.overwrite).
                overwrite_range(hit.pool, hit.dataset, hit.name, start, size, data)
            else:
                written = write_file(hit.pool, hit.dataset, hit.name, total, data)
            if isinstance(data, Content):
                written = size
        except NoSpace as full:
            written = full.written if not isinstance(data, Content) \
                else max(0, full.written - start)
            error = fmt.dd_write_error(target)
        if hit.name in hit.dataset.files:
            hit.dataset.files[hit.name].mtime = session.clock
        if device_end is not None:  # closing the device sends udev to probe it
            udev.volume_closed(session, hit.dataset.name)
        flags = operands.get("oflag", "").split(",")
        conv = operands.get("conv", "").split(",")
        session.clock += log_writes(
            session, hit.pool, hit.dataset, hit.name, written, bs, data,
            Durability(o_sync="sync" in flags or "dsync" in flags,
                       end_fsync="fsync" in conv or "fdatasync" in conv))
    elif hit is not None:
        return CommandResult.fail(f"dd: failed to open '{target}': Is a directory")
    else:
        written = wanted if wanted is not None else HOST_FREE_BYTES
        if wanted is None or wanted > HOST_FREE_BYTES:
            written, error = HOST_FREE_BYTES, fmt.dd_write_error(target)
        start = bs * _number(operands.get("seek", "0"))
        old = session.host_files.get(path)
        notrunc = "notrunc" in operands.get("conv", "").split(",")
        size = max(old.size, start + written) if old is not None and notrunc else start + written
        # The file may belong to an imported pool or to one exported (a learner damaging
        # a device while nothing has it open, as ZFS-8000 walkthroughs do): an exported
        # pool's file is known by its label, whatever its name now.
        leaf = vdev_labels.owning_leaf(session, path)
        if leaf is not None:
            scan.damage_leaf(leaf, start, written)
        copies = () if old is None else old.labels
        if not notrunc:  # opened with O_TRUNC, then cut at the seek offset (GNU dd)
            copies = labels.truncated(copies, start)
        copies = labels.overwrite(copies, start, start + written)
        session.host_files[path] = HostFile(size, session.clock, labels=copies)

    full_out, tail = divmod(written, bs)
    if error:  # the record that hit ENOSPC was read in full but not written in full
        records_in, partial_in, partial_out = full_out + 1, 0, 0
    else:
        records_in, partial_in = full_out, int(tail > 0)
        partial_out = partial_in
    seconds = max(written / WRITE_RATE[content], 2e-5)
    session.clock += seconds
    summary = fmt.dd_summary(records_in, partial_in, full_out, partial_out, written, seconds)
    if operands.get("status") == "none":  # GNU dd: no transfer statistics, errors only
        summary = ""
    return CommandResult(stderr=error + summary, status=1 if error else 0)


def _volume_end(hit: fs.PoolPath) -> int | None:
    """The size of the volume whose device ``hit`` is (None for a file)."""
    if hit.name != zvols.VOLUME_OBJECT or not zvols.is_volume(hit.dataset):
        return None
    return int(str(property_value(hit.pool, hit.dataset, "volsize")[0]))


# GNU dd's operands and the symbols of conv=, iflag=, oflag= and status= (coreutils 9.7's
# dd.c tables; count_bytes, skip_bytes and seek_bytes are still accepted, no longer
# documented), and what labsim models of them: others are real, and said not simulated.
OPERANDS = ("if", "of", "bs", "count", "conv", "status", "oflag", "iflag", "seek", "skip",
            "ibs", "obs", "cbs")
SYMBOLS = {
    "conv": ("ascii", "ebcdic", "ibm", "block", "unblock", "lcase", "ucase", "sparse", "swab",
             "sync", "excl", "nocreat", "notrunc", "noerror", "fdatasync", "fsync"),
    "iflag": ("append", "direct", "directory", "dsync", "sync", "fullblock", "nonblock",
              "noatime", "nocache", "noctty", "nofollow", "count_bytes", "skip_bytes"),
    "oflag": ("append", "direct", "directory", "dsync", "sync", "nonblock", "noatime",
              "nocache", "noctty", "nofollow", "seek_bytes"),
    "status": ("none", "noxfer", "progress"),
}
# dd.c's complaint for a symbol it does not know.
INVALID = {"conv": "invalid conversion", "iflag": "invalid input flag",
           "oflag": "invalid output flag", "status": "invalid status level"}
# Reads of /dev/zero and /dev/urandom are always whole blocks (fullblock changes nothing);
# a transfer here is too quick for progress lines.
MODELLED = {"conv": {"notrunc", "fsync", "fdatasync"}, "iflag": {"fullblock"},
            "oflag": {"sync", "dsync", "direct"}, "status": {"none", "progress"}}
MODELLED_OPERANDS = {"if", "of", "bs", "count", "conv", "status", "oflag", "iflag", "seek",
                     "skip"}


def _parse(args: list[str]) -> dict[str, str]:
    operands = {}
    for arg in args:
        key, sep, value = arg.partition("=")
        if not sep or key not in OPERANDS:
            raise UsageError(f"dd: unrecognized operand '{arg}'\n"
                             "Try 'dd --help' for more information.", 1)
        operands[key] = value
    for key, value in operands.items():
        if key not in MODELLED_OPERANDS:
            raise UsageError(msg.notice(f"dd operand {key}="), 1)
        if key not in SYMBOLS:
            continue
        # status= takes one level; the others a comma-separated list.
        for symbol in [value] if key == "status" else value.split(","):
            if symbol not in SYMBOLS[key]:
                raise UsageError(f"dd: {INVALID[key]}: '{symbol}'\n"
                                 "Try 'dd --help' for more information.", 1)
            if symbol not in MODELLED[key]:
                raise UsageError(msg.notice(f"dd {key}={symbol}"), 1)
    return operands


def _number(text: str) -> int:
    value = parse_dd_number(text)
    if value is None:
        raise UsageError(f"dd: invalid number: '{text}'", 1)
    return value


def _read_pool_file(session: Session, source: str, target: str, bs: int,
                    operands: dict[str, str]) -> CommandResult:
    """dd if=FILE-IN-A-DATASET of=/dev/null (or a host file): the read fails with EIO at
    the first block no copy of which is good (lesson 8), after the whole records before
    it; GNU dd then reports "error reading" and its summary, and exits 1."""
    hit = fs.mounted_dataset(session, session.absolute(source))
    assert hit is not None
    file = hit.dataset.files.get(hit.name)
    if file is None:
        return CommandResult.fail(f"dd: failed to open '{source}': No such file or directory")
    lost = scan.first_unreadable_block(hit.pool, file)
    record = int(str(property_value(hit.pool, hit.dataset, "recordsize")[0]))
    readable = file.size if lost is None else min(file.size, lost * record)
    records = readable // bs  # a read() that takes in a bad block fails whole
    nbytes = file.size if lost is None else records * bs
    full, tail = divmod(nbytes, bs)
    partial = int(tail > 0)
    path = session.absolute(target)
    if path != "/dev/null":
        session.host_files[path] = HostFile(nbytes, session.clock)
    seconds = max(nbytes / WRITE_RATE["random"], 2e-5)
    session.clock += seconds
    error = f"dd: error reading '{source}': Input/output error\n" if lost is not None else ""
    summary = fmt.dd_summary(full, partial, full, partial, nbytes, seconds)
    if operands.get("status") == "none":
        summary = ""
    return CommandResult(stderr=error + summary, status=1 if error else 0)
