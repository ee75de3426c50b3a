"""Timings of two steps of every composition: the window's search over tilts and the spectrum's power.

:func:`shufflelib.composition.pld.compose` first bounds the window of the composed sum outside which
at most the tail's mass lies (Chernoff, over θ: ``_window``), then raises each round's spectrum to
its number of rounds (``_power``). Both run for every composition a question asks (an ε question
composes up to a dozen times). This prints two Markdown tables:

1. **Window.** For one round's distribution of ``N`` grid points (a random loss distribution,
   fixed seed) and ``T`` rounds: the CPU time of a window search (cold cache), how many θ it
   evaluates, and the window's length, beside a single grid of 96 θ (the search before issue 29's
   last stop) and a dense grid of 2,000 θ (the best a grid finds).
2. **Power.** ``z ** count`` over ``2^21`` complex entries (the spectrum of an FFT of length
   ``2^22``, the longest a fitted composition takes): NumPy's ``power`` (which switches from
   repeated multiplication to ``exp(count · log z)`` at 100) beside ``_integer_power``, with the
   largest relative difference of the two.

Run ``python benchmarks/bench_compose_steps.py``. CPU seconds of this thread, best of three.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shufflelib.composition.pld import (  # noqa: E402
    WINDOW_STAGES,
    WINDOW_TAIL,
    WINDOW_THETAS,
    LossDistribution,
    _integer_power,
    _window,
)


def best_of_three(work: Callable[[], object]) -> tuple[float, object]:
    times, out = [], None
    for _ in range(3):
        start = time.thread_time()
        out = work()
        times.append(time.thread_time() - start)
    return min(times), out


def grid_window(ld: LossDistribution, rounds: int, points: int) -> tuple[int, int]:
    """The Chernoff window read on one geometric grid of ``points`` θ (the reference)."""
    top = rounds * (ld.mass.size - 1)
    theta = np.geomspace(1e-3 / top, 50.0, points)
    base = ld.log_mgf(np.array([0.0]))
    k_up, k_down = rounds * (ld.log_mgf(theta) - base), rounds * (ld.log_mgf(-theta) - base)
    log_tail = math.log(WINDOW_TAIL)
    return math.floor(float(np.max((log_tail - k_down) / theta))), math.ceil(float(np.min((k_up - log_tail) / theta)))


def windows() -> None:
    print(f"Window search: {WINDOW_STAGES} stages of {WINDOW_THETAS} θ per side; tail {WINDOW_TAIL:g}\n")
    print("| N | T | staged (ms) | θ read | length | 96 θ (ms) | length | 2,000 θ length |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(29)
    for size, rounds in ((9_173, 66), (36_687, 66), (471_819, 163), (36_687, 10_000)):
        mass = rng.random(size) ** 4
        mass /= mass.sum()

        def staged(mass: np.ndarray = mass, rounds: int = rounds) -> tuple[int, int]:
            ld = LossDistribution(step=1e-3, offset=-(mass.size // 2), mass=mass)  # a fresh cache each run
            return _window([(ld, rounds)], WINDOW_TAIL)

        seconds, (lo, hi) = best_of_three(staged)
        ld = LossDistribution(step=1e-3, offset=-size // 2, mass=mass)
        old_seconds, (old_lo, old_hi) = best_of_three(lambda ld=ld, rounds=rounds: grid_window(ld, rounds, 96))
        dense_lo, dense_hi = grid_window(ld, rounds, 2_000)
        print(
            f"| {size:,} | {rounds:,} | {1e3 * seconds:.1f} | {2 * WINDOW_STAGES * WINDOW_THETAS} | {hi - lo + 1:,} "
            f"| {1e3 * old_seconds:.1f} | {old_hi - old_lo + 1:,} | {dense_hi - dense_lo + 1:,} |",
            flush=True,
        )


def powers() -> None:
    print("\nSpectral power over 2^21 complex entries\n")
    print("| count | numpy.power (s) | _integer_power (s) | largest relative difference |")
    print("|---:|---:|---:|---:|")
    rng = np.random.default_rng(29)
    size = 2**21
    z = rng.random(size) ** 1e-3 * np.exp(2j * math.pi * rng.random(size))
    for count in (10, 99, 100, 163, 1_000, 10_000):
        numpy_seconds, reference = best_of_three(lambda count=count: np.power(z, count))
        seconds, ours = best_of_three(lambda count=count: _integer_power(z, count))
        scale = np.maximum(np.abs(reference), np.finfo(float).tiny)
        difference = float(np.max(np.abs(ours - reference) / scale))
        print(f"| {count:,} | {numpy_seconds:.3f} | {seconds:.3f} | {difference:.1e} |", flush=True)


if __name__ == "__main__":
    windows()
    powers()
