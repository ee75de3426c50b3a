"""Simulating shuffled randomized response: sufficient statistics against every message.

Chapter 1 (``book/local_randomizers.md``) simulates the shuffled count of binary randomized
response as the two binomials of its Proposition "The shuffled count is a sum of two
binomials" instead of drawing and shuffling every message. This script measures what that
saves: 10,000 runs of the count for ``n`` users by sufficient statistics
(:func:`shufflelib.simulation.simulate_binary_rr_counts`), and one run message by message
(:func:`shufflelib.simulation.simulate_messages`) for the ``n`` where that still fits in memory.

Run ``python benchmarks/bench_simulation.py``; it prints a Markdown table (wall-clock
milliseconds, best of three; the machine may be shared).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shufflelib.randomizers import BinaryRandomizedResponse  # noqa: E402
from shufflelib.simulation import simulate_binary_rr_counts, simulate_messages  # noqa: E402

RUNS = 10_000
SIZES = (10**3, 10**6, 10**9)
MESSAGE_LEVEL_MAX = 10**6  # one message-level run allocates n reports


def best_of_three_ms(fn) -> float:
    """Smallest wall-clock time of three calls of ``fn``, in milliseconds."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) * 1e3


def main() -> None:
    rng = np.random.default_rng(6)
    rr = BinaryRandomizedResponse(1.0)
    print("Shuffled binary randomized response, eps0 = 1, a third of the users holding 1\n")
    print(f"| n | {RUNS:,} runs, two binomials (ms) | one run, every message (ms) |")
    print("|---|---|---|")
    for n in SIZES:
        counts = best_of_three_ms(lambda n=n: simulate_binary_rr_counts(n // 3, n, 1.0, RUNS, rng))
        if n <= MESSAGE_LEVEL_MAX:
            x = np.r_[np.ones(n // 3, dtype=int), np.zeros(n - n // 3, dtype=int)]
            messages = f"{best_of_three_ms(lambda x=x: simulate_messages(rr, x, rng)):.2f}"
        else:
            messages = "(not run: n reports)"
        print(f"| {n:,} | {counts:.2f} | {messages} |", flush=True)


if __name__ == "__main__":
    main()
