"""``up`` and ``down`` against Incus, and what each learner's environment uses (``status``).

``up`` makes, in this order: the bridge and the profile ``zfl-<workshop>``, then per learner
an instance from the image (not started), its files (workshop.toml, the JupyterLab drop-in),
the labs/ tree in /labs, its SSH and JupyterLab proxy devices; it starts them all, sets each
learner's password, and waits until each answers ``systemctl is-system-running``. If any of
it fails, ``down`` runs before the error is raised, so a failed ``up`` leaves nothing behind.

``down`` removes every instance, profile and network whose ``user.zfl.workshop`` is the
workshop's (and with ``images=True`` the images this package built). It asks Incus, not a
local state file, so it also cleans up after a crashed ``up``.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from workshop import image as images
from workshop import plan
from workshop.incus import Incus, IncusError

REPO = Path(__file__).resolve().parents[2]
LABS = REPO / "labs"
READY_TIMEOUT = 180.0
# Instances made or removed at the same time.
PARALLEL = 4


class WorkshopError(Exception):
    pass


def workshop_instances(incus: Incus, workshop: str) -> list[str]:
    return [i["name"] for i in incus.list_json("")
            if i.get("config", {}).get(plan.WORKSHOP_KEY) == workshop]


def _push_text(incus: Incus, instance: str, path: str, text: str, mode: str) -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".zfl") as tmp:
        tmp.write(text)
        tmp.flush()
        incus.run("file", "push", "--create-dirs", "--mode", mode, "--uid", "0", "--gid", "0",
                  tmp.name, f"{instance}{path}")


def _push_labs(incus: Incus, instance: str, labs: Path) -> None:
    """labs/ into /labs (the image has an empty /labs), without caches."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "labs"
        shutil.copytree(labs, copy, ignore=shutil.ignore_patterns(
            "__pycache__", ".ipynb_checkpoints", ".pytest_cache"))
        incus.run("file", "push", "-r", str(copy), f"{instance}/")


def _wait_ready(incus: Incus, instance: str, timeout: float) -> str:
    """systemd's own verdict once it has finished starting (running, or degraded)."""
    deadline = time.monotonic() + timeout
    state = ""
    while time.monotonic() < deadline:
        try:
            state = incus.exec(instance, ["systemctl", "is-system-running"], timeout=30)
        except IncusError as err:
            # is-system-running exits non-zero for "starting" and "degraded"
            state = str(err).rsplit(":", 1)[-1]
        state = state.strip()
        if state.endswith(("running", "degraded")):
            return state.split()[-1]
        time.sleep(1)
    raise WorkshopError(f"{instance}: systemd not up after {timeout:.0f} s ({state})")


@dataclass(frozen=True)
class UpResult:
    learners: list[plan.Learner]
    image: str
    seconds: float
    states: dict[str, str]


def up(incus: Incus, settings: plan.Settings, box: images.Box, secret: Callable[[], str],
       labs: Path = LABS, log: Callable[[str], None] = print) -> UpResult:
    """Make the workshop's environments (containers from the CI box's image)."""
    if workshop_instances(incus, settings.workshop):
        raise WorkshopError(f"workshop {settings.workshop!r} is already up: "
                            "`workshop down` first")
    t0 = time.monotonic()
    alias = images.build_container_image(incus, box, log=log)
    learners = plan.plan_learners(settings, secret)
    name = settings.resource_name
    try:
        log(f"network and profile {name}")
        config = [f"{k}={v}" for k, v in plan.network_config(settings).items()]
        incus.run("network", "create", name, *config)
        incus.run("profile", "create", name)
        incus.run("profile", "edit", name, stdin=json.dumps(plan.profile(settings)))
        def prepare(learner: plan.Learner) -> None:
            log(f"{learner.instance}: {learner.pseudonym}")
            incus.run("init", alias, learner.instance, "--no-profiles", "-p", name,
                      "-c", f"{plan.WORKSHOP_KEY}={settings.workshop}",
                      "-c", f"{plan.LEARNER_KEY}={learner.pseudonym}",
                      "-c", "cloud-init.user-data="
                      + plan.cloud_init_user_data(settings, learner))
            for path, (text, mode) in plan.learner_files(settings, learner).items():
                _push_text(incus, learner.instance, path, text, mode)
            _push_labs(incus, learner.instance, labs)
            for device, conf in plan.proxy_devices(settings, learner).items():
                incus.run("config", "device", "add", learner.instance, device, conf["type"],
                          *[f"{k}={v}" for k, v in conf.items() if k != "type"])
            incus.run("start", learner.instance)

        def finish(learner: plan.Learner) -> str:
            state = _wait_ready(incus, learner.instance, READY_TIMEOUT)
            incus.exec(learner.instance, ["chpasswd"],
                       stdin=f"{plan.LEARNER_USER}:{learner.password}\n")
            return state

        # Each instance's root is unpacked from the image (seconds to tens of seconds on a
        # `dir` pool): a few at a time.
        with ThreadPoolExecutor(max_workers=min(PARALLEL, len(learners))) as pool:
            list(pool.map(prepare, learners))
            states = dict(zip([x.instance for x in learners], pool.map(finish, learners),
                              strict=True))
    except BaseException:
        log("up failed: removing what it made")
        down(incus, settings.workshop, log=log)
        raise
    return UpResult(learners, alias, time.monotonic() - t0, states)


def down(incus: Incus, workshop: str, remove_images: bool = False,
         log: Callable[[str], None] = print) -> list[str]:
    """Remove everything of the workshop; what was removed."""
    instances = workshop_instances(incus, workshop)
    # Deleting an instance on a `dir` pool removes its whole root file system (tens of seconds
    # each on a busy disk): all at once.
    with ThreadPoolExecutor(max_workers=max(1, min(PARALLEL, len(instances)))) as pool:
        list(pool.map(lambda name: incus.run("delete", "--force", name), instances))
    removed = [f"instance {instance}" for instance in instances]
    for profile in incus.list_json("profile"):
        if profile.get("config", {}).get(plan.WORKSHOP_KEY) == workshop:
            incus.run("profile", "delete", profile["name"])
            removed.append(f"profile {profile['name']}")
    for network in incus.list_json("network"):
        if network.get("config", {}).get(plan.WORKSHOP_KEY) == workshop:
            incus.run("network", "delete", network["name"])
            removed.append(f"network {network['name']}")
    if remove_images:
        for fingerprint in images.workshop_images(incus):
            incus.run("image", "delete", fingerprint)
            removed.append(f"image {fingerprint[:12]}")
    for line in removed:
        log(f"removed {line}")
    return removed


@dataclass(frozen=True)
class Usage:
    """One instance's memory: the cgroup's (what the host must have, page cache included,
    as `incus info` shows it), the sum of its processes' resident sets (pages shared between
    processes counted in each) and of their proportional sets (PSS: shared pages divided
    among the processes that share them, the fairest per-learner figure)."""

    instance: str
    pseudonym: str
    cgroup_bytes: int
    rss_bytes: int
    pss_bytes: int
    processes: int


def usage(incus: Incus, workshop: str) -> list[Usage]:
    rows = []
    for info in incus.list_json(""):
        config = info.get("config", {})
        if config.get(plan.WORKSHOP_KEY) != workshop:
            continue
        name = info["name"]
        state = incus.query(f"/1.0/instances/{name}/state")
        rollups = incus.exec(name, ["sh", "-c", "cat /proc/[0-9]*/smaps_rollup 2>/dev/null"])
        rss = pss = processes = 0
        for line in rollups.splitlines():
            field, _, rest = line.partition(":")
            if field == "Rss":
                rss += int(rest.split()[0]) * 1024
                processes += 1
            elif field == "Pss":
                pss += int(rest.split()[0]) * 1024
        rows.append(Usage(name, config.get(plan.LEARNER_KEY, ""),
                          int(state.get("memory", {}).get("usage", 0)), rss, pss, processes))
    return rows
