"""labsim.limits, the one list of what labsim does not model, is honest: every example says
so in labsim's own answer, and every subcommand and property it lists as not simulated is one
real OpenZFS has and labsim answers with "not simulated"."""

import pytest

from labsim import Session
from labsim.limits import LIMITS, limits_markdown, unsimulated_properties, unsimulated_subcommands
from labsim.zfs.versions import TAUGHT_VERSIONS

HONEST = ("not simulated",)


@pytest.mark.parametrize("limit", [lim for lim in LIMITS if lim.example],
                         ids=lambda lim: lim.example)
def test_each_example_says_it_is_not_modelled(limit):
    session = Session()
    for line in limit.setup:
        assert session.run(line).status == 0, line
    result = session.run(limit.example)
    said = result.stdout + result.stderr
    assert result.status != 0 and said.startswith("labsim:") and any(h in said for h in HONEST)


@pytest.mark.parametrize("version", TAUGHT_VERSIONS, ids=lambda v: v.name)
def test_unsimulated_subcommands_say_so(version):
    session = Session(version=version)
    listed = unsimulated_subcommands(version)
    assert "send" in listed["zfs"] and "checkpoint" in listed["zpool"]
    for tool, subs in listed.items():
        for sub in subs:
            result = session.run(f"{tool} {sub}")
            assert "not simulated" in result.stderr, (tool, sub, result.stderr)


@pytest.mark.parametrize("version", TAUGHT_VERSIONS, ids=lambda v: v.name)
def test_unsimulated_dataset_properties_say_so(version):
    session = Session(version=version)
    for line in ("mkdir -p /var/tmp/labs", "truncate -s 1G /var/tmp/labs/p.raw",
                 "zpool create p /var/tmp/labs/p.raw"):
        assert session.run(line).status == 0
    props = unsimulated_properties(version)
    assert "quota" in props["dataset"] and "compression" not in props["dataset"]
    assert "atime" not in props["dataset"]  # stored: labsim.shell.commands.zfs_properties
    for prop in props["dataset"]:
        result = session.run(f"zfs get {prop} p")
        assert "not simulated" in result.stderr, (prop, result.stderr)
    for prop in props["pool"]:
        result = session.run(f"zpool get {prop} p")
        assert "not simulated" in result.stderr, (prop, result.stderr)


def test_the_page_lists_every_limit_and_the_release():
    version = TAUGHT_VERSIONS[0]
    text = limits_markdown(version)
    assert all(limit.what in text for limit in LIMITS)
    assert f"OpenZFS {version.release} not simulated" in text
