"""The instructor's web server (Starlette, run by uvicorn): learners post signed results to
``POST /api/results``; the instructor opens ``/w/WORKSHOP?token=ADMIN``, a table of learners
× steps that Server-Sent Events (``/w/WORKSHOP/events``) keep up to date without a reload,
and has ``/w/WORKSHOP/export.csv`` and ``POST /w/WORKSHOP/delete`` (the admin token again).

Every asset is in instructor/static/ (no CDN: the workshop room may have no internet)."""

from __future__ import annotations

import asyncio
import hmac
import html
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from instructor import guard, store

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 64 * 1024
# Seconds between keep-alive comments on an idle event stream (proxies close silent ones).
KEEPALIVE = 15.0
# Posts between two clean-ups of the nonces older than the timestamp window.
PURGE_EVERY = 500


@dataclass
class Hub:
    """The open event streams of each workshop: every stored result goes to each."""

    streams: dict[str, set[asyncio.Queue]] = field(default_factory=dict)

    def subscribe(self, workshop: str) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue(maxsize=10_000)
        self.streams.setdefault(workshop, set()).add(queue)
        return queue

    def unsubscribe(self, workshop: str, queue: asyncio.Queue) -> None:
        self.streams.get(workshop, set()).discard(queue)

    def publish(self, workshop: str, event: str, data: object) -> None:
        for queue in list(self.streams.get(workshop, ())):
            if not queue.full():  # a stalled page reloads its snapshot when it reconnects
                queue.put_nowait((event, data))


def sse(event: str, data: object) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def make_app(db_path: str | Path, rate: float = 5.0, burst: float = 20.0,
             clock: Callable[[], float] = time.time) -> Starlette:
    db = store.connect(db_path)
    limit = guard.RateLimit(rate, burst)
    hub = Hub()
    posts = 0

    def admin(request: Request) -> store.Workshop | Response:
        found = store.workshop(db, request.path_params["workshop"])
        token = request.query_params.get("token", "")
        if found is None:
            return PlainTextResponse("no such workshop", 404)
        if not hmac.compare_digest(found.admin.encode(), token.encode()):
            return PlainTextResponse("give the workshop's admin token (?token=...)", 403)
        return found

    async def post_results(request: Request) -> Response:
        nonlocal posts
        declared = request.headers.get("content-length", "")
        if not declared.isdigit() or int(declared) > MAX_BODY:
            return PlainTextResponse(f"give a Content-Length of at most {MAX_BODY}", 413)
        body = await request.body()
        if len(body) > MAX_BODY:
            return PlainTextResponse("too large", 413)
        try:
            data = json.loads(body)
            workshop_id, learner, results = data["workshop"], data["learner"], data["results"]
        except (ValueError, KeyError, TypeError):
            return PlainTextResponse("give JSON with workshop, learner and results", 400)
        now = clock()
        found = store.workshop(db, workshop_id) if isinstance(workshop_id, str) else None
        refusal = guard.check_signature(request.headers, body, found.key if found else None,
                                        now)
        if refusal is not None:
            return PlainTextResponse(refusal.reason, refusal.status)
        try:
            rows = store.parse_results(learner, results)
        except store.StoreError as err:
            return PlainTextResponse(str(err), 400)
        if not limit.allow(workshop_id, learner, now):
            return PlainTextResponse("too many posts: slow down", 429,
                                     headers={"Retry-After": "1"})
        if not store.remember_nonce(db, workshop_id, request.headers[guard.HEADER_NONCE], now):
            return PlainTextResponse("replayed: this nonce was used already", 409)
        new = store.store_results(db, workshop_id, rows, now)
        for row in new:
            hub.publish(workshop_id, "result", row.as_dict())
        posts += 1
        if posts % PURGE_EVERY == 0:
            store.forget_nonces(db, now - 2 * guard.WINDOW)
        return JSONResponse({"stored": len(new), "known": len(rows) - len(new)})

    async def page(request: Request) -> Response:
        found = admin(request)
        if isinstance(found, Response):
            return found
        text = (STATIC / "live.html").read_text()
        return HTMLResponse(text.replace("{{WORKSHOP}}", html.escape(found.id)))

    async def events(request: Request) -> Response:
        found = admin(request)
        if isinstance(found, Response):
            return found
        queue = hub.subscribe(found.id)
        snapshot = [row.as_dict() for row in store.latest(db, found.id)]

        async def stream():
            try:
                yield sse("snapshot", snapshot)
                while True:
                    try:
                        event, data = await asyncio.wait_for(queue.get(), KEEPALIVE)
                    except TimeoutError:
                        yield ": keep-alive\n\n"
                        continue
                    yield sse(event, data)
                    if event == "deleted":
                        return
            finally:
                hub.unsubscribe(found.id, queue)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    async def export(request: Request) -> Response:
        found = admin(request)
        if isinstance(found, Response):
            return found
        return PlainTextResponse(
            store.export_csv(db, found.id), media_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="{found.id}.csv"'})

    async def delete(request: Request) -> Response:
        found = admin(request)
        if isinstance(found, Response):
            return found
        removed = store.delete_workshop(db, found.id)
        hub.publish(found.id, "deleted", {"results": removed})
        return JSONResponse({"deleted": found.id, "results": removed})

    async def home(request: Request) -> Response:
        return PlainTextResponse("ZFS Field Labs instructor server: open /w/WORKSHOP?token=ADMIN "
                                 "(python -m instructor create prints it)\n")

    return Starlette(routes=[
        Route("/", home),
        Route("/api/results", post_results, methods=["POST"]),
        Route("/w/{workshop}", page),
        Route("/w/{workshop}/events", events),
        Route("/w/{workshop}/export.csv", export),
        Route("/w/{workshop}/delete", delete, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])
