"""`zpool list`, `status`, `iostat` and `get`: what the pools are, as the real tool prints
them (labsim.format.zpool_list, zpool_status, zpool_iostat, zprop).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

from labsim.format import zpool_iostat as iostat_fmt
from labsim.format import zpool_list as list_fmt
from labsim.format import zpool_status as status_fmt
from labsim.format import zprop
from labsim.shell import messages as msg
from labsim.shell.base import CommandResult, UsageError
from labsim.shell.commands import zpool_properties as pool_props
from labsim.zfs import (
    brt,
    ditto,
    health,
    raidz_expansion_state,
    scan,
    vdev_size,
)
from labsim.zfs import pool_property_table as pool_table
from labsim.zfs.history import features_of
from labsim.zfs.layouts import SINGLE
from labsim.zfs.pool import Pool
from labsim.zfs.vdevs import Leaf, TopVdev
from labsim.zfs.versions import (
    VdevListSize,
    ZfsVersion,
    pool_property_names,
)

if TYPE_CHECKING:
    from labsim.shell.session import Session
from labsim.shell.commands.zpool_common import (
    added_options,
    refuse_added_options,
    refuse_unsimulated_options,
    selected_pools,
    zpool_getopt,
)


def iostat(session: Session, args: list[str]) -> CommandResult:
    """zpool iostat [-v] [-p] [-H] [pool...]: one report, the statistics since each pool
    was imported (an interval and count are not modelled)."""
    opts, names = zpool_getopt(args, "c:gHLpPT:vyhlrwnq", "iostat", session.version)
    if ("-h", "") in opts:  # zpool_do_iostat(): case 'h': usage(B_FALSE)
        raise UsageError(msg.zpool_subcommand_usage("iostat", session.version), 2)
    refuse_unsimulated_options("iostat", opts, session.version)
    flags = {k for k, _ in opts}
    if names and names[-1].isdigit():
        raise UsageError(msg.not_simulated("zpool iostat", "a report repeated at an interval",
                                           session.version.release), 1)
    pools = selected_pools(session, names)
    if not pools:
        return CommandResult(stderr=msg.no_pools_available() + "\n", status=1)
    rows = [iostat_row(session, p) for p in sorted(pools, key=lambda p: p.name)]
    return CommandResult(stdout=iostat_fmt.format_zpool_iostat(
        rows, verbose="-v" in flags, parsable="-p" in flags, scripted="-H" in flags))


def iostat_row(session: Session, pool: Pool) -> iostat_fmt.IostatRow:
    seconds = max(1.0, session.clock - pool.imported_at)

    def row(v: TopVdev) -> iostat_fmt.IostatRow:
        children = ([] if v.kind == SINGLE else
                    [iostat_fmt.IostatRow(leaf.path, None, None, 0, v.write_ops / seconds,
                                          0, v.write_bytes / seconds)
                     for leaf in v.leaves])
        return iostat_fmt.IostatRow(v.name, v.alloc, v.free, 0, v.write_ops / seconds, 0,
                                    v.write_bytes / seconds, children=children)

    vdevs = [row(v) for v in pool.vdevs]
    logs = [row(v) for v in pool.logs]
    ops = sum(v.write_ops for v in [*pool.vdevs, *pool.logs]) / seconds
    bw = sum(v.write_bytes for v in [*pool.vdevs, *pool.logs]) / seconds
    return iostat_fmt.IostatRow(pool.name, pool.alloc, pool.free, 0, ops, 0, bw,
                                children=vdevs, logs=logs)


def list_pools(session: Session, args: list[str]) -> CommandResult:
    opts, names = zpool_getopt(args, "gHLpPvo:T:", "list", session.version)
    refuse_unsimulated_options("list", opts, session.version)
    flags = {k for k, _ in opts}
    columns = None
    for k, v in opts:
        if k == "-o":
            columns = v.split(",")
            for column in (c for c in columns if c.lower() not in list_fmt.COLUMNS):
                _unlisted_column(column, session.version)
    pools = selected_pools(session, names)
    if not pools:
        return CommandResult(stdout=msg.no_pools_available() + "\n")
    rows = [pool_row(p) for p in sorted(pools, key=lambda p: p.name)]
    text = list_fmt.format_zpool_list(rows, verbose="-v" in flags, parsable="-p" in flags,
                                      scripted="-H" in flags, columns=columns,
                                      widths_rule=session.version.column_widths)
    return CommandResult(stdout=text)


def _unlisted_column(column: str, version: ZfsVersion) -> NoReturn:
    """A -o column labsim's zpool list does not print: a property of the release (a
    feature@ or, from 2.2, a user property too) gets the notice; any other name the
    refusal of zprop_get_list() (lib/libzfs/libzfs_util.c), then the usage (exit 2)."""
    known: str | None
    try:
        known = zprop.pool_lookup(column, version).name
    except zprop.UnknownProperty:
        known = column if column.startswith(("feature@", "unsupported@")) \
            or pool_props.is_user_property(column, version) else None
    if known is not None:
        raise UsageError(msg.not_simulated("zpool list", f"the column {known}",
                                           version.release), 1)
    raise UsageError(msg.pool_bad_property_list(column) + "\n"
                     + msg.zpool_subcommand_usage("list", version), 2)


def _vdev_row(vdev: TopVdev, physical: bool, type_id: bool) -> list_fmt.VdevRow:
    """One top-level vdev of ``zpool list -v``, with its leaves under it for a group.

    Since OpenZFS PR #13106 (in 2.1.11, measured) a leaf's SIZE is its device size
    (vs_pspace), shown for leaves inside a group too; their other columns stay "-"
    because only top-level vdevs have space (print_list_stats()). Groups are named with
    their id ("mirror-0") since PR #13031; older releases printed "mirror".
    """
    name = vdev.name if type_id or vdev.kind == SINGLE else vdev.layout.type_name
    children = []
    if vdev.kind != SINGLE:
        # A leaf not opened since the import has no vs_pspace: "-" (and its guid).
        children = [list_fmt.VdevRow(name=leaf.name,
                                     pspace=leaf.label_aligned_size
                                     if physical and not leaf.not_present else None,
                                     expandsz=0 if leaf.not_present
                                     else vdev_size.esize(vdev, leaf),
                                     health=leaf.state)
                    for leaf in vdev.leaves]
    pspace = vdev.leaves[0].label_aligned_size if physical and vdev.kind == SINGLE else None
    return list_fmt.VdevRow(
        name=name, size=vdev.space, pspace=pspace, alloc=vdev.alloc, free=vdev.free,
        expandsz=vdev_size.esize(vdev),
        frag=vdev.fragmentation, cap=vdev.alloc * 100 / vdev.space if vdev.space else 0.0,
        health=health.vdev_state(vdev), children=tuple(children),
    )


def pool_row(pool: Pool) -> list_fmt.PoolRow:
    physical = pool.version.vdev_list_size is VdevListSize.PHYSICAL
    vdevs = [_vdev_row(v, physical, pool.version.list_vdev_type_id) for v in pool.vdevs]
    logs = [_vdev_row(v, physical, pool.version.list_vdev_type_id) for v in pool.logs]
    return list_fmt.PoolRow(
        name=pool.name, size=pool.space, alloc=pool.alloc, free=pool.free,
        expandsz=vdev_size.expandable_space(pool.vdevs),
        frag=pool.fragmentation, cap=pool.capacity, dedup=1.0,
        health=health.pool_state(pool), vdevs=tuple(vdevs), logs=tuple(logs),
        short_class_heading=not pool.version.class_heading_dash_under_health,
    )


def status(session: Session, args: list[str]) -> CommandResult:
    """zpool status [-x] [-v] [-P] [pool ...]. -P changes nothing here (file vdevs are
    always shown by their full path); -v would list damaged files, which labsim does not
    track by name, so it prints what plain status prints."""
    opts, names = zpool_getopt(args, "DigLpPstvxc:T:" + added_options("status", session.version),
                               "status", session.version)
    refuse_added_options("status", opts, session.version)
    refuse_unsimulated_options("status", opts, session.version)
    flags = {k for k, _ in opts}
    pools = selected_pools(session, names)
    if not pools:
        return CommandResult(stderr=msg.status_no_pools() + "\n")
    verbose = "-v" in flags
    if "-x" not in flags:
        text = "\n".join(status_fmt.format_zpool_status(status_row(p, verbose, session.now()))
                         for p in pools)
        return CommandResult(stdout=text)
    # status_callback() with -x: a healthy pool is one line when it was named, nothing
    # when every pool is listed; zpool_do_status() then says "all pools are healthy".
    chunks = []
    for pool in pools:
        if health.status_reason(pool) is not None:
            chunks.append(status_fmt.format_zpool_status(status_row(pool, verbose,
                                                                    session.now())))
        elif names:
            chunks.append(msg.pool_is_healthy(pool.name) + "\n")
    if not chunks:
        return CommandResult(stdout=msg.all_pools_healthy() + "\n")
    return CommandResult(stdout="\n".join(chunks) if not names else "".join(chunks))


def _leaf_status(leaf: Leaf) -> status_fmt.VdevStatus:
    # print_status_config(): "was <path>" for a leaf not present since the import,
    # else the vs_aux text of an unusable one
    note = f"was {leaf.path}" if leaf.not_present else leaf.aux
    return status_fmt.VdevStatus(name=leaf.name, state=leaf.state, read=leaf.read_errors,
                                 write=leaf.write_errors, cksum=leaf.cksum_errors, note=note)


def _scan_text(record: scan.ScanRecord | None) -> str | None:
    if record is None:
        return None
    if record.kind == "scrub":
        return status_fmt.scan_scrub_finished(record.processed, record.seconds,
                                              record.errors, record.end)
    return status_fmt.scan_resilver_finished(record.processed, record.seconds,
                                             record.errors, record.end)


def _top_status(pool: Pool, v: TopVdev) -> status_fmt.VdevStatus:
    if v.kind == SINGLE:
        return _leaf_status(v.leaves[0])
    return status_fmt.VdevStatus(
        name=v.name, state=health.vdev_state(v), cksum=pool.vdev_cksum_errors.get(v.id, 0),
        children=tuple(_leaf_status(leaf) for leaf in v.leaves))


def status_row(pool: Pool, verbose: bool = False, now: float = 0.0) -> status_fmt.PoolStatus:
    """What status_callback() prints for the pool; ``verbose`` (-v) lists the damaged
    files by path (zpool_obj_to_path(): the dataset's mountpoint and the file's name).
    ``now`` is the time of asking, from which a running expansion's rate is computed."""
    vdevs = [_top_status(pool, v) for v in pool.vdevs]
    reason = health.status_reason(pool)
    text, action, see = status_fmt.REASONS[reason] if reason else (None, None, None)
    scan_text = _scan_text(pool.scan)
    pending = pool.scrub_pending
    if pending is not None:
        # The scrub an expansion set up, its walk done and nothing issued yet
        # (labsim.zfs.raidz_expansion); blocks born in its setup txg would be skipped,
        # which labsim does not track (pss_skipped 0).
        scan_text = status_fmt.scan_scrub_in_progress(
            pending.start_time, examined=pending.to_examine, to_examine=pending.to_examine,
            issued=0, skipped=0, repaired=0)
    return status_fmt.PoolStatus(
        name=pool.name, state=health.pool_state(pool), vdevs=tuple(vdevs), status=text,
        action=action, see=see, scan=scan_text, cksum=pool.cksum_errors,
        errors=pool.data_errors, logs=tuple(_top_status(pool, v) for v in pool.logs),
        error_files=ditto.error_paths(pool) if verbose else None,
        expand=_expand_text(pool, now),
    )


def _expand_text(pool: Pool, now: float) -> str | None:
    """print_raidz_expand_status() from spa_raidz_expand_get_stats(): the running
    expansion, else the latest finished one; pres_to_reflow is the vdev's vs_alloc now."""
    expansion = pool.expansion
    if expansion is None:
        return None
    vdev = next(v for v in pool.vdevs if v.id == expansion.vdev)
    if expansion.state is raidz_expansion_state.ExpandState.FINISHED:
        return status_fmt.expand_finished(vdev.name, expansion.bytes_copied,
                                          expansion.start_time, expansion.end_time)
    return status_fmt.expand_in_progress(vdev.name, expansion.start_time,
                                         expansion.bytes_copied, vdev.alloc, now)


POOL_PROPERTIES = ("size", "capacity", "altroot", "health", "allocated", "free",
                   "fragmentation", "ashift", "dedupratio", "freeing", "leaked", "readonly",
                   "expandsize")


# Block cloning's pool properties (2.2 and later; labsim.zfs.bclone).
BCLONE_PROPERTIES = ("bcloneused", "bclonesaved", "bcloneratio")


def _known_properties(version: ZfsVersion) -> tuple[str, ...]:
    """The pool properties labsim models or stores that ``version`` has, in the order of
    zpool_prop_t (include/sys/fs/zfs.h), which `zpool get all` follows
    (zprop_expand_list() iterates the table unordered)."""
    names = POOL_PROPERTIES + tuple(p for p in BCLONE_PROPERTIES
                                    if p in version.pool_properties_added) \
        + pool_props.stored_names(version)
    return tuple(sorted(names, key=lambda name: zprop.POOL_PROPS[name].enum))


def _wanted_properties(spec: str, version: ZfsVersion) -> tuple[str, ...]:
    """zprop_get_list(): the properties named (or "all"), each a property of the release
    (zprop.pool_lookup(); a feature@ name is always accepted, zpool_prop_feature())."""
    if spec == "all":
        return _known_properties(version)
    wanted = []
    for name in spec.split(","):
        if name.startswith(("feature@", "unsupported@")) \
                or pool_props.is_user_property(name, version):
            wanted.append(name)
            continue
        try:
            prop = zprop.pool_lookup(name, version)
        except zprop.UnknownProperty:
            if name in pool_property_names(version) | pool_table.HIDDEN:
                raise UsageError(msg.property_not_simulated("zpool get", name,
                                                            version.release), 1) from None
            raise UsageError(msg.pool_bad_property_list(name) + "\n"
                             + msg.zpool_subcommand_usage("get", version), 2) from None
        if prop.name not in _known_properties(version):
            raise UsageError(msg.property_not_simulated("zpool get", prop.name,
                                                        version.release), 1)
        wanted.append(prop.name)
    return tuple(wanted)


def get(session: Session, args: list[str]) -> CommandResult:
    opts, operands = zpool_getopt(args, "pHo:", "get", session.version)
    flags = {k for k, _ in opts}
    columns = next((v for k, v in reversed(opts) if k == "-o"), None)
    if not operands:
        raise UsageError(msg.missing_property_argument() + "\n"
                         + msg.zpool_subcommand_usage("get", session.version), 2)
    wanted = _wanted_properties(operands[0], session.version)
    rows: list[tuple[str, str, object, str]] = []
    for pool in selected_pools(session, operands[1:]):
        # zpool_expand_proplist() adds the pool's user properties to "all" (2.2 and later)
        users = tuple(sorted(p for p in pool.properties if ":" in p))
        for prop in wanted + users if operands[0] == "all" else wanted:
            if prop.startswith("unsupported@"):
                # zpool_prop_get_feature(): a feature this release does not support,
                # listed only if the pool has it; a pool labsim made has none.
                continue
            if prop.startswith("feature@"):
                state = feature_state(pool, prop.removeprefix("feature@"))
                if state is not None:  # else zpool_prop_get_feature() fails: not printed
                    rows.append((pool.name, prop, state, "local"))
                continue
            value, source = pool_property(pool, prop)
            rows.append((pool.name, prop, value, source))
    try:
        text = list_fmt.format_zpool_get(rows, parsable="-p" in flags, scripted="-H" in flags,
                                         columns=columns,
                                         widths_rule=session.version.column_widths)
    except zprop.InvalidColumn as err:
        raise UsageError(err.message + "\n"
                         + msg.zpool_subcommand_usage("get", session.version), 2) from None
    # zpool get all lists every property and feature; labsim's list is shorter, and says so.
    note = msg.notice(f"zpool get all: the other properties and the features of OpenZFS "
                      f"{session.version.release}", plural=True, where=msg.REAL_OPENZFS) \
        if operands[0] == "all" else ""
    return CommandResult(stdout=text, stderr=note + "\n" if note else "")


MODELLED_FEATURES = pool_props.MODELLED_FEATURES


def feature_state(pool: Pool, feature: str) -> str | None:
    """zpool_prop_get_feature(): "enabled" or "active" (a refcount above 0) for a feature
    of the release (zpool create enables them all); None for a name the release does not
    know (zfeature_lookup_name() fails, get_callback() prints nothing)."""
    if feature not in features_of(pool.version.name):
        return None
    field = MODELLED_FEATURES.get(feature)
    if field is None:
        raise UsageError(msg.property_not_simulated("zpool get", f"feature@{feature}",
                                                    pool.version.release), 1)
    if not getattr(pool.version, field):
        return None
    if feature == "block_cloning":
        # brt_vdev_create() increments it for each vdev with BRT entries on disk,
        # brt_vdev_destroy() decrements it when the last one goes.
        return "active" if pool.brt.entries else "enabled"
    # vdev_raidz_attach_sync() increments it for each expansion; nothing decrements it.
    return "active" if pool.expansion is not None else "enabled"


def pool_property(pool: Pool, prop: str) -> tuple[object, str]:
    if prop in pool_props.stored_names(pool.version) or ":" in prop:
        return pool_props.stored_value(pool, prop)
    values = {
        "size": pool.space, "allocated": pool.alloc, "free": pool.free,
        "expandsize": vdev_size.expandable_space(pool.vdevs),
        "capacity": pool.capacity, "fragmentation": pool.fragmentation,
        "health": health.pool_state(pool), "altroot": None, "dedupratio": 1.0,
        "freeing": 0, "leaked": 0, "readonly": "off",
        # brt_get_used(), brt_get_saved(), brt_get_ratio() (labsim.zfs.bclone)
        "bcloneused": pool.brt.used, "bclonesaved": pool.brt.saved,
        "bcloneratio": brt.ratio(pool.brt) / 100,
    }
    if prop == "ashift":
        # The pool property, not the vdevs' ashift: what -o ashift set at creation, else
        # 0 from the default (zpool_prop.c registers ashift PROP_DEFAULT, default 0).
        if "ashift" in pool.properties:
            return int(pool.properties["ashift"]), "local"
        return 0, "default"
    return values[prop], "-" if prop != "altroot" else "default"
