"""Give every exercise check of the chapters the book's one shape (and report the ones that differ).

The shape (``shufflelib/exercises.py``): the reader's answer in a visible cell of its own,

    ```{code-cell} ipython3
    gamma_answer = None  # your answer here
    ```

then the check in the next cell, removed from the website and holding only the check and
the code that computes its expected value:

    ```{code-cell} ipython3
    :tags: [remove-cell]

    check_answer(gamma_answer, BinaryRandomizedResponse(np.log(3)).blanket_weight)
    ```

The student notebooks (``book/_ext/course_kit.py``) keep only the check calls of such a
cell, each with the hashed key of its value. Checks inside a solution (``check_answer(0.5,
...)`` under the solution's own computation) are left as they are: students do not get them;
``--check`` still rejects any check, there or here, that compares a value with itself.

This script rewrites the two older shapes mechanically: a check cell tagged
``remove-input`` becomes ``remove-cell``, and a cell holding both the answer line and the
check is split after the answer line. ``--check`` only reports what differs (exit status 1).

Usage (from the repository root)::

    python tools/exercise_checks.py              # rewrite the chapters in place
    python tools/exercise_checks.py --check      # report only
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.M | re.S)
SOLUTION = re.compile(r"^```\{solution-start\}.*?^```\{solution-end\}\n```\n?", re.M | re.S)
ANSWER_LINE = re.compile(r"^\w+ = None  # your answer here$", re.M)
TAGS = re.compile(r"^:tags: \[(.*)\]\n\n?", re.M)


def _solution_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in SOLUTION.finditer(text)]


def _checks(body: str) -> bool:
    return "check_answer(" in body and "import" not in body


def check_cells(text: str) -> list[re.Match]:
    """The code cells outside solutions that call ``check_answer``."""
    spans = _solution_spans(text)
    return [
        m for m in CELL.finditer(text) if _checks(m.group(1)) and not any(a <= m.start() < b for a, b in spans)
    ]


def _tags(body: str) -> list[str]:
    match = TAGS.match(body)
    return [t.strip() for t in match.group(1).split(",")] if match else []


def problems(text: str) -> list[str]:
    """How the chapter's check cells differ from the shape (empty: none)."""
    out = []
    for m in check_cells(text):
        body = m.group(1)
        first = body.strip().splitlines()[0][:60]
        if ANSWER_LINE.search(body):
            out.append(f"answer line and check in one cell: {first!r}")
        if "remove-cell" not in _tags(body):
            out.append(f"check cell not tagged remove-cell: {first!r}")
        code = TAGS.sub("", body, count=1)
        try:
            tree = ast.parse(code)
        except SyntaxError:
            out.append(f"check cell is not Python: {first!r}")
            continue
        nested = [
            node
            for stmt in tree.body
            for node in ast.walk(stmt)
            if isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "check_answer"
            and not (isinstance(stmt, ast.Expr) and stmt.value is node)
        ]
        if nested:
            out.append(f"check_answer inside other code (a loop, an assignment): {first!r}")
    return out


def tautologies(text: str) -> list[str]:
    """The ``check_answer(x, x)`` calls of every code cell, solutions included: they cannot fail."""
    out = []
    for m in CELL.finditer(text):
        try:
            tree = ast.parse(TAGS.sub("", m.group(1), count=1))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "check_answer"
                and len(node.args) >= 2
                and ast.dump(node.args[0]) == ast.dump(node.args[1])
            ):
                out.append(f"check_answer compares a value with itself: {ast.unparse(node.args[0])[:60]!r}")
    return out


def _retag(body: str) -> str:
    tags = [t for t in _tags(body) if t not in ("remove-input", "remove-cell")] + ["remove-cell"]
    rest = TAGS.sub("", body, count=1) if TAGS.match(body) else body
    return f":tags: [{', '.join(tags)}]\n\n{rest.lstrip(chr(10))}"


def convert(text: str) -> str:
    """The chapter with its check cells in the book's shape (see the module's docstring)."""
    pieces, last = [], 0
    for m in check_cells(text):
        body = m.group(1)
        header = text[m.start() : m.start(1)]
        answer = list(ANSWER_LINE.finditer(body))
        if answer and not TAGS.match(body):
            cut = answer[-1].end() + 1
            visible, check = body[:cut], body[cut:]
            replacement = f"{header}{visible}```\n\n{header}{_retag(check)}```"
        else:
            replacement = f"{header}{_retag(body)}```"
        pieces += [text[last : m.start()], replacement]
        last = m.end()
    return "".join(pieces) + text[last:]


def chapter_files() -> list[Path]:
    return sorted(p for p in (ROOT / "book").glob("*.md") if "check_answer(" in p.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report only; exit status 1 if a check differs")
    args = parser.parse_args(argv)
    status = 0
    for path in chapter_files():
        text = path.read_text(encoding="utf-8")
        if not args.check:
            new = convert(text)
            if new != text:
                path.write_text(new, encoding="utf-8")
                print(f"rewrote the checks of {path.relative_to(ROOT)}")
            text = new
        for problem in problems(text) + tautologies(text):
            print(f"{path.relative_to(ROOT)}: {problem}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
