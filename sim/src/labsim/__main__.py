"""``python -m labsim [SCRIPT]``: run command lines and print a transcript.

Each command is echoed as ``$ command`` followed by its output, like a terminal
session. Commands come from SCRIPT, or from standard input when SCRIPT is omitted or
is ``-``. The exit status is 0 unless ``--errexit`` is given, which stops at the first
failing command and exits with its status (like ``set -e``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from labsim.shell.session import Session, script_commands, transcript
from labsim.zfs.versions import DEFAULT_VERSION, VERSIONS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="labsim", description=__doc__.splitlines()[0])
    parser.add_argument("script", nargs="?", default="-",
                        help="file of command lines (default: standard input)")
    parser.add_argument("--zfs-version", choices=sorted(VERSIONS), default=DEFAULT_VERSION.name,
                        help="which OpenZFS behaviour to simulate (default: %(default)s)")
    parser.add_argument("-e", "--errexit", action="store_true",
                        help="stop at the first failing command and exit with its status")
    parser.add_argument("--prompt", default="$ ", help="prefix of each echoed command")
    args = parser.parse_args(argv)

    try:
        text = sys.stdin.read() if args.script == "-" else Path(args.script).read_text()
    except OSError as err:
        parser.error(f"cannot read {args.script}: {err.strerror}")
    session = Session(version=VERSIONS[args.zfs_version])
    # A loop, a here-document or an open quote goes on over several lines, as bash reads it.
    for line in script_commands(text):
        result = session.run(line)
        sys.stdout.write(transcript([(line, result)], prompt=args.prompt))
        sys.stdout.flush()
        if args.errexit and result.status:
            return result.status
    return 0


def run() -> int:
    """main(), quiet when the reader of the transcript stops early (`| head`), as the
    coreutils are: the remaining output is dropped, not a traceback."""
    try:
        return main()
    except BrokenPipeError:
        # Point stdout at /dev/null so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, the status a shell reports for such a command


if __name__ == "__main__":
    sys.exit(run())
