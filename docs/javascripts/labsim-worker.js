// The Web Worker running labsim on Pyodide. One per page load (shared by all widgets and
// terminals of the page and kept across instant navigation).
//
// Protocol: the page posts {id, method, args}; the worker answers {id, ok: true, result} or
// {id, ok: false, error}. It also posts {event: "ready", ms, version} once Python is up, or
// {event: "failed", error}. Methods: describe, simulate, terminal (session, line, and for a
// host of a shared network: network, host, hosts; then the OpenZFS release a new machine
// runs), reset (session, release) (labsim.web.Bridge, JSON strings in and out), ping, and _exec (run Python source, return repr of the last
// expression; used by the benchmark and the tests).

import { bashParser } from "./labsim-shell-grammar.js";
import { zfsLz4Size } from "./zfs-lz4.js";

// ZFS's LZ4 in JavaScript, which labsim.zfs.lz4_zfs calls (through `import js`) instead of
// its Python port: the same sizes, far faster under Pyodide.
self.zfsLz4Size = zfsLz4Size;

const ROOT = new URL("../", import.meta.url);
const PYODIDE = new URL("assets/vendor/pyodide/", ROOT);
const WHEELS = new URL("assets/wheels/", ROOT);
const TREE_SITTER = new URL("assets/vendor/tree-sitter/", ROOT);

// The shell's grammar (labsim-shell-grammar.js, 1.5 MB), fetched while Pyodide starts: the
// worker only runs on pages with a widget or a terminal, and both run command lines (scenarios
// are scripts too). labsim.shell.syntax.backend calls labsimParseBash(line) through `import js`.
// Every call but ping waits for it.
async function loadShellParser() {
  self.labsimParseBash = await bashParser({
    module: new URL("tree-sitter.js", TREE_SITTER).href,
    runtimeWasm: new URL("tree-sitter.wasm", TREE_SITTER).href,
    grammarWasm: new URL("tree-sitter-bash.wasm", TREE_SITTER).href,
  });
}

let pyodide = null;
let bridge = null;

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function fetchWheel() {
  const response = await fetch(new URL("labsim.json", WHEELS), { cache: "no-cache" });
  if (!response.ok) throw new Error(`labsim.json: HTTP ${response.status}`);
  const manifest = await response.json();
  const url = new URL(manifest.wheel, WHEELS);
  url.searchParams.set("v", manifest.sha256.slice(0, 12)); // new build, new URL
  return { manifest, bytes: await fetchBytes(url) };
}

async function boot() {
  const t0 = performance.now();
  const wheel = fetchWheel();
  const { loadPyodide } = await import(new URL("pyodide.mjs", PYODIDE).href);
  pyodide = await loadPyodide({
    indexURL: PYODIDE.href,
    stdout: (line) => console.log("[python]", line),
    stderr: (line) => console.warn("[python]", line),
  });
  const { manifest, bytes } = await wheel;
  pyodide.unpackArchive(bytes, "wheel");
  pyodide.runPython("import labsim.web\n_labsim_bridge = labsim.web.Bridge()");
  bridge = pyodide.globals.get("_labsim_bridge");
  return { ms: Math.round(performance.now() - t0), version: manifest.version };
}

const shellReady = loadShellParser();
shellReady.catch(() => {}); // reported by the calls that wait for it
const ready = boot().then(
  (info) => { postMessage({ event: "ready", ...info }); return info; },
  (error) => { postMessage({ event: "failed", error: String(error?.message ?? error) }); throw error; },
);
ready.catch(() => {}); // reported above; every call also answers with the error

const methods = {
  ping: () => "pong",
  describe: (scenario) => bridge.describe(scenario),
  simulate: (scenario, paramsJson) => bridge.simulate(scenario, paramsJson),
  warm: (scenario) => { bridge.warm(scenario); return null; },
  terminal: (sessionId, line, network = "", host = "", hosts = "", zfsVersion = "") =>
    bridge.terminal(sessionId, line, network, host, hosts, zfsVersion),
  reset: (sessionId, zfsVersion = "") => { bridge.reset(sessionId, zfsVersion); return null; },
  _exec: (source) => {
    const value = pyodide.runPython(source);
    const text = value?.toString?.() ?? String(value);
    value?.destroy?.();
    return text;
  },
};

function pythonError(error) {
  // A PythonError message is the whole traceback; its last line names the exception.
  const text = String(error?.message ?? error).trim();
  const lines = text.split("\n");
  return { error: lines[lines.length - 1], traceback: text };
}

self.onmessage = async ({ data }) => {
  const { id, method, args = [] } = data;
  try {
    await ready;
    if (!Object.hasOwn(methods, method)) throw new Error(`unknown method ${method}`);
    if (method !== "ping") await shellReady;
    const t0 = performance.now();
    const result = methods[method](...args);
    postMessage({ id, ok: true, result, ms: performance.now() - t0 });
  } catch (error) {
    postMessage({ id, ok: false, ...pythonError(error) });
  }
};
