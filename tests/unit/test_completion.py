"""Tab completion (labsim.completion): what the tools' own usage and listings say, for the word
under the cursor, as OpenZFS's and WireGuard's bash completion scripts find it."""

from __future__ import annotations

import json
import re

import pytest

from labsim.completion import complete, options, subcommands
from labsim.shell.session import Session
from labsim.web import Bridge


@pytest.fixture
def session() -> Session:
    s = Session()
    for line in ("mkdir -p /var/tmp/labs", "truncate -s 1G /var/tmp/labs/v1.raw",
                 "truncate -s 1G /var/tmp/labs/v2.raw", "zpool create tank /var/tmp/labs/v1.raw",
                 "zfs create tank/home", "zfs snapshot tank/home@monday"):
        assert s.run(line).status == 0, line
    return s


def candidates(session: Session, line: str, cursor: int | None = None) -> tuple[str, ...]:
    return complete(session, line, cursor, ["help", "clear"]).candidates


def test_command_position_offers_labsim_commands_and_the_terminals_own(session):
    assert candidates(session, "zp") == ("zpool",)
    assert {"zdb", "zfs", "zpool"} <= set(candidates(session, "z"))
    assert candidates(session, "hel") == ("help",)
    # after a separator a new command starts
    assert candidates(session, "ls; zpo") == ("zpool",)
    assert candidates(session, "true && zf") == ("zfs",)


def test_subcommands_are_the_first_words_of_the_usage_lines(session):
    usage = session.run("zpool").stderr
    listed = {line.split()[0] for line in usage.splitlines() if re.match(r"\t[a-z]", line)}
    assert set(candidates(session, "zpool ")) == listed
    assert candidates(session, "zpool st") == ("status",)
    assert "snapshot" in candidates(session, "zfs ")
    assert subcommands(session, "zfs") == list(dict.fromkeys(subcommands(session, "zfs")))


def test_options_come_from_the_subcommands_synopsis(session):
    assert options("\tlist [-gHLpPv] [-o property[,...]] [-T d|u] [pool] ...") == [
        "-g", "-H", "-L", "-p", "-P", "-v", "-o", "-T"]
    assert options("[-F [-n]] [--rewind-to-checkpoint] <pool | id>") == [
        "-F", "-n", "--rewind-to-checkpoint"]
    assert set(candidates(session, "zpool create -")) >= {"-f", "-n", "-o", "-O", "-m", "-R"}
    assert set(candidates(session, "zfs destroy -")) >= {"-r", "-R", "-f", "-n", "-v"}


def test_pools_datasets_and_snapshots_come_from_the_session(session):
    assert candidates(session, "zpool status t") == ("tank",)
    assert candidates(session, "zpool get size ") == ("tank",)
    assert candidates(session, "zfs list tank/") == ("tank/home",)
    assert candidates(session, "zfs rollback tank/home@") == ("tank/home@monday",)
    assert "tank/home@" in candidates(session, "zfs snapshot tank/h")
    assert candidates(session, "zfs get compression t") == ("tank", "tank/home")


def test_properties_from_the_get_usage_or_the_datasets_listing(session):
    table = session.run("zpool get").stderr
    editable = {line.split()[0] for line in table.splitlines()
                if len(line.split()) > 2 and line.split()[1] == "YES"}
    assert {c.removesuffix("=") for c in candidates(session, "zpool set ")} == editable - {
        "feature@..."}
    assert candidates(session, "zpool set autotrim=") == ("autotrim=off", "autotrim=on")
    assert candidates(session, "zpool get al") == ("all", "allocated", "altroot")
    assert "compression=" in candidates(session, "zfs set ")
    assert "used=" not in candidates(session, "zfs set ")  # read-only
    assert "compressratio" in candidates(session, "zfs get comp")
    assert candidates(session, "zfs list -o name,refer") == ("name,referenced",)
    assert candidates(session, "zfs list -t snap") == ("snapshot",)


def test_paths_complete_files_and_directories(session):
    assert candidates(session, "ls /va") == ("/var/",)
    assert candidates(session, "zpool create new /var/tmp/labs/v") == (
        "/var/tmp/labs/v1.raw", "/var/tmp/labs/v2.raw")
    assert candidates(session, "zpool create new ") == ()  # the new pool's name comes first


def test_the_word_before_the_cursor_is_completed(session):
    found = complete(session, "zpool stat tank", 10)
    assert (found.start, found.word, found.candidates) == (6, "stat", ("status",))


def test_completion_leaves_the_shell_state_alone(session):
    history = session.run("false")
    assert history.status == 1
    before = (session.clock, sorted(session.host_files), sorted(session.pools))
    candidates(session, "zfs get all tank/")
    candidates(session, "zpool create x /var/tmp/")
    assert (session.clock, sorted(session.host_files), sorted(session.pools)) == before


def test_wireguard_subcommands_and_interfaces():
    s = Session()
    s.run("ip link add wg0 type wireguard")
    assert "genkey" in candidates(s, "wg ")
    assert candidates(s, "wg show w") == ("wg0",)
    assert candidates(s, "wg-quick ") == ("down", "save", "strip", "up")


def test_the_bridge_answers_json_for_the_page():
    bridge = Bridge()
    bridge.terminal("t", "truncate -s 1G /var/tmp/a")
    bridge.terminal("t", "zpool create tank /var/tmp/a")
    found = json.loads(bridge.complete("t", "zpool list ta", 13, '["help"]'))
    assert found == {"start": 11, "word": "ta", "candidates": ["tank"], "open": [False]}
    found = json.loads(bridge.complete("t", "ls /va", 6))
    assert found["candidates"] == ["/var/"] and found["open"] == [True]
