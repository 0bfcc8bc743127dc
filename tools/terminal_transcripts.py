"""What a lesson's terminal shows a reader without JavaScript: the lesson's first session (the
commands of the first ``console`` block after the page's first terminal, the block the lesson
introduces with "A first session"), each with the output labsim gives it, run at site build time
through the same bridge (``labsim.web.Bridge``) and the same arguments the page's terminals use
(docs/javascripts/labsim-page.js), for the default OpenZFS release.

Pure functions; tools/mkdocs_hooks.py passes in the ``labsim.web`` module it imported.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass

CONSOLE_BLOCK = re.compile(r"^[ \t]*```console[^\n]*\n(.*?)^[ \t]*```", re.S | re.M)
TERMINAL_DIV = re.compile(r'<div\b[^>]*\bclass="labsim-terminal"[^>]*>')
DATA_ATTR = re.compile(r'\bdata-([a-z]+)="([^"]*)"')


@dataclass(frozen=True)
class Terminal:
    """A terminal of the page, as its data-* attributes describe it."""

    session: str
    prompt: str
    network: str = ""
    host: str = ""
    setup: str = ""

    @classmethod
    def from_attrs(cls, attrs: dict[str, str]) -> Terminal:
        network, host = attrs.get("network", ""), attrs.get("host", "")
        # The session id the page's glue gives it (labsim-page.js, sync()).
        session = attrs.get("session") or (f"{network}:{host}" if network else "default")
        return cls(session=session, prompt=attrs.get("prompt", "$ "), network=network,
                   host=host, setup=attrs.get("setup", ""))


@dataclass(frozen=True)
class Step:
    session: str
    prompt: str
    command: str
    output: str


def page_terminals(markdown: str) -> list[Terminal]:
    return [Terminal.from_attrs({k: html.unescape(v) for k, v in DATA_ATTR.findall(tag)})
            for tag in TERMINAL_DIV.findall(markdown)]


def first_session(markdown: str, terminals: list[Terminal]) -> list[tuple[Terminal, str]]:
    """The commands of the first console block after the page's first terminal, each with
    the terminal whose prompt it starts with (lines with another prompt, or output, are
    left out)."""
    at = TERMINAL_DIV.search(markdown)
    if not at or not terminals:
        return []
    block = CONSOLE_BLOCK.search(markdown, at.end())
    if not block:
        return []
    by_prompt = {t.prompt: t for t in terminals}
    found = []
    for line in (raw.strip() for raw in block.group(1).splitlines()):
        for prompt, terminal in by_prompt.items():
            command = line[len(prompt.strip()):].strip()
            if line.startswith(prompt.strip()) and command:
                found.append((terminal, command))
                break
    return found


def hosts_json(terminals: list[Terminal], network: str) -> str:
    """The hosts of ``network`` as the page's worker passes them: [[host, setup], ...]."""
    return json.dumps([[t.host, t.setup] for t in terminals if t.network == network])


def run(web, terminals: list[Terminal], commands: list[tuple[Terminal, str]]) -> list[Step]:
    """Each command run in its terminal's session, in order, through one labsim.web.Bridge."""
    bridge = web.Bridge()
    steps = []
    for terminal, command in commands:
        reply = json.loads(bridge.terminal(
            terminal.session, command, terminal.network, terminal.host,
            hosts_json(terminals, terminal.network) if terminal.network else "", ""))
        output = "".join(text for _, text in reply["output"])
        steps.append(Step(terminal.session, terminal.prompt, command, output))
    return steps


def transcript_html(terminal: Terminal, steps: list[Step], release: str) -> str:
    """The static stand-in put inside a terminal's <div>: a caption and the transcript
    (shown only without JavaScript: docs/stylesheets/extra.css)."""
    mine = [s for s in steps if s.session == terminal.session]
    on = f" on {terminal.host}" if terminal.host else ""
    by = (f"labsim (simulating OpenZFS {release}) gives" if not terminal.network
          else "labsim's simulated hosts give")
    if mine:
        caption = (f"This terminal needs JavaScript. Below: the lesson's first session{on}, "
                   f"with the output {by} each command (a simulation, not a recording of a "
                   "real machine).")
        lines = []
        for step in mine:
            lines.append(f'<span class="labsim-term-static__prompt">{html.escape(step.prompt)}'
                         f'</span><strong>{html.escape(step.command)}</strong>\n')
            if step.output:
                lines.append(html.escape(step.output if step.output.endswith("\n")
                                         else step.output + "\n"))
        body = f'<pre><code>{"".join(lines).rstrip()}</code></pre>'
    else:
        caption = (f"This terminal{on} needs JavaScript. The lesson's first session runs no "
                   "commands on it.")
        body = ""
    return (f'<div class="labsim-term-static"><p class="labsim-term-static__caption">'
            f'{html.escape(caption)}</p>{body}</div>')
