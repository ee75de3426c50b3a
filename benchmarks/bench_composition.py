"""Time the composition of shuffled rounds and print a Markdown table.

Run ``python benchmarks/bench_composition.py``. Each row composes ``T`` rounds
of one bound at ``n`` users, ``eps0 = 1``, and answers ε at ``delta = 1e-6``;
the columns split the wall-clock time into building one round's loss
distribution, composing (FFT) and inverting (ε from δ), with the default grid
step (discretization error ``T · step <= 0.01``). The target of issue 15 is
``T = 1000`` at ``n = 1e6`` in at most 2 s for stronger clones and exact k-RR.
A block gives the baselines (RDP, advanced, naive) for the same rows.

Then the bounds that are only a privacy profile (``--compose`` builds a pair from the
profile, :mod:`shufflelib.composition.profile`): the profile route against the pair route
for stronger clones (how much the construction loses), the composed ε of profile bounds
against the baselines, and the time of the ε₀ question ("largest ε₀ per round such that
``T`` rounds are ``(1, 1e-6)``-DP") for every family, wall clock and CPU (the machine may be
shared: the CPU time is the fairer number).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from shufflelib.bounds import (  # noqa: E402
    BlanketBennett,
    BlanketHoeffding,
    ClonesClosedForm,
    ClonesNumerical,
    ErlingssonBound,
    ExactKRR,
    StrongerClones,
    TwoPairKRRLowerBound,
)
from shufflelib.calculator.base import QUESTIONS  # noqa: E402
from shufflelib.calculator.registry import family_of  # noqa: E402
from shufflelib.composition import (  # noqa: E402
    ComposedCurve,
    bound_model,
    compare_composition,
    composed_epsilon,
    default_step,
    round_distributions,
)
from shufflelib.composition.pld import compose  # noqa: E402
from shufflelib.composition.profile import sampled_profile_pld  # noqa: E402

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

    profile_vs_pair()
    profile_bounds()
    eps0_question()


def profile_vs_pair() -> None:
    """Stronger clones composed through its own pair and through the pair built from its profile."""
    sc = StrongerClones(mechanism="krr", k=2)
    print("\n| n | T | pair route | profile route | relative | pair discretization error |")
    print("|---|---|---|---|---|---|")
    for n in (10**4, 10**6):
        for rounds in (1, 10, 100, 1000):
            step = default_step(n, EPS0, rounds)
            (pair,), _ = round_distributions(sc, n, EPS0, step)

            def profile(e, n=n):
                return np.array([sc.delta(n, EPS0, float(x)) for x in e])

            built = sampled_profile_pld(profile, step, eps_max=EPS0)
            e_pair = ComposedCurve([compose([(pair, rounds)])]).epsilon(DELTA)
            e_prof = ComposedCurve([compose([(built, rounds)])]).epsilon(DELTA)
            print(
                f"| {n:.0e} | {rounds} | {e_pair:.5f} | {e_prof:.5f} | {e_prof / e_pair - 1:+.2%} "
                f"| {rounds * step:.1e} |"
            )


def profile_bounds() -> None:
    """Composed ε of bounds that are only a profile, against the baselines (eps0 = 0.4, n = 1e4 / 1e6)."""
    print("\n| bound | n | eps0 | T | one round | PLD (profile route) | RDP | advanced | naive |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = [
        (ErlingssonBound(), 10**4, 0.4),
        (BlanketHoeffding(), 10**6, 1.0),
        (BlanketBennett(), 10**6, 1.0),
        (ClonesClosedForm(), 10**6, 1.0),
        (ExactKRR(mechanism="krr", k=2), 50, 1.0),
    ]
    for bound, n, eps0 in rows:
        model = bound_model(bound, n)
        for rounds in (10, 100, 1000):
            r = composed_epsilon(model, eps0, rounds, DELTA)
            print(
                f"| {bound.name} | {n:.0e} | {eps0} | {rounds} | {bound.epsilon(n, eps0, DELTA):.4f} "
                f"| {r['eps']:.4f} | {r['rdp']:.4f} | {r['advanced']:.4f} | {r['naive']:.4f} |"
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


def eps0_question() -> None:
    """Time of the composed ε₀ question, T = 10 and 1000, with every family's calculator."""
    question = next(q for q in QUESTIONS if q.command == "eps0")
    print("\n| bound | options | T | answer | wall (s) | CPU (s) |")
    print("|---|---|---|---|---|---|")
    for bound, options in EPS0_ROWS:
        family = family_of(bound)
        for rounds in (10, 1000):
            texts = {**options, "eps": "1", "delta": str(DELTA), "compose": str(rounds)}
            t0, c0 = time.perf_counter(), time.process_time()
            record = family.ask(question, bound, texts)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            answer = record[family.answer_key(question, bound)]
            where = ", ".join(f"{k}={v}" for k, v in options.items())
            print(f"| {bound} | {where} | {rounds} | {answer:.4f} | {wall:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
