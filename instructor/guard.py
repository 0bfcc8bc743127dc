"""What a learner's post must pass before anything is stored: a signature of the workshop's
key over its timestamp, nonce and body (labsteps.report.signature), a timestamp within
:data:`WINDOW` seconds of the server's clock, a nonce not seen before (the store keeps the
nonces of the window), and a per-learner rate (:class:`RateLimit`)."""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass, field

from labsteps.report import HEADER_NONCE, HEADER_SIGNATURE, HEADER_TIMESTAMP, signature

# Seconds a post's timestamp may differ from the server's clock (learner VMs' clocks drift a
# little; a replay later than this is refused as stale even once its nonce is forgotten).
WINDOW = 120
NONCE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


@dataclass(frozen=True)
class Refusal:
    status: int
    reason: str


def check_signature(headers, body: bytes, key: str | None, now: float) -> Refusal | None:
    """None when the post is signed with ``key`` and fresh; else why not. ``key`` None: the
    workshop does not exist (answered like a bad signature: no workshop ids are guessed)."""
    timestamp = headers.get(HEADER_TIMESTAMP)
    nonce = headers.get(HEADER_NONCE)
    sent = headers.get(HEADER_SIGNATURE)
    if not (timestamp and nonce and sent):
        return Refusal(401, "unsigned: give X-ZFL-Timestamp, X-ZFL-Nonce and X-ZFL-Signature")
    if not timestamp.isdigit() or not NONCE.match(nonce):
        return Refusal(401, "malformed timestamp or nonce")
    if abs(now - int(timestamp)) > WINDOW:
        return Refusal(401, f"stale: the timestamp is more than {WINDOW} s from the server's "
                       "clock")
    if key is None or not hmac.compare_digest(signature(key, timestamp, nonce, body), sent):
        return Refusal(401, "bad signature")
    return None


@dataclass
class RateLimit:
    """A token bucket per learner: ``rate`` posts a second on average, ``burst`` at once
    (a learner's queue sent after a network outage comes in batches of 100 results a post)."""

    rate: float = 5.0
    burst: float = 20.0
    _buckets: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)

    def allow(self, workshop: str, learner: str, now: float) -> bool:
        tokens, then = self._buckets.get((workshop, learner), (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        if tokens < 1.0:
            self._buckets[(workshop, learner)] = (tokens, now)
            return False
        self._buckets[(workshop, learner)] = (tokens - 1.0, now)
        return True
