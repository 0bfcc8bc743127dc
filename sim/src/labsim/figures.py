"""The one figure builder. Returns plain plotly figure specs (dicts), which plotly.js
draws in the page and ``plotly.graph_objects.Figure(spec)`` draws in a notebook."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

# Colour-blind-safe palette (Okabe-Ito), one colour per vdev in a lesson.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442"]

Value = TypeVar("Value")


def _or_no_point(values: list[Value]) -> list[Value | None]:
    """A trace's coordinates, or one point with no position when it has none: plotly
    leaves a trace without points out of the legend, and this keeps it there, drawing
    nothing."""
    return list(values) or [None]


def line_chart(
    x: list[float],
    series: list[tuple[str, list[float]]],
    *,
    title: str,
    x_title: str,
    y_title: str,
    markers: Sequence[tuple[str, float, list[float]]] = (),
    vlines: Sequence[tuple[float, str]] = (),
) -> dict:
    """Lines sharing one x axis; optional extra marker points and labelled vertical lines.

    ``markers`` are (label, x, one y per series) drawn as diamonds in the series' colours.
    """
    data: list[dict] = []
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
    values: Sequence[float | None]
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
    colour_values: Sequence[float] | None = None,
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
    bands: Sequence[tuple[float, float, str]] = (),
    vlines: Sequence[tuple[float, str, str]] = (),
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
            "x": _or_no_point([p[0] for p in mine]), "y": _or_no_point([p[1] for p in mine]),
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
    xaxis = {"title": {"text": x_title}, "range": [0, x_max], "zeroline": False}
    return _rows_figure(data, title, xaxis, rows, shapes, annotations, height)


@dataclass(frozen=True)
class DiagramNode:
    """A box in a network diagram: a host, a LAN (``shape`` "switch") or a NAT router
    ("nat"), at (x, y) in the diagram's own units; ``label`` (lines joined by <br>) is
    written under its name."""

    name: str
    x: float
    y: float
    label: str = ""
    shape: str = "host"
    hover: str = ""


@dataclass(frozen=True)
class DiagramLink:
    """A line between two nodes: ``kind`` "wire" (a cable, solid) or "tunnel" (dashed)."""

    a: str
    b: str
    kind: str = "wire"
    label: str = ""


@dataclass(frozen=True)
class DiagramMove:
    """One leg of a packet's trip, drawn as an arrow from node ``a`` towards ``b``.

    ``reach`` < 1 stops the arrow part of the way (where a packet was lost in between);
    ``side`` shifts it to the left of its direction of travel (in arrow widths; negative:
    to the right), so that a reply, going the other way with the same ``side``, does not
    hide its request; ``both_ways`` draws heads at both ends (a handshake's two messages).
    ``number`` is written in a disc on the arrow, with ``hover`` as its tooltip."""

    a: str
    b: str
    colour: str
    number: int | None = None
    hover: str = ""
    side: float = 0.0
    reach: float = 1.0
    both_ways: bool = False


@dataclass(frozen=True)
class DiagramMark:
    """A cross where something stopped: at node ``at``, or ``fraction`` of the way from it
    towards node ``toward``."""

    at: str
    toward: str | None = None
    fraction: float = 0.0
    hover: str = ""
    colour: str = "#D55E00"


# How each kind of link is drawn, and its legend entry.
LINK_STYLES = {"wire": ("#9E9E9E", "solid", 2.0, "network cable"),
               "tunnel": ("#CC79A7", "dash", 2.5, "WireGuard tunnel")}
NODE_STYLES = {"host": ("square", 26, "#0072B2"), "switch": ("diamond", 16, "#7F7F7F"),
               "nat": ("triangle-up", 18, "#E69F00")}
_DIAGRAM_WIDTH_PX = 700  # the width the page usually gives a chart: arrows are offset for it
_ARROW_GAP_PX = 8


def _rows_figure(data: list[dict], title: str, xaxis: dict, rows: list[str],
                 shapes: list[dict], annotations: list[dict], height: int) -> dict:
    """The layout timeline_chart and span_chart share: one category row per entry of
    ``rows`` (first on top), a horizontal legend below, no plotly template."""
    layout = {
        "title": {"text": title, "font": {"size": 15}},
        "xaxis": xaxis,
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


def network_diagram(
    nodes: list[DiagramNode],
    links: list[DiagramLink],
    moves: Sequence[DiagramMove] = (),
    marks: Sequence[DiagramMark] = (),
    *,
    title: str,
    caption: str = "",
    caption_colour: str = "#333333",
    legend: Sequence[tuple[str, str]] = (),
    height: int = 480,
) -> dict:
    """Hosts, LANs and tunnels with a packet's trip over them.

    Nodes are markers with their name and label underneath; links are lines (tunnels
    dashed); each move is an annotation arrow in its colour, numbered in order; a mark is
    a cross. ``caption`` (lines joined by <br>) is written under the diagram, in
    ``caption_colour``: what happened, in words. ``legend`` adds (name, colour) entries for
    the colours the moves use. The axes are hidden: positions mean nothing but layout."""
    where = {n.name: (n.x, n.y) for n in nodes}
    xs, ys = [n.x for n in nodes], [n.y for n in nodes]
    x_range = [min(xs) - 1.0, max(xs) + 1.0]
    y_range = [min(ys) - 0.75, max(ys) + 0.4]
    # Data units per pixel, to offset arrows sideways by a fixed number of pixels.
    per_px_x = (x_range[1] - x_range[0]) / _DIAGRAM_WIDTH_PX
    per_px_y = (y_range[1] - y_range[0]) / (height - 150)

    def shifted(a: tuple[float, float], b: tuple[float, float],
                side: float) -> tuple[tuple[float, float], tuple[float, float]]:
        vx, vy = (b[0] - a[0]) / per_px_x, (b[1] - a[1]) / per_px_y
        length = (vx * vx + vy * vy) ** 0.5 or 1.0
        ox = -vy / length * side * _ARROW_GAP_PX * per_px_x
        oy = vx / length * side * _ARROW_GAP_PX * per_px_y
        return (a[0] + ox, a[1] + oy), (b[0] + ox, b[1] + oy)

    data = []
    for kind, (colour, dash, width, name) in LINK_STYLES.items():
        mine = [link for link in links if link.kind == kind]
        line_x: list[float | None] = []
        line_y: list[float | None] = []
        for link in mine:
            (ax, ay), (bx, by) = where[link.a], where[link.b]
            line_x += [ax, bx, None]
            line_y += [ay, by, None]
        data.append({"type": "scatter", "mode": "lines", "name": name,
                     "x": line_x or [None], "y": line_y or [None], "hoverinfo": "skip",
                     "line": {"color": colour, "dash": dash, "width": width},
                     "showlegend": bool(mine)})
    for name, colour in legend:
        # A legend entry only: one point with no position draws nothing.
        data.append({"type": "scatter", "mode": "lines+markers", "name": name,
                     "x": [None], "y": [None], "hoverinfo": "skip",
                     "line": {"color": colour, "width": 2.5},
                     "marker": {"symbol": "triangle-right", "size": 9, "color": colour}})
    for shape, (symbol, size, colour) in NODE_STYLES.items():
        shaped = [n for n in nodes if n.shape == shape]
        if not shaped:
            continue
        data.append({
            "type": "scatter", "mode": "markers+text", "name": shape, "showlegend": False,
            "x": [n.x for n in shaped], "y": [n.y for n in shaped],
            "text": [f"<b>{n.name}</b>" + (f"<br>{n.label}" if n.label else "")
                     for n in shaped],
            "textposition": "bottom center", "textfont": {"size": 11},
            "hovertext": [n.hover or n.name for n in shaped],
            "hovertemplate": "%{hovertext}<extra></extra>",
            "marker": {"symbol": symbol, "size": size, "color": colour,
                       "line": {"width": 1, "color": "#222"}},
        })
    annotations = []
    numbers: dict[str, list] = {"x": [], "y": [], "text": [], "hovertext": [], "color": []}
    for move in moves:
        start, end = where[move.a], where[move.b]
        end = (start[0] + (end[0] - start[0]) * move.reach,
               start[1] + (end[1] - start[1]) * move.reach)
        start, end = shifted(start, end, move.side)
        annotations.append({
            "x": end[0], "y": end[1], "ax": start[0], "ay": start[1],
            "xref": "x", "yref": "y", "axref": "x", "ayref": "y", "text": "",
            "showarrow": True, "arrowhead": 2, "arrowsize": 1.1, "arrowwidth": 2.2,
            "arrowcolor": move.colour, "arrowside": "end+start" if move.both_ways else "end",
            "startstandoff": 15, "standoff": 15 if move.reach >= 1 else 4,
        })
        if move.number is not None:
            # A little before the middle, so that the numbers of a request and of its
            # reply (the same line, the other way) do not cover each other.
            numbers["x"].append(start[0] + (end[0] - start[0]) * 0.4)
            numbers["y"].append(start[1] + (end[1] - start[1]) * 0.4)
            numbers["text"].append(str(move.number))
            numbers["hovertext"].append(move.hover or f"step {move.number}")
            numbers["color"].append(move.colour)
    if numbers["x"]:
        data.append({"type": "scatter", "mode": "markers+text", "name": "steps",
                     "showlegend": False, "x": numbers["x"], "y": numbers["y"],
                     "text": numbers["text"], "textfont": {"size": 10, "color": "#FFFFFF"},
                     "hovertext": numbers["hovertext"],
                     "hovertemplate": "%{hovertext}<extra></extra>",
                     "marker": {"size": 17, "color": numbers["color"],
                                "line": {"width": 1, "color": "#FFFFFF"}}})
    for mark in marks:
        x, y = where[mark.at]
        if mark.toward is not None:
            tx, ty = where[mark.toward]
            x, y = x + (tx - x) * mark.fraction, y + (ty - y) * mark.fraction
        data.append({"type": "scatter", "mode": "markers", "name": "dropped",
                     "showlegend": False, "x": [x], "y": [y],
                     "hovertext": [mark.hover or "dropped"],
                     "hovertemplate": "%{hovertext}<extra></extra>",
                     "marker": {"symbol": "x-thin", "size": 24, "color": mark.colour,
                                "line": {"width": 5, "color": mark.colour}}})
    if caption:
        annotations.append({"x": 0.5, "y": 0, "xref": "paper", "yref": "paper",
                            "yanchor": "top", "yshift": -6, "showarrow": False,
                            "text": caption, "align": "center",
                            "font": {"size": 12, "color": caption_colour}})
    axis = {"visible": False, "fixedrange": True, "zeroline": False, "showgrid": False}
    layout = {
        "title": {"text": title, "font": {"size": 15}},
        "xaxis": {**axis, "range": x_range},
        "yaxis": {**axis, "range": y_range},
        "legend": {"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 0},
        "margin": {"l": 10, "r": 10, "t": 80, "b": 70},
        "annotations": annotations,
        "hovermode": "closest",
        "dragmode": False,
        "height": height,
        "template": None,
    }
    return {"data": data, "layout": layout}


@dataclass(frozen=True)
class Span:
    """A stretch of time on a row of a ``span_chart``: from ``start`` for ``seconds``,
    coloured by its ``group`` (a legend entry); ``hover`` is its tooltip and ``text`` is
    written inside it when it is wide enough."""

    row: str
    start: float
    seconds: float
    group: str
    hover: str = ""
    text: str = ""


def span_chart(
    rows: list[str],
    spans: list[Span],
    groups: list[tuple[str, str]],
    *,
    title: str,
    x_title: str,
    vlines: Sequence[tuple[float, str, str]] = (),
    height: int = 360,
) -> dict:
    """Horizontal bars laid end to end on a time axis, one row per sequence (a Gantt chart):
    the phases of a login, say. ``groups`` are (name, colour) in legend order; every group
    gets a legend entry even without spans, so the legend does not jump about. ``vlines``
    are labelled vertical lines (x, label, colour)."""
    data = []
    for name, colour in groups:
        mine = [s for s in spans if s.group == name]
        data.append({
            "type": "bar", "orientation": "h", "name": name,
            "y": _or_no_point([s.row for s in mine]), "x": _or_no_point([s.seconds for s in mine]),
            "base": _or_no_point([s.start for s in mine]),
            "text": [s.text for s in mine] or [""], "textposition": "inside",
            "insidetextanchor": "middle", "textfont": {"size": 10},
            "hovertext": [s.hover for s in mine] or [""],
            "hovertemplate": "%{hovertext}<extra></extra>",
            "marker": {"color": colour, "line": {"width": 1, "color": "#ffffff"}},
        })
    shapes, annotations = [], []
    for x, label, colour in vlines:
        shapes.append({"type": "line", "x0": x, "x1": x, "yref": "paper", "y0": 0, "y1": 1,
                       "line": {"dash": "dash", "color": colour, "width": 2}})
        annotations.append({"x": x, "yref": "paper", "y": 1.0, "text": label,
                            "showarrow": False, "yanchor": "bottom", "xanchor": "left",
                            "font": {"size": 11, "color": colour}})
    xaxis = {"title": {"text": x_title}, "rangemode": "tozero", "zeroline": False}
    figure = _rows_figure(data, title, xaxis, rows, shapes, annotations, height)
    figure["layout"]["barmode"] = "overlay"
    return figure


def snapshot_timeline(
    columns: list[str],
    rows: list[str],
    spans: list[Span],
    groups: list[tuple[str, str]],
    *,
    title: str,
    marks: Sequence[tuple[float, str, str]] = (),
    height: int = 440,
) -> dict:
    """Blocks along a dataset's chain of snapshots (lesson 6): each row a version of a
    file, each span the members of the chain that hold it (``start`` is the index of the
    first column, ``seconds`` how many columns). ``columns`` name the members (snapshots,
    then the head) and label the x axis; ``marks`` are labelled vertical lines
    (x, label, colour), e.g. around a range of snapshots to destroy."""
    figure = span_chart(rows, spans, groups, title=title, x_title="", vlines=marks,
                        height=height)
    figure["layout"]["xaxis"] = {
        "tickmode": "array", "tickvals": [i + 0.5 for i in range(len(columns))],
        "ticktext": columns, "range": [0, len(columns)], "zeroline": False,
        "showgrid": True, "side": "top"}
    # The column names sit on top here, where span_chart puts the marks' labels: put the
    # labels under the rows instead, so that "destroy @wed" does not cover "@wed".
    for annotation in figure["layout"]["annotations"]:
        annotation.update(y=0, yanchor="top")
    return figure


def files_lost_chart(
    levels: list[str],
    lost: dict[str, list[int]],
    written: dict[str, int],
    *,
    published: dict[str, list[float | None]] | None = None,
    height: int = 440,
) -> dict:
    """Lesson 8: per cent of files lost at each level of damage (``levels``, the x axis),
    one group of bars per layout (``lost[layout]``, files lost of ``written[layout]``),
    and the published results as diamonds in the colour of their layout."""
    data = []
    for n, (layout, counts) in enumerate(lost.items()):
        colour = PALETTE[n % len(PALETTE)]
        share = [100 * c / written[layout] for c in counts]
        data.append({
            "type": "bar", "name": f"{layout} ({written[layout]} files)", "x": levels,
            "y": share, "marker": {"color": colour},
            "text": [f"{c}/{written[layout]}" for c in counts], "textposition": "outside",
            "cliponaxis": False, "textfont": {"size": 10}, "offsetgroup": str(n),
            "hovertemplate": f"%{{x}} of the disk overwritten<br>{layout}: %{{text}} files "
                             "lost (%{y:.1f} %)<extra></extra>"})
        marks = (published or {}).get(layout)
        if marks and any(m is not None for m in marks):
            data.append({
                "type": "scatter", "mode": "markers", "name": f"{layout}, published (2016)",
                "x": levels, "y": marks, "offsetgroup": str(n),
                "marker": {"symbol": "diamond", "size": 11, "color": colour,
                           "line": {"color": "#000000", "width": 1}},
                "hovertemplate": f"%{{x}}: the post lost %{{y:.1f}} % with {layout}"
                                 "<extra></extra>"})
    layout_spec = {
        "title": {"text": "Files lost after a scrub, by how much of one disk was overwritten",
                  "font": {"size": 15}},
        "barmode": "group", "scattermode": "group",
        "xaxis": {"title": {"text": "8K blocks of the disk overwritten with garbage"},
                  "type": "category"},
        "yaxis": {"title": {"text": "files lost (%)"}, "range": [0, 110],
                  "zeroline": False},
        "legend": {"orientation": "h", "y": -0.25},
        "margin": {"l": 60, "r": 20, "t": 50, "b": 110},
        "hovermode": "closest", "height": height, "template": None,
    }
    return {"data": data, "layout": layout_spec}


def image_amplification_chart(
    categories: list[str],
    parts: list[tuple[str, list[float]]],
    *,
    title: str,
    chosen: int,
    height: int = 420,
) -> dict:
    """Bytes the pool writes per byte the guest writes (lesson 7), stacked by cause
    (``parts``: name and one value per category, e.g. data records, zero fill, qcow2
    tables), one bar per record size; the ``chosen`` bar is labelled with its total."""
    totals = [sum(values[i] for _, values in parts) for i in range(len(categories))]
    series = [BarSeries(name, values, unit="×", value_format=".1f",
                        text=None if n else [f"{t:.1f}×" if i == chosen else ""
                                             for i, t in enumerate(totals)])
              for n, (name, values) in enumerate(parts)]
    figure = stacked_bar_chart(categories, series, title=title, x_title="",
                               y_title="bytes written to the pool per guest byte",
                               height=height)
    # The second series would be grey (free space elsewhere in the course): not here.
    for n, trace in enumerate(figure["data"]):
        trace["marker"] = {"color": PALETTE[n % len(PALETTE)]}
    return figure
