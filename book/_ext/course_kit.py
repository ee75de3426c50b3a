"""The course kit: every chapter as a notebook, for students and for instructors.

After an HTML build this extension writes two archives into the site's ``course/``
folder, linked from the instructors page:

* ``student-notebooks.zip``: each chapter as a Jupyter notebook (``.ipynb``, not executed)
  with the solutions removed. The exercises and their check cells stay, so a student
  enters an answer and runs the check.
* ``answer-key.zip``: the same notebooks with the solutions.

Both hold the kernel's ``requirements.txt`` (the book's top-level one, which the launch button
reads too: JupyterLab with jupyterlab-myst, which renders the theorems and, from each chapter's
first cell, the book's math macros) and a short ``README.txt``. A chapter is
a MyST Markdown notebook (a ``jupytext`` header); a solution is everything from a
```` ```{solution-start} ```` line through the matching ```` ```{solution-end} ```` block.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import jupytext
import nbformat
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

COURSE_DIR = "course"
STUDENT_ARCHIVE = "student-notebooks.zip"
ANSWER_ARCHIVE = "answer-key.zip"

SOLUTION = re.compile(r"^```\{solution-start\}.*?^```\{solution-end\}\n```\n?", re.M | re.S)
REMOVED = "*The solution is in the instructors' answer key.*\n"

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


def archive(chapters: dict[str, str], *, students: bool, requirements: str | None) -> bytes:
    """A zip of the chapters (name -> MyST text) as notebooks, with or without solutions."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in chapters.items():
            source = without_solutions(text) if students else text
            zf.writestr(f"{name}.ipynb", nbformat.writes(to_notebook(source)))
        if requirements is not None:
            zf.writestr("requirements.txt", requirements)
        title = "Student notebooks" if students else "Answer key (for instructors)"
        what = (
            "Solutions are removed; each exercise keeps the cell that checks your answer."
            if students
            else "The complete chapters, solutions included."
        )
        zf.writestr("README.txt", README.format(title=title, what=what))
    return buffer.getvalue()


def chapter_sources(app: Sphinx) -> dict[str, str]:
    """Every page of the book that is a notebook, in table-of-contents order."""
    found = {}
    for docname in _toc_order(app):
        path = Path(app.env.doc2path(docname))
        if path.suffix == ".md" and path.exists():
            text = path.read_text(encoding="utf-8")
            if is_notebook(text):
                found[path.stem] = text
    return found


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
    target = Path(app.outdir) / COURSE_DIR
    target.mkdir(parents=True, exist_ok=True)
    for name, students in ((STUDENT_ARCHIVE, True), (ANSWER_ARCHIVE, False)):
        (target / name).write_bytes(archive(chapters, students=students, requirements=requirements))
    logger.info(f"course_kit: {len(chapters)} chapters written to {COURSE_DIR}/ as notebooks")


def setup(app: Sphinx) -> dict:
    app.connect("build-finished", _on_build_finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
