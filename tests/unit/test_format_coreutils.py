"""Exact-string tests for labsim.format.coreutils (dd, ls, truncate, rm, getopt)."""

from __future__ import annotations

import calendar
import getopt

import pytest

from labsim.format import coreutils as cu


def test_dd_summary_one_gib():
    # `dd if=/dev/mmcblk0p1 of=/dev/null bs=1M count=1024` (GitHub corpus id 29265378615)
    assert cu.dd_summary(1024, 0, 1024, 0, 1073741824, 23.5468) == (
        "1024+0 records in\n"
        "1024+0 records out\n"
        "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 23.5468 s, 45.6 MB/s\n")


def test_dd_summary_one_block_of_1g():
    # `dd if=/dev/zero of=/swapfile1 bs=1G count=1` (GitHub corpus id 21427871176)
    assert cu.dd_summary(1, 0, 1, 0, 1073741824, 16.6154) == (
        "1+0 records in\n"
        "1+0 records out\n"
        "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 16.6154 s, 64.6 MB/s\n")


def test_dd_bytes_line_small_sizes():
    # print_xfer_stats(): no prefix at all -> "bytes copied" (singular for 1 byte);
    # SI prefix but no IEC prefix -> one size in parentheses (derived from src/dd.c)
    assert cu.dd_bytes_line(512, 0.00054) == "512 bytes copied, 0.00054 s, 948 kB/s\n"
    assert cu.dd_bytes_line(1, 0.000123) == "1 byte copied, 0.000123 s, 8.1 kB/s\n"
    assert cu.dd_bytes_line(1000, 0.000123) == \
        "1000 bytes (1.0 kB) copied, 0.000123 s, 8.1 MB/s\n"
    assert cu.dd_bytes_line(0, 0.000123) == "0 bytes copied, 0.000123 s, 0.0 kB/s\n"


def test_dd_seconds_use_g_format():
    # "%g s": six significant digits, e.g. "0.0580986 s" (GitHub corpus id 17954289270)
    assert cu.dd_bytes_line(1073741824, 0.0580986) == \
        "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 0.0580986 s, 18.5 GB/s\n"


def test_dd_partial_and_truncated_records():
    assert cu.dd_records(0, 1, 0, 1) == "0+1 records in\n0+1 records out\n"
    assert cu.dd_records(3, 0, 3, 0, truncated=1) == \
        "3+0 records in\n3+0 records out\n1 truncated record\n"
    assert cu.dd_records(3, 0, 3, 0, truncated=2).endswith("2 truncated records\n")


def test_dd_write_error():
    # src/dd.c: die (EXIT_FAILURE, errno, _("error writing %s"), quoteaf (output_file))
    assert cu.dd_write_error("/tank/fill") == \
        "dd: error writing '/tank/fill': No space left on device\n"


def test_ls_long_lines():
    # `ls -l /otus1/*.log ...` (GitHub corpus id 52386377674): day of month padded with a
    # space, time shown for files younger than six months.
    mtime = calendar.timegm((2026, 4, 2, 7, 31, 0))
    now = mtime + 3600
    entries = [(f"/otus{i}/pg2600.converter.log", 41227642, 0, mtime) for i in (1, 2)]
    assert cu.ls_lines(entries, long=True, now=now) == (
        "-rw-r--r-- 1 root root 41227642 Apr  2 07:31 /otus1/pg2600.converter.log\n"
        "-rw-r--r-- 1 root root 41227642 Apr  2 07:31 /otus2/pg2600.converter.log\n")


def test_ls_long_aligns_sizes_and_shows_year_for_old_files():
    now = calendar.timegm((2022, 11, 22, 3, 50, 0))
    entries = [("disk1.img", 1073741824, 0, now - 60),
               ("disk2.img", 67108864, 0, now - 400 * 86400)]
    assert cu.ls_lines(entries, long=True, now=now) == (
        "-rw-r--r-- 1 root root 1073741824 Nov 22 03:49 disk1.img\n"
        "-rw-r--r-- 1 root root   67108864 Oct 18  2021 disk2.img\n")
    assert cu.ls_lines(entries, long=True, human=True, now=now) == (
        "-rw-r--r-- 1 root root 1.0G Nov 22 03:49 disk1.img\n"
        "-rw-r--r-- 1 root root  64M Oct 18  2021 disk2.img\n")


def test_ls_total_counts_allocated_blocks():
    # `ls -l /otus*` on a compressed dataset shows "total 22054" for a 40 MB file
    # (GitHub corpus id 19183663473): st_blocks in 1 KiB units, not the size.
    entry = cu.LsEntry("pg2600.converter.log", 40960747, allocated=22054 * 1024, mtime=0)
    assert cu.ls_lines([entry], long=True, now=1, total=True).splitlines()[0] == "total 22054"
    sparse = cu.LsEntry("disk.img", 1 << 30, allocated=0, mtime=0)
    assert cu.ls_lines([sparse], long=True, now=1, total=True).splitlines()[0] == "total 0"


def test_ls_columns_like_a_terminal():
    # ls.c calculate_columns()/print_many_per_line(): names run down the columns, the
    # widest layout shorter than 80 wins, indent() pads with a TAB when it reaches a tab
    # stop (every 8).  Derived from src/ls.c; names given in ls's sort order.
    six = [f"disk{i}.img" for i in (1, 10, 11, 12, 2, 3)]
    assert cu.ls_lines([(n, 0, 0, 0) for n in six]) == (
        "disk1.img  disk10.img  disk11.img  disk12.img  disk2.img  disk3.img\n")
    twelve = [f"disk{i}.img" for i in (1, 10, 11, 12, 2, 3, 4, 5, 6, 7, 8, 9)]
    assert cu.ls_lines([(n, 0, 0, 0) for n in twelve]) == (
        "disk1.img   disk11.img\tdisk2.img  disk4.img  disk6.img  disk8.img\n"
        "disk10.img  disk12.img\tdisk3.img  disk5.img  disk7.img  disk9.img\n")
    assert cu.ls_lines([("a", 0, 0, 0)]) == "a\n"
    assert cu.ls_lines([]) == ""


def test_ls_cannot_access():
    assert cu.ls_cannot_access("nope") == \
        "ls: cannot access 'nope': No such file or directory\n"


def test_truncate_and_rm_messages():
    # src/truncate.c: xdectoimax(..., _("Invalid number")) -- capital I
    assert cu.truncate_invalid_number("5X") == "truncate: Invalid number: '5X'\n"
    assert cu.truncate_invalid_number("99999999E", overflow=True) == (
        "truncate: Invalid number: '99999999E': Value too large for defined data type\n")
    assert cu.open_for_writing_failed("truncate", "/no/dir/f") == (
        "truncate: cannot open '/no/dir/f' for writing: No such file or directory\n")
    assert cu.rm_cannot_remove("x") == "rm: cannot remove 'x': No such file or directory\n"
    assert cu.rm_cannot_remove("/tank", "Is a directory") == \
        "rm: cannot remove '/tank': Is a directory\n"


@pytest.mark.parametrize(("argv", "shortopts", "longopts", "message"), [
    (["-x"], "s:", [], "invalid option -- 'x'"),
    (["-s"], "s:", [], "option requires an argument -- 's'"),
    (["--bogus"], "s:", ["size="], "unrecognized option '--bogus'"),
    (["--size"], "s:", ["size="], "option '--size' requires an argument"),
    (["--force=1"], "f", ["force"], "option '--force' doesn't allow an argument"),
])
def test_getopt_messages(argv, shortopts, longopts, message):
    with pytest.raises(getopt.GetoptError) as err:
        getopt.gnu_getopt(argv, shortopts, longopts)
    assert cu.getopt_message(err.value) == message
