"""Exact-string tests for labsim.format.zfs_list (``zfs list`` / ``zfs get``)."""

from __future__ import annotations

import calendar

import pytest

from labsim.format.zfs_list import (
    InvalidColumn,
    UnknownProperty,
    format_creation,
    format_dataset_prop,
    format_zfs_get,
    format_zfs_list,
    get_fields,
    inherited_from,
)

K, M, G = 1 << 10, 1 << 20, 1 << 30


def ds(name, used, avail, refer, mountpoint):
    return {"name": name, "used": used, "available": avail, "referenced": refer,
            "mountpoint": mountpoint}


def test_default_listing_with_wide_refer_column():
    # A Proxmox host's `zfs list` (GitHub corpus id 66931739582): the REFER column is 8
    # wide ("AVAIL     REFER") because zprop_width() gives zfs enum 4 (referenced) the
    # width of pool enum 4 (health); volumes have no mountpoint ("-").
    avail = int(15.9 * G)
    rows = [
        ds("rpool", 213 * G, avail, 112 * K, "/rpool"),
        ds("rpool/ROOT", int(6.32 * G), avail, 96 * K, "/rpool/ROOT"),
        ds("rpool/ROOT/pve-1", int(6.32 * G), avail, int(6.32 * G), "/"),
        ds("rpool/data", int(2.84 * G), avail, int(2.84 * G), "/rpool/data"),
        ds("rpool/subvol-201-disk-0", int(3.43 * G), int(4.57 * G), int(3.43 * G),
           "/rpool/subvol-201-disk-0"),
        ds("rpool/subvol-301-disk-0", 604 * M, avail, 604 * M, "/rpool/subvol-301-disk-0"),
        ds("rpool/vm-100-disk-0", int(3.79 * G), avail, int(3.79 * G), None),
        ds("rpool/vm-213-disk-0", 184 * G, 148 * G, int(38.2 * G), None),
    ]
    expected = """\
NAME                      USED  AVAIL     REFER  MOUNTPOINT
rpool                     213G  15.9G      112K  /rpool
rpool/ROOT               6.32G  15.9G       96K  /rpool/ROOT
rpool/ROOT/pve-1         6.32G  15.9G     6.32G  /
rpool/data               2.84G  15.9G     2.84G  /rpool/data
rpool/subvol-201-disk-0  3.43G  4.57G     3.43G  /rpool/subvol-201-disk-0
rpool/subvol-301-disk-0   604M  15.9G      604M  /rpool/subvol-301-disk-0
rpool/vm-100-disk-0      3.79G  15.9G     3.79G  -
rpool/vm-213-disk-0       184G   148G     38.2G  -
"""
    assert format_zfs_list(rows) == expected


def test_snapshots_show_0B_and_dash():
    # ubuntu/zsys issue #231: snapshots have USED "0B" and no AVAIL ("-")
    rows = [ds("rpool/ROOT/ubuntu_dwwf56/srv@autozsys_cis3pt", 0, None, 96 * K, None)]
    assert format_zfs_list(rows).splitlines()[1] == \
        "rpool/ROOT/ubuntu_dwwf56/srv@autozsys_cis3pt     0B      -       96K  -"


def test_scripted_with_columns_and_zero_bytes():
    # openzfs/zfs issue #17938: `zfs list -H -o name,used,usedbydataset,
    # usedbyrefreservation,usedbysnapshots,usedbychildren,lrefer` (tabs, "0B", "-")
    cols = ["name", "used", "usedbydataset", "usedbyrefreservation", "usedbysnapshots",
            "usedbychildren", "lrefer"]
    rows = [
        {"name": "z/data/VMs", "used": 3166535424, "usedbydataset": 2785411008,
         "usedbyrefreservation": 0, "usedbysnapshots": 381124416, "usedbychildren": 0,
         "logicalreferenced": 4080961536},
        {"name": "z/data/share", "used": 3189260421888, "logicalreferenced": 2535836658176},
    ]
    assert format_zfs_list(rows, scripted=True, columns=cols) == (
        "z/data/VMs\t2.95G\t2.59G\t0B\t363M\t0B\t3.80G\n"
        "z/data/share\t2.90T\t-\t-\t-\t-\t2.31T\n")
    assert format_zfs_list(rows, scripted=True, parsable=True, columns=cols) == (
        "z/data/VMs\t3166535424\t2785411008\t0\t381124416\t0\t4080961536\n"
        "z/data/share\t3189260421888\t-\t-\t-\t-\t2535836658176\n")


def test_parsable_widens_columns():
    # openzfs/zfs issue #17938: `zfs list -p` (header and first row)
    rows = [ds("z/data/VMs", 3166535424, 8218833823936, 2785411008, "/data/VMs"),
            ds("z/data/share", 3189260421888, 8218833823936, 2535836658176, "/data/share")]
    lines = format_zfs_list(rows, parsable=True).splitlines()
    assert lines[0] == "NAME                   USED          AVAIL          REFER  MOUNTPOINT"
    assert lines[1] == "z/data/VMs       3166535424  8218833823936     2785411008  /data/VMs"


def test_column_aliases_and_unknown_column():
    rows = [ds("tank", 107520, 9878634496, 24576, "/tank")]
    assert format_zfs_list(rows, columns=["name", "avail", "refer"]) == (
        "NAME  AVAIL     REFER\n"
        "tank  9.20G       24K\n")
    with pytest.raises(UnknownProperty) as err:
        format_zfs_list(rows, columns=["name", "bogus"])
    assert err.value.message == "bad property list: invalid property 'bogus'"


def test_index_columns_are_left_aligned():
    # PR #9912 ("Left-align index props", in 2.0): NAME ACLMODE MOUNTPOINT example,
    # here with compression (width of its longest value, "zstd-fast-1000")
    rows = [{"name": "p0", "compression": "lz4", "mountpoint": "/p0"}]
    assert format_zfs_list(rows, columns=["name", "compression", "mountpoint"]) == (
        "NAME  COMPRESS        MOUNTPOINT\n"
        "p0    lz4             /p0\n")


def test_get_compression_several_datasets_otus():
    # otus homework transcript (GitHub corpus id 52386377674):
    # `zfs get compression otus1 otus2 otus3 otus4`
    rows = [(f"otus{i}", "compression", c, "local")
            for i, c in ((1, "lzjb"), (2, "lz4"), (3, "gzip-9"), (4, "zle"))]
    assert format_zfs_get(rows) == """\
NAME   PROPERTY     VALUE           SOURCE
otus1  compression  lzjb            local
otus2  compression  lz4             local
otus3  compression  gzip-9          local
otus4  compression  zle             local
"""


def test_get_single_properties_otus():
    # same transcript: each property's own VALUE width (zprop_width of the column)
    assert format_zfs_get([("otus", "recordsize", 131072, "local")]) == (
        "NAME  PROPERTY    VALUE    SOURCE\n"
        "otus  recordsize  128K     local\n")
    assert format_zfs_get([("otus", "checksum", "sha256", "local")]) == (
        "NAME  PROPERTY  VALUE      SOURCE\n"
        "otus  checksum  sha256     local\n")
    assert format_zfs_get([("otus", "readonly", "off", "default")]) == (
        "NAME  PROPERTY  VALUE   SOURCE\n"
        "otus  readonly  off     default\n")
    assert format_zfs_get([("otus", "available", 350 * M, "-")]) == (
        "NAME  PROPERTY   VALUE  SOURCE\n"
        "otus  available  350M   -\n")


def test_get_two_properties_pve():
    # `zfs get compression,atime nvme1` on Proxmox (GitHub corpus id 8903562603)
    rows = [("nvme1", "compression", "lz4", "local"), ("nvme1", "atime", "off", "local")]
    assert format_zfs_get(rows) == (
        "NAME   PROPERTY     VALUE           SOURCE\n"
        "nvme1  compression  lz4             local\n"
        "nvme1  atime        off             local\n")


def test_get_inherited_source():
    # FreeBSD handbook translation (GitHub corpus id 53127569164): `zfs get compression`
    rows = [("zroot", "compression", "lz4", "local"),
            ("zroot/ROOT", "compression", "lz4", inherited_from("zroot")),
            ("zroot/ROOT/default", "compression", "lz4", inherited_from("zroot"))]
    assert format_zfs_get(rows) == (
        "NAME                PROPERTY     VALUE           SOURCE\n"
        "zroot               compression  lz4             local\n"
        "zroot/ROOT          compression  lz4             inherited from zroot\n"
        "zroot/ROOT/default  compression  lz4             inherited from zroot\n")


def test_get_all_fields_issue_13279_zfs_2_1_4():
    # openzfs/zfs issue #13279, on 2.1.4: `zfs get -oall mountpoint <long name>`
    name = "zzzzzzzzzzzzzzzzzzzz/zzzzzzzzzz/zzzzzzzzzzz"
    rows = [(name, "mountpoint", "/" + name, "default")]
    assert format_zfs_get(rows, fields="all") == (
        "NAME                                         PROPERTY    VALUE"
        "                                         RECEIVED  SOURCE\n"
        f"{name}  mountpoint  /{name}  -         default\n")
    assert format_zfs_get(rows) == (
        "NAME                                         PROPERTY    VALUE"
        "                                         SOURCE\n"
        f"{name}  mountpoint  /{name}  default\n")


def test_get_parsable_scripted_and_fields():
    rows = [("tank", "recordsize", 131072, "default")]
    assert format_zfs_get(rows, parsable=True) == (
        "NAME  PROPERTY    VALUE    SOURCE\n"
        "tank  recordsize  131072   default\n")
    assert format_zfs_get(rows, scripted=True) == "tank\trecordsize\t128K\tdefault\n"
    assert format_zfs_get(rows, scripted=True, parsable=True, fields="value") == "131072\n"
    assert format_zfs_get(rows, columns=["value", "source"]) == (
        "VALUE    SOURCE\n"
        "128K     default\n")


def test_get_field_errors():
    with pytest.raises(InvalidColumn) as err:
        get_fields("name,bogus")
    assert err.value.message == "invalid column name 'bogus'"
    with pytest.raises(UnknownProperty):
        format_zfs_get([("tank", "bogus", 1, "-")])


@pytest.mark.parametrize(("prop", "value", "human", "exact"), [
    ("quota", 0, "none", "0"),            # zfs_prop_get(): 0 -> "none" unless -p
    ("quota", 10 * G, "10G", "10737418240"),
    ("compressratio", 2.05, "2.05x", "2.05"),  # issue #8673 `zfs get all`: "2.05x"
    ("recordsize", 131072, "128K", "131072"),
    ("used", 0, "0B", "0"),
    ("mounted", True, "yes", "yes"),
    ("guid", 7056741522691970971, "7056741522691970971", "7056741522691970971"),
    ("type", "filesystem", "filesystem", "filesystem"),
])
def test_dataset_property_values(prop, value, human, exact):
    assert format_dataset_prop(prop, value) == human
    assert format_dataset_prop(prop, value, parsable=True) == exact


def test_creation_date():
    # issue #8673 `zfs get all`: creation "Tue Apr 23  8:40 2019" ("%a %b %e %k:%M %Y")
    when = calendar.timegm((2019, 4, 23, 8, 40, 0))
    assert format_creation(when) == "Tue Apr 23  8:40 2019"
    assert format_creation(when, parsable=True) == str(when)
