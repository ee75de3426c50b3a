"""Time every amplification bound on the three questions and print a Markdown table.

Run ``python benchmarks/bench_bounds.py``. Each cell is one call on a fresh
bound object, shown as ``value (wall-clock seconds)``; module-level tables
cached by an earlier cell of the same row (same ``n`` and ``eps0``) are reused:

* ``epsilon`` at ``eps0 = 1``, ``delta = 1e-6`` for ``n = 1e4, 1e6, 1e8``;
* ``delta`` at ``n = 1e6``, ``eps0 = 1``, ``eps = 0.01``;
* ``max_eps0`` at ``n = 1e6``, ``eps = 0.01``, ``delta = 1e-6``.

A second table times the bounds of the book's comparison (``STANDARD_SPECS``, the
amplification chapter's bounds on binary randomized response) on the ε question at
``eps0 = 0.45`` for the same ``n``.

Bounds covering ``"generic"`` are run on it, the others on k-RR with ``k = 2``
and ``k = 3`` (the exact k-RR curve is a closed form for ``k = 2`` only, and
takes ~10 s at ``n = 1e8`` for ``k = 3``).
Bound modules that do not exist yet are skipped with a note; a question a
bound's theorem does not cover is shown as ``n/a``. ``exact-krr`` beyond the reach of its
complete search answers with the upper end of its certified bracket (stronger clones for
``k = 2`` if smaller than the branch and bound's, thinned clones for ``k >= 3``).

A third table gives the reach of the exact worst-case search of shuffled k-RR
(:mod:`shufflelib.bounds.krr_worst_case`): the largest ``n`` whose complete search at one
``eps`` (``eps0 = 1``, ``eps = 0.1``) takes at most one second, for ``k = 2, 3, 4``; then
the k = 2 branch and bound within the calculator's budgets (δ and ε questions); a last table
the certified bracket of ``exact-krr`` beyond that reach for ``k >= 3`` (two explicit pairs,
thinned clones), as ε at δ = 1e-6, and the time of the thinned-clones answer.
"""

from __future__ import annotations

import importlib
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: (module, class) of every bound the registry is meant to hold.
KNOWN = [
    ("erlingsson", "ErlingssonBound"),
    ("blanket", "BlanketHoeffding"),
    ("blanket", "BlanketBennett"),
    ("clones", "ClonesClosedForm"),
    ("clones", "ClonesNumerical"),
    ("stronger_clones", "StrongerClones"),
    ("thinned_clones", "ThinnedClones"),
    ("exact", "ExactKRR"),
    ("exact", "TwoPairKRRLowerBound"),
    ("variation_ratio", "VariationRatioBound"),
]
EPS0, DELTA, EPS = 1.0, 1e-6, 0.01
SIZES = (10**4, 10**6, 10**8)


def load_bounds() -> tuple[list[type], list[str]]:
    """Bound classes from the registry, or module by module if some are missing."""
    try:
        from shufflelib.bounds import BOUNDS

        return list(BOUNDS.values()), []
    except ImportError:
        pass
    classes, notes = [], []
    for module, cls in KNOWN:
        try:
            classes.append(getattr(importlib.import_module(f"shufflelib.bounds.{module}"), cls))
        except (ImportError, AttributeError) as err:
            notes.append(f"skipped {cls} (shufflelib/bounds/{module}.py): {err}")
    return classes, notes


def timed(fn) -> str:
    """``value (seconds)``, or ``n/a`` / the error for calls that do not answer."""
    from shufflelib.bounds.base import NotApplicableError

    start = time.perf_counter()
    try:
        value = fn()
    except NotApplicableError:
        return "n/a"
    except (ValueError, RuntimeError, ArithmeticError, NotImplementedError) as err:
        return f"error: {type(err).__name__}"  # a benchmark reports failures instead of stopping
    elapsed = time.perf_counter() - start
    shown = f"{value:.4g}" if math.isfinite(value) else str(value)
    return f"{shown} ({elapsed:.3f} s)"


def settings_for(cls: type) -> list[tuple[str, dict]]:
    """Mechanisms to run: ``generic`` if covered, else k-RR with k = 2 and k = 3."""
    if "generic" in cls.mechanisms:
        return [("generic", {})]
    return [(f"krr (k={k})", {"mechanism": "krr", "k": k}) for k in (2, 3)]


def row(cls: type, mechanism: str, kwargs: dict) -> list[str]:
    """The table row of one bound class on one mechanism."""
    cells = [cls.name, mechanism]
    cells += [timed(lambda n=n: cls(**kwargs).epsilon(n, EPS0, DELTA)) for n in SIZES]
    cells.append(timed(lambda: cls(**kwargs).delta(10**6, EPS0, EPS)))
    cells.append(timed(lambda: cls(**kwargs).max_eps0(10**6, EPS, DELTA)))
    return cells


def search_eps(n: int, k: int) -> float:
    """The ε of the searches: 0.1 for k >= 3; for k = 2 where stronger clones give δ = 1e-6 (δ not tiny)."""
    from shufflelib.bounds import StrongerClones

    return StrongerClones(mechanism="krr", k=2).epsilon(n, EPS0, 1e-6) if k == 2 else 0.1


def search_seconds(n: int, k: int) -> float:
    """Wall-clock seconds of one exact worst-case search of shuffled k-RR at one ε (no budget)."""
    from shufflelib.bounds.krr_worst_case import worst_case_delta

    eps = search_eps(n, k)
    start = time.perf_counter()
    found = worst_case_delta(n, k, EPS0, [eps], work_limit=math.inf)
    assert found.exact
    return time.perf_counter() - start


def binary_budget_rows() -> None:
    """The k = 2 branch and bound at the calculator's δ budget: bracket width and time."""
    from shufflelib.bounds import ExactKRR, StrongerClones
    from shufflelib.bounds.krr_worst_case import worst_case_delta

    budget = ExactKRR(mechanism="krr", k=2).work_limit * ExactKRR.BINARY_SHARE["delta"]
    print(f"\nk = 2 branch and bound at the calculator's budget ({budget:.2f} estimated s), δ ≈ 1e-6\n")
    print("| n | eps0 | relative width of the bracket | exact | seconds |")
    print("|---|---|---|---|---|")
    for n in (10**4, 10**5, 10**6, 10**7, 10**8):
        for eps0 in (0.5, 1.0, 3.0):
            eps = StrongerClones(mechanism="krr", k=2).epsilon(n, eps0, 1e-6)
            start = time.perf_counter()
            found = worst_case_delta(n, 2, eps0, [eps], work_limit=budget)
            seconds = time.perf_counter() - start
            width = found.delta[0] / found.lower[0] - 1.0 if found.lower[0] > 0 else math.inf
            print(f"| {n:,} | {eps0} | {width:.1e} | {found.exact} | {seconds:.2f} |", flush=True)


def binary_epsilon_rows() -> None:
    """The calculator's ε question for k = 2 (``exact-krr``, its default budget), then its ε₀
    question at the ε answered: exact or bracket, CPU time."""
    from shufflelib.bounds import ExactKRR

    print("\nk = 2, the ε question at δ = 1e-6, then the eps0 question at that ε, with the calculator's budget")
    print("(CPU seconds, fresh object; bracket: relative width)\n")
    print("| n | eps0 | ε | exact | bracket | seconds | eps0 back | exact | bracket | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in (10**5, 10**6, 10**7):
        for eps0 in (0.5, 1.0, 2.0):
            exact = ExactKRR(mechanism="krr", k=2)
            start = time.process_time()
            eps = exact.epsilon(n, eps0, 1e-6)
            first = _answer_cells(exact, "epsilon", n, eps0, eps, time.process_time() - start)
            start = time.process_time()
            back = exact.max_eps0(n, eps, 1e-6)
            second = _answer_cells(exact, "eps0", n, eps, back, time.process_time() - start)
            print(f"| {n:,} | {eps0} | {first} | {second} |", flush=True)


def _answer_cells(exact: object, ask: str, n: int, first: float, value: float, seconds: float) -> str:
    """Table cells of one answer of ``exact-krr``: value, exact, bracket width, seconds."""
    found = exact.details(ask, n, first, 1e-6)
    width = "" if found["exact"] else f"{found['upper'] / found['lower'] - 1:.1e}"
    return f"{value:.8g} | {found['exact']} | {width} | {seconds:.2f}"


def thinned_bracket_rows() -> None:
    """k >= 3 beyond the complete search: the bracket [two explicit pairs, thinned clones] in ε."""
    from shufflelib.bounds import StrongerClones, ThinnedClones, TwoPairKRRLowerBound

    print("\nk >= 3 beyond the search: ε at δ = 1e-6, eps0 = 1 (bracket width relative)\n")
    print("| k | n | two pairs (lower) | thinned clones | width | stronger clones | seconds |")
    print("|---|---|---|---|---|---|---|")
    for k in (3, 4, 10):
        for n in (10**3, 10**4, 10**5, 10**6, 10**7):
            lower = TwoPairKRRLowerBound(mechanism="krr", k=k).epsilon(n, 1.0, 1e-6)
            start = time.perf_counter()
            thin = ThinnedClones(mechanism="krr", k=k).epsilon(n, 1.0, 1e-6)
            seconds = time.perf_counter() - start
            strong = StrongerClones(mechanism="krr", k=k).epsilon(n, 1.0, 1e-6)
            print(
                f"| {k} | {n:,} | {lower:.6g} | {thin:.6g} | {thin / lower - 1:.1e} | {strong:.6g} | {seconds:.2f} |",
                flush=True,
            )


def exact_reach(k: int, budget: float = 1.0) -> tuple[int, float]:
    """Largest ``n`` (to within 5 %) whose complete search takes at most ``budget`` seconds."""
    good, seconds = 2, search_seconds(2, k)
    bad = None
    while bad is None:
        n = good * 2
        t = search_seconds(n, k)
        if t <= budget:
            good, seconds = n, t
        else:
            bad = n
    while bad - good > max(1, good // 20):
        n = (good + bad) // 2
        t = search_seconds(n, k)
        if t <= budget:
            good, seconds = n, t
        else:
            bad = n
    return good, seconds


def comparison_rows() -> None:
    """The bounds of the book's comparison (``STANDARD_SPECS``) on one ε question each.

    ε₀ = 0.45 (inside Erlingsson et al.'s range), δ = 1e-6, the first call at these
    parameters on a fresh bound object, in milliseconds: the table the amplification
    chapter showed before its timings moved here.
    """
    from shufflelib.bounds.compare import STANDARD_SPECS

    print("\nThe book's comparison of the bounds: epsilon at eps0 = 0.45, delta = 1e-6 (milliseconds)\n")
    print("| bound | " + " | ".join(f"n = 1e{round(math.log10(n))}" for n in SIZES) + " |")
    print("|---|" + "---|" * len(SIZES))
    for spec in STANDARD_SPECS:
        bound = spec.bound()
        cells = []
        for n in SIZES:
            start = time.perf_counter()
            bound.epsilon(n, 0.45, DELTA)
            cells.append(f"{(time.perf_counter() - start) * 1e3:.1f}")
        print(f"| {spec.label} | " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    classes, notes = load_bounds()
    header = ["bound", "mechanism"] + [f"eps, n=1e{round(math.log10(n))}" for n in SIZES]
    header += [f"delta(eps={EPS}), n=1e6", f"max_eps0(eps={EPS}), n=1e6"]
    print(f"eps0 = {EPS0}, delta = {DELTA}; cells: value (wall-clock seconds)\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for cls in classes:
        for mechanism, kwargs in settings_for(cls):
            print("| " + " | ".join(row(cls, mechanism, kwargs)) + " |", flush=True)
    for note in notes:
        print(f"\nNote: {note}")
    comparison_rows()
    print("\nExact worst case of shuffled k-RR (eps0 = 1; eps = 0.1, k = 2: where δ ≈ 1e-6)\n")
    print("| k | largest n in 1 s | seconds at that n |")
    print("|---|---|---|")
    for k in (2, 3, 4):
        n, seconds = exact_reach(k)
        print(f"| {k} | {n:,} | {seconds:.2f} |", flush=True)
    binary_budget_rows()
    binary_epsilon_rows()
    thinned_bracket_rows()


if __name__ == "__main__":
    main()
