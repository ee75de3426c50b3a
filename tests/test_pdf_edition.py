"""The PDF edition reads as a book, and each chapter has a problem sheet without solutions.

The PDFs are built by the README's "PDF edition" command (``.ci/run`` runs it before the
tests): ``_build/latex/shuffle-dp-book.pdf`` and ``_build/latex/problems-<chapter>.pdf``.
The tests read their text (``pdftotext``), their page counts (``pdfinfo``), their pictures
(``pdfimages``) and the LaTeX logs. Without the PDFs the tests are skipped, except under CI.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
LATEX = ROOT / "_build" / "latex"
BOOK = LATEX / "shuffle-dp-book.pdf"
MAX_PAGES = 350
#: A line may pass the margin by at most this much (LaTeX's "Overfull \hbox (x pt too wide)").
MAX_OVERFULL_PT = 5.0


def _parts() -> list[dict]:
    return yaml.safe_load((ROOT / "_toc.yml").read_text())["parts"]


def chapters() -> list[tuple[int, str]]:
    """(number, docname) of every numbered chapter, numbered across the parts as on the site."""
    files = [entry["file"] for part in _parts() if part.get("numbered") for entry in part["chapters"]]
    return list(enumerate(files, start=1))


def need(path: Path) -> Path:
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path.relative_to(ROOT)} was not built (README, 'PDF edition')")
        pytest.skip(f"{path.relative_to(ROOT)} not built (README, 'PDF edition')")
    for tool in ("pdftotext", "pdfinfo", "pdfimages"):
        if shutil.which(tool) is None:
            if os.environ.get("CI"):
                pytest.fail(f"{tool} (poppler-utils) is not installed: .ci/run installs it")
            pytest.skip(f"{tool} (poppler-utils) is not installed")
    return path


@cache
def text(path: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout


def pages(path: Path) -> int:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


def test_the_book_has_front_matter_parts_and_the_sites_chapter_numbers() -> None:
    book = text(need(BOOK))
    assert pages(BOOK) <= MAX_PAGES, f"{pages(BOOK)} pages"
    front = " ".join(book[:20_000].split())
    assert "The Shuffle Model of Differential Privacy" in front
    assert "Contents" in front and "Preface" in front
    for part in _parts():
        assert re.search(rf"Part\s+[IVX]+\s+{re.escape(part['caption'])}", book), f"part {part['caption']!r} missing"
    for number, docname in chapters():
        assert re.search(rf"^\s*Chapter {number}\s*$", book, re.M), f"no Chapter {number} ({docname})"
    # Theorem 2.1 sits in Chapter 2, after Chapter 2's heading and before Chapter 3's
    start, end = re.search(r"^\s*Chapter 2\s*$", book, re.M).end(), re.search(r"^\s*Chapter 3\s*$", book, re.M).start()
    assert "Theorem 2.1" in book[start:end]
    assert "Theorem 2.1" not in book[: start - 200].split("Contents", 1)[-1][5_000:]


def test_the_book_prints_no_widget_repr_and_no_api_reference() -> None:
    book = text(need(BOOK))
    assert "VBox(" not in book and "SelectionSlider(" not in book
    assert "ipywidgets" not in book.replace("ipywidgets JavaScript", "")
    assert "API reference" not in book.split("Index")[0] or "shufflelib.bounds.base" not in book


def test_solutions_follow_the_exercises_at_the_end_of_each_chapter() -> None:
    book = text(need(BOOK))
    bodies = re.split(r"^\s*Chapter \d+\s*$", book, flags=re.M)[1 : len(chapters()) + 1]
    for (number, docname), body in zip(chapters(), bodies, strict=True):
        if "Solution to" not in body:
            continue
        heading = list(re.finditer(r"^\s*\d+\.\d+\s+Solutions\s*$", body, re.M))
        solutions = heading[-1].start() if heading else -1
        assert solutions > 0, f"Chapter {number} ({docname}): no Solutions section"
        assert body.find("Solution to") > solutions, f"Chapter {number}: a solution before the Solutions section"


def test_bibliography_and_index_work() -> None:
    book = text(need(BOOK))
    entries = re.findall(r"^\s*\[([^\]]+, \d{4}[a-z]?)\] ", book, re.M)
    assert len(entries) >= 20 and any(e.startswith("Erlingsson") for e in entries), entries[:5]
    assert re.search(r"^\s*Index\s*$", book, re.M | re.I), "no index"
    assert "[?]" not in book and "??" not in book, "undefined citations or references"


def test_the_latex_log_is_clean() -> None:
    need(BOOK)
    log = (LATEX / "shuffle-dp-book.log").read_text(errors="replace")
    missing = sorted(set(re.findall(r"Missing character: There is no (.+?) in font", log)))
    assert not missing, f"missing glyphs: {missing[:10]}"
    overfull = [float(x) for x in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)]
    wide = [x for x in overfull if x > MAX_OVERFULL_PT]
    assert not wide, f"{len(wide)} lines past the margin by more than {MAX_OVERFULL_PT} pt (widest {max(wide):.0f} pt)"
    assert "There were undefined references" not in log


def test_figures_are_vector_or_300_dpi() -> None:
    need(BOOK)
    listing = subprocess.run(["pdfimages", "-list", str(BOOK)], capture_output=True, text=True, check=True).stdout
    rows = [line.split() for line in listing.splitlines()[2:] if line.strip()]
    low = [row for row in rows if row[2] == "image" and min(int(row[12]), int(row[13])) < 300]
    assert not low, f"{len(low)} raster pictures below 300 ppi"


@pytest.mark.parametrize("number, docname", chapters())
def test_each_chapter_has_a_problem_sheet_without_solutions(number, docname) -> None:
    sheet = need(LATEX / f"problems-{Path(docname).name}.pdf")
    content = text(sheet)
    assert f"Chapter {number}" in content
    exercises = re.findall(r"Exercise \d+\.\d+", content)
    assert exercises, "no exercise on the sheet"
    assert "Solution to" not in content and "solution" not in content.lower().replace("the solutions are in", "")
    assert "??" not in content
    log = (LATEX / f"problems-{Path(docname).name}.log").read_text(errors="replace")
    assert "Missing character" not in log
