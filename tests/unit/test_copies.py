"""copies=2 and 3: where ditto copies go, what a scrub repairs and what it cannot, zpool
status -v, zpool clear, reads that fail, and a pool that cannot be imported without one of
its single-disk vdevs (labsim.zfs.ditto, labsim.zfs.scan, zpool import). Texts are those of
OpenZFS 2.1.11 (cmd/zpool/zpool_main.c: status_callback(), print_error_log(),
show_import(); lib/libzfs/libzfs_status.c)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labsim import Session, run_script
from labsim.zfs.labels import VDEV_LABEL_START_SIZE

V = "/var/tmp/labs/"
MiB = 1 << 20
SETUP = f"""
mkdir -p /var/tmp/labs/away
truncate -s 128M {V}a.raw
truncate -s 128M {V}b.raw
zpool create -o ashift=12 p {V}a.raw {V}b.raw
zfs create -o copies=1 p/one
zfs create -o copies=2 p/two
dd if=/dev/urandom of=/p/one/f.bin bs=1M count=4 status=none
dd if=/dev/urandom of=/p/two/f.bin bs=1M count=4 status=none
"""
# dd over all of b.raw between its front and back labels
WIPE_B = f"dd if=/dev/urandom of={V}b.raw bs=1M seek=4 count=123 conv=notrunc status=none"


def ok(session, line):
    result = session.run(line)
    assert result.status == 0, (line, result.stderr)
    return result.stdout


def fails(session, line):
    result = session.run(line)
    assert result.status != 0, line
    return result.stderr


@pytest.fixture
def session():
    s = Session()
    for line, result in run_script(SETUP, s):
        assert result.status == 0, (line, result.stderr)
    return s


def _file(session, dataset, name):
    pool = session.pools["p"]
    return pool, pool.datasets[dataset].files[name]


def test_copies_property_is_set_and_read(session):
    assert ok(session, "zfs get -H -o value copies p/two") == "2\n"
    assert ok(session, "zfs get -H -o value copies p/one") == "1\n"
    assert ok(session, "zfs get -H -o value,source copies p") == "1\tdefault\n"
    assert "'copies' must be one of '1 | 2 | 3'" in fails(session, "zfs set copies=4 p/two")


def test_two_copies_of_each_block_on_different_vdevs(session):
    pool, file = _file(session, "p/two", "f.bin")
    assert len(file.ditto) == 32  # 4 MiB in 128K records
    for group in file.ditto:
        assert len(group) == 2
        assert {copy.vdev for copy in group} == {0, 1}  # mg_next: the other vdev
    # every copy is counted: the dataset uses twice what copies=1 uses, give or take
    # the indirect blocks
    used_one = int(ok(session, "zfs get -Hp -o value used p/one"))
    used_two = int(ok(session, "zfs get -Hp -o value used p/two"))
    assert 2 * used_one - 256 * 1024 < used_two < 2 * used_one + 256 * 1024


@pytest.mark.parametrize(("copies", "expected"), [(1, 2), (2, 3), (3, 3)])
def test_indirect_blocks_get_one_copy_more_than_the_data_at_most_three(copies, expected):
    # dmu_write_policy(): metadata (level > 0) gets copies + 1 DVAs, capped by
    # spa_max_replication() at SPA_DVAS_PER_BP = 3
    s = Session()
    for line, result in run_script(f"mkdir -p {V}\ntruncate -s 128M {V}x.raw {V}y.raw {V}z.raw\n"
                                   f"zpool create -o ashift=12 t {V}x.raw {V}y.raw {V}z.raw\n"
                                   f"zfs set copies={copies} t\n"
                                   "dd if=/dev/urandom of=/t/f bs=1M count=1", s):
        assert result.status == 0, (line, result.stderr)
    file = s.pools["t"].datasets["t"].files["f"]
    indirect = file.extents[len(file.extents) - file.indirect_extents:]
    assert len(indirect) == expected  # one L1 block for 8 records, in every copy
    assert len({copy.vdev for copy in indirect}) == expected  # on different vdevs


def test_on_one_vdev_the_copies_are_in_different_metaslabs():
    s = Session()
    for line, result in run_script(f"mkdir -p {V}\ntruncate -s 256M {V}s.raw\n"
                                   f"zpool create -o ashift=12 s {V}s.raw\n"
                                   "zfs set copies=3 s\n"
                                   "dd if=/dev/urandom of=/s/f bs=1M count=2", s):
        assert result.status == 0, (line, result.stderr)
    pool = s.pools["s"]
    file = pool.datasets["s"].files["f"]
    shift = pool.vdevs[0].ms_shift
    for group in file.ditto:
        assert len(group) == 3
        assert {copy.vdev for copy in group} == {0}
        # metaslab_is_unique(): no two copies of a block share a metaslab
        assert len({copy.offset >> shift for copy in group}) == 3


def test_scrub_repairs_copies_2_and_lists_the_copies_1_file(session):
    ok(session, WIPE_B)
    ok(session, "zpool scrub -w p")
    out = ok(session, "zpool status -v p")
    head, _, rest = out.partition("  scan: ")
    assert head == (
        "  pool: p\n"
        " state: ONLINE\n"
        "status: One or more devices has experienced an error resulting in data\n"
        "\tcorruption.  Applications may be affected.\n"
        "action: Restore the file in question if possible.  Otherwise restore the\n"
        "\tentire pool from backup.\n"
        "   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-8A\n")
    assert rest.endswith(
        "errors: Permanent errors have been detected in the following files:\n\n"
        "        /p/one/f.bin\n")
    pool = session.pools["p"]
    a, b = (vdev.leaves[0] for vdev in pool.vdevs)
    assert a.cksum_errors == 0
    lost = pool.data_errors
    # 2.1.11 leaves the pool row at 0 for blocks lost on single-disk vdevs (recorded)
    assert lost > 0 and pool.cksum_errors == 0
    # b.raw counts every bad copy read: the lost blocks, the copies=2 copies, metadata
    assert b.cksum_errors >= lost + 32
    assert f"with {lost} errors" in rest
    assert "/p/two/f.bin" not in out
    # without -v, only the count
    assert f"errors: {lost} data errors, use '-v' for a list\n" in ok(session, "zpool status p")


def test_a_second_scrub_finds_only_what_could_not_be_repaired(session):
    ok(session, WIPE_B)
    ok(session, "zpool scrub p")
    pool = session.pools["p"]
    lost = pool.data_errors
    ok(session, "zpool clear p")
    assert pool.vdevs[1].leaves[0].cksum_errors == 0
    ok(session, "zpool scrub p")
    # the copies=2 blocks and the metadata were rewritten; the lost blocks are bad still
    assert pool.vdevs[1].leaves[0].cksum_errors == lost
    assert pool.scan is not None and pool.scan.processed == 0


def test_clear_resets_counters_but_keeps_the_error_list(session):
    ok(session, WIPE_B)
    ok(session, "zpool scrub p")
    ok(session, "zpool clear p")
    out = ok(session, "zpool status -v p")
    assert "\tp" + " " * 20 + "  ONLINE       0     0     0\n" in out
    assert f"\t  {V}b.raw  ONLINE       0     0     0\n" in out
    assert "        /p/one/f.bin\n" in out
    assert "ZFS-8000-8A" in ok(session, "zpool status -x p")


def test_reads_fail_only_where_no_copy_is_good(session):
    ok(session, WIPE_B)
    # before any scrub: the copies=2 file reads from the good copies on a.raw
    ok(session, "dd if=/p/two/f.bin of=/dev/null bs=1M status=none")
    result = session.run("dd if=/p/one/f.bin of=/dev/null bs=1M status=none")
    assert result.status == 1
    assert result.stderr == "dd: error reading '/p/one/f.bin': Input/output error\n"
    result = session.run(f"dd if=/p/one/f.bin of={V}copy bs=128K")
    assert result.status == 1
    # the records before the first bad block were read and written
    assert result.stderr.startswith("dd: error reading '/p/one/f.bin': Input/output error\n")
    copied = session.host_files[f"{V}copy"].size
    assert copied % (128 * 1024) == 0 and copied < 4 * MiB
    assert f"{copied // (128 * 1024)}+0 records in\n" in result.stderr


def test_damage_before_the_data_area_is_in_the_labels_and_harmless(session):
    # the front labels and boot region: 4 MiB that no block is allocated in
    ok(session, f"dd if=/dev/urandom of={V}b.raw bs=1M count=4 seek=0 conv=notrunc")
    ok(session, "zpool scrub p")
    assert ok(session, "zpool status -x p") == "pool 'p' is healthy\n"


# show_import() on 2.3.9 (tests/fixtures/real/2.3.9/probes/lab15-rename-import.txt, with
# this test's paths): the configuration comes from the MOS, so the missing vdev is listed by
# its path. (2.1's headings, one column to the right: tests/unit/test_import_labels.py.)
IMPORT_LISTING = f"""\
  pool: p
    id: {{id}}
 state: UNAVAIL
status: One or more devices are missing from the system.
action: The pool cannot be imported. Attach the missing
\tdevices and try again.
   see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-3C
config:

\tp{' ' * 20}  UNAVAIL  insufficient replicas
\t  {V}a.raw  ONLINE
\t  {V}b.raw  UNAVAIL  cannot open
"""


def test_a_lost_single_disk_vdev_loses_the_pool_whatever_copies_says(session):
    ok(session, "zpool export p")
    ok(session, f"mv {V}b.raw {V}away/")
    listing = ok(session, f"zpool import -d {V}")
    guid = listing.splitlines()[1].split()[1]
    assert listing == IMPORT_LISTING.format(id=guid)
    assert fails(session, f"zpool import -d {V} p") == (
        "cannot import 'p': no such pool or dataset\n"
        "\tDestroy and re-create the pool from\n\ta backup source.\n")
    # the directory the file went to is not searched unless named
    assert fails(session, f"zpool import -d {V}away/x p") == (
        "cannot import 'p': no such pool available\n")
    ok(session, f"mv {V}away/b.raw {V}b.raw")
    listing = ok(session, f"zpool import -d {V}")
    assert " state: ONLINE\naction: The pool can be imported using its name or numeric " \
           "identifier.\nconfig:\n\n\tp" in listing
    ok(session, f"zpool import -d {V} p")
    assert ok(session, "zpool status -x p") == "pool 'p' is healthy\n"


def test_mv_messages(session):
    assert fails(session, f"mv {V}nothing {V}x") == (
        f"mv: cannot stat '{V}nothing': No such file or directory\n")
    assert fails(session, f"mv {V}a.raw") == (
        f"mv: missing destination file operand after '{V}a.raw'\n"
        "Try 'mv --help' for more information.\n")
    ok(session, f"truncate -s 1M {V}t")
    ok(session, f"mv {V}t {V}u")
    assert f"{V}u" in session.host_files and f"{V}t" not in session.host_files


@settings(max_examples=25, deadline=None)
@given(start=st.integers(0, 120), length=st.integers(1, 124))
def test_damage_on_one_vdev_never_loses_a_copies_2_file(start, length):
    s = Session()
    for _, result in run_script(SETUP, s):
        assert result.status == 0
    s.run(f"dd if=/dev/urandom of={V}b.raw bs=1M seek={start + 4} count={length} "
          "conv=notrunc status=none")
    ok(s, "zpool scrub p")
    pool = s.pools["p"]
    assert ("p/two", "f.bin") not in pool.damaged_files
    assert set(pool.damaged_files) <= {("p/one", "f.bin")}
    # the front labels are not data: nothing there is ever counted
    assert all(lo >= VDEV_LABEL_START_SIZE for lo, _ in pool.vdevs[1].leaves[0].damaged)


def test_copies_3_fills_the_pool_three_times_as_fast():
    """Every block of a copies=3 dataset is charged its three DVAs (bp_get_dsize()), so dd
    stops at about a third of what copies=1 takes, with ENOSPC and as many records out as
    it wrote (issue 16: the third copies ran out of room after the data and crashed)."""
    session = Session()
    ok(session, f"mkdir -p {V}")
    ok(session, f"truncate -s 1G {V}c.raw")
    ok(session, f"zpool create p {V}c.raw")
    ok(session, "zfs create -o copies=3 p/three")
    result = session.run("dd if=/dev/urandom of=/p/three/big bs=1M count=2000")
    assert result.status == 1
    assert "dd: error writing '/p/three/big': No space left on device" in result.stderr
    records_out = int(result.stderr.split("records out")[0].split("\n")[-1].split("+")[0])
    size = session.pools["p"].datasets["p/three"].files["big"].size
    # GNU dd counts the bytes of the short last write but not its record (dd_copy())
    assert records_out * MiB <= size < (records_out + 1) * MiB and records_out > 200
    used = int(ok(session, "zfs get -Hp -o value used p/three"))
    assert 3 * size <= used < 3 * size + 8 * MiB
    pool = session.pools["p"]
    # every data block holds three copies on the pool's one vdev
    assert all(len(group) == 3 for group in pool.datasets["p/three"].files["big"].ditto)
