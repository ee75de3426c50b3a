"""Execute every chapter listed in ``_toc.yml``, as a reader running it top to bottom would.

Each chapter is a MyST Markdown notebook: jupytext reads it, nbclient runs it in a
fresh kernel with the chapter's folder as working directory. A failure names the
chapter, the cell number and the start of the cell's source.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import pytest
import yaml
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]


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


@pytest.mark.parametrize("entry", toc_files())
def test_chapter_executes(entry: str) -> None:
    path = chapter_path(entry)
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
        failing = next(
            (
                (index, cell)
                for index, cell in enumerate(notebook.cells)
                if cell.cell_type == "code"
                and any(out.get("output_type") == "error" for out in cell.get("outputs", []))
            ),
            None,
        )
        where = "unknown cell"
        if failing is not None:
            index, cell = failing
            first_line = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
            where = f"cell {index} (starting {first_line!r})"
        pytest.fail(f"chapter {entry} failed in {where}:\n{error}", pytrace=False)
    # A chapter that warns (stderr output) would fail the strict book build too.
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and output.get("name") == "stderr":
                pytest.fail(f"chapter {entry}, cell {index} wrote to stderr:\n{output['text']}", pytrace=False)
