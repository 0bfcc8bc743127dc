"""Reading transcripts ("$ command" followed by its output) and comparing their numbers.

A transcript recorded on real OpenZFS and one produced by labsim from the same script are
compared block by block: every `zpool list -p` / `zfs list -p` figure and every
`zfs get -p` space or ratio value within a tolerance, and every error message word for
word. Timings (dd) and other free-form output are ignored. The intent-log counters, file
listings and `zpool iostat -v` rows of lab 5 are compared as zil_compare.py describes.

Space figures (SIZE, FREE, AVAIL, USED, REFER, LUSED, USEDSNAP, USEDDS, USEDCHILD; used,
available, referenced, logicalused, logicalreferenced) are compared within 1 %; compression
ratios (RATIO, compressratio, printed with two decimals) within 0.01; ORIGIN, EXPANDSZ
(whole metaslabs) and what `zfs destroy -v` would destroy and reclaim exactly.

`zpool status` is compared character for character except for what a simulator cannot
know or can only estimate: the duration and the date of the `scan:` line are the
recording machine's (they are not compared), the bytes a scrub repaired or a resilver
copied are compared within the per-vdev ALLOC tolerance once the human-readable size is
parsed back, and the READ/WRITE/CKSUM counters within COUNTER_TOLERANCE; a device missing
at import is named by its random guid, which is not compared either. The same goes
for a scan in progress (OpenZFS 2.2 and later: its date, rates, percentage and time to go
are not compared, its byte counts are, within the per-vdev ALLOC tolerance) and for the
`expand:` line of a RAID-Z expansion (OpenZFS 2.3, print_raidz_expand_status(): its date,
rate, percentage and durations are not compared, the bytes copied and to copy are).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from zdb_compare import compare_zdb, is_zdb_metaslabs
from zil_compare import (
    compare_iostat,
    compare_kstat_steps,
    compare_names,
    is_iostat_verbose,
    is_plain_ls,
    is_zil_kstat,
)
from zvol_compare import (
    compare_amplification,
    compare_exact,
    is_amplification_get,
    is_exact_get,
)

PROMPT = "$ "

# Relative tolerances (issue: simulator versus reality).
SPACE_TOLERANCE = 0.01  # SIZE, FREE, AVAIL, USED, REFER
VDEV_ALLOC_TOLERANCE = 0.05  # per-vdev ALLOC
# ALLOC of a nearly empty pool or vdev is a few hundred KiB of metadata: compare it in
# absolute terms below this many bytes.
SMALL_ALLOC = 4 << 20
COUNTER_TOLERANCE = 0.05  # READ, WRITE, CKSUM of zpool status (issue: within 5 %)
# RATIO / compressratio (issue 4): 0.01, the last digit zfs prints, or as much as a 1 %
# difference of its denominator moves it (SPACE_TOLERANCE: the ratio is logical over used
# bytes, each a space figure), whichever is larger. At 1.5x that is still 0.015; at 53x
# (a file of one repeated byte under gzip) a single 512-byte sector of USED moves the
# ratio by more than 0.01.
RATIO_TOLERANCE = 0.01
RATIO_COLUMNS = ("RATIO", "REFRATIO")
# The usedby* breakdown of USED (lab 6): space figures like USED.
USED_BY_COLUMNS = ("USEDSNAP", "USEDDS", "USEDCHILD", "USEDREFRESERV")
# zfs get properties compared, by the column zfs list would give them
GET_PROPERTY_COLUMNS = {"used": "USED", "available": "AVAIL", "referenced": "REFER",
                        "logicalused": "LUSED", "logicalreferenced": "LREFER",
                        "compressratio": "RATIO", "refcompressratio": "REFRATIO"}

# print_scan_status() (cmd/zpool/zpool_main.c) for a finished scan:
# "  scan: scrub repaired 48.4M in 00:00:01 with 0 errors on Sun Nov 22 06:31:06 2026"
# "  scan: resilvered 24.4M in 00:00:00 with 0 errors on Sun Nov 22 06:31:07 2026"
SCAN_LINE = re.compile(r"^  scan: (scrub repaired|resilvered) (\S+) in (.+?) with (\d+) errors "
                       r"on (.+)$")
# print_scan_scrub_resilver_status() (2.2 and later) for a scan in progress:
# "  scan: scrub in progress since Wed Nov 25 17:08:04 2026"
# "\t73.0M / 73.0M scanned[ at 12M/s], 0B / 72.6M issued[ at 1M/s]"
# "\t0B repaired, 0.00% done, no estimated completion time" (or ", 00:00:05 to go")
SCAN_RUNNING = re.compile(r"^  scan: (scrub|resilver) in progress since .+$")
SCAN_PROGRESS = re.compile(r"^\t(\S+) / (\S+) scanned(?: at \S+/s)?, (\S+) / (\S+) issued"
                           r"(?: at \S+/s)?$")
SCAN_DONE_SO_FAR = re.compile(r"^\t(\S+) (repaired|resilvered), \d+\.\d\d% done, (.*)$")
# print_raidz_expand_status() (2.3):
# "expand: expansion of raidz1-0 in progress since Wed Nov 25 17:08:01 2026"
# "\t1 / 72.8M copied at 1/s, 0.00% done, (copy is slow, no estimated time)"
# "expand: expanded raidz1-0 copied 59.8M in 00:00:03, on Wed Nov 25 17:08:04 2026"
EXPAND_RUNNING = re.compile(r"^expand: expansion of (\S+) in progress since .+$")
EXPAND_PROGRESS = re.compile(r"^\t(\S+) / (\S+) copied at \S+/s, \d+\.\d\d% done, (.*)$")
EXPAND_DONE = re.compile(r"^expand: expanded (\S+) copied (\S+) in .+?, on .+$")
# The end of a progress line: how long is left (timing) is not compared, whether an
# estimate is given is.
TIME_TO_GO = re.compile(r"^\S+( days \S+)? to go$")
# print_status_config(): "\t<indent><name>  <state> <read> <write> <cksum>[  <note>]"
CONFIG_ROW = re.compile(r"^(\t\s*\S+\s+[A-Z]+)(\s+)(\S+)(\s+)(\S+)(\s+)(\S+)(.*)$")
# A device not found at import is named by its guid, a random number (zpool_vdev_name()
# with ZPOOL_CONFIG_NOT_PRESENT, lib/libzfs/libzfs_pool.c), "was <path>" after its row.
MISSING_DEVICE = re.compile(r"^(\t\s+)(\d{6,20})(\s+)(?=[A-Z]+\s)")
MISSING_NAME = re.compile(r"\d{6,20}")
_UNITS = "BKMGTPE"


@dataclass
class Block:
    command: str
    output: str


def parse(text: str) -> list[Block]:
    blocks: list[Block] = []
    for line in text.splitlines(keepends=True):
        if line.startswith(PROMPT):
            blocks.append(Block(line[len(PROMPT):].rstrip("\n"), ""))
        elif line.startswith("# "):
            continue  # a note, not output
        elif blocks:
            blocks[-1].output += line
    return blocks


def table(output: str) -> dict[str, dict[str, str]]:
    """Rows of a `zpool list -p` / `zfs list -p` table, keyed by their NAME column."""
    lines = [line for line in output.splitlines() if line.strip()]
    if not lines:
        return {}
    header = lines[0].split()
    rows = {}
    missing = 0
    for line in lines[1:]:
        cells = line.split()
        if len(cells) > len(header):
            # `zpool list -v -o ...` prints every column on the vdevs' rows whatever -o
            # says (collect_list_stats(), cmd/zpool/zpool_main.c): pairing those cells with
            # the header would compare the wrong columns. Refuse rather than pass.
            raise ValueError(f"a row has more cells than the header {header}: {line!r}")
        if MISSING_NAME.fullmatch(cells[0]):
            # a device not found at import, named by its random guid (MISSING_DEVICE):
            # compared by its place among such rows, not by the number
            missing += 1
            cells[0] = f"<guid {missing}>"
        rows[cells[0]] = dict(zip(header, cells, strict=False))
    return rows


def is_compared_listing(command: str) -> bool:
    words = command.split()
    return (len(words) >= 2 and words[0] in ("zpool", "zfs") and words[1] == "list"
            and any(re.fullmatch(r"-\w*p\w*", w) for w in words[2:])
            and not any(re.fullmatch(r"-\w*H\w*", w) for w in words[2:]))


def is_compared_get(command: str) -> bool:
    """`zfs get -p` with the default NAME PROPERTY VALUE SOURCE columns and a header."""
    words = command.split()
    return (words[:2] == ["zfs", "get"]
            and any(re.fullmatch(r"-\w*p\w*", w) for w in words[2:])
            and not any(re.fullmatch(r"-\w*H\w*", w) or w.startswith("-o") for w in words[2:]))


def get_table(output: str) -> dict[str, dict[str, str]]:
    """The rows of a `zfs get -p` table as a listing: each dataset's compared properties
    under the column names zfs list uses (used -> USED, compressratio -> RATIO)."""
    lines = [line for line in output.splitlines() if line.strip()]
    rows: dict[str, dict[str, str]] = {}
    for line in lines[1:]:
        cells = line.split()
        if len(cells) >= 3 and cells[1] in GET_PROPERTY_COLUMNS:
            rows.setdefault(cells[0], {"NAME": cells[0]})[GET_PROPERTY_COLUMNS[cells[1]]] = \
                cells[2]
    return rows


def compare(real: str | list[str], simulated: str, *, presence: bool = False) -> list[str]:
    """Every disagreement between real transcript(s) and labsim's, as readable lines.

    Real OpenZFS is not deterministic: with the allocation throttle, which vdev receives a
    block depends on how fast each write completes, and two recordings of the same script
    split the data differently. Given several recordings, a figure passes when it lies
    within the tolerance of the range the real runs spanned, and a text (an error, the
    rows of a listing, a status) when one of the runs printed it.

    With ``presence`` (lab 8, where which blocks a dd hits depends on real allocation),
    `zpool status` numbers (counters, scan amounts and error counts) are compared only as
    zero or not zero; its texts stay exact.
    """
    runs = [real] if isinstance(real, str) else list(real)
    parsed = [parse(text) for text in runs]
    sim_blocks = parse(simulated)
    commands = [b.command for b in sim_blocks]
    if any([b.command for b in blocks] != commands for blocks in parsed):
        return ["the transcripts are of different command sequences"]
    problems = []
    kstat_readings = []
    for index, s in enumerate(sim_blocks):
        where = f"command {index + 1} `{s.command}`"
        outputs = [blocks[index].output for blocks in parsed]
        words = s.command.split()
        if is_zil_kstat(s.command):
            kstat_readings.append((where, outputs, s.output))
        elif is_amplification_get(s.command):  # lab 7 (zvol_compare.py)
            problems += compare_amplification(where, outputs, s.output)
        elif is_exact_get(s.command):  # lab 7: volsize, volblocksize, refreservation
            problems += compare_exact(where, outputs, s.output)
        elif is_plain_ls(s.command):
            problems += compare_names(where, outputs, s.output)
        elif is_iostat_verbose(s.command):
            problems += compare_iostat(where, outputs, s.output)
        if words[:2] in (["zpool", "list"], ["zfs", "list"]) and outputs[0].strip():
            # Same columns, same widths: the header line must match one run's character for
            # character (the widths follow the figures, which differ between runs).
            headers = [o.splitlines()[0] for o in outputs if o.strip()]
            if s.output.split("\n", 1)[0] not in headers:
                problems.append(f"{where}: header {headers[0]!r} on real OpenZFS, "
                                f"{s.output.splitlines()[:1]} in labsim")
        if words[:2] == ["zpool", "status"]:
            problems += compare_status(where, outputs, s.output, presence=presence)
        if words[:2] == ["zpool", "import"] and IMPORT_POOL.match(outputs[0]):
            problems += compare_import_listing(where, outputs, s.output)
        if is_zdb_metaslabs(s.command):
            # zdb -m: metaslab counts, offsets and free space per vdev (zdb_compare.py)
            problems += compare_zdb(where, outputs, s.output)
        elif is_compared_listing(s.command):
            problems += _compare_tables(where, [table(o) for o in outputs], table(s.output))
        elif is_compared_get(s.command):
            problems += _compare_tables(where, [get_table(o) for o in outputs],
                                        get_table(s.output))
        elif s.command.split()[0] in ("zpool", "zfs") and any(map(_is_error, outputs)) \
                and s.output not in outputs:
            # A refusal some runs gave and others did not (a volume udev still holds open)
            # is real either way: labsim agrees when it says what one of the runs said.
            said = next(o for o in outputs if _is_error(o))
            problems.append(f"{where}: real said {said!r}, labsim said {s.output!r}")
    # /proc/spl/kstat/zfs/zil: what each step added, between consecutive readings
    problems += compare_kstat_steps(kstat_readings)
    return problems


def _is_error(output: str) -> bool:
    """An error or a warning (zfs create -V's about the volblocksize), or what zfs destroy
    -v says it would (will) destroy and reclaim: compared word for word."""
    return output.startswith(("cannot ", "invalid ", "missing ", "property ", "would destroy ",
                              "will destroy ", "Warning: "))


def _compare_tables(where: str, reals: list[dict], sim: dict) -> list[str]:
    problems = []
    # The rows of the runs that listed the same datasets or vdevs as labsim (runs can
    # differ: a destroy refused in one run as busy); the figures are judged against those.
    reals = [real for real in reals if set(real) == set(sim)] or reals
    if any(set(real) != set(sim) for real in reals):
        return [f"{where}: rows {sorted(reals[0])} on real OpenZFS, {sorted(sim)} in labsim"]
    for name, row in reals[0].items():
        is_vdev = name.startswith("/")
        for column, value in row.items():
            if column == "ORIGIN" and any(real[name].get(column) != sim[name].get(column)
                                          for real in reals):
                problems.append(f"{where}: {name} ORIGIN real {value}, "
                                f"labsim {sim[name].get(column)}")
                continue
            if column in RATIO_COLUMNS:
                problems += _compare_ratio(where, name, column,
                                           [real[name].get(column, "") for real in reals],
                                           sim[name].get(column, ""))
                continue
            if column == "EXPANDSZ":
                # vs_esize: whole metaslabs, "-" for none; compared exactly
                seen_esize = {real[name].get(column) for real in reals}
                if sim[name].get(column) not in seen_esize:
                    problems.append(f"{where}: {name} EXPANDSZ real "
                                    f"{' or '.join(sorted(map(str, seen_esize)))}, "
                                    f"labsim {sim[name].get(column)}")
                continue
            tolerance = _tolerance(column, is_vdev)
            if tolerance is None or not value.isdigit():
                continue
            seen = [int(real[name][column]) for real in reals]
            low, high = min(seen), max(seen)
            got = int(sim[name].get(column, "-1"))
            if column == "ALLOC" and max(high, got) < SMALL_ALLOC:
                continue
            inside = low * (1 - tolerance) <= got <= high * (1 + tolerance)
            if column == "USEDREFRESERV" and row.get("REFER", "").isdigit():
                # refreservation less REFER (lab 7): off by as much as REFER may be
                slack = tolerance * int(row["REFER"])
                inside = low - slack <= got <= high + slack
            if not inside:
                span = f"{low}" if low == high else f"{low}..{high}"
                problems.append(f"{where}: {name} {column} real {span}, labsim {got} "
                                f"({(got - high if got > high else got - low) / max(low, 1):+.2%}"
                                " outside)")
    return problems


def _compare_ratio(where: str, name: str, column: str, reals: list[str], got: str) -> list[str]:
    """A compression ratio ("1.87", or "1.87x" without -p) within RATIO_TOLERANCE of the
    range the real runs printed, or within SPACE_TOLERANCE of it relatively."""
    def number(text: str) -> float | None:
        try:
            return float(text.rstrip("x"))
        except ValueError:
            return None

    seen = [v for v in (number(r) for r in reals) if v is not None]
    if not seen:
        return []
    value = number(got)
    low, high = min(seen), max(seen)
    below = max(RATIO_TOLERANCE, low * SPACE_TOLERANCE) + 1e-9
    above = max(RATIO_TOLERANCE, high * SPACE_TOLERANCE) + 1e-9
    if value is None or not low - below <= value <= high + above:
        span = f"{low:.2f}" if low == high else f"{low:.2f}..{high:.2f}"
        return [f"{where}: {name} {column} real {span}, labsim {got or 'nothing'}"]
    return []


def _tolerance(column: str, is_vdev: bool) -> float | None:
    if is_vdev and column == "FREE":
        return None  # a vdev's FREE is its usable space less ALLOC: judged through ALLOC
    if column in ("SIZE", "FREE", "AVAIL", "USED", "REFER", "LUSED", "LREFER", *USED_BY_COLUMNS):
        return SPACE_TOLERANCE
    if column == "ALLOC":
        return VDEV_ALLOC_TOLERANCE if is_vdev else SPACE_TOLERANCE
    return None


def parse_nicenum(text: str) -> float | None:
    """A size or count as zfs_nicenum()/zfs_nicebytes() print it ("0", "470", "48.4M",
    "1.50G", "0B"), in bytes or units; None if it is not one."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([BKMGTPE]?)", text)
    if match is None:
        return None
    number, unit = match.groups()
    return float(number) * 1024 ** (_UNITS.index(unit) if unit else 0)


@dataclass
class StatusShape:
    """A `zpool status` output split into its exact text (``text``, with placeholders
    where numbers were) and the numbers compared within a tolerance: ``amounts`` (bytes
    of scan lines) and ``counters`` (READ/WRITE/CKSUM, row by row)."""

    text: str
    amounts: list[float]
    counters: list[float]


def status_shape(output: str, presence: bool = False) -> StatusShape:
    """With ``presence``, the scan line's error count is a number too (in ``amounts``)."""
    lines, amounts, counters = [], [], []
    for line in output.splitlines():
        # the guid's digits replaced, the columns kept where they were
        line = MISSING_DEVICE.sub(lambda m: m.group(1) + "<guid>".ljust(
            len(m.group(2)) + len(m.group(3)) - 1) + " ", line)
        scan = SCAN_LINE.match(line)
        if scan:
            kind, amount, _duration, errors, _date = scan.groups()
            value = parse_nicenum(amount)
            if value is not None:
                amounts.append(value)
                amount = "<bytes>"
            if presence:
                amounts.append(float(errors))
                errors = "<n>"
            lines.append(f"  scan: {kind} {amount} in <duration> with {errors} errors on <date>")
            continue
        shaped = _progress_shape(line, amounts)
        if shaped is not None:
            lines.append(shaped)
            continue
        row = CONFIG_ROW.match(line)
        values = [parse_nicenum(row.group(i)) for i in (3, 5, 7)] if row else [None]
        if row and None not in values and "NAME" not in line:
            counters += values
            # Counters are right-aligned in 5 columns: keep the row's width, not its digits.
            lines.append(row.group(1) + " <n> <n> <n>" + row.group(8))
            continue
        lines.append(line)
    return StatusShape("\n".join(lines), amounts, counters)


def _progress_shape(line: str, amounts: list[float]) -> str | None:
    """A line of a scan in progress or of a RAID-Z expansion as text with placeholders,
    its byte counts appended to ``amounts``; None for any other line."""
    def amount(text: str) -> str:
        value = parse_nicenum(text)
        if value is None:
            return text
        amounts.append(value)
        return "<bytes>"

    def to_go(text: str) -> str:
        return "<duration> to go" if TIME_TO_GO.match(text) else text

    if (match := SCAN_RUNNING.match(line)) is not None:
        return f"  scan: {match.group(1)} in progress since <date>"
    if (match := SCAN_PROGRESS.match(line)) is not None:
        a, b, c, d = (amount(g) for g in match.groups())
        return f"\t{a} / {b} scanned, {c} / {d} issued"
    if (match := SCAN_DONE_SO_FAR.match(line)) is not None:
        return (f"\t{amount(match.group(1))} {match.group(2)}, <percent> done, "
                f"{to_go(match.group(3))}")
    if (match := EXPAND_RUNNING.match(line)) is not None:
        return f"expand: expansion of {match.group(1)} in progress since <date>"
    if (match := EXPAND_PROGRESS.match(line)) is not None:
        copied, total = amount(match.group(1)), amount(match.group(2))
        return f"\t{copied} / {total} copied at <rate>, <percent> done, {to_go(match.group(3))}"
    if (match := EXPAND_DONE.match(line)) is not None:
        return (f"expand: expanded {match.group(1)} copied {amount(match.group(2))} in "
                f"<duration>, on <date>")
    return None


def compare_status(where: str, reals: list[str], simulated: str,
                   presence: bool = False) -> list[str]:
    """`zpool status` of labsim against the real run(s), as the module docstring says;
    with ``presence``, numbers only as zero or not (compare())."""
    sim = status_shape(simulated, presence)
    shapes = [status_shape(real, presence) for real in reals]
    if all(shape.text != sim.text for shape in shapes):
        return [f"{where}: real printed {reals[0]!r}, labsim {simulated!r}"]
    problems = []
    if presence:
        for label, pick in (("scan number", lambda x: x.amounts),
                            ("counter", lambda x: x.counters)):
            for i, got in enumerate(pick(sim)):
                seen = {pick(shape)[i] == 0 for shape in shapes
                        if len(pick(shape)) == len(pick(sim))}
                if len(seen) == 1 and seen != {got == 0}:
                    real = "zero" if seen == {True} else "not zero"
                    problems.append(f"{where}: {label} #{i + 1} real {real}, labsim {got:g}")
        return problems
    for label, tolerance, pick in (("scan amount", VDEV_ALLOC_TOLERANCE, lambda x: x.amounts),
                                   ("counter", COUNTER_TOLERANCE, lambda x: x.counters)):
        got_all = pick(sim)
        for i, got in enumerate(got_all):
            seen = [pick(shape)[i] for shape in shapes if len(pick(shape)) == len(got_all)]
            if not seen:
                continue
            low, high = min(seen), max(seen)
            if not low * (1 - tolerance) <= got <= high * (1 + tolerance):
                span = f"{low:g}" if low == high else f"{low:g}..{high:g}"
                problems.append(f"{where}: {label} #{i + 1} real {span}, labsim {got:g}")
    return problems


# show_import(): "   pool: lab8" and "     id: 15144803977964153230" (the pool's random
# guid) up to 2.2, "  pool: lab8" and "    id: ..." from 2.3.0
IMPORT_POOL = re.compile(r"^ {2,3}pool: ")
IMPORT_ID = re.compile(r"^( {4,5})id: \d+$", re.MULTILINE)


def compare_import_listing(where: str, reals: list[str], simulated: str) -> list[str]:
    """`zpool import` listing pools (lab 8): exact but for each pool's random id."""
    masked = [IMPORT_ID.sub(r"\1id: <guid>", text) for text in (*reals, simulated)]
    if masked[-1] in masked[:-1]:
        return []
    return [f"{where}: real printed {reals[0]!r}, labsim {simulated!r}"]
