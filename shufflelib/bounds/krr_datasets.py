r"""The exact δ of one pair of neighbouring datasets under shuffled k-ary randomized response.

Each of ``n`` users applies k-RR with parameter ``eps0`` (the true value w.p.
``p = e^{eps0}/(e^{eps0}+k−1)``, each other value w.p. ``q = 1/(e^{eps0}+k−1)``) and the
shuffler releases the histogram of the reports. Neighbouring datasets differ in one user, the
*victim*, who holds ``a`` in ``X0`` and ``b ≠ a`` in ``X1``; δ(ε) of one pair is the hockey-stick
divergence ``H_{e^ε}`` between the two output laws, in either order. This module evaluates it for
one dataset (what the chapter shows, split by split); the search over all datasets, with the lemma
that prunes it, is :mod:`~shufflelib.bounds.krr_worst_case`, and the work it may spend is
:mod:`~shufflelib.bounds.krr_budget`. Each step below is a lemma with a short proof.

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

import itertools
import math

import numpy as np

from .._laws import binom
from .._validation import check_array, check_int, check_positive
from .clone_pair import binomial_pmf_rows
from .krr_budget import _METER

__all__ = [
    "binary_split_deltas",
    "brute_force_worst_delta",
    "dataset_delta",
    "krr_probabilities",
    "pair_delta",
]

#: Values below this are treated as underflowed (with an absolute error budget).
_TINY = 1e-300


#: Relative rounding budget per user of the grid computations (k >= 3).
_GRID_RTOL = 1e-15


#: Binary RR: thresholds evaluated on each side of the saddle-point guess of ``u*``.
_REACH = 3


#: Binary RR: largest table (rows times window columns) evaluated at once.
_GROUP_CELLS = 1 << 19


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
