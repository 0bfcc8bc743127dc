"""Every difference between labsim and the recordings of generated scripts, per script, and a
tally of them by kind: the working list for improving the model (issue 15).

Only the tuning seeds are explained unless ``--held-out`` is given: the held-out seeds are
measured (agreement.py), never studied, so that the agreement rate on them stays honest.

    python tools/difftest/explain.py [--release 2.3.9] [--seeds 0-49] [--out dump.json]
    python tools/difftest/explain.py --compare before.json after.json

A difference is tallied under its kind: the command's first two words and the column or
figure that differs ("zfs list USED", "zpool list ALLOC(vdev)", "zpool status CKSUM", ...).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agreement import Recording, disagreements, recordings, seed_set  # noqa: E402
from generate import parse_seeds  # noqa: E402

# "command 7 `zfs list -p ...`: labg0001 USED real 479232, labsim 466944 (-2.56% outside)"
FIGURE = re.compile(r"^command \d+ `(\S+) (\S+)[^`]*`: (\S+) (\S+) real ")
STATUS = re.compile(r"^command \d+ `(zpool status)[^`]*`: (\S+)")


def kind(difference: str) -> str:
    """What sort of difference a comparator line reports, without seed-specific names."""
    match = FIGURE.match(difference)
    if match:
        tool, sub, row, column = match.groups()
        where = "(vdev)" if row.startswith("/") else ""
        return f"{tool} {sub} {column}{where}"
    match = STATUS.match(difference)
    if match:
        return f"{match.group(1)} {match.group(2)}"
    text = re.sub(r"^command \d+ `(\S+ \S+)[^`]*`: ", r"\1: ", difference)
    return re.sub(r"labg\d+", "POOL", text)[:60]


def explain_one(recording: Recording) -> tuple[str, list[str]]:
    try:
        return recording.name, disagreements(recording)
    except Exception as err:  # noqa: BLE001 - a crash is a difference too
        return recording.name, [f"labsim crashed: {type(err).__name__}: {err}"]


def explain(releases: list[str] | None, seeds: set[int] | None, held_out: bool) -> dict:
    chosen = [r for r in recordings()
              if (releases is None or r.release in releases)
              and (seeds is None or r.seed in seeds)
              and (held_out or seed_set(r.seed) == "tuning")]
    with ProcessPoolExecutor() as pool:
        found = dict(pool.map(explain_one, chosen, chunksize=4))
    tally = Counter(kind(d) for diffs in found.values() for d in diffs)
    scripts = Counter(k for diffs in found.values() for k in {kind(d) for d in diffs})
    return {
        "agree": sorted(name for name, diffs in found.items() if not diffs),
        "differences_by_kind": dict(tally.most_common()),
        "scripts_by_kind": dict(scripts.most_common()),
        "scripts": found,
    }


def compare_dumps(before: dict, after: dict) -> dict:
    """What changed between two dumps: scripts that came to agree or stopped agreeing, and
    the count of differences of each kind."""
    kinds = set(before["differences_by_kind"]) | set(after["differences_by_kind"])
    moved = {k: (before["differences_by_kind"].get(k, 0), after["differences_by_kind"].get(k, 0))
             for k in kinds}
    return {
        "now_agree": sorted(set(after["agree"]) - set(before["agree"])),
        "no_longer_agree": sorted(set(before["agree"]) - set(after["agree"])),
        "differences": (sum(before["differences_by_kind"].values()),
                        sum(after["differences_by_kind"].values())),
        "by_kind": {k: v for k, v in sorted(moved.items(), key=lambda kv: kv[1][1] - kv[1][0])
                    if v[0] != v[1]},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/difftest/explain.py",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--release", action="append", help="2.3.9, 2.1.11 (default: both)")
    parser.add_argument("--seeds", help="as generate.py, e.g. 0-49 (default: every recording)")
    parser.add_argument("--held-out", action="store_true",
                        help="also the held-out seeds (for measuring, never for tuning)")
    parser.add_argument("--out", type=Path, help="write the whole dump here as JSON; "
                        "stdout gets the tally only")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"),
                        help="compare two dumps written with --out")
    args = parser.parse_args(argv)
    if args.compare:
        before, after = (json.loads(p.read_text()) for p in args.compare)
        print(json.dumps(compare_dumps(before, after), indent=1))
        return 0
    seeds = set(parse_seeds(args.seeds)) if args.seeds else None
    dump = explain(args.release, seeds, args.held_out)
    if args.out:
        args.out.write_text(json.dumps(dump, indent=1) + "\n")
        dump = {k: v for k, v in dump.items() if k != "scripts"}
    print(json.dumps(dump, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
