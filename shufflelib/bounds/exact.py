r"""Shuffled k-ary randomized response: the exact worst case, and two explicit pairs (a lower bound).

:class:`ExactKRR` (``exact-krr``) is the exact worst case over all pairs of neighbouring
datasets, by the complete search of :mod:`shufflelib.bounds.krr_worst_case` (a certified
bracket beyond its reach). :class:`TwoPairKRRLowerBound` (``krr-two-pair-lower``), described
below, is the exact δ of two explicit pairs: a lower bound that stays fast for ``n`` up to 1e8.

Each of ``n`` users applies k-RR with parameter ``eps0`` (report the true value
w.p. ``e^{eps0}/(e^{eps0}+k−1)``, each other value w.p. ``1/(e^{eps0}+k−1)``)
and the shuffler releases the histogram of reports. User 1 holds ``a`` in
``X0`` and ``b`` in ``X1``. For a multinomial histogram ``H`` the likelihood
ratio has a closed form: if the other users all report with profile ``π``,
``Pr[H | X1] / Pr[H | X0] = Σ_y N_y π_b(y)/π(y) / Σ_y N_y π_a(y)/π(y)``.
We evaluate two configurations of the other ``n − 1`` users:

* **concentrated** (every ``k >= 2``): the others hold ``a``. Then
  ``Pr[H|X1]/Pr[H|X0] = (e^{-eps0} N_a + e^{eps0} N_b + N_rest) / n`` with
  ``H ~ Multinomial(n; p_hi, p_lo, (k−2) p_lo)`` under ``X0``; conditioning on
  ``N_b`` leaves ``N_a ~ Bin(n − N_b, e^{eps0}/(e^{eps0}+k−2))`` and a ratio
  linear in ``N_a``, so each direction of the hockey-stick divergence is a sum
  over ``N_b`` of binomial tail expectations (one closed form for ``k = 2``).
* **spread** (``k >= 3``): the others hold a third value ``c``. With
  ``M = N_a + N_b`` and ``J = N_a``, ``Pr[M = m, J = j | X0] =
  Bin(n, 2 p_lo)(m) b_m(j) (e^{eps0} j + (m − j) + ρ (n − m)) / n`` with
  ``ρ = (k−2)/(e^{eps0}+k−3)`` (``Q``: ``j`` and ``m − j`` swapped); for ``k = 3``
  this is the full histogram, for ``k >= 4`` it is the histogram with all
  values other than ``a, b`` merged (a post-processing, hence still a lower
  bound; the merged values carry a little extra information for this pair).

``delta(eps)`` is the larger of the two (``k >= 3``). Every value is the exact
δ of a real pair of neighbouring datasets, so the curve is a **lower bound** on
the worst case of shuffled k-RR: no valid upper bound may be below it.

Which configuration is worst. Neither, in general: the worst case over all
configurations (:class:`ExactKRR`, by the complete search of
:mod:`shufflelib.bounds.krr_worst_case`) can be markedly larger. Binary RR, ``n = 20``,
``eps0 = 3``, ``eps = 0``: nine or ten of the other users holding ``a`` give
``δ = 0.443``, the concentrated pair ``0.360``. Over ``h_a`` the δ of binary RR oscillates
with period about ``1/(2q)`` with many local maxima, and the maximiser moves between the
extremes, the middle and their neighbours as ``eps`` and ``eps0`` vary; the chapter
measures the shortfall of the two pairs.

Numerical tolerance: the sums over ``N_b`` and ``M`` are truncated at binomial
tail mass ``1e-30`` per side (dropped mass only lowers δ) and the rounding budget of the
binomial functions (relative ``1e-9``) is subtracted, so δ is rounded **down**
(the safe direction for a lower bound) and ``epsilon`` likewise.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

import numpy as np

from .._docstrings import fill_doc
from .._laws import binom
from .._roots import last_true
from .._validation import check_choice
from ..curves import ProfileCurve
from .base import DELTA_FLOOR, AmplificationBound, ProfileBound, _check_n_eps0, profile_target
from .clone_pair import log_sinh, scaled_sum
from .clones import BINOM_RTOL, _log_or_floor, binomial_range, binomial_shortfall
from .krr_worst_case import (
    EXACT_RTOL,
    WORK_LIMIT,
    EpsilonBracket,
    WorstCase,
    binary_max_eps0_bracket,
    worst_case_delta,
    worst_case_epsilon,
    worst_case_epsilon_bracket,
    worst_case_work,
)
from .privacy_loss import ExplicitPairLoss, PrivacyLoss, clone_loss_scale
from .stronger_clones import StrongerClones
from .thinned_clones import ThinnedClones

__all__ = [
    "ExactKRR",
    "TwoPairKRRLowerBound",
    "concentrated_delta",
    "spread_delta",
    "binary_pair_log_pmfs",
    "EXACT_PROFILE_MAX_N",
]

#: Largest n at which the exact worst case of binary RR is composed through its profile (its
#: branch and bound at every point of the profile's grid stays within about a second).
EXACT_PROFILE_MAX_N = 64


def binary_pair_log_pmfs(n: int, eps0: float) -> tuple[np.ndarray, np.ndarray]:
    """Log-pmfs of the number of 1-reports of binary RR: all users hold 0 (``X0``) vs user 1 holds 1 (``X1``).

    The attained pair of :class:`TwoPairKRRLowerBound` for ``k = 2`` on the counts carrying all but
    ``1e-30`` of the others' binomial on each side.

    Examples
    --------
    >>> log_x0, log_x1 = binary_pair_log_pmfs(10, 1.0)
    >>> round(float(np.exp(log_x0).sum()), 12), log_x0.shape == log_x1.shape
    (1.0, True)
    """
    p_lo = 1.0 / (1.0 + math.exp(eps0))
    p_hi = 1.0 - p_lo
    lo, hi = binomial_range(n - 1, p_lo, 1e-30)
    x = np.arange(lo, hi + 2, dtype=float)
    base, shifted = binom.logpmf(x, n - 1, p_lo), binom.logpmf(x - 1.0, n - 1, p_lo)
    log_x0 = np.logaddexp(math.log(p_hi) + base, math.log(p_lo) + shifted)
    log_x1 = np.logaddexp(math.log(p_lo) + base, math.log(p_hi) + shifted)
    return log_x0, log_x1


#: Binomial tail mass dropped on each side of the summation range.
_TAIL = 1e-30


@lru_cache(maxsize=64)
def _support(trials: int, prob: float) -> tuple[np.ndarray, np.ndarray]:
    """Integers carrying all but ``_TAIL`` of ``Bin(trials, prob)`` on each side, and their pmf."""
    lo, hi = binomial_range(trials, prob, _TAIL)
    x = np.arange(lo, hi + 1, dtype=float)
    return x, binom.pmf(x, trials, prob)


def _randomized_response_probs(k: int, eps0: float) -> tuple[float, float]:
    """``(p_hi, p_lo)`` of k-RR, computed without overflow for any ``eps0``."""
    t = math.exp(-eps0)
    p_hi = 1.0 / (1.0 + (k - 1) * t)
    return p_hi, t * p_hi


def concentrated_delta(n: int, k: int, eps0: float, eps: np.ndarray) -> np.ndarray:
    """Exact δ(ε) (both orders) when the other ``n − 1`` users hold user 1's ``X0`` value.

    With ``L = (e^{-eps0} N_a + e^{eps0} N_b + N_rest) / n`` the likelihood ratio,
    ``δ = max(E[(1 − e^eps L)^+], E[(L − e^eps)^+])`` under ``X0``; given ``N_b = b``
    both are binomial shortfalls of ``N_a ~ Bin(n − b, θ)`` (of ``N_b`` itself for ``k = 2``).

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.bounds.exact import concentrated_delta
    >>> round(float(concentrated_delta(2, 2, 1.0, np.array([0.0]))[0]), 6)  # TV distance, two users
    0.337835
    """
    eps = np.asarray(eps, dtype=float)[:, None]
    p_hi, p_lo = _randomized_response_probs(k, eps0)
    two_sinh = math.exp(float(log_sinh(eps0)) + math.log(2.0))  # e^eps0 - e^-eps0
    down = np.exp(-eps) * -np.expm1(eps - eps0)  # e^-eps - e^-eps0 >= 0
    up = np.exp(eps) * np.expm1(eps0 - eps)  # e^eps0 - e^eps >= 0
    log_n = math.log(n)
    if k == 2:  # N_a = n - N_b: one binomial, one closed form per direction
        # X0 || X1: e^eps sinh-scaled (t - N_b)^+ with t = n down / (2 sinh eps0).
        va, ea = binomial_shortfall(n, p_lo, n * down / two_sinh)
        # X1 || X0: (N_b - t')^+ = (n - t') - (n - N_b) with n - t' = n up / (2 sinh eps0).
        vb, eb = binomial_shortfall(n, p_hi, n * up / two_sinh)
        log_kappa = math.log(two_sinh) - log_n
        one = np.ones(1)
        da = scaled_sum(np.maximum(va - ea, 0.0), eps + log_kappa, one)
        db = scaled_sum(np.maximum(vb - eb, 0.0), np.full(eps.shape, log_kappa), one)
        return np.maximum(da, db)
    b, weight = _support(n, p_lo)
    m = n - b
    theta = 1.0 / (1.0 + (k - 2) * math.exp(-eps0))
    one_minus = -math.expm1(-eps0)  # 1 - e^-eps0
    # X0 || X1: κ (N_a - t)^+ with κ = e^eps (1 - e^-eps0) / n and m - t = (n down - b 2 sinh eps0) / (1 - e^-eps0).
    va, ea = binomial_shortfall(m, 1.0 - theta, (n * down - b * two_sinh) / one_minus)
    da = scaled_sum(np.maximum(va - ea, 0.0), eps + math.log(one_minus) - log_n, weight)
    # X1 || X0: κ (t' - N_a)^+ with κ = (1 - e^-eps0) / n and t' = (n (1 - e^eps) + (e^eps0 - 1) b) / (1 - e^-eps0).
    t_b = (-n * np.expm1(eps) + math.expm1(eps0) * b) / one_minus
    vb, eb = binomial_shortfall(m, theta, t_b)
    db = scaled_sum(np.maximum(vb - eb, 0.0), np.full(eps.shape, math.log(one_minus) - log_n), weight)
    return np.maximum(da, db)


def spread_delta(n: int, k: int, eps0: float, eps: np.ndarray) -> np.ndarray:
    """Exact δ(ε) of the merged histogram when the other users hold a third value (``k >= 3``).

    Given ``M = m``, ``P − e^eps Q ∝ (e^{eps0} − 1)(1 + e^eps)(J − t_m)`` with
    ``J ~ Bin(m, 1/2)``, so each term is a binomial shortfall of ``m − J`` below
    ``m − t_m = (m (e^{eps0} − e^eps) − (e^eps − 1) ρ (n − m)) / ((e^{eps0} − 1)(1 + e^eps))``.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.bounds.exact import spread_delta
    >>> d = spread_delta(1_000, 3, 1.0, np.array([0.0, 0.1, 0.2]))
    >>> bool(np.all(np.diff(d) < 0))
    True
    """
    eps = np.asarray(eps, dtype=float)[:, None]
    _, p_lo = _randomized_response_probs(k, eps0)
    m, pmf = _support(n, 2.0 * p_lo)
    rho = (k - 2) / (math.exp(eps0) + k - 3)
    up = np.exp(eps) * np.expm1(eps0 - eps)  # e^eps0 - e^eps
    log_denominator = math.log(math.expm1(eps0)) + np.logaddexp(0.0, eps)
    gap = (m * up - np.expm1(eps) * rho * (n - m)) * np.exp(-log_denominator)
    value, err = binomial_shortfall(m, 0.5, gap)
    return scaled_sum(np.maximum(value - err, 0.0), log_denominator, pmf / n)


@fill_doc
class TwoPairKRRLowerBound(ProfileBound):
    """δ of shuffled k-RR on two explicit pairs of neighbouring datasets: a *lower* bound on the worst case.

    ``delta`` is the exact δ(ε) of the worse of two explicit pairs of
    neighbouring datasets (see the module docstring); ``epsilon`` and
    ``max_eps0`` invert it. Because it is attained by real datasets, **no valid
    upper bound on the privacy of shuffled k-RR can be smaller**; the exact worst
    case over all pairs (:class:`ExactKRR`) can be larger (up to ~20–30 % in δ at
    small ``n``). It stays fast for ``n`` up to 1e8, where the complete search does not
    reach.

    Parameters
    ----------
    %(mechanism_krr)s %(k_krr)s

    Notes
    -----
    Cost: ``k = 2`` is a closed form (constant time). For ``k >= 3`` one
    ``delta`` evaluation sums ~23 standard deviations of two binomials (about
    2·10^4 closed forms at ``n = 1e6``); ``epsilon`` takes ~10 evaluations
    (times in ``benchmarks/bench_bounds.py``). Values are rounded down (see the
    module docstring).

    Examples
    --------
    >>> from shufflelib.bounds.exact import TwoPairKRRLowerBound
    >>> from shufflelib.bounds.stronger_clones import StrongerClones
    >>> lower = TwoPairKRRLowerBound(mechanism="krr", k=2)
    >>> e = lower.epsilon(10_000, 1.0, 1e-6)
    >>> e < StrongerClones(mechanism="krr", k=2).epsilon(10_000, 1.0, 1e-6)
    True
    """

    name = "krr-two-pair-lower"
    upper = False  # a lower bound: no floor on δ, ε rounded down
    title = "Shuffled k-RR on two explicit pairs of datasets (a lower bound on the worst case)"
    reference = (
        "Exact computation on explicit neighbouring datasets (this library); cf. S. Biswas, "
        "K. Jung, C. Palamidessi. Tight differential privacy guarantees for the shuffle model "
        "with k-randomized response. FPS 2023, arXiv:2205.08858."
    )
    mechanisms = ("krr",)

    def privacy_loss(self, n: int) -> PrivacyLoss:
        """For ``k = 2`` the attained pair of its two datasets (:func:`binary_pair_log_pmfs`), a
        lower bound; for ``k >= 3`` its profile, a lower bound, which does not compose.

        Examples
        --------
        >>> loss = TwoPairKRRLowerBound(mechanism="krr", k=2).privacy_loss(1000)
        >>> loss.form, loss.upper, loss.pair(1.0).max_loss
        ('pair', False, 1.0)
        >>> TwoPairKRRLowerBound(mechanism="krr", k=3).privacy_loss(1000).form
        'profile'
        """
        if self.k != 2:
            return super().privacy_loss(n)
        return PrivacyLoss(
            "pair",
            False,
            epsilon=lambda e0, d: self.epsilon(n, e0, d),
            largest=lambda e, d: self.max_eps0(n, e, d),
            pair=lambda e0: ExplicitPairLoss(*binary_pair_log_pmfs(n, e0), max_loss=e0),
            scale=lambda e0: clone_loss_scale(n, e0),
        )

    def delta_profile(self, n: int, eps0: float, eps: np.ndarray) -> np.ndarray:
        """Vectorized exact δ(ε) for an array of ε >= 0 (validated inputs).

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.bounds import TwoPairKRRLowerBound
        >>> d = TwoPairKRRLowerBound(mechanism="krr", k=3).delta_profile(1_000, 1.0, np.array([0.0, 0.5, 1.0]))
        >>> bool(d[0] > d[1] > d[2] == 0.0)
        True
        """
        eps = np.asarray(eps, dtype=float)
        out = np.zeros(eps.shape)
        live = eps < eps0  # every likelihood ratio is within [e^-eps0, e^eps0]
        if live.any():
            e = eps[live]
            d = concentrated_delta(n, self.k, eps0, e)
            if self.k >= 3:
                d = np.maximum(d, spread_delta(n, self.k, eps0, e))
            out[live] = d * (1.0 - BINOM_RTOL)
        return out

    def _epsilon(self, n: int, eps0: float, delta: float) -> float:
        """Largest ε with ``delta(ε) > delta`` (a lower bound on the exact ε; 0 if none)."""
        cache: dict[float, float] = {}

        def d(e: float) -> float:
            if e not in cache:
                cache[e] = self._delta(n, eps0, e)
            return cache[e]

        def above(e: float) -> bool:
            return d(e) > delta

        if not above(0.0):
            return 0.0
        hi = eps0
        if self.k >= 3:
            # Evaluations are costly for k >= 3: the stronger-clones bound (valid for k-RR)
            # brackets the root from above with a finite log-score, so the root finder converges fast.
            hi = min(StrongerClones(mechanism="krr", k=self.k).epsilon(n, eps0, delta), eps0)
            if above(hi):
                hi = eps0
        log_target = math.log(delta)
        return last_true(above, lambda e: log_target - _log_or_floor(d(e)), 0.0, hi)


#: Beyond this many users (k >= 3), the bracket's other end (two explicit pairs) is not computed.
BRACKET_MAX_N = 10**7
#: The search budget of the command-line calculator (estimated seconds, see :class:`ExactKRR`).
CALCULATOR_WORK_LIMIT = 0.6


def _bracket_record(n: int, k: int, lower: float, upper: float, why: str, source: str) -> dict[str, object]:
    """The calculator's record of an answer that is a certified bracket's safe end."""
    return {
        "exact": False,
        "lower": lower,
        "upper": upper,
        "warning": (
            f"not exact: at n = {n}, k = {k} {why}; the value is a valid bound ({source}) and the "
            f"exact worst case lies in [{lower:.6g}, {upper:.6g}]"
        ),
    }


@lru_cache(maxsize=32)
def _binary_max_eps0(
    n: int, eps: float, delta: float, budget: float, floor: float, ceiling: float
) -> tuple[float, bool]:
    """Largest ``eps0`` whose binary worst case is certified ``(eps, delta)``-DP, and whether it is exact.

    :func:`~shufflelib.bounds.krr_worst_case.binary_max_eps0_bracket` at a profile target just
    below ``eps`` (so that the round trip holds), between ``floor``, a valid answer (stronger
    clones), and ``ceiling``, an answer no smaller than the exact one (the two explicit pairs').
    """
    if ceiling <= floor * (1.0 + EXACT_RTOL):  # the two ends already agree: nothing to search
        return floor, True
    found = binary_max_eps0_bracket(n, profile_target(eps), delta, budget, floor=floor, ceiling=ceiling)
    return found.lower, found.exact


@lru_cache(maxsize=32)
def _binary_epsilon(n: int, eps0: float, delta: float, limit: float) -> EpsilonBracket:
    """Cached :func:`worst_case_epsilon_bracket` for ``k = 2`` (the calculator asks for the value,
    then its details), with the stronger-clones ε as its ceiling and its upper end at most that
    (within the search's tolerance it may be lower: both are valid)."""
    ceiling = _upper_answer(2, "epsilon", n, eps0, delta)
    lower = _lower_answer(2, "epsilon", n, eps0, delta)
    if ceiling <= lower * (1.0 + EXACT_RTOL):  # the two ends already agree: nothing to search
        return EpsilonBracket(ceiling, lower, (n - 1, 0), True)
    # The walk starts at the two pairs' ε (at most the exact answer), not at 0: the searches below
    # it only find what the two pairs already say, and the budget they spent is the fallback's.
    found = worst_case_epsilon_bracket(n, 2, eps0, delta, limit, ceiling, floor=lower)
    return replace(found, upper=min(found.upper, ceiling))


@lru_cache(maxsize=32)
def _upper_answer(k: int, ask: str, n: int, first: float, second: float) -> float:
    """Cached answer ``ask`` (``delta``, ``epsilon`` or ``max_eps0``) of :class:`ExactKRR`'s valid bound
    beyond the search: stronger clones (k = 2), the better of thinned and stronger clones (k >= 3)
    (the calculator asks for the value, then its details)."""
    strong = getattr(StrongerClones(mechanism="krr", k=k), ask)(n, first, second)
    if k == 2:
        return strong
    thin = getattr(ThinnedClones(mechanism="krr", k=k), ask)(n, first, second)
    # Thinned clones is the smaller bound (its pair is a post-processing of the stronger-clone
    # pair) except within their rounding allowances (where s = p + q rounds to 1): the better one.
    return max(thin, strong) if ask == "max_eps0" else min(thin, strong)


@lru_cache(maxsize=32)
def _lower_answer(k: int, ask: str, n: int, first: float, second: float) -> float:
    """Cached answer ``ask`` of the two explicit pairs (:class:`TwoPairKRRLowerBound`), the other
    end of :class:`ExactKRR`'s brackets (asked for the answer and again for its details)."""
    return getattr(TwoPairKRRLowerBound(mechanism="krr", k=k), ask)(n, first, second)


@lru_cache(maxsize=32)
def _binary_delta(n: int, eps0: float, eps: float, limit: float) -> WorstCase:
    """Binary RR's worst case at one ε: the two explicit pairs and stronger clones when they
    already agree within :data:`~shufflelib.bounds.krr_worst_case.EXACT_RTOL`, else the branch
    and bound."""
    upper = _upper_answer(2, "delta", n, eps0, eps)
    if upper <= DELTA_FLOOR:  # reported as the floor whatever the search finds: no search
        return WorstCase(np.array([upper]), np.array([0.0]), (n - 1, 0), False)
    lower = _lower_answer(2, "delta", n, eps0, eps)
    if upper <= lower * (1.0 + EXACT_RTOL):
        return WorstCase(np.array([upper]), np.array([lower]), (n - 1, 0), True)
    return _worst_delta(n, 2, eps0, eps, limit)


@lru_cache(maxsize=32)
def _worst_delta(n: int, k: int, eps0: float, eps: float, limit: float) -> WorstCase:
    """Cached :func:`worst_case_delta` at one ε."""
    return worst_case_delta(n, k, eps0, [eps], limit)


@fill_doc
class ExactKRR(AmplificationBound):
    """The exact worst case of shuffled k-RR over **all** pairs of neighbouring datasets.

    ``delta`` is the worst-case δ (the upper end of a numerical bracket narrower than 1e-6
    relative), ``epsilon`` the worst-case ε rounded up and ``max_eps0`` the largest ``eps0``
    rounded down — exact where the search finishes within ``work_limit``. For ``k = 2`` the
    search is a branch and bound that always answers: beyond its budget with a certified
    bracket whose upper end (or the stronger-clones bound, if smaller) is returned. For
    ``k >= 3`` the complete search runs only where
    :func:`~shufflelib.bounds.krr_budget.worst_case_work` fits the budget; beyond, the
    answers are the thinned-clones upper bound
    (:class:`~shufflelib.bounds.thinned_clones.ThinnedClones`, valid for k-RR) and the
    bracket's lower end is :class:`TwoPairKRRLowerBound` (two explicit pairs). :meth:`details`
    says which.

    Parameters
    ----------
    %(mechanism_krr)s %(k_krr)s
    work_limit
        Budget of one answer, in estimated seconds of search (default
        :data:`~shufflelib.bounds.krr_budget.WORK_LIMIT`).

    Notes
    -----
    Reach within the default budget: see ``benchmarks/bench_bounds.py`` (for ``k = 2`` at
    δ ≈ 1e-6: the three questions exact up to ``n = 1e6`` for ``eps0 >= 1``, about a second
    each, and up to ``1e5`` for ``eps0 = 0.5``; at ``1e6``, ``eps0 = 0.5``, brackets of about
    0.2 % in ε and ``eps0``; at ``1e7``, ``eps0 <= 1``, about 0.3 % in δ and ``eps0``, 2–5 % in
    ε; tens of users for
    ``k = 3`` and ``k = 4``, and beyond them a bracket of about 1 % in δ at ``n = 1e4`` and
    0.1 % at 1e6).

    Examples
    --------
    >>> from shufflelib.bounds.exact import ExactKRR, TwoPairKRRLowerBound
    >>> exact = ExactKRR(mechanism="krr", k=2)
    >>> round(exact.delta(20, 3.0, 0.0), 4), round(TwoPairKRRLowerBound("krr", k=2).delta(20, 3.0, 0.0), 4)
    (0.4434, 0.3596)
    >>> exact.details("delta", 20, 3.0, 0.0)["worst_others"]
    [9, 10]
    """

    name = "exact-krr"
    title = "Exact shuffled k-RR: worst case over all neighbouring datasets (certified bracket beyond the search)"
    reference = (
        "Complete search over the histograms of the other users (this library); cf. S. Biswas, "
        "K. Jung, C. Palamidessi. Tight differential privacy guarantees for the shuffle model "
        "with k-randomized response. FPS 2023, arXiv:2205.08858."
    )
    mechanisms = ("krr",)

    def __init__(self, mechanism: str = "generic", k: int | None = None, work_limit: float = WORK_LIMIT) -> None:
        super().__init__(mechanism, k)
        if not work_limit > 0:
            raise ValueError(f"work_limit must be > 0, got {work_limit!r}")
        self.work_limit = float(work_limit)

    validity = TwoPairKRRLowerBound.validity  # the same range of the numerical evaluation

    #: Complete searches one answer needs (k >= 3), roughly one per δ, a few per ε (one per
    #: dataset that takes the lead) and a root finding over ``eps0`` of those for ``max_eps0``.
    SEARCHES = {"delta": 1.0, "epsilon": 4.0, "eps0": 40.0}
    #: Share of ``work_limit`` one answer may spend in the k = 2 branch and bound (estimated
    #: seconds of the work meter of ``krr_worst_case``, every evaluation counted).
    BINARY_SHARE = {"delta": 1.0, "epsilon": 1.0, "eps0": 1.0}
    #: Options of the command-line calculator for this bound (a budget that keeps a
    #: whole command, start-up, the two bracket ends and the search, within about 2 s).
    CALCULATOR_OPTIONS = {"work_limit": CALCULATOR_WORK_LIMIT}

    def is_exact(self, n: int, command: str = "delta", first: float | None = None, second: float | None = None) -> bool:
        """Whether the answer to ``command`` at ``n`` is exact (else a certified bracket's safe end).

        ``command`` is ``"delta"``, ``"epsilon"`` or ``"eps0"``. For ``k >= 3`` it is known in
        advance (the searches one answer needs, :attr:`SEARCHES`, times their estimated time
        must fit in ``work_limit``); for ``k = 2`` it depends on the question's two inputs
        ``first, second`` (as in :meth:`details`), and the answer is computed to tell.

        Examples
        --------
        >>> ExactKRR(mechanism="krr", k=3).is_exact(30), ExactKRR(mechanism="krr", k=3).is_exact(10**6)
        (True, False)
        >>> ExactKRR(mechanism="krr", k=2).is_exact(1000, "epsilon", 1.0, 1e-6)
        True
        """
        check_choice("command", command, self.SEARCHES)
        if self.k >= 3:
            return worst_case_work(n, self.k) * self.SEARCHES[command] <= self.work_limit
        if first is None or second is None:
            raise ValueError("for k = 2, is_exact needs the question's inputs first and second")
        return bool(self.details(command, n, first, second)["exact"])

    def _budget(self, command: str) -> float:
        return self.work_limit * self.BINARY_SHARE[command]

    def privacy_loss(self, n: int) -> PrivacyLoss:
        """Within its exact search (``k = 2``: ``n <=`` :data:`EXACT_PROFILE_MAX_N`; ``k >= 3``: when
        :meth:`is_exact`), the exact worst case's profile (the search runs once for all ε; a
        maximum over datasets, hence only a profile); beyond, the stronger-clone pair, which
        dominates the certified bracket's upper end (for ``k >= 3`` with blanket Bennett's profile
        as the alternative, as :class:`~shufflelib.bounds.thinned_clones.ThinnedClones`).

        Examples
        --------
        >>> ExactKRR(mechanism="krr", k=2).privacy_loss(50).form
        'profile'
        >>> loss = ExactKRR(mechanism="krr", k=2).privacy_loss(10**6)
        >>> loss.form, loss.note[:40]
        ('pair', 'composed: the stronger-clone pair, which')
        """
        fits = n <= EXACT_PROFILE_MAX_N if self.k == 2 else self.is_exact(n, "delta")
        if not fits:
            note = (
                "composed: the stronger-clone pair, which dominates the certified bracket's upper end; "
                f"n = {n} is beyond the exact search"
            )
            return ThinnedClones.stronger_pair_loss(n, self.k, note)
        # The exact k-RR worst case is at least its two explicit pairs: their (fast) single-round
        # answer brackets the composed search from above.
        top = TwoPairKRRLowerBound(mechanism="krr", k=self.k)
        return PrivacyLoss(
            "profile",
            True,
            epsilon=lambda e0, d: self.epsilon(n, e0, d),
            largest=lambda e, d: top.max_eps0(n, e, d),
            profile=lambda e0: lambda e: worst_case_delta(n, self.k, e0, np.minimum(e, e0), self.work_limit).delta,
        )

    def _binary_delta(self, n: int, eps0: float, eps: float) -> WorstCase:
        return _binary_delta(n, eps0, eps, self._budget("delta"))

    def _binary_epsilon(self, n: int, eps0: float, delta: float) -> EpsilonBracket:
        return _binary_epsilon(n, eps0, delta, self._budget("epsilon"))

    def _at(self, command: str, n: int, first: float, second: float) -> tuple[float, bool]:
        """The answer to ``command`` for exactly ``n`` users, and whether it is exact (before the
        comparison with ``n − 1`` users of :meth:`_answer`)."""
        if command == "delta":
            eps0, eps = first, second
            if eps >= eps0:
                return 0.0, True  # every likelihood ratio of k-RR is within [e^-eps0, e^eps0]
            if self.k == 2:
                found = self._binary_delta(n, eps0, eps)
                value = float(found.delta[0])
                return (value, True) if found.exact else (min(value, _upper_answer(2, "delta", n, eps0, eps)), False)
            if self.is_exact(n, "delta"):
                return float(_worst_delta(n, self.k, eps0, eps, self.work_limit).delta[0]), True
            return _upper_answer(self.k, "delta", n, eps0, eps), False
        if command == "epsilon":
            if self.k == 2:
                bracket = self._binary_epsilon(n, first, second)
                return bracket.upper, bracket.exact
            if self.is_exact(n, "epsilon"):
                return worst_case_epsilon(n, self.k, first, second, self.work_limit)[0], True
            return _upper_answer(self.k, "epsilon", n, first, second), False
        if self.k == 2:
            return self._binary_max_eps0(n, first, second)
        if self.is_exact(n, "eps0"):
            return super().max_eps0(n, first, second), True
        return _upper_answer(self.k, "max_eps0", n, first, second), False

    def _answer(self, command: str, n: int, first: float, second: float) -> tuple[float, bool]:
        """The answer to ``command`` at ``n`` users and whether it is exact: where the answer
        for ``n`` is not exact, the better of it and the answer for ``n − 1`` users.

        *Proof that an answer for n − 1 users is valid for n.* Take neighbouring datasets of
        ``n`` users and fix the value ``x`` of one user other than the victim: the shuffled
        histogram of the ``n`` reports is the histogram of the other ``n − 1`` reports plus one
        report of ``x``, drawn independently with the same law under both datasets, a
        post-processing (the same Markov kernel) applied to both output laws of ``n − 1`` users.
        The hockey-stick divergence cannot increase under it, so ``δ_n(ε) <= δ_{n−1}(ε)`` for
        the worst case over datasets at every ``ε`` and ``eps0``: a valid ``δ`` or ``ε`` for
        ``n − 1`` users is valid for ``n``, and so is a valid ``eps0`` (k-RR at that ``eps0``
        is ``(ε, δ)``-DP for ``n − 1`` users, hence for ``n``). The answer is then never above
        the answer for ``n − 1`` users (below for ``eps0``) where either is a bracket's safe end.
        """
        value, exact = self._at(command, n, first, second)
        if exact or n <= 2:
            return value, exact
        # half the budget for the comparison (its answer is valid whatever the budget)
        half = ExactKRR(self.mechanism, self.k, work_limit=self.work_limit / 2.0)
        previous = half._at(command, n - 1, first, second)[0]
        return (max(value, previous) if command == "eps0" else min(value, previous)), False

    def _delta(self, n: int, eps0: float, eps: float) -> float:
        return self._answer("delta", n, eps0, eps)[0]

    def _epsilon(self, n: int, eps0: float, delta: float) -> float:
        return self._answer("epsilon", n, eps0, delta)[0]

    def max_eps0(self, n: int, eps: float, delta: float) -> float:
        """Largest ``eps0`` whose worst case is ``(eps, delta)``-DP (exact within the budget, rounded down).

        Beyond the budget: a valid, smaller ``eps0`` (``k = 2``: the larger of the branch and
        bound's certified answer and the stronger-clones one; ``k >= 3``: the thinned-clones
        one; either, if larger, the answer for ``n − 1`` users, valid for ``n``); see
        :meth:`details`.

        Examples
        --------
        >>> e0 = ExactKRR(mechanism="krr", k=2).max_eps0(50, 1.0, 1e-3)
        >>> ExactKRR(mechanism="krr", k=2).epsilon(50, e0, 1e-3) <= 1.0
        True
        """
        return self._answer("eps0", n, eps, delta)[0]

    def _binary_max_eps0(self, n: int, eps: float, delta: float) -> tuple[float, bool]:
        """(answer, exact) of the ``eps0`` question for ``k = 2`` (the root walk of
        :func:`~shufflelib.bounds.krr_worst_case.binary_max_eps0_bracket`)."""
        floor = _upper_answer(2, "max_eps0", n, eps, delta)
        ceiling = _lower_answer(2, "max_eps0", n, eps, delta)
        return _binary_max_eps0(n, eps, delta, self._budget("eps0"), floor, ceiling)

    def details(self, command: str, n: int, first: float, second: float) -> dict[str, object]:
        """What the calculator adds to its record: exact or not, the bracket, a worst dataset.

        ``command`` is ``"epsilon"`` (``first, second = eps0, delta``), ``"delta"``
        (``eps0, eps``) or ``"eps0"`` (``eps, delta``).

        Examples
        --------
        >>> d = ExactKRR(mechanism="krr", k=2, work_limit=0.05).details("epsilon", 10**6, 1.0, 1e-6)
        >>> d["exact"], d["lower"] < d["upper"]
        (False, True)
        """
        check_choice("command", command, self.SEARCHES)
        if self.k == 2:
            return self._binary_details(command, n, first, second)
        if self.is_exact(n, command):
            out: dict[str, object] = {"exact": True}
            if command == "delta" and second < first:
                out["worst_others"] = list(_worst_delta(n, self.k, first, second, self.work_limit).others)
            elif command == "epsilon":
                out["worst_others"] = list(worst_case_epsilon(n, self.k, first, second, self.work_limit)[1])
            return out
        ask = {"epsilon": "epsilon", "delta": "delta", "eps0": "max_eps0"}[command]
        valid, source = self._safe_end(command, n, first, second, "thinned clones")
        if n > BRACKET_MAX_N:  # the two explicit pairs take several seconds there: no other end
            return {
                "exact": False,
                "lower" if command == "eps0" else "upper": valid,
                "warning": (
                    f"not exact: at n = {n}, k = {self.k} beyond the complete search; the value is a valid "
                    f"bound ({source}) (the other end of the bracket is not computed beyond "
                    f"n = {BRACKET_MAX_N:.0e})"
                ),
            }
        other = _lower_answer(self.k, ask, n, first, second)
        lower, upper = (valid, other) if command == "eps0" else (other, valid)  # a larger eps0 is less safe
        return _bracket_record(n, self.k, lower, upper, "beyond the complete search", source)

    def _safe_end(self, command: str, n: int, first: float, second: float, source: str) -> tuple[float, str]:
        """The answer beyond the search (:meth:`_answer`) and where it comes from: ``source``, or
        the answer for ``n − 1`` users when that one is better (valid for ``n``)."""
        value = self._answer(command, n, first, second)[0]
        if value != self._at(command, n, first, second)[0]:  # the answer for n - 1 users is better
            source = "the answer for n - 1 users, valid for n"
        return value, source

    def _binary_details(self, command: str, n: int, first: float, second: float) -> dict[str, object]:
        """:meth:`details` for ``k = 2`` (the branch and bound)."""
        if command == "delta":
            if second >= first:
                return {"exact": True}
            found = self._binary_delta(n, first, second)
            if found.exact:
                return {"exact": True, "worst_others": list(found.others)}
            upper, source = self._safe_end(command, n, first, second, "branch and bound")
            if upper <= DELTA_FLOOR:
                return {"exact": True, "note": f"delta below {DELTA_FLOOR:g} (reported as that floor)"}
            lower = max(float(found.lower[0]), _lower_answer(2, "delta", n, first, second))
        elif command == "epsilon":
            bracket = self._binary_epsilon(n, first, second)
            if bracket.exact:
                return {"exact": True, "worst_others": list(bracket.others)}
            upper, source = self._safe_end(command, n, first, second, "branch and bound")
            lower = max(bracket.lower, _lower_answer(2, "epsilon", n, first, second))
        else:
            if self._binary_max_eps0(n, first, second)[1]:
                return {"exact": True}
            lower, source = self._safe_end(command, n, first, second, "branch and bound")
            upper = _lower_answer(2, "max_eps0", n, first, second)
        if upper <= lower * (1.0 + EXACT_RTOL):  # the certified bracket closed all the same
            return {"exact": True}
        why = "the branch and bound stopped at its budget"
        if command != "delta" and second < DELTA_FLOOR:
            why = f"delta is below the resolution of the search ({DELTA_FLOOR:g})"
        return _bracket_record(n, 2, lower, upper, why, source)

    def curve(self, n: int, eps0: float, eps_grid: np.ndarray | None = None) -> ProfileCurve:
        """The worst-case profile for fixed ``(n, eps0)`` (exact within the search budget).

        Examples
        --------
        >>> c = ExactKRR(mechanism="krr", k=2).curve(50, 1.0, np.linspace(0.0, 1.0, 11))
        >>> 0.0 < c.delta(0.1) < 1.0
        True
        """
        n, eps0 = _check_n_eps0(n, eps0)
        self._require(n, eps0)
        grid = np.linspace(0.0, eps0, 101) if eps_grid is None else eps_grid

        def profile(e: np.ndarray) -> np.ndarray:
            return np.array([self._delta(n, eps0, float(x)) for x in np.atleast_1d(e)])

        return ProfileCurve(profile, eps_grid=grid)
