"""Performance of the course site as ONE JSON object on stdout (`make bench`); never fails.

Measures, on every lesson page (its first widget) in headless Debian chromium with a fresh
profile per cold run, reported per lesson under "lessons" and, for the targets, as the worst
lesson at the top level:

* mkdocs_build_s: `mkdocs build --strict` of the whole site;
* first_chart_s: navigation start -> the first plotly chart's SVG is in the page (cold);
* pyodide_ready_s: navigation start -> Python ready in the worker (cold), and pyodide_boot_s,
  the worker's own time from its start to a ready labsim.web.Bridge;
* rerun_ms: a control changed -> the chart re-rendered with the new result (median of N);
* fill_1tib_pyodide_ms / fill_1tib_cpython_ms: the simulator filling a 1 TiB pool (two 512 GiB
  vdevs, OpenZFS 2.3 allocator) with 128 KiB records until it is full;
* seq_10m_cpython_s / seq_10m_pyodide_s: `seq 1 10000000 > FILE` (78,888,897 bytes of text)
  into a dataset with compression lz4, gzip and zstd (128K records), each record compressed
  for real (labsim.zfs.compressors), the compression cache emptied first;
* scenario_cpython_ms: each registered scenario (labsim.scenarios.SCENARIOS) run with its
  defaults, and with the other values of its first select (a preset, a workload), in CPython
  (median of RERUNS), so every widget is measured even before a lesson page embeds it;
  scenario_first_cpython_ms: the first of those runs in this process, which also pays for
  whatever a scenario builds once and keeps (the copies widget's three filled pools);
* rerun_first_ms (per lesson): the first control change after the page loaded, left out
  of rerun_ms for the same reason, reported so that cost is not hidden;
* list_snapshots_cpython_ms: `zfs list -t snapshot` of one dataset holding 500, 1000 and
  2000 snapshots, in CPython (median of 3): linear in their number (issue 16: it was square,
  1.2 s at 1000);
* snapshot_chain_cpython_ms: one dataset where each of 500, 1000 and 2000 snapshots was
  taken after a new file (so the n-th snapshot holds n files): `zfs list` of the pool's
  root, `zpool sync` (which walks every chain for the metadata and deadlists snapshots
  keep) and `zfs list -t snapshot`, in CPython (one run each). The data grows as the
  square of n here, so these do too, slowly;
* create_file_cpython_ms_per_file: milliseconds per file of a shell loop creating 500,
  1000 and 2000 files in one directory, in CPython: flat (issue 15's objset model made it
  square once);
* corpus: the command lines of tests/corpus/commands.txt, counted as simulated, honest
  notice ("not simulated") and wrong (issue 16; wrong must be 0);
* terminal_input_s: navigation start -> the lesson's (first) terminal is visible and takes
  typing (cold; keys typed before xterm.js is there are kept by the page);
  terminal_answer_s: a command typed there at once (TERMINAL_COMMAND) -> its answer on screen,
  from navigation start (cold: the worker starts Python from the build's memory snapshot,
  pyodide_boot_from says so); nav_answer_s: from a click on the site's link to the next
  lesson to the answer of the same command typed at once in that lesson's terminal (instant
  navigation: Python is already up);
* difftest: differential testing on generated lab scripts (tools/difftest/agreement.py,
  issue 15): "agreement_with_recordings", per release, the share of recorded scripts on
  which labsim agrees with real OpenZFS, for the tuning and the held-out seeds apart (the
  target: 95 % of held-out ones); "real_agrees_with_itself", the same comparator between
  one real run and the others of the same script (leave one out), the rate no simulator
  can beat with these recordings; and "labsim_alone", how many of the 400 scripts labsim
  runs to the end, in 2.3 and 2.1 mode, and what stops the others first.
* instructor_load: the workshop instructor's server (instructor/loadtest.py, issue 18) on
  loopback: BENCH_INSTRUCTOR_LEARNERS simulated learners (200) each posting a signed result
  every second for BENCH_INSTRUCTOR_SECONDS (600), one live page following the event
  stream; "lost" (acknowledged but not stored) and "lost_on_live_page" must be 0, p99_ms
  is the posts' 99th percentile latency.

Progress goes to stderr; stdout carries only the JSON.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tools"))
sys.path.insert(0, os.environ.get("LABSIM_SRC") or str(REPO / "sim" / "src"))

from chromium import launch  # noqa: E402
from static_server import free_port, start  # noqa: E402

DOCS = REPO / "docs"
LESSON = "lessons/01-pools-vdevs/"  # the 1 TiB fill is measured in this page's worker
COLD_RUNS = int(os.environ.get("BENCH_COLD_RUNS", "3"))
RERUNS = int(os.environ.get("BENCH_RERUNS", "5"))

TARGETS = {"first_chart_s": 4.0, "rerun_ms": 100.0, "fill_1tib_pyodide_ms": 200.0,
           "terminal_answer_s": 3.0, "nav_answer_s": 0.7}
# Typed into a lesson's terminal as soon as it takes input; every terminal answers it.
TERMINAL_COMMAND = "zpool list"
TERMINAL = ".labsim-terminal"

# The same source runs in CPython (here) and in Pyodide (in the page's worker).
FILL_1TIB = """
import time as _time
from labsim.zfs.errors import NoSpace as _NoSpace
from labsim.zfs.lifecycle import create_pool as _create_pool
from labsim.zfs.pool import property_value as _prop
from labsim.zfs.write_path import write_file as _write_file
from labsim.zfs.versions import KiB as _KiB, TiB as _TiB, get_version as _get_version

def _fill_1tib():
    t0 = _time.perf_counter()
    pool = _create_pool("bench", [("/var/tmp/a.raw", _TiB // 2), ("/var/tmp/b.raw", _TiB // 2)],
                        _get_version("2.3"))
    assert int(_prop(pool, pool.root, "recordsize")[0]) == 128 * _KiB
    try:
        _write_file(pool, pool.root, "fill", 2 * _TiB, "random")
    except _NoSpace:
        pass
    return (_time.perf_counter() - t0) * 1000, pool.alloc / pool.space
"""

# Writing 78 MB of seq output, per compression (the same source in CPython and the worker).
SEQ_10M = """
import time as _time
from labsim import Session as _Session
from labsim.zfs import compression as _compression

def _seq_10m():
    out = {}
    for comp in ("lz4", "gzip", "zstd"):
        _compression._compressed.cache_clear()
        s = _Session()
        for line in ("truncate -s 2G /var/tmp/s.raw", "zpool create -o ashift=12 s /var/tmp/s.raw",
                     f"zfs create -o compression={comp} s/x"):
            s.run(line)
        t0 = _time.perf_counter()
        s.run("seq 1 10000000 > /s/x/f")
        out[comp] = round(_time.perf_counter() - t0, 2)
    return out
"""

FIRST_CHART_PROBE = """
new MutationObserver((_, observer) => {
  if (document.querySelector('.labsim-widget .labsim-chart .main-svg')) {
    window.__firstChart = performance.now();
    observer.disconnect();
  }
}).observe(document, {childList: true, subtree: true});
"""

# The first terminal of the page answered how many commands (labsim-terminal.js).
ANSWERS_JS = f"Number(document.querySelector('{TERMINAL}')?.dataset.commands ?? 0)"

RERUN_JS = """async ([name, value]) => {
  const widget = document.querySelector('.labsim-widget');
  const select = widget.querySelector(`[name="${name}"]`);
  const done = new Promise(resolve => widget.addEventListener(
    'labsim:rendered', e => resolve(e.detail), {once: true}));
  const t0 = performance.now();
  select.value = value;
  select.dispatchEvent(new Event('change', {bubbles: true}));
  const detail = await done;
  return {total: performance.now() - t0, python: detail.ms};
}"""


def log(*args) -> None:
    print(*args, file=sys.stderr, flush=True)


def build_site(site_dir: Path, url: str) -> float:
    env = {**os.environ, "SITE_URL": url, "NO_MKDOCS_2_WARNING": "1"}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                    "--site-dir", str(site_dir)], cwd=REPO, env=env, check=True)
    return time.perf_counter() - t0


def cpython_fill(runs: int = 3) -> tuple[float, float]:
    scope: dict = {}
    exec(FILL_1TIB, scope)  # noqa: S102 - our own benchmark source
    results = [scope["_fill_1tib"]() for _ in range(runs)]
    return statistics.median(r[0] for r in results), results[0][1]


def cpython_seq_10m() -> dict[str, float]:
    scope: dict = {}
    exec(SEQ_10M, scope)  # noqa: S102 - our own benchmark source
    return scope["_seq_10m"]()


def scenario_times(runs: int = RERUNS) -> tuple[dict[str, float], dict[str, float]]:
    """Milliseconds per run of each scenario in CPython, over its first select's options:
    the median of the runs after the first, and the first."""
    from labsim.scenarios import SCENARIOS
    from labsim.scenarios.base import simulate

    out, first = {}, {}
    for name, scenario in SCENARIOS.items():
        select = next((c for c in scenario.controls if c["kind"] == "select"), None)
        values = [None] if select is None else [
            o[0] if isinstance(o, list) else o for o in select["options"]]
        samples = []
        for _ in range(runs + 1):
            t0 = time.perf_counter()
            for value in values:
                # The other controls take their defaults (for that preset, if they follow it).
                simulate(scenario, {} if select is None else {select["name"]: value})
            samples.append((time.perf_counter() - t0) * 1000 / len(values))
        out[name] = round(statistics.median(samples[1:]), 1)  # the first run warms up
        first[name] = round(samples[0], 1)
    return out, first


def lesson_widgets() -> list[tuple[str, str]]:
    """(page path, scenario of its first widget) for every lesson page with a widget."""
    import re

    found = []
    for md in sorted((DOCS / "lessons").glob("*.md")):
        match = re.search(r'<div class="labsim-widget" data-scenario="([^"]+)"', md.read_text())
        if match:
            found.append((f"lessons/{md.stem}/", match.group(1)))
    return found


def rerun_control(scenario: str) -> tuple[str, list[str]] | None:
    """A control to flip back and forth: a select with options, or a slider's two ends."""
    from labsim.web import initial_payload

    controls = initial_payload(scenario)["describe"]["controls"]
    for control in controls:
        if control["kind"] == "select" and len(control.get("options", [])) > 1:
            return control["name"], [str(i) for i in range(len(control["options"]))]
    for control in controls:
        if control["kind"] == "range":
            return control["name"], [str(control["min"]), str(control["max"])]
    return None


def browser_runs(url: str, lesson: str, scenario: str, measure_fill: bool,
                 next_lesson: str | None) -> dict:
    from playwright.sync_api import sync_playwright

    cold: list[dict] = []
    out: dict = {"scenario": scenario}
    with sync_playwright() as p:
        for run in range(COLD_RUNS):
            # A new browser process with a new temporary profile: nothing cached, nothing compiled.
            browser = launch(p)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.add_init_script(FIRST_CHART_PROBE)
            page.goto(url + lesson, wait_until="commit")
            terminal = first_answer(page)
            page.wait_for_function("window.__firstChart", timeout=60_000)
            page.wait_for_function("window.labsim?.python?.state === 'ready'", timeout=120_000)
            timing = page.evaluate("""() => ({first: window.__firstChart,
                ready: window.labsim.python.readyAt, boot: window.labsim.python.readyMs,
                start: window.labsim.python.t0, from: window.labsim.python.bootedFrom})""")
            cold.append({**timing, **terminal})
            log(f"{lesson} cold run {run + 1}: first chart {timing['first']:.0f} ms, "
                f"Python started {timing['start']:.0f} ms, ready {timing['ready']:.0f} ms")
            if run == COLD_RUNS - 1:
                control = rerun_control(scenario)
                if control:
                    name, values = control
                    samples = []
                    page.wait_for_selector(".labsim-widget[data-state=ready]")
                    for i in range(RERUNS + 1):
                        value = values[(i + 1) % len(values)]
                        samples.append(page.evaluate(RERUN_JS, [name, value]))
                    out["rerun_first_ms"] = round(samples[0]["total"], 1)
                    samples = samples[1:]  # the first run also warms up the code paths
                    out["rerun_ms"] = round(statistics.median(s["total"] for s in samples), 1)
                    python_ms = statistics.median(s["python"] for s in samples)
                    out["rerun_python_ms"] = round(python_ms, 1)
                    out["rerun_samples_ms"] = [round(s["total"], 1) for s in samples]
                    out["rerun_control"] = name
                else:
                    out["rerun_ms"] = None
                if measure_fill:
                    page.evaluate(f"window.labsim.call('_exec', {json.dumps(FILL_1TIB)} + '\\n1')")
                    fill_js = ("window.labsim.call('_exec', "
                               "'import json as _j\\n_j.dumps(_fill_1tib())')")
                    fills = [json.loads(page.evaluate(fill_js)) for _ in range(3)]
                    out["fill_1tib_pyodide_ms"] = round(statistics.median(f[0] for f in fills), 1)
                    out["fill_1tib_pyodide_samples_ms"] = [round(f[0], 1) for f in fills]
                    page.evaluate(f"window.labsim.call('_exec', {json.dumps(SEQ_10M)} + '\\n1')")
                    out["seq_10m_pyodide_s"] = json.loads(page.evaluate(
                        "window.labsim.call('_exec', 'import json as _j\\n_j.dumps(_seq_10m())')"))
                if next_lesson:
                    out["nav_answer_s"] = next_lesson_answer(page, next_lesson)
            browser.close()
    out["first_chart_s"] = round(statistics.median(c["first"] for c in cold) / 1000, 2)
    out["first_chart_samples_s"] = [round(c["first"] / 1000, 2) for c in cold]
    out["pyodide_ready_s"] = round(statistics.median(c["ready"] for c in cold) / 1000, 2)
    out["pyodide_boot_s"] = round(statistics.median(c["boot"] for c in cold) / 1000, 2)
    out["pyodide_start_s"] = round(statistics.median(c["start"] for c in cold) / 1000, 2)
    out["pyodide_boot_from"] = sorted({c["from"] for c in cold})
    answered = [c for c in cold if c.get("answer") is not None]
    if answered:
        out["terminal_input_s"] = round(statistics.median(c["input"] for c in answered) / 1000, 2)
        out["terminal_answer_s"] = round(statistics.median(c["answer"] for c in answered) / 1000, 2)
        out["terminal_answer_samples_s"] = [round(c["answer"] / 1000, 2) for c in answered]
    return out


def first_answer(page) -> dict:
    """Click the page's first terminal as soon as it is visible and type TERMINAL_COMMAND
    (kept by the page before xterm.js is there): {input, answer} in ms since navigation
    start (None without a terminal)."""
    page.wait_for_load_state("domcontentloaded")
    if page.locator(TERMINAL).count() == 0:
        return {"input": None, "answer": None}
    page.locator(TERMINAL).first.wait_for(state="visible", timeout=60_000)
    typed_at = page.evaluate("performance.now()")
    page.locator(TERMINAL).first.click()
    page.keyboard.type(TERMINAL_COMMAND + "\n")
    page.wait_for_function(f"{ANSWERS_JS} >= 1", timeout=120_000)
    return {"input": typed_at, "answer": page.evaluate("performance.now()")}


def next_lesson_answer(page, lesson: str) -> float | None:
    """Seconds from a click on the site's link to ``lesson`` (instant navigation) to the
    answer to TERMINAL_COMMAND typed at once into that lesson's terminal; None if the click
    reloaded the page."""
    link = page.locator(f".md-nav--primary a[href$='{lesson.split('/')[-2]}/']").first
    page.evaluate("window.__benchSamePage = true")
    t0 = page.evaluate("performance.now()")
    link.click()
    page.wait_for_function(f"location.pathname.endsWith({json.dumps(lesson)})"
                           f" && document.querySelector('{TERMINAL} .xterm-helper-textarea')"
                           f" && {ANSWERS_JS} === 0", timeout=60_000)
    page.focus(f"{TERMINAL} .xterm-helper-textarea")
    page.keyboard.type(TERMINAL_COMMAND + "\n")
    page.wait_for_function(f"{ANSWERS_JS} >= 1", timeout=60_000)
    if not page.evaluate("window.__benchSamePage === true"):
        return None
    return round((page.evaluate("performance.now()") - t0) / 1000, 2)


def difftest() -> dict:
    """tools/difftest/agreement.py's report, or what went wrong (bench never fails)."""
    try:
        from difftest.agreement import report
        from difftest.generate import parse_seeds

        return report(parse_seeds("all"), ("2.3", "2.1"))
    except Exception as err:  # noqa: BLE001 - reported, not raised
        return {"error": f"{type(err).__name__}: {err}"}


def list_snapshots_ms(counts: tuple[int, ...] = (500, 1000, 2000),
                      runs: int = 3) -> dict[str, float]:
    """Milliseconds of `zfs list -t snapshot` over one dataset with n snapshots (each made
    after writing a file, so every snapshot holds something of its own)."""
    from labsim.shell.session import Session

    out: dict[str, float] = {}
    session = Session()
    for command in ("truncate -s 1G /var/tmp/p.raw", "zpool create p /var/tmp/p.raw",
                    "zfs create p/fs"):
        session.run(command)
    made = 0
    for count in counts:
        while made < count:
            session.run(f"dd if=/dev/urandom of=/p/fs/f{made % 8} bs=4k count=1 "
                        "status=none")
            session.run(f"zfs snapshot p/fs@s{made}")
            made += 1
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            session.run("zfs list -t snapshot")
            times.append((time.perf_counter() - t0) * 1000)
        out[str(count)] = round(statistics.median(times), 1)
    return out


def snapshot_chain_ms(counts: tuple[int, ...] = (500, 1000, 2000)) -> dict[str, dict[str, float]]:
    """Milliseconds of the commands that walk a chain of snapshots, each snapshot taken
    after one more file: {count: {command: ms}}."""
    from labsim.shell.session import Session

    out: dict[str, dict[str, float]] = {}
    session = Session()
    for command in ("truncate -s 1G /var/tmp/p.raw", "zpool create p /var/tmp/p.raw",
                    "zfs create p/fs"):
        session.run(command)
    made = 0
    for count in counts:
        while made < count:
            session.run(f"echo {made} > /p/fs/f{made}")
            session.run(f"zfs snapshot p/fs@s{made}")
            made += 1
        times: dict[str, float] = {}
        for command in ("zfs list p", "zpool sync p", "zfs list -t snapshot p/fs"):
            t0 = time.perf_counter()
            session.run(command)
            times[command] = round((time.perf_counter() - t0) * 1000, 1)
        out[str(count)] = times
    return out


def create_files_ms(counts: tuple[int, ...] = (500, 1000, 2000)) -> dict[str, float]:
    """Milliseconds per file of `for i in $(seq N); do echo x > /p/fN_$i; done` in a new
    file system, for each N, in CPython: flat in N (every file rewrites the root
    directory's micro ZAP; its LZ4 resumes before the new entry, labsim.zfs.metadata_blocks;
    it was square in N, 400 files 0.5 s)."""
    from labsim.shell.session import Session

    out: dict[str, float] = {}
    for count in counts:
        session = Session()
        session.step_limit = session.time_limit = 10 ** 9  # the whole loop, however long
        for command in ("truncate -s 1G /var/tmp/p.raw", "zpool create p /var/tmp/p.raw",
                        "zfs create p/fs"):
            session.run(command)
        t0 = time.perf_counter()
        session.run(f"for i in $(seq {count}); do echo x > /p/fs/f$i; done")
        out[str(count)] = round((time.perf_counter() - t0) * 1000 / count, 3)
        listed = session.run("ls /p/fs | wc -l")
        assert listed.stdout.strip() == str(count), listed.stdout
    return out


def corpus_counts() -> dict[str, int]:
    """tests/corpus: how many of the command lines learners type labsim simulates, answers
    with an honest "not simulated" notice, or gets wrong (the target: 0 wrong)."""
    sys.path.insert(0, str(REPO / "tests" / "corpus"))
    from corpus import counts, run_corpus

    return counts(run_corpus())


def instructor_load() -> dict:
    """instructor/loadtest.py's figures, or what went wrong (bench never fails)."""
    sys.path.insert(0, str(REPO))
    try:
        from instructor import loadtest

        figures = loadtest.run(int(os.environ.get("BENCH_INSTRUCTOR_LEARNERS", "200")),
                               float(os.environ.get("BENCH_INSTRUCTOR_SECONDS", "600")))
    except Exception as err:  # noqa: BLE001 - reported, not raised
        return {"error": f"{type(err).__name__}: {err}"}
    log(f"instructor: p99 {figures['p99_ms']} ms, lost {figures['lost']}")
    return figures


def main() -> None:
    result: dict = {}
    with tempfile.TemporaryDirectory(prefix="zfl-bench-") as tmp:
        port = free_port()
        url = f"http://127.0.0.1:{port}/"
        log("building the site…")
        result["mkdocs_build_s"] = round(build_site(Path(tmp), url), 2)
        server, _ = start(tmp, port)
        try:
            result["lessons"] = {}
            pages = lesson_widgets()
            for i, (lesson, scenario) in enumerate(pages):
                log(f"browser runs on {lesson}…")
                following = pages[i + 1][0] if i + 1 < len(pages) else None
                result["lessons"][lesson] = browser_runs(url, lesson, scenario,
                                                         measure_fill=lesson == LESSON,
                                                         next_lesson=following)
            lessons = result["lessons"].values()
            # The targets hold for every widget: report the worst lesson at the top level.
            for key in ("first_chart_s", "rerun_ms", "pyodide_ready_s", "terminal_input_s",
                        "terminal_answer_s", "nav_answer_s"):
                values = [r[key] for r in lessons if r.get(key) is not None]
                result[key] = max(values) if values else None
            result["fill_1tib_pyodide_ms"] = result["lessons"].get(LESSON, {}).get(
                "fill_1tib_pyodide_ms")
            result["seq_10m_pyodide_s"] = result["lessons"].get(LESSON, {}).get(
                "seq_10m_pyodide_s")
        finally:
            server.shutdown()
    log("CPython fill…")
    fill_ms, full = cpython_fill()
    result["fill_1tib_cpython_ms"] = round(fill_ms, 1)
    result["fill_1tib_pool_full_fraction"] = round(full, 4)
    log("CPython seq 1 10000000…")
    result["seq_10m_cpython_s"] = cpython_seq_10m()
    log("CPython scenarios…")
    result["scenario_cpython_ms"], result["scenario_first_cpython_ms"] = scenario_times()
    log("difftest: generated scripts…")
    result["difftest"] = difftest()
    log("zfs list -t snapshot…")
    result["list_snapshots_cpython_ms"] = list_snapshots_ms()
    log("a chain of snapshots that grows…")
    result["snapshot_chain_cpython_ms"] = snapshot_chain_ms()
    log("file creation…")
    result["create_file_cpython_ms_per_file"] = create_files_ms()
    log("corpus of command lines…")
    result["corpus"] = corpus_counts()
    log("instructor server under load…")
    result["instructor_load"] = instructor_load()
    result["targets"] = TARGETS
    result["meets_targets"] = {
        key: result.get(key) is not None and result[key] <= limit
        for key, limit in TARGETS.items()
    }
    result["machine"] = {"cpus": os.cpu_count(), "python": platform.python_version(),
                         "cold_runs": COLD_RUNS, "reruns": RERUNS}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
