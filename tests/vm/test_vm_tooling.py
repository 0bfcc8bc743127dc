"""Cheap host-side checks of the VM tooling (the VM run itself is `make test-vm`)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = [
    "vagrant/build-ci-box.sh",
    "vagrant/provision.sh",
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



def test_one_package_list_for_learners_and_ci():
    """The CI box installs what provision.sh --packages prints, for the box's own kernel, so
    the learners' VMs and the CI VM cannot drift apart."""
    out = subprocess.run(["bash", str(ROOT / "vagrant/provision.sh"), "--packages"],
                         env={"PATH": "/usr/bin:/bin", "ZFL_KERNEL": "6.12.99+deb13-amd64"},
                         check=True, capture_output=True, text=True).stdout.split()
    assert {"zfs-dkms", "zfsutils-linux", "wireguard-tools", "nftables", "fio",
            "linux-headers-6.12.99+deb13-amd64"} <= set(out)
    build = (ROOT / "vagrant/build-ci-box.sh").read_text()
    assert 'bash "$PROVISION" --packages' in build and '"${LAB_PKGS[@]}"' in build
