"""The CI box (vagrant/build-ci-box.sh) as Incus images: the learners get the machine CI tests.

The box is a tar of ``box.img`` (qcow2 of one ext4 file system, no partition table, no boot
loader: the Vagrantfile boots the ``vmlinuz``/``initrd.img`` stored beside it) and
``metadata.json``. From it:

* a **VM image** (:func:`import_vm_image`): ``box.img`` as is, with Incus metadata
  (``incus image import metadata.tar.gz box.img``). Incus boots VMs with UEFI firmware, so
  this image boots only with the box's kernel given on QEMU's command line
  (:func:`vm_boot_config`);
* a **container image** (:func:`build_container_image`): the same root file system, copied
  out of the qcow2 (``qemu-img convert`` to raw, mounted read-only through a loop device),
  changed by ``container-setup.sh`` in a chroot (what differs between a VM and a container:
  no /dev/vda, no kernel modules, wireguard-go, a learner account, JupyterLab enabled), packed
  as squashfs with Incus metadata whose templates write each instance's host name.

Images are named after the box's cache key and this recipe's hash, so a second ``workshop up``
reuses them (``workshop down --images`` removes them). Needs root (loop mount, chroot).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from workshop.incus import Incus

HERE = Path(__file__).resolve().parent
SETUP_SCRIPT = HERE / "container-setup.sh"
BOX_CACHE = Path.home() / ".cache" / "zfs-field-labs" / "boxes"
IMAGE_PREFIX = "zfl-workshop-"
# Left out of the container's root: the guest kernel, its modules and headers (the host's
# kernel runs a container), device nodes (LXC makes /dev).
CONTAINER_EXCLUDES = ("./boot", "./usr/lib/modules", "./usr/src", "./vmlinuz*",
                      "./initrd.img*", "./dev/*", "./lost+found")
# The box's kernel command line (vagrant/Vagrantfile KERNEL_CMDLINE).
KERNEL_CMDLINE = "root=/dev/vda rw console=ttyS0,115200 net.ifnames=0"
# Bump when metadata_yaml() changes what the container image holds.
METADATA_VERSION = 1


@dataclass(frozen=True)
class Box:
    """A CI box in the cache: ``DIR/KEY.box`` with ``vmlinuz`` and ``initrd.img`` beside it."""

    path: Path

    @property
    def key(self) -> str:
        return self.path.name.removesuffix(".box")

    @property
    def kernel(self) -> Path:
        return self.path.parent / "vmlinuz"

    @property
    def initrd(self) -> Path:
        return self.path.parent / "initrd.img"

    @property
    def release(self) -> str:
        """Debian's code name, from the key (zfl-ci-debian13-... is trixie)."""
        return "bookworm" if self.key.startswith("zfl-ci-debian12-") else "trixie"


def find_box(cache: Path = BOX_CACHE, debian: str = "13") -> Box:
    """The newest cached CI box of Debian ``debian`` (13: OpenZFS 2.3, what CI boots)."""
    boxes = sorted(cache.glob(f"zfl-ci-debian{debian}-*/zfl-ci-debian{debian}-*.box"),
                   key=lambda p: p.stat().st_mtime, reverse=True)
    if not boxes:
        raise FileNotFoundError(f"no CI box in {cache}: build it with `make vm-box` "
                                "(vagrant/build-ci-box.sh), or give --box")
    return Box(boxes[0])


def recipe_hash() -> str:
    """What the container image is made of besides the box: the setup script, what is left
    out of the copy, and the metadata templates."""
    digest = hashlib.sha256(SETUP_SCRIPT.read_bytes())
    digest.update(json.dumps([CONTAINER_EXCLUDES, TEMPLATES, METADATA_VERSION]).encode())
    return digest.hexdigest()[:8]


def image_alias(box: Box, kind: str) -> str:
    """``zfl-workshop-ct-<box hash>-<recipe hash>`` (kind "ct") or ``...-vm-<box hash>``."""
    box_hash = hashlib.sha256(box.key.encode()).hexdigest()[:10]
    if kind == "vm":
        return f"{IMAGE_PREFIX}vm-{box_hash}"
    return f"{IMAGE_PREFIX}ct-{box_hash}-{recipe_hash()}"


def metadata_yaml(box: Box, kind: str, created: int) -> str:
    """Incus image metadata (JSON is YAML). The container's templates give every instance its
    own host name; a VM has no agent in this image to apply them."""
    meta: dict = {
        "architecture": "x86_64",
        "creation_date": created,
        "properties": {
            "description": f"ZFS Field Labs learner {'VM' if kind == 'vm' else 'container'}"
                           f" ({box.key})",
            "os": "debian", "release": box.release, "zfl.box": box.key,
        },
    }
    if kind == "ct":
        meta["templates"] = {
            "/etc/hostname": {"when": ["create", "copy"], "template": "hostname.tpl"},
            "/etc/hosts": {"when": ["create", "copy"], "template": "hosts.tpl"},
        }
    return json.dumps(meta, indent=2) + "\n"


TEMPLATES = {
    "hostname.tpl": "{{ instance.name }}\n",
    "hosts.tpl": "127.0.0.1 localhost\n127.0.1.1 {{ instance.name }}\n"
                 "::1 localhost ip6-localhost ip6-loopback\n",
}


def write_metadata_tar(path: Path, box: Box, kind: str, created: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "metadata.yaml").write_text(metadata_yaml(box, kind, created))
        members = ["metadata.yaml"]
        if kind == "ct":
            (root / "templates").mkdir()
            for name, text in TEMPLATES.items():
                (root / "templates" / name).write_text(text)
            members.append("templates")
        with tarfile.open(path, "w:gz") as tar:
            for name in members:
                tar.add(root / name, arcname=name)


def vm_boot_config(box: Box) -> dict[str, str]:
    """Instance configuration that boots the box in an Incus VM: the box has no boot loader
    (direct kernel boot, like its Vagrantfile), so QEMU gets the kernel and initrd; Incus then
    starts the VM without its UEFI firmware."""
    return {
        "raw.qemu": f"-kernel {box.kernel} -initrd {box.initrd} -append '{KERNEL_CMDLINE}'",
        "security.secureboot": "false",
    }


def _run(*cmd: str) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {(done.stderr or done.stdout).strip()}")


def has_image(incus: Incus, alias: str) -> bool:
    return any(a.get("name") == alias for image in incus.list_json("image")
               for a in image.get("aliases") or [])


def _extract_disk(box: Box, work: Path) -> Path:
    with tarfile.open(box.path) as tar:
        member = tar.getmember("box.img")
        tar.extract(member, work, filter="data")
    return work / "box.img"


def import_vm_image(incus: Incus, box: Box, log=print) -> str:
    """The box's qcow2 as an Incus VM image (cached by alias); its alias."""
    alias = image_alias(box, "vm")
    if has_image(incus, alias):
        return alias
    with tempfile.TemporaryDirectory(dir="/var/tmp", prefix="zfl-workshop-") as tmp:
        work = Path(tmp)
        disk = _extract_disk(box, work)
        write_metadata_tar(work / "metadata.tar.gz", box, "vm", int(time.time()))
        log(f"importing VM image {alias} from {box.path.name}")
        incus.run("image", "import", str(work / "metadata.tar.gz"), str(disk),
                  "--alias", alias)
    return alias


@contextlib.contextmanager
def _mounted(raw: Path, mountpoint: Path, options: str = "loop,ro") -> Iterator[Path]:
    mountpoint.mkdir(parents=True, exist_ok=True)
    _run("mount", "-o", options, str(raw), str(mountpoint))
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", str(mountpoint)], check=False)


def _chroot_setup(rootfs: Path) -> None:
    """container-setup.sh in the copy, with the host's /dev and /proc and name servers."""
    resolv = rootfs / "etc" / "resolv.conf"
    saved = resolv.read_bytes() if resolv.is_file() and not resolv.is_symlink() else None
    if resolv.is_symlink():
        resolv.unlink()
    resolv.write_bytes(Path("/etc/resolv.conf").read_bytes())
    shutil.copy(SETUP_SCRIPT, rootfs / "tmp" / "zfl-container-setup.sh")
    mounts = []
    try:
        for name, fstype in (("proc", "proc"), ("dev", None)):
            target = rootfs / name
            if fstype:
                _run("mount", "-t", fstype, fstype, str(target))
            else:
                _run("mount", "--bind", f"/{name}", str(target))
            mounts.append(target)
        _run("chroot", str(rootfs), "/bin/bash", "/tmp/zfl-container-setup.sh")
    finally:
        for target in reversed(mounts):
            subprocess.run(["umount", "-l", str(target)], check=False)
        (rootfs / "tmp" / "zfl-container-setup.sh").unlink(missing_ok=True)
        if saved is None:
            resolv.unlink(missing_ok=True)
        else:
            resolv.write_bytes(saved)


def build_container_image(incus: Incus, box: Box, log=print) -> str:
    """The box's root file system as an Incus system container image (cached by alias)."""
    alias = image_alias(box, "ct")
    if has_image(incus, alias):
        return alias
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(dir="/var/tmp", prefix="zfl-workshop-") as tmp:
        work = Path(tmp)
        log(f"building container image {alias} from {box.path.name}")
        disk = _extract_disk(box, work)
        raw = work / "root.raw"
        _run("qemu-img", "convert", "-O", "raw", str(disk), str(raw))
        disk.unlink()
        rootfs = work / "rootfs"
        rootfs.mkdir()
        with _mounted(raw, work / "mnt") as mnt:
            excludes = [f"--exclude={pattern}" for pattern in CONTAINER_EXCLUDES]
            _run("sh", "-c", f"tar -C {mnt} {' '.join(excludes)} --xattrs --numeric-owner "
                             f"-cf - . | tar -C {rootfs} --xattrs --numeric-owner -xf -")
        raw.unlink()
        log("  root file system copied; container-setup.sh in a chroot (apt: wireguard-go)")
        _chroot_setup(rootfs)
        squash = work / "rootfs.squashfs"
        _run("mksquashfs", str(rootfs), str(squash), "-comp", "zstd", "-Xcompression-level", "3",
             "-noappend", "-quiet", "-no-progress")
        shutil.rmtree(rootfs)
        write_metadata_tar(work / "metadata.tar.gz", box, "ct", int(time.time()))
        incus.run("image", "import", str(work / "metadata.tar.gz"), str(squash),
                  "--alias", alias)
    log(f"  container image {alias} ready in {time.monotonic() - t0:.0f} s")
    return alias


def workshop_images(incus: Incus) -> list[str]:
    """Fingerprints of the images this package made (alias starting with IMAGE_PREFIX)."""
    return [image["fingerprint"] for image in incus.list_json("image")
            if any(a.get("name", "").startswith(IMAGE_PREFIX)
                   for a in image.get("aliases") or [])]
