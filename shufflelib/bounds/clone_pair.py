r"""The clone pair: a clone-count law, the pair it defines, and the pair's privacy curve.

Every clone-type bound of the library is a thin factory over this module
(:mod:`~shufflelib.bounds.clones`, :mod:`~shufflelib.bounds.stronger_clones`,
:mod:`~shufflelib.population.tight`, :mod:`~shufflelib.personalized.sound`,
:mod:`~shufflelib.personalized.theorems` and :mod:`~shufflelib.segmented.clone_pairs`): it
chooses a clone-count law and the local log-odds of the victim, and this module computes the
hockey-stick divergence.

The pair. User 1's report is a clone of the *other* input with probability
``w = 1/(1 + e^L)`` (``L`` the local log-odds; ``L = eps0`` for an ``eps0``-LDP randomizer
in Feldman, McMillan and Talwar, ``L = ∞`` when it never is); ``C`` other users are clones,
split by fair coins. With ``M = C + 1`` and ``J`` the count on user 1's side, the shuffled
output is a post-processing of ``P = (J, M − J)`` against its mirror image, and given ``M = m``

.. math::

    h(m) = \frac{2\tanh(L/2)(1 + e^\varepsilon)}{m}\,
    \mathbb E\big[(m\kappa - X)^+\big], \qquad X \sim \mathrm{Bin}(m, 1/2),\quad
    \kappa = \frac{e^L - e^\varepsilon}{(e^L - 1)(e^\varepsilon + 1)},

zero for ``ε >= L`` (:func:`binomial_shortfall`; ``log κ`` is computed in log space, exact as
``ε → L``). The pair is symmetric, so one order suffices, and ``δ = E[h(C + 1)]``.

Clone-count laws. ``h`` is non-increasing in ``m`` (one more clone is a post-processing: a
fair coin), so any law of ``C`` may be replaced by a stochastically smaller one, and
neighbouring counts may be grouped into blocks evaluated at their **left** end: the result is
an upper bound. A law is therefore given to :func:`clone_pair_delta` as blocks — left ends
``counts`` and weights ``weights`` (masses plus every error allowance; neglected mass sits at
count 0):

* one binomial ``Bin(trials, p)``: :func:`binomial_blocks`;
* a sum of binomials (users at several privacy levels): :class:`BinomialSum`;
* a mixture over a random population (with dummies):
  :class:`shufflelib.population.clone_count.CloneCount`;
* a mixture of clone pairs, one log-odds per block (``local`` an array): the pairs of the
  segmented protocol, whose victim may clone neither input, are such a mixture given the
  total count (:mod:`shufflelib.segmented.clone_pairs`). ``h`` is non-decreasing in ``L`` (a
  smaller ``L`` is a post-processing: mixing the victim's report with a fair coin), so a block
  may carry its largest ``L``.

Numerical tolerance. Binomial pmf/cdf/sf are budgeted a relative error :data:`BINOM_RTOL`
(measured ``<= 3e-11`` against 30-digit mpmath for ``n`` up to ``1e9``), propagated through
the cancellation of :func:`binomial_shortfall` and added; block masses (differences of two
cdf values) are rounded up by their error bound; the sum is inflated by the same relative
amount; δ is reported in ``[1e-300, 1]``.

Examples
--------
>>> import numpy as np
>>> counts, weights = binomial_blocks(9_999, np.exp(-1.0))  # 10,000 users, eps0 = 1
>>> d = clone_pair_delta(np.array([0.05, 0.1, 1.0]), 1.0, counts, weights)
>>> [float(f"{x:.3g}") for x in d]
[2.14e-06, 6.42e-14, 0.0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .._laws import binom
from .._roots import first_integer
from .._validation import check_array, check_in_range, check_int
from .base import DELTA_FLOOR

__all__ = [
    "BINOM_RTOL",
    "TAIL",
    "MAX_GROUPS",
    "MAX_BLOCKS",
    "DIRECT_WORK",
    "binomial_pmf_rows",
    "row_chunks",
    "binomial_shortfall",
    "binomial_range",
    "binomial_interval_mass",
    "binomial_blocks",
    "BinomialSum",
    "clone_pair_delta",
    "local_log_odds",
    "log_sinh",
    "scaled_sum",
]

#: Assumed relative accuracy of scipy's binomial pmf / cdf / sf (Boost). Measured <= 3e-11
#: against 30-digit mpmath for n up to 1e9; we budget 1e-9. The one budget of the library.
BINOM_RTOL = 1e-9
#: Thresholds this close to the bottom of the support are summed term by term.
_DIRECT_TERMS = 64
#: Largest table (rows times columns) of the direct terms of :func:`binomial_shortfall` at once.
_SHORTFALL_CELLS = 1 << 20
#: A fair coin's cdf within this many standard deviations below its median is summed from the
#: median (``_fair_coin_cdf``), where Boost's cdf is slowest ...
_RUN_SIGMAS = 0.5
#: ... when the run of its number of trials has at most this many terms per threshold it serves
#: (there Boost's cdf takes as long as 400 to 6,000 terms of a run, for 10^6 to 10^9 trials).
_RUN_TERMS_PER_VALUE = 2048
#: The unit roundoff of a float, ``u`` in the error bounds.
_UNIT_ROUNDOFF = 2.0**-53
#: Tail probability beyond which a binomial clone count is lumped into one (rigorously bounded) block.
_TAIL = 1e-300
#: Tail probability delimiting the central range of the clone count ...
_CENTRAL_TAIL = 1e-20
#: ... cut into this many blocks ...
_BLOCKS = 2048
#: ... and the number of blocks of each outer range (up to ``_TAIL``).
_OUTER_BLOCKS = 64
#: Mass neglected on each side of a sum of binomials (Bernstein bound, split among the binomials).
TAIL = 1e-30
#: Default largest number of distinct clone probabilities of a :class:`BinomialSum` kept exactly.
MAX_GROUPS = 512
#: Default largest number of blocks :meth:`BinomialSum.blocks` returns.
MAX_BLOCKS = 4096
#: Largest number of multiply-adds of the convolutions of a :class:`BinomialSum` on the unit grid;
#: beyond it the binomials are rounded down to a coarser grid (see :meth:`BinomialSum.from_binomials`).
DIRECT_WORK = 50_000_000
_LOG2 = math.log(2.0)
#: Up to this many distinct local log-odds, ``log tanh(L/2)`` is evaluated one by one with libm.
_FEW_LOG_ODDS = 64


def binomial_shortfall(m: np.ndarray, p: float | np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``E[(u − X)^+]`` for ``X ~ Bin(m, p)``, with a bound on its rounding error.

    With ``r = ceil(u) − 1`` (the largest integer below ``u``):

    * ``r < 64``: the positive terms ``(u − x) Pr(X = x)``, ``x <= r``, are summed
      directly, so thresholds just above the bottom of the support (tiny ``u``,
      which is where large ``eps0`` puts them) keep full relative precision;
    * otherwise the identity ``E[(X − mp) 1{X <= r}] = −m p (1 − p) Pr(Bin(m − 1, p) = r)``
      gives ``(u − mp) Pr(X <= r) + m p (1 − p) Pr(Bin(m − 1, p) = r)``, whose
      cancellation is accounted for in the error bound. The cdf is Boost's, except for a
      fair coin within half a standard deviation below its median, where Boost is slowest:
      there it is summed from the median (``_fair_coin_cdf``).

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
        absolute rounding error (assuming Boost's pmf/cdf accurate to ``BINOM_RTOL``).

    Examples
    --------
    >>> import numpy as np
    >>> v, e = binomial_shortfall(np.array([4]), 0.5, np.array([2.5]))  # E[(2.5 - X)^+], X ~ Bin(4, 1/2)
    >>> round(float(v[0]), 12)  # (2.5 * 1 + 1.5 * 4 + 0.5 * 6) / 16
    0.71875
    """
    m, p, u = np.broadcast_arrays(np.asarray(m, dtype=float), np.asarray(p, dtype=float), np.asarray(u, dtype=float))
    value = np.zeros(m.shape)
    err = np.zeros(m.shape)
    r = np.minimum(np.ceil(u) - 1.0, m)  # X <= r <=> X < u
    direct = (r >= 0) & (r < _DIRECT_TERMS)
    if direct.any():
        mm, pp, uu, rr = (a[direct] for a in (m, p, u, r))
        # The terms x = 0, ..., r of each row: rows of similar r share a table of pmf(0) times
        # ratio products (binomial_pmf_rows, one anchor per row: fewer than 64 factors); rows
        # whose pmf(0) is below the anchors' floor, term by term.
        found = np.zeros(rr.size)
        with np.errstate(divide="ignore"):
            by_terms = mm * np.log1p(-pp) < math.log(_ANCHOR_FLOOR)
        if by_terms.any():
            size = (rr[by_terms] + 1.0).astype(np.int64)
            row = np.repeat(np.arange(size.size), size)
            x = (np.arange(size.sum()) - np.repeat(np.cumsum(size) - size, size)).astype(float)
            terms = (uu[by_terms][row] - x) * binom.pmf(x, mm[by_terms][row], pp[by_terms][row])
            found[by_terms] = np.bincount(row, weights=terms, minlength=size.size)
        order = np.flatnonzero(~by_terms)[np.argsort(rr[~by_terms], kind="stable")]
        # A row of the table depends on (m, p) alone (one anchor, then ratios: the same numbers
        # whatever rows it is computed with), so each distinct pair is computed once when they fit
        # in one table: many ε against the same blocks repeat every pair once per ε.
        chunk = max(1, _SHORTFALL_CELLS // _DIRECT_TERMS)
        if np.all(pp == pp[0]):  # one p (the clone pair's 1/2): the distinct m alone
            trials, which = np.unique(mm[order], return_inverse=True)
            probs = np.full(trials.size, pp[0])
        else:
            (trials, probs), which = np.unique(np.stack([mm[order], pp[order]]), axis=1, return_inverse=True)
        table = None
        if trials.size <= chunk:
            table = binomial_pmf_rows(trials, probs, np.zeros(trials.size), _DIRECT_TERMS, min_ratio_width=1)
            table_of = np.zeros(rr.size, dtype=np.int64)
            table_of[order] = which.ravel()
        for start in range(0, order.size, chunk):
            rows = order[start : start + chunk]
            width = int(rr[rows].max()) + 1
            x = np.arange(width, dtype=float)
            if table is None:
                pmf = binomial_pmf_rows(mm[rows], pp[rows], np.zeros(rows.size), width, min_ratio_width=1)
            else:
                pmf = table[table_of[rows], :width]
            terms = np.where(x[None, :] <= rr[rows, None], (uu[rows, None] - x[None, :]) * pmf, 0.0)
            found[rows] = terms.sum(axis=1)
        value[direct] = found
        err[direct] = BINOM_RTOL * value[direct]
    closed = r >= _DIRECT_TERMS
    if closed.any():
        mm, pp, uu, rr = m[closed], p[closed], u[closed], r[closed]
        cdf, cdf_err = np.zeros(rr.shape), np.zeros(rr.shape)
        fair = pp == 0.5
        served = np.zeros(rr.shape, dtype=bool)
        if fair.any():
            served[fair], cdf[fair], cdf_err[fair] = _fair_coin_cdf(mm[fair], rr[fair])
        rest = ~served
        cdf[rest] = binom.cdf(rr[rest], mm[rest], pp[rest])
        cdf_err[rest] = BINOM_RTOL * cdf[rest]
        a = (uu - mm * pp) * cdf
        b = mm * pp * (1.0 - pp) * binom.pmf(rr, mm - 1.0, pp)
        value[closed] = np.maximum(a + b, 0.0)
        err[closed] = np.abs(uu - mm * pp) * cdf_err + BINOM_RTOL * np.abs(b)
    return value, err


def row_chunks(widths: np.ndarray, cells: float) -> list[slice]:
    """Consecutive slices of rows whose table (rows × the widest row of the slice) has at most
    ``cells`` cells (a slice holds at least one row): how tables of rows of uneven widths are
    built a part at a time.

    Examples
    --------
    >>> row_chunks(np.array([1, 2, 4, 1]), 6)
    [slice(0, 2, None), slice(2, 3, None), slice(3, 4, None)]
    """
    chunks: list[slice] = []
    start, widest = 0, 0.0
    for i, width in enumerate(np.asarray(widths, dtype=float).tolist()):
        if i > start and (i + 1 - start) * max(widest, width) > cells:
            chunks.append(slice(start, i))
            start, widest = i, width
        else:
            widest = max(widest, width)
    if len(widths):
        chunks.append(slice(start, len(widths)))
    return chunks


def _fair_coin_cdf(m: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``Pr(Bin(m, 1/2) <= r)`` just below the median: which thresholds it serves, their values and errors.

    Boost's cdf is slowest near the mean: within half a standard deviation it takes 6 µs at
    ``10^6`` trials and 20 to 60 µs at ``10^9`` (a continued fraction), against 0.1 to 1 µs
    in the tails. A fair coin's count is symmetric, so at the lower median ``h = ceil(m/2) − 1``
    its cdf is known: ``1/2`` for odd ``m``, ``(1 − Pr(X = m/2))/2`` for even ``m``. Below it,
    ``Pr(X <= r) = Pr(X <= h) − S(r)``, ``S(r) = Σ_{r < x <= h} Pr(X = x)``. One run of pmf
    terms per number of trials serves every threshold with that ``m``: ``Pr(X = h)`` (Boost),
    then the ratios ``Pr(X = x − 1)/Pr(X = x) = x/(m − x + 1)`` of exact integers, multiplied
    and summed down from the median.

    A threshold is served when it lies at most :data:`_RUN_SIGMAS` standard deviations below
    the median and the run of its ``m`` has at most :data:`_RUN_TERMS_PER_VALUE` terms per
    served threshold (else Boost is cheaper). Error bound: the ``k``-th term of a run carries
    :data:`BINOM_RTOL` (``Pr(X = h)``) and ``2k u`` (a division and a product per ratio,
    ``u = 2^-53``), a sum of ``w`` positive terms ``w u`` more, the median's pmf (even ``m``)
    :data:`BINOM_RTOL`, and the last subtraction ``u``.

    Parameters
    ----------
    m, r
        Numbers of trials and thresholds (integers as floats, same shape).

    Returns
    -------
    served, cdf, err
        A mask of the thresholds served; their cdf and its absolute error bound (0 elsewhere).

    Examples
    --------
    >>> served, cdf, err = _fair_coin_cdf(np.array([1001.0, 1000.0]), np.array([495.0, 499.0]))
    >>> served.tolist(), bool(np.allclose(cdf, binom.cdf([495, 499], [1001, 1000], 0.5), rtol=1e-13))
    ([True, True], True)
    """
    half = np.ceil(m / 2.0) - 1.0
    served = (r <= half) & (half - r <= _RUN_SIGMAS * 0.5 * np.sqrt(m))
    cdf, err = np.zeros(r.shape), np.zeros(r.shape)
    if not served.any():
        return served, cdf, err
    trials, which = np.unique(m[served], return_inverse=True)
    which = which.ravel()
    lowest = np.full(trials.size, np.inf)
    np.minimum.at(lowest, which, r[served])
    top = np.ceil(trials / 2.0) - 1.0
    length = (top - lowest).astype(np.int64)  # terms x = top, top − 1, ..., lowest + 1
    worth = length <= _RUN_TERMS_PER_VALUE * np.bincount(which, minlength=trials.size)
    keep = worth[which]
    served[served] = keep
    which, depth = which[keep], (top[which[keep]] - r[served]).astype(np.int64)  # S(r): the first `depth` terms
    tail_sum = np.zeros(which.size)
    order = np.flatnonzero(worth)[np.argsort(length[worth], kind="stable")]
    rank = np.full(trials.size, -1)
    rank[order] = np.arange(order.size)
    value_rank = rank[which]
    by_rank = np.argsort(value_rank, kind="stable")
    ranked = value_rank[by_rank]
    widest = 0
    for chunk in row_chunks(np.maximum(length[order], 1), _SHORTFALL_CELLS):  # rows of similar length
        start, stop = chunk.start, chunk.stop
        rows = order[chunk]
        width = max(1, int(length[rows].max()))
        widest = max(widest, width)
        k = np.arange(width, dtype=float)[None, :]
        # column k: Pr(X = top − k) = Pr(X = top) · Π_{0 < j <= k} (top − j + 1)/(m − top + j)
        terms = top[rows, None] - k + 1.0
        terms /= (trials[rows] - top[rows])[:, None] + k
        terms[:, 0] = binom.pmf(top[rows], trials[rows], 0.5)
        np.cumprod(terms, axis=1, out=terms)
        np.cumsum(terms, axis=1, out=terms)
        here = by_rank[np.searchsorted(ranked, start) : np.searchsorted(ranked, stop)]
        here = here[depth[here] > 0]
        tail_sum[here] = terms[value_rank[here] - start, depth[here] - 1]
    even = np.mod(trials, 2.0) == 0.0
    middle = np.zeros(trials.size)
    middle[even] = binom.pmf(trials[even] / 2.0, trials[even], 0.5)  # Pr(X = m/2)
    middle = middle[which]
    cdf[served] = (1.0 - middle) / 2.0 - tail_sum
    err[served] = (BINOM_RTOL + 3.0 * widest * _UNIT_ROUNDOFF) * tail_sum + BINOM_RTOL * middle / 2.0 + _UNIT_ROUNDOFF
    return served, cdf, err


def log_sinh(x: np.ndarray | float) -> np.ndarray:
    """``log(sinh(x))`` for ``x > 0``, without overflow or cancellation.

    The clone pair's loss ``κ`` (and the population bound's mixed pair) is a ratio of
    hyperbolic sines of half-losses, read in log space.

    Examples
    --------
    >>> math.isclose(float(log_sinh(1.0)), math.log(math.sinh(1.0)), rel_tol=1e-14)
    True
    >>> round(float(log_sinh(800.0)), 6)  # sinh(800) overflows a float
    799.306853
    """
    x = np.asarray(x, dtype=float)
    return x - math.log(2.0) + np.log(-np.expm1(-2.0 * x))


def _log_cosh(x: np.ndarray | float) -> np.ndarray:
    """``log(cosh(x))`` for ``x >= 0``, without overflow."""
    x = np.asarray(x, dtype=float)
    return x - math.log(2.0) + np.log1p(np.exp(-2.0 * x))


def scaled_sum(value: np.ndarray, log_scale: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``sum_j value[i, j] · exp(log_scale[i, j]) · weight[j]`` without overflow (``value >= 0``).

    The last step of a clone-pair sum: per clone count ``j`` a hockey-stick term ``value``,
    its factor in log space, and the count's probability ``weight``. A zero ``value`` adds
    nothing, whatever its (possibly infinite) scale.

    Examples
    --------
    >>> value = np.array([[1.0, 0.0], [2.0, 3.0]])
    >>> scaled_sum(value, np.log(np.array([[2.0, np.inf], [1.0, 1.0]])), np.array([0.5, 0.5]))
    array([1. , 2.5])
    """
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
    >>> binomial_range(10, 0.5, 1e-3)
    (1, 9)
    """

    low = first_integer(lambda x: binom.cdf(x, trials, prob) > tail, 0, trials)
    high = first_integer(lambda x: binom.sf(x, trials, prob) <= tail, 0, trials)
    return low, max(high, low)


def binomial_interval_mass(a: object, b: object, trials: object, prob: object) -> tuple[np.ndarray, np.ndarray]:
    """``Pr(a <= X <= b)`` for ``X ~ Bin(trials, prob)``, elementwise (0 where ``a > b``), and a
    bound on its rounding error.

    A difference of survival functions where ``a`` is right of the mean, of distribution
    functions elsewhere (each evaluated only where used): the smaller tail is subtracted,
    so no value near 1 cancels. The error bound is :data:`BINOM_RTOL` times the sum of the
    two values (plus ``1e-300``): a block mass plus its error keeps a mixture over blocks an
    upper bound.

    Examples
    --------
    >>> import numpy as np
    >>> mass, err = binomial_interval_mass([0, 3, 5], [2, 4, 4], 4, 0.5)  # 11/16, 5/16 and an empty block
    >>> [round(float(v), 12) for v in mass], bool(np.all(err < 1e-8))
    ([0.6875, 0.3125, 0.0], True)
    """
    a, b, t, p = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, trials, prob)))
    upper, lower = np.zeros(a.shape), np.zeros(a.shape)
    right = (a <= b) & (a > t * p)
    left = (a <= b) & ~right
    upper[left], lower[left] = binom.cdf(b[left], t[left], p[left]), binom.cdf(a[left] - 1.0, t[left], p[left])
    upper[right], lower[right] = binom.sf(a[right] - 1.0, t[right], p[right]), binom.sf(b[right], t[right], p[right])
    used = left | right
    return np.maximum(upper - lower, 0.0), np.where(used, BINOM_RTOL * (upper + lower) + 1e-300, 0.0)


@lru_cache(maxsize=64)
def binomial_blocks(trials: int, prob: float, blocks: int = _BLOCKS) -> tuple[np.ndarray, np.ndarray]:
    """Blocks covering the support of ``Bin(trials, prob)``: their first points and masses.

    A clone-count law for :func:`clone_pair_delta` (``trials`` other users, each a clone
    with probability ``prob``).

    The central range (tail mass ``_CENTRAL_TAIL`` per side) is cut into at most
    ``blocks`` (default 2048) blocks of equal width (width 1, i.e. exact, when it has fewer
    points); each outer range up to tail mass ``_TAIL`` into ``_OUTER_BLOCKS``
    blocks; each remaining tail is one block. Masses are rounded up by their error bound
    (:func:`binomial_interval_mass`), so they sum to slightly more than 1.

    Examples
    --------
    >>> counts, weights = binomial_blocks(10, 0.5)
    >>> counts.tolist() == list(range(11)), 1.0 <= float(weights.sum()) < 1.0 + 1e-8  # rounded up
    (True, True)
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
                cuts(c_lo, c_hi + 1, blocks),
                cuts(c_hi + 1, hi + 1, _OUTER_BLOCKS),
                [hi + 1.0, trials + 1.0],
            ]
        )
    )
    start, stop = edges[:-1], edges[1:] - 1.0  # inclusive block [start, stop]
    mass, err = binomial_interval_mass(start, stop, trials, prob)
    return start, mass + err


def _bernstein_range(c: np.ndarray, q: np.ndarray, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """Integers ``lo <= hi`` with ``P(X < lo), P(X > hi) <= tail`` for ``X ~ Bin(c, q)``.

    Bernstein's inequality for a sum of independent variables in ``[0, 1]``:
    ``P(X − cq >= t) <= exp(−t² / (2(σ² + t/3)))``, ``σ² = c q (1 − q)`` (and the
    same for ``cq − X``); ``t`` solves ``exp(...) = tail`` in closed form.
    """
    big_l = math.log(1.0 / tail)
    var = c * q * (1.0 - q)
    t = big_l / 3.0 + np.sqrt((big_l / 3.0) ** 2 + 2.0 * big_l * var)
    mean = c * q
    lo = np.maximum(np.floor(mean - t), 0.0)
    hi = np.minimum(np.ceil(mean + t), c)
    return lo.astype(np.int64), hi.astype(np.int64)


@dataclass(frozen=True)
class BinomialSum:
    """The law of ``C = Σ_g Bin(counts[g], q[g])`` (or a stochastically smaller stand-in) on a grid.

    ``C`` takes the values ``start, start + step, ..., start + step·(len(pmf) − 1)``
    (``step = 1`` unless the binomials were rounded down to a coarser grid, see
    :meth:`from_binomials`).

    Attributes
    ----------
    start
        Smallest count represented.
    pmf
        Probabilities of ``C = start, start + step, ...`` (sums of positive terms, each
        accurate to a relative ``~1e-13`` beyond the binomials' :data:`BINOM_RTOL`; on a grid
        coarser than 128, each binomial's block masses are differences of its distribution
        functions on the side away from the mean,
        :func:`~shufflelib.bounds.clone_pair.binomial_interval_mass`, rounded up by their
        error bound; measured within ``1e-12`` of the sums before rounding).
    tail_low, tail_high
        Upper bounds on ``P(C < start)`` and ``P(C > start + step·(len(pmf) − 1))``.
    trials
        Number of users who may clone (``Σ counts``).
    grouped
        Whether distinct ``q`` were merged into bins (rounded down).
    step
        Spacing of the represented counts.

    Examples
    --------
    >>> cc = BinomialSum.from_binomials([0.2, 0.5], [10, 4])
    >>> round(cc.mean, 6)  # 10 * 0.2 + 4 * 0.5
    4.0
    >>> bool(abs(cc.pmf.sum() - 1) < 1e-12)
    True
    """

    start: int
    pmf: np.ndarray
    tail_low: float
    tail_high: float
    trials: int
    grouped: bool
    step: int = 1

    @classmethod
    def from_binomials(
        cls,
        q: object,
        counts: object,
        *,
        max_groups: int = MAX_GROUPS,
        tail: float = TAIL,
        max_direct: float = DIRECT_WORK,
    ) -> BinomialSum:
        """Build the clone count of ``counts[g]`` users cloning with probability ``q[g]``.

        Each binomial is cut to the integers outside which Bernstein's inequality leaves mass
        ``<= tail / G`` per side (carried in ``tail_low``, ``tail_high``), and the pmfs
        are convolved pairwise in a balanced tree, directly (positive terms only: the far tails
        keep their relative accuracy, so δ stays accurate down to ~``tail``). When a product
        would exceed ``max_direct`` multiply-adds, every binomial ``X`` is first replaced by
        ``step · floor(X / step)`` for the smallest ``step`` that fits — a stochastically
        smaller count, hence a larger (valid) δ; the shift is at most ``G (step − 1)`` clones
        (beyond ``step = 128`` each block's mass comes from the distribution functions rather
        than from its ``step`` pmf terms).
        More than ``max_groups`` distinct ``q`` are merged into that many bins of equal width
        in ``q``, each bin using its **smallest** ``q`` (fewer clones: again a valid δ).

        Parameters
        ----------
        q
            Clone probabilities in ``[0, 1]`` (1-D).
        counts
            Numbers of users (integers >= 0), same length.
        max_groups
            Largest number of distinct ``q`` kept exactly (>= 1).
        tail
            Mass neglected per side, in ``(0, 1e-3]`` (split among the binomials).
        max_direct
            Largest number of multiply-adds of one convolution on the unit grid (``math.inf``:
            always the unit grid, exact).

        Examples
        --------
        >>> cc = BinomialSum.from_binomials([0.3], [1_000_000])
        >>> cc.start > 290_000, cc.pmf.size < 20_000, cc.step
        (True, True, 1)
        >>> coarse = BinomialSum.from_binomials([0.3, 0.4], [10**9, 10**9])
        >>> coarse.step > 1, coarse.mean < 0.7e9
        (True, True)
        """
        q = check_array("q", q, ndim=1, low=0.0, high=1.0)
        c = check_array("counts", counts, ndim=1, low=0.0, integral=True)
        if q.size != c.size:
            raise ValueError(f"counts must have one entry per q ({q.size}), got {c.size}")
        max_groups = check_int("max_groups", max_groups, minimum=1)
        tail = check_in_range("tail", tail, 0.0, 1e-3, closed_low=False)
        if not (isinstance(max_direct, (int, float)) and max_direct >= 0):
            raise ValueError(f"max_direct must be a number >= 0, got {max_direct!r}")
        trials = int(c.sum())
        keep = (c > 0) & (q > 1e-250)  # rarer clones are dropped: fewer clones, a larger (valid) δ
        q, c = q[keep], c[keep]
        grouped = False
        if q.size:
            q, inverse = np.unique(q, return_inverse=True)
            c = np.bincount(inverse.ravel(), weights=c).astype(float)
        if q.size > max_groups:
            grouped = True
            edges = np.linspace(q[0], q[-1], max_groups + 1)
            bins = np.clip(np.searchsorted(edges, q, side="right") - 1, 0, max_groups - 1)
            q_new = np.array([q[bins == b].min() for b in np.unique(bins)])
            c_new = np.array([c[bins == b].sum() for b in np.unique(bins)])
            q, c = q_new, c_new
        if q.size == 0:
            return cls(0, np.array([1.0]), 0.0, 0.0, trials, grouped)
        lo, hi = _bernstein_range(c, q, tail / max(q.size, 1))
        widths = hi - lo + 1
        step = _grid_step(widths, max_direct)
        if step > _MASS_STEP:
            pieces = _coarse_pieces(c, q, lo, hi, step)
        else:
            pieces = []
            for a, b, n_g, q_g in zip(lo, hi, c, q, strict=True):
                piece = _binomial_pmf_run(float(n_g), float(q_g), int(a), int(b))
                first = int(a) // step  # X -> step * floor(X / step): block sums of positive terms
                padded = np.concatenate([np.zeros(int(a) - first * step), piece])
                pieces.append((first, np.add.reduceat(padded, np.arange(0, padded.size, step))))
        start, pmf, low, high = _tree_convolve(pieces, tail)
        return cls(start * step, pmf, float(tail) + low, float(tail) + high, trials, grouped, step)

    @property
    def mean(self) -> float:
        """Mean of the represented pmf."""
        return float(np.dot(self.support, self.pmf))

    @property
    def support(self) -> np.ndarray:
        """The counts ``start, start + step, ..., start + step·(len(pmf) − 1)``."""
        return self.start + self.step * np.arange(self.pmf.size, dtype=float)

    def blocks(self, max_blocks: int = MAX_BLOCKS) -> tuple[np.ndarray, np.ndarray]:
        """Counts ``m_b`` and weights ``ω_b`` with ``E[h(C)] <= Σ_b ω_b h(m_b)`` for every
        non-increasing ``h`` with values in ``[0, 1]``.

        The weights carry the block masses and both neglected tails (the lower tail at count
        0, the upper tail at the last count).

        Examples
        --------
        >>> cc = BinomialSum.from_binomials([0.5], [100])
        >>> m, w = cc.blocks(8)
        >>> m.size <= 10, bool(abs(w.sum() - 1) < 1e-12)
        (True, True)
        """
        max_blocks = check_int("max_blocks", max_blocks, minimum=1)
        size = self.pmf.size
        width = max(1, math.ceil(size / max_blocks))
        starts = np.arange(0, size, width)
        mass = np.add.reduceat(self.pmf, starts)
        m = self.support[starts]
        m = np.concatenate([[0.0], m, [self.support[-1]]])
        w = np.concatenate([[self.tail_low], mass, [self.tail_high]])
        return m, w


#: Points of a run of a binomial pmf between two anchors computed by Boost (see :func:`_binomial_pmf_run`).
_ANCHOR_SPACING = 64
#: Anchors below this pmf are not used: their runs are computed point by point.
_ANCHOR_FLOOR = 1e-280
#: On a grid coarser than this, :meth:`BinomialSum.from_binomials` takes each block's mass from
#: the distribution functions (two evaluations per block) rather than summing its pmf terms
#: (one evaluation per :data:`_ANCHOR_SPACING` terms, then a product per term).
_MASS_STEP = 2 * _ANCHOR_SPACING


def _binomial_pmf_run(trials: float, prob: float, lo: int, hi: int) -> np.ndarray:
    """``Pr(Bin(trials, prob) = x)`` for ``x = lo, ..., hi`` (one row of :func:`binomial_pmf_rows`).

    Examples
    --------
    >>> x = _binomial_pmf_run(1e6, 0.3, 299_000, 301_000)
    >>> bool(np.allclose(x, binom.pmf(np.arange(299_000, 301_001), 1e6, 0.3), rtol=1e-12, atol=0))
    True
    """
    return binomial_pmf_rows(np.array([trials]), np.array([prob]), np.array([lo]), hi - lo + 1)[0]


def binomial_pmf_rows(
    trials: np.ndarray,
    prob: np.ndarray,
    lo: np.ndarray,
    width: int,
    odds: np.ndarray | None = None,
    *,
    min_ratio_width: int = 4 * _ANCHOR_SPACING,
) -> np.ndarray:
    """``Pr(Bin(trials_i, prob_i) = lo_i + j)`` for ``j < width``, one row per ``i``.

    Every 64th column (an anchor) is computed by scipy (Boost); the
    columns after an anchor by the ratio ``pmf(x)/pmf(x − 1) = (trials − x + 1)/x · odds``
    (``odds = prob/(1 − prob)``; pass it when ``1 − prob`` is not known to full relative
    precision, e.g. ``e^{eps0}`` for k-RR at large ``eps0``): a running product of fewer than
    64 positive factors, each rounded at most three times, which adds a
    relative error below ``64 · 4 · 2^-53 ≈ 3e-14`` to the anchor's (well inside
    :data:`BINOM_RTOL`). Tables narrower than ``min_ratio_width`` (default 256: there the
    anchors are a large part of the work), ``prob`` in ``{0, 1}`` and the columns after an anchor
    below ``1e-280`` (a product would start from a subnormal or from outside the
    support) are computed point by point. Columns outside ``[0, trials]`` are 0.

    Examples
    --------
    >>> t = binomial_pmf_rows(np.array([10.0, 1e6]), np.array([0.5, 0.3]), np.array([-2, 299_000]), 300)
    >>> bool(np.allclose(t[1], binom.pmf(np.arange(299_000, 299_300), 1e6, 0.3), rtol=1e-12, atol=0))
    True
    >>> float(t[0, 0]), bool(np.isclose(t[0, 2], 0.5**10, rtol=1e-14))  # x = -2 and x = 0
    (0.0, True)
    """
    trials, prob, lo = (np.atleast_1d(np.asarray(v, dtype=float)) for v in (trials, prob, lo))
    rows = trials.size
    cols = -(-width // _ANCHOR_SPACING) * _ANCHOR_SPACING
    x = lo[:, None] + np.arange(cols, dtype=float)[None, :]
    inner = (prob > 0.0) & (prob < 1.0)
    fast = inner if width >= min_ratio_width else np.zeros(rows, dtype=bool)
    everyone = bool(fast.all())
    out = np.empty((rows, cols)) if everyone else np.zeros((rows, cols))
    if fast.any():
        xf, tf = (x, trials[:, None]) if everyone else (x[fast], trials[fast, None])
        ratio = prob[fast] / (1.0 - prob[fast]) if odds is None else np.asarray(odds, dtype=float)[fast]
        anchors = binom.pmf(xf[:, ::_ANCHOR_SPACING], tf, prob[fast, None]).ravel()
        # x <= 0 only in blocks with a zero anchor (recomputed below) or at an anchor (replaced);
        # (trials − x + 1) / x · odds, in place
        table = np.subtract(tf, xf)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            table += 1.0
            table /= xf
            table *= ratio[:, None]
            blocks = table.reshape(-1, _ANCHOR_SPACING)
            blocks[:, 0] = anchors
            np.cumprod(blocks, axis=1, out=blocks)
        low = anchors < _ANCHOR_FLOOR  # a tiny or zero anchor: those blocks point by point
        if low.any():
            xb = xf.reshape(-1, _ANCHOR_SPACING)
            tb = np.broadcast_to(tf, xf.shape).reshape(-1, _ANCHOR_SPACING)
            pb = np.broadcast_to(prob[fast, None], xf.shape).reshape(-1, _ANCHOR_SPACING)
            blocks[low] = binom.pmf(xb[low], tb[low], pb[low])
        if everyone:
            out = table
        else:
            out[fast] = table
    slow = ~fast
    if slow.any():
        out[slow] = binom.pmf(x[slow], trials[slow, None], prob[slow, None])
    outside = (lo < 0.0) | (lo + (cols - 1) > trials)  # rows reaching beyond [0, trials]
    if outside.any():
        out[outside] = np.where((x[outside] >= 0.0) & (x[outside] <= trials[outside, None]), out[outside], 0.0)
    return out[:, :width]


def _coarse_pieces(
    counts: np.ndarray, q: np.ndarray, lo: np.ndarray, hi: np.ndarray, step: int
) -> list[tuple[int, np.ndarray]]:
    """The pmfs of ``step · floor(X_g / step)``, ``X_g ~ Bin(counts[g], q[g])`` cut to ``[lo[g], hi[g]]``,
    as ``(first multiple of step, masses)`` pieces: one :func:`binomial_interval_mass` per block, at once."""
    first, last = lo // step, hi // step
    sizes = last - first + 1
    group = np.repeat(np.arange(sizes.size), sizes)
    block = first[group] + np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    a = np.maximum(block * step, lo[group])
    b = np.minimum((block + 1) * step - 1, hi[group])
    mass, err = binomial_interval_mass(a, b, counts[group], q[group])
    mass = np.split(mass + err, np.cumsum(sizes)[:-1])
    return [(int(f), m) for f, m in zip(first, mass, strict=True)]


def _grid_step(widths: np.ndarray, max_direct: float) -> int:
    """Smallest grid step whose balanced convolution tree has no product above ``max_direct``."""

    def largest_product(step: int) -> float:
        sizes = sorted(float(math.ceil(w / step) + 1) for w in widths)
        worst = 0.0
        while len(sizes) > 1:
            merged = []
            for k in range(0, len(sizes) - 1, 2):
                worst = max(worst, sizes[k] * sizes[k + 1])
                merged.append(sizes[k] + sizes[k + 1] - 1.0)
            if len(sizes) % 2:
                merged.append(sizes[-1])
            sizes = sorted(merged)
        return worst

    if largest_product(1) <= max_direct:
        return 1
    step = max(2, int(math.sqrt(largest_product(1) / max(max_direct, 1.0))))
    while largest_product(step) > max(max_direct, 1.0) and step < int(widths.max()) + 1:
        step = math.ceil(step * 1.1)
    return step


def _tree_convolve(pieces: list[tuple[int, np.ndarray]], trim: float) -> tuple[int, np.ndarray, float, float]:
    """Convolve ``(offset, pmf)`` pieces pairwise (directly), trimming far tails.

    Returns the offset, the pmf and upper bounds on the mass trimmed below and above (each
    trimmed end holds at most ``trim`` per product).
    """
    low = high = 0.0
    items = list(pieces)
    while len(items) > 1:
        items.sort(key=lambda it: it[1].size)
        merged = []
        for k in range(0, len(items) - 1, 2):
            (oa, a), (ob, b) = items[k], items[k + 1]
            out = np.convolve(a, b)
            cut_lo = int(np.searchsorted(np.cumsum(out), trim, side="right"))
            cut_hi = int(np.searchsorted(np.cumsum(out[::-1]), trim, side="right"))
            cut_lo = min(cut_lo, int(np.argmax(out)))
            cut_hi = min(cut_hi, out.size - 1 - cut_lo)
            low += float(out[:cut_lo].sum())
            high += float(out[out.size - cut_hi :].sum())
            merged.append((oa + ob + cut_lo, out[cut_lo : out.size - cut_hi]))
        if len(items) % 2:
            merged.append(items[-1])
        items = merged
    start, pmf = items[0]
    return start, pmf, low, high


def local_log_odds(w: float) -> float:
    """The log-odds ``L = log((1 − w)/w)`` of a victim who clones the other input with probability ``w``.

    Examples
    --------
    >>> round(local_log_odds(1 / (1 + math.e)), 12), local_log_odds(0.0)
    (1.0, inf)
    """
    w = check_in_range("w", w, 0.0, 0.5, closed_high=False)
    return math.inf if w == 0.0 else math.log1p(-w) - math.log(w)


def _kappa_terms(eps: np.ndarray, local: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log κ`` and ``log tanh(L/2)`` of each broadcast pair ``(ε, L)``; ``log κ = −∞`` (no divergence)
    where ``ε >= L`` or ``L = 0``."""
    e, big_l = np.broadcast_arrays(np.asarray(eps, dtype=float), np.asarray(local, dtype=float))
    log_kappa, log_tanh = np.full(e.shape, -np.inf), np.zeros(e.shape)
    live = (e < big_l) & (big_l > 0.0)
    infinite, finite = live & np.isinf(big_l), live & np.isfinite(big_l)
    log_kappa[infinite] = -np.logaddexp(0.0, e[infinite])
    if finite.any():  # kappa = sinh((L - eps)/2) / (2 sinh(L/2) cosh(eps/2)), exact even when eps -> L
        ef, lf = e[finite], big_l[finite]
        log_kappa[finite] = log_sinh((lf - ef) / 2.0) - log_sinh(lf / 2.0) - _log_cosh(ef / 2.0) - _LOG2
        log_tanh[finite] = _log_tanh_half(lf)
    return log_kappa, log_tanh


def _log_tanh_half(local: np.ndarray) -> np.ndarray:
    """``log tanh(L/2)`` for finite ``L > 0``: libm's ``math.tanh`` for a few distinct values (a single
    pair: every bound of one log-odds), the equivalent ``log1p(−e^{−L}) − log1p(e^{−L})`` for many."""
    distinct, where = np.unique(local, return_inverse=True)
    if distinct.size <= _FEW_LOG_ODDS:
        values = np.array([math.log(math.tanh(x / 2.0)) for x in distinct])
    else:
        values = np.log1p(-np.exp(-distinct)) - np.log1p(np.exp(-distinct))
    return values[where.ravel()]


def _shortfall_terms(
    eps: np.ndarray, m: np.ndarray, log_kappa: np.ndarray, log_tanh: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``h = E[(mκ − X)^+] · exp(log_scale)``: the shortfall, its error bound and ``log_scale``."""
    value, err = binomial_shortfall(m, 0.5, m * np.exp(log_kappa))
    return value, err, _LOG2 + log_tanh + np.logaddexp(0.0, eps) - np.log(m)


def _scaled(value: np.ndarray, log_scale: np.ndarray) -> np.ndarray:
    """``value · exp(log_scale)`` without overflow (``value >= 0``)."""
    out = np.zeros(value.shape)
    pos = value > 0
    out[pos] = np.exp(np.log(value[pos]) + log_scale[pos])
    return out


def clone_pair_delta(eps: object, local: float | np.ndarray, counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """δ(ε) of the clone pair with local log-odds ``local`` and clone-count blocks ``(counts, weights)``.

    Parameters
    ----------
    eps
        Central ε values (>= 0), any shape.
    local
        The victim's log-odds ``L > 0`` (``eps0`` for an ``eps0``-LDP randomizer; ``math.inf``
        when the victim never clones the other input); or one ``L >= 0`` per block, for a
        mixture of clone pairs (see the module notes).
    counts, weights
        The clone-count law as blocks: left ends (integers >= 0) and weights (see the module
        notes); e.g. :func:`binomial_blocks` or :meth:`BinomialSum.blocks`.

    Returns
    -------
    numpy.ndarray
        δ(ε), an upper bound on the pair's exact divergence, in ``[1e-300, 1]`` for ``ε`` below
        the largest ``L`` and 0 above it; same shape as ``eps``.

    Examples
    --------
    >>> import numpy as np
    >>> d = clone_pair_delta(np.array([0.0, 1.0]), 1.0, np.array([0.0]), np.array([1.0]))
    >>> round(float(d[0]), 6), float(d[1])  # no clone: randomized response itself, TV = tanh(1/2)
    (0.462117, 0.0)
    """
    eps = np.asarray(eps, dtype=float)
    shape = eps.shape
    flat = np.atleast_1d(eps).ravel()
    counts = np.asarray(counts, dtype=float)
    local = np.broadcast_to(np.asarray(local, dtype=float), counts.shape)
    out = np.zeros(flat.shape)
    live = flat < (local.max() if local.size else 0.0)
    if live.any():
        e = flat[live][:, None]
        # The formula's transcendental part once per distinct log-odds (one, for a single pair).
        distinct, where = np.unique(local, return_inverse=True)
        log_kappa, log_tanh = (t[:, where.ravel()] for t in _kappa_terms(e, distinct[None, :]))
        value, err, log_scale = _shortfall_terms(e, counts[None, :] + 1.0, log_kappa, log_tanh)
        total = scaled_sum(value + err, log_scale, np.asarray(weights, dtype=float)) * (1.0 + BINOM_RTOL)
        out[live] = np.clip(total, DELTA_FLOOR, 1.0)
    return out.reshape(shape)
