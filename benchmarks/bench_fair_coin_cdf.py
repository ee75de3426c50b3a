"""Timings of a fair coin's cdf near its median: Boost's, and the run from the median.

Every clone-pair δ evaluates ``Pr(Bin(m, 1/2) <= r)`` for every clone-count block ``m`` and
every ε asked (:func:`shufflelib.bounds.clone_pair.binomial_shortfall`). Near the median, Boost's
incomplete beta function is slow (a continued fraction: tens of µs at ``10^9`` trials); there the
library sums pmf terms from the median instead (``_fair_coin_cdf``), one run per ``m`` shared by
every threshold of that ``m``. This prints a Markdown table: for ``m`` around ``10^6``, ``10^8``
and ``10^9`` (1,000 distinct ``m``) and thresholds at a depth ``z`` standard deviations below the median
(``k`` thresholds per ``m``, spread over ``[0, z]``), the µs per value of each, and the largest
relative difference between them.

Run ``python benchmarks/bench_fair_coin_cdf.py``. CPU seconds of this thread, best of three.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy.stats import binom

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shufflelib.bounds.clone_pair import _fair_coin_cdf  # noqa: E402


def best_of_three(fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.thread_time()
        fn()
        best = min(best, time.thread_time() - start)
    return best


def main() -> None:
    print("| m | z | thresholds per m | Boost (µs a value) | run (µs a value) | served | largest relative difference |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for m0 in (1e6, 1e8, 1e9):
        for z, per in ((0.05, 1), (0.25, 4), (0.5, 12)):
            m = np.repeat(m0 + 101.0 * np.arange(1_000), per)
            r = np.floor(m / 2 - np.tile(np.linspace(z / per, z, per), 1_000) * np.sqrt(m) / 2) - 1
            boost = best_of_three(lambda m=m, r=r: binom.cdf(r, m, 0.5))
            run = best_of_three(lambda m=m, r=r: _fair_coin_cdf(m, r))
            served, cdf, _ = _fair_coin_cdf(m, r)
            reference = binom.cdf(r, m, 0.5)
            diff = float(np.max(np.abs(cdf[served] / reference[served] - 1.0))) if served.any() else float("nan")
            print(
                f"| {m0:.0e} | {z} | {per} | {boost / m.size * 1e6:.2f} | {run / m.size * 1e6:.2f} "
                f"| {served.mean():.0%} | {diff:.1e} |"
            )


if __name__ == "__main__":
    main()
