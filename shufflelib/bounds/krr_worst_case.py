r"""The exact worst case of shuffled k-ary randomized response over all neighbouring datasets.

δ(ε) of shuffled k-RR is the largest hockey-stick divergence over all pairs of neighbouring
datasets. :mod:`~shufflelib.bounds.krr_datasets` evaluates one pair (Lemmas 1–5: histograms,
orders, values nobody holds, binary RR's single crossing, k = 3 on two counts); this module
searches them all, completely, with one more lemma to prune the binary search, and inverts the
worst case for ε and for ``eps0`` by root walks. The work a search may spend is
:mod:`~shufflelib.bounds.krr_budget`'s.

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
5,000 evaluations; its time: ``benchmarks/bench_bounds.py``); it is complete (an interval is
dropped only when its bound is below a split's value), and at a work budget it stops with a
certified bracket ``[best split, largest bound left]`` instead. For ``k = 3`` the search
visits all ``O(n²)`` histograms; for ``k >= 4`` every ``(h_a, h_b)`` and partition of the rest
into at most ``k − 2`` parts. Those are exact and complete, but their cost grows with ``n``:
:func:`worst_case_delta` refuses (``ValueError``) beyond a work budget, and the calculator then
answers with a certified bracket (:class:`~shufflelib.bounds.exact.ExactKRR`). No pruning by an
unproved shape of δ(h): δ oscillates in ``h`` with period about ``1/(2q)`` (the fractional part
of the mean of ``D`` of Lemma 4), with many local maxima, and neither the concentrated nor the balanced
split is always worst (see the chapter).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._roots import first_true, last_true
from .._validation import check_int, check_nonnegative, check_probability
from .krr_budget import _METER, WORK_LIMIT, _partitions, worst_case_work
from .krr_datasets import (
    _GRID_RTOL,
    _TINY,
    _check,
    _histogram_delta,
    _pair_delta,
    _split_deltas,
    _step,
    _window_widths,
    binary_split_deltas,
    brute_force_worst_delta,
    dataset_delta,
    krr_probabilities,
    pair_delta,
)

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

#: A bracket narrower than this (relative) is reported as the exact worst case.
EXACT_RTOL = 1e-6


#: Up to this many (split, ε) pairs, binary RR's worst case is computed for every split at once.
_EXHAUSTIVE_ROWS = 20_000


#: ... and up to this ``n`` (beyond, the branch and bound is faster even at one ε).
_EXHAUSTIVE_N = 1000


#: Binary RR: the branch and bound splits an interval into this many.
_BRANCH = 4


#: Binary RR: estimated seconds per row and column of the narrower law's window (calibrated).
_COST_PER_COLUMN = 4.5e-8


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
        ``k >= 3``: refuse (``ValueError``) when :func:`~shufflelib.bounds.krr_budget.worst_case_work` exceeds it.
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
    n: int,
    k: int,
    eps0: float,
    delta: float,
    work_limit: float = WORK_LIMIT,
    ceiling: float | None = None,
    floor: float = 0.0,
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

    floor = min(max(float(floor), 0.0), ceiling)
    answer, lower, others, exact = _root_walk(search, root, floor, ceiling, floor, delta, direction=1)
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
