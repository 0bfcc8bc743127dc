"""labsim.zfs.versions: each release's behaviour, and the honesty rules that follow from it
(a real property or subcommand labsim does not simulate is said to be so, never refused as
the real tools refuse what does not exist)."""

import pytest

from labsim import Session
from labsim.zfs.versions import (
    DEFAULT_VERSION,
    TAUGHT_VERSIONS,
    VERSIONS,
    dataset_property_names,
    get_version,
    pool_property_names,
    zfs_subcommands,
    zpool_subcommands,
)

POOL = ("mkdir -p /var/tmp/labs", "truncate -s 256M /var/tmp/labs/v.raw",
        "zpool create p /var/tmp/labs/v.raw")


def session(release: str) -> Session:
    s = Session(version=get_version(release))
    for line in POOL:
        assert s.run(line).status == 0, line
    return s


def test_the_course_teaches_2_3_and_offers_2_2_and_2_1():
    assert DEFAULT_VERSION.name == "2.3" and DEFAULT_VERSION.release == "2.3.9"
    assert [v.name for v in TAUGHT_VERSIONS] == ["2.3", "2.2", "2.1"]
    assert get_version("2.3.9") is get_version("2.3") is VERSIONS["2.3"]
    assert get_version("0.6.5.6").name == "0.6.5"
    with pytest.raises(ValueError, match="unknown OpenZFS version '2.4'"):
        get_version("2.4")


@pytest.mark.parametrize(("release", "expected"), [
    ("2.3", "zfs-2.3.9-0+deb13u1\nzfs-kmod-2.3.9-0+deb13u1\n"),  # Debian 13, recorded
    ("2.1", "zfs-2.1.11-1\nzfs-kmod-2.1.11-1\n"),  # Debian 12, recorded
])
def test_zfs_and_zpool_version_answer_like_the_real_tools(release, expected):
    s = Session(version=get_version(release))
    assert s.run("zfs version").stdout == expected
    assert s.run("zpool version").stdout == expected


def test_defaults_that_changed_in_2_2():
    old, new = session("2.1"), session("2.3")
    assert old.run("zfs get -H -o value compression p").stdout == "off\n"
    assert new.run("zfs get -H -o value compression p").stdout == "on\n"
    for s, block in ((old, "8192"), (new, "16384")):
        assert s.run("zfs create -V 16M p/v").status == 0
        assert s.run("zfs get -Hp -o value volblocksize p/v").stdout == block + "\n"


def test_recordsize_limit_moved_from_1m_to_16m_in_2_2():
    old, new = session("2.1"), session("2.3")
    assert new.run("zfs set recordsize=2M p").status == 0
    refused = old.run("zfs set recordsize=2M p")
    assert refused.status == 255  # zfs set: set_callback() returns -1
    assert refused.stderr.endswith("'recordsize' must be power of 2 from 512B to 1M\n")
    assert new.run("zfs set recordsize=32M p").stderr.endswith("from 512B to 16M\n")


def test_property_sets_grow_by_release():
    assert "direct" in dataset_property_names(get_version("2.3"))
    assert "direct" not in dataset_property_names(get_version("2.2"))
    assert "snapshots_changed" in dataset_property_names(get_version("2.2"))
    assert "bcloneused" in pool_property_names(get_version("2.2"))
    assert "bcloneused" not in pool_property_names(get_version("2.1"))
    assert "ddtprune" in zpool_subcommands(get_version("2.3"))
    assert "ddtprune" not in zpool_subcommands(get_version("2.2"))
    assert "rewrite" in zfs_subcommands(get_version("2.3"))


@pytest.mark.parametrize("line", ["zfs get quota p", "zfs set dedup=on p",
                                  "zfs create -o quota=10M p/q", "zfs list -o name,quota p",
                                  "zfs get creation p", "zpool get guid p",
                                  "zpool set version=5000 p", "zfs send p@s",
                                  "zfs set checksum=off p", "zfs list -j"])
def test_what_real_openzfs_accepts_is_not_simulated_never_refused(line):
    result = session("2.3").run(line)
    assert result.status == 1
    assert "not simulated here" in result.stderr and "OpenZFS" in result.stderr
    assert "invalid property" not in result.stderr
    assert "unrecognized command" not in result.stderr


@pytest.mark.parametrize(("line", "refusal"), [
    ("zfs get bogus p", "bad property list: invalid property 'bogus'"),
    ("zfs set bogus=1 p", "cannot set property for 'p': invalid property 'bogus'"),
    ("zfs create -o bogus=4k p/b", "cannot create 'p/b': invalid property 'bogus'"),
    ("zpool get bogus p", "bad property list: invalid property 'bogus'"),
    ("zpool bogus", "unrecognized command 'bogus'"),
])
def test_what_does_not_exist_gets_the_real_refusal(line, refusal):
    result = session("2.3").run(line)
    assert result.status in (1, 2, 255)  # zfs set's refusals exit 255
    assert result.stderr.startswith(refusal)


def test_a_later_release_s_property_is_unknown_to_an_earlier_one():
    # direct (2.3) is stored (labsim.shell.commands.zfs_properties): its default
    assert session("2.3").run("zfs get -H -o value direct p").stdout == "standard\n"
    assert session("2.1").run("zfs get direct p").stderr.startswith(
        "bad property list: invalid property 'direct'")
    assert session("2.2").run("zfs rewrite /p").stderr.startswith(
        "unrecognized command 'rewrite'")


def test_o_sync_writes_over_7680_bytes_are_no_longer_copied_from_2_2():
    # zil_max_copied_data(): half a log block up to 2.1, at most zil_maxcopied (7680) since
    # 2.2, so a 16K O_SYNC write with a log vdev is WR_NEED_COPY on 2.3, WR_COPIED on 2.1.
    from labsim.zfs import zil

    counts = {}
    for release in ("2.1", "2.3"):
        version = get_version(release)
        stats = zil.ZilStats.zero(version.zil_kstat)
        zil.commit_writes(stats, writes=4, write_size=16 * 1024, first_record=120,
                          durability=zil.Durability(o_sync=True), sync_property="standard",
                          logbias="latency", has_slog=True, writes_per_txg=0,
                          max_copied=version.zil_max_copied)
        counts[release] = (stats.counters["zil_itx_copied_count"],
                           stats.counters["zil_itx_needcopy_count"])
    assert counts == {"2.1": (4, 0), "2.3": (0, 4)}
