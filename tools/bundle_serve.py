#!/usr/bin/env python3
"""ZFS Field Labs, offline: serve the course in this folder on http://127.0.0.1:8000/.

    python3 serve.py                 serve on port 8000 (the next free one if it is taken)
    python3 serve.py --port 8123     another port (0: any free one)
    python3 serve.py --open          also open the course in the default browser

The simulations run Python (Pyodide) in the browser, which browsers refuse to load from
file:// pages, so the course needs this small web server. It uses Python's standard library
only, listens on 127.0.0.1 alone (nothing on the network can reach it), and stops with Ctrl+C.

(This file is tools/bundle_serve.py in the course's repository; `make bundle` puts it into the
archive as serve.py, next to the built site.)
"""

from __future__ import annotations

import argparse
import functools
import sys
import threading
import webbrowser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

SITE = Path(__file__).resolve().parent / "site"
DEFAULT_PORT = 8000  # the site was built for http://127.0.0.1:8000/ (instant page changes)


class Handler(SimpleHTTPRequestHandler):
    # WebAssembly must be application/wasm to compile while it downloads, module scripts
    # text/javascript; the standard library's table lacks or varies on these.
    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".html": "text/html; charset=utf-8",
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".css": "text/css",
        ".json": "application/json",
        ".map": "application/json",
        ".wasm": "application/wasm",
        ".whl": "application/zip",
        ".zip": "application/zip",
        ".gz": "application/gzip",
        ".svg": "image/svg+xml",
        ".xml": "application/xml",
    }

    def log_message(self, format, *args):  # noqa: A002 - a quiet server
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a closed tab is no error
            super().handle_error(request, client_address)


def serve(site: Path, port: int) -> Server:
    """A server for ``site`` on 127.0.0.1:``port``, or on the next free port above it."""
    handler = functools.partial(Handler, directory=str(site))
    for candidate in ([port] if port == 0 else range(port, port + 20)):
        try:
            return Server(("127.0.0.1", candidate), handler)
        except OSError:
            continue
    return Server(("127.0.0.1", 0), handler)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Serve the ZFS Field Labs course offline.")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--open", action="store_true", help="open it in the default browser")
    args = parser.parse_args(argv)
    if not (SITE / "index.html").is_file():
        print(f"no course at {SITE}: unpack the whole archive and run serve.py from it",
              file=sys.stderr)
        return 2
    server = serve(SITE, args.port)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    print(f"ZFS Field Labs: open {url} in your browser (Ctrl+C stops the server)", flush=True)
    if args.open:
        threading.Timer(0.5, webbrowser.open, (url,)).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
