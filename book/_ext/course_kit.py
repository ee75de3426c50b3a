"""The course kit: every chapter as a notebook, for students and for instructors.

After an HTML build this extension writes two archives into the site's ``course/``
folder, linked from the instructors page:

* ``student-notebooks.zip``: each chapter as a Jupyter notebook (``.ipynb``, not executed)
  with the solutions removed. The exercises and their check cells stay, so a student
  enters an answer and runs the check; but no check holds its expected value: each
  ``check_answer(answer, <code computing the value>)`` becomes
  ``check_answer(answer, "answer-key:…")``, the value's hashed key
  (:class:`shufflelib.exercises.AnswerKey`), which the check cell published when the build
  executed the chapter (read from the build's execution cache).
* ``answer-key.zip``: the same notebooks with the solutions.

Both hold the kernel's ``requirements.txt`` (the book's top-level one, which the launch button
reads too: JupyterLab with jupyterlab-myst, which renders the theorems and, from each chapter's
first cell, the book's math macros) and a short ``README.txt``. A chapter is
a MyST Markdown notebook (a ``jupytext`` header); a solution is everything from a
```` ```{solution-start} ```` line through the matching ```` ```{solution-end} ```` block.
"""

from __future__ import annotations

import ast
import io
import json
import re
import zipfile
from pathlib import Path

import jupytext
import nbformat
from sphinx.application import Sphinx
from sphinx.util import logging

from shufflelib.exercises import ANSWER_KEY_MIME

logger = logging.getLogger(__name__)

COURSE_DIR = "course"
STUDENT_ARCHIVE = "student-notebooks.zip"
ANSWER_ARCHIVE = "answer-key.zip"

SOLUTION = re.compile(r"^```\{solution-start\}.*?^```\{solution-end\}\n```\n?", re.M | re.S)
REMOVED = "*The solution is in the instructors' answer key.*\n"
ANSWER_LINE = re.compile(r"^\w+ = None  # your answer here$", re.M)

README = """{title}

One Jupyter notebook per chapter of the book. Install the book's Python packages first
(Python 3.11 or later; the environment of the book's launch button, with JupyterLab and
jupyterlab-myst, which renders the theorems, the exercises and the book's math macros):

    python -m pip install -r requirements.txt
    jupyter lab

{what}
"""
#: The environment of the live chapters (the launch button), also the students' (from the book's root).
REQUIREMENTS = Path("requirements.txt")


def is_notebook(text: str) -> bool:
    """Whether a MyST Markdown page is a notebook (has a jupytext header)."""
    return text.startswith("---\n") and "\njupytext:" in text.split("\n---\n", 1)[0] + "\n"


def without_solutions(text: str) -> str:
    """The chapter with every solution block replaced by a one-line pointer to the answer key."""
    return SOLUTION.sub(lambda _: REMOVED, text)


def to_notebook(text: str) -> nbformat.NotebookNode:
    """A MyST Markdown notebook as an ``nbformat`` notebook (no outputs)."""
    notebook = jupytext.reads(text, fmt="md:myst")
    notebook.metadata.pop("jupytext", None)
    return notebook


class CheckError(ValueError):
    """A check cell whose expected value cannot be replaced by its key."""


def answer_keys(executed: nbformat.NotebookNode) -> dict[str, list[str]]:
    """Cell source -> the answer keys its check calls published when the build ran it."""
    keys: dict[str, list[str]] = {}
    for cell in executed.cells:
        if cell.cell_type != "code":
            continue
        found = [
            output["data"][ANSWER_KEY_MIME]["key"]
            for output in cell.get("outputs", [])
            if output.get("output_type") == "display_data" and ANSWER_KEY_MIME in output.get("data", {})
        ]
        if found:
            keys[cell.source] = found
    return keys


def _check_calls(source: str) -> list[ast.Call]:
    """The ``check_answer(...)`` calls of a cell, in source order."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (getattr(node.func, "id", None) == "check_answer" or getattr(node.func, "attr", None) == "check_answer")
    ]
    return sorted(calls, key=lambda call: (call.lineno, call.col_offset))


def with_keys(source: str, keys: list[str]) -> str:
    """The check cell for students: only its ``check_answer(answer, ...)`` calls, each with the
    key of its expected value in place of the value (and of its tolerances), in order. The code
    that computed the values is dropped, so nothing in the cell can print them."""
    calls = _check_calls(source)
    if len(calls) != len(keys) or any(len(call.args) < 2 for call in calls):
        raise CheckError(f"{len(calls)} check_answer calls for {len(keys)} published keys:\n{source}")
    if ANSWER_LINE.search(source):
        raise CheckError(f"the answer line shares the check's cell (tools/exercise_checks.py splits it):\n{source}")
    lines = []
    for call, key in zip(calls, keys, strict=True):
        answer = ast.get_source_segment(source, call.args[0])
        lines.append(f"{ast.get_source_segment(source, call.func)}({answer}, {json.dumps(key)})")
    return "\n".join(lines)


def _assigned(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}


def _used(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def student_notebook(text: str, keys: dict[str, list[str]]) -> nbformat.NotebookNode:
    """The chapter for students: no solutions, and every check holding a key, not a value."""
    notebook = to_notebook(without_solutions(text))
    cells = notebook.cells
    for index, cell in enumerate(cells):
        if cell.cell_type != "code" or not _check_calls(cell.source):
            continue
        if cell.source not in keys:
            raise CheckError(f"cell {index} checks an answer but published no key in the build:\n{cell.source}")
        dropped = _assigned(cell.source)
        later = set().union(*(_used(c.source) for c in cells[index + 1 :] if c.cell_type == "code"))
        if dropped & later:
            names = sorted(dropped & later)
            raise CheckError(f"cell {index}, a check cell, defines {names}, used later:\n{cell.source}")
        cell.source = with_keys(cell.source, keys[cell.source])
    return notebook


def archive(
    chapters: dict[str, str],
    *,
    students: bool,
    requirements: str | None,
    keys: dict[str, dict[str, list[str]]] | None = None,
) -> bytes:
    """A zip of the chapters (name -> MyST text) as notebooks: for students (no solutions, the
    checks' expected values replaced by the keys of ``keys[name]``) or the answer key."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in chapters.items():
            if students:
                try:
                    notebook = student_notebook(text, (keys or {}).get(name, {}))
                except CheckError as error:
                    raise CheckError(f"{name}: {error}") from None
            else:
                notebook = to_notebook(text)
            zf.writestr(f"{name}.ipynb", nbformat.writes(notebook))
        if requirements is not None:
            zf.writestr("requirements.txt", requirements)
        title = "Student notebooks" if students else "Answer key (for instructors)"
        what = (
            "Solutions are removed; each exercise keeps the cell that checks your answer\n"
            "(against a hashed key: the expected value is not in the notebook)."
            if students
            else "The complete chapters, solutions included."
        )
        zf.writestr("README.txt", README.format(title=title, what=what))
    return buffer.getvalue()


def chapter_sources(app: Sphinx) -> dict[str, str]:
    """Every page of the book that is a notebook, in table-of-contents order."""
    return {path.stem: text for _, path, text in _notebook_pages(app)}


def _notebook_pages(app: Sphinx) -> list[tuple[str, Path, str]]:
    found = []
    for docname in _toc_order(app):
        path = Path(app.env.doc2path(docname))
        if path.suffix == ".md" and path.exists():
            text = path.read_text(encoding="utf-8")
            if is_notebook(text):
                found.append((docname, path, text))
    return found


def executed_keys(app: Sphinx) -> dict[str, dict[str, list[str]]]:
    """Chapter name -> its check cells' answer keys, from the build's execution cache.

    The chapter is read as myst-nb reads it and matched in the jupyter-cache that the build
    executed it into (the notebooks myst-nb writes to ``jupyter_execute/`` lack the outputs
    of a chapter taken from the cache)."""
    from jupyter_cache import get_cache
    from myst_nb.core.read import create_nb_reader

    cache = get_cache(app.env.mystnb_config.execution_cache_path)
    keys = {}
    for _, path, text in _notebook_pages(app):
        reader = create_nb_reader(str(path), app.env.myst_config, app.env.mystnb_config, text)
        if reader is None:
            continue
        try:
            _, executed = cache.merge_match_into_notebook(reader.read(text))
        except KeyError:  # not in the cache (a build that does not execute): no keys
            continue
        keys[path.stem] = answer_keys(executed)
    return keys


def _toc_order(app: Sphinx) -> list[str]:
    root = app.config.root_doc
    order, seen = [], set()

    def walk(docname: str) -> None:
        if docname in seen:
            return
        seen.add(docname)
        order.append(docname)
        for child in app.env.toctree_includes.get(docname, []):
            walk(child)

    walk(root)
    return order + sorted(set(app.env.found_docs) - seen)


def course_requirements(root: Path, repository: str | None) -> str | None:
    """The students' ``requirements.txt``: the kernel's pins (the top-level ``requirements.txt``), with
    ``-e .`` (meaningless outside a clone) replaced by the repository; ``None`` without the file."""
    path = root / REQUIREMENTS
    if not path.exists():
        return None
    text = path.read_text(encoding="utf-8")
    if repository:
        text = re.sub(r"^-e \.$", f"shufflelib @ git+{repository}", text, flags=re.M)
    return text


def _on_build_finished(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    chapters = chapter_sources(app)
    repository = (app.config.html_theme_options or {}).get("repository_url")
    requirements = course_requirements(Path(app.confdir), repository)
    keys = executed_keys(app)
    target = Path(app.outdir) / COURSE_DIR
    target.mkdir(parents=True, exist_ok=True)
    for name, students in ((STUDENT_ARCHIVE, True), (ANSWER_ARCHIVE, False)):
        try:
            data = archive(chapters, students=students, requirements=requirements, keys=keys)
        except CheckError as error:
            logger.warning(f"course_kit: {error}", type="course_kit", subtype="check")
            continue
        (target / name).write_bytes(data)
    logger.info(f"course_kit: {len(chapters)} chapters written to {COURSE_DIR}/ as notebooks")


def setup(app: Sphinx) -> dict:
    app.connect("build-finished", _on_build_finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
