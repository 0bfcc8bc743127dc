"""Space invariants over any sequence of ZFS commands, run through a labsim Session as a
learner types them: datasets and volumes with properties, writes, copies, snapshots,
clones, promote, rollback and destroy.

After every command:
* the pool's ALLOC is the sum of its top-level vdevs' ALLOC (``zpool list -v``);
* every dataset's USED is usedbysnapshots + usedbydataset + usedbychildren +
  usedbyrefreservation (dsl_dir_stats(): the four dd_used_breakdown parts);
* the root dataset's USED is at most the pool's size, and no AVAIL is negative.
When everything is destroyed, the pool's ALLOC is back to the empty pool's, but for the
MOS blocks the pool kept (labsim.zfs.mos: space maps, the history, the root's zapified
dsl_dir and deadlist bpobjs; a real pool keeps them too).
"""

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from labsim import Session

POOL = "sm"
FILESYSTEMS = [f"{POOL}/fs0", f"{POOL}/fs1", f"{POOL}/fs0/child"]
VOLUMES = [f"{POOL}/vol0"]
CLONES = [f"{POOL}/clone0", f"{POOL}/clone1"]
HEADS = FILESYSTEMS + CLONES
SNAPSHOT_NAMES = ["s0", "s1"]
FILES = ["f0", "f1"]
SPACE_PROPERTIES = ("used", "usedbysnapshots", "usedbydataset", "usedbychildren",
                    "usedbyrefreservation", "available")


class ZfsCommands(RuleBasedStateMachine):
    """One pool of two 256M files; commands that zfs refuses (no such dataset, a
    snapshot with clones...) are refused as zfs would, and the invariants still hold."""

    @initialize(layout=st.sampled_from(["", "mirror"]))
    def create_pool(self, layout: str) -> None:
        self.session = Session()
        self.run("truncate -s 256M /var/tmp/sm-a.raw /var/tmp/sm-b.raw")
        self.run(f"zpool create -o ashift=12 {POOL} {layout} /var/tmp/sm-a.raw "
                 "/var/tmp/sm-b.raw", must=True)
        self.settle()
        self.empty_alloc = self.alloc()
        self.empty_mos = self.mos_bytes()

    def run(self, line: str, must: bool = False) -> str:
        result = self.session.run(line)
        assert "Traceback" not in result.stderr, (line, result.stderr)
        if must:
            assert result.status == 0, (line, result.stderr)
        return result.stdout

    def settle(self) -> None:
        """zpool sync until no freed block is still deferred (TXG_DEFER_SIZE txgs)."""
        for _ in range(4):
            self.run(f"zpool sync {POOL}", must=True)
        assert not self.session.pools[POOL].deferred

    def alloc(self) -> int:
        return int(self.run(f"zpool list -Hp -o alloc {POOL}", must=True))

    def mos_bytes(self) -> int:
        return sum(e.length for e in self.session.pools[POOL].all_metadata())

    # ---------------------------------------------------------------- commands

    @rule(name=st.sampled_from(FILESYSTEMS), copies=st.sampled_from([1, 2, 3]),
          compression=st.sampled_from(["off", "lz4"]))
    def create_filesystem(self, name: str, copies: int, compression: str) -> None:
        self.run(f"zfs create -o copies={copies} -o compression={compression} {name}")

    @rule(name=st.sampled_from(VOLUMES), sparse=st.booleans(),
          size_mib=st.sampled_from([8, 16, 32]))
    def create_volume(self, name: str, sparse: bool, size_mib: int) -> None:
        self.run(f"zfs create {'-s ' if sparse else ''}-V {size_mib}M {name}")

    @rule(dataset=st.sampled_from(HEADS), file=st.sampled_from(FILES),
          mib=st.integers(min_value=1, max_value=24),
          source=st.sampled_from(["/dev/urandom", "/dev/zero"]))
    def write_file(self, dataset: str, file: str, mib: int, source: str) -> None:
        self.run(f"dd if={source} of=/{dataset}/{file} bs=1M count={mib} status=none")

    @rule(volume=st.sampled_from(VOLUMES), mib=st.integers(min_value=1, max_value=32))
    def write_volume(self, volume: str, mib: int) -> None:
        self.run(f"dd if=/dev/urandom of=/dev/zvol/{volume} bs=1M count={mib} status=none")

    @rule(dataset=st.sampled_from(HEADS), file=st.sampled_from(FILES))
    def remove_file(self, dataset: str, file: str) -> None:
        self.run(f"rm -f /{dataset}/{file}")

    @rule(dataset=st.sampled_from(HEADS), copies=st.sampled_from([1, 2, 3]))
    def set_copies(self, dataset: str, copies: int) -> None:
        self.run(f"zfs set copies={copies} {dataset}")

    @rule(dataset=st.sampled_from(HEADS + VOLUMES), snap=st.sampled_from(SNAPSHOT_NAMES))
    def snapshot(self, dataset: str, snap: str) -> None:
        self.run(f"zfs snapshot {dataset}@{snap}")

    @rule(dataset=st.sampled_from(HEADS), snap=st.sampled_from(SNAPSHOT_NAMES),
          clone=st.sampled_from(CLONES))
    def clone(self, dataset: str, snap: str, clone: str) -> None:
        self.run(f"zfs clone {dataset}@{snap} {clone}")

    @rule(clone=st.sampled_from(HEADS))
    def promote(self, clone: str) -> None:
        self.run(f"zfs promote {clone}")

    @rule(dataset=st.sampled_from(HEADS + VOLUMES), snap=st.sampled_from(SNAPSHOT_NAMES))
    def rollback(self, dataset: str, snap: str) -> None:
        self.run(f"zfs rollback -r {dataset}@{snap}")

    @rule(dataset=st.sampled_from(HEADS + VOLUMES), snap=st.sampled_from(SNAPSHOT_NAMES))
    def destroy_snapshot(self, dataset: str, snap: str) -> None:
        self.run(f"zfs destroy {dataset}@{snap}")

    @rule(dataset=st.sampled_from(HEADS + VOLUMES), recursive=st.sampled_from(["", "-r", "-R"]))
    def destroy(self, dataset: str, recursive: str) -> None:
        self.run(f"zfs destroy {recursive} {dataset}")

    # ---------------------------------------------------------------- invariants

    @invariant()
    def pool_alloc_is_the_sum_of_its_vdevs(self) -> None:
        # zpool list -Hpv: the pool's row, then one row per vdev ("\tNAME\tSIZE\tALLOC...");
        # a mirror's leaves show "-" for ALLOC.
        rows = [line.split("\t") for line in
                self.run(f"zpool list -Hpv {POOL}", must=True).splitlines()]
        vdev_allocs = [int(row[3]) for row in rows[1:] if row[3] != "-"]
        pool = self.session.pools[POOL]
        assert int(rows[0][2]) == sum(vdev_allocs) == sum(v.alloc for v in pool.vdevs)

    @invariant()
    def used_is_the_sum_of_its_parts(self) -> None:
        names = self.run(f"zfs list -Hp -o name -r {POOL}", must=True).split()
        out = self.run(f"zfs get -Hp -o name,property,value {','.join(SPACE_PROPERTIES)} "
                       + " ".join(names), must=True)
        values: dict[str, dict[str, int]] = {}
        for line in out.splitlines():
            name, prop, value = line.split("\t")
            if name in names:  # labsim's zfs get also lists the named datasets' snapshots
                values.setdefault(name, {})[prop] = int(value)
        size = int(self.run(f"zpool list -Hp -o size {POOL}", must=True))
        for name in names:
            space = values[name]
            assert space["used"] == (space["usedbysnapshots"] + space["usedbydataset"]
                                     + space["usedbychildren"]
                                     + space["usedbyrefreservation"]), (name, space)
            assert space["available"] >= 0, (name, space)
        assert values[POOL]["used"] <= size

    def teardown(self) -> None:
        if not hasattr(self, "session"):
            return
        self.run("udevadm settle")  # a volume just written is busy while udev probes it
        for name in reversed(self.run(f"zfs list -Hp -o name -r {POOL}").split()[1:]):
            self.run(f"zfs destroy -R {name}")
        assert self.run(f"zfs list -Hp -o name -r {POOL}").split() == [POOL]
        self.run(f"rm -f /{POOL}/f0 /{POOL}/f1")
        self.settle()
        grown = self.mos_bytes() - self.empty_mos
        assert self.alloc() == self.empty_alloc + grown


ZfsCommands.TestCase.settings = settings(max_examples=60, stateful_step_count=30,
                                         deadline=None)
test_zfs_command_sequences = ZfsCommands.TestCase
