"""The transcript comparison itself: it must catch what it is meant to catch."""

from transcripts import compare, parse

REAL = """\
$ zpool list -vp lab1
NAME        SIZE      ALLOC       FREE  CKPOINT  EXPANDSZ   FRAG    CAP  DEDUP    HEALTH  ALTROOT
lab1  1258291200  201646080  1056645120        -         -      0     16   1.00    ONLINE  -
  /v/a  1006632960  128741376  877891584        -         -      0     12      -    ONLINE
  /v/b  251658240  72904704  178753536        -         -      0     28      -    ONLINE
$ zpool destroy nosuch
cannot open 'nosuch': no such pool
"""


def test_identical_transcripts_agree():
    assert compare(REAL, REAL) == []


def test_a_vdev_alloc_off_by_more_than_5_percent_is_reported():
    sim = REAL.replace("128741376", "140000000")
    problems = compare(REAL, sim)
    assert len(problems) == 1 and "/v/a ALLOC" in problems[0]


def test_a_size_off_by_more_than_1_percent_is_reported():
    sim = REAL.replace("1258291200", "1280000000")
    assert any("lab1 SIZE" in p for p in compare(REAL, sim))


def test_small_differences_pass():
    sim = REAL.replace("128741376", "130000000")  # +1 %
    assert compare(REAL, sim) == []


def test_error_text_must_be_identical():
    sim = REAL.replace("no such pool", "pool not found")
    assert any("zpool destroy nosuch" in p for p in compare(REAL, sim))


def test_notes_are_not_output():
    blocks = parse("$ echo hi\nhi\n# a note\n$ true\n")
    assert [(b.command, b.output) for b in blocks] == [("echo hi", "hi\n"), ("true", "")]


def test_several_real_runs_give_a_range():
    other_run = REAL.replace("128741376", "150000000").replace("877891584", "856632960")
    inside = REAL.replace("128741376", "140000000").replace("877891584", "866632960")
    outside = REAL.replace("128741376", "170000000").replace("877891584", "836632960")
    assert compare([REAL, other_run], inside) == []
    problems = compare([REAL, other_run], outside)
    assert any("/v/a ALLOC real 128741376..150000000" in p for p in problems)


def test_a_listing_header_must_match_exactly():
    sim = REAL.replace("NAME        SIZE", "NAME       SIZE")
    assert any("header" in p for p in compare(REAL, sim))
