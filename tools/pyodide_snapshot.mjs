// A Pyodide memory snapshot with labsim imported, made in Node at site build time
// (tools/mkdocs_hooks.py runs it), so the page's worker starts Python from it in a few hundred
// milliseconds instead of booting the interpreter and importing labsim (4-8 s on the course's
// machines: issue 16).
//
//   node tools/pyodide_snapshot.mjs PYODIDE_DIR WHEEL OUT
//
// PYODIDE_DIR holds pyodide.mjs (node_modules/pyodide), WHEEL the labsim wheel the site ships,
// OUT the snapshot to write, gzip-compressed (the worker inflates it with DecompressionStream).
// The snapshot is the WebAssembly memory after `labsim.web.preload()` has imported every labsim
// module and made the worker's Bridge (as `_labsim_bridge` in __main__); the file system is not
// part of it, so the worker still unpacks the wheel (for tracebacks and anything imported
// later). Pyodide's snapshot options (_makeSnapshot, makeMemorySnapshot, _loadSnapshot) are
// marked private: the pinned Pyodide of package.json is the one this was written against, and
// the worker falls back to a normal start if a snapshot does not load.

import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

const [pyodideDir, wheelPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: node tools/pyodide_snapshot.mjs PYODIDE_DIR WHEEL OUT");
  process.exit(2);
}

const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
const pyodide = await loadPyodide({ _makeSnapshot: true });
pyodide.unpackArchive(new Uint8Array(readFileSync(wheelPath)), "wheel");
pyodide.runPython("import labsim.web\n_labsim_bridge = labsim.web.preload()");
const snapshot = pyodide.makeMemorySnapshot();
writeFileSync(outPath, gzipSync(snapshot, { level: 6 }));
