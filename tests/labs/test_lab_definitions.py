"""The labs as files: every script has steps, checks and a notebook that match, and the lab
runner's safety rules refuse what they must. (tests/vm/guest/ proves the steps on real OpenZFS.)"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LABS_DIR = ROOT / "labs"
sys.path.insert(0, str(LABS_DIR))

import labkit  # noqa: E402

SCRIPTS = sorted(p.stem for p in (LABS_DIR / "scripts").glob("*.sh"))


def test_every_script_is_a_lab():
    assert SCRIPTS
    assert labkit.lab_names() == SCRIPTS


@pytest.mark.parametrize("name", SCRIPTS)
def test_lab_loads_with_hints_and_checks(name):
    lab = labkit.load_lab(name)
    assert lab.steps and lab.pools and lab.files
    for step in lab.steps:
        assert step.commands, step.name
        assert "\n" not in step.hint and step.hint.endswith(".")


@pytest.mark.parametrize("name", SCRIPTS)
def test_scripts_pass_the_safety_check(name):
    lab = labkit.load_lab(name)
    for step in lab.steps:
        for line in step.commands:
            assert labkit.refusal(line, lab.pools) is None, line


@pytest.mark.parametrize("name", SCRIPTS)
def test_notebook_runs_the_script_step_by_step(name):
    """The notebook's %%lab cells are the script's steps, each followed by its check."""
    lab = labkit.load_lab(name)
    nb = json.loads((LABS_DIR / f"{name}.ipynb").read_text())
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    lab_cells = [i for i, src in enumerate(code) if src.startswith("%%lab\n")]
    assert [code[i].splitlines()[1:] for i in lab_cells] == [list(s.commands) for s in lab.steps]
    for i, step in zip(lab_cells, lab.steps, strict=True):
        assert code[i + 1].startswith(f'lab.check("{step.name}")'), code[i + 1]
    assert f'Notebook("{name}")' in code[0] and "lab.reset()" in code[0]


@pytest.mark.parametrize("name", SCRIPTS)
def test_notebooks_are_stored_without_outputs(name):
    nb = json.loads((LABS_DIR / f"{name}.ipynb").read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


def test_steps_must_match_the_script_markers(tmp_path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "steps").mkdir()
    (tmp_path / "scripts" / "x.sh").write_text("# step a: A\ntrue\n# step b: B\ntrue\n")
    (tmp_path / "steps" / "x.toml").write_text(
        '[lab]\ntitle = "x"\npools = ["x"]\nfiles = ["x*"]\n'
        '[[step]]\nname = "a"\nhint = "h."\ncheck = [{ what = "w", run = "true", exit = 0 }]\n')
    with pytest.raises(labkit.LabError, match="describes"):
        labkit.load_lab("x", tmp_path)


def test_a_command_outside_any_step_is_an_error():
    with pytest.raises(labkit.LabError, match="before the first"):
        labkit.split_steps("zpool list\n# step a: A\ntrue\n")


POOLS = ("lab1",)


@pytest.mark.parametrize("command, reason", [
    ("zpool create lab1 /dev/sda", "never of disks"),
    ("zpool create tank /dev/sda", "never of disks"),
    ("sudo zpool create -f lab1 /dev/nvme0n1", "never of disks"),
    ("zpool create lab1 sda", "would look for /dev/sda"),
    ("zpool create -o ashift=12 lab1 /var/tmp/labs/../../dev/sda", "never of disks"),
    ("zpool add lab1 mirror /var/tmp/labs/a.raw /dev/sdb", "never of disks"),
    ("zpool create rpool /var/tmp/labs/a.raw", "not one of this lab's pools"),
    ("zpool destroy rpool", "not one of this lab's pools"),
    ("zpool destroy", "not one of this lab's pools"),
    ("zpool import -d /var/tmp/labs rpool", "not one of this lab's pools"),
    ("zfs destroy -r rpool/ROOT", "own datasets"),
    ("dd if=/dev/zero of=/dev/sda bs=1M", "device /dev/sda"),
    ("dd if=/dev/zero of=/dev/zvol/rpool/vm bs=1M", "not a volume of this lab"),
    ("fio --name=x --filename=/dev/sda --rw=write --size=1M", "device /dev/sda"),
])
def test_refusals(command, reason):
    why = labkit.refusal(command, POOLS)
    assert why is not None and why.startswith("refused: ") and reason in why, why


@pytest.mark.parametrize("command", [
    "zpool create -o ashift=12 lab1 /var/tmp/labs/lab1-a.raw /var/tmp/labs/lab1-b.raw",
    "zpool create lab1 mirror /var/tmp/labs/a.raw /var/tmp/labs/b.raw log /var/tmp/labs/l.raw",
    "zpool create lab1 raidz2 /var/tmp/labs/a /var/tmp/labs/b /var/tmp/labs/c /var/tmp/labs/d",
    "zpool destroy lab1",
    "zpool import -d /var/tmp/labs lab1",
    "zfs destroy lab1/data@snap",
    "dd if=/dev/urandom of=/lab1/f1.bin bs=1M count=64",
    "dd if=/dev/zero of=/dev/zvol/lab1/vm bs=1M count=1",
    "zpool list -v",
])
def test_lab_commands_are_allowed(command):
    assert labkit.refusal(command, POOLS) is None


def test_run_commands_refuses_before_running_anything(tmp_path):
    marker = tmp_path / "ran"
    with pytest.raises(labkit.Refused, match="never of disks"):
        labkit.run_commands([f"touch {marker}", "zpool create lab1 /dev/sda"], POOLS)
    assert not marker.exists()


def test_verdict_line_is_one_line_with_the_hint():
    check = labkit.Check(what="ashift 12", run="echo 9", equals="12")
    step = labkit.Step(2, "pool", "A pool", ("zpool create …",), "Use -o ashift=12.", (check,))
    seen = check.judge(*labkit.run_check(check))
    line = labkit.Verdict(step, ((check, seen),)).line()
    assert line == ("✗ step 2 (pool) not done yet: expected ashift 12 ('12'), got '9'. "
                    "Hint: Use -o ashift=12.")
    assert labkit.Verdict(step, ()).line() == "✓ step 2 (pool): done"


@pytest.mark.parametrize("check, status, out, ok", [
    (labkit.Check("n", "x", at_least=10), 0, "10\n", True),
    (labkit.Check("n", "x", at_least=10), 0, "9\n", False),
    (labkit.Check("n", "x", at_most=10), 0, "11", False),
    (labkit.Check("n", "x", at_least=1), 0, "-", False),
    (labkit.Check("n", "x", exit=1), 1, "", True),
    (labkit.Check("n", "x", exit=1), 0, "lab1", False),
])
def test_check_judgement(check, status, out, ok):
    assert (check.judge(status, out) is None) == ok


def test_cli_lists_the_labs_and_checks_scripts(tmp_path):
    run = subprocess.run([sys.executable, "-m", "labkit", "list"], cwd=LABS_DIR,
                         capture_output=True, text=True)
    assert run.returncode == 0 and "1. files:" in run.stdout
    bad = tmp_path / "bad.sh"
    bad.write_text("# step x: X\nzpool create lab1 /dev/sda\n")
    run = subprocess.run([sys.executable, "-m", "labkit", "check-script", str(bad),
                          "--pools", "lab1"], cwd=LABS_DIR, capture_output=True, text=True)
    assert run.returncode == 1 and "never of disks" in run.stdout


def test_expect_fail_lines_must_fail_and_the_block_goes_on(tmp_path):
    marker = tmp_path / "after"
    labkit.run_commands([f"false  {labkit.EXPECT_FAIL}", f"touch {marker}"], POOLS, echo=False)
    assert marker.exists()
    with pytest.raises(labkit.LabError, match="expected to fail"):
        labkit.run_commands([f"true  {labkit.EXPECT_FAIL}"], POOLS, echo=False)
    with pytest.raises(labkit.LabError, match="exited with status 1"):
        labkit.run_commands(["false"], POOLS, echo=False)
