"""zfs list and zfs get visit the names they are given as zfs_for_each() does."""

from __future__ import annotations

from labsim import Session


def test_zfs_list_and_get_go_on_past_a_name_they_cannot_open() -> None:
    # zfs_for_each() (cmd/zfs/zfs_iter.c): the error first, the others still listed, exit 1.
    session = Session()
    for line in ("truncate -s 256M /tmp/d1", "zpool create p /tmp/d1",
                 "zfs create -V 48M p/vol1"):
        assert session.run(line).status == 0, line
    for line, out in (("zfs list -H -o name p/nope p", "p\n"),
                      ("zfs get -H -o name,value volsize p/nope p/vol1", "p/vol1\t48M\n")):
        result = session.run(line)
        assert (result.status, result.stdout, result.stderr) == (
            1, out, "cannot open 'p/nope': dataset does not exist\n"), line
