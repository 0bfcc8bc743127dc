"""udev's probe of a volume a writer has just closed, as far as labsim follows it.

udev watches block devices for IN_CLOSE_WRITE (60-block.rules, OPTIONS+="watch"); its
"change" event opens the device to probe it (blkid). While it is open, the zvol's long hold
on its dataset makes `zfs destroy` fail with EBUSY (dsl_destroy_head_check_impl(),
module/zfs/dsl_destroy.c, 2.1.11 and 2.3.9). `udevadm settle` waits for the probe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from labsim.shell.session import Session

# How long the probe keeps the volume open, in labsim: a tenth of a second of the session's
# clock. On real systems a race, bounded by two recordings: a 1M dd between the volume's
# write and the destroy (a few milliseconds) left it busy in 5 of 6 runs of generated seed
# 5007; lab 7's 48M dd into a file and a few zfs commands (a quarter of a second) never did.
# The session's clock does not count a person's typing, so the probe is only still running
# for a command of the same line or of a script (Session.in_script): a learner who types
# the destroy after the dd finds the volume free, as on a real system.
PROBE_SECONDS = 0.1


def volume_closed(session: Session, name: str) -> None:
    """A writer closed volume ``name``'s device: udev starts probing it."""
    session.udev_probing[name] = (session.clock, session.lines_run)


def settle(session: Session) -> None:
    """`udevadm settle`: every probe is done."""
    session.udev_probing.clear()


def probing(session: Session, name: str) -> bool:
    """Whether udev still holds volume ``name``'s device open."""
    closed = session.udev_probing.get(name)
    if closed is None:
        return False
    when, line = closed
    return session.clock - when < PROBE_SECONDS and (
        session.in_script or line == session.lines_run)
