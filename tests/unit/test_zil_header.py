"""A ZIL header that is not zero, copied into a snapshot (on a pool of SPA_VERSION_FAST_SNAP
the snapshot is taken without zil_suspend()), makes dsl_dataset_zero_zil() rewrite the
objset block of a clone of it, or of the head rolled back to it (module/zfs/dsl_dataset.c,
2.1.11 and 2.3.9). Generated seeds 96 and 97 (a fresh clone holds 512 bytes of its own
at ashift 9, two copies), 64 and 1 (the snapshot of an unchanged head keeps one objset
block after the rollback)."""

from __future__ import annotations

import pytest

from labsim import Session

SETUP = ("truncate -s 256M /tmp/d1", "zpool create -o ashift=9 p /tmp/d1")


def _run(session: Session, *lines: str) -> None:
    for line in lines:
        assert session.run(line).status == 0, line


def _get(session: Session, prop: str, name: str) -> int:
    return int(session.run(f"zfs get -Hp -o value {prop} {name}").stdout)



def _exported_and_snapshotted(exported_unsynced: bool) -> Session:
    """A file system written (synced before the export or not), exported, imported and
    snapshotted as p@s."""
    session = Session()
    _run(session, *SETUP, "seq 1 602 > /p/f")
    if not exported_unsynced:
        _run(session, "zpool sync p")  # the itxs are dropped: export writes no log
    _run(session, "zpool export p", "zpool import -d /tmp p", "zfs snapshot p@s")
    return session

@pytest.mark.parametrize("exported_unsynced", [True, False])
def test_a_clone_of_a_snapshot_with_a_log_owns_its_objset_block(
        exported_unsynced: bool) -> None:
    session = _exported_and_snapshotted(exported_unsynced)
    _run(session, "zfs clone p@s p/c", "zpool sync p")
    own = _get(session, "used", "p/c")
    # The objset block: 512 bytes after LZ4 at ashift 9, two copies.
    assert own == (1024 if exported_unsynced else 0)
    assert _get(session, "logicalused", "p/c") == own // 2


@pytest.mark.parametrize("exported_unsynced", [True, False])
def test_a_rollback_to_a_snapshot_with_a_log_leaves_it_an_objset_block(
        exported_unsynced: bool) -> None:
    session = _exported_and_snapshotted(exported_unsynced)
    _run(session, "zfs rollback p@s", "zpool sync p")
    assert _get(session, "used", "p@s") == (1024 if exported_unsynced else 0)
    # Rolled back, the head's header is zero: a second rollback rewrites nothing.
    _run(session, "zfs snapshot p@t", "zfs rollback p@t")
    assert _get(session, "used", "p@t") == 0


@pytest.mark.parametrize("exported_unsynced", [True, False])
def test_an_import_rewrites_the_objset_block_of_a_file_system_with_a_log(
        exported_unsynced: bool) -> None:
    # zil_claim() and zil_destroy(zilog, B_TRUE) at the mount rewrite the objset block of
    # a file system whose ZIL header is not zero (it stays so across imports): a snapshot
    # of the unchanged head from before the export keeps the old block as its own.
    session = _exported_and_snapshotted(exported_unsynced)
    _run(session, "zpool export p", "zpool import -d /tmp p", "zpool sync p")
    assert _get(session, "used", "p@s") == (1024 if exported_unsynced else 0)


@pytest.mark.parametrize(("changed", "first_sync", "logged"), [
    ("p/b", "standard", "p/b"),   # first in unmount order: its commit writes a log
    ("p/a", "standard", None),    # p/b's close synced the txg that held p/a's change
    ("p/a", "disabled", "p/a"),   # p/b commits nothing and has nothing to wait for
])
def test_only_the_first_file_system_to_close_its_log_keeps_a_header(
        changed: str, first_sync: str, logged: str | None) -> None:
    # Every zil_close() waits for the txg its own commit dirtied (zil_commit_itx_assign()),
    # so the changes of every file system unmounted later are synced before their closes
    # (lab15-zil-header-kinds, 2.3.9). Unmount order is reverse mountpoint order.
    session = Session()
    _run(session, *SETUP, "zfs create p/a", f"zfs create -o sync={first_sync} p/b",
         "zpool sync p", f"seq 1 602 > /{changed}/f", "zpool export p",
         "zpool import -d /tmp p", "zfs snapshot -r p@s")
    for name in ("p/a", "p/b"):
        _run(session, f"zfs clone {name}@s {name}-c", "zpool sync p")
        assert _get(session, "used", f"{name}-c") == (1024 if name == logged else 0), name
