"""Every lab step, proved on real OpenZFS: its verify fails before the step, its solve runs,
and its verify passes after. Also: the runner refuses a real disk, and a reset touches only the
lab's own pools and files."""

import os
import subprocess
import sys

import pytest

import labkit

LABS = labkit.lab_names()


def pools() -> list[str]:
    return subprocess.run(["zpool", "list", "-H", "-o", "name"], capture_output=True,
                          text=True, check=True).stdout.split()


def test_there_are_labs():
    assert LABS, "no labs/steps/*.toml found"


@pytest.mark.parametrize("name", LABS)
def test_verify_fails_then_solve_then_verify_passes(name):
    lab = labkit.load_lab(name)
    labkit.reset(lab)
    try:
        for step in lab.steps:
            before = labkit.verify(lab, step.name)
            assert not before.ok, f"step {step.name}: verify passes before the step is done"
            line = before.line()
            assert "\n" not in line and "Hint: " + step.hint in line, line
            print(line)
            labkit.solve(lab, step.name, echo=False)
            after = labkit.verify(lab, step.name)
            assert after.ok, after.line()
            print(after.line())
    finally:
        labkit.reset(lab)
    assert not set(pools()) & set(lab.pools)


def block_device() -> str:
    disks = [d for d in sorted(os.listdir("/sys/block")) if not d.startswith(("loop", "zd", "ram"))]
    assert disks, "the VM has no disk?"
    return "/dev/" + disks[0]


@pytest.mark.parametrize("name", LABS)
def test_a_real_disk_is_refused_before_anything_runs(name, tmp_path):
    lab = labkit.load_lab(name)
    pool = lab.pools[0]
    disk = block_device()
    marker = tmp_path / "ran"
    with pytest.raises(labkit.Refused, match="never of disks"):
        labkit.run_commands([f"touch {marker}", f"zpool create -f {pool} {disk}"], lab.pools)
    assert not marker.exists(), "a command before the refused one ran"
    assert pool not in pools()


def test_reset_destroys_only_the_labs_own_pool_and_files():
    lab = labkit.load_lab(LABS[0])
    other_file = os.path.join(labkit.LAB_DIR, "not-a-lab-file.raw")
    os.makedirs(labkit.LAB_DIR, exist_ok=True)
    subprocess.run(["truncate", "-s", "128M", other_file], check=True)
    subprocess.run(["zpool", "create", "zfl-bystander", other_file], check=True)
    try:
        labkit.reset(lab)
        assert "zfl-bystander" in pools()
        assert os.path.exists(other_file)
    finally:
        subprocess.run(["zpool", "destroy", "zfl-bystander"], check=True)
        os.remove(other_file)


def test_cli_verify_exit_codes_on_a_fresh_lab():
    """netlab's convention: 0 all done, 1 something not done; one line per step, with a hint."""
    lab = labkit.load_lab(LABS[0])
    labkit.reset(lab, echo=False)
    labs_dir = os.path.dirname(os.path.dirname(labkit.__file__))
    run = subprocess.run([sys.executable, "-m", "labkit", "verify", lab.name], cwd=labs_dir,
                         capture_output=True, text=True)
    assert run.returncode == 1, run
    lines = run.stdout.splitlines()
    # One line per step; the steps not done carry a hint (a fresh lab's cleanup step is done).
    done = [labkit.verify(lab, step.name).ok for step in lab.steps]
    assert [line.startswith("✓") for line in lines] == done, lines
    assert not done[0] and all("Hint: " in line for line in lines if line.startswith("✗"))
    run = subprocess.run([sys.executable, "-m", "labkit", "solve", lab.name, "no-such-step"],
                         cwd=labs_dir, capture_output=True, text=True)
    assert run.returncode == 2 and "has no step 'no-such-step'" in run.stdout, run
