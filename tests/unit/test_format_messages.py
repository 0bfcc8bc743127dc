"""Exact texts of labsim.shell.messages (zpool/zfs/bash errors, OpenZFS 2.1)."""

from __future__ import annotations

import pytest

from labsim.shell import messages as m
from labsim.zfs.versions import get_version


def test_exit_statuses():
    # usage(B_FALSE) exits 2; libzfs failures exit 1; bash exits 127
    assert (m.EXIT_USAGE, m.EXIT_FAILURE, m.EXIT_COMMAND_NOT_FOUND) == (2, 1, 127)


def test_bash_command_not_found():
    assert m.command_not_found("zpoool") == "bash: zpoool: command not found"


V21, V23 = get_version("2.1"), get_version("2.3")


def test_unrecognized_zpool_command_then_full_usage():
    # main() and usage() in cmd/zpool/zpool_main.c: command_table[] in order, each
    # get_usage() synopsis of the release; from 2.2 a last line on `zpool help`.
    text = m.zpool_unrecognized_command("foo", V21)
    lines = text.splitlines()
    assert lines[:5] == ["unrecognized command 'foo'", "usage: zpool command args ...",
                         "where 'command' is one of the following:", "", "\tversion"]
    assert "\tcreate [-fnd] [-o property=value] ... \n" in text
    assert "\tscrub [-s | -p] [-w] <pool> ...\n" in text
    assert lines[-1] == "\twait [-Hp] [-T d|u] [-t <activity>[,...]] <pool> [interval]"
    text = m.zpool_unrecognized_command("foo", V23)
    assert "\tprefetch -t <type> [<type opts>] <pool>\n" in text
    assert text.endswith("\n\tddtprune -d|-p <amount> <pool>\n\n"
                         "For further help on a command or topic, run: zpool help [<topic>]")


def test_subcommand_usage():
    assert m.zpool_subcommand_usage("destroy", V21) == "usage:\n\tdestroy [-f] <pool>"
    assert m.zpool_subcommand_usage("add", V21) == \
        "usage:\n\tadd [-fgLnP] [-o property=value] <pool> <vdev> ..."
    # 2.2 put -a in add's synopsis, though its getopt string never took it
    assert m.zpool_subcommand_usage("add", V23) == \
        "usage:\n\tadd [-afgLnP] [-o property=value] <pool> <vdev> ..."
    listing = m.zpool_subcommand_usage("list", V21)
    assert listing.startswith("usage:\n\tlist [-gHLpPv] [-o property[,...]] [-T d|u] "
                              "[pool] ... \n\t    [interval [count]]\n\n"
                              "the following properties are supported:\n\n"
                              "\tPROPERTY         EDIT   VALUES\n\n"
                              "\tallocated          NO   <size>\n")
    assert listing.endswith("\tfeature@...       YES   disabled | enabled | active\n\n"
                            "The feature@ properties must be appended with a feature name.\n"
                            "See zpool-features(7).")


def test_zfs_usage_closes_with_the_lists_and_from_2_2_the_help_line():
    """usage() in cmd/zfs/zfs_main.c: a subcommand without the property table ends with the
    property and permission list lines; 2.2 adds `zfs help`."""
    assert m.zfs_subcommand_usage("promote", V21) == (
        "usage:\n\tpromote <clone-filesystem>\n\n"
        "For the property list, run: zfs set|get\n\n"
        "For the delegated permission list, run: zfs allow|unallow")
    assert m.zfs_subcommand_usage("promote", V23).endswith(
        "\n\nFor further help on a command or topic, run: zfs help [<topic>]")
    assert m.zfs_subcommand_usage("get", V23).startswith("usage:\n\tget [-rHp] [-j [--json-int]]")
    assert "create [-Pnpuv]" in m.zfs_subcommand_usage("create", V21)  # -u is in 2.1.11


@pytest.mark.parametrize(("text", "expected"), [
    (m.no_such_pool("tank"), "cannot open 'tank': no such pool"),
    (m.pool_exists("tank"), "cannot create 'tank': pool already exists"),
    (m.device_too_small("create", "tank"),
     "cannot create 'tank': one or more devices is less than the minimum size (64M)"),
    (m.device_too_small("add", "tank"),
     "cannot add to 'tank': device is less than the minimum size (64M)"),
    (m.cannot_open_path("/var/tmp/nope.img"), "cannot resolve path '/var/tmp/nope.img'"),
    (m.not_a_device("disk1.img"), "cannot open 'disk1.img': no such device in /dev\n"
                                  "must be a full path or shorthand device name"),
    (m.cannot_use_directory("/tmp"),
     "cannot use '/tmp': must be a block device or regular file"),
    (m.bad_ashift(20),
     "invalid 'ashift=20' property: only values between 9 and 16 are allowed."),
    (m.bad_ashift(None), "ashift must be a number."),
    (m.bad_pool_property("bogus"), "property 'bogus' is not a valid pool property"),
    (m.pool_bad_property_list("used"), "bad property list: invalid property 'used'"),
    (m.missing_pool_name(), "missing pool name argument"),
    (m.missing_vdev_spec(), "missing vdev specification"),
    (m.zpool_invalid_option("-z"), "invalid option 'z'"),
    (m.zpool_missing_argument("-o"), "missing argument for 'o' option"),
    (m.device_in_active_pool("/var/tmp/a.img", "tank"),
     "invalid vdev specification\nuse '-f' to override the following errors:\n"
     "/var/tmp/a.img is part of active pool 'tank'"),
    (m.mismatched_replication("mirror", "file"),
     "invalid vdev specification\nuse '-f' to override the following errors:\n"
     "mismatched replication level: pool uses mirror and new vdev is file"),
    (m.same_device_twice("create", "tank"),
     "cannot create 'tank': one or more vdevs refer to the same device, or one of\n"
     "the devices is part of an active md or lvm device"),
    (m.invalid_pool_name("create", "mirror"), "cannot create 'mirror': name is reserved"),
    (m.invalid_pool_name("create", "1tank"),
     "cannot create '1tank': name must begin with a letter"),
    (m.invalid_pool_name("create", "tank/fs"),
     "cannot create 'tank/fs': invalid character '/' in pool name\n"
     "use 'zfs create' to create a dataset"),
    (m.would_create("tank", ["/var/tmp/a.img"]),
     "would create 'tank' with the following layout:\n\n\ttank\n\t  /var/tmp/a.img"),
    # zpool_do_create(): print_vdev_tree() of the "logs" class after the pool's
    (m.would_create("tank", [("mirror", ["/a", "/b"])], [("mirror", ["/c", "/d"])]),
     "would create 'tank' with the following layout:\n\n\ttank\n\t  mirror\n\t    /a\n"
     "\t    /b\n\tlogs\n\t  mirror\n\t    /c\n\t    /d"),
    (m.zpool_version("2.1.11"), "zfs-2.1.11-1\nzfs-kmod-2.1.11-1"),
    (m.no_pools_available(), "no pools available"),
])
def test_zpool_messages(text, expected):
    assert text == expected


@pytest.mark.parametrize(("text", "expected"), [
    (m.dataset_does_not_exist("tank/nope"), "cannot open 'tank/nope': dataset does not exist"),
    (m.zfs_bad_property("bogus"), "bad property list: invalid property 'bogus'"),
    (m.zfs_set_invalid_property("tank", "bogus"),
     "cannot set property for 'tank': invalid property 'bogus'"),
    (m.zfs_readonly_property("tank", "used"), "cannot set property for 'tank': 'used' is readonly"),
    (m.zfs_bad_compression("tank"),
     "cannot set property for 'tank': 'compression' must be one of 'on | off | lzjb | gzip | "
     "gzip-[1-9] | zle | lz4 | zstd | zstd-[1-19] | zstd-fast | "
     "zstd-fast-[1-10,20,30,40,50,60,70,80,90,100,500,1000]'"),
    (m.zfs_bad_recordsize("tank"),
     "cannot set property for 'tank': 'recordsize' must be power of 2 from 512B to 1M"),
    (m.zfs_bad_numeric_value("tank", "recordsize", "big"),
     "cannot set property for 'tank': bad numeric value 'big'"),
    (m.zfs_bad_numeric_value("tank", "quota", "12X"),
     "cannot set property for 'tank': invalid numeric suffix 'X'"),
    (m.zfs_missing_equals("compression"), "missing '=' for property=value argument"),
    (m.zfs_dataset_exists("tank/fs"), "cannot create 'tank/fs': dataset already exists"),
    (m.zfs_create_missing_parent("tank/a/b"), "cannot create 'tank/a/b': parent does not exist"),
    (m.zfs_destroy_root("tank"),
     "cannot destroy 'tank': operation does not apply to pools\n"
     "use 'zfs destroy -r tank' to destroy all datasets in the pool\n"
     "use 'zpool destroy tank' to destroy the pool itself"),
    (m.no_datasets_available(), "no datasets available"),
])
def test_zfs_messages(text, expected):
    assert text == expected
