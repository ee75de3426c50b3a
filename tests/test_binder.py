"""Open a chapter the way the launch button does, in the JupyterLab that Binder builds.

The rocket icon of a page opens ``<binder>/v2/gh/<repo>/<branch>?urlpath=lab/tree/book/<chapter>.md``:
JupyterLab at ``lab/tree/book/<chapter>.md``. This test recreates that environment
from ``binder/`` — ``binder/requirements.txt`` reads the top-level ``requirements.txt``,
whose packages are those of the ``test`` extra, and ``binder/postBuild`` is run into a fresh Jupyter configuration
folder — starts JupyterLab on ``127.0.0.1`` (free port, no token; stopped at the end),
and checks in headless Chromium, with every request to another host blocked, that

* the chapter opens as a notebook (not in the text editor),
* a theorem is rendered as a theorem box by jupyterlab-myst (not as a code block),
* *Run All* finishes with no error output, and
* moving a slider changes the picture while the kernel is live.

Screenshots are saved under ``_build/screenshots/``. Like ``tests/test_site.py``, the
test needs Chromium, and fails without it under CI.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest
from test_site import CHROMIUM_FLAGS, find_chromium, visible_images, wait_for_new_picture, wait_for_widget_picture

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "_build" / "screenshots"
#: A short chapter with theorems and a slider.
CHAPTER = "book/local_randomizers.md"
#: What the launch button appends to the Binder URL (``urlpath=``).
LAUNCH_PATH = f"lab/tree/{CHAPTER}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab as Binder starts it (``binder/postBuild`` applied), on 127.0.0.1."""
    if find_chromium() is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is not installed (.ci/run installs Debian's chromium)")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    home = tmp_path_factory.mktemp("jupyter")
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        PYTHONPATH=str(ROOT),  # the kernel imports this checkout's shufflelib
    )
    env.pop("JUPYTER_CONFIG_PATH", None)
    # Test-only user setting: render every cell (JupyterLab 4 renders only those in view),
    # so that the checks below can see the whole notebook.
    tracker = home / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text('{"windowingMode": "none"}')
    subprocess.run(["bash", str(ROOT / "binder" / "postBuild")], env=env, check=True, cwd=ROOT)
    port = free_port()
    log = open(home / "lab.log", "w")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "jupyterlab",
            "--no-browser", "--ip=127.0.0.1", f"--port={port}", "--port-retries=0",
            "--IdentityProvider.token=", "--ServerApp.password=",
            f"--ServerApp.root_dir={ROOT}",
            *(["--allow-root"] if os.geteuid() == 0 else []),  # CI containers run as root
        ],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=2)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail(f"JupyterLab did not start:\n{(home / 'lab.log').read_text()[-4000:]}")
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture
def page(lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=find_chromium(), args=CHROMIUM_FLAGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.blocked = []

        def route(route):
            if urlparse(route.request.url).hostname in ("127.0.0.1", None):
                route.continue_()
            else:
                page.blocked.append(route.request.url)
                route.abort()

        page.route("**/*", route)
        yield page
        browser.close()


def test_launch_url_opens_a_live_notebook(page, lab) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    page.goto(f"{lab}/{LAUNCH_PATH}", wait_until="domcontentloaded")

    # Opened as a notebook, not in the text editor.
    panel = page.locator(".jp-NotebookPanel").first
    panel.wait_for(timeout=90_000)
    assert page.locator(".jp-MainAreaWidget .jp-FileEditor").count() == 0
    page.wait_for_function("() => document.querySelectorAll('.jp-Notebook .jp-CodeCell').length > 5", timeout=60_000)

    # jupyterlab-myst renders the theorems (a proof-type box), not raw ```{prf:theorem} code.
    theorem = page.locator(".jp-MarkdownCell .myst-proof, .jp-MarkdownCell [class*='proof']").first
    theorem.wait_for(timeout=30_000)
    assert "Randomized response" in page.locator(".jp-MarkdownCell").all_inner_texts().__str__()
    raw = page.evaluate(
        """() => Array.from(document.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown'))
                 .filter(el => el.offsetParent !== null && el.innerText.includes('{prf:'))
                 .map(el => el.innerText.slice(0, 300))"""
    )
    assert not raw, f"MyST directives shown as raw text: {raw}"
    theorem.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "lab-theorem.png"))

    # Run All, then wait for the kernel to go idle with every cell executed.
    page.wait_for_function(
        "() => document.querySelector('.jp-Notebook-ExecutionIndicator') !== null"
        " || document.querySelector('.jp-KernelStatus') !== null",
        timeout=60_000,
    )
    page.locator(".jp-Notebook").first.click()
    page.keyboard.press("Escape")
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.wait_for_function(
        """() => { const prompts = Array.from(document.querySelectorAll('.jp-CodeCell .jp-InputPrompt'))
                   .map(p => p.textContent.trim());
                   return prompts.length > 0 && prompts.every(p => /^\\[\\d+\\]:$/.test(p)); }""",
        timeout=300_000,
    )
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']")
    assert errors.count() == 0, errors.first.inner_text()[:2000]

    # A slider changes the picture (the widget lives in the kernel).
    slider = page.locator(".jp-NotebookPanel .widget-slider").first
    wait_for_widget_picture(page, slider)
    before = visible_images(page)
    page.screenshot(path=str(SHOTS / "lab-widget-before.png"))
    slider.locator(".noUi-handle, .slider-handle, [role='slider']").first.focus()
    page.keyboard.press("ArrowRight")
    wait_for_new_picture(page, before)
    page.screenshot(path=str(SHOTS / "lab-widget-after.png"))
    assert not page.blocked, f"JupyterLab tried to reach other hosts: {page.blocked}"
    print(f"launch, render, Run All and slider: {time.monotonic() - start:.0f} s")


def test_chapter_math_knows_the_book_macros(page, lab) -> None:
    """The macros of ``_config.yml`` (``\\P``, ``\\E``, ...) render in JupyterLab as on the website.

    jupyterlab-myst typesets Markdown math with KaTeX, taking macros from the frontmatter of the
    first Markdown cell (``tools/chapter_macros.py``). Without them ``\\P`` is KaTeX's pilcrow
    and ``\\E``, ``\\Var``, ``\\Bin`` are errors.
    """
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{lab}/{LAUNCH_PATH}", wait_until="domcontentloaded")
    page.locator(".jp-NotebookPanel").first.wait_for(timeout=90_000)
    # Each cell is typeset alone first, then again with the notebook's frontmatter (the macros):
    # wait until the chapter's last macro (\\Bin) is shown and the page stops changing.
    state = """() => [document.querySelectorAll('.jp-MarkdownCell .katex').length,
                      document.querySelectorAll('.jp-MarkdownCell .text-red-500').length,
                      document.querySelectorAll('.jp-MarkdownCell .text-yellow-600').length,
                      document.querySelector('.jp-Notebook').innerText.includes('Bin(')]"""
    seen, deadline = [], time.monotonic() + 90
    while time.monotonic() < deadline and not (len(seen) >= 3 and seen[-1][3] and seen[-1] == seen[-2] == seen[-3]):
        time.sleep(1.0)
        seen.append(page.evaluate(state))
    math = page.evaluate(
        """() => Array.from(document.querySelectorAll('.jp-MarkdownCell .katex')).map(el => ({
                 tex: (el.querySelector('annotation') || {}).textContent || '',
                 text: el.querySelector('.katex-html') ? el.querySelector('.katex-html').textContent : '',
                 struck: Array.from(el.querySelectorAll('mi[mathvariant="double-struck"]')).map(m => m.textContent),
                 operators: Array.from(el.querySelectorAll('mi, mo')).map(m => m.textContent)}))"""
    )
    # KaTeX errors: myst-to-react shows math it cannot render (its TeX, with a backslash) in a
    # yellow span inline (unresolved citations look the same, without one), in a red one displayed.
    errors = page.evaluate(
        """() => Array.from(document.querySelectorAll('.jp-MarkdownCell .katex-error,'
                 + ' .jp-MarkdownCell span.text-yellow-600, .jp-MarkdownCell .text-red-500'))
                 .map(el => el.textContent).filter(text => text.includes('\\\\'))"""
    )
    assert not errors, f"math errors in the rendered chapter: {errors[:5]}"
    assert not [m["tex"] for m in math if "\u00b6" in m["text"]], "a macro was rendered as a pilcrow"
    uses = {
        name: [m for m in math if re.search(rf"\\{name}(?![A-Za-z])", m["tex"])] for name in ("P", "E", "Var", "Bin")
    }
    assert all(uses.values()), {name: len(found) for name, found in uses.items()}
    assert all("P" in m["struck"] for m in uses["P"]) and all("E" in m["struck"] for m in uses["E"])
    assert all("Var" in m["operators"] for m in uses["Var"]) and all("Bin" in m["operators"] for m in uses["Bin"])
    # The macro cell itself shows nothing (its frontmatter has no title or authors to display).
    first = page.locator(".jp-MarkdownCell").first
    assert first.inner_text().strip() == "", first.inner_text()[:300]
    page.evaluate(
        """() => Array.from(document.querySelectorAll('.jp-MarkdownCell .katex-display'))
                 .find(el => el.textContent.includes('Var')).scrollIntoView({block: 'center'})"""
    )
    page.screenshot(path=str(SHOTS / "lab-macros.png"))
    assert not page.blocked, f"JupyterLab tried to reach other hosts: {page.blocked}"


def test_binder_reads_the_top_level_pins() -> None:
    """The launch button's environment is the top-level ``requirements.txt``: ``binder/requirements.txt``
    refers to it and pins nothing of its own (one source of the kernel's pins, no copy that can drift)."""
    lines = [line.split("#")[0].strip() for line in (ROOT / "binder" / "requirements.txt").read_text().splitlines()]
    assert [line for line in lines if line] == ["-r ../requirements.txt"]
    top = (ROOT / "requirements.txt").read_text().splitlines()
    assert "-e ." in top, "requirements.txt installs this package from the clone"


def test_kernel_pins_are_the_tested_versions() -> None:
    """Every pin of ``requirements.txt`` is the version installed here (``.ci/run`` installs the pins)."""
    from importlib.metadata import PackageNotFoundError, version

    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            name, pinned = line.split("==")
            pins[name.strip()] = pinned.strip()
    assert {"numpy", "scipy", "matplotlib", "ipywidgets", "jupyterlab", "jupyterlab-myst", "jupytext"} <= set(pins)
    differ = {}
    for name, pinned in pins.items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = None
        if installed != pinned:
            differ[name] = (pinned, installed)
    if differ and not os.environ.get("CI"):
        pytest.skip(f"installed versions differ from requirements.txt (pinned, installed): {differ}")
    assert not differ, f"requirements.txt pins versions that are not the tested ones: {differ}"
