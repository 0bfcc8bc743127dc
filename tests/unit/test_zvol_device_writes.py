"""dd into a volume's device (/dev/zvol/POOL/NAME) is a write to a block device: never
truncated, ending at volsize, and probed by udev when the writer closes it."""

from __future__ import annotations

from labsim import Session, run_script


def _session(volsize: str = "48M") -> Session:
    session = Session()
    for line in ("truncate -s 256M /tmp/d1", "zpool create -o ashift=12 p /tmp/d1",
                 f"zfs create -s -V {volsize} p/vol1", "udevadm settle"):
        assert session.run(line).status == 0, line
    return session


def _used(session: Session) -> tuple[int, int]:
    out = session.run("zfs get -Hp -o value used,logicalused p/vol1").stdout.split()
    return int(out[0]), int(out[1])


def test_a_second_write_keeps_what_it_does_not_overwrite() -> None:
    # Generated seed 5043: 225 records, then 7 more at the start; real USED stays ~14M.
    session = _session()
    session.run("dd if=/dev/urandom of=/dev/zvol/p/vol1 bs=64K count=225 status=none")
    used, logical = _used(session)
    assert logical >= 225 * 64 * 1024
    session.run("dd if=/dev/urandom of=/dev/zvol/p/vol1 bs=64K count=7 status=none")
    assert _used(session)[1] == logical
    assert _used(session)[0] >= used


def test_a_write_past_the_end_of_the_volume_fails_with_enospc() -> None:
    session = _session("8M")
    result = session.run("dd if=/dev/urandom of=/dev/zvol/p/vol1 bs=1M count=20")
    assert result.status == 1
    assert result.stderr.startswith(
        "dd: error writing '/dev/zvol/p/vol1': No space left on device\n"
        "9+0 records in\n8+0 records out\n8388608 bytes (8.4 MB, 8.0 MiB) copied")
    assert _used(session)[1] <= (8 << 20) + (64 << 10)


def test_a_volume_just_written_is_busy_until_udev_has_probed_it() -> None:
    # Generated seed 5007: zfs destroy right after dd answers "dataset is busy" in 5 of the
    # 6 real runs (2.3.9 and 2.1.11).
    session = _session()
    [_, (_, busy)] = run_script("dd if=/dev/urandom of=/dev/zvol/p/vol1 bs=64K count=3 "
                                "status=none\nzfs destroy p/vol1", session)
    assert (busy.status, busy.stderr) == (1, "cannot destroy 'p/vol1': dataset is busy\n")
    [_, (_, settled)] = run_script("udevadm settle\nzfs destroy p/vol1", session)
    assert settled.status == 0
    assert "p/vol1" not in session.run("zfs list -H -o name -r p").stdout


def test_a_destroy_typed_after_the_write_finds_the_volume_free() -> None:
    # Typed in a terminal, the destroy comes a person's typing after the dd (which the
    # session's clock does not count); on one line it comes at once.
    session = _session()
    session.run("dd if=/dev/urandom of=/dev/zvol/p/vol1 bs=64K count=3 status=none")
    assert session.run("zfs destroy p/vol1").status == 0
    session.run("zfs create -V 8M p/vol2")
    busy = session.run("dd if=/dev/zero of=/dev/zvol/p/vol2 bs=64K count=1 status=none; "
                       "zfs destroy p/vol2")
    assert busy.stderr == "cannot destroy 'p/vol2': dataset is busy\n"

