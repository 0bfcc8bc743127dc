"""The course manifest, ``course.toml``: every lesson under one name, with its page, its
simulations, its labs and its duration; the site's navigation made from it; and what the
manifest names checked against the repository.

Standard library only (tomllib, dataclasses): the site build (tools/mkdocs_course_hooks.py) and
the tests (tests/docs/test_course.py) both read it. Checks that need labsim (a simulation's
scenario and parameters) take labsim's registry as an argument, so this module imports nothing
of the simulator.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MANIFEST = REPO / "course.toml"
LAB_KINDS = ("labkit", "netkit")


class CourseError(ValueError):
    """course.toml is malformed: a missing key, an unknown track or kind."""


@dataclass(frozen=True)
class Simulation:
    """A widget of a lesson page:
    ``<div class="labsim-widget" data-scenario=... data-params=...>``."""

    scenario: str
    params: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class LabRef:
    """A lab of a lesson. ``labkit``: labs/scripts/NAME.sh, labs/steps/NAME.toml and the
    notebook labs/NAME.ipynb. ``netkit``: the folder labs/net/NAME/ and its notebook
    labs/net-wK-REST.ipynb (tools/net_notebooks.py names it)."""

    kind: str
    name: str

    def files(self, repo: Path = REPO) -> tuple[Path, ...]:
        labs = repo / "labs"
        if self.kind == "labkit":
            return (labs / "scripts" / f"{self.name}.sh", labs / "steps" / f"{self.name}.toml",
                    labs / f"{self.name}.ipynb")
        number, _, rest = self.name.partition("-")
        notebook = labs / f"net-w{int(number) if number.isdigit() else number}-{rest}.ipynb"
        return (labs / "net" / self.name / "topology.toml", notebook)


@dataclass(frozen=True)
class Duration:
    """Minutes a lesson takes in a workshop: teaching, exercises, lab."""

    teaching: int
    exercises: int
    lab: int

    @property
    def total(self) -> int:
        return self.teaching + self.exercises + self.lab


@dataclass(frozen=True)
class Lesson:
    id: str
    track: str
    title: str
    page: str  # under docs/
    simulations: tuple[Simulation, ...]
    labs: tuple[LabRef, ...]
    duration: Duration


@dataclass(frozen=True)
class Track:
    id: str
    title: str


@dataclass(frozen=True)
class NavItem:
    """One entry of the site's top-level navigation: a page, a track's lessons, or a
    section of pages (``pages``: (title, page) pairs under ``title``)."""

    title: str = ""
    page: str = ""
    track: str = ""
    pages: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Course:
    nav: tuple[NavItem, ...]
    tracks: tuple[Track, ...]
    lessons: tuple[Lesson, ...]

    def lesson_of_page(self, page: str) -> Lesson | None:
        """The lesson whose page is ``page`` (a path under docs/, as MkDocs' src_uri)."""
        return next((lesson for lesson in self.lessons if lesson.page == page), None)

    def track_lessons(self, track: str) -> tuple[Lesson, ...]:
        return tuple(lesson for lesson in self.lessons if lesson.track == track)


# --- reading -------------------------------------------------------------------------------------

def _need(table: Mapping[str, object], key: str, where: str) -> object:
    if key not in table:
        raise CourseError(f"{where}: needs `{key}`")
    return table[key]


def _minutes(value: object, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise CourseError(f"{where}: minutes must be a whole number, not {value!r}")
    return value


def parse(text: str) -> Course:
    """The course described by the TOML ``text``; CourseError names what is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise CourseError(f"course.toml: {err}") from err
    tracks = tuple(Track(str(_need(t, "id", "[[track]]")), str(_need(t, "title", "[[track]]")))
                   for t in data.get("track", []))
    track_ids = {t.id for t in tracks}
    lessons = []
    for entry in data.get("lesson", []):
        lesson_id = str(_need(entry, "id", "[[lesson]]"))
        where = f"lesson {lesson_id}"
        track = str(_need(entry, "track", where))
        if track not in track_ids:
            raise CourseError(f"{where}: unknown track {track!r} (tracks: {sorted(track_ids)})")
        sims = tuple(Simulation(str(_need(s, "scenario", where)), dict(s.get("params", {})))
                     for s in entry.get("simulations", []))
        labs = []
        for lab in entry.get("labs", []):
            kind = str(_need(lab, "kind", where))
            if kind not in LAB_KINDS:
                raise CourseError(f"{where}: lab kind {kind!r} is not one of {LAB_KINDS}")
            labs.append(LabRef(kind, str(_need(lab, "name", where))))
        minutes = _need(entry, "duration", where)
        if not isinstance(minutes, dict):
            raise CourseError(f"{where}: duration = {{ teaching = N, exercises = N, lab = N }}")
        duration = Duration(*(_minutes(_need(minutes, key, f"{where} duration"), where)
                              for key in ("teaching", "exercises", "lab")))
        lessons.append(Lesson(lesson_id, track, str(_need(entry, "title", where)),
                              str(_need(entry, "page", where)), sims, tuple(labs), duration))
    nav = []
    for item in data.get("nav", []):
        if "track" in item:
            if item["track"] not in track_ids:
                raise CourseError(f"[[nav]]: unknown track {item['track']!r}")
            nav.append(NavItem(track=str(item["track"])))
        elif "pages" in item:
            pages = tuple((str(_need(p, "title", "[[nav]] pages")),
                           str(_need(p, "page", "[[nav]] pages"))) for p in item["pages"])
            nav.append(NavItem(title=str(_need(item, "title", "[[nav]]")), pages=pages))
        else:
            nav.append(NavItem(title=str(_need(item, "title", "[[nav]]")),
                               page=str(_need(item, "page", "[[nav]]"))))
    return Course(tuple(nav), tracks, tuple(lessons))


def load(path: Path = MANIFEST) -> Course:
    return parse(path.read_text())


# --- what the site gets --------------------------------------------------------------------------

def mkdocs_nav(course: Course) -> list[dict[str, object]]:
    """The navigation in MkDocs' ``nav`` form: [{title: page}, {track title: [...]}]."""
    titles = {t.id: t.title for t in course.tracks}
    nav: list[dict[str, object]] = []
    for item in course.nav:
        if item.track:
            nav.append({titles[item.track]: [{lesson.title: lesson.page}
                                              for lesson in course.track_lessons(item.track)]})
        elif item.pages:
            nav.append({item.title: [{title: page} for title, page in item.pages]})
        else:
            nav.append({item.title: item.page})
    return nav


def duration_html(duration: Duration) -> str:
    """The line under a lesson's title that tells every reader how long it takes."""
    return (f'<p class="zfl-duration"><strong>{duration.total} min</strong>: '
            f"{duration.teaching} min reading and teaching, {duration.exercises} min exercises, "
            f"{duration.lab} min lab</p>")


# --- checks --------------------------------------------------------------------------------------

WIDGET = re.compile(r"<div class=\"labsim-widget\" data-scenario=\"([\w-]+)\""
                    r"(?: data-params='([^']*)')?></div>")


def page_simulations(markdown: str) -> list[Simulation]:
    """The widgets of a lesson page's Markdown, in order."""
    return [Simulation(name, json.loads(params) if params else {})
            for name, params in WIDGET.findall(markdown)]


def problems(course: Course, repo: Path = REPO,
             scenario_errors: Callable[[Simulation], str | None] | None = None) -> list[str]:
    """Everything wrong between the manifest and the repository (empty when nothing is):
    a page, lab or simulation it names that does not exist, a name used twice, a lesson page
    or lab it does not name, a nav page that is missing, a page whose widgets differ from its
    lesson's simulations. ``scenario_errors`` says what is wrong with a simulation (an unknown
    scenario or parameter), None when nothing is."""
    found: list[str] = []
    docs = repo / "docs"
    seen_ids: set[str] = set()
    seen_pages: set[str] = set()
    seen_labs: set[LabRef] = set()
    for lesson in course.lessons:
        where = f"lesson {lesson.id}"
        for kind, value, seen in (("id", lesson.id, seen_ids), ("page", lesson.page, seen_pages)):
            if value in seen:
                found.append(f"{where}: {kind} {value!r} is used by two lessons")
            seen.add(value)
        if Path(lesson.page).stem != lesson.id:
            found.append(f"{where}: its page {lesson.page} is not named after it")
        page = docs / lesson.page
        if not page.is_file():
            found.append(f"{where}: page docs/{lesson.page} does not exist")
        elif page_simulations(page.read_text()) != list(lesson.simulations):
            found.append(f"{where}: docs/{lesson.page} has the widgets "
                         f"{page_simulations(page.read_text())}, course.toml names "
                         f"{list(lesson.simulations)}")
        for sim in lesson.simulations:
            error = scenario_errors(sim) if scenario_errors else None
            if error:
                found.append(f"{where}: simulation {sim.scenario}: {error}")
        for lab in lesson.labs:
            if lab in seen_labs:
                found.append(f"{where}: lab {lab.name} belongs to two lessons")
            seen_labs.add(lab)
            for path in lab.files(repo):
                if not path.is_file():
                    found.append(f"{where}: lab {lab.name}: {path.relative_to(repo)} is missing")
    for item in course.nav:
        for title, page in ((item.title, item.page), *item.pages):
            if page and not (docs / page).is_file():
                found.append(f"[[nav]] {title}: docs/{page} does not exist")
    for page in sorted((docs / "lessons").glob("*.md")):
        if page.relative_to(docs).as_posix() not in seen_pages:
            found.append(f"docs/{page.relative_to(docs)} is a lesson page course.toml does not "
                         "name")
    labs = repo / "labs"
    every_lab = ([LabRef("labkit", p.stem) for p in sorted((labs / "steps").glob("*.toml"))]
                 + [LabRef("netkit", p.parent.name)
                    for p in sorted((labs / "net").glob("*/topology.toml"))])
    for lab in every_lab:
        if lab not in seen_labs:
            found.append(f"{lab.kind} lab {lab.name} belongs to no lesson in course.toml")
    return found


def scenario_checker(scenarios: Mapping[str, object], read_params: Callable,
                     ) -> Callable[[Simulation], str | None]:
    """A ``scenario_errors`` for :func:`problems` from labsim's registry
    (labsim.scenarios.SCENARIOS) and its reader (labsim.scenarios.controls.read_params)."""

    def check(sim: Simulation) -> str | None:
        scenario = scenarios.get(sim.scenario)
        if scenario is None:
            return f"no such scenario (known: {', '.join(sorted(scenarios))})"
        controls: Sequence[Mapping] = list(scenario.controls)  # type: ignore[attr-defined]
        names = {c["name"] for c in controls}
        unknown = sorted(set(sim.params) - names)
        if unknown:
            return f"unknown parameters {unknown} (controls: {sorted(names)})"
        _merged, notes = read_params(controls, dict(sim.params))
        return "; ".join(notes) or None

    return check
