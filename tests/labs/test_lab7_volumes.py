"""Lab 7 writes with fio to its own pool's volumes: the runner allows that and nothing else
under /dev (labkit.refusal)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "labs"))

import labkit  # noqa: E402

POOLS = ("lab7",)


def test_fio_on_the_labs_own_volume_is_allowed():
    assert labkit.refusal("fio --name=z --filename=/dev/zvol/lab7/sparse --rw=randwrite "
                          "--bs=4k --size=48M --io_size=1M --output=/dev/null", POOLS) is None


@pytest.mark.parametrize("target, reason", [
    ("/dev/zvol/rpool/vm", "not a volume of this lab's pools"),
    ("/dev/sda", "fio would write to the device /dev/sda"),
    ("/dev/zd0", "fio would write to the device /dev/zd0"),
])
def test_fio_on_other_devices_is_refused(target, reason):
    why = labkit.refusal(f"fio --name=z --filename={target} --rw=write --size=1M", POOLS)
    assert why is not None and reason in why, why
