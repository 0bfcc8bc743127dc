"""Deadlists' bpobjs against real OpenZFS: tools/probes/model/lab15-deadlist-bpobj.sh,
recorded twice on 2.3.9 (RAID-Z2 of six files at ashift 12). Each step frees blocks a
snapshot keeps, so their pointers go to a deadlist: 4 MiB of 4K records, then 12 MiB of
them, then 16 MiB of 128K records, then a snapshot is destroyed. The root's USEDCHILD
grows by the bpobjs' blocks (zdb -dd: 72K, 192K and 24K of dsize) and shrinks when the
destroyed snapshot's interval goes; labsim.zfs.deadlists gives each step's change."""

from pathlib import Path

from test_probes import script_of, simulate
from transcripts import parse, table

from labsim.zfs.deadlists import POINTERS_PER_BLOCK, bpobj_blocks

FIXTURE = (Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "real" / "2.3.9"
           / "probes" / "lab15-deadlist-bpobj.txt")
# The steps whose change agrees; the second (command 20) also frees the delete queue's
# block, a bpobj labsim does not have (test_probes.KNOWN_GAPS).
AGREEING_STEPS = (13, 28, 33)


def _usedchild(text: str) -> dict[int, int]:
    return {i: int(table(block.output)["lab15b"]["USEDCHILD"])
            for i, block in enumerate(parse(text), start=1)
            if block.command.startswith("zfs list -p -r -t all")}


def _steps(listing: dict[int, int]) -> dict[int, int]:
    commands = sorted(listing)
    return {b: listing[b] - listing[a] for a, b in zip(commands, commands[1:], strict=False)}


def test_real_runs_grow_alike():
    runs = [FIXTURE, *sorted(FIXTURE.parent.glob(f"{FIXTURE.stem}.run*.txt"))]
    assert len(runs) >= 2
    steps = [_steps(_usedchild(run.read_text())) for run in runs]
    assert all(s == steps[0] for s in steps)
    assert steps[0][13] == 73656 and steps[0][33] == -171864  # 72K; 192K less 24K


def test_each_freeing_step_grows_the_mos_as_on_real_openzfs():
    real = _steps(_usedchild(FIXTURE.read_text()))
    simulated = _steps(_usedchild(simulate(script_of(FIXTURE), "2.3.9")))
    for step in AGREEING_STEPS:
        assert simulated[step] == real[step], (step, real[step], simulated[step])
    # the step with the delete queue's bpobj: one block of three copies short
    assert real[20] - simulated[20] == 24552


def test_a_bpobj_holds_1024_pointers_a_block_and_gets_an_indirect_block_past_three():
    assert POINTERS_PER_BLOCK == 1024
    assert len(bpobj_blocks(1024, 12)) == 1
    assert len(bpobj_blocks(1026, 12)) == 2
    assert len(bpobj_blocks(3 * 1024, 12)) == 3
    assert len(bpobj_blocks(3 * 1024 + 4, 12)) == 5  # four data blocks, an indirect one
    full = bpobj_blocks(1024, 12)[0]
    assert full.copies == 3 and 4096 < full.compressed <= 8192  # two sectors at ashift 12
    assert bpobj_blocks(1026, 12, started=4096)[0].compressed == full.compressed - 4096
