"""Slop space: the part of the pool that ordinary writes may not use.

Follows spa_get_slop_space() in module/zfs/spa_misc.c. Slop keeps enough room for
administrative changes (zfs destroy, property changes) on a pool that ordinary writes
have filled; without it a full pool could be impossible to free up.
"""

from __future__ import annotations

from labsim.zfs.versions import ZfsVersion


def slop_space(dspace: int, version: ZfsVersion, embedded_log_space: int = 0) -> int:
    """Bytes held back from ordinary writes in a pool of ``dspace`` deflated bytes."""
    if version.max_slop is None:
        # ZoL 0.6.5 - 2.0: MAX(space >> spa_slop_shift, MIN(space >> 1, spa_min_slop))
        return max(dspace >> version.slop_shift, min(dspace >> 1, version.min_slop))
    slop = min(dspace >> version.slop_shift, version.max_slop)
    # The embedded log metaslab is already unusable for data: count it against slop,
    # but never for more than half of it.
    slop -= min(embedded_log_space, slop >> 1)
    return max(slop, min(dspace >> 1, version.min_slop))
