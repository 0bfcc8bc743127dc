"""A file opened with O_TRUNC and written again keeps its block size (z_blksz): zfs_trunc()
frees the blocks, zfs_grow_blocksize() never shrinks (records.file_layout())."""

from __future__ import annotations

from labsim import Session


def _logical(session: Session) -> int:
    return int(session.run("zfs get -Hp -o value logicalreferenced p").stdout)


def test_a_small_rewrite_of_a_big_file_is_one_whole_block() -> None:
    # Generated seed 5033: 16M written at recordsize=1M, then `dd bs=128K count=1` onto the
    # same name: real LREFER counts a 1M block (17845760 against labsim's 16926208 before).
    session = Session()
    for line in ("truncate -s 512M /tmp/d1", "zpool create -o ashift=12 p /tmp/d1",
                 "zfs set recordsize=1M p",
                 "dd if=/dev/urandom of=/p/f bs=128K count=128 status=none",
                 "zfs set recordsize=128K p",
                 "dd if=/dev/urandom of=/p/g bs=128K count=1 status=none",
                 "zpool sync p"):
        assert session.run(line).status == 0, line
    before = _logical(session)
    session.run("dd if=/dev/urandom of=/p/f bs=128K count=1 status=none")
    session.run("zpool sync p")
    files = session.pools["p"].datasets["p"].files
    assert files["f"].block_size == 1 << 20 and files["g"].block_size == 128 << 10
    # 16 blocks of 1M became one; the L1 indirect block above them stays, over the one
    # block (the dnode keeps its two levels: records.file_levels()).
    assert before - _logical(session) == 15 << 20
    assert session.pools["p"].datasets["p"].files["f"].levels == 2
    # rm and a new file: a new object, sized by today's recordsize.
    session.run("rm /p/f")
    session.run("dd if=/dev/urandom of=/p/f bs=128K count=1 status=none")
    assert session.pools["p"].datasets["p"].files["f"].block_size == 128 << 10


def test_a_dnode_keeps_its_levels_after_o_trunc() -> None:
    # Generated seed 80 (tuning, 2.1.11 and 2.3.9): 1M written at recordsize 128K, then
    # `seq 1 585 >` the same name: real logicalreferenced keeps a 4K L1 block over the
    # one new block (a dnode never loses a level, module/zfs/dnode.c).
    session = Session()
    for line in ("truncate -s 512M /tmp/d1", "zpool create -o ashift=12 p /tmp/d1",
                 "dd if=/dev/urandom of=/p/f bs=1M count=1 status=none",
                 "seq 1 585 > /p/f", "seq 1 585 > /p/g", "zpool sync p"):
        assert session.run(line).status == 0, line
    files = session.pools["p"].datasets["p"].files
    assert (files["f"].levels, files["g"].levels) == (2, 1)
    assert files["f"].object == 2  # O_TRUNC keeps the object
    # One 128K block (the block size kept) and the 4K L1 block above it.
    assert files["f"].logical == (128 << 10) + 4096
    assert files["g"].logical == files["g"].block_size
