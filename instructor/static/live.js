// The live view of one workshop: learners × steps, kept up to date by the server's event
// stream (/w/ID/events: a "snapshot" of every learner's latest results, then one "result"
// per stored post). No library, no reload.
"use strict";

const workshop = document.body.dataset.workshop;
const token = new URLSearchParams(location.search).get("token") || "";
const base = `/w/${encodeURIComponent(workshop)}`;
const auth = `token=${encodeURIComponent(token)}`;
const latest = new Map(); // learner -> Map(column -> result)
const columns = new Map(); // "lab\u0000step" -> {lab, step}
const fresh = new Set(); // cells changed since the last render, outlined a moment
let pending = false;

document.getElementById("export").href = `${base}/export.csv?${auth}`;

function columnKey(row) {
  return `${row.lab}\u0000${row.step}`;
}

function apply(row) {
  const key = columnKey(row);
  columns.set(key, { lab: row.lab, step: row.step });
  if (!latest.has(row.learner)) latest.set(row.learner, new Map());
  const cells = latest.get(row.learner);
  const known = cells.get(key);
  if (!known || known.at <= row.at) {
    cells.set(key, row);
    fresh.add(`${row.learner}\u0000${key}`);
  }
}

function cell(learner, key) {
  const td = document.createElement("td");
  const row = latest.get(learner).get(key);
  td.dataset.learner = learner;
  td.dataset.lab = columns.get(key).lab;
  td.dataset.step = columns.get(key).step;
  if (row) {
    td.className = row.passed ? "pass" : "fail";
    td.textContent = row.passed ? "✓" : "✗";
    const when = new Date(row.at * 1000).toLocaleTimeString();
    td.title = `${row.passed ? "passed" : "not yet"} at ${when}${row.detail ? ": " + row.detail : ""}`;
    if (fresh.has(`${learner}\u0000${key}`)) td.classList.add("new");
  } else {
    td.textContent = "·";
    td.title = "not checked yet";
  }
  return td;
}

function render() {
  pending = false;
  const keys = [...columns.keys()].sort();
  const head = document.querySelector("#grid thead tr");
  head.replaceChildren(head.firstElementChild);
  for (const key of keys) {
    const th = document.createElement("th");
    th.scope = "col";
    const small = document.createElement("small");
    small.textContent = columns.get(key).lab;
    th.append(small, columns.get(key).step);
    head.append(th);
  }
  const body = document.querySelector("#grid tbody");
  const rows = [];
  let passed = 0;
  for (const learner of [...latest.keys()].sort()) {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = learner;
    tr.append(th);
    for (const key of keys) {
      const td = cell(learner, key);
      if (td.classList.contains("pass")) passed += 1;
      tr.append(td);
    }
    rows.push(tr);
  }
  body.replaceChildren(...rows);
  document.getElementById("summary").textContent =
    `${latest.size} learner(s), ${keys.length} step(s), ${passed} passed`;
  const shown = new Set(fresh);
  setTimeout(() => {
    for (const id of shown) fresh.delete(id);
  }, 2000);
}

function later() {
  if (!pending) {
    pending = true;
    requestAnimationFrame(render);
  }
}

function status(text, kind) {
  const el = document.getElementById("status");
  el.textContent = text;
  el.className = kind;
}

const events = new EventSource(`${base}/events?${auth}`);
events.addEventListener("open", () => status("live", "live"));
events.addEventListener("error", () => status("disconnected: retrying…", "down"));
events.addEventListener("snapshot", (e) => {
  latest.clear();
  columns.clear();
  for (const row of JSON.parse(e.data)) apply(row);
  later();
});
events.addEventListener("result", (e) => {
  apply(JSON.parse(e.data));
  later();
});
events.addEventListener("deleted", () => {
  events.close();
  latest.clear();
  columns.clear();
  render();
  status("this workshop's data was deleted", "down");
});

document.getElementById("delete").addEventListener("click", async () => {
  if (!confirm(`Delete every result and the key of workshop ${workshop}? This cannot be undone.`)) {
    return;
  }
  const answer = await fetch(`${base}/delete?${auth}`, { method: "POST" });
  if (!answer.ok) status(`delete refused: ${answer.status}`, "down");
});
