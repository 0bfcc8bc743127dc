"""Vdev labels and how zpool import finds a pool's devices by them (labsim.zfs.labels,
labsim.zfs.discovery, labsim.zfs.import_config, labsim.shell.vdev_labels): renamed and
moved files, strangers, duplicates, missing members, import by id, labels destroyed by dd
or moved by truncate. Texts as OpenZFS 2.3.9 prints them (cmd/zpool/zpool_main.c:
show_import(), print_import_config(), status_callback(); lib/libzfs/libzfs_status.c)."""

import re

import pytest

from labsim import Session, run_script
from labsim.zfs import discovery, labels
from labsim.zfs.labels import (
    VDEV_LABEL_SIZE,
    LeafConfig,
    TopConfig,
    VdevLabel,
    label_offset,
    read_label,
    write_copies,
)
from labsim.zfs.versions import get_version

V = "/var/tmp/labs/"
MiB = 1 << 20


def ok(session, line):
    result = session.run(line)
    assert result.status == 0, (line, result.stderr)
    return result.stdout


def fails(session, line):
    result = session.run(line)
    assert result.status != 0, (line, result.stdout)
    return result.stderr


def make(script: str, version: str = "2.3") -> Session:
    session = Session(version=get_version(version))
    for line, result in run_script(script, session):
        assert result.status == 0, (line, result.stderr)
    return session


TWO_DISKS = f"""
mkdir -p {V}away
truncate -s 128M {V}a.raw
truncate -s 128M {V}b.raw
zpool create p {V}a.raw {V}b.raw
dd if=/dev/urandom of=/p/f bs=1M count=8 status=none
"""
MIRROR = f"""
mkdir -p {V}away
truncate -s 128M {V}a.raw
truncate -s 128M {V}b.raw
zpool create p mirror {V}a.raw {V}b.raw
dd if=/dev/urandom of=/p/f bs=1M count=8 status=none
"""


def _id(listing: str) -> str:
    return next(line.split()[1] for line in listing.splitlines() if line.strip().startswith("id:"))


def _status_rows(session, pool="p"):
    text = ok(session, f"zpool status {pool}")
    return [line.strip() for line in text.splitlines() if line.startswith("\t")]


# ------------------------------------------------------------------ the label itself


def _label(guid=7, txg=10, pool_guid=99):
    tree = TopConfig(0, guid, "disk", (LeafConfig(guid, "/d"),))
    return VdevLabel("p", pool_guid, labels.POOL_STATE_EXPORTED, txg, guid, guid, 1, tree)


def test_label_copies_sit_two_at_the_front_two_at_the_back():
    size = 128 * MiB + 1000  # aligned down to a whole label first
    assert [label_offset(size, i) for i in range(4)] == [
        0, VDEV_LABEL_SIZE, 128 * MiB - 2 * VDEV_LABEL_SIZE, 128 * MiB - VDEV_LABEL_SIZE]


def test_read_label_counts_the_copies_left():
    copies = write_copies(128 * MiB, _label())
    assert read_label(copies, 128 * MiB) == (_label(), 4)
    front_gone = labels.overwrite(copies, 0, 2 * VDEV_LABEL_SIZE)
    assert read_label(front_gone, 128 * MiB) == (_label(), 2)
    one_byte_of_l2 = labels.overwrite(front_gone, 128 * MiB - 2 * VDEV_LABEL_SIZE + 5,
                                      128 * MiB - 2 * VDEV_LABEL_SIZE + 6)
    assert read_label(one_byte_of_l2, 128 * MiB) == (_label(), 1)
    assert read_label(labels.overwrite(copies, 0, 128 * MiB), 128 * MiB) is None
    # grown: the back pair is no longer where the labels are read
    assert read_label(copies, 256 * MiB) == (_label(), 2)
    # cut below the back pair, or below SPA_MINDEVSIZE
    assert read_label(labels.truncated(copies, 100 * MiB), 100 * MiB) == (_label(), 2)
    assert read_label(copies, 63 * MiB) is None


def test_get_configs_takes_each_top_level_vdevs_newest_label():
    old, new = _label(txg=10), _label(txg=20)
    found = discovery.find_pools([discovery.FoundDevice("/x/a", 0, old, 4),
                                  discovery.FoundDevice("/x/b", 0, new, 4)])
    assert len(found) == 1 and found[0].tops[7] is new and found[0].txg == 20


def test_fix_paths_prefers_the_config_path_then_more_labels_then_search_order():
    label = _label()
    a = discovery.FoundDevice("/x/a", 1, label, 4)
    b = discovery.FoundDevice("/y/b", 0, label, 2)
    c = discovery.FoundDevice("/y/c", 0, label, 4)
    assert discovery.fix_path([a, b, c], 7, "/y/b") == "/y/b"
    assert discovery.fix_path([a, b, c], 7, "/gone") == "/y/c"  # 4 labels, earlier -d
    assert discovery.fix_path([a, b], 7, "/gone") == "/x/a"  # more labels beat order
    assert discovery.fix_path([a, b, c], 8, "/y/b") is None


def test_guids_differ_for_two_pools_of_one_name_and_repeat_in_a_new_session():
    def guids():
        session = make(TWO_DISKS)
        first = session.pools["p"].guid
        ok(session, "zpool destroy p")
        ok(session, f"zpool create p {V}a.raw")
        return first, session.pools["p"].guid

    first, second = guids()
    assert first != second and 0 not in (first, second)
    assert guids() == (first, second)


def test_a_single_device_vdev_is_its_own_top_level_vdev():
    session = make(TWO_DISKS)
    pool = session.pools["p"]
    assert all(v.guid == v.leaves[0].guid for v in pool.vdevs)
    label, count = read_label(session.host_files[f"{V}a.raw"].labels, 128 * MiB)
    assert (label.pool_name, label.pool_guid, label.state, count) == (
        "p", pool.guid, labels.POOL_STATE_ACTIVE, 4)
    ok(session, "zpool export p")
    exported, _ = read_label(session.host_files[f"{V}a.raw"].labels, 128 * MiB)
    assert exported.state == labels.POOL_STATE_EXPORTED and exported.txg > label.txg


# ------------------------------------------------------------------ finding devices


def test_a_renamed_vdev_file_is_found_by_its_label():
    session = make(TWO_DISKS)
    ok(session, "zpool export p")
    ok(session, f"mv {V}b.raw {V}renamed.raw")
    listing = ok(session, f"zpool import -d {V}")
    assert f"\t  {V}renamed.raw  ONLINE\n" in listing and " state: ONLINE\n" in listing
    ok(session, f"zpool import -d {V} p")
    assert _status_rows(session)[-1].startswith(f"{V}renamed.raw")
    assert session.pools["p"].vdevs[1].leaves[0].path == f"{V}renamed.raw"


def test_a_file_moved_out_is_found_again_with_a_second_directory():
    session = make(TWO_DISKS)
    ok(session, "zpool export p")
    ok(session, f"mv {V}b.raw {V}away/b2.raw")
    assert "UNAVAIL  cannot open" in ok(session, f"zpool import -d {V}")
    assert fails(session, f"zpool import -d {V} p").startswith(
        "cannot import 'p': no such pool or dataset")
    ok(session, f"zpool import -d {V} -d {V}away p")
    assert _status_rows(session)[-1].startswith(f"{V}away/b2.raw  ONLINE")


def test_only_the_directory_entries_are_scanned_not_subdirectories():
    session = make(TWO_DISKS)
    ok(session, "zpool export p")
    ok(session, f"mv {V}a.raw {V}away/")
    ok(session, f"mv {V}b.raw {V}away/")
    assert fails(session, f"zpool import -d {V}") == "no pools available to import\n"
    assert "  pool: p\n" in ok(session, f"zpool import -d {V}away")
    ok(session, f"zpool import -d {V}away/a.raw -d {V}away/b.raw p")  # files named


def test_files_without_labels_are_ignored():
    session = make(TWO_DISKS)
    ok(session, "zpool export p")
    ok(session, f"truncate -s 128M {V}stranger.raw")
    ok(session, f"truncate -s 1M {V}small.raw")
    listing = ok(session, f"zpool import -d {V}")
    assert "stranger" not in listing and listing.count("  pool: ") == 1
    assert fails(session, f"zpool import -d {V} stranger") == (
        "cannot import 'stranger': no such pool available\n")


def test_a_copied_vdev_file_does_not_replace_the_original():
    """cp duplicates the labels: two devices with one guid and txg. fix_paths() keeps the
    one at the config's path; without it, the one read last of those with most labels."""
    session = make(TWO_DISKS)
    ok(session, "zpool export p")
    ok(session, f"cp {V}b.raw {V}b-copy.raw")
    ok(session, f"zpool import -d {V} p")
    assert [r.split()[0] for r in _status_rows(session)][-1] == f"{V}b.raw"
    ok(session, "zpool export p")
    ok(session, f"mv {V}b.raw {V}z.raw")  # neither is at the config's path now
    ok(session, f"zpool import -d {V} p")
    assert [r.split()[0] for r in _status_rows(session)][-1] == f"{V}z.raw"


def test_import_by_numeric_id_and_two_pools_of_one_name():
    session = make(TWO_DISKS)
    ok(session, "zpool export p")
    ok(session, f"truncate -s 128M {V}c.raw")
    ok(session, f"zpool create p {V}c.raw")
    ok(session, "zpool export p")
    listing = ok(session, f"zpool import -d {V}")
    assert listing.count("  pool: p\n") == 2 and "\n\n  pool: p\n" in listing
    assert fails(session, f"zpool import -d {V} p") == (
        "cannot import 'p': more than one matching pool\nimport by numeric ID instead\n")
    guid = str(next(g for g, pool in session.exported_pools.items()
                    if len(pool.vdevs) == 1))
    assert guid in listing
    ok(session, f"zpool import -d {V} {guid} q")
    assert [r.split()[0] for r in _status_rows(session, "q")] == ["NAME", "q", f"{V}c.raw"]
    ok(session, f"zpool import -d {V} p")  # the one left
    assert fails(session, f"zpool import -d {V} 12345") == (
        "cannot import '12345': no such pool available\n")


def test_an_imported_or_destroyed_pool_is_not_listed():
    session = make(TWO_DISKS)
    assert fails(session, f"zpool import -d {V}") == "no pools available to import\n"
    ok(session, "zpool destroy p")
    assert fails(session, f"zpool import -d {V}") == "no pools available to import\n"
    assert "not simulated" in fails(session, f"zpool import -D -d {V}")


def test_labels_without_the_pools_data_are_not_simulated():
    session = make(TWO_DISKS)
    ok(session, f"cp {V}a.raw {V}a-copy.raw")
    ok(session, f"cp {V}b.raw {V}b-copy.raw")
    ok(session, "zpool destroy p")
    ok(session, f"rm {V}a.raw {V}b.raw")
    assert "not simulated" in fails(session, f"zpool import -d {V}")


# ------------------------------------------------------------------ missing members


def test_a_mirror_missing_a_member_imports_degraded():
    session = make(MIRROR)
    ok(session, "zpool export p")
    ok(session, f"mv {V}b.raw {V}away/")
    listing = ok(session, f"zpool import -d {V}")
    guid = _id(listing)
    width = 4 + len(f"{V}a.raw")  # max_width(): the deepest leaf
    assert listing == f"""\
  pool: p
    id: {guid}
 state: DEGRADED
status: One or more devices are missing from the system.
action: The pool can be imported despite missing or damaged devices.  The
\tfault tolerance of the pool may be compromised if imported.
   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-2Q
config:

\t{"p".ljust(width)}  DEGRADED
\t  {"mirror-0".ljust(width - 2)}  DEGRADED
\t    {V}a.raw  ONLINE
\t    {V}b.raw  UNAVAIL  cannot open
"""
    ok(session, f"zpool import -d {V} p")
    status = ok(session, "zpool status p")
    leaf = session.pools["p"].vdevs[0].leaves[1]
    assert (" state: DEGRADED\nstatus: One or more devices could not be opened.  "
            "Sufficient replicas exist for\n") in status
    assert f"\t    {leaf.guid}  UNAVAIL      0     0     0  was {V}b.raw\n" in status
    assert f"  {leaf.guid}" in ok(session, "zpool list -v p")
    # back at the next import: what was written meanwhile is stale on it; the resilver
    # the import asks for has not started (no txg synced yet), so a scrub repairs it
    ok(session, "dd if=/dev/urandom of=/p/g bs=1M count=4 status=none")
    ok(session, "zpool export p")
    ok(session, f"mv {V}away/b.raw {V}b.raw")
    assert " state: ONLINE\n" in ok(session, f"zpool import -d {V}")
    ok(session, f"zpool import -d {V} p")
    status = ok(session, "zpool status p")
    assert " state: ONLINE\n" in status and "scan:" not in status
    assert f"\t    {V}b.raw  ONLINE       0     0     0\n" in status
    ok(session, "zpool scrub -w p")
    status = ok(session, "zpool status p")
    repaired = re.search(r"scrub repaired ([0-9.]+)M ", status)
    assert repaired and 4 <= float(repaired.group(1)) < 5, status
    assert re.search(rf"\t    {V}b.raw  ONLINE       0     0 +[1-9]", status)


def _member_back_after_a_4m_write(copies: int = 1) -> Session:
    """A mirror's member missing at an import, 4M written (at ``copies``), the member back
    at the next import, and `zpool wait -t resilver` (which finds nothing to wait for yet)."""
    session = make(MIRROR)
    ok(session, "zpool export p")
    ok(session, f"mv {V}b.raw {V}away/")
    ok(session, f"zpool import -d {V} p")
    if copies != 1:
        ok(session, f"zfs set copies={copies} p")
    ok(session, "dd if=/dev/urandom of=/p/g bs=1M count=4 status=none")
    ok(session, "zpool export p")
    ok(session, f"mv {V}away/b.raw {V}b.raw")
    ok(session, f"zpool import -d {V} p")
    ok(session, "zpool wait -t resilver p")
    return session


def test_a_member_back_at_import_is_resilvered_once_the_pool_syncs_a_txg():
    # spa_load_impl() asks for the resilver (its DTL holds the txgs it missed); async
    # tasks start at the end of the next spa_sync(), so zpool wait finds nothing to wait
    # for and the status right after the import still shows no scan (generated seeds
    # 0040, 0045, 0078 on 2.3.9 and 2.1.11); after a txg the resilver has copied the
    # 4M written meanwhile, and a scrub finds nothing left to repair.
    session = _member_back_after_a_4m_write()
    assert "scan:" not in ok(session, "zpool status p")
    assert session.pools["p"].vdevs[0].leaves[1].damaged
    ok(session, "zpool sync p")
    status = ok(session, "zpool status p")
    resilvered = re.search(r"scan: resilvered ([0-9.]+)M in ", status)
    assert resilvered and 4 <= float(resilvered.group(1)) < 5, status
    assert not session.pools["p"].vdevs[0].leaves[1].damaged
    ok(session, "zpool scrub -w p")
    status = ok(session, "zpool status p")
    assert "scrub repaired 0B" in status
    assert f"\t    {V}b.raw  ONLINE       0     0     0\n" in status


def test_a_resilver_copies_only_what_is_still_allocated_when_it_runs():
    # dsl_scan traverses the pool as it is when the resilver runs: a file written while
    # the member was away and removed before the resilver started is not copied
    # (generated seed 146 on 2.3.9: 96K resilvered in five runs, labsim said 918K)
    session = _member_back_after_a_4m_write()
    ok(session, "rm /p/g")
    ok(session, "zpool sync p")
    status = ok(session, "zpool status p")
    resilvered = re.search(r"scan: resilvered ([0-9.]+)([KM]) in ", status)
    assert resilvered and resilvered.group(2) == "K", status  # the metadata only
    ok(session, "zpool scrub -w p")
    assert "scrub repaired 0B" in ok(session, "zpool status p")


def test_a_resilver_writes_each_missed_copy_once_for_every_copy_of_its_block():
    # dsl_scan_enqueue() queues a block once per DVA and each read mends every copy the
    # member missed (scan.resilver_writes()): at copies=2 on one mirror the member holds
    # both copies of each record and each is written twice, 16M for a 4M file. Recorded
    # with a copy on each of two mirrors (tests/fixtures/real/2.3.9/probes/
    # lab15-degraded-window.txt): 896K missed, 1.83M resilvered.
    session = _member_back_after_a_4m_write(copies=2)
    ok(session, "zpool sync p")
    resilvered = re.search(r"scan: resilvered ([0-9.]+)M in ", ok(session, "zpool status p"))
    assert resilvered and 16 <= float(resilvered.group(1)) < 17


def test_zpool_online_brings_a_member_missing_since_the_import_back():
    session = make(MIRROR)
    ok(session, "zpool export p")
    ok(session, f"mv {V}b.raw {V}away/")
    ok(session, f"zpool import -d {V} p")
    assert ok(session, f"zpool online p {V}b.raw") == (
        f"warning: device '{V}b.raw' onlined, but remains in faulted state\n"
        "use 'zpool replace' to replace devices that are no longer present\n")
    ok(session, "dd if=/dev/urandom of=/p/g bs=1M count=2 status=none")
    ok(session, f"mv {V}away/b.raw {V}b.raw")
    assert ok(session, f"zpool online p {V}b.raw") == ""
    status = ok(session, "zpool status p")
    assert " state: ONLINE\n" in status and f"\t    {V}b.raw  ONLINE" in status
    assert "scan:" not in status  # no DTL, no resilver: the new blocks are stale on it
    assert session.pools["p"].vdevs[0].leaves[1].damaged


def test_raidz_missing_more_than_its_parity_cannot_be_imported():
    session = make(f"""
mkdir -p {V}
truncate -s 128M {V}a.raw
truncate -s 128M {V}b.raw
truncate -s 128M {V}c.raw
zpool create p raidz1 {V}a.raw {V}b.raw {V}c.raw
""")
    ok(session, "zpool export p")
    ok(session, f"rm {V}b.raw")
    assert " state: DEGRADED\n" in ok(session, f"zpool import -d {V}")
    ok(session, f"rm {V}c.raw")
    listing = ok(session, f"zpool import -d {V}")
    width = 4 + len(f"{V}a.raw")
    assert f"\t  {'raidz1-0'.ljust(width - 2)}  UNAVAIL  insufficient replicas\n" in listing
    assert "see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-3C" in listing
    assert "no such pool or dataset" in fails(session, f"zpool import -d {V} p")


# ------------------------------------------------------------------ labels destroyed


def test_dd_over_some_copies_leaves_the_device_found():
    session = make(TWO_DISKS)
    ok(session, "zpool export p")
    ok(session, f"mv {V}b.raw {V}r.raw")
    ok(session, f"dd if=/dev/zero of={V}r.raw bs=512K count=1 conv=notrunc status=none")
    assert f"{V}r.raw  ONLINE" in ok(session, f"zpool import -d {V}")
    ok(session, f"dd if=/dev/zero of={V}r.raw bs=256K seek=510 count=1 conv=notrunc "
                "status=none")
    assert f"{V}r.raw  ONLINE" in ok(session, f"zpool import -d {V}")  # L3 is left
    ok(session, f"dd if=/dev/zero of={V}r.raw bs=256K seek=511 count=1 conv=notrunc "
                "status=none")
    listing = ok(session, f"zpool import -d {V}")  # none left: not found by its label
    assert f"\t  {V}b.raw  UNAVAIL  cannot open\n" in listing


def test_a_file_at_the_config_path_without_a_label_is_an_invalid_label():
    session = make(MIRROR)
    ok(session, "zpool export p")
    ok(session, f"dd if=/dev/zero of={V}b.raw bs=1M count=128 status=none")
    listing = ok(session, f"zpool import -d {V}")
    assert f"\t    {V}b.raw  UNAVAIL  invalid label\n" in listing
    assert "status: One or more devices contains corrupted data.\n" in listing
    ok(session, f"zpool import -d {V} p")
    assert "label is missing or\n\tinvalid." in ok(session, "zpool status p")


def test_dd_onto_a_renamed_vdev_file_damages_its_leaf():
    """An exported pool's file is known by its label, whatever its name: a scrub after the
    import repairs what dd wrote over the mirror member."""
    session = make(MIRROR)
    ok(session, "zpool export p")
    ok(session, f"mv {V}b.raw {V}r.raw")
    ok(session, f"dd if=/dev/urandom of={V}r.raw bs=1M seek=4 count=100 conv=notrunc "
                "status=none")
    assert session.exported_pools[next(iter(session.exported_pools))].vdevs[0] \
        .leaves[1].damaged
    ok(session, f"zpool import -d {V} p")
    ok(session, "zpool scrub -w p")
    assert re.search(r"scan: scrub repaired [1-9][0-9.]*M ", ok(session, "zpool status p"))


def test_a_grown_vdev_file_keeps_its_front_labels():
    session = make(TWO_DISKS)
    ok(session, "zpool export p")
    ok(session, f"mv {V}b.raw {V}r.raw")
    ok(session, f"truncate -s 256M {V}r.raw")
    label, count = read_label(session.host_files[f"{V}r.raw"].labels, 256 * MiB)
    assert count == 2
    ok(session, f"zpool import -d {V} p")


def test_a_detached_mirror_member_loses_its_labels():
    session = make(MIRROR)
    ok(session, f"zpool detach p {V}b.raw")
    assert session.host_files[f"{V}b.raw"].labels == ()
    pool = session.pools["p"]
    # the leaf left alone takes the mirror's guid (vdev_remove_parent())
    assert pool.vdevs[0].leaves[0].guid == pool.vdevs[0].guid


# ------------------------------------------------------------------ releases


def test_2_1_prints_the_listing_one_column_to_the_right():
    session = make(TWO_DISKS, "2.1")
    ok(session, "zpool export p")
    listing = ok(session, f"zpool import -d {V}")
    assert listing.startswith(f"   pool: p\n     id: {_id(listing)}\n  state: ONLINE\n"
                              " action: The pool can be imported using its name or numeric "
                              "identifier.\n config:\n\n\tp")


@pytest.mark.parametrize("version", ["2.1", "2.2", "2.3"])
def test_every_taught_release_finds_renamed_files(version):
    session = make(TWO_DISKS, version)
    ok(session, "zpool export p")
    ok(session, f"mv {V}a.raw {V}x.raw")
    ok(session, f"zpool import -d {V} p")
    assert _status_rows(session)[2].startswith(f"{V}x.raw")
