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

from course_kit import archive, course_requirements, is_notebook, to_notebook, without_solutions  # noqa: E402

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


@pytest.mark.parametrize("name", LECTURES)
def test_student_notebook_starts_with_the_book_macros(name: str) -> None:
    """jupyterlab-myst reads math macros from the first Markdown cell's frontmatter: the book's own."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"]
    first = to_notebook(without_solutions(chapters()[name])).cells[0]
    assert first.cell_type == "markdown" and "remove-cell" in first.metadata.get("tags", [])
    frontmatter = yaml.safe_load(re.fullmatch(r"---\n(.*)\n---\n?", first.source, re.S).group(1))
    assert frontmatter == {"math": {"\\" + k: v for k, v in config["mathjax3_config"]["tex"]["macros"].items()}}


def test_students_get_the_launch_button_environment() -> None:
    text = course_requirements(ROOT, "https://github.com/o/r")
    pins = {line.split("==")[0] for line in text.splitlines() if "==" in line}
    assert {"jupyterlab", "jupyterlab-myst", "ipykernel", "numpy"} <= pins
    assert "shufflelib @ git+https://github.com/o/r" in text.splitlines() and "-e ." not in text.splitlines()


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


@pytest.mark.parametrize("name", LECTURES)
def test_each_chapter_says_how_students_get_it_without_solutions(name: str) -> None:
    """JupyterLab shows the solutions' code cells: each chapter points to the student notebooks."""
    exercises = chapters()[name].split("\n## Exercises\n", 1)[1]
    assert 'href="../course/student-notebooks.zip"' in exercises.split("```{exercise}", 1)[0]
