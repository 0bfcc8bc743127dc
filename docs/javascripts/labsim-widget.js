// A widget (<div class="labsim-widget" data-scenario="...">): controls and the first chart come
// from the JSON the site build embedded in the page, so they appear before Python is loaded;
// changing a control re-runs the scenario in the worker and updates the chart (Plotly.react).

import { PLOT_CONFIG, themedLayout } from "./labsim-figure.js";
import { loadPlotly, restorePlotlyStyles, snapshotPlotlyStyles } from "./labsim-plotly.js";
import { python } from "./labsim-python.js";
import { isTaught, release } from "./labsim-release.js";

// The page's colours for a chart (labsim-figure.js themes the layout with them). Read once
// per colour scheme: getComputedStyle() right after a chart was drawn makes the browser
// recompute the whole page's style then and there (8 ms of every re-run).
let themeCache = null;

/** The colour scheme changed: read the page's colours again at the next drawing. */
export function forgetTheme() {
  themeCache = null;
}

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

export function el(tag, attrs = {}, ...children) {
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

export class Widget {
  // onRelease(value): the reader chose a release in this widget's own release control.
  constructor(root, index, { onRelease }) {
    this.root = root;
    this.onRelease = onRelease;
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
    if (control.name === this.release) this.onRelease(params[control.name]);
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
