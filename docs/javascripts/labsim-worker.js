// The Web Worker running labsim on Pyodide. One per page load (shared by all widgets and
// terminals of the page and kept across instant navigation).
//
// Protocol: the page posts {id, method, args}; the worker answers {id, ok: true, result} or
// {id, ok: false, error}. It also posts {event: "ready", ms, version, phases, from} once Python
// is up (from: "snapshot", the build's memory snapshot, or "wheel", a normal start), or
// {event: "failed", error}. Methods: describe, simulate, terminal (session, line, and for a
// host of a shared network: network, host, hosts; then the OpenZFS release a new machine
// runs), complete (session, line, cursor, the terminal's own commands as JSON, then as for
// terminal), reset (session, release) (labsim.web.Bridge, JSON strings in and out), warm
// (scenario: its one-off work, done in the background; answered when done), ping, and _exec
// (run Python source, return repr of the last expression; used by the benchmark and the
// tests).

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

async function fetchManifest() {
  const response = await fetch(new URL("labsim.json", WHEELS), { cache: "no-cache" });
  if (!response.ok) throw new Error(`labsim.json: HTTP ${response.status}`);
  return response.json();
}

async function fetchWheel(manifest) {
  const url = new URL(manifest.wheel, WHEELS);
  url.searchParams.set("v", manifest.sha256.slice(0, 12)); // new build, new URL
  return fetchBytes(url);
}

// The build's memory snapshot (tools/pyodide_snapshot.mjs): Python with labsim imported and
// the Bridge made, gzip-compressed.
async function fetchSnapshot(manifest) {
  const response = await fetch(new URL(manifest.snapshot, WHEELS));
  if (!response.ok) throw new Error(`${manifest.snapshot}: HTTP ${response.status}`);
  const inflated = response.body.pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(inflated).arrayBuffer());
}

const pyodideOptions = {
  stdout: (line) => console.log("[python]", line),
  stderr: (line) => console.warn("[python]", line),
};

// Pyodide restores a snapshot by copying it over the WebAssembly memory as instantiated
// (restoreSnapshot() in pyodide.asm.mjs), which starts at 480 pages (30 MiB) and does not
// grow to fit: a snapshot of a heap that grew while labsim was imported fails with "offset
// is out of bounds". So the memory is grown to the snapshot's size as soon as the module is
// instantiated, before the copy. The snapshot's second word is the size of its header.
function snapshotPages(bytes) {
  const header = new DataView(bytes.buffer, bytes.byteOffset, 8).getUint32(4, true);
  return Math.ceil((bytes.length - header) / 65536);
}

function growMemoryOnInstantiate(pages) {
  const { instantiate, instantiateStreaming } = WebAssembly;
  const grown = (result) => {
    const memory = (result.instance ?? result).exports?.memory;
    if (memory instanceof WebAssembly.Memory) {
      const have = memory.buffer.byteLength / 65536;
      if (have < pages) memory.grow(pages - have);
    }
    return result;
  };
  WebAssembly.instantiate = (...args) => instantiate(...args).then(grown);
  WebAssembly.instantiateStreaming = (...args) => instantiateStreaming(...args).then(grown);
  return () => Object.assign(WebAssembly, { instantiate, instantiateStreaming });
}

// From the snapshot: Python and labsim are up at once; the wheel's files are unpacked after
// the first calls are answered (nothing needs them: every labsim module is already imported).
// The snapshot's bytes are there before loadPyodide starts: a snapshot that cannot be had
// then leaves nothing half started (a promise of it that failed inside loadPyodide would be
// an unhandled rejection).
async function bootFromSnapshot(loadPyodide, snapshot, wheel, mark) {
  const bytes = await snapshot;
  mark("snapshot");
  const restore = growMemoryOnInstantiate(snapshotPages(bytes));
  let instance;
  try {
    instance = await loadPyodide({ indexURL: PYODIDE.href, ...pyodideOptions, _loadSnapshot: bytes });
  } finally {
    restore();
  }
  mark("pyodide");
  const made = instance.globals.get("_labsim_bridge");
  if (!made) throw new Error("the snapshot has no _labsim_bridge");
  setTimeout(async () => {
    try {
      instance.unpackArchive(await wheel, "wheel");
    } catch (error) {
      console.warn("labsim: cannot unpack the wheel after the snapshot", error);
    }
    exercise(instance);
  }, 0);
  return [instance, made];
}

// Python run from the snapshot has not made V8 compile the interpreter's hot paths with its
// optimizing tier yet (a normal start did, importing labsim): labsim.web.Exercise, a short
// step at a time in the background (below), does it while the reader reads instead of
// during their first commands.
function exercise(instance) {
  let steps;
  try {
    steps = instance.runPython("import labsim.web\nlabsim.web.Exercise()");
  } catch (error) {
    console.warn("labsim: no warm-up", error);
    return;
  }
  inBackground(steps, "the warm-up");
}

// ---------------------------------------------------------------------------------------------
// Work in the background: Python objects with step() -> bool (labsim.web.Steps, Exercise),
// advanced one short step per task of the worker, so that the page's calls, which arrive as
// tasks of their own, go in between: a command typed in a terminal waits for one step, not
// for a widget's one-off work (the copies widget fills three pools: seconds of Python).
// Steps are taken first come, first served, except that a widget's run moves its scenario's
// warm-up to the front (and waits for it: the job is urgent then). Other steps wait until the
// page has left Python alone for QUIET_MS: a reader changing a widget's controls, or typing,
// gets answers without a step of the background in between (each was up to a scenario's run).

const QUIET_MS = 300;
const background = []; // {steps, what, done, urgent}
let stepping = false;
let quietUntil = 0; // performance.now() before which only urgent steps are taken
let quietTimer = null;
const nextStep = new MessageChannel(); // a task at once (setTimeout is held back 4 ms when nested)
nextStep.port1.onmessage = () => {
  stepping = false;
  const job = background[0];
  if (!job) return;
  if (!job.urgent && performance.now() < quietUntil) {
    keepStepping();
    return;
  }
  let more = false;
  try {
    more = job.steps.step();
  } catch (error) {
    console.warn(`labsim: ${job.what} failed`, error); // a run that needs it says why
  }
  if (!more) {
    background.shift();
    job.steps.destroy();
    job.done();
  }
  keepStepping();
};

function keepStepping() {
  if (stepping || !background.length) return;
  const wait = background[0].urgent ? 0 : quietUntil - performance.now();
  if (wait > 0) {
    quietTimer ??= setTimeout(() => { quietTimer = null; keepStepping(); }, wait);
    return;
  }
  stepping = true;
  nextStep.port2.postMessage(null);
}

function inBackground(steps, what) {
  return new Promise((done) => {
    background.push({ steps, what, done });
    keepStepping();
  });
}

// scenario -> the promise of its warm-up (labsim.web.Bridge.warming), resolved when done.
const warmUps = new Map();

// The warm-up: the scenario's one-off work, then a few runs of it (labsim.web.REHEARSALS) so that
// V8 has compiled the interpreter's paths for it before the reader's first change.
function warmUp(scenario, first = false) {
  if (!warmUps.has(scenario)) {
    warmUps.set(scenario, inBackground(bridge.warming(scenario, true), `the warm-up of ${scenario}`));
  }
  if (first) {
    const at = background.findIndex((job) => job.what === `the warm-up of ${scenario}`);
    if (at >= 0) {
      background[at].urgent = true;
      if (at > 0) background.unshift(...background.splice(at, 1));
      keepStepping();
    }
  }
  return warmUps.get(scenario);
}

async function bootFromWheel(loadPyodide, wheel, mark) {
  const instance = await loadPyodide({ indexURL: PYODIDE.href, ...pyodideOptions });
  mark("pyodide");
  instance.unpackArchive(await wheel, "wheel");
  mark("unpack");
  instance.runPython("import labsim.web\n_labsim_bridge = labsim.web.Bridge()");
  return [instance, instance.globals.get("_labsim_bridge")];
}

async function boot() {
  const t0 = performance.now();
  const phases = {}; // milliseconds since the worker's boot started, for the benchmark
  const mark = (name) => { phases[name] = Math.round(performance.now() - t0); };
  const manifest = fetchManifest();
  // Both downloads start as soon as the manifest names them; each is awaited (and its
  // failure reported) where it is used.
  const bytes = manifest.then((m) => (m.snapshot ? fetchSnapshot(m) : null));
  const wheel = manifest.then(fetchWheel);
  bytes.catch(() => {});
  wheel.catch(() => {});
  const { loadPyodide } = await import(new URL("pyodide.mjs", PYODIDE).href);
  mark("module");
  const { snapshot, version } = await manifest;
  let from = "wheel";
  if (snapshot) {
    try {
      [pyodide, bridge] = await bootFromSnapshot(loadPyodide, bytes, wheel, mark);
      from = "snapshot";
    } catch (error) {
      console.warn("labsim: the Python snapshot did not load; starting Python the long way", error);
    }
  }
  if (!bridge) [pyodide, bridge] = await bootFromWheel(loadPyodide, wheel, mark);
  mark("bridge");
  // startedAt: when the boot started, on the clock of the epoch (the page's clock differs)
  return { ms: Math.round(performance.now() - t0), version, phases, from, startedAt: performance.timeOrigin + t0 };
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
  // A widget's run: its scenario's one-off work first, in the background's short steps.
  simulate: async (scenario, paramsJson) => {
    await warmUp(scenario, true);
    return bridge.simulate(scenario, paramsJson);
  },
  // Answered once the scenario's one-off work is done, a short step at a time.
  warm: async (scenario) => { await warmUp(scenario); return null; },
  terminal: (sessionId, line, network = "", host = "", hosts = "", zfsVersion = "") =>
    bridge.terminal(sessionId, line, network, host, hosts, zfsVersion),
  complete: (sessionId, line, cursor, commands = "", network = "", host = "", hosts = "", zfsVersion = "") =>
    bridge.complete(sessionId, line, cursor, commands, network, host, hosts, zfsVersion),
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
    const result = await methods[method](...args);
    postMessage({ id, ok: true, result, ms: performance.now() - t0 });
  } catch (error) {
    postMessage({ id, ok: false, ...pythonError(error) });
  } finally {
    if (method !== "ping" && method !== "warm") quietUntil = performance.now() + QUIET_MS;
  }
};
