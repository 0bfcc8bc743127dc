"""The ZFS model: vdevs, metaslabs, slop space, the allocator and pools, following OpenZFS."""
