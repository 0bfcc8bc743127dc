"""python -m labsim: a transcript of `$ command` lines and their output."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "labsim", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


def test_lab_script_transcript():
    proc = run_cli("labs/scripts/01-pools-vdevs.sh")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "$ mkdir -p /var/tmp/labs"
    create = lines.index("$ zpool list -v lab1")
    assert lines[create + 1].split()[:4] == ["NAME", "SIZE", "ALLOC", "FREE"]
    assert "$ zpool destroy lab1" in lines


def test_commands_from_stdin_and_errexit():
    script = "zpool list\nzpool destroy nosuch\necho not reached\n"
    proc = run_cli(stdin=script)
    assert proc.returncode == 0
    assert proc.stdout == ("$ zpool list\nno pools available\n"
                           "$ zpool destroy nosuch\ncannot open 'nosuch': no such pool\n"
                           "$ echo not reached\nnot reached\n")
    proc = run_cli("--errexit", "-", stdin=script)
    assert proc.returncode == 1
    assert "not reached" not in proc.stdout


def test_a_command_over_several_lines_runs_whole_as_bash_reads_a_script():
    script = ("cat <<END\nhere ${HOME}\nEND\n"
              "for i in 1 2\ndo\n  echo n=$i\ndone\n"
              "echo 'open\nquote'\necho after\n")
    proc = run_cli(stdin=script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ("$ cat <<END\nhere ${HOME}\nEND\nhere /root\n"
                           "$ for i in 1 2\ndo\n  echo n=$i\ndone\nn=1\nn=2\n"
                           "$ echo 'open\nquote'\nopen\nquote\n"
                           "$ echo after\nafter\n")


def test_old_allocator_is_selectable():
    script = "truncate -s 10G /tmp/a\nzpool create t /tmp/a\nzpool list -Hp -o size t\n"
    new = run_cli(stdin=script).stdout.splitlines()[-1]
    old = run_cli("--zfs-version", "0.6.5", stdin=script).stdout.splitlines()[-1]
    assert (int(new), int(old)) == (19 * 512 << 20, 159 * 64 << 20)


def test_unreadable_script_is_a_clean_error():
    proc = run_cli("no/such/script.sh")
    assert proc.returncode == 2
    assert "cannot read no/such/script.sh" in proc.stderr
