"""CPU time per chromium thread around each re-run of a lesson's widget (issue 16 item 5).

    .venv/bin/python tools/rerun_cpu.py SITE_DIR lessons/01-pools-vdevs/ [RERUNS]

SITE_DIR is a built site (mkdocs build --site-dir). Wall-clock re-run times on a shared
2-core machine vary 3-5x with its load; the CPU time each thread spent (Linux
/proc/<pid>/task/<tid>/schedstat: nanoseconds on a CPU) varies far less, and says where a
re-run's time goes: the worker's Python (renderer:DedicatedWorker), the page's plotly.js
(renderer:chromium, the renderer's main thread), V8's background compiling and garbage
collection (renderer:ThreadPoolForeg...). Linux only; the re-run is tools/bench.py's
(RERUN_JS on rerun_control), the first one left out of the medians.
"""

from __future__ import annotations

import glob
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench  # noqa: E402
from chromium import launch  # noqa: E402
from static_server import free_port, start  # noqa: E402


def chromium_threads() -> dict[str, str]:
    """/proc/<pid>/task/<tid> -> "<process type>:<thread name>" of every chromium thread."""
    out = {}
    for comm_path in glob.glob("/proc/[0-9]*/task/[0-9]*/comm"):
        task = os.path.dirname(comm_path)
        try:
            comm = Path(comm_path).read_text().strip()
            command = Path(task.rsplit("/task", 1)[0], "cmdline").read_text()
        except OSError:
            continue
        if "chromium" in command:
            kind = command.split("--type=")[1].split("\0")[0] if "--type=" in command else "browser"
            out[task] = f"{kind[:8]}:{comm}"
    return out


def cpu_ms(threads: dict[str, str]) -> dict[str, float]:
    """Milliseconds on a CPU so far, summed per thread name."""
    out: dict[str, float] = {}
    for task, name in threads.items():
        try:
            ns = int(Path(task, "schedstat").read_text().split()[0])
        except OSError:
            continue  # the thread ended
        out[name] = out.get(name, 0.0) + ns / 1e6
    return out


def main() -> None:
    from playwright.sync_api import sync_playwright

    site, lesson = sys.argv[1:3]
    reruns = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    server, _ = start(site, port)
    name, values = bench.rerun_control(dict(bench.lesson_widgets())[lesson])
    rows = []
    with sync_playwright() as p:
        before = set(chromium_threads())
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url + lesson)
        page.wait_for_function("window.labsim?.python?.state === 'ready'", timeout=120_000)
        page.wait_for_selector(".labsim-widget[data-state=ready]")
        mine = {t: n for t, n in chromium_threads().items() if t not in before}
        for i in range(reruns + 1):
            c0 = cpu_ms(mine)
            run = page.evaluate(bench.RERUN_JS, [name, values[(i + 1) % len(values)]])
            c1 = cpu_ms(mine)
            rows.append({"wall": run["total"], "page_python": run["python"],
                         **{k: c1[k] - c0[k] for k in c1 if k in c0}})
        browser.close()
    server.shutdown()
    print(f"{lesson}: ms per re-run, median (first left out) and all")
    for key in sorted({k for row in rows for k in row}):
        got = [row.get(key, 0.0) for row in rows]
        if max(got) >= 3:
            print(f"  {key:28s} {statistics.median(got[1:]):7.1f}   {[round(g) for g in got]}")


if __name__ == "__main__":
    main()
