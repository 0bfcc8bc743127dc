"""Micro ZAPs that live in their block pointer until LZ4 leaves more than
BPE_PAYLOAD_SIZE bytes of them: the pool's map of its vdev ZAPs and a dsl_dataset's
active features (labsim.zfs.metadata_blocks, labsim.zfs.mos). The thresholds were read
with zdb -dd on OpenZFS 2.3.9 (tests/fixtures/real/2.3.9/probes/lab15-rm-records.txt,
lab15-mos-set.txt, lab15-deadlist-bpobj.txt, lab15-feature-zaps.txt)."""

from labsim.shell.session import Session
from labsim.zfs.metadata_blocks import vdev_zap_map
from labsim.zfs.mos import dataset_object_block
from labsim.zfs.versions import get_version


def test_the_vdev_zap_map_is_embedded_up_to_six_entries():
    # 2.3.9: the root vdev's ZAP, a RAID-Z's own and one for each child
    assert vdev_zap_map([4], root_zap=True) is None  # RAID-Z1 of four: six entries
    seven = vdev_zap_map([5], root_zap=True)  # RAID-Z3 of five
    assert seven is not None and seven.lsize == 512 and seven.copies == 3
    eight = vdev_zap_map([6], root_zap=True)  # RAID-Z2 of six: a micro ZAP of 1K
    assert eight is not None and eight.lsize == 1024
    # 2.1.11 has no root vdev ZAP: a RAID-Z3 of five stays embedded there
    assert vdev_zap_map([5], root_zap=False) is None


def test_a_datasets_feature_zap_leaves_its_block_pointer_with_a_third_feature():
    accounting = {"userobj_accounting", "project_quota"}
    assert dataset_object_block(set()) is None
    assert dataset_object_block(accounting) is None
    for third in ("zstd_compress", "large_blocks", "zilsaxattr"):
        block = dataset_object_block(accounting | {third})
        assert block is not None and block.lsize == 512 and block.copies == 3
    # a volume has no accounting features: zstd alone stays embedded
    assert dataset_object_block({"zstd_compress"}) is None


def _mos_bytes(script: str) -> int:
    session = Session(version=get_version("2.3"))
    for line in script.strip().splitlines():
        assert session.run(line.strip()).status == 0, line
    return session.pools["p"].mos_physical


def test_a_zstd_root_has_one_block_more_in_its_mos_than_a_gzip_one():
    """zpool create -O compression=zstd: the root's dsl_dataset holds three features;
    gzip, a name as long (the same history records), activates none."""
    base = """
        mkdir -p /var/tmp/labs
        truncate -s 128M /var/tmp/labs/a /var/tmp/labs/b
        zpool create -o ashift=9 {opts} p mirror /var/tmp/labs/a /var/tmp/labs/b
    """
    gzip = _mos_bytes(base.format(opts="-O compression=gzip"))
    zstd = _mos_bytes(base.format(opts="-O compression=zstd"))
    # one sector, its physical size once (before a later txg gives the metaslab it went
    # to a space map of its own)
    assert zstd - gzip == 512
