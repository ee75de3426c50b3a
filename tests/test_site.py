"""Open the built website in headless Chromium, with no network, as a reader would.

The book is built with ``jupyter-book build . -W -n`` (the README's build command:
strict and nitpicky, so every reference must resolve; fast when the execution cache
and the Sphinx environment are warm), served from
``127.0.0.1``, and opened in Debian's Chromium. Every request to any other host is
blocked and recorded, so the checks below prove the site is self-contained: math is
typeset by the vendored MathJax, figures are shown, and moving a widget's slider
changes the figure through the vendored ipywidgets JavaScript.

Screenshots are saved under ``_build/screenshots/``.

Chromium is required where the environment variable ``CI`` is set (``.ci/run``
installs it); elsewhere the test is skipped when no Chromium is installed.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest
from test_chapters import toc_files

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import measure_pages  # noqa: E402

HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"
CHAPTER_1 = "book/local_randomizers.html"

CHROMIUM_FLAGS = measure_pages.CHROMIUM_FLAGS  # one list of flags for every browser test


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def site() -> Path:
    """Build the book (strict) and return the HTML folder."""
    jupyter_book = shutil.which("jupyter-book") or str(Path(sys.executable).with_name("jupyter-book"))
    result = subprocess.run(
        [jupyter_book, "build", ".", "-W", "-n"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if result.returncode != 0:
        pytest.fail(f"jupyter-book build . -W -n failed:\n{result.stdout[-6000:]}\n{result.stderr[-6000:]}")
    assert (HTML / CHAPTER_1).exists()
    return HTML


@pytest.fixture(scope="module")
def server(site: Path):
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (stdlib name)
        pass


@pytest.fixture(scope="module")
def browser():
    chromium = find_chromium()
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is not installed (.ci/run installs Debian's chromium)")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, server):
    """A page that may only talk to the local server; other requests are blocked and recorded."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.blocked = []
    page.errors = []

    def route(route):
        host = urlparse(route.request.url).hostname
        if host in ("127.0.0.1", None):
            route.continue_()
        else:
            page.blocked.append(route.request.url)
            route.abort()

    page.route("**/*", route)
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    yield page
    context.close()


BAD_MATH = "mjx-merror, mjx-mtext[style*='color: red']"


def wait_for_math(page) -> None:
    """Wait until MathJax has typeset the page (pages without math return at once)."""
    page.wait_for_function("() => !window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)")
    page.evaluate("() => window.MathJax && window.MathJax.startup ? window.MathJax.startup.promise : null")


SHOWN_PICTURES = (
    "Array.from(document.querySelectorAll('.jupyter-widgets img'))"
    ".filter(img => img.offsetParent !== null && img.naturalWidth > 0)"
)


def visible_images(page) -> list[str]:
    """The sources of the widget pictures that are currently displayed."""
    return page.evaluate(f"() => {SHOWN_PICTURES}.map(img => img.src)")


def wait_for_new_picture(page, before: list[str]) -> None:
    """Wait until the displayed widget pictures differ from ``before``."""
    page.wait_for_function(
        f"(before) => {{ const now = {SHOWN_PICTURES}.map(img => img.src);"
        " return now.length > 0 && JSON.stringify(now) !== JSON.stringify(before); }",
        arg=before,
        timeout=20_000,
    )


def wait_for_widget_picture(page, slider) -> None:
    """Scroll ``slider`` into view and wait until a widget picture is displayed."""
    slider.wait_for(timeout=60_000)
    slider.scroll_into_view_if_needed()
    page.wait_for_function(f"() => {SHOWN_PICTURES}.length > 0", timeout=30_000)


def test_chapter_1_renders_math_figures_and_live_widgets(page, server) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{server}/{CHAPTER_1}", wait_until="load")

    # Math: MathJax (served by the site) has typeset the page, without errors or unknown macros.
    page.wait_for_selector("mjx-container", timeout=30_000)
    wait_for_math(page)
    assert page.locator("mjx-container").count() > 20
    assert page.locator(BAD_MATH).count() == 0

    # Figures: the matplotlib outputs are displayed.
    figures = page.evaluate(
        """() => Array.from(document.querySelectorAll('.cell_output img'))
                 .filter(img => img.naturalWidth > 100).length"""
    )
    assert figures >= 4

    # Widgets: the controls were rendered by the vendored html-manager.
    slider = page.locator(".widget-slider").first
    wait_for_widget_picture(page, slider)
    before = visible_images(page)
    assert len(before) == 1, before
    widget_area = slider.locator("xpath=ancestor::div[contains(@class,'jupyter-widgets')][last()]")
    widget_area.screenshot(path=str(SHOTS / "chapter1-widget-before.png"))

    handle = page.locator(".widget-slider .noUi-handle").first
    handle.focus()
    page.keyboard.press("ArrowRight")
    wait_for_new_picture(page, before)
    after = visible_images(page)
    assert len(after) == 1, after
    assert after != before
    widget_area.screenshot(path=str(SHOTS / "chapter1-widget-after.png"))
    page.screenshot(path=str(SHOTS / "chapter1-page.png"), full_page=False)

    assert not page.blocked, f"the page tried to reach other hosts: {page.blocked}"
    assert not page.errors, f"JavaScript errors on the page: {page.errors}"


def book_pages() -> list[str]:
    return [entry + ".html" for entry in toc_files()]


@pytest.mark.parametrize("path", book_pages())
def test_every_page_is_self_contained_and_its_math_renders(page, server, path) -> None:
    """No request leaves the site, no JavaScript error, no MathJax error or undefined macro."""
    page.goto(f"{server}/{path}", wait_until="networkidle")
    wait_for_math(page)
    bad = page.locator(BAD_MATH)
    assert bad.count() == 0, f"{path}: math that did not render: {bad.first.inner_text()!r}"
    assert not page.blocked, f"{path} tried to reach other hosts: {page.blocked}"
    assert not page.errors, f"JavaScript errors on {path}: {page.errors}"
    if path == "book/preface.html":
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "preface.png"))


# --- Reading the site as a student would: legible figures, clean pages, narrow screens ---

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
#: A figure is legible when it is shown at no less than this fraction of its natural width
#: (the book's style, shufflelib.plotting, then keeps its smallest text at >= 10 px).
MIN_FIGURE_SCALE = 0.9
REPORT = ROOT / "_build" / "site-report"


def _open(browser, viewport: dict):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.missing = []
    page.errors = []
    page.route(
        "**/*",
        lambda route: (
            route.continue_() if urlparse(route.request.url).hostname in ("127.0.0.1", None) else route.abort()
        ),
    )
    page.on("response", lambda r: page.missing.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    return context, page


@pytest.fixture
def laptop(browser, server):
    context, page = _open(browser, LAPTOP)
    yield page
    context.close()


@pytest.fixture
def phone(browser, server):
    context, page = _open(browser, PHONE)
    yield page
    context.close()


#: Each picture on the page (figures, and the precomputed pictures of widgets, also those
#: not selected yet): its natural width and the width it is shown at. A hidden picture is
#: shown at most as wide as the page's output column when it appears.
FIGURE_SCALES = """() => {
  const outputs = Array.from(document.querySelectorAll('.cell_output'))
      .filter(e => e.offsetParent !== null).map(e => e.clientWidth);
  const article = document.querySelector('article.bd-article') || document.body;
  const column = outputs.length ? Math.max(...outputs) : article.clientWidth;
  return Array.from(document.querySelectorAll('article img'))
    .filter(img => img.naturalWidth > 100)
    .map(img => {
      const visible = img.offsetParent !== null;
      const shown = visible ? img.getBoundingClientRect().width : Math.min(img.naturalWidth, column);
      const figure = img.closest('figure');
      return {src: img.src.split('/').pop().slice(0, 60), natural: img.naturalWidth, shown: shown,
              scale: shown / img.naturalWidth, visible: visible,
              figure: figure && figure.id ? figure.id : null};
    });
}"""

#: Text a reader sees outside code and typeset math.
READER_TEXT = """() => {
  const skip = 'pre, code, script, style, mjx-container, .highlight, textarea, .MathJax';
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const parts = [];
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const parent = node.parentElement;
    if (!parent || parent.closest(skip)) continue;
    if (parent.closest('[hidden]')) continue;
    parts.push(node.textContent);
  }
  return parts.join(' ');
}"""

RAW_TEX = re.compile(
    r"\$[^$\s][^$]*\$|\\(?:varepsilon|epsilon|delta|frac|mathbb|mathrm|operatorname|sum|log|le|ge|in|cdot)\b"
)


def _bibtex_keys() -> list[str]:
    return re.findall(r"^@\w+\{([^,]+),", (ROOT / "book" / "references.bib").read_text(), re.M)


def _record(name: str, row: dict) -> None:
    REPORT.mkdir(parents=True, exist_ok=True)
    with open(REPORT / f"{name}.jsonl", "a") as handle:
        handle.write(json.dumps(row) + "\n")


@pytest.mark.parametrize("path", book_pages())
def test_every_page_reads_well_on_a_laptop(laptop, server, path) -> None:
    """At 1366 px: every figure at >= 90 % of its natural size, no misleading check output,
    no request answered by 404, no raw TeX or BibTeX key, no "nan" in a widget caption."""
    page = laptop
    page.goto(f"{server}/{path}", wait_until="networkidle")
    wait_for_math(page)
    if page.locator("script[type='application/vnd.jupyter.widget-state+json']").count():
        # the widgets' pictures are measured too, once the widget manager has drawn them
        page.wait_for_function("() => document.querySelector('.widget-vbox') !== null", timeout=30_000)

    figures = page.evaluate(FIGURE_SCALES)
    for figure in figures:
        _record("figure-scales", {"page": path, **figure})
    small = [f for f in figures if f["scale"] < MIN_FIGURE_SCALE]
    assert not small, f"{path}: figures shown below {MIN_FIGURE_SCALE:.0%} of their size: {small}"

    outputs = page.evaluate("() => Array.from(document.querySelectorAll('.cell_output')).map(e => e.innerText.trim())")
    assert "False" not in outputs, f"{path}: a cell shows a bare False"
    assert not [o for o in outputs if "Replace None" in o], f"{path}: a check cell asks for an answer"
    # a solution's own check_answer prints its verdict: a solution that drifted from its key fails here
    drifted = [o for o in outputs if "Not quite:" in o]
    assert not drifted, f"{path}: a solution's check says it is wrong: {drifted[:2]}"

    text = page.evaluate(READER_TEXT)
    raw = RAW_TEX.findall(text)
    assert not raw, f"{path}: raw TeX on the page: {raw[:5]}"
    keys = [key for key in _bibtex_keys() if re.search(rf"\b{re.escape(key)}\b", text)]
    assert not keys, f"{path}: raw BibTeX keys on the page: {keys}"

    captions = page.evaluate(
        "() => Array.from(document.querySelectorAll('.jupyter-widgets .widget-html-content')).map(e => e.textContent)"
    )
    bad = [c for c in captions if re.search(r"\bnan\b|\b(?:eps|ε)_\w", c)]
    assert not bad, f"{path}: widget captions with nan or raw subscripts: {bad[:3]}"

    assert page.evaluate("() => !!document.querySelector(\"link[rel~='icon']\")"), f"{path}: no favicon"
    assert not page.missing, f"{path}: requests that failed: {page.missing}"
    assert not page.errors, f"JavaScript errors on {path}: {page.errors}"


@pytest.mark.parametrize("path", book_pages())
def test_no_code_cell_scrolls_sideways_on_a_laptop(laptop, server, path) -> None:
    page = laptop
    page.goto(f"{server}/{path}", wait_until="load")
    wide = page.evaluate(
        """() => Array.from(document.querySelectorAll('.cell_input pre'))
             .filter(e => e.scrollWidth > e.clientWidth + 1)
             .map(e => e.innerText.split('\\n')[0].slice(0, 60))"""
    )
    assert not wide, f"{path}: {len(wide)} code cells scroll sideways, e.g. {wide[:3]}"


@pytest.mark.parametrize("path", book_pages())
def test_long_equations_scroll_instead_of_being_cut_off_on_a_phone(phone, server, path) -> None:
    page = phone
    page.goto(f"{server}/{path}", wait_until="networkidle")
    wait_for_math(page)
    cut = page.evaluate(
        """() => {
      const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
      return Array.from(document.querySelectorAll('mjx-container[display="true"]')).filter(m => {
        if (m.offsetParent === null) return false;
        for (let e = m; e && e !== document.body; e = e.parentElement) {
          if (e.scrollWidth > e.clientWidth + 1 && scrolls(e)) return false;
        }
        return m.getBoundingClientRect().right > window.innerWidth + 1;
      }).map(m => m.textContent.slice(0, 60));
    }"""
    )
    assert not cut, f"{path}: display equations cut off at {PHONE['width']} px: {cut[:3]}"


def test_course_kit_archives_are_on_the_site(laptop, server) -> None:
    """The instructors page links the student notebooks and the answer key, and both load."""
    import io
    import urllib.request
    import zipfile

    page = laptop
    page.goto(f"{server}/book/instructors.html", wait_until="load")
    links = page.evaluate("() => Array.from(document.querySelectorAll('a[href$=\".zip\"]')).map(a => a.href)")
    assert len(links) == 2, links
    chapters = {"local_randomizers.ipynb", "amplification.ipynb", "auditing.ipynb", "pure_dp.ipynb"}
    for link in links:
        with urllib.request.urlopen(link) as response:  # noqa: S310 (the local test server)
            archive = zipfile.ZipFile(io.BytesIO(response.read()))
        assert chapters <= set(archive.namelist())
        text = archive.read("amplification.ipynb").decode()
        assert "check_answer(" in text
        assert ("solution-start" in text) is ("answer-key" in link)
        if "student" in link:
            _student_checks_hold_keys_not_values(archive)


def _student_checks_hold_keys_not_values(archive) -> None:
    """Every check of the student notebooks holds a hashed key, which accepts the right answer."""
    import ast

    import nbformat

    from shufflelib.exercises import AnswerKey

    keys = {}
    for name in archive.namelist():
        if not name.endswith(".ipynb"):
            continue
        for cell in nbformat.reads(archive.read(name).decode(), as_version=4).cells:
            if cell.cell_type != "code" or "check_answer(" not in cell.source:
                continue
            for call in ast.walk(ast.parse(cell.source)):
                if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "check_answer":
                    expected = call.args[1]
                    assert isinstance(expected, ast.Constant) and expected.value.startswith("answer-key:"), (
                        f"{name}: a check holds its expected value: {cell.source!r}"
                    )
                    keys.setdefault(name, []).append(AnswerKey.parse(expected.value))
    assert len(keys) >= 8, sorted(keys)
    # Chapter 1's first exercise: the blanket weight of randomized response at eps0 = log 3 is 1/2.
    gamma = keys["local_randomizers.ipynb"][0]
    assert gamma.accepts(0.5) and gamma.accepts(0.50001) and not gamma.accepts(0.6)
