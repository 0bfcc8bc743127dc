// Text the page terminal (labsim-terminal.js) works out without a screen: what a paste runs,
// completion lists in columns, the terminal's own commands (help, man), long usage texts.

// The course's prompts, as its lessons print them before a command: `root@lab:~# `,
// `root@alice:~# `, a user's `me@host:/tmp$ `.
const COURSE_PROMPT = /^\s*[\w.-]+@[\w.-]+:[^\s#$]*[#$] ?/;

/** The lines a paste types. A block copied from a lesson, with its prompts, runs its commands
 * without them; the lines with no prompt in such a block are the commands' output and are
 * left out, except those that continue a command after a trailing backslash, which join it
 * (bash reads them as one line). Text with no prompt at all is typed as it is, every line.
 * The last line is typed but not run unless the text ends with a newline, as in a real
 * terminal. */
export function pastedLines(text, prompt = "") {
  const own = prompt.trim();
  const strip = (line) => {
    const match = line.match(COURSE_PROMPT);
    if (match) return line.slice(match[0].length);
    const start = line.trimStart();
    if (own && start.startsWith(own)) return start.slice(own.length).replace(/^ /, "");
    return null;
  };
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const commands = lines.map(strip);
  if (commands.every((c) => c === null)) return lines;
  const out = [];
  let continuing = false;
  lines.forEach((line, i) => {
    if (continuing) {
      out[out.length - 1] = out.at(-1).slice(0, -1) + line;
    } else if (commands[i] !== null) {
      out.push(commands[i]);
    } else {
      return; // the output of the command above
    }
    continuing = out.at(-1).endsWith("\\");
  });
  if (lines.at(-1) === "") out.push(""); // the text ends with a newline: the last line runs
  return out;
}

/** Completion candidates in columns, as bash lists them on a second Tab (sorted down the
 * columns), for a screen ``cols`` wide. */
export function columns(words, cols) {
  if (!words.length) return "";
  const width = Math.max(...words.map((w) => w.length)) + 2;
  const perRow = Math.max(1, Math.floor((cols + 2) / width));
  const rows = Math.ceil(words.length / perRow);
  const out = [];
  for (let r = 0; r < rows; r++) {
    let line = "";
    for (let c = 0; c < perRow; c++) {
      const word = words[c * rows + r];
      if (word !== undefined) line += word.padEnd(width);
    }
    out.push(line.trimEnd());
  }
  return out.join("\r\n") + "\r\n";
}

/** The longest start every word shares. */
export function commonPrefix(words) {
  if (!words.length) return "";
  let prefix = words[0];
  for (const word of words) {
    while (!word.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix;
}

// The terminal's own commands, answered in the page (before Python is even there).
export const OWN_COMMANDS = ["help", "man", "clear"];

export const HELP = [
  "This terminal runs labsim, the course's simulator, in your browser: no real machine.",
  "  Tab           complete a command, option, property, pool, dataset or file (twice: list)",
  "  Up / Down     earlier commands          Ctrl-C  cancel the line (copy, with a selection)",
  "  clear, Ctrl-L clear the screen          Ctrl-A / Ctrl-E  start / end of the line",
  "  Paste a lesson's block with its root@lab:~# prompts: each command runs.",
  "  Esc then Tab (or Shift+Tab) leaves the terminal; \"Reset machine\" starts afresh.",
  "Tab twice at an empty prompt lists the commands. What labsim does not model answers",
  "\"not simulated\": try it in the course's VM (Running the labs).",
].join("\r\n") + "\r\n";

/** `man PAGE`: the page terminal has no manual pages. */
export function manNotice(words) {
  const page = words.slice(1).join(" ");
  return `man${page ? ` ${page}` : ""}: not simulated in the page; run it in the lab VM, or type help\n`;
}

/** A usage text (a tool's answer to a wrong command line, exit status 2) taller than the
 * screen is paged; anything else is printed as it comes. */
export function isLongUsage(reply, rows) {
  if (reply.status !== 2 || !/(^|\n)usage:/i.test(reply.stderr ?? "")) return false;
  const lines = `${reply.stdout ?? ""}${reply.stderr ?? ""}`.split("\n").length;
  return lines > rows - 1;
}
