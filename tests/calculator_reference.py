"""A tight reference for the composed ε of a clone pair: an optimistic and a pessimistic
fine-grid composition of the same pair, which bracket the true composed ε.

The website's calculator composes T rounds of the clones and stronger-clones pairs in the
browser (``_static/calculator/compose.js``); its tests and ``benchmarks/calculator_gap.py``
check it against this bracket, computed independently from the pair's atoms enumerated here
(on the library's ``LossDistribution`` grid):

* **pessimistic**: clone counts in blocks at their *left* end (fewer clones: a worse pair), every
  loss rounded *up* to the grid, the neglected tails at +∞ or at the lowest loss: an upper bound;
* **optimistic**: blocks at their *right* end, losses rounded *down*, neglected tails dropped: a
  lower bound.

The rounds are composed by FFT under an exponential tilt at the question's saddle point
(:class:`TiltedComposition`: exact algebra, with the FFT's rounding allowance added or
subtracted), so that tiny δ stays resolved; the page's script does the same from its own
discretization (connect-the-dots, on a coarser grid), so the check is of its discretization,
blocks, tails and code, not of the tilt's algebra (``tests/test_calculator_js.py`` also checks that
the page's δ does not depend on its tilt).

The pair: given ``M = m`` clones, ``P(j) = b(j)(1 + x_j)``, ``Q(j) = b(j)(1 − x_j)`` with
``b = Bin(m, 1/2)`` and ``x_j = tanh(ε₀/2)(2j − m)/m`` (the clone pair of
``shufflelib.composition.clone_pld``), ``M = C + 1``, ``C ~ Bin(n − 1, p)``. The two ε differ by
at most the rounding ``T·step`` plus the blocks' slack, so a fine ``step`` brackets the truth
tightly; the bracket's width is returned with it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import fft as sfft
from scipy.optimize import minimize_scalar
from scipy.special import logsumexp
from scipy.stats import binom

from shufflelib.bounds.clone_pair import binomial_interval_mass, binomial_range
from shufflelib.bounds.clones import gaussian_dp_epsilon
from shufflelib.composition.pld import LossDistribution, _window

#: The page's bound configurations, (bound, randomizer family, k): each row of the page with each
#: randomizer family it answers for (k-RR at a few k); the one list of ``tests/test_calculator_js.py``
#: and ``benchmarks/calculator_gap.py``.
CONFIGS = [
    ("stronger-clones", "krr", 2),
    ("thinned-clones", "krr", 3),
    ("thinned-clones", "krr", 20),
    ("clones", "generic", None),
    ("blanket-bennett", "generic", None),
    ("blanket-bennett", "krr", 10),
    ("blanket-bennett", "laplace", None),
    ("blanket-hoeffding", "generic", None),
    ("blanket-hoeffding", "krr", 4),
    ("blanket-hoeffding", "laplace", None),
    ("clones-closed", "generic", None),
    ("erlingsson", "generic", None),
]

#: Tilted mass outside the composition window, per side.
WINDOW_TAIL = 1e-16

__all__ = ["CONFIGS", "TiltedComposition", "clone_pair_bracket", "clone_pair_compositions", "pair_probability"]


def pair_probability(bound: str, eps0: float) -> float:
    """The clone probability of the bound's pair: ``e^{-eps0}`` (clones), ``2/(e^{eps0}+1)`` (stronger clones)."""
    return math.exp(-eps0) if bound == "clones" else 2.0 / (math.exp(eps0) + 1.0)


def _round(n: int, eps0: float, p: float, step: float, blocks: int, pessimistic: bool, tail: float) -> LossDistribution:
    """One round; the clone counts and each J given M beyond mass ``tail`` per side are left out."""
    t = math.tanh(eps0 / 2.0)
    lo, hi = binomial_range(n - 1, p, tail)
    edges = [lo]  # blocks of relative width 1/blocks (one count each below `blocks` clones)
    while edges[-1] <= hi:
        edges.append(edges[-1] + max(1, edges[-1] // blocks))
    first, last = np.array(edges[:-1], dtype=float), np.array(edges[1:], dtype=float) - 1.0
    if pessimistic:
        last = last.copy()
        last[-1] = n - 1  # the upper tail joins the last block (at its left end)
    mass, err = binomial_interval_mass(first, last, n - 1, p)
    weight = mass + err if pessimistic else np.maximum(mass - err, 0.0)
    inf = float(binom.cdf(lo - 1.0, n - 1, p)) if pessimistic else 0.0
    counts = (first if pessimistic else last) + 1.0  # M = C + 1 at the block's left or right end
    keys, masses = [], []
    for m, w in zip(counts, weight, strict=True):
        spread = math.sqrt(m * math.log(2.0 / tail) / 2.0) + 1.0  # Hoeffding: 2 e^{-2 s²/m} <= tail
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


class TiltedComposition:
    """``rounds`` rounds of a discretized round ``ld``, composed by FFT under the exponential tilt
    ``theta``: ``delta(eps)`` is exact for the discretized pair up to the FFT's rounding, which is
    added (pessimistic ``ld``) or subtracted (optimistic ``ld``).

    The tilt ``ρ_i ∝ ω_i e^{θ ℓ_i}`` commutes with convolution, so ``ω^{*T}(ℓ) = M(θ)^T e^{−θ ℓ}
    ρ^{*T}(ℓ)``; with θ at the saddle point of the ε of interest the FFT's absolute rounding
    (``10 (T + 2) log₂(L) u`` in ℓ₂, after Higham, generously) is far below δ even when δ is tiny.
    The full linear convolution is computed (no window, no aliasing).
    """

    def __init__(self, ld: LossDistribution, rounds: int, theta: float) -> None:
        size = ld.mass.size
        losses = (ld.offset + np.arange(size)) * ld.step
        with np.errstate(divide="ignore"):
            log_mass = np.log(ld.mass)
        log_m = float(logsumexp(log_mass + theta * losses))
        rho = np.exp(log_mass + theta * losses - log_m)
        # the window of the tilted sum holding all but WINDOW_TAIL per side (Chernoff); the rest,
        # and what the cyclic convolution aliases into the window, is bounded in log_delta
        lo, hi = _window([(LossDistribution(ld.step, 0, rho), rounds)], WINDOW_TAIL)
        length = sfft.next_fast_len(hi - lo + 1, real=True)
        if length > 2**25:
            raise ValueError(f"the reference composition needs an FFT of length {length}")
        folded = np.bincount(np.arange(size) % length, weights=rho, minlength=length)
        cyclic = sfft.irfft(sfft.rfft(folded) ** rounds, length)
        composed = cyclic[(lo + np.arange(hi - lo + 1)) % length]
        self.pessimistic = ld.pessimistic
        self.loss = (rounds * ld.offset + lo + np.arange(hi - lo + 1)) * ld.step
        self.log_scale, self.theta = rounds * log_m, theta
        log_weight = rounds * log_m - theta * self.loss
        with np.errstate(divide="ignore"):
            self.log_terms = np.log(np.maximum(composed, 0.0)) + log_weight  # clipping moves towards the truth
        self.log_squares = 2.0 * log_weight
        self.rounding = 10.0 * (rounds + 2) * math.log2(length) * 2.0**-53 * max(1.0, float(rho.sum()) ** rounds)
        self.inf = -math.expm1(rounds * math.log1p(-min(ld.inf_mass, 1.0 - 1e-16)))
        self.cap = rounds * ld.max_loss

    def log_delta(self, eps: float) -> float:
        """log δ(ε): an upper bound (pessimistic) or a lower bound (optimistic) of the exact value."""
        if eps >= self.cap:
            return -math.inf
        first = int(np.searchsorted(self.loss, eps, side="right"))
        terms, loss = self.log_terms[first:], self.loss[first:]
        live = terms > -np.inf
        main = float(logsumexp(terms[live] + np.log(-np.expm1(eps - loss[live])))) if live.any() else -math.inf
        error = math.log(self.rounding) + 0.5 * float(logsumexp(self.log_squares[first:])) if terms.size else -math.inf
        # the mass outside the window (at most 2 WINDOW_TAIL, tilted) and aliased into it: weight <= e^{log_scale − θε}
        error = float(np.logaddexp(error, math.log(4.0 * WINDOW_TAIL) + self.log_scale - self.theta * max(eps, 0.0)))
        if self.pessimistic:
            total = float(np.logaddexp(main, error))
            return float(np.logaddexp(total, math.log(self.inf))) if self.inf > 0 else total
        return main + math.log1p(-math.exp(error - main)) if error < main else -math.inf

    def delta(self, eps: float) -> float:
        return math.exp(self.log_delta(eps))

    def epsilon(self, delta: float, near: float | None = None) -> float:
        """The smallest ε with δ(ε) <= delta (pessimistic), or the largest with δ(ε) > delta
        (optimistic: searched down from ``near``, e.g. the pessimistic root), to a relative 1e-10."""
        target = math.log(delta)
        if self.pessimistic:
            if self.log_delta(0.0) <= target:
                return 0.0
            bad, good = 0.0, self.cap
        else:
            good = self.cap if near is None else min(near, self.cap)  # good: δ(ε) <= delta here
            bad, factor = good, 1e-4
            while self.log_delta(bad) <= target:  # down from `near` in growing steps
                good, bad, factor = bad, good * (1.0 - factor), min(2.0 * factor, 0.5)
                if bad < 1e-300:
                    return 0.0
        while abs(good - bad) > 1e-10 * good:
            mid = 0.5 * (bad + good)
            if self.log_delta(mid) <= target:
                good = mid
            else:
                bad = mid
        return good if self.pessimistic else bad


def _saddle(ld: LossDistribution, rounds: int, eps: float) -> float:
    """θ >= 0 minimizing ``rounds · log M(θ) − θ ε`` (0 when ε is below the mean loss)."""
    losses = (ld.offset + np.arange(ld.mass.size)) * ld.step
    with np.errstate(divide="ignore"):
        log_mass = np.log(ld.mass)

    def f(x: float) -> float:
        return rounds * float(logsumexp(log_mass + math.exp(x) * losses)) - math.exp(x) * eps

    res = minimize_scalar(f, bounds=(math.log(1e-8), math.log(1e20)), method="bounded", options={"xatol": 1e-6})
    return math.exp(res.x) if res.fun < 0 else 0.0


def _tilted_at(ld: LossDistribution, rounds: int, delta: float) -> tuple[TiltedComposition, float]:
    """The composition tilted at its root for ``delta`` (found in passes from a Gaussian guess), and the tilt."""
    losses = (ld.offset + np.arange(ld.mass.size)) * ld.step
    weight = ld.mass / ld.mass.sum()
    sd = math.sqrt(max(float(weight @ losses**2) - float(weight @ losses) ** 2, 0.0))
    guess = gaussian_dp_epsilon(math.sqrt(rounds) * sd, delta) if sd > 0 else 0.0
    theta = _saddle(ld, rounds, guess)
    for _ in range(4):
        composed = TiltedComposition(ld, rounds, theta)
        following = _saddle(ld, rounds, composed.epsilon(delta))
        if abs(following - theta) * math.sqrt(rounds) * sd < 0.2:
            break
        theta = following
    return composed, theta


def clone_pair_compositions(
    n: int,
    eps0: float,
    p: float,
    rounds: int,
    delta: float,
    step: float,
    blocks: int = 20_000,
    *,
    eps: float | None = None,
) -> tuple[TiltedComposition, TiltedComposition]:
    """The optimistic and the pessimistic composition of ``rounds`` rounds of the pair, tilted for the
    ε question at ``delta`` (or for the δ question at ``eps``): their δ(ε) bracket the true δ(ε).
    ``delta`` also sets how far the tails are kept; clone counts are grouped in blocks of relative
    width ``1/blocks`` (one block per count below ``blocks`` clones).
    """
    left_out = max(min(1e-30, 1e-9 * delta / rounds), 1e-300)  # per round and side: far below delta
    low, high = (_round(n, eps0, p, step, blocks, pessimistic, left_out) for pessimistic in (False, True))
    if eps is not None:
        theta = _saddle(high, rounds, eps)
        return TiltedComposition(low, rounds, theta), TiltedComposition(high, rounds, theta)
    composed, theta = _tilted_at(high, rounds, delta)
    return TiltedComposition(low, rounds, theta), composed


def clone_pair_bracket(
    n: int, eps0: float, p: float, rounds: int, delta: float, step: float, blocks: int = 20_000
) -> tuple[float, float]:
    """``(lower, upper)``: the optimistic and pessimistic composed ε of ``rounds`` rounds of the pair.

    Examples
    --------
    >>> lo, up = clone_pair_bracket(10_000, 1.0, pair_probability("clones", 1.0), 10, 1e-6, 1e-5)
    >>> 0 < lo <= up < 1.01 * lo
    True
    """
    low, high = clone_pair_compositions(n, eps0, p, rounds, delta, step, blocks)
    upper = high.epsilon(delta)
    return low.epsilon(delta, near=upper), upper
