"""Console blocks of the course's pages: a fenced ```` ```console ```` block is a transcript,
prompt lines (``root@lab:~# zpool list``) and what the commands printed after each.

* :func:`markdown_blocks` finds them in a page's Markdown (at any indentation: inside
  admonitions and tabs too), for the test that runs every lesson's blocks in its terminal
  (tests/docs/test_command_blocks.py);
* :func:`with_copy_text` gives each one in the built HTML a ``data-copy`` attribute holding
  its commands alone, which Material's copy button copies instead of the block's text (its
  clipboard handler takes the closest ``[data-copy]`` ancestor of the code, since 9.4.4), so a
  reader pastes commands without prompts or output.

Standard library only.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

# A prompt: user@host:dir# or user@host:dir$ (root@lab:~#, vagrant@zfl-labs:/labs$), or a
# bare "$ " for the reader's own shell. (Not a bare "# ": that is a comment as often.)
PROMPT = re.compile(r"^(?P<prompt>[\w.-]+@[\w.-]+:[^\s#$]*[#$] |\$ )(?P<command>.*)$")
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*\{?[ \t]*\.?(?P<lang>[\w-]*)"
                   r"(?P<options>.*)$")
TITLE = re.compile(r"\btitle=\"([^\"]*)\"")
CONSOLE_LANGS = frozenset({"console", "shell-session"})
# The titles of blocks that show another machine's session with the terminal's prompt (what
# real OpenZFS printed in the lab VM, a command for a real server): a reader sees the title,
# and the test that runs each block in its lesson's terminal leaves them out.
ELSEWHERE = ("Recorded in the lab VM", "On a real server")


@dataclass(frozen=True)
class Command:
    """One command of a transcript: its prompt, its text (a line ending in a backslash goes
    on to the next) and the lines shown after it until the next prompt."""

    prompt: str
    text: str
    output: tuple[str, ...]


@dataclass(frozen=True)
class Block:
    line: int  # of the opening fence, counting from 1
    lang: str
    lines: tuple[str, ...]  # the body, without the fence's indentation
    title: str = ""  # ```console title="..."

    @property
    def elsewhere(self) -> bool:
        """A session on another machine, shown with its title (ELSEWHERE)."""
        return self.title in ELSEWHERE

    @property
    def commands(self) -> tuple[Command, ...]:
        return transcript(self.lines)


def transcript(lines: list[str] | tuple[str, ...]) -> tuple[Command, ...]:
    """The commands of a console block's lines; lines before the first prompt are not part of
    any command."""
    commands: list[list] = []  # [prompt, text, output lines]
    for line in lines:
        if commands and commands[-1][1].endswith("\\") and not commands[-1][2]:
            commands[-1][1] += "\n" + line
            continue
        match = PROMPT.match(line)
        if match:
            commands.append([match.group("prompt"), match.group("command"), []])
        elif commands:
            commands[-1][2].append(line)
    return tuple(Command(p, t, tuple(o)) for p, t, o in commands)


def markdown_blocks(markdown: str) -> list[Block]:
    """Every fenced console block of a page, in order."""
    blocks: list[Block] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence = opening.group("indent"), opening.group("fence")
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                break
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        if opening.group("lang") in CONSOLE_LANGS:
            title = TITLE.search(opening.group("options"))
            blocks.append(Block(i + 1, opening.group("lang"), tuple(body),
                                title.group(1) if title else ""))
        i = j + 1
    return blocks


def copy_text(lines: list[str] | tuple[str, ...]) -> str:
    """What a console block's copy button copies: its commands, one a line."""
    return "\n".join(command.text for command in transcript(lines))


# The code of a highlighted console block as pymdownx.highlight writes it.
_HTML_BLOCK = re.compile(
    r"(<div class=\"language-(?:console|shell-session) highlight\">"
    r"(?:<span class=\"filename\">[^<]*</span>)?<pre)(\b[^>]*)(>.*?</pre>)",
    re.S)
_TAG = re.compile(r"<[^>]+>")


def with_copy_text(page_html: str) -> str:
    """``page_html`` with ``data-copy`` (the commands alone) on every console block's
    ``<pre>`` that starts with a prompt; another block (output only, or commands without
    prompts) copies as it is."""

    def add(match: re.Match) -> str:
        if "data-copy=" in match.group(2):
            return match.group(0)
        lines = html.unescape(_TAG.sub("", match.group(3)[1:])).splitlines()
        first = next((line for line in lines if line.strip()), "")
        text = copy_text(lines) if PROMPT.match(first) else ""
        if not text:
            return match.group(0)
        value = html.escape(text, quote=True).replace("\n", "&#10;")
        return f'{match.group(1)}{match.group(2)} data-copy="{value}"{match.group(3)}'

    return _HTML_BLOCK.sub(add, page_html)
