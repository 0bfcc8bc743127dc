"""The course manifest (course.toml, tools/course.py): everything it names exists, everything
the course has is in it, and the site's navigation, durations and lab step lists come from it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import course  # noqa: E402
import mkdocs_course_hooks  # noqa: E402

from labsim.scenarios import SCENARIOS  # noqa: E402
from labsim.scenarios.controls import read_params  # noqa: E402

MANIFEST = course.load()
CHECK = course.scenario_checker(SCENARIOS, read_params)


def test_the_manifest_and_the_repository_agree():
    assert MANIFEST.lessons
    assert course.problems(MANIFEST, ROOT, CHECK) == []


def test_every_lesson_page_and_lab_is_named(tmp_path):
    """A lesson page or a lab the manifest does not name is a problem; so is one it names
    that is missing. (A copy of the repository's docs and labs, one file added, one gone.)"""
    import shutil

    shutil.copytree(ROOT / "docs" / "lessons", tmp_path / "docs" / "lessons")
    for page in (ROOT / "docs").glob("*.md"):
        shutil.copy(page, tmp_path / "docs" / page.name)
    shutil.copytree(ROOT / "labs", tmp_path / "labs",
                    ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    assert course.problems(MANIFEST, tmp_path) == []
    (tmp_path / "docs" / "lessons" / "09-new.md").write_text("# 9. New\n")
    (tmp_path / "labs" / "steps" / "09-new.toml").write_text("")
    (tmp_path / "labs" / "06-snapshots.ipynb").unlink()
    found = course.problems(MANIFEST, tmp_path)
    assert found == ["lesson 06-snapshots-clones: lab 06-snapshots: labs/06-snapshots.ipynb is "
                     "missing",
                     "docs/lessons/09-new.md is a lesson page course.toml does not name",
                     "labkit lab 09-new belongs to no lesson in course.toml"]


def test_a_page_whose_widget_differs_from_the_manifest_is_a_problem(tmp_path):
    lesson = MANIFEST.lessons[0]
    page = tmp_path / "docs" / lesson.page
    page.parent.mkdir(parents=True)
    page.write_text('# x\n\n<div class="labsim-widget" data-scenario="records"></div>\n')
    found = course.problems(course.Course((), MANIFEST.tracks, (lesson,)), tmp_path)
    assert any("has the widgets [Simulation(scenario='records'" in p for p in found), found


def test_unknown_scenarios_and_parameters_are_problems():
    assert "no such scenario" in CHECK(course.Simulation("sync"))
    assert "unknown parameters ['presets']" in CHECK(
        course.Simulation("wg-topology", {"presets": "hub"}))
    assert CHECK(course.Simulation("wg-topology", {"preset": "no-such"}))
    assert CHECK(course.Simulation("wg-topology", {"preset": "hub"})) is None


def test_the_navigation_is_the_manifests():
    nav = course.mkdocs_nav(MANIFEST)
    pages = [page for entry in nav for value in entry.values()
             for page in ([value] if isinstance(value, str)
                          else [p for item in value for p in item.values()])]
    lesson_pages = [lesson.page for lesson in MANIFEST.lessons]
    assert [p for p in pages if p.startswith("lessons/")] == lesson_pages
    assert pages[0] == "index.md"
    # every track is in the navigation once
    assert sorted(i.track for i in MANIFEST.nav if i.track) == sorted(t.id for t in MANIFEST.tracks)


def test_mkdocs_yml_has_no_nav_of_its_own():
    text = (ROOT / "mkdocs.yml").read_text()
    assert not re.search(r"^nav:", text, re.M)
    assert "tools/mkdocs_course_hooks.py" in text
    assert "navigation.footer" in text


@pytest.mark.parametrize("lesson", MANIFEST.lessons, ids=lambda lesson: lesson.id)
def test_a_lesson_page_states_its_minutes_only_through_the_manifest(lesson):
    """No minutes in the front matter; the instructor notes' timing line, where a page has
    one, says what the manifest says."""
    text = (ROOT / "docs" / lesson.page).read_text()
    front = text[4:text.index("\n---", 4)] if text.startswith("---\n") else ""
    keys = {line.split(":", 1)[0].strip() for line in front.splitlines() if ":" in line}
    assert not keys & set(mkdocs_course_hooks.DURATION_KEYS)
    d = lesson.duration
    for teaching, exercises, lab in re.findall(
            r"\*\*(\d+) min teaching, (\d+) min exercises, (\d+) min lab", text):
        assert (int(teaching), int(exercises), int(lab)) == (d.teaching, d.exercises, d.lab)


def test_parse_names_what_is_wrong():
    with pytest.raises(course.CourseError, match="unknown track 'disk'"):
        course.parse('[[track]]\nid = "storage"\ntitle = "S"\n[[lesson]]\nid = "x"\n'
                     'track = "disk"\n')
    with pytest.raises(course.CourseError, match="lesson x: needs `duration`"):
        course.parse('[[track]]\nid = "s"\ntitle = "S"\n[[lesson]]\nid = "x"\ntrack = "s"\n'
                     'title = "X"\npage = "lessons/x.md"\n')
    with pytest.raises(course.CourseError, match="lab kind 'vm'"):
        course.parse('[[track]]\nid = "s"\ntitle = "S"\n[[lesson]]\nid = "x"\ntrack = "s"\n'
                     'labs = [{ kind = "vm", name = "x" }]\n')


def test_duration_line():
    line = course.duration_html(course.Duration(25, 20, 15))
    assert re.sub("<[^>]+>", "", line) == (
        "60 min: 25 min reading and teaching, 20 min exercises, 15 min lab")


# --- lab step lists: [[lab:steps:NAME]] -----------------------------------------------------------

LABKIT_LABS = [(lesson, lab) for lesson in MANIFEST.lessons for lab in lesson.labs
               if lab.kind == "labkit"]


@pytest.mark.parametrize(("lesson", "lab"), LABKIT_LABS, ids=lambda x: getattr(x, "name", ""))
def test_a_lesson_lists_its_labs_steps_from_the_step_file(lesson, lab):
    """The page has the token, not a copy: no numbered list of the lab's step names."""
    text = (ROOT / "docs" / lesson.page).read_text()
    assert f"[[lab:steps:{lab.name}]]" in text
    listed = mkdocs_course_hooks.lab_steps_markdown(lab.name)
    names = re.findall(r"^\d+\. \*\*([\w-]+)\*\*", listed, re.M)
    copied = re.findall(r"^\d+\. \*\*([\w-]+)\*\*", text, re.M)
    assert names and names != copied[:len(names)]
    assert listed.endswith(".") and listed.count(";") >= len(names) - 1


def test_the_step_list_is_the_step_files(tmp_path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "steps").mkdir()
    (tmp_path / "scripts" / "x.sh").write_text("# step a: A\ntrue\n# step b: B\ntrue\n")
    check = 'check = [{ what = "w", run = "true", exit = 0 }]\n'
    (tmp_path / "steps" / "x.toml").write_text(
        '[lab]\ntitle = "x"\npools = ["x"]\nfiles = ["x*"]\n'
        f'[[step]]\nname = "a"\nsummary = "one `file`"\nhint = "h."\n{check}'
        f'[[step]]\nname = "b"\nsummary = """the pool,\n   and more."""\nhint = "h."\n{check}')
    assert mkdocs_course_hooks.lab_steps_markdown("x", tmp_path) == (
        "1. **a**: one `file`;\n2. **b**: the pool, and more.")
    page = "Its steps:\n\n[[lab:steps:x]]\n\n\\[[lab:steps:x]] and [[lab:steps:nope]]\n"
    text, errors = mkdocs_course_hooks.steps_substitute(page, "p.md", tmp_path)
    assert text == ("Its steps:\n\n1. **a**: one `file`;\n2. **b**: the pool, and more.\n\n"
                    "[[lab:steps:x]] and [[lab:steps:nope]]\n")
    assert len(errors) == 1 and errors[0].startswith("p.md: [[lab:steps:nope]]: no lab 'nope'")
    (tmp_path / "steps" / "x.toml").write_text(
        (tmp_path / "steps" / "x.toml").read_text().replace('summary = "one `file`"\n', ""))
    with pytest.raises(ValueError, match=r"steps \['a'\] have no `summary`"):
        mkdocs_course_hooks.lab_steps_markdown("x", tmp_path)


NETKIT_LABS = [(lesson, lab) for lesson in MANIFEST.lessons for lab in lesson.labs
               if lab.kind == "netkit"]


@pytest.mark.parametrize(("lesson", "lab"), NETKIT_LABS, ids=lambda x: getattr(x, "name", ""))
def test_a_network_lesson_lists_its_labs_steps_from_the_hosts_scripts(lesson, lab):
    """W1-W5: the page has the token, and the list it becomes names every step netkit runs,
    in netkit's order (netkit.steps.plan), each with the hosts that take part."""
    sys.path.insert(0, str(ROOT / "labs"))
    import netkit
    from netkit.steps import plan

    text = (ROOT / "docs" / lesson.page).read_text()
    assert f"[[lab:steps:{lab.name}]]" in text
    listed = mkdocs_course_hooks.lab_steps_markdown(lab.name)
    order = list(dict.fromkeys(step for step, _host, _lines in plan(netkit.load(lab.name))))
    assert re.findall(r"^\d+\. \*\*([\w-]+)\*\*", listed, re.M) == order
    items = dict(zip(order, re.split(r"^\d+\. ", listed, flags=re.M)[1:], strict=True))
    for step, host, _lines in plan(netkit.load(lab.name)):
        assert re.search(rf"\b{re.escape(host)}\b", items[step]), f"{step}: {host} not named"
    assert listed.endswith(".")


def test_a_network_step_list_names_hosts_and_titles(tmp_path):
    lab = tmp_path / "net" / "x"
    lab.mkdir(parents=True)
    (lab / "topology.toml").write_text(
        'title = "x"\n[lan]\nprefix = "192.168.50.0/24"\n'
        '[hosts.a]\naddress = "192.168.50.10/24"\nscript = "a.sh"\n'
        '[hosts.b]\naddress = "192.168.50.11/24"\nscript = "b.sh"\n')
    (lab / "a.sh").write_text("# step one: the same\ntrue\n# step two: a's own\ntrue\n")
    (lab / "b.sh").write_text("# step one: the same\ntrue\n# step two: b's own\ntrue\n")
    assert mkdocs_course_hooks.lab_steps_markdown("x", tmp_path) == (
        "1. **one** (a, b): the same;\n2. **two**:\n    - a: a's own;\n    - b: b's own.")
