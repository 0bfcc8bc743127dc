"""The site build's [[zfs:VERSION:FIELD]] substitution (tools/mkdocs_hooks.py): numbers in the
prose come from labsim.zfs.versions, printed as OpenZFS prints them, and a token naming an
unknown release, field or format fails `mkdocs build --strict` with the page's name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from labsim.format import numbers
from labsim.zfs import versions
from labsim.zfs.versions import DEFAULT_VERSION, KiB, MiB, get_version

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import mkdocs_hooks  # noqa: E402


def value(spec: str) -> str:
    return mkdocs_hooks.zfs_value(spec, versions, numbers.nicenum)


def substitute(markdown: str, page: str = "lessons/x.md") -> tuple[str, list[str]]:
    return mkdocs_hooks.zfs_substitute(markdown, page, versions, numbers.nicenum)


def test_sizes_print_as_the_openzfs_tools_print_them():
    assert get_version("2.1").default_volblocksize == 8 * KiB
    assert value("2.1:default_volblocksize") == "8K"
    assert value("2.3:default_volblocksize") == "16K"
    assert value("2.3:metaslab_aliquot") == numbers.nicenum(get_version("2.3").metaslab_aliquot)
    assert value("0.6.5:metaslab_aliquot") == "512K"
    assert value("2.3:max_slop") == "128G"


def test_formats_for_prose_and_plain_numbers():
    assert value("0.6.5:metaslab_aliquot|iec") == "512 KiB"
    assert get_version("2.3").metaslab_aliquot == 1 * MiB
    assert value("2.3:metaslab_aliquot|iec") == "1 MiB"
    assert value("2.3:metaslab_aliquot|raw") == str(1 * MiB)
    assert mkdocs_hooks._iec(3 * MiB // 2) == "1.5 MiB"
    assert mkdocs_hooks._iec(100) == "100 B"


def test_text_enums_flags_and_counts():
    assert value("2.3:release") == get_version("2.3").release
    assert value("2.1:release") == "2.1.11"
    assert value("default:name") == DEFAULT_VERSION.name
    assert value("default:release") == DEFAULT_VERSION.release
    assert value("2.1:default_compression") == "off"
    assert value("2.3:metaslab_sizing") == get_version("2.3").metaslab_sizing.value
    assert value("2.3:allocation_throttle") == "yes"
    assert value("0.6.5:allocation_throttle") == "no"
    assert value("2.3:slop_shift") == "5"  # a shift is a count, not a size


def test_tokens_in_markdown_and_the_escape():
    text, errors = substitute(
        "Blocks are [[zfs:2.1:default_volblocksize]] up to 2.1, "
        "[[zfs:2.2:default_volblocksize]] from 2.2; write `\\[[zfs:2.3:release]]` to show it.")
    assert errors == []
    assert text == ("Blocks are 8K up to 2.1, 16K from 2.2; write `[[zfs:2.3:release]]` to "
                    "show it.")
    assert substitute("no tokens [[here]] [[zfs]]") == ("no tokens [[here]] [[zfs]]", [])


@pytest.mark.parametrize(("token", "message"), [
    ("[[zfs:2.3:default_volblocksise]]", "unknown field 'default_volblocksise'"),
    ("[[zfs:2.4:release]]", "unknown OpenZFS version '2.4' (known: default, 0.6.5, 2.1"),
    ("[[zfs:2.3.9:release]]", "unknown OpenZFS version '2.3.9'"),
    ("[[zfs:2.3:release|upper]]", "unknown format 'upper'"),
    ("[[zfs:0.6.5:max_slop]]", "max_slop of 0.6.5 is no value"),
    ("[[zfs:2.3:pool_properties_added]]", "is a frozenset, not a single value"),
    ("[[zfs:2.3]]", "unknown field ''"),
])
def test_unknown_tokens_are_errors_naming_the_page(token, message):
    text, errors = substitute(f"Before {token} after.", "lessons/07-zvols-qcow2.md")
    assert text == f"Before {token} after."  # left as written
    assert len(errors) == 1
    assert errors[0].startswith(f"lessons/07-zvols-qcow2.md: {token}: ")
    assert message in errors[0]


def test_an_unknown_field_fails_the_strict_build(tmp_path):
    docs = tmp_path / "docs"
    (docs / "lessons").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\nThe course runs [[zfs:default:release]].\n")
    (docs / "lessons" / "bad.md").write_text("# Bad\n\nA zvol: [[zfs:2.3:volblocksize]].\n")
    (tmp_path / "mkdocs.yml").write_text(
        f"site_name: t\ndocs_dir: docs\nhooks:\n  - {REPO / 'tools' / 'mkdocs_hooks.py'}\n")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
         str(tmp_path / "site")], cwd=tmp_path, capture_output=True, text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=300)
    assert build.returncode != 0
    errors = [line for line in build.stderr.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1, build.stderr  # the good token of index.md is no error
    assert "lessons/bad.md: [[zfs:2.3:volblocksize]]: unknown field 'volblocksize'" in errors[0]
    assert "known: name, release," in errors[0]
    assert "Aborted with 1 errors in strict mode" in build.stdout + build.stderr
