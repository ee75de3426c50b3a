r"""Theorems 1 and 2 of Liu et al. (2024), as printed and as they can be read consistently.

Notation (Sec. 3.3 of the paper). User 1 has the largest budget
:math:`(\varepsilon_1, \delta_1)` and confounding probability :math:`w = p_1`;
user ``i ≥ 2`` is a clone with probability :math:`2 p_i`, so the number of
clones ``C`` is Poisson-binomial with pmf :math:`\pi_m`. Given ``C = m``,
:math:`P_0` puts :math:`V \sim B_m = \mathrm{Bin}(m, 1/2)` reports on the
:math:`x^1` side and :math:`Q_0` puts :math:`1 + V`; :math:`F_m, f_m` are the
cdf and pmf of :math:`B_m` (with :math:`F_m(x) := F_m(\lfloor x \rfloor)`).

**Theorem 1 (printed).** With
:math:`\alpha(t) = \sum_{m=0}^{n-1} \pi_m F_m(m - \frac{m+1}{t+1})`,
:math:`f_s(\alpha(t)) = (1-\delta_1)\big(2w(1-\alpha(t)) + (1-2w)\sum_m \pi_m F_m(m+1-\tfrac{m+1}{t+1})\big) + \delta_1(1-\alpha(t))`.
At :math:`t \to \infty`, :math:`\alpha \to 1` but :math:`f_s \to (1-\delta_1)(1-2w) > 0`:
it is not a trade-off function. Inserting the missing ":math:`1 -`" before the
sum gives the **corrected** :math:`f_s = \lambda\, T(P_0, Q_0) + (1-\lambda)\,\mathrm{Id}`,
:math:`\lambda = (1-\delta_1)(1-2w)`.

**Theorem 2 (printed).**
:math:`\delta_s(\varepsilon) = (-e^\varepsilon + (1-\delta_1)2w + \delta_1)\,a(t_\varepsilon) + (1-\delta_1)(1-2w)\,B(t_\varepsilon)`
with :math:`a(t) = \sum_{m \ge 1} \pi_m F_m(m - \frac{m+1}{t+1})`,
:math:`B(t) = \sum_{m \ge 1} \pi_m F_m(m + 1 - \frac{m+1}{t+1})` and
:math:`t_\varepsilon = \inf\{t : (1-\delta_1)(-2w + (1-2w) l(t)) - \delta_1 \ge -e^\varepsilon\}`,
:math:`l(t) = -\sum_m w_1^0 f_m(\lfloor m+1-\frac{m+1}{t+1} \rfloor) / \sum_m w_1^0 f_m(\lfloor m - \frac{m+1}{t+1} \rfloor)`
(the constant :math:`w_1^0` cancels; the evident intent is :math:`\pi_m`).
It is the convex conjugate of the corrected Theorem 1, so it equals

.. math::

    \delta_s(\varepsilon) = \lambda\, H_{e^{\varepsilon'}}(Q_0 \| P_0), \qquad
    e^{\varepsilon'} = 1 + \frac{e^{\varepsilon} - 1}{\lambda},

attained at the common threshold :math:`t^* = e^{-\varepsilon'}`.
:func:`theorem2_delta` computes this consistent reading (sums from ``m = 0``),
:func:`theorem2_printed_delta` the printed formula literally (sums from
``m = 1``, :math:`t_\varepsilon` from :math:`l(t)`: the first of 100 log-spaced
thresholds where the condition holds, then the exact step of :math:`l(t)` by bisection;
with weights ``"pi"``, counts whose pmf is below ``1e-30`` of its maximum are left out of
both sums and at most 1,024 pooled counts kept).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy.special import bdtr, gammaln

from .._docstrings import fill_doc
from .._laws import binom
from .._validation import check_array, check_choice, check_in_range
from ..curves import DominatingPair, symmetrized  # noqa: F401  (symmetrized: re-exported)
from .clone_count import MAX_GROUPS, CloneCount, clone_pair_delta
from .hypothesis_testing import paper_p1, paper_pi
from .mechanisms import LocalMechanism
from .population import Population

__all__ = [
    "ClonePlan",
    "paper_plan",
    "theorem2_delta",
    "theorem2_printed_delta",
    "theorem1_printed",
    "theorem1_corrected",
    "exact_pair_tradeoff",
    "symmetrized",
    "L_T_WEIGHTS",
]

_LOG2 = math.log(2.0)

#: Weights in the printed l(t), either "printed" (the constant w_1^0, which cancels) or "pi".
L_T_WEIGHTS = ("printed", "pi")


@dataclass(frozen=True)
class ClonePlan:
    """User 1's mixing weight, local δ and the clone count of the other users.

    Attributes
    ----------
    w
        User 1's weight ``w`` in ``[0, 1/2)``.
    delta1
        User 1's local δ.
    count
        The clone count ``C`` of the other users.
    eps1
        User 1's local ε (informative).

    Examples
    --------
    >>> plan = ClonePlan.homogeneous(w=0.1, q=0.2, others=99)
    >>> round(plan.count.mean, 6)
    19.8
    """

    w: float
    delta1: float
    count: CloneCount
    eps1: float = math.inf

    @property
    def lam(self) -> float:
        """``λ = (1 − δ_1)(1 − 2w)``."""
        return (1.0 - self.delta1) * (1.0 - 2.0 * self.w)

    @classmethod
    def homogeneous(cls, w: float, q: float, others: int, delta1: float = 0.0) -> ClonePlan:
        """A plan whose ``others`` users all clone with probability ``q``.

        Examples
        --------
        >>> ClonePlan.homogeneous(0.2, 0.4, 10).count.trials
        10
        """
        w = check_in_range("w", w, 0.0, 0.5, closed_high=False)
        delta1 = check_in_range("delta1", delta1, 0.0, 1.0, closed_high=False)
        return cls(w, delta1, CloneCount.from_binomials([q], [others]))


def paper_plan(
    population: Population,
    mechanism: LocalMechanism,
    *,
    tie: str = "limit",
    max_groups: int = MAX_GROUPS,
) -> ClonePlan:
    """The clone plan of Liu et al. (2024): user 1 at the largest level, hypothesis-testing ``p``'s.

    ``w = p_1`` (:func:`~shufflelib.personalized.hypothesis_testing.paper_p1`)
    and every other user clones with probability ``2 p_i``
    (:func:`~shufflelib.personalized.hypothesis_testing.paper_pi`, worst case
    ``x_i = x^0``).

    Examples
    --------
    >>> from shufflelib.personalized import LocalMechanism, Population
    >>> plan = paper_plan(Population([1.0, 3.0], [199, 1]), LocalMechanism("laplace"))
    >>> round(plan.w, 4), plan.count.trials
    (0.1116, 199)
    """
    return _paper_plan(population, mechanism, tie, max_groups)


@lru_cache(maxsize=128)
def _paper_plan(population: Population, mechanism: LocalMechanism, tie: str, max_groups: int) -> ClonePlan:
    top = population.max_level
    eps1, delta1 = population.eps_max, float(population.delta[top])
    w = paper_p1(mechanism, eps1, delta1)
    others = population.without_one(top)
    if others is None:
        return ClonePlan(w, delta1, CloneCount.from_binomials([0.0], [0]), eps1)
    p, _, _ = paper_pi(mechanism, others.eps, others.delta, eps1, delta1, tie=tie)
    count = CloneCount.from_binomials(np.minimum(2.0 * p, 1.0), others.counts, max_groups=max_groups)
    return ClonePlan(w, delta1, count, eps1)


def _eps_prime(eps: np.ndarray, lam: float) -> np.ndarray:
    """``ε'`` with ``e^{ε'} = 1 + (e^ε − 1)/λ``, computed without overflow."""
    e = np.maximum(eps, 1e-300)
    big = np.maximum(e, 30.0)
    log_expm1 = np.where(e > 30.0, big + np.log1p(-np.exp(-big)), np.log(np.expm1(np.minimum(e, 30.0))))
    return np.logaddexp(0.0, log_expm1 - math.log(lam))


def theorem2_delta(eps: object, plan: ClonePlan) -> np.ndarray:
    """Theorem 2, consistent reading: ``λ H_{e^{ε'}}(Q_0‖P_0)`` (sums from ``m = 0``), vectorized in ε.

    Exact up to the tolerances of
    :func:`~shufflelib.personalized.clone_count.clone_pair_delta` (which
    evaluates the ``w = 0`` clone pair, i.e. ``P_0`` against ``Q_0``).

    Examples
    --------
    >>> import math
    >>> plan = ClonePlan.homogeneous(w=0.5 * math.exp(-1.5), q=math.exp(-1.5), others=299)
    >>> round(float(theorem2_delta(0.1, plan)), 5)  # digest, Sec. 7.2: 0.0389
    0.03894
    """
    e = check_array("eps", eps, low=0.0)
    lam = plan.lam
    if lam <= 0:
        return np.zeros(e.shape)
    flat = np.atleast_1d(e).ravel()
    out = lam * clone_pair_delta(_eps_prime(flat, lam), 0.0, plan.count)
    return np.minimum(out, 1.0).reshape(e.shape)


_PRINTED_CACHE: dict[tuple[int, str], tuple] = {}


#: Largest number of clone counts the printed formula sums over (see :func:`_coarsen`).
PRINTED_TERMS = 1024
#: Thresholds scanned for the first crossing of the condition on ``l(t)`` (then resolved exactly).
_T_GRID = np.logspace(-12, 12, 100)


@dataclass(frozen=True)
class _PrintedTables:
    """The terms of the printed formula for one plan: counts ``m``, pmf, and ``l(t)`` on :data:`_T_GRID`
    (filled in chunks of :data:`_GRID_CHUNK` thresholds, from the smallest, as far as a scan needs),
    with ``l`` at the thresholds the bisections visited and ``(a, b)`` at the arguments they found
    (a root search over ε asks again at nearby ε, whose bisections share their first steps)."""

    m: np.ndarray
    pi: np.ndarray
    log_base: np.ndarray  # log(weight of l(t)) + log m! − m log 2: f_m(v) weighted, without 1/(v!(m−v)!)
    l_grid: np.ndarray  # NaN where not computed yet
    l_seen: dict[float, float] = field(default_factory=dict)
    ab_seen: dict[float, tuple[float, float]] = field(default_factory=dict)

    def l_at(self, index: int) -> np.ndarray:
        """``l`` on the chunk of grid thresholds that holds ``index`` (computed once)."""
        lo = index - index % _GRID_CHUNK
        chunk = self.l_grid[lo : lo + _GRID_CHUNK]
        if np.isnan(chunk[0]):
            chunk[:] = _l_of_k(_k_of_t(_T_GRID[lo : lo + _GRID_CHUNK, None], self.m), self.m, self.log_base)
        return chunk

    def l_of(self, t: np.ndarray) -> np.ndarray:
        """``l`` at the thresholds ``t`` (each computed once, in blocks of at most :data:`_BLOCK` terms)."""
        if len(self.l_seen) > _SEEN_MAX:
            self.l_seen.clear()
        # Each threshold looked up (a set minus the dict's keys would copy every key remembered).
        missing = np.array(sorted(x for x in {float(x) for x in t} if x not in self.l_seen))
        for block in _blocks(missing, self.m.size):
            values = _l_of_k(_k_of_t(block[:, None], self.m), self.m, self.log_base)
            self.l_seen.update(zip(block.tolist(), values.tolist(), strict=True))
        return np.array([self.l_seen[float(x)] for x in t])

    def a_b(self, t: float) -> tuple[float, float]:
        """``a = Σ π_m F_m(k_m)`` and ``b = Σ π_m F_m(k_m + 1)`` at the arguments ``k = k_m(t)`` (once per ``t``)."""
        if len(self.ab_seen) > _SEEN_MAX:
            self.ab_seen.clear()
        if t not in self.ab_seen:
            k = _k_of_t(t, self.m)
            self.ab_seen[t] = (float(_bin_cdf(k, self.m) @ self.pi), float(_bin_cdf(k + 1.0, self.m) @ self.pi))
        return self.ab_seen[t]


#: Largest number of terms (thresholds × counts) of one block of ``l`` or of arguments ``k``.
_BLOCK = 1 << 20


def _blocks(items: np.ndarray, width: int) -> list[np.ndarray]:
    """``items`` in consecutive blocks of at most ``_BLOCK // width`` (at least one) each."""
    size = max(1, _BLOCK // width)
    return [items[i : i + size] for i in range(0, items.size, size)]


#: Largest number of remembered values of ``l`` or of ``(a, b)`` per table before they are dropped.
_SEEN_MAX = 4096


#: Thresholds of :data:`_T_GRID` whose ``l(t)`` is computed at once.
_GRID_CHUNK = 10


def _printed_tables(plan: ClonePlan, weights: str) -> _PrintedTables:
    """The terms of the printed formula (cached per plan).

    ``weights="printed"``: every ``m = 1, ..., n − 1`` with weight 1 (the constant ``w_1^0``
    cancels); ``"pi"``: the counts where the clone-count pmf is represented.
    """
    key = (id(plan), weights)
    hit = _PRINTED_CACHE.get(key)
    if hit is not None and hit[0] is plan:
        return hit[1]
    if weights == "printed":
        m = np.arange(1.0, plan.count.trials + 1.0)
        pi = np.zeros(m.size)
        full_m, full_pi = _pmf_table(plan, from_one=True)
        pi[(full_m - 1).astype(int)] = full_pi
        wts = np.ones_like(pi)
    else:
        m, pi = _pmf_table(plan, from_one=True)
        keep = pi >= 1e-30 * pi.max() if pi.size else pi > 0  # negligible terms of both sums
        m, pi = _coarsen(m[keep], pi[keep])
        wts = pi
    with np.errstate(divide="ignore"):  # zero weights are -inf logs
        log_base = np.log(wts) + gammaln(m + 1.0) - m * _LOG2
    tables = _PrintedTables(m, pi, log_base, np.full(_T_GRID.size, np.nan))
    if len(_PRINTED_CACHE) > 64:
        _PRINTED_CACHE.clear()
    _PRINTED_CACHE[key] = (plan, tables)
    return tables


def _coarsen(m: np.ndarray, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """At most ``PRINTED_TERMS`` terms: consecutive counts pooled at their mass-weighted middle.

    The sums of the printed formula are expectations of smooth functions of the clone count
    ``m`` (binomial cdfs at ``m/2 ± O(sqrt m)``); with more than ``PRINTED_TERMS`` counts each pool
    spans a small fraction of a standard deviation, so pooling changes the *formula's* value by
    a relative ~1e-6 (it is a formula, not a bound) and keeps it ``O(1)`` in ``n``.
    """
    if m.size <= PRINTED_TERMS:
        return m, pi
    edges = np.linspace(0, m.size, PRINTED_TERMS + 1).astype(np.int64)
    mass = np.add.reduceat(pi, edges[:-1])
    centre = np.add.reduceat(pi * m, edges[:-1]) / np.where(mass > 0, mass, 1.0)
    live = mass > 0
    return np.round(centre[live]), mass[live]


def _pmf_table(plan: ClonePlan, from_one: bool) -> tuple[np.ndarray, np.ndarray]:
    m = plan.count.support
    pi = plan.count.pmf
    if from_one:
        keep = m >= 1
        m, pi = m[keep], pi[keep]
    return m, pi


def _k_of_t(t: np.ndarray | float, m: np.ndarray) -> np.ndarray:
    """``k_m(t) = ⌊m − (m+1)/(t+1)⌋``: the argument of ``F_m`` in ``a(t)`` (non-decreasing in ``t``)."""
    return np.floor(m - (m + 1.0) / (t + 1.0))


def _a_b(t: np.ndarray, m: np.ndarray, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a(t) = Σ π_m F_m(m − (m+1)/(t+1))`` and ``B(t) = Σ π_m F_m(m + 1 − (m+1)/(t+1))``."""
    k = _k_of_t(t[:, None], m[None, :])
    return _bin_cdf(k, m[None, :]) @ pi, _bin_cdf(k + 1.0, m[None, :]) @ pi


def _bin_cdf(k: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``F_m(k)`` of ``Bin(m, 1/2)``: 0 below 0, 1 from ``m`` on (``scipy.special.bdtr`` inside)."""
    k, m = np.broadcast_arrays(k, m)
    inside = (k >= 0) & (k < m)
    out = np.where(k >= m, 1.0, 0.0)
    # k and m hold whole numbers as floats; bdtr wants integer arguments (floats are deprecated).
    out[inside] = bdtr(k[inside].astype(np.int64), m[inside].astype(np.int64), 0.5)
    return out


def _l_of_k(k: np.ndarray, m: np.ndarray, log_base: np.ndarray) -> np.ndarray:
    """The printed ``l(t)`` at the arguments ``k = k_m(t)`` (rows: thresholds), in log space.

    ``l = −Σ_m w_m f_m(k_m + 1) / Σ_m w_m f_m(k_m)`` with
    ``f_m(v) = exp(log m! − log v! − log (m−v)! − m log 2)``, 0 outside ``[0, m]``;
    ``-inf`` where the denominator vanishes.
    """
    k = np.atleast_2d(k)
    inside = (k >= 0) & (k <= m)
    kk = np.where(inside, k, 0.0)
    log_den_terms = np.where(inside, log_base - gammaln(kk + 1.0) - gammaln(m - kk + 1.0), -np.inf)
    # f_m(k + 1) = f_m(k) (m − k)/(k + 1) inside; f_m(0) at k = −1; 0 from k = m on.
    with np.errstate(divide="ignore"):
        step = np.log(np.maximum(m - k, 0.0)) - np.log(k + 1.0)
    log_num_terms = np.where(k == -1.0, log_base - gammaln(m + 1.0), log_den_terms + np.where(inside, step, 0.0))
    den, num = _log_sum(log_den_terms), _log_sum(log_num_terms)
    out = np.full(den.shape, -np.inf)
    ok = np.isfinite(den)
    out[ok] = -np.exp(np.minimum(num[ok] - den[ok], 700.0))  # beyond e^700: -inf for every purpose
    return out


def _log_sum(x: np.ndarray) -> np.ndarray:
    """``log Σ exp`` along the last axis (``-inf`` for a row of ``-inf``)."""
    top = x.max(axis=-1)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(x - safe[..., None]).sum(axis=-1))


def _thresholds(
    ok: Callable[[np.ndarray, np.ndarray], np.ndarray], rows: np.ndarray, tables: _PrintedTables
) -> np.ndarray:
    """Thresholds ``t`` with ``k_m(t) = k_m(t_ε)``, ``t_ε = inf{t : ok(l(t))}``, for the conditions ``rows``.

    ``ok(l, r)`` says where the conditions ``r`` hold at ``l`` (shape ``(r.size, c)``).
    The first of the thresholds :data:`_T_GRID` where a row's condition holds brackets its ``t_ε``
    with the one before (``t_ε`` is taken as the grid's end if the condition holds at its
    start or nowhere); bisection then shrinks the bracket ``(lo, hi]`` until a single count
    ``m`` changes its ``k_m`` in it, by one: ``l`` is constant on ``[t_ε, hi]``, so ``k(hi)``
    is ``k(t_ε)`` (or until ``lo`` and ``hi`` are adjacent floats). The rows bisect side by side,
    each exactly as it would alone.
    """
    m = tables.m
    first = np.full(rows.size, _T_GRID.size)  # past the grid's end: the condition holds nowhere on it
    pending = np.arange(rows.size)
    for j in range(0, _T_GRID.size, _GRID_CHUNK):
        if pending.size == 0:
            break
        holds = ok(tables.l_at(j)[None, :], rows[pending])
        hit = holds.any(axis=1)
        first[pending[hit]] = j + np.argmax(holds[hit], axis=1)
        pending = pending[~hit]
    t = np.where(first == 0, _T_GRID[0], _T_GRID[-1])
    inner = np.flatnonzero((first > 0) & (first < _T_GRID.size))
    lo, hi = _T_GRID[first[inner] - 1], _T_GRID[first[inner]]
    k_lo, k_hi = _k_of_t(lo[:, None], m), _k_of_t(hi[:, None], m)
    live = np.flatnonzero((k_hi - k_lo).sum(axis=1) > 1.0)
    while live.size:
        mid = np.sqrt(lo[live] * hi[live])
        inside = (lo[live] < mid) & (mid < hi[live])
        live, mid = live[inside], mid[inside]
        k_mid = _k_of_t(mid[:, None], m)
        up = ok(tables.l_of(mid)[:, None], rows[inner[live]])[:, 0]
        hi[live[up]], k_hi[live[up]] = mid[up], k_mid[up]
        lo[live[~up]], k_lo[live[~up]] = mid[~up], k_mid[~up]
        live = live[(k_hi[live] - k_lo[live]).sum(axis=1) > 1.0]
    t[inner] = hi
    return t


@fill_doc
def theorem2_printed_delta(eps: object, plan: ClonePlan, *, weights: str = "printed") -> np.ndarray:
    """Theorem 2 exactly as printed (sums from ``m = 1``, ``t_ε`` from the aggregated ``l(t)``).

    ``l(t)`` is a step function of ``t`` (through the floors); ``t_ε`` is located exactly,
    at the step where the condition first holds (bisection on the steps of ``l``).

    Parameters
    ----------
    %(eps_values)s
    plan
        The clone plan.
    weights
        Weights in ``l(t)``: ``"printed"`` (the constant ``w_1^0``, which
        cancels: an unweighted ratio over every ``m = 1, ..., n − 1``; cost
        ``O(n)`` per threshold) or ``"pi"`` (the clone-count pmf).

    Returns
    -------
    numpy.ndarray
        The printed δ_s(ε) (clipped to ``[0, 1]``). This is **not** a
        rounded-up quantity: it reproduces a formula, not a bound.

    Examples
    --------
    >>> import math
    >>> plan = ClonePlan.homogeneous(w=0.5 * math.exp(-1.5), q=math.exp(-1.5), others=299)
    >>> float(theorem2_printed_delta(0.1, plan)) <= float(theorem2_delta(0.1, plan))
    True
    """
    check_choice("weights", weights, L_T_WEIGHTS)
    e = check_array("eps", eps, low=0.0)
    flat = np.atleast_1d(e).ravel()
    tables = _printed_tables(plan, weights)
    m = tables.m
    if m.size == 0:
        return np.zeros(e.shape)
    d1, w = plan.delta1, plan.w
    exp_eps = np.array([math.exp(min(float(ej), 700.0)) for ej in flat])

    def ok(l_val: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return (1 - d1) * (-2 * w + (1 - 2 * w) * l_val) - d1 >= -exp_eps[rows, None]

    out = np.empty(flat.shape)
    for rows in _blocks(np.arange(flat.size), m.size):
        for j, t in zip(rows, _thresholds(ok, rows, tables), strict=True):
            a, b = tables.a_b(float(t))
            out[j] = (-exp_eps[j] + (1 - d1) * 2 * w + d1) * a + (1 - d1) * (1 - 2 * w) * b
    return np.clip(out, 0.0, 1.0).reshape(e.shape)


def _theorem1_curve(t: object, plan: ClonePlan, corrected: bool) -> tuple[np.ndarray, np.ndarray]:
    tt = np.asarray(t, dtype=float)
    if tt.ndim != 1 or np.any(np.isnan(tt)) or np.any(tt < 0):
        raise ValueError("t must be a 1-dimensional array of thresholds >= 0 (inf allowed)")
    m, pi = _pmf_table(plan, from_one=False)
    alpha, b = _a_b(tt, m, pi)
    inner = (1.0 - b) if corrected else b
    d1, w = plan.delta1, plan.w
    f = (1 - d1) * (2 * w * (1 - alpha) + (1 - 2 * w) * inner) + d1 * (1 - alpha)
    return alpha, f


def theorem1_printed(t: object, plan: ClonePlan) -> tuple[np.ndarray, np.ndarray]:
    """The printed Theorem 1 as a parametric curve ``(α(t), f_s(α(t)))``.

    Examples
    --------
    >>> import numpy as np
    >>> plan = ClonePlan.homogeneous(w=0.2, q=0.3, others=20)
    >>> a, f = theorem1_printed(np.array([np.inf]), plan)
    >>> round(float(a[0]), 6), round(float(f[0]), 6)  # f(1) should be 0 for a trade-off function
    (1.0, 0.6)
    """
    return _theorem1_curve(t, plan, corrected=False)


def theorem1_corrected(t: object, plan: ClonePlan) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 1 with the missing ``1 −``: ``(α(t), λ T(P_0,Q_0)(α) + (1−λ)(1−α))``.

    Examples
    --------
    >>> import numpy as np
    >>> plan = ClonePlan.homogeneous(w=0.2, q=0.3, others=20)
    >>> a, f = theorem1_corrected(np.array([0.0, np.inf]), plan)
    >>> [round(float(v), 6) for v in (a[0], f[0], a[1], f[1])]  # f(0) = 1 - λ E[2^-C] < 1
    [0.0, 0.976744, 1.0, 0.0]
    """
    return _theorem1_curve(t, plan, corrected=True)


def _pair_atoms(plan: ClonePlan, w: float) -> tuple[np.ndarray, np.ndarray]:
    """Log-probabilities of the clone pair ``P, Q`` on atoms ``(m, v)`` (exact; small counts only)."""
    m_all, pi = plan.count.support, plan.count.pmf
    lp, lq = [], []
    for m, pm in zip(m_all.astype(int), pi, strict=True):
        if pm <= 0:
            continue
        v = np.arange(m + 2, dtype=float)
        p0 = binom.pmf(v, m, 0.5)  # V ~ Bin(m, 1/2)
        q0 = binom.pmf(v - 1, m, 0.5)  # 1 + V
        p = (1 - w) * p0 + w * q0
        q = (1 - w) * q0 + w * p0
        with np.errstate(divide="ignore"):  # zero-probability atoms become -inf, as DominatingPair expects
            lp.append(np.log(pm * p))
            lq.append(np.log(pm * q))
    return np.concatenate(lp), np.concatenate(lq)


def exact_pair_tradeoff(alpha: object, plan: ClonePlan, *, symmetric: bool = False) -> np.ndarray:
    """The exact trade-off ``T(P, Q)(α)`` of the clone pair (type I error under ``P``).

    Built with :class:`~shufflelib.curves.DominatingPair` on the atoms
    ``(m, v)``; meant for small clone counts (the number of atoms is
    ``Σ_m (m + 2)``). ``symmetric=True`` returns the lower convex envelope of
    ``min(T(P,Q), T(Q,P))`` (equal to ``T(P, Q)`` for this symmetric pair).

    Examples
    --------
    >>> import numpy as np
    >>> plan = ClonePlan.homogeneous(w=0.25, q=0.0, others=0)   # user 1 alone: RR with e^eps0 = 3
    >>> [round(float(v), 6) for v in exact_pair_tradeoff(np.array([0.0, 0.25, 1.0]), plan)]
    [1.0, 0.25, 0.0]
    """
    a = check_array("alpha", alpha, low=0.0, high=1.0)
    lp, lq = _pair_atoms(plan, plan.w)
    missing = max(1.0 - float(np.exp(lp).sum()), 1.0 - float(np.exp(lq).sum()), 0.0)
    pair = DominatingPair(lq, lp, symmetric=symmetric, tail_mass=min(missing + 1e-12, 1.0))
    return np.asarray(pair.tradeoff(a), dtype=float)
