"""What a workshop is made of, decided before anything is created: pure functions.

A workshop has a name (``--workshop``, default ``lab``), one Incus bridge network and one
profile named ``zfl-<workshop>``, and N learners. Learner ``i`` (1-based) is the instance
``zfl-<workshop>-<ii>``; its pseudonym (adjective-animal, drawn with a seeded generator, never
a person's name) is what the instructor's live page shows; it reaches its environment through
two Incus proxy devices on the host, SSH on ``ssh_base + i`` and JupyterLab on
``jupyter_base + i``.

Every learner gets the same files (:func:`learner_files`): ``/etc/zfl/workshop.toml`` (the
report URL, workshop, pseudonym and workshop key, read by ``labkit verify --report``; see
labs/labsteps/report.py) and a JupyterLab drop-in with the learner's token. The same files
become cloud-init ``write_files`` (:func:`cloud_init_user_data`) for images that run
cloud-init (the Kubernetes path, tools/workshop/k8s/).

Everything this package makes in Incus carries ``user.zfl.workshop=<workshop>``, which is how
``down`` finds it.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

WORKSHOP_KEY = "user.zfl.workshop"
LEARNER_KEY = "user.zfl.learner"
WORKSHOP_FILE = "/etc/zfl/workshop.toml"
JUPYTER_DROPIN = "/etc/systemd/system/zfl-jupyterlab.service.d/workshop.conf"
LEARNER_USER = "learner"
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]{0,10}$")
# A workshop id on the instructor server (instructor/store.py WORKSHOP_ID).
SERVER_WORKSHOP_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
MAX_LEARNERS = 99

ADJECTIVES = ("amber", "brisk", "calm", "dusty", "eager", "fuzzy", "gentle", "hazel", "icy",
              "jolly", "keen", "lucky", "mellow", "nimble", "olive", "plucky", "quiet",
              "rapid", "sunny", "tidy", "upbeat", "vivid", "witty", "young", "zesty", "bold",
              "crisp", "deft", "fair", "glad", "hardy", "noble")
ANIMALS = ("otter", "heron", "lynx", "badger", "marten", "puffin", "gecko", "ibis", "koala",
           "lemur", "newt", "ocelot", "panda", "quail", "raven", "stoat", "tapir", "urchin",
           "vole", "walrus", "yak", "zebra", "bison", "crane", "dingo", "egret", "ferret",
           "gibbon", "hare", "impala", "jackal", "kestrel")


@dataclass(frozen=True)
class Settings:
    """What ``workshop up`` was asked for."""

    count: int
    report_url: str
    key: str
    workshop: str = "lab"
    seed: int = 0
    subnet: str = "10.231.77.1/24"      # the bridge's address: its gateway is the host
    nat: bool = False                   # learners need no internet: the image has everything
    listen: str = "127.0.0.1"           # where the proxy devices listen on the host
    public_host: str = ""               # the host name learners use (default: listen)
    ssh_base: int = 2200
    jupyter_base: int = 8800
    memory: str = "1GiB"                # limits.memory per learner
    cpus: str = ""                      # limits.cpu per learner ("" = no limit)
    storage_pool: str = "default"
    # The workshop's id on the instructor server (`python -m instructor create ID`), which
    # may be longer than an Incus name and have dashes; "" = the same as ``workshop``.
    instructor_workshop: str = ""

    def __post_init__(self) -> None:
        if not NAME_PATTERN.match(self.workshop):
            raise ValueError(f"workshop name {self.workshop!r}: 1-11 lower-case letters and "
                             "digits, starting with a letter (it names an Incus bridge)")
        if self.instructor_workshop and not SERVER_WORKSHOP_PATTERN.match(
                self.instructor_workshop):
            raise ValueError(f"instructor workshop {self.instructor_workshop!r}: up to 40 of "
                             "a-z, 0-9 and '-' (as `python -m instructor create` takes)")
        if not 1 <= self.count <= MAX_LEARNERS:
            raise ValueError(f"learners: 1 to {MAX_LEARNERS}, not {self.count}")
        if not self.report_url.startswith(("http://", "https://")):
            raise ValueError(f"report URL {self.report_url!r}: http:// or https://")
        if not self.key:
            raise ValueError("the workshop key is empty")
        top = max(self.ssh_base, self.jupyter_base) + self.count
        if top > 65535 or min(self.ssh_base, self.jupyter_base) < 1:
            raise ValueError("ports out of range")

    @property
    def reported_workshop(self) -> str:
        """The workshop the learners' results go to on the instructor server."""
        return self.instructor_workshop or self.workshop

    @property
    def resource_name(self) -> str:
        """The bridge's and the profile's name (a Linux interface name: 15 characters)."""
        return f"zfl-{self.workshop}"


@dataclass(frozen=True)
class Learner:
    index: int
    instance: str
    pseudonym: str
    password: str           # the learner account's, for SSH
    jupyter_token: str
    ssh_port: int
    jupyter_port: int


def pseudonyms(count: int, seed: int, workshop: str) -> list[str]:
    """``count`` distinct adjective-animal pseudonyms, the same for the same seed and
    workshop."""
    pool = [f"{a}-{b}" for a in ADJECTIVES for b in ANIMALS]
    if count > len(pool):
        raise ValueError(f"at most {len(pool)} pseudonyms")
    return random.Random(f"{workshop}:{seed}").sample(pool, count)


def plan_learners(settings: Settings, secret: Callable[[], str]) -> list[Learner]:
    """The learners of a workshop; ``secret()`` makes each password and token (the command
    line passes secrets.token_urlsafe)."""
    names = pseudonyms(settings.count, settings.seed, settings.workshop)
    return [Learner(index=i, instance=f"zfl-{settings.workshop}-{i:02d}", pseudonym=name,
                    password=secret(), jupyter_token=secret(),
                    ssh_port=settings.ssh_base + i, jupyter_port=settings.jupyter_base + i)
            for i, name in enumerate(names, start=1)]


def _toml_string(value: str) -> str:
    return json.dumps(value)   # a JSON string is a TOML basic string


def workshop_toml(settings: Settings, learner: Learner) -> str:
    """/etc/zfl/workshop.toml: what ``labkit verify --report`` reads (labs/labsteps/report.py:
    keys url, workshop, learner, key)."""
    lines = ["# ZFS Field Labs workshop: written by `workshop up` (tools/workshop).",
             "# Your results go to the instructor under this pseudonym, never your name.",
             f"url = {_toml_string(settings.report_url)}",
             f"workshop = {_toml_string(settings.reported_workshop)}",
             f"learner = {_toml_string(learner.pseudonym)}",
             f"key = {_toml_string(settings.key)}"]
    return "\n".join(lines) + "\n"


def jupyter_dropin(learner: Learner) -> str:
    """The JupyterLab unit (vagrant/provision.sh) with the learner's token instead of none."""
    return ("[Service]\nExecStart=\n"
            "ExecStart=/opt/labs-venv/bin/jupyter-lab --allow-root --no-browser --ip=0.0.0.0 "
            "--port=8888 --ServerApp.root_dir=/labs "
            f"--IdentityProvider.token={learner.jupyter_token} --ServerApp.password=\n")


def learner_files(settings: Settings, learner: Learner) -> dict[str, tuple[str, str]]:
    """path -> (content, octal mode) of the files a learner's environment gets."""
    return {WORKSHOP_FILE: (workshop_toml(settings, learner), "0644"),
            JUPYTER_DROPIN: (jupyter_dropin(learner), "0644")}


def cloud_init_user_data(settings: Settings, learner: Learner) -> str:
    """cloud-config (JSON is YAML) with the same files, the learner's password and host name:
    for images that run cloud-init (KubeVirt VMs; Incus passes it as cloud-init.user-data)."""
    files = [{"path": path, "content": content, "permissions": mode, "owner": "root:root"}
             for path, (content, mode) in learner_files(settings, learner).items()]
    config = {
        "hostname": learner.instance,
        "write_files": files,
        "chpasswd": {"expire": False,
                     "users": [{"name": LEARNER_USER, "password": learner.password,
                                "type": "text"}]},
        "ssh_pwauth": True,
        "runcmd": [["systemctl", "daemon-reload"],
                   ["systemctl", "restart", "zfl-jupyterlab.service"]],
    }
    return "#cloud-config\n" + json.dumps(config, indent=2) + "\n"


def network_config(settings: Settings) -> dict[str, str]:
    return {"ipv4.address": settings.subnet, "ipv4.nat": str(settings.nat).lower(),
            "ipv6.address": "none", WORKSHOP_KEY: settings.workshop}


def profile(settings: Settings) -> dict:
    """The learners' profile. security.nesting lets `ip netns` mount a fresh /sys in the
    container (the network labs; without it: "mount of /sys failed: Operation not
    permitted"); /dev/net/tun is for wireguard-go."""
    config = {"limits.memory": settings.memory, "security.nesting": "true",
              WORKSHOP_KEY: settings.workshop}
    if settings.cpus:
        config["limits.cpu"] = settings.cpus
    return {
        "description": f"ZFS Field Labs workshop {settings.workshop} (tools/workshop)",
        "config": config,
        "devices": {
            "root": {"type": "disk", "pool": settings.storage_pool, "path": "/"},
            "eth0": {"type": "nic", "network": settings.resource_name, "name": "eth0"},
            "tun": {"type": "unix-char", "path": "/dev/net/tun"},
        },
    }


def proxy_devices(settings: Settings, learner: Learner) -> dict[str, dict[str, str]]:
    """SSH and JupyterLab of the learner, on ports of the host."""
    return {
        "ssh": {"type": "proxy", "listen": f"tcp:{settings.listen}:{learner.ssh_port}",
                "connect": "tcp:127.0.0.1:22"},
        "jupyter": {"type": "proxy", "listen": f"tcp:{settings.listen}:{learner.jupyter_port}",
                    "connect": "tcp:127.0.0.1:8888"},
    }


def access_text(settings: Settings, learner: Learner) -> str:
    """How the learner reaches the environment, for the instructor to hand out."""
    host = settings.public_host or settings.listen
    return (f"{learner.pseudonym} ({learner.instance})\n"
            f"  SSH:        ssh -p {learner.ssh_port} {LEARNER_USER}@{host}"
            f"   password: {learner.password}\n"
            f"  JupyterLab: http://{host}:{learner.jupyter_port}/lab?token="
            f"{learner.jupyter_token}\n"
            f"  instructor: incus exec {learner.instance} -- su - {LEARNER_USER}\n")
