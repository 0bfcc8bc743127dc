"""fio: one sequential-write job given on the command line, the form the lessons use.

    fio --name=lab4 --filename=/lab4/rs1m/half.bin --rw=write --bs=1M --size=32M \\
        --buffer_compress_percentage=50 --buffer_compress_chunk=4k --refill_buffers \\
        --end_fsync=1 --output=/dev/null

What the written data looks like is what matters to ZFS, and it comes from fio's own
buffer filling (io_u.c fill_io_buffer(), lib/rand.c __fill_random_buf_percentage()):
every buffer_compress_chunk bytes hold (100 - P) % fresh random bytes, then zeros
(labsim.zfs.compression.DataPattern). Without buffer_compress_percentage the buffers are
random, with zero_buffers they are zeros. --refill_buffers (new data for every write)
is accepted; LZ4 compresses each record on its own, so reusing a buffer would not change
what it saves. Any other option is refused with a message saying labsim does not model
it, rather than silently ignored.

With --output=/dev/null fio prints nothing; otherwise labsim prints a short summary in
fio's words (the job line, and the group's WRITE line with bandwidth and amount), not
fio's full report of latencies and percentiles.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from labsim.shell import fs, zil_writes
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, HostFile
from labsim.shell.registry import command
from labsim.shell.zil_writes import log_writes
from labsim.zfs import zvols
from labsim.zfs.compression import DataPattern
from labsim.zfs.errors import NoSpace
from labsim.zfs.write_path import write_file

if TYPE_CHECKING:
    from labsim.shell.session import Session

VALUED = {"name", "filename", "rw", "readwrite", "bs", "blocksize", "size",
          "buffer_compress_percentage", "buffer_compress_chunk", "end_fsync", "output",
          "ioengine", "direct", "sync", "fsync", "fdatasync", "io_size", "uri"}
FLAGS = {"refill_buffers", "zero_buffers"}
# I/O engines that just issue write(2)s; how they do it does not change the blocks.
ENGINES = {"psync", "sync", "pvsync", "libaio", "io_uring", "posixaio"}
# Throughput of the simulated machine for fio's summary, bytes per second (dd's rate for
# random data: fio spends its time generating buffers, as dd does reading urandom), and
# the cost of each write() call: in the lab VM, 256 4K writes without any log commit
# (sync=disabled) took 28 ms (lab 5 recording).
WRITE_RATE = 250e6
WRITE_CALL_SECONDS = 1.1e-4
FIO_VERSION = "fio-3.33"  # Debian 12's fio, the one in the lab VM
_SIZE = re.compile(r"^(\d+)([kmgtp]?)(i?b?)$", re.IGNORECASE)


def not_modelled(option: str) -> CommandResult:
    return CommandResult.fail(msg.tool_not_simulated("fio", f"the option {option}"))


def parse_fio_size(text: str) -> int | None:
    """fio's sizes: a number with an optional k/m/g/t/p suffix in powers of 1024 (its
    default kb_base=1024), "4k", "1M", "32MiB"; None if not one."""
    match = _SIZE.match(text.strip())
    if match is None:
        return None
    number, unit, _ = match.groups()
    return int(number) * 1024 ** ("kmgtp".index(unit.lower()) + 1 if unit else 0)


@command("fio")
def main(session: Session, argv: list[str]) -> CommandResult:
    options: dict[str, str] = {}
    flags: set[str] = set()
    for arg in argv[1:]:
        if not arg.startswith("--"):
            return CommandResult.fail(msg.tool_not_simulated("fio", f"a job file ({arg})")
                                      + "; labsim takes the job as --option=value arguments")
        key, eq, value = arg[2:].partition("=")
        if key in FLAGS and not eq:
            flags.add(key)
        elif key in VALUED and eq:
            options[key] = value
        else:
            return not_modelled(arg)
    rw = options.get("rw", options.get("readwrite", "read"))
    if rw not in ("write", "randwrite"):
        return not_modelled(f"--rw={rw}")
    if rw == "randwrite" or "io_size" in options:
        return _random_write(session, options)
    if options.get("ioengine", "psync") not in ENGINES:
        return not_modelled(f"--ioengine={options['ioengine']}")
    name = options.get("name")
    target = options.get("filename")
    if not name or not target:
        return CommandResult.fail(msg.tool_not_simulated(
            "fio", "a job without --name=JOB and --filename=FILE"))
    bs = parse_fio_size(options.get("bs", options.get("blocksize", "4k")))
    size = parse_fio_size(options.get("size", "")) if "size" in options else None
    if not bs or size is None:
        return CommandResult.fail(msg.tool_not_simulated(
            "fio", "a job without --size=N and a valid --bs=N"))
    size -= size % bs  # fio writes whole blocks
    percent = int(options.get("buffer_compress_percentage", "0") or 0)
    chunk = parse_fio_size(options.get("buffer_compress_chunk", "512")) or 512
    if not 0 <= percent <= 100:
        return CommandResult.fail("fio: buffer_compress_percentage: out of range (0..100)")
    if "zero_buffers" in flags:
        pattern = DataPattern("zero")
    elif percent:
        # fill_io_buffer(): each chunk is min(write size, buffer_compress_chunk) bytes
        pattern = DataPattern("fio", percent, min(chunk, bs))
    else:
        pattern = DataPattern("random")

    path = session.absolute(target)
    if path.startswith("/dev/"):
        return CommandResult.fail(msg.tool_not_simulated("fio", f"writing to {path}")
                                  + " (labsim's fio writes regular files)")
    if not fs.parent_exists(session, path):
        return CommandResult.fail(f"fio: pid=0, err=2/file:filesetup.c:0, "
                                  f"func=open(), error=No such file or directory: {target}")
    try:
        durability = _durability(options)
    except ValueError as bad:
        return CommandResult.fail(str(bad))
    hit = fs.mounted_dataset(session, path)
    error = ""
    seconds = 0.0
    # A file that does not exist yet is created and laid out first.
    laid_out = 0 if fs.exists(session, path) else size
    if hit is not None and hit.name:
        try:
            written = write_file(hit.pool, hit.dataset, hit.name, size, pattern)
        except NoSpace as full:
            written = full.written
            error = (f"fio: io_u error on file {target}: No space left on device: "
                     f"write offset={written}, buflen={bs}\n")
        hit.dataset.files[hit.name].mtime = session.clock
        # A new file is laid out first (fio's "Laying out IO file"), then written.
        seconds = log_writes(session, hit.pool, hit.dataset, hit.name, written, bs,
                             pattern, durability, first_record_alone=False)
    elif hit is not None:
        return CommandResult.fail(f"fio: {target} is a directory")
    else:
        written = size
        session.host_files[path] = HostFile(size, session.clock)
    seconds += max(written / WRITE_RATE + -(-written // bs) * WRITE_CALL_SECONDS, 1e-3)
    session.clock += seconds
    if options.get("output") == "/dev/null":
        return CommandResult(stderr=error, status=1 if error else 0)
    return CommandResult(stdout=summary(name, bs, written, seconds, laid_out=laid_out,
                                        engine=options.get("ioengine", "psync")),
                         stderr=error, status=1 if error else 0)


def _durability(options: dict[str, str]) -> zil_writes.Durability:
    """What the job asks for: --sync=1 opens the file O_SYNC (fio also takes "sync",
    "dsync" and "0"); --fsync=N / --fdatasync=N call fsync() or fdatasync() after every
    N writes; --end_fsync=1 once at the end."""
    sync = options.get("sync", "0")
    if sync not in ("0", "1", "sync", "dsync", "none"):
        raise ValueError(f"fio: failed parsing sync={sync}")
    every = 0
    for key in ("fsync", "fdatasync"):
        if key in options:
            if not options[key].isdigit():
                raise ValueError(f"fio: failed parsing {key}={options[key]}")
            every = int(options[key])
    end = options.get("end_fsync", "0")
    if end not in ("0", "1"):
        raise ValueError(f"fio: failed parsing end_fsync={end}")
    return zil_writes.Durability(o_sync=sync in ("1", "sync", "dsync"), fsync_every=every,
                                 end_fsync=end == "1")


def summary(job: str, bs: int, written: int, seconds: float, *, laid_out: int = 0,
            engine: str = "psync") -> str:
    """The main lines of fio's report for one write job: the job line, "Laying out IO
    file" when fio had to create the file (``laid_out`` bytes), the job's write line
    (IOPS and bandwidth) and the group's WRITE line (show_thread_status() and
    show_run_stats() in fio's stat.c), without fio's latency percentiles."""
    block = num2str(bs)
    rate = written / seconds
    msec = max(1, round(seconds * 1000))
    iops = round(written / bs / seconds) if bs else 0
    text = (f"{job}: (g=0): rw=write, bs=(R) {block}-{block}, (W) {block}-{block}, "
            f"(T) {block}-{block}, ioengine={engine}, iodepth=1\n"
            f"{FIO_VERSION}\nStarting 1 process\n")
    if laid_out:
        text += f"{job}: Laying out IO file (1 file / {_layout_size(laid_out)})\n"
    bw = f"{num2str(int(rate))}/s ({num2str(int(rate), pow2=False)}/s)"
    text += (f"\n{job}: (groupid=0, jobs=1): err= 0\n"
             f"  write: IOPS={iops}, BW={bw}({num2str(written)}/{msec}msec); 0 zone resets\n"
             "\nRun status group 0 (all jobs):\n"
             f"  WRITE: bw={bw}, {num2str(int(rate))}/s-{num2str(int(rate))}/s "
             f"({num2str(int(rate), pow2=False)}/s-{num2str(int(rate), pow2=False)}/s), "
             f"io={num2str(written)} ({num2str(written, pow2=False)}), "
             f"run={msec}-{msec}msec\n")
    return text


def num2str(num: int, maxlen: int = 4, pow2: bool = True) -> str:
    """fio's num2str() (lib/num2str.c) for bytes: divide by 1024 (or 1000) until at
    most ``maxlen`` digits are left, then fill the rest of the width with decimals:
    4096 -> "4096B", 65536 -> "64.0KiB", 2 MiB -> "2048KiB", 32 MiB -> "32.0MiB"."""
    thousand = 1024 if pow2 else 1000
    prefixes = ["", "Ki", "Mi", "Gi", "Ti", "Pi"] if pow2 else ["", "k", "M", "G", "T", "P"]
    post, modulo = 0, None
    while len(str(num)) > maxlen and post < len(prefixes) - 1:
        modulo = num % thousand
        num //= thousand
        post += 1
    if modulo is None:
        return f"{num}{prefixes[post]}B"
    decimals = maxlen - len(str(num)) - 1
    if decimals <= 0:
        return f"{num + (modulo >= thousand // 2)}{prefixes[post]}B"
    return f"{num + modulo / thousand:.{decimals}f}{prefixes[post]}B"


def _layout_size(n: int) -> str:
    """The size in "Laying out IO file (1 file / 2MiB)": whole MiB or KiB."""
    if n % (1 << 20) == 0:
        return f"{n >> 20}MiB"
    return f"{n >> 10}KiB" if n % 1024 == 0 else f"{n}B"


def _random_write(session: Session, options: dict[str, str]) -> CommandResult:
    """--rw=randwrite --bs=N --size=REGION [--io_size=BYTES] on an existing file or a
    volume (/dev/zvol/POOL/NAME), as lab 7 runs it: what the pool writes is worked out by
    labsim.zfs.zvols.random_write; only --output=/dev/null is modelled (no report).
    With --ioengine=nbd --uri=nbd+unix:///?socket=PATH the writes go to the qcow2 image
    qemu-nbd serves there (labsim.shell.commands.qemu_nbd)."""
    if options.get("rw") != "randwrite":
        return not_modelled("--io_size with --rw other than randwrite")
    if options.get("output") != "/dev/null":
        return not_modelled("--rw=randwrite without --output=/dev/null")
    for key in ("sync", "fsync", "fdatasync", "end_fsync", "buffer_compress_percentage"):
        if key in options:
            return not_modelled(f"--{key} with --rw=randwrite")
    bs = parse_fio_size(options.get("bs", "4k"))
    region = parse_fio_size(options.get("size", ""))
    io_bytes = parse_fio_size(options.get("io_size", options.get("size", "")))
    if not bs or not region or not io_bytes:
        return CommandResult.fail(msg.tool_not_simulated(
            "fio", "a job without --size=N and a valid --bs=N"))
    if options.get("ioengine") == "nbd":  # into a qcow2 image that qemu-nbd serves
        from labsim.shell.commands import qemu_nbd

        result = qemu_nbd.nbd_random_write(session, options.get("uri", ""), region, bs,
                                           io_bytes)
        session.clock += io_bytes / bs * WRITE_CALL_SECONDS
        return result
    if "uri" in options:
        return not_modelled("--uri without --ioengine=nbd")
    target = options.get("filename", "")
    path = session.absolute(target)
    hit = fs.mounted_dataset(session, path)
    if hit is None or not hit.name or hit.name not in hit.dataset.files:
        return not_modelled(f"--rw=randwrite on {target} (a file that is not there yet "
                            "or not in a dataset; make it first, e.g. with truncate)")
    zvols.random_write(hit.pool, hit.dataset, hit.name, region, bs, io_bytes)
    session.clock += io_bytes / bs * WRITE_CALL_SECONDS
    return CommandResult()
