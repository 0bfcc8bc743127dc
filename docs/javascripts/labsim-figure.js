// How a scenario's figure (labsim's figure builders, JSON) becomes a plotly.js chart: the layout
// themed for the page and the chart's configuration. Shared by the page (labsim-page.js, the live
// chart) and the site build (tools/static_figures.py renders the same figure to SVG with this
// module and the same plotly.js bundle, for readers without JavaScript and for print).
// Pure functions: the caller passes the colours and font it wants.

// Nothing in the mode bar may send the figure off the machine: plotly.js 4 offers "Share chart"
// (an upload to Plotly Cloud, plotlyServerURL) unless showSendToCloud is false. (Its config has
// no showLink, sendData or showEditInChartStudio any more.)
export const PLOT_CONFIG = Object.freeze({
  displaylogo: false,
  responsive: false, // a ResizeObserver per chart handles resizes (also inside tabs)
  showSendToCloud: false,
  plotlyServerURL: "",
  modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d", "toggleSpikelines", "sendChartToCloud"],
});

// Plotly does not wrap titles: break a long one at spaces to fit the chart's width.
export function wrapTitle(title, width, fontSize) {
  const text = typeof title === "string" ? title : title?.text;
  if (!text || text.includes("<br")) return title;
  const perLine = Math.max(16, Math.floor(width / (fontSize * 0.55)));
  if (text.length <= perLine) return title;
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && (line + " " + word).length > perLine) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  lines.push(line);
  const wrapped = lines.join("<br>");
  return typeof title === "string" ? { text: wrapped } : { ...title, text: wrapped };
}

// The figure's layout for a chart `width` pixels wide, in the page's colours:
// theme = {fg, grid, font, paper}; paper is the background ("rgba(0,0,0,0)": the page's).
export function themedLayout(layout = {}, width = 700, theme = {}) {
  const { fg = "#333", grid = "#ddd", font = undefined, paper = "rgba(0,0,0,0)" } = theme;
  const themed = structuredClone(layout);
  delete themed.width;
  themed.autosize = true;
  themed.height ??= 380;
  themed.paper_bgcolor = paper;
  themed.plot_bgcolor = "rgba(0,0,0,0)";
  themed.font = { ...(font ? { family: font } : {}), ...themed.font, color: fg };
  themed.margin ??= { t: 48, r: 16, b: 48, l: 64 };
  if (themed.title) {
    const size = themed.title.font?.size ?? (width < 600 ? 14 : 17);
    themed.title = wrapTitle(themed.title, width - 40, size);
    if (typeof themed.title === "object") themed.title.font = { size, ...themed.title.font };
    const lines = (themed.title.text ?? "").split("<br>").length;
    if (lines > 1) themed.margin = { ...themed.margin, t: (themed.margin.t ?? 48) + (lines - 1) * size * 1.3 };
  }
  for (const key of Object.keys(themed).filter((k) => /^[xy]axis\d*$/.test(k))) {
    themed[key] = { gridcolor: grid, zerolinecolor: grid, linecolor: grid, ...themed[key] };
  }
  for (const key of ["xaxis", "yaxis"]) {
    themed[key] = { gridcolor: grid, zerolinecolor: grid, linecolor: grid, ...themed[key] };
  }
  return themed;
}

// The static image's theme (the site build): Material's light scheme on white paper, so the
// image reads the same in the dark scheme and on paper.
export const STATIC_THEME = Object.freeze({
  fg: "rgba(0, 0, 0, 0.87)",
  grid: "rgba(0, 0, 0, 0.12)",
  font: "-apple-system, BlinkMacSystemFont, Helvetica, Arial, sans-serif",
  paper: "#ffffff",
});
export const STATIC_WIDTH = 720;

// The SVG of a figure (the site build calls this in a headless chromium with plotly.js loaded).
export async function staticSvg(Plotly, figure) {
  const layout = themedLayout(figure.layout, STATIC_WIDTH, STATIC_THEME);
  const height = layout.height;
  const div = document.createElement("div");
  div.style.width = `${STATIC_WIDTH}px`;
  document.body.append(div);
  try {
    await Plotly.newPlot(div, figure.data ?? [], { ...layout, width: STATIC_WIDTH, autosize: false },
      { ...PLOT_CONFIG, staticPlot: true });
    const url = await Plotly.toImage(div, { format: "svg", width: STATIC_WIDTH, height });
    return decodeURIComponent(url.slice(url.indexOf(",") + 1));
  } finally {
    Plotly.purge(div);
    div.remove();
  }
}
