"""Every chapter listed in ``_toc.yml`` executes without error, as a reader running it top to bottom would.

Each chapter is a MyST Markdown notebook. The book build (``jupyter-book build . -W -n``)
executes every chapter and keeps the result in its execution cache
(``_build/.jupyter_cache``) and in ``_build/jupyter_execute/``. When that result is
current — its code cells are the chapter's, and it was executed after the last change to
the chapter and to ``shufflelib/`` — the test checks it instead of executing the chapter
a second time (this halves the time of CI, which builds first). Otherwise jupytext reads
the chapter and nbclient runs it in a fresh kernel with the chapter's folder as working
directory. Either way, a failure names the chapter, the cell number and the start of the
cell's source, and a chapter that writes to stderr fails (as it fails the strict build).
"""

from __future__ import annotations

import datetime
from pathlib import Path

import jupytext
import nbformat
import pytest
import yaml
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "_build"


def toc_files() -> list[str]:
    """Every file named in ``_toc.yml`` (root first), as paths relative to the repository."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries: list[dict]) -> None:
        for entry in entries:
            if "file" in entry:
                files.append(entry["file"])
            for key in ("chapters", "sections", "parts"):
                walk(entry.get(key, []))

    walk(toc.get("parts", []) + toc.get("chapters", []))
    return files


def chapter_path(entry: str) -> Path:
    path = ROOT / entry
    return path if path.suffix else path.with_suffix(".md")


def test_toc_lists_existing_chapters() -> None:
    missing = [entry for entry in toc_files() if not chapter_path(entry).exists()]
    assert not missing, f"_toc.yml names files that do not exist: {missing}"


def code_sources(notebook) -> list[str]:
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]


def executed_by_build(entry: str, path: Path):
    """The build's execution of ``entry`` (from its cache, with the outputs) if current, else ``None``.

    ``_build/jupyter_execute/`` holds the build's copy of the chapter, which names its
    entry in the execution cache; the outputs are in that entry.
    """
    executed = BUILD / "jupyter_execute" / Path(entry).with_suffix(".ipynb")
    if not (executed.exists() and (BUILD / ".jupyter_cache").exists()):
        return None
    from jupyter_cache import get_cache

    notebook = nbformat.read(executed, as_version=4)
    if code_sources(notebook) != code_sources(jupytext.read(path)):
        return None  # the chapter's code changed since the build
    cache = get_cache(BUILD / ".jupyter_cache")
    try:
        record = cache.match_cache_notebook(notebook)
    except KeyError:
        return None
    created = record.created
    if created.tzinfo is None:  # jupyter-cache stores UTC
        created = created.replace(tzinfo=datetime.UTC)
    library = (p for p in (ROOT / "shufflelib").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    sources = [path, *library]  # not the bytecode, which importing the library may write after the build
    if max(p.stat().st_mtime for p in sources) >= created.timestamp():
        return None  # executed before the last change to the chapter or to the library
    executed_notebook = cache.get_cache_bundle(record.pk).nb
    if code_sources(executed_notebook) != code_sources(notebook):
        return None
    return executed_notebook


def first_error(notebook):
    """``(index, cell)`` of the first code cell with an error output, or ``None``."""
    return next(
        (
            (index, cell)
            for index, cell in enumerate(notebook.cells)
            if cell.cell_type == "code" and any(out.get("output_type") == "error" for out in cell.get("outputs", []))
        ),
        None,
    )


def where(failing) -> str:
    if failing is None:
        return "unknown cell"
    index, cell = failing
    first_line = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
    return f"cell {index} (starting {first_line!r})"


@pytest.mark.parametrize("entry", toc_files())
def test_chapter_executes(entry: str) -> None:
    path = chapter_path(entry)
    if not code_sources(jupytext.read(path)):
        return  # a page without code cells (the build renders it without a kernel)
    notebook = executed_by_build(entry, path)
    if notebook is not None:
        failing = first_error(notebook)
        if failing is not None:
            error = next(out for out in failing[1].outputs if out.get("output_type") == "error")
            pytest.fail(
                f"chapter {entry} failed in the build in {where(failing)}:\n{error.get('ename')}: "
                f"{error.get('evalue')}",
                pytrace=False,
            )
    else:
        notebook = jupytext.read(path)
        client = NotebookClient(
            notebook,
            timeout=600,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
        )
        try:
            client.execute()
        except CellExecutionError as error:
            pytest.fail(f"chapter {entry} failed in {where(first_error(notebook))}:\n{error}", pytrace=False)
    # A chapter that warns (stderr output) would fail the strict book build too.
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                pytest.fail(f"chapter {entry}, cell {index} wrote to stderr:\n{output['text']}", pytrace=False)


def test_an_error_in_the_build_execution_is_found() -> None:
    """The check applied to the build's executions finds an error output."""
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("1 + 1"),
            nbformat.v4.new_code_cell(
                "1 / 0", outputs=[nbformat.v4.new_output("error", ename="ZeroDivisionError", evalue="", traceback=[])]
            ),
        ]
    )
    index, cell = first_error(notebook)
    assert index == 1 and where((index, cell)) == "cell 1 (starting '1 / 0')"
