"""Chapter code as a reader meets it: every code cell fits in 88 columns.

The website shows a code cell in a box about 88 characters wide; a longer line makes the
cell scroll sideways. ``tools/format_chapters.py`` formats every cell with ``ruff format``
and lists the lines that still need a hand edit (long strings and comments).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from format_chapters import LINE_LENGTH, chapter_cells, chapters, long_lines, split_options  # noqa: E402


def test_the_tool_finds_every_code_cell_and_keeps_its_options() -> None:
    text = (
        "# t\n\n```{code-cell} ipython3\n:tags: [hide-cell]\n\nx = 1\n```\n\n"
        "```{code-cell} ipython3\n---\nmystnb:\n  figure:\n    name: f\n---\ny = 2\n```\n"
    )
    assert [code for _, code in chapter_cells(text)] == ["x = 1\n", "y = 2\n"]
    assert [line for line, _ in chapter_cells(text)] == [6, 15]
    assert split_options(":tags: [hide-cell]\n\nx = 1\n") == (":tags: [hide-cell]\n\n", "x = 1\n")


@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.stem)
def test_chapter_code_cells_fit_in_88_columns(path: Path) -> None:
    found = long_lines(path)
    assert not found, f"{path.name}: lines longer than {LINE_LENGTH} columns at " + ", ".join(
        f"{line} ({length})" for line, length in found
    )


def test_the_tool_keeps_a_trailing_semicolon() -> None:
    """A trailing ";" hides a cell's value (and a figure's second copy); ruff would drop it."""
    from format_chapters import format_code

    assert format_code("show(1,2);\n") == "show(1, 2);\n"
    assert format_code("show(1,2)\n") == "show(1, 2)\n"
