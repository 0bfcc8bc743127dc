"""What the simulator does not model: the one list.

The course page "What the simulator does not model" is built from this module
(tools/mkdocs_hooks.py replaces ``[[labsim:limits]]``), and tests/unit/test_limits.py runs
every entry's ``example`` in labsim to prove that labsim says so where it prints the answer.
A gap that is found goes here first; one that is closed leaves here with its fix.

Two kinds of entry:

* ``Limit``: a behaviour labsim approximates or leaves out, what a learner sees because of
  it, and where to see the real thing. ``example`` is a command line (run after
  ``setup``) whose labsim output says "not simulated"; None where the
  approximation has no single command that shows it (the page then says how it shows).
* the ``zfs``/``zpool`` subcommands and properties real OpenZFS has and labsim answers
  with "not simulated" (``unsimulated_subcommands``/``unsimulated_properties``), computed
  from labsim.zfs.versions and the commands' own tables, so the list cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass

from labsim.shell.commands import zfs as zfs_cmd
from labsim.shell.commands import zfs_common, zpool_reports
from labsim.shell.commands import zfs_properties as zfs_props
from labsim.shell.commands import zpool as zpool_cmd
from labsim.shell.commands import zpool_properties as zpool_props
from labsim.zfs.versions import (
    ZfsVersion,
    dataset_property_names,
    pool_property_names,
    zfs_subcommands,
    zpool_subcommands,
)

LAB_VM = "the lab VM (see [Running the labs](setup.md))"


@dataclass(frozen=True)
class Limit:
    area: str
    what: str  # what labsim does instead of the real thing
    shows_as: str  # what a learner sees because of it
    try_it: str  # where the real behaviour can be seen
    example: str | None = None  # a command whose labsim output says so
    setup: tuple[str, ...] = ()  # command lines run before ``example``


POOL = ("mkdir -p /var/tmp/labs", "truncate -s 1G /var/tmp/labs/limits.raw",
        "zpool create limits /var/tmp/labs/limits.raw")

LIMITS: tuple[Limit, ...] = (
    Limit(
        area="Allocation",
        what="The allocation throttle (per-vdev queues of outstanding writes, "
             "metaslab_group_allocatable() in module/zfs/metaslab.c) is modelled with "
             "OpenZFS's queue depths (32 growing to 100 per txg), but as a smooth flow: the "
             "pace at which a vdev completes writes relative to the pipeline issuing them is "
             "one value per release, calibrated on the lab VM, not a disk's real timing, and "
             "so is how much a compressor slows blocks on their way to the throttle (gzip and "
             "zstd enough that the rotor alone decides, lz4 taken as no compression); next "
             "to it the exact rotor, aliquot, free-space bias and the fragmentation and "
             "free-capacity thresholds. Each allocator's rotor moves with the file data it "
             "places, ditto copies of the data included (copies=2 and 3) while the "
             "throttle is not shaping the txg; the metadata each txg writes, which moves "
             "the rotors on real OpenZFS too, does not move them in labsim.",
        shows_as="How a stream of writes is split between vdevs is one number in labsim; on "
                 "real OpenZFS it changes from run to run, and more so between vdevs of "
                 "different speeds. The lessons quote the recorded range.",
        try_it=f"Run the same `dd` several times in {LAB_VM} and compare `zpool list -v`.",
    ),
    Limit(
        area="Block placement",
        what="Inside a metaslab a block goes to the lowest free segment that holds it; "
             "OpenZFS's dynamic-fit allocator resumes after a per-alignment cursor. The "
             "metadata each txg rewrites is placed after that txg's data, not between its "
             "blocks as concurrent writes put it.",
        shows_as="A vdev that data has filled is less fragmented in labsim (lower FRAG), and "
                 "a nearly full one keeps taking 128 KiB records to the last one, where real "
                 "OpenZFS stops with some free space left in small holes. After files are "
                 "deleted, new data lands in different holes, so overwriting a byte range of "
                 "a vdev file (`dd conv=notrunc`) can hit other blocks, and a scrub repairs a "
                 "different amount.",
        try_it=f"Lesson 8's lab in {LAB_VM}; `zdb -mm` shows the holes.",
    ),
    Limit(
        area="Damage a scrub finds",
        what="The MOS blocks that every txg writing the MOS rewrites (its objset, dnode and "
             "indirect blocks, the config, the history, the log space maps' ZAP) and the "
             "object directory a scrub's setup rewrites are treated as written anew in "
             "place, so an overwrite while the pool was exported does not count against "
             "them after the import. The space maps' blocks stay where they were, where real "
             "OpenZFS writes each metaslab's space map anew when it flushes it. RAID-Z's skip "
             "sectors (padding that is never read) are left out of the pool's own metadata "
             "blocks but counted as part of files' blocks.",
        shows_as="After part of a member was overwritten, a scrub counts a few checksum errors "
                 "more or fewer than real OpenZFS (4 against 2 on a RAID-Z1, 18 against 18 on "
                 "a mirror in one recording).",
        try_it=f"Overwrite part of a member of an exported pool in {LAB_VM}, import it, "
               "`zpool scrub -w` and `zpool status`.",
    ),
    Limit(
        area="What a resilver copies",
        what="A resilver writes every copy a returning or new device lacks once for each "
             "copy its block has, as OpenZFS's sorted scan does (one read per copy, each "
             "mending every copy the device missed), and leaves out the MOS blocks its own "
             "txgs write anew. The blocks are labsim's: space map blocks a metaslab flush "
             "writes anew and the dnode blocks of new files are not among them.",
        shows_as="`resilvered` can be tens of KiB short after a short degraded window (33K "
                 "against 96K in one recording) and a few hundred KiB short after large "
                 "writes (2.24M against 2.39M after a 4M file on a RAID-Z1).",
        try_it=f"Lesson 2's lab in {LAB_VM}: `zpool replace -w`, then `zpool status`.",
    ),
    Limit(
        area="Devices",
        what="Vdev labels are modelled (pool, top-level and leaf guids, state, txg and tree, "
             "in four copies per device that `mv`, `cp`, `rm`, `truncate` and `dd` carry or "
             "destroy), and `zpool import -d` finds devices by them. They are written at the "
             "commands that change the configuration, not at every txg, and uberblocks are "
             "not modelled. Importing destroyed pools (`zpool import -D`) or all pools "
             "(`-a`), a log device missing at import and `zpool labelclear` are not. A "
             "device's size is read again where OpenZFS reopens it (`zpool online`, an "
             "import), so a file grown behind the pool's back shows as EXPANDSZ; a file "
             "made smaller than its vdev uses, or gone when its vdev is reopened, is not "
             "modelled.",
        shows_as="labsim says those are not simulated. `zpool create` on a file that still "
                 "belongs to an exported pool is not refused as it is on real OpenZFS "
                 "(\"is part of exported pool\").",
        try_it=f"`zpool import -D -d DIR` after `zpool destroy` in {LAB_VM}.",
        example="zpool import -D -d /var/tmp/labs",
        setup=("mkdir -p /var/tmp/labs", "truncate -s 128M /var/tmp/labs/limits.raw",
               "zpool create limits /var/tmp/labs/limits.raw", "zpool destroy limits"),
    ),
    Limit(
        area="File contents",
        what="Files hold real bytes, generated on demand (zeros, random, fio's buffers, "
             "`seq`, `yes`, text), and each record goes through the real algorithm: ZFS's "
             "own LZ4, lzjb and zle ported, gzip through zlib. zstd is the zstd library of "
             "Python or of the page (1.5.7), not the code ZFS embeds.",
        shows_as="zstd ratios are close at the default level and can be far off at high "
                 "levels (zstd-9, zstd-19). Redirection is `>` or `>>` at the end of a line "
                 "only.",
        try_it=f"`zfs set compression=zstd-19` and compare `zfs get compressratio` in {LAB_VM}.",
    ),
    Limit(
        area="Partial overwrites",
        what="`dd seek=N conv=notrunc` and `>>` into a file of more than one block copy on "
             "write only the records they touch, the level-1 indirect blocks above them and "
             "the levels above (labsim.zfs.overwrite); a snapshot or clone shares the rest. "
             "Other partial writers are not followed record by record: `dd seek=N` without "
             "`conv=notrunc` and any write into a file of one block rewrite the whole file "
             "(right for a one-block file, too much for a truncating dd), and fio's random "
             "writes into an existing file are an estimate of the records they touch. A "
             "file whose indirect tree labsim cannot split (its indirect blocks written with "
             "another `copies` than now, "
             "a copy left out on a full pool, over a million records) gets its whole tree "
             "rewritten.",
        shows_as="After those other writes a snapshot or clone of the file comes out with "
                 "more USED than on real OpenZFS, up to the whole file.",
        try_it=f"Overwrite 4 MiB of a cloned 16 MiB file with `dd seek=N` (no "
               f"`conv=notrunc`) in {LAB_VM} and compare `zfs list -o name,used,usedsnap`.",
    ),
    Limit(
        area="Pool metadata",
        what="A new pool's MOS and every dataset's and volume's own metadata are modelled "
             "block by block as `zdb -dd` lists them on 2.1.11 and 2.3.9, at the pool's "
             "ashift and layout. Of what later transaction groups add to the MOS, the space "
             "maps (a metaslab's from its first flush, a log space map for each txg that "
             "writes, freed once every metaslab is flushed past it), each further vdev's "
             "unflushed-txgs array, (2.2+) a first snapshot's zapified dsl_dir, the pool "
             "history's block growing with the records each command logs, the deadlists' "
             "bpobjs (a block pointer for each block a snapshot keeps and the head frees), "
             "the micro ZAPs that leave their block pointer once LZ4 leaves more than 112 "
             "bytes of them (the map of the vdevs' ZAPs from seven vdev ZAPs on, a "
             "dataset's or snapshot's dsl_dataset from its third active feature, a "
             "directory's child map from the root's third child on) and the "
             "two txgs an import writes, and the MOS's dnode blocks filling as objects come "
             "and go (in one block, from the objects each command makes) are modelled; "
             "which metaslabs an import flushes, pointers to a file system's own "
             "metadata in a deadlist's older entries, what a txg that changes only the MOS "
             "frees (deferred until two txgs later) and txgs that sync on the 5-second "
             "timer alone are not. Some of it is chance "
             "on a real pool too: which CPU's "
             "chunk of object numbers an object comes from (a meta-dnode level more or "
             "less, a dnode block more for a MOS object or a second child's mountpoint "
             "directory) differs "
             "from run to run, and labsim takes the likelier outcome with two CPUs.",
        shows_as="The root dataset's USED, USEDCHILD and logicalused, and the pool's ALLOC, "
                 "are a few metadata blocks (a few KiB at ashift 9, tens of KiB at ashift "
                 "12) off real OpenZFS once a script has run for a while; two runs of one "
                 "script on real OpenZFS differ by as much.",
        try_it=f"`zdb -dd POOL` in {LAB_VM} lists the MOS's objects and their sizes.",
    ),
    Limit(
        area="Snapshot sizes",
        what="A snapshot's compression ratio is not tracked (its logicalreferenced is, and "
             "its logicalused is \"-\" as on real OpenZFS).",
        shows_as="`compressratio` of a snapshot says not simulated.",
        try_it=f"`zfs get compressratio POOL@SNAP` in {LAB_VM}.",
        example="zfs get compressratio limits@s",
        setup=(*POOL, "zfs snapshot limits@s"),
    ),
    Limit(
        area="Snapshot sizes",
        what="The metadata a snapshot keeps as its own (USED) is followed as versions of "
             "a few groups of blocks (labsim.zfs.snapshots): the objset block and the "
             "meta-dnode's indirect blocks, the root directory's dnode block, each dnode "
             "block of files and the SA layouts. Files are numbered in the order they are "
             "made, not from per-CPU chunks of object numbers (which CPU runs the command "
             "that makes a file or a mountpoint directory is chance: one more dnode block, "
             "a sector a copy, in some runs); directories below the root are left out (the "
             "root directory's ZAP block, once it is too big to embed, is followed); a "
             "micro ZAP is counted "
             "as compacted (real OpenZFS leaves a removed name's slot empty and reuses it), "
             "and the upgrade to a fat ZAP (past 2,047 names, or a name of 50 bytes or "
             "more) is not modelled: such a directory is counted as a micro ZAP. A name "
             "removed and made again between two snapshots, and the root directory's "
             "day-old atime rule, are missed. The ZIL header decides whether a clone, a "
             "rollback or an import rewrites the objset block (dsl_dataset_zero_zil(), "
             "zil_claim()): labsim gives a file system a log when it was changed since the "
             "last txg sync it knows of and is the first unmounted at the export (each "
             "unmount's zil_close() waits for the open txg to sync), without a clock for the "
             "5-second txg timeout; on real OpenZFS the same script goes either way from "
             "run to run. The blocks these versions take are allocated when the pool "
             "syncs on request (`zpool sync`, a scrub, an export, a destroy, rollback or "
             "promote), not at the txg after each write (labsim.zfs.held_metadata).",
        shows_as="A snapshot's USED, and its dataset's usedbysnapshots, can be a few "
                 "metadata blocks off real OpenZFS (a few KiB at ashift 9, up to tens of "
                 "KiB at ashift 12), more in a directory of thousands of names. Right "
                 "after a write, before a `zpool sync`, `zpool list` ALLOC leaves out the "
                 "old metadata a snapshot keeps, which `zfs list` USED already counts.",
        try_it=f"`zdb -dddd POOL/FS@SNAP` in {LAB_VM} lists the snapshot's objects.",
    ),
    Limit(
        area="Bookmarks and deferred destroy",
        what="Bookmarks and deferred destroy (`zfs destroy -d`).",
        shows_as="labsim says they are not simulated.",
        try_it=f"Try them in {LAB_VM}.",
        example="zfs destroy -d limits@s",
        setup=(*POOL, "zfs snapshot limits@s"),
    ),
    Limit(
        area="Host files",
        what="The blocks a host file takes (`du`, `ls -s`, `ls -l`'s total) are known for "
             "files labsim wrote whole (4K blocks, as the lab VM's ext4 and tmpfs) and for "
             "sparse ones `truncate` made; not for a vdev file, which holds what ZFS wrote "
             "into it, nor for what `dd`, `fio` and `qemu-img` wrote.",
        shows_as="`du` says it is not simulated for those files; `ls` lists them and says "
                 "its block counts are not.",
        try_it=f"Compare `du -h` of a vdev file before and after `zpool create` in {LAB_VM}.",
        example="du -h /var/tmp/labs/limits.raw",
        setup=POOL,
    ),
    Limit(
        area="Renaming a file system",
        what="`zfs rename` of a snapshot (with `-r` too) is simulated; renaming a file "
             "system or a volume (its children and mountpoints move with it) is not.",
        shows_as="labsim says renaming a file system or volume is not simulated.",
        try_it=f"Try it in {LAB_VM}.",
        example="zfs rename limits/fs limits/other",
        setup=(*POOL, "zfs create limits/fs"),
    ),
    Limit(
        area="Properties stored, not acted on",
        what="Dataset properties that change only what labsim has no model of (relatime, "
             "and atime beyond a file system's root directory read by `ls`, xattr, "
             "acltype, aclinherit, aclmode, devices, exec, setuid, nbmand, "
             "vscan, zoned, overlay, snapdir, snapdev, primarycache, secondarycache, prefetch, "
             "direct, dnodesize, volmode, checksum other than off, sharenfs, sharesmb, the "
             "SELinux contexts, casesensitivity and utf8only at creation, and user "
             "properties) are checked as OpenZFS checks them and kept, inherited and shown "
             "with their source, but do nothing. So are the pool properties delegation, "
             "autoreplace, autotrim, failmode, comment and cachefile, and pool user "
             "properties (2.2 and later); listsnapshots is followed by `zfs list`, and "
             "autoexpand where a vdev is opened again (`zpool online`, a detach, the end of "
             "a replace). "
             "`zfs get all` and `zpool get all` list only what labsim simulates, and say so.",
        shows_as="`zfs set relatime=on` succeeds and `zfs get relatime` shows it; labsim "
                 "writes no access time of a file read, caches no blocks and shares "
                 "nothing over NFS.",
        try_it=f"`zfs get all POOL` in {LAB_VM}.",
    ),
    Limit(
        area="Intent log",
        what="How 2.2 and later plan log write blocks (lwb sizes and their count under "
             "parallel writers) is modelled as 2.1 does it.",
        shows_as="In lesson 5 the ZIL counters of 2.2 and 2.3 differ in detail from the lab "
                 "VM's; the lesson's conclusions (what sync costs, where the log goes) hold.",
        try_it=f"Lesson 5's lab in {LAB_VM}.",
    ),
    Limit(
        area="Monitoring",
        what="Repeating reports: `zpool iostat` and `zpool wait` with an interval.",
        shows_as="labsim says they are not simulated and prints nothing else.",
        try_it=f"Try them in {LAB_VM}.",
        example="zpool iostat limits 1 2",
        setup=POOL,
    ),
    Limit(
        area="Usage messages",
        what="A mistyped `zpool` or `zfs` command gets its release's usage synopsis, read "
             "from that release's source. After the synopsis of `zfs set`, `zfs get`, "
             "`zfs list` and `zfs inherit`, real zfs goes on with the table of every "
             "dataset property; labsim stops after the synopsis.",
        shows_as="The usage of those four subcommands ends early; the rest of the message "
                 "and the exit status are the real ones.",
        try_it=f"`zfs get` with no arguments in {LAB_VM}.",
    ),
    Limit(
        area="Time",
        what="labsim's clock advances by modelled durations (dd at a fixed rate, a scrub "
             "by its bytes), not by the recording machine's.",
        shows_as="Durations and dates in `zpool status` and `dd`'s statistics are plausible, "
                 "not measured.",
        try_it=f"Any lab in {LAB_VM}.",
    ),
    Limit(
        area="Networking",
        what="Firewall rules are stored and listed (`iptables -S`, `nft list ruleset`); "
             "what they do to packets is modelled only for the rules the labs use "
             "(forwarding, masquerade, drop to a name server).",
        shows_as="Other rules are listed but do not change where packets go.",
        try_it="The network labs in namespaces (`python3 -m netkit run LAB`) or the lab VM.",
    ),
    Limit(
        area="Shell",
        what="The terminal's shell parses bash's grammar (tree-sitter-bash) and runs pipes, "
             "redirections, variables, `$(...)`, arithmetic, globs, loops, functions and "
             "here-documents as bash 5.2 does, one command after another. It leaves out "
             "arrays, process substitution, job control (`&` runs in the foreground), traps, "
             "shell options (`set -e`, `set -o pipefail`), `select`, `coproc` and bash's "
             "other builtins.",
        shows_as="Those answer with a `labsim:` line saying they are not simulated. A pipeline's "
                 "commands run in turn, so a command sees its input only once the one before "
                 "it has finished.",
        try_it=f"Any shell in {LAB_VM}.",
        example="set -o pipefail",
    ),
    Limit(
        area="Shell",
        what="Of the GNU tools beside ZFS (ls, cat, cp, mv, rm, du, df, dd, grep, sort, "
             "tail, touch, stat...), labsim models the options the lessons use, and of dd's "
             "conversions and flags `conv=notrunc`, `fsync`, `fdatasync`, `oflag=sync`, "
             "`dsync` and `direct`. Every other option the real tool has (GNU coreutils 9.7 "
             "and grep 3.11, as in Debian 13) is known by name.",
        shows_as="Such an option answers with a `labsim:` line saying it is not simulated "
                 "(`ls -i`, `cat -n`, `rm -i`, `dd conv=sparse`); an option the real tool "
                 "does not have is refused in the tool's own words.",
        try_it=f"Any shell in {LAB_VM}.",
        example="ls -i /var/tmp/labs",
        setup=POOL,
    ),
    Limit(
        area="Shell",
        what="A command line runs at most 100000 steps (a command, a loop turn, a ping "
             "packet) and, past a thousand steps, 5 seconds of your computer's time; text "
             "filters (sort, grep, wc -l, ...) read at most 16 MiB and a command substitution "
             "keeps at most 1 MiB. Simulated time (sleep, dd) never waits.",
        shows_as="An endless loop or an absurd size stops with a `labsim:` line and status 130, "
                 "as if interrupted with Ctrl-C.",
        try_it=f"Long loops and big files in {LAB_VM}.",
        example="while :; do :; done",
    ),
)


def unsimulated_subcommands(version: ZfsVersion) -> dict[str, list[str]]:
    """tool -> the subcommands ``version`` has that labsim answers with "not simulated"."""
    return {
        "zfs": sorted(zfs_subcommands(version) - set(zfs_cmd.SUBCOMMANDS)),
        "zpool": sorted(zpool_subcommands(version) - set(zpool_cmd.SUBCOMMANDS)),
    }


def unsimulated_properties(version: ZfsVersion) -> dict[str, list[str]]:
    """kind -> the properties ``version`` has that labsim answers with "not simulated"."""
    dataset = set(zfs_common.SETTABLE) | set(zfs_common.READABLE) | {"name"} \
        | set(zfs_props.stored_properties(version))
    pool = set(zpool_reports.POOL_PROPERTIES) | set(zpool_reports.BCLONE_PROPERTIES) | {"name"} \
        | set(zpool_props.stored_names(version))
    return {
        "dataset": sorted(dataset_property_names(version) - dataset),
        "pool": sorted(pool_property_names(version) - pool),
    }


def limits_markdown(version: ZfsVersion) -> str:
    """The page's body: a section per limit, then the commands and properties not
    simulated in ``version``."""
    # One section per limit rather than a table: four columns of sentences do not fit a
    # phone's width.
    rows: list[str] = []
    for limit in LIMITS:
        rows += [f"### {limit.area}", "", f"**What labsim does.** {limit.what}", "",
                 f"**What you see.** {limit.shows_as}", "",
                 f"**Where to see the real thing.** {limit.try_it}", ""]
    subs = unsimulated_subcommands(version)
    props = unsimulated_properties(version)

    def codes(names: list[str]) -> str:
        return ", ".join(f"`{n}`" for n in names) or "none"

    return "\n".join([
        "## Behaviour labsim approximates or leaves out",
        "",
        *rows,
        f"## Commands and properties of OpenZFS {version.release} not simulated",
        "",
        "labsim answers these with a line that starts `labsim:` and says \"not simulated\"; "
        "it never pretends that real OpenZFS refuses them.",
        "",
        f"- `zfs` subcommands: {codes(subs['zfs'])}",
        f"- `zpool` subcommands: {codes(subs['zpool'])}",
        f"- dataset properties: {codes(props['dataset'])}",
        "- dataset properties named with a user, group, project, snapshot or bookmark: "
        "`userused@`, `userquota@`, `userobjused@`, `userobjquota@` and the same for "
        "`group` and `project`; `written@` and `written#`",
        f"- pool properties: {codes(props['pool'])}",
        "",
    ])
