r"""The exact worst case of shuffled k-ary randomized response over all neighbouring datasets.

Each of ``n`` users applies k-RR with parameter ``eps0`` (the true value w.p.
``p = e^{eps0}/(e^{eps0}+k−1)``, each other value w.p. ``q = 1/(e^{eps0}+k−1)``) and the
shuffler releases the histogram of the reports. Neighbouring datasets differ in one user, the
*victim*, who holds ``a`` in ``X0`` and ``b ≠ a`` in ``X1``; δ(ε) of the protocol is the
largest hockey-stick divergence ``H_{e^ε}`` between the two output laws, in either order, over
all such pairs. The search below is complete; each step is a lemma with a short proof.

**Lemma 1 (histograms).** The output law depends on the others only through their histogram
``h`` over the ``k`` values, and, up to a permutation of the values applied to the output
(which leaves ``H`` unchanged), we may take ``a = 0``, ``b = 1`` and the counts of the other
values in decreasing order. *Proof:* the shuffled output is the histogram of reports, a sum of
independent reports, so the order of the users is irrelevant; k-RR commutes with every
permutation of the values.

**Lemma 2 (orders).** ``H(P_h‖Q_h) = H(Q_{h'}‖P_{h'})`` where ``h'`` swaps the counts of ``a``
and ``b``. *Proof:* swapping the values ``a`` and ``b`` maps ``(X0, X1)`` with others ``h``
onto ``(X1, X0)`` with others ``h'``. So one order over all ``h`` (or both orders over
``h_a <= h_b``) covers every pair.

**Lemma 3 (values nobody holds).** Values of ``{2, …, k−1}`` that no other user holds can be
merged into one output coordinate without changing δ. *Proof:* every user's report, given that
it falls in the set ``U`` of those values, is uniform on ``U`` (each has probability ``q``
whatever the input), independently of everything else; so the split of the merged count
over ``U`` is a post-processing, with the same kernel under both hypotheses, of the merged
histogram, and the merged histogram is a post-processing of the full one.

**Lemma 4 (binary RR: single crossing).** For ``k = 2`` let ``D`` be the law of the number of
other users reporting ``a`` (a sum of independent Bernoullis: ``Bin(h_a, p) + Bin(h_b, q)``).
Then ``P − e^ε Q = α D(· − 1) − β D(·)`` with ``α = p − e^ε q``, ``β = e^ε p − q``, and
``D`` is log-concave (a convolution of log-concave laws), so ``D(u − 1)/D(u)`` is
non-decreasing and the positive part is exactly ``{u >= u*}``:
``H_{e^ε}(P‖Q) = α S(u* − 1) − β S(u*)`` with ``S(u) = Pr[D >= u]``, and every other
threshold ``v`` gives a smaller ``α S(v − 1) − β S(v)`` (it adds negative cells or drops
positive ones). So per split: the tails at a few thresholds around a saddle-point guess of
``u*`` (the largest of them, once the range is seen to hold ``u*``), by bisection if not.

**Lemma 5 (k = 3: two counts suffice).** For ``k = 3`` the output ``(N_a, N_b, N_c)`` is in
bijection with ``(M, N_a)``, ``M = N_a + N_b``; the law of the others' ``(M, N_a)`` is built
one user at a time on an ``(n+1)²`` grid (positive terms only, so the relative rounding is a
few ulps per user).

**Lemma 6 (fewer users, larger δ).** Let ``B`` be a box of histograms in which ``m``
users are *undecided* (their values range over the box) and the others are fixed. For every
``h`` in ``B``, ``δ(h) <= δ(h⁻)`` where ``h⁻`` is the histogram of the fixed users alone (a
dataset of ``n − m`` users). *Proof:* the undecided users' reports are independent of the
victim's and have the same law under both hypotheses, so the output under ``h`` is the
output under ``h⁻`` plus independent noise, a post-processing applied to both laws; the
hockey-stick divergence cannot increase (data processing).

The search is then a maximum over every histogram of the others. For ``k = 2`` it is a
branch and bound over intervals of ``h_a`` (Lemma 6 bounds an interval ``[c1, c2]`` by the
split ``(c1, n − 1 − c2)`` of ``n − (c2 − c1)`` users): intervals are split until every bound
left is within :data:`EXACT_RTOL` of the best split found (at ``n = 10^6``, ``ε₀ = 1``: about
5,000 evaluations, 0.5 s; see ``benchmarks/bench_bounds.py``); it is complete (an interval is
dropped only when its bound is below a split's value), and at a work budget it stops with a
certified bracket ``[best split, largest bound left]`` instead. For ``k = 3`` the search
visits all ``O(n²)`` histograms; for ``k >= 4`` every ``(h_a, h_b)`` and partition of the rest
into at most ``k − 2`` parts. Those are exact and complete, but their cost grows with ``n``:
:func:`worst_case_delta` refuses (``ValueError``) beyond a work budget, and the calculator then
answers with a certified bracket (:class:`~shufflelib.bounds.exact.ExactKRR`). No pruning by an
unproved shape of δ(h): δ oscillates in ``h`` with period about ``1/(2q)`` (the fractional part
of the mean of ``D``), with many local maxima, and neither the concentrated nor the balanced
split is always worst (see the chapter).

Numerical tolerance. ``k = 2``: ``D`` is the sum of the a-holders' and the b-holders'
reports; the one with fewer users is summed over a window of its mean ± (12 sd + 40) (the
mass outside, computed, moves δ by at most twice ``α + β`` times it, which is added), the
other is tabulated where the sums reach it, with its tail beyond the table from scipy's
survival function. Each pmf is scipy's value at anchors every 64 points times products of
ratios (a relative error that includes the rounding of ``p``, see ``_pmf_rtol``) and the sums
have positive terms; that rounding budget is
added too, so each split's δ is an *upper* end of a bracket whose width is below ``1e-6``
relative wherever δ is above about ``1e-40`` (below, the truncated tails dominate the width;
the bracket stays valid). Values under ``1e-300`` count as underflowed, with an absolute
budget.

``k >= 3``: every output cell is summed (no truncation); each cell is a sum of positive
terms known to relative ``(n + 2) · 1e-15``, and a cell's possible error is added wherever it
could be positive.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._binomial import binom
from .._roots import first_true, last_true
from .._validation import check_array, check_int, check_nonnegative, check_positive, check_probability
from .clone_pair import _ANCHOR_FLOOR, _ANCHOR_SPACING, binomial_pmf_rows

__all__ = [
    "EXACT_RTOL",
    "WORK_LIMIT",
    "Eps0Bracket",
    "EpsilonBracket",
    "WorstCase",
    "binary_max_eps0_bracket",
    "binary_split_deltas",
    "brute_force_worst_delta",
    "dataset_delta",
    "krr_probabilities",
    "pair_delta",
    "worst_case_delta",
    "worst_case_epsilon",
    "worst_case_epsilon_bracket",
    "worst_case_work",
]

#: Largest estimated run time, in seconds, of one complete search that :func:`worst_case_delta`
#: accepts (see :func:`worst_case_work`); also ``ExactKRR``'s budget for one answer.
WORK_LIMIT = 4.0
#: A bracket narrower than this (relative) is reported as the exact worst case.
EXACT_RTOL = 1e-6
#: Up to this many (split, ε) pairs, binary RR's worst case is computed for every split at once.
_EXHAUSTIVE_ROWS = 20_000
#: ... and up to this ``n`` (beyond, the branch and bound is faster even at one ε).
_EXHAUSTIVE_N = 1000
#: Values below this are treated as underflowed (with an absolute error budget).
_TINY = 1e-300
#: Relative rounding budget per user of the grid computations (k >= 3).
_GRID_RTOL = 1e-15
#: Binary RR: thresholds evaluated on each side of the saddle-point guess of ``u*``.
_REACH = 3
#: Binary RR: largest table (rows times window columns) evaluated at once.
_GROUP_CELLS = 1 << 19
#: Binary RR: the branch and bound splits an interval into this many.
_BRANCH = 4
#: Binary RR: estimated seconds per row and column of the narrower law's window (calibrated).
_COST_PER_COLUMN = 4.5e-8
#: Binary RR, the meter's rates (calibrated on one core, see :class:`_Meter`): seconds per call
#: of a table, per cell of a table or of a sum, per value of a binomial pmf or tail from scipy.
_METER_CALL, _METER_CELL, _METER_SCIPY = 3e-4, 4e-9, 1.3e-7


class _Meter:
    """Estimated seconds of the binary RR evaluations so far: the clock of the searches' budgets.

    Counted from the work done (tables, their cells, the binomial values scipy computes, at
    calibrated rates), not read from a clock: a search stops at the same point on every machine
    and under any load, so its answers are reproducible. It counts every evaluation (the
    fallback search for a threshold in a far tail, where every pmf value comes from scipy, is
    many times dearer than the first pass :func:`_splits_cost` plans for).
    """

    def __init__(self) -> None:
        self.seconds = 0.0

    def table(self, rows: int, width: int, table: np.ndarray) -> None:
        """A table of ``rows`` binomial pmf rows of ``width`` columns (as computed)."""
        if width < 4 * _ANCHOR_SPACING:  # computed point by point
            scipy_values = rows * width
        else:  # anchors, and the blocks after a tiny anchor point by point
            anchors = table[:, ::_ANCHOR_SPACING]
            scipy_values = anchors.size + _ANCHOR_SPACING * int(np.count_nonzero(anchors < _ANCHOR_FLOOR))
        self.seconds += _METER_CALL + _METER_CELL * rows * width + _METER_SCIPY * scipy_values

    def sums(self, cells: int, scipy_values: int = 0) -> None:
        """Sums over ``cells`` cells, and ``scipy_values`` tail probabilities from scipy."""
        self.seconds += _METER_CELL * cells + _METER_SCIPY * scipy_values


#: The meter of every binary RR evaluation in this process (read by differences).
_METER = _Meter()


def krr_probabilities(k: int, eps0: float) -> tuple[float, float]:
    """``(p, q)`` of k-RR: the true value w.p. ``p``, each other value w.p. ``q``.

    Examples
    --------
    >>> p, q = krr_probabilities(3, math.log(2.0))
    >>> round(p, 12), round(q, 12)
    (0.5, 0.25)
    """
    t = math.exp(-eps0)
    p = 1.0 / (1.0 + (k - 1) * t)
    return p, t * p


def _check(n: int, k: int, eps0: float, eps: object) -> tuple[int, int, float, np.ndarray]:
    n = check_int("n", n, minimum=2)
    k = check_int("k", k, minimum=2)
    eps0 = check_positive("eps0", eps0)
    if eps0 > 100.0:
        raise ValueError(f"eps0 must be in (0, 100], got {eps0!r}")
    eps = np.atleast_1d(check_array("eps", eps, low=0.0)).astype(float).ravel()
    return n, k, eps0, eps


# --------------------------------------------------------------------------- reference
def _output_law(values: list[int], weights: np.ndarray, n: int) -> np.ndarray:
    """Law of the histogram of ``n`` reports on ``len(weights)`` coordinates (dense cube)."""
    dims = weights.shape[1]
    law = np.zeros((n + 1,) * dims)
    law[(0,) * dims] = 1.0
    for x in values:
        new = np.zeros_like(law)
        for y in range(dims):
            src = [slice(None)] * dims
            dst = [slice(None)] * dims
            src[y], dst[y] = slice(0, n), slice(1, n + 1)
            new[tuple(dst)] += weights[x, y] * law[tuple(src)]
        law = new
    return law


def _reduced_weights(held: int, unheld: int, p: float, q: float) -> np.ndarray:
    """Report probabilities on the coordinates ``a, b, held values…, merged unheld`` (Lemma 3)."""
    dims = 2 + held + (1 if unheld else 0)
    w = np.full((dims, dims), q)
    np.fill_diagonal(w, p)
    if unheld:
        w[:, -1] = q * unheld
        w[-1, :] = 0.0  # nobody holds an unheld value
    return w


def _pair_delta(law_p: np.ndarray, law_q: np.ndarray, eps: np.ndarray, rtol: float = 0.0) -> np.ndarray:
    """``max(H(P‖Q), H(Q‖P))`` at each ε by summing every cell, plus a rounding budget.

    With each cell known to relative ``rtol``, a cell ``P − γQ`` computed below
    ``−rtol (P + γQ)`` is truly negative; every other cell may be off by ``rtol (P + γQ)``,
    which is added.
    """
    out = np.empty(eps.shape)
    for i, g in enumerate(np.exp(eps)):
        best = 0.0
        for x, y in ((law_p, law_q), (law_q, law_p)):
            diff, scale = x - g * y, rtol * (x + g * y)
            best = max(best, np.maximum(diff, 0.0).sum() + scale[diff > -scale].sum())
        out[i] = best
    return out


def dataset_delta(others: tuple[int, ...], k: int, eps0: float, eps: object) -> np.ndarray:
    """Exact ``max(H(P‖Q), H(Q‖P))`` for one pair: the victim holds 0 or 1, the others ``others``.

    Parameters
    ----------
    others
        Histogram of the other users over the ``k`` values (length ``k``, integers >= 0).
    k
        Domain size (>= 2).
    eps0
        Local parameter of k-RR.
    eps
        Values of ε >= 0.

    Returns
    -------
    numpy.ndarray
        δ for each ε, by enumeration of every output histogram (values nobody holds merged,
        Lemma 3 of the module): for small ``n`` only.

    Examples
    --------
    Binary RR, ``n = 20``, ``eps0 = 3``: nine others holding 1 against all nineteen.

    >>> [round(float(dataset_delta(h, 2, 3.0, [0.0])[0]), 4) for h in ((10, 9), (19, 0))]
    [0.4434, 0.3596]
    """
    k = check_int("k", k, minimum=2)
    others = tuple(check_int("others", c, minimum=0) for c in others)
    if len(others) != k:
        raise ValueError(f"others must have length k = {k}, got {len(others)}")
    n = sum(others) + 1
    _, k, eps0, eps = _check(max(n, 2), k, eps0, eps)
    return _histogram_delta(others[0], others[1], others[2:], k, eps0, eps)


def _histogram_delta(ha: int, hb: int, rest: tuple[int, ...], k: int, eps0: float, eps: np.ndarray) -> np.ndarray:
    """:func:`dataset_delta` of ``ha`` others on 0, ``hb`` on 1 and ``rest`` on further values;
    the values nobody holds (zeros of ``rest`` and the ``k − 2 − len(rest)`` not listed) are
    merged (Lemma 3)."""
    rest = tuple(c for c in rest if c > 0)
    n = ha + hb + sum(rest) + 1
    p, q = krr_probabilities(k, eps0)
    weights = _reduced_weights(len(rest), k - 2 - len(rest), p, q)
    values = [0] * ha + [1] * hb + [2 + i for i, c in enumerate(rest) for _ in range(c)]
    base = _output_law(values, weights, n - 1)
    law_p, law_q = _add_victim(base, weights[0], n), _add_victim(base, weights[1], n)
    return _pair_delta(law_p, law_q, eps, (n + 2) * weights.shape[0] * _GRID_RTOL)


def _add_victim(law: np.ndarray, w: np.ndarray, n: int) -> np.ndarray:
    dims = law.ndim
    out = np.zeros((n + 1,) * dims)
    for y in range(dims):
        dst = [slice(0, n)] * dims
        dst[y] = slice(1, n + 1)
        out[tuple(dst)] += w[y] * law
    return out


def _compositions(total: int, parts: int):
    for cut in itertools.combinations(range(total + parts - 1), parts - 1):
        bounds = (-1, *cut, total + parts - 1)
        yield tuple(bounds[i + 1] - bounds[i] - 1 for i in range(parts))


def brute_force_worst_delta(n: int, k: int, eps0: float, eps: object) -> np.ndarray:
    """The worst case by literal enumeration: every histogram of the others, every ordered ``(a, b)``.

    No symmetry is used (each output histogram of the ``k`` values is enumerated): the
    reference the fast search is tested against. Exponential cost; ``n <= 12``, ``k <= 4``.

    Examples
    --------
    >>> round(float(brute_force_worst_delta(4, 2, 1.0, [0.0])[0]), 6)
    0.229425
    """
    n, k, eps0, eps = _check(n, k, eps0, eps)
    p, q = krr_probabilities(k, eps0)
    weights = np.full((k, k), q)
    np.fill_diagonal(weights, p)
    worst = np.zeros(eps.shape)
    for others in _compositions(n - 1, k):
        values = [v for v, c in enumerate(others) for _ in range(c)]
        base = _output_law(values, weights, n - 1)
        for a, b in itertools.permutations(range(k), 2):
            law_a, law_b = _add_victim(base, weights[a], n), _add_victim(base, weights[b], n)
            worst = np.maximum(worst, _pair_delta(law_a, law_b, eps))
    return worst


# --------------------------------------------------------------------------- k = 2
def binary_split_deltas(
    n: int, eps0: float, eps: float, splits: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``H_{e^ε}(P‖Q)`` of binary RR for every split ``h_a = 0, …, n − 1`` (Lemma 4).

    The victim holds ``a`` under ``P`` and ``b`` under ``Q``; ``h_a`` others hold ``a``. By
    Lemma 2 the other order at ``h_a`` is this order at ``n − 1 − h_a``, so the maximum of the
    returned array is the exact worst case.

    ``splits`` (default: all) restricts the computation to the given values of ``h_a``.

    Returns
    -------
    upper, lower
        Arrays (one entry per split): upper and lower ends of a bracket around each exact value
        (truncated tail mass and rounding budget, see the module notes).

    Examples
    --------
    >>> up, lo = binary_split_deltas(20, 3.0, 0.0)
    >>> int(up.argmax()) in (9, 10), round(float(up.max()), 4), round(float(up[19]), 4)
    (True, 0.4434, 0.3596)
    """
    n, _, eps0, eps_arr = _check(n, 2, eps0, eps)
    ha = np.arange(n, dtype=np.int64) if splits is None else np.asarray(splits, dtype=np.int64).ravel()
    if ha.size == 0 or ha.min() < 0 or ha.max() > n - 1:
        raise ValueError(f"splits must be integers in [0, {n - 1}]")
    return _split_deltas(ha, n - 1 - ha, eps0, float(eps_arr[0]))


def _pmf_rtol(users: int, p: float, q: float) -> float:
    """Relative accuracy of the binomial pmfs of the binary search, up to ``users`` users.

    Boost's value at each anchor and the ratio products (:func:`~shufflelib.bounds.clone_pair.binomial_pmf_rows`:
    ``1e-13`` together), and the conditioning on ``p`` (the float ``p`` is within ``2^-53``
    relative of the exact one, and ``|d log pmf / d log p| = |x − m p| / (1 − p)`` is at most
    ``(12 sd + 104) / min(p, q)`` over the windows).

    Examples
    --------
    >>> 1e-13 < _pmf_rtol(10**6, 0.73, 0.27) < 1e-11
    True
    """
    return 1e-13 + 2.0**-53 * (12.0 * math.sqrt(users * p * q) + 104.0) / min(p, q)


def _window_widths(m: np.ndarray, p: float, q: float) -> np.ndarray:
    """Columns of the windows mean ± (12 sd + 40) of ``Bin(m, ·)`` (at most ``m + 1``), per row."""
    m = np.asarray(m, dtype=np.int64)
    return np.minimum(np.ceil(24.0 * np.sqrt(m * p * q) + 80.0).astype(np.int64), m + 1)


def _split_deltas(
    ha: np.ndarray, hb: np.ndarray, eps0: float, eps: float | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Bracket ``(upper, lower)`` of ``H_{e^ε}(P‖Q)`` of binary RR, one row per ``(h_a, h_b)``.

    The victim holds ``a`` under ``P`` and ``b`` under ``Q``, ``h_a`` others hold ``a`` and
    ``h_b`` hold ``b``; rows may have different numbers of users ``h_a + h_b + 1`` (the
    branch and bound evaluates datasets with users removed, Lemma 6) and different ``ε``
    (one value, or one per row). Rows are evaluated in groups of similar window widths
    (:func:`_split_group`).
    """
    ha, hb = np.asarray(ha, dtype=np.int64), np.asarray(hb, dtype=np.int64)
    eps = np.broadcast_to(np.asarray(eps, dtype=float), ha.shape)
    p, q = krr_probabilities(2, eps0)
    gamma = np.exp(eps)
    alpha, beta = p - gamma * q, gamma * p - q
    upper, lower = np.zeros(ha.size), np.zeros(ha.size)
    live = np.flatnonzero(alpha > 0.0)  # else every likelihood ratio is below e^ε: δ = 0
    widths = _window_widths(np.minimum(ha, hb)[live], p, q)
    order = live[np.argsort(widths, kind="stable")]
    widths = np.sort(widths)
    start = 0
    while start < order.size:  # groups: widths within 25 % (+16), at most _GROUP_CELLS cells
        stop = start + 1
        while (
            stop < order.size
            and widths[stop] <= 1.25 * widths[start] + 16
            and (stop + 1 - start) * widths[stop] <= _GROUP_CELLS
        ):
            stop += 1
        rows = order[start:stop]
        upper[rows], lower[rows] = _split_group(ha[rows], hb[rows], eps0, alpha[rows], beta[rows])
        start = stop
    return upper, lower


def _split_group(
    ha: np.ndarray, hb: np.ndarray, eps0: float, alpha: np.ndarray, beta: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_split_deltas` on rows of similar window widths (``α = p − e^ε q > 0``, ``β = e^ε p − q``).

    ``D = X + Y`` with ``X ~ Bin(h_a, p)`` (the a-holders' reports of a) and ``Y ~ Bin(h_b, q)``
    (the b-holders'). Per row, ``A`` is the one of ``X, Y`` with fewer users, summed over its
    window mean ± (12 sd + 40) (the mass outside computed and accounted for); ``B``, the other,
    is tabulated where the sums reach it, ``D(u) = Σ_a A(a) B(u − a)``. By Lemma 4,
    ``H = max_v [α S(v − 1) − β S(v)]`` over thresholds ``v``, attained at ``u*``; the
    thresholds ``v`` within :data:`_REACH` of a saddle-point guess of ``u*`` are evaluated
    at once (one table of ``B`` and its tail per row) and the largest is ``H`` when that range
    is seen to hold ``u*`` (not crossed at its first threshold, crossed at its last). Rows
    where it does not (rare: ``u*`` far in a tail) find ``u*`` by bisection and are evaluated
    again around it.
    """
    p, q = krr_probabilities(2, eps0)
    rows = ha.size
    users = ha + hb + 1
    narrow_x = ha <= hb
    m_a, m_b = np.where(narrow_x, ha, hb), np.where(narrow_x, hb, ha)
    p_a, p_b = np.where(narrow_x, p, q), np.where(narrow_x, q, p)
    odds_a = np.where(narrow_x, math.exp(eps0), math.exp(-eps0))
    odds_b = np.where(narrow_x, math.exp(-eps0), math.exp(eps0))
    w_a = int(_window_widths(m_a, p, q).max())
    a_lo = np.clip(np.floor(m_a * p_a - 12.0 * np.sqrt(m_a * p * q) - 40.0), 0, m_a).astype(np.int64)
    a_table = binomial_pmf_rows(m_a, p_a, a_lo, w_a, odds_a)
    a_rev = a_table[:, ::-1]  # A at a_lo + w_a − 1 − j
    dropped = binom.cdf(a_lo - 1, m_a, p_a) + binom.sf(a_lo + w_a - 1, m_a, p_a)
    _METER.table(rows, w_a, a_table)
    _METER.sums(0, 2 * rows)
    mean = ha * p + hb * q

    def thresholds(sel: np.ndarray, first: np.ndarray, count: int, tails: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """Rows ``sel``, thresholds ``v = first + i`` (``i < count``): whether ``α D(v − 1) > β D(v)``
        and (``tails``, else ``None``) ``S(first − 1 + i)`` for ``i <= count`` (each a sum over A's
        window)."""
        start = first - 1 - (a_lo[sel] + w_a - 1)  # B at start + c, c < w_a + count
        table = binomial_pmf_rows(m_b[sel], p_b[sel], start, w_a + count, odds_b[sel])
        _METER.table(sel.size, w_a + count, table)
        _METER.sums(sel.size * (count + 1) * w_a * (2 if tails else 1), sel.size if tails else 0)
        slide = np.lib.stride_tricks.sliding_window_view
        d = np.einsum("rj,rij->ri", a_rev[sel], slide(table, w_a, axis=1))  # D(first − 1 + i)
        v = first[:, None] + np.arange(count)
        # both below the smallest float: crossed above the mean
        crossed = (alpha[sel, None] * d[:, :-1] > beta[sel, None] * d[:, 1:]) | (
            (d[:, :-1] < _TINY) & (d[:, 1:] < _TINY) & (v > mean[sel, None])
        )
        if not tails:
            return crossed, None
        beyond = binom.sf(start + w_a + count - 1, m_b[sel], p_b[sel])  # Pr[B >= end of the table]
        tail = np.cumsum(table[:, ::-1], axis=1)[:, ::-1] + beyond[:, None]
        return crossed, np.einsum("rj,rij->ri", a_rev[sel], slide(tail, w_a, axis=1))

    # Saddle point: D(u) / D(u − 1) ≈ e^{−θ} where the law tilted by θ has mean u − 1/2, so u*
    # is about 1/2 plus the mean of D tilted by log(β/α) (exact within one for one binomial).
    # Beyond mean ± R, R = 40 sd + 1000, D < e^-800 (Bernstein): a u* out there changes δ by
    # less than the absolute budget below, so the guess is clipped to that range.
    tilt = beta / alpha
    sd = np.sqrt((users - 1) * p * q)
    guess = 0.5 + ha * p * tilt / (q + p * tilt) + hb * q * tilt / (p + q * tilt)
    guess = np.clip(guess, mean - 40.0 * sd - 1000.0, mean + 40.0 * sd + 1000.0)
    centre = np.round(guess).astype(np.int64)
    first_term, second_term = np.zeros(rows), np.zeros(rows)
    count = 2 * _REACH + 1
    todo = np.arange(rows)
    for attempt in range(2):  # the second pass is centred on u*
        first = np.clip(np.minimum(centre[todo] - _REACH, users[todo] - count + 1), 0, None)
        crossed, tails = thresholds(todo, first, count, True)
        held = ((first == 0) | ~crossed[:, 0]) & ((first + count - 1 >= users[todo]) | crossed[:, -1])
        at = (alpha[todo, None] * tails[:, :-1] - beta[todo, None] * tails[:, 1:]).argmax(axis=1)[held]
        done, kept = todo[held], np.flatnonzero(held)
        first_term[done] = alpha[done] * tails[kept, at]
        second_term[done] = beta[done] * tails[kept, at + 1]
        todo = todo[~held]
        if not todo.size:
            break
        if attempt:  # pragma: no cover - centred on u*, the range holds it
            raise RuntimeError("binary RR: threshold search did not converge")
        # u* = first crossed threshold in [0, users] (log-concavity; crossed at users: D(users) = 0)
        left, right = np.zeros(todo.size, dtype=np.int64), users[todo].copy()
        while (active := np.flatnonzero(left < right)).size:
            mid = (left[active] + right[active]) // 2
            now = thresholds(todo[active], mid, 1, False)[0][:, 0]
            right[active[now]] = mid[now]
            left[active[~now]] = mid[~now] + 1
        centre[todo] = left
    value = np.maximum(first_term - second_term, 0.0)
    # Relative accuracy of each sum: both pmfs and B's tail beyond its table (_pmf_rtol each)
    # and the positive sums (B's table, then A's window); below the smallest normal float, an
    # absolute budget per output count.
    rtol = 2.0 * _pmf_rtol(int(users.max()), p, q) + 4.0 * (2 * w_a + count) * np.finfo(float).eps
    err = rtol * (first_term + second_term) + 2.0 * (alpha + beta) * (dropped + 4.0 * users * _TINY)
    return value + err, np.maximum(value - err, 0.0)


def _splits_cost(ha: np.ndarray, hb: np.ndarray, eps0: float) -> float:
    """Estimated seconds of :func:`_split_deltas` on these rows (one core of the CI machine).

    Each row sums the narrower law's window (``w_a`` columns) against a table of the wider
    one at about 2 :data:`_REACH` + 2 thresholds, plus a fixed cost per group of rows.
    """
    p, q = krr_probabilities(2, eps0)
    ha, hb = np.asarray(ha, dtype=np.int64), np.asarray(hb, dtype=np.int64)
    w_a = _window_widths(np.minimum(ha, hb), p, q)
    return float(np.sum(1.5e-5 + _COST_PER_COLUMN * w_a)) + 2e-3


@dataclass(frozen=True)
class _Bracket:
    upper: float
    lower: float
    split: int  # h_a of the best split evaluated (the victim's order of Lemma 2)
    spent: float = 0.0  # estimated seconds used (the meter's)
    leaves: tuple[tuple[int, int], ...] = ()  # the final intervals (a partition of the splits)
    scale: float = 1.0  # metered cost over planned cost of the batches (at least 1)


def _binary_branch_and_bound(
    n: int,
    eps0: float,
    eps: float,
    work_limit: float,
    threshold: float | None = None,
    start: tuple[tuple[int, int], ...] = (),
    scale: float = 1.0,
) -> _Bracket:
    """Worst split of binary RR by branch and bound over intervals of ``h_a`` (Lemma 6).

    An interval ``[c1, c2]`` of splits is bounded by the split ``(c1, n − 1 − c2)`` of the
    ``n − (c2 − c1)`` users left when its ``c2 − c1`` undecided users are removed; a single
    split is evaluated exactly. The interval with the largest bound is split in
    :data:`_BRANCH` until every remaining bound is within :data:`EXACT_RTOL` of the best split
    found, or the metered time (:class:`_Meter`) reaches ``work_limit`` (then the bracket is
    wider). With ``threshold``, stop instead as soon as every bound is at most ``threshold``
    or a split is above ``threshold (1 − 2 EXACT_RTOL)``. ``start`` (a partition of
    ``[0, n − 1]``, e.g. the ``leaves`` of a search at a nearby ε) replaces the first intervals
    when three quarters of the budget allow.

    Each batch is planned with :func:`_splits_cost` times ``scale`` (what batches so far cost
    on the meter over what they were planned to cost, at least 1: a threshold far in a tail
    costs many times the plan); without ``start``, a first batch of three splits (the two
    extreme ones and the middle one) measures it before the first intervals are chosen.
    """
    heap: list[tuple[float, int, int]] = []
    lower, top_point, best = 0.0, 0.0, n - 1
    spent, planned = 0.0, 0.0
    leaves: list[tuple[int, int]] = []  # single splits and dropped intervals

    def ratio() -> float:
        return max(scale, spent / planned if planned else 1.0)

    def finish(upper: float) -> _Bracket:
        return _Bracket(upper, lower, best, spent, tuple(leaves + [(a, b) for _, a, b in heap]), ratio())

    def plan(batch: list[tuple[int, int]]) -> float:
        starts = np.array([a for a, _ in batch], dtype=np.int64)
        stops = np.array([b for _, b in batch], dtype=np.int64)
        return _splits_cost(starts, n - 1 - stops, eps0) * ratio()

    def evaluate(batch: list[tuple[int, int]]) -> None:
        nonlocal lower, top_point, best, spent, planned
        c1 = np.array([a for a, _ in batch], dtype=np.int64)
        c2 = np.array([b for _, b in batch], dtype=np.int64)
        before = _METER.seconds
        up, lo = _split_deltas(c1, n - 1 - c2, eps0, eps)
        spent += _METER.seconds - before
        planned += _splits_cost(c1, n - 1 - c2, eps0)
        for (a, b), high, low in zip(batch, up, lo, strict=True):
            if a == b:
                leaves.append((a, b))
                top_point = max(top_point, float(high))
                if low > lower:
                    lower, best = float(low), a
            else:
                heapq.heappush(heap, (-float(high), a, b))

    probe = sorted({(0, 0), (n - 1, n - 1), (n // 2, n // 2)})
    if work_limit < plan(probe):  # not even three splits: no information
        return _Bracket(math.inf, 0.0, n - 1, 0.0, (), scale)
    given = [(int(a), int(b)) for a, b in np.array(start, dtype=np.int64).reshape(-1, 2)]
    if given and plan(given) <= 0.75 * work_limit:
        todo = given
    else:
        evaluate(probe)
        todo = []
        for pieces in (64, 32, 16, 8, 4, 2, 1):  # as many first intervals as a quarter of the budget allows
            edges = np.unique(np.linspace(0, n, min(n, pieces) + 1).astype(np.int64))
            first = [(int(a), int(b) - 1) for a, b in zip(edges[:-1], edges[1:], strict=True)]
            first = [(a, b) for a, b in first if (a, b) not in probe]
            if spent + plan(first) <= work_limit / 4.0:
                todo = first
                break
        if not todo:  # the probe alone: the whole range is one interval, bounded by n − 1 removed users
            todo = [(0, n - 1)] if n > 1 else []
    while True:
        if todo:
            evaluate(todo)
        while heap and -heap[0][0] <= lower:  # intervals no better than a split already found
            leaves.append(heapq.heappop(heap)[1:])
        upper = max(top_point, -heap[0][0] if heap else 0.0)
        if threshold is None:
            done = upper <= lower * (1.0 + EXACT_RTOL)
        else:  # decided: all below, or a split above (or within 2 EXACT_RTOL below) the threshold
            done = upper <= threshold or lower > threshold * (1.0 - 2.0 * EXACT_RTOL)
        if done or not heap:  # no heap: only the points' numerical brackets
            return finish(upper)
        todo = []
        while heap and len(todo) < 64:  # split the best intervals, within the budget
            _, a, b = heap[0]
            cuts = np.unique(np.linspace(a, b + 1, min(b + 1 - a, _BRANCH) + 1).astype(np.int64))
            children = [(int(x), int(y) - 1) for x, y in zip(cuts[:-1], cuts[1:], strict=True)]
            if spent + plan(todo + children) > work_limit:
                break
            heapq.heappop(heap)
            todo = todo + children
        if not todo:
            return finish(upper)


# --------------------------------------------------------------------------- k >= 3
def _step(law: np.ndarray, w_a: float, w_b: float, w_out: float) -> np.ndarray:
    """Add one user to the ``(M, J)`` grid: lands on ``a`` (M+1, J+1), on ``b`` (M+1, J), else stays."""
    new = w_out * law
    new[1:, 1:] += w_a * law[:-1, :-1]
    new[1:, :] += w_b * law[:-1, :]
    return new


_KINDS3 = ("a", "b", "c")


def _three_value_laws(others: tuple[int, int, int], p: float, q: float) -> tuple[np.ndarray, np.ndarray]:
    """Output laws on the ``(M, N_a)`` grid (Lemma 5) with the victim on ``a`` and on ``b``."""
    kinds = {"a": (p, q, q), "b": (q, p, q), "c": (q, q, p)}
    n = sum(others) + 1
    law = np.zeros((n + 1, n + 1))
    law[0, 0] = 1.0
    for kind, count in zip(_KINDS3, others, strict=True):
        for _ in range(count):
            law = _step(law, *kinds[kind])
    return _step(law, *kinds["a"]), _step(law, *kinds["b"])


def _three_value_deltas(n: int, eps0: float, eps: np.ndarray) -> tuple[np.ndarray, tuple[int, int, int]]:
    """Worst case of 3-RR over every ``(h_a, h_b, h_c)`` with ``h_a <= h_b`` (Lemmas 2 and 5)."""
    p, q = krr_probabilities(3, eps0)
    size = n + 1
    kinds = {"a": (p, q, q), "b": (q, p, q), "c": (q, q, p)}  # (on a, on b, elsewhere)
    worst = np.zeros(eps.shape)
    arg = (0, n - 1, 0)
    rtol = (n + 2) * _GRID_RTOL
    law_c = np.zeros((size, size))
    law_c[0, 0] = 1.0
    for hc in range(n):
        law_ca = law_c
        for ha in range(n - hc):
            hb = n - 1 - hc - ha
            if ha <= hb:
                law = law_ca
                for _ in range(hb):
                    law = _step(law, *kinds["b"])
                d = _pair_delta(_step(law, *kinds["a"]), _step(law, *kinds["b"]), eps, rtol)
                if d[-1] > worst[-1]:
                    arg = (ha, hb, hc)
                worst = np.maximum(worst, d)
            law_ca = _step(law_ca, *kinds["a"])
        law_c = _step(law_c, *kinds["c"])
    return worst, arg


def _partitions(total: int, parts: int, largest: int | None = None):
    """Partitions of ``total`` into at most ``parts`` positive parts, in decreasing order."""
    largest = total if largest is None else largest
    if total == 0:
        yield ()
        return
    if parts == 0:
        return
    for first in range(min(total, largest), 0, -1):
        for tail in _partitions(total - first, parts - 1, first):
            yield (first, *tail)


def _many_value_deltas(n: int, k: int, eps0: float, eps: np.ndarray) -> tuple[np.ndarray, tuple[int, ...]]:
    """Worst case for ``k >= 4`` over ``(h_a <= h_b, partition of the rest)`` (Lemmas 1–3).

    The worst histogram is returned with ``min(k, n + 1)`` counts: beyond ``n + 1`` values
    (at most ``n − 1`` held by the others), the remaining ones are held by nobody.
    """
    worst = np.zeros(eps.shape)
    arg: tuple[int, ...] = (0, n - 1)
    for rest in range(n):
        for part in _partitions(rest, k - 2):
            for ha in range(n - rest):
                hb = n - 1 - rest - ha
                if ha > hb:
                    continue
                d = _histogram_delta(ha, hb, part, k, eps0, eps)
                if d[-1] > worst[-1]:
                    arg = (ha, hb, *part)
                worst = np.maximum(worst, d)
    return worst, (*arg, *([0] * (min(k, n + 1) - len(arg))))


def worst_case_work(n: int, k: int) -> float:
    """Estimated seconds of one complete search at one ε (calibrated on one core of the CI machine).

    Examples
    --------
    >>> worst_case_work(1000, 2) < worst_case_work(1000, 3)
    True
    """
    n = check_int("n", n, minimum=2)
    k = check_int("k", k, minimum=2)
    if k == 2:  # n splits, each a bisection over a window of ~24 sd
        return 8e-7 * n * (12.0 * math.sqrt(n) + 60.0)
    if k == 3:  # O(n^2) datasets, each O(n) steps on an (n+1)^2 grid
        return 1.5e-9 * n**5 + 1e-4
    if n > 40:  # far beyond reach; avoid enumerating the partitions
        return math.inf
    total = 0.0  # every dataset: n users added to a dense output cube of `dims` coordinates
    for rest in range(n):
        for part in _partitions(rest, k - 2):
            dims = 2 + len(part) + (1 if len(part) < k - 2 else 0)
            total += ((n - rest + 1) // 2) * (n + 1) * dims * float(n + 1) ** dims
    return 5e-9 * total


@dataclass(frozen=True)
class WorstCase:
    """The exact worst case at one ``(n, k, eps0)``: δ per ε and a worst dataset.

    Attributes
    ----------
    delta
        Upper end of the numerical bracket of the exact worst-case δ (per ε).
    lower
        Lower end (the bracket's width is the numerical tolerance, far below 1e-6 relative).
    others
        A histogram of the other users attaining the worst case at the largest ε asked (the
        victim holds value 0 or 1); for ``k > n + 1`` its first ``n + 1`` counts (nobody holds
        the other values).
    exact
        Whether ``delta`` is within :data:`EXACT_RTOL` (relative) of ``lower`` at every ε:
        always for ``k >= 3`` (the search refuses beyond its budget); for ``k = 2`` the branch
        and bound may stop at its budget with a wider certified bracket.

    Examples
    --------
    >>> w = worst_case_delta(6, 3, 1.0, [0.0, 0.5])
    >>> bool(w.lower[0] <= w.delta[0]), len(w.others), sum(w.others)
    (True, 3, 5)
    """

    delta: np.ndarray
    lower: np.ndarray
    others: tuple[int, ...]
    exact: bool = True


def worst_case_delta(n: int, k: int, eps0: float, eps: object, work_limit: float = WORK_LIMIT) -> WorstCase:
    """Exact worst-case δ(ε) of shuffled k-RR over all pairs of neighbouring datasets.

    Parameters
    ----------
    n
        Number of users (>= 2).
    k
        Domain size (>= 2).
    eps0
        Local parameter, in ``(0, 100]``.
    eps
        Values of ε >= 0.
    work_limit
        ``k >= 3``: refuse (``ValueError``) when :func:`worst_case_work` exceeds it.
        ``k = 2``: the branch and bound's budget (estimated seconds); beyond it the result is a
        wider certified bracket and ``exact`` is false.

    Returns
    -------
    WorstCase

    Examples
    --------
    >>> w = worst_case_delta(20, 2, 3.0, [0.0])
    >>> round(float(w.delta[0]), 4), w.others  # nine others share the victim's value (ten: the same δ)
    (0.4434, (9, 10))
    """
    n, k, eps0, eps = _check(n, k, eps0, eps)
    if k >= 3 and (work := worst_case_work(n, k)) > work_limit:
        raise ValueError(
            f"n = {n} is beyond the exact search for k = {k} (about {work:.2g} s > {work_limit:.2g} s); "
            "use ExactKRR for a certified bracket"
        )
    if k == 2 and n <= _EXHAUSTIVE_N and n * eps.size <= _EXHAUSTIVE_ROWS:  # every split at every ε at once
        live = eps < eps0  # else δ = 0
        splits = np.repeat(np.arange(n, dtype=np.int64), int(live.sum()))
        at = np.tile(eps[live], n)
        up, lo = _split_deltas(splits, n - 1 - splits, eps0, at)
        upper, lower = np.zeros(eps.shape), np.zeros(eps.shape)
        upper[live] = up.reshape(n, -1).max(axis=0)
        lower[live] = lo.reshape(n, -1).max(axis=0)
        split = int(up.reshape(n, -1)[:, -1].argmax()) if live.any() else n - 1
        return WorstCase(upper, lower, (split, n - 1 - split), True)
    if k == 2:  # branch and bound (Lemma 6): never refuses, may return a wider bracket
        upper, lower = np.zeros(eps.shape), np.zeros(eps.shape)
        split, exact = n - 1, True
        for i, e in enumerate(eps):
            if e >= eps0:  # every likelihood ratio is within [e^-eps0, e^eps0]: δ = 0
                continue
            found = _binary_branch_and_bound(n, eps0, float(e), work_limit)
            upper[i], lower[i], split = found.upper, found.lower, found.split
            exact &= found.upper <= found.lower * (1.0 + EXACT_RTOL)
        return WorstCase(upper, lower, (split, n - 1 - split), bool(exact))
    if k == 3:
        value, others = _three_value_deltas(n, eps0, eps)
    else:
        value, others = _many_value_deltas(n, k, eps0, eps)
    value = np.where(eps >= eps0, 0.0, value)  # likelihood ratios within [e^-eps0, e^eps0]
    lower = np.maximum(value - 2.0 * (n + 2) * min(k, n + 2) * _GRID_RTOL * (1.0 + np.exp(eps)), 0.0)
    return WorstCase(value, lower, others)


def pair_delta(n: int, k: int, eps0: float, eps: object, others: tuple[int, ...]) -> np.ndarray:
    """Exact δ (both orders, upper end of the numerical bracket) of one pair of datasets.

    The victim holds value 0 or 1; ``others`` is the histogram of the other ``n − 1`` users
    over the first ``len(others) <= k`` values (nobody holds the others; at least the victim's
    two). Fast paths of the module for ``k = 2`` and ``k = 3``.

    Examples
    --------
    >>> round(float(pair_delta(20, 2, 3.0, [0.0], (10, 9))[0]), 4)
    0.4434
    """
    n, k, eps0, eps = _check(n, k, eps0, eps)
    others = tuple(int(c) for c in others)
    if not 2 <= len(others) <= k or sum(others) != n - 1 or min(others) < 0:
        raise ValueError(f"others must be 2 to {k} counts >= 0 summing to n - 1 = {n - 1}, got {others!r}")
    if k <= 3:
        others = (*others, *([0] * (k - len(others))))
    if k == 2:
        return np.array([binary_split_deltas(n, eps0, float(e), np.array(others))[0].max() for e in eps])
    if k == 3:
        p, q = krr_probabilities(3, eps0)
        return _pair_delta(*_three_value_laws(others, p, q), eps, (n + 2) * _GRID_RTOL)
    return _histogram_delta(others[0], others[1], others[2:], k, eps0, eps)


def worst_case_epsilon(
    n: int, k: int, eps0: float, delta: float, work_limit: float = WORK_LIMIT
) -> tuple[float, tuple[int, ...]]:
    """Exact worst-case ε(δ) of shuffled k-RR (rounded up) and a dataset attaining it.

    The upper end of :func:`worst_case_epsilon_bracket` (exact unless that bracket says
    otherwise, which happens only for ``k = 2`` beyond the branch and bound's budget).

    Examples
    --------
    >>> eps, others = worst_case_epsilon(20, 2, 3.0, 0.3)
    >>> round(eps, 4), others
    (1.4261, (19, 0))
    """
    found = worst_case_epsilon_bracket(n, k, eps0, delta, work_limit)
    return found.upper, found.others


@dataclass(frozen=True)
class EpsilonBracket:
    """The worst-case ε at one δ: a certified bracket and a dataset.

    Attributes
    ----------
    upper
        A valid ε (rounded up): no neighbouring pair has δ above the target there. For
        ``k = 2`` it is the root of the worst dataset at ``δ (1 − 2e-6)`` (so that the search
        can certify it): when ``exact``, the exact worst-case ε at a δ within ``2e-6``
        (relative) of the target, rounded up.
    lower
        A lower bound on the exact worst-case ε (the root of ``others``, rounded down).
    others
        The histogram of the other users of the worst dataset found (the victim holds 0 or 1).
    exact
        Whether ``upper`` is the exact worst case (at the target δ for ``k >= 3``, at a δ within
        ``2e-6`` relative of it for ``k = 2``), up to the root finding's ``1e-9``.

    Examples
    --------
    >>> b = worst_case_epsilon_bracket(20, 2, 3.0, 0.3)
    >>> b.exact, b.lower <= b.upper <= b.lower * (1 + 1e-5)
    (True, True)
    """

    upper: float
    lower: float
    others: tuple[int, ...]
    exact: bool


def worst_case_epsilon_bracket(
    n: int, k: int, eps0: float, delta: float, work_limit: float = WORK_LIMIT, ceiling: float | None = None
) -> EpsilonBracket:
    """Worst-case ε(δ) of shuffled k-RR over all neighbouring pairs, as a certified bracket.

    ``ε = max_h ε_h(δ)`` over the histograms ``h`` of the others. Iteration (a root walk):
    take the worst dataset ``h`` at the current ε, solve ``δ_h(ε) = δ`` for that one dataset
    (cheap), and search all datasets at the new ε; stop when none exceeds ``δ`` there. Every
    step raises ε to the root of some dataset, so the loop ends at the largest root, certified
    by the last search. For ``k = 2`` each search is the branch and bound (sharing
    ``work_limit``), asked for the worst split after the first root and otherwise only "does any
    dataset exceed δ?"; if one cannot decide, the bracket's upper end is looked for between the
    last root and ``ceiling`` (a valid ε supplied by the caller, default ``eps0``) with the same
    decisions, and ``exact`` is false. Below ``δ = 1e-300`` (where split values count as underflowed) no search can
    certify: the bracket is ``[0, ceiling]``.

    Examples
    --------
    >>> b = worst_case_epsilon_bracket(10**5, 2, 1.0, 1e-6, work_limit=0.05)
    >>> b.lower <= b.upper, b.exact
    (True, False)
    """
    n, k, eps0, _ = _check(n, k, eps0, 0.0)
    delta = check_probability("delta", delta)
    ceiling = eps0 if ceiling is None else min(float(ceiling), eps0)
    if k == 2 and delta < _TINY:  # no split's δ is resolved below _TINY: no search can certify δ
        return EpsilonBracket(ceiling, 0.0, (n - 1, 0), False)
    if k == 2:
        searches = _BinarySearches(n, delta, work_limit)

        def search(e: float, share: float, best: bool) -> tuple[float, bool, tuple[int, ...]]:
            return searches(eps0, e, share, best)

        def root(others: tuple[int, ...], start: float, end: int) -> float:
            level = delta * (1.0 - 2.0 * EXACT_RTOL) if end == 0 else delta

            def value(e: float) -> float:
                return _one_split(others, eps0, e, end)

            # The root is at most the ceiling (a valid ε: no dataset's δ exceeds δ there), up to
            # the numerical bracket of the dataset's δ: look below it first (far closer than eps0,
            # and the thresholds of ε near eps0 lie in far tails, many times dearer).
            near = min(eps0, max(start, ceiling) * 1.01)
            lo, hi = start, near if value(near) <= level else eps0
            for _ in range(2):  # two vectorized grids of 32 narrow the bracket before the certified search
                grid = np.linspace(lo, hi, 33)
                below = _split_deltas(np.full(33, others[0]), np.full(33, others[1]), eps0, grid)[end] <= level
                if below[0] or not below.any():
                    break
                first = int(np.argmax(below))
                if value(float(grid[first])) > level:  # the certified search needs ok at its upper end
                    break
                lo, hi = float(grid[first - 1]), float(grid[first])
            return first_true(lambda e: value(e) <= level, _log_gap(value, level), lo, hi)

    else:

        def search(e: float, share: float, best: bool) -> tuple[float, bool, tuple[int, ...]]:
            whole = worst_case_delta(n, k, eps0, [e], work_limit)
            return float(whole.delta[0]), True, whole.others

        def root(others: tuple[int, ...], start: float, end: int) -> float:
            def value(e: float) -> float:
                return float(pair_delta(n, k, eps0, [e], others)[0])

            return first_true(lambda e: value(e) <= delta, _log_gap(value, delta), start, eps0)

    answer, lower, others, exact = _root_walk(search, root, 0.0, ceiling, 0.0, delta, direction=1)
    return EpsilonBracket(answer, max(lower, 0.0), others, exact)


@dataclass(frozen=True)
class Eps0Bracket:
    """Binary RR's largest ``eps0`` at one ``(ε, δ)``: a certified bracket and a dataset.

    Attributes
    ----------
    lower
        A valid ``eps0`` (rounded down): no neighbouring pair has δ above ``δ (1 − 2e-6)`` at ε
        (the level the ε question solves for, so that its answer at ``lower`` is at most ε).
    upper
        At least the exact largest ``eps0``: the root at δ of the last dataset the walk stepped
        on (rounded up), or the caller's ceiling when it took no step.
    others
        The histogram of the other users of the worst dataset found (the victim holds 0 or 1).
    exact
        Whether ``lower`` is the exact answer (at a δ within ``4e-6`` relative of the target), up
        to the root finding's ``1e-9``.

    Examples
    --------
    >>> b = binary_max_eps0_bracket(1000, 0.1, 1e-6, floor=0.7, ceiling=0.9)
    >>> b.exact, round(b.lower, 5), b.others
    (True, 0.82023, (997, 2))
    """

    lower: float
    upper: float
    others: tuple[int, ...]
    exact: bool


def binary_max_eps0_bracket(
    n: int, eps: float, delta: float, work_limit: float = WORK_LIMIT, *, floor: float, ceiling: float
) -> Eps0Bracket:
    """Largest ``eps0`` whose binary RR worst case is ``(eps, delta)``-DP, as a certified bracket.

    Every dataset's δ at ``eps`` grows with ``eps0`` (k-RR with a smaller ``eps0`` is a
    post-processing of k-RR with a larger one), so the answer is ``min_h eps0_h``, the
    smallest of the datasets' own roots. The walk of :func:`worst_case_epsilon_bracket`, run
    downwards: from ``ceiling`` (an ``eps0`` at least the exact answer, e.g. the two explicit
    pairs') the branch and bound finds the worst split, its root lowers ``eps0``, and a
    search at the new ``eps0`` certifies it (or finds the next split). Beyond
    ``work_limit`` the answer is looked for between the last root and ``floor`` (a valid
    ``eps0``, e.g. stronger clones'), which it never goes below, and ``exact`` is false.

    Examples
    --------
    >>> b = binary_max_eps0_bracket(10**5, 0.01, 1e-6, floor=0.9, ceiling=1.0)
    >>> b.exact, 0.9 <= b.lower <= b.upper <= 1.0
    (True, True)
    """
    n = check_int("n", n, minimum=2)
    eps = check_nonnegative("eps", eps)
    delta = check_probability("delta", delta)
    floor, ceiling = float(floor), float(ceiling)
    if not 0.0 <= floor <= ceiling:
        raise ValueError(f"floor and ceiling must satisfy 0 <= floor <= ceiling, got {floor!r}, {ceiling!r}")
    if delta < _TINY:  # no split's δ is resolved below _TINY: no search can certify δ
        return Eps0Bracket(floor, ceiling, (n - 1, 0), False)
    certified = delta * (1.0 - 2.0 * EXACT_RTOL)  # the level the ε question steps to
    searches = _BinarySearches(n, certified, work_limit)

    def search(e0: float, share: float, best: bool) -> tuple[float, bool, tuple[int, ...]]:
        return searches(e0, eps, share, best)

    def root(others: tuple[int, ...], start: float, end: int) -> float:
        level = certified * (1.0 - 2.0 * EXACT_RTOL) if end == 0 else delta

        def value(e0: float) -> float:
            return _one_split(others, e0, eps, end)

        return last_true(lambda e0: value(e0) <= level, _log_gap(value, level), min(eps, start), start)

    probe = max(ceiling * (1.0 - EXACT_RTOL), floor)  # the answer when the two pairs' worst is the worst
    answer, upper, others, exact = _root_walk(search, root, probe, floor, ceiling, certified, direction=-1)
    return Eps0Bracket(max(answer, floor), min(upper, ceiling), others, exact)


def _one_split(others: tuple[int, ...], eps0: float, eps: float, end: int) -> float:
    """The ``end`` (0: upper, 1: lower) of the bracket of one split's δ (``others = (h_a, h_b)``)."""
    return float(_split_deltas(np.array(others[:1]), np.array(others[1:2]), eps0, eps)[end][0])


def _log_gap(value: Callable[[float], float], level: float) -> Callable[[float], float]:
    """``log value − log level`` (very negative where the value is 0): a root finder's score."""

    def score(x: float) -> float:
        d = value(x)
        return math.log(d) - math.log(level) if d > 0 else -1e300

    return score


class _BinarySearches:
    """The branch-and-bound searches of one binary RR root walk (:func:`_root_walk`).

    They share one budget of estimated seconds, and each starts from the previous one's final
    partition (the leaves of a search at a nearby ``(eps0, ε)`` make a good first partition).
    """

    def __init__(self, n: int, delta: float, work_limit: float) -> None:
        self.n, self.delta, self.limit = n, delta, work_limit
        self.start = _METER.seconds  # the walk's root findings between searches count too
        self.partition: tuple[tuple[int, int], ...] = ()
        self.scale = 1.0  # metered over planned cost, carried from search to search

    @property
    def left(self) -> float:
        """Estimated seconds of the budget left (:class:`_Meter`)."""
        return self.limit - (_METER.seconds - self.start)

    def __call__(self, eps0: float, eps: float, share: float, best: bool) -> tuple[float, bool, tuple[int, ...]]:
        """(upper end, whether some split exceeds δ, a worst split found) at ``(eps0, eps)``.

        With ``share`` of the budget left; "exceeds" means a split above ``δ (1 − 2 EXACT_RTOL)``.
        It stops at the first such split, or with ``best`` looks for the worst split (to
        :data:`EXACT_RTOL`), whose root is then usually the answer.
        """
        n = self.n
        if eps >= eps0:  # every likelihood ratio is within [e^-eps0, e^eps0]: δ = 0
            return 0.0, False, (n - 1, 0)
        if self.left <= 0.0:  # the budget is spent: undecided
            return math.inf, False, (n - 1, 0)
        found = _binary_branch_and_bound(
            n,
            eps0,
            eps,
            share * self.left,
            threshold=None if best else self.delta,
            start=self.partition,
            scale=self.scale,
        )
        self.partition, self.scale = found.leaves, found.scale
        exceeds = found.lower > self.delta * (1.0 - 2.0 * EXACT_RTOL)
        return found.upper, exceeds, (found.split, n - 1 - found.split)


def _root_walk(
    search: Callable[[float, float, bool], tuple[float, bool, tuple[int, ...]]],
    root: Callable[[tuple[int, ...], float, int], float],
    start: float,
    valid: float,
    far: float,
    delta: float,
    direction: int,
) -> tuple[float, float, tuple[int, ...], bool]:
    """Walk a parameter ``x`` along which every dataset's δ decreases (``direction`` 1: ε upwards,
    −1: ``eps0`` downwards) to the first value where no dataset exceeds ``delta``.

    ``search(x, share, best)`` is ``(upper end of the worst δ at x, whether a dataset is seen
    above δ, a worst dataset found)`` with ``share`` of the budget left (``best``: look for the
    worst dataset rather than the first one above δ); ``root(h, x, end)`` is the first value
    from ``x`` on, in the walk's direction, where the ``end`` of ``h``'s δ (0: the upper end, at
    the level the walk steps to; 1: the lower end, at δ) is at most its level. From ``start``,
    each step moves ``x`` to the root of a dataset found above δ and searches there; the first
    search is asked only whether some dataset exceeds δ, the second for the worst one (its root
    is usually the answer), the later ones again only whether. An undecided search (budget)
    ends the walk: the answer is then looked for between ``x`` and ``valid`` (an answer known to
    be valid) with the same decisions, and is not exact.

    Returns
    -------
    answer, other_end, others, exact
        The certified answer; the root of the last dataset stepped on at δ (its lower end,
        moved outwards by the root's tolerance; ``far`` if none), which the exact answer does
        not pass; a worst dataset found; whether ``answer`` is exact.
    """

    def step(found: tuple[int, ...], x: float) -> float:
        """The root of ``found`` (nudged on by the root's tolerance if it does not move)."""
        nxt = root(found, x, 0)
        return nxt if direction * (nxt - x) > 0 else x + direction * (1e-9 * abs(x) + 1e-12)

    def other_end(last: tuple[int, ...] | None) -> float:
        if last is None:
            return far
        x = root(last, far, 1)
        return x - direction * (1e-9 * abs(x) + 1e-12)

    x, last = start, None
    upper_d, exceeds, others = search(x, 0.5, False)  # half: the fallback below needs some
    for rounds in range(64):
        if upper_d <= delta:
            return x, other_end(last), others, True
        if not exceeds:
            break  # undecided within the budget
        last = others
        x = step(last, x)
        upper_d, exceeds, others = search(x, 0.75, rounds == 0)
        others = last if upper_d <= delta else others
    else:  # pragma: no cover
        raise RuntimeError("the root walk did not converge")
    good = valid
    # Towards the valid end, certified at each step: an eighth of the way (closer to x than a
    # bisection: the answer is usually near x; measured at n = 10^6 and 10^7, its bracket is
    # two to three times narrower than a bisection's in the same time).
    for _ in range(10):
        mid = x + 0.125 * (good - x)
        upper_d, exceeds, found = search(mid, 0.3, False)
        if upper_d <= delta:
            good = mid
        elif exceeds:
            last = others = found
            x = step(found, mid)
        else:
            x = mid  # undecided: look beyond
        if direction * (x - good) >= 0:
            break
    return good, other_end(last), others, False
