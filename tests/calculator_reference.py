"""A tight reference for the composed ε of a clone pair: an optimistic and a pessimistic
fine-grid composition of the same pair, which bracket the true composed ε.

The website's calculator composes T rounds of the clones and stronger-clones pairs in the
browser (``_static/calculator/compose.js``); its tests and ``benchmarks/calculator_gap.py``
check it against this bracket, computed independently with the library's discretized loss
distributions (``shufflelib.composition.pld``: ``compose`` and ``LossDistribution``) from the
pair's atoms enumerated here:

* **pessimistic**: clone counts in blocks at their *left* end (fewer clones: a worse pair), every
  loss rounded *up* to the grid, the neglected tails at +∞ or at the lowest loss: an upper bound;
* **optimistic**: blocks at their *right* end, losses rounded *down*, neglected tails dropped: a
  lower bound (the library's optimistic distributions and composition).

The pair: given ``M = m`` clones, ``P(j) = b(j)(1 + x_j)``, ``Q(j) = b(j)(1 − x_j)`` with
``b = Bin(m, 1/2)`` and ``x_j = tanh(ε₀/2)(2j − m)/m`` (the clone pair of
``shufflelib.composition.clone_pld``), ``M = C + 1``, ``C ~ Bin(n − 1, p)``. The two ε differ by
at most the rounding ``T·step`` plus the blocks' slack, so a fine ``step`` brackets the truth
tightly; the bracket's width is returned with it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import binom

from shufflelib.bounds.clone_pair import binomial_range
from shufflelib.composition.pld import LossDistribution, compose, window_tail

__all__ = ["clone_pair_bracket", "pair_probability"]

#: Half-width of the enumerated atoms of J given M = m, in standard deviations of J.
_Z = 13.0


def pair_probability(bound: str, eps0: float) -> float:
    """The clone probability of the bound's pair: ``e^{-eps0}`` (clones), ``2/(e^{eps0}+1)`` (stronger clones)."""
    return math.exp(-eps0) if bound == "clones" else 2.0 / (math.exp(eps0) + 1.0)


def _round(n: int, eps0: float, p: float, step: float, blocks: int, pessimistic: bool) -> LossDistribution:
    t = math.tanh(eps0 / 2.0)
    lo, hi = binomial_range(n - 1, p, 1e-30)
    edges = np.unique(np.linspace(lo, hi + 1, min(blocks, hi - lo + 1) + 1).round())
    first, last = edges[:-1], edges[1:] - 1.0  # blocks [first, last] of clone counts
    if pessimistic:
        last = last.copy()
        last[-1] = n - 1  # the upper tail joins the last block (at its left end)
    weight = binom.cdf(last, n - 1, p) - binom.cdf(first - 1.0, n - 1, p)
    inf = float(binom.cdf(lo - 1.0, n - 1, p)) if pessimistic else 0.0
    counts = (first if pessimistic else last) + 1.0  # M = C + 1 at the block's left or right end
    keys, masses = [], []
    for m, w in zip(counts, weight, strict=True):
        spread = _Z * math.sqrt(m) / 2.0
        j = np.arange(max(0.0, math.floor(m / 2 - spread)), min(m, math.ceil(m / 2 + spread)) + 1.0)
        x = t * (2.0 * j - m) / m
        prob = w * binom.pmf(j, m, 0.5) * (1.0 + x)
        loss = np.log1p(x) - np.log1p(-x)
        slack = 1e-12 * (1.0 + np.abs(loss)) / step
        keys.append(np.ceil(loss / step + slack) if pessimistic else np.floor(loss / step - slack))
        masses.append(prob)
        outside = 2.0 * w * math.exp(-2.0 * (spread - 1.0) ** 2 / m)  # Hoeffding, P-weight <= 2
        if pessimistic:
            inf += outside  # the upper tail to +∞; the lower tail, bounded alike, also to +∞ (safe)
    k = np.concatenate(keys)
    mass = np.concatenate(masses)
    k0 = int(k.min())
    grid = np.bincount((k - k0).astype(np.int64), weights=mass)
    if pessimistic:
        grid *= 1.0 + 1e-9  # scipy's pmf / cdf budget (shufflelib.bounds.clone_pair.BINOM_RTOL)
    else:
        grid *= 1.0 - 1e-9
    return LossDistribution(step, k0, grid, min(inf, 1.0), pessimistic, max_loss=eps0)


def clone_pair_bracket(
    n: int, eps0: float, p: float, rounds: int, delta: float, step: float, blocks: int = 1024
) -> tuple[float, float]:
    """``(lower, upper)``: the optimistic and pessimistic composed ε of ``rounds`` rounds of the pair.

    Examples
    --------
    >>> lo, up = clone_pair_bracket(10_000, 1.0, pair_probability("clones", 1.0), 10, 1e-6, 1e-5)
    >>> 0 < lo <= up < 1.01 * lo
    True
    """
    tail = window_tail(delta)
    out = []
    for pessimistic in (False, True):
        ld = _round(n, eps0, p, step, blocks, pessimistic)
        composed = ld if rounds == 1 else compose([(ld, rounds)], tail=tail)
        out.append(min(composed.epsilon(delta), rounds * eps0))
    return out[0], out[1]
