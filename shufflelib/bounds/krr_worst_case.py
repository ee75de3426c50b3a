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
``H_{e^ε}(P‖Q) = α S(u* − 1) − β S(u*)`` with ``S(u) = Pr[D >= u]``. One tail per split, and
``u*`` by bisection.

**Lemma 5 (k = 3: two counts suffice).** For ``k = 3`` the output ``(N_a, N_b, N_c)`` is in
bijection with ``(M, N_a)``, ``M = N_a + N_b``; the law of the others' ``(M, N_a)`` is built
one user at a time on an ``(n+1)²`` grid (positive terms only, so the relative rounding is a
few ulps per user).

The search is then a maximum over every histogram of the others (``n`` splits for
``k = 2``, ``O(n²)`` for ``k = 3``, every ``(h_a, h_b)`` and partition of the rest into at most
``k − 2`` parts for ``k >= 4``). It is exact and complete, but its cost grows with ``n``:
:func:`worst_case_delta` refuses (``ValueError``) beyond a work budget, and the calculator then
answers with a certified bracket (:class:`~shufflelib.bounds.exact.ExactKRR`). No pruning by an
unproved shape of δ(h): δ oscillates in ``h`` with period about ``1/(2q)`` (the fractional part
of the mean of ``D``), with many local maxima, and neither the concentrated nor the balanced
split is always worst (see the chapter).

Numerical tolerance. ``k = 2``: the laws of the reports of the ``a``- and ``b``-holders are
summed over windows of their mean ± (12 sd + 40); the mass outside (computed) moves δ by at
most twice ``α + β`` times it, which is added; the pmfs come from a log-factorial table
(relative error ``8 ulp × log(n!)`` in the exponent) and the sums have positive terms; that
rounding budget is added too, so :func:`worst_case_delta` returns an *upper* end of a bracket
whose width is well below ``1e-6`` relative (also returned, as ``lower``). ``k >= 3``: every
output cell is summed (no truncation); each cell is a sum of positive terms known to relative
``(n + 2) · 1e-15``, and a cell's possible error is added wherever it could be positive.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import gammaln
from scipy.stats import binom

from .._roots import first_true
from .._validation import check_array, check_int, check_positive, check_probability

__all__ = [
    "WORK_LIMIT",
    "WorstCase",
    "binary_split_deltas",
    "brute_force_worst_delta",
    "dataset_delta",
    "krr_probabilities",
    "pair_delta",
    "worst_case_delta",
    "worst_case_epsilon",
    "worst_case_work",
]

#: Largest estimated run time, in seconds, of one complete search that :func:`worst_case_delta`
#: accepts (see :func:`worst_case_work`); also ``ExactKRR``'s budget for one answer.
WORK_LIMIT = 4.0
#: Relative rounding budget per user of the grid computations (k >= 3).
_GRID_RTOL = 1e-15


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
    p, q = krr_probabilities(k, eps0)
    rest = [c for c in others[2:] if c > 0]
    weights = _reduced_weights(len(rest), k - 2 - len(rest), p, q)
    values = [0] * others[0] + [1] * others[1] + [2 + i for i, c in enumerate(rest) for _ in range(c)]
    base = _output_law(values, weights, n - 1)
    law_p, law_q = _add_victim(base, weights[0], n), _add_victim(base, weights[1], n)
    return _pair_delta(law_p, law_q, eps, (n + 2) * k * _GRID_RTOL)


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
@lru_cache(maxsize=8)
def _log_factorials(n: int) -> np.ndarray:
    return gammaln(np.arange(n + 2, dtype=float) + 1.0)


def _log_binom_pmf(x: np.ndarray, m: np.ndarray, log_p: float, log_1mp: float, lf: np.ndarray) -> np.ndarray:
    inside = (x >= 0) & (x <= m)
    xi = np.where(inside, x, 0).astype(np.int64)
    mi = np.broadcast_to(m, x.shape).astype(np.int64)
    out = lf[mi] - lf[xi] - lf[np.where(inside, mi - xi, 0)] + xi * log_p + (mi - xi) * log_1mp
    return np.where(inside, out, -np.inf)


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
    gamma = math.exp(float(eps_arr[0]))
    p, q = krr_probabilities(2, eps0)
    alpha, beta = p - gamma * q, gamma * p - q
    ha = np.arange(n, dtype=np.int64) if splits is None else np.asarray(splits, dtype=np.int64).ravel()
    if ha.size == 0 or ha.min() < 0 or ha.max() > n - 1:
        raise ValueError(f"splits must be integers in [0, {n - 1}]")
    hb = n - 1 - ha
    rows = ha.size
    if alpha <= 0.0:
        return np.zeros(rows), np.zeros(rows)
    lf = _log_factorials(n)
    log_p, log_q = math.log(p), math.log(q)
    # Windows of X ~ Bin(h_a, p) (the a-holders' reports of a) and Y ~ Bin(h_b, q) (the
    # b-holders'), mean ± (12 sd + 40); the mass outside is computed and accounted for.
    width = int(np.ceil(24.0 * math.sqrt((n - 1) * p * q) + 80.0))
    j = np.arange(width, dtype=np.int64)
    x_lo = np.clip(np.floor(ha * p - 12.0 * np.sqrt(ha * p * q) - 40.0), 0, ha).astype(np.int64)
    y_lo = np.clip(np.floor(hb * q - 12.0 * np.sqrt(hb * p * q) - 40.0), 0, hb).astype(np.int64)
    px = np.exp(_log_binom_pmf(x_lo[:, None] + j, ha[:, None], log_p, log_q, lf))
    py = np.exp(_log_binom_pmf(y_lo[:, None] + j, hb[:, None], log_q, log_p, lf))
    dropped = (
        binom.cdf(x_lo - 1, ha, p)
        + binom.sf(x_lo + width - 1, ha, p)
        + binom.cdf(y_lo - 1, hb, q)
        + binom.sf(y_lo + width - 1, hb, q)
    )
    zeros, ones = np.zeros((rows, 1)), np.ones((rows, 1))
    pmf_y = np.hstack([zeros, py, zeros])  # Pr[Y = y_lo + c − 1] at column c, 0 outside
    tail_y = np.hstack([ones, np.cumsum(py[:, ::-1], axis=1)[:, ::-1], zeros])  # Pr[Y >= y_lo + c − 1]
    offset = (x_lo + y_lo - 1)[:, None] + j[None, :]

    def convolve(table: np.ndarray, u: np.ndarray) -> np.ndarray:  # Σ_x X(x) table(u − x)
        column = np.clip(u[:, None] - offset, 0, width + 1)
        return (px * np.take_along_axis(table, column, axis=1)).sum(axis=1)

    # u* = first u in [0, n] with α D(u − 1) > β D(u) (a threshold by log-concavity), by
    # bisection started from the normal approximation and widened until it brackets u*.
    ratio = beta / alpha

    def crossed(u: np.ndarray) -> np.ndarray:
        return convolve(pmf_y, u - 1) > ratio * convolve(pmf_y, u)

    mean, var = ha * p + hb * q, (n - 1) * p * q
    guess = mean + 0.5 + var * math.log(ratio)
    spread = 3.0 * np.sqrt(var) + 8.0
    left = np.clip(np.floor(guess - spread), 0, n).astype(np.int64)
    right = np.clip(np.ceil(guess + spread), 0, n).astype(np.int64)
    left = np.where(crossed(left), 0, left)  # invariant: not crossed below left ...
    right = np.where(crossed(right), right, n).astype(np.int64)  # ... crossed at right (D(n) = 0 < D(n − 1))
    while True:
        active = left < right
        if not active.any():
            break
        mid = (left + right) // 2
        true = crossed(mid)
        right = np.where(active & true, mid, right)
        left = np.where(active & ~true, mid + 1, left)
    first, second = alpha * convolve(tail_y, left - 1), beta * convolve(tail_y, left)
    value = np.maximum(first - second, 0.0)
    # Relative accuracy of each convolution: the log-factorial table (absolute error a few ulps
    # of its largest entry, in the exponent of both pmfs) and the positive sums (width terms).
    rtol = 8.0 * np.finfo(float).eps * (lf[n] + 1.0) + 4.0 * width * np.finfo(float).eps
    err = rtol * (first + second) + 2.0 * (alpha + beta) * dropped  # threshold and tails
    return value + err, np.maximum(value - err, 0.0)


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
    """Worst case for ``k >= 4`` over ``(h_a <= h_b, partition of the rest)`` (Lemmas 1–3)."""
    worst = np.zeros(eps.shape)
    arg: tuple[int, ...] = (0, n - 1, *([0] * (k - 2)))
    for rest in range(n):
        for part in _partitions(rest, k - 2):
            for ha in range(n - rest):
                hb = n - 1 - rest - ha
                if ha > hb:
                    continue
                others = (ha, hb, *part, *([0] * (k - 2 - len(part))))
                d = dataset_delta(others, k, eps0, eps)
                if d[-1] > worst[-1]:
                    arg = others
                worst = np.maximum(worst, d)
    return worst, arg


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
        victim holds value 0 or 1).

    Examples
    --------
    >>> w = worst_case_delta(6, 3, 1.0, [0.0, 0.5])
    >>> bool(w.lower[0] <= w.delta[0]), len(w.others), sum(w.others)
    (True, 3, 5)
    """

    delta: np.ndarray
    lower: np.ndarray
    others: tuple[int, ...]


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
        Refuse (``ValueError``) when :func:`worst_case_work` exceeds it.

    Returns
    -------
    WorstCase

    Examples
    --------
    >>> w = worst_case_delta(20, 2, 3.0, [0.0])
    >>> round(float(w.delta[0]), 4), w.others  # the victim's order: 9 others share its value
    (0.4434, (9, 10))
    """
    n, k, eps0, eps = _check(n, k, eps0, eps)
    work = worst_case_work(n, k)
    if work > work_limit:
        raise ValueError(
            f"n = {n} is beyond the exact search for k = {k} (about {work:.2g} s > {work_limit:.2g} s); "
            "use ExactKRR for a certified bracket"
        )
    if k == 2:
        upper, lower = np.zeros(eps.shape), np.zeros(eps.shape)
        arg = 0
        for i, e in enumerate(eps):
            if e >= eps0:  # every likelihood ratio is within [e^-eps0, e^eps0]: δ = 0
                continue
            up, lo = binary_split_deltas(n, eps0, float(e))
            arg = int(up.argmax())
            upper[i], lower[i] = up.max(), lo.max()
        return WorstCase(upper, lower, (arg, n - 1 - arg))
    if k == 3:
        value, others = _three_value_deltas(n, eps0, eps)
    else:
        value, others = _many_value_deltas(n, k, eps0, eps)
    value = np.where(eps >= eps0, 0.0, value)  # likelihood ratios within [e^-eps0, e^eps0]
    lower = np.maximum(value - 2.0 * (n + 2) * k * _GRID_RTOL * (1.0 + np.exp(eps)), 0.0)
    return WorstCase(value, lower, others)


def pair_delta(n: int, k: int, eps0: float, eps: object, others: tuple[int, ...]) -> np.ndarray:
    """Exact δ (both orders, upper end of the numerical bracket) of one pair of datasets.

    The victim holds value 0 or 1; ``others`` is the histogram of the other ``n − 1`` users
    (length ``k``). Fast paths of the module for ``k = 2`` and ``k = 3``.

    Examples
    --------
    >>> round(float(pair_delta(20, 2, 3.0, [0.0], (10, 9))[0]), 4)
    0.4434
    """
    n, k, eps0, eps = _check(n, k, eps0, eps)
    others = tuple(int(c) for c in others)
    if len(others) != k or sum(others) != n - 1 or min(others) < 0:
        raise ValueError(f"others must be {k} counts >= 0 summing to n - 1 = {n - 1}, got {others!r}")
    if k == 2:
        return np.array([binary_split_deltas(n, eps0, float(e), np.array(others))[0].max() for e in eps])
    if k == 3:
        p, q = krr_probabilities(3, eps0)
        return _pair_delta(*_three_value_laws(others, p, q), eps, (n + 2) * _GRID_RTOL)
    return dataset_delta(others, k, eps0, eps)


def worst_case_epsilon(
    n: int, k: int, eps0: float, delta: float, work_limit: float = WORK_LIMIT
) -> tuple[float, tuple[int, ...]]:
    """Exact worst-case ε(δ) of shuffled k-RR (rounded up) and a dataset attaining it.

    ``ε = max_h ε_h(δ)`` over the histograms ``h`` of the others. Iteration: take the worst
    dataset ``h`` at the current ε, solve ``δ_h(ε) = δ`` for that one dataset (cheap), and
    run the complete search at the new ε; stop when no dataset exceeds ``δ`` there. Every
    step raises ε to the root of some dataset, so the loop ends at the largest root, and
    the last complete search certifies it.

    Examples
    --------
    >>> eps, others = worst_case_epsilon(20, 2, 3.0, 0.3)
    >>> round(eps, 4), others
    (1.4261, (19, 0))
    """
    n, k, eps0, _ = _check(n, k, eps0, 0.0)
    delta = check_probability("delta", delta)
    eps = 0.0
    search = worst_case_delta(n, k, eps0, [eps], work_limit)
    if search.delta[0] <= delta:
        return 0.0, search.others
    for _ in range(64):
        others = search.others

        def ok(e: float, others=others) -> bool:
            return float(pair_delta(n, k, eps0, [e], others)[0]) <= delta

        def score(e: float, others=others) -> float:
            d = float(pair_delta(n, k, eps0, [e], others)[0])
            return math.log(d) - math.log(delta) if d > 0 else -1e300

        eps = first_true(ok, score, eps, eps0)
        search = worst_case_delta(n, k, eps0, [eps], work_limit)
        if search.delta[0] <= delta:
            return eps, others
    raise RuntimeError("worst_case_epsilon did not converge")  # pragma: no cover
