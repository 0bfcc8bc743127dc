"""The one figure builder. Returns plain plotly figure specs (dicts), which plotly.js
draws in the page and ``plotly.graph_objects.Figure(spec)`` draws in a notebook."""

from __future__ import annotations

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
