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
import os
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


def visible_images(page) -> list[str]:
    """The sources of the widget pictures that are currently displayed."""
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('.jupyter-widgets img'))
                 .filter(img => img.offsetParent !== null && img.naturalWidth > 0)
                 .map(img => img.src)"""
    )


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
    slider.wait_for(timeout=30_000)
    slider.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('.jupyter-widgets img'))"
        ".some(img => img.offsetParent !== null && img.naturalWidth > 0)",
        timeout=30_000,
    )
    before = visible_images(page)
    assert len(before) == 1, before
    widget_area = slider.locator("xpath=ancestor::div[contains(@class,'jupyter-widgets')][last()]")
    widget_area.screenshot(path=str(SHOTS / "chapter1-widget-before.png"))

    handle = page.locator(".widget-slider .noUi-handle").first
    handle.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "(before) => { const now = Array.from(document.querySelectorAll('.jupyter-widgets img'))"
        ".filter(img => img.offsetParent !== null && img.naturalWidth > 0).map(img => img.src);"
        " return now.length === 1 && now[0] !== before; }",
        arg=before[0],
        timeout=10_000,
    )
    after = visible_images(page)
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
