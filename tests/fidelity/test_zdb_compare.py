"""The zdb -m comparison: it must catch what it is meant to catch, and only that."""

from zdb_compare import compare_zdb, is_zdb_metaslabs, parse_nicenum, parse_zdb_metaslabs

REAL = """
Metaslabs:
\tvdev          0      ms_unflushed_phys object 77
\tmetaslabs     3   offset                spacemap          free{PAD}
\t---------------   -------------------   ---------------   ------------
\tmetaslab      0   offset            0   spacemap     82   free    64.0M
space map object 82:
  smp_length = 0x50
  smp_alloc = 0xa000
\tFlush data:
\tunflushed txg=19

\tmetaslab      1   offset      4000000   spacemap     81   free    33.3M
space map object 81:
  smp_length = 0x28
  smp_alloc = 0x1eaa000
\tFlush data:
\tunflushed txg=19

\tmetaslab      2   offset      8000000   spacemap      0   free      64M
\tFlush data:
\tunflushed txg=0



Log Space Maps in Pool:
Log Spacemap object 88 txg 19
space map object 88:
  smp_length = 0x5a0
  smp_alloc = 0x6000

Log Space Map Obsolete Entry Statistics:
66       valid entries out of 66       - txg 19
66       valid entries out of 66       - total

""".replace("{PAD}", " " * 8)


def test_nicenum_is_read_back():
    assert parse_nicenum("64M") == 64 << 20
    assert parse_nicenum("64.0M") == 64 << 20
    assert parse_nicenum("33.3M") == round(33.3 * (1 << 20))
    assert parse_nicenum("1.50G") == 3 << 29
    assert parse_nicenum("512") == 512


def test_parse_counts_offsets_and_free():
    vdev = parse_zdb_metaslabs(REAL)[0]
    assert vdev.count == 3
    assert vdev.offsets == [0, 0x4000000, 0x8000000]
    assert vdev.free == (64 << 20) * 2 + round(33.3 * (1 << 20))


def test_which_commands_are_compared():
    assert is_zdb_metaslabs("zdb -e -p /var/tmp/labs -m lab3")
    assert is_zdb_metaslabs("zdb -mm lab3")
    assert not is_zdb_metaslabs("zdb -l /dev/sda")


def test_identical_output_agrees():
    assert compare_zdb("c", [REAL], REAL) == []


def test_object_numbers_txgs_and_placement_are_ignored():
    sim = (REAL.replace("spacemap     82", "spacemap    140").replace("txg=19", "txg=7")
           .replace("0x5a0", "0x10")
           # the 30.7M moved from metaslab 1 to metaslab 0
           .replace("free    64.0M", "free    33.3M", 1)
           .replace("free    33.3M\nspace map object 81", "free    64.0M\nspace map object 81"))
    assert compare_zdb("c", [REAL], sim) == []


def test_a_moved_offset_is_reported():
    sim = REAL.replace("offset      8000000", "offset      9000000")
    assert any("metaslab 2 at offset" in p for p in compare_zdb("c", [REAL], sim))


def test_a_missing_metaslab_is_reported():
    sim = REAL.replace("metaslabs     3", "metaslabs     2")
    assert any("3 metaslabs" in p for p in compare_zdb("c", [REAL], sim))


def test_free_space_off_by_more_than_1_percent_is_reported():
    sim = REAL.replace("free    33.3M", "free    30.1M")
    assert any("free" in p for p in compare_zdb("c", [REAL], sim))
    close = REAL.replace("free    33.3M", "free    32.0M")  # 1.3M of 160M: within 1 %
    assert compare_zdb("c", [REAL], close) == []


def test_error_text_must_be_identical():
    real = "zdb: can't open 'lab3': No such file or directory\n"
    assert compare_zdb("c", [real], real) == []
    assert compare_zdb("c", [real], "zdb: cannot open 'lab3'\n")
