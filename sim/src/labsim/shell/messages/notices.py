"""The one form of labsim's honest notice, for whatever it does not simulate.

Issue 16: where labsim stops, it says so in one fixed form containing the words
``not simulated`` and saying where to try the thing for real, never with an error made to
look like the real tool's:

    labsim: zfs send exists in OpenZFS 2.3.9 but is not simulated here; try it on real
    OpenZFS in the lab VM (see vagrant/README.md)
    labsim: ss: `ss -s' is not simulated here; try it in the lab VM (see vagrant/README.md)

Every such text is built by notice(); the others name common cases. Exit status 1 unless a
caller says otherwise (the tool's own "cannot do that" status where it has one).
"""

from __future__ import annotations

LAB_VM = "in the lab VM (see vagrant/README.md)"
REAL_OPENZFS = "on real OpenZFS " + LAB_VM
WORDS = "not simulated"  # what tests/corpus (and a learner) look for


def notice(what: str, *, release: str | None = None, plural: bool = False,
           where: str | None = None) -> str:
    """"labsim: WHAT is not simulated here; try it WHERE". With ``release`` (an OpenZFS
    release): "WHAT exists in OpenZFS RELEASE but is ...", to be tried on real OpenZFS."""
    return "labsim: " + notice_body(what, release=release, plural=plural, where=where)


def notice_body(what: str, *, release: str | None = None, plural: bool = False,
                where: str | None = None) -> str:
    """notice() without its "labsim: " (for a caller that puts the prefix itself)."""
    verb = "are" if plural else "is"
    if release is not None:
        what = f"{what} exist{'' if plural else 's'} in OpenZFS {release} but {verb}"
    else:
        what = f"{what} {verb}"
    if where is None:
        where = REAL_OPENZFS if release is not None else LAB_VM
    return f"{what} {WORDS} here; try it {where}"


def tool_not_simulated(tool: str, what: str) -> str:
    """A form of a tool that is not ZFS (mount, ss, fio, qemu-img, ssh...): ``what`` names
    it, usually the command line as typed ("`ss -s'")."""
    return notice(f"{tool}: {what}")


def command_line_not_simulated(tool: str, argv: list[str]) -> str:
    """The command line as typed, quoted as the GNU tools quote: `tool -x arg'."""
    return tool_not_simulated(tool, f"`{' '.join(argv)}'")


def subcommand_not_simulated(tool: str, sub: str, release: str) -> str:
    """A subcommand real OpenZFS ``release`` has and labsim does not simulate (exit 1)."""
    return notice(f"{tool} {sub}", release=release)


def property_not_simulated(command: str, prop: str, release: str) -> str:
    """A property real OpenZFS ``release`` has and labsim does not simulate: said as such,
    never as the real tools' refusal of a property that does not exist (exit 1)."""
    if ":" in prop:
        return notice(f"{command}: user properties such as '{prop}'", plural=True,
                      where=REAL_OPENZFS)
    return notice(f"{command}: the property '{prop}'", release=release)


def option_not_simulated(command: str, option: str, what: str, release: str) -> str:
    """An option real OpenZFS ``release`` has whose effect labsim does not model (exit 1)."""
    return notice(f"{command} {option} ({what})", release=release)


def not_simulated(command: str, what: str, release: str) -> str:
    """Something real OpenZFS ``release`` does that labsim does not model (exit 1): ``what``
    names it ("setting a property of a snapshot")."""
    return notice(f"{command}: {what}", release=release)


def asks_json(args: list[str], version) -> bool:
    """Whether a command line asks for JSON output (-j, --json, --json-int...), which
    zfs and zpool have since 2.3.0 (an older release refuses -j as an invalid option)."""
    major, minor = (int(part) for part in version.release.split(".")[:2])
    if (major, minor) < (2, 3):
        return False
    return any(arg.startswith("--json") or (arg.startswith("-") and not arg.startswith("--")
                                            and "j" in arg[1:])
               for arg in args if arg != "--")


def get_all_partial(release: str) -> str:
    """After `zfs get all`: the properties labsim simulates, not all of OpenZFS's."""
    return notice(f"zfs get all: the other properties of OpenZFS {release}", plural=True,
                  where=REAL_OPENZFS)
