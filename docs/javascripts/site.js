// Loaded on every page (small). Two jobs:
//  * the instructor view: `?view=instructor` or the header toggle shows instructor notes,
//    remembered in localStorage;
//  * load the simulation machinery (labsim-page.js: plotly, xterm, the Python worker) only on
//    pages that contain a widget or a terminal.
// Everything is (re)applied from mkdocs-material's document$, which emits on the first load and
// after every instant navigation.

const ROOT = new URL("../", import.meta.url); // the site root, wherever the site is served
const VIEW_KEY = "zfl:view";
const SIM_SELECTOR = ".labsim-widget, .labsim-terminal";

function storedView() {
  try { return localStorage.getItem(VIEW_KEY) === "instructor"; } catch { return false; }
}

function setInstructorView(on, persist = true) {
  document.documentElement.toggleAttribute("data-zfl-instructor", on);
  const button = document.querySelector(".zfl-view-toggle");
  if (button) {
    button.setAttribute("aria-pressed", String(on));
    button.title = on ? "Instructor view: on (click for student view)" : "Instructor view";
  }
  if (persist) {
    try { localStorage.setItem(VIEW_KEY, on ? "instructor" : "student"); } catch { /* private mode */ }
  }
}

const ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" aria-hidden="true">' +
  '<path d="M20 17a2 2 0 0 0 2-2V4a2 2 0 0 0-2-2H9.46c.35.61.54 1.3.54 2h10v11h-9v2m4-10v2H9v13H7v-6H5v6H3v-8H1.5V9a2 2 0 0 1 2-2H15M8 4a2 2 0 0 1-2 2 2 2 0 0 1-2-2 2 2 0 0 1 2-2 2 2 0 0 1 2 2Z"/></svg>';

function ensureToggle() {
  if (document.querySelector(".zfl-view-toggle")) return;
  const header = document.querySelector(".md-header__inner");
  if (!header) return;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "md-header__button md-icon zfl-view-toggle";
  button.setAttribute("aria-label", "Instructor view");
  button.innerHTML = ICON;
  button.addEventListener("click", () => {
    setInstructorView(!document.documentElement.hasAttribute("data-zfl-instructor"));
  });
  const anchor = header.querySelector("form.md-header__option, .md-search, label[for=__search]");
  header.insertBefore(button, anchor);
}

function applyView() {
  ensureToggle();
  const view = new URL(location.href).searchParams.get("view");
  if (view === "instructor" || view === "student") setInstructorView(view === "instructor");
  else setInstructorView(storedView(), false);
}

// A table wider than the page scrolls sideways in Material's wrapper; a keyboard reaches it
// only if it can take the focus (axe: scrollable-region-focusable).
function focusableScrollers() {
  for (const wrap of document.querySelectorAll(".md-typeset__scrollwrap:not([tabindex])")) {
    if (wrap.scrollWidth <= wrap.clientWidth) continue;
    wrap.tabIndex = 0;
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", "Table (scrolls sideways)");
  }
}

let resizeTimer = 0;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(focusableScrollers, 200);
});

// Applied at once (before document$ exists in theory), then on every page swap.
applyView();

let pageModule = null;
async function syncSimulations() {
  if (!pageModule && !document.querySelector(SIM_SELECTOR)) return;
  pageModule ??= import("./labsim-page.js");
  try {
    (await pageModule).sync(ROOT);
  } catch (error) {
    console.error("labsim: cannot start the simulations", error);
  }
}

if (window.document$) {
  window.document$.subscribe(() => { applyView(); focusableScrollers(); syncSimulations(); });
} else {
  syncSimulations();
}
