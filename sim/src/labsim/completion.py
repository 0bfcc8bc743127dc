"""Tab completion for the page's terminal: what bash with the tools' completion scripts
would offer for the word under the cursor.

The mechanism is the tools' own. OpenZFS's bash completion (contrib/bash_completion.d/zfs.in,
zfs-2.3.9) asks the commands themselves: the subcommands are the first words of the usage
lines `zfs` prints without arguments, the properties the rows of the table in `zfs get`'s
usage (EDIT column YES or NO; YES for `set` and `-o`;
while labsim's `zfs get` usage has no table, the properties `zfs get all POOL` shows, those
with a source editable), the datasets `zfs list -H -o name`, the
snapshots `zfs list -H -o name -t snapshot -d 1 DATASET`, the pools `zpool list -H -o name`.
This module runs the same commands in labsim (the usage texts in a scratch session of the
same release, the lists in the learner's own) by calling the command, as bash runs a
completion function: nothing in the session's shell state changes. The options offered
for `zfs SUB -` are the letters of SUB's synopsis in that usage. WireGuard's completion
(wireguard-tools contrib/completion/wg.bash-completion) offers the subcommands `wg --help`
lists and the interfaces of `wg show interfaces`. Any other word completes as a path, as
bash's default does.

So completion knows what labsim's usage texts say, and learns a subcommand or a property
as soon as they list it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from labsim.shell import fs, registry
from labsim.shell.base import CommandResult, UsageError
from labsim.shell.session import Session

# Where a new command starts in a line: after these (outside quotes).
_SEPARATORS = re.compile(r"&&|\|\||[;|&(]")
# A word that ends so is not finished: no space after it.
_OPEN_ENDINGS = ("/", "=", "@", ",", "#")
# zfs.in's literal lists for -t and get's -s and -o.
_ZFS_TYPES = ("filesystem", "volume", "snapshot", "bookmark", "all")
_ZFS_SOURCES = ("local", "default", "inherited", "temporary", "received", "none")
_ZFS_GET_FIELDS = ("name", "property", "value", "source", "received", "all")
# zfs.in: subcommands whose arguments are snapshots (datasets with '@' for the others).
_SNAPSHOT_ARGUMENTS = {"rollback", "send", "bookmark", "destroy", "hold", "release", "holds",
                       "diff"}
# zpool.in: subcommands whose later arguments are devices (files here).
_ZPOOL_DEVICES = {"add", "attach", "clear", "create", "detach", "offline", "online",
                  "remove", "replace", "labelclear", "split", "initialize", "trim"}


@dataclass(frozen=True)
class Completion:
    """The word under the cursor starts at ``start``; each candidate replaces it whole.
    A candidate that ends in one of _OPEN_ENDINGS is not a finished word (a directory, a
    ``property=``, a ``dataset@``): the terminal adds no space after it."""

    start: int
    word: str
    candidates: tuple[str, ...]

    def as_json(self) -> dict[str, object]:
        return {"start": self.start, "word": self.word, "candidates": list(self.candidates),
                "open": [c.endswith(_OPEN_ENDINGS) for c in self.candidates]}


def complete(session: Session, line: str, cursor: int | None = None,
             commands: Iterable[str] = ()) -> Completion:
    """Candidates for the word that ends at ``cursor`` in ``line`` (default: its end).
    ``commands`` are names the caller answers itself (the terminal's ``help``), offered
    with labsim's commands in command position."""
    cursor = len(line) if cursor is None else cursor
    words, start = _words(line[:cursor])
    word = words[-1]
    offer = _candidates(session, words, set(commands))
    matches = sorted({c for c in offer if c.startswith(word)})
    return Completion(start, word, tuple(matches))


def _words(text: str) -> tuple[list[str], int]:
    """The words of the last command in ``text`` (the last one is the word being typed, "" after
    a space) and where that word starts. Quotes are kept as typed: completion does not look
    inside them."""
    begin = 0
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif _SEPARATORS.match(text, i):
            begin = i + 1
    segment = text[begin:]
    words = segment.split()
    if not segment or segment[-1].isspace():
        words.append("")
    return words, len(text) - len(words[-1])


def _candidates(session: Session, words: list[str], extra: set[str]) -> Iterable[str]:
    if len(words) == 1:
        return paths(session, words[0]) if "/" in words[0] else command_names() | extra
    handler = _COMPLETERS.get(words[0])
    return handler(session, words) if handler else paths(session, words[-1])


# ----- what the commands say ------------------------------------------------------------------

def command_names() -> set[str]:
    """The commands labsim answers."""
    return set(registry.commands())


def _run(session: Session, argv: list[str]) -> CommandResult:
    """One command called directly (its output, with no shell around it: $? and the
    history stay as they are)."""
    try:
        return registry.commands()[argv[0]](session, argv)
    except UsageError as err:
        return CommandResult.fail(err.message, err.status)


def _lines(session: Session, argv: list[str]) -> list[str]:
    result = _run(session, argv)
    return result.stdout.splitlines() if result.status == 0 else []


def _usage(session: Session, argv: list[str]) -> str:
    """A usage text, from a scratch machine of the session's release."""
    result = _run(Session(version=session.version), argv)
    return result.stdout + result.stderr


def subcommands(session: Session, tool: str) -> list[str]:
    """zfs.in's __zfs_get_commands: `awk '/^\\t[a-z]/ {print $1}' | cut -f1 -d '|' | uniq`."""
    names = [line.split()[0].split("|")[0] for line in _usage(session, [tool]).splitlines()
             if re.match(r"\t[a-z]", line)]
    return list(dict.fromkeys(names))


def synopsis(session: Session, tool: str, sub: str) -> str:
    """The lines of ``tool``'s usage that belong to ``sub`` (with their continuations)."""
    out, mine = [], False
    for line in _usage(session, [tool]).splitlines():
        if re.match(r"\t[a-z]", line):
            mine = line.split()[0].split("|")[0] == sub
        elif not line.startswith("\t    "):
            mine = False
        if mine:
            out.append(line)
    return "\n".join(out)


def options(text: str) -> list[str]:
    """The options a synopsis names: ``[-fnd]`` gives -f, -n, -d; ``--rewind-to-checkpoint``
    stays whole."""
    found: list[str] = []
    for token in re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", text):
        if token.startswith("--"):
            found.append(token)
        else:
            found.extend(f"-{letter}" for letter in token[1:] if letter.isalpha())
    return list(dict.fromkeys(found))


def property_table(session: Session, tool: str) -> list[tuple[str, bool, str]]:
    """(property, editable, values) from the table in `TOOL get`'s usage (zfs.in:
    `awk '$2 == "YES" || $2 == "NO"'`). For zfs, when labsim's usage has no table, the
    properties `zfs get all` shows for a pool of the session."""
    rows = []
    for line in _usage(session, [tool, "get"]).splitlines():
        cells = line.split()
        if len(cells) >= 2 and cells[1] in ("YES", "NO") and not cells[0].endswith("..."):
            values = line.split(cells[1], 1)[1].strip()
            if len(cells) >= 3 and cells[2] in ("YES", "NO"):  # zfs: EDIT INHERIT VALUES
                values = values.split(None, 1)[1] if " " in values else ""
            rows.append((cells[0], cells[1] == "YES", values))
    if not rows and tool == "zfs" and session.pools:
        # A read-only property has no source ("-").
        pool = sorted(session.pools)[0]
        listed = _lines(session, ["zfs", "get", "-H", "-o", "property,source", "all", pool])
        rows = [(prop, source != "-", "") for prop, _, source in
                (row.partition("\t") for row in listed)]
    return rows


def _values(values: str) -> list[str]:
    """The values a table row lists as ``on | off`` (none for ``<size>``)."""
    words = [v.strip() for v in values.split("|")]
    return [v for v in words if re.fullmatch(r"[\w.-]+", v)]


def pools(session: Session) -> list[str]:
    return _lines(session, ["zpool", "list", "-H", "-o", "name"])


def datasets(session: Session) -> list[str]:
    return _lines(session, ["zfs", "list", "-H", "-o", "name", "-s", "name", "-t",
                            "filesystem,volume"])


def snapshots(session: Session, dataset: str) -> list[str]:
    return _lines(session, ["zfs", "list", "-H", "-o", "name", "-s", "name", "-t", "snapshot",
                            "-d", "1", dataset])


def paths(session: Session, word: str) -> list[str]:
    """Files and directories whose path starts with ``word`` (bash's default completion);
    a directory ends in '/'."""
    head, _, _ = word.rpartition("/")
    directory = session.absolute(head or ("/" if word.startswith("/") else "."))
    if not fs.is_dir(session, directory):
        return []
    # ls lists the files; the directories of the host are the session's own (labsim's ls
    # does not list them).
    inside = directory.rstrip("/") + "/"
    # (labsim's ls puts several names on a line even with -1: the labs' names have no spaces)
    names = set(" ".join(_lines(session, ["ls", "-1", directory])).split())
    names |= {d[len(inside):] for d in session.host_dirs
              if d.startswith(inside) and d != inside and "/" not in d[len(inside):]}
    names |= {p.name for p in session.pools.values() if directory == "/"}  # mountpoints
    prefix = f"{head}/" if head or word.startswith("/") else ""
    return [prefix + name + ("/" if fs.is_dir(session, session.absolute(inside + name)) else "")
            for name in names]


# ----- per command --------------------------------------------------------------------------

def _argument_chosen(words: list[str], firsts: Iterable[str]) -> bool:
    """zfs.in's __zfs_argument_chosen: an earlier argument (not an option's value) is one of
    ``firsts``, or a list, or names a snapshot or bookmark."""
    firsts = list(firsts)
    for i in range(len(words) - 2, 1, -1):
        if re.fullmatch(r"-[tos]", words[i - 1]):
            continue
        earlier = words[i]
        if re.match(r"[^,]*,", earlier) or re.search(r"[@:#]", earlier):
            return True
        if any(earlier.startswith(f) for f in firsts):
            return True
    return False


def _multiple(choices: Iterable[str], word: str) -> list[str]:
    """zfs.in's __zfs_complete_multiple_options: the last item of a comma list."""
    done = word[: word.rfind(",") + 1]
    return [done + c for c in choices]


def _dataset_or_snapshot(session: Session, word: str, want_snapshot: bool) -> list[str]:
    """zfs.in's __zfs_match_snapshot: after '@', that dataset's snapshots; else the datasets,
    and each with '@' where a snapshot is wanted."""
    if "@" in word:
        return snapshots(session, word.split("@", 1)[0])
    names = datasets(session)
    return names + [f"{n}@" for n in names] if want_snapshot else names


def _zfs(session: Session, words: list[str]) -> list[str]:
    word, prev = words[-1], words[-2]
    if len(words) == 2:
        return subcommands(session, "zfs")
    sub = words[1]
    table = property_table(session, "zfs")
    props = [p for p, _, _ in table] + ["all"]
    editable = {p: values for p, edit, values in table if edit}
    if prev == "-o" and sub in ("create", "clone", "snapshot"):
        return _assignments(editable, word)
    if prev == "-t":
        return _multiple(_ZFS_TYPES, word)
    if prev == "-s" and sub == "get":
        return _multiple(_ZFS_SOURCES, word)
    if prev == "-o":
        return _multiple(_ZFS_GET_FIELDS if sub == "get" else props, word)
    if prev in ("-s", "-S"):
        return props
    if prev in ("-d", "-V", "-b"):
        return []
    if word.startswith("-"):
        return options(synopsis(session, "zfs", sub))
    if sub == "get" and not _argument_chosen(words, props):
        return _multiple(props, word)
    if sub == "set" and not _argument_chosen(words, editable):
        return _assignments(editable, word)
    if sub == "inherit" and not _argument_chosen(words, props):
        return props
    if sub == "create":
        return [f"{d}/" for d in datasets(session)]
    return _dataset_or_snapshot(session, word,
                                sub in _SNAPSHOT_ARGUMENTS or sub in ("snapshot", "clone"))


def _assignments(editable: dict[str, str], word: str) -> list[str]:
    """``property=`` for a property being set; its values once the '=' is typed."""
    if "=" in word:
        prop = word.split("=", 1)[0]
        return [f"{prop}={v}" for v in _values(editable.get(prop, ""))]
    return [f"{p}=" for p in editable]


def _zpool(session: Session, words: list[str]) -> list[str]:
    word = words[-1]
    if len(words) == 2:
        return subcommands(session, "zpool")
    sub = words[1]
    if word.startswith("-"):
        return options(synopsis(session, "zpool", sub))
    table = property_table(session, "zpool")
    editable = {p: values for p, edit, values in table if edit}
    if words[-2] == "-o" and sub in ("create", "add", "attach", "replace", "split", "import"):
        return _assignments(editable, word)
    if words[-2] == "-O" and sub == "create":
        zfs_editable = {p: v for p, edit, v in property_table(session, "zfs") if edit}
        return _assignments(zfs_editable, word)
    if words[-2] == "-d" and sub == "import":
        return [p for p in paths(session, word) if p.endswith("/")]
    names = pools(session)
    if sub == "get":
        return names if _argument_chosen(words, [p for p, _, _ in table]) else \
            _multiple([p for p, _, _ in table] + ["all"], word)
    if sub == "set":
        return names if _argument_chosen(words, editable) else _assignments(editable, word)
    if sub == "create":
        # A new pool's name first, then its devices.
        return paths(session, word) if _arguments(words) else []
    if sub in _ZPOOL_DEVICES:
        return paths(session, word) if _argument_chosen(words, names) else names
    return names


def _arguments(words: list[str]) -> list[str]:
    """The arguments typed before the current word (not options nor their values)."""
    out = []
    skip = False
    for w in words[2:-1]:
        if skip:
            skip = False
        elif w.startswith("-"):
            skip = w in ("-o", "-O", "-m", "-R", "-d", "-c", "-t")
        else:
            out.append(w)
    return out


def _wg(session: Session, words: list[str]) -> list[str]:
    if len(words) == 2:
        usage = _usage(session, ["wg", "--help"])
        return [line.split(":")[0].strip() for line in usage.splitlines()
                if re.match(r"  [a-z]+:", line)]
    if len(words) == 3 and words[1] in ("show", "showconf", "set", "setconf", "addconf",
                                        "syncconf"):
        interfaces = " ".join(_lines(session, ["wg", "show", "interfaces"])).split()
        return interfaces + (["all", "interfaces"] if words[1] == "show" else [])
    return paths(session, words[-1])


def _wg_quick(session: Session, words: list[str]) -> list[str]:
    if len(words) == 2:
        usage = _usage(session, ["wg-quick"])
        found = re.search(r"\[ ([a-z |]+) \]", usage)
        return found.group(1).replace(" ", "").split("|") if found else []
    configs = [p.removesuffix(".conf") for p in paths(session, "/etc/wireguard/")
               if p.endswith(".conf")]
    return [c.rsplit("/", 1)[1] for c in configs] + paths(session, words[-1])


_COMPLETERS: dict[str, Callable[[Session, list[str]], Iterable[str]]] = {
    "zfs": _zfs, "zpool": _zpool, "wg": _wg, "wg-quick": _wg_quick,
}
