"""What the site build gives readers without JavaScript: the lesson's first session run through
labsim (tools/terminal_transcripts.py), "Things to try" marked (tools/mkdocs_hooks.py), and the
static figures' names and SVG clean-up (tools/static_figures.py). The browser tests
(tests/browser/test_static_views.py) check the built pages."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import labsim.web as web
from labsim.zfs.versions import DEFAULT_VERSION

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import mkdocs_hooks  # noqa: E402
import static_figures  # noqa: E402
import terminal_transcripts as tt  # noqa: E402


def _terminal(host: str) -> str:
    return (f'<div class="labsim-terminal" data-session="w1-{host}" data-network="w1" '
            f'data-host="{host}" data-setup="ip link add wg0 type wireguard" '
            f'data-prompt="root@{host}:~# "></div>')


NETWORK_PAGE = f"""
{_terminal("alice")}

{_terminal("bob")}

A first session:

```console
root@alice:~# ip addr add 10.0.0.1/24 dev wg0
root@bob:~# ip addr add 10.0.0.2/24 dev wg0
root@alice:~# ip -br addr show wg0
wg0   DOWN   10.0.0.1/24
vagrant@zfl-labs:/labs$ not for the terminal
```

```console
root@alice:~# a later block is not the first session
```
"""


def test_first_session_routes_each_line_to_its_terminal_by_prompt():
    terminals = tt.page_terminals(NETWORK_PAGE)
    assert [(t.session, t.host, t.network) for t in terminals] == [
        ("w1-alice", "alice", "w1"), ("w1-bob", "bob", "w1")]
    commands = [(t.host, c) for t, c in tt.first_session(NETWORK_PAGE, terminals)]
    assert commands == [("alice", "ip addr add 10.0.0.1/24 dev wg0"),
                        ("bob", "ip addr add 10.0.0.2/24 dev wg0"),
                        ("alice", "ip -br addr show wg0")]


def test_the_session_runs_as_the_page_runs_it():
    """One Bridge, the page's session ids and hosts: the output is the Bridge's for the same
    lines (its setup lines ran first, so wg0 exists)."""
    terminals = tt.page_terminals(NETWORK_PAGE)
    steps = tt.run(web, terminals, tt.first_session(NETWORK_PAGE, terminals))
    bridge = web.Bridge()
    hosts = json.dumps([[t.host, t.setup] for t in terminals])
    for step, terminal in zip(steps, [terminals[0], terminals[1], terminals[0]], strict=True):
        reply = json.loads(bridge.terminal(terminal.session, step.command, "w1", terminal.host,
                                           hosts))
        assert step.output == "".join(text for _, text in reply["output"])
    assert "10.0.0.1/24" in steps[-1].output


def test_transcript_html_escapes_and_says_what_it_is():
    terminals = tt.page_terminals(NETWORK_PAGE)
    steps = [tt.Step("w1-alice", "root@alice:~# ", "echo '<b>'", "<b>\n")]
    alice = tt.transcript_html(terminals[0], steps, DEFAULT_VERSION.release)
    assert "&lt;b&gt;" in alice and "<b>" not in alice
    assert "on alice" in alice and "simulated" in alice and "not a recording" in alice
    bob = tt.transcript_html(terminals[1], steps, DEFAULT_VERSION.release)
    assert "<pre>" not in bob and "runs no commands" in bob

    zfs = tt.Terminal.from_attrs({"session": "lesson1", "prompt": "# "})
    text = tt.transcript_html(zfs, [tt.Step("lesson1", "# ", "zpool list", "no pools\n")],
                              DEFAULT_VERSION.release)
    assert f"OpenZFS {DEFAULT_VERSION.release}" in text


def test_things_to_try_is_marked_in_both_forms():
    admonition = ('<div class="admonition tip">\n<p class="admonition-title">Things to try</p>'
                  "<ul><li>x</li></ul></div>")
    assert 'class="admonition tip zfl-needs-js"' in mkdocs_hooks.mark_things_to_try(admonition)
    plain = "<p>Things to try:</p>\n<ul>\n<li>x</li>\n</ul>\n<p>After.</p>"
    marked = mkdocs_hooks.mark_things_to_try(plain)
    assert marked.startswith('<div class="zfl-needs-js"><p>Things to try:</p>')
    assert marked.endswith("</ul></div>\n<p>After.</p>")
    other = '<div class="admonition tip">\n<p class="admonition-title">Other</p></div>'
    assert mkdocs_hooks.mark_things_to_try(other) == other


def test_figure_names_follow_the_figure_and_the_svg_is_the_same_bytes_each_time():
    key = b"renderer"
    figure = {"data": [{"x": [1, 2], "y": [3, 4]}], "layout": {"title": {"text": "t"}}}
    name = static_figures.figure_name(figure, key)
    assert name == static_figures.figure_name(json.loads(json.dumps(figure)), key)
    assert name != static_figures.figure_name({**figure, "layout": {}}, key)
    assert name != static_figures.figure_name(figure, b"another plotly.js")
    drawn = ('<svg class="main-svg" width="720" height="380"><defs id="defs-a1b2c3">'
             '<clipPath id="clipa1b2c3xyplot"/></defs></svg>')
    again = drawn.replace("a1b2c3", "ffee00")
    tidy = static_figures._tidy(drawn, name)
    assert tidy == static_figures._tidy(again, name)
    assert 'viewBox="0 0 720 380"' in tidy and "a1b2c3" not in tidy
