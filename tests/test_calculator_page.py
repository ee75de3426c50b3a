"""The calculator page (book/calculator.html) in headless Chromium, as a researcher uses it.

The built site is served from 127.0.0.1 with every other host blocked (the fixtures of
``tests/test_site.py``). The page answers with no kernel and no network; each answer's
"copy" button holds the command line that gives it, and these tests run it
(``python -m shufflelib``; in-process through ``shufflelib.calculator.main`` for the many random
inputs, as a real subprocess for the copied ones): the page is never below the command line's
ε or δ and never above its largest ε₀, and within the rounding of its four digits (a relative
1.1e-3) in one round; over T rounds (pair-based bounds)
its ε is never more than 1 % above the command line's (the browser's composition is valid and
within 1 % of the exact one: tests/test_calculator_js.py). Bad input blanks only the answers that
read the bad field, with a message naming its range; the layout does not move.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import random
import shlex
import subprocess
import sys

import pytest
import test_site

from shufflelib.bounds.base import DELTA_FLOOR
from shufflelib.calculator import main as shufflelib_main

# The site's fixtures (built, served on 127.0.0.1, opened in Chromium with every other host blocked).
site, server, browser, page = test_site.site, test_site.server, test_site.browser, test_site.page
SHOTS = test_site.SHOTS

CALCULATOR = "book/calculator.html"
SHOWN_RTOL = 1.1e-3
QUESTIONS = {"eps": "epsilon", "delta": "delta", "eps0": "eps0"}
BUSY = "() => document.querySelector('#shuffle-calculator').dataset.busy === '0'"


def open_calculator(page, server) -> None:
    page.goto(f"{server}/{CALCULATOR}", wait_until="load")
    page.wait_for_selector("#calc-table", timeout=30_000)
    page.wait_for_function(BUSY, timeout=120_000)


def set_inputs(page, randomizer: str | None = None, **fields: object) -> None:
    """Type the fields (one input event at the end, as typing the last one does) and wait for every answer."""
    page.evaluate(
        """([rand, fields]) => {
            if (rand) document.querySelector(`input[name="calc-rand"][value="${rand}"]`).checked = true;
            let last = null;
            for (const [key, value] of Object.entries(fields)) {
                last = document.getElementById(`calc-${key}`);
                last.value = String(value);
            }
            (last || document.getElementById("calc-n")).dispatchEvent(new Event("input"));
        }""",
        [randomizer, {k: str(v) for k, v in fields.items()}],
    )
    page.wait_for_timeout(200)  # the page waits 120 ms after the last keystroke
    page.wait_for_function(BUSY, timeout=180_000)


def cells(page) -> list[dict]:
    """Every answer cell: bound, question, state, value, text, detail and command."""
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('#calc-table td.calc-cell'))
            .filter(td => !td.closest('tr').hidden)
            .map(td => ({bound: td.closest('tr').dataset.bound, q: td.dataset.q, state: td.dataset.state,
                         value: td.dataset.value, text: td.querySelector('.calc-value').textContent,
                         detail: td.querySelector('.calc-detail').textContent,
                         command: td.querySelector('.calc-copy').dataset.command,
                         best: td.classList.contains('calc-best')}))"""
    )


def run_command(command: str) -> tuple[int, str]:
    """``python -m shufflelib ...`` in-process (the command line's main): exit status and last stdout line."""
    argv = shlex.split(command)
    assert argv[:3] == ["python", "-m", "shufflelib"], command
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = shufflelib_main(argv[3:])
    lines = out.getvalue().strip().splitlines()
    return status, lines[-1] if lines else err.getvalue().strip()


def check_against_the_command_line(cell: dict, rounds: int) -> None:
    status, printed = run_command(cell["command"])
    where = f"{cell['command']} (page: {cell['text']} {cell['detail']})"
    if cell["state"] == "na":
        assert status == 1, f"{where}: the page says not applicable, the command line answers {printed}"
        return
    assert status == 0, f"{where}: the command line exits {status}: {printed}"
    cli, shown = float(printed), float(cell["value"])
    if cell["q"] == "eps0":
        if rounds == 1:
            assert shown <= cli, f"{where}: the page's largest ε₀ is above the command line's {cli}"
            assert shown >= cli * (1 - 2 * SHOWN_RTOL) - 1e-9, f"{where}: command line {cli}"
        return
    if rounds > 1:
        if cell["q"] == "delta" and cli <= DELTA_FLOOR:
            # the command line's floor: no smaller δ is resolved; the page's composition window
            # resolves δ to about 1e-290, both far below any δ in use
            assert shown <= 1e-280, f"{where}: the command line answers its floor {cli}"
            return
        assert shown <= 1.01 * cli, f"{where}: more than 1 % above the command line's {cli}"
        if cell["q"] == "eps":  # the command line's composed ε is tight (a small part of its error)
            assert shown >= cli, f"{where}: below the command line's {cli}"
        return
    if cli == 0:
        assert shown == 0, f"{where}: the command line gives 0"
    else:
        assert cli <= shown <= cli * (1 + SHOWN_RTOL), f"{where}: command line {cli}"


@pytest.mark.parametrize(
    ("randomizer", "k", "rounds"),
    [("krr", 2, 1), ("krr", 5, 1), ("generic", None, 1), ("laplace", None, 1), ("krr", 2, 10), ("generic", None, 1000)],
)
def test_random_inputs_answer_like_the_command_line(page, server, randomizer: str, k: int | None, rounds: int) -> None:
    """Every answer of every row at random inputs of the whole box, against the command it copies."""
    open_calculator(page, server)
    rng = random.Random(f"{randomizer}/{k}/{rounds}")  # a str seed: the same inputs on every run
    checked = 0
    for _ in range(3 if rounds == 1 else 2):
        n = int(math.exp(rng.uniform(math.log(2), math.log(1e8 if k and k > 2 else 1e9))))
        eps0 = math.exp(rng.uniform(math.log(1e-4), math.log(20)))
        delta = math.exp(rng.uniform(math.log(1e-20), math.log(0.3)))
        target = eps0 * math.exp(rng.uniform(math.log(0.01), math.log(1.2))) * (rounds if rounds > 1 else 1)
        fields = {"n": n, "eps0": f"{eps0:.4g}", "delta": f"{delta:.3g}", "eps": f"{target:.4g}", "rounds": rounds}
        if k:
            fields["k"] = k
        set_inputs(page, randomizer, **fields)
        for cell in cells(page):
            assert cell["text"] not in ("NaN", "", "undefined", "Infinity"), (fields, cell)
            if cell["state"] in ("answer", "zero", "na") and cell["command"]:
                check_against_the_command_line(cell, rounds)
                checked += 1
    # one round: every row answers; T rounds: only the pair-based rows (clones alone for a generic randomizer)
    assert checked >= (12 if rounds == 1 else 4)
    assert not page.blocked and not page.errors, (page.blocked, page.errors)


def test_the_first_view_a_researcher_sees(page, server) -> None:
    """The defaults (n = 123456, ε₀ = 1.3, δ = 3e-7, binary randomized response): every bound that
    covers k-RR, the smallest marked and named, the exact value's command line, the plot."""
    open_calculator(page, server)
    shown = cells(page)
    rows = sorted({c["bound"] for c in shown})
    assert rows == ["blanket-bennett", "blanket-hoeffding", "clones", "clones-closed", "erlingsson", "stronger-clones"]
    best = [c for c in shown if c["q"] == "eps" and c["best"]]
    assert [c["bound"] for c in best] == ["stronger-clones"]
    assert "use stronger clones" in page.inner_text("#calc-advice")
    assert all(
        float(c["value"]) >= float(best[0]["value"]) for c in shown if c["q"] == "eps" and c["state"] == "answer"
    )
    assert "exact-krr" in page.inner_text("#calc-exact-command")
    # The calculator comes before the --help output, which is collapsed.
    assert page.evaluate(
        "() => document.querySelector('#calc-table').getBoundingClientRect().top"
        " < document.querySelector('.tag_hide-output').getBoundingClientRect().top"
    )
    # One curve per bound that answers (Erlingsson et al. needs ε₀ < 1/2), the typed n marked on each.
    page.wait_for_function("() => document.querySelectorAll('#calc-plot .calc-curve').length >= 5")
    curves = page.eval_on_selector_all("#calc-plot .calc-curve", "els => els.map(e => e.dataset.bound)")
    assert sorted(curves) == ["blanket-bennett", "blanket-hoeffding", "clones", "clones-closed", "stronger-clones"]
    assert page.locator("#calc-plot .calc-point").count() == 5
    assert page.locator("#calc-plot .calc-typed").count() == 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#shuffle-calculator").screenshot(path=str(SHOTS / "calculator.png"))
    # The second view: ε against ε₀, with the local guarantee ε = ε₀.
    page.click("#calc-view-eps0")
    page.wait_for_timeout(200)
    page.wait_for_function(BUSY, timeout=120_000)
    assert page.locator("#calc-plot .calc-local").count() == 1
    assert page.locator("#calc-plot .calc-curve").count() >= 5
    assert "local ε₀" in page.text_content("#calc-plot")  # an SVG: its text, not inner_text
    page.locator("#shuffle-calculator").screenshot(path=str(SHOTS / "calculator-eps0-view.png"))
    assert not page.blocked and not page.errors, (page.blocked, page.errors)


def test_copy_gives_the_command_that_gives_the_answer(page, server) -> None:
    """Press copy: the command line shown is the cell's; running it (a real process) gives the page's
    answer within its rounding, never on the unsafe side."""
    open_calculator(page, server)
    set_inputs(page, "krr", k=3, n=50_000, eps0=1, delta="1e-6", eps="0.02", rounds=1)
    for bound, question in [("thinned-clones", "eps"), ("clones", "delta"), ("stronger-clones", "eps0")]:
        cell = page.locator(f"#calc-row-{bound} td[data-q='{question}']")
        cell.locator(".calc-copy").click()
        command = page.inner_text("#calc-command")
        assert command == cell.locator(".calc-copy").get_attribute("data-command")
        done = subprocess.run([sys.executable, *shlex.split(command)[1:]], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (command, done.stderr)
        cli, shown = float(done.stdout.strip().splitlines()[-1]), float(cell.get_attribute("data-value"))
        if question == "eps0":
            assert cli * (1 - 2 * SHOWN_RTOL) <= shown <= cli, (command, shown, cli)
        else:
            assert cli <= shown <= cli * (1 + SHOWN_RTOL), (command, shown, cli)
    # thinned clones (k >= 3) are below stronger clones
    thin = float(page.get_attribute("#calc-row-thinned-clones td[data-q='eps']", "data-value"))
    strong = float(page.get_attribute("#calc-row-stronger-clones td[data-q='eps']", "data-value"))
    assert thin < strong


def test_the_box_is_the_command_line_box(page, server) -> None:
    """The page accepts what the command line accepts (ε₀ = 20 and 100, δ = 1e-300, n = 10⁹, T = 10,000) and
    refuses the rest with the field's range."""
    open_calculator(page, server)
    accepted = [("eps0", "20"), ("eps0", "100"), ("eps0", "1e-6"), ("delta", "1e-300"), ("delta", "0.99"),
                ("n", "1e9"), ("n", "2"), ("rounds", "10000"), ("k", "1000000000")]  # fmt: skip
    for key, value in accepted:
        set_inputs(page, "krr", **{key: value})
        assert page.inner_text(f"#calc-{key}-error") == "", (key, value)
        set_inputs(page, "krr", n=123456, eps0=1.3, delta="3e-7", eps="0.05", rounds=1, k=2)
    refused = [
        ("eps0", "100.5", "from 10⁻⁶ to 100"),
        ("eps0", "0", "from 10⁻⁶ to 100"),
        ("eps0", "abc", "from 10⁻⁶ to 100"),
        ("delta", "1", "between 0 and 1"),
        ("delta", "0", "between 0 and 1"),
        ("delta", "NaN", "between 0 and 1"),
        ("n", "1", "from 2 to 10⁹"),
        ("n", "1e9+1", "from 2 to 10⁹"),
        ("n", "2.5", "integer"),
        ("rounds", "10001", "from 1 to 10,000"),
        ("k", "1", "from 2 to 10⁹"),
        ("eps", "-1", "≥ 0"),
    ]
    for key, value, words in refused:
        set_inputs(page, "krr", **{key: value})
        assert words in page.inner_text(f"#calc-{key}-error"), (key, value, page.inner_text(f"#calc-{key}-error"))
        set_inputs(page, "krr", n=123456, eps0=1.3, delta="3e-7", eps="0.05", rounds=1, k=2)
    assert not page.errors, page.errors


def test_a_bad_field_blanks_only_the_answers_that_read_it(page, server) -> None:
    open_calculator(page, server)
    geometry = (
        "() => Array.from(document.querySelectorAll('#calc-table th, #calc-table td')).map(e => {"
        " const r = e.getBoundingClientRect(); return [Math.round(r.x), Math.round(r.width)]; })"
    )
    good = page.evaluate(geometry)
    for key, blanks in [
        ("delta", {"eps", "eps0"}),
        ("eps", {"delta", "eps0"}),
        ("eps0", {"eps", "delta"}),
        ("n", {"eps", "delta", "eps0"}),
    ]:
        set_inputs(page, "krr", **{key: "abc"})
        for cell in cells(page):
            if cell["q"] in blanks:
                assert cell["state"] == "blank" and cell["text"] == "—", (key, cell)
            elif cell["state"] != "na":
                assert cell["state"] in ("answer", "zero"), (key, cell)
        text = page.inner_text("#shuffle-calculator")
        assert "NaN" not in text and "undefined" not in text and "Infinity" not in text
        assert page.evaluate(geometry) == good, f"the table's columns moved when {key} was bad"
        set_inputs(page, "krr", **{key: {"delta": "3e-7", "eps": "0.05", "eps0": "1.3", "n": "123456"}[key]})
    page.locator("#shuffle-calculator").screenshot(path=str(SHOTS / "calculator-bad-input.png"))
    assert not page.errors, page.errors


def test_delta_is_zero_plainly_from_eps0_on(page, server) -> None:
    """ε >= ε₀: δ = 0 exactly (the shuffled protocol is ε₀-DP), said plainly; over T rounds from T ε₀."""
    open_calculator(page, server)
    set_inputs(page, "generic", eps0="1", eps="1")
    for cell in cells(page):
        if cell["q"] == "delta" and cell["state"] != "na":
            assert cell["text"] == "0" and "exactly" in cell["detail"], cell
            assert "not resolved" not in cell["detail"]
            assert run_command(cell["command"]) == (0, "0.0")
    set_inputs(page, "generic", eps0="0.5", eps="5", rounds=10)
    clones = next(c for c in cells(page) if c["bound"] == "clones" and c["q"] == "delta")
    assert clones["text"] == "0" and "T ε₀" in clones["detail"]


def test_rounds_compose_the_pair_bounds_in_the_browser(page, server) -> None:
    """T = 100: the pair-based rows answer (within 1 % of the command line's --compose, never more
    above), the others give their command line; the plot has the composed curves."""
    open_calculator(page, server)
    set_inputs(page, "krr", k=2, n=100_000, eps0=1, delta="1e-8", eps="0.5", rounds=100)
    answered = {c["bound"] for c in cells(page) if c["state"] == "answer"}
    assert answered == {"stronger-clones", "clones"}
    for cell in cells(page):
        assert "--compose 100" in cell["command"] or not cell["command"]
        if cell["state"] == "answer" and cell["q"] == "eps":
            check_against_the_command_line(cell, 100)
    page.wait_for_function("() => document.querySelectorAll('#calc-plot .calc-curve').length === 2")
    page.locator("#shuffle-calculator").screenshot(path=str(SHOTS / "calculator-100-rounds.png"))
    assert not page.blocked and not page.errors, (page.blocked, page.errors)


def safe_text_bounds(value: float, direction: int) -> tuple[float, float]:
    """What four digits rounded the safe way may show for a library value: ``value`` itself up to
    its next four-digit number above (``direction = 1``; ε, δ) or below (``-1``; largest ε₀).

    The page computes the value itself; where the library's value sits within a relative 1e-9
    of a four-digit number, either neighbour is allowed (the page's own value may fall on its
    other side), never beyond.
    """

    def rounded(x: float) -> float:
        if x == 0:
            return 0.0
        e = math.floor(math.log10(abs(x))) - 3
        m = x / 10.0**e
        return (math.ceil(m - 1e-9) if direction > 0 else math.floor(m + 1e-9)) * 10.0**e

    ends = sorted([rounded(value * (1 - 1e-9)), rounded(value * (1 + 1e-9))])
    return (value, ends[1] * (1 + 1e-12)) if direction > 0 else (ends[0] * (1 - 1e-12), value)


@pytest.mark.parametrize(
    ("randomizer", "k", "eps0", "target"),
    [("krr", 2, "1.3", "0.05"), ("krr", 5, "1.3", "0.05"), ("generic", None, "20", "0.5")],
)
def test_the_researchers_inputs_give_the_librarys_numbers(page, server, randomizer, k, eps0, target) -> None:
    """n = 123456, ε₀ = 1.3, δ = 3e-7 (and ε₀ = 20, which the command line answers): every row's
    three answers are the library's (``shufflelib.bounds``, the command line's code), computed
    here, in four digits rounded the safe way; a row the library refuses is "not applicable"."""
    from shufflelib.bounds import get_bound
    from shufflelib.bounds.base import NotApplicableError

    open_calculator(page, server)
    n, delta = 123456, 3e-7
    set_inputs(page, randomizer, **({"k": k} if k else {}), n=n, eps0=eps0, delta=delta, eps=target, rounds=1)
    assert all(page.inner_text(f"#calc-{key}-error") == "" for key in ("n", "eps0", "delta", "eps", "rounds"))
    shown = cells(page)
    assert len({c["bound"] for c in shown}) >= 4, shown
    compared = 0
    for cell in shown:
        # the randomizer the row's bound covers (a k-RR row of a generic bound reads --mechanism generic)
        argv = shlex.split(cell["command"])
        mechanism = argv[argv.index("--mechanism") + 1] if "--mechanism" in argv else "generic"
        try:
            bound = get_bound(cell["bound"], mechanism, int(argv[argv.index("--k") + 1]) if "--k" in argv else None)
        except ValueError as error:  # the bound does not cover this randomizer (thinned clones: k-RR, k >= 3)
            assert cell["state"] == "na", f"{cell}; the library: {error}"
            continue
        ask = {
            "eps": functools.partial(bound.epsilon, n, float(eps0), delta),
            "delta": functools.partial(bound.delta, n, float(eps0), float(target)),
            "eps0": functools.partial(bound.max_eps0, n, float(target), delta),
        }[cell["q"]]
        where = (
            f"{cell['bound']} {cell['q']} at {randomizer}, k={k}, eps0={eps0}: page {cell['text']!r} {cell['detail']!r}"
        )
        try:
            library = ask()
        except NotApplicableError as error:
            assert cell["state"] == "na", f"{where}; the library: not applicable ({error})"
            continue
        assert cell["state"] in ("answer", "zero"), f"{where}; the library: {library}"
        low, high = safe_text_bounds(library, -1 if cell["q"] == "eps0" else 1)
        value = float(cell["text"])
        assert low <= value <= high, f"{where}; the library: {library!r}, allowed [{low!r}, {high!r}]"
        compared += 1
    assert compared >= 10
    assert not page.blocked and not page.errors, (page.blocked, page.errors)


def test_a_bad_field_is_named_with_its_range(page, server) -> None:
    """Each bad field gets a message beside it naming the field and its range; the others stay silent."""
    open_calculator(page, server)
    names = {"n": "n must be", "eps0": "ε₀ must be", "delta": "δ must be", "eps": "ε must be",
             "rounds": "T must be", "k": "k must be"}  # fmt: skip
    for key, words in names.items():
        set_inputs(page, "krr", **{key: "-3"})
        message = page.inner_text(f"#calc-{key}-error")
        assert message.startswith(words) and "(got -3)" in message, (key, message)
        others = [other for other in names if other != key and page.inner_text(f"#calc-{other}-error")]
        assert not others, (key, others)
        set_inputs(page, "krr", n=123456, eps0=1.3, delta="3e-7", eps="0.05", rounds=1, k=2)
    assert not page.errors, page.errors


@pytest.mark.parametrize("viewport", [{"width": 1366, "height": 900}, {"width": 390, "height": 844}])
def test_the_page_fits_a_laptop_and_a_phone(browser, server, viewport) -> None:
    """At 1366 px and at 390 px the calculator page never scrolls sideways and the calculator stays
    inside the window (its table may scroll in its own box on a phone); nothing is fetched from
    another host."""
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    blocked: list[str] = []
    page.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(server)
            else (blocked.append(route.request.url), route.abort())
        ),
    )
    try:
        open_calculator(page, server)
        set_inputs(page, "krr", k=5, n=123456, eps0=1.3, delta="3e-7", eps="0.05", rounds=1)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        right = page.evaluate("() => document.querySelector('#shuffle-calculator').getBoundingClientRect().right")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"calculator-{viewport['width']}.png"), full_page=False)
    finally:
        context.close()
    assert width <= viewport["width"] + 1, f"the calculator page is {width} px wide at {viewport['width']} px"
    assert right <= viewport["width"] + 1, f"the calculator reaches {right} px at {viewport['width']} px"
    assert not blocked, f"the calculator page asked other hosts: {blocked}"
