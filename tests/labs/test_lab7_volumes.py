"""Lab 7 writes with fio to its own pool's volumes: the runner allows that and nothing else
under /dev (labkit.refusal)."""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "labs"))

import labkit  # noqa: E402

POOLS = ("lab7",)


def test_fio_on_the_labs_own_volume_is_allowed():
    assert labkit.refusal("fio --name=z --filename=/dev/zvol/lab7/sparse --rw=randwrite "
                          "--bs=4k --size=48M --io_size=1M --output=/dev/null", POOLS) is None


@pytest.mark.parametrize("target, reason", [
    ("/dev/zvol/rpool/vm", "not a volume of this lab's pools"),
    ("/dev/sda", "fio would write to the device /dev/sda"),
    ("/dev/zd0", "fio would write to the device /dev/zd0"),
])
def test_fio_on_other_devices_is_refused(target, reason):
    why = labkit.refusal(f"fio --name=z --filename={target} --rw=write --size=1M", POOLS)
    assert why is not None and reason in why, why


def test_qemu_nbd_on_a_socket_is_allowed_and_on_a_kernel_device_refused():
    serve = ("qemu-nbd --fork --persistent --pid-file=/run/lab7-q64k.pid "
             "--socket=/run/lab7-q64k.sock --format=qcow2 /lab7/q64k/vm.qcow2")
    assert labkit.refusal(serve, POOLS) is None
    for attach in ("qemu-nbd -c /dev/nbd0 /lab7/q64k/vm.qcow2",
                   "qemu-nbd --connect=/dev/nbd0 /lab7/q64k/vm.qcow2", "qemu-nbd -d /dev/nbd0"):
        why = labkit.refusal(attach, POOLS)
        assert why is not None and "/dev/nbd" in why, attach


def test_lab7_names_the_pid_files_reset_stops():
    lab = labkit.load_lab("07-zvols")
    assert lab.pidfiles == ("/run/lab7-q64k.pid", "/run/lab7-q8k.pid")
    script = lab.script.read_text()
    assert all(f"--pid-file={p}" in script and f"pkill -F {p}" in script for p in lab.pidfiles)


def test_stop_server_signals_only_a_lab_server(tmp_path):
    # A pid file naming some other process (a stale file whose pid was reused) is left alone.
    other = subprocess.Popen(["sleep", "30"])
    try:
        pidfile = tmp_path / "other.pid"
        pidfile.write_text(f"{other.pid}\n")
        assert labkit.stop_server(str(pidfile)) is None
        assert other.poll() is None, "a process that is not a lab server was signalled"
    finally:
        other.kill()
        other.wait()
    assert labkit.stop_server(str(tmp_path / "missing.pid")) is None
    (tmp_path / "junk.pid").write_text("not a pid\n")
    assert labkit.stop_server(str(tmp_path / "junk.pid")) is None


@pytest.mark.skipif(shutil.which("qemu-nbd") is None or shutil.which("qemu-img") is None,
                    reason="needs Debian's qemu-utils")
def test_stop_server_stops_a_real_qemu_nbd(tmp_path):
    image, sock, pidfile = tmp_path / "x.qcow2", tmp_path / "x.sock", tmp_path / "x.pid"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(image), "1M"], check=True)
    subprocess.run(["qemu-nbd", "--fork", "--persistent", f"--pid-file={pidfile}",
                    f"--socket={sock}", "--format=qcow2", str(image)], check=True)
    pid = int(pidfile.read_text())
    try:
        stopped = labkit.stop_server(str(pidfile), wait_seconds=10)
        assert stopped == f"qemu-nbd (pid {pid})"
        state = labkit._process_state(pid)
        assert state in (None, "Z"), state
        assert labkit.stop_server(str(pidfile)) is None
    finally:  # never leave a server behind, whatever failed
        if labkit._process_state(pid) not in (None, "Z"):
            os.kill(pid, signal.SIGKILL)
