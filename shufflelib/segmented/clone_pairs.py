r"""Hockey-stick divergences of variation-ratio pairs, computed in O(number of blocks).

Every privacy statement of the segmented protocol reduces to one family of pairs of
two-dimensional count distributions (the *variation-ratio pairs* of Wang et al., VLDB 2024):

.. math::

    P = (A + \Delta_1,\; C - A + \Delta_2), \qquad Q = (A + \Delta_2,\; C - A + \Delta_1),

with :math:`C \sim \mathrm{Bin}(\text{trials}, 2r)` "clones" among the other messages,
:math:`A \mid C \sim \mathrm{Bin}(C, 1/2)`, and the victim's indicator
:math:`(\Delta_1, \Delta_2)` equal to ``(1, 0)``, ``(0, 1)`` or ``(0, 0)`` with probabilities
``w_near``, ``w_far``, ``w_rest`` (``w_near >= w_far``). :class:`ClonePair` holds these five
numbers.

On the clone-pair core. With ``w_rest = 0`` this is the clone pair of
:mod:`shufflelib.bounds.clone_pair` (local log-odds ``log(w_near / w_far)``). The third outcome
(the victim's message is a clone of neither input, so the total count itself moves) makes it a
*mixture* of such pairs: condition on the total ``S = A + Δ1 + C − A + Δ2`` of the two
coordinates. ``S`` has the same law ``π(σ) = w_rest b(σ) + (w_near + w_far) b(σ − 1)`` under
``P`` and ``Q`` (``b`` the pmf of ``C``), so ``H_{e^ε}(P‖Q) = Σ_σ π(σ) h_σ``, where ``h_σ`` is
the divergence of the conditional pair. Given ``S = σ`` the victim is a clone with probability
``λ_σ = (w_near + w_far) b(σ − 1) / π(σ)``, and otherwise its unit of the total is a fair coin
between the two coordinates. Hence the first coordinate is ``U = V + Bin(σ − 1, 1/2)`` with
``V ~ Bern(α)`` under ``P`` and ``V ~ Bern(1 − α)`` under ``Q``,
``α = 1/2 + λ_σ (w_near − w_far) / (2 (w_near + w_far))``: the core's clone pair with
``σ − 1`` other clones and local log-odds ``log(α / (1 − α))``. This module computes the law
of ``(σ, α)`` in blocks (:func:`pair_blocks`); the core
(:func:`~shufflelib.bounds.clone_pair.clone_pair_delta`, one log-odds per block) sums the
divergence.

Blocks (rounded up). ``h_σ`` increases with ``α`` (the two conditional laws share the
component ``Bin(σ, 1/2)``, joint convexity) and decreases with ``σ`` (one more fair coin is a
post-processing); ``α`` increases with ``σ``. So over a block ``σ_a <= σ <= σ_b``,
``h_σ <= h(σ_a, α(σ_b))``. Blocks ``resolution`` standard deviations wide (coarser in the far
tails, :func:`block_starts`) give an upper bound whose cost does not grow with ``trials``; the
block masses come from binomial distribution functions. ``resolution=None`` sums every ``σ``
(exact).

Numerical tolerance. The clone count is summed over ``mean ± 9.5 sd`` (plus a skew margin); the
exact binomial mass outside that range is added to δ. The core adds its rounding budget
(:data:`~shufflelib.bounds.clone_pair.BINOM_RTOL` on every binomial term) and reports δ in
``[1e-300, 1]`` below the largest log-odds, so the returned δ is an upper bound on the exact one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

from .._validation import check_array, check_in_range, check_int, check_positive
from ..bounds.clone_pair import binomial_interval_mass, clone_pair_delta
from ..curves import PrivacyCurve

__all__ = [
    "ClonePair",
    "ClonePairCurve",
    "block_starts",
    "pair_blocks",
    "mixture_delta",
    "RESOLUTION",
]

#: Default block width, in standard deviations of the clone count (see :func:`block_starts`).
RESOLUTION = 0.05
#: Half-width of the summation range of the clone count, in standard deviations.
_Z = 9.5
#: Blocks are ``resolution`` wide within ``±_CORE`` standard deviations ...
_CORE = 4.0
#: ... and end at these distances outside it.
_OUTER = np.array([5.0, 6.5, 8.0])


def _log_odds(alpha: np.ndarray) -> np.ndarray:
    """``log(α / (1 − α))`` for ``α`` in ``[1/2, 1]`` (``inf`` at 1), from ``x = 2α − 1`` (exact in floats)."""
    x = 2.0 * np.asarray(alpha, dtype=float) - 1.0
    with np.errstate(divide="ignore"):
        return np.log1p(x) - np.log1p(-x)


def block_starts(lo: int, hi: int, mean: float, sd: float, resolution: float | None) -> np.ndarray:
    """Start points of the blocks that cover the integers ``lo..hi``.

    Blocks are ``resolution`` standard deviations wide within ``mean ± 4 sd`` and coarser
    outside (edges at 5, 6.5 and 8 sd); ``resolution=None`` gives one block per integer.

    Examples
    --------
    >>> block_starts(0, 5, 2.0, 1.0, None).tolist()
    [0, 1, 2, 3, 4, 5]
    >>> starts = block_starts(0, 10_000, 5_000.0, 100.0, 0.5)
    >>> int(starts[0]), len(starts) < 30
    (0, True)
    """
    starts = _row_starts(np.array([lo]), np.array([hi]), np.array([mean]), np.array([sd]), resolution)[0]
    return np.unique(starts[starts <= hi]).astype(np.int64)


def _row_starts(
    lo: np.ndarray, hi: np.ndarray, mean: np.ndarray, sd: np.ndarray, resolution: float | None
) -> np.ndarray:
    """Block starts for several ranges at once (rows padded with ``hi + 1``, i.e. empty blocks)."""
    if resolution is None:
        width = int((hi - lo).max()) + 1
        starts = lo[:, None] + np.arange(width)[None, :]
        return np.minimum(starts, hi[:, None] + 1).astype(float)
    core = np.arange(-_CORE, _CORE + resolution / 2, resolution)
    z = np.concatenate([-_OUTER[::-1], core, _OUTER])
    edges = np.floor(mean[:, None] + z[None, :] * sd[:, None])
    edges = np.clip(edges, lo[:, None], hi[:, None] + 1)
    starts = np.maximum.accumulate(np.concatenate([lo[:, None].astype(float), edges], axis=1), axis=1)
    # Ranges with fewer integers than blocks: one block per integer (exact).
    every = np.minimum(lo[:, None] + np.arange(z.size + 1)[None, :], hi[:, None] + 1).astype(float)
    narrow = (hi - lo + 1) <= z.size + 1
    return np.where(narrow[:, None], every, starts)


def pair_blocks(
    trials: np.ndarray,
    rate: float,
    w_near: np.ndarray,
    w_far: np.ndarray,
    w_rest: np.ndarray,
    resolution: float | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Blocks of the conditional coin pairs of several clone pairs sharing ``rate``.

    Parameters
    ----------
    trials, w_near, w_far, w_rest
        1-D arrays, one entry per pair (see :class:`ClonePair`).
    rate
        Clone rate ``r`` common to all pairs.
    resolution
        Block width in standard deviations (``None``: one block per total).

    Returns
    -------
    coins, alpha, weight, outside
        2-D arrays (one row per pair, padded with zero weight): the coins and the largest
        ``α`` of each block and the block's probability; ``outside`` (1-D) is the mass of the
        clone count left out of each row.

    Examples
    --------
    >>> coins, alpha, weight, outside = pair_blocks(np.array([3]), 0.25, np.array([1.0]),
    ...                                             np.array([0.0]), np.array([0.0]))
    >>> coins[0].tolist(), 1.0 <= float(weight.sum() + outside.sum()) < 1.0 + 1e-8  # masses rounded up
    ([0.0, 1.0, 2.0, 3.0], True)
    """
    trials = np.asarray(trials, dtype=float)
    w_near, w_far, w_rest = (np.asarray(w, dtype=float) for w in (w_near, w_far, w_rest))
    p2 = 2.0 * rate
    mean = trials * p2
    sd = np.sqrt(trials * p2 * (1.0 - p2))
    lo = np.maximum(0.0, np.floor(mean - _Z * sd - 5.0))
    hi = np.minimum(trials, np.ceil(mean + _Z * sd + 40.0))
    outside = binom.cdf(lo - 1.0, trials, p2) + binom.sf(hi, trials, p2) if p2 > 0 else np.zeros(trials.shape)
    clone = w_near + w_far
    first = np.maximum(lo, 1.0)
    starts = _row_starts(first, hi + 1.0, mean + clone, sd, resolution)
    ends = np.concatenate([starts[:, 1:] - 1.0, (hi + 1.0)[:, None]], axis=1)
    t, low, high = trials[:, None], lo[:, None], hi[:, None]
    weight = w_rest[:, None] * _mass(starts, ends, low, high, t, p2) + clone[:, None] * _mass(
        starts - 1.0, ends - 1.0, low, high, t, p2
    )
    weight = np.where(ends >= starts, weight, 0.0)
    b_end = np.where(ends <= high, binom.pmf(ends, t, p2), 0.0)
    b_prev = np.where(ends - 1.0 >= low, binom.pmf(ends - 1.0, t, p2), 0.0)
    denom = w_rest[:, None] * b_end + clone[:, None] * b_prev
    with np.errstate(divide="ignore", invalid="ignore"):  # denom = 0 only where b_prev = 0: no clone
        lam = np.where(denom > 0, clone[:, None] * b_prev / denom, 0.0)
        tilt = np.where(clone > 0, (w_near - w_far) / clone, 0.0)
    return starts - 1.0, 0.5 + 0.5 * lam * tilt[:, None], weight, outside


@dataclass(frozen=True)
class ClonePair:
    """A variation-ratio pair: ``trials`` other messages, each a clone w.p. ``2 rate``.

    Parameters
    ----------
    trials
        Number of other messages (an integer >= 0).
    rate
        Probability ``r`` that another message is a clone of the victim's first input (and
        again ``r`` for the second); ``2 r <= 1``.
    w_near, w_far, w_rest
        Probabilities that the victim's message is a clone of its own input, of the other
        input, or neither; they sum to 1 and ``w_near >= w_far``.

    Examples
    --------
    The Poisson randomizer with ``λ = 1`` and ten uniform blanket messages on ``d = 4``
    items (each lands on each of the two cells w.p. 1/4):

    >>> pair = ClonePair(trials=10, rate=0.25, w_near=1.0, w_far=0.0, w_rest=0.0)
    >>> round(float(pair.delta([0.0])[0]), 6) > 0
    True
    """

    trials: int
    rate: float
    w_near: float
    w_far: float
    w_rest: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "trials", check_int("trials", self.trials, minimum=0))
        object.__setattr__(self, "rate", check_in_range("rate", self.rate, 0.0, 0.5))
        for name in ("w_near", "w_far", "w_rest"):
            object.__setattr__(self, name, check_in_range(name, getattr(self, name), 0.0, 1.0))
        total = self.w_near + self.w_far + self.w_rest
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"w_near + w_far + w_rest must equal 1, got {total!r}")
        if self.w_near < self.w_far:
            raise ValueError(f"w_near must be >= w_far, got {self.w_near!r} < {self.w_far!r}")

    def clone_range(self) -> tuple[int, int, float]:
        """Summation range ``[lo, hi]`` of the clone count and the exact mass outside it."""
        p2 = 2.0 * self.rate
        mean = self.trials * p2
        sd = math.sqrt(self.trials * p2 * (1.0 - p2))
        lo = int(max(0.0, math.floor(mean - _Z * sd - 5.0)))
        hi = int(min(float(self.trials), math.ceil(mean + _Z * sd + 40.0)))
        outside = float(binom.cdf(lo - 1, self.trials, p2) + binom.sf(hi, self.trials, p2)) if p2 > 0 else 0.0
        return lo, hi, outside

    def delta(self, eps: object, resolution: float | None = RESOLUTION) -> np.ndarray:
        """``H_{e^ε}(P‖Q)`` (= ``H(Q‖P)`` by symmetry) for an array of ε, rounded up.

        Parameters
        ----------
        eps
            1-D array (or number) of ε >= 0.
        resolution
            Block width in standard deviations of the clone count (an upper bound, see the
            module notes), or ``None`` for the exact sum over every total.

        Returns
        -------
        numpy.ndarray
            δ for each ε.

        Examples
        --------
        >>> pair = ClonePair(trials=0, rate=0.1, w_near=0.3, w_far=0.1, w_rest=0.6)
        >>> [round(float(v), 6) for v in pair.delta([0.0, np.log(3)])]  # the victim alone
        [0.2, 0.0]
        """
        eps = np.atleast_1d(check_array("eps", eps, low=0.0)).ravel()
        if resolution is not None:
            resolution = check_positive("resolution", resolution)
        blocks = pair_blocks(
            np.array([self.trials]),
            self.rate,
            np.array([self.w_near]),
            np.array([self.w_far]),
            np.array([self.w_rest]),
            resolution,
        )
        return mixture_delta(*blocks, np.ones(1), eps)


def mixture_delta(
    coins: np.ndarray, alpha: np.ndarray, weight: np.ndarray, outside: np.ndarray, mix: np.ndarray, eps: np.ndarray
) -> np.ndarray:
    """``Σ_rows mix · (Σ_blocks weight · h(coins, α, ε) + outside)`` for each ε, rounded up.

    Examples
    --------
    >>> v = mixture_delta(np.array([[0.0]]), np.array([[0.75]]), np.array([[1.0]]), np.zeros(1),
    ...                   np.ones(1), np.array([0.0]))
    >>> round(float(v[0]), 6)  # rounded up by the rounding budget
    0.5
    """
    live = weight > 0
    total = clone_pair_delta(eps, _log_odds(alpha[live]), coins[live], (weight * mix[:, None])[live])
    return total + float((mix * outside).sum())


def _mass(starts: np.ndarray, ends: np.ndarray, lo, hi, trials, p: float) -> np.ndarray:
    """``Pr[Bin(trials, p) in [max(start, lo), min(end, hi)]]`` per block, rounded up by its error bound."""
    mass, err = binomial_interval_mass(np.maximum(starts, lo), np.minimum(ends, hi), trials, p)
    return mass + err  # rounded up


class ClonePairCurve(PrivacyCurve):
    """The privacy curve of a :class:`ClonePair` (symmetric, so one direction suffices).

    Parameters
    ----------
    pair
        The pair.
    resolution
        Passed to :meth:`ClonePair.delta` (``None``: exact).

    Examples
    --------
    >>> curve = ClonePairCurve(ClonePair(1000, 1 / 17, 1.0, 0.0, 0.0))
    >>> 0 < curve.epsilon(1e-6) < 2
    True
    """

    def __init__(self, pair: ClonePair, resolution: float | None = RESOLUTION) -> None:
        if not isinstance(pair, ClonePair):
            raise ValueError(f"pair must be a ClonePair, got {type(pair).__name__}")
        self.pair = pair
        self.resolution = resolution

    def _delta_array(self, eps: np.ndarray) -> np.ndarray:
        return self.pair.delta(eps, self.resolution)
