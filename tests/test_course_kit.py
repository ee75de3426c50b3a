"""The course kit: student notebooks without solutions, the answer key, lecture timings."""

from __future__ import annotations

import io
import re
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
import yaml
from test_chapters import ROOT

sys.path.insert(0, str(ROOT / "book" / "_ext"))

from course_kit import archive, is_notebook, to_notebook, without_solutions  # noqa: E402

#: The numbered chapters of ``_toc.yml`` (one lecture each), in order.
LECTURES = [
    Path(chapter["file"]).name
    for part in yaml.safe_load((ROOT / "_toc.yml").read_text())["parts"]
    if part.get("numbered")
    for chapter in part["chapters"]
]


def chapters() -> dict[str, str]:
    return {name: (ROOT / "book" / f"{name}.md").read_text() for name in LECTURES}


@pytest.mark.parametrize("name", LECTURES)
def test_student_notebook_drops_solutions_and_keeps_exercises_and_checks(name: str) -> None:
    text = chapters()[name]
    assert is_notebook(text)
    full = to_notebook(text)
    student = to_notebook(without_solutions(text))
    full_src = "\n".join(cell.source for cell in full.cells)
    student_src = "\n".join(cell.source for cell in student.cells)
    assert "{solution-start}" in full_src and "{solution-start}" not in student_src
    assert "{solution-end}" not in student_src
    # every exercise, every answer cell and every check stays
    for needle in ("{exercise}", "# your answer here", "check_answer("):
        assert student_src.count(needle) >= 1
    assert student_src.count("{exercise}") == full_src.count("{exercise}")
    assert student_src.count("# your answer here") == full_src.count("# your answer here")
    # the solution cells are gone: fewer code cells, and no solution prose
    assert sum(c.cell_type == "code" for c in student.cells) < sum(c.cell_type == "code" for c in full.cells)
    nbformat.validate(student)


def test_archives_hold_every_chapter() -> None:
    data = chapters()
    for students in (True, False):
        with zipfile.ZipFile(io.BytesIO(archive(data, students=students, requirements="numpy\n"))) as zf:
            names = set(zf.namelist())
            assert {f"{n}.ipynb" for n in LECTURES} <= names
            assert {"README.txt", "requirements.txt"} <= names
            text = zf.read("amplification.ipynb").decode()
            assert ("solution-start" in text) is (not students)


def test_instructor_timings_list_every_section_and_each_core_fits_a_lecture() -> None:
    page = (ROOT / "book" / "instructors.md").read_text()
    blocks = re.split(r"^### Lecture \d+: \{doc\}`(\w+)`\n", page, flags=re.M)
    tables = dict(zip(blocks[1::2], blocks[2::2], strict=True))
    assert list(tables) == LECTURES
    for name, block in tables.items():
        rows = re.findall(r"^\| (.+?) \| (\d+) \| (core|optional) \|$", block.split("\n### ")[0], re.M)
        listed = {section for section, _, _ in rows}
        chapter = (ROOT / "book" / f"{name}.md").read_text()
        sections = {h for h in re.findall(r"^## (.+)$", chapter, re.M) if h != "Exercises"}
        assert sections - listed == set(), f"{name}: sections without a timing"
        assert listed - sections - {"Exercises (set up the homework)"} == set(), f"{name}: stale rows"
        core = sum(int(minutes) for _, minutes, kind in rows if kind == "core")
        assert 75 <= core <= 90, f"{name}: the core takes {core} minutes"
        stated = re.search(r"^Core (\d+) minutes", block, re.M)
        assert stated and int(stated.group(1)) == core
