r"""Step 2 of Algorithm 1: the server chooses ``m`` and the reporting probabilities (Eqs. (6)–(7)).

For a fixed ``m`` the MSE bound ``(n m + s S)/S^2`` decreases in ``S = Σ_k n_k λ_k``, so each
level gets the **largest** ``λ_k`` meeting its own constraint
``δ_item(E_k/s; λ_k) <= δ'`` (:func:`max_reporting_probability`; ``δ'`` from
:func:`~shufflelib.segmented.group.item_budget`). Level ``k`` reaches ``λ_k = 1`` from
``m_k`` blanket messages on (:func:`blanket_threshold`); since ``E_1 <= ... <= E_K``,
``m_1 >= ... >= m_K``. :func:`optimize_parameters` searches ``m`` on a grid over
``[m_K, m_1]`` (the paper writes ``(m_1, m_K]``, a reversed interval) and returns the ``m``
with the smallest bound.

Two accountings of one item's privacy (``accounting``):

* ``"theorem3"`` — the paper's pair (Lemma 3 with Theorem 2, ``n·slots − 1`` trials), as
  printed. Not sound for ``λ < 1``: it ignores the total number of messages.
* ``"exact"`` — :class:`~shufflelib.segmented.exact_item.ExactItemCurve`, the exact privacy of
  one item in the reduced view (rounded up by blocks). Sound.

``gamma_max`` caps the probability ``γ = m/slots`` that a blanket slot sends (more slots per
user, same expected number ``m`` of blanket messages); Algorithm 2 uses ``slots = ⌈m⌉``
(``gamma_max = 1``). Smaller ``γ`` makes the total count noisier, which is what the exact
accounting rewards.

Tolerances. ``λ_k`` is rounded **down** and ``m_k`` **up** by certified root finding
(``shufflelib._roots``, relative precision ``1e-6``); every δ is itself rounded up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .._docstrings import fill_doc
from .._roots import first_true, largest_reaching
from .._validation import (
    N_MAX,
    check_array,
    check_choice,
    check_in_range,
    check_int,
    check_n,
    check_positive,
    check_probability,
)
from ..curves import MonotoneEnvelope, PrivacyCurve, envelope_grid
from . import M_MAX
from .exact_item import ExactItemCurve
from .group import GROUP_FORMS, GroupCurve, item_budget, log_item_budget
from .protocol import SegmentedParameters, mse_bound
from .variation_ratio import pair_curve, poisson_item_pair

__all__ = [
    "ACCOUNTINGS",
    "slots_for",
    "item_curve",
    "check_user",
    "user_curve",
    "COMPOSED_ENVELOPE_POINTS",
    "COMPOSED_RESOLUTIONS",
    "max_reporting_probability",
    "blanket_threshold",
    "lambda_grid",
    "OptimizedParameters",
    "optimize_parameters",
]

#: Accountings of one item's privacy.
ACCOUNTINGS = ("theorem3", "exact")
#: Relative precision of the root finding on ``λ`` and ``m``.
_RTOL = 1e-6
#: Largest level at which :func:`max_reporting_probability` evaluates Eq. (7), the top of
#: :class:`~shufflelib.curves.MonotoneEnvelope`'s grid (a larger target is answered at this
#: one, valid since a smaller ε is a stronger guarantee).
_LEVEL_CAP = 700.0
#: Levels below the target tried by :func:`max_reporting_probability`: every eighth point of the
#: envelope's grid (ratio about 1.66, from 1e-4; the same levels for every target, so that a
#: larger target tries every level a smaller one does).
_LEVELS = envelope_grid(_LEVEL_CAP)[1:]
_SPLIT_GRID = _LEVELS[::8]
#: Grid points of the running minimum of :func:`user_curve` in a composed round (each point
#: costs an evaluation of the item curve at every block; a single round uses
#: :class:`~shufflelib.curves.MonotoneEnvelope`'s default, 256). The composition samples the
#: profile on its own grid and takes its running minimum there, so this grid only sets the
#: profile's floor (its value at large ε, where the group factor makes the product rise).
COMPOSED_ENVELOPE_POINTS = 16
#: Block widths ``(t_resolution, resolution)`` of the exact item curve in a composed round
#: (:class:`~shufflelib.segmented.exact_item.ExactItemCurve`; coarser than its defaults, still
#: valid): a round's profile is sampled at about 200 ε, each a clone-pair evaluation whose
#: cost grows with the block count (times in ``benchmarks/bench_segmented.py``). eps0 at 1,000
#: rounds, ε = 0.05, n = 10^9: the answer 6e-6 lower than at the defaults; ε = 1, n = 5000:
#: 0.7 % lower ((0.5, 0.2): 0.55 % lower, and slower).
COMPOSED_RESOLUTIONS = (0.5, 0.25)


def slots_for(m: float, gamma_max: float = 1.0) -> int:
    """Blanket slots per user: the fewest, at least ``⌈m⌉``, with ``m/slots <= gamma_max``.

    Examples
    --------
    >>> slots_for(1.5), slots_for(1.5, gamma_max=0.2), slots_for(0.1, gamma_max=0.2)
    (2, 8, 1)
    """
    m = check_positive("m", m)
    gamma_max = check_probability("gamma_max", gamma_max, closed_high=True)
    return max(1, math.ceil(m), math.ceil(m / gamma_max - 1e-12))


@fill_doc
def item_curve(
    n: int,
    m: float,
    d: int,
    lam: float,
    *,
    accounting: str = "theorem3",
    gamma_max: float = 1.0,
    resolutions: tuple[float | None, float | None] | None = None,
) -> PrivacyCurve:
    """The privacy curve of one item of a user with reporting probability ``λ``.

    Parameters
    ----------
    %(n_users)s
    m
        Expected blanket messages per user, > 0.
    %(d)s
    lam
        Reporting probability, in ``[0, 1]``.
    accounting
        ``"theorem3"`` (the paper's pair) or ``"exact"`` (the exact single-item curve).
    gamma_max
        Cap on the sending probability of a slot (see :func:`slots_for`).
    resolutions
        ``(t_resolution, resolution)`` of the exact curve
        (:class:`~shufflelib.segmented.exact_item.ExactItemCurve`; ``None``: its defaults).

    Returns
    -------
    PrivacyCurve
        The item's privacy curve under ``accounting``.

    Examples
    --------
    >>> paper = item_curve(5000, 2.0, 17, 0.5)
    >>> exact = item_curve(5000, 2.0, 17, 0.5, accounting="exact")
    >>> exact.epsilon(3e-7) > 2 * paper.epsilon(3e-7)  # integer m: the count reveals the report
    True
    """
    slots = slots_for(m, gamma_max)
    if accounting == "theorem3":
        return pair_curve(poisson_item_pair(n, m, d, lam, slots=slots, convention="theorem3"))
    if accounting == "exact":
        n = check_int("n", n, minimum=1)
        widths = {} if resolutions is None else dict(zip(("t_resolution", "resolution"), resolutions, strict=True))
        return ExactItemCurve(n * slots, min(1.0, m / slots), d, lam, **widths)
    raise ValueError(f"accounting must be one of {', '.join(ACCOUNTINGS)}, got {accounting!r}")


def check_user(n: int, m: float, d: int, s: int) -> tuple[int, float, int, int]:
    """Validate the calculator's box for one user of Algorithm 2.

    ``2 <= n <= 10**9`` users, ``0 < m <= 10**4`` blanket messages per user,
    ``3 <= d <= 10**9`` items and ``1 <= s <= d`` items per user.

    Examples
    --------
    >>> check_user(5000, 1.5, 17, 4)
    (5000, 1.5, 17, 4)
    >>> check_user(5000, 1.5, 3, 4)
    Traceback (most recent call last):
    ...
    ValueError: s must be an integer >= 1 and <= 3, got 4
    """
    n = check_n(n)
    m = check_in_range("m", m, 0.0, M_MAX, closed_low=False)
    d = check_int("d", d, minimum=3, maximum=N_MAX)
    s = check_int("s", s, minimum=1, maximum=d)
    return n, m, d, s


def user_curve(
    n: int,
    m: float,
    d: int,
    s: int,
    lam: float,
    *,
    accounting: str = "theorem3",
    group: str = "paper",
    gamma_max: float = 1.0,
    points: int | None = None,
    resolutions: tuple[float | None, float | None] | None = None,
) -> PrivacyCurve:
    """The user-level privacy curve (group privacy over ``s`` items) on the box of :func:`check_user`.

    The item curve after group privacy is replaced by its running minimum
    (:class:`~shufflelib.curves.MonotoneEnvelope` on ``points`` geometric grid points, its
    default if ``None``; valid whatever the grid): the group step and the rounding allowance of
    the item curve both grow with ε, so the raw product is not monotone. A composed round
    passes :data:`~shufflelib.segmented.optimize.COMPOSED_ENVELOPE_POINTS` and
    :data:`~shufflelib.segmented.optimize.COMPOSED_RESOLUTIONS` (``resolutions``, see
    :func:`item_curve`).
    Its :meth:`~shufflelib.curves.PrivacyCurve.epsilon` is ``inf`` where no finite ε reaches δ
    (e.g. integer ``m`` with ``λ < 1``: the number of messages reveals the report).

    Examples
    --------
    >>> curve = user_curve(5000, 1.8, 17, 4, 0.5)
    >>> 0.4 < curve.epsilon(2e-6) < 0.6
    True
    >>> user_curve(5000, 1.8, 17, 4, 0.5, points=COMPOSED_ENVELOPE_POINTS).epsilon(2e-6) == curve.epsilon(2e-6)
    True
    >>> user_curve(2, 1.0, 3, 1, 0.5, accounting="exact").epsilon(1e-3)
    inf
    """
    n, m, d, s = check_user(n, m, d, s)
    lam = check_in_range("lam", lam, 0.0, 1.0)
    grid = {} if points is None else {"points": check_int("points", points, minimum=2)}
    item = item_curve(n, m, d, lam, accounting=accounting, gamma_max=gamma_max, resolutions=resolutions)
    return MonotoneEnvelope(GroupCurve(item, s, group), **grid)


def _target(level_eps: float, s: int, delta: float, group: str) -> tuple[float, float]:
    check_choice("group", group, GROUP_FORMS)
    return item_budget(level_eps, s, delta, group)


@fill_doc
def max_reporting_probability(
    n: int,
    m: float,
    d: int,
    s: int,
    level_eps: float,
    delta: float,
    *,
    accounting: str = "theorem3",
    group: str = "paper",
    gamma_max: float = 1.0,
) -> float:
    """Eqs. (6)–(7): the largest ``λ`` in ``[0, 1]`` meeting the level's constraint (rounded down).

    The constraint of Eq. (7) at the level ``E`` itself, ``δ_item(E/s; λ) <= δ'(E)``, or at a
    smaller level ``E'``: an ``(E', δ)`` guarantee with ``E' <= E`` is an ``(E, δ)`` one, so the
    largest ``λ`` meeting any of them is valid for ``E``. The split at ``E`` alone is what the
    paper writes; it answers ``λ = 0`` once ``δ' = δ/(s e^{cE/s})`` falls below what the item
    curve resolves (``E`` of a few dozen), although a larger target never needs a smaller
    ``λ``. The levels tried below ``E`` are every eighth point of
    :func:`~shufflelib.curves.envelope_grid` (from 1e-4): if one has room left at the split at
    ``E``'s ``λ``, one certified search over all of them at once (the score: the best level's
    room, non-decreasing in ``λ``) gives the largest ``λ`` over them, then the envelope grid's
    points around the best one. Where the split at ``E`` is the best nothing changes. A larger
    ``E`` tries every grid level a smaller one does, so ``λ`` does not fall as ``E`` grows
    except within the searches' tolerances (relative 1e-6, absolute 1e-9) or where the best
    level lies between the grid's points and a smaller ``E`` found a better one near it.
    A level above 700 is evaluated at 700 (valid, a smaller ``E'``), as
    :func:`user_curve` does; since every level is a point of its grid, :func:`user_curve`'s ε
    at δ for the ``λ`` answered is at most ``E`` up to rounding (the ε question round-trips).

    Parameters
    ----------
    n, m, d
        Users, expected blanket messages per user, items.
    %(s)s
    level_eps
        The level ``E_k`` > 0.
    delta
        The user-level δ, in ``(0, 1)``.
    %(segmented_accounting)s

    Returns
    -------
    float
        ``λ*``: its item curve satisfies ``δ_item(E'/s) <= δ'(E')`` at ``E' = E`` or a grid
        level below it.

    Examples
    --------
    >>> lam = max_reporting_probability(5000, 1.8, 17, 4, 0.5, 2e-6)
    >>> 0.4 < lam < 0.6
    True
    >>> [max_reporting_probability(20000, 2, 30, 2, e, 1e-8) for e in (30.0, 80.0, 1e5)]
    [1.0, 1.0, 1.0]
    """
    level_eps = check_positive("level_eps", level_eps)
    delta = check_probability("delta", delta)
    top = min(level_eps, _LEVEL_CAP)
    eps1, delta1 = _target(top, s, delta, group)

    @lru_cache(maxsize=64)  # one curve per λ: the searches and the levels' room read the same ones
    def curve(lam: float) -> PrivacyCurve:
        return item_curve(n, m, d, lam, accounting=accounting, gamma_max=gamma_max)

    def item_delta(lam: float) -> float:
        return float(curve(lam).delta(eps1))

    found = largest_reaching(item_delta, delta1, 0.0, 1.0, log_scale=True, rtol=_RTOL, atol=1e-9)
    lam = 0.0 if found is None else found
    grid = _SPLIT_GRID[_SPLIT_GRID < top]
    if lam >= 1.0 or grid.size == 0:
        return lam

    def room(lam: float, levels: np.ndarray) -> np.ndarray:
        """``log δ_item(E'/s) − log δ'(E')`` at each level ``E'`` (``-1e300`` where ``δ_item = 0``)."""
        item = np.asarray(curve(lam).delta(levels / s), dtype=float)
        with np.errstate(divide="ignore"):
            gap = np.log(item) - np.array([log_item_budget(e, s, delta, group)[1] for e in levels])
        return np.maximum(gap, -1e300)

    def at_level(level: float) -> float | None:
        """The largest λ (from the current one) meeting the constraint at ``level``."""
        found = largest_reaching(
            lambda x: float(curve(x).delta(level / s)),
            _target(level, s, delta, group)[1],
            lam,
            1.0,
            log_scale=True,
            rtol=_RTOL,
            atol=1e-9,
        )
        return None if found is None or found <= lam else found

    if not np.any(room(lam, grid) < 0.0):  # no level has room at the split at E's λ: it is the best
        return lam
    # The largest λ meeting the constraint at some level of the grid: one certified search over all
    # of them at once. Its score is the best level's room (non-decreasing in λ); its verdict
    # compares δ_item with δ' itself at each level, as at_level does.
    levels = np.append(grid, top)
    budgets = np.array([_target(e, s, delta, group)[1] for e in levels])
    log_budgets = np.array([log_item_budget(e, s, delta, group)[1] for e in levels])

    def best_room(x: float) -> float:
        item = np.asarray(curve(x).delta(levels / s), dtype=float)
        with np.errstate(divide="ignore"):
            gap = max(float(np.min(np.log(item) - log_budgets)), -1e300)
        return min(gap, 0.0) if np.any(item <= budgets) else max(gap, 1e-300)

    found = largest_reaching(best_room, 0.0, lam, 1.0, rtol=_RTOL, atol=1e-9)
    lam = lam if found is None else found
    best = float(levels[np.argmin(room(lam, levels))])
    if lam >= 1.0 or best == top:
        return lam
    # Between the grid's points: the envelope grid's level with the most room at this λ, near the
    # best grid level (a peak of the split's λ between two grid points).
    i = int(np.searchsorted(grid, best))
    near = _LEVELS[(_LEVELS > grid[max(i - 1, 0)]) & (_LEVELS < (grid[i + 1] if i + 1 < grid.size else top))]
    if near.size:
        found = at_level(float(near[np.argmin(room(lam, near))]))
        lam = lam if found is None else found
    return lam


def blanket_threshold(
    n: int,
    d: int,
    s: int,
    level_eps: float,
    delta: float,
    *,
    accounting: str = "theorem3",
    group: str = "paper",
    gamma_max: float = 1.0,
) -> float:
    """``m_k``: the fewest blanket messages per user with which level ``k`` gets ``λ = 1`` (rounded up).

    With ``slots = ⌈m⌉`` the constraint is not monotone in ``m`` at integers; the search returns
    a certified ``m`` at which ``λ = 1`` is allowed, bracketed from below.

    Returns
    -------
    float
        ``m_k`` (``inf`` if even ``m = 10^4`` does not suffice).

    Examples
    --------
    >>> m1 = blanket_threshold(5000, 17, 4, 0.5, 2e-6)
    >>> m3 = blanket_threshold(5000, 17, 4, 2.0, 2e-6)
    >>> m3 < m1  # the liberal level needs fewer blanket messages
    True
    """
    n = check_int("n", n, minimum=1)
    level_eps = check_positive("level_eps", level_eps)
    eps1, delta1 = _target(level_eps, s, delta, group)

    def item_delta(m: float) -> float:
        return float(item_curve(n, m, d, 1.0, accounting=accounting, gamma_max=gamma_max).delta(eps1))

    lo = 1e-6
    if item_delta(lo) <= delta1:
        return lo
    hi = 1.0
    while item_delta(hi) > delta1:
        lo, hi = hi, 2.0 * hi
        if hi > M_MAX:
            return math.inf
    log_target = math.log(delta1)
    return first_true(
        lambda m: item_delta(m) <= delta1,
        lambda m: math.log(max(item_delta(m), 1e-300)) - log_target,
        lo,
        hi,
        rtol=_RTOL,
        atol=1e-9,
    )


@dataclass(frozen=True)
class OptimizedParameters:
    """The server's choice and the search behind it.

    Attributes
    ----------
    params
        The chosen :class:`~shufflelib.segmented.protocol.SegmentedParameters`.
    bound
        The MSE bound ``(n m + s S)/S^2`` at the chosen parameters.
    thresholds
        ``m_k`` for each level.
    m_grid, lambda_grid, bound_grid
        The searched ``m`` values, the ``λ*_k(m)`` (shape ``(len(m_grid), K)``) and the bound.

    Examples
    --------
    >>> opt = optimize_parameters([0.5, 2.0], [2500, 2500], 17, 4, 2e-6, grid_points=3)
    >>> opt.m_grid.size, opt.lambda_grid.shape
    (3, (3, 2))
    """

    params: SegmentedParameters
    bound: float
    thresholds: np.ndarray
    m_grid: np.ndarray = field(repr=False)
    lambda_grid: np.ndarray = field(repr=False)
    bound_grid: np.ndarray = field(repr=False)


def lambda_grid(
    m_grid: object,
    n: int,
    d: int,
    s: int,
    level_eps: object,
    delta: float,
    *,
    thresholds: object | None = None,
    accounting: str = "theorem3",
    group: str = "paper",
    gamma_max: float = 1.0,
) -> np.ndarray:
    """``λ*_k(m)`` for every ``m`` of a grid and every level: shape ``(len(m_grid), K)``.

    Levels whose threshold ``m_k`` (if given) is at most ``m`` get ``λ = 1`` without a search.

    Examples
    --------
    >>> lam = lambda_grid([1.0, 4.0], 5000, 17, 4, [0.5, 2.0], 2e-6)
    >>> lam.shape, float(lam[1, 1])
    ((2, 2), 1.0)
    """
    grid = check_array("m_grid", m_grid, ndim=1, low=0.0)
    levels = check_array("level_eps", level_eps, ndim=1, low=0.0)
    limits = None if thresholds is None else check_array("thresholds", thresholds, ndim=1)
    out = np.ones((grid.size, levels.size))
    for i, m in enumerate(grid):
        for k, e in enumerate(levels):
            if limits is not None and m >= limits[k]:
                continue
            out[i, k] = max_reporting_probability(
                n, float(m), d, s, float(e), delta, accounting=accounting, group=group, gamma_max=gamma_max
            )
    return out


@fill_doc
def optimize_parameters(
    level_eps: object,
    level_counts: object,
    d: int,
    s: int,
    delta: float,
    *,
    m_grid: object | None = None,
    grid_points: int = 24,
    accounting: str = "theorem3",
    group: str = "paper",
    gamma_max: float = 1.0,
) -> OptimizedParameters:
    """Choose ``m`` and ``λ_1..λ_K`` minimising the MSE bound (Step 2 of Algorithm 1).

    Parameters
    ----------
    level_eps
        The privacy levels ``E_1 <= ... <= E_K`` (> 0).
    level_counts
        The level histogram ``n̂_k`` from round 1 (``n = Σ n̂_k``).
    d, s, delta
        Items, items per user, the common δ.
    m_grid
        Values of ``m`` to search (default: ``grid_points`` values log-spaced over
        ``[m_K, m_1]``).
    grid_points
        Size of the default grid, an integer >= 2.
    %(segmented_accounting)s

    Returns
    -------
    OptimizedParameters

    Examples
    --------
    >>> opt = optimize_parameters([0.5, 1.0, 2.0], [1250, 2500, 1250], 17, 4, 2e-6, grid_points=6)
    >>> 0.5 < opt.params.m < 7, opt.params.lambdas[-1]
    (True, 1.0)
    """
    levels = check_array("level_eps", level_eps, ndim=1, low=0.0)
    if levels.size == 0 or np.any(levels <= 0) or np.any(np.diff(levels) < 0):
        raise ValueError("level_eps must be a non-empty, non-decreasing array of levels > 0")
    counts = check_array("level_counts", level_counts, ndim=1, low=0, integral=True)
    if counts.size != levels.size:
        raise ValueError(f"level_counts must have one entry per level ({levels.size}), got {counts.size}")
    n = int(counts.sum())
    n = check_int("n (the sum of level_counts)", n, minimum=2)
    delta = check_probability("delta", delta)
    grid_points = check_int("grid_points", grid_points, minimum=2)
    kwargs = {"accounting": accounting, "group": group, "gamma_max": gamma_max}
    thresholds = np.array([blanket_threshold(n, d, s, float(e), delta, **kwargs) for e in levels])
    if m_grid is None:
        lo, hi = float(thresholds.min()), float(thresholds.max())
        if not math.isfinite(hi):
            raise ValueError(f"level {float(levels[0])} cannot reach lambda = 1 with m <= {M_MAX}: give m_grid")
        grid = np.geomspace(lo, hi, grid_points) if hi > lo * (1 + 1e-9) else np.array([lo])
    else:
        grid = check_array("m_grid", m_grid, ndim=1, low=0.0)
        if np.any(grid <= 0):
            raise ValueError("m_grid must hold values > 0")
    lambdas = lambda_grid(grid, n, d, s, levels, delta, thresholds=thresholds, **kwargs)
    bounds = np.array(
        [
            mse_bound(counts, lam, float(m), s) if counts @ lam > 0 else math.inf
            for m, lam in zip(grid, lambdas, strict=False)
        ]
    )
    best = int(np.argmin(bounds))
    m = float(grid[best])
    params = SegmentedParameters(m, tuple(lambdas[best]), slots_for(m, gamma_max))
    return OptimizedParameters(params, float(bounds[best]), thresholds, grid, lambdas, bounds)
