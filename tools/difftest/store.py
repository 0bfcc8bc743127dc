"""Storing a batch of generated scripts recorded in the lab VM as fixtures (the host half of
tools/vm/record-generated.sh; standard library only, it runs in the host's python3).

For each scripts/seed-NNNN.sh of the batch, the guest runner (tools/vm/generated-runner.sh)
left out/seed-NNNN.txt (transcript), .status (per-line exit statuses, "done" last) and .rc
("<driver exit status> <seconds>"). A script that ran to its end is stored in TARGET
(tests/fixtures/real/<release>/generated/) as seed-NNNN.txt, seed-NNNN.sh (the script that
ran) and seed-NNNN.meta.json; if the same script was recorded before, the new run goes
beside it as seed-NNNN.runN.txt (+ .runN.meta.json); if the seed's script has changed since
(the generator changed), the earlier recordings of that seed are replaced.

    python3 tools/difftest/store.py SCRIPTS OUT TARGET META.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

GENERATOR = Path(__file__).resolve().parent / "generate.py"


def generator_hash() -> str:
    return hashlib.sha256(GENERATOR.read_bytes()).hexdigest()[:12]


def store(scripts: Path, out: Path, target: Path, common: dict) -> tuple[list[str], list[str]]:
    """Store every recording that ran to its end; returns (stored names, messages)."""
    target.mkdir(parents=True, exist_ok=True)
    stored, messages = [], []
    for script in sorted(scripts.glob("seed-*.sh")):
        name = script.stem
        transcript, status, rc = (out / f"{name}{s}" for s in (".txt", ".status", ".rc"))
        exit_status, seconds = rc.read_text().split() if rc.exists() else ("missing", "0")
        lines = status.read_text().splitlines() if status.exists() else []
        if exit_status != "0" or not lines or lines[-1] != "done" or not transcript.exists():
            messages.append(f"{name} did not run to its end (exit {exit_status}); not stored")
            continue
        pairs = [line.split("\t", 1) for line in lines if "\t" in line]
        seed = int(name.removeprefix("seed-"))
        meta = {"script": f"tools/difftest/generate.py --seed {seed}", "seed": seed,
                "generator_sha256": generator_hash(), **common, "seconds": float(seconds),
                "nonzero_exits": [{"status": int(s), "command": c} for s, c in pairs
                                  if s != "0"]}
        stem = name
        old_script = target / f"{name}.sh"
        if old_script.exists() and old_script.read_text() == script.read_text():
            n = 2
            while (target / f"{name}.run{n}.txt").exists():
                n += 1
            stem = f"{name}.run{n}"
        else:
            if old_script.exists():
                messages.append(f"{name}: the script changed; earlier recordings replaced")
            for old in target.glob(f"{name}.*"):
                old.unlink()
            (target / f"{name}.sh").write_text(script.read_text())
        (target / f"{stem}.txt").write_bytes(transcript.read_bytes())
        (target / f"{stem}.meta.json").write_text(json.dumps(meta, indent=2) + "\n")
        if meta["nonzero_exits"]:
            messages.append(f"note: {name}: {len(meta['nonzero_exits'])} command(s) exited "
                            "non-zero on real OpenZFS (the generator meant every one to "
                            "succeed): a generator bug to look at")
        stored.append(stem)
    return stored, messages


def main(argv: list[str]) -> int:
    scripts, out, target, meta = (Path(a) for a in argv)
    stored, messages = store(scripts, out, target, json.loads(meta.read_text()))
    for message in messages:
        print(f"record-generated: {message}", file=sys.stderr)
    print(f"record-generated: stored {len(stored)} recordings in {target}", file=sys.stderr)
    return 0 if stored else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
