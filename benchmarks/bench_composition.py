"""Time the composition of shuffled rounds and print a Markdown table.

Run ``python benchmarks/bench_composition.py``. Each row composes ``T`` rounds
of one bound at ``n`` users, ``eps0 = 1``, and answers ε at ``delta = 1e-6``;
the columns split the wall-clock time into building one round's loss
distribution, composing (FFT) and inverting (ε from δ), with the default grid
step (discretization error ``T · step <= 0.01``). The target of issue 15 is
``T = 1000`` at ``n = 1e6`` in at most 2 s for stronger clones and exact k-RR.
A last block gives the baselines (RDP, advanced, naive) for the same rows.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shufflelib.bounds import ClonesNumerical, StrongerClones, TwoPairKRRLowerBound  # noqa: E402
from shufflelib.composition import ComposedCurve, compare_composition, default_step, round_distributions  # noqa: E402
from shufflelib.composition.pld import compose  # noqa: E402

EPS0, DELTA = 1.0, 1e-6
ROWS = [(10**4, 10), (10**4, 100), (10**6, 100), (10**6, 1000), (10**8, 1000)]
BOUNDS = [StrongerClones(mechanism="krr", k=2), TwoPairKRRLowerBound(mechanism="krr", k=2), ClonesNumerical()]


def timed(bound, n: int, rounds: int) -> tuple[float, float, float, float, int]:
    """(ε, build s, compose s, invert s, FFT window) for one row."""
    step = default_step(n, EPS0, rounds)
    t0 = time.perf_counter()
    lds, lower = round_distributions(bound, n, EPS0, step)
    t1 = time.perf_counter()
    composed = [compose([(ld, rounds)]) for ld in lds]
    t2 = time.perf_counter()
    eps = ComposedCurve(composed, lower_bound=lower).epsilon(DELTA)
    t3 = time.perf_counter()
    return eps, t1 - t0, t2 - t1, t3 - t2, composed[0].mass.size


def main() -> None:
    print(f"eps0 = {EPS0}, delta = {DELTA}\n")
    print("| bound | n | T | eps | build (s) | compose (s) | invert (s) | total (s) | grid points |")
    print("|---|---|---|---|---|---|---|---|---|")
    for bound in BOUNDS:
        for n, rounds in ROWS:
            eps, b, c, i, size = timed(bound, n, rounds)
            print(
                f"| {bound.name} | {n:.0e} | {rounds} | {eps:.4f} | {b:.3f} | {c:.3f} | {i:.3f} "
                f"| {b + c + i:.3f} | {size} |"
            )
    print("\n| bound | n | T | PLD | RDP | advanced | naive |")
    print("|---|---|---|---|---|---|---|")
    for bound in BOUNDS[:1]:
        for n, rounds in ROWS[:4]:
            r = compare_composition(bound, n, EPS0, rounds, DELTA)
            print(
                f"| {bound.name} | {n:.0e} | {rounds} | {r['pld']:.4f} | {r['rdp']:.4f} "
                f"| {r['advanced']:.4f} | {r['naive']:.4f} |"
            )


if __name__ == "__main__":
    main()
