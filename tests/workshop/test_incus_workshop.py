"""`workshop up 1` / `workshop down` on the real Incus of this machine (marker `incus`).

Skips, saying why, when Incus is not installed or its daemon does not answer, when not root,
or when the learner container image has not been built from the CI box yet (building it takes
minutes: `python3 tools/workshop image`). Otherwise it brings up one learner container, runs
commands in it (the workshop file, a network lab for real with wireguard-go) and takes it down,
checking that Incus's instances, profiles, networks and storage volumes and the host's nftables
chains are as before. About 30-60 s. Leave it out with `-m "not incus"`.
"""

import secrets
import tomllib

import pytest
from incus_support import ready, snapshot
from workshop import engine, plan
from workshop.incus import IncusError

pytestmark = pytest.mark.incus
WORKSHOP = "zfltest"


def test_up_one_learner_run_a_lab_and_down_leaves_nothing_behind():
    incus, box = ready()
    engine.down(incus, WORKSHOP, log=lambda _: None)      # a crashed earlier run
    before = snapshot(incus)
    settings = plan.Settings(count=1, report_url="http://10.231.78.1:8000", key="test-key",
                             workshop=WORKSHOP, subnet="10.231.78.1/24", ssh_base=12200,
                             jupyter_base=18800, memory="768MiB")
    try:
        result = engine.up(incus, settings, box, secret=lambda: secrets.token_urlsafe(8),
                           log=lambda _: None)
        (learner,) = result.learners
        assert result.states[learner.instance] in ("running", "degraded")
        during = snapshot(incus)
        assert learner.instance in during["instances"]
        assert "zfl-zfltest" in during["profiles"] and "zfl-zfltest" in during["networks"]

        data = tomllib.loads(incus.exec(learner.instance, ["cat", plan.WORKSHOP_FILE]))
        assert data == {"url": settings.report_url, "workshop": WORKSHOP,
                        "learner": learner.pseudonym, "key": "test-key"}
        assert incus.exec(learner.instance, ["hostname"]).strip() == learner.instance
        lab = incus.exec(learner.instance, ["python3", "-m", "netkit", "run", "01-wg-peers",
                                            "-q"], env={"PYTHONPATH": "/labs"}, timeout=120)
        assert "6 of 6 checks passed" in lab
        usage = engine.usage(incus, WORKSHOP)
        assert usage[0].pseudonym == learner.pseudonym and usage[0].rss_bytes > 0
    finally:
        removed = engine.down(incus, WORKSHOP, log=lambda _: None)
    assert "profile zfl-zfltest" in removed and "network zfl-zfltest" in removed
    assert snapshot(incus) == before


def test_a_failed_up_removes_what_it_made():
    incus, box = ready()
    engine.down(incus, WORKSHOP, log=lambda _: None)
    before = snapshot(incus)
    settings = plan.Settings(count=2, report_url="http://10.231.78.1:8000", key="k",
                             workshop=WORKSHOP, subnet="10.231.78.1/24",
                             storage_pool="zfl-no-such-pool")
    with pytest.raises(IncusError, match="Storage pool not found"):
        engine.up(incus, settings, box, secret=lambda: "s", log=lambda _: None)
    assert snapshot(incus) == before
