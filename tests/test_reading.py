"""A chapter is read, not scrolled: issue 24's reading targets, measured in Chromium.

Every numbered chapter of ``_toc.yml`` is opened in the built site at 1366 px and at 390 px
(``tools/measure_pages.py``, which the chapters' authors run on their own builds:
``python tools/measure_pages.py _build/html book/<chapter>.html --details``) and must meet:

* at most 25,000 px tall; visible code at most 30 % of the height; no visible code cell
  over 25 lines;
* no element wider than its column at 1366 px (no output scrolling sideways or cut, no
  clipped formula); at 390 px nothing cut or sticking out, and the page never scrolls
  sideways (a long equation or a code cell may scroll inside its own box);
* no raw ``nan``/``True``/``<… object at …>`` in tables and outputs, no timings in the text,
  every command line on one line.

The measurements are written to ``_build/site-report/reading.json``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from test_chapters import toc_files
from test_site import browser, server, site  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import measure_pages  # noqa: E402

CHAPTERS = measure_pages.chapters()
REPORT = ROOT / "_build" / "site-report" / "reading.json"
_MEASURED: dict[str, dict] = {}


@pytest.fixture
def measured(browser, server):  # noqa: F811 (fixtures)
    """The measurement of a page, taken once per test session."""

    def get(path: str) -> dict:
        if path not in _MEASURED:
            _MEASURED[path] = measure_pages.measure(browser, server, path)
            REPORT.parent.mkdir(parents=True, exist_ok=True)
            REPORT.write_text(json.dumps(list(_MEASURED.values()), indent=1, ensure_ascii=False))
        return _MEASURED[path]

    return get


def test_every_numbered_part_has_chapters() -> None:
    assert len(CHAPTERS) >= 8, CHAPTERS


@pytest.mark.parametrize("path", CHAPTERS)
def test_chapter_is_short_enough_to_read(measured, path) -> None:
    m = measured(path)
    assert m["height"] <= measure_pages.MAX_HEIGHT, f"{path}: {m['height']:,} px tall ({m['screens']:.0f} screens)"


@pytest.mark.parametrize("path", CHAPTERS)
def test_chapter_is_mostly_prose_not_code(measured, path) -> None:
    m = measured(path)
    assert m["code_share"] <= measure_pages.MAX_CODE_SHARE, f"{path}: visible code is {m['code_share']:.0%} of the page"
    long = [c for c in m["longest_cells"] if c["lines"] > measure_pages.MAX_CELL_LINES]
    assert not long, f"{path}: visible code cells over {measure_pages.MAX_CELL_LINES} lines: " + "; ".join(
        f"{c['lines']} lines: {c['text'][:50]!r}" for c in long
    )


@pytest.mark.parametrize("path", CHAPTERS)
def test_chapter_fits_its_column_on_a_laptop_and_a_phone(measured, path) -> None:
    m = measured(path)
    wide = [f"{w['what']} {w['kind']} by {w['by']} px: {w['text'][:50]!r}" for w in m["wide_1366"]]
    assert not wide, f"{path}: {len(wide)} elements wider than their column at 1366 px, e.g. {wide[:4]}"
    assert not m["sideways_1366"], f"{path} scrolls sideways at 1366 px: {m['beyond_1366']}"
    cut = [f"{w['what']} {w['kind']} by {w['by']} px: {w['text'][:50]!r}" for w in m["wide_390"]]
    assert not cut, f"{path}: {len(cut)} elements cut or sticking out at 390 px, e.g. {cut[:4]}"
    assert not m["sideways_390"], f"{path} scrolls sideways at 390 px: {m['beyond_390']}"


@pytest.mark.parametrize("path", CHAPTERS)
def test_chapter_shows_nothing_raw(measured, path) -> None:
    m = measured(path)
    assert not m["raw"], f"{path}: raw reprs in tables or outputs: {m['raw'][:4]}"
    assert not m["timings"], f"{path}: timings in the text (speed lives in benchmarks/): {m['timings'][:4]}"
    assert not m["commands"], f"{path}: command lines shown over several lines: {m['commands'][:3]}"


def test_measure_pages_finds_what_it_should(browser) -> None:  # noqa: F811 (fixture)
    """The measurement itself, on a small page made for it: each defect is found, a clean page passes."""
    import tempfile

    # A folded cell (a hide-input cell: a closed <details>) shows only its summary: not visible code.
    folded = (
        "<details><summary>Show code cell source</summary><div class='cell_input'><pre>"
        + "\n".join(f"z = {i}" for i in range(40))
        + "</pre></div></details>"
    )
    clean = f"<article class='bd-article' style='max-width:600px'><p>Prose.</p>{folded}</article>"
    bad = (
        "<article class='bd-article' style='max-width:600px'>"
        "<div class='cell_input'><pre>" + "\n".join(f"x = {i}" for i in range(30)) + "</pre></div>"
        "<div class='cell_output'><pre style='overflow-x:auto'>" + "y" * 400 + "</pre>"
        "<table><tr><td>nan</td><td>True</td></tr></table>"
        "<pre>$ python -m shufflelib epsilon --n 10\n      --eps0 1</pre></div>"
        "<p>It took 0.4 s (0.4 s).</p>"
        "<div style='width:2000px'>wide</div></article>"
    )
    with tempfile.TemporaryDirectory() as folder:
        for name, body in (("clean.html", clean), ("bad.html", bad)):
            Path(folder, name).write_text(f"<!doctype html><html><body>{body}</body></html>")
        with measure_pages.serve(Path(folder)) as base:
            good = measure_pages.measure(browser, base, "clean.html")
            worst = measure_pages.measure(browser, base, "bad.html")
    assert measure_pages.failures(good) == [], good
    assert worst["longest_cell"] == 30
    assert worst["code_share"] > 0.3
    assert {w["kind"] for w in worst["wide_1366"]} == {"scrolls", "sticks out"}
    assert worst["sideways_390"] and worst["sideways_1366"]
    assert len(worst["raw"]) == 2 and len(worst["timings"]) == 2 and len(worst["commands"]) == 1


# --- The API reference (issue 24, item 5) ---

MAX_API_HEIGHT = 20_000  # px at 1366 px
API_PAGES = [p + ".html" for p in toc_files() if p.startswith("book/api")]

API_FACTS = """() => {
  const article = document.querySelector('article.bd-article') || document.body;
  const objects = Array.from(article.querySelectorAll('dl.py > dt[id]')).map(dt => dt.id);
  const signatures = Array.from(article.querySelectorAll('dl.py > dt')).map(dt => dt.textContent);
  const tables = article.querySelectorAll('table.autosummary').length;
  return {height: document.documentElement.scrollHeight, objects, signatures, tables};
}"""


@pytest.fixture(scope="module")
def api_facts(browser, server):  # noqa: F811 (fixtures)
    context, page = measure_pages.new_page(browser, measure_pages.LAPTOP)
    facts = {}
    for path in API_PAGES:
        measure_pages.open_and_settle(page, f"{server}/{path}")
        facts[path] = page.evaluate(API_FACTS)
    context.close()
    return facts


def test_api_pages_are_short_and_open_with_a_summary_table(api_facts) -> None:
    assert len(API_PAGES) > 15
    tall = {path: f["height"] for path, f in api_facts.items() if f["height"] > MAX_API_HEIGHT}
    assert not tall, f"API pages taller than {MAX_API_HEIGHT:,} px: {tall}"
    untabled = [path for path, f in api_facts.items() if f["objects"] and not f["tables"]]
    assert not untabled, f"API pages documenting objects without a summary table: {untabled}"


def test_api_documents_every_object_once_without_reprs(api_facts) -> None:
    seen: dict[str, str] = {}
    twice = []
    for path, facts in api_facts.items():
        for name in facts["objects"]:
            if name in seen:
                twice.append(f"{name} ({seen[name]} and {path})")
            seen[name] = path
    assert not twice, f"objects documented twice: {twice[:5]}"
    assert len(seen) > 300, len(seen)
    repr_ = re.compile(r"<(?:function|class|bound method|lambda|module)\b|<[\w.]+ object at 0x")
    reprs = [s[:100] for f in api_facts.values() for s in f["signatures"] if repr_.search(s)]
    assert not reprs, f"signatures with Python reprs: {reprs[:5]}"


@pytest.mark.parametrize("path", [p + ".html" for p in toc_files()])
def test_no_page_scrolls_sideways_on_a_phone(browser, server, path) -> None:  # noqa: F811 (fixtures)
    """At 390 px no page of the book scrolls sideways (a long equation or code block may scroll in its box)."""
    context, page = measure_pages.new_page(browser, measure_pages.PHONE)
    try:
        measure_pages.open_and_settle(page, f"{server}/{path}")
        width = page.evaluate("() => document.documentElement.scrollWidth")
    finally:
        context.close()
    assert width <= measure_pages.PHONE["width"] + 1, f"{path} is {width} px wide at {measure_pages.PHONE['width']} px"
