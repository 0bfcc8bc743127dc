"""labsim.web and OpenZFS releases: a terminal's machine runs the release the page names when
it is made and keeps it until it is reset; a reset can name a new one; the page's selector
offers the taught releases; the build embeds every widget's first chart for the default."""

from __future__ import annotations

import json

import pytest

from labsim.scenarios import SCENARIOS, controls
from labsim.web import Bridge, has_release_control, initial_payload, release_choices
from labsim.zfs.versions import DEFAULT_VERSION, TAUGHT_VERSIONS, get_version


def version_of(bridge: Bridge, session: str, zfs_version: str = "", **kw) -> str:
    reply = json.loads(bridge.terminal(session, "zfs version", zfs_version=zfs_version, **kw))
    assert reply["status"] == 0, reply
    return reply["stdout"].splitlines()[0]


def line(name: str) -> str:
    version = get_version(name)
    return f"zfs-{version.release}-{version.package_release}"


def test_a_new_session_runs_the_release_named_and_the_default_without_one():
    bridge = Bridge()
    assert version_of(bridge, "plain") == line(DEFAULT_VERSION.name)
    assert version_of(bridge, "old", "2.1") == "zfs-2.1.11-1"
    assert version_of(bridge, "middle", "2.2") == line("2.2")


def test_a_session_keeps_its_release_until_reset():
    bridge = Bridge()
    bridge.terminal("s", "truncate -s 1G /var/tmp/a", zfs_version="2.1")
    # another release named later does not change a machine that exists
    assert version_of(bridge, "s", "2.3") == line("2.1")
    assert json.loads(bridge.terminal("s", "ls /var/tmp", zfs_version="2.3"))["stdout"] == "a\n"
    bridge.reset("s", "2.2")  # a fresh machine of the new release, made at once
    assert bridge.sessions["s"].version is get_version("2.2")
    assert version_of(bridge, "s", "2.3") == line("2.2")
    assert "No such file" in json.loads(bridge.terminal("s", "ls /var/tmp/a"))["stderr"]
    bridge.reset("s")  # without one, the next command makes it, as the release it names
    assert "s" not in bridge.sessions
    assert version_of(bridge, "s", "2.1") == line("2.1")


def test_an_unknown_release_fails_and_keeps_the_machine():
    bridge = Bridge()
    bridge.terminal("s", "truncate -s 1G /var/tmp/a", zfs_version="2.1")
    with pytest.raises(ValueError, match="unknown OpenZFS version '9.9'"):
        bridge.reset("s", "9.9")
    assert version_of(bridge, "s") == line("2.1")
    with pytest.raises(ValueError, match="unknown OpenZFS version"):
        bridge.terminal("new", "zpool list", zfs_version="nine")
    assert "new" not in bridge.sessions


def test_hosts_of_a_network_take_the_release_too():
    bridge = Bridge()
    hosts = json.dumps([["alice", ""], ["bob", ""]])
    assert version_of(bridge, "w-alice", "2.1", network="w", host="alice",
                      hosts=hosts) == line("2.1")
    assert version_of(bridge, "w-bob", network="w", host="bob", hosts=hosts) == line(
        DEFAULT_VERSION.name)


def test_release_choices_are_the_taught_releases_newest_first():
    choices = release_choices()
    assert choices["control"] == controls.ZFS_VERSION
    assert choices["default"] == DEFAULT_VERSION.name
    assert choices["versions"] == [[v.name, v.release] for v in TAUGHT_VERSIONS]
    assert [name for name, _ in choices["versions"]][:3] == ["2.3", "2.2", "2.1"]


def test_initial_payloads_are_for_the_default_release():
    with_control = [name for name in SCENARIOS if has_release_control(name)]
    assert "pools-vdevs" in with_control
    assert not has_release_control("wg-topology")
    for name in with_control:
        defaults = initial_payload(name)["describe"]["defaults"]
        assert defaults[controls.ZFS_VERSION] == DEFAULT_VERSION.name, name
