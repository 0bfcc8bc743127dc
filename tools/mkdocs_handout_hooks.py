"""MkDocs hooks: handouts and slides made from the lesson pages (course.toml's lessons).

* ``on_files``: a handout page per track and edition, ``handouts/TRACK-EDITION.md``
  (tools/handouts.py), generated from the lesson files: never a file under docs/, and not in
  the navigation (mkdocs.yml ``not_in_nav``); the start page and the instructor view link them.
* ``on_page_markdown``: keeps each lesson's Markdown as the build has it (``[[zfs:...]]`` and
  lab steps replaced: this hook runs after the others) for its slides.
* ``on_page_content``: under a lesson's title, after its duration, a line for the instructor
  view only (``zfl-instructor-only``): the lesson's slides and its track's handouts.
* ``on_post_page``: keeps the static figures the site machinery drew into each lesson page
  (tools/mkdocs_hooks.py, ``<figure class="labsim-static">``).
* ``on_post_build``: puts those figures into the handouts' placeholders, and writes each
  lesson's deck (tools/slides.py) to ``slides/ID/slides.md`` with its HTML, made by Marp, as
  ``slides/ID/index.html``.
"""

from __future__ import annotations

import html
import logging
import posixpath
import re
import shutil
from pathlib import Path

import course
import handouts
import slides
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

log = logging.getLogger("mkdocs.hooks.handouts")

STATIC_FIGURE = re.compile(r'<figure class="labsim-static">.*?</figure>', re.S)
FIGURE_SRC = re.compile(r'(<img src=")([^"]*?)(assets/figures/[^"]+")')
FIGURE_ALT = re.compile(r'<img [^>]*\balt="([^"]*)"')
FIGURE_NOTE = re.compile(r'<span class="labsim-static__note">.*?</span>', re.S)
# The placeholder tools/handouts.py writes; Markdown's HTML handling may have put its
# attributes in another order (md_in_html serializes them sorted).
PLACEHOLDER = re.compile(r'<div class="zfl-handout-figure" '
                         r'(?=[^>]*data-lesson="(?P<lesson>[\w-]+)")'
                         r'(?=[^>]*data-index="(?P<index>\d+)")[^>]*></div>')
DURATION = re.compile(r'<p class="zfl-duration">.*?</p>', re.S)


class _State:
    def __init__(self) -> None:
        self.manifest: course.Course | None = None
        self.handout_files: list[File] = []
        self.markdown: dict[str, str] = {}  # lesson id -> its page's Markdown, as built
        self.figures: dict[str, list[str]] = {}  # lesson id -> its static figures' HTML


_state = _State()


def slides_url(lesson_id: str) -> str:
    """The deck of a lesson, from the site's root."""
    return f"slides/{lesson_id}/"


def on_config(config, **kwargs):
    _state.__init__()
    try:
        _state.manifest = course.load()
    except (course.CourseError, OSError) as err:
        raise PluginError(str(err)) from err
    return config


def on_files(files, config, **kwargs):
    manifest = _state.manifest
    assert manifest is not None
    docs = Path(config["docs_dir"])
    _state.handout_files = []
    for track in manifest.tracks:
        if not manifest.track_lessons(track.id):
            continue
        for edition in handouts.EDITIONS:
            try:
                text = handouts.handout_markdown(manifest, track.id, edition,
                                                 lambda page: (docs / page).read_text())
            except (ValueError, OSError) as err:
                raise PluginError(f"handout {track.id} {edition}: {err}") from err
            file = File.generated(config, handouts.page_path(track.id, edition), content=text)
            files.append(file)
            _state.handout_files.append(file)
    return files


def on_page_markdown(markdown: str, page, config, files, **kwargs) -> str:
    lesson = _state.manifest.lesson_of_page(page.file.src_uri) if _state.manifest else None
    if lesson is not None:
        _state.markdown[lesson.id] = markdown
    return markdown


def _teaching_links(lesson: course.Lesson, page, files) -> str:
    base = "../" * page.url.count("/")
    links = [f'<a href="{base}{slides_url(lesson.id)}" target="_blank">slides</a>']
    for edition in handouts.EDITIONS:
        handout = files.get_file_from_path(handouts.page_path(lesson.track, edition))
        if handout is not None:
            words = "without solutions" if edition == "exercises" else "with solutions"
            links.append(f'<a href="{base}{handout.url}">{lesson.track} handout, {words}</a>')
    return f'<p class="zfl-instructor-only zfl-teaching">For teaching: {" · ".join(links)}</p>'


def on_page_content(html_text: str, page, config, files, **kwargs) -> str:
    lesson = _state.manifest.lesson_of_page(page.file.src_uri) if _state.manifest else None
    if lesson is None:
        return html_text
    line = _teaching_links(lesson, page, files)
    duration = DURATION.search(html_text)
    if duration:
        return html_text[:duration.end()] + line + html_text[duration.end():]
    return html_text.replace("</h1>", "</h1>" + line, 1)


def on_post_page(output: str, page, config, **kwargs) -> str:
    lesson = _state.manifest.lesson_of_page(page.file.src_uri) if _state.manifest else None
    if lesson is not None:
        _state.figures[lesson.id] = STATIC_FIGURE.findall(output)
    return output


def _figure_for(html_figure: str, base: str) -> str:
    """A lesson's static figure for a page whose root is ``base`` away, without the note
    about the live chart (the handout says that in its own words)."""
    html_figure = FIGURE_NOTE.sub("", html_figure)
    return FIGURE_SRC.sub(lambda m: f"{m.group(1)}{base}{m.group(3)}", html_figure)


def _handout_figure(match: re.Match, page: str, base: str) -> str:
    found = _state.figures.get(match.group("lesson"), [])
    index = int(match.group("index"))
    if index >= len(found):
        log.error("%s: lesson %s has no static figure %d", page, match.group("lesson"), index)
        return match.group(0)
    return f'<div class="zfl-handout-figure">{_figure_for(found[index], base)}</div>'


def _fill_handouts() -> None:
    for file in _state.handout_files:
        path = Path(file.abs_dest_path)
        base = "../" * file.url.count("/")
        path.write_text(PLACEHOLDER.sub(
            lambda m, page=file.src_uri, base=base: _handout_figure(m, page, base),
            path.read_text()))


def _figure_image(html_figure: str) -> tuple[str, str]:
    """A static figure's image path from the site's root, and its text."""
    src = FIGURE_SRC.search(html_figure)
    alt = FIGURE_ALT.search(html_figure)
    return (src.group(3).rstrip('"') if src else "", html.unescape(alt.group(1)) if alt else "")


def _write_slides(site: Path) -> None:
    manifest = _state.manifest
    assert manifest is not None
    decks: dict[str, str] = {}
    for lesson in manifest.lessons:
        markdown = _state.markdown.get(lesson.id)
        if markdown is None:  # not built (mkdocs serve --dirty)
            continue
        base = "../" * slides_url(lesson.id).count("/")
        figures = [slides.Figure(f"{base}{src}", alt)
                   for src, alt in map(_figure_image, _state.figures.get(lesson.id, []))]
        lesson_url = posixpath.relpath(posixpath.splitext(lesson.page)[0] + "/",
                                       slides_url(lesson.id))
        try:
            deck = slides.extract(markdown, lesson)
            decks[lesson.id] = slides.deck_markdown(deck, figures, lesson_url + "/")
        except slides.SlideError as err:
            log.error("%s", err)
    try:
        rendered = slides.render(decks)
    except slides.SlideError as err:
        raise PluginError(str(err)) from err
    for lesson_id, html_file in rendered.items():
        folder = site / slides_url(lesson_id)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "slides.md").write_text(decks[lesson_id])
        shutil.copyfile(html_file, folder / "index.html")


def on_post_build(config, **kwargs) -> None:
    _fill_handouts()
    _write_slides(Path(config["site_dir"]))
