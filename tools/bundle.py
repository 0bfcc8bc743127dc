"""``make bundle``: the course as one archive that runs without the internet or this repository.

    python tools/bundle.py [--out build/zfs-field-labs-offline.zip] [--site DIR]

The archive holds one folder, ``zfs-field-labs/``: the built site (``site/``), ``serve.py``
(tools/bundle_serve.py: a standard-library web server with the MIME types Pyodide needs, since
browsers do not run it from file:// pages) and ``README.txt``. Without ``--site`` the site is
built here with ``mkdocs build --strict`` for http://127.0.0.1:8000/, where serve.py serves it
first. The archive is reproducible: the same site gives the same bytes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOP = "zfs-field-labs"
SITE_URL = "http://127.0.0.1:8000/"
OUT = REPO / "build" / "zfs-field-labs-offline.zip"

README = """ZFS Field Labs, offline
=======================

Open courseware on OpenZFS and WireGuard, with simulations and terminals that run in your
browser. Nothing here needs the internet.

1. You need Python 3.8 or later (python.org, or your system's package manager) and a recent
   browser (Chromium, Chrome, Edge or Firefox).
2. In this folder, run:

       python3 serve.py --open

   (on Windows: py serve.py --open). It prints the address, http://127.0.0.1:8000/ unless that
   port is taken, and opens it. Ctrl+C stops it.

Why a server: the simulations run Python (Pyodide, WebAssembly) in the page, and browsers do
not load those from a file:// page, so opening site/index.html directly shows the text but no
working simulations. serve.py uses Python's standard library only and answers on 127.0.0.1
alone.

Contents: site/ is the built course; serve.py the server; this README.
"""


def build_site(dest: Path) -> None:
    env = {**os.environ, "SITE_URL": SITE_URL, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(dest)], cwd=REPO, env=env)
    if done.returncode != 0:
        raise SystemExit("mkdocs build --strict failed")


def _entry(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(f"{TOP}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def write_bundle(site: Path, out: Path) -> Path:
    """The archive of ``site`` with serve.py and README.txt at ``out``."""
    if not (site / "index.html").is_file():
        raise SystemExit(f"no built site at {site}")
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_suffix(".part")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        zf.writestr(_entry("README.txt", 0o644), README)
        zf.writestr(_entry("serve.py", 0o755), (REPO / "tools" / "bundle_serve.py").read_bytes())
        for path in sorted(p for p in site.rglob("*") if p.is_file()):
            zf.writestr(_entry(f"site/{path.relative_to(site).as_posix()}", 0o644),
                        path.read_bytes())
    partial.replace(out)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--site", type=Path, help="an already built site (default: build one)")
    args = parser.parse_args(argv)
    site = args.site
    if site is None:
        site = REPO / "build" / "bundle-site"
        build_site(site)
    out = write_bundle(site, args.out)
    print(f"{out} ({out.stat().st_size / 2**20:.1f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
