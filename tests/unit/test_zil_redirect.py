"""Writes through a shell redirection into a file system with sync=always commit to the
intent log, as every write() there does (zfs_write() -> zil_commit(), module/zfs/
zfs_vnops.c): the file system then has a log chain, which a snapshot keeps in its ZIL
header and a clone of that snapshot clears by rewriting its objset block."""

import re

from labsim import Session, run_script

SETUP = """
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/z.raw
zpool create -o ashift=12 z /var/tmp/labs/z.raw
zfs create -o sync={sync} z/fs
"""


def machine(sync: str) -> Session:
    session = Session()
    for line, result in run_script(SETUP.format(sync=sync), session):
        assert result.status == 0, (line, result.stderr)
    return session


def commits(session: Session) -> int:
    kstat = session.run("cat /proc/spl/kstat/zfs/zil").stdout
    return int(re.search(r"^zil_commit_count\s+\d+\s+(\d+)$", kstat, re.M).group(1))


def test_a_redirection_into_a_sync_always_file_system_commits_each_write():
    session = machine("always")
    before = commits(session)
    assert session.run("seq 1 100000 > /z/fs/numbers").status == 0  # 588895 bytes
    # seq writes through stdio, a buffer of the new file's st_blksize (the recordsize)
    assert commits(session) - before == 5
    assert session.pools["z"].datasets["z/fs"].log_exists
    before = commits(session)
    assert session.run("yes x | head -c 65536 > /z/fs/x").status == 0
    assert commits(session) - before == 8  # head copies through BUFSIZ, 8192 bytes


def test_with_sync_standard_a_redirection_commits_nothing():
    session = machine("standard")
    before = commits(session)
    assert session.run("seq 1 100000 > /z/fs/numbers").status == 0
    assert commits(session) == before
    assert not session.pools["z"].datasets["z/fs"].log_exists


def test_a_clone_of_a_snapshot_taken_with_a_log_owns_an_objset_block():
    used = {}
    for sync in ("always", "standard"):
        session = machine(sync)
        for line in ("seq 1 100000 > /z/fs/numbers", "zpool sync z", "zfs snapshot z/fs@a",
                     "zfs clone z/fs@a z/c", "zpool sync z"):
            assert session.run(line).status == 0, line
        used[sync] = int(session.run("zfs get -Hpo value used z/c").stdout)
    assert used["standard"] == 0
    assert used["always"] > 0


def test_cp_into_a_sync_always_file_system_commits_each_write():
    session = machine("always")
    assert session.run("seq 1 100000 > /var/tmp/numbers").status == 0  # on the host
    before = commits(session)
    assert session.run("cp /var/tmp/numbers /z/fs/numbers").status == 0  # 588895 bytes
    assert commits(session) - before == 5  # io_blksize(): 128 KiB writes
