"""Timings for the segmented protocol (issue 5): prints a Markdown table.

Targets: optimising the parameters for n = 10^6 users and K = 3 levels in under 2 s; one
simulated run at n = 10^6, d = 128 in under 1 s.

    python benchmarks/bench_segmented.py
"""

from __future__ import annotations

import time

import numpy as np

from shufflelib.segmented.exact_item import ExactItemCurve
from shufflelib.segmented.experiments import level_counts_for, segmented_errors
from shufflelib.segmented.optimize import max_reporting_probability, optimize_parameters
from shufflelib.segmented.populations import UniformSets, msnbc_like
from shufflelib.segmented.protocol import SegmentedParameters, run_protocol
from shufflelib.segmented.variation_ratio import poisson_item_pair

LEVELS = [0.5, 1.0, 2.0]


def best_of(fn, repeat: int = 3) -> float:
    """Smallest wall-clock time of ``repeat`` calls (seconds)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    n = 10**6
    delta = 0.01 / n
    counts = level_counts_for(n, "S1")
    uniform = UniformSets(128, 4)
    msnbc = msnbc_like(np.random.default_rng(0), size=20_000)
    rng = np.random.default_rng(1)
    params = SegmentedParameters(0.5, (0.5, 0.9, 1.0))
    small_sets = uniform.sample_sets(10_000, rng)
    small_levels = np.repeat([0, 1, 2], level_counts_for(10_000, "S1"))
    rows = [
        (
            "optimise m and lambda, n = 10^6, K = 3, d = 17, s = 4 (Theorem 3, 24-point grid)",
            "< 2 s",
            lambda: optimize_parameters(LEVELS, counts, 17, 4, delta),
        ),
        (
            "optimise m and lambda, n = 10^6, K = 3, d = 128, s = 4 (Theorem 3, 24-point grid)",
            "< 2 s",
            lambda: optimize_parameters(LEVELS, counts, 128, 4, delta),
        ),
        (
            "one simulated run, n = 10^6, d = 128, s = 4 (fresh data + protocol + estimate)",
            "< 1 s",
            lambda: segmented_errors(uniform, counts, params, rng, 1),
        ),
        (
            "one simulated run, n = 10^6, MSNBC-like d = 17 (fresh data + protocol + estimate)",
            "< 1 s",
            lambda: segmented_errors(msnbc, counts, params, rng, 1),
        ),
        (
            "one item delta, paper's pair, n = 10^6, m = 0.5",
            "",
            lambda: poisson_item_pair(n, 0.5, 17, 0.5).delta([0.02]),
        ),
        (
            "one item delta, exact curve (with the total count), n = 10^6, m = 0.5",
            "",
            lambda: ExactItemCurve(n, 0.5, 17, 0.5).delta(0.02),
        ),
        (
            "largest lambda of one level, exact accounting, n = 10^6, m = 0.05",
            "",
            lambda: max_reporting_probability(n, 0.05, 17, 4, 0.5, delta, accounting="exact"),
        ),
        (
            "message-level run of Algorithm 2, n = 10^4, d = 128",
            "",
            lambda: run_protocol(small_sets, small_levels, params, 128, rng),
        ),
    ]
    print("| task | target | time (best of 3) |")
    print("|---|---|---|")
    for label, target, fn in rows:
        print(f"| {label} | {target} | {best_of(fn):.3f} s |")


if __name__ == "__main__":
    main()
