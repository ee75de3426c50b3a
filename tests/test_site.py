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
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"
CHAPTER_1 = "book/local_randomizers.html"

CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


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


CALCULATOR = "book/calculator.html"


def first_number(text: str) -> float:
    return float(text.split()[0])


def test_calculator_answers_any_input_with_valid_bounds(page, server) -> None:
    """The calculator (no kernel, no network) at random inputs, against the library.

    For each bound of the page, at 40 random inputs (n log-uniform in [2, 1e9], ε₀ in
    [0.01, 10], δ in [1e-15, 0.5]): its ε is never below the library's and within 2 % of it;
    its δ is never below the library's; its largest ε₀ reaches (ε, δ) per the library.
    """
    import math
    import random

    from shufflelib._roots import ATOL
    from shufflelib.bounds import BOUNDS, get_bound

    web_bounds = {"stronger-clones": ("krr", 2), "clones": ("generic", None),
                  "blanket-bennett": ("generic", None), "blanket-hoeffding": ("generic", None)}  # fmt: skip
    page.goto(f"{server}/{CALCULATOR}", wait_until="load")
    page.wait_for_selector("#calc-eps", timeout=30_000)
    options = page.eval_on_selector_all("#calc-bound option", "els => els.map(e => e.value)")
    assert options == list(web_bounds)
    # The calculator comes before the --help output, which is collapsed.
    assert page.evaluate(
        "() => document.querySelector('#calc-eps').getBoundingClientRect().top"
        " < document.querySelector('.tag_hide-output').getBoundingClientRect().top"
    )

    rng = random.Random(11)
    checked = 0
    for name, (mechanism, k) in web_bounds.items():
        bound = get_bound(name, mechanism, k)
        page.select_option("#calc-bound", name)
        assert BOUNDS[name].title in page.inner_text("#calc-source")  # the theorem, from the registry
        for _ in range(40):
            n = int(math.exp(rng.uniform(math.log(2), math.log(1e9))))
            eps0 = math.exp(rng.uniform(math.log(0.01), math.log(10)))
            delta = math.exp(rng.uniform(math.log(1e-15), math.log(0.5)))
            target = eps0 * rng.uniform(0.02, 0.9)
            # Set the four inputs, then one input event (as typing the last one would).
            page.evaluate(
                """([n, eps0, delta, target]) => {
                    for (const [id, v] of [["calc-n", n], ["calc-eps0", eps0], ["calc-delta", delta]])
                        document.getElementById(id).value = String(v);
                    const last = document.getElementById("calc-target");
                    last.value = String(target);
                    last.dispatchEvent(new Event("input"));
                }""",
                [n, eps0, delta, target],
            )
            where = f"{name} at n={n}, eps0={eps0!r}, delta={delta!r}, target={target!r}"
            assert page.inner_text("#calc-message") == "", where
            shown = first_number(page.inner_text("#calc-eps"))
            exact = bound.epsilon(n, eps0, delta)
            # Within 2 %, or within the library's own absolute tolerance on ε (shufflelib._roots.ATOL,
            # 1e-12; it sets the gap where the library's ε is below ~1e-10).
            assert exact <= shown <= 1.02 * exact + 2 * ATOL, f"{where}: ε {shown}, library {exact}"
            delta_shown = first_number(page.inner_text("#calc-delta-out"))
            assert bound.delta(n, eps0, target) <= delta_shown, f"{where}: δ {delta_shown}"
            eps0_shown = first_number(page.inner_text("#calc-eps0-out"))
            assert bound.epsilon(n, eps0_shown, delta) <= target, f"{where}: largest ε₀ {eps0_shown}"
            checked += 1
    assert checked == 40 * len(web_bounds)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.select_option("#calc-bound", "clones")
    for field, value in [("#calc-n", "100000"), ("#calc-eps0", "1"), ("#calc-delta", "1e-6"), ("#calc-target", "0.1")]:
        page.fill(field, value)
    page.locator("#shuffle-calculator").screenshot(path=str(SHOTS / "calculator.png"))

    # Bad input: a clear message, never NaN.
    for field, value, message in [("#calc-n", "1", "n must be"), ("#calc-delta", "2", "δ must be"),
                                  ("#calc-eps0", "abc", "ε₀ must be")]:  # fmt: skip
        page.fill("#calc-n", "1000")
        page.fill("#calc-eps0", "1")
        page.fill("#calc-delta", "1e-6")
        page.fill(field, value)
        assert message in page.inner_text("#calc-message")
        assert "NaN" not in page.inner_text("#shuffle-calculator")
    page.locator("#shuffle-calculator").screenshot(path=str(SHOTS / "calculator-bad-input.png"))
    assert not page.blocked, f"the calculator tried to reach other hosts: {page.blocked}"
    assert not page.errors, f"JavaScript errors on the calculator page: {page.errors}"
