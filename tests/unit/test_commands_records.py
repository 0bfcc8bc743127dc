"""The shell commands lesson 4 added: zpool create -O, inherited sources in zfs get,
fio's job form, ls -s and du -k on files in a dataset."""

from labsim import Session
from labsim.shell.commands.fio import parse_fio_size

NOTICE_TAIL = "is not simulated here; try it in the lab VM (see vagrant/README.md)"


def pool(session: Session) -> None:
    session.run("truncate -s 512M /var/tmp/a.raw")
    assert session.run("zpool create -o ashift=12 -O compression=lz4 t /var/tmp/a.raw").status == 0
    session.run("zfs create -o recordsize=1M t/big")


def test_create_O_and_inherited_sources():
    s = Session()
    pool(s)
    out = s.run("zfs get -r compression t").stdout.splitlines()
    assert out[1].split()[-1] == "local"
    assert out[2].endswith("inherited from t")
    # add_prop_list() checks the names before the devices are looked at
    assert "not simulated" in s.run("zpool create -O quota=1G u /var/tmp/a.raw").stderr
    refused = s.run("zpool create -O bogus=1 u /var/tmp/a.raw")
    assert refused.status == 2
    assert refused.stderr.startswith("property 'bogus' is not a valid filesystem property\n")


def test_fio_writes_half_compressible_data_quietly():
    s = Session()
    pool(s)
    r = s.run("fio --name=j --filename=/t/big/h.bin --rw=write --bs=1M --size=8M "
              "--buffer_compress_percentage=50 --buffer_compress_chunk=4k --refill_buffers "
              "--end_fsync=1 --output=/dev/null")
    assert (r.stdout, r.stderr, r.status) == ("", "", 0)
    ratio = s.run("zfs get -Hp -o value compressratio t/big").stdout.strip()
    assert ratio == "1.95"
    # ls -s and du -k: 8 x 520K of data, 2 x 4K indirect, the dnode's 512 bytes
    assert s.run("du -k /t/big/h.bin").stdout == "4169\t/t/big/h.bin\n"
    assert s.run("ls -s /t/big/h.bin").stdout.startswith("4169 ")


def test_fio_summary_and_refusals():
    s = Session()
    pool(s)
    r = s.run("fio --name=j --filename=/t/big/r.bin --rw=write --bs=1M --size=4M")
    # fio 3.33 prints sizes with num2str(): four digits, then a unit
    assert r.status == 0 and "io=4096KiB (4194kB)" in r.stdout
    assert "bs=(R) 1024KiB-1024KiB" in r.stdout and "Laying out IO file (1 file / 4MiB)" in r.stdout
    r = s.run("fio --name=j --filename=/t/big/r.bin --rw=write --bs=4k --size=4M")
    assert "bs=(R) 4096B-4096B" in r.stdout and "Laying out" not in r.stdout
    r = s.run("fio --name=j --filename=/t/big/r.bin --rw=randwrite --bs=4k --size=4M")
    # randwrite is modelled only as lab 7 runs it (--io_size, --output=/dev/null)
    assert r.status == 1 and r.stderr == (
        "labsim: fio: the option --rw=randwrite without --output=/dev/null "
        f"{NOTICE_TAIL}\n")
    r = s.run("fio --name=j --filename=/t/big/r.bin --rw=write --bs=4k --size=4M --iodepth=8")
    assert "--iodepth=8 is not simulated" in r.stderr


def test_fio_sizes():
    assert parse_fio_size("4k") == 4096 and parse_fio_size("1M") == 1 << 20
    assert parse_fio_size("32MiB") == 32 << 20 and parse_fio_size("x") is None
