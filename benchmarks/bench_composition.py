"""Tightness and speed of ``--compose``: the calculator's answers beside the truth, and their CPU time.

Run ``python benchmarks/bench_composition.py [--no-reference] [--rows N]``. Three tables:

1. **Tightness.** For a grid of pair-based bounds and inputs spanning ``T`` 1–10,000, ``n``
   2–10⁹, ``ε₀`` 0.05–10 and δ 1e-12–1e-3, the calculator's composed ε (``epsilon --compose T
   --json``, which the Python API's ``compose_bound(...).epsilon(δ)`` equals), its ``error``
   field, an independent bracket of the truth where affordable
   (:mod:`composition_reference`: the clone pair listed with scipy, every loss rounded up or
   down on a grid ``h`` with ``T h`` at most ``2e-4`` of ε, else ``1e-3``, composed by numpy's FFT), the
   tightest truth bracket the two give (``[max(answer − error, reference low), min(answer,
   reference high)]``; for the lower-bound pair of ``krr-two-pair-lower`` the other way round)
   and the excess ``answer / truth low − 1`` (at most this far above the truth; for a lower
   bound, ``1 − answer / truth high``, at most this far below), with the command's CPU seconds
   (in process, the interpreter's start-up excluded). The target of issue 26: every excess at
   most 0.1 %.
2. **Speed**: ``T = 1000`` at ``n = 10⁶`` (target 1 s of CPU) and the composed ε₀ question of
   every family (target 2 s).
3. The baselines beside the PLD answer.

``BEFORE`` holds the answers and CPU seconds of the same rows measured on the code before
issue 26 (commit 55e9d80, the same machine), for the table of the issue's note.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from shufflelib.__main__ import main  # noqa: E402
from shufflelib.calculator.base import QUESTIONS  # noqa: E402
from shufflelib.calculator.registry import family_of  # noqa: E402

#: (bound, n, eps0, rounds, delta): the tightness grid.
ROWS = [
    ("stronger-clones", 1_000, 1.0, 1, 1e-6),
    ("stronger-clones", 100_000, 0.5, 100, 1e-6),
    ("stronger-clones", 10_000, 2.0, 1000, 1e-8),
    ("stronger-clones", 1_000_000, 1.0, 1000, 1e-6),
    ("stronger-clones", 2, 1.0, 100, 1e-3),
    ("stronger-clones", 2, 0.05, 10, 1e-6),
    ("stronger-clones", 30, 1.0, 1000, 1e-6),
    ("stronger-clones", 1_000, 0.05, 100, 1e-12),
    ("stronger-clones", 1_000, 10.0, 10, 1e-6),
    ("stronger-clones", 100_000, 3.0, 10_000, 1e-9),
    ("stronger-clones", 1_000_000, 10.0, 10_000, 1e-12),
    ("stronger-clones", 1_000_000, 0.05, 10_000, 1e-3),
    ("stronger-clones", 10_000_000, 1.0, 10_000, 1e-9),
    ("stronger-clones", 1_000_000_000, 1.0, 1000, 1e-12),
    ("stronger-clones", 1_000_000_000, 0.05, 10_000, 1e-6),
    ("stronger-clones", 1_000_000_000, 10.0, 100, 1e-3),
    ("clones", 10_000, 1.0, 100, 1e-6),
    ("clones", 1_000_000, 3.0, 1000, 1e-10),
    ("thinned-clones", 100_000, 1.0, 100, 1e-6),
    ("krr-two-pair-lower", 10_000, 1.0, 100, 1e-6),
    ("krr-two-pair-lower", 1_000, 2.0, 10, 1e-9),
]

#: The same rows before issue 26 (commit 55e9d80, measured with this script's ``ask`` on the same
#: machine, under load): (answer, CPU seconds in process).
BEFORE: dict[tuple, tuple[float, float]] = {
    ("stronger-clones", 1000, 1.0, 1, 1e-06): (0.14867061697276704, 0.4),
    ("stronger-clones", 100000, 0.5, 100, 1e-06): (0.06451267940876038, 0.14),
    ("stronger-clones", 10000, 2.0, 1000, 1e-08): (5.7464745185873785, 1.52),
    ("stronger-clones", 1000000, 1.0, 1000, 1e-06): (0.15347715574043838, 0.23),
    ("stronger-clones", 2, 1.0, 100, 0.001): (56.39877117505805, 0.18),
    ("stronger-clones", 2, 0.05, 10, 1e-06): (0.42023826793243146, 0.08),
    ("stronger-clones", 30, 1.0, 1000, 1e-06): (60.920345492262946, 0.42),
    ("stronger-clones", 1000, 0.05, 100, 1e-12): (0.10230934991851656, 0.07),
    ("stronger-clones", 1000, 10.0, 10, 1e-06): (99.99999899395175, 0.18),
    ("stronger-clones", 100000, 3.0, 10000, 1e-09): (13.156648400409082, 0.6),
    ("stronger-clones", 1000000, 10.0, 10000, 1e-12): (378.0403640178333, 0.62),
    ("stronger-clones", 1000000, 0.05, 10000, 0.001): (0.007546023062134692, 0.35),
    ("stronger-clones", 10000000, 1.0, 10000, 1e-09): (0.26084161822555285, 0.38),
    ("stronger-clones", 1000000000, 1.0, 1000, 1e-12): (0.012309523257264856, 0.63),
    ("stronger-clones", 1000000000, 0.05, 10000, 1e-06): (0.002200065156135731, 0.73),
    ("stronger-clones", 1000000000, 10.0, 100, 0.001): (0.12464218872833642, 0.17),
    ("clones", 10000, 1.0, 100, 1e-06): (0.6280019492346973, 0.15),
    ("clones", 1000000, 3.0, 1000, 1e-10): (2.0353352505641045, 0.19),
    ("thinned-clones", 100000, 1.0, 100, 1e-06): (0.15247683919701277, 0.13),
    ("krr-two-pair-lower", 10000, 1.0, 100, 1e-06): (0.41066117261123475, 0.06),
    ("krr-two-pair-lower", 1000, 2.0, 10, 1e-09): (1.3731839893398248, 0.04),
}


def clone_probability(bound: str, eps0: float) -> float:
    """The clone probability of the pair a bound composes (thinned clones: the stronger-clone pair;
    the two-pair lower bound: its exact pair has no clone form, ``nan``)."""
    if bound == "clones":
        return math.exp(-eps0)
    if bound == "krr-two-pair-lower":
        return math.nan
    return 2.0 / (math.exp(eps0) + 1.0)


def ask(row: tuple) -> tuple[dict, float]:
    """The calculator's record for a row and its CPU seconds."""
    bound, n, eps0, rounds, delta = row
    argv = ["epsilon", "--bound", bound, "--n", str(n), "--eps0", repr(eps0), "--delta", repr(delta)]
    if bound in ("stronger-clones", "thinned-clones", "krr-two-pair-lower"):
        argv += ["--mechanism", "krr", "--k", "2"]
    argv += ["--compose", str(rounds), "--json"]
    out = io.StringIO()
    t0 = time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main(argv)
    cpu = time.process_time() - t0
    if status != 0:
        return {"eps": math.nan, "error": None}, cpu
    return json.loads(out.getvalue().strip().splitlines()[-1]), cpu


def reference(row: tuple, answer: float) -> tuple[float, float]:
    """The independent bracket of the truth (``nan`` where unaffordable or not a clone pair)."""
    from composition_reference import bracket, feasible_step

    bound, n, eps0, rounds, delta = row
    prob = clone_probability(bound, eps0)
    if math.isnan(prob) or not answer > 0.0:
        return math.nan, math.nan
    sigma = 2.0 * math.tanh(eps0 / 2.0) / math.sqrt(1.0 + (n - 1) * prob)
    h = feasible_step(sigma, rounds, answer) or feasible_step(sigma, rounds, answer, width=1e-3)
    if h is None:
        return math.nan, math.nan
    theta = max(answer - rounds * sigma**2 / 2.0, 0.0) / (rounds * sigma**2)  # the Gaussian saddle point
    try:
        return bracket(n, eps0, prob, rounds, delta, h, theta)
    except (ValueError, MemoryError):
        return math.nan, math.nan


def tightness(use_reference: bool, rows: list[tuple]) -> None:
    print(
        "| bound | n | ε₀ | T | δ | answer | error field | reference bracket | truth bracket | excess | CPU s "
        "| before: answer | before: excess | before: CPU s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        bound, n, eps0, rounds, delta = row
        record, cpu = ask(row)
        eps, error = record["eps"], record.get("error")
        lower = bound == "krr-two-pair-lower"
        ref = reference(row, eps) if use_reference else (math.nan, math.nan)
        if lower:  # the answer is a lower bound: truth in [max(answer, ref low), min(answer + error, ref high)]
            lo = max(eps, ref[0]) if not math.isnan(ref[0]) else eps
            hi = min(eps + error, ref[1]) if not math.isnan(ref[1]) else eps + error
            excess = f"−{1.0 - eps / hi:.4%}" if hi > 0 else "0"
        else:
            lo = max(eps - error, ref[0]) if not math.isnan(ref[0]) else eps - error
            hi = min(eps, ref[1]) if not math.isnan(ref[1]) else eps
            excess = f"{eps / lo - 1.0:.4%}" if lo > 0 else "—"
        shown = f"[{ref[0]:.7g}, {ref[1]:.7g}]" if not math.isnan(ref[0]) else "—"
        old, old_cpu = BEFORE.get(row, (math.nan, math.nan))
        if lower:
            old_excess = f"−{1.0 - old / hi:.4%}" if old <= hi else f"+{old / hi - 1.0:.4%}"
        else:
            old_excess = f"{old / lo - 1.0:.4%}" if lo > 0 else "—"
        print(
            f"| {bound} | {n:.0e} | {eps0} | {rounds} | {delta:.0e} | {eps:.7g} | {error:.2e} | {shown} "
            f"| [{lo:.7g}, {hi:.7g}] | {excess} | {cpu:.2f} | {old:.7g} | {old_excess} | {old_cpu:.2f} |",
            flush=True,
        )


#: The ε₀ question of every family: (bound, options), answered at (eps, delta) = (1, 1e-6).
EPS0_ROWS = [
    ("erlingsson", {"n": "1e4"}),
    ("blanket-hoeffding", {"n": "1e6"}),
    ("blanket-bennett", {"n": "1e6"}),
    ("clones-closed", {"n": "1e6"}),
    ("clones", {"n": "1e6"}),
    ("stronger-clones", {"n": "1e6", "mechanism": "krr", "k": "2"}),
    ("exact-krr", {"n": "1e6"}),
    ("exact-krr", {"n": "30"}),
    ("variation-ratio", {"n": "1e4"}),
    ("krr-two-pair-lower", {"n": "1e6", "k": "2"}),
    ("pers-clones", {"eps0": "0.5,1,2", "counts": "5000,3000,2000", "randomizer": "rr"}),
    ("pop-tight", {"population": "poisson:5000"}),
    ("pop-tight", {"population": "poisson:1000000"}),
    ("pop-binomial", {"population": "binomial:48842,0.2"}),
    ("segmented-exact", {"n": "5000", "m": "1.5", "d": "17", "s": "4"}),
]


def speed() -> None:
    """T = 1000 at n = 10⁶, and the composed ε₀ question of every family (T = 10 and 1000)."""
    row = ("stronger-clones", 1_000_000, 1.0, 1000, 1e-6)
    times = [ask(row)[1] for _ in range(3)]
    print(f"\nε question, stronger clones, n = 10⁶, ε₀ = 1, δ = 1e-6, T = 1000: CPU {min(times):.2f} s (best of 3)\n")
    question = next(q for q in QUESTIONS if q.command == "eps0")
    print("| bound | options | T | answer | wall (s) | CPU (s) |")
    print("|---|---|---|---|---|---|")
    for bound, options in EPS0_ROWS:
        family = family_of(bound)
        for rounds in (10, 1000):
            texts = {**options, "eps": "1", "delta": "1e-6", "compose": str(rounds)}
            t0, c0 = time.perf_counter(), time.process_time()
            record = family.ask(question, bound, texts)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            answer = record[family.answer_key(question, bound)]
            where = ", ".join(f"{k}={v}" for k, v in options.items())
            print(f"| {bound} | {where} | {rounds} | {answer:.4f} | {wall:.2f} | {cpu:.2f} |", flush=True)


def baselines() -> None:
    """The PLD answer beside Rényi DP, advanced and naive composition (stronger clones, ε₀ = 1, δ = 1e-6)."""
    print("\n| n | T | PLD | error | RDP | advanced | naive |")
    print("|---|---|---|---|---|---|---|")
    for n, rounds in [(10**4, 10), (10**4, 100), (10**6, 100), (10**6, 1000)]:
        record, _ = ask(("stronger-clones", n, 1.0, rounds, 1e-6))
        b = record["baselines"]
        print(
            f"| {n:.0e} | {rounds} | {record['eps']:.5f} | {record['error']:.1e} | {b['rdp']:.5f} "
            f"| {b['advanced']:.4f} | {b['naive']:.4f} |"
        )


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-reference", action="store_true", help="skip the independent bracket (minutes)")
    parser.add_argument("--rows", type=int, default=len(ROWS), help="only the first ROWS rows of the grid")
    args = parser.parse_args()
    tightness(not args.no_reference, ROWS[: args.rows])
    speed()
    baselines()


if __name__ == "__main__":
    cli()
