"""The Kubernetes path: an Educates workshop with a KubeVirt VM per session (k8s/).

:func:`render` fills the template ``k8s/educates-kubevirt.yaml`` for a workshop: the
learner's cloud-config is :func:`workshop.plan.cloud_init_user_data` itself, with Educates'
per-session variables in place of the pseudonym and password (``$(session_name)`` is the
pseudonym Educates generates for each session, ``$(services_password)`` the session's
password), so the VM gets the same /etc/zfl/workshop.toml and JupyterLab token as an Incus
learner. The VM boots the CI box's kernel directly (KubeVirt ``firmware.kernelBoot``), as the
Vagrantfile does.
"""

from __future__ import annotations

import string
from pathlib import Path

from workshop import plan
from workshop.image import KERNEL_CMDLINE

TEMPLATE = Path(__file__).resolve().parent / "k8s" / "educates-kubevirt.yaml"
DEFAULT_CONTAINER_DISK = "registry.example.org/zfl/ci-box-disk:latest"
DEFAULT_KERNEL_IMAGE = "registry.example.org/zfl/ci-box-kernel:latest"
SESSION_LEARNER = plan.Learner(index=0, instance="$(session_name)",
                               pseudonym="$(session_name)",
                               password="$(services_password)",
                               jupyter_token="$(services_password)", ssh_port=22,
                               jupyter_port=8888)
USER_DATA_INDENT = " " * 18     # under `userData: |-` in the template


def render(settings: plan.Settings, container_disk: str = DEFAULT_CONTAINER_DISK,
           kernel_image: str = DEFAULT_KERNEL_IMAGE, vm_memory: str = "2Gi",
           vm_cpus: int = 2) -> str:
    """The manifests (a Workshop and a TrainingPortal for ``settings.count`` sessions)."""
    user_data = plan.cloud_init_user_data(settings, SESSION_LEARNER)
    indented = "\n".join(USER_DATA_INDENT + line if line else ""
                         for line in user_data.rstrip("\n").split("\n"))
    mib = {"Mi": 1, "Gi": 1024}[vm_memory[-2:]] * int(vm_memory[:-2])
    return string.Template(TEMPLATE.read_text()).substitute(
        workshop=settings.workshop, count=settings.count, container_disk=container_disk,
        kernel_image=kernel_image, kernel_cmdline=KERNEL_CMDLINE, vm_memory=vm_memory,
        vm_cpus=vm_cpus, namespace_memory=f"{mib + 512}Mi", user_data=indented)

