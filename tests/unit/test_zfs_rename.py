"""zfs rename of snapshots (zfs_do_rename() and zfs_rename() at zfs-2.3.9,
dsl_dataset_rename_snapshot()): the forms of the target, -r, the refusals with zfs's own
words, clones following their origin, the history records; a file system's rename is an
honest notice."""

from __future__ import annotations

import pytest

from labsim import Session

SETUP = ("truncate -s 256M /var/tmp/r1.raw", "zpool create pool /var/tmp/r1.raw",
         "zfs create pool/users", "zfs create pool/users/a", "zfs snapshot -r pool/users@today")


@pytest.fixture
def session() -> Session:
    session = Session()
    for line in SETUP:
        assert session.run(line).status == 0, line
    return session


def snapshots(session: Session) -> list[str]:
    return session.run("zfs list -H -t snapshot -o name").stdout.split()


@pytest.mark.parametrize("target", ["pool/users@day1", "@day1", "day1"])
def test_a_snapshot_takes_its_new_name_in_any_of_the_three_forms(session, target):
    result = session.run(f"zfs rename pool/users@today {target}")
    assert (result.status, result.stdout, result.stderr) == (0, "", "")
    assert snapshots(session) == ["pool/users@day1", "pool/users/a@today"]


def test_recursive_rename_renames_the_snapshot_in_every_descendant(session):
    assert session.run("zfs rename -r pool/users@today @yesterday").status == 0
    assert snapshots(session) == ["pool/users@yesterday", "pool/users/a@yesterday"]


def test_a_descendant_without_the_snapshot_is_passed_over(session):
    session.run("zfs create pool/users/b")
    assert session.run("zfs rename -r pool/users@today @old").status == 0
    assert snapshots(session) == ["pool/users@old", "pool/users/a@old"]


@pytest.mark.parametrize(("line", "message"), [
    ("zfs rename -r pool/users@today @clash",
     "cannot rename 'pool/users@today': a child dataset already has a snapshot with the "
     "new name"),
    ("zfs rename pool/users/a@today @clash",
     "cannot rename 'pool/users/a@today': dataset already exists"),
    ("zfs rename pool/users@today pool/users/a@x",
     "cannot rename to 'pool/users/a@x': snapshots must be part of same dataset"),
    ("zfs rename pool/users@nope @x", "cannot open 'pool/users@nope': dataset does not exist"),
    ("zfs rename -u pool/users@today @x",
     "cannot open 'pool/users@today': operation not applicable to datasets of this type"),
])
def test_refusals_say_what_zfs_says_and_change_nothing(session, line, message):
    session.run("zfs snapshot pool/users/a@clash")
    before = snapshots(session)
    result = session.run(line)
    assert result.status == 1
    assert result.stderr == message + "\n"
    assert snapshots(session) == before


@pytest.mark.parametrize(("line", "first"), [
    ("zfs rename -r pool/users pool/u2", "source dataset for recursive rename must be a "
                                         "snapshot"),
    ("zfs rename pool/users@today", "missing target dataset argument"),
    ("zfs rename", "missing source dataset argument"),
    ("zfs rename -p -r pool/users@today @x", "-p and -r options are mutually exclusive"),
])
def test_usage_errors_print_the_usage_and_exit_2(session, line, first):
    result = session.run(line)
    assert result.status == 2
    assert result.stderr.startswith(first + "\nusage:\n\trename ")


def test_a_clone_follows_its_origin_renamed(session):
    session.run("zfs clone pool/users@today pool/c")
    assert session.run("zfs rename pool/users@today @base").status == 0
    assert session.run("zfs get -H -o value origin pool/c").stdout == "pool/users@base\n"


def test_renaming_a_file_system_is_an_honest_notice(session):
    result = session.run("zfs rename pool/users pool/people")
    assert result.status == 1
    assert "not simulated" in result.stderr and "zfs rename" in result.stderr
    assert "pool/users" in session.run("zfs list -H -o name").stdout.split()


def test_a_rename_is_a_txg_and_a_history_record(session):
    pool = session.pools["pool"]
    txg, logged = pool.txg, len(pool.history.log)
    assert session.run("zfs rename -r pool/users@today @yesterday").status == 0
    assert pool.txg > txg
    new = bytes(pool.history.log[logged:])
    # one internal "rename" record for each snapshot renamed, then the command line
    assert new.count(b"-> @yesterday") == 2
    assert b"zfs rename -r pool/users@today @yesterday" in new
