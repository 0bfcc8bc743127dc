"""An option the real GNU tool has and labsim does not model is said to be not simulated;
one the real tool does not have is refused with the tool's own words
(labsim.shell.gnu_options)."""

import getopt
import gzip
import re
from pathlib import Path

import pytest

from labsim import Session
from labsim.shell.gnu_options import REAL_OPTIONS, is_real_option
from labsim.zfs.versions import get_version

NOTICE = "is not simulated here"


def run(line: str):
    session = Session()
    for setup in ("mkdir -p /var/tmp/labs", "truncate -s 1M /var/tmp/labs/x"):
        assert session.run(setup).status == 0
    return session.run(line)


@pytest.mark.parametrize("line, option", [
    ("ls -i /var/tmp/labs", "-i"),
    ("ls -lt /var/tmp/labs", "-t"),
    ("ls -S /var/tmp/labs", "-S"),  # accepted once, and the listing left in name order
    ("ls --color=never /var/tmp/labs", "--color"),
    ("ls --inod /var/tmp/labs", "--inod"),  # an abbreviation getopt_long() accepts
    ("cat -n /var/tmp/labs/x", "-n"),
    ("cat /var/tmp/labs/x -A", "-A"),  # GNU getopt permutes: an option after a file
    ("rm -i /var/tmp/labs/x", "-i"),
    ("rm -v /var/tmp/labs/x", "-v"),  # accepted once, and "removed 'x'" never printed
    ("cp -r /var/tmp/labs /var/tmp/copy", "-r"),
    ("mv -i /var/tmp/labs/x /var/tmp/labs/y", "-i"),
    ("mkdir -v /var/tmp/new", "-v"),
    ("df -i /var/tmp/labs", "-i"),
    ("df -P /var/tmp/labs", "-P"),
    ("du -b /var/tmp/labs/x", "-b"),
    ("touch -d now /var/tmp/labs/x", "-d"),
    ("stat -f /var/tmp/labs/x", "-f"),
    ("tail -F /var/tmp/labs/x", "-F"),
    ("grep -P x /var/tmp/labs/x", "-P"),
    ("sort -V /var/tmp/labs/x", "-V"),
    ("truncate --reference=/var/tmp/labs/x /var/tmp/labs/y", "--reference"),
    ("md5sum --tag /var/tmp/labs/x", "--tag"),
    ("sleep --help", "--help"),
    ("seq -w 3", "-w"),
    ("head -q /var/tmp/labs/x", "-q"),
    ("yes --he", "--he"),
])
def test_a_real_option_labsim_does_not_model_is_said_to_be_not_simulated(line, option):
    result = run(line)
    assert result.status == 1
    assert result.stdout == ""
    tool = line.split()[0]
    assert result.stderr.startswith(f"labsim: {tool} option {option} {NOTICE}"), result.stderr


@pytest.mark.parametrize("line, message", [
    ("ls -z /var/tmp/labs", "ls: invalid option -- 'z'"),
    ("ls --colr /var/tmp/labs", "ls: unrecognized option '--colr'"),
    ("cat -q /var/tmp/labs/x", "cat: invalid option -- 'q'"),
    ("mkdir -y /var/tmp/new", "mkdir: invalid option -- 'y'"),
    ("sleep -1", "sleep: invalid option -- '1'"),
    ("grep -j x /var/tmp/labs/x", "grep: invalid option -- 'j'"),
    ("truncate -s", "truncate: option requires an argument -- 's'"),
    ("seq -q 3", "seq: invalid option -- 'q'"),
    ("head -Q /var/tmp/labs/x", "head: invalid option -- 'Q'"),
    ("yes -x", "yes: invalid option -- 'x'"),
])
def test_an_option_the_real_tool_lacks_is_refused_in_its_words(line, message):
    result = run(line)
    assert result.status in (1, 2)
    assert result.stderr.splitlines()[0] == message
    assert NOTICE not in result.stderr


def test_what_labsim_models_still_works():
    session = Session()
    for line in ("mkdir -p -m 700 /var/tmp/a/b", "mkdir --parents /var/tmp/c/d",
                 "truncate -s 1M /var/tmp/a/b/f", "cat - /var/tmp/a/b/f", "sleep 1",
                 "ls -ls /var/tmp/a/b", "rm -rf /var/tmp/c"):
        result = session.run(line)
        assert result.status == 0, (line, result.stderr)
    assert NOTICE in session.run("ls -d /var/tmp/c").stderr  # -d is real


def test_the_tables_match_what_getopt_reports():
    # getopt reports a short option by its letter and a long one by its name.
    for argv, tool in ((["--inode"], "ls"), (["-n"], "cat"), (["--perl"], "grep")):
        with pytest.raises(getopt.GetoptError) as err:
            getopt.gnu_getopt(argv, "")
        assert is_real_option(tool, err.value.opt), (tool, err.value.opt)
    assert not is_real_option("yes", "n")
    assert not is_real_option("no-such-tool", "n")
    for tool, (short, long) in REAL_OPTIONS.items():
        assert short.isalnum() or not short, tool
        assert {"help", "version"} <= set(long), tool


MAN = Path("/usr/share/man/man1")


@pytest.mark.skipif(not (MAN / "ls.1.gz").exists(), reason="no manual pages on this machine")
def test_the_host_tools_have_no_option_the_table_lacks():
    """The host's own coreutils (an older release than Debian 13's, whose pages the table
    was read from) document no long option the table does not list: options are added,
    not taken away."""
    for tool in ("ls", "cat", "rm", "cp", "mv", "df", "du", "tail", "sort"):
        with gzip.open(MAN / f"{tool}.1.gz", "rt") as page:
            text = page.read().replace("\\-", "-")
        documented = set(re.findall(r"(?<![\w-])--([a-z][a-z0-9-]*)", text))
        missing = documented - set(REAL_OPTIONS[tool][1])
        assert not missing, (tool, missing)


@pytest.mark.parametrize("release, line, first_line", [
    # zdb's options by release (cmd/zdb/zdb.c main()): 2.2.0 added -B, -K and -T and long
    # names, 2.3 --allocated-map.
    ("2.1", "zdb -T pool", "zdb: invalid option -- 'T'"),
    ("2.1", "zdb --metaslabs pool", "zdb: unrecognized option '--metaslabs'"),
    ("2.3", "zdb -T pool", "labsim: zdb: `zdb -T pool' is not simulated here"),
    ("2.3", "zdb --allocated-map pool", "labsim: zdb: `zdb --allocated-map pool' is not"),
    ("2.2", "zdb --allocated-map pool", "zdb: unrecognized option '--allocated-map'"),
    ("2.3", "zdb --metaslabs nosuch", "zdb: can't open 'nosuch': No such file or directory"),
    ("2.3", "zdb nosuch -m", "zdb: can't open 'nosuch': No such file or directory"),
])
def test_zdb_knows_its_release_options(release, line, first_line):
    result = Session(version=get_version(release)).run(line)
    assert result.status == 1
    assert result.stderr.splitlines()[0].startswith(first_line), result.stderr


@pytest.mark.parametrize("operands, first_line", [
    # dd's symbols (coreutils 9.7 dd.c): real ones labsim does not model are said to be
    # not simulated, others refused as dd refuses them.
    ("conv=sparse", "labsim: dd conv=sparse is not simulated here"),
    ("conv=notrunc,ucase", "labsim: dd conv=ucase is not simulated here"),
    ("iflag=count_bytes", "labsim: dd iflag=count_bytes is not simulated here"),
    ("status=noxfer", "labsim: dd status=noxfer is not simulated here"),
    ("ibs=4k", "labsim: dd operand ibs= is not simulated here"),
    ("cbs=80", "labsim: dd operand cbs= is not simulated here"),
    ("oflag=foo", "dd: invalid output flag: 'foo'"),
    ("iflag=sparse", "dd: invalid input flag: 'sparse'"),
    ("conv=fullblock", "dd: invalid conversion: 'fullblock'"),
    ("status=loud", "dd: invalid status level: 'loud'"),
    ("colour=red", "dd: unrecognized operand 'colour=red'"),
])
def test_dd_knows_its_operands(operands, first_line):
    result = Session().run(f"dd if=/dev/zero of=/var/tmp/out bs=4k count=1 {operands}")
    assert result.status == 1
    assert result.stderr.splitlines()[0].startswith(first_line), result.stderr


def test_dd_runs_what_it_models():
    result = Session().run("dd if=/dev/zero of=/var/tmp/out bs=4k count=1 conv=notrunc,fsync "
                           "oflag=dsync iflag=fullblock status=none")
    assert (result.status, result.stderr) == (0, "")
