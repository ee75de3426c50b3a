"""An independent composition of clone pairs, to bracket the truth the library's answers are held to.

Nothing here calls ``shufflelib``'s composition code: the clone pair's atoms are listed with
``scipy.stats.binom`` directly (every clone count up to ``EXACT_COUNTS`` counts, else blocks a
tenth as wide as the library's, left ends for the upper side, right ends for the lower side),
every loss is rounded **up** (upper side) or **down** (lower side) onto a fine grid ``h`` (the
plain discretization, whose error is at most ``T h`` and of first order, unlike the library's
connect-the-dots and merging), the ``T``-fold convolution is one numpy FFT of the exponentially
tilted masses (the tilt puts the FFT's rounding where δ is read), and ε is found by bisection on
the exact δ formula of the composed grid. The two sides bracket the exact composition of the
pair: ``upper_side >= truth >= lower_side``, up to the FFT's rounding, which this reference does
not bound (a cross-check, not a certificate).

``bracket(n, eps0, prob, rounds, delta, h)`` returns ``(lower, upper)``; ``feasible_step`` picks
``h`` so that the bracket is at most ``width`` relative, when the FFT stays below ``2^23``
points. Used by ``bench_composition.py`` and by ``tests/test_composition_tight.py``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp
from scipy.stats import binom

EXACT_COUNTS = 3000
#: Relative width of a block of clone counts (the library uses 2e-4).
BLOCK_RTOL = 2e-5
#: Binomial standard deviations of the listed atoms, and tail of the clone count.
Z, COUNT_TAIL = 13.0, 1e-30
MAX_POINTS = 2**23


def clone_atoms(n: int, eps0: float, prob: float, upper: bool) -> tuple[np.ndarray, np.ndarray]:
    """Losses and P-masses of the clone pair ``C ~ Bin(n − 1, prob)`` (blocks on the ``upper`` side)."""
    trials = n - 1
    lo, hi = _quantile(trials, prob, below=True), _quantile(trials, prob, below=False)
    counts = np.arange(lo, hi + 1)
    width = 1 if counts.size <= EXACT_COUNTS else max(1, int(BLOCK_RTOL * max(lo, 1)))
    starts = counts[::width]
    stops = np.minimum(starts + width - 1, hi)
    weight = binom.cdf(stops, trials, prob) - binom.cdf(starts - 1, trials, prob)
    reps = starts if upper else stops
    u = 2.0 / (1.0 + math.exp(-eps0))
    v = 2.0 - u
    losses, masses = [], []
    for c, w in zip(reps, weight, strict=True):
        m = int(c) + 1
        spread = Z * math.sqrt(m) / 2.0
        j = np.arange(max(0, math.floor(m / 2 - spread)), min(m, math.ceil(m / 2 + spread)) + 1, dtype=float)
        pmf = binom.pmf(j, m, 0.5)
        num, den = v * m + (u - v) * j, v * m + (u - v) * (m - j)
        losses.append(np.log(num) - np.log(den))
        masses.append(w * pmf * num / (v * m + (u - v) * m / 2.0))
    return np.concatenate(losses), np.concatenate(masses)


def _quantile(trials: int, prob: float, below: bool) -> int:
    """The last count with ``cdf <= COUNT_TAIL`` (``below``) or the first with ``sf <= COUNT_TAIL``, by bisection."""
    a, b = 0, trials
    while b - a > 1:
        mid = (a + b) // 2
        small = binom.cdf(mid, trials, prob) <= COUNT_TAIL if below else binom.sf(mid, trials, prob) > COUNT_TAIL
        a, b = (mid, b) if small else (a, mid)
    return a if below else b


def _compose(k: np.ndarray, p: np.ndarray, rounds: int, theta: float, h: float) -> tuple[int, np.ndarray]:
    """``rounds``-fold convolution of the grid pmf (indices ``k``, masses ``p``), tilted by ``theta``."""
    lo = int(k.min())
    pmf = np.bincount((k - lo).astype(np.int64), weights=p)
    idx = np.arange(pmf.size)
    with np.errstate(divide="ignore"):
        logs = np.log(pmf) + theta * h * idx
    log_m = float(logsumexp(logs))
    tilted = np.exp(logs - log_m)
    mean = float(tilted @ idx)
    sd = math.sqrt(max(float(tilted @ (idx - mean) ** 2), 1e-300))
    centre, half = rounds * mean, 12.0 * math.sqrt(rounds) * sd + 4.0 * pmf.size
    first, last = max(0, int(centre - half)), min(rounds * (pmf.size - 1), int(centre + half) + 1)
    size = last - first + 1
    if size > MAX_POINTS:
        raise ValueError(f"the reference needs {size} points (> {MAX_POINTS})")
    length = 1 << (size - 1).bit_length()
    folded = np.bincount(idx % length, weights=tilted, minlength=length)
    out = np.fft.irfft(np.fft.rfft(folded) ** rounds, n=length)
    out = np.roll(out, -(first % length))[:size]
    grid = rounds * lo + first + np.arange(size)
    with np.errstate(divide="ignore"):
        logs = np.log(np.maximum(out, 0.0)) + rounds * log_m - theta * h * (grid - rounds * lo)
    return rounds * lo + first, np.exp(np.minimum(logs, 0.0))


def _epsilon(offset: int, mass: np.ndarray, h: float, delta: float) -> float:
    loss = (offset + np.arange(mass.size)) * h

    def delta_at(e: float) -> float:
        above = loss > e
        return float(mass[above] @ -np.expm1(e - loss[above]))

    lo, hi = 0.0, float(loss[-1])
    if delta_at(0.0) <= delta:
        return 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if delta_at(mid) > delta:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def side(n: int, eps0: float, prob: float, rounds: int, delta: float, h: float, upper: bool, theta: float) -> float:
    """ε of one side of the bracket (losses rounded up for ``upper``, down otherwise)."""
    loss, p = clone_atoms(n, eps0, prob, upper)
    k = np.ceil(loss / h) if upper else np.floor(loss / h)
    offset, mass = _compose(k, p, rounds, theta, h)
    return _epsilon(offset, mass, h, delta)


def bracket(n: int, eps0: float, prob: float, rounds: int, delta: float, h: float, theta: float) -> tuple[float, float]:
    """``(lower, upper)`` ε of the ``rounds``-fold clone pair at ``delta`` on the grid ``h``."""
    return (
        side(n, eps0, prob, rounds, delta, h, False, theta),
        side(n, eps0, prob, rounds, delta, h, True, theta),
    )


def feasible_step(sigma: float, rounds: int, eps: float, width: float = 2e-4) -> float | None:
    """A grid step giving a bracket about ``width`` wide relative to ``eps`` (``T h <= width eps``), or ``None``
    if the composed grid would exceed ``MAX_POINTS`` (``±12`` standard deviations of ``T`` rounds of
    a loss of deviation ``sigma``)."""
    h = width * eps / rounds
    points = 24.0 * math.sqrt(rounds) * sigma / h
    return h if points <= MAX_POINTS and h > 0 else None
