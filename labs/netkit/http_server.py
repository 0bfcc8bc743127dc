"""A tiny web server for network labs: every GET answers ``HOST: request from CLIENT_IP``.

The answer says which address the request came from, so a lab can prove what a router did
to it (after masquerading, the gateway's address instead of the client's). netkit starts
one in a host's namespaces for each ``http:PORT`` service of the topology:

    python3 http_server.py --host web --port 80

labsim models the same server (labsim.net.model.start_http_server). Standard library only.
"""

from __future__ import annotations

import argparse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def answer(host: str, client: str) -> str:
    return f"{host}: request from {client}\n"


def handler(host: str) -> type[BaseHTTPRequestHandler]:
    """A request handler answering as ``host`` (http.server logs each request on stderr,
    which netkit keeps in the service's log file)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            body = answer(host, self.client_address[0]).encode()
            # Status line, Server, Date and Content-Length only, in one write, then the body:
            # labsim.net.delivery counts the bytes of exactly these two segments.
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", required=True, help="the name to answer with")
    parser.add_argument("--port", type=int, default=80)
    parser.add_argument("--bind", default="0.0.0.0")
    args = parser.parse_args(argv)
    with ThreadingHTTPServer((args.bind, args.port), handler(args.host)) as server:
        server.serve_forever()


if __name__ == "__main__":
    main()
