"""One module per tool: zpool, zfs, dd, and the few coreutils the lessons use."""
