"""``make handouts``: the built site's handouts and slides as PDF files.

    python tools/handouts_pdf.py [SITE [OUT]]      (defaults: site, build/handouts)

Each handout page (``SITE/handouts/TRACK-EDITION/``, tools/handouts.py) is printed by Debian's
chromium through Playwright, as a reader's browser prints it: the site's print stylesheet
leaves out controls and terminals, fits the figures to the page and starts each lesson on a
new sheet. Each lesson's deck (``SITE/slides/ID/slides.md``, tools/slides.py) is printed by
Marp itself (``marp --pdf``) with the same chromium. Nothing is fetched from the internet.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chromium import CHROMIUM, launch  # noqa: E402
from slides import MARP_CONFIG, MARP_PACKAGE, marp_version  # noqa: E402
from static_server import start  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
MARGIN = {"top": "14mm", "bottom": "14mm", "left": "14mm", "right": "14mm"}


def print_handouts(site: Path, out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    pages = sorted(p.parent.name for p in (site / "handouts").glob("*/index.html"))
    if not pages:
        raise SystemExit(f"no handouts in {site}/handouts: build the site first (make build)")
    server, url = start(site)
    made = []
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page()
            for name in pages:
                page.goto(f"{url}handouts/{name}/", wait_until="load")
                # Lazy images below the fold would print empty: load them all first.
                page.evaluate("""() => Promise.all([...document.images].map(img => {
                    img.loading = 'eager';
                    return img.complete ? null : new Promise(done => {
                        img.addEventListener('load', done); img.addEventListener('error', done);
                    });
                }))""")
                path = out / f"handout-{name}.pdf"
                page.pdf(path=str(path), format="A4", margin=MARGIN, print_background=True)
                made.append(path)
            browser.close()
    finally:
        server.shutdown()
    return made


def print_slides(site: Path, out: Path) -> list[Path]:
    marp_version()  # says what to install when Marp is missing
    if not list((site / "slides").glob("*/slides.md")):
        raise SystemExit(f"no slides in {site}/slides: build the site first (make build)")
    with tempfile.TemporaryDirectory() as work:
        # One Marp run for every deck: -I keeps the folders, SITE/slides/ID/slides.md gives
        # WORK/ID/slides.pdf.
        done = subprocess.run(
            ["node", str(MARP_PACKAGE / "marp-cli.js"), "--no-stdin", "--config-file",
             str(MARP_CONFIG), "--pdf", "--allow-local-files", "--browser-path", CHROMIUM,
             "--parallel", "2", "-I", str(site / "slides"), "-o", work],
            capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"marp --pdf:\n{done.stderr or done.stdout}")
        made = []
        for pdf in sorted(Path(work).glob("*/slides.pdf")):
            path = out / f"slides-{pdf.parent.name}.pdf"
            shutil.move(pdf, path)
            made.append(path)
    return made


def main(argv: list[str]) -> None:
    site = Path(argv[0] if argv else REPO / "site").resolve()
    out = Path(argv[1] if len(argv) > 1 else REPO / "build" / "handouts").resolve()
    out.mkdir(parents=True, exist_ok=True)
    for path in print_handouts(site, out) + print_slides(site, out):
        print(f"{path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path} "
              f"({path.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main(sys.argv[1:])
