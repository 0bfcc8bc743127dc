"""Every command block of a lesson runs as written in that lesson's terminal.

A lesson's console blocks (tools/console_blocks.py) whose prompts are those of the page's
terminals (``data-prompt``: ``root@lab:~# ``, ``root@alice:~# ``) run through labsim.web's
Bridge, the object the page's worker calls, with each terminal's own session, network, host and
setup as the page gives them. Blocks for another machine (``$ `` on the host, the lab VM's
``vagrant@zfl-labs``, and blocks titled as another machine's session: ``Recorded in the lab
VM``, ``On a real server``, console_blocks.ELSEWHERE) are not the terminal's and are left out.

A reader meets a block either after the page's earlier blocks, typed in the same terminal, or
in a terminal just opened or reset. So each block runs after the earlier ones, in page order;
if it fails there, it runs again on fresh machines (and the page goes on from there). It fails
when it fails both ways: a crash of the simulator, a ``command not found``, or a command that
exits with an error (or says ``not simulated``) where the block does not show that error as
the command's output.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import console_blocks  # noqa: E402
import terminal_transcripts  # noqa: E402
from terminal_transcripts import Terminal  # noqa: E402

from labsim.web import Bridge  # noqa: E402

LESSONS = sorted((ROOT / "docs" / "lessons").glob("*.md"))
# The terminal's own commands (labsim-terminal-text.js OWN_COMMANDS): the page answers them.
OWN_COMMANDS = ("help", "man", "clear")


@dataclass
class Machines:
    """The page's terminals on one Bridge, as the page's worker holds them."""

    terminals: dict[str, Terminal]  # by prompt
    bridge: Bridge = field(default_factory=Bridge)

    def hosts(self, network: str) -> str:
        return terminal_transcripts.hosts_json(list(self.terminals.values()), network)

    def run(self, prompt: str, line: str) -> dict:
        t = self.terminals[prompt]
        return json.loads(self.bridge.terminal(t.session, line, t.network, t.host,
                                               self.hosts(t.network) if t.network else ""))


def page_terminals(markdown: str) -> dict[str, Terminal]:
    """The page's terminals by prompt, read as the site build reads them
    (tools/terminal_transcripts.py)."""
    return {t.prompt: t for t in terminal_transcripts.page_terminals(markdown)}


def _squash(text: str) -> str:
    return " ".join(text.split())


def block_failures(machines: Machines, block: console_blocks.Block) -> list[str]:
    """What went wrong running ``block`` on ``machines`` (empty when nothing did)."""
    failures = []
    for command in block.commands:
        if command.text.split()[:1] and command.text.split()[0] in OWN_COMMANDS:
            continue
        reply = machines.run(command.prompt, command.text)
        said = reply["stderr"] + reply["stdout"]
        what = f"line {block.line}: {command.prompt}{command.text}"
        if "labsim: internal error" in reply["stderr"]:
            failures.append(f"{what}: crashed: {reply['stderr'].strip()}")
        elif "command not found" in reply["stderr"]:
            failures.append(f"{what}: {reply['stderr'].strip()}")
        elif reply["status"] != 0 or "not simulated" in said:
            error = next((line for line in (reply["stderr"] or reply["stdout"]).splitlines()
                          if line.strip()), f"exit status {reply['status']}")
            if _squash(error) not in _squash("\n".join(command.output)):
                failures.append(f"{what}: {error.strip()} (exit status {reply['status']}), "
                                "which the block does not show")
    return failures


def terminal_blocks(markdown: str, terminals: dict[str, Terminal]) -> list[console_blocks.Block]:
    """The console blocks of a page that are typed into its terminals: every prompt is one of
    theirs."""
    return [block for block in console_blocks.markdown_blocks(markdown)
            if block.commands and not block.elsewhere
            and all(c.prompt in terminals for c in block.commands)]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_every_command_block_runs_in_the_lessons_terminal(path):
    markdown = path.read_text()
    terminals = page_terminals(markdown)
    assert terminals, f"{path.name} has no terminal"
    blocks = terminal_blocks(markdown, terminals)
    assert blocks, f"{path.name} has no command block for its terminal"
    machines = Machines(terminals)
    failures = []
    for block in blocks:
        after_the_others = block_failures(machines, block)
        if after_the_others:
            machines = Machines(terminals)  # a fresh page: every terminal just opened
            on_fresh_machines = block_failures(machines, block)
            if on_fresh_machines:
                failures += on_fresh_machines
    assert not failures, f"{path.name}:\n" + "\n".join(failures)


def test_a_failure_is_found_and_an_error_the_block_shows_is_not_one():
    terminals = {"root@lab:~# ": Terminal("t", "root@lab:~# ")}
    block = console_blocks.markdown_blocks(
        "```console\n"
        "root@lab:~# truncate -s 1G /var/tmp/labs/a.raw\n"
        "root@lab:~# zpool create tank /nonexistent\n"
        "cannot resolve path '/nonexistent'\n"
        "root@lab:~# frobnicate\n"
        "```\n")[0]
    found = block_failures(Machines(terminals), block)
    assert len(found) == 2, found
    assert "truncate" in found[0] and "No such file or directory" in found[0]
    assert "frobnicate: command not found" in found[1]


def test_blocks_for_other_machines_are_left_out():
    markdown = ("```console\n$ python -m labsim labs/scripts/01-pools-vdevs.sh\n```\n"
                "    ```console\n    root@lab:~# zpool list\n    no pools available\n    ```\n"
                '```console title="Recorded in the lab VM"\nroot@lab:~# zpool list lab\n```\n')
    terminals = {"root@lab:~# ": Terminal("t", "root@lab:~# ")}
    blocks = terminal_blocks(markdown, terminals)
    assert [b.line for b in blocks] == [4]
    assert block_failures(Machines(terminals), blocks[0]) == []
