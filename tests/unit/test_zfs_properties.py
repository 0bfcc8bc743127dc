"""Properties labsim stores without modelling (labsim.shell.commands.zfs_properties): real
validation, kept, inherited and shown with their source; zfs inherit."""

from __future__ import annotations

import pytest

from labsim.shell.session import Session


@pytest.fixture
def lab() -> Session:
    session = Session()
    for line in ("mkdir -p /var/tmp/labs", "truncate -s 1G /var/tmp/labs/p.raw",
                 "zpool create p /var/tmp/labs/p.raw", "zfs create p/home",
                 "zfs create p/home/bob", "zfs create -V 64M p/vol"):
        assert session.run(line).status == 0, line
    return session


def test_a_stored_property_is_inherited_and_shown_with_its_source(lab):
    assert lab.run("zfs set atime=off p/home").status == 0
    out = lab.run("zfs get -H -o name,value,source -r atime p").stdout.splitlines()
    assert out == ["p\ton\tdefault", "p/home\toff\tlocal",
                   "p/home/bob\toff\tinherited from p/home",
                   "p/vol\t-\t-"]  # not a property of volumes: zfs get prints "-"
    assert lab.run("zfs inherit atime p/home").status == 0
    assert lab.run("zfs get -H -o value,source atime p/home/bob").stdout == "on\tdefault\n"


@pytest.mark.parametrize(("line", "refusal"), [
    # zprop_parse_value(), the values string of zfs_prop.c (zfs-2.3.9)
    ("zfs set atime=maybe p/home", "cannot set property for 'p/home': 'atime' must be one "
                                   "of 'on | off'"),
    ("zfs set snapdir=shown p/home", "'snapdir' must be one of 'disabled | hidden | visible'"),
    # zfs_valid_proplist(): a property of file systems set on a volume
    ("zfs set atime=off p/vol", "cannot set property for 'p/vol': 'atime' does not apply "
                                "to datasets of this type"),
    # set once: at creation only
    ("zfs set casesensitivity=mixed p/home", "'casesensitivity' is readonly"),
    ("zfs set used=1 p/home", "'used' is readonly"),
    ("zfs create -o xattr=maybe p/x", "cannot create 'p/x': 'xattr' must be one of"),
])
def test_stored_properties_are_validated_as_real_openzfs_does(lab, line, refusal):
    result = lab.run(line)
    # zfs set exits 255 (zfs_for_each() ORs in set_callback()'s -1, recorded on 2.3.9)
    assert result.status == (255 if line.startswith("zfs set") else 1)
    assert refusal in result.stderr


def test_an_alias_value_prints_as_the_first_name_of_its_number(lab):
    assert lab.run("zfs set acltype=posixacl p/home").status == 0
    assert lab.run("zfs get -H -o value acltype p/home").stdout == "posix\n"


def test_user_properties_are_text_kept_and_inherited(lab):
    assert lab.run("zfs set com.example:dept=12345 p/home").status == 0
    assert lab.run("zfs get -H -o value,source com.example:dept p/home/bob").stdout == \
        "12345\tinherited from p/home\n"
    assert lab.run("zfs get -H -o value,source com.example:dept p").stdout == "-\t-\n"
    assert "COM.EXAMPLE:DEPT" in lab.run("zfs list -o name,com.example:dept").stdout


def test_zfs_inherit_refuses_as_zfs_do_inherit_does(lab):
    quota = lab.run("zfs inherit quota p/home")
    assert quota.status == 1 and quota.stderr.startswith(
        "'quota' property cannot be inherited\nuse 'zfs set quota=none' to clear\n")
    assert lab.run("zfs inherit used p/home").stderr == "used property is read-only\n"
    assert lab.run("zfs inherit bogus p/home").status == 2


def test_get_all_says_the_rest_is_not_simulated(lab):
    result = lab.run("zfs get all p/home")
    assert result.status == 0 and "atime" in result.stdout
    assert "not simulated" in result.stderr


def test_a_snapshot_shows_dashes_for_file_system_properties(lab):
    # Recorded on 2.3.9 (tools/probes/shell/lab16-properties.sh): refreservation,
    # compression and recordsize are not registered for snapshots, and zfs get prints "-".
    assert lab.run("zfs snapshot p/home@s").status == 0
    result = lab.run("zfs get -H -o property,value,source "
                     "refreservation,compression,recordsize,atime p/home@s")
    assert result.status == 0
    assert result.stdout == ("refreservation\t-\t-\ncompression\t-\t-\n"
                             "recordsize\t-\t-\natime\t-\t-\n")


def test_a_thick_volume_larger_than_the_pool_is_out_of_space(lab):
    result = lab.run("zfs create -V 1E p/huge")
    assert result.status == 1 and result.stderr == "cannot create 'p/huge': out of space\n"
    assert lab.run("zfs create -s -V 1E p/thin").status == 0


def test_get_all_follows_the_property_table_then_user_properties():
    """zprop_expand_list() walks zfs_prop_t unordered (include/sys/fs/zfs.h at zfs-2.3.9),
    so `zfs get all` lists type, used, available... in that order; user properties follow."""
    from labsim import Session
    from labsim.format.zprop import DATASET_PROPS

    session = Session()
    for line in ("truncate -s 256M /var/tmp/a.raw", "zpool create p /var/tmp/a.raw",
                 "zfs set org.lab:note=x p"):
        assert session.run(line).status == 0
    names = session.run("zfs get -H -o property all p").stdout.split()
    assert names[:5] == ["type", "used", "available", "referenced", "compressratio"]
    enums = [DATASET_PROPS[name].enum for name in names[:-1]]
    assert enums == sorted(enums) and names[-1] == "org.lab:note"


@pytest.mark.parametrize(("release", "shown"), [
    ("2.1", {"sa": "sa", "dir": "on", "on": "on"}),
    ("2.2", {"sa": "sa", "dir": "on", "on": "on"}),
    ("2.3", {"sa": "on", "dir": "dir", "on": "on"})])
def test_xattr_prints_the_first_word_of_its_number(release, shown):
    """xattr_table[] (module/zcommon/zfs_prop.c): "on" is ZFS_XATTR_DIR before 2.3.0 and
    ZFS_XATTR_SA from it (the default moved to sa), and zfs get prints the first word
    with the value's number."""
    from labsim.zfs.versions import get_version
    session = Session(version=get_version(release))
    for line in ("mkdir -p /var/tmp/labs", "truncate -s 1G /var/tmp/labs/p.raw",
                 "zpool create p /var/tmp/labs/p.raw"):
        assert session.run(line).status == 0, line
    assert session.run("zfs get -H -o value xattr p").stdout == "on\n"
    for value, printed in shown.items():
        assert session.run(f"zfs set xattr={value} p").status == 0
        assert session.run("zfs get -H -o value xattr p").stdout == printed + "\n", value
