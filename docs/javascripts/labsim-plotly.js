// plotly.js, loaded once per page load and kept across instant navigation, with its CSS rules.

import { asset } from "./labsim-python.js";

// plotly.js takes the main thread for a second or more while it is parsed: a page's terminals
// open first (they take typing at once), then plotly.js runs. Never waits more than
// PLOTLY_WAIT ms.
const PLOTLY_WAIT = 1000;
let plotlyGate = Promise.resolve();

/** plotly.js waits for these (the page's terminals opening), at most PLOTLY_WAIT ms. */
export function holdPlotlyUntil(promises) {
  plotlyGate = Promise.race([Promise.all(promises), new Promise((r) => setTimeout(r, PLOTLY_WAIT))]);
}

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
export async function loadPlotly() {
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

// plotly.js keeps its CSS rules in <style id="plotly.js-style-*"> elements in <head>, added with
// insertRule (so the element has no text). Instant navigation removes head elements that the new
// page does not have, so we keep a copy of the rules and put them back after each page swap.
const plotlyStyles = new Map();

const plotlyRuleCounts = new Map(); // style id -> how many rules the copy holds

export function snapshotPlotlyStyles() {
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

export function restorePlotlyStyles() {
  for (const [id, css] of plotlyStyles) {
    if (document.getElementById(id)) continue;
    const style = document.createElement("style");
    style.id = id;
    style.textContent = css;
    document.head.appendChild(style);
  }
}
