"""Block cloning: the BRT's reference counts and ratio (module/zfs/brt.c), and cp on a pool
as OpenZFS 2.1, 2.2 and 2.3 answer it (labsim.zfs.bclone)."""

import pytest

from labsim import Session
from labsim.zfs.brt import Brt, addref, decref, ratio
from labsim.zfs.space import dataset_available
from labsim.zfs.versions import VERSIONS, KiB, MiB

# ---------------------------------------------------------------- the BRT alone


def test_nothing_cloned_is_ratio_one():
    brt = Brt()
    assert (brt.used, brt.saved, ratio(brt)) == (0, 0, 100)


def test_a_block_counts_once_in_used_and_once_per_clone_in_saved():
    brt = Brt()
    addref(brt, (0, 4096), 128 * KiB)
    assert (brt.used, brt.saved, ratio(brt)) == (128 * KiB, 128 * KiB, 200)
    addref(brt, (0, 4096), 128 * KiB)
    assert (brt.used, brt.saved, ratio(brt)) == (128 * KiB, 256 * KiB, 300)


def test_freeing_drops_one_reference_until_none_is_left():
    brt = Brt()
    for _ in range(2):
        addref(brt, (1, 0), 8 * KiB)
    assert decref(brt, (1, 0)) is False  # kept: one clone left
    assert (brt.used, brt.saved, ratio(brt)) == (8 * KiB, 8 * KiB, 200)
    assert decref(brt, (1, 0)) is False  # kept: the last pointer to it remains
    assert (brt.used, brt.saved, ratio(brt)) == (0, 0, 100)
    assert brt.entries == {}
    assert decref(brt, (1, 0)) is True  # the last pointer: the block is freed


def test_a_block_never_cloned_is_freed_at_once():
    brt = Brt()
    addref(brt, (0, 0), 4 * KiB)
    assert decref(brt, (0, 8192)) is True
    assert brt.saved == 4 * KiB


def test_ratio_is_truncated_to_hundredths():
    brt = Brt()
    addref(brt, (0, 0), 3 * KiB)
    addref(brt, (0, 4096), 3 * KiB, count=2)
    addref(brt, (0, 8192), 3 * KiB, count=2)
    # used 9K, saved 15K: 24 * 100 // 9 = 266 (2.66x, not 2.67x)
    assert ratio(brt) == 266


# ---------------------------------------------------------------- cp on a pool


def machine(version: str) -> Session:
    session = Session(version=VERSIONS[version])
    for line in ("mkdir -p /var/tmp/labs", "truncate -s 512M /var/tmp/labs/c.raw",
                 "zpool create -o ashift=12 c /var/tmp/labs/c.raw",
                 "dd if=/dev/urandom of=/c/a.bin bs=1M count=8 status=none",
                 "zpool sync c"):
        result = session.run(line)
        assert result.status == 0, (line, result)
    return session


def bclone_props(session: Session) -> list[str]:
    out = session.run("zpool get -Hp -o value bcloneused,bclonesaved,bcloneratio c")
    assert out.status == 0, out
    return out.stdout.split()


def test_cp_clones_on_2_3_as_the_probe_recorded():
    session = machine("2.3")
    pool = session.pools["c"]
    alloc = pool.alloc
    avail = dataset_available(pool, pool.root)
    assert session.run("cp --reflink=always /c/a.bin /c/b.bin").status == 0
    assert session.run("cp /c/a.bin /c/c.bin").status == 0  # copy_file_range(): a clone
    session.run("zpool sync c")
    # tests/fixtures/probes/zfs/2.3.9/zfs_versions_probe.txt: 8388608 16777216 3.00
    assert bclone_props(session) == ["8388608", "16777216", "3.00"]
    # Only the clones' own indirect blocks are new.
    assert 0 < pool.alloc - alloc < 64 * KiB
    # Every file counts in full; AVAIL loses no more than that metadata.
    refer = int(session.run("zfs get -Hp -o value referenced c").stdout)
    assert refer > 3 * 8 * MiB
    assert avail - dataset_available(pool, pool.root) < 64 * KiB
    sizes = session.run("ls -s /c").stdout.split()[2::2]
    assert len(sizes) == 3 and len(set(sizes)) == 1  # ls -s: each file in full


def test_freeing_the_original_keeps_its_blocks_for_the_clones():
    session = machine("2.3")
    session.run("cp --reflink=always /c/a.bin /c/b.bin")
    session.run("cp /c/a.bin /c/c.bin")
    pool = session.pools["c"]
    alloc = pool.alloc
    session.run("rm /c/a.bin")
    session.run("zpool sync c")
    assert bclone_props(session) == ["8388608", "8388608", "2.00"]
    assert alloc - pool.alloc < 64 * KiB  # only a.bin's indirect blocks went
    session.run("rm /c/b.bin")
    assert bclone_props(session) == ["0", "0", "1.00"]
    assert session.run("zpool get -H -o value feature@block_cloning c").stdout == "enabled\n"
    session.run("rm /c/c.bin")
    session.run("zpool sync c")
    assert pool.alloc < 2 * MiB  # every data block freed with the last pointer to it


def test_feature_block_cloning_is_active_while_something_is_cloned():
    session = machine("2.3")
    get = "zpool get -H -o property,value feature@block_cloning,feature@raidz_expansion c"
    assert session.run(get).stdout == ("feature@block_cloning\tenabled\n"
                                       "feature@raidz_expansion\tenabled\n")
    session.run("cp /c/a.bin /c/b.bin")
    assert session.run(get).stdout.startswith("feature@block_cloning\tactive\n")


def test_a_snapshot_keeps_a_clone_until_it_is_destroyed():
    session = machine("2.3")
    session.run("cp /c/a.bin /c/b.bin")
    session.run("zfs snapshot c@s")
    session.run("rm /c/b.bin")
    assert bclone_props(session) == ["8388608", "8388608", "2.00"]
    session.run("zfs destroy c@s")
    assert bclone_props(session) == ["0", "0", "1.00"]


def test_plain_cp_between_datasets_of_a_pool_clones_but_reflink_always_cannot():
    session = machine("2.3")
    session.run("zfs create c/other")
    assert session.run("cp /c/a.bin /c/other/x.bin").status == 0
    assert bclone_props(session)[:2] == ["8388608", "8388608"]
    result = session.run("cp --reflink=always /c/a.bin /c/other/y.bin")
    assert (result.status, result.stderr) == (
        1, "cp: failed to clone '/c/other/y.bin' from '/c/a.bin': Invalid cross-device link\n")


@pytest.mark.parametrize("version", ["2.1", "2.2"])
def test_cp_copies_where_cloning_is_off(version):
    session = machine(version)
    pool = session.pools["c"]
    alloc = pool.alloc
    assert session.run("cp /c/a.bin /c/c.bin").status == 0
    assert pool.alloc - alloc >= 8 * MiB  # a real copy
    result = session.run("cp --reflink=always /c/a.bin /c/b.bin")
    # GNU cp (copy.c, "failed to clone %s from %s"), measured with coreutils 9.1 on tmpfs
    assert (result.status, result.stderr) == (
        1, "cp: failed to clone '/c/b.bin' from '/c/a.bin': Operation not supported\n")
    # the destination was created (and truncated) before the clone was asked for
    assert session.run("ls -l /c/b.bin").stdout.split()[4] == "0"
    assert pool.brt.entries == {}


def test_2_2_knows_the_properties_2_1_does_not():
    session = machine("2.2")
    assert bclone_props(session) == ["0", "0", "1.00"]
    get = "zpool get -H -o property,value feature@block_cloning,feature@raidz_expansion c"
    assert session.run(get).stdout == "feature@block_cloning\tenabled\n"


def test_2_1_has_no_bclone_properties_and_no_block_cloning_feature():
    session = machine("2.1")
    result = session.run("zpool get -Hp -o property,value bcloneused c")
    assert result.status == 2
    # zprop_get_list() -> addlist(), then usage(B_FALSE) with the property table
    assert result.stderr.startswith("bad property list: invalid property 'bcloneused'\n"
                                    "usage:\n\tget [-Hp] [-o \"all\" | field[,...]] ")
    assert "\nthe following properties are supported:\n" in result.stderr
    # zpool_prop_get_feature() fails for a feature 2.1 does not know: nothing printed
    result = session.run("zpool get feature@block_cloning c")
    assert (result.status, result.stdout, result.stderr) == (0, "", "")


def test_zpool_get_without_p_prints_sizes_and_the_ratio_with_an_x():
    session = machine("2.3")
    session.run("cp /c/a.bin /c/b.bin")
    out = session.run("zpool get bcloneused,bclonesaved,bcloneratio c").stdout
    # VALUE is as wide as the widest fixed column, BCLONE_SAVED (zprop_width(), then
    # zprop_print_headers()), which zfs_nicenum()'s values do not reach.
    assert out == ("NAME  PROPERTY     VALUE         SOURCE\n"
                   "c     bcloneused   8M            -\n"
                   "c     bclonesaved  8M            -\n"
                   "c     bcloneratio  2.00x         -\n")


def test_reflink_arguments_as_gnu_cp_reads_them():
    session = machine("2.3")
    assert session.run("cp --reflink /c/a.bin /c/b.bin").status == 0  # = always
    assert session.run("cp --reflink=al /c/a.bin /c/d.bin").status == 0  # a unique start
    result = session.run("cp --reflink=never /c/a.bin /c/e.bin")
    assert result.status == 0
    assert bclone_props(session)[1] == str(2 * 8 * MiB)  # never: copied, not cloned
    result = session.run("cp --reflink=foo /c/a.bin /c/f.bin")
    assert (result.status, result.stderr) == (1, (
        "cp: invalid argument 'foo' for '--reflink'\n"
        "Valid arguments are:\n  - 'auto'\n  - 'always'\n  - 'never'\n"
        "Try 'cp --help' for more information.\n"))
    assert session.run("cp --reflink=a /c/a.bin /c/f.bin").stderr.startswith(
        "cp: ambiguous argument 'a' for '--reflink'\n")
