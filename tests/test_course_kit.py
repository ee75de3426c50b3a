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


def placeholder_keys(text: str) -> dict[str, list[str]]:
    """A key for every check call of the chapter's student notebook (the build publishes the real ones)."""
    from course_kit import _check_calls

    cells = to_notebook(without_solutions(text)).cells
    return {
        c.source: ["answer-key:exact:" + "0" * 16] * len(_check_calls(c.source))
        for c in cells
        if _check_calls(c.source)
    }


def test_archives_hold_every_chapter() -> None:
    data = chapters()
    keys = {name: placeholder_keys(text) for name, text in data.items()}
    for students in (True, False):
        with zipfile.ZipFile(io.BytesIO(archive(data, students=students, requirements="numpy\n", keys=keys))) as zf:
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


# --- exercise checks: one shape in every chapter, and no expected value in the student notebooks ---

sys.path.insert(0, str(ROOT / "tools"))
import exercise_checks  # noqa: E402
from course_kit import CheckError, answer_keys, student_notebook, with_keys  # noqa: E402

from shufflelib.exercises import ANSWER_KEY_MIME, AnswerKey, check_answer  # noqa: E402


@pytest.mark.parametrize("name", LECTURES)
def test_every_check_has_the_books_one_shape(name: str) -> None:
    """An answer cell, then a check cell tagged remove-cell that holds only the check's code."""
    text = chapters()[name]
    assert exercise_checks.check_cells(text), f"{name}: no exercise check"
    assert exercise_checks.problems(text) == []
    assert exercise_checks.tautologies(text) == [], f"{name}: a check that cannot fail"


def test_a_check_of_a_value_against_itself_is_reported() -> None:
    same = SMALL_CHAPTER.replace("check_answer(q_answer, expected", "check_answer(x / y, x / y")
    assert exercise_checks.tautologies(same) and not exercise_checks.tautologies(SMALL_CHAPTER)


SMALL_CHAPTER = """---
jupytext:
  text_representation:
    format_name: myst
---

# A chapter

```{code-cell} ipython3
from shufflelib.exercises import check_answer
```

```{exercise} Three quarters
:label: ex-q
```

```{code-cell} ipython3
q_answer = None  # your answer here
```

```{code-cell} ipython3
:tags: [remove-cell]

expected = 3 / 4
check_answer(q_answer, expected, rtol=1e-6)
```

```{solution-start} ex-q
:class: dropdown
```

```{code-cell} ipython3
check_answer(0.75, 3 / 4)
```

```{solution-end}
```
"""


def test_student_check_holds_the_key_not_the_value(capsys) -> None:
    check_source = "expected = 3 / 4\ncheck_answer(q_answer, expected, rtol=1e-6)"
    key = str(AnswerKey.of(3 / 4, rtol=1e-6))
    notebook = student_notebook(SMALL_CHAPTER, {check_source: [key]})
    sources = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    assert sources[-1] == f'check_answer(q_answer, "{key}")'
    assert not any("3 / 4" in s or "0.75" in s or "expected" in s for s in sources)
    # the student's check works without the value
    namespace = {"check_answer": check_answer, "q_answer": 0.75}
    exec(sources[-1], namespace)  # noqa: S102 (the notebook's own cell)
    namespace["q_answer"] = 0.7
    exec(sources[-1], namespace)  # noqa: S102
    assert capsys.readouterr().out.splitlines() == [
        "Correct: 0.75",
        "Not quite: 0.7 is not the expected value (try again, or see the solution).",
    ]


def test_student_notebook_refuses_a_check_without_a_key() -> None:
    with pytest.raises(CheckError, match="published no key"):
        student_notebook(SMALL_CHAPTER, {})
    with pytest.raises(CheckError, match="answer line"):
        with_keys("x_answer = None  # your answer here\ncheck_answer(x_answer, 1.0)", ["answer-key:exact:" + "0" * 16])
    with pytest.raises(CheckError, match="2 check_answer calls for 1"):
        with_keys("check_answer(a, 1.0)\ncheck_answer(b, 2.0)", ["answer-key:exact:" + "0" * 16])


def test_answer_keys_are_read_from_the_executed_notebook() -> None:
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("check_answer(q_answer, 0.75)")
    cell.outputs = [nbformat.v4.new_output("display_data", data={ANSWER_KEY_MIME: {"key": "k1"}, "text/plain": ""})]
    notebook.cells = [nbformat.v4.new_code_cell("x = 1"), cell]
    assert answer_keys(notebook) == {"check_answer(q_answer, 0.75)": ["k1"]}


def test_exercise_checks_rewrites_the_older_shapes() -> None:
    old = SMALL_CHAPTER.replace(
        "q_answer = None  # your answer here\n```\n\n```{code-cell} ipython3\n:tags: [remove-cell]\n\n",
        "q_answer = None  # your answer here\n",
    )
    assert exercise_checks.problems(old)
    assert exercise_checks.convert(old) == SMALL_CHAPTER
    remove_input = SMALL_CHAPTER.replace(":tags: [remove-cell]", ":tags: [remove-input]")
    assert exercise_checks.problems(remove_input) and exercise_checks.convert(remove_input) == SMALL_CHAPTER
