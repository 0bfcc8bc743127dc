"""The one figure builder. Returns plain plotly figure specs (dicts), which plotly.js
draws in the page and ``plotly.graph_objects.Figure(spec)`` draws in a notebook."""

from __future__ import annotations

from dataclasses import dataclass

# Colour-blind-safe palette (Okabe-Ito), one colour per vdev in a lesson.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442"]


def line_chart(
    x: list[float],
    series: list[tuple[str, list[float]]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    markers: list[tuple[str, float, list[float]]] = (),
    vlines: list[tuple[float, str]] = (),
) -> dict:
    """Lines sharing one x axis; optional extra marker points and labelled vertical lines.

    ``markers`` are (label, x, one y per series) drawn as diamonds in the series' colours.
    """
    data = []
    for i, (name, ys) in enumerate(series):
        data.append({
            "type": "scatter", "mode": "lines", "name": name, "x": x, "y": ys,
            "line": {"color": PALETTE[i % len(PALETTE)], "width": 2.5},
            "hovertemplate": f"{name}<br>%{{y:.2f}} GiB<extra></extra>",
        })
    for label, mx, ys in markers:
        for i, ((name, _), y) in enumerate(zip(series, ys, strict=True)):
            data.append({
                "type": "scatter", "mode": "markers", "name": f"{name} ({label})",
                "x": [mx], "y": [y], "showlegend": False,
                "marker": {"symbol": "diamond", "size": 12,
                           "color": PALETTE[i % len(PALETTE)],
                           "line": {"width": 1, "color": "#222"}},
                "hovertemplate": f"{name}, {label}<br>%{{y:.2f}} GiB<extra></extra>",
            })
    shapes, annotations = [], []
    for vx, label in vlines:
        shapes.append({"type": "line", "x0": vx, "x1": vx, "yref": "paper", "y0": 0, "y1": 1,
                       "line": {"dash": "dot", "color": "#888", "width": 1.5}})
        annotations.append({"x": vx, "yref": "paper", "y": 1, "text": label,
                            "showarrow": False, "xanchor": "left", "yanchor": "bottom",
                            "font": {"size": 11}})
    layout = {
        "title": {"text": title, "font": {"size": 15}},
        "xaxis": {"title": {"text": x_title}, "rangemode": "tozero", "zeroline": False},
        "yaxis": {"title": {"text": y_title}, "rangemode": "tozero", "zeroline": False},
        "legend": {"orientation": "h", "y": -0.25},
        "margin": {"l": 60, "r": 20, "t": 50, "b": 60},
        "shapes": shapes,
        "annotations": annotations,
        "hovermode": "x unified",
        "template": None,
    }
    return {"data": data, "layout": layout}


@dataclass(frozen=True)
class BarSeries:
    """One set of bars: a value per category (None for no bar), with an optional text
    drawn above each bar and a unit for the hover label; ``hover`` replaces the hover
    label's value part, bar by bar, when the value alone does not say enough."""

    name: str
    values: list[float | None]
    unit: str = ""
    value_format: str = ",.1f"  # d3-format, as plotly's hovertemplate takes it
    text: list[str] | None = None
    hover: list[str] | None = None


@dataclass(frozen=True)
class BarPanel:
    """One small chart of grouped bars; the series of a panel share its y axis."""

    title: str
    y_title: str
    series: list[BarSeries]
    y_range: tuple[float, float] | None = None  # fixed, e.g. 0 to 100 for a percentage
    # "log" for values spanning orders of magnitude (write amplification 1x to 256x)
    y_type: str = "linear"


def bar_panels(
    categories: list[str],
    panels: list[BarPanel],
    *,
    title: str,
    columns: int = 2,
    height: int = 640,
) -> dict:
    """Small multiples of grouped bars over the same categories, ``columns`` panels a row.

    Series get the palette's colours in order over all panels, so a colour means one
    thing in the whole figure. Only panels with more than one series put their series
    in the (shared) legend; a lone series is named by its panel's title.
    """
    rows = -(-len(panels) // columns)
    x_gap, y_gap = 0.1, 0.2 if rows > 1 else 0.0
    width = (1 - x_gap * (columns - 1)) / columns
    tall = (1 - y_gap * (rows - 1)) / rows
    data, annotations = [], []
    layout: dict = {}
    colour = 0
    for n, panel in enumerate(panels):
        row, column = divmod(n, columns)
        suffix = "" if n == 0 else str(n + 1)
        x0 = column * (width + x_gap)
        y1 = 1 - row * (tall + y_gap)
        layout[f"xaxis{suffix}"] = {"domain": [x0, x0 + width], "anchor": f"y{suffix}",
                                    "type": "category", "tickfont": {"size": 10}}
        layout[f"yaxis{suffix}"] = {"domain": [y1 - tall, y1], "anchor": f"x{suffix}",
                                    "title": {"text": panel.y_title}, "rangemode": "tozero",
                                    "zeroline": False}
        if panel.y_range is not None:
            layout[f"yaxis{suffix}"]["range"] = list(panel.y_range)
        if panel.y_type != "linear":
            layout[f"yaxis{suffix}"]["type"] = panel.y_type
            del layout[f"yaxis{suffix}"]["rangemode"]
        annotations.append({"text": panel.title, "x": x0 + width / 2, "y": y1,
                            "xref": "paper", "yref": "paper", "xanchor": "center",
                            "yanchor": "bottom", "showarrow": False, "font": {"size": 12}})
        for series in panel.series:
            unit = f" {series.unit}" if series.unit else ""
            trace = {
                "type": "bar", "name": series.name, "x": categories, "y": series.values,
                "xaxis": f"x{suffix}", "yaxis": f"y{suffix}",
                "marker": {"color": PALETTE[colour % len(PALETTE)]},
                "showlegend": len(panel.series) > 1,
                "hovertemplate": (f"%{{x}}<br>{series.name}: "
                                  f"%{{y:{series.value_format}}}{unit}<extra></extra>"),
            }
            if series.text is not None:
                # Outside the bar, so that a zero-height bar still shows its text.
                trace.update({"text": series.text, "textposition": "outside",
                              "cliponaxis": False, "textfont": {"size": 10}})
            if series.hover is not None:
                trace.update({"hovertext": series.hover,
                              "hovertemplate": "%{x}<br>%{hovertext}<extra></extra>"})
            data.append(trace)
            colour += 1
    layout.update({
        "title": {"text": title, "font": {"size": 15}},
        "barmode": "group",
        "legend": {"orientation": "h", "y": -0.12},
        "margin": {"l": 60, "r": 20, "t": 70, "b": 90},
        "annotations": annotations,
        "hovermode": "closest",
        "height": height,
        "template": None,
    })
    return {"data": data, "layout": layout}


def stacked_bar_chart(
    categories: list[str],
    series: list[BarSeries],
    *,
    title: str,
    x_title: str,
    y_title: str,
    colour_values: list[float] | None = None,
    colour_title: str = "",
    colour_range: tuple[float, float] = (0, 100),
    height: int = 460,
) -> dict:
    """Bars stacked per category, one colour per series from the palette.

    With ``colour_values``, the first series is coloured bar by bar on a sequential
    colour scale (e.g. a metaslab's fragmentation) with a colour bar titled
    ``colour_title``; the other series keep their flat colours. A series' ``text`` is
    drawn inside its bars; its ``hover`` replaces the hover label.
    """
    data = []
    for n, s in enumerate(series):
        unit = f" {s.unit}" if s.unit else ""
        # The second series (free space, in this course) is a neutral grey.
        marker: dict = {"color": "#D9D9D9" if n == 1 else PALETTE[n % len(PALETTE)]}
        if n == 0 and colour_values is not None:
            marker = {"color": colour_values, "colorscale": "Viridis", "reversescale": True,
                      "cmin": colour_range[0], "cmax": colour_range[1],
                      "colorbar": {"title": {"text": colour_title}, "thickness": 12}}
        trace = {
            "type": "bar", "name": s.name, "x": categories, "y": s.values, "marker": marker,
            "hovertemplate": f"%{{x}}<br>{s.name}: %{{y:{s.value_format}}}{unit}<extra></extra>",
        }
        if s.text is not None:
            trace.update({"text": s.text, "textposition": "inside",
                          "insidetextanchor": "end", "textfont": {"size": 10}})
        if s.hover is not None:
            trace.update({"hovertext": s.hover,
                          "hovertemplate": "%{x}<br>%{hovertext}<extra></extra>"})
        data.append(trace)
    layout = {
        "title": {"text": title, "font": {"size": 15}},
        "barmode": "stack",
        "xaxis": {"title": {"text": x_title}, "type": "category", "tickfont": {"size": 10}},
        "yaxis": {"title": {"text": y_title}, "rangemode": "tozero", "zeroline": False},
        "legend": {"orientation": "h", "y": -0.2},
        "margin": {"l": 60, "r": 20, "t": 50, "b": 80},
        "hovermode": "closest",
        "height": height,
        "template": None,
    }
    return {"data": data, "layout": layout}


@dataclass(frozen=True)
class TimelineClass:
    """One kind of point on a timeline (a legend entry): its name, colour and symbol.
    Symbols differ as well as colours, so the chart reads without colour vision."""

    name: str
    colour: str
    symbol: str


def timeline_chart(
    rows: list[str],
    points: list[tuple[float, str, str, str]],
    classes: list[TimelineClass],
    *,
    title: str,
    x_title: str,
    x_max: float,
    bands: list[tuple[float, float, str]] = (),
    vlines: list[tuple[float, str, str]] = (),
    height: int = 420,
) -> dict:
    """Events on a time axis, one row per stream: ``points`` are (x, row, class name,
    hover text). ``bands`` shade spans of the axis (x0, x1, label), alternately;
    ``vlines`` are labelled vertical lines (x, label, colour). Every class gets a
    legend entry even when no point has it, so the legend does not jump about."""
    data = []
    for cls in classes:
        mine = [p for p in points if p[2] == cls.name]
        # plotly leaves a trace without points out of the legend; one point with no
        # position keeps it there and draws nothing.
        data.append({
            "type": "scatter", "mode": "markers", "name": cls.name,
            "x": [p[0] for p in mine] or [None], "y": [p[1] for p in mine] or [None],
            "hovertext": [p[3] for p in mine] or [""],
            "hovertemplate": "%{hovertext}<extra></extra>",
            "marker": {"color": cls.colour, "symbol": cls.symbol, "size": 10,
                       "line": {"width": 0.5, "color": "#222"}},
        })
    shapes, annotations = [], []
    for n, (x0, x1, label) in enumerate(bands):
        shapes.append({"type": "rect", "x0": x0, "x1": x1, "yref": "paper", "y0": 0, "y1": 1,
                       "fillcolor": "#888" if n % 2 else "#bbb", "opacity": 0.12,
                       "line": {"width": 0}, "layer": "below"})
        annotations.append({"x": (x0 + x1) / 2, "yref": "paper", "y": 1.0, "text": label,
                            "showarrow": False, "yanchor": "bottom", "font": {"size": 10}})
    for x, label, colour in vlines:
        shapes.append({"type": "line", "x0": x, "x1": x, "yref": "paper", "y0": 0, "y1": 1,
                       "line": {"dash": "dash", "color": colour, "width": 2}})
        # Written along the line, just left of it, so labels never collide with the
        # axis or with each other.
        annotations.append({"x": x, "yref": "paper", "y": 0.5, "text": label,
                            "showarrow": False, "textangle": -90, "xanchor": "right",
                            "yanchor": "middle", "font": {"size": 11, "color": colour}})
    layout = {
        "title": {"text": title, "font": {"size": 15}},
        "xaxis": {"title": {"text": x_title}, "range": [0, x_max], "zeroline": False},
        "yaxis": {"type": "category", "categoryorder": "array", "categoryarray": rows[::-1],
                  "automargin": True},
        "legend": {"orientation": "h", "y": -0.25},
        "margin": {"l": 20, "r": 20, "t": 60, "b": 90},
        "shapes": shapes,
        "annotations": annotations,
        "hovermode": "closest",
        "height": height,
        "template": None,
    }
    return {"data": data, "layout": layout}
