"""The network labs' notebooks (labs/net-wN-NAME.ipynb): one per lab of labs/net/, stored
exactly as tools/net_notebooks.py writes them, one cell per step in the scripts' order, and
the notebook API (netkit.notebook.NetLab) refusing what it must without touching the machine.
(tests/vm/guest runs the notebooks in the lab VM; tests/netlab runs the labs on the host.)"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LABS_DIR = ROOT / "labs"
sys.path.insert(0, str(LABS_DIR))
sys.path.insert(0, str(ROOT / "tools"))

import net_notebooks  # noqa: E402
import netkit  # noqa: E402
from netkit.notebook import NetLab, NetLabError  # noqa: E402

LABS = sorted(p.parent.name for p in netkit.NET_DIR.glob("*/topology.toml"))


def code_cells(lab: str) -> list[str]:
    path = LABS_DIR / f"{net_notebooks.notebook_name(lab)}.ipynb"
    nb = json.loads(path.read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def test_every_lab_has_a_notebook_sorted_after_the_storage_labs():
    assert set(net_notebooks.TEXTS) == set(LABS)
    names = sorted(p.name for p in LABS_DIR.glob("*.ipynb"))
    network = [n for n in names if n.startswith("net-w")]
    assert len(network) == len(LABS)
    assert names[-len(network):] == network


@pytest.mark.parametrize("lab", LABS)
def test_notebook_is_stored_as_generated(lab):
    path = LABS_DIR / f"{net_notebooks.notebook_name(lab)}.ipynb"
    assert path.read_text() == net_notebooks.rendered(net_notebooks.build(lab)), (
        "run python tools/net_notebooks.py")
    nb = json.loads(path.read_text())
    ids = [c["id"] for c in nb["cells"]]
    assert len(set(ids)) == len(ids)
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None


@pytest.mark.parametrize("lab", LABS)
def test_one_cell_per_step_then_checks_then_down(lab):
    cells = code_cells(lab)
    steps = list(dict.fromkeys(s for s, _h, _l in netkit.plan(netkit.load(lab))))
    assert cells[0].endswith(f'lab = NetLab("{lab}")\nlab.up()')
    assert cells[1:1 + len(steps)] == [f'lab.step("{s}")' for s in steps]
    assert cells[1 + len(steps)] == "lab.validate()"
    assert cells[-1] == "lab.down()"


def test_the_first_lab_shows_the_kernels_refusal():
    """A cell pings the address no peer covers (kernel WireGuard: ENOKEY)."""
    assert 'lab.run("alice", "ping -c 1 -W 1 10.0.0.3")' in code_cells("01-wg-peers")
    check = next(c for c in netkit.load("01-wg-peers").checks if c.ping == "10.0.0.3")
    assert check.expect == "failure"


def test_netlab_refuses_before_up_and_unknown_steps():
    lab = NetLab("01-wg-peers", log=lambda text: None)
    assert lab.steps == ["keys", "peers"]
    with pytest.raises(NetLabError, match="not up"):
        lab.step("keys")
    with pytest.raises(NetLabError, match="not up"):
        lab.validate()
    with pytest.raises(netkit.NetkitError, match="no variant"):
        NetLab("01-wg-peers", variant="nosuch")


@pytest.mark.skipif(os.geteuid() == 0, reason="checks the refusal without root")
def test_netlab_up_needs_root():
    with pytest.raises(NetLabError, match="as root"):
        NetLab("01-wg-peers", log=lambda text: None).up()


@pytest.mark.skipif(os.geteuid() != 0, reason="a NetLab lives in the machine's namespaces: root")
def test_netlab_runs_a_lab_step_by_step_and_leaves_nothing():
    """The lab for real (kernel WireGuard or wireguard-go, whichever this machine has), step
    by step as the notebook runs it, with the checks and the clean-up."""
    from netkit import real

    printed: list[str] = []
    lab = NetLab("01-wg-peers", log=printed.append)
    try:
        lab.up()
        with pytest.raises(NetLabError, match="run step 'keys' first"):
            lab.step("peers")
        lab.step("keys")
        with pytest.raises(NetLabError, match="has run already"):
            lab.step("keys")
        lab.step("peers")
        outcomes = lab.validate()
        assert all(o.passed for o in outcomes)
        ping = lab.run("alice", "ping -c 1 -W 1 10.0.0.3")
        assert ping.status != 0
    finally:
        lab.down()
    text = "\n".join(printed)
    assert "# bob: step peers" in text and "6 of 6 checks passed" in text
    assert "alice$ ping -c 1 -W 1 10.0.0.3" in text
    assert not real.namespaces(lab.topology)
    assert not real.state_dir(lab.topology).exists()

    broken = NetLab("01-wg-peers", variant="wrong-allowed-ips", log=printed.append)
    try:
        broken.up()
        broken.step("keys")
        broken.step("peers")
        with pytest.raises(NetLabError, match="2 of 6 checks failed"):
            broken.validate()
        assert not all(o.passed for o in broken.validate(expect_failure=True))
    finally:
        broken.down()
    assert not real.namespaces(broken.topology)
