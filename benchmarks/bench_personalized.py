"""Timings of the personalized chapter's bounds for heterogeneous populations.

The speed target of the chapter: every bound for n = 10^6 heterogeneous users
(a Table 1 population, up to 1,500 levels) in under one second, for the
epsilon question (a certified root of the privacy profile) and the delta
question. Each cell is the median of three runs in a fresh cache state
(cached plans are cleared before each run, so construction is included).

Run ``python benchmarks/bench_personalized.py``; it prints a Markdown table.
"""

from __future__ import annotations

import statistics
import time

from shufflelib.personalized.bounds import (
    BlanketAtMax,
    GaussianDPApproximation,
    LZXProxy,
    PaperClonePair,
    PaperTheorem2,
    PaperTheorem2Printed,
    SoundClones,
    StrongerClonesAtMax,
)
from shufflelib.personalized.mechanisms import LocalMechanism
from shufflelib.personalized.population import table1_population
from shufflelib.personalized.sound import _sound_pieces
from shufflelib.personalized.theorems import _paper_plan

REPEATS = 3


def _clear() -> None:
    _paper_plan.cache_clear()
    _sound_pieces.cache_clear()


def _time(fn) -> float:
    runs = []
    for _ in range(REPEATS):
        _clear()
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    laplace, rr = LocalMechanism("laplace"), LocalMechanism("rr")
    gaussian = LocalMechanism("gaussian", "classical")
    cases = [
        ("Theorem 2 (paper)", PaperTheorem2(laplace), False),
        ("Theorem 2 as printed", PaperTheorem2Printed(laplace), False),
        ("clone pair, paper's p", PaperClonePair(laplace), False),
        ("sound clones, Laplace", SoundClones(laplace), False),
        ("sound clones, Gaussian", SoundClones(gaussian), True),
        ("sound clones, RR", SoundClones(rr), False),
        ("FV at max", StrongerClonesAtMax(laplace), False),
        ("BBGN at max", BlanketAtMax(laplace), False),
        ("CCC (GDP)", GaussianDPApproximation(laplace), False),
        ("LZX proxy", LZXProxy(laplace), False),
    ]
    print("| bound | population | n | levels | epsilon(1e-6) [s] | delta(0.01) [s] | epsilon |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for setting in ("Uniform1", "Gauss2"):
        for n in (10_000, 1_000_000):
            for label, bound, approximate in cases:
                pop = table1_population(setting, n, delta=1e-10 if approximate else 0.0)
                t_eps = _time(lambda b=bound, p=pop: b.epsilon(p, 1e-6))
                t_delta = _time(lambda b=bound, p=pop: b.delta(p, 0.01))
                value = bound.epsilon(pop, 1e-6)
                print(f"| {label} | {setting} | {n:,} | {pop.levels} | {t_eps:.3f} | {t_delta:.3f} | {value:.5f} |")


if __name__ == "__main__":
    main()
