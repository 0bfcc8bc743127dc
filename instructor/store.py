"""The instructor's one SQLite file: workshops (id, the learners' signing key, the
instructor's admin token), the step results learners posted, and the nonces seen (the replay
guard). Learners are pseudonyms; nothing else about them is stored."""

from __future__ import annotations

import csv
import io
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS workshops (
    id TEXT PRIMARY KEY, key TEXT NOT NULL, admin TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    workshop TEXT NOT NULL, learner TEXT NOT NULL, id TEXT NOT NULL,
    lab TEXT NOT NULL, step TEXT NOT NULL, passed INTEGER NOT NULL, detail TEXT NOT NULL,
    at REAL NOT NULL, received REAL NOT NULL,
    PRIMARY KEY (workshop, learner, id));
CREATE INDEX IF NOT EXISTS results_cell ON results (workshop, learner, lab, step, at);
CREATE TABLE IF NOT EXISTS nonces (
    workshop TEXT NOT NULL, nonce TEXT NOT NULL, seen REAL NOT NULL,
    PRIMARY KEY (workshop, nonce));
CREATE INDEX IF NOT EXISTS nonces_seen ON nonces (seen);
"""

WORKSHOP_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
LEARNER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")
RESULT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_TEXT = 200
MAX_DETAIL = 500


class StoreError(ValueError):
    """A workshop that does not exist or exists already, or a malformed result."""


@dataclass(frozen=True)
class Workshop:
    id: str
    key: str
    admin: str
    created: float


@dataclass(frozen=True)
class Row:
    """One stored result."""

    learner: str
    id: str
    lab: str
    step: str
    passed: bool
    detail: str
    at: float
    received: float

    def as_dict(self) -> dict[str, object]:
        return {"learner": self.learner, "id": self.id, "lab": self.lab, "step": self.step,
                "passed": self.passed, "detail": self.detail, "at": self.at,
                "received": self.received}


def connect(path: str | Path) -> sqlite3.Connection:
    """The database, made if new. WAL: the server writes while `instructor create` or
    `delete` run in another process."""
    db = sqlite3.connect(str(path), timeout=5.0, isolation_level=None,
                         check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(SCHEMA)
    return db


def create_workshop(db: sqlite3.Connection, workshop: str, now: float | None = None) -> Workshop:
    if not WORKSHOP_ID.match(workshop):
        raise StoreError(f"workshop id {workshop!r}: up to 40 of a-z, 0-9 and '-'")
    # The key in hex: it goes on command lines (`workshop up --key KEY`), where a URL-safe
    # token that starts with "-" reads as an option. The admin token only goes in URLs.
    made = Workshop(workshop, secrets.token_hex(32), secrets.token_urlsafe(24),
                    time.time() if now is None else now)
    try:
        db.execute("INSERT INTO workshops VALUES (?, ?, ?, ?)",
                   (made.id, made.key, made.admin, made.created))
    except sqlite3.IntegrityError:
        raise StoreError(f"workshop {workshop!r} exists already") from None
    return made


def workshop(db: sqlite3.Connection, workshop_id: str) -> Workshop | None:
    row = db.execute("SELECT id, key, admin, created FROM workshops WHERE id = ?",
                     (workshop_id,)).fetchone()
    return Workshop(*row) if row else None


def workshops(db: sqlite3.Connection) -> list[Workshop]:
    return [Workshop(*row) for row in
            db.execute("SELECT id, key, admin, created FROM workshops ORDER BY id")]


def delete_workshop(db: sqlite3.Connection, workshop_id: str) -> int:
    """Remove the workshop, its results and nonces; returns the results removed."""
    with _transaction(db):
        removed = db.execute("DELETE FROM results WHERE workshop = ?", (workshop_id,)).rowcount
        db.execute("DELETE FROM nonces WHERE workshop = ?", (workshop_id,))
        gone = db.execute("DELETE FROM workshops WHERE id = ?", (workshop_id,)).rowcount
    if not gone:
        raise StoreError(f"no workshop {workshop_id!r}")
    return removed


class _transaction:
    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, value, traceback):
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


def remember_nonce(db: sqlite3.Connection, workshop_id: str, nonce: str, now: float) -> bool:
    """False if the nonce was seen already (a replay)."""
    try:
        db.execute("INSERT INTO nonces VALUES (?, ?, ?)", (workshop_id, nonce, now))
    except sqlite3.IntegrityError:
        return False
    return True


def forget_nonces(db: sqlite3.Connection, before: float) -> None:
    """Nonces older than the timestamp window can go: their posts are refused as stale."""
    db.execute("DELETE FROM nonces WHERE seen < ?", (before,))


def parse_results(learner: object, results: object) -> list[Row]:
    """The posted results as rows (received 0.0 until stored), or StoreError."""
    if not isinstance(learner, str) or not LEARNER_ID.match(learner):
        raise StoreError("learner: a pseudonym of up to 40 of A-Z, a-z, 0-9, '.', '_', '-'")
    if not isinstance(results, list) or not 0 < len(results) <= 100:
        raise StoreError("results: a list of 1 to 100 results")
    rows = []
    for item in results:
        try:
            rid, lab, step = item["id"], item["lab"], item["step"]
            passed, detail, at = item["passed"], item.get("detail", ""), float(item["at"])
        except (KeyError, TypeError, ValueError):
            raise StoreError("a result gives id, lab, step, passed, at and detail") from None
        if not (isinstance(rid, str) and RESULT_ID.match(rid)
                and isinstance(lab, str) and 0 < len(lab) <= MAX_TEXT
                and isinstance(step, str) and 0 < len(step) <= MAX_TEXT
                and isinstance(passed, bool) and isinstance(detail, str)):
            raise StoreError("a result's id, lab, step, passed or detail is malformed")
        rows.append(Row(learner, rid, lab, step, passed, detail[:MAX_DETAIL], at, 0.0))
    return rows


def store_results(db: sqlite3.Connection, workshop_id: str, rows: list[Row],
                  now: float) -> list[Row]:
    """Store the rows (a result id already stored is left alone: a resend); returns the new
    ones, with their time of arrival."""
    new = []
    with _transaction(db):
        for row in rows:
            done = db.execute(
                "INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (workshop_id, row.learner, row.id, row.lab, row.step, int(row.passed),
                 row.detail, row.at, now))
            if done.rowcount:
                new.append(Row(row.learner, row.id, row.lab, row.step, row.passed, row.detail,
                               row.at, now))
    return new


def latest(db: sqlite3.Connection, workshop_id: str) -> list[Row]:
    """Each learner's latest result of each step (SQLite takes the bare columns from the row
    of max(at))."""
    return [Row(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6], r[7]) for r in db.execute(
        "SELECT learner, id, lab, step, passed, detail, max(at), received FROM results "
        "WHERE workshop = ? GROUP BY learner, lab, step ORDER BY learner, lab, step",
        (workshop_id,))]


def count(db: sqlite3.Connection, workshop_id: str) -> int:
    return db.execute("SELECT count(*) FROM results WHERE workshop = ?",
                      (workshop_id,)).fetchone()[0]


def export_csv(db: sqlite3.Connection, workshop_id: str) -> str:
    """Every result of the workshop, oldest first; times in UTC, ISO 8601."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["learner", "lab", "step", "passed", "detail", "checked_at", "received_at"])
    for row in db.execute("SELECT learner, lab, step, passed, detail, at, received "
                          "FROM results WHERE workshop = ? ORDER BY at, learner, lab, step",
                          (workshop_id,)):
        writer.writerow([row[0], row[1], row[2], "pass" if row[3] else "fail", row[4],
                         _iso(row[5]), _iso(row[6])])
    return out.getvalue()


def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))
