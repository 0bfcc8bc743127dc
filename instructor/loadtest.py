"""A load test of the instructor's server on loopback (``make bench``; a short one in the
suite): ``learners`` simulated learners each post one signed result every ``interval``
seconds for ``seconds`` seconds, over a keep-alive connection of their own, while one live
page follows the event stream. Reports whether any result was lost (stored in SQLite, and
pushed to the live page), and the latency of the posts.

The server runs as ``python -m instructor serve`` in a process of its own, on a fresh
database; the learners are coroutines of this process, written against the socket (the
standard library's HTTP clients block), so 200 of them cost one core at most."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from instructor import REPO, store
from labsteps.report import ENDPOINT, signed_headers

WORKSHOP = "loadtest"


async def _answer(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = next((int(line.split(":", 1)[1]) for line in lines[1:]
                   if line.lower().startswith("content-length:")), 0)
    return status, await reader.readexactly(length)


def _request(host: str, port: int, key: str, learner: str, n: int) -> bytes:
    body = json.dumps({"workshop": WORKSHOP, "learner": learner, "results": [
        {"id": f"{learner}-{n}", "lab": "01-pools-vdevs", "step": f"s{n % 8}",
         "passed": n % 3 != 0, "detail": "", "at": time.time()}]}).encode()
    headers = {**signed_headers(key, body), "Host": f"{host}:{port}",
               "Content-Length": str(len(body))}
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    return f"POST {ENDPOINT} HTTP/1.1\r\n{head}\r\n".encode() + body


async def _learner(index: int, host: str, port: int, key: str, start: float, end: float,
                   interval: float, offset: float, tally: dict) -> None:
    loop = asyncio.get_running_loop()
    learner = f"learner-{index:03d}"
    connection = None
    n = 0
    due = start + offset
    while due < end:
        await asyncio.sleep(max(0.0, due - loop.time()))
        request = _request(host, port, key, learner, n)
        sent = loop.time()
        try:
            if connection is None:
                connection = await asyncio.open_connection(host, port)
            reader, writer = connection
            writer.write(request)
            await writer.drain()
            status, _ = await asyncio.wait_for(_answer(reader), 30)
        except (OSError, asyncio.IncompleteReadError, TimeoutError) as err:
            tally["errors"].append(f"{learner}: {type(err).__name__}: {err}")
            connection = None
            status = 0
        done = loop.time()
        tally["latency"].append(done - sent)
        tally["late"].append(done - due)
        tally["status"][status] = tally["status"].get(status, 0) + 1
        n += 1
        due += interval
    if connection is not None:
        connection[1].close()


async def _live_page(host: str, port: int, admin: str, tally: dict,
                     stop: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET /w/{WORKSHOP}/events?token={admin} HTTP/1.1\r\nHost: {host}\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    await writer.drain()
    while not stop.is_set():
        try:
            line = await asyncio.wait_for(reader.readline(), 0.5)
        except TimeoutError:
            continue
        if not line:
            break
        if line.startswith(b"event: result"):
            tally["pushed"] += 1
    writer.close()


async def _drive(host: str, port: int, key: str, admin: str, learners: int, seconds: float,
                 interval: float, seed: int) -> dict:
    rng = random.Random(seed)
    tally: dict = {"latency": [], "late": [], "status": {}, "errors": [], "pushed": 0}
    stop = asyncio.Event()
    page = asyncio.create_task(_live_page(host, port, admin, tally, stop))
    await asyncio.sleep(0.5)  # the page is subscribed before the first post
    loop = asyncio.get_running_loop()
    start = loop.time()
    await asyncio.gather(*(
        _learner(i, host, port, key, start, start + seconds, interval,
                 rng.uniform(0, interval), tally) for i in range(learners)))
    tally["wall_s"] = loop.time() - start
    await asyncio.sleep(1.0)  # the last events reach the page
    stop.set()
    await page
    return tally


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def _peak_rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (/proc/PID/stat fields 14 and 15): what
    the server cost, whatever else the machine was doing."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")



def _run_apart(make, *args):
    """asyncio.run(make(*args)) in a thread of its own: the caller's thread may already run
    an event loop (a test session with Playwright's sync API running has one), where
    asyncio.run() refuses. The coroutine is made in that thread, so none is left unawaited."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(make(*args))).result()

def run(learners: int = 20, seconds: float = 10.0, interval: float = 1.0,
        seed: int = 1) -> dict:
    """Start a server on a fresh database, drive it, and report (JSON-ready)."""
    with tempfile.TemporaryDirectory(prefix="zfl-instructor-load-") as folder:
        db_path = Path(folder) / "load.sqlite"
        db = store.connect(db_path)
        made = store.create_workshop(db, WORKSHOP)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
        server = subprocess.Popen(
            [sys.executable, "-m", "instructor", "--db", str(db_path), "serve", "--port", "0"],
            stdout=subprocess.PIPE, text=True, env=env, cwd=REPO)
        try:
            url = server.stdout.readline().split(" on ")[-1].strip().rstrip("/")
            host, port = url.removeprefix("http://").rsplit(":", 1)
            tally = _run_apart(_drive, host, int(port), made.key, made.admin, learners,
                               seconds, interval, seed)
            rss = _peak_rss_mib(server.pid)
            cpu = _cpu_seconds(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=10)
        stored = store.count(db, WORKSHOP)
    posts = len(tally["latency"])
    accepted = tally["status"].get(200, 0)
    latency_ms = [x * 1000 for x in tally["latency"]]
    return {
        "learners": learners, "seconds": seconds, "interval_s": interval, "posts": posts,
        "accepted": accepted, "stored": stored, "pushed_to_live_page": tally["pushed"],
        "lost": accepted - stored, "lost_on_live_page": stored - tally["pushed"],
        "refused_or_failed": posts - accepted,
        "status_counts": {str(k): v for k, v in sorted(tally["status"].items())},
        "errors": tally["errors"][:5],
        "posts_per_s": round(posts / tally["wall_s"], 1),
        "p50_ms": round(statistics.median(latency_ms), 2) if latency_ms else None,
        "p99_ms": round(_percentile(latency_ms, 0.99), 2),
        "max_ms": round(max(latency_ms), 2) if latency_ms else None,
        # From when a post was due to its answer: includes any lag of the senders.
        "p99_from_due_ms": round(_percentile([x * 1000 for x in tally["late"]], 0.99), 2),
        "server_peak_rss_mib": rss,
        "server_cpu_s": round(cpu, 2) if cpu is not None else None,
        "server_cpu_ms_per_post": round(1000 * cpu / posts, 2) if cpu and posts else None,
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
