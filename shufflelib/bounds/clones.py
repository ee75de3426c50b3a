r"""The "hiding among the clones" bounds of Feldman, McMillan and Talwar (FOCS 2021).

Let ``R`` be an ``eps0``-LDP randomizer and ``X0, X1`` neighbouring datasets
differing in user 1 (``x1`` vs ``x1'``). Every other user's report
decomposes as ``R(x) = (p/2) R(x1) + (p/2) R(x1') + (1 - p) LO(x)`` with clone
probability ``p = e^{-eps0}`` (true for *every* ``eps0``-LDP randomizer, since
``R(x) >= e^{-eps0} max(R(x1), R(x1'))``). Counting the clones, the shuffled
output is a post-processing of the pair

.. math::

    P = (A + \Delta,\; C - A + 1 - \Delta), \qquad
    Q = (A + 1 - \Delta,\; C - A + \Delta),

with ``C ~ Bin(n - 1, p)``, ``A ~ Bin(C, 1/2)``, ``Δ ~ Bern(e^{eps0}/(e^{eps0}+1))``
(arXiv:2012.12803, Theorem 3.2 and Appendix E; the same pair, with
``p = e^{-eps0}``, is used by the authors' code ``apple/ml-shuffling-amplification``).

* :class:`ClonesNumerical` (``"clones"``) computes the hockey-stick divergence
  of this pair exactly (see :class:`ClonePairBound` for the method and the
  numerical tolerance).
* :class:`ClonesClosedForm` (``"clones-closed"``) is their Theorem 3.1: for
  ``eps0 <= log(n / (16 log(2/delta)))``,

  .. math::

      \varepsilon \le \log\Big(1 + \frac{e^{\varepsilon_0}-1}{e^{\varepsilon_0}+1}
      \Big(\frac{8\sqrt{e^{\varepsilon_0}\log(4/\delta)}}{\sqrt n}
      + \frac{8 e^{\varepsilon_0}}{n}\Big)\Big).

  Constants checked against the theorem as implemented in OpenDP/SmartNoise
  (``compose_epsilon_theoretical``, "theorem 3.1") and as quoted in C. Canonne's
  DifferentialPrivacy.org post on the paper. The authors' repository
  (``closedformanalysis``) uses the slightly larger factor
  ``(1 − e^{-eps0}) / (1 + e^{-eps0-e1})``, ``e1 = log(1 + 8 sqrt(...) + 8 e^{eps0}/n)``,
  in place of ``(e^{eps0}−1)/(e^{eps0}+1) = (1 − e^{-eps0})/(1 + e^{-eps0})``; we
  implement the theorem as stated. Sanity check: over ``n`` from 1e2 to 1e7,
  ``delta`` from 1e-15 to 0.3 and ``eps0`` across the validity range, the closed
  form is at least 1.7 times the exact divergence of the clone pair it is
  derived from (``ClonesNumerical``).

The module also holds the binomial machinery shared with
:mod:`~shufflelib.bounds.stronger_clones` and :mod:`~shufflelib.bounds.exact`.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr
from scipy.stats import binom

from .._roots import first_true
from ..curves import ProfileCurve
from .base import DELTA_FLOOR, AmplificationBound, _check_n_eps0

__all__ = [
    "EPS0_LIMIT",
    "ClonePairBound",
    "ClonesClosedForm",
    "ClonesNumerical",
    "binomial_range",
    "binomial_shortfall",
]

#: Assumed relative accuracy of scipy's binomial pmf / sf (Boost). Measured <= 3e-11
#: against 30-digit mpmath for n up to 1e9; we budget 1e-9.
BINOM_RTOL = 1e-9
#: Thresholds this close to the bottom of the support are summed term by term.
_DIRECT_TERMS = 64
#: Tail probability beyond which the clone count is lumped into one (rigorously bounded) block.
_TAIL = 1e-300
#: Tail probability delimiting the central range of the clone count ...
_CENTRAL_TAIL = 1e-20
#: ... cut into this many blocks ...
_BLOCKS = 2048
#: ... and the number of blocks of each outer range (up to ``_TAIL``).
_OUTER_BLOCKS = 64
#: Largest eps0 the numerical evaluations support (beyond it e^{-eps0} nears the float range).
EPS0_LIMIT = 100.0
#: Relative margin used to round closed forms up ...
_ROUNDING = 1e-12
#: ... and the (larger) one for ε, so that ``delta(epsilon(d)) <= d`` survives both roundings.
_INVERSE_ROUNDING = 1e-10


def binomial_shortfall(m: np.ndarray, p: float | np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``E[(u − X)^+]`` for ``X ~ Bin(m, p)``, with a bound on its rounding error.

    With ``r = ceil(u) − 1`` (the largest integer below ``u``):

    * ``r < 64``: the positive terms ``(u − x) Pr(X = x)``, ``x <= r``, are summed
      directly, so thresholds just above the bottom of the support (tiny ``u``,
      which is where large ``eps0`` puts them) keep full relative precision;
    * otherwise the identity ``E[(X − mp) 1{X <= r}] = −m p (1 − p) Pr(Bin(m − 1, p) = r)``
      gives ``(u − mp) Pr(X <= r) + m p (1 − p) Pr(Bin(m − 1, p) = r)``, whose
      cancellation is accounted for in the error bound.

    ``E[(X − t)^+]`` is ``binomial_shortfall(m, 1 − p, m − t)`` (apply it to ``m − X``).

    Parameters
    ----------
    m
        Numbers of trials (integers >= 0, as floats or ints).
    p
        Success probability: 0 or in ``[1e-300, 1]`` (Boost's binomial pmf
        overflows on subnormal ``p``; the bounds only use ``p >= e^{-100}/k``).
    u
        Threshold.

    Returns
    -------
    value, err
        Arrays (broadcast shape): the expectation (>= 0) and a bound on its
        absolute rounding error (assuming pmf/cdf accurate to ``BINOM_RTOL``).

    Examples
    --------
    >>> import numpy as np
    >>> v, e = binomial_shortfall(np.array([4]), 0.5, np.array([2.5]))  # E[(2.5 - X)^+], X ~ Bin(4, 1/2)
    >>> round(float(v[0]), 12)  # (2.5 * 1 + 1.5 * 4 + 0.5 * 6) / 16
    0.71875
    """
    m, p, u = np.broadcast_arrays(
        np.asarray(m, dtype=float), np.asarray(p, dtype=float), np.asarray(u, dtype=float)
    )
    value = np.zeros(m.shape)
    err = np.zeros(m.shape)
    r = np.minimum(np.ceil(u) - 1.0, m)  # X <= r <=> X < u
    direct = (r >= 0) & (r < _DIRECT_TERMS)
    if direct.any():
        x = np.arange(_DIRECT_TERMS, dtype=float)[None, :]
        mm, pp, uu, rr = (a[direct][:, None] for a in (m, p, u, r))
        terms = np.where(x <= rr, (uu - x) * binom.pmf(x, mm, pp), 0.0)
        value[direct] = terms.sum(axis=1)
        err[direct] = BINOM_RTOL * value[direct]
    closed = r >= _DIRECT_TERMS
    if closed.any():
        mm, pp, uu, rr = m[closed], p[closed], u[closed], r[closed]
        a = (uu - mm * pp) * binom.cdf(rr, mm, pp)
        b = mm * pp * (1.0 - pp) * binom.pmf(rr, mm - 1.0, pp)
        value[closed] = np.maximum(a + b, 0.0)
        err[closed] = BINOM_RTOL * (np.abs(a) + np.abs(b))
    return value, err


def _log_sinh(x: np.ndarray | float) -> np.ndarray:
    """``log(sinh(x))`` for ``x > 0``, without overflow or cancellation."""
    x = np.asarray(x, dtype=float)
    return x - math.log(2.0) + np.log(-np.expm1(-2.0 * x))


def _log_cosh(x: np.ndarray | float) -> np.ndarray:
    """``log(cosh(x))`` for ``x >= 0``, without overflow."""
    x = np.asarray(x, dtype=float)
    return x - math.log(2.0) + np.log1p(np.exp(-2.0 * x))


def _scaled_sum(value: np.ndarray, log_scale: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``sum_j value[i, j] · exp(log_scale[i, j]) · weight[j]`` without overflow (``value >= 0``)."""
    terms = np.zeros(np.broadcast_shapes(value.shape, log_scale.shape))
    value, log_scale = np.broadcast_arrays(value, log_scale)
    pos = value > 0
    terms[pos] = np.exp(np.log(value[pos]) + log_scale[pos])
    return terms @ weight


@lru_cache(maxsize=256)
def binomial_range(trials: int, prob: float, tail: float) -> tuple[int, int]:
    """Integers ``lo <= hi`` with ``Pr(X < lo) <= tail`` and ``Pr(X > hi) <= tail``, ``X ~ Bin(trials, prob)``.

    ``lo`` and ``hi`` are the tightest such integers (bisection on the cdf and
    sf; scipy's quantile functions are unreliable for tails below ~1e-30).

    Examples
    --------
    >>> from shufflelib.bounds.clones import binomial_range
    >>> binomial_range(10, 0.5, 1e-3)
    (1, 9)
    """

    def first(pred) -> int:  # smallest x in [0, trials] with pred(x); pred(trials) holds
        lo, hi = 0, trials
        while lo < hi:
            mid = (lo + hi) // 2
            if pred(mid):
                hi = mid
            else:
                lo = mid + 1
        return lo

    low = first(lambda x: binom.cdf(x, trials, prob) > tail)
    high = first(lambda x: binom.sf(x, trials, prob) <= tail)
    return low, max(high, low)


@lru_cache(maxsize=64)
def _clone_blocks(trials: int, prob: float) -> tuple[np.ndarray, np.ndarray]:
    """Blocks covering the support of ``Bin(trials, prob)``: their first points and masses.

    The central range (tail mass ``_CENTRAL_TAIL`` per side) is cut into at most
    ``_BLOCKS`` blocks of equal width (width 1, i.e. exact, when it has fewer
    points); each outer range up to tail mass ``_TAIL`` into ``_OUTER_BLOCKS``
    blocks; each remaining tail is one block.
    """
    lo, hi = binomial_range(trials, prob, _TAIL)
    c_lo, c_hi = binomial_range(trials, prob, _CENTRAL_TAIL)

    def cuts(start: int, stop: int, count: int) -> np.ndarray:  # block starts in [start, stop)
        width = max(1, math.ceil((stop - start) / count))
        return np.arange(start, stop, width, dtype=float)

    edges = np.unique(
        np.concatenate(
            [
                [0.0],
                cuts(lo, c_lo, _OUTER_BLOCKS),
                cuts(c_lo, c_hi + 1, _BLOCKS),
                cuts(c_hi + 1, hi + 1, _OUTER_BLOCKS),
                [hi + 1.0, trials + 1.0],
            ]
        )
    )
    start, stop = edges[:-1], edges[1:] - 1.0  # inclusive block [start, stop]
    below = binom.cdf(stop, trials, prob) - binom.cdf(start - 1.0, trials, prob)
    above = binom.sf(start - 1.0, trials, prob) - binom.sf(stop, trials, prob)
    mass = np.where(stop <= trials * prob, below, above)  # subtract the smaller tail: no cancellation
    return start, np.maximum(mass, 0.0)


class ClonePairBound(AmplificationBound):
    """Numerical bound from a clone pair: ``(A + Δ, C − A + 1 − Δ)`` vs its mirror image.

    Subclasses fix the clone probability ``p(eps0)`` (``C ~ Bin(n − 1, p)``);
    ``Δ ~ Bern(e^{eps0}/(e^{eps0}+1))``.

    Method. Given ``M = C + 1`` and ``J = A + Δ``, ``Pr(J = j | M = m) =
    b_m(j) (u j + v (m − j)) / m`` with ``b_m = Bin(m, 1/2)``, ``u = 2 e^{eps0}/(e^{eps0}+1)``,
    ``v = 2 − u`` (and ``u``, ``v`` swapped under ``Q``). For fixed ``m`` the
    set where ``P > e^eps Q`` is ``{j > t_m}``, so the conditional divergence
    ``h(m) = (u − v)(1 + e^eps) E[(J − t_m)^+] / m`` has a closed form
    (:func:`binomial_shortfall` of ``m − J`` below ``m − t_m = m (1 − r) / 2``,
    ``1 − r = sinh((eps0 − eps)/2) / (sinh(eps0/2) cosh(eps/2))`` computed in
    log space), and ``delta = sum_m Pr(M = m) h(m)``; the pair
    is symmetric (``J -> M − J`` swaps P and Q), so one order suffices.
    ``h`` is non-increasing in ``m`` (one more clone is a post-processing:
    adding a fair coin to ``A``), so grouping ``m`` into blocks and using
    ``h`` at each block's left end gives an upper bound. The central range of
    ``C`` (binomial tail ``1e-20`` per side) is cut into 2048 blocks, the
    outer ranges down to tail ``1e-300`` into 64 blocks each, and each
    remaining tail is one block: at most ~2200 closed forms per ε, whatever ``n``.

    Numerical tolerance: the result exceeds the pair's exact δ by the block
    slack — zero when the central range has at most 2048 points (e.g.
    ``n <= 2e4``), at most a relative ``4e-4`` at ``delta >= 1e-15`` in our
    checks (``n`` from 1e5 to 1e9, ``eps0`` from 0.1 to 10), i.e. ε within a
    relative ``~1e-5`` — plus the rounding budget (pmf/sf relative error
    ``1e-9``, propagated through the cancellation). For ``eps < eps0`` values
    below ``1e-300`` are reported as ``1e-300``; ``delta(eps) = 0`` exactly for
    ``eps >= eps0``.

    Examples
    --------
    The abstract base through :class:`ClonesNumerical` (clone probability ``e^{-eps0}``):

    >>> import numpy as np
    >>> from shufflelib.bounds.clones import ClonePairBound, ClonesNumerical
    >>> b = ClonesNumerical()
    >>> isinstance(b, ClonePairBound), round(b.clone_probability(1.0), 4)
    (True, 0.3679)
    >>> d = b.delta_profile(10_000, 1.0, np.array([0.05, 0.1, 1.0]))  # delta = 0 at eps = eps0
    >>> [float(f"{x:.3g}") for x in d]
    [2.14e-06, 6.42e-14, 0.0]
    """

    def clone_probability(self, eps0: float) -> float:
        """Probability that another user is a clone (``C ~ Bin(n − 1, p)``)."""
        raise NotImplementedError

    def validity(self, n: int, eps0: float, delta: float | None = None) -> str | None:
        """``None`` for ``eps0 <= 100`` (the range of the numerical evaluation), else the reason.

        Examples
        --------
        >>> from shufflelib.bounds.clones import ClonesNumerical
        >>> ClonesNumerical().validity(100, 150.0)
        'the numerical evaluation requires eps0 <= 100.0 (beyond, use the trivial eps = eps0), got eps0=150.0'
        """
        return _eps0_reason(eps0)

    def _delta(self, n: int, eps0: float, eps: float) -> float:
        return float(self.delta_profile(n, eps0, np.array([eps]))[0])

    def _epsilon(self, n: int, eps0: float, delta: float) -> float:
        """ε(δ) by certified root finding on a bracket around a Gaussian-DP estimate.

        The estimate (``mu = 2 tanh(eps0/2) / sqrt(E[C + 1])``) only narrows the
        bracket (to ±2%, else ±25%, else ``[0, eps0]``); the root itself is
        certified on the exact profile.
        """
        cache: dict[float, float] = {}

        def d(e: float) -> float:
            if e not in cache:
                cache[e] = self._delta_checked(n, eps0, e)
            return cache[e]

        if d(0.0) <= delta:
            return 0.0
        lo, hi = 0.0, eps0  # delta(eps0) = 0: the pair is eps0-DP
        mean_clones = (n - 1) * self.clone_probability(eps0) + 1.0
        guess = _gaussian_dp_epsilon(2.0 * math.tanh(eps0 / 2.0) / math.sqrt(mean_clones), delta)
        for probe in guess * np.array([1.02, 0.98, 1.25, 0.75]):
            if lo < probe < hi:  # each probe that falls inside the bracket narrows it
                if d(probe) > delta:
                    lo = probe
                else:
                    hi = probe
        log_target = math.log(delta)
        return first_true(lambda e: d(e) <= delta, lambda e: _log_or_floor(d(e)) - log_target, lo, hi)

    def delta_profile(self, n: int, eps0: float, eps: np.ndarray) -> np.ndarray:
        """Vectorized δ(ε) of the clone pair for an array of ε >= 0 (validated inputs).

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.bounds.clones import ClonesNumerical
        >>> d = ClonesNumerical().delta_profile(10_000, 1.0, np.array([0.05, 0.1, 0.2]))
        >>> bool(np.all(np.diff(d) < 0))
        True
        """
        eps = np.asarray(eps, dtype=float)
        start, mass = _clone_blocks(n - 1, self.clone_probability(eps0))
        m = start + 1.0
        live = eps < eps0
        out = np.zeros(eps.shape)
        if not live.any():
            return out
        e = eps[live][:, None]
        # m - t_m = m (1 - tanh(eps/2) / tanh(eps0/2)) / 2, in log space: exact even when eps -> eps0.
        log_gap = _log_sinh((eps0 - e) / 2.0) - _log_sinh(eps0 / 2.0) - _log_cosh(e / 2.0)
        value, err = binomial_shortfall(m[None, :], 0.5, m[None, :] * np.exp(log_gap) / 2.0)
        log_scale = math.log(2.0 * math.tanh(eps0 / 2.0)) + np.logaddexp(0.0, e) - np.log(m)[None, :]
        out[live] = np.maximum(_scaled_sum(value + err, log_scale, mass) * (1.0 + BINOM_RTOL), DELTA_FLOOR)
        return out

    def curve(self, n: int, eps0: float, eps_grid: np.ndarray | None = None) -> ProfileCurve:
        """The bound's privacy curve for fixed ``(n, eps0)`` (profile, inverse, trade-off).

        ``eps_grid`` is the grid of the trade-off conversion (default: 401
        points on ``[0, eps0]``, beyond which δ = 0).

        Examples
        --------
        >>> from shufflelib.bounds.clones import ClonesNumerical
        >>> c = ClonesNumerical().curve(10_000, 1.0)
        >>> abs(c.epsilon(1e-6) - ClonesNumerical().epsilon(10_000, 1.0, 1e-6)) < 1e-8
        True
        """
        n, eps0 = _check_n_eps0(n, eps0)
        self._require(n, eps0)
        grid = np.linspace(0.0, eps0, 401) if eps_grid is None else eps_grid
        return ProfileCurve(lambda e: self.delta_profile(n, eps0, e), eps_grid=grid)


def _eps0_reason(eps0: float) -> str | None:
    if eps0 <= EPS0_LIMIT:
        return None
    return (
        f"the numerical evaluation requires eps0 <= {EPS0_LIMIT} (beyond, use the trivial eps = eps0), "
        f"got eps0={eps0}"
    )


def _gaussian_dp_epsilon(mu: float, delta: float) -> float:
    """ε at which μ-Gaussian DP reaches ``delta`` (a heuristic starting point; 0 if not found)."""

    def log_delta(e: float) -> float:  # log(Φ(−e/μ + μ/2) − e^e Φ(−e/μ − μ/2))
        la, lb = log_ndtr(-e / mu + mu / 2.0), log_ndtr(-e / mu - mu / 2.0)
        r = e + lb - la
        return la + math.log(-math.expm1(r)) if r < 0.0 else -1e300

    log_target = math.log(delta)
    hi = mu * (mu + 40.0)  # far beyond any delta >= 1e-300
    if not (mu > 0.0 and math.isfinite(hi)) or log_delta(0.0) <= log_target or log_delta(hi) >= log_target:
        return 0.0
    return brentq(lambda e: log_delta(e) - log_target, 0.0, hi, xtol=1e-12 * hi)


def _log_or_floor(x: float) -> float:
    return math.log(x) if x > 0 else -1e300


class ClonesNumerical(ClonePairBound):
    """Feldman–McMillan–Talwar (2021), numerical bound: exact δ of the clone pair.

    Valid for every ``eps0``-LDP randomizer (clone probability ``e^{-eps0}``).
    Always ``eps <= eps0`` (the pair itself is ``eps0``-DP).

    Parameters
    ----------
    mechanism
        Only ``"generic"``.
    k
        Not used (must be ``None``).

    Examples
    --------
    >>> from shufflelib.bounds.clones import ClonesNumerical
    >>> b = ClonesNumerical()
    >>> round(b.epsilon(100_000, 4.0, 1e-6), 4)  # authors' code: between 0.1675 and 0.1728
    0.1698
    >>> b.delta(10_000, 1.0, b.epsilon(10_000, 1.0, 1e-6)) <= 1e-6
    True
    """

    name = "clones"
    title = "Feldman, McMillan, Talwar (2021), hiding among the clones (numerical)"
    reference = (
        "V. Feldman, A. McMillan, K. Talwar. Hiding among the clones: a simple and nearly optimal "
        "analysis of privacy amplification by shuffling. FOCS 2021, arXiv:2012.12803."
    )
    mechanisms = ("generic",)

    def clone_probability(self, eps0: float) -> float:
        """``e^{-eps0}``: every ``eps0``-LDP report contains a clone with this probability."""
        return math.exp(-eps0)


class ClonesClosedForm(AmplificationBound):
    """Feldman–McMillan–Talwar (2021), Theorem 3.1 (closed form).

    ``eps = log(1 + (e^{eps0} − 1)/(e^{eps0} + 1) (8 sqrt(e^{eps0} log(4/δ)/n) + 8 e^{eps0}/n))``,
    valid for ``eps0 <= log(n / (16 log(2/δ)))``; capped at ``eps0`` (the
    shuffled protocol is always ``eps0``-DP). Outside the validity range the
    questions raise :class:`~shufflelib.bounds.base.NotApplicableError`.

    Numerical tolerance: ε is rounded up by a relative ``1e-10`` and δ (the
    closed-form inverse) by ``1e-12``.

    Parameters
    ----------
    mechanism
        Only ``"generic"``.
    k
        Not used (must be ``None``).

    Examples
    --------
    >>> from shufflelib.bounds.clones import ClonesClosedForm
    >>> round(ClonesClosedForm().epsilon(100_000, 4.0, 1e-6), 4)
    0.5346
    >>> ClonesClosedForm().applicable(1_000, 4.0, 1e-6)
    False
    """

    closed_form = True
    name = "clones-closed"
    title = "Feldman, McMillan, Talwar (2021), hiding among the clones (closed form)"
    reference = ClonesNumerical.reference
    mechanisms = ("generic",)

    def validity(self, n: int, eps0: float, delta: float | None = None) -> str | None:
        """``None`` if ``eps0 <= log(n / (16 log(2/delta)))``, else the reason.

        Without ``delta`` the limit ``delta -> 1`` is used (the most permissive).

        Examples
        --------
        >>> from shufflelib.bounds.clones import ClonesClosedForm
        >>> ClonesClosedForm().validity(1_000, 4.0, 1e-6)
        'requires eps0 <= log(n / (16 log(2/delta))) = 1.46, got eps0=4.0'
        """
        log_term = math.log(2.0) - math.log(delta) if delta is not None else math.log(2.0)
        limit = math.log(n / 16.0) - math.log(log_term)  # no overflow of 2/delta near the float limit
        if not eps0 <= limit:
            return f"requires eps0 <= log(n / (16 log(2/delta))) = {limit:.4g}, got eps0={eps0}"
        return None

    def _epsilon(self, n: int, eps0: float, delta: float) -> float:
        e0 = math.exp(eps0)
        inner = 8.0 * math.sqrt(e0 * (math.log(4.0) - math.log(delta)) / n) + 8.0 * e0 / n
        eps = math.log1p(math.tanh(eps0 / 2.0) * inner) * (1.0 + _INVERSE_ROUNDING)
        return min(eps, eps0)

    def _delta(self, n: int, eps0: float, eps: float) -> float:
        """Smallest δ the theorem certifies at ``eps`` (the closed-form inverse of :meth:`_epsilon`)."""
        if eps >= eps0:
            return 0.0  # the shuffled protocol is eps0-DP
        e0 = math.exp(eps0)
        root = (math.expm1(eps) / math.tanh(eps0 / 2.0) - 8.0 * e0 / n) / 8.0  # sqrt(e0 log(4/δ) / n)
        if root <= 0.0:
            return 1.0  # no δ in the theorem's range reaches eps
        log_delta = math.log(4.0) - n * root * root / e0
        # The theorem needs log(2/δ) <= n / (16 e0): the smallest admissible δ.
        log_delta_min = math.log(2.0) - n / (16.0 * e0)
        log_delta = max(log_delta, log_delta_min)
        return min(math.exp(log_delta) * (1.0 + _ROUNDING), 1.0)
