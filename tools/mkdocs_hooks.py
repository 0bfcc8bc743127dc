"""MkDocs hooks: the site machinery behind the in-page simulations.

On every build (``mkdocs build`` and ``mkdocs serve`` alike) this module

* copies the browser assets from ``node_modules/`` into ``<site>/assets/vendor/`` (Pyodide's five
  core files, plotly.js, xterm.js and its fit addon, web-tree-sitter and tree-sitter-bash's
  grammar), so nothing is ever fetched from a CDN;
* packs the simulator ``sim/src/labsim`` into a pure-Python wheel at
  ``<site>/assets/wheels/labsim-<version>-py3-none-any.whl`` plus ``labsim.json`` (name, version,
  sha256, snapshot) that the Web Worker reads;
* makes, with Node, a Pyodide memory snapshot with that wheel's labsim imported
  (tools/pyodide_snapshot.mjs, cached under ``build/pyodide-snapshots/`` by wheel, Pyodide and
  script), from which the worker starts Python in a fraction of a normal start;
* embeds, into every ``<div class="labsim-widget" data-scenario="...">`` of a page, the scenario's
  controls and first result computed here in CPython (``labsim.web.initial_payload``), so the
  first chart renders with plotly.js without waiting for Python in the browser;
* draws each widget's first chart to SVG at build time (tools/static_figures.py: the same
  figure, plotly.js bundle and layout theming in Debian's chromium, cached under
  ``build/static-figures/``), shown without JavaScript, in print and until the live chart is
  drawn; puts in each terminal the lesson's first session with labsim's output
  (tools/terminal_transcripts.py), shown without JavaScript; marks "Things to try", which
  names a widget's controls, to be hidden without JavaScript;
* puts, under the title of every page with a ZFS terminal (one without ``data-network``) or a
  widget with a release control, an empty, hidden ``<div class="zfl-release">`` holding the
  releases the page's OpenZFS release selector offers (``labsim.web.release_choices``); the
  page's glue renders the selector into it, so a reader without JavaScript sees no dead control;
* replaces ``[[zfs:VERSION:FIELD]]`` in every page's Markdown with that field of the release in
  ``labsim.zfs.versions`` (``[[zfs:2.3:default_volblocksize]]`` is ``16K``), so numbers in the
  prose are the simulator's; an unknown release, field or format is a build error naming the
  page (see ``zfs_substitute``).

Pages without a widget or terminal get nothing extra (the small ``javascripts/site.js`` loads the
heavy parts only when a page needs them). The markup convention is documented in
docs/contributing.md, section "Widgets and terminals".

``LABSIM_SRC`` (environment) points the build at another ``src`` directory holding a ``labsim``
package; the default is ``sim/src`` of this repository.
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import hashlib
import html
import importlib
import io
import json
import logging
import mimetypes
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import static_figures  # noqa: E402 - tools/, next to this hook
import terminal_transcripts  # noqa: E402

log = logging.getLogger("mkdocs.hooks.labsim")

REPO = Path(__file__).resolve().parent.parent
NODE_MODULES = REPO / "node_modules"
SIM_SRC = Path(os.environ.get("LABSIM_SRC") or REPO / "sim" / "src").resolve()
PYPROJECT = REPO / "sim" / "pyproject.toml"
SNAPSHOT_SCRIPT = REPO / "tools" / "pyodide_snapshot.mjs"
SNAPSHOT_CACHE = REPO / "build" / "pyodide-snapshots"

# (file under node_modules, destination under <site>/assets/vendor)
VENDOR_FILES = [
    *((f"pyodide/{name}", f"pyodide/{name}") for name in (
        "pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
        "pyodide-lock.json")),
    # plotly.js's basic bundle (scatter, bar, pie: PLOTLY_TRACES): a quarter of the full
    # bundle, parsed in a quarter of the time on the page's main thread.
    ("plotly.js-basic-dist-min/plotly-basic.min.js", "plotly/plotly.min.js"),
    ("@xterm/xterm/lib/xterm.mjs", "xterm/xterm.mjs"),
    ("@xterm/xterm/css/xterm.css", "xterm/xterm.css"),
    ("@xterm/addon-fit/lib/addon-fit.mjs", "xterm/addon-fit.mjs"),
    # The shell's grammar for the page's terminal (labsim.shell.syntax.backend), loaded by the
    # worker the first time a terminal runs a line.
    ("web-tree-sitter/tree-sitter.js", "tree-sitter/tree-sitter.js"),
    ("web-tree-sitter/tree-sitter.wasm", "tree-sitter/tree-sitter.wasm"),
    ("tree-sitter-bash/tree-sitter-bash.wasm", "tree-sitter/tree-sitter-bash.wasm"),
]

# The trace types of plotly.js's basic bundle: a widget whose figure has another is a build
# error (the chart would stay empty in the page).
PLOTLY_TRACES = frozenset({"scatter", "bar", "pie"})

WIDGET_TAG = re.compile(r"<div\b[^>]*\bclass\s*=\s*([\"'])(?:(?!\1).)*\blabsim-widget\b[^>]*>",
                        re.S)
TERMINAL_TAG = re.compile(r"<div\b[^>]*\bclass\s*=\s*([\"'])(?:(?!\1).)*\blabsim-terminal\b", re.S)
TERMINAL_FULL_TAG = re.compile(
    r"<div\b[^>]*\bclass\s*=\s*([\"'])(?:(?!\1).)*\blabsim-terminal\b[^>]*>", re.S)
# [[zfs:2.3:default_volblocksize]], [[zfs:2.1:metaslab_aliquot|iec]]; a backslash before it
# (\[[zfs:...]]) keeps it as written, for pages that show the syntax.
ZFS_TOKEN = re.compile(r"(\\?)\[\[zfs:([^\]\s]*?)\]\]")
ATTR = re.compile(r"([\w:-]+)\s*=\s*(\"[^\"]*\"|'[^']*')")

# The served MIME types must be right for module scripts and streaming WebAssembly compilation;
# `mkdocs serve` and the test server both go through the mimetypes module.
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("application/wasm", ".wasm")
mimetypes.add_type("application/json", ".map")


class _Build:
    """State of the current build: the wheel and the payloads computed so far."""

    def __init__(self) -> None:
        self.wheel_name = ""
        self.wheel_bytes = b""
        self.version = ""
        self.sha256 = ""
        self.web = None
        self.versions = None  # labsim.zfs.versions, for [[zfs:...]]
        self.nicenum = None
        self.limits = None  # labsim.limits, for [[labsim:limits]]
        self.payloads: dict[tuple[str, str], str] = {}
        self.results: dict[tuple[str, str], dict] = {}  # the first results, by (scenario, params)
        self.release_controls: dict[str, bool] = {}
        self.figure_key = b""  # static_figures.renderer_key()
        self.figures: dict[str, dict] = {}  # static image file name -> figure
        self.sessions: dict[str, list] = {}  # page -> its first session, run (terminal_transcripts)


_build = _Build()


# ---------------------------------------------------------------------------------------------
# The labsim wheel
# ---------------------------------------------------------------------------------------------

def _labsim_version() -> str:
    try:
        return tomllib.loads(PYPROJECT.read_text())["project"]["version"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "0"


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def build_wheel(src: Path = SIM_SRC, version: str | None = None) -> tuple[str, bytes]:
    """A reproducible pure-Python wheel of ``src/labsim`` (same sources -> same bytes).

    Written directly with zipfile: a few milliseconds instead of seconds for ``pip wheel``,
    and no build backend is needed. Pyodide installs it with ``unpackArchive(bytes, "wheel")``.
    """
    version = version or _labsim_version()
    package = src / "labsim"
    if not (package / "__init__.py").is_file():
        raise PluginError(f"labsim sources not found at {package}")
    files: list[tuple[str, bytes]] = []
    for path in sorted(package.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts or path.suffix in {".pyc", ".pyo"}:
            continue
        files.append((path.relative_to(src).as_posix(), path.read_bytes()))
    dist_info = f"labsim-{version}.dist-info"
    files.append((f"{dist_info}/METADATA",
                  f"Metadata-Version: 2.1\nName: labsim\nVersion: {version}\n".encode()))
    files.append((f"{dist_info}/WHEEL",
                  b"Wheel-Version: 1.0\nGenerator: zfs-field-labs mkdocs hook\n"
                  b"Root-Is-Purelib: true\nTag: py3-none-any\n"))
    record = "".join(f"{name},{_record_hash(data)},{len(data)}\n" for name, data in files)
    record += f"{dist_info}/RECORD,,\n"
    files.append((f"{dist_info}/RECORD", record.encode()))

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return f"labsim-{version}-py3-none-any.whl", buf.getvalue()


def _import_labsim_web():
    """Import labsim.web from SIM_SRC, fresh (``mkdocs serve`` rebuilds after edits); the
    modules [[zfs:...]] reads come along (labsim.zfs.versions, labsim.format.numbers)."""
    for name in [n for n in sys.modules if n == "labsim" or n.startswith("labsim.")]:
        del sys.modules[name]
    if str(SIM_SRC) in sys.path:
        sys.path.remove(str(SIM_SRC))
    sys.path.insert(0, str(SIM_SRC))
    importlib.invalidate_caches()
    return importlib.import_module("labsim.web")


# ---------------------------------------------------------------------------------------------
# [[zfs:VERSION:FIELD]]: numbers in the prose from labsim.zfs.versions
# ---------------------------------------------------------------------------------------------

ZFS_FORMATS = ("", "iec", "raw")
LIMITS_TOKEN = "[[labsim:limits]]"


def _iec(value: int) -> str:
    """Bytes as the lessons' prose writes them: 512 KiB, 1 MiB, 1.5 GiB, 128 MiB."""
    for shift, unit in ((60, "EiB"), (50, "PiB"), (40, "TiB"), (30, "GiB"), (20, "MiB"),
                        (10, "KiB")):
        if value >= 1 << shift:
            return f"{value / (1 << shift):.4g} {unit}"
    return f"{value} B"


def zfs_value(spec: str, versions, nicenum) -> str:
    """The text for the inside of one ``[[zfs:...]]``: ``VERSION:FIELD`` or
    ``VERSION:FIELD|FORMAT``; ValueError, with what is known, for anything unknown.

    VERSION is a name of ``versions.VERSIONS`` ("2.3", "2.1", "0.6.5") or ``default``. FIELD
    is a field of ``ZfsVersion``: text as it is (``release`` is "2.3.9"), an enum by its
    value, true/false as yes/no, a fraction as a number, and an integer as a size the way the
    OpenZFS tools print one (``nicenum``: 16K, 1M, 128G), except ``*_shift`` fields, which
    are plain numbers (a count of 1024 or more needs ``|raw``).
    FORMAT ``iec`` writes a size as the prose does (512 KiB, 1 MiB), ``raw`` as a number.
    """
    body, _, fmt = spec.partition("|")
    name, _, field_name = body.partition(":")
    if fmt not in ZFS_FORMATS:
        raise ValueError(f"unknown format {fmt!r} (known: iec, raw)")
    if name == "default":
        version = versions.DEFAULT_VERSION
    elif name in versions.VERSIONS:
        version = versions.VERSIONS[name]
    else:
        known = ", ".join(["default", *versions.VERSIONS])
        raise ValueError(f"unknown OpenZFS version {name!r} (known: {known})")
    fields = [f.name for f in dataclasses.fields(version)]
    if field_name not in fields:
        raise ValueError(f"unknown field {field_name!r} of labsim.zfs.versions.ZfsVersion "
                         f"(known: {', '.join(fields)})")
    value = getattr(version, field_name)
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        if fmt == "raw" or field_name.endswith("_shift"):
            return str(value)
        return _iec(value) if fmt == "iec" else nicenum(value)
    if isinstance(value, float):
        return f"{value:g}"
    what = "no value" if value is None else f"a {type(value).__name__}, not a single value"
    raise ValueError(f"{field_name} of {version.name} is {what}")


def zfs_substitute(markdown: str, page_name: str, versions, nicenum) -> tuple[str, list[str]]:
    """``markdown`` with every ``[[zfs:...]]`` replaced, and the errors (each naming the page
    and the token; a wrong token stays as written)."""
    errors: list[str] = []

    def replace(match: re.Match) -> str:
        if match.group(1):  # \[[zfs:...]]: shown as written
            return match.group(0)[1:]
        try:
            return zfs_value(match.group(2), versions, nicenum)
        except ValueError as err:
            errors.append(f"{page_name}: {match.group(0)}: {err}")
            return match.group(0)

    return ZFS_TOKEN.sub(replace, markdown), errors


# ---------------------------------------------------------------------------------------------
# The OpenZFS release selector's place on a page
# ---------------------------------------------------------------------------------------------

def _has_release_control(scenario: str) -> bool:
    if scenario not in _build.release_controls:
        try:
            _build.release_controls[scenario] = _build.web.has_release_control(scenario)
        except Exception:  # an unknown scenario: its widget reports the error
            _build.release_controls[scenario] = False
    return _build.release_controls[scenario]


def is_zfs_page(html_text: str) -> bool:
    """A page with a ZFS terminal (a machine of its own: no data-network) or a widget whose
    scenario has a release control gets the release selector."""
    if any("data-network" not in _attrs(m.group(0)) for m in TERMINAL_FULL_TAG.finditer(html_text)):
        return True
    return any(_has_release_control(_attrs(m.group(0)).get("data-scenario", ""))
               for m in WIDGET_TAG.finditer(html_text))


def _release_slot() -> str:
    choices = json.dumps(_build.web.release_choices(), separators=(",", ":"))
    return f'<div class="zfl-release" data-choices="{html.escape(choices)}" hidden></div>'


# ---------------------------------------------------------------------------------------------
# Widget payloads
# ---------------------------------------------------------------------------------------------

def _attrs(tag: str) -> dict[str, str]:
    return {k.lower(): html.unescape(v[1:-1]) for k, v in ATTR.findall(tag)}


def _payload_json(scenario: str, params: str) -> str:
    """The JSON embedded for one widget: {"describe", "result"} (computed once per build)."""
    key = (scenario, params)
    if key not in _build.payloads:
        payload = _build.web.initial_payload(scenario, json.loads(params) if params else None)
        traces = {t.get("type", "scatter") for t in payload["result"]["figure"].get("data", [])}
        if traces - PLOTLY_TRACES:
            raise ValueError(f"trace types {sorted(traces - PLOTLY_TRACES)} are not in the "
                             "site's plotly.js bundle (plotly.js-basic-dist-min)")
        _build.results[key] = payload["result"]
        text = json.dumps(payload, separators=(",", ":"), allow_nan=False)
        # The payload lives in a <template>: escape it as HTML text.
        _build.payloads[key] = html.escape(text, quote=False)
    return _build.payloads[key]


def _static_figure(scenario: str, params: str, base: str) -> str:
    """The chart as an image drawn at build time (tools/static_figures.py), with its summary
    and the commands behind it: what a reader without JavaScript, and print, see. The page's
    glue hides it once the live chart is drawn."""
    result = _build.results[(scenario, params)]
    figure = result["figure"]
    name = static_figures.figure_name(figure, _build.figure_key)
    _build.figures[name] = figure
    title = figure.get("layout", {}).get("title")
    title = title.get("text", "") if isinstance(title, dict) else (title or "")
    title = re.sub(r"<[^>]+>", " ", title).strip()
    summary = (result.get("summary") or "").strip()
    alt = f"Chart: {title}." if title else "Chart of the simulation."
    height = figure.get("layout", {}).get("height", 380)
    parts = [f'<figure class="labsim-static">'
             f'<img src="{base}assets/figures/{name}" alt="{html.escape(alt)}" '
             f'width="{static_figures.WIDTH}" height="{height}" loading="lazy">'
             f'<figcaption>']
    if summary:
        parts.append(f'<span class="labsim-static__summary">{html.escape(summary)}</span>')
    parts.append('<span class="labsim-static__note">The simulation with the lesson\'s settings, '
                 'drawn when the site was built. With JavaScript on, the chart is live and its '
                 'settings can be changed.</span></figcaption>')
    if result.get("transcript"):
        commands = html.escape(result["transcript"])
        parts.append('<details class="labsim-static__transcript"><summary>Commands behind '
                     f'this chart</summary><pre><code>{commands}</code></pre></details>')
    parts.append("</figure>")
    return "".join(parts)


def _embed_widget(match: re.Match, page_name: str, base: str) -> str:
    tag = match.group(0)
    attrs = _attrs(tag)
    scenario = attrs.get("data-scenario", "")
    if not scenario:
        log.error("%s: labsim-widget without data-scenario", page_name)
        return tag
    try:
        body = _payload_json(scenario, attrs.get("data-params", ""))
    except Exception as exc:  # an error in the lesson's scenario must not stop `mkdocs serve`
        log.error("%s: scenario %r failed at build time: %s: %s", page_name, scenario,
                  type(exc).__name__, exc)
        message = html.escape(f"Simulation {scenario!r} failed to build: {exc}")
        return f'{tag}<p class="labsim-error">{message}</p>'
    tag = tag[:-1] + f' data-build="{_build.sha256[:12]}">'
    # Not <script type="application/json">: instant navigation re-creates every <script> in the
    # swapped content without its type, which would run the JSON as JavaScript.
    static = _static_figure(scenario, attrs.get("data-params", ""), base)
    return f'{tag}<template class="labsim-payload">{body}</template>{static}'


def _embed_terminal(match: re.Match, page_name: str) -> str:
    """Inside a terminal's <div>: the lesson's first session with labsim's output, for a
    reader without JavaScript (tools/terminal_transcripts.py)."""
    tag = match.group(0)
    attrs = {k.removeprefix("data-"): v for k, v in _attrs(tag).items()}
    terminal = terminal_transcripts.Terminal.from_attrs(attrs)
    steps = _build.sessions.get(page_name, [])
    release = _build.versions.DEFAULT_VERSION.release
    return tag + terminal_transcripts.transcript_html(terminal, steps, release)


# "Things to try" after a widget names its controls, which a reader without JavaScript does
# not have: marked so that the stylesheet hides it then (html.no-js, see _NO_JS).
THINGS_TO_TRY_ADMONITION = re.compile(
    r'<div class="admonition ([^"]*)">(\s*<p class="admonition-title">Things to try</p>)')
THINGS_TO_TRY_LIST = re.compile(r"<p>Things to try:</p>\s*<ul>.*?</ul>", re.S)


def mark_things_to_try(html_text: str) -> str:
    html_text = THINGS_TO_TRY_ADMONITION.sub(
        r'<div class="admonition \1 zfl-needs-js">\2', html_text)
    return THINGS_TO_TRY_LIST.sub(lambda m: f'<div class="zfl-needs-js">{m.group(0)}</div>',
                                  html_text)


# Material's <html class="no-js"> loses no-js when its bundle runs, at the end of <body>: on a
# page with simulations it goes at once, so that nothing meant for readers without JavaScript
# flashes up first.
_NO_JS = "<script>document.documentElement.classList.replace('no-js','js')</script>"


# Started from <head>, before the page's scripts: the worker's start (its module, Pyodide and
# the snapshot) overlaps with the page's own start-up instead of waiting for it.
# labsim-page.js takes the worker over, with the messages it posted before it was there.
_EARLY_WORKER = (
    "<script>try{{const w=new Worker({url},{{type:'module'}}),q=[];"
    "w.onmessage=(e)=>q.push(e.data);w.onerror=(e)=>{{e.preventDefault();q.push({{event:'failed',"
    "error:e.message||'the Python worker could not start'}})}};"
    "window.__labsimWorker={{worker:w,early:q,at:performance.now()}}}}catch(e){{}}</script>")


# On a page with a terminal: keys typed into a terminal's box (clicked first) before xterm.js
# is there are kept, and shown after its prompt; the terminal types them when it opens
# (LabTerminal.open). So the terminal takes typing as soon as the page is visible.
_EARLY_KEYS = (
    "<script>(()=>{const k={el:null,keys:''};window.__labsimEarlyKeys=k;"
    "const ready=(t)=>t&&t.querySelector('.xterm');"
    "document.addEventListener('pointerdown',(e)=>{const t=e.target.closest&&"
    "e.target.closest('.labsim-terminal');k.el=t&&!ready(t)?t:null},true);"
    "document.addEventListener('keydown',(e)=>{const t=k.el;"
    "if(!t||ready(t)||e.ctrlKey||e.metaKey||e.altKey)return;"
    "const c=e.key.length===1?e.key:e.key==='Enter'?'\\r':e.key==='Backspace'?'\\x7f':'';"
    "if(!c)return;e.preventDefault();e.stopPropagation();k.keys+=c;let s='';"
    "for(const ch of k.keys)s=ch==='\\x7f'?(s.endsWith('\\r')?s:s.slice(0,-1)):s+ch;"
    "const p=t.dataset.prompt||'$ ';let pre=t.querySelector('.labsim-term-early');"
    "if(!pre){pre=document.createElement('pre');pre.className='labsim-term-early';t.append(pre)}"
    "pre.textContent=p+s.split('\\r').join('\\n'+p)},true)})()</script>")


# The modules labsim-page.js imports on every page with a simulation (the terminal's are
# preloaded on pages with a terminal).
PAGE_MODULES = ("labsim-page.js", "labsim-python.js", "labsim-plotly.js", "labsim-release.js",
                "labsim-widget.js", "labsim-figure.js")


def _head_hints(base: str, widget: bool, terminal: bool) -> str:
    """For pages with simulations: start the Python worker at once, and preload hints so the
    scripts a widget or a terminal needs download while the page parses."""
    worker = json.dumps(f"{base}javascripts/labsim-worker.js")
    hints = [_NO_JS, _EARLY_WORKER.format(url=worker),
             *(f'<link rel="modulepreload" href="{base}javascripts/{module}">'
               for module in PAGE_MODULES)]
    if widget:
        plotly = f"{base}assets/vendor/plotly/plotly.min.js"
        hints.append(f'<link rel="preload" href="{plotly}" as="script">')
    if terminal:
        hints += [_EARLY_KEYS,
                  f'<link rel="modulepreload" href="{base}javascripts/labsim-terminal.js">',
                  f'<link rel="modulepreload" href="{base}javascripts/labsim-terminal-text.js">',
                  f'<link rel="modulepreload" href="{base}assets/vendor/xterm/xterm.mjs">',
                  f'<link rel="modulepreload" href="{base}assets/vendor/xterm/addon-fit.mjs">',
                  f'<link rel="preload" href="{base}assets/vendor/xterm/xterm.css" as="style">']
    return "".join(hints)


# ---------------------------------------------------------------------------------------------
# MkDocs events
# ---------------------------------------------------------------------------------------------

def on_pre_build(config, **kwargs) -> None:
    _build.__init__()
    _build.version = _labsim_version()
    _build.wheel_name, _build.wheel_bytes = build_wheel(SIM_SRC, _build.version)
    _build.sha256 = hashlib.sha256(_build.wheel_bytes).hexdigest()
    try:
        _build.web = _import_labsim_web()
        _build.versions = importlib.import_module("labsim.zfs.versions")
        _build.nicenum = importlib.import_module("labsim.format.numbers").nicenum
        _build.limits = importlib.import_module("labsim.limits")
        _build.figure_key = static_figures.renderer_key()
    except static_figures.StaticFigureError as exc:
        raise PluginError(str(exc)) from exc
    except Exception as exc:
        raise PluginError(f"cannot import labsim.web from {SIM_SRC}: "
                          f"{type(exc).__name__}: {exc}") from exc


def on_page_markdown(markdown: str, page, config, files, **kwargs) -> str:
    """``[[zfs:VERSION:FIELD]]`` -> the value labsim.zfs.versions has for it. An error is
    logged (so `mkdocs build --strict` fails, and `mkdocs serve` keeps serving)."""
    markdown, errors = zfs_substitute(markdown, page.file.src_uri, _build.versions,
                                      _build.nicenum)
    if LIMITS_TOKEN in markdown:
        # The one list of what labsim does not model (labsim.limits), for the taught release.
        markdown = markdown.replace(
            LIMITS_TOKEN, _build.limits.limits_markdown(_build.versions.DEFAULT_VERSION))
    for error in errors:
        log.error(error)
    _run_first_session(markdown, page.file.src_uri)
    return markdown


def _run_first_session(markdown: str, page_name: str) -> None:
    terminals = terminal_transcripts.page_terminals(markdown)
    if not terminals:
        return
    commands = terminal_transcripts.first_session(markdown, terminals)
    try:
        _build.sessions[page_name] = terminal_transcripts.run(_build.web, terminals, commands)
    except Exception as exc:  # a simulator bug must not stop `mkdocs serve`
        log.error("%s: the first session failed at build time: %s: %s", page_name,
                  type(exc).__name__, exc)


def on_page_content(html_text: str, page, config, files, **kwargs) -> str:
    """Under the title, on a ZFS page: the place of the OpenZFS release selector. (A lesson's
    duration, which every reader sees, comes from course.toml: tools/mkdocs_course_hooks.py.)"""
    slot = _release_slot() if is_zfs_page(html_text) else ""
    if "</h1>" in html_text:
        return html_text.replace("</h1>", "</h1>" + slot, 1)
    return slot + html_text


# Material's search dialog has no accessible name (axe: aria-dialog-name, serious).
SEARCH_DIALOG = re.compile(r'(<div class="md-search"(?![^>]*aria-label)[^>]*role="dialog")')


def on_post_page(output: str, page, config, **kwargs) -> str:
    """Runs after the search index saw the page, so embedded JSON is not indexed as text."""
    output = SEARCH_DIALOG.sub(r'\1 aria-label="Search"', output, count=1)
    has_widget = WIDGET_TAG.search(output) is not None
    has_terminal = TERMINAL_TAG.search(output) is not None
    if not has_widget and not has_terminal:
        return output
    name = page.file.src_uri
    base = "../" * page.url.count("/")  # relative root, as mkdocs writes its own links
    output = WIDGET_TAG.sub(lambda m: _embed_widget(m, name, base), output)
    output = TERMINAL_FULL_TAG.sub(lambda m: _embed_terminal(m, name), output)
    output = mark_things_to_try(output)
    hints = _head_hints(base, has_widget, has_terminal)
    # Early in <head> (after the charset, which must come first): an inline script after the
    # stylesheets would wait for them.
    charset = re.search(r"<meta charset=[^>]*>", output)
    at = charset.end() if charset else output.index("</head>")
    return output[:at] + hints + output[at:]


def make_snapshot(wheel: Path, dest_dir: Path) -> str:
    """A Pyodide memory snapshot with labsim imported, for the worker (its file name in
    ``dest_dir``). Made by tools/pyodide_snapshot.mjs in Node and kept under SNAPSHOT_CACHE,
    keyed by the wheel, Pyodide's version and the script, so an unchanged build reuses it."""
    pyodide = NODE_MODULES / "pyodide"
    key = hashlib.sha256()
    for part in (wheel.read_bytes(), (pyodide / "package.json").read_bytes(),
                 SNAPSHOT_SCRIPT.read_bytes()):
        key.update(hashlib.sha256(part).digest())
    name = f"labsim-{key.hexdigest()[:16]}.snapshot.gz"
    cached = SNAPSHOT_CACHE / name
    if not cached.is_file():
        SNAPSHOT_CACHE.mkdir(parents=True, exist_ok=True)
        for old in SNAPSHOT_CACHE.glob("*.snapshot.gz"):
            old.unlink()
        partial = cached.with_suffix(".part")
        done = subprocess.run(["node", str(SNAPSHOT_SCRIPT), str(pyodide), str(wheel),
                               str(partial)], capture_output=True, text=True)
        if done.returncode != 0:
            raise PluginError("cannot make the Pyodide snapshot (tools/pyodide_snapshot.mjs):\n"
                              + (done.stderr or done.stdout)[-4000:])
        partial.rename(cached)
    _copy_if_changed(cached, dest_dir / name)
    return name


def _copy_if_changed(src: Path, dest: Path) -> None:
    if dest.exists():
        s, d = src.stat(), dest.stat()
        if s.st_size == d.st_size and int(s.st_mtime) == int(d.st_mtime):
            return
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dest)


def on_post_build(config, **kwargs) -> None:
    site = Path(config["site_dir"])
    missing = [src for src, _ in VENDOR_FILES if not (NODE_MODULES / src).is_file()]
    if missing:
        raise PluginError("missing browser assets in node_modules/ (run `npm install` or "
                          f"`make build`): {', '.join(missing)}")
    for src, dest in VENDOR_FILES:
        _copy_if_changed(NODE_MODULES / src, site / "assets" / "vendor" / dest)

    wheels = site / "assets" / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    for old in wheels.glob("*.whl"):
        if old.name != _build.wheel_name:
            old.unlink()
    (wheels / _build.wheel_name).write_bytes(_build.wheel_bytes)
    snapshot = make_snapshot(wheels / _build.wheel_name, wheels)
    for old in wheels.glob("*.snapshot.gz"):
        if old.name != snapshot:
            old.unlink()
    try:
        figures = static_figures.render(_build.figures)
    except static_figures.StaticFigureError as exc:
        if os.environ.get("ZFL_STATIC_FIGURES") != "optional":
            raise PluginError(str(exc)) from exc
        # `make serve` (ZFL_STATIC_FIGURES=optional) on a machine without chromium, a
        # learner's before `make host-tools`: the live charts work; only the images for
        # print and for readers without JavaScript are missing, which a build (`make
        # build`, the tests) refuses. (on_startup cannot tell: `mkdocs serve` loads this
        # hook afresh for each build.)
        log.info("static figures left out (install chromium: make host-tools): %s", exc)
        figures = {}
    static_figures.copy_into(site, figures)
    manifest = {"wheel": _build.wheel_name, "version": _build.version, "sha256": _build.sha256,
                "snapshot": snapshot}
    (wheels / "labsim.json").write_text(json.dumps(manifest, indent=1) + "\n")


def on_serve(server, config, builder, **kwargs):
    """Rebuild when the simulator or this hook changes under `mkdocs serve`."""
    server.watch(str(SIM_SRC))
    return server
