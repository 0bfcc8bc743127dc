"""``python3 tools/workshop COMMAND``: learner environments for a workshop, with Incus.

    up N        make N learner environments and print how each learner reaches theirs
    down        remove everything ``up`` made (--images: the images too)
    status      each environment's memory (cgroup and resident sets)
    image       build (or find) the images from the CI box; --vm: try an Incus VM too
    k8s         print the Kubernetes manifests (Educates with KubeVirt) for the workshop

Run as root on the Incus host (the image is built from the CI box with a loop mount and a
chroot). See docs/workshop-environments.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import secrets
import sys
from pathlib import Path

from workshop import engine, k8s, plan
from workshop import image as images
from workshop.incus import Incus, IncusError, drivers, usable


def _box(args: argparse.Namespace) -> images.Box:
    return images.Box(Path(args.box).resolve()) if args.box else images.find_box()


def _settings(args: argparse.Namespace) -> plan.Settings:
    """The Settings the command line gives (the rest: plan.Settings's defaults)."""
    names = {field.name for field in dataclasses.fields(plan.Settings)}
    values = {name: value for name, value in vars(args).items() if name in names}
    values["key"] = values["key"] or secrets.token_urlsafe(24)
    return plan.Settings(**values)


def cmd_up(args: argparse.Namespace, incus: Incus) -> int:
    settings = _settings(args)
    result = engine.up(incus, settings, _box(args), secret=lambda: secrets.token_urlsafe(12))
    print(f"\nworkshop {settings.workshop}: {len(result.learners)} learner environments up in "
          f"{result.seconds:.0f} s (image {result.image})")
    print(f"report URL {settings.report_url}, workshop key {settings.key}\n")
    for learner in result.learners:
        print(plan.access_text(settings, learner))
    return 0


def cmd_down(args: argparse.Namespace, incus: Incus) -> int:
    removed = engine.down(incus, args.workshop, remove_images=args.images)
    print(f"workshop {args.workshop}: removed {len(removed)} things" if removed
          else f"workshop {args.workshop}: nothing to remove")
    return 0


def cmd_status(args: argparse.Namespace, incus: Incus) -> int:
    rows = engine.usage(incus, args.workshop)
    if not rows:
        print(f"workshop {args.workshop}: no environments")
        return 0
    print(f"{'instance':<14} {'pseudonym':<18} {'cgroup MiB':>10} {'PSS MiB':>8} "
          f"{'RSS MiB':>8} {'procs':>6}")
    for row in rows:
        print(f"{row.instance:<14} {row.pseudonym:<18} {row.cgroup_bytes / 2**20:>10.1f} "
              f"{row.pss_bytes / 2**20:>8.1f} {row.rss_bytes / 2**20:>8.1f} {row.processes:>6}")
    return 0


def cmd_image(args: argparse.Namespace, incus: Incus) -> int:
    box = _box(args)
    print(images.build_container_image(incus, box))
    if args.vm:
        alias = images.import_vm_image(incus, box)
        print(alias)
        if "qemu" not in drivers(incus):
            print("this Incus cannot run VMs (its drivers: "
                  f"{', '.join(drivers(incus))}); trying anyway for the exact error:")
        name = "zfl-vm-probe"
        try:
            incus.run("init", alias, name, "--vm", "--no-profiles", "-s", args.storage_pool,
                      "-c", f"{plan.WORKSHOP_KEY}={args.workshop}",
                      *[a for k, v in images.vm_boot_config(box).items()
                        for a in ("-c", f"{k}={v}")])
            incus.run("start", name)
            print(f"VM {name} started: incus console {name} (`workshop down` removes it)")
        except IncusError as err:
            print(f"VM: {err}")
            return 1
    return 0


def cmd_k8s(args: argparse.Namespace, incus: Incus | None) -> int:
    sys.stdout.write(k8s.render(_settings(args), container_disk=args.container_disk,
                                kernel_image=args.kernel_image))
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="workshop", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--workshop", default=plan.Settings.workshop,
                        help=f"the workshop's name (default {plan.Settings.workshop})")
    sub = p.add_subparsers(dest="command", required=True)
    d = plan.Settings   # the defaults

    def learner_options(s: argparse.ArgumentParser) -> None:
        s.add_argument("count", type=int, help="number of learners")
        s.add_argument("--report-url", required=True,
                       help="the instructor server's URL as the learners reach it")
        s.add_argument("--key", default="", help="the workshop key (default: a new random one)")
        s.add_argument("--seed", type=int, default=0, help="seed of the pseudonyms")
        s.add_argument("--instructor-workshop", default="",
                       help="the workshop's id on the instructor server (`python -m "
                       "instructor create ID`; default: --workshop)")

    up = sub.add_parser("up", parents=[common], help="make N learner environments")
    learner_options(up)
    up.add_argument("--box", help="CI box (default: the newest Debian 13 one in the cache)")
    up.add_argument("--subnet", default=d.subnet, help=f"the bridge's address ({d.subnet})")
    up.add_argument("--nat", action="store_true", help="let the learners reach the internet")
    up.add_argument("--listen", default=d.listen,
                    help="host address of the SSH and JupyterLab ports (0.0.0.0: all)")
    up.add_argument("--public-host", default=d.public_host,
                    help="the host name learners connect to (default: --listen)")
    up.add_argument("--ssh-base", type=int, default=d.ssh_base,
                    help=f"learner i's SSH port: base + i (base {d.ssh_base})")
    up.add_argument("--jupyter-base", type=int, default=d.jupyter_base,
                    help=f"learner i's JupyterLab port: base + i (base {d.jupyter_base})")
    up.add_argument("--memory", default=d.memory, help=f"memory limit per learner ({d.memory})")
    up.add_argument("--cpus", default=d.cpus, help="CPU limit per learner (default none)")
    up.add_argument("--storage-pool", default=d.storage_pool)

    down = sub.add_parser("down", parents=[common], help="remove the workshop's environments")
    down.add_argument("--images", action="store_true",
                      help="also remove the images built from the CI box")
    sub.add_parser("status", parents=[common], help="memory of each environment")
    img = sub.add_parser("image", parents=[common], help="build the images from the CI box")
    img.add_argument("--box")
    img.add_argument("--vm", action="store_true", help="also import the VM image and boot it")
    img.add_argument("--storage-pool", default=d.storage_pool)
    kube = sub.add_parser("k8s", parents=[common],
                          help="print the Kubernetes manifests (Educates + KubeVirt)")
    learner_options(kube)
    kube.add_argument("--container-disk", default=k8s.DEFAULT_CONTAINER_DISK,
                      help="the KubeVirt containerDisk image holding the CI box's qcow2")
    kube.add_argument("--kernel-image", default=k8s.DEFAULT_KERNEL_IMAGE,
                      help="the container image with the box's /boot/vmlinuz, initrd.img")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.command == "k8s":
            return cmd_k8s(args, None)
        ok, why = usable()
        if not ok:
            print(f"workshop: Incus is not usable here: {why}", file=sys.stderr)
            return 2
        incus = Incus()
        return {"up": cmd_up, "down": cmd_down, "status": cmd_status,
                "image": cmd_image}[args.command](args, incus)
    except (IncusError, engine.WorkshopError, ValueError, FileNotFoundError,
            RuntimeError) as err:
        print(f"workshop: {err}", file=sys.stderr)
        return 1
