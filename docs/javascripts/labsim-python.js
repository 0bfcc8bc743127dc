// The Python worker (labsim-worker.js: labsim on Pyodide), one per page load, started in the
// background after first paint and kept across instant navigation; widgets and terminals call
// it (python.call) and follow its state (python.subscribe).

const ROOT = new URL("../", import.meta.url);
export const asset = (path) => new URL(path, ROOT).href;

class PythonWorker {
  constructor() {
    this.state = "idle"; // idle -> loading -> ready | failed
    this.error = null;
    this.t0 = 0;
    this.readyMs = null;
    this.version = null;
    this.nextId = 1;
    this.calls = new Map();
    this.listeners = new Set();
  }

  start() {
    if (this.worker) return;
    // The page's <head> started it (tools/mkdocs_hooks.py), on a full load of a page with a
    // simulation: take it over, with what it said before this module was there.
    const early = window.__labsimWorker;
    delete window.__labsimWorker;
    this.t0 = early?.at ?? performance.now(); // since navigation start
    this.state = "loading";
    this.worker = early?.worker ?? new Worker(asset("javascripts/labsim-worker.js"), { type: "module" });
    this.worker.onmessage = ({ data }) => this.receive(data);
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.fail(event.message || "the Python worker could not start");
    };
    this.notify();
    for (const data of early?.early ?? []) this.receive(data);
  }

  receive(data) {
    if (data.event === "ready") {
      this.state = "ready";
      this.readyAt = performance.now(); // since navigation start, for the benchmark
      this.readyMs = data.ms;
      this.phases = data.phases;
      this.bootedFrom = data.from;
      this.bootStart = data.startedAt - performance.timeOrigin; // since navigation start
      this.version = data.version;
      this.notify();
    } else if (data.event === "failed") {
      this.fail(data.error);
    } else {
      const call = this.calls.get(data.id);
      if (!call) return;
      this.calls.delete(data.id);
      if (data.ok) call.resolve(data.result);
      else call.reject(Object.assign(new Error(data.error), { traceback: data.traceback }));
    }
  }

  fail(message) {
    if (this.state === "failed") return;
    this.state = "failed";
    this.error = message;
    console.error(`labsim: Python failed to load: ${message}`);
    for (const call of this.calls.values()) call.reject(new Error(message));
    this.calls.clear();
    this.notify();
  }

  call(method, ...args) {
    this.start();
    if (this.state === "failed") return Promise.reject(new Error(this.error));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.worker.postMessage({ id, method, args });
    });
  }

  elapsed() {
    return (performance.now() - this.t0) / 1000;
  }

  loadingText() {
    return `Loading Python… (${this.elapsed().toFixed(1)} s)`;
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  notify() {
    for (const fn of this.listeners) fn(this.state);
  }
}

export const python = new PythonWorker();

// For the benchmark, the browser tests and curious readers' devtools.
window.labsim = { python, call: (method, ...args) => python.call(method, ...args) };

// Python starts as soon as the page has painted once (or at once, if the page's <head> started
// the worker already): the worker's download and compilation run on other threads, so they
// overlap with plotly.js parsing instead of waiting for it.
export function startPythonAfterFirstPaint() {
  if (python.state !== "idle") return;
  if (window.__labsimWorker || performance.getEntriesByType("paint").length) python.start();
  else requestAnimationFrame(() => setTimeout(() => python.start(), 0));
}
