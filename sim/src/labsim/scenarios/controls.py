"""Reading a widget's parameters against its controls (the ``describe()["controls"]``
of a scenario): every value the page sends is checked, and one that is not among a
select's options or outside a slider's range falls back to the control's default, with a
note for the summary. A widget must always show a chart, whatever is stored in the
reader's browser from an older version of the page.

A control may follow another one (a preset, say): ``"follows": NAME`` with any of
``default_by``, ``label_by`` and ``options_by``, each a dict from the followed control's
value (as text) to this control's default, label and options for that value. A label of
None hides the control for that value. The page's glue (docs/javascripts/labsim-page.js)
applies them when the followed control changes; ``read_params`` and ``with_overrides`` do
the same here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labsim.zfs.versions import DEFAULT_VERSION, TAUGHT_VERSIONS

Control = dict[str, Any]
"""One control as the page renders it (JSON): ``name``, ``label``, ``kind`` ("range",
"select", "checkbox" or "text"), ``default``; a range's ``min``, ``max``, ``step`` and
``unit``; a select's ``options`` (values, or [value, label] pairs); and for a control that
follows another, ``follows`` with ``default_by``, ``label_by`` and ``options_by``."""

TEXT_MAX = 200
"""Characters a text control may hold."""


def describe(title: str, controls: Sequence[Control]) -> dict[str, object]:
    """What a scenario's describe() returns: its title, controls and their defaults."""
    return {"title": title, "controls": list(controls), "defaults": defaults(controls)}


def defaults(controls: Sequence[Control]) -> dict[str, object]:
    """Each control's default, by name."""
    return {c["name"]: c["default"] for c in controls}


def option_values(control: Control) -> list[object]:
    return [o[0] if isinstance(o, list) else o for o in control["options"]]


def followed(control: Control, values: Mapping[str, object], key: str,
             fallback: object) -> object:
    """``control``'s ``key`` (default_by, label_by, options_by) for the current value of the
    control it follows, or ``fallback`` when it follows none or has no entry for it."""
    leader = control.get("follows")
    table = control.get(key)
    if leader is None or table is None:
        return fallback
    return table.get(str(values.get(leader)), fallback)


def _default(control: Control, values: Mapping[str, object]) -> object:
    return followed(control, values, "default_by", control["default"])


def read_params(controls: Sequence[Control],
                params: object) -> tuple[dict[str, object], list[str]]:
    merged = {c["name"]: c["default"] for c in controls}
    if not isinstance(params, dict):
        params = {}
        notes = ["parameters must be a JSON object; using the defaults"]
    else:
        notes = []
    # Leaders first, so that a follower's default and options are those of the leader's value.
    for c in sorted(controls, key=lambda c: "follows" in c):
        merged[c["name"]] = _default(c, merged)
        if c["name"] not in params:
            continue
        value = params[c["name"]]
        if c["kind"] == "range":
            try:
                number = float(value)
            except (TypeError, ValueError, OverflowError):
                number = None
            if number is not None and c["min"] <= number <= c["max"]:
                merged[c["name"]] = number
            else:
                notes.append(f"{c['label']}: must be {c['min']} to {c['max']}, "
                             f"using {merged[c['name']]}")
            continue
        if c["kind"] == "checkbox":
            if isinstance(value, bool):
                merged[c["name"]] = value
            else:
                notes.append(f"{c['label']}: must be true or false, using {merged[c['name']]}")
            continue
        if c["kind"] == "text":
            if isinstance(value, str) and len(value) <= TEXT_MAX:
                merged[c["name"]] = value.strip()
            else:
                notes.append(f"{c['label']}: must be text of at most {TEXT_MAX} characters, "
                             f"using {merged[c['name']]!r}")
            continue
        if isinstance(value, str) and value.isdigit():
            value = int(value)  # a number option sent as text
        options = followed(c, merged, "options_by", c.get("options"))
        allowed = option_values({"options": options})
        if value in allowed and not isinstance(value, bool):
            merged[c["name"]] = value
        else:
            notes.append(f"{c['label']}: not one of its options, using {merged[c['name']]}")
    return merged, notes


def with_overrides(controls: Sequence[Control], defaults: Mapping[str, object],
                   overrides: Mapping[str, object]) -> dict[str, object]:
    """The defaults of a widget whose page gives ``overrides`` (its data-params): a control
    that follows an overridden one takes its default for the new value, unless the page
    gives it too."""
    merged = {**defaults, **overrides}
    for c in controls:
        if c.get("follows") in overrides and c["name"] not in overrides:
            merged[c["name"]] = _default(c, merged)
    return merged


ZFS_VERSION = "zfs_version"
"""The name of the control that picks the OpenZFS release a widget simulates. The page's
version selector (docs/javascripts/labsim-page.js) sets it in every widget that has it."""


def zfs_version_control(label: str = "OpenZFS release",
                        extra: tuple[str, ...] = ()) -> Control:
    """The release select of a widget: the taught releases, newest (the default) first, and
    any ``extra`` ones (the 0.6.5 of the source posts)."""
    return {"name": ZFS_VERSION, "label": label, "kind": "select",
            "options": [v.name for v in TAUGHT_VERSIONS] + list(extra),
            "default": DEFAULT_VERSION.name}
