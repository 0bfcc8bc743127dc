"""zpool set, zpool create -o and zpool get over the pool properties, one by one
(labsim.shell.commands.zpool_properties): stored ones are checked, kept and shown with
their source; the refusals are zpool_valid_proplist()'s and zpool_do_set()'s
(lib/libzfs/libzfs_pool.c, cmd/zpool/zpool_main.c at zfs-2.1.11 and zfs-2.3.9); the
properties labsim neither models nor stores get the notice."""

from __future__ import annotations

import pytest

from labsim import Session
from labsim.zfs.pool_property_table import STORED
from labsim.zfs.versions import get_version


def pool(release: str = "2.3", options: str = "") -> Session:
    session = Session(version=get_version(release))
    assert session.run("truncate -s 256M /var/tmp/p.raw").status == 0
    created = session.run(f"zpool create {options} p /var/tmp/p.raw")
    assert created.status == 0, created.stderr
    return session


def get(session: Session, props: str) -> list[list[str]]:
    out = session.run(f"zpool get -H -o property,value,source {props} p")
    assert out.status == 0, out.stderr
    return [line.split("\t") for line in out.stdout.splitlines()]


def test_stored_properties_show_their_default_then_local():
    session = pool()
    assert get(session, ",".join(STORED)) == [
        ["delegation", "on", "default"], ["autoreplace", "off", "default"],
        ["listsnapshots", "off", "default"], ["autoexpand", "off", "default"],
        ["autotrim", "off", "default"], ["failmode", "wait", "default"],
        ["comment", "-", "default"], ["cachefile", "-", "default"]]
    for line in ("zpool set autotrim=on p", "zpool set failmode=continue p",
                 "zpool set comment='lab pool' p", "zpool set cachefile=none p"):
        assert session.run(line).status == 0, line
    assert get(session, "autotrim,failmode,comment,cachefile") == [
        ["autotrim", "on", "local"], ["failmode", "continue", "local"],
        ["comment", "lab pool", "local"], ["cachefile", "none", "local"]]
    assert session.run("zpool set cachefile= p").status == 0  # back to the default
    assert get(session, "cachefile") == [["cachefile", "-", "default"]]


@pytest.mark.parametrize(("line", "status", "text"), [
    ("zpool set size=1G p", 1, "cannot set property for 'p': 'size' is readonly"),
    ("zpool set maxblocksize=1 p", 1, "cannot set property for 'p': 'maxblocksize' is readonly"),
    ("zpool set bogus=1 p", 1, "cannot set property for 'p': invalid property 'bogus'"),
    ("zpool set failmode=sometimes p", 1,
     "cannot set property for 'p': 'failmode' must be one of 'wait | continue | panic'"),
    ("zpool set autotrim=yes p", 1,
     "cannot set property for 'p': 'autotrim' must be one of 'on | off'"),
    ("zpool set altroot=/mnt p", 1, "cannot set property for 'p': property 'altroot' can "
                                    "only be set during pool creation or import"),
    ("zpool set readonly=on p", 1,
     "cannot set property for 'p': property 'readonly' can only be set at import time"),
    ("zpool set comment=" + "x" * 33 + " p", 1,
     "cannot set property for 'p': comment must not exceed 32 characters"),
    ("zpool set cachefile=etc/zfs/x p", 1, "cannot set property for 'p': property "
     "'cachefile' must be empty, an absolute path, or 'none'"),
    # the whole value is named: strrchr() has not cut it yet
    ("zpool set cachefile=/var/tmp/ p", 1, "cannot set property for 'p': '/var/tmp/' is not "
                                           "a valid file"),
    ("zpool set cachefile=/no/such/dir/c p", 1,
     "cannot set property for 'p': '/no/such/dir' is not a valid directory"),
    ("zpool set feature@block_cloning=disabled p", 1, "cannot set property for 'p': property "
     "'feature@block_cloning' can only be set to 'disabled' at creation time"),
    ("zpool set feature@block_cloning=on p", 1, "cannot set property for 'p': property "
     "'feature@block_cloning' can only be set to 'enabled' or 'disabled'"),
    ("zpool set autotrim=on q", 22, "cannot open 'q': is not a pool"),
    ("zpool set autotrim p", 2, "missing value in property=value argument\nusage:"),
    ("zpool set autotrim=on", 2, "missing pool name\nusage:"),
    ("zpool set", 2, "missing property=value argument\nusage:"),
    ("zpool set -v autotrim=on p", 2, "invalid option 'v'\nusage:"),
    ("zpool set autotrim=on p a b", 2, "too many pool names\nusage:"),
])
def test_refusals_are_the_real_ones(line, status, text):
    result = pool().run(line)
    assert result.status == status
    assert result.stderr.startswith(text), result.stderr


@pytest.mark.parametrize("line", ["zpool set version=5000 p", "zpool set bootfs=p p",
                                  "zpool set compatibility=legacy p", "zpool set multihost=on p",
                                  "zpool set ashift=12 p", "zpool set dedup_table_quota=1G p",
                                  "zpool set feature@async_destroy=enabled p",
                                  "zpool set autotrim=on p /var/tmp/p.raw"])
def test_what_labsim_neither_models_nor_stores_gets_the_notice(line):
    result = pool().run(line)
    assert result.status == 1 and "not simulated here" in result.stderr


def test_listsnapshots_on_lists_snapshots_when_no_type_is_asked_for():
    """zfs_include_snapshots() (cmd/zfs/zfs_iter.c): zfs list without -t."""
    session = pool()
    assert session.run("zfs snapshot p@s").status == 0
    names = "zfs list -H -o name"
    assert session.run(names).stdout == "p\n"
    assert session.run("zpool set listsnapshots=on p").status == 0
    assert session.run(names).stdout == "p\np@s\n"
    assert session.run(names + " -t filesystem").stdout == "p\n"
    assert session.run(names + " p").stdout == "p\n"  # no recursion: no snapshots


def test_user_properties_from_2_2():
    session = pool()
    assert session.run("zpool set org.lab:owner=alice p").status == 0
    assert get(session, "org.lab:owner,org.lab:other") == [
        ["org.lab:owner", "alice", "local"], ["org.lab:other", "-", "-"]]
    assert get(session, "all")[-1] == ["org.lab:owner", "alice", "local"]
    old = pool("2.1")
    assert old.run("zpool set org.lab:owner=alice p").stderr == (
        "cannot set property for 'p': invalid property 'org.lab:owner'\n")


def test_create_o_checks_and_keeps_pool_properties():
    session = pool(options="-o ashift=12 -o comment=hi -o autotrim=on")
    assert get(session, "ashift,comment,autotrim") == [
        ["ashift", "12", "local"], ["comment", "hi", "local"], ["autotrim", "on", "local"]]
    assert get(pool(), "ashift") == [["ashift", "0", "default"]]  # -o ashift not given
    session = Session()
    session.run("truncate -s 256M /var/tmp/q.raw")
    assert session.run("zpool create -o failmode=never q /var/tmp/q.raw").stderr == (
        "cannot create 'q': 'failmode' must be one of 'wait | continue | panic'\n")
    assert session.run("zpool create -o bogus=1 q /var/tmp/q.raw").stderr.startswith(
        "property 'bogus' is not a valid pool or vdev property\n")
    old = Session(version=get_version("2.1"))
    assert old.run("zpool create -o bogus=1 q /var/tmp/q.raw").stderr.startswith(
        "property 'bogus' is not a valid pool property\n")
    assert "not simulated" in session.run("zpool create -o version=28 q /var/tmp/q.raw").stderr
    assert "q" not in session.pools


def test_get_all_lists_in_table_order_and_says_what_it_leaves_out():
    session = pool()
    result = session.run("zpool get -H -o property all p")
    props = result.stdout.split()
    assert props[:6] == ["size", "capacity", "altroot", "health", "delegation", "autoreplace"]
    assert props.index("free") < props.index("allocated") < props.index("comment")
    assert "not simulated here" in result.stderr


def test_a_first_word_with_an_equals_sign_is_set():
    """main() of zpool and zfs: `zpool autotrim=on p` is `zpool set autotrim=on p`."""
    session = pool()
    assert session.run("zpool autotrim=on p").status == 0
    assert session.run("zfs atime=off p").status == 0
    assert get(session, "autotrim") == [["autotrim", "on", "local"]]
    assert session.run("zfs get -H -o value atime p").stdout == "off\n"


@pytest.mark.parametrize("column", ["ashift", "guid", "comment", "autotrim",
                                    "feature@async_destroy", "org.lab:owner"])
def test_zpool_list_o_a_real_column_labsim_does_not_print_gets_the_notice(column):
    result = pool().run(f"zpool list -o name,{column} p")
    assert result.status == 1 and "not simulated here" in result.stderr
    refused = pool().run("zpool list -o name,bogus p")
    assert refused.status == 2
    assert refused.stderr.startswith("bad property list: invalid property 'bogus'\nusage:")


def test_zpool_get_of_a_hidden_property_gets_the_notice_and_user_properties_need_2_2():
    assert "not simulated here" in pool().run("zpool get maxblocksize p").stderr
    old = pool("2.1").run("zpool get org.lab:owner p")
    assert old.status == 2
    assert old.stderr.startswith("bad property list: invalid property 'org.lab:owner'")
