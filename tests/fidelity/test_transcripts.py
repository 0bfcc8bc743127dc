"""The transcript comparison itself: it must catch what it is meant to catch."""

import pytest
from transcripts import compare, parse, parse_nicenum

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


def test_a_listing_whose_vdev_rows_ignore_o_is_refused():
    """`zpool list -v -o name,alloc` prints every column on the vdevs' rows (2.3.9's
    collect_list_stats()): their second cell is SIZE, not ALLOC. Comparing them under the
    two-column header would pass a wrong split; the comparator refuses instead."""
    listing = """\
$ zpool list -p -v -o name,alloc lab1
NAME     ALLOC
lab1  201646080
  /v/a  1006632960  128741376  877891584        -         -      0     12      -    ONLINE
"""
    with pytest.raises(ValueError, match="more cells than the header"):
        compare(listing, listing.replace("128741376", "999"))


def test_a_size_off_by_more_than_1_percent_is_reported():
    sim = REAL.replace("1258291200", "1280000000")
    assert any("lab1 SIZE" in p for p in compare(REAL, sim))


def test_small_differences_pass():
    sim = REAL.replace("128741376", "130000000")  # +1 %
    assert compare(REAL, sim) == []


def test_error_text_must_be_identical():
    sim = REAL.replace("no such pool", "pool not found")
    assert any("zpool destroy nosuch" in p for p in compare(REAL, sim))


def test_a_refusal_one_run_gave_agrees_with_that_run():
    """Real runs can differ in what they refuse (a volume udev still holds open is busy
    in some runs): labsim agrees when it says what one of them said, and its listing
    is judged against the runs that list the same rows."""
    refused = REAL.replace("cannot open 'nosuch': no such pool\n", "cannot destroy: busy\n")
    assert compare([REAL, refused], refused) == []
    assert compare([REAL, refused], REAL) == []
    assert compare([REAL, refused], REAL.replace("no such pool", "pool not found")) != []
    fewer = REAL.replace("  /v/b  251658240  72904704  178753536        -         -      0"
                         "     28      -    ONLINE\n", "")
    assert compare([REAL, fewer], fewer) == []
    assert any("rows" in p for p in compare([REAL], fewer))


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


def test_a_listing_header_may_match_any_run():
    """Column widths follow the figures, and real runs differ in their figures: a header
    one run printed is real OpenZFS's for figures of that width."""
    wider = REAL.replace("NAME        SIZE      ALLOC", "NAME        SIZE       ALLOC")
    assert not any("header" in p for p in compare([REAL, wider], wider))
    narrower = REAL.replace("NAME        SIZE      ALLOC", "NAME        SIZE     ALLOC")
    assert any("header" in p for p in compare([REAL, wider], narrower))


STATUS = """\
$ zpool status lab2m
  pool: lab2m
 state: ONLINE
  scan: scrub repaired 48.4M in 00:00:01 with 0 errors on Sun Nov 22 06:31:06 2026
config:

\tNAME        STATE     READ WRITE CKSUM
\tlab2m       ONLINE       0     0     0
\t  mirror-0  ONLINE       0     0     0
\t    /v/a    ONLINE       0     0     0
\t    /v/b    ONLINE       0     0   470

errors: No known data errors
"""


def test_parse_nicenum_reads_sizes_and_counts():
    assert parse_nicenum("0B") == 0
    assert parse_nicenum("470") == 470
    assert parse_nicenum("48.4M") == 48.4 * (1 << 20)
    assert parse_nicenum("1.2K") == 1.2 * 1024
    assert parse_nicenum("ONLINE") is None


def test_status_scan_duration_and_date_are_not_compared():
    sim = STATUS.replace("00:00:01", "00:00:07").replace("Sun Nov 22 06:31:06 2026",
                                                         "Wed Nov 18 11:06:41 2026")
    assert compare(STATUS, sim) == []


def test_status_scan_amount_within_5_percent_passes():
    assert compare(STATUS, STATUS.replace("48.4M", "50.5M")) == []  # +4.3 %


def test_status_scan_amount_off_by_more_than_5_percent_is_reported():
    problems = compare(STATUS, STATUS.replace("48.4M", "51.0M"))
    assert len(problems) == 1 and "scan amount" in problems[0]


def test_status_scan_kind_and_errors_must_match():
    assert compare(STATUS, STATUS.replace("scrub repaired", "resilvered"))
    assert compare(STATUS, STATUS.replace("with 0 errors", "with 1 errors"))


def test_status_counters_within_5_percent():
    assert compare(STATUS, STATUS.replace("  470", "  480")) == []  # +2.1 %
    problems = compare(STATUS, STATUS.replace("  470", "  500"))  # +6.4 %
    assert len(problems) == 1 and "counter" in problems[0]
    # a zero must stay zero
    assert compare(STATUS, STATUS.replace("/v/a    ONLINE       0", "/v/a    ONLINE       1"))


def test_status_text_outside_the_numbers_must_be_identical():
    assert compare(STATUS, STATUS.replace(" state: ONLINE", " state: DEGRADED"))
    assert compare(STATUS, STATUS.replace("/v/b", "/v/c"))


def test_status_range_of_several_runs():
    other = STATUS.replace("  470", "  500").replace("48.4M", "52.0M")
    inside = STATUS.replace("  470", "  490").replace("48.4M", "50.0M")
    assert compare([STATUS, other], inside) == []


RECORDS = """\
$ zfs list -p -r -o name,used,logicalused,referenced,compressratio lab4
NAME             USED      LUSED     REFER  RATIO
lab4         69996544  101329920    106496   1.46
lab4/rs1m    17145856   33601536  17145856   1.96
$ zfs get -p -r compressratio,used,logicalused lab4
NAME         PROPERTY       VALUE  SOURCE
lab4         compressratio  1.46   -
lab4         used           69996544  -
lab4         logicalused    101329920  -
lab4/rs1m    compressratio  1.96   -
lab4/rs1m    used           17145856  -
lab4/rs1m    logicalused    33601536  -
"""


def test_lused_in_a_listing_within_1_percent():
    listed = "17145856   33601536"
    assert compare(RECORDS, RECORDS.replace(listed, "17145856   33900000")) == []  # +0.9 %
    problems = compare(RECORDS, RECORDS.replace(listed, "17145856   34000000"))  # +1.2 %
    assert len(problems) == 1 and "lab4/rs1m LUSED" in problems[0]


def test_ratio_in_a_listing_within_one_hundredth():
    assert compare(RECORDS, RECORDS.replace("   1.96\n", "   1.97\n")) == []
    problems = compare(RECORDS, RECORDS.replace("   1.96\n", "   1.98\n"))
    assert len(problems) == 1 and "lab4/rs1m RATIO real 1.96, labsim 1.98" in problems[0]


def test_zfs_get_p_space_values_within_1_percent():
    sim = RECORDS.replace("logicalused    101329920", "logicalused    103000000")
    problems = compare(RECORDS, sim)
    assert len(problems) == 1 and "`zfs get" in problems[0] and "lab4 LUSED" in problems[0]
    sim = RECORDS.replace("used           17145856", "used           17300000")  # +0.9 %
    assert compare(RECORDS, sim) == []
    sim = RECORDS.replace("used           17145856", "used           16900000")  # -1.4 %
    assert any("`zfs get" in p and "lab4/rs1m USED" in p for p in compare(RECORDS, sim))


def test_zfs_get_p_compressratio_within_one_hundredth():
    assert compare(RECORDS, RECORDS.replace("compressratio  1.46 ", "compressratio  1.45 ")) == []
    problems = compare(RECORDS, RECORDS.replace("compressratio  1.46 ", "compressratio  1.44 "))
    assert len(problems) == 1 and "lab4 RATIO real 1.46, labsim 1.44" in problems[0]


def test_ratio_range_of_several_runs():
    other = RECORDS.replace("   1.96\n", "   1.94\n")
    assert compare([RECORDS, other], RECORDS.replace("   1.96\n", "   1.93\n")) == []
    assert compare([RECORDS, other], RECORDS.replace("   1.96\n", "   1.92\n")) != []


KSTAT = """\
15 1 0x01 13 3536 15831908690 {snap}
name                            type data
zil_commit_count                4    {commits}
zil_itx_count                   4    {itx}
"""
LAB5 = ("$ cat /proc/spl/kstat/zfs/zil\n" + KSTAT.format(snap=1, commits=100, itx=100)
        + "$ fio --name=x --filename=/lab5/db/x.bin --sync=1\n"
        + "$ cat /proc/spl/kstat/zfs/zil\n" + KSTAT.format(snap=2, commits=356, itx=357)
        + "$ ls /lab5/db\nlogged.bin\nx.bin\n"
        + "$ zpool iostat -v lab5\n"
        + "                 capacity     operations     bandwidth \n"
        + "pool           alloc   free   read  write   read  write\n"
        + "-------------  -----  -----  -----  -----  -----  -----\n"
        + "lab5            2.78M   477M      0    175  7.83K  2.13M\n"
        + "  /v/data       2.78M   477M      0    168  3.92K  1.75M\n"
        + "logs                -      -      -      -      -      -\n"
        + "  /v/log            0   240M      4     58  35.9K  3.51M\n"
        + "-------------  -----  -----  -----  -----  -----  -----\n")


def lab5_sim(before=(0, 0), after=(256, 257)) -> str:
    return (LAB5.replace("commits=100", "")
            .replace("4    100\nzil_itx_count                   4    100",
                     f"4    {before[0]}\nzil_itx_count                   4    {before[1]}")
            .replace("4    356\nzil_itx_count                   4    357",
                     f"4    {after[0]}\nzil_itx_count                   4    {after[1]}"))


def test_kstat_counters_are_compared_as_differences_between_readings():
    # a fresh labsim session starts at zero, the recording at 100: the steps agree
    assert compare(LAB5, lab5_sim()) == []
    problems = compare(LAB5, lab5_sim(after=(200, 257)))
    assert len(problems) == 1 and "zil_commit_count grew by 256" in problems[0]


def test_files_left_must_be_the_same_names():
    problems = compare(LAB5, LAB5.replace("logged.bin\n", "logged.bin\nunlogged.bin\n"))
    assert len(problems) == 1 and "ls /lab5/db" in problems[0]


def test_iostat_rows_and_which_vdevs_wrote_must_agree():
    problems = compare(LAB5, LAB5.replace("     4     58", "     0      0"))
    assert len(problems) == 1 and "vdevs with writes" in problems[0]
    problems = compare(LAB5, LAB5.replace("  /v/log ", "  /v/lag "))
    assert len(problems) == 1 and "rows" in problems[0]


SNAPSHOTS = """\
$ zfs list -p -r -t all -o name,used,refer,usedbysnapshots,usedbydataset,usedbychildren,origin lab6
NAME               USED     REFER  USEDSNAP   USEDDS  USEDCHILD  ORIGIN
lab6/data      19267584   6414336  12853248  6414336          0  -
lab6/data@tue     49152   8511488         -        -          -  -
lab6/work       3235840   7471104         0  3235840          0  lab6/data@tue
$ zfs destroy -nv lab6/data@wed%thu
would destroy lab6/data@wed
would destroy lab6/data@thu
would reclaim 4.12M
"""


def test_usedby_columns_are_space_figures():
    assert compare(SNAPSHOTS, SNAPSHOTS.replace("12853248", "12900000")) == []  # +0.4 %
    problems = compare(SNAPSHOTS, SNAPSHOTS.replace("12853248", "13100000"))  # +1.9 %
    assert len(problems) == 1 and "lab6/data USEDSNAP" in problems[0]


def test_origin_must_match():
    problems = compare(SNAPSHOTS, SNAPSHOTS.replace("  lab6/data@tue\n", "  lab6/data@wed\n"))
    assert len(problems) == 1 and "lab6/work ORIGIN" in problems[0]


def test_what_destroy_would_reclaim_must_match_exactly():
    problems = compare(SNAPSHOTS, SNAPSHOTS.replace("reclaim 4.12M", "reclaim 4.13M"))
    assert len(problems) == 1 and "zfs destroy -nv" in problems[0]


# Lab 8: numbers of a damaged pool's status as zero or not; an import listing but its id.
DAMAGED = """\
$ zpool status -v lab8
  pool: lab8
 state: ONLINE
status: One or more devices has experienced an error resulting in data
\tcorruption.  Applications may be affected.
action: Restore the file in question if possible.  Otherwise restore the
\tentire pool from backup.
   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-8A
  scan: scrub repaired 4.19M in 00:00:01 with 16 errors on Mon Nov 23 07:40:00 2026
config:

\tNAME                        STATE     READ WRITE CKSUM
\tlab8                        ONLINE       0     0    16
\t  /var/tmp/labs/lab8-a.raw  ONLINE       0     0     0
\t  /var/tmp/labs/lab8-b.raw  ONLINE       0     0    93

errors: Permanent errors have been detected in the following files:

        /lab8/one/f.bin
$ zpool import -d /var/tmp/labs
   pool: lab8
     id: 15144803977964153230
  state: UNAVAIL
"""


def test_presence_compares_status_numbers_as_zero_or_not():
    other = DAMAGED.replace("with 16 errors", "with 21 errors").replace("    16\n", "    21\n") \
        .replace("    93\n", "   140\n").replace("4.19M", "6.02M")
    assert compare(DAMAGED, other, presence=True) == []
    assert compare(DAMAGED, other) != []  # exact counts would differ
    zero = DAMAGED.replace("lab8-a.raw  ONLINE       0     0     0",
                           "lab8-a.raw  ONLINE       0     0     3")
    problems = compare(DAMAGED, zero, presence=True)
    assert len(problems) == 1 and "counter #6 real zero" in problems[0]
    no_errors = DAMAGED.replace("with 16 errors", "with 0 errors")
    assert any("scan number" in p for p in compare(DAMAGED, no_errors, presence=True))
    other_file = DAMAGED.replace("/lab8/one/f.bin", "/lab8/two/f.bin")
    assert compare(DAMAGED, other_file, presence=True) != []  # texts stay exact


def test_import_listing_is_exact_but_for_the_pool_id():
    assert compare(DAMAGED, DAMAGED.replace("15144803977964153230", "42")) == []
    assert compare(DAMAGED, DAMAGED.replace("UNAVAIL", "ONLINE")) != []
