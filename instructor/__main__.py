"""python -m instructor COMMAND --db FILE ...

    create WORKSHOP           make a workshop: prints its learners' key and the live page's URL
    list                      the workshops
    serve [--host H --port P] the server (port 0: any free one; the first line says which)
    export WORKSHOP           every result as CSV on stdout
    delete WORKSHOP           remove the workshop, its key and every result
    pull WORKSHOP --lab LAB --exec 'incus exec {name} --' NAME...
                              run the checks in each learner environment, report them
    loadtest                  N simulated learners posting every second (make bench)
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
from pathlib import Path

from instructor import store


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m instructor",
                                     description="The workshop instructor's server.")
    parser.add_argument("--db", default="workshop.sqlite", help="the SQLite file")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("create", help="make a workshop")
    p.add_argument("workshop")
    p.add_argument("--url", default="http://127.0.0.1:8088",
                   help="where learners reach the server (for the printed workshop file)")
    sub.add_parser("list", help="the workshops")
    p = sub.add_parser("serve", help="run the server")
    p.add_argument("--host", default="127.0.0.1",
                   help="0.0.0.0 to take posts from the learners' network")
    p.add_argument("--port", type=int, default=8088)
    p.add_argument("--rate", type=float, default=5.0, help="posts a second per learner")
    p.add_argument("--burst", type=float, default=20.0, help="posts at once per learner")
    p = sub.add_parser("export", help="every result as CSV")
    p.add_argument("workshop")
    p = sub.add_parser("delete", help="remove a workshop and its data")
    p.add_argument("workshop")
    p = sub.add_parser("pull", help="run the checks in each learner environment")
    p.add_argument("workshop")
    p.add_argument("learners", nargs="+", help="the learners' environments (their pseudonyms)")
    p.add_argument("--lab", required=True)
    p.add_argument("--kit", choices=("labkit", "netkit"), default="labkit")
    p.add_argument("--exec", dest="exec_prefix", required=True,
                   help="the command that runs a command in an environment; {name} is its "
                   "name (default: appended), e.g. 'incus exec {name} --'")
    p.add_argument("--labs-dir", default="/labs", help="the labs' folder in the environment")
    p.add_argument("--check", help="the command to run there instead of the kit's verify")
    p.add_argument("--url", help="the server to report to (default: print only)")
    p = sub.add_parser("loadtest", help="simulated learners against a fresh server")
    p.add_argument("--learners", type=int, default=20)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args(argv)

    if args.command == "loadtest":
        from instructor import loadtest

        print(json.dumps(loadtest.run(args.learners, args.seconds, args.interval), indent=1))
        return 0
    db = store.connect(args.db)
    try:
        if args.command == "create":
            made = store.create_workshop(db, args.workshop)
            print(f"workshop {made.id} made in {args.db}\n\n"
                  f"live page (keep it to yourself: the token deletes data):\n"
                  f"  {args.url.rstrip('/')}/w/{made.id}?token={made.admin}\n\n"
                  "each learner environment's /etc/zfl/workshop.toml (learner: a pseudonym, "
                  "never a name):\n"
                  f'  url = "{args.url}"\n  workshop = "{made.id}"\n  key = "{made.key}"\n'
                  '  learner = "learner-01"')
            return 0
        if args.command == "list":
            for w in store.workshops(db):
                print(f"{w.id}\t{store.count(db, w.id)} results\t/w/{w.id}?token={w.admin}")
            return 0
        if args.command == "export":
            if store.workshop(db, args.workshop) is None:
                raise store.StoreError(f"no workshop {args.workshop!r}")
            sys.stdout.write(store.export_csv(db, args.workshop))
            return 0
        if args.command == "delete":
            removed = store.delete_workshop(db, args.workshop)
            print(f"deleted workshop {args.workshop}: its key and {removed} results")
            return 0
        if args.command == "serve":
            return serve(args)
        if args.command == "pull":
            return pull(db, args)
    except store.StoreError as err:
        print(f"instructor: {err}", file=sys.stderr)
        return 2
    return 2


def serve(args) -> int:
    import uvicorn

    from instructor.app import make_app

    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    # Listening before the line below is printed: a client that read it may connect at once
    # (its connection waits in the backlog while uvicorn starts).
    sock.listen(2048)
    host, port = sock.getsockname()[:2]
    print(f"serving {Path(args.db).resolve()} on http://{host}:{port}/", flush=True)
    config = uvicorn.Config(make_app(args.db, args.rate, args.burst), log_level="warning",
                            access_log=False, timeout_graceful_shutdown=1)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def pull(db, args) -> int:
    from instructor import pull as pulling
    from labsteps import report as reporting

    found = store.workshop(db, args.workshop)
    if found is None:
        raise store.StoreError(f"no workshop {args.workshop!r}")
    config = (reporting.Config(args.url, found.id, "-", found.key) if args.url else None)
    check = (args.check or pulling.CHECKS[args.kit]).replace("{lab}", args.lab)
    failed = 0
    for learner in args.learners:
        pulled = pulling.pull(learner, args.exec_prefix, check, args.labs_dir, config)
        print(pulled.line())
        failed += bool(pulled.problem)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
