"""The device commands: `zpool scrub`, `clear`, `offline`, `online`, `attach` (RAID-Z
expansion from 2.3 included), `detach`, `replace` and `wait`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.shell import messages as msg
from labsim.shell import vdev_labels
from labsim.shell.base import CommandResult, UsageError
from labsim.zfs import (
    health,
    import_config,
    lifecycle,
    raidz_expansion,
    scan,
    scan_sync,
    vdev_size,
)
from labsim.zfs.held_metadata import sync_held_metadata
from labsim.zfs.labels import leaf_asize
from labsim.zfs.layouts import MIRROR, RAIDZ, SINGLE, Layout
from labsim.zfs.mos import vdev_zaps_added
from labsim.zfs.pool import Pool
from labsim.zfs.txg import advance_txg
from labsim.zfs.vdevs import Leaf, TopVdev

if TYPE_CHECKING:
    from labsim.shell.session import Session
    from labsim.zfs.versions import ZfsVersion
from labsim.shell.commands import zpool_properties as pool_props
from labsim.shell.commands.zpool_common import (
    added_options,
    pool_named,
    refuse_added_options,
    zpool_getopt,
)
from labsim.shell.commands.zpool_create import (
    leaf_of,
)


def _device(pool: Pool, word: str) -> tuple[TopVdev, int] | None:
    """zpool_find_vdev(): a leaf named by its path (relative names are looked up under
    /dev, where labsim has no devices)."""
    return scan.find_leaf(pool, word)


def _new_device(session: Session, word: str, props: list[str]) -> tuple[str, int]:
    """The device attach or replace brings in: make_root_vdev() resolves it and checks
    that no active pool uses it (replication is not checked: check_rep is false)."""
    path, size = leaf_of(session, word, props)
    for other in session.pools.values():
        if scan.find_leaf(other, path) is not None:
            raise UsageError(msg.device_in_active_pool(path, other.name), 1)
    return path, size


def _autoexpand(pool: Pool) -> bool:
    """The pool's autoexpand property (spa_autoexpand)."""
    return pool_props.stored_value(pool, "autoexpand")[0] == "on"


def _finish_resilver(session: Session, pool: Pool, nbytes: int) -> None:
    record = scan.resilver(pool, nbytes, session.now())
    session.clock += record.seconds


def scrub(session: Session, args: list[str]) -> CommandResult:
    """zpool scrub [-s | -p] [-w] pool ...: labsim's scrubs finish at once, so -w changes
    nothing and there is never one to stop or pause."""
    opts, names = zpool_getopt(args, "spw" + added_options("scrub", session.version), "scrub",
                                 session.version)
    refuse_added_options("scrub", opts, session.version)
    flags = {k for k, _ in opts}
    if not names:
        raise UsageError(msg.missing_pool_name() + "\n"
                         + msg.zpool_subcommand_usage("scrub", session.version),
                         2)
    errors = []
    for name in names:
        pool = pool_named(session, name)
        if ("-s" in flags or "-p" in flags) and pool.scrub_pending is None:
            # zpool_scan(): ENOENT is EZFS_NO_SCRUB, "there is no active scrub".
            verb = "cancel" if "-s" in flags else "pause"
            errors.append(f"cannot {verb} scrubbing {name}: there is no active scrub\n")
            continue
        if pool.scrub_pending is not None:
            if "-s" in flags or "-p" in flags:
                raise UsageError(msg.not_simulated(
                    "zpool scrub", "stopping or pausing the scrub a RAID-Z expansion started "
                    "(zpool wait -t scrub finishes it)", session.version.release), 1)
            # zpool_scan(): EBUSY on a scrub in progress (2.2 and later wording).
            errors.append(f"cannot scrub {name}: currently scrubbing; use 'zpool scrub -s' "
                          "to cancel scrub\n")
            continue
        # dsl_scan()'s setup is a sync task: the txg it waits for syncs first.
        sync_held_metadata(pool)
        record = scan_sync.scrub(pool, session.now())
        session.clock += record.seconds
    return CommandResult(stderr="".join(errors), status=1 if errors else 0)


def clear(session: Session, args: list[str]) -> CommandResult:
    _, operands = zpool_getopt(args, "FnX", "clear", session.version)
    if not operands:
        raise UsageError(msg.missing_pool_name_short() + "\n"
                         + msg.zpool_subcommand_usage("clear", session.version), 2)
    if len(operands) > 2:
        raise UsageError(msg.too_many_arguments() + "\n"
                         + msg.zpool_subcommand_usage("clear", session.version), 2)
    pool = pool_named(session, operands[0])
    if len(operands) == 2:
        found = _device(pool, operands[1])
        if found is None:
            raise UsageError(f"cannot clear errors for {operands[1]}: no such device in pool",
                             1)
        vdev, index = found
        scan.clear_errors(pool, [vdev.leaves[index]])
    else:
        scan.clear_errors(pool)
    return CommandResult()


def _pool_and_devices(session: Session, args: list[str], optstring: str,
                      subcommand: str) -> tuple[Pool, list[str], set[str]]:
    """The pool, the devices named and the flags given."""
    opts, operands = zpool_getopt(args, optstring, subcommand, session.version)
    if not operands:
        raise UsageError(msg.missing_pool_name_short() + "\n"
                         + msg.zpool_subcommand_usage(subcommand, session.version), 2)
    if len(operands) < 2:
        raise UsageError(msg.missing_device_name() + "\n"
                         + msg.zpool_subcommand_usage(subcommand, session.version), 2)
    return pool_named(session, operands[0]), operands[1:], {k for k, _ in opts}


def offline(session: Session, args: list[str]) -> CommandResult:
    """zpool offline: refused with "no valid replicas" when the vdev would stop working
    (vdev_offline_locked(), module/zfs/vdev.c)."""
    opts, _ = zpool_getopt(args, "ft", "offline", session.version)
    for flag, what in (("-f", "faulting the device"), ("-t", "a temporary offline")):
        if (flag, "") in opts:
            raise UsageError(msg.option_not_simulated("zpool offline", flag, what,
                                                      session.version.release), 1)
    pool, devices, _ = _pool_and_devices(session, args, "ft", "offline")
    errors = []
    for word in devices:
        found = _device(pool, word)
        if found is None:
            errors.append(msg.no_such_device("offline", word) + "\n")
            continue
        vdev, index = found
        if not health.can_take_offline(vdev, index):
            errors.append(msg.no_valid_replicas("offline", word) + "\n")
            continue
        leaf = vdev.leaves[index]
        if leaf.state != health.OFFLINE:
            leaf.state = health.OFFLINE
            leaf.offline_alloc = pool.alloc
            vdev_labels.write_labels(session, pool)
    return CommandResult(stderr="".join(errors), status=1 if errors else 0)


def online(session: Session, args: list[str]) -> CommandResult:
    """zpool online [-e]: the leaf comes back and is resilvered with what was written while
    it was away (its DTL; labsim estimates that from the growth of the pool's allocation).
    Its whole top-level vdev is opened again, so grown files show as EXPANDSZ, and with -e
    or autoexpand the vdev takes the room (labsim.zfs.vdev_size)."""
    pool, devices, flags = _pool_and_devices(session, args, "et", "online")
    errors, out = [], []
    for word in devices:
        found = _device(pool, word)
        if found is None:
            errors.append(msg.no_such_device("online", word) + "\n")
            continue
        vdev, index = found
        leaf = vdev.leaves[index]
        _refuse_unsimulated_reopen(session, vdev, leaf)
        if leaf.state == health.UNAVAIL:
            # vdev_online() reopens it (vdev_reopen()): back if its file is at its path
            # with its label (vdev_validate() clears vdev_not_present), else it stays
            # unavailable and zpool_do_online() warns. Like a device found again at
            # import, it has no DTL to resilver: what was written meanwhile is stale on
            # it (labsim.zfs.import_config.mark_stale). Unverified on a recording.
            _, label = vdev_labels.read_device(session, leaf.path)
            if label is None or label.guid != leaf.guid:
                out.append(f"warning: device '{word}' onlined, but remains in faulted state\n"
                           "use 'zpool replace' to replace devices that are no longer "
                           "present\n")
                continue
            import_config.mark_stale(pool, vdev, leaf)
            leaf.state, leaf.aux, leaf.not_present = health.ONLINE, None, False
            vdev_labels.write_labels(session, pool)
        if leaf.state == health.OFFLINE:
            leaf.state = health.ONLINE
            missed = max(0, pool.alloc - leaf.offline_alloc)
            if vdev.kind == RAIDZ:
                missed //= vdev.layout.width
            _finish_resilver(session, pool, missed)
            vdev_labels.write_labels(session, pool)
        # vdev_online() reopens the whole top-level vdev, so every leaf's file is looked
        # at again; with -e (or autoexpand) the leaf and its top-level vdev may grow, and
        # the config update adds the metaslabs (labsim.zfs.vdev_size).
        grow = "-e" in flags or _autoexpand(pool)
        vdev_size.reopen(vdev, lambda path: vdev_labels.file_size(session, path),
                         expanding=leaf if grow else None, autoexpand=_autoexpand(pool))
        if grow:
            vdev_size.expand(vdev)
    return CommandResult(stdout="".join(out), stderr="".join(errors),
                         status=1 if errors else 0)


def _refuse_unsimulated_reopen(session: Session, vdev: TopVdev, onlined: Leaf) -> None:
    """The reopens labsim does not model: a file of the vdev's gone (vdev_reopen() would
    fail it and degrade the vdev from then on) or made smaller than the vdev uses
    (labsim.zfs.vdev_size.too_small()). The leaf being onlined counts only if its file
    is there: else it stays unavailable, as modelled."""
    def size(leaf: Leaf) -> int | None:
        return vdev_labels.file_size(session, leaf.path)

    opened = [leaf for leaf in vdev.leaves
              if leaf.state == health.ONLINE and not leaf.not_present
              or leaf is onlined and size(leaf) is not None]
    if any(size(leaf) is None for leaf in opened):
        raise UsageError(msg.not_simulated(
            "zpool online", "reopening a vdev one of whose files is gone",
            session.version.release), 1)
    if vdev_size.too_small(vdev, lambda leaf: size(leaf) if leaf in opened else None):
        raise UsageError(msg.not_simulated(
            "zpool online", "reopening a device whose file was made smaller than its "
            "vdev uses", session.version.release), 1)


def _attach_operands(args: list[str], subcommand: str, version: ZfsVersion,
                     flags: set[str] | None = None) -> tuple[list[str], list[str]]:
    """-o values and operands; ``flags``, when given, receives the flags (-f -s -w)."""
    opts, operands = zpool_getopt(args, "fso:w", subcommand, version)
    if ("-s", "") in opts:
        raise UsageError(msg.option_not_simulated(f"zpool {subcommand}", "-s",
                                                  "a sequential reconstruction",
                                                  version.release), 1)
    if flags is not None:
        flags.update(k for k, _ in opts if k != "-o")
    usage = msg.zpool_subcommand_usage(subcommand, version)
    if not operands:
        raise UsageError(msg.missing_pool_name() + "\n" + usage, 2)
    if len(operands) < 2:
        raise UsageError(msg.missing_device_spec() + "\n" + usage, 2)
    if len(operands) < 3 and subcommand == "attach":
        raise UsageError(msg.missing_new_device_spec() + "\n" + usage, 2)
    if len(operands) > 3:
        raise UsageError(msg.too_many_arguments() + "\n" + usage, 2)
    return [v for k, v in opts if k == "-o"], operands


def attach(session: Session, args: list[str]) -> CommandResult:
    """zpool attach pool existing new: a single device becomes a mirror, a mirror gets
    one more child; the new child is resilvered with every block of the vdev. A RAID-Z
    group named as such (raidz1-0) is widened by RAID-Z expansion from 2.3
    (labsim.zfs.raidz_expansion); 2.1 and 2.2 refuse it, as they refuse a RAID-Z child
    (spa_vdev_attach(): ENOTSUP). -w waits for the resilver or the expansion."""
    flags: set[str] = set()
    props, operands = _attach_operands(args, "attach", session.version, flags)
    pool = pool_named(session, operands[0])
    existing, new = operands[1], operands[2]
    found = _device(pool, existing)
    # zpool_find_vdev() also finds a group by its type-id name ("raidz1-0", "mirror-0").
    group = None if found is not None else next(
        (v for v in pool.vdevs if v.kind != SINGLE and v.name == existing), None)
    if found is None and group is None:
        raise UsageError(msg.attach_no_such_device(existing, new), 1)
    path, size = _new_device(session, new, props)
    if group is not None:
        return _attach_to_group(session, pool, group, existing, new, path, size,
                                wait="-w" in flags)
    assert found is not None  # refused above when neither a device nor a group
    vdev, _ = found
    if vdev.kind == RAIDZ:
        raise UsageError(msg.attach_not_mirror(existing, new), 1)
    if leaf_asize(size) < vdev_size.min_device_asize(vdev):
        raise UsageError(msg.attach_too_small(existing, new), 1)
    vdev.leaves.append(Leaf(path, size))
    vdev.layout = Layout(MIRROR, len(vdev.leaves))
    vdev_zaps_added(pool)  # the new leaf's ZAP
    _finish_resilver(session, pool, scan.resilver_bytes(pool, vdev, len(vdev.leaves) - 1))
    vdev_labels.write_labels(session, pool)
    return CommandResult()


def _attach_to_group(session: Session, pool: Pool, vdev: TopVdev, existing: str, new: str,
                     path: str, size: int, wait: bool) -> CommandResult:
    """spa_vdev_attach() with a group as the old vdev: only RAID-Z, and only where the
    release has RAID-Z expansion; the checks in the kernel's order."""
    if vdev.kind != RAIDZ or not session.version.raidz_expansion:
        # Not a leaf and not (expandable) RAID-Z: ENOTSUP; libzfs 2.1 and 2.2 have only
        # this text for it, 2.3 too for a mirror group.
        raise UsageError(msg.attach_not_mirror(existing, new), 1)
    if raidz_expansion.expanding(pool):
        # ZFS_ERR_RAIDZ_EXPAND_IN_PROGRESS: EZFS_RAIDZ_EXPAND_IN_PROGRESS's text
        raise UsageError(msg.attach_failed(existing, new, "raidz expansion in progress"), 1)
    # The new device against child 0's minimum size (vdev_get_min_asize()).
    if leaf_asize(size) < vdev_size.min_device_asize(vdev):
        raise UsageError(msg.attach_too_small(existing, new), 1)
    if any(leaf.state != health.ONLINE for leaf in vdev.leaves):
        # ENXIO for a RAID-Z vdev (the typo is libzfs's own).
        raise UsageError(msg.attach_failed(
            existing, new, "raidz vdev has devices that are are offline or being replaced"), 1)
    lifecycle.attach_raidz_child(pool, vdev, path, size, session.now())
    vdev_labels.write_labels(session, pool)
    if wait:  # zpool_wait(ZPOOL_WAIT_RAIDZ_EXPAND): old_disk starts with "raidz"
        _wait_expansion(session, pool)
    return CommandResult()


def _wait_expansion(session: Session, pool: Pool) -> None:
    lifecycle.wait_for_expansion(pool)
    if pool.expansion is not None:
        session.clock = max(session.clock, pool.expansion.end_time)


def _wait_scrub(session: Session, pool: Pool) -> None:
    """A scrub labsim has not run yet (the one an expansion started) ends with the txg
    raidz_expansion.SCRUB_TXGS after its setup; the others finished at once."""
    while pool.scrub_pending is not None:
        advance_txg(pool)
    if pool.scan is not None:
        session.clock = max(session.clock, pool.scan.end)


# zpool_wait_activity_t in include/sys/fs/zfs.h, as zpool_do_wait() names them;
# raidz_expand came with RAID-Z expansion (2.3).
WAIT_ACTIVITIES = ("discard", "free", "initialize", "replace", "remove", "resilver", "scrub",
                   "trim", "raidz_expand")


def wait(session: Session, args: list[str]) -> CommandResult:
    """zpool wait [-Hp] [-T d|u] [-t activity[,...]] pool [interval]: returns once none of
    the activities runs. In labsim only an expansion and the scrub after it take time;
    everything else is done before its command returns."""
    opts, operands = zpool_getopt(args, "HpT:t:", "wait", session.version)
    if any(k == "-T" for k, _ in opts):
        raise UsageError(msg.option_not_simulated("zpool wait", "-T", "a timestamp",
                                                  session.version.release), 1)
    usage = msg.zpool_subcommand_usage("wait", session.version)
    known = [a for a in WAIT_ACTIVITIES
             if a != "raidz_expand" or session.version.raidz_expansion]
    activities = set(known)
    for key, value in opts:
        if key == "-t":
            activities = set()
            for word in value.split(","):
                if word not in known:
                    raise UsageError(f"invalid activity '{word}'\n{usage}", 2)
                activities.add(word)
    if operands and operands[-1].isdigit() and len(operands) > 1:
        raise UsageError(msg.not_simulated("zpool wait", "a report repeated at an interval",
                                           session.version.release), 1)
    if not operands:
        raise UsageError(f"missing 'pool' argument\n{usage}", 2)
    if len(operands) > 1:
        raise UsageError(f"too many arguments\n{usage}", 2)
    pool = session.pools.get(operands[0])
    if pool is None:
        raise UsageError(msg.no_such_pool(operands[0]), 1)
    # zpool_do_wait() loops until no chosen activity runs: an expansion's scrub counts
    # when scrubs are waited for too.
    if "raidz_expand" in activities:
        _wait_expansion(session, pool)
    if "scrub" in activities:
        _wait_scrub(session, pool)
    return CommandResult()


def replace(session: Session, args: list[str]) -> CommandResult:
    """zpool replace pool old [new]: the new leaf takes the old one's place and is
    resilvered: every block for a mirror or single device, the leaf's columns of every
    block for RAID-Z."""
    props, operands = _attach_operands(args, "replace", session.version)
    pool = pool_named(session, operands[0])
    old = operands[1]
    new = operands[2] if len(operands) > 2 else old
    found = _device(pool, old)
    if found is None:
        raise UsageError(msg.attach_no_such_device(old, new, replacing=True), 1)
    vdev, index = found
    if new == old:
        path, size = vdev.leaves[index].path, vdev.leaves[index].psize
    else:
        path, size = _new_device(session, new, props)
    if leaf_asize(size) < vdev_size.min_device_asize(vdev):
        raise UsageError(msg.attach_too_small(old, new, replacing=True), 1)
    if path != vdev.leaves[index].path:
        vdev_labels.erase_labels(session, vdev.leaves[index].path)
    vdev.leaves[index] = Leaf(path, size)
    _finish_resilver(session, pool, scan.resilver_bytes(pool, vdev, index))
    _autoexpand_after_detach(session, pool, vdev)
    vdev_labels.write_labels(session, pool)
    return CommandResult()


def detach(session: Session, args: list[str]) -> CommandResult:
    """zpool detach pool device: only a mirror child (spa_vdev_detach(): ENOTSUP for
    anything else; EBUSY when it holds the last good copy). A mirror left with one child
    becomes that single device again."""
    _, operands = zpool_getopt(args, "", "detach", session.version)
    usage = msg.zpool_subcommand_usage("detach", session.version)
    if not operands:
        raise UsageError(msg.missing_pool_name() + "\n" + usage, 2)
    if len(operands) < 2:
        raise UsageError(msg.missing_device_spec() + "\n" + usage, 2)
    pool = pool_named(session, operands[0])
    word = operands[1]
    found = _device(pool, word)
    if found is None:
        raise UsageError(msg.no_such_device("detach", word), 1)
    vdev, index = found
    if vdev.kind != MIRROR:
        raise UsageError(msg.detach_not_mirror(word), 1)
    if not any(leaf.state == health.ONLINE
               for i, leaf in enumerate(vdev.leaves) if i != index):
        raise UsageError(msg.no_valid_replicas("detach", word), 1)
    vdev_labels.erase_labels(session, vdev.leaves[index].path)
    del vdev.leaves[index]
    vdev.layout = Layout(MIRROR, len(vdev.leaves)) if len(vdev.leaves) > 1 else Layout()
    _autoexpand_after_detach(session, pool, vdev)
    vdev_labels.write_labels(session, pool)
    return CommandResult()


def _autoexpand_after_detach(session: Session, pool: Pool, vdev: TopVdev) -> None:
    """spa_vdev_detach() (also where a replace ends, spa_vdev_resilver_done()): with
    autoexpand on it reopens the top-level vdev and expands it, so a pool whose smaller
    device went grows at once (labsim.zfs.vdev_size). Without autoexpand nothing is
    reopened: the room shows as EXPANDSZ only after the next open (zpool online, an
    import). From module/zfs/spa.c at zfs-2.3.9; not recorded."""
    if _autoexpand(pool):
        vdev_size.reopen(vdev, lambda path: vdev_labels.file_size(session, path),
                         autoexpand=True)
        vdev_size.expand(vdev)
