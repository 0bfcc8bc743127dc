"""Exact-string tests for labsim.format.zpool_status (``zpool status``).

zpool status indents the config table with a TAB; transcripts pasted into web pages
usually show it expanded to 8 spaces, so those comparisons use ``expandtabs(8)``.
"""

from __future__ import annotations

import calendar

from labsim.format.zpool_status import (
    REASONS,
    PoolStatus,
    VdevStatus,
    format_zpool_status,
    scan_resilver_finished,
    scan_scrub_finished,
    status_namewidth,
)


def mirror(name: str, *disks: str, state: str = "ONLINE") -> VdevStatus:
    return VdevStatus(name, state, children=[VdevStatus(d) for d in disks])


def test_three_mirrors_without_scan_line():
    # `zpool status raid10_3x2` on a fresh pool (GitHub corpus id 47467740401): no
    # "scan:" line until a scrub or resilver has run; tabs shown as 8 spaces.
    pool = PoolStatus("raid10_3x2", vdevs=[mirror("mirror-0", "sdb", "sdc"),
                                            mirror("mirror-1", "sdd", "sde"),
                                            mirror("mirror-2", "sdf", "sdg")])
    expected = """\
  pool: raid10_3x2
 state: ONLINE
config:

        NAME        STATE     READ WRITE CKSUM
        raid10_3x2  ONLINE       0     0     0
          mirror-0  ONLINE       0     0     0
            sdb     ONLINE       0     0     0
            sdc     ONLINE       0     0     0
          mirror-1  ONLINE       0     0     0
            sdd     ONLINE       0     0     0
            sde     ONLINE       0     0     0
          mirror-2  ONLINE       0     0     0
            sdf     ONLINE       0     0     0
            sdg     ONLINE       0     0     0

errors: No known data errors
"""
    assert format_zpool_status(pool).expandtabs(8) == expected


def test_tabs_and_name_width_issue_12510_zfs_2_1_0():
    # openzfs/zfs issue #12510, `zpool status | head` on 2.1.0 (real tabs)
    disks = ("36000402001e022294341c80b00000000", "36000402004e021e34244d00a00000000")
    pool = PoolStatus("scratch", vdevs=[mirror("mirror-0", *disks), mirror("mirror-1")])
    head = format_zpool_status(pool).splitlines()[:9]
    assert head == [
        "  pool: scratch",
        " state: ONLINE",
        "config:",
        "",
        "\tNAME                                   STATE     READ WRITE CKSUM",
        "\tscratch                                ONLINE       0     0     0",
        "\t  mirror-0                             ONLINE       0     0     0",
        "\t    36000402001e022294341c80b00000000  ONLINE       0     0     0",
        "\t    36000402004e021e34244d00a00000000  ONLINE       0     0     0",
    ]


def test_degraded_pool_with_scan_line_and_note():
    # A faulted mirror member after a resilver (GitHub corpus id 18054797516, 2023):
    # status/action texts of ZPOOL_STATUS_FAULTED_DEV_R, no "see:" line, the
    # "too many errors" vdev note and the finished-resilver scan line.
    status, action, see = REASONS["faulted_dev_r"]
    end = calendar.timegm((2023, 7, 14, 23, 23, 37))
    pool = PoolStatus(
        "rpool", state="DEGRADED", status=status, action=action, see=see,
        scan=scan_resilver_finished(int(2.45 * (1 << 30)), 473, 0, end),
        vdevs=[VdevStatus("mirror-0", "DEGRADED", children=[
            VdevStatus("sda4", "FAULTED", read=3, write=324, note="too many errors"),
            VdevStatus("sdb4")])])
    expected = """\
  pool: rpool
 state: DEGRADED
status: One or more devices are faulted in response to persistent errors.
        Sufficient replicas exist for the pool to continue functioning in a
        degraded state.
action: Replace the faulted device, or use 'zpool clear' to mark the device
        repaired.
  scan: resilvered 2.45G in 00:07:53 with 0 errors on Fri Jul 14 23:23:37 2023
config:

        NAME        STATE     READ WRITE CKSUM
        rpool       DEGRADED     0     0     0
          mirror-0  DEGRADED     0     0     0
            sda4    FAULTED      3   324     0  too many errors
            sdb4    ONLINE       0     0     0

errors: No known data errors
"""
    assert format_zpool_status(pool).expandtabs(8) == expected


def test_file_vdevs_and_bytes_exact():
    # A pool of one file vdev, byte for byte (layout from status_callback()).
    pool = PoolStatus("tank", vdevs=[VdevStatus("/var/tmp/disk1.img")])
    assert format_zpool_status(pool) == (
        "  pool: tank\n"
        " state: ONLINE\n"
        "config:\n"
        "\n"
        "\tNAME                  STATE     READ WRITE CKSUM\n"
        "\ttank                  ONLINE       0     0     0\n"
        "\t  /var/tmp/disk1.img  ONLINE       0     0     0\n"
        "\n"
        "errors: No known data errors\n")


def test_name_column_ignores_pool_name():
    # max_width() measures the root vdev ("root-0"), not the pool name: a long pool name
    # overflows its column (minimum width 10).
    pool = PoolStatus("averyveryverylongpool", vdevs=[VdevStatus("/a")])
    assert status_namewidth(pool) == 10
    assert format_zpool_status(pool).splitlines()[5] == \
        "\taveryveryverylongpool  ONLINE       0     0     0"


def test_raidz_and_error_counters():
    # zfs_nicenum() for the counters; "-p" prints them exactly ("%5llu")
    pool = PoolStatus("tank", vdevs=[VdevStatus("raidz1-0", children=[
        VdevStatus("/a"), VdevStatus("/b", cksum=1500), VdevStatus("/c")])])
    lines = format_zpool_status(pool).splitlines()
    assert lines[8] == "\t    /b      ONLINE       0     0 1.46K"
    assert format_zpool_status(pool, parsable=True).splitlines()[8] == \
        "\t    /b      ONLINE       0     0  1500"


def test_several_pools_are_separated_by_a_blank_line():
    # status_callback(): "\n" before every pool but the first (glances issue #873 shows
    # two pools one after the other)
    a = PoolStatus("data", vdevs=[VdevStatus("/a")])
    b = PoolStatus("media", vdevs=[VdevStatus("/b")])
    text = format_zpool_status([a, b])
    assert text == format_zpool_status(a) + "\n" + format_zpool_status(b)
    assert "errors: No known data errors\n\n  pool: media\n" in text


def test_classes_cache_and_spares_headings():
    # print_class_vdevs(): "\t%s\t\n" (trailing tab); print_l2cache()/print_spares():
    # "\tcache\n", "\tspares\n"; spares have no error counters.
    pool = PoolStatus("tank", vdevs=[VdevStatus("/a")], logs=[VdevStatus("/log")],
                      cache=[VdevStatus("/l2")], spares=[VdevStatus("/sp", "AVAIL")])
    lines = format_zpool_status(pool).splitlines()
    assert lines[7:13] == ["\tlogs\t", "\t  /log      ONLINE       0     0     0",
                           "\tcache", "\t  /l2       ONLINE       0     0     0",
                           "\tspares", "\t  /sp       AVAIL   "]


def test_errors_line_with_data_errors():
    pool = PoolStatus("tank", vdevs=[VdevStatus("/a")], errors=3)
    assert format_zpool_status(pool).endswith("errors: 3 data errors, use '-v' for a list\n")


def test_scrub_scan_line():
    # print_scan_scrub_resilver_status(): "scrub repaired %s in %s with %llu errors on %s"
    end = calendar.timegm((2022, 11, 22, 3, 50, 0))
    assert scan_scrub_finished(0, 1, 0, end) == \
        "scrub repaired 0B in 00:00:01 with 0 errors on Tue Nov 22 03:50:00 2022\n"
