"""The write-amplification comparison of lab 7 (zvol_compare.py)."""

from pathlib import Path

import pytest
from transcripts import parse
from zvol_compare import compare_amplification, is_amplification_get, used_values

from labsim.zfs import qcow2

# lab 7's last reading on real OpenZFS 2.1.11 (tests/fixtures/real/2.1.11/07-zvols.txt)
REAL = "lab7/rs128k\tused\t23584768\nlab7/rs8k\tused\t2244608\nlab7/sparse\tused\t2203648\n"


def test_recognises_the_command_and_reads_the_values():
    assert is_amplification_get("zfs get -Hp -o name,property,value used lab7/sparse")
    assert not is_amplification_get("zfs get -Hp -o name,property,value volsize lab7/x")
    assert used_values(REAL)["lab7/rs8k"] == 2244608


def test_within_ten_percent_passes_and_beyond_fails():
    assert compare_amplification("w", [REAL], REAL.replace("23584768", "25900000")) == []
    problems = compare_amplification("w", [REAL], REAL.replace("23584768", "26000000"))
    assert len(problems) == 1 and "lab7/rs128k" in problems[0] and "per MiB" in problems[0]
    problems = compare_amplification("w", [REAL], "lab7/rs128k\tused\t23584768\n")
    assert len(problems) == 2 and all("missing" in p for p in problems)


def test_volume_properties_are_compared_exactly():
    from zvol_compare import compare_exact, is_exact_get

    command = ("zfs get -Hp -o name,property,value volsize,volblocksize,refreservation "
               "lab7/thick lab7/sparse")
    assert is_exact_get(command) and not is_exact_get(command.replace("volsize", "used"))
    real = "lab7/thick\trefreservation\t54001664\n"
    assert compare_exact("w", [real], real) == []
    assert len(compare_exact("w", [real], real.replace("54001664", "54001665"))) == 1


def test_usedbyrefreservation_may_be_off_by_what_refer_may_be():
    from transcripts import compare

    real = """\
$ zfs list -p -r -o name,used,avail,refer,usedbyrefreservation lab7
NAME              USED     AVAIL     REFER  USEDREFRESERV
lab7/thick    54001664  23687168  50937856        3063808
"""
    # 48K less REFER in labsim is 48K more USEDREFRESERV: 1.6 % of it, 0.1 % of REFER
    sim = real.replace("50937856        3063808", "50888704        3112960")
    assert compare(real, sim) == []
    far = real.replace("50937856        3063808", "50937856        3700000")
    assert len(compare(real, far)) == 1


# --- qcow2: labsim's model of a fresh image against the ratio lab 7 measured -------------------

ROOT = Path(__file__).resolve().parents[2]
LAB7_RECORDINGS = sorted((ROOT / "tests" / "fixtures" / "real" / "2.1.11").glob("07-zvols*.txt"))
WRITTEN = 1 << 20  # fio's --io_size=1M into each image
IMAGE = 48 << 20  # the images' virtual size, fio's --size=48M
# image, its cluster size, its dataset's recordsize (labs/scripts/07-zvols.sh, step qcow2)
QCOW2_CASES = [("lab7/q64k", 64 << 10, 128 << 10), ("lab7/q8k", 8 << 10, 8 << 10)]
# labsim's ratio (qcow2.fresh_image_amplification) must be within this of each real ratio.
# Why 10 %: two known gaps, pulling in either direction. Which clusters fio's writes land in
# comes from fio's own random map, which labsim estimates rather than replays (220 of 768
# 64K clusters against the 212 qemu-img check counted: +3.8 %); and the model counts the
# image file's records only, not the indirect blocks and dnode that USED includes (112K of
# 14.4M for 64K clusters, 120K of 2.3M for 8K: up to -5.4 %). Measured: 13.73 real against
# 14.13 modelled for 64K clusters on 128K records (+2.9 %), 2.19 against 2.05 for 8K on 8K
# (-6.1 %). A model that forgot the zero-filled rest of each cluster, or charged a whole
# record per write, would be off by a factor, not by per cent.
QCOW2_RATIO_TOLERANCE = 0.10


def real_qcow2_used() -> list[dict[str, int]]:
    """USED of the qcow2 datasets in each lab 7 recording (the last amplification reading)."""
    readings = []
    for recording in LAB7_RECORDINGS:
        blocks = [b for b in parse(recording.read_text())
                  if is_amplification_get(b.command) and "lab7/q64k" in b.command]
        assert blocks, f"{recording.name} has no qcow2 reading"
        readings.append(used_values(blocks[-1].output))
    return readings


def test_there_are_two_recordings_of_the_qcow2_step():
    assert len(LAB7_RECORDINGS) >= 2, [p.name for p in LAB7_RECORDINGS]


@pytest.mark.parametrize(("name", "cluster", "record"), QCOW2_CASES)
def test_modelled_qcow2_amplification_matches_the_real_ratio(name, cluster, record):
    modelled = qcow2.fresh_image_amplification(IMAGE, cluster, record, 4096, WRITTEN)
    for used in real_qcow2_used():
        real = used[name] / WRITTEN
        assert abs(modelled - real) <= QCOW2_RATIO_TOLERANCE * real, (
            f"{name}: labsim {modelled:.2f}, real {real:.2f} bytes per byte written")
        # The spread-thin model the page's widget draws is the worst case, never below.
        assert real <= qcow2.first_write_amplification("qcow2", 4096, record, cluster)


def test_the_default_cluster_on_default_records_costs_less_than_a_raw_file():
    # What the lab shows: a fresh qcow2 image packs the clusters it allocates, so 64K clusters
    # on 128K records cost less than a raw file on the same records, and 8K on 8K about the
    # same as 8K records do.
    for used in real_qcow2_used():
        assert used["lab7/q64k"] < used["lab7/rs128k"]
        assert abs(used["lab7/q8k"] - used["lab7/rs8k"]) < 0.1 * used["lab7/rs8k"]
