"""Files through the shell where real tools cannot be run here: fallocate in a dataset
(OpenZFS's zpl_fallocate_common), du -h, the blocks of host files, and the character
devices."""

from __future__ import annotations

from labsim.shell.commands.checksums import FALLOCATE_RESERVE_PERCENT
from labsim.shell.session import Session
from labsim.zfs.space import dataset_available


def _pool() -> Session:
    session = Session()
    for line in ("truncate -s 1G /root/d", "zpool create p /root/d", "zfs create p/small",
                 "zfs set recordsize=16K p/small"):
        assert session.run(line).status == 0, line
    return session


def _limit(session: Session, name: str, recordsize: int) -> int:
    pool = session.pools["p"]
    available = dataset_available(pool, pool.datasets[name])
    return (available >> (recordsize.bit_length() - 1)) * (recordsize * 100
                                                           // FALLOCATE_RESERVE_PERCENT)


def test_fallocate_in_a_dataset_fits_the_available_space_less_ten_percent():
    session = _pool()
    for name, recordsize in (("p", 128 << 10), ("p/small", 16 << 10)):
        limit = _limit(session, name, recordsize)
        mountpoint = "/" + name
        over = session.run(f"fallocate -l {limit + 1} {mountpoint}/over")
        assert (over.stderr, over.status) == (
            "fallocate: fallocate failed: No space left on device\n", 1)
        assert session.run(f"fallocate -l {limit} {mountpoint}/fits").status == 0
        # only the size is set: nothing is allocated
        listing = session.run(f"ls -l {mountpoint}/fits").stdout
        assert f" {limit} " in listing
        assert session.run(f"du -k {mountpoint}/fits").stdout.split()[0] in ("0", "1")


def test_fallocate_keep_size_and_host_files():
    session = _pool()
    assert session.run("fallocate -n -l 1M /p/k; stat -c %s /p/k").stdout == "0\n"
    assert session.run("fallocate -l 1M -o 5 h; stat -c %s h; md5sum h").stdout.startswith(
        "1048581\n")
    assert session.run("fallocate -l 0 h").stderr == "fallocate: invalid length value specified\n"


def test_du_h_is_gnulibs_human_readable_rounding_up():
    session = _pool()
    session.run("dd if=/dev/urandom of=/p/f bs=1M count=3 2>/dev/null")
    kib = int(session.run("du -k /p/f").stdout.split()[0])
    human = session.run("du -h /p/f").stdout.split()[0]
    assert kib * 1024 > 3 << 20 and human == "3.1M"


def test_host_files_take_whole_blocks_where_labsim_wrote_them_and_none_when_sparse():
    """The lab VM's /root, /var/tmp (ext4) and /tmp (tmpfs) allocate 4K at a time: a file
    written whole takes its size rounded up, one truncate made takes nothing, bytes
    appended after a hole take the blocks from the hole's last one on."""
    session = Session()
    lines = ["echo hi > /root/x", "echo more >> /root/x", "truncate -s 1M /root/s",
             "echo tail >> /root/s", "fallocate -l 10000 /root/f", "cp /root/x /root/y",
             "truncate -s 6000 /root/f"]
    for line in lines:
        assert session.run(line).status == 0, line
    du = session.run("du -k /root/x /root/s /root/f /root/y /root/empty").stdout
    assert du == "4\t/root/x\n4\t/root/s\n8\t/root/f\n4\t/root/y\n"
    assert session.run("ls -s /root/x").stdout == "4 /root/x\n"
    assert session.run("touch /root/t; du /root/t").stdout == "0\t/root/t\n"


def test_blocks_labsim_does_not_know_are_an_honest_notice():
    """What ZFS wrote into a vdev file and what dd wrote: du says it is not simulated
    (never a 0 that real du would not print); ls still lists, and says its 0 is not real."""
    session = Session()
    for line in ("mkdir -p /var/tmp/labs", "truncate -s 256M /var/tmp/labs/a.raw"):
        assert session.run(line).status == 0, line
    assert session.run("du -k /var/tmp/labs/a.raw").stdout == "0\t/var/tmp/labs/a.raw\n"
    session.run("zpool create t /var/tmp/labs/a.raw")
    session.run("dd if=/dev/urandom of=/root/r bs=1M count=2 status=none")
    for name in ("/var/tmp/labs/a.raw", "/root/r", "/var/tmp/labs"):
        result = session.run(f"du -k {name}")
        assert result.status == 1 and result.stdout == ""
        assert "not simulated" in result.stderr and name in result.stderr
    listing = session.run("ls -l /var/tmp/labs")
    assert "a.raw" in listing.stdout and listing.status == 0  # a notice, not an error
    assert "not simulated" in listing.stderr and "0 is shown" in listing.stderr
    assert session.run("ls /var/tmp/labs").stderr == ""  # no blocks shown: nothing to say


def test_devices_read_as_the_kernel_gives_them():
    session = Session()
    assert session.run("head -c 4 /dev/zero | md5sum").stdout.startswith(
        "f1d3ff8443297732862df21dc4e57262")
    assert session.run("cat /dev/null | wc -c").stdout == "0\n"
    one = session.run("head -c 16 /dev/urandom | base64").stdout
    two = session.run("head -c 16 /dev/urandom | base64").stdout
    assert len(one) == 25 and one != two


def test_df_shows_what_zfs_statvfs_reports_in_gnu_dfs_columns():
    session = _pool()
    session.run("dd if=/dev/urandom of=/p/small/f bs=1M count=3 2>/dev/null")
    pool = session.pools["p"]
    dataset = pool.datasets["p/small"]
    from labsim.shell.commands.df import statfs
    from labsim.zfs.space import dataset_available, dataset_referenced

    bsize, blocks, free, avail = statfs(pool, dataset)
    assert bsize == 16 << 10
    assert blocks == (-(-dataset_referenced(pool, dataset) // bsize) * bsize
                      + dataset_available(pool, dataset)) // bsize
    used_k, avail_k = (blocks - free) * 16, avail * 16
    percent = -(-(used_k * 100) // (used_k + avail_k))
    assert session.run("df /p/small/f").stdout == (
        "Filesystem     1K-blocks  Used Available Use% Mounted on\n"
        f"p/small     {blocks * 16:>12} {used_k:>5} {avail_k:>9} {percent:>3}% /p/small\n")
    # an empty dataset uses one record: its referenced bytes are rounded up to a block
    assert session.run("df -k /p").stdout.split("\n")[1].split()[2] == "128"
    assert session.run("df -h /p").stdout.startswith("Filesystem      Size  Used Avail Use% ")


def test_df_says_the_hosts_file_systems_are_not_simulated():
    session = _pool()
    for line in ("df", "df /root"):
        result = session.run(line)
        assert "not simulated" in result.stderr and result.status == 1
    assert session.run("df /nothing").stderr == "df: /nothing: No such file or directory\n"


def test_ls_lays_names_out_in_columns_only_on_the_terminal():
    """GNU ls: columns when standard output is a terminal, one name a line into a pipe or a
    file (ls.c: format = isatty(STDOUT_FILENO) ? many_per_line : one_per_line); -1 and -C
    choose either way."""
    session = _pool()
    assert session.run("for i in $(seq 5); do touch /p/f$i; done").status == 0
    assert session.run("ls /p").stdout == "f1  f2\tf3  f4\tf5  small\n"
    assert session.run("ls /p | wc -l").stdout == "6\n"
    assert session.run("ls -C /p | cat").stdout == "f1  f2\tf3  f4\tf5  small\n"
    assert session.run("ls -1 /p").stdout == "f1\nf2\nf3\nf4\nf5\nsmall\n"
    session.run("ls /p > /root/listing")
    assert session.run("cat /root/listing").stdout.splitlines() == [
        "f1", "f2", "f3", "f4", "f5", "small"]


def test_touch_makes_a_file_the_dataset_accounts_for():
    """A new empty file is a dnode and a directory entry: the file system's REFER grows
    once enough of them no longer fit the embedded directory block."""
    session = _pool()
    before = session.run("zfs get -Hp -o value referenced p/small").stdout
    for i in range(40):
        assert session.run(f"touch /p/small/f{i}").status == 0
    after = session.run("zfs get -Hp -o value referenced p/small").stdout
    assert int(after) > int(before)
