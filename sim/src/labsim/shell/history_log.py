"""What a zfs or zpool command that succeeded appends to its pool's history
(labsim.zfs.history), read from its command line: the events the kernel logs while it
runs, the record of a logging new-style ioctl, and the command line itself, which
zpool_log_history() sends after a command that made a logging ioctl (cmd/zfs/zfs_main.c
and cmd/zpool/zpool_main.c, 2.1.11 and 2.3.9). Commands that only read (list, get,
status, iostat, sync, wait) log nothing: their ioctls are registered without allow_log
(module/zfs/zfs_ioctl.c). Then the history's block may have grown in the MOS
(labsim.zfs.mos.history_grew)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from labsim.shell.units import parse_zfs_number
from labsim.zfs import history as hist
from labsim.zfs.mos import history_grew, mos_rewritten, objset_id
from labsim.zfs.pool import TXG_INITIAL, Pool
from labsim.zfs.snapshots import descendants_of

if TYPE_CHECKING:
    from labsim.shell.session import Session

# `uname -r` of the recording VMs (tests/fixtures/real/*/generated/*.meta.json), which
# spa_history_log_version() writes into the create and import events.
KERNEL_RELEASE = {"2.1": "6.1.0-56-amd64", "2.3": "6.12.118+deb13-amd64"}
# Options that take a value, per command (zfs_main.c and zpool_main.c getopt strings).
_VALUED = {"create": "oVbO", "snapshot": "o", "clone": "o", "import": "dcoR", "add": "o",
           "zpool-create": "oOmRt", "scrub": "", "destroy": "", "set": ""}
_READ_ONLY_ZPOOL = {"list", "status", "get", "iostat", "sync", "wait", "version",
                    "history", "destroy"}


def _split(args: list[str], valued: str) -> tuple[list[str], list[str]]:
    """The option words of ``args`` and its operands; the word after a ``valued`` option
    (-o VALUE) is its value, neither."""
    flags: list[str] = []
    operands: list[str] = []
    skip = False
    for word in args:
        if skip:
            skip = False
            continue
        if word.startswith("-") and len(word) > 1:
            flags.append(word)
            skip = word[-1] in valued and len(word) == 2
            continue
        operands.append(word)
    return flags, operands


def _positionals(args: list[str], valued: str) -> list[str]:
    return _split(args, valued)[1]


def _flags(args: list[str], valued: str) -> list[str]:
    return _split(args, valued)[0]


def _options(args: list[str], flag: str) -> list[str]:
    return [args[i + 1] for i, w in enumerate(args[:-1]) if w == flag]


def _int_text(value: str) -> str:
    """A property's value as dsl_prop_set_sync_impl() logs it ("%s=%lld" of the integer
    it stores): sizes in bytes; labsim writes other names' index as a small number."""
    number = parse_zfs_number(value)
    if number is not None:
        return str(number)
    return {"on": "1", "off": "0"}.get(value, str(2 + len(value) % 8))


class _Log:
    def __init__(self, session: Session, pool: Pool) -> None:
        self.pool = pool
        self.host = session.hostname
        self.time = hist.EPOCH + int(session.clock)
        version = pool.version
        self.version = hist.version_message(version.release, version.package_release,
                                            self.host, KERNEL_RELEASE.get(version.name, ""))
        self.txg: int | None = None  # the txg internal events name; None: the open one

    def internal(self, operation: str, message: str, dsname: str | None = None) -> None:
        dsid = 0
        if dsname is not None:
            head = self.pool.datasets.get(dsname.split("@")[0])
            dsid = objset_id(self.pool, head) if head is not None else 0
            dsid += 1 if "@" in dsname else 0
        self.pool.history.append(hist.internal_record(
            operation, message, self.pool.txg if self.txg is None else self.txg, self.time,
            self.host, dsname, dsid))

    def ioctl(self, name: str, innvl: dict[str, object]) -> None:
        self.pool.history.append(hist.ioctl_record(name, innvl, self.time, self.host))

    def command(self, line: str) -> None:
        self.pool.history.append(hist.command_record(line, self.time, self.host))


def _history_written(pool: Pool) -> None:
    """The records go to the open txg: the ioctl's record and the command line are logged
    with dsl_sync_task_nowait() (spa_history_log_nvl(), module/zfs/spa_history.c in 2.1.11
    and 2.3.9), after the command's own sync task waited for its txg, so the txg after
    it writes the MOS too (zdb -m: log space maps of both txgs)."""
    history_grew(pool)
    mos_rewritten(pool)


def after_zfs(session: Session, subcommand: str, args: list[str]) -> None:
    """The records of a `zfs SUBCOMMAND ARGS` that succeeded."""
    if subcommand not in {"create", "snapshot", "destroy", "set", "clone", "rollback",
                          "promote", "inherit", "rename"}:
        return
    words = _positionals(args, _VALUED.get(subcommand, ""))
    if not words:
        return
    named = words[0] if subcommand == "rename" else words[-1]  # rename's target: "@new"
    pool = session.pools.get(named.split("/")[0].split("@")[0])
    if pool is None or pool.history_psize is None:
        return
    log = _Log(session, pool)
    target = words[-1]
    props = [p for p in _options(args, "-o") if "=" in p]
    if subcommand == "create":
        # dmu_objset_create_sync() logs "create"; dsl_props_set_sync() a "set" for each
        # property; then the "create" ioctl's record (lzc_create(): type and props).
        log.internal("create", "", target)
        settings = [*props, *(f"volsize={v}" for v in _options(args, "-V"))]
        for prop in settings:
            name, _, value = prop.partition("=")
            log.internal("set", f"{name}={_int_text(value)}", target)
        innvl: dict[str, object] = {"type": ("int32", 3 if "-V" in args else 2)}
        if settings:
            innvl["props"] = {p.partition("=")[0]: int(_int_text(p.partition("=")[2]))
                              for p in settings}
        log.ioctl("create", innvl)
    elif subcommand == "snapshot":
        snaps = [w for w in words if "@" in w]
        for snap in snaps:
            log.internal("snapshot", " ", snap)
        log.ioctl("snapshot", {"snaps": dict.fromkeys(snaps, True)})
    elif subcommand == "destroy":
        if "@" in target:
            log.ioctl("destroy_snaps", {"snaps": {target: True}})
        log.internal("destroy", " " if "@" in target else "", target)
    elif subcommand == "set":
        for prop in (w for w in words[:-1] if "=" in w):
            name, _, value = prop.partition("=")
            log.internal("set", f"{name}={_int_text(value)}", target)
    elif subcommand == "inherit":
        log.internal("inherit", f"{words[0]}=0", target)
    elif subcommand == "clone" and len(words) >= 2:
        log.internal("clone", f"origin={words[0]} (1)", target)
        log.ioctl("clone", {"origin": words[0]})
    elif subcommand == "rollback":
        log.internal("rollback", "", target.split("@")[0])
        log.ioctl("rollback", {"target": target})
    elif subcommand == "promote":
        log.internal("promote", "", target)
    elif subcommand == "rename" and len(words) == 2 and "@" in words[0]:
        # dsl_dataset_rename_snapshot_sync_impl() logs "rename" for each snapshot, with
        # its old name, before it renames it (module/zfs/dsl_dataset.c).
        head, _, old = words[0].partition("@")
        new = words[1].rpartition("@")[2]
        top = pool.datasets.get(head)
        heads = [top, *(descendants_of(pool, top) if "-r" in args else [])] if top else []
        for ds in heads:
            if any(s.short == new for s in ds.snapshots):
                log.internal("rename", f"-> @{new}", f"{ds.name}@{old}")
    log.command(" ".join(["zfs", subcommand, *args]))
    _history_written(pool)


def exported_pool(session: Session, subcommand: str, args: list[str]) -> Pool | None:
    """The pool `zpool export` is about to export: its history is written before it
    goes (zfs_ioc_pool_export() logs the command line, zc_history)."""
    if subcommand != "export":
        return None
    words = _positionals(args, "")
    return session.pools.get(words[-1]) if words else None


def after_zpool(session: Session, subcommand: str, args: list[str],
                exported: Pool | None = None) -> None:
    """The records of a `zpool SUBCOMMAND ARGS` that succeeded."""
    if subcommand in _READ_ONLY_ZPOOL:
        return
    line = " ".join(["zpool", subcommand, *args])
    if subcommand == "add" and any(w.startswith("-") and not w.startswith("--") and "n" in w
                                   for w in _flags(args, "o")):
        return  # a dry run makes no change, and no ioctl that logs the command
    if subcommand == "export":
        if exported is not None and exported.history_psize is not None:
            _Log(session, exported).command(line)
            _history_written(exported)
        return
    valued = _VALUED["zpool-create"] if subcommand == "create" else _VALUED.get(subcommand, "")
    words = _positionals(args, valued)
    if not words:
        return
    name = words[-1] if subcommand in {"import", "scrub", "clear"} else words[0]
    if subcommand == "set" and len(words) >= 2:
        name = words[1]
    pool = session.pools.get(name)
    if pool is None or pool.history_psize is None:
        return
    log = _Log(session, pool)
    if subcommand == "create":
        # spa_create(): the version, then spa_sync_props() on what zpool_do_create()
        # sent: the -o properties and every feature enabled; all in the create's txg,
        # which has synced.
        log.txg = TXG_INITIAL
        log.internal("create", log.version)
        for prop in _options(args, "-o"):
            log.internal("set", f"{prop.partition('=')[0]}={_int_text(prop.partition('=')[2])}")
        for feature in hist.features_of(pool.version.name):
            log.internal("set", f"feature@{feature}=enabled")
        log.txg = None
    elif subcommand == "import":
        log.internal("import", log.version)  # spa_import(): spa_history_log_version()
    elif subcommand == "scrub":
        # dsl_scan_setup_sync() and dsl_scan_done() (module/zfs/dsl_scan.c)
        log.internal("scan setup", f"func=1 mintxg=0 maxtxg={pool.txg}")
        log.internal("scan done", "errors=0")
    elif subcommand == "set" and "=" in words[0]:
        name_, _, value = words[0].partition("=")
        log.internal("set", f"{name_}={_int_text(value)}")
    log.command(line)
    if subcommand == "create":
        history_grew(pool)  # written in the txgs the create syncs (lifecycle.create_pool)
    else:
        _history_written(pool)
