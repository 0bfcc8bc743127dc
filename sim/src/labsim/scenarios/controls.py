"""Reading a widget's parameters against its controls (the ``describe()["controls"]``
of a scenario): every value the page sends is checked, and one that is not among a
select's options or outside a slider's range falls back to the control's default, with a
note for the summary. A widget must always show a chart, whatever is stored in the
reader's browser from an older version of the page."""

from __future__ import annotations


def describe(title: str, controls: list[dict]) -> dict:
    """What a scenario's describe() returns: its title, controls and their defaults."""
    return {"title": title, "controls": controls,
            "defaults": {c["name"]: c["default"] for c in controls}}


def option_values(control: dict) -> list:
    return [o[0] if isinstance(o, list) else o for o in control["options"]]


def read_params(controls: list[dict], params: object) -> tuple[dict, list[str]]:
    merged = {c["name"]: c["default"] for c in controls}
    if not isinstance(params, dict):
        return merged, ["parameters must be a JSON object; using the defaults"]
    notes = []
    for c in controls:
        if c["name"] not in params:
            continue
        value = params[c["name"]]
        if c["kind"] == "range":
            try:
                number = float(value)
            except (TypeError, ValueError):
                number = None
            if number is not None and c["min"] <= number <= c["max"]:
                merged[c["name"]] = number
            else:
                notes.append(f"{c['label']}: must be {c['min']} to {c['max']}, "
                             f"using {c['default']}")
            continue
        if isinstance(value, str) and value.isdigit():
            value = int(value)  # a number option sent as text
        allowed = option_values(c)
        if value in allowed and not isinstance(value, bool):
            merged[c["name"]] = value
        else:
            notes.append(f"{c['label']}: not one of its options, using {c['default']}")
    return merged, notes
