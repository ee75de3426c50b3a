"""Give every chapter the book's math macros for JupyterLab (one source: ``_config.yml``).

The website's MathJax knows the macros of ``_config.yml`` (``sphinx.config.mathjax3_config``:
``\\P``, ``\\E``, ...), but a chapter opened in JupyterLab (the launch button) does not read
that file. jupyterlab-myst takes math macros from the MyST frontmatter of a notebook's first
Markdown cell (``math:``), so each chapter that is a notebook starts with such a cell, tagged
``remove-cell`` so that the website and the PDF (which have the macros already) skip it. The
cell is written by this script from ``_config.yml``; ``tests/test_book_structure.py`` checks
that every chapter's cell matches.

Usage (from the repository root)::

    python tools/chapter_macros.py            # write or update the cell of every chapter
    python tools/chapter_macros.py --check    # report only; exit status 1 if a cell is missing or stale
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
#: The header of a MyST Markdown notebook (jupytext), up to and including its closing line.
HEADER = re.compile(r"\A---\n(?:(?!---\n).*\n)*?---\n")
#: The macro cell right after the header: its ``+++`` marker line through the next ``+++`` line.
CELL = re.compile(r'\A\n\+\+\+ \{"tags": \["remove-cell"\]\}\n\n---\nmath:\n.*?\n---\n\n\+\+\+\n', re.S)


def macros(config: Path = ROOT / "_config.yml") -> dict[str, str]:
    """The MathJax macros of the website, ``{"P": "\\\\mathbb{P}", ...}``.

    Examples
    --------
    >>> macros()["P"]
    '\\\\mathbb{P}'
    """
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    found = data["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    if not all(isinstance(v, str) for v in found.values()):
        raise ValueError("only macros without arguments (a string each) are supported")
    return found


def macro_cell(table: dict[str, str]) -> str:
    """The Markdown cell (MyST text, ``+++`` markers included) that defines ``table`` for jupyterlab-myst.

    Examples
    --------
    >>> print(macro_cell({"P": "\\\\mathbb{P}"}), end="")
    <BLANKLINE>
    +++ {"tags": ["remove-cell"]}
    <BLANKLINE>
    ---
    math:
      '\\P': '\\mathbb{P}'
    ---
    <BLANKLINE>
    +++
    """
    backslash = "\\"
    lines = [f"  {_quoted(backslash + name)}: {_quoted(body)}" for name, body in table.items()]
    cell_tags = json.dumps({"tags": ["remove-cell"]})
    return "\n".join(["", f"+++ {cell_tags}", "", "---", "math:", *lines, "---", "", "+++", ""])


def _quoted(text: str) -> str:
    """A YAML single-quoted scalar (backslashes are literal in single quotes)."""
    return "'" + text.replace("'", "''") + "'"


def with_cell(text: str, cell: str) -> str:
    """The chapter ``text`` (a MyST notebook) with ``cell`` right after its header, replacing an old one."""
    header = HEADER.match(text)
    if header is None:
        raise ValueError("not a MyST Markdown notebook (no jupytext header)")
    rest = CELL.sub("", text[header.end() :], count=1)
    return text[: header.end()] + cell + rest


def chapters() -> list[Path]:
    """Every page of the book that is a notebook (a jupytext header)."""
    return sorted(
        p for p in (ROOT / "book").rglob("*.md") if p.read_text(encoding="utf-8").startswith("---\njupytext:")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report stale chapters; change nothing")
    args = parser.parse_args(argv)
    cell = macro_cell(macros())
    stale = []
    for path in chapters():
        text = path.read_text(encoding="utf-8")
        new = with_cell(text, cell)
        if new != text:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(new, encoding="utf-8")
    verb = "stale" if args.check else "updated"
    for path in stale:
        print(f"{verb}: {path}")
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
