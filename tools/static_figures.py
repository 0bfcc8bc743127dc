"""Static SVG images of the lessons' charts, made at site build time (tools/mkdocs_hooks.py).

A widget's first chart is a figure from labsim's figure builders (``labsim.web.initial_payload``);
the page draws it with plotly.js. For readers without JavaScript and for print, the site build
draws the SAME figure with the SAME plotly.js bundle and the same layout theming
(docs/javascripts/labsim-figure.js, ``staticSvg``) in Debian's headless chromium, and exports it
with ``Plotly.toImage(..., {format: "svg"})``.

(PyPI's kaleido 1.5 does work offline with Debian's chromium, given BROWSER_PATH=/usr/bin/chromium:
about 6 s for one figure here, with the full plotly.js 4.1.1 of the Python plotly package. It is
not used: it would be one more dependency, would not apply the page's layout theming
(labsim-figure.js), and would draw with another bundle than the page's; Playwright and
chromium are what the browser tests use already.)

Images are cached under ``build/static-figures/`` by a hash of the figure's JSON, the plotly.js
bundle and labsim-figure.js: an unchanged build starts no browser.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PLOTLY = REPO / "node_modules" / "plotly.js-basic-dist-min" / "plotly-basic.min.js"
FIGURE_MODULE = REPO / "docs" / "javascripts" / "labsim-figure.js"
WIDTH = 720  # px, as STATIC_WIDTH in labsim-figure.js
CACHE = REPO / "build" / "static-figures"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [  # as tools/chromium.py (this module must not depend on sys.path)
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


class StaticFigureError(RuntimeError):
    pass


def _renderer_key() -> bytes:
    digest = hashlib.sha256()
    for path in (PLOTLY, FIGURE_MODULE):
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.digest()


def figure_name(figure: dict, renderer_key: bytes) -> str:
    """The image's file name: the hash of what it is drawn from."""
    text = json.dumps(figure, sort_keys=True, separators=(",", ":"), allow_nan=False)
    digest = hashlib.sha256(renderer_key + text.encode()).hexdigest()[:16]
    return f"figure-{digest}.svg"


def renderer_key() -> bytes:
    if not PLOTLY.is_file():
        raise StaticFigureError(f"missing {PLOTLY} (run `npm install`)")
    return _renderer_key()


def render(figures: dict[str, dict], cache: Path = CACHE) -> dict[str, Path]:
    """The SVG file of each figure (name -> figure, names from figure_name), drawing in one
    chromium those the cache does not have yet."""
    missing = {name: fig for name, fig in figures.items() if not (cache / name).is_file()}
    if missing:
        cache.mkdir(parents=True, exist_ok=True)
        for name, svg in _draw(missing).items():
            partial = cache / f"{name}.part"
            partial.write_text(svg)
            partial.rename(cache / name)
    for old in cache.glob("figure-*.svg"):  # figures no page shows any more
        if old.name not in figures:
            old.unlink()
    return {name: cache / name for name in figures}


def _draw(figures: dict[str, dict]) -> dict[str, str]:
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError as err:
        raise StaticFigureError("the static figures need Playwright "
                                "(requirements-dev.txt)") from err
    if not Path(CHROMIUM).exists():
        raise StaticFigureError(f"the static figures need chromium at {CHROMIUM} "
                                "(Debian package chromium; `make host-tools`)")
    module = base64.b64encode(FIGURE_MODULE.read_bytes()).decode()
    out: dict[str, str] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page()
                page.route("**/*", lambda route: route.abort())  # nothing leaves the machine
                page.set_content("<!doctype html><html><body></body></html>")
                page.add_script_tag(content=PLOTLY.read_text())
                for name, figure in figures.items():
                    out[name] = page.evaluate(
                        """async ([module, figure]) => {
                          const m = await import(`data:text/javascript;base64,${module}`);
                          return m.staticSvg(window.Plotly, figure);
                        }""", [module, figure])
            finally:
                browser.close()
    except Error as err:
        raise StaticFigureError(f"chromium could not draw the static figures: {err}") from err
    return {name: _tidy(svg, name) for name, svg in out.items()}


def _tidy(svg: str, name: str) -> str:
    """plotly's SVG, with a viewBox (so that it scales to the width it is shown at), and the
    same bytes for the same figure: plotly names its clip paths after a random id, replaced
    here by one from the file name."""
    marker = 'id="defs-'
    if marker in svg:
        start = svg.index(marker) + len(marker)
        uid = svg[start:svg.index('"', start)]
        svg = svg.replace(uid, name.removeprefix("figure-")[:len(uid)])
    head_end = svg.index(">")
    head = svg[:head_end]
    if "viewBox" not in head:
        width = _attr(head, "width")
        height = _attr(head, "height")
        head += f' viewBox="0 0 {width} {height}"'
    return '<?xml version="1.0" encoding="utf-8"?>\n' + head + svg[head_end:] + "\n"


def _attr(tag: str, name: str) -> str:
    marker = f' {name}="'
    start = tag.index(marker) + len(marker)
    return tag[start:tag.index('"', start)]


def copy_into(site_dir: Path, files: dict[str, Path]) -> None:
    """Put the images under <site>/assets/figures/, and remove those no page uses any more."""
    dest = site_dir / "assets" / "figures"
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob("figure-*.svg"):
        if old.name not in files:
            old.unlink()
    for name, path in files.items():
        shutil.copyfile(path, dest / name)
