"""`zfs snapshot`, `clone`, `promote`, `destroy` and `rollback` (the space they move is
computed in labsim.zfs.snapshots).

Texts of cmd/zfs/zfs_main.c (zfs_do_destroy(), destroy_check_dependent(),
destroy_print_cb(), zfs_do_rollback(), rollback_check()) and lib/libzfs, as OpenZFS
2.1.11 prints them (recorded in tests/fixtures/real/2.1.11/06-snapshots*).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from labsim.format import zfs_list as fmt
from labsim.shell import messages as msg
from labsim.shell import udev
from labsim.shell.base import CommandResult, UsageError
from labsim.zfs import snapshot_space, zvols
from labsim.zfs import snapshots as snap
from labsim.zfs.datasets import destroy_dataset
from labsim.zfs.held_metadata import sync_held_metadata
from labsim.zfs.pool import Dataset, Pool, Snapshot
from labsim.zfs.txg import advance_txg

if TYPE_CHECKING:
    from labsim.shell.session import Session
from labsim.shell.commands.zfs_common import (
    find,
    find_any,
    zfs_getopt,
)
from labsim.shell.commands.zfs_create import create_ancestors


def _missing_delimiter(name: str) -> str:
    return f"cannot open '{name}': missing '@' delimiter in snapshot name"


def snapshot(session: Session, args: list[str]) -> CommandResult:
    opts, operands = zfs_getopt(args, "ro:", "snapshot", session.version)
    if not operands:
        raise UsageError("missing snapshot argument\n"
                         + msg.zfs_subcommand_usage("snapshot", session.version), 2)
    recursive = "-r" in {k for k, _ in opts}
    if any(k == "-o" for k, _ in opts):
        raise UsageError(msg.option_not_simulated("zfs snapshot", "-o", "properties of the "
                                                  "snapshot", session.version.release), 1)
    for operand in operands:
        name, at, short = operand.partition("@")
        pool = session.pools.get(name.split("/")[0])
        if not at or not short:
            raise UsageError(_missing_delimiter(operand), 1)
        if pool is None or name not in pool.datasets:
            raise UsageError(msg.dataset_does_not_exist(name) + "\n"
                             + msg.zfs_subcommand_usage("snapshot", session.version), 2)
        top = pool.datasets[name]
        targets = [top, *(snap.descendants_of(pool, top) if recursive else [])]
        for ds in targets:  # a refreservation must still be honoured afterwards
            refusal = zvols.snapshot_refusal(pool, ds, f"{ds.name}@{short}")
            if refusal:
                raise UsageError(refusal, 1)
        try:
            for ds in targets:  # zfs snapshot -r: one txg for all (dsl_dataset_snapshot())
                snap.take_snapshot(pool, ds, short, session.clock)
        except snap.SnapshotError as err:
            raise UsageError(err.message, 1) from None
        advance_txg(pool)
    return CommandResult()


def clone(session: Session, args: list[str]) -> CommandResult:
    opts, operands = zfs_getopt(args, "po:", "clone", session.version)
    if len(operands) < 2:
        text = "missing source dataset argument" if not operands else \
            "missing target dataset argument"
        raise UsageError(text + "\n" + msg.zfs_subcommand_usage("clone", session.version), 2)
    source, target = operands[0], operands[1]
    if "@" not in source:
        raise UsageError(_missing_delimiter(source), 1)
    pool, origin = find_any(session, source)
    assert isinstance(origin, Snapshot)
    if target in pool.datasets:
        raise UsageError(msg.zfs_dataset_exists(target), 1)
    if ("-p", "") in opts and target.split("/")[0] == pool.name:
        create_ancestors(pool, target)  # zfs_do_clone() -p: zfs_create_ancestors()
    if target.rsplit("/", 1)[0] not in pool.datasets:
        raise UsageError(msg.zfs_create_missing_parent(target), 1)
    if any(k == "-o" for k, _ in opts):
        raise UsageError(msg.option_not_simulated("zfs clone", "-o", "properties of the "
                                                  "clone", session.version.release), 1)
    snap.clone(pool, origin, target)
    return CommandResult()


def rename(session: Session, args: list[str]) -> CommandResult:
    """zfs rename [-r] FS@OLD FS@NEW (or @NEW, or NEW): zfs_do_rename() and zfs_rename()
    (cmd/zfs/zfs_main.c, lib/libzfs/libzfs_dataset.c at zfs-2.3.9). Renaming a file system
    or a volume (its mountpoint and its children move) is not simulated."""
    opts, operands = zfs_getopt(args, "pruf", "rename", session.version)
    flags = {k for k, _ in opts}
    usage = msg.zfs_subcommand_usage("rename", session.version)
    if not operands:
        raise UsageError("missing source dataset argument\n" + usage, 2)
    if len(operands) < 2:
        raise UsageError("missing target dataset argument\n" + usage, 2)
    if len(operands) > 2:
        raise UsageError("too many arguments\n" + usage, 2)
    if {"-r", "-p"} <= flags:
        raise UsageError("-p and -r options are mutually exclusive\n" + usage, 2)
    if {"-u", "-p"} <= flags:
        raise UsageError("-u and -p options are mutually exclusive\n" + usage, 2)
    source, target = operands
    if "-r" in flags and "@" not in source:
        raise UsageError("source dataset for recursive rename must be a snapshot\n" + usage,
                         2)
    if "@" not in source:
        find(session, source)  # "cannot open" for a dataset that is not there
        raise UsageError(msg.not_simulated("zfs rename", "renaming a file system or volume",
                                           session.version.release), 1)
    pool, found = find_any(session, source)
    if flags & {"-u", "-p"}:  # zfs_open() for file systems (-u) or those and volumes (-p)
        raise UsageError(f"cannot open '{source}': operation not applicable to datasets of "
                         "this type", 1)
    if source == target:
        return CommandResult()  # zfs_rename(): the same name is success
    head, _, old = source.partition("@")
    if "@" not in target or target.startswith("@"):
        target = f"{head}@{target.lstrip('@')}"  # the abbreviated forms
    elif target.split("@")[0] != head:
        raise UsageError(f"cannot rename to '{target}': snapshots must be part of same "
                         "dataset", 1)
    new = target.partition("@")[2]
    if not new or not _valid_component(new):
        raise UsageError(msg.not_simulated(
            "zfs rename", f"checking the snapshot name '{new}'", session.version.release), 1)
    if target == source:
        return CommandResult()
    try:
        snap.rename_snapshots(pool, pool.datasets[head], old, new, "-r" in flags)
    except snap.SnapshotError as err:
        raise UsageError(err.message, 1) from None
    return CommandResult()


def _valid_component(name: str) -> bool:
    """A name zfs_validate_name() takes without question: letters, digits and _-.: only
    (the other characters and the length rules have messages labsim does not give)."""
    return len(name) < 200 and all(c.isascii() and (c.isalnum() or c in "_-.:")
                                   for c in name)


def promote(session: Session, args: list[str]) -> CommandResult:
    _, operands = zfs_getopt(args, "", "promote", session.version)
    if not operands:
        raise UsageError("missing clone filesystem argument\n"
                         + msg.zfs_subcommand_usage("promote", session.version), 2)
    pool, ds = find(session, operands[0])
    try:
        snap.promote(pool, ds)
    except snap.SnapshotError as err:
        raise UsageError(err.message, 1) from None
    sync_held_metadata(pool)
    return CommandResult()


def _dependents(pool: Pool, target: Dataset | Snapshot) -> list[str]:
    """zfs_iter_dependents() with recursion (lib/libzfs/libzfs_iter.c
    iter_dependents_cb()): depth first, each dataset after what depends on it: a
    filesystem's children, then its snapshots, each after its clones. Real OpenZFS takes
    children and snapshots in the order of their ZAP (a hash); labsim by name and by txg.
    A clone of a snapshot of a descendant is met twice, and listed twice, as in zfs.
    A clone chain may be thousands deep: the walk keeps its own stack, and finds clones and
    children through one index of the pool's datasets."""
    clones: dict[str, list[Dataset]] = {}
    children: dict[str, list[Dataset]] = {}
    for name, dataset in sorted(pool.datasets.items()):
        if dataset.origin:
            clones.setdefault(dataset.origin, []).append(dataset)
        parent = name.rpartition("/")[0]
        if parent:
            children.setdefault(parent, []).append(dataset)

    def depending(node: Dataset | Snapshot) -> Iterator[Dataset | Snapshot]:
        if isinstance(node, Snapshot):
            return iter(clones.get(node.name, []))
        return iter([*children.get(node.name, []), *node.snapshots])

    out: list[str] = []
    stack = [(target, depending(target))]
    while stack:
        node, rest = stack[-1]
        following = next(rest, None)
        if following is not None:
            stack.append((following, depending(following)))
            continue
        stack.pop()
        if stack:  # each dependent after what depends on it; the target itself is not one
            out.append(node.name)
    return out


def _is_descendant(target: str, name: str) -> bool:
    return name.startswith((target + "/", target + "@"))


def _refusal(target: Dataset | Snapshot, kind: str, dependents: list[str],
             recursive: bool) -> str:
    """destroy_check_dependent(): "<target> has children" (use '-r') for descendants when
    not recursive, "<target> has dependent clones" (use '-R') for clones when recursive or
    when the target is a snapshot; one header, at the first dependent reported."""
    lines: list[str] = []
    for name in dependents:
        if _is_descendant(target.name, name):
            if recursive:
                continue
            head = (f"cannot destroy '{target.name}': {kind} has children",
                    "use '-r' to destroy the following datasets:")
        else:
            if not recursive and kind != "snapshot":
                continue
            head = (f"cannot destroy '{target.name}': {kind} has dependent clones",
                    "use '-R' to destroy the following datasets:")
        if not lines:
            lines.extend(head)
        lines.append(name)
    return "\n".join(lines)


def destroy(session: Session, args: list[str]) -> CommandResult:
    opts, operands = zfs_getopt(args, "vpndfrR", "destroy", session.version)
    flags = {k for k, _ in opts}
    if not operands:
        raise UsageError(msg.zfs_missing_dataset("destroy") + "\n"
                         + msg.zfs_subcommand_usage("destroy", session.version), 2)
    if len(operands) > 1:
        raise UsageError("too many arguments\n"
                         + msg.zfs_subcommand_usage("destroy", session.version), 2)
    if "-d" in flags:
        raise UsageError(msg.option_not_simulated("zfs destroy", "-d", "deferred destroy",
                                                  session.version.release), 1)
    if "@" in operands[0]:
        return _destroy_snapshots(session, operands[0], flags)
    if "#" in operands[0]:
        raise UsageError(msg.not_simulated("zfs destroy", "destroying a bookmark",
                                           session.version.release), 1)
    return _destroy_filesystem(session, operands[0], flags)


def _verbose_line(flags: set[str], name: str) -> str:
    if "-p" in flags:
        return f"destroy\t{name}\n"
    return f"{'would' if '-n' in flags else 'will'} destroy {name}\n"


def _destroy_snapshots(session: Session, spec: str, flags: set[str]) -> CommandResult:
    """zfs destroy FS@SNAPSPEC: the snapshots the spec names (with -r also those of the
    descendants), refused while one has clones (unless -R); -v lists them and what they
    would free, range by range (destroy_print_cb(), lzc_snaprange_space())."""
    name, _, snapspec = spec.partition("@")
    pool, top = find(session, name)
    verbose = bool(flags & {"-v", "-p"})
    recursive = bool(flags & {"-r", "-R"})
    errors: list[str] = []
    listing = ""
    chosen: list[Snapshot] = []
    reclaim = 0
    for ds in [top, *(snap.descendants_of(pool, top) if recursive else [])]:
        picked = snap.snapshot_spec(ds, snapspec) or []
        for s in picked:
            if "-R" not in flags:
                refusal = _refusal(s, "snapshot", _dependents(pool, s), recursive)
                if refusal:
                    errors.append(refusal)
        chosen += picked
        if verbose:
            # Runs of consecutive chosen snapshots, each priced as one range.
            run: list[Snapshot] = []
            for member in [*ds.snapshots, None]:
                if member is not None and member in picked:
                    listing += _verbose_line(flags, member.name)
                    run.append(member)
                elif run:
                    reclaim += snapshot_space.range_reclaim(pool, run[0], run[-1])
                    run = []
    if errors:
        # The refusals go to stderr while the snapshots are gathered, before the
        # "would destroy" lines (stdout, flushed at exit): a terminal shows them first.
        return CommandResult(stderr="\n".join(errors) + "\n" + listing, status=1)
    if not chosen:
        return CommandResult.fail("could not find any snapshots to destroy; "
                                  "check snapshot names.")
    out = listing
    if verbose:
        if "-p" in flags:
            out += f"reclaim\t{reclaim}\n"
        else:
            word = "would" if "-n" in flags else "will"
            out += f"{word} reclaim {fmt.format_dataset_prop('used', reclaim)}\n"
    if "-n" in flags:
        return CommandResult(stdout=out)
    stderr = ""
    if "-R" in flags:
        for s in chosen:
            for dependent in _dependents(pool, s):
                if verbose:
                    out += _verbose_line(flags, dependent)
                stderr += _destroy_one(pool, dependent)
    snap.destroy_snapshots(pool, [s for s in chosen if snap.find_snapshot(pool, s.name)])
    sync_held_metadata(pool)
    return CommandResult(stdout=out, stderr=stderr)


def _destroy_one(pool: Pool, name: str) -> str:
    """Destroy one dataset or snapshot of a -R/-r run; one destroyed already (a clone met
    twice) gives zfs_open()'s error and the run goes on."""
    if "@" in name:
        found = snap.find_snapshot(pool, name)
        if found is None:
            return msg.dataset_does_not_exist(name) + "\n"
        snap.destroy_snapshots(pool, [found])
        return ""
    ds = pool.datasets.get(name)
    if ds is None:
        return msg.dataset_does_not_exist(name) + "\n"
    if ds.snapshots:
        snap.destroy_snapshots(pool, list(ds.snapshots))
    destroy_dataset(pool, ds)
    return ""


def _destroy_filesystem(session: Session, name: str, flags: set[str]) -> CommandResult:
    pool, ds = find(session, name)
    recursive = bool(flags & {"-r", "-R"})
    if ds.name == pool.name and not recursive:
        raise UsageError(msg.zfs_destroy_root(ds.name), 1)
    dependents = _dependents(pool, ds)
    if "-R" not in flags:
        refusal = _refusal(ds, "filesystem", dependents, recursive)
        if refusal:
            return CommandResult.fail(refusal)
    verbose = bool(flags & {"-v", "-p"})
    order = [*dependents, ds.name] if ds.name != pool.name else dependents
    out = "".join(_verbose_line(flags, n) for n in order) if verbose else ""
    if "-n" in flags:
        return CommandResult(stdout=out)
    busy = [n for n in order if udev.probing(session, n)]
    if busy:  # a volume udev holds open after a write: EBUSY (labsim.shell.udev)
        return CommandResult(stdout=out, stderr=f"cannot destroy '{busy[0]}': dataset is busy\n",
                             status=1)
    stderr = "".join(_destroy_one(pool, n) for n in order)
    sync_held_metadata(pool)
    return CommandResult(stdout=out, stderr=stderr)


def rollback(session: Session, args: list[str]) -> CommandResult:
    """zfs rollback [-rR] FS@SNAP (zfs_do_rollback(), rollback_check()): newer snapshots
    must be destroyed (-r), and clones of them too (-R)."""
    opts, operands = zfs_getopt(args, "rRf", "rollback", session.version)
    flags = {k for k, _ in opts}
    if not operands:
        raise UsageError("missing dataset argument\n"
                         + msg.zfs_subcommand_usage("rollback", session.version), 2)
    if "@" not in operands[0]:
        raise UsageError(_missing_delimiter(operands[0]), 1)
    pool, target = find_any(session, operands[0])
    assert isinstance(target, Snapshot)
    ds = snap.owner(pool, target)
    newer = snap.newer_snapshots(ds, target)
    where = f"cannot rollback to '{target.name}'"
    if newer and not flags & {"-r", "-R"}:
        return CommandResult.fail(
            f"{where}: more recent snapshots or bookmarks exist\n"
            "use '-r' to force deletion of the following snapshots and bookmarks:\n"
            + "\n".join(s.name for s in newer))
    clones = [n for s in newer for c in snap.clones_of(pool, s)
              for n in [*_dependents(pool, c), c.name]]
    if clones and "-R" not in flags:
        return CommandResult.fail(
            f"{where}: clones of previous snapshots exist\n"
            "use '-R' to force deletion of the following clones and dependents:\n"
            + "\n".join(clones))
    stderr = "".join(_destroy_one(pool, n) for n in clones)
    if newer:
        snap.destroy_snapshots(pool, newer)
    snap.rollback(pool, ds, target)
    sync_held_metadata(pool)
    return CommandResult(stderr=stderr)
