"""The notebooks in tests/vm/notebooks/ need real OpenZFS and root: they run inside the lab VM
(tools/vm/run-labs.sh, `make test-vm`), never on the host, even under `pytest --nbval`."""

collect_ignore_glob = ["notebooks/*"]
