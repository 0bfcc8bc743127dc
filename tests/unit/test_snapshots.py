"""Snapshots, clones, promote and rollback (labsim.zfs.snapshots and the zfs commands):
space accounting against real OpenZFS 2.1.11, the exact texts zfs prints, and invariants
of the DSL's accounting for any sequence of operations.

Expected texts and figures were recorded on 2.1.11 in the lab VM (ashift 12, 256M file
vdev), from a probe script and from labs/scripts/06-snapshots.sh
(tests/fixtures/real/2.1.11/06-snapshots*).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labsim import Session, run_script
from labsim.zfs import snapshot_space
from labsim.zfs import snapshots as snap
from labsim.zfs.versions import KiB, get_version

SETUP = """
mkdir -p /var/tmp/labs
truncate -s 256M /var/tmp/labs/p.raw
zpool create -o ashift=12 p /var/tmp/labs/p.raw
zfs create p/d
"""
COLUMNS = "name,used,refer,usedbysnapshots,usedbydataset,usedbychildren,origin"


def run_all(session: Session, script: str) -> None:
    for line, result in run_script(script, session):
        assert result.status == 0, (line, result.stderr)


@pytest.fixture
def session() -> Session:
    s = Session()
    run_all(s, SETUP)
    return s


def listing(session: Session, *names: str) -> dict[str, dict[str, str]]:
    out = session.run(f"zfs list -Hp -t all -o {COLUMNS} " + " ".join(names)).stdout
    rows = {}
    for line in out.splitlines():
        name, *values = line.split("\t")
        rows[name] = dict(zip(COLUMNS.split(",")[1:], values, strict=True))
    return rows


def used(session: Session, name: str, column: str = "used") -> int:
    return int(listing(session, name)[name][column])


# ---------------------------------------------------------------- accounting, as recorded


def test_snapshots_of_an_unchanged_dataset_use_nothing(session):
    run_all(session, "zfs snapshot p/d@empty\nzfs snapshot p/d@empty2")
    rows = listing(session, "-r", "p/d")
    # recorded: both 0, REFER 98304 like the head's
    assert rows["p/d@empty"] == {"used": "0", "refer": "98304", "usedbysnapshots": "-",
                                 "usedbydataset": "-", "usedbychildren": "-", "origin": "-"}
    assert rows["p/d@empty2"]["used"] == "0"
    assert rows["p/d"]["usedbysnapshots"] == "0"


def test_a_new_file_after_a_snapshot_leaves_it_64k_of_metadata(session):
    run_all(session, "zfs snapshot p/d@empty\n"
            "dd if=/dev/urandom of=/p/d/f1 bs=128k count=1 status=none")
    # recorded: p/d USED 294912, REFER 229376, USEDSNAP 65536
    row = listing(session, "p/d")["p/d"]
    assert (row["used"], row["refer"], row["usedbysnapshots"]) == ("294912", "229376", "65536")


def test_a_file_made_and_removed_after_a_snapshot_leaves_it_the_rewritten_metadata(session):
    """Nothing of the file is left in either, but the head rewrote the root group, the
    directory's dnode block and the file's (generated seeds 42 and 5080, 2.1.11 and 2.3.9:
    the snapshot keeps them as unique)."""
    run_all(session, "zfs snapshot p/d@s\n"
            "dd if=/dev/urandom of=/p/d/f bs=128k count=1 status=none\nrm /p/d/f")
    assert used(session, "p/d@s") == 64 * KiB


def test_a_deleted_file_moves_to_the_snapshot(session):
    run_all(session, "dd if=/dev/urandom of=/p/d/f1 bs=128k count=1 status=none\n"
            "zfs snapshot p/d@one\n"
            "dd if=/dev/urandom of=/p/d/f2 bs=128k count=1 status=none")
    assert used(session, "p/d@one") == 64 * KiB  # recorded 65536
    run_all(session, "rm /p/d/f1")
    assert used(session, "p/d@one") == 192 * KiB  # recorded 196608: f1 and the metadata


def test_a_clone_is_charged_only_for_what_it_writes(session):
    run_all(session, "dd if=/dev/urandom of=/p/d/a bs=1M count=2 status=none\n"
            "zfs snapshot p/d@s\nzfs clone p/d@s p/c")
    assert listing(session, "p/c")["p/c"]["used"] == "0"
    assert listing(session, "p/c")["p/c"]["origin"] == "p/d@s"
    run_all(session, "dd if=/dev/urandom of=/p/c/w bs=1M count=1 status=none")
    row = listing(session, "p/c")["p/c"]
    w = 1 << 20
    # the new file and the clone's own copy of the rewritten metadata (root group,
    # directory and the file's dnode block)
    assert int(row["usedbydataset"]) == pytest.approx(w + 68 * KiB, abs=16 * KiB)
    assert int(row["refer"]) > int(listing(session, "p/d@s")["p/d@s"]["refer"])


def test_promote_moves_the_origin_snapshot_and_its_space(session):
    run_all(session, "dd if=/dev/urandom of=/p/d/a bs=1M count=2 status=none\n"
            "zfs snapshot p/d@s\nzfs clone p/d@s p/c\nrm /p/d/a\nzfs promote p/c")
    rows = listing(session, "-r", "p")
    assert "p/c@s" in rows and "p/d@s" not in rows
    assert rows["p/d"]["origin"] == "p/c@s" and rows["p/c"]["origin"] == "-"
    # the 2M file now belongs to p/c, which holds it in its head
    assert int(rows["p/c"]["usedbydataset"]) > 2 << 20
    assert int(rows["p/d"]["usedbydataset"]) < 256 * KiB


def test_a_root_promoted_away_from_keeps_only_what_it_wrote_since(session):
    """zfs promote of a clone of the pool root's snapshot makes the root a clone: its
    USEDDS is what it wrote after the origin (dd_origin_txg), and the data moves to the
    promoted file system under USEDCHILD (seed 35 of the generated scripts, 2.3.9: the
    root's USEDDS 95232 of a REFER of 18659520)."""
    run_all(session, "dd if=/dev/urandom of=/p/a bs=1M count=2 status=none\n"
            "zfs snapshot p@s\nzfs clone p@s p/c\nzfs promote p/c")
    rows = listing(session, "-r", "p")
    assert rows["p"]["origin"] == "p/c@s"
    assert int(rows["p"]["refer"]) > 2 << 20
    assert int(rows["p"]["usedbydataset"]) < 256 * KiB
    assert int(rows["p"]["usedbychildren"]) > 2 << 20
    assert sum(int(rows["p"][k]) for k in ("usedbysnapshots", "usedbydataset",
                                            "usedbychildren")) == int(rows["p"]["used"])


def test_rollback_returns_the_files_and_frees_what_only_the_head_held(session):
    run_all(session, "zfs snapshot p/d@s\n"
            "dd if=/dev/urandom of=/p/d/x bs=1M count=1 status=none\n"
            "zpool sync p")  # first space maps of newly used metaslabs (lab 7) synced
    before = used(session, "p")
    run_all(session, "zfs rollback p/d@s")
    assert before - used(session, "p") >= 1 << 20
    # The head is the snapshot's objset again: nothing of the snapshot's is unique
    # (dsl_dataset_clone_swap_sync_impl() resets its unique bytes from the empty deadlist
    # of the fresh clone; generated seed 60: 0 right after `zfs rollback -r`, 2.1.11 and
    # 2.3.9).
    assert used(session, "p/d@s") == 0
    assert session.run("ls /p/d").stdout == ""
    # Reading the directory wrote its atime: the root group and the root directory's dnode
    # block are new, the snapshot keeps the old ones (lab 6: 56K after `ls` on 2.1.11 and
    # 2.3.9).
    assert used(session, "p/d@s") == 56 * KiB


def test_import_makes_the_mountpoints_a_rollback_took_away(session):
    """A rollback of the parent takes the child's mountpoint directory away while the child
    stays mounted; export leaves the parent alone (every file system is unmounted before
    remove_mountpoint() rmdirs) and import's mount makes the directory again (zfs_mount_at()
    mkdirp()): the snapshot keeps the parent's old root group, directory and dnode block
    (generated seed 5091, 2.1.11 and 2.3.9)."""
    run_all(session, "zfs snapshot p/d@s\nzfs create p/d/c\nzfs rollback p/d@s")
    assert used(session, "p/d@s") == 0
    run_all(session, "zpool export p\nzpool import -d /var/tmp/labs p")
    assert used(session, "p/d@s") == 64 * KiB
    run_all(session, "zpool export p\nzpool import -d /var/tmp/labs p")
    assert used(session, "p/d@s") == 64 * KiB  # the directory is there now


@pytest.mark.parametrize("version", ["2.1", "2.3"])
def test_reading_a_directory_writes_its_atime_as_relatime_says(version):
    """The kernel's relatime (Linux mounts relatime, whatever the "relatime" property):
    only the first read after the directory was made or a name was made or removed in it
    writes its atime (the root group and its dnode block: 56K a snapshot keeps at ashift
    12); atime=off never."""
    def kept(before: str, props: str = "") -> int:
        s = Session(version=get_version(version))
        run_all(s, SETUP + (f"zfs set {props} p/d\n" if props else "")
                + f"{before}zfs snapshot p/d@t\nls /p/d")
        return used(s, "p/d@t")
    assert kept("") == 56 * KiB
    assert kept("ls /p/d\n") == 0
    assert kept("ls /p/d\ntouch /p/d/f\n") == 56 * KiB
    assert kept("", "atime=off") == 0


# ---------------------------------------------------------------- texts, as recorded


def test_snapshot_and_clone_errors(session):
    run_all(session, "zfs snapshot p/d@one")
    cases = {
        "zfs clone p/d@nosuch p/c3": ("cannot open 'p/d@nosuch': dataset does not exist\n", 1),
        "zfs clone p/d p/c4": ("cannot open 'p/d': missing '@' delimiter in snapshot name\n", 1),
        "zfs snapshot p/d@one": ("cannot create snapshot 'p/d@one': dataset already exists\n",
                                 1),
        "zfs snapshot p/nosuch@x": (
            "cannot open 'p/nosuch': dataset does not exist\nusage:\n"
            "\tsnapshot [-r] [-o property=value] ... <filesystem|volume>@<snap> ...\n\n"
            "For the property list, run: zfs set|get\n\n"
            "For the delegated permission list, run: zfs allow|unallow\n\n"
            "For further help on a command or topic, run: zfs help [<topic>]\n", 2),
        "zfs promote p/d": ("cannot promote 'p/d': not a cloned filesystem\n", 1),
        "zfs rollback p/d": ("cannot open 'p/d': missing '@' delimiter in snapshot name\n", 1),
        "zfs destroy p/d@nosuch": ("could not find any snapshots to destroy; "
                                   "check snapshot names.\n", 1),
    }
    run_all(session, "zfs clone p/d@one p/c1")
    cases["zfs clone p/d@one p/c1"] = ("cannot create 'p/c1': dataset already exists\n", 1)
    for line, (stderr, status) in cases.items():
        result = session.run(line)
        assert (result.stderr, result.status) == (stderr, status), line


def test_destroy_refusals(session):
    run_all(session, "zfs snapshot p/d@one\nzfs clone p/d@one p/c1")
    result = session.run("zfs destroy p/d@one")
    assert result.stderr == ("cannot destroy 'p/d@one': snapshot has dependent clones\n"
                             "use '-R' to destroy the following datasets:\np/c1\n")
    assert result.status == 1
    assert session.run("zfs destroy -r p/d").stderr == (
        "cannot destroy 'p/d': filesystem has dependent clones\n"
        "use '-R' to destroy the following datasets:\np/c1\n")
    assert session.run("zfs destroy p/d").stderr == (
        "cannot destroy 'p/d': filesystem has children\n"
        "use '-r' to destroy the following datasets:\np/d@one\n")
    # -R takes the clone with it
    result = session.run("zfs destroy -Rv p/d")
    assert result.stdout == "will destroy p/c1\nwill destroy p/d@one\nwill destroy p/d\n"
    assert "p/d" not in listing(session, "-r", "p")


def test_destroy_dry_run_lists_and_prices_each_range(session):
    run_all(session, "zfs snapshot p/d@a\n"
            "dd if=/dev/urandom of=/p/d/f bs=1M count=1 status=none\n"
            "zfs snapshot p/d@b\nzfs snapshot p/d@c\nrm /p/d/f")
    out = session.run("zfs destroy -nv p/d@a%c").stdout
    assert out.splitlines()[:3] == ["would destroy p/d@a", "would destroy p/d@b",
                                    "would destroy p/d@c"]
    assert out.splitlines()[3].startswith("would reclaim 1.")
    parsable = session.run("zfs destroy -nvp p/d@b").stdout
    assert parsable.startswith("destroy\tp/d@b\nreclaim\t")
    # the recorded form of a snapshot with clones under -nv: the refusal, then the list
    run_all(session, "zfs clone p/d@b p/k")
    result = session.run("zfs destroy -nv p/d@b")
    assert result.status == 1
    assert (result.stdout + result.stderr).endswith("p/k\nwould destroy p/d@b\n")


def test_destroying_a_snapshot_leaves_its_predecessors_metadata_unique(session):
    """Found by the invariant below: @a's unique metadata (the root group and directory the
    head rewrote when f was created after @a) is on the next deadlist whether that is @b's
    or, once @b is gone, the head's. Destroying @b must not make it vanish, although @a and
    the head now hold the same files."""
    run_all(session, "zfs snapshot p/d@a\n"
                     "dd if=/dev/urandom of=/p/d/f bs=128k count=3\n"
                     "zfs snapshot p/d@b\nrm /p/d/f")
    used = "zfs list -Hp -o used p/d@a"
    assert session.run(used).stdout == "65536\n"
    reclaim = session.run("zfs destroy -nvp p/d@b").stdout.split()[-1]
    before = int(session.run("zfs list -Hp -o used p").stdout)
    assert session.run("zfs destroy p/d@b").status == 0
    assert session.run(used).stdout == "65536\n"
    assert before - int(session.run("zfs list -Hp -o used p").stdout) == int(reclaim)


def test_destroying_the_first_snapshot_frees_what_it_promised(session):
    """Found by the invariant below: the later members' metadata versions (here @b's
    version of the removed file's dnode) must not change when the first snapshot goes."""
    run_all(session, "dd if=/dev/urandom of=/p/d/f bs=128k count=1\n"
                     "zfs snapshot p/d@a\nrm /p/d/f\nzfs snapshot p/d@b\n"
                     "dd if=/dev/urandom of=/p/d/f bs=128k count=1\nzpool sync p")
    reclaim = session.run("zfs destroy -nvp p/d@a").stdout.split()[-1]
    # The file system's USED: the pool's also moves with the MOS the destroy's txgs write
    # (space maps flushed and log space maps freed, labsim.zfs.txg).
    before = int(session.run("zfs list -Hp -o used p/d").stdout)
    assert session.run("zfs destroy p/d@a").status == 0
    assert before - int(session.run("zfs list -Hp -o used p/d").stdout) == int(reclaim)


def test_rollback_refusals(session):
    run_all(session, "zfs snapshot p/d@a\nzfs snapshot p/d@b\nzfs clone p/d@b p/k")
    result = session.run("zfs rollback p/d@a")
    assert result.stderr == ("cannot rollback to 'p/d@a': more recent snapshots or bookmarks "
                             "exist\nuse '-r' to force deletion of the following snapshots "
                             "and bookmarks:\np/d@b\n")
    result = session.run("zfs rollback -r p/d@a")
    assert result.stderr == ("cannot rollback to 'p/d@a': clones of previous snapshots exist\n"
                             "use '-R' to force deletion of the following clones and "
                             "dependents:\np/k\n")


def test_list_sorts_snapshots_after_their_dataset_by_txg(session):
    run_all(session, "zfs snapshot p/d@z\nzfs snapshot p/d@a\nzfs create p/d/kid")
    names = session.run("zfs list -H -o name -t all -r p").stdout.split()
    assert names == ["p", "p/d", "p/d@z", "p/d@a", "p/d/kid"]
    assert session.run("zfs list -H -o name -r p").stdout.split() == ["p", "p/d", "p/d/kid"]
    assert session.run("zfs list -H -o name -t snapshot -d 1 p/d").stdout.split() == [
        "p/d@z", "p/d@a"]


# ---------------------------------------------------------------- invariants

OPS = st.lists(st.tuples(st.sampled_from(["write", "rm", "snap", "clone", "cwrite",
                                          "pwrite", "cpwrite"]),
                         st.integers(min_value=0, max_value=3)), min_size=1, max_size=12)


def _apply(session: Session, ops) -> None:
    taken = 0
    for op, n in ops:
        if op == "write":
            session.run(f"dd if=/dev/urandom of=/p/d/f{n} bs=128k count={n + 1}")
        elif op == "rm":
            session.run(f"rm /p/d/f{n}")
        elif op == "snap":
            session.run(f"zfs snapshot p/d@s{taken}")
            taken += 1
        elif op == "clone" and taken:
            session.run(f"zfs clone p/d@s{n % taken} p/c{n}")
        elif op == "cwrite":
            session.run(f"dd if=/dev/urandom of=/p/c{n}/g bs=128k count=2")
        elif op == "pwrite":  # into the middle of a file (labsim.zfs.overwrite), or past it
            session.run(f"dd if=/dev/urandom of=/p/d/f{n} bs=64k seek={n} count=2 "
                        "conv=notrunc")
        elif op == "cpwrite":  # a clone's version of a file of its origin
            session.run(f"dd if=/dev/urandom of=/p/c{n}/f{n} bs=64k seek=1 count=1 "
                        "conv=notrunc")


def _pool(session: Session):
    return session.pools["p"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS)
def test_used_is_the_sum_of_its_parts(ops):
    session = Session()
    run_all(session, SETUP)
    _apply(session, ops)
    pool = _pool(session)
    for ds in pool.datasets.values():
        # A snapshot holds only blocks born before it was taken (blk_birth <= its txg).
        assert all(f.birth <= s.txg for s in ds.snapshots for f in s.files.values())
        space = snapshot_space.space(pool, ds)
        assert space.snapshots + space.dataset + space.children + space.refreservation \
            == space.used
        assert min(space.snapshots, space.dataset, space.children) >= 0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS, st.data())
def test_would_reclaim_is_what_destroying_the_range_frees(ops, data):
    session = Session()
    run_all(session, SETUP)
    _apply(session, ops)
    pool = _pool(session)
    dataset = pool.datasets["p/d"]
    free = [s for s in dataset.snapshots if not snap.clones_of(pool, s)]
    if not free:
        return
    first = data.draw(st.sampled_from(free))
    after = dataset.snapshots[dataset.snapshots.index(first):]
    run = [s for s in after[:next((i for i, s in enumerate(after) if s not in free),
                                  len(after))]]
    last = data.draw(st.sampled_from(run))
    promised = snapshot_space.range_reclaim(pool, first, last)
    # The file system's USED: the pool's also moves with the MOS the destroy's txgs write
    # (space maps flushed and log space maps freed, labsim.zfs.txg).
    before = snapshot_space.space(pool, dataset).used
    result = session.run(f"zfs destroy p/d@{first.short}%{last.short}")
    assert result.status == 0, result.stderr
    assert before - snapshot_space.space(pool, dataset).used == promised


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS)
def test_destroying_every_snapshot_frees_usedbysnapshots(ops):
    session = Session()
    run_all(session, SETUP)
    _apply(session, [(op, n) for op, n in ops if op not in ("clone", "cwrite", "cpwrite")])
    pool = _pool(session)
    dataset = pool.datasets["p/d"]
    if not dataset.snapshots:
        return
    held = snapshot_space.usedbysnapshots(pool, dataset)
    before = snapshot_space.space(pool, dataset).used  # the file system's, as above
    assert session.run("zfs destroy p/d@%").status == 0
    assert before - snapshot_space.space(pool, dataset).used == held
    assert snapshot_space.usedbysnapshots(pool, dataset) == 0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS)
def test_listing_walks_the_chain_once_and_agrees_with_each_snapshots_used(ops):
    """snapshots_used() (one walk of the chain, for zfs list) gives each snapshot the USED
    snapshot_used() gives it alone; clones' origins are not counted as the dataset's."""
    session = Session()
    run_all(session, SETUP)
    _apply(session, ops)
    pool = _pool(session)
    for dataset in pool.datasets.values():
        assert snapshot_space.snapshots_used(pool, dataset) == {
            s.name: snapshot_space.snapshot_used(pool, s) for s in dataset.snapshots}


def test_a_clone_chain_1000_deep_is_destroyed_with_R(session):
    """Each clone's snapshot is the origin of the next clone: zfs destroy without -R names
    the dependents, deepest first; with -R all of them go (issue 16: this overflowed
    Python's stack)."""
    depth = 1000
    for i in range(depth):
        source = "p/d" if i == 0 else f"p/c{i}"
        run_all(session, f"zfs snapshot {source}@s\nzfs clone {source}@s p/c{i + 1}")
    refusal = session.run("zfs destroy p/d@s")
    assert refusal.status == 1
    lines = refusal.stderr.splitlines()
    assert lines[:2] == ["cannot destroy 'p/d@s': snapshot has dependent clones",
                         "use '-R' to destroy the following datasets:"]
    assert lines[2:5] == [f"p/c{depth}", f"p/c{depth - 1}@s", f"p/c{depth - 1}"]
    assert len(lines) == 2 + 2 * depth - 1
    run_all(session, "zfs destroy -R p/d@s")
    assert session.run("zfs list -H -o name -t all -r p").stdout == "p\np/d\n"


def test_promote_refuses_a_snapshot_name_the_clone_has(session):
    """dsl_dataset_promote_check() refuses EEXIST on the newest moving snapshot whose name
    the clone also has; zfs_promote() names it and the origin (libzfs_dataset.c)."""
    run_all(session, "zfs snapshot p/d@a\nzfs snapshot p/d@b\nzfs clone p/d@b p/c\n"
                     "zfs snapshot p/c@a\nzfs snapshot p/c@b2")
    refused = session.run("zfs promote p/c")
    assert (refused.status, refused.stderr) == (
        1, "cannot promote 'p/c': conflicting snapshot 'a' from parent 'p/d@b'\n")
    run_all(session, "zfs destroy p/c@a\nzfs promote p/c")
    assert session.run("zfs list -H -o name -t snapshot -r p").stdout.split() == [
        "p/c@a", "p/c@b", "p/c@b2"]


def test_a_root_directory_too_big_to_embed_is_a_block_its_versions_own(session):
    # Generated seed 33 (2.1.11 and 2.3.9, ashift 12): a clone of a snapshot of five files,
    # in which a child file system is made, owns 72K: the objset block, the meta-dnode's
    # five indirect blocks, the dnode blocks of the root directory and of the new
    # mountpoint directory, and the root directory's micro ZAP, whose sixth name makes it
    # too big to embed in its block pointer (two copies of a 4K sector each).
    run_all(session, "\n".join(f"echo {n} > /p/d/f{n}" for n in range(1, 6)))
    run_all(session, "zfs snapshot p/d@s\nzfs clone p/d@s p/c\nzfs create p/c/fs8\n"
                     "zpool sync p")
    assert used(session, "p/c", "usedbydataset") == 9 * 2 * 4 * KiB
