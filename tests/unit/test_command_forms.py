"""Forms of zfs and zpool that real OpenZFS accepts and labsim once refused with a made-up
error (issue 16): each is now simulated from the source it cites, or gets the notice."""

from __future__ import annotations

import pytest

from labsim import Session
from labsim.zfs.versions import get_version


def machine(release: str = "2.3") -> Session:
    session = Session(version=get_version(release))
    for line in ("mkdir -p /var/tmp/d", "truncate -s 256M /var/tmp/d/a",
                 "truncate -s 256M /var/tmp/d/b", "zpool create p /var/tmp/d/a",
                 "zfs create p/fs", "zfs snapshot p/fs@s"):
        assert session.run(line).status == 0, line
    return session


def names(session: Session) -> list[str]:
    return session.run("zfs list -H -o name -t all -r p").stdout.split()


def test_zfs_set_takes_several_datasets_and_checks_the_order():
    """zfs_do_set(): assignments first, then datasets; each dataset in turn."""
    session = machine()
    assert session.run("zfs set atime=off compression=lz4 p/fs p").status == 0
    out = session.run("zfs get -H -o name,property,value atime,compression p p/fs").stdout
    assert out.split("\n")[:4] == ["p\tatime\toff", "p\tcompression\tlz4",
                                   "p/fs\tatime\toff", "p/fs\tcompression\tlz4"]
    for line, text, status in (
            ("zfs set", "missing arguments\nusage:", 2),
            ("zfs set p", "missing property=value argument(s)\nusage:", 2),
            ("zfs set a=1", "missing dataset name(s)\nusage:", 2),
            ("zfs set atime=on p x=1", "invalid argument order\nusage:", 2),
            ("zfs set atime=on atime=off p", "property 'atime' specified multiple times", 255),
            ("zfs set atime=on p/none p", "cannot open 'p/none': dataset does not exist", 1)):
        result = session.run(line)
        assert result.status == status and result.stderr.startswith(text), (line, result)
    assert session.run("zfs get -H -o value atime p").stdout == "on\n"  # the last line's p


def test_zfs_set_u_from_2_2():
    assert machine().run("zfs set -u atime=off p").status == 0
    old = machine("2.1").run("zfs set -u atime=off p")
    assert old.status == 2 and old.stderr.startswith("invalid option 'u'\nusage:")


def test_create_and_clone_p_make_the_missing_parents():
    """zfs_create_ancestors() for -p; an existing dataset with -p is no error."""
    session = machine()
    assert session.run("zfs create -p p/a/b/c").status == 0
    assert session.run("zfs create -p p/a/b/c").status == 0
    assert session.run("zfs clone -p p/fs@s p/x/y").status == 0
    assert names(session) == ["p", "p/a", "p/a/b", "p/a/b/c", "p/fs", "p/fs@s", "p/x", "p/x/y"]
    refused = session.run("zfs create p/m/n")
    assert refused.stderr == "cannot create 'p/m/n': parent does not exist\n"


@pytest.mark.parametrize("line", ["zfs create -n p/n", "zfs create -v p/n",
                                  "zfs create -n -P p/n", "zpool status -e p",
                                  "zpool status -d p", "zpool scrub -e p", "zpool scrub -C p",
                                  "zpool import -o readonly=on -d /var/tmp/d p",
                                  "zpool import -R /mnt -d /var/tmp/d p",
                                  "zfs snapshot -o com.x:y=1 p/fs@t",
                                  "zpool create -m /mnt/q q /var/tmp/d/b",
                                  "zpool create -R /mnt q /var/tmp/d/b",
                                  "zpool create -d q /var/tmp/d/b",
                                  "zpool create -t tmp q /var/tmp/d/b",
                                  "zpool remove -s p", "zpool offline -f p /var/tmp/d/a",
                                  "zpool offline -t p /var/tmp/d/a", "zpool wait -T d p",
                                  "zpool attach -s p /var/tmp/d/a /var/tmp/d/b",
                                  "zpool export -F p"])
def test_options_labsim_does_not_simulate_get_the_notice(line):
    result = machine().run(line)
    assert result.status == 1 and "not simulated here" in result.stderr, result


def test_options_a_release_lacks_are_invalid_there():
    for line in ("zpool status -e p", "zpool scrub -C p"):
        result = machine("2.1").run(line)
        assert result.status == 2 and result.stderr.startswith("invalid option"), line
    # error scrub came in 2.2
    assert "not simulated" in machine("2.2").run("zpool scrub -e p").stderr


def test_space_stands_for_the_space_columns():
    """zprop_get_list(): "space" expands to name,avail,used,usedsnap,usedds,
    usedrefreserv,usedchild; zfs list -o space alone leaves snapshots out."""
    session = machine()
    head = session.run("zfs list -o space").stdout.splitlines()[0].split()
    assert head == ["NAME", "AVAIL", "USED", "USEDSNAP", "USEDDS", "USEDREFRESERV",
                    "USEDCHILD"]
    props = session.run("zfs get -H -o property space p/fs").stdout.split()
    assert props == ["name", "available", "used", "usedbysnapshots", "usedbydataset",
                     "usedbyrefreservation", "usedbychildren"]
    assert session.run("zfs get -H -o value name p/fs@s").stdout == "p/fs@s\n"


@pytest.mark.parametrize("line", ["zpool status -D p", "zpool status -i p", "zpool status -g p",
                                  "zpool status -s p", "zpool status -t p",
                                  "zpool status -c vendor p", "zpool status -T d p",
                                  "zpool list -g p", "zpool iostat -l p", "zpool iostat -q p",
                                  "zpool iostat -r p", "zpool iostat -w p", "zpool iostat -y p",
                                  "zpool iostat -c size p", "zpool iostat -g p"])
def test_output_options_labsim_does_not_reproduce_get_the_notice(line):
    """Not the plain output as if the option had not been given."""
    result = machine().run(line)
    assert result.status == 1 and "not simulated here" in result.stderr, result


def test_iostat_h_is_its_usage():
    result = machine().run("zpool iostat -h")
    assert result.status == 2 and result.stderr.startswith("usage:\n\tiostat ")


def test_zfs_list_s_and_S_sort_as_zfs_sort_does():
    session = machine()
    for line in ("zfs create p/big", "dd if=/dev/urandom of=/p/big/f bs=1M count=2 status=none",
                 "zfs create p/fs/child"):
        assert session.run(line).status == 0
    ascending = session.run("zfs list -H -o name -s used").stdout.split()
    assert ascending[-1] == "p" and ascending[-2] == "p/big"
    assert session.run("zfs list -H -o name -S used").stdout.split()[:2] == ["p", "p/big"]
    # ties (equal names never; equal USED) fall back to the name order
    by_name = session.run("zfs list -H -o name -s name").stdout.split()
    assert by_name == ["p", "p/big", "p/fs", "p/fs/child"]
    refused = session.run("zfs list -P")
    assert refused.status == 2 and refused.stderr.startswith("invalid option 'P'")


def test_zfs_get_s_keeps_the_sources_asked_for_and_d_limits_the_depth():
    session = machine()
    assert session.run("zfs set atime=off p/fs").status == 0
    local = session.run("zfs get -H -r -s local -o name,property,value all p").stdout
    assert local == "p/fs\tatime\toff\n"
    defaults = session.run("zfs get -H -r -s default -o name atime p").stdout.split()
    assert defaults == ["p"]
    # atime does not apply to a snapshot: "-", source "-", the kind "none"
    assert session.run("zfs get -H -r -s none -o name atime p").stdout.split() == ["p/fs@s"]
    assert session.run("zfs get -H -d 0 -o name atime p").stdout == "p\n"
    refused = session.run("zfs get -s mine atime p")
    assert refused.status == 2 and refused.stderr.startswith("invalid source 'mine'\nusage:")
    assert session.run("zfs get -R atime p").stderr.startswith("invalid option 'R'")


def test_zpool_sync_f():
    assert machine().run("zpool sync -f p").status == 0


def test_ip_objects_labsim_does_not_model_get_the_notice():
    """iproute2's cmds[] (ip/ip.c): neigh, netns, maddress... are real objects."""
    session = machine()
    for line in ("ip neigh", "ip n", "ip netns", "ip -br tuntap", "ip monitor"):
        result = session.run(line)
        assert result.status == 1 and "not simulated here" in result.stderr, line
    assert session.run("ip bogus").stderr == 'Object "bogus" is unknown, try "ip help".\n'


@pytest.mark.parametrize("release", ["2.1", "2.3"])
@pytest.mark.parametrize("line", [
    "zfs get userused@root p/fs", "zfs get -p groupquota@root,used p/fs",
    "zfs list -o name,projectobjused@0 p/fs", "zfs get written@s p/fs",
    "zfs get written#b p/fs", "zfs set userquota@root=1G p/fs"])
def test_userspace_and_written_properties_are_real(line, release):
    """zprop_get_list() accepts zfs_prop_userquota() and zfs_prop_written() names
    (module/zcommon/zfs_prop.c): labsim does not model them, and says so."""
    result = machine(release).run(line)
    assert result.status == 1 and "is not simulated" in result.stderr, result
    assert "invalid property" not in result.stderr


def test_written_is_read_only_and_a_snapshot_takes_user_properties_only():
    """zfs_valid_proplist(): written@ and written# are read-only; on a snapshot any other
    name than a user property is refused before its name is looked at."""
    session = machine()
    for line, text in (
            ("zfs set written@s=1 p/fs", "cannot set property for 'p/fs': 'written@s' is readonly"),
            ("zfs create -o written#b=1 p/x", "cannot create 'p/x': 'written#b' is readonly"),
            ("zfs set atime=off p/fs@s", "cannot set property for 'p/fs@s': this property can "
                                         "not be modified for snapshots"),
            ("zfs set nosuch=1 p/fs@s", "cannot set property for 'p/fs@s': this property can "
                                        "not be modified for snapshots"),
            ("zfs set writtenx=1 p/fs", "cannot set property for 'p/fs': invalid property "
                                        "'writtenx'")):
        result = session.run(line)
        # zfs set exits 255 (zfs_for_each() ORs in set_callback()'s -1), zfs create 1
        status = 1 if line.startswith("zfs create") else 255
        assert (result.status, result.stderr) == (status, text + "\n"), (line, result)
    assert "is not simulated" in session.run("zfs set com.example:x=1 p/fs@s").stderr


def test_zpool_get_prints_nothing_for_a_feature_the_pool_does_not_have():
    """zpool_prop_get_feature(): an unsupported@ name the pool does not carry, or a
    feature@ name the release does not know, fails and get_callback() prints nothing."""
    session = machine()
    for line in ("zpool get unsupported@com.example:x p", "zpool get feature@bogus p"):
        result = session.run(line)
        assert (result.status, result.stdout, result.stderr) == (0, "", ""), (line, result)
    assert "invalid property" in session.run("zpool get unsupportedx p").stderr


def test_zpool_add_n_prints_the_configuration_and_adds_nothing():
    """zpool_do_add() with -n: print_vdev_tree() of the pool (ids), then the new vdevs
    (no ids), then the logs; the pool is unchanged (it used to add them)."""
    session = machine()
    for line in ("truncate -s 256M /var/tmp/d/c", "truncate -s 256M /var/tmp/d/e"):
        assert session.run(line).status == 0
    result = session.run("zpool add -nf p mirror /var/tmp/d/b /var/tmp/d/c log /var/tmp/d/e")
    assert result.status == 0, result
    assert result.stdout == ("would update 'p' to the following configuration:\n\n\tp\n"
                             "\t  /var/tmp/d/a\n\t  mirror\n\t    /var/tmp/d/b\n"
                             "\t    /var/tmp/d/c\n\tlogs\n\t  /var/tmp/d/e\n")
    pool = session.pools["p"]
    assert [v.name for v in pool.vdevs] == ["/var/tmp/d/a"] and not pool.logs


@pytest.mark.parametrize("release, refused", [("2.1", False), ("2.2", True), ("2.3", True)])
def test_zpool_add_checks_the_ashift_from_2_2(release, refused):
    """spa_vdev_add(check_ashift) (module/zfs/spa.c, 2.2 and later): while the data vdevs
    share one ashift, a new vdev of another is refused unless -f or
    --allow-ashift-mismatch; 2.1.11 adds it."""
    session = machine(release)
    result = session.run("zpool add -o ashift=12 p /var/tmp/d/b")
    if refused:
        assert (result.status, result.stderr) == (
            1, "cannot add to 'p': adding devices with different physical sector sizes is "
               "not allowed\n")
        assert session.run("zpool add --allow-ashift -o ashift=12 p /var/tmp/d/b").status == 0
    else:
        assert result.status == 0, result
    assert [v.ashift for v in session.pools["p"].vdevs] == [9, 12]


def test_zpool_add_takes_the_pools_ashift_property():
    """zpool_do_add(): "unless manually specified use "ashift" pool property (if set)"."""
    session = Session(version=get_version("2.3"))
    for line in ("mkdir -p /var/tmp/d", "truncate -s 256M /var/tmp/d/a /var/tmp/d/b",
                 "zpool create -o ashift=12 p /var/tmp/d/a", "zpool add p /var/tmp/d/b"):
        assert session.run(line).status == 0, line
    assert [v.ashift for v in session.pools["p"].vdevs] == [12, 12]
    result = session.run("zpool add -f --allow-in-use p /var/tmp/d/b")
    assert result.status == 2 and result.stderr.startswith(
        "'-f' option is not allowed with '--allow-replication-mismatch'")


@pytest.mark.parametrize("sub", ["status p", "online p /var/tmp/d/a", "offline p /var/tmp/d/a",
                                 "clear p"])
def test_power_is_a_real_option_from_2_2(sub):
    """--power (getopt_long(), zpool_main.c at zfs-2.2.9 and 2.3.9): the notice; 2.1.11's
    getopt() reads "--power" as the option '-' (recorded: lab15-add-forms)."""
    result = machine("2.3").run(f"zpool {sub.split()[0]} --power {' '.join(sub.split()[1:])}")
    assert result.status == 1 and "--power (enclosure slot power)" in result.stderr
    old = machine("2.1").run(f"zpool {sub.split()[0]} --power {' '.join(sub.split()[1:])}")
    assert old.status == 2 and old.stderr.startswith("invalid option '-'\nusage:")


def test_zfs_list_and_get_keep_file_systems_and_volumes_apart():
    """-t filesystem and -t volume select by type (zfs_callback()); a named dataset of
    another type is refused by zfs_open() (EZFS_BADTYPE), a named snapshot where
    snapshots are not asked for by zfs_validate_name(); zfs list shows both kinds by
    default."""
    session = machine()
    assert session.run("zfs create -V 8M p/v").status == 0
    names = lambda line: session.run(line).stdout.split()  # noqa: E731
    assert names("zfs list -H -o name") == ["p", "p/fs", "p/v"]
    assert names("zfs list -H -o name -t filesystem") == ["p", "p/fs"]
    assert names("zfs list -H -o name -t volume") == ["p/v"]
    assert names("zfs get -H -o name -t volume used") == ["p/v"]
    result = session.run("zfs list -t filesystem p/v")
    assert (result.status, result.stderr) == (
        1, "cannot open 'p/v': operation not applicable to datasets of this type\n")
    result = session.run("zfs list -t filesystem p/fs@s")
    assert (result.status, result.stderr) == (
        1, "cannot open 'p/fs@s': snapshot delimiter '@' is not expected here\n")
    assert names("zfs list -H -o name p/fs@s") == ["p/fs@s"]


def test_a_data_vdev_added_after_a_log_vdev_takes_the_next_id():
    """A log vdev takes an id among the root's children; a data vdev added after it has
    the next (spa_vdev_add()), and its blocks name it by that id (labsim crashed)."""
    session = machine()
    for line in ("truncate -s 256M /var/tmp/d/c", "zpool add p log /var/tmp/d/b",
                 "zpool add -f p /var/tmp/d/c",
                 "dd if=/dev/urandom of=/p/fs/f bs=1M count=8 status=none",
                 "zfs snapshot p/fs@t", "rm /p/fs/f", "zpool sync p", "zpool scrub -w p"):
        result = session.run(line)
        assert result.status == 0, (line, result)
    pool = session.pools["p"]
    assert [(v.id, v.name) for v in pool.vdevs] == [(0, "/var/tmp/d/a"), (2, "/var/tmp/d/c")]
    assert pool.top(2) is pool.vdevs[1] and pool.top(1) is pool.logs[0]
    rows = session.run("zpool list -H -v -o name p").stdout.split("\n")
    assert any(row.startswith("\t/var/tmp/d/c\t") for row in rows), rows
