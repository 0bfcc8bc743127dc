"""tests/vm/guest/ needs real OpenZFS and root: tools/vm/run-labs.sh (part of `make test`) runs
it inside the lab VM next to the lab notebooks, never on the host."""

collect_ignore_glob = ["guest/*"]
