"""Which datasets zfs list and zfs get visit without -r: the named one only, and its
snapshots only when snapshots are the one type asked for (cmd/zfs/zfs_main.c, zfs_do_list()
and zfs_do_get() at zfs-2.3.9: ZFS_ITER_DEPTH_LIMIT with limit 1)."""

from labsim import Session


def session_with_snapshot() -> Session:
    s = Session()
    for line in ("mkdir -p /var/tmp/labs", "truncate -s 256M /var/tmp/labs/d.raw",
                 "zpool create p /var/tmp/labs/d.raw", "zfs create p/fs",
                 "zfs create p/fs/child", "zfs snapshot -r p/fs@s"):
        assert s.run(line).status == 0, line
    return s


def names(out: str) -> list[str]:
    return [line.split()[0] for line in out.splitlines()]


def test_get_without_r_visits_only_the_named_dataset():
    s = session_with_snapshot()
    assert names(s.run("zfs get -H -o name used p/fs").stdout) == ["p/fs"]
    assert names(s.run("zfs get -H -o name -r used p/fs").stdout) == [
        "p/fs", "p/fs@s", "p/fs/child", "p/fs/child@s"]


def test_list_t_snapshot_of_a_dataset_lists_its_own_snapshots():
    s = session_with_snapshot()
    assert names(s.run("zfs list -H -o name -t snapshot p/fs").stdout) == ["p/fs@s"]
    assert names(s.run("zfs get -H -o name -t snapshot used p/fs").stdout) == ["p/fs@s"]
    assert names(s.run("zfs list -H -o name -t all p/fs").stdout) == ["p/fs"]
