"""Measure how pages of the built website read, in Chromium, as a student sees them.

For each page this opens the built site (served from 127.0.0.1, no other host reachable)
in Debian's Chromium, waits until MathJax has typeset the page and the widgets are drawn,
and measures at 1366 px (and at 390 px, a phone):

* ``height``: the page's height in px (``screens``: in screens of 900 px);
* ``code``: the share of that height taken by visible code (code cells' sources and code
  blocks; folded code is not visible), and ``code+out``: code and visible cell outputs;
* ``longest``: the longest visible code block, in lines;
* ``wide``: elements wider than their column: an output, table, code block or figure that
  scrolls sideways, is cut, or sticks out of the text column (at 1366 and at 390 px;
  a displayed equation that scrolls inside its own block is counted apart, ``eq-scroll``);
* ``sideways``: whether the page itself scrolls sideways (at 1366 / 390 px);
* ``raw``: raw Python reprs in tables and outputs (folded ones too): ``nan``, ``True`` or
  ``False`` as a value, ``<… object at 0x…>``, ``<class …>``, ``<function …>``;
* ``timings``: timings in the text or outputs, such as "(0.4 s)" or "took 12 ms";
* ``commands``: command lines shown over several lines (a ``$ …`` line continued on the
  next, or ending in a backslash).

The targets (issue 24) are the constants below; :func:`failures` lists the targets a
measurement misses. ``tests/test_reading.py`` asserts them for every chapter.

Usage, from a worktree root after ``jupyter-book build .``::

    python tools/measure_pages.py _build/html book/amplification.html
    python tools/measure_pages.py _build/html                 # every numbered chapter
    python tools/measure_pages.py _build/html book/segmented.html --details   # what fails
    python tools/measure_pages.py _build/html --json report.json

Chromium is looked up as ``chromium`` (or ``--chromium PATH``); playwright is in the
``test`` extra.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import re
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]

#: Issue 24's targets for every chapter (Chromium, 1366 px).
MAX_HEIGHT = 25_000  # px
MAX_CODE_SHARE = 0.30  # visible code / page height
MAX_CELL_LINES = 25  # longest visible code block
LAPTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
SCREEN = 900  # px: one screen, for the "screens" column

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

# --- what is measured in the page (one JavaScript function, returns plain data) ---

MEASURE_JS = r"""() => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  // Inside a closed <details> (a hide-input cell, a dropdown) only the summary is drawn, although
  // Chromium still gives the folded contents a size.
  const folded = e => { const d = e.closest('details:not([open])'); return d !== null && !e.closest('summary'); };
  const shown = e => e.offsetParent !== null && e.getBoundingClientRect().width > 0 && !folded(e);
  const brief = e => (e.innerText || e.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 80);
  const name = e => e.tagName.toLowerCase()
    + (e.classList.length ? '.' + Array.from(e.classList).slice(0, 2).join('.') : '');
  const height = document.documentElement.scrollHeight;

  // Code: code cells' sources and code blocks outside outputs (outermost blocks only).
  const blocks = Array.from(article.querySelectorAll('div.cell_input, div[class*="highlight-"]'))
    .filter(e => !e.closest('.cell_output'))
    .filter(e => !(e.parentElement && e.parentElement.closest('div.cell_input, div[class*="highlight-"]')));
  const visibleBlocks = blocks.filter(shown);
  const lines = e => {
    const pre = e.querySelector('pre');
    const text = (pre ? pre.innerText : e.innerText).replace(/\n+$/, '');
    return text ? text.split('\n').length : 0;
  };
  const code_px = visibleBlocks.reduce((s, e) => s + e.getBoundingClientRect().height, 0);
  const cells = visibleBlocks.map(e => ({lines: lines(e), text: brief(e)})).sort((a, b) => b.lines - a.lines);
  const outputs = Array.from(article.querySelectorAll('div.cell_output')).filter(shown);
  const output_px = outputs.reduce((s, e) => s + e.getBoundingClientRect().height, 0);

  // Elements wider than their column. kind: "scrolls" (its own box scrolls sideways),
  // "cut" (its box hides what does not fit), "sticks out" (past the text column).
  const column = article.getBoundingClientRect();
  const skip = '.margin, aside, .sidebar, .marginnote, mjx-assistive-mml, .noUi-target, .noUi-base, button';
  const wide = [];
  const eqScroll = [];
  const boxes = [];
  const isDisplay = e => e.matches('div.math, mjx-container[display="true"]')
    || !!e.querySelector(':scope > mjx-container[display="true"]');
  for (const e of article.querySelectorAll('*')) {
    if (boxes.some(b => b.contains(e)) || !shown(e) || e.closest(skip)) continue;
    const math = e.closest('mjx-container');
    if (math && math !== e) continue;
    const style = getComputedStyle(e);
    const over = e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0;
    const r = e.getBoundingClientRect();
    const sticks = r.right > column.right + 1.5 || r.left < column.left - 1.5;
    let kind = null;
    if (over && ['auto', 'scroll'].includes(style.overflowX)) kind = 'scrolls';
    else if (over && ['hidden', 'clip'].includes(style.overflowX)) kind = 'cut';
    else if (sticks) kind = 'sticks out';
    if (!kind) continue;
    boxes.push(e);
    if (kind === 'scrolls' && isDisplay(e)) eqScroll.push(brief(e));
    wide.push({what: name(e), kind, display_math: isDisplay(e),
               by: Math.round(Math.max(e.scrollWidth - e.clientWidth, r.right - column.right, column.left - r.left)),
               text: brief(e)});
  }
  const sideways = document.documentElement.scrollWidth > window.innerWidth + 1;
  // What makes the page wider than the window (outermost elements only).
  const beyond = [];
  if (sideways) {
    for (const e of document.body.querySelectorAll('*')) {
      if (beyond.some(b => b.contains(e)) || !shown(e) || e.closest('.bd-sidebar-secondary, dialog')) continue;
      if (e.getBoundingClientRect().right <= window.innerWidth + 1) continue;
      let clipped = false;   // inside a box that scrolls or clips within the window
      for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== 'visible'
            && p.getBoundingClientRect().right <= window.innerWidth + 1) { clipped = true; break; }
      }
      if (!clipped) beyond.push(e);
    }
  }

  // Text of tables and outputs (folded ones too), and the reader's text (prose + outputs).
  const textOf = (root, exclude) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const parts = [];
    while (walker.nextNode()) {
      const p = walker.currentNode.parentElement;
      const skipped = 'button, script, style, textarea, .MathJax, mjx-assistive-mml';
      if (!p || p.closest(skipped + (exclude ? ', ' + exclude : ''))) continue;
      parts.push(walker.currentNode.textContent);
    }
    return parts.join(' ');
  };
  const tableText = Array.from(article.querySelectorAll('table:not(div.cell_output table), div.cell_output'))
    .map(e => textOf(e, ''));
  const prose = textOf(article, 'div.cell_input, mjx-container, div[class*="highlight-"]:not(.cell_output *)');
  const pres = Array.from(article.querySelectorAll('pre')).map(e => textOf(e, ''));
  return {height, code_px, output_px, cells: cells.slice(0, 5), code_blocks: visibleBlocks.length,
          wide, eq_scroll: eqScroll, sideways,
          beyond: beyond.slice(0, 8).map(e => name(e) + ': ' + brief(e).slice(0, 50)),
          page_width: document.documentElement.scrollWidth,
          table_text: tableText, reader_text: prose, pres};
}"""

#: Raw Python reprs: a bare nan/True/False value, or ``<... object at 0x...>``-style reprs.
RAW = re.compile(
    r"(?<![\w'\"`-])(?:nan|NaN|True|False)(?![\w'\"`-])"
    r"|<[\w.]+ object at 0x[0-9a-fA-F]+>"
    r"|<(?:class|function|bound method|built-in function|module) [^<>]{1,80}>"
)
_UNIT = r"(?:ms|µs|μs|s|sec|secs|seconds?|min|minutes?)"
#: Timings: "(0.4 s)", "took 12 ms", "in 3.1 s", "0.42 s" in an output, a "time (s)" column.
TIMING = re.compile(
    rf"\(\s*(?:~|≈|about\s+)?\d+(?:\.\d+)?\s*{_UNIT}\s*\)"
    rf"|\b(?:in|took|takes|taking|within|under|after)\s+(?:about\s+|~|≈)?\d+(?:\.\d+)?\s*{_UNIT}\b"
    r"|\b\d+(?:\.\d+)?\s?(?:ms|µs|μs)\b"
    r"|\b\d+\.\d+\s?(?:s|sec|seconds)\b"
    r"|\btime\s*\((?:s|ms)\)"
)
#: A command line continued on the next line: "$ cmd ..." then an indented line, or a "\" at the end.
MULTILINE_COMMAND = re.compile(r"^\s*\$ [^\n]*(?:\\\n|\n[ \t]+\S)", re.M)


def _matches(pattern: re.Pattern, texts: list[str]) -> list[str]:
    found = []
    for text in texts:
        for m in pattern.finditer(text):
            start = max(0, m.start() - 30)
            found.append(text[start : m.end() + 20].replace("\n", " ").strip())
    return found


def measure_open_page(page, phone_page=None) -> dict:
    """Measure the page open in ``page`` (at 1366 px) and, if given, ``phone_page`` (390 px)."""
    raw = page.evaluate(MEASURE_JS)
    result = {
        "height": raw["height"],
        "screens": raw["height"] / SCREEN,
        "code_share": raw["code_px"] / raw["height"],
        "code_output_share": (raw["code_px"] + raw["output_px"]) / raw["height"],
        "longest_cell": raw["cells"][0]["lines"] if raw["cells"] else 0,
        "longest_cells": raw["cells"],
        "code_blocks": raw["code_blocks"],
        # at 1366 px nothing may be wider than its column
        "wide_1366": raw["wide"],
        "sideways_1366": raw["sideways"],
        "beyond_1366": raw["beyond"],
        "raw": _matches(RAW, raw["table_text"]),
        "timings": _matches(TIMING, [raw["reader_text"]]),
        "commands": _matches(MULTILINE_COMMAND, raw["pres"]),
    }
    if phone_page is not None:
        small = phone_page.evaluate(MEASURE_JS)
        # at 390 px a box may scroll inside the column (code, a long equation), but nothing
        # may be cut or stick out, and the page may not scroll sideways
        result["wide_390"] = [w for w in small["wide"] if w["kind"] != "scrolls"]
        result["scrolling_boxes_390"] = len(small["wide"]) - len(result["wide_390"])
        result["sideways_390"] = small["sideways"]
        result["beyond_390"] = small["beyond"]
        result["page_width_390"] = small["page_width"]
        result["eq_scroll_390"] = small["eq_scroll"]
    return result


def failures(m: dict) -> list[str]:
    """The targets of issue 24 that the measurement ``m`` misses (empty: all met)."""
    out = []
    if m["height"] > MAX_HEIGHT:
        out.append(f"height {m['height']:,} px > {MAX_HEIGHT:,}")
    if m["code_share"] > MAX_CODE_SHARE:
        out.append(f"visible code {m['code_share']:.0%} of the height > {MAX_CODE_SHARE:.0%}")
    if m["longest_cell"] > MAX_CELL_LINES:
        out.append(f"a visible code cell of {m['longest_cell']} lines > {MAX_CELL_LINES}")
    for key, width in (("wide_1366", 1366), ("wide_390", 390)):
        if m.get(key):
            out.append(f"{len(m[key])} elements wider than their column at {width} px")
    for key, width in (("sideways_1366", 1366), ("sideways_390", 390)):
        if m.get(key):
            out.append(f"the page scrolls sideways at {width} px")
    if m["raw"]:
        out.append(f"{len(m['raw'])} raw reprs (nan/True/<object>) in tables or outputs")
    if m["timings"]:
        out.append(f"{len(m['timings'])} timings in the text")
    if m["commands"]:
        out.append(f"{len(m['commands'])} command lines shown over several lines")
    return out


# --- serving the site and driving Chromium ---


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (stdlib name)
        pass


@contextlib.contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve ``site`` on 127.0.0.1 and yield its base address."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def new_page(browser, viewport: dict):
    """A page in a fresh context that may only reach the local server."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.route(
        "**/*",
        lambda route: (
            route.continue_() if urlparse(route.request.url).hostname in ("127.0.0.1", None) else route.abort()
        ),
    )
    return context, page


def open_and_settle(page, url: str) -> None:
    """Open ``url`` and wait for MathJax and, where the page has widgets, for them to be drawn."""
    page.goto(url, wait_until="networkidle", timeout=120_000)
    page.wait_for_function("() => !window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)")
    page.evaluate("() => window.MathJax && window.MathJax.startup ? window.MathJax.startup.promise : null")
    if page.locator("script[type='application/vnd.jupyter.widget-state+json']").count():
        page.wait_for_function("() => document.querySelector('.widget-vbox') !== null", timeout=60_000)
        page.wait_for_timeout(300)


def measure(browser, base: str, path: str) -> dict:
    """Open ``path`` of the site at ``base`` at 1366 and 390 px and measure it."""
    contexts = []
    try:
        pages = []
        for viewport in (LAPTOP, PHONE):
            context, page = new_page(browser, viewport)
            contexts.append(context)
            open_and_settle(page, f"{base}/{path}")
            pages.append(page)
        return {"page": path, **measure_open_page(*pages)}
    finally:
        for context in contexts:
            context.close()


def chapters(root: Path = ROOT) -> list[str]:
    """The numbered chapters of ``_toc.yml`` (the parts with ``numbered: true``), as html paths."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    out = []
    for part in toc.get("parts", []):
        if part.get("numbered"):
            out += [entry["file"] + ".html" for entry in part.get("chapters", [])]
    return out


@contextlib.contextmanager
def launch(chromium: str | None = None):
    from playwright.sync_api import sync_playwright

    chromium = chromium or find_chromium()
    if chromium is None:
        raise SystemExit("measure_pages: no Chromium found (apt-get install chromium, or --chromium PATH)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


def table(rows: list[dict]) -> str:
    header = (
        f"{'page':<34} {'height':>8} {'screens':>7} {'code':>5} {'code+out':>8} {'longest':>7} "
        f"{'wide 1366/390':>13} {'sideways 1366/390':>17} {'eq-scroll 390':>13} {'raw':>4} {'timings':>7} "
        f"{'commands':>8}  verdict"
    )
    lines = [header, "-" * len(header)]
    for m in rows:
        sideways = f"{'yes' if m['sideways_1366'] else 'no'}/{'yes' if m.get('sideways_390') else 'no'}"
        verdict = "meets the targets" if not failures(m) else f"misses {len(failures(m))} targets"
        lines.append(
            f"{m['page']:<34} {m['height']:>8,} {m['screens']:>7.1f} {m['code_share']:>5.0%} "
            f"{m['code_output_share']:>8.0%} {m['longest_cell']:>7} "
            f"{len(m['wide_1366']):>6}/{len(m.get('wide_390', [])):<6} {sideways:>17} "
            f"{len(m.get('eq_scroll_390', [])):>13} {len(m['raw']):>4} {len(m['timings']):>7} "
            f"{len(m['commands']):>8}  {verdict}"
        )
    return "\n".join(lines)


def details(m: dict) -> str:
    out = [f"== {m['page']}"]
    out += [f"  - {f}" for f in failures(m)] or ["  (meets every target)"]
    for cell in m["longest_cells"]:
        if cell["lines"] > MAX_CELL_LINES:
            out.append(f"  long code cell, {cell['lines']} lines: {cell['text'][:70]}")
    for key in ("wide_1366", "wide_390"):
        for w in m.get(key, []):
            out.append(f"  wide at {key[5:]} px: {w['what']} {w['kind']} by {w['by']} px: {w['text'][:60]!r}")
    for key in ("beyond_1366", "beyond_390"):
        for item in m.get(key, []):
            out.append(f"  wider than the window at {key[7:]} px: {item!r}")
    for key, label in (("raw", "raw repr"), ("timings", "timing"), ("commands", "multi-line command")):
        for item in m[key]:
            out.append(f"  {label}: {item!r}")
    for item in m.get("eq_scroll_390", []):
        out.append(f"  (allowed) equation scrolling in its block at 390 px: {item[:60]!r}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="the built site, e.g. _build/html")
    parser.add_argument("pages", nargs="*", help="pages relative to the site (default: every numbered chapter)")
    parser.add_argument("--details", action="store_true", help="list what misses each target")
    parser.add_argument("--json", type=Path, help="also write the measurements to this file")
    parser.add_argument("--chromium", help="path of the Chromium binary")
    args = parser.parse_args(argv)
    pages = args.pages or chapters()
    missing = [p for p in pages if not (args.site / p).exists()]
    if missing:
        parser.error(f"not in {args.site}: {', '.join(missing)}")
    rows = []
    with serve(args.site) as base, launch(args.chromium) as browser:
        for path in pages:
            rows.append(measure(browser, base, path))
            print(f"measured {path}", file=sys.stderr)
    print(table(rows))
    if args.details:
        print()
        print("\n\n".join(details(m) for m in rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    return 0 if all(not failures(m) for m in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
