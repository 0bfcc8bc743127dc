"""Every command line of the corpus (tests/corpus/commands.txt) is simulated or answered
with an honest notice; none is wrong (tests/corpus/corpus.py says what each class means)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from corpus import HONEST, SIMULATED, WRONG, counts, load, run_corpus  # noqa: E402


def test_the_corpus_holds_at_least_400_lines():
    assert len(load()) >= 400


def test_no_line_of_the_corpus_is_answered_wrongly():
    outcomes = run_corpus()
    wrong = [f"{o.line.number}: {o.line.command}\n    {o.why}" for o in outcomes
             if o.verdict == WRONG]
    assert not wrong, "\n".join(wrong)
    found = counts(outcomes)
    assert found[SIMULATED] + found[HONEST] == len(outcomes)


def test_a_refusal_real_openzfs_does_not_make_is_wrong(tmp_path):
    """The classifier itself: an invented refusal, a crash-free 'command not found' and a
    marked refusal that labsim accepts are all wrong; a notice is honest."""
    corpus = tmp_path / "c.txt"
    corpus.write_text("## probe\n"
                      "zfs create pool/home\n"  # exists already: refused, unmarked
                      "no-such-tool\n"
                      "zfs list  #! refused: nothing\n"
                      "zfs send pool/fs@x\n"
                      "zfs list\n")
    verdicts = [o.verdict for o in run_corpus(corpus)]
    assert verdicts == [WRONG, WRONG, WRONG, HONEST, SIMULATED]


def test_network_groups_run_on_hosts_and_labs_must_match_their_scripts(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("## probe [net a,b]\n"
                      "@a ip link add wg0 type wireguard\n"
                      "@b ip addr add 10.9.0.2/24 dev nosuch\n"  # refused: wrong
                      "@a ss -s\n")
    assert [o.verdict for o in run_corpus(corpus)] == [SIMULATED, WRONG, HONEST]
    corpus.write_text("## lab [netlab 01-wg-peers]\n@alice ip link set wg0 up\n")
    with pytest.raises(AssertionError, match="not its scripts'"):
        run_corpus(corpus)
