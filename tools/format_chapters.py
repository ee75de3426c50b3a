"""Format the code cells of the book's chapters with ``ruff format`` (88 columns).

The chapters are MyST Markdown notebooks; this script formats the Python code of each
```` ```{code-cell} ```` block in place and keeps the cell's options (``:tags: [...]`` lines
or a ``---`` YAML header) as they are. Cells with IPython magics (lines starting with
``%`` or ``!``) are left alone. ``ruff format`` does not split long strings or comments,
so ``--check`` also lists every code line longer than :data:`LINE_LENGTH` columns, which
then needs a hand edit.

Usage (from the repository root)::

    python tools/format_chapters.py            # format every chapter in place
    python tools/format_chapters.py --check    # report only; exit status 1 if anything to do
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINE_LENGTH = 88
CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.M | re.S)


def split_options(body: str) -> tuple[str, str]:
    """Split a cell's body into its options block (kept verbatim) and its code."""
    if body.startswith("---\n"):
        end = body.index("\n---\n", 3) + len("\n---\n")
        return body[:end], body[end:]
    lines = body.split("\n")
    k = 0
    while k < len(lines) and lines[k].startswith(":"):
        k += 1
    if k and k < len(lines) and lines[k] == "":
        k += 1
    return "\n".join(lines[:k]) + ("\n" if k else ""), "\n".join(lines[k:])


def format_code(code: str) -> str:
    """``ruff format`` one cell's code (unchanged if it holds magics or does not parse)."""
    if any(line.lstrip().startswith(("%", "!")) for line in code.split("\n")):
        return code
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    result = subprocess.run(
        [ruff, "format", "--line-length", str(LINE_LENGTH), "--stdin-filename", "cell.py", "-"],
        input=code,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        return code
    formatted = result.stdout
    # A trailing ";" hides the cell's value in a notebook; ruff formats the code as a .py file
    # and would drop it.
    if code.rstrip().endswith(";") and not formatted.rstrip().endswith(";"):
        formatted = formatted.rstrip("\n") + ";\n"
    return formatted


def chapter_cells(text: str) -> list[tuple[int, str]]:
    """(line number of the cell's first code line, code) for every code cell."""
    cells = []
    for match in CELL.finditer(text):
        options, code = split_options(match.group(1))
        first = text.count("\n", 0, match.start(1)) + options.count("\n") + 1
        cells.append((first, code))
    return cells


def long_lines(path: Path) -> list[tuple[int, int]]:
    """(line number, length) of every chapter code line longer than LINE_LENGTH."""
    found = []
    for first, code in chapter_cells(path.read_text()):
        for offset, line in enumerate(code.split("\n")):
            if len(line) > LINE_LENGTH:
                found.append((first + offset, len(line)))
    return found


def format_chapter(text: str) -> str:
    def replace(match: re.Match) -> str:
        options, code = split_options(match.group(1))
        formatted = format_code(code)
        if not formatted.endswith("\n"):
            formatted += "\n"
        return match.group(0)[: match.start(1) - match.start(0)] + options + formatted + "```"

    return CELL.sub(replace, text)


def chapters() -> list[Path]:
    return sorted((ROOT / "book").glob("*.md"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="report only, change nothing")
    args = parser.parse_args(argv)
    todo = 0
    for path in chapters():
        text = path.read_text()
        formatted = format_chapter(text)
        if formatted != text:
            todo += 1
            if args.check:
                print(f"{path.relative_to(ROOT)}: cells would be reformatted")
            else:
                path.write_text(formatted)
        for line, length in long_lines(path):
            todo += 1
            print(f"{path.relative_to(ROOT)}:{line}: {length} columns (> {LINE_LENGTH})")
    return 1 if todo and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
