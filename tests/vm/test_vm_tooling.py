"""Cheap host-side checks of the VM tooling (the VM run itself is `make test-vm`)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = [
    "vagrant/build-ci-box.sh",
    "vagrant/provision-common.sh",
    "vagrant/provision-debian.sh",
    "vagrant/provision-ubuntu.sh",
    "tools/vm/run-labs.sh",
    "tools/vm/kvm-probe.sh",
    "tools/vm/host-packages.sh",
]


@pytest.mark.parametrize("script", SCRIPTS)
def test_shell_scripts_parse(script):
    subprocess.run(["bash", "-n", str(ROOT / script)], check=True)


def test_vagrantfile_parses():
    ruby = shutil.which("ruby")
    if ruby is None:
        # `make test` installs vagrant (and ruby) first, so this skips only in
        # `make test-host` on a machine without them.
        pytest.skip("ruby is not installed (it comes with vagrant)")
    subprocess.run([ruby, "-c", str(ROOT / "vagrant/Vagrantfile")], check=True,
                   capture_output=True)

