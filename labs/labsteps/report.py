"""Sending step results to the instructor's server (``verify --report``), and the protocol the
server checks (instructor/).

A report is one HTTP POST of JSON to ``URL/api/results``::

    {"workshop": "W", "learner": "PSEUDONYM",
     "results": [{"id": "...", "lab": "...", "step": "...", "passed": true, "detail": "",
                  "at": 1764000000.0}, ...]}

signed with the workshop's key: the headers carry a timestamp (``X-ZFL-Timestamp``, Unix
seconds), a random nonce (``X-ZFL-Nonce``) and ``X-ZFL-Signature``, the hex HMAC-SHA256
of ``TIMESTAMP\\nNONCE\\n`` followed by the body's bytes (:func:`signature`). The server
refuses a post without them, with a wrong signature, with a timestamp out of its window or a
nonce it has seen (a replay). Every result has an ``id`` of its own, so a result sent twice
(its answer lost on the way back) is stored once.

Reporting never stands in the lab's way: every result goes first into a local queue file
(JSON lines); each run then sends what is queued, each post with a short timeout, and stops at
the first failure, leaving the rest for the next run. A result is given up after
:data:`MAX_TRIES` refused sends, and the queue keeps at most :data:`MAX_QUEUED` results (the
oldest go first). Standard library only: it runs in the lab VM's Python.

Who reports comes from a workshop file (TOML, ``/etc/zfl/workshop.toml`` or the file
``ZFL_WORKSHOP_FILE`` names; the learner environments get it from the provisioning) and the
environment (``ZFL_REPORT_URL``, ``ZFL_WORKSHOP``, ``ZFL_LEARNER``, ``ZFL_WORKSHOP_KEY``,
which win), with keys ``url``, ``workshop``, ``learner`` and ``key``. The learner is a
pseudonym, never a name; without one it is derived from the key and /etc/machine-id.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from labsteps import StepResult

ENDPOINT = "/api/results"
HEADER_TIMESTAMP = "X-ZFL-Timestamp"
HEADER_NONCE = "X-ZFL-Nonce"
HEADER_SIGNATURE = "X-ZFL-Signature"
WORKSHOP_FILE = "/etc/zfl/workshop.toml"
# Seconds a post may take before the lab goes on without it.
TIMEOUT = 2.0
# Refused sends (an HTTP 4xx other than 429) before a result is given up; and the queue's size.
MAX_TRIES = 5
MAX_QUEUED = 5000
# Results in one post.
BATCH = 100


class ReportError(Exception):
    """The reporting is not configured (no workshop, key or URL)."""


def signature(key: str, timestamp: str, nonce: str, body: bytes) -> str:
    """Hex HMAC-SHA256 of ``TIMESTAMP\\nNONCE\\n`` + body under the workshop's key."""
    message = f"{timestamp}\n{nonce}\n".encode() + body
    return hmac.new(key.encode(), message, hashlib.sha256).hexdigest()


def signed_headers(key: str, body: bytes, now: float | None = None,
                   nonce: str | None = None) -> dict[str, str]:
    timestamp = str(int(time.time() if now is None else now))
    nonce = nonce or secrets.token_hex(16)
    return {"Content-Type": "application/json", HEADER_TIMESTAMP: timestamp,
            HEADER_NONCE: nonce, HEADER_SIGNATURE: signature(key, timestamp, nonce, body)}


@dataclass(frozen=True)
class Config:
    url: str
    workshop: str
    learner: str
    key: str

    @property
    def endpoint(self) -> str:
        return self.url.rstrip("/") + ENDPOINT


def pseudonym(key: str, machine_id_file: str = "/etc/machine-id") -> str:
    """A learner's stable pseudonym when the provisioning gave none: from this machine's id
    and the workshop key, so it says nothing about the person and differs per workshop."""
    try:
        machine = Path(machine_id_file).read_text().strip()
    except OSError:
        machine = os.uname().nodename
    return "l-" + hashlib.sha256(f"{key}\n{machine}".encode()).hexdigest()[:10]


def load_config(url: str | None = None, env: dict[str, str] | None = None) -> Config:
    """The reporting configuration: ``url`` (the ``--report`` argument) first, then the
    environment, then the workshop file."""
    env = dict(os.environ if env is None else env)
    path = Path(env.get("ZFL_WORKSHOP_FILE", WORKSHOP_FILE))
    data: dict = {}
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as err:
            raise ReportError(f"{path}: {err}") from None
    values = {name: env.get(var) or str(data.get(name, ""))
              for name, var in (("url", "ZFL_REPORT_URL"), ("workshop", "ZFL_WORKSHOP"),
                                ("learner", "ZFL_LEARNER"), ("key", "ZFL_WORKSHOP_KEY"))}
    if url:
        values["url"] = url
    missing = [name for name in ("url", "workshop", "key") if not values[name]]
    if missing:
        raise ReportError(f"reporting needs {', '.join(missing)}: give them in {path} or "
                          "ZFL_REPORT_URL, ZFL_WORKSHOP, ZFL_WORKSHOP_KEY")
    if not values["learner"]:
        values["learner"] = pseudonym(values["key"])
    return Config(**values)


def queue_path(env: dict[str, str] | None = None) -> Path:
    env = dict(os.environ if env is None else env)
    if env.get("ZFL_REPORT_QUEUE"):
        return Path(env["ZFL_REPORT_QUEUE"])
    state = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "zfl" / "report-queue.jsonl"


@dataclass(frozen=True)
class Delivery:
    """What one run did: results sent, still queued, given up, and the last problem."""

    sent: int
    queued: int
    dropped: int
    problem: str = ""

    def line(self) -> str:
        text = f"report: {self.sent} sent"
        if self.queued:
            text += f", {self.queued} queued for the next run"
        if self.dropped:
            text += f", {self.dropped} given up"
        return text + (f" ({self.problem})" if self.problem else "")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One run at a time works on the queue (two terminals verifying at once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _read(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    entries = []
    for line in path.read_text().splitlines():
        with contextlib.suppress(ValueError):
            entries.append(json.loads(line))
    return entries


def _write(path: Path, entries: list[dict]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in entries))
    os.replace(tmp, path)


def enqueue(path: Path, config: Config, results: Iterable[StepResult],
            now: float | None = None) -> None:
    at = time.time() if now is None else now
    with _locked(path):
        entries = _read(path)
        for result in results:
            entries.append({"url": config.url, "workshop": config.workshop,
                            "learner": config.learner, "tries": 0,
                            "result": {"id": secrets.token_hex(12), **result.as_dict(),
                                       "at": at}})
        _write(path, entries[-MAX_QUEUED:])


def post(config: Config, results: list[dict], timeout: float = TIMEOUT) -> tuple[int, str]:
    """POST one signed batch; returns (HTTP status, the server's answer). Raises OSError
    (URLError, a timeout) when the server cannot be reached."""
    body = json.dumps({"workshop": config.workshop, "learner": config.learner,
                       "results": results}).encode()
    request = urllib.request.Request(config.endpoint, data=body, method="POST",
                                     headers=signed_headers(config.key, body))
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, answer.read().decode(errors="replace")
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode(errors="replace")


def flush(path: Path, config: Config, timeout: float = TIMEOUT) -> Delivery:
    """Send the queued results of this workshop and learner, in batches; stop at the first
    batch the server does not take, keeping it and the rest for the next run."""
    sent = dropped = 0
    problem = ""
    with _locked(path):
        entries = _read(path)
        mine = [e for e in entries if (e.get("url"), e.get("workshop"), e.get("learner"))
                == (config.url, config.workshop, config.learner)]
        done: set[int] = set()
        for start in range(0, len(mine), BATCH):
            batch = mine[start:start + BATCH]
            try:
                status, answer = post(config, [e["result"] for e in batch], timeout)
            except OSError as err:  # URLError, timeouts, refused connections
                problem = f"{config.url} unreachable: {getattr(err, 'reason', err)}"
                break
            if status == 200:
                sent += len(batch)
                done.update(id(e) for e in batch)
                continue
            problem = f"the server answered {status}: {answer.strip()[:200]}"
            if status == 429 or status >= 500:
                break
            for entry in batch:  # refused: will a later run fare better? Not for ever.
                entry["tries"] = entry.get("tries", 0) + 1
                if entry["tries"] >= MAX_TRIES:
                    dropped += 1
                    done.add(id(entry))
            break
        left = [e for e in entries if id(e) not in done]
        _write(path, left)
    queued = sum((e.get("url"), e.get("workshop"), e.get("learner"))
                 == (config.url, config.workshop, config.learner) for e in left)
    return Delivery(sent, queued, dropped, problem)


def report(results: Iterable[StepResult], config: Config, path: Path | None = None,
           timeout: float = TIMEOUT) -> Delivery:
    """Queue the results, then send everything queued for this learner (never raises on a
    network problem: the Delivery says what happened)."""
    path = queue_path() if path is None else path
    enqueue(path, config, results)
    return flush(path, config, timeout)


def report_if_workshop(results: Iterable[StepResult],
                       env: dict[str, str] | None = None) -> Delivery | None:
    """What the notebooks call after each check: report when this machine is a workshop's
    learner environment (a workshop file, or ZFL_WORKSHOP set), else do nothing (None).
    Never raises: a lab does not stop for its report."""
    env = dict(os.environ if env is None else env)
    if not (env.get("ZFL_WORKSHOP")
            or Path(env.get("ZFL_WORKSHOP_FILE", WORKSHOP_FILE)).is_file()):
        return None
    try:
        return report(results, load_config(None, env), queue_path(env))
    except (ReportError, OSError) as err:
        return Delivery(0, 0, 0, f"not reported: {err}")
