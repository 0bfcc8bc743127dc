// Page glue for the simulations: loaded by site.js only on pages with a widget or a terminal.
//
//  * One Web Worker (labsim-worker.js, Python on Pyodide) per page load, started in the
//    background after first paint and kept across instant navigation.
//  * Widgets (<div class="labsim-widget" data-scenario="...">): see labsim-widget.js; the worker
//    is labsim-python.js's, plotly.js labsim-plotly.js's.
//  * Terminals (<div class="labsim-terminal" data-session="..." data-prompt="...">): see
//    labsim-terminal.js. Terminals with the same data-network are hosts (data-host) of one
//    simulated network; data-setup holds command lines run, unseen, when a host is made.
//  * The OpenZFS release selector (<div class="zfl-release" data-choices="..."> under the title of
//    a ZFS page, put there empty and hidden by the site build): the reader's release, kept in
//    localStorage for every page. Changing it, there or in a widget's own release control,
//    re-runs every widget that has that control and gives every ZFS terminal (a machine of its
//    own, not a host of a network) a fresh machine of that release.
// sync() is called from mkdocs-material's document$ (first load and every instant navigation):
// it unmounts what left the page and mounts what arrived.

import { holdPlotlyUntil, restorePlotlyStyles } from "./labsim-plotly.js";
import { asset, python, startPythonAfterFirstPaint } from "./labsim-python.js";
import { isTaught, release, RELEASE_KEY, releaseNote, storedRelease } from "./labsim-release.js";
import { LabTerminal } from "./labsim-terminal.js";
import { el, forgetTheme, Widget } from "./labsim-widget.js";

function ensureStylesheet(href) {
  if (document.querySelector(`link[rel=stylesheet][href="${href}"]`)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  document.body.appendChild(link); // not <head>: instant navigation prunes unknown head tags
}

// ---------------------------------------------------------------------------------------------
// The OpenZFS release selector
// ---------------------------------------------------------------------------------------------

/** The reader chose a release, in the page's selector or in a widget's release control. */
function chooseRelease(value) {
  if (!isTaught(value) || value === release.value) return;
  release.value = value;
  try { localStorage.setItem(RELEASE_KEY, value); } catch { /* storage full or disabled */ }
  for (const component of mounted.values()) component.releaseChanged?.(value);
  // Machines of other pages' terminals: made afresh, with this release, by their next command.
  const shown = new Set([...mounted.values()].map((c) => c.session));
  for (const [session, state] of terminalState) {
    if (shown.has(session) || !state.release || state.release === value) continue;
    python.call("reset", session).catch(() => {});
    state.release = null;
    state.screen += releaseNote(value);
  }
}

class ReleasePicker {
  constructor(slot) {
    this.slot = slot;
    const id = "zfl-release-select";
    this.select = el("select", { id, class: "zfl-release__select" },
      ...release.choices.versions.map(([name]) => el("option", { value: name, text: name })));
    this.select.addEventListener("change", () => chooseRelease(this.select.value));
    this.hint = el("span", { class: "zfl-release__hint" });
    slot.replaceChildren(el("label", { for: id, text: "OpenZFS release" }), this.select, this.hint);
    slot.hidden = false;
    this.releaseChanged(release.value);
  }

  releaseChanged(value) {
    this.select.value = value;
    const full = release.choices.versions.find(([name]) => name === value)?.[1] ?? value;
    this.hint.textContent = `Simulations and terminals behave as OpenZFS ${full}, on every lesson.`;
  }

  dispose() {}
}

// ---------------------------------------------------------------------------------------------
// Mounting
// ---------------------------------------------------------------------------------------------

const mounted = new Map(); // element -> Widget | LabTerminal
const terminalState = new Map(); // session id -> history and screen, kept across navigation
const networkSessions = new Map(); // network name -> ids of the sessions that are its hosts

// The page's hosts of a network, in page order (their addresses follow it), with their setup.
function networkHosts(terminals, network) {
  const hosts = terminals.filter((t) => t.dataset.network === network)
    .map((t) => [t.dataset.host ?? "", t.dataset.setup ?? ""]);
  return JSON.stringify(hosts);
}

// Python has reset the whole network: every other terminal of it starts afresh too, also
// those of other pages, which show it when the reader comes back.
function networkReset(network, from) {
  for (const session of networkSessions.get(network) ?? []) {
    if (session === from.session) continue;
    const note = `(fresh network: reset from ${from.host})`;
    const terminal = [...mounted.values()].find((c) => c instanceof LabTerminal && c.session === session);
    if (terminal) terminal.fresh(note);
    else if (terminalState.has(session)) Object.assign(terminalState.get(session), { history: [], screen: `${note}\r\n` });
  }
}

new MutationObserver(() => {
  forgetTheme();
  for (const component of mounted.values()) component.retheme?.();
}).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });

export function sync() {
  performance.mark("labsim:sync");
  restorePlotlyStyles();
  for (const [element, component] of mounted) {
    if (!element.isConnected) {
      component.dispose();
      mounted.delete(element);
    }
  }
  const slot = document.querySelector(".zfl-release[data-choices]");
  try {
    release.choices = slot ? JSON.parse(slot.dataset.choices) : null;
  } catch (error) {
    console.error("labsim: unreadable release choices", error);
    release.choices = null;
  }
  if (release.choices) {
    if (!isTaught(release.value)) release.value = storedRelease();
    if (!mounted.has(slot)) mounted.set(slot, new ReleasePicker(slot));
  }
  const widgets = [...document.querySelectorAll(".labsim-widget")];
  const terminals = [...document.querySelectorAll(".labsim-terminal")];
  if (widgets.length || terminals.length) startPythonAfterFirstPaint();
  if (terminals.length) ensureStylesheet(asset("assets/vendor/xterm/xterm.css"));
  for (const element of terminals) {
    if (mounted.has(element)) continue;
    const { network = "", host = "" } = element.dataset;
    const session = element.dataset.session || (network ? `${network}:${host}` : "default");
    // release: the OpenZFS release of the session's machine in Python, once made (ZFS only)
    if (!terminalState.has(session)) terminalState.set(session, { history: [], screen: "", release: null });
    if (network) {
      if (!networkSessions.has(network)) networkSessions.set(network, new Set());
      networkSessions.get(network).add(session);
    }
    const terminal = new LabTerminal(element, {
      python,
      session,
      prompt: element.dataset.prompt ?? "$ ",
      state: terminalState.get(session),
      assets: {
        xterm: asset("assets/vendor/xterm/xterm.mjs"),
        fit: asset("assets/vendor/xterm/addon-fit.mjs"),
      },
      network,
      host,
      hosts: network ? networkHosts(terminals, network) : "",
      onReset: network ? (from) => networkReset(network, from) : null,
      // A machine of its own is a ZFS machine: it runs the page's release.
      release: network ? null : () => (release.choices ? release.value : ""),
      releaseNote,
    });
    mounted.set(element, terminal);
  }
  const opening = terminals.map((element) => mounted.get(element)?.opened).filter(Boolean);
  if (opening.length) {
    holdPlotlyUntil(opening);
  }
  const firstPaint = [];
  widgets.forEach((element, index) => {
    if (mounted.has(element)) return;
    try {
      const widget = new Widget(element, index, { onRelease: chooseRelease });
      mounted.set(element, widget);
      firstPaint.push(widget.mount());
    } catch (error) {
      console.error("labsim: cannot mount widget", element, error);
      element.append(el("p", { class: "labsim-error", text: `This simulation cannot start: ${error.message}` }));
    }
  });
  return Promise.all(firstPaint);
}
