"""The book's structure: exercises and their solutions, labels, the table of contents.

These checks read the MyST sources; the strict nitpicky build (tests/test_site.py)
checks that every reference resolves.
"""

from __future__ import annotations

import re
import sys
from collections import Counter

import pytest
from test_chapters import ROOT, chapter_path, toc_files

#: Pages that are not chapters (no exercises required).
NOT_CHAPTERS = {
    "book/preface",
    "book/bibliography",
    "book/api",
    "book/notation",
    "book/glossary",
    "book/calculator",
    "book/instructors",
    "book/errata",
}

DIRECTIVE = re.compile(r"^(`{3,}|:{3,})\{(?P<name>[a-z:-]+)\}\s*(?P<arg>.*)$")
OPTION_LABEL = re.compile(r"^:label:\s*(?P<label>\S+)\s*$")
FIGURE_NAME = re.compile(r"^\s+name:\s*(?P<label>fig-\S+)\s*$")
EQUATION_LABEL = re.compile(r"\$\$\s*\((?P<label>[^)\s]+)\)\s*$")
TARGET = re.compile(r"^\((?P<label>[A-Za-z0-9_-]+)\)=\s*$")


def read(entry: str) -> list[str]:
    return chapter_path(entry).read_text().splitlines()


def exercises_and_solutions(lines: list[str]) -> tuple[list[str], list[str]]:
    exercises, solutions = [], []
    for index, line in enumerate(lines):
        match = DIRECTIVE.match(line.strip())
        if not match:
            continue
        if match["name"] == "exercise":
            label = next(
                (m["label"] for m in map(OPTION_LABEL.match, lines[index + 1 : index + 6]) if m),
                None,
            )
            exercises.append(label or f"<unlabelled exercise at line {index + 1}>")
        elif match["name"] in ("solution-start", "solution"):
            solutions.append(match["arg"].strip())
    return exercises, solutions


def labels(lines: list[str]) -> list[str]:
    found = []
    for line in lines:
        for pattern in (OPTION_LABEL, FIGURE_NAME, TARGET):
            match = pattern.match(line.strip() if pattern is not FIGURE_NAME else line)
            if match:
                found.append(match["label"])
        match = EQUATION_LABEL.search(line)
        if match:
            found.append(match["label"])
    return found


#: A chapter's appendix page ("Reproduction details", ``book/<chapter>_details``) is not a
#: chapter: its checks belong to the chapter, which keeps the exercises.
CHAPTERS = [
    entry
    for entry in toc_files()
    if entry not in NOT_CHAPTERS and not entry.startswith("book/api/") and not entry.endswith("_details")
]


@pytest.mark.parametrize("entry", CHAPTERS)
def test_every_exercise_has_one_solution(entry: str) -> None:
    exercises, solutions = exercises_and_solutions(read(entry))
    assert len(exercises) >= 5, f"{entry} has {len(exercises)} exercises; every chapter needs at least 5"
    unlabelled = [e for e in exercises if e.startswith("<")]
    assert not unlabelled, f"{entry}: exercises need a :label: so a solution can refer to them: {unlabelled}"
    counts = Counter(solutions)
    missing = [e for e in exercises if counts[e] == 0]
    doubled = [e for e in exercises if counts[e] > 1]
    orphans = [s for s in solutions if s not in exercises]
    assert not missing, f"{entry}: exercises without a solution: {missing}"
    assert not doubled, f"{entry}: exercises with more than one solution: {doubled}"
    assert not orphans, f"{entry}: solutions for unknown exercises: {orphans}"


def test_solutions_are_hidden() -> None:
    for entry in CHAPTERS:
        lines = read(entry)
        for index, line in enumerate(lines):
            match = DIRECTIVE.match(line.strip())
            if match and match["name"] in ("solution-start", "solution"):
                options = "\n".join(lines[index + 1 : index + 4])
                assert ":class: dropdown" in options, f"{entry}, line {index + 1}: solution is not hidden"


def test_labels_are_unique_across_the_book() -> None:
    owner: dict[str, str] = {}
    clashes = []
    for entry in toc_files():
        for label in labels(read(entry)):
            if label in owner and owner[label] != entry:
                clashes.append(f"{label} ({owner[label]} and {entry})")
            owner.setdefault(label, entry)
    assert not clashes, "labels defined in two pages: " + ", ".join(clashes)


def test_every_markdown_page_in_book_is_in_the_toc() -> None:
    listed = {chapter_path(entry) for entry in toc_files()}
    pages = set((ROOT / "book").glob("*.md"))
    assert pages <= listed, f"pages missing from _toc.yml: {sorted(str(p) for p in pages - listed)}"


def test_every_chapter_has_a_jupytext_header() -> None:
    for entry in toc_files():
        text = chapter_path(entry).read_text()
        if "{code-cell}" in text:
            assert text.startswith("---\njupytext:"), f"{entry} has code cells but no jupytext header"


def test_label_parser_sees_labels() -> None:
    sample = ["```{prf:theorem} T", ":label: thm-x", "$$ a $$ (eq-y)", "(chap-z)=", "    name: fig-w"]
    assert sorted(labels(sample)) == ["chap-z", "eq-y", "fig-w", "thm-x"]
    assert exercises_and_solutions(["```{exercise} E", ":label: ex-a", "```{solution-start} ex-a"]) == (
        ["ex-a"],
        ["ex-a"],
    )


def test_no_citation_in_a_heading() -> None:
    """A citation in a heading breaks the PDF (a hyperlink in LaTeX's moving section argument)."""
    import re

    found = [
        f"{path.name}:{number}"
        for path in (ROOT / "book").glob("*.md")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.match(r"#+ .*\{cite", line)
    ]
    assert not found, f"citations in headings: {found}"


def test_every_notebook_chapter_starts_with_the_macros_of_the_config() -> None:
    """JupyterLab gets the website's math macros from each chapter's first cell (tools/chapter_macros.py)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import chapter_macros

    table = chapter_macros.macros()
    assert table, "_config.yml defines no MathJax macros"
    cell = chapter_macros.macro_cell(table)
    notebooks = chapter_macros.chapters()
    assert {"local_randomizers", "amplification", "pure_dp"} <= {path.stem for path in notebooks}
    for path in notebooks:
        text = path.read_text()
        header = chapter_macros.HEADER.match(text)
        assert header and text[header.end() :].startswith(cell), (
            f"{path.name}: run python tools/chapter_macros.py (the macro cell is missing or stale)"
        )
        # a second (stale) cell after the first would not be read: there is one
        assert text.count('+++ {"tags": ["remove-cell"]}\n\n---\nmath:') == 1


def test_the_pdf_preamble_defines_the_website_macros() -> None:
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"]
    mathjax = config["mathjax3_config"]["tex"]["macros"]
    preamble = re.findall(r"\\(?:re)?newcommand\{\\(\w+)\}\{(.*)\}\s*$", config["latex_elements"]["preamble"], re.M)
    assert dict(preamble) == mathjax


def test_the_pdf_edition_resolves_every_reference() -> None:
    """A teacher's PDF shows no "??": the last LaTeX pass of the PDF edition found every label
    (the exercises' included, see ``book/_ext/exercise_latex.py``). Needs the PDF build (CI)."""
    log = ROOT / "_build" / "latex" / "shuffle-dp-book.log"
    if not log.exists():
        pytest.skip("the PDF edition is not built (jupyter-book build . --builder pdflatex)")
    text = log.read_text(errors="replace")
    assert "Output written on shuffle-dp-book.pdf" in text
    # TeX wraps its log at 79 columns, inside names too: read it unwrapped.
    missing = sorted(set(re.findall(r"(?:Hyper r|R)eference `([^']+)' on page", text.replace("\n", ""))))
    assert not missing, missing
    assert "There were undefined references" not in text
