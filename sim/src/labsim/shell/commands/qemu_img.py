"""qemu-img create -f qcow2 [-o cluster_size=N] FILE SIZE and qemu-img info FILE (QEMU 7.2,
Debian 12's qemu-utils, as the lab VM and the host have it), and `udevadm settle`, the
other tool lab 7 needs (labsim makes a volume's /dev/zvol link at once).

A new qcow2 image is its header cluster, the refcount table's cluster, one refcount
block's cluster and the L1 table, 8 bytes per L2 table the virtual size needs
(qcow2_co_create() in block/qcow2.c): 196624 bytes for 1 GiB with 64 KiB clusters,
6291464 for 48 MiB with 2 MiB clusters (measured with qemu-img 7.2). labsim keeps its
size and that it is a qcow2 image; the bytes are zeros to ZFS (the few header bytes do
not change what a record costs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from labsim.shell import fs, udev
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, HostFile
from labsim.shell.commands.coreutils import zfs_allocated
from labsim.shell.registry import command
from labsim.shell.units import parse_coreutils_size
from labsim.zfs import qcow2
from labsim.zfs.write_path import write_file

if TYPE_CHECKING:
    from labsim.shell.session import Session

L2_ENTRY_BYTES = qcow2.L2_ENTRY_BYTES
OPTIONS = {"cluster_size"}
HOST_BLOCK = 4096


@dataclass(frozen=True)
class Qcow2Image:
    virtual_size: int
    cluster_size: int
    # Whether fio has written into it through qemu-nbd (labsim.shell.commands.qemu_nbd):
    # only a fresh image's first run of writes is modelled.
    written: bool = False

    @property
    def file_size(self) -> int:
        per_l2 = self.cluster_size * (self.cluster_size // L2_ENTRY_BYTES)
        l1_entries = -(-self.virtual_size // per_l2)
        return 3 * self.cluster_size + l1_entries * L2_ENTRY_BYTES


def size_to_str(value: int) -> str:
    """QEMU's size_to_str() (util/cutils.c): "%0.3g %s" with binary suffixes."""
    suffixes = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    amount, index = float(value), 0
    while amount >= 1024 and index < len(suffixes) - 1:
        amount /= 1024
        index += 1
    return f"{amount:0.3g} {suffixes[index]}"


def _images(session: Session) -> dict[str, Qcow2Image]:
    """The qcow2 images of this session, by absolute path."""
    return session.images  # type: ignore[return-value]


@command("qemu-img")
def main(session: Session, argv: list[str]) -> CommandResult:
    if len(argv) < 2 or argv[1] not in ("create", "info"):
        return CommandResult.fail(msg.command_line_not_simulated("qemu-img", argv)
                                  + " (labsim has qemu-img create -f qcow2 and qemu-img info)")
    return (create if argv[1] == "create" else info)(session, argv[2:])


def create(session: Session, args: list[str]) -> CommandResult:
    fmt, options, operands = None, {}, []
    words = iter(args)
    for word in words:
        if word == "-f":
            fmt = next(words, None)
        elif word == "-o":
            for item in (next(words, "") or "").split(","):
                key, _, value = item.partition("=")
                if key not in OPTIONS:
                    return CommandResult.fail(msg.tool_not_simulated("qemu-img",
                                                                     f"the option {key}"))
                options[key] = value
        elif word.startswith("-"):
            return CommandResult.fail(msg.tool_not_simulated("qemu-img", f"create {word}"))
        else:
            operands.append(word)
    if fmt != "qcow2":
        return CommandResult.fail(msg.tool_not_simulated("qemu-img", f"create -f {fmt}")
                                  + " (labsim has create -f qcow2)")
    if not operands:
        return CommandResult.fail("qemu-img: Expecting image file name", 1)
    name = operands[0]
    if len(operands) < 2:
        return CommandResult.fail(f"qemu-img: {name}: Image creation needs a size parameter")
    size = parse_coreutils_size(operands[1])
    cluster = parse_coreutils_size(options.get("cluster_size", "65536"))
    if size is None or cluster is None:
        return CommandResult.fail(msg.tool_not_simulated("qemu-img", f"the size {operands[1]}")
                                  + " (labsim reads N, NK, NM or NG)")
    printed = (f"Formatting '{name}', fmt=qcow2 cluster_size={cluster} extended_l2=off "
               f"compression_type=zlib size={size} lazy_refcounts=off refcount_bits=16\n")
    problem = qcow2.check_cluster_size(cluster)
    if problem:
        return CommandResult(stdout=printed, stderr=f"qemu-img: {name}: {problem}\n", status=1)
    path = session.absolute(name)
    if not fs.parent_exists(session, path):
        return CommandResult(stdout=printed, stderr=(
            f"qemu-img: {name}: Could not create '{name}': No such file or directory\n"),
            status=1)
    image = Qcow2Image(size, cluster)
    hit = fs.mounted_dataset(session, path)
    if hit is not None and hit.name:
        write_file(hit.pool, hit.dataset, hit.name, image.file_size, "zero")
        hit.dataset.files[hit.name].mtime = session.clock
    else:
        session.host_files[path] = HostFile(image.file_size, session.clock)
    _images(session)[path] = image
    return CommandResult(stdout=printed)


def info(session: Session, args: list[str]) -> CommandResult:
    if len(args) != 1:
        return CommandResult.fail(msg.tool_not_simulated("qemu-img", "info " + " ".join(args))
                                  + " (labsim has info FILE)")
    name = args[0]
    path = session.absolute(name)
    image = _images(session).get(path)
    if image is None:
        if fs.exists(session, path):
            return CommandResult.fail(msg.tool_not_simulated(
                "qemu-img", "info of a file not made by qemu-img create"))
        return CommandResult.fail(f"qemu-img: Could not open '{name}': Could not open "
                                  f"'{name}': No such file or directory")
    hit = fs.mounted_dataset(session, path)
    if hit is not None and hit.name in hit.dataset.files:
        disk = zfs_allocated(hit.pool, hit.dataset.files[hit.name])
    else:  # a host file: the host's ext4 allocates it in 4K blocks
        disk = -(-image.file_size // HOST_BLOCK) * HOST_BLOCK
    return CommandResult(stdout=(
        f"image: {name}\nfile format: qcow2\n"
        f"virtual size: {size_to_str(image.virtual_size)} ({image.virtual_size} bytes)\n"
        f"disk size: {size_to_str(disk)}\ncluster_size: {image.cluster_size}\n"
        "Format specific information:\n    compat: 1.1\n    compression type: zlib\n"
        "    lazy refcounts: false\n    refcount bits: 16\n    corrupt: false\n"
        "    extended l2: false\n"))


@command("udevadm")
def udevadm(session: Session, argv: list[str]) -> CommandResult:
    """udevadm settle: waits for udev's queue: the volumes' device links are there and the
    probes udev runs after a writer closes a volume are done (Session.udev_probing)."""
    if argv[1:] == ["settle"]:
        udev.settle(session)
        return CommandResult()
    return CommandResult.fail(msg.command_line_not_simulated("udevadm", argv)
                              + " (labsim has udevadm settle)")
