"""MkDocs hooks: the course manifest (course.toml, read by tools/course.py) in the site.

* ``on_config``: the navigation is the manifest's (mkdocs.yml has no ``nav:``; one there is an
  error, so that nobody edits a list the build ignores).
* ``on_page_markdown``: ``[[lab:steps:NAME]]`` becomes the numbered list of lab NAME's steps,
  each ``**name**: summary`` from labs/steps/NAME.toml (the file ``labkit verify`` checks the
  steps with); for a network lab (labs/net/NAME/), each step with its hosts and the titles of
  their scripts' ``# step`` markers. So a page never holds a copy of a lab's steps. A lesson
  page's durations come from the manifest: minutes in its front matter are an error.
* ``on_page_content``: under a lesson's title, how long it takes (every reader sees it); and
  every console block's copy button copies its commands only (tools/console_blocks.py).
"""

from __future__ import annotations

import logging
import re
import sys
import tomllib
from pathlib import Path

import console_blocks  # tools/, next to this file (MkDocs puts it on sys.path for the import)
import course
from mkdocs.exceptions import PluginError

log = logging.getLogger("mkdocs.hooks.course")

LABS = course.REPO / "labs"
STEPS_TOKEN = re.compile(r"(\\?)\[\[lab:steps:([\w-]+)\]\]")
DURATION_KEYS = ("teaching", "exercises", "lab", "duration")


class _State:
    manifest: course.Course | None = None


_state = _State()


def lab_steps_markdown(name: str, labs: Path = LABS) -> str:
    """Lab ``name``'s steps as a Markdown numbered list: ``1. **files**: summary;`` ... the
    last ending in a full stop. The names and order are those of the script's ``# step``
    markers (labkit.load_lab); each summary is the step's ``summary`` in labs/steps/NAME.toml.
    A network lab (labs/net/NAME/) lists its hosts' steps instead (:func:`net_steps_markdown`).
    ValueError names what is missing."""
    if str(labs) not in sys.path:
        sys.path.insert(0, str(labs))
    if not (labs / "steps" / f"{name}.toml").is_file() \
            and (labs / "net" / name / "topology.toml").is_file():
        return net_steps_markdown(name, labs)
    import labkit

    try:
        lab = labkit.load_lab(name, labs)
    except labkit.LabError as err:
        raise ValueError(str(err)) from err
    spec = tomllib.loads((labs / "steps" / f"{name}.toml").read_text())
    summaries = {s["name"]: s.get("summary", "") for s in spec.get("step", [])}
    missing = [step.name for step in lab.steps if not summaries[step.name].strip()]
    if missing:
        raise ValueError(f"labs/steps/{name}.toml: steps {missing} have no `summary`")
    items = []
    for step in lab.steps:
        end = "." if step.number == len(lab.steps) else ";"
        text = " ".join(summaries[step.name].split()).rstrip(".;")
        items.append(f"{step.number}. **{step.name}**: {text}{end}")
    return "\n".join(items)


def net_steps_markdown(name: str, labs: Path = LABS) -> str:
    """Network lab ``name``'s steps as a Markdown numbered list, in the order netkit runs them
    (netkit.steps.plan: each step where it first appears, hosts in the topology's order). Each
    item names the hosts that take part and the title of their ``# step NAME: title`` marker:
    ``1. **keys** (alice, bob): title;`` where the hosts share one title, a nested list of
    ``host: title`` where they do not. ValueError names what is wrong."""
    if str(labs) not in sys.path:
        sys.path.insert(0, str(labs))
    import netkit

    from labsteps import sections

    try:
        topology = netkit.load(labs / "net" / name)
        scripts = topology.scripts()
    except netkit.NetkitError as err:
        raise ValueError(str(err)) from err
    titles: dict[str, list[tuple[str, str]]] = {}
    for host, script in scripts.items():
        for part in sections(script.read_text()):
            if part.name:
                titles.setdefault(part.name, []).append((host, " ".join(part.title.split())))
    if not titles:
        raise ValueError(f"labs/net/{name}: no `# step NAME: title` marker in any host's script")
    items = []
    for number, (step, hosts) in enumerate(titles.items(), start=1):
        end = "." if number == len(titles) else ";"
        untitled = [host for host, title in hosts if not title]
        if untitled:
            raise ValueError(f"labs/net/{name}: step {step!r} has no title on {untitled}")
        if len({title for _host, title in hosts}) == 1:
            names = ", ".join(host for host, _title in hosts)
            items.append(f"{number}. **{step}** ({names}): {hosts[0][1].rstrip('.;')}{end}")
        else:
            items.append(f"{number}. **{step}**:")
            items += [f"    - {host}: {title.rstrip('.;')}"
                      + (end if index == len(hosts) - 1 else ";")
                      for index, (host, title) in enumerate(hosts)]
    return "\n".join(items)


def steps_substitute(markdown: str, page_name: str, labs: Path = LABS) -> tuple[str, list[str]]:
    """``markdown`` with every ``[[lab:steps:NAME]]`` expanded, and the errors (naming the page;
    a wrong token stays as written). ``\\[[lab:steps:NAME]]`` is kept, without the backslash."""
    errors: list[str] = []

    def replace(match: re.Match) -> str:
        if match.group(1):
            return match.group(0)[1:]
        try:
            return lab_steps_markdown(match.group(2), labs)
        except (ValueError, OSError) as err:
            errors.append(f"{page_name}: {match.group(0)}: {err}")
            return match.group(0)

    return STEPS_TOKEN.sub(replace, markdown), errors


def on_config(config, **kwargs):
    if config.get("nav"):
        raise PluginError("mkdocs.yml has a nav: the navigation is made from course.toml "
                          "(tools/mkdocs_course_hooks.py); add pages there")
    try:
        _state.manifest = course.load()
    except (course.CourseError, OSError) as err:
        raise PluginError(str(err)) from err
    config["nav"] = course.mkdocs_nav(_state.manifest)
    return config


def on_page_markdown(markdown: str, page, config, files, **kwargs) -> str:
    name = page.file.src_uri
    lesson = _state.manifest.lesson_of_page(name) if _state.manifest else None
    if lesson is not None:
        stray = [key for key in DURATION_KEYS if key in page.meta]
        if stray:
            log.error("%s: %s in the front matter: a lesson's minutes are in course.toml "
                      "(lesson %s, duration)", name, ", ".join(stray), lesson.id)
    markdown, errors = steps_substitute(markdown, name)
    for error in errors:
        log.error(error)
    return markdown


def on_page_content(html_text: str, page, config, files, **kwargs) -> str:
    lesson = _state.manifest.lesson_of_page(page.file.src_uri) if _state.manifest else None
    if lesson is not None and "</h1>" in html_text:
        html_text = html_text.replace("</h1>", "</h1>" + course.duration_html(lesson.duration), 1)
    return console_blocks.with_copy_text(html_text)

