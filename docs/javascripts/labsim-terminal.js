// An xterm.js terminal with a small line editor, talking to labsim's shell in the Python worker.
//
// Keys: printable text and paste, Enter, Backspace/Delete, Left/Right, Home/End (also Ctrl-A/E),
// Up/Down history, Tab (completion: labsim.completion in the worker; a second Tab lists the
// candidates), Ctrl-C (cancel the line; with a selection, copy it; while a command runs, drop
// the type-ahead), Ctrl-V (paste), Ctrl-L (clear screen), Ctrl-U/Ctrl-K/Ctrl-W (kill).
// Escape then Tab (or Shift+Tab) leaves the terminal (WCAG 2.1.2), as the hint under it says.
// A paste of a lesson's block runs its commands without their prompts (pastedLines).
// The terminal's own commands: `clear`, `help` (what it can do), `man` (not simulated).
// A usage text taller than the screen is paged (Space, Enter, q).
// Commands typed while Python loads, or while a command runs, are kept (type-ahead) and run in
// order. Output is readable by screen readers (a live region of each command's output).
// The session state (labsim's machine, the history and the screen text) lives on across instant
// navigation; "Reset machine" starts the session afresh. A terminal on a network (data-network,
// data-host) is one host of a simulated network shared with the page's other terminals on it:
// "Reset network" starts every host of it afresh (labsim.web.Bridge).
// A terminal with a machine of its own runs the page's OpenZFS release (``release()``): its
// commands name it, so the machine is made as that release, and when the reader picks another
// one, the page calls releaseChanged() for a fresh machine of it, said in one line.

import { columns, commonPrefix, HELP, isLongUsage, manNotice, OWN_COMMANDS, pastedLines } from "./labsim-terminal-text.js";

// xterm.js and its fit addon once imported (open()): kept across instant navigation.
let xtermModules = null;
const MAX_SCREEN = 200_000; // characters of output kept to repaint the screen after navigation
const FONT_SIZES = [12, 11, 10]; // px, tried in this order
// `zpool list -v` of a pool of /var/tmp/labs files (and mirror or RAID-Z groups) is ~106
// columns wide: the terminal shrinks its font until that many columns fit.
const WIDE_COLUMNS = 108;
// The font size fitColumns() found for a screen of a given width (px), and the last one
// found: a terminal of the next lesson (instant navigation keeps this module) starts at it
// and measures once, not once per size (each new size makes xterm.js measure its
// characters again, laying the whole page out each time).
const fittedSizes = new Map();
let lastFitted = FONT_SIZES[0];
const RED = "\x1b[31m";
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

const THEME = {
  background: "#1b1d23",
  foreground: "#e6e6e6",
  cursor: "#e6e6e6",
  selectionBackground: "#44475a",
  red: "#ff6e6e",
  brightRed: "#ff8f8f",
  green: "#8ae28a",
  yellow: "#f1e05a",
  blue: "#82aaff",
};

const ESCAPE = /^\x1b(?:\[[0-9;]*[A-Za-z~]|O[A-Za-z])/;
const HINT = "Tab completes · ↑↓ history · type help · Esc then Tab leaves the terminal";
let terminalUid = 0;

export class LabTerminal {
  constructor(root, { python, session, prompt, state, assets, network = "", host = "", hosts = "", onReset = null,
    release = null, releaseNote = null }) {
    this.root = root;
    this.python = python;
    this.session = session;
    this.network = network; // "" for a machine of its own
    this.host = host;
    this.hosts = hosts; // JSON: the page's [host, setup] pairs of this network, in page order
    this.onReset = onReset; // tells the network's other terminals
    this.release = release; // () => the page's OpenZFS release ("" for the default); null: no ZFS
    this.releaseNote = releaseNote; // release => the line that says the machine is fresh
    this.pendingNote = "";
    this.prompt = prompt;
    this.state = state; // {history: [], screen: ""} shared by every mount of this session
    this.line = [];
    this.cursor = 0;
    this.drawn = 0; // cursor offset from the start of the prompt, as last drawn
    this.historyIndex = state.history.length;
    this.draft = null;
    this.busy = false;
    this.typeahead = "";
    this.disposed = false;
    this.commands = 0;
    this.tabs = 0; // Tab presses in a row (the second lists the candidates)
    this.pager = null; // {lines, resolve} while a long usage text is paged
    this.leaving = false; // Escape was pressed: the next Tab leaves the terminal
    root.labsimTerminal = this;
    this.opened = this.open(assets).catch((error) => {
      console.error("labsim: cannot start the terminal", error);
      root.append(Object.assign(document.createElement("p"), {
        className: "labsim-error", textContent: `The terminal cannot start: ${error.message}`,
      }));
    });
  }

  async open(assets) {
    performance.mark("labsim:terminal-open");
    // Once loaded, the modules are taken without an await: a dynamic import() of a module
    // already there still resolves a task later, after the browser has laid out and painted
    // the page instant navigation just swapped in (~250 ms of a lesson's main thread here),
    // and the terminal would take keys only after that.
    xtermModules ??= await Promise.all([import(assets.xterm), import(assets.fit)]);
    const [{ Terminal }, { FitAddon }] = xtermModules;
    performance.mark("labsim:xterm-imported");
    if (this.disposed) return;
    this.root.querySelector(".labsim-term-ui")?.remove();
    const screen = document.createElement("div");
    screen.className = "labsim-term-screen";
    this.status = document.createElement("span");
    this.status.className = "labsim-status";
    this.status.setAttribute("role", "status");
    const reset = document.createElement("button");
    reset.type = "button";
    reset.className = "md-button labsim-reset";
    reset.textContent = this.network ? "Reset network" : "Reset machine";
    reset.title = this.network
      ? "Forget everything done on this network's hosts and start them all afresh"
      : "Forget everything done in this terminal and start with a fresh machine";
    reset.addEventListener("click", () => this.resetMachine());
    // How to use it and how to leave it with the keyboard: shown, and read out with the
    // terminal's input (aria-describedby).
    const hint = document.createElement("span");
    hint.className = "labsim-term-hint";
    hint.id = `labsim-term-hint-${++terminalUid}`;
    hint.textContent = HINT;
    const bar = document.createElement("div");
    bar.className = "labsim-bar";
    bar.append(this.status, hint, reset);
    // Each command's output, read out by screen readers (role=log is a polite live region);
    // visually hidden: the terminal shows the same text.
    this.spoken = document.createElement("div");
    this.spoken.className = "labsim-term-spoken";
    this.spoken.setAttribute("role", "log");
    this.spoken.setAttribute("aria-live", "polite");
    this.spoken.setAttribute("aria-label", `Output of ${this.prompt.trim()}`);
    const ui = document.createElement("div");
    ui.className = "labsim-term-ui";
    ui.append(screen, bar, this.spoken);
    this.root.append(ui);

    this.term = new Terminal({
      rows: 12,
      convertEol: true,
      cursorBlink: true,
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace',
      fontSize: lastFitted, // fitColumns() picks the size that fits WIDE_COLUMNS
      // At 1.0 the row below paints over the bottom pixel row of this one, and
      // underscores ("zil_commit_count") vanish at 10-12 px.
      lineHeight: 1.2,
      scrollback: 2000,
      theme: THEME,
      // Not xterm's screenReaderMode: with it on, xterm 6 drops text that arrives as input
      // events rather than key presses (é, emoji, an IME, insertText). A live region of our
      // own reads each command's output out instead (this.spoken).
      screenReaderMode: false,
    });
    this.fit = new FitAddon();
    this.term.loadAddon(this.fit);
    this.term.open(screen);
    this.term.textarea?.setAttribute("aria-describedby", hint.id);
    this.term.textarea?.setAttribute("aria-label", `Terminal ${this.prompt.trim()}`);
    this.term.attachCustomKeyEventHandler((event) => this.keyEvent(event));
    this.fitColumns();
    this.resizer = new ResizeObserver(() => this.fitColumns());
    this.resizer.observe(screen);
    this.term.onData((data) => this.input(data));
    this.unsubscribe = this.python.subscribe(() => this.updateStatus());
    this.timer = setInterval(() => this.python.state === "loading" && this.updateStatus(), 250);
    if (this.state.screen) this.term.write(this.state.screen);
    this.showPrompt();
    this.updateStatus();
    performance.mark("labsim:terminal-opened");
    this.takeEarlyKeys();
  }

  /** Keys typed into this terminal's box before xterm.js was there (kept by a script in the
   * page's <head>: tools/mkdocs_hooks.py), typed now. */
  takeEarlyKeys() {
    this.root.querySelector(".labsim-term-early")?.remove();
    const early = window.__labsimEarlyKeys;
    if (!early || early.el !== this.root) return;
    const keys = early.keys;
    Object.assign(early, { el: null, keys: "" });
    this.term.focus();
    if (keys) this.input(keys);
  }

  fitColumns() {
    if (!this.term || this.disposed) return;
    // The largest font (12 px down to 10 px) at which `zpool list -v` of a pool of
    // /var/tmp/labs files fits on one line; on a narrow screen, 10 px and wrapped lines.
    const width = this.term.element?.parentElement?.clientWidth ?? 0;
    const known = fittedSizes.get(width);
    let dims = null;
    for (const size of known ? [known] : FONT_SIZES) {
      if (this.term.options.fontSize !== size) this.term.options.fontSize = size;
      dims = this.fit.proposeDimensions();
      if (dims && dims.cols >= WIDE_COLUMNS) break;
    }
    if (width && dims) {
      lastFitted = this.term.options.fontSize;
      fittedSizes.set(width, lastFitted);
    }
    if (dims && Number.isFinite(dims.cols) && dims.cols > 0 && dims.cols !== this.term.cols) {
      this.term.resize(Math.max(20, dims.cols), 12);
    }
  }

  // ----- output -------------------------------------------------------------------------------
  write(text) {
    // Recorded so the screen can be repainted when the reader comes back to the page.
    let screen = this.state.screen + text;
    if (screen.length > MAX_SCREEN) {
      screen = screen.slice(screen.length - MAX_SCREEN);
      screen = screen.slice(screen.indexOf("\n") + 1);
    }
    this.state.screen = screen;
    this.term?.write(text);
  }

  clearScreen() {
    this.state.screen = "";
    this.term.write("\x1b[H\x1b[2J\x1b[3J");
    this.drawn = 0;
  }

  showPrompt() {
    this.line = [];
    this.cursor = 0;
    this.drawn = 0;
    this.draft = null;
    this.historyIndex = this.state.history.length;
    this.term.write(this.prompt);
    this.drawn = [...this.prompt].length;
  }

  // Redraw prompt + line, then put the cursor where it belongs (handles wrapped long lines).
  redraw() {
    const cols = this.term.cols;
    const promptLength = [...this.prompt].length;
    let out = "";
    const up = Math.floor(this.drawn / cols);
    if (up) out += `\x1b[${up}A`;
    out += "\r\x1b[J" + this.prompt + this.line.join("");
    const end = promptLength + this.line.length;
    if (end > 0 && end % cols === 0) out += "\r\n"; // leave the pending-wrap state
    const target = promptLength + this.cursor;
    const rowsBack = Math.floor(end / cols) - Math.floor(target / cols);
    if (rowsBack) out += `\x1b[${rowsBack}A`;
    out += "\r";
    if (target % cols) out += `\x1b[${target % cols}C`;
    this.term.write(out);
    this.drawn = target;
  }

  // Move below the input line (to a fresh line) before printing output.
  finishLine() {
    const cols = this.term.cols;
    const end = [...this.prompt].length + this.line.length;
    const down = Math.floor(end / cols) - Math.floor(this.drawn / cols);
    if (down > 0) this.term.write(`\x1b[${down}B`);
    this.term.write("\r\n");
  }

  // ----- input --------------------------------------------------------------------------------
  /** xterm.js asks before it handles a key: false leaves the key to the browser. */
  keyEvent(event) {
    if (event.type !== "keydown") return true;
    if (event.key === "Escape") {
      this.leaving = true;
      return true;
    }
    if (event.key === "Tab" && (this.leaving || event.shiftKey)) {
      this.leaving = false;
      return false; // the browser moves the focus on
    }
    if (!["Shift", "Control", "Alt", "Meta"].includes(event.key)) this.leaving = false;
    const ctrl = (event.ctrlKey || event.metaKey) && !event.altKey;
    if (ctrl && event.key === "c" && this.term.hasSelection()) return false; // copy
    if (ctrl && event.key === "v") return false; // the browser pastes (xterm.js: onData)
    return true;
  }

  input(data) {
    if (!this.term) return;
    if (this.pager) return this.pagerKeys(data);
    if (data.length > 1 && !data.startsWith("\x1b")) {
      data = pastedLines(data, this.prompt).join("\r"); // a paste (or keys typed ahead)
    }
    let i = 0;
    while (i < data.length) {
      if (this.busy) {
        const rest = data.slice(i);
        if (rest.includes("\x03")) { // Ctrl-C: what was typed ahead is not run
          this.typeahead = rest.slice(rest.lastIndexOf("\x03") + 1);
          this.interrupted = true;
        } else {
          this.typeahead += rest;
        }
        return;
      }
      let token = data[i];
      if (token === "\x1b") token = data.slice(i).match(ESCAPE)?.[0] ?? "\x1b";
      i += token.length;
      if (token === "\r" && data[i] === "\n") i += 1;
      this.key(token);
    }
  }

  key(token) {
    if (token !== "\t") this.tabs = 0;
    switch (token) {
      case "\t": return this.completeWord();
      case "\r": case "\n": return this.submit();
      case "\x7f": case "\b":
        if (this.cursor > 0) { this.line.splice(this.cursor - 1, 1); this.cursor -= 1; this.redraw(); }
        return;
      case "\x1b[3~": case "\x04":
        if (this.cursor < this.line.length) { this.line.splice(this.cursor, 1); this.redraw(); }
        return;
      case "\x1b[D": case "\x02":
        if (this.cursor > 0) { this.cursor -= 1; this.redraw(); }
        return;
      case "\x1b[C": case "\x06":
        if (this.cursor < this.line.length) { this.cursor += 1; this.redraw(); }
        return;
      case "\x1b[H": case "\x1bOH": case "\x1b[1~": case "\x01":
        this.cursor = 0; return this.redraw();
      case "\x1b[F": case "\x1bOF": case "\x1b[4~": case "\x05":
        this.cursor = this.line.length; return this.redraw();
      case "\x1b[A": case "\x10": return this.recall(-1);
      case "\x1b[B": case "\x0e": return this.recall(+1);
      case "\x15": // Ctrl-U
        this.line.splice(0, this.cursor); this.cursor = 0; return this.redraw();
      case "\x0b": // Ctrl-K
        this.line.splice(this.cursor); return this.redraw();
      case "\x17": { // Ctrl-W
        let start = this.cursor;
        while (start > 0 && this.line[start - 1] === " ") start -= 1;
        while (start > 0 && this.line[start - 1] !== " ") start -= 1;
        this.line.splice(start, this.cursor - start);
        this.cursor = start;
        return this.redraw();
      }
      case "\x03": { // Ctrl-C
        const text = `${this.line.join("")}^C`;
        this.line = [...text];
        this.cursor = this.line.length;
        this.redraw();
        this.finishLine();
        this.state.screen += `${this.prompt}${text}\r\n`;
        return this.showPrompt();
      }
      case "\x0c": // Ctrl-L
        this.clearScreen();
        this.drawn = 0;
        return this.redraw();
      default:
        if (token.length === 1 && token >= " ") {
          this.line.splice(this.cursor, 0, token);
          this.cursor += 1;
          this.redraw();
        }
        // other control keys and escape sequences (F-keys, …) are ignored
    }
  }

  recall(step) {
    const history = this.state.history;
    const index = Math.min(history.length, Math.max(0, this.historyIndex + step));
    if (index === this.historyIndex) return;
    if (this.historyIndex === history.length) this.draft = this.line.join("");
    this.historyIndex = index;
    const text = index === history.length ? this.draft ?? "" : history[index];
    this.line = [...text];
    this.cursor = this.line.length;
    this.redraw();
  }

  async submit() {
    const text = this.line.join("");
    this.cursor = this.line.length;
    this.redraw();
    this.finishLine();
    this.state.screen += `${this.prompt}${text}\r\n`;
    const command = text.trim();
    if (command && this.state.history.at(-1) !== text) this.state.history.push(text);
    if (!command) return this.showPrompt();
    const words = command.split(/\s+/);
    // The terminal's own commands, answered here at once (Python may not even be up).
    const man = words[0] === "man" && !/[;&|<>]/.test(command);
    if (command === "clear" || command === "help" || man) {
      if (command === "clear") this.clearScreen();
      else if (command === "help") this.write(HELP);
      else this.write(`${RED}${manNotice(words).replace(/\n$/, "")}${RESET}\n`);
      this.showPrompt();
      return this.answered();
    }
    this.busy = true;
    this.interrupted = false;
    this.updateStatus();
    if (this.python.state !== "ready") this.write(`${DIM}starting Python…${RESET}\r\n`);
    try {
      const version = this.release?.() ?? "";
      if (version && !this.state.release) this.state.release = version; // the machine is made as it
      const reply = JSON.parse(await this.python.call("terminal", this.session, text, this.network, this.host,
        this.hosts, version));
      await this.show(reply);
    } catch (error) {
      this.write(`${RED}labsim: internal error: ${error.message}${RESET}\r\n`);
      console.error(`labsim: terminal command failed: ${text}`, error.traceback ?? error);
    }
    this.busy = false;
    if (this.interrupted) this.write(`${DIM}^C: labsim had already run the command; what was typed after it was dropped${RESET}\r\n`);
    this.interrupted = false;
    if (this.pendingNote) this.write(this.pendingNote);
    this.pendingNote = "";
    if (this.disposed) return;
    this.showPrompt();
    this.updateStatus();
    await this.answered();
    this.resume();
  }

  /** Counts a command once its answer is on screen (data-commands, for tests and tools). */
  async answered() {
    await this.flushed();
    this.commands += 1;
    this.root.dataset.commands = String(this.commands);
  }

  /** A command's output: standard output and error in the order the command wrote them
   * (reply.output: [[1 or 2, text], ...]; else all of stdout, then stderr), errors in red.
   * A usage text taller than the screen is paged. */
  async show(reply) {
    const chunks = reply.output ?? [[1, reply.stdout ?? ""], [2, reply.stderr ?? ""]];
    let text = "";
    for (const [fd, chunk] of chunks) {
      if (!chunk) continue;
      // Colour each line apart, so that a page break never leaves the colour on.
      text += fd === 2 ? chunk.replace(/[^\n]+/g, (line) => `${RED}${line}${RESET}`) : chunk;
    }
    if (!text) return;
    text = withNewline(text);
    if (this.spoken) { // the latest output only, without colours
      const line = document.createElement("pre");
      line.textContent = text.replace(/\x1b\[[0-9;]*m/g, "");
      this.spoken.replaceChildren(line);
    }
    const rows = this.term?.rows ?? 12;
    if (!this.term || !isLongUsage(reply, rows)) return this.write(text);
    const lines = text.replace(/\n$/, "").split("\n");
    this.write(lines.slice(0, rows - 2).join("\n") + "\n");
    await new Promise((resolve) => {
      this.pager = { lines: lines.slice(rows - 2), resolve };
      this.pagerPrompt();
    });
  }

  pagerPrompt() {
    const left = this.pager.lines.length;
    this.term.write(`${DIM}-- ${left} more line${left === 1 ? "" : "s"}: Space for a page, Enter for a line, q to skip --${RESET}`);
  }

  /** Keys while a long usage text is paged: Space, Enter, q (or Escape, Ctrl-C). */
  pagerKeys(data) {
    const pager = this.pager;
    let rest = "";
    for (let i = 0; i < data.length; i++) {
      const key = data[i];
      let take = 0;
      if (key === " ") take = this.term.rows - 1;
      else if (key === "\r" || key === "\n") take = 1;
      else if (key === "q" || key === "Q" || key === "\x1b" || key === "\x03") take = Infinity;
      else continue;
      this.term.write("\r\x1b[K");
      const shown = pager.lines.splice(0, take);
      if (take !== Infinity) this.write(shown.join("\n") + "\n");
      if (!pager.lines.length) {
        rest = data.slice(i + 1).replace(/^\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z])?/, "");
        break;
      }
      this.pagerPrompt();
    }
    if (pager.lines.length) return;
    this.pager = null;
    this.typeahead = rest + this.typeahead;
    pager.resolve();
  }

  /** Tab: the word before the cursor completed by labsim (labsim.completion). One
   * candidate replaces it; several, their common start; a second Tab lists them. */
  async completeWord() {
    this.tabs += 1;
    if (this.python.state !== "ready") return;
    const text = this.line.join("");
    const cursor = this.cursor;
    this.busy = true; // keys typed meanwhile wait
    let found = null;
    try {
      found = JSON.parse(await this.python.call("complete", this.session, text, cursor,
        JSON.stringify(OWN_COMMANDS), this.network, this.host, this.hosts, this.release?.() ?? ""));
    } catch (error) {
      console.warn("labsim: completion failed", error);
    }
    this.busy = false;
    if (this.disposed || !found) return this.resume();
    const { start, word, candidates } = found; // start: in characters, as this.line counts
    const replace = (by) => {
      this.line.splice(start, [...word].length, ...by);
      this.cursor = start + [...by].length;
      this.redraw();
    };
    if (candidates.length === 1) {
      replace(candidates[0] + (found.open[0] ? "" : " "));
      this.tabs = 0;
    } else if (candidates.length > 1) {
      const common = commonPrefix(candidates);
      if (common.length > word.length) {
        replace(common);
        this.tabs = 0;
      } else if (this.tabs >= 2) {
        this.finishLine();
        this.term.write(columns(candidates, this.term.cols));
        this.drawn = 0;
        this.redraw();
      }
    }
    this.resume();
  }

  /** Keys typed while the terminal was waiting for Python. */
  resume() {
    const pending = this.typeahead;
    this.typeahead = "";
    if (pending) this.input(pending);
  }

  async resetMachine() {
    const version = this.release?.() ?? "";
    try {
      await this.python.call("reset", this.session, version);
      this.state.release = version || null;
    } catch (error) {
      console.error("labsim: reset failed", error);
    }
    this.onReset?.(this);
    this.fresh(this.network ? "(fresh network)" : version ? `(fresh machine: OpenZFS ${version})` : "(fresh machine)");
    this.term?.focus();
  }

  /** The reader picked another OpenZFS release: a fresh machine of it, said in one line. The
   * screen and the history stay, so the same commands can be run again on the new release. */
  releaseChanged(version) {
    if (!this.release) return;
    this.state.release = version;
    this.python.call("reset", this.session, version)
      .catch((error) => console.error("labsim: reset failed", error));
    const note = this.releaseNote(version);
    if (this.busy) {
      this.pendingNote = note; // after the output of the command that runs
    } else if (this.disposed || !this.term) {
      this.state.screen += note;
    } else {
      // Over the prompt (and any line being typed), then prompt and line again below it.
      const up = Math.floor(this.drawn / this.term.cols);
      this.term.write(`${up ? `\x1b[${up}A` : ""}\r\x1b[J`);
      this.write(note);
      this.drawn = 0;
      this.redraw();
    }
  }

  /** A clean screen and history after a reset (of this terminal or of its network). */
  fresh(note) {
    this.typeahead = "";
    this.state.history.length = 0;
    if (this.disposed || !this.term) {
      this.state.screen = `${DIM}${note}${RESET}\r\n`;
      return;
    }
    this.clearScreen();
    this.write(`${DIM}${note}${RESET}\r\n`);
    if (!this.busy) this.showPrompt();
  }

  updateStatus() {
    if (!this.status) return;
    const python = this.python;
    let text = "Ready";
    let state = "ready";
    if (python.state === "failed") [state, text] = ["error", `Python failed to load: ${python.error}`];
    else if (python.state !== "ready") [state, text] = ["loading", python.loadingText()];
    else if (this.busy) [state, text] = ["running", "Running…"];
    this.root.dataset.state = state;
    if (this.status.textContent !== text) this.status.textContent = text;
  }

  /** Resolves once xterm.js has processed everything written so far. */
  flushed() {
    return new Promise((resolve) => (this.term ? this.term.write("", resolve) : resolve()));
  }

  /** The terminal's text, one string per line (for tests). */
  text() {
    const buffer = this.term?.buffer.active;
    if (!buffer) return "";
    const lines = [];
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y).translateToString(true));
    return lines.join("\n").replace(/\n+$/, "");
  }

  dispose() {
    this.disposed = true;
    clearInterval(this.timer);
    this.unsubscribe?.();
    this.resizer?.disconnect();
    this.term?.dispose();
    this.term = null;
    delete this.root.labsimTerminal;
  }
}

function withNewline(text) {
  return text.endsWith("\n") ? text : `${text}\n`;
}
