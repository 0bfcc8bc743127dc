# Notebooks under labs/vm/ run inside the lab VM (real OpenZFS), never on the host.
collect_ignore_glob = ["vm/*"]
