// Page glue for the simulations: loaded by site.js only on pages with a widget or a terminal.
//
//  * One Web Worker (labsim-worker.js, Python on Pyodide) per page load, started in the
//    background after first paint and kept across instant navigation.
//  * Widgets (<div class="labsim-widget" data-scenario="...">): controls and the first chart come
//    from the JSON the site build embedded in the page, so they appear before Python is loaded;
//    changing a control re-runs the scenario in the worker and updates the chart (Plotly.react).
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

import { PLOT_CONFIG, themedLayout } from "./labsim-figure.js";
import { LabTerminal } from "./labsim-terminal.js";

const ROOT = new URL("../", import.meta.url);
const asset = (path) => new URL(path, ROOT).href;

// ---------------------------------------------------------------------------------------------
// The Python worker
// ---------------------------------------------------------------------------------------------

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

const python = new PythonWorker();

// For the benchmark, the browser tests and curious readers' devtools.
window.labsim = { python, call: (method, ...args) => python.call(method, ...args) };

// Python starts as soon as the page has painted once (or at once, if the page's <head> started
// the worker already): the worker's download and compilation run on other threads, so they
// overlap with plotly.js parsing instead of waiting for it.
function startPythonAfterFirstPaint() {
  if (python.state !== "idle") return;
  if (window.__labsimWorker || performance.getEntriesByType("paint").length) python.start();
  else requestAnimationFrame(() => setTimeout(() => python.start(), 0));
}

// ---------------------------------------------------------------------------------------------
// Vendored libraries, loaded once per page load
// ---------------------------------------------------------------------------------------------

// plotly.js takes the main thread for a second or more while it is parsed: a page's terminals
// open first (they take typing at once), then plotly.js runs. Never waits more than
// PLOTLY_WAIT ms.
const PLOTLY_WAIT = 1000;
let plotlyGate = Promise.resolve();

// plotly.js prints its warnings with console.trace (a stack trace each), and the metaslab
// charts made it warn 45 times per drawing, a third of a re-run's time: their bars are
// coloured by a number on a colour scale, and plotly.js picks the colour of the text inside
// a bar from the bar's colour before it maps the number to a colour ("Invalid color
// specifier", then its fallback: the text colour the chart has always shown). Its log level
// is global (a chart's own config.logging does not reach these warnings).
function quietPlotly(Plotly) {
  Plotly?.setPlotConfig?.({ logging: 0 });
  return Plotly;
}

let plotlyPromise = null;
async function loadPlotly() {
  if (window.Plotly) return quietPlotly(window.Plotly);
  await plotlyGate;
  performance.mark("labsim:plotly-gate");
  if (window.Plotly) return window.Plotly;
  plotlyPromise ??= new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = asset("assets/vendor/plotly/plotly.min.js");
    script.onload = () => {
      performance.mark("labsim:plotly-loaded");
      quietPlotly(window.Plotly);
      resolve(window.Plotly);
    };
    script.onerror = () => reject(new Error("cannot load plotly.js"));
    document.body.appendChild(script); // outside the swapped container: survives navigation
  });
  return plotlyPromise;
}

function ensureStylesheet(href) {
  if (document.querySelector(`link[rel=stylesheet][href="${href}"]`)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  document.body.appendChild(link); // not <head>: instant navigation prunes unknown head tags
}

// plotly.js keeps its CSS rules in <style id="plotly.js-style-*"> elements in <head>, added with
// insertRule (so the element has no text). Instant navigation removes head elements that the new
// page does not have, so we keep a copy of the rules and put them back after each page swap.
const plotlyStyles = new Map();

const plotlyRuleCounts = new Map(); // style id -> how many rules the copy holds

function snapshotPlotlyStyles() {
  for (const style of document.querySelectorAll('style[id^="plotly.js-style"]')) {
    try {
      const sheet = style.sheet?.cssRules ?? [];
      // plotly.js only ever adds rules: the same count, the same rules (no copy each chart)
      if (!sheet.length || plotlyRuleCounts.get(style.id) === sheet.length) continue;
      plotlyStyles.set(style.id, Array.from(sheet, (rule) => rule.cssText).join("\n"));
      plotlyRuleCounts.set(style.id, sheet.length);
    } catch { /* not readable: leave it */ }
  }
}

function restorePlotlyStyles() {
  for (const [id, css] of plotlyStyles) {
    if (document.getElementById(id)) continue;
    const style = document.createElement("style");
    style.id = id;
    style.textContent = css;
    document.head.appendChild(style);
  }
}

// ---------------------------------------------------------------------------------------------
// The OpenZFS release
// ---------------------------------------------------------------------------------------------

const RELEASE_KEY = "zfl:zfs-version:v1";

// choices: labsim.web.release_choices() from the page, {control, default, versions: [[name,
// release], ...]}, or null on a page without the selector; value: the reader's release.
const release = { choices: null, value: null };

const isTaught = (name) => Boolean(release.choices?.versions.some(([n]) => n === name));

function storedRelease() {
  try {
    const value = localStorage.getItem(RELEASE_KEY);
    if (isTaught(value)) return value;
  } catch { /* storage disabled */ }
  return release.choices.default;
}

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

const releaseNote = (value) => `\x1b[2mOpenZFS ${value} now: a fresh machine\x1b[0m\r\n`;

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
// Widgets
// ---------------------------------------------------------------------------------------------

// The page's colours for a chart (labsim-figure.js themes the layout with them). Read once
// per colour scheme: getComputedStyle() right after a chart was drawn makes the browser
// recompute the whole page's style then and there (8 ms of every re-run).
let themeCache = null;

function pageTheme() {
  if (themeCache) return themeCache;
  const css = getComputedStyle(document.body);
  const fg = css.getPropertyValue("--md-default-fg-color").trim();
  const theme = {
    fg: fg || "#333",
    grid: css.getPropertyValue("--md-default-fg-color--lightest").trim() || "#ddd",
    font: css.fontFamily,
  };
  if (fg) themeCache = theme; // the stylesheet is there: its colours hold until the scheme changes
  return theme;
}

function optionList(options = []) {
  return options.map((option) => {
    if (Array.isArray(option)) return { value: option[0], label: String(option[1]) };
    if (option !== null && typeof option === "object") {
      return { value: option.value, label: String(option.label ?? option.value) };
    }
    return { value: option, label: String(option) };
  });
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  node.append(...children.filter(Boolean));
  return node;
}

const sameParams = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// A control may follow another (a preset): its default_by, label_by and options_by give its
// default, label (null: hidden) and options for each value of the followed control
// (labsim/scenarios/controls.py).
function followed(control, params, key, fallback) {
  const table = control.follows ? control[key] : undefined;
  const value = String(params[control.follows]);
  return table && Object.hasOwn(table, value) ? table[value] : fallback;
}

let widgetUid = 0;

class Widget {
  constructor(root, index) {
    this.root = root;
    root.labsimWidget = this; // for the browser tests and devtools
    this.index = index;
    this.scenario = root.dataset.scenario;
    this.payload = JSON.parse(root.querySelector("template.labsim-payload").content.textContent);
    this.describe = this.payload.describe;
    this.controls = this.describe.controls ?? [];
    this.defaults = { ...this.describe.defaults };
    for (const c of this.controls) if (!(c.name in this.defaults)) this.defaults[c.name] = c.default;
    this.storageKey = `labsim:${root.dataset.build ?? "dev"}:${location.pathname}:${index}:${this.scenario}`;
    const restored = this.restore();
    this.params = { ...this.defaults, ...restored };
    // The control the page's release selector drives, if this widget has it. The page's
    // release replaces a stored one, unless that is a release the selector does not offer
    // (0.6.5 of the source posts), picked here on purpose.
    const name = release.choices?.control;
    this.release = this.controls.some((c) => c.name === name) ? name : null;
    if (this.release && (!(name in restored) || isTaught(restored[name]))) this.params[name] = release.value;
    this.shown = null; // the parameters of the chart on screen
    this.figure = null;
    this.wanted = null;
    this.inflight = false;
    this.error = null;
    this.renders = 0;
    this.disposed = false;
    this.uid = `labsim-${++widgetUid}`;
    this.build();
    this.unsubscribe = python.subscribe(() => {
      this.updateStatus();
      this.warmUp();
    });
    this.timer = setInterval(() => python.state === "loading" && this.updateStatus(), 200);
  }

  // ----- state in localStorage -----------------------------------------------------------------
  restore() {
    try {
      const stale = [];
      for (let i = 0; i < localStorage.length; i++) {
        const key = localStorage.key(i);
        if (key.startsWith("labsim:") && !key.startsWith(`labsim:${this.root.dataset.build ?? "dev"}:`)) {
          stale.push(key);
        }
      }
      stale.forEach((key) => localStorage.removeItem(key));
      const saved = JSON.parse(localStorage.getItem(this.storageKey) ?? "{}");
      const known = Object.fromEntries(Object.entries(saved).filter(([k]) => k in this.defaults));
      return known;
    } catch {
      return {};
    }
  }

  save() {
    try {
      if (sameParams(this.params, this.defaults)) localStorage.removeItem(this.storageKey);
      else localStorage.setItem(this.storageKey, JSON.stringify(this.params));
    } catch { /* storage full or disabled */ }
  }

  // ----- DOM --------------------------------------------------------------------------------
  build() {
    // The chart drawn at build time (tools/mkdocs_hooks.py) stands where the live chart will
    // be until that is drawn (then the stylesheet hides it; print shows it instead).
    this.static = this.root.querySelector(".labsim-static");
    this.root.querySelector(".labsim-ui")?.remove();
    this.form = el("form", { class: "labsim-controls", "aria-label": "Simulation parameters" });
    this.form.addEventListener("submit", (event) => event.preventDefault());
    this.inputs = new Map();
    for (const control of this.controls) this.form.append(this.buildControl(control));
    this.note = el("p", { class: "labsim-note", hidden: true });
    this.chart = el("div", { class: "labsim-chart" });
    this.chart.style.minHeight = `${this.payload.result?.figure?.layout?.height ?? 380}px`;
    this.summary = el("p", { class: "labsim-summary", "aria-live": "polite" });
    this.status = el("span", { class: "labsim-status", role: "status" });
    this.resetButton = el("button", { type: "button", class: "md-button labsim-reset", text: "Reset to lesson defaults" });
    this.resetButton.addEventListener("click", () => this.reset());
    this.transcript = el("code");
    this.transcriptBox = el("details", { class: "labsim-transcript" },
      el("summary", { text: "Commands behind this chart" }), el("pre", {}, this.transcript));
    const title = this.describe.title ? el("div", { class: "labsim-title", text: this.describe.title }) : null;
    this.ui = el("div", { class: "labsim-ui" }, title, this.form, this.note, this.static, this.chart,
      el("div", { class: "labsim-bar" }, this.status, this.resetButton), this.summary, this.transcriptBox);
    this.root.append(this.ui);
    this.showValues();
  }

  labelOf(control) {
    return followed(control, this.params, "label_by", control.label ?? control.name);
  }

  optionsOf(control) {
    return optionList(followed(control, this.params, "options_by", control.options));
  }

  fillSelect(input, control) {
    const options = this.optionsOf(control);
    if (sameParams(options, input.labsimOptions)) return;
    input.labsimOptions = options;
    input.replaceChildren(...options.map((option, i) => el("option", { value: String(i), text: option.label })));
  }

  buildControl(control) {
    const id = `${this.uid}-${control.name}`;
    const value = this.params[control.name];
    const unit = control.unit ? el("span", { class: "labsim-unit", text: control.unit }) : null;
    let input;
    let label;
    let wrapper;
    let output = null;
    switch (control.kind) {
      case "checkbox":
        input = el("input", { type: "checkbox", id, name: control.name });
        input.checked = Boolean(value);
        input.addEventListener("change", () => this.changed(control, false));
        label = el("label", { for: id });
        wrapper = el("div", { class: "labsim-control labsim-control--checkbox" }, input, label);
        this.inputs.set(control.name, { control, input, output, label, wrapper });
        return wrapper;
      case "select": {
        input = el("select", { id, name: control.name });
        this.fillSelect(input, control); // showValues() selects the value
        input.addEventListener("change", () => this.changed(control, false));
        break;
      }
      case "text":
        input = el("input", { type: "text", id, name: control.name, spellcheck: "false", autocomplete: "off" });
        input.value = value;
        input.addEventListener("change", () => this.changed(control, false));
        break;
      case "range":
        input = el("input", { type: "range", id, name: control.name, min: control.min, max: control.max, step: control.step ?? "any" });
        input.value = value;
        output = el("output", { for: id, class: "labsim-value" });
        input.addEventListener("input", () => this.changed(control, true));
        input.addEventListener("change", () => this.changed(control, false));
        break;
      default: // number
        input = el("input", { type: "number", id, name: control.name, min: control.min, max: control.max, step: control.step ?? "any" });
        input.value = value;
        input.addEventListener("change", () => this.changed(control, false));
    }
    label = el("label", { for: id });
    wrapper = el("div", { class: `labsim-control labsim-control--${control.kind ?? "number"}` },
      label, el("div", { class: "labsim-input" }, input, output, unit));
    this.inputs.set(control.name, { control, input, output, label, wrapper });
    return wrapper;
  }

  readControl(control) {
    const { input } = this.inputs.get(control.name) ?? {};
    if (control.kind === "checkbox") return input.checked;
    if (control.kind === "select") return this.optionsOf(control)[Number(input.value)]?.value;
    if (control.kind === "text") return input.value;
    const number = Number(input.value);
    if (input.value === "" || !Number.isFinite(number)) return this.params[control.name];
    const min = control.min ?? -Infinity;
    const max = control.max ?? Infinity;
    return Math.min(max, Math.max(min, number));
  }

  showValues() {
    for (const { control, input, output, label, wrapper } of this.inputs.values()) {
      const value = this.params[control.name];
      const text = this.labelOf(control);
      wrapper.hidden = text === null;
      if (text !== null && label.textContent !== text) label.textContent = text;
      if (control.kind === "select") {
        this.fillSelect(input, control);
        input.value = String(this.optionsOf(control).findIndex((o) => sameParams(o.value, value)));
      } else if (control.kind === "checkbox") {
        input.checked = Boolean(value);
      } else {
        input.value = value;
      }
      if (output) output.textContent = String(value);
    }
  }

  // ----- running ----------------------------------------------------------------------------
  changed(control, dragging) {
    const params = { ...this.params, [control.name]: this.readControl(control) };
    for (const c of this.controls) {
      if (c.follows === control.name) params[c.name] = followed(c, params, "default_by", c.default);
    }
    this.params = params;
    this.showValues();
    this.save();
    this.request(dragging ? 60 : 0);
    if (control.name === this.release) chooseRelease(params[control.name]);
  }

  // The page's release changed: run this widget as that release.
  releaseChanged(value) {
    if (!this.release || this.params[this.release] === value) return;
    this.params = { ...this.params, [this.release]: value };
    this.showValues();
    this.save();
    this.request(0);
  }

  // The lesson's values, with the page's release.
  lessonParams() {
    return this.release ? { ...this.defaults, [this.release]: release.value } : { ...this.defaults };
  }

  request(delay) {
    this.wanted = { ...this.params };
    clearTimeout(this.debounce);
    if (delay) this.debounce = setTimeout(() => this.kick(), delay);
    else this.kick();
  }

  async kick() {
    if (this.inflight || !this.wanted || this.disposed) return;
    const params = this.wanted;
    this.wanted = null;
    this.inflight = true;
    this.error = null;
    this.updateStatus();
    const t0 = performance.now();
    try {
      const result = JSON.parse(await python.call("simulate", this.scenario, JSON.stringify(params)));
      if (!this.disposed && !this.wanted) await this.render(result, performance.now() - t0, params);
    } catch (error) {
      this.error = error.message;
      console.error(`labsim: scenario ${this.scenario} failed`, error.traceback ?? error);
    } finally {
      this.inflight = false;
      this.updateStatus();
      if (this.wanted) this.kick();
    }
  }

  reset() {
    clearTimeout(this.debounce);
    this.wanted = null;
    this.params = this.lessonParams();
    this.showValues();
    this.save();
    this.error = null;
    if (this.inflight) this.wanted = { ...this.params }; // overtake the run in flight
    else if (sameParams(this.params, this.defaults)) this.render(this.payload.result, 0, this.defaults); // no Python needed
    else this.request(0); // another release than the embedded chart's
    this.updateStatus();
  }

  async render(result, ms, params) {
    const ticket = (this.ticket = (this.ticket ?? 0) + 1);
    const Plotly = await loadPlotly();
    if (this.disposed || ticket !== this.ticket) return; // a newer result got here first
    this.figure = result.figure;
    this.shown = params;
    this.updateNote();
    restorePlotlyStyles();
    await Plotly.react(this.chart, result.figure.data ?? [], this.layout(), PLOT_CONFIG);
    snapshotPlotlyStyles();
    this.summary.textContent = result.summary ?? "";
    this.transcript.textContent = result.transcript ?? "";
    this.transcriptBox.hidden = !result.transcript;
    this.renders += 1;
    this.root.dataset.renders = String(this.renders);
    this.root.dispatchEvent(new CustomEvent("labsim:rendered", { detail: { ms, renders: this.renders } }));
    if (!this.resizer) {
      this.width = this.chart.clientWidth;
      this.resizer = new ResizeObserver(() => {
        const width = this.chart.clientWidth;
        if (!this.chart.isConnected || !width || width === this.width) return;
        this.width = width;
        clearTimeout(this.resizeTimer);
        this.resizeTimer = setTimeout(() => this.retheme(), 100); // re-wraps the title too
      });
      this.resizer.observe(this.chart);
    }
  }

  layout() {
    // this.width: the ResizeObserver's, once the first chart is drawn (reading clientWidth
    // after a drawing makes the browser lay the page out at once)
    return themedLayout(this.figure.layout, this.width || this.chart.clientWidth || 700, pageTheme());
  }

  retheme() {
    if (this.figure && window.Plotly) {
      window.Plotly.react(this.chart, this.figure.data ?? [], this.layout(), PLOT_CONFIG);
    }
  }

  updateStatus() {
    let text;
    let state;
    if (this.error) [state, text] = ["error", `Error: ${this.error}`];
    else if (python.state === "failed") [state, text] = ["error", `Python failed to load: ${python.error}`];
    else if (python.state === "loading" || python.state === "idle") {
      state = "loading";
      text = python.loadingText();
      if (this.wanted || this.inflight) text += " — your change runs as soon as it is ready";
    } else if (this.inflight) [state, text] = ["running", "Running…"];
    else [state, text] = ["ready", "Ready"];
    this.root.dataset.state = state;
    if (this.status.textContent !== text) this.status.textContent = text;
    this.updateNote();
  }

  // While Python loads, the embedded chart (the default release) stands in for the reader's.
  updateNote() {
    const shown = this.release && this.shown?.[this.release];
    const wanted = this.release && this.params[this.release];
    const visible = Boolean(shown) && shown !== wanted && python.state !== "ready";
    if (visible) {
      const text = python.state === "failed"
        ? `The chart shows OpenZFS ${shown}: Python could not run ${wanted}.`
        : `The chart shows OpenZFS ${shown} until Python is ready to run ${wanted}.`;
      if (this.note.textContent !== text) this.note.textContent = text;
    }
    this.note.hidden = !visible;
  }

  mount() {
    this.updateStatus();
    const first = this.render(this.payload.result, 0, this.defaults);
    if (!sameParams(this.params, this.defaults)) this.request(0); // restored from localStorage
    this.warmUp();
    return first;
  }

  // The chart came with the page; once Python is up, let it do the scenario's one-off
  // set-up (if it has any) while the reader reads, not on their first change.
  warmUp() {
    if (this.warmed || python.state !== "ready" || this.disposed) return;
    this.warmed = true;
    python.call("warm", this.scenario).catch(() => {}); // a failure shows on the next run
  }

  dispose() {
    this.disposed = true;
    clearTimeout(this.debounce);
    clearTimeout(this.resizeTimer);
    clearInterval(this.timer);
    this.unsubscribe();
    this.resizer?.disconnect();
    if (window.Plotly) window.Plotly.purge(this.chart);
  }
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
  themeCache = null;
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
    plotlyGate = Promise.race([Promise.all(opening), new Promise((r) => setTimeout(r, PLOTLY_WAIT))]);
  }
  const firstPaint = [];
  widgets.forEach((element, index) => {
    if (mounted.has(element)) return;
    try {
      const widget = new Widget(element, index);
      mounted.set(element, widget);
      firstPaint.push(widget.mount());
    } catch (error) {
      console.error("labsim: cannot mount widget", element, error);
      element.append(el("p", { class: "labsim-error", text: `This simulation cannot start: ${error.message}` }));
    }
  });
  return Promise.all(firstPaint);
}
