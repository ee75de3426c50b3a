"""Timings of the pure-DP aggregation code (shufflelib.puredp); prints a table.

Run from the repository root: ``python benchmarks/bench_puredp.py``. Targets of
issue #7: 10^4 simulated runs at n = 10^6 in under 1 s, and the exact checker for
every n <= 10 in under 5 s.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from shufflelib.puredp import (
    CountingParams,
    counting_params,
    exact_privacy_loss,
    histogram_params,
    privacy_certificate,
    real_sum_params,
    simulate_estimates,
    simulate_histograms,
    simulate_real_sum,
    simulate_view,
)


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    """Smallest wall-clock time of ``repeat`` calls, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    n = 10**6
    practical = counting_params(n, 1.0, 0.5)
    rule_d = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0)
    corrected_small_eps = counting_params(n, 0.1, 0.5, rule="corrected")
    real_params = real_sum_params(n, 1.0)
    hist_params = histogram_params(n, 1.0)

    rows = [
        (
            "simulate_estimates: 10^4 runs, n = 10^6",
            lambda: simulate_estimates(n, n // 3, practical, 10_000, rng),
            "< 1 s",
        ),
        ("simulate_view: 10^4 runs, n = 10^6", lambda: simulate_view(n, n // 3, practical, 10_000, rng), "< 1 s"),
        (
            "exact_privacy_loss, rule D, every n = 2..10",
            lambda: [exact_privacy_loss(m, rule_d) for m in range(2, 11)],
            "< 5 s",
        ),
        (
            "exact_privacy_loss, practical rule, every n = 2..10",
            lambda: [exact_privacy_loss(m, counting_params(m, 1.0, 0.5)) for m in range(2, 11)],
            "< 5 s",
        ),
        ("privacy_certificate, practical rule, n = 10^6", lambda: privacy_certificate(practical), ""),
        (
            f"privacy_certificate, corrected rule, eps = 0.1 (lam = {corrected_small_eps.lam:.1e})",
            lambda: privacy_certificate(corrected_small_eps),
            "",
        ),
        ("counting_params, practical rule, n = 10^6", lambda: counting_params(n, 1.0, 0.5), ""),
        (f"real_sum_params, n = 10^6 ({len(real_params.levels)} levels)", lambda: real_sum_params(n, 1.0), ""),
        (
            "simulate_real_sum: 10^4 runs, n = 10^6, 16 distinct values",
            lambda: simulate_real_sum(np.linspace(0, 1, 16), np.full(16, n // 16), real_params, 10_000, rng),
            "",
        ),
        (
            "simulate_histograms: 10^4 runs, B = 64",
            lambda: simulate_histograms(np.full(64, n // 64), hist_params, 10_000, rng),
            "",
        ),
    ]
    width = max(len(name) for name, _, _ in rows)
    print(f"{'operation':<{width}}  {'time':>10}  target")
    print("-" * (width + 22))
    for name, fn, target in rows:
        print(f"{name:<{width}}  {best_of(fn) * 1e3:8.1f} ms  {target}")


if __name__ == "__main__":
    main()
