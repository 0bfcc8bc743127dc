"""The space snapshots and clones hold: USED, REFER, usedbysnapshots and what destroying
a range of snapshots would free (labsim.zfs.snapshots has the operations).

Space is computed from who holds which blocks, with the rules of OpenZFS 2.1's DSL
(module/zfs/dsl_dataset.c, dsl_deadlist.c, dsl_destroy.c):

* A dataset's snapshots form a chain, oldest first, continued by the head; a clone's chain
  starts at its origin snapshot (ds_prev_snap_obj of its first snapshot or of its head).
  A block lives in a run of consecutive members of one chain: it is born into the head
  and, once killed there, stays in the snapshots taken while it was alive.
* A snapshot's ``used`` is ds_unique_bytes: blocks it holds that neither the previous nor
  the next member of its chain holds. dsl_dataset_block_kill() adds a block killed in the
  head to the latest snapshot's unique bytes when that snapshot's predecessor was taken
  before the block was born; a clone's kill never changes its origin's unique bytes, so
  an origin snapshot's ``used`` counts blocks its clones may still hold.
* ``usedbydataset`` (DD_USED_HEAD) is what the head holds that was born after the origin
  (dd_origin_txg), ``usedbysnapshots`` (DD_USED_SNAP) what only the dataset's own
  snapshots hold (dsl_dir_transfer_space() moves a killed block from HEAD to SNAP),
  ``usedbychildren`` the child datasets' ``used``.
* ``zfs destroy -nv fs@a%c`` reports lzc_snaprange_space(): dsl_dataset_space_wouldfree()
  sums the deadlists after each snapshot of the range, counting blocks born after the
  snapshot before ``a`` (dsl_deadlist_space_range()); that is the blocks the range holds
  that neither the snapshot before ``a`` nor the one after ``c`` (or the head) holds.
* ``zfs promote`` (dsl_dataset_promote_sync()) moves the origin snapshot and those before
  it to the clone, with the space they hold; the old parent becomes a clone.

The unit of sharing is a part of a file (labsim.zfs.pool.file_parts): a file written
whole is one part, its blocks born and dying together; a partial overwrite
(labsim.zfs.overwrite) makes a new version of the file that shares runs of records with
the old one, so a snapshot of the old version keeps as unique only the records the
overwrite touched and the old indirect blocks.

Metadata: when a head changes after a snapshot, the blocks of its object set that the
change rewrites (the objset block, meta-dnode blocks, the directory) are copied on write,
and the snapshot keeps the old copies. labsim follows a few groups of such blocks through
each chain (labsim.zfs.metadata_blocks.rewritten_group); their bytes are counted at
once, and allocated when the pool syncs (labsim.zfs.held_metadata).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace

from labsim.zfs import metadata_blocks
from labsim.zfs.objset import mountpoint_chunks
from labsim.zfs.pool import Dataset, File, Part, Pool, Snapshot
from labsim.zfs.snapshots import Objset, chain, children_of, origin_of, owner
from labsim.zfs.space import (
    dataset_referenced,
    objset_cost,
    part_used_bytes,
    parts_of,
    usedbyrefreservation,
)

# Metadata blocks a change rewrites, by group (labsim.zfs.metadata_blocks.rewritten_group):
# "root" is the objset block and the meta-dnode's indirect blocks, rewritten by any change;
# "dir" the dnode block of the root directory (a name made or removed, a new atime);
# "dnode" one dnode block of files (a file in it created, written or removed).
# Each snapshot, clone and promote adds objects to the MOS (a dsl_dataset, its deadlist, a
# dsl_dir, the snapshot names ZAP...): micro ZAPs of a few entries, embedded in their block
# pointers (take_snapshot(), clone(), promote()). The MOS also grows as deadlists fill
# (labsim.zfs.deadlists, allocated when the pool syncs).

# (group, what, version, copies): one version of a metadata block, and the copies it was
# written with (labsim.zfs.objset.metadata_copies at that moment).
Token = tuple[str, str, int, int]


def _ids(objset: Objset | None) -> set[int]:
    """The parts (runs of records, files' own blocks) the object set holds."""
    return set() if objset is None else set(parts_of(objset.files.values()))


def _bytes(pool: Pool, parts: Iterable[Part]) -> int:
    return sum(part_used_bytes(pool, p) for p in parts)


def _files_of(objsets: Iterable[Objset]) -> dict[int, Part]:
    return parts_of(f for o in objsets for f in o.files.values())


def _dnode_blocks(objset: Objset) -> dict[str, str]:
    """Which dnode block (labsim.zfs.metadata_blocks.dnode_block_of) holds each file's
    dnode and each mountpoint directory's, by name (a directory's name ends in "/")."""
    where = {name: str(metadata_blocks.dnode_block_of(f.object))
             for name, f in objset.files.items()}
    for name in objset.mountpoint_dirs:
        where[name + "/"] = metadata_blocks.mountpoint_dnode_block(
            name in objset.mountpoint_other_chunk)
    return where


def _changed_groups(old: Objset, new: Objset,
                    removed: Iterable[tuple[File, int]] = ()) -> set[tuple[str, str]]:
    """The metadata blocks rewritten between two members of a chain, from how their
    files differ: any change rewrites the root group; a file created, written or removed
    the dnode block that holds its dnode (dnode_sync() writes the whole block: files
    whose dnodes share a block share its versions, so a snapshot keeps a block one file
    changed as unique once the head changes another file of that block); a name created
    or removed the root directory's. ``removed``: the dataset's removed files
    (Dataset.removed_files); one made after ``old`` and removed before ``new`` rewrote its
    dnode block (and the directory, unless a file of its name is in both) in between,
    though neither member holds it."""
    # Only the files that differ are looked up: a chain of n snapshots of n files each
    # is walked in n steps, and most files are the same in both members.
    old_files, new_files = old.files, new.files
    changed = {("dnode", str(metadata_blocks.dnode_block_of(f.object)))
               for n, f in new_files.items() if old_files.get(n) is not f}
    changed |= {("dnode", str(metadata_blocks.dnode_block_of(f.object)))
                for n, f in old_files.items() if n not in new_files}
    new_txg = new.txg if isinstance(new, Snapshot) else None
    held: set[int] | None = None
    # ``old`` is a snapshot in every walk (the head comes last)
    old_txg = old.txg if isinstance(old, Snapshot) else 0
    for file, txg in removed if isinstance(old, Snapshot) else ():
        if held is None:
            held = {id(f) for f in old_files.values()}
        if (file.birth >= old_txg and id(file) not in held
                and (new_txg is None or txg < new_txg)):
            changed.add(("dnode", str(metadata_blocks.dnode_block_of(file.object))))
            # Its name made and removed again; a file truncated and written anew (O_TRUNC,
            # labsim.zfs.write_path.write_file) keeps its name, and the directory.
            if not (file.name in old.files and file.name in new.files):
                changed |= {("dir", ""), ("zap", "")}
    # A child's mountpoint directory made or removed: its dnode, and the directory.
    changed |= {("dnode", metadata_blocks.mountpoint_dnode_block(
                    n in new.mountpoint_other_chunk))
                for n in new.mountpoint_dirs if n not in old.mountpoint_dirs}
    changed |= {("dnode", metadata_blocks.mountpoint_dnode_block(
                    n in old.mountpoint_other_chunk))
                for n in old.mountpoint_dirs if n not in new.mountpoint_dirs}
    if (old.files.keys() != new.files.keys()
            or set(old.mountpoint_dirs) != set(new.mountpoint_dirs)):
        # A name made or removed: the directory's dnode and its ZAP block.
        changed |= {("dir", ""), ("zap", "")}
    if old.root_dir_atime_writes != new.root_dir_atime_writes:
        # A new atime of the root directory (labsim.zfs.objset.root_dir_read): its dnode,
        # whose system attributes hold it; its ZAP is not written.
        changed.add(("dir", ""))
    if changed:
        changed.add(("root", ""))
    if changed or old.objset_block_rewrites != new.objset_block_rewrites:
        changed.add(("objset", ""))
    return changed


def _chain_tokens(dataset: Dataset, members: list[Objset]) -> list[set[Token]]:
    """Each member's metadata blocks, as versions that change along the chain. The
    dataset's destroyed snapshots are walked through too: a block the head rewrote after
    one of them is still a new version after that snapshot is gone (its predecessor's
    unique metadata stays unique, as the real deadlists keep it), even where the files
    before and after it look alike."""
    # All of them, also those older than the first live member, so that the versions of
    # the live members are those they had.
    live = {id(m) for m in members}
    earlier = [m for m in members[:-1] if isinstance(m, Snapshot)]
    assert len(earlier) == len(members) - 1  # a chain is snapshots, then the head
    walk: list[Objset] = [*sorted([*earlier, *dataset.destroyed_snapshots],
                                  key=lambda m: (m.txg, id(m) in live)), members[-1]]
    # The first dnode block is there from the start (the master node, object 1).
    first = walk[0].changed_metadata_copies
    versions: dict[tuple[str, str], tuple[int, int]] = {
        key: (0, first) for key in (("objset", ""), ("root", ""), ("dir", ""), ("dnode", "0"))}
    versions[("sa", "")] = (0, walk[0].sa_layouts_copies)
    # The pool's root file system has its SA layouts rewritten by the first file or
    # directory made in it (Dataset.sa_settled); a file system made by `zfs create` does
    # not. Measured, not read from the source: a snapshot of a new pool's root holds
    # 30600 bytes of its 33660 uniquely once the head has written a file (generated seed
    # 44, RAID-Z2 at ashift 9, 2.1.11 and 2.3.9 alike), all but the master node and the
    # SA registration, where a new child file system's snapshot keeps 64K at ashift 12,
    # its root group and two dnode blocks (tests/unit/test_snapshots.py, 2.1.11), and a
    # root in which a child's mountpoint directory was made first keeps as little (seeds
    # 6, 37 and 41). Over the generated recordings the rule puts 50 root snapshots' USED
    # right and two later snapshots wrong (seeds 5 and 5019, both releases).
    # The removed files by birth txg: a pair of members only looks at those born between
    # them (one removed in between was born after the older member and before the newer),
    # so walking n snapshots stays linear in n.
    # The root directory's micro ZAP, once it names too many files to be embedded in its
    # block pointer, is a block of its own, written anew whenever a name is made or
    # removed (zap_add()/zap_remove() dirty it, module/zfs/zap_micro.c); not by an atime.
    zap = (0, first)
    removed = sorted(dataset.removed_files, key=lambda pair: pair[0].birth)
    births = [file.birth for file, _ in removed]
    out: list[set[Token]] = []
    for i, member in enumerate(walk):
        # What the head rewrote before this member was taken was written with the copies
        # its metadata had then (a `zfs set copies=` takes effect at the next change).
        copies = member.changed_metadata_copies
        if i:
            older = walk[i - 1]
            low = bisect.bisect_left(births, older.txg) if isinstance(older, Snapshot) else 0
            high = bisect.bisect_left(births, member.txg) if isinstance(member, Snapshot) \
                else len(births)
            for group in _changed_groups(older, member, removed[low:high]):
                if group == ("zap", ""):
                    zap = (zap[0] + 1, copies)
                    continue
                versions[group] = (versions.get(group, (-1, 0))[0] + 1, copies)
            if member.sa_settled and not walk[i - 1].sa_settled:
                versions[("sa", "")] = (versions[("sa", "")][0] + 1, member.sa_layouts_copies)
        if not i:
            # Later members' new dnode blocks are among their changed groups above.
            for block in _dnode_blocks(member).values():
                versions.setdefault(("dnode", block), (0, copies))
        if id(member) not in live:
            continue
        tokens = {(g, w, v, c) for (g, w), (v, c) in versions.items()}
        directory = _directory_block(member)
        if directory:
            tokens.add(("zap", directory, *zap))
        out.append(tokens)
    return out


def _token_bytes(pool: Pool, tokens: Iterable[Token]) -> int:
    """What the metadata block versions ``tokens`` take at the pool's ashift
    (labsim.zfs.metadata_blocks.rewritten_group), every copy allocated."""
    return _token_cost(pool, tokens).allocated


def _token_cost(pool: Pool, tokens: Iterable[Token]) -> metadata_blocks.Cost:
    """The allocated and the physical bytes of the metadata block versions ``tokens``."""
    groups = Counter((group, which if group == "zap" else "", copies)
                     for group, which, _, copies in tokens)
    total = metadata_blocks.Cost()
    for (group, which, copies), n in groups.items():
        one = _group_cost(pool, group, copies, which)
        total += metadata_blocks.Cost(n * one.allocated, n * one.physical)
    return total


def _directory_block(member: Objset) -> str:
    """The member's root directory ZAP block as "lsize/compressed", or "" when it is
    embedded (metadata_blocks.directory_block(), as the objset's blocks count it)."""
    first, other = mountpoint_chunks(member)
    block = metadata_blocks.directory_block(tuple(member.files), first, other)
    return "" if block is None else f"{block.lsize}/{block.compressed}"


def group_blocks(group: str, copies: int, which: str = "") -> tuple[metadata_blocks.MetaBlock, ...]:
    """The blocks of one version of a metadata group, with its copies."""
    if group == "zap":
        lsize, compressed = (int(v) for v in which.split("/"))
        return (metadata_blocks.MetaBlock(lsize, compressed, copies),)
    return tuple(replace(b, copies=copies) for b in metadata_blocks.rewritten_group(group))


def _group_cost(pool: Pool, group: str, copies: int, which: str = "") -> metadata_blocks.Cost:
    return metadata_blocks.cost(group_blocks(group, copies, which), pool.vdevs[0],
                                pool.version.compression_min_savings)


def referenced(pool: Pool, objset: Objset) -> int:
    """REFER: the object set's metadata and every block of its files."""
    if isinstance(objset, Dataset):
        return dataset_referenced(pool, objset)
    head = pool.datasets.get(objset.dataset)  # its type decides the objset's size
    shape = Dataset(objset.dataset, files=objset.files,
                    properties=head.properties if head else {})
    shape.mountpoint_dirs = list(objset.mountpoint_dirs)
    shape.mountpoint_other_chunk = list(objset.mountpoint_other_chunk)
    if isinstance(objset, Snapshot):  # the copies its blocks had when it was taken
        shape.created_metadata_copies = objset.created_metadata_copies
        shape.changed_metadata_copies = objset.changed_metadata_copies
        shape.sa_layouts_copies = objset.sa_layouts_copies
    return dataset_referenced(pool, shape)


def _held_only_by(pool: Pool, dataset: Dataset, start: int, end: int,
                  walked: tuple[list[Objset], list[set[Token]]] | None = None,
                  member_parts: list[dict[int, Part]] | None = None) -> tuple[int, int]:
    """Bytes of data and of metadata that members ``start`` to ``end`` of the dataset's
    chain hold and neither the member before them nor the one after them holds: the
    blocks born after the one and killed before the other. ``walked``: the chain and its
    tokens, and ``member_parts`` each member's parts, when the caller has them already."""
    files, meta = _held_only(dataset, start, end, walked or _walk(dataset, pool),
                             member_parts)
    return _bytes(pool, files), _token_bytes(pool, meta)


def _held_only(dataset: Dataset, start: int, end: int,
               walked: tuple[list[Objset], list[set[Token]]],
               member_parts: list[dict[int, Part]] | None = None
               ) -> tuple[list[Part], set[Token]]:
    """The parts of files and the metadata block versions of _held_only_by().
    ``member_parts``: parts_of() each member's files, when the caller has them."""
    members, tokens = walked

    def parts(index: int) -> dict[int, Part]:
        if not 0 <= index < len(members):
            return {}
        if member_parts is not None:
            return member_parts[index]
        return parts_of(members[index].files.values())

    before, after = parts(start - 1), parts(end + 1)
    held = parts(start) if start == end else _files_of(members[start:end + 1])
    files = [f for i, f in held.items() if i not in before and i not in after]
    meta = set().union(*tokens[start:end + 1])
    meta -= (tokens[start - 1] if start else set())
    meta -= (tokens[end + 1] if end + 1 < len(members) else set())
    return files, meta


def _walk(dataset: Dataset, pool: Pool) -> tuple[list[Objset], list[set[Token]]]:
    members = chain(pool, dataset)
    return members, _chain_tokens(dataset, members)


def _index(members: list[Objset], objset: Objset) -> int:
    return next(i for i, m in enumerate(members) if m is objset)


def snapshot_used(pool: Pool, snap: Snapshot) -> int:
    """A snapshot's USED: its unique bytes, what destroying it alone would free."""
    dataset = owner(pool, snap)
    index = _index(chain(pool, dataset), snap)
    return sum(_held_only_by(pool, dataset, index, index))


def snapshots_used(pool: Pool, dataset: Dataset) -> dict[str, int]:
    """Every snapshot's USED (snapshot_used()) by name, walking the chain once: what
    `zfs list -t snapshot` needs, in time linear in the number of snapshots."""
    walked = _walk(dataset, pool)
    members = walked[0]
    # Each member's parts once: every member is the one before or after two others.
    member_parts = [parts_of(m.files.values()) for m in members]
    return {member.name: sum(_held_only_by(pool, dataset, index, index, walked, member_parts))
            for index, member in enumerate(members)
            if isinstance(member, Snapshot) and member.dataset == dataset.name}


def range_reclaim(pool: Pool, first: Snapshot, last: Snapshot) -> int:
    """lzc_snaprange_space(first, last): what destroying ``first`` to ``last`` (same
    dataset, in order) would free."""
    dataset = owner(pool, first)
    members = chain(pool, dataset)
    return sum(_held_only_by(pool, dataset, _index(members, first), _index(members, last)))


@dataclass(frozen=True)
class Space:
    """The used* properties of a dataset (dsl_dir_stats(): dd_used_breakdown)."""

    used: int
    snapshots: int
    dataset: int
    children: int
    refreservation: int = 0


def _clone_own(pool: Pool, dataset: Dataset) -> tuple[int, int]:
    """A clone's DD_USED_HEAD: data and metadata its head holds that its origin does not
    (born after dd_origin_txg)."""
    members = chain(pool, dataset)
    tokens = _chain_tokens(dataset, members)
    inherited = _ids(members[0])
    own = [p for i, p in parts_of(dataset.files.values()).items() if i not in inherited]
    return _bytes(pool, own), _token_bytes(pool, tokens[-1] - tokens[0])


def _snapshots_own(pool: Pool, dataset: Dataset) -> tuple[int, int]:
    if not dataset.snapshots:
        return 0, 0
    first = 1 if dataset.origin else 0
    return _held_only_by(pool, dataset, first, first + len(dataset.snapshots) - 1)


def usedbydataset(pool: Pool, dataset: Dataset) -> int:
    if origin_of(pool, dataset) is None:
        return referenced(pool, dataset)
    return sum(_clone_own(pool, dataset))


def usedbysnapshots(pool: Pool, dataset: Dataset) -> int:
    return sum(_snapshots_own(pool, dataset))


def space(pool: Pool, dataset: Dataset) -> Space:
    snaps = usedbysnapshots(pool, dataset)
    if dataset.name == pool.name:
        # The root's dsl_dir also holds $MOS, $FREE and $ORIGIN, children of its own: its
        # USED is what the pool has allocated (pool.dsl_used) and what snapshots keep.
        # What they keep that labsim.zfs.held_metadata has not allocated yet.
        held = sum(pool.top(e.vdev).deflate(e.length) for e in pool.held_metadata_extents())
        used = pool.dsl_used + max(0, kept_metadata_bytes(pool) - held)
        # Unfilled refreservations (thick volumes) count as used (labsim.zfs.zvols).
        used += sum(usedbyrefreservation(pool, d) for d in pool.datasets.values())
        # A root promoted away from (zfs promote of a clone of one of its snapshots) is a
        # clone itself: only what it wrote since that origin is its own.
        own = usedbydataset(pool, dataset)
        return Space(used, snaps, own, max(0, used - own - snaps))
    own = usedbydataset(pool, dataset)
    children = sum(space(pool, child).used for child in children_of(pool, dataset))
    reserved = usedbyrefreservation(pool, dataset)
    return Space(own + snaps + children + reserved, snaps, own, children, reserved)


def dir_metadata_physical(pool: Pool, dataset: Dataset) -> int:
    """The physical bytes of the metadata blocks the dataset's dsl_dir is charged for, as
    its logicalused counts them (dsl_dataset_block_born() adds BP_GET_UCSIZE(), a metadata
    block's physical size, to dd_uncompressed_bytes; dsl_dataset_block_kill() takes it off
    only when no snapshot holds the block, module/zfs/dsl_dataset.c, 2.1.11 and 2.3.9):
    the head's objset blocks, or for a clone those it rewrote since its origin (the rest
    are the origin's, charged to the origin's dir), and the old versions of blocks only
    its snapshots hold (the metadata part of usedbysnapshots, one copy's physical bytes)."""
    walked = _walk(dataset, pool)
    tokens = walked[1]
    if origin_of(pool, dataset) is None:
        total = objset_cost(pool, dataset).physical
    else:
        total = _token_cost(pool, tokens[-1] - tokens[0]).physical
    if dataset.snapshots:
        first = 1 if dataset.origin else 0
        meta = _held_only(dataset, first, first + len(dataset.snapshots) - 1, walked)[1]
        total += _token_cost(pool, meta).physical
    return total


def kept_metadata(pool: Pool, dataset: Dataset) -> dict[str, set[Token]]:
    """The metadata block versions the dataset's snapshots keep that its head does not
    ("snapshots"), and for a clone those its head wrote since its origin ("clone")."""
    kept: dict[str, set[Token]] = {}
    if dataset.snapshots:
        first = 1 if dataset.origin else 0
        kept["snapshots"] = _held_only(dataset, first, first + len(dataset.snapshots) - 1,
                                       _walk(dataset, pool))[1]
    if origin_of(pool, dataset) is not None:
        tokens = _chain_tokens(dataset, chain(pool, dataset))
        kept["clone"] = tokens[-1] - tokens[0]
    return kept


def kept_metadata_bytes(pool: Pool) -> int:
    """The metadata snapshots and clones keep (rewritten_group()), as USED counts it:
    labsim.zfs.held_metadata allocates it when the pool syncs."""
    return sum(_token_bytes(pool, tokens) for dataset in pool.datasets.values()
               for tokens in kept_metadata(pool, dataset).values())
