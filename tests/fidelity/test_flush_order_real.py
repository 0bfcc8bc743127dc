"""The log space maps and the order metaslabs are flushed in, step by step, against real
OpenZFS: tools/probes/model/lab15-log-txgs.sh, recorded twice on 2.3.9 with `zdb -mmm`
after each step (property changes, a snapshot, a write, a destroy on a RAID-Z1).

Which metaslab a txg flushes and which log space maps it frees decide how many space map
blocks the MOS holds, a part of the root's USEDCHILD and of ALLOC after every command.
zdb_compare.flush_state() compares them without labsim's own txg numbers."""

from pathlib import Path

from test_probes import script_of, simulate
from transcripts import parse
from zdb_compare import flush_state

FIXTURE = (Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "real" / "2.3.9"
           / "probes" / "lab15-log-txgs.txt")


def _states(text: str) -> list:
    return [flush_state(block.output) for block in parse(text)
            if block.command.startswith("zdb -mmm")]


def test_real_runs_flush_alike():
    runs = [FIXTURE, *sorted(FIXTURE.parent.glob(f"{FIXTURE.stem}.run*.txt"))]
    assert len(runs) >= 2
    states = [_states(run.read_text()) for run in runs]
    assert len(states[0]) == 9 and all(s == states[0] for s in states)


def test_labsim_flushes_metaslabs_and_frees_logs_as_real_openzfs():
    real = _states(FIXTURE.read_text())
    simulated = _states(simulate(script_of(FIXTURE), "2.3.9"))
    assert len(simulated) == len(real)
    for step, (want, got) in enumerate(zip(real, simulated, strict=True), start=1):
        assert got == want, f"zdb -mmm #{step}: real {want}, labsim {got}"


def test_flush_state_ranks_txgs():
    output = ("\tvdev          0      ms_unflushed_phys object 76\n"
              "\tmetaslab      0   offset            0   spacemap     78   free    63.7M\n"
              "\tunflushed txg=24\n"
              "\tmetaslab      1   offset      4000000   spacemap     77   free    63.7M\n"
              "\tunflushed txg=20\n"
              "\tmetaslab      2   offset      8000000   spacemap      0   free      64M\n"
              "\tunflushed txg=0\n"
              "Log Spacemap object 132 txg 20\n"
              "Log Spacemap object 136 txg 23\n"
              "Log Spacemap object 137 txg 24\n")
    state = flush_state(output)
    assert state.metaslabs == (((0, 0), 2), ((0, 1), 0))
    assert state.logs == (0, 1, 2)
