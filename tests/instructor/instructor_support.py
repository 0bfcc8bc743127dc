"""What the instructor-server tests share: a real server (``python -m instructor serve``) on a
loopback port in a subprocess, on a database in a temporary folder, and signed posts."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from instructor import store  # noqa: E402
from labsteps import report  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    filter(None, [str(REPO), str(REPO / "labs"), os.environ.get("PYTHONPATH")]))}


@dataclass
class Server:
    url: str
    db_path: Path
    workshop: store.Workshop
    process: subprocess.Popen

    def config(self, learner: str = "learner-01") -> report.Config:
        return report.Config(self.url, self.workshop.id, learner, self.workshop.key)

    def rows(self) -> list[tuple]:
        db = store.connect(self.db_path)
        try:
            return db.execute("SELECT learner, lab, step, passed FROM results "
                              "ORDER BY learner, lab, step").fetchall()
        finally:
            db.close()

    def admin(self, path: str, token: str | None = None, method: str = "GET") -> tuple[int, str]:
        token = self.workshop.admin if token is None else token
        return http(f"{self.url}/w/{self.workshop.id}{path}?token={token}", method=method)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def http(url: str, body: bytes | None = None, headers: dict | None = None,
         method: str | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


@contextmanager
def running(db_path: Path, port: int = 0, *extra: str, workshop: str = "w1") -> Iterator[Server]:
    """A server on ``db_path`` (the workshop made first, unless it exists)."""
    db = store.connect(db_path)
    made = store.workshop(db, workshop) or store.create_workshop(db, workshop)
    db.close()
    process = subprocess.Popen(
        [sys.executable, "-m", "instructor", "--db", str(db_path), "serve", "--port", str(port),
         *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, cwd=REPO)
    try:
        line = process.stdout.readline()
        assert " on http://" in line, process.stderr.read()
        server = Server(line.split(" on ")[-1].strip().rstrip("/"), db_path, made, process)
        # uvicorn is still importing; the socket listens already, so the first request waits.
        yield server
    finally:
        process.terminate()
        process.wait(timeout=10)


def signed_post(server: Server, results: list[dict], learner: str = "learner-01",
                key: str | None = None, now: float | None = None,
                nonce: str | None = None) -> tuple[int, str, dict, bytes]:
    body = json.dumps({"workshop": server.workshop.id, "learner": learner,
                       "results": results}).encode()
    headers = report.signed_headers(key or server.workshop.key, body, now, nonce)
    status, text = http(server.url + report.ENDPOINT, body, headers)
    return status, text, headers, body


def result(step: str = "files", passed: bool = True, rid: str | None = None) -> dict:
    return {"id": rid or f"r{time.monotonic_ns()}", "lab": "01-pools-vdevs", "step": step,
            "passed": passed, "detail": "", "at": time.time()}
