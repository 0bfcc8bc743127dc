"""labsteps: what the ZFS labs (labkit) and the network labs (netkit) share about steps.

A lab script is divided into steps by ``# step NAME: title`` comments; a line that ends with
``# expect-fail`` must fail (bash, sh and labsim all read both as comments). The two runners
read the same markers: labkit refuses a command before the first marker (no command may hide
outside a step), netkit keeps such lines as a host's unnamed first step (a host's set-up).

A checked step ends as a :class:`StepResult`, what ``verify --json``/``validate --json``
print and what ``--report`` sends to the instructor's server (labsteps.report). This package
uses the standard library only, so it runs in the lab VM's Python and on the host.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

STEP_MARKER = re.compile(r"^\s*#\s*step\s+([a-z][a-z0-9-]*)\s*:\s*(.+?)\s*$")
# A script line that ends with this comment shows a refusal on purpose: it must fail, and the
# lab goes on after it.
EXPECT_FAIL = "# expect-fail"


class StepFormatError(ValueError):
    """A script breaks the step format."""


@dataclass(frozen=True)
class Section:
    """One step of a script: its marker's name and title, and its command lines (stripped;
    blank lines and comments left out). The part before the first marker has name ''."""

    name: str
    title: str
    lines: tuple[str, ...]


def sections(text: str) -> list[Section]:
    """The script's parts in order: the lines before the first marker (name '', left out when
    there are none), then one part per ``# step NAME: title`` marker."""
    out: list[tuple[str, str, list[str]]] = [("", "", [])]
    for raw in text.splitlines():
        marker = STEP_MARKER.match(raw)
        if marker:
            out.append((marker.group(1), marker.group(2), []))
            continue
        line = raw.strip()
        if line and not line.startswith("#"):
            out[-1][2].append(line)
    return [Section(name, title, tuple(lines)) for name, title, lines in out
            if name or lines]


def first_stray_line(text: str) -> tuple[int, str] | None:
    """(line number, command) of the first command before the first marker, if any."""
    for number, raw in enumerate(text.splitlines(), 1):
        if STEP_MARKER.match(raw):
            return None
        line = raw.strip()
        if line and not line.startswith("#"):
            return number, line
    return None


def has_markers(text: str) -> bool:
    return any(STEP_MARKER.match(line) for line in text.splitlines())


@dataclass(frozen=True)
class StepResult:
    """A step's (or a network lab check's) verdict as it is printed as JSON and reported:
    ``passed``, and ``detail``, what was seen when it did not pass (empty when it did)."""

    lab: str
    step: str
    passed: bool
    detail: str = ""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> StepResult:
        return cls(str(data["lab"]), str(data["step"]), bool(data["passed"]),
                   str(data.get("detail", "")))
