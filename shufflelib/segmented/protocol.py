r"""Algorithm 2: segmented set-valued frequency estimation with Poisson reports and blanket messages.

Every user holds a set of ``s`` distinct items out of ``d`` and has chosen a privacy level
``k``. Round 1 gives the server the level histogram ``(n_1, ..., n_K)`` (:func:`level_histogram`).
The server fixes ``m`` (expected blanket messages per user) and one reporting probability
``λ_k`` per level (:class:`SegmentedParameters`). In round 2 each user

* sends each of her items with probability ``λ_k`` (the Poisson randomizer, Eq. (2)), and
* runs ``slots`` blanket slots (``⌈m⌉`` in the paper); each sends, with probability
  ``γ = m/slots``, an item uniform on the ``d`` items.

The shuffler mixes all messages; the analyzer counts each item, ``C_j``, and returns
``Ŵ_j = (C_j − n m / d) / Σ_k n̂_k λ_k`` (line 21).

Two simulators draw the same law: :func:`run_protocol` runs Algorithm 2 message by message;
:func:`simulate_counts` draws the counts directly from their sufficient statistics
(``C_j = Σ_k Bin(c_{kj}, λ_k) + B_j`` with ``c_{kj}`` the number of level-``k`` users holding
item ``j`` and ``B ~ Multinomial(Bin(n·slots, γ), uniform)``), in time independent of ``n``.

Exact moments (data fixed, level histogram exact), with ``S = Σ_k n_k λ_k``:

* ``E[Ŵ_j | X] = Σ_k λ_k c_{kj} / S``: a **λ-weighted empirical frequency**
  (:func:`estimator_target`), equal to the population frequency ``w_j`` on average only if the
  data do not depend on the level choice;
* ``Σ_j Var[Ŵ_j | X] = (s Σ_k n_k λ_k (1 − λ_k) + n m (1 − γ/d)) / S^2``;
* with i.i.d. data independent of the levels, the mean squared error is
  ``(n m (1 − γ/d) + s S − Σ_k n_k λ_k^2 Σ_j w_j^2) / S^2`` (:func:`expected_mse`), below the
  paper's bound ``(n m + s S) / S^2`` (:func:`mse_bound`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._docstrings import fill_doc
from .._validation import SIZE_MAX, check_array, check_generator, check_in_range, check_int, check_positive
from ..shuffler import shuffle
from .variation_ratio import slot_count

__all__ = [
    "SegmentedParameters",
    "level_histogram",
    "randomize_users",
    "run_protocol",
    "estimate_frequencies",
    "simulate_counts",
    "estimator_target",
    "conditional_variance",
    "expected_mse",
    "mse_bound",
]


@dataclass(frozen=True)
class SegmentedParameters:
    """What the server broadcasts after round 1: ``m``, the ``λ_k`` and the slots per user.

    Chosen by :func:`~shufflelib.segmented.optimize.optimize_parameters`.

    Parameters
    ----------
    m
        Expected number of blanket messages per user, > 0.
    lambdas
        Reporting probability of each level, in ``[0, 1]``.
    slots
        Blanket slots per user (default ``⌈m⌉``, Algorithm 2); an integer >= ``m``.

    Examples
    --------
    >>> p = SegmentedParameters(1.5, (0.5, 0.9, 1.0))
    >>> p.slots, p.gamma, p.levels
    (2, 0.75, 3)
    """

    m: float
    lambdas: tuple[float, ...]
    slots: int | None = None

    def __post_init__(self) -> None:
        m = check_positive("m", self.m)
        lambdas = check_array("lambdas", self.lambdas, ndim=1, low=0.0, high=1.0)
        if lambdas.size == 0:
            raise ValueError("lambdas must hold one reporting probability per level (at least one)")
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "lambdas", tuple(float(v) for v in lambdas))
        object.__setattr__(self, "slots", slot_count(m, self.slots))

    @property
    def gamma(self) -> float:
        """Probability that a slot sends its blanket message, ``m / slots``."""
        return min(1.0, self.m / self.slots)

    @property
    def levels(self) -> int:
        """Number of privacy levels ``K``."""
        return len(self.lambdas)


def _check_level_counts(level_counts: object, levels: int) -> np.ndarray:
    counts = check_array("level_counts", level_counts, ndim=1, low=0, integral=True)
    if counts.size != levels:
        raise ValueError(f"level_counts must have one entry per level ({levels}), got {counts.size}")
    if counts.sum() < 1:
        raise ValueError("level_counts must sum to n >= 1")
    return counts


def level_histogram(
    levels: object, n_levels: int, *, eps_p: float | None = None, rng: np.random.Generator | None = None
) -> np.ndarray:
    """Round 1: the server's view of the level choices, exact or with discrete Laplace noise.

    With plain shuffling (``eps_p=None``, the paper's experiments) the server learns the exact
    histogram. With ``eps_p`` each count gets independent two-sided geometric noise of
    parameter ``e^{-eps_p/2}`` (one user changing level moves two counts by one), an
    ``eps_p``-DP histogram; the counts are unbiased but may be negative.

    Parameters
    ----------
    levels
        1-D array of level indices in ``0..n_levels − 1``, one per user.
    n_levels
        Number of levels ``K``, an integer >= 1.
    eps_p
        Privacy parameter of the noisy histogram (> 0), or ``None``.
    rng
        Random generator (required with ``eps_p``).

    Returns
    -------
    numpy.ndarray
        The (noisy) counts ``n̂_k``, as floats.

    Examples
    --------
    >>> level_histogram([0, 2, 2, 1], 3).tolist()
    [1.0, 1.0, 2.0]
    """
    n_levels = check_int("n_levels", n_levels, minimum=1)
    levels = check_array("levels", levels, ndim=1, low=0, high=n_levels - 1, integral=True).astype(np.int64)
    counts = np.bincount(levels, minlength=n_levels).astype(float)
    if eps_p is None:
        return counts
    eps_p = check_positive("eps_p", eps_p)
    rng = check_generator("rng", rng)
    q = math.exp(-eps_p / 2.0)
    noise = rng.geometric(1.0 - q, size=n_levels) - rng.geometric(1.0 - q, size=n_levels)
    return counts + noise


@fill_doc
def randomize_users(
    sets: object, levels: object, params: SegmentedParameters, d: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Algorithm 2, lines 7–17: each user's messages (before shuffling).

    Parameters
    ----------
    sets
        ``(n, s)`` array of item ids in ``0..d − 1`` (distinct within a row).
    levels
        Level index of each user.
    %(broadcast_params)s %(d)s %(rng)s

    Returns
    -------
    list of numpy.ndarray
        ``M_i`` for each user: her reported items, then her blanket messages.

    Examples
    --------
    >>> import numpy as np
    >>> params = SegmentedParameters(1.0, (1.0,))
    >>> out = randomize_users([[0, 1], [2, 3]], [0, 0], params, 5, np.random.default_rng(0))
    >>> [len(msgs) for msgs in out]  # lambda = 1 and m = 1: both items and one blanket each
    [3, 3]
    """
    d = check_int("d", d, minimum=2)
    items = check_array("sets", sets, ndim=2, low=0, high=d - 1, integral=True).astype(np.int64)
    lv = check_array("levels", levels, ndim=1, low=0, high=params.levels - 1, integral=True).astype(np.int64)
    if lv.size != items.shape[0]:
        raise ValueError(f"levels must have one entry per user ({items.shape[0]}), got {lv.size}")
    rng = check_generator("rng", rng)
    lam = np.asarray(params.lambdas)[lv]
    keep = rng.random(items.shape) <= lam[:, None]  # lines 9-12: each item w.p. lambda_{k_i}
    active = rng.random((items.shape[0], params.slots)) <= params.gamma  # lines 13-16
    blankets = rng.integers(0, d, size=active.shape)
    return [np.concatenate([items[i][keep[i]], blankets[i][active[i]]]) for i in range(items.shape[0])]


def run_protocol(
    sets: object, levels: object, params: SegmentedParameters, d: int, rng: np.random.Generator
) -> np.ndarray:
    """Algorithm 2, lines 7–18: all users' messages, shuffled (the server's view).

    Examples
    --------
    >>> import numpy as np
    >>> params = SegmentedParameters(0.5, (0.5, 1.0))
    >>> msgs = run_protocol([[0, 1], [2, 3], [1, 4]], [0, 1, 1], params, 5, np.random.default_rng(1))
    >>> msgs.ndim, bool(np.all((0 <= msgs) & (msgs < 5)))
    (1, True)
    """
    per_user = randomize_users(sets, levels, params, d, rng)
    return shuffle(np.concatenate(per_user) if per_user else np.zeros(0, dtype=np.int64), rng)


@fill_doc
def estimate_frequencies(counts: object, n: int, params: SegmentedParameters, level_counts: object) -> np.ndarray:
    """Algorithm 2, line 21: ``Ŵ_j = (C_j − n m / d) / Σ_k n̂_k λ_k``.

    Parameters
    ----------
    counts
        Item counts ``C`` of the shuffled messages: shape ``(d,)`` or ``(runs, d)``.
    %(n_users)s %(broadcast_params)s
    level_counts
        The server's level histogram ``n̂`` (exact or noisy), one entry per level.

    Returns
    -------
    numpy.ndarray
        Estimated item frequencies (not projected: entries may be negative).

    Examples
    --------
    >>> est = estimate_frequencies([3, 1], 2, SegmentedParameters(1.0, (1.0,)), [2])
    >>> est.tolist()  # (C - n m / d) / (n * 1)
    [1.0, 0.0]
    """
    n = check_int("n", n, minimum=1)
    c = check_array("counts", counts, low=0)
    if c.ndim not in (1, 2):
        raise ValueError(f"counts must be a 1- or 2-dimensional array, got shape {c.shape}")
    nk = check_array("level_counts", level_counts, ndim=1)
    if nk.size != params.levels:
        raise ValueError(f"level_counts must have one entry per level ({params.levels}), got {nk.size}")
    total = float(np.dot(nk, params.lambdas))
    if not total > 0:
        raise ValueError(f"sum_k level_counts[k] * lambdas[k] must be > 0, got {total!r}")
    d = c.shape[-1]
    return (c - n * params.m / d) / total


@fill_doc
def simulate_counts(
    holders: object, n: int, params: SegmentedParameters, rng: np.random.Generator, size: int | None = None
) -> np.ndarray:
    """Draw the item counts ``C`` of Algorithm 2 from their sufficient statistics.

    ``C_j = Σ_k Bin(c_{kj}, λ_k) + B_j`` with ``B ~ Multinomial(N, uniform)`` and
    ``N ~ Bin(n · slots, γ)`` blanket messages: the same law as :func:`run_protocol` followed
    by counting, in time independent of ``n``.

    Parameters
    ----------
    holders
        ``c[k, j]``: number of level-``k`` users holding item ``j``; shape ``(K, d)``, or
        ``(runs, K, d)`` for one dataset per run.
    n
        Number of users (all levels), an integer >= 1.
    %(broadcast_params)s %(rng)s
    size
        Number of runs for 2-D ``holders`` (default: one run, result of shape ``(d,)``).

    Returns
    -------
    numpy.ndarray
        ``int64`` counts, shape ``(d,)`` or ``(runs, d)``.

    Examples
    --------
    >>> import numpy as np
    >>> holders = np.array([[10, 0, 5], [0, 20, 5]])
    >>> c = simulate_counts(holders, 20, SegmentedParameters(1.0, (0.5, 1.0)), np.random.default_rng(0), 4)
    >>> c.shape
    (4, 3)
    """
    n = check_int("n", n, minimum=1)
    h = check_array("holders", holders, low=0, integral=True).astype(np.int64)
    rng = check_generator("rng", rng)
    if h.ndim == 2:
        runs = 1 if size is None else check_int("size", size, minimum=1, maximum=SIZE_MAX)
        h = np.broadcast_to(h, (runs, *h.shape))
        squeeze = size is None
    elif h.ndim == 3:
        if size is not None and size != h.shape[0]:
            raise ValueError(f"size must be None or equal to holders.shape[0] = {h.shape[0]}, got {size!r}")
        runs, squeeze = h.shape[0], False
    else:
        raise ValueError(f"holders must be a 2- or 3-dimensional array, got shape {h.shape}")
    if h.shape[1] != params.levels:
        raise ValueError(f"holders must have one row per level ({params.levels}), got {h.shape[1]}")
    d = h.shape[2]
    if d < 2:
        raise ValueError(f"holders must describe d >= 2 items, got {d}")
    lam = np.asarray(params.lambdas)[None, :, None]
    reports = rng.binomial(h, lam).sum(axis=1)
    sent = rng.binomial(n * params.slots, params.gamma, size=runs)
    blankets = rng.multinomial(sent, np.full(d, 1.0 / d))
    out = (reports + blankets).astype(np.int64)
    return out[0] if squeeze else out


def estimator_target(holders: object, lambdas: object, level_counts: object) -> np.ndarray:
    """``E[Ŵ | X] = Σ_k λ_k c_{kj} / Σ_k n_k λ_k``: the λ-weighted empirical frequency.

    Parameters
    ----------
    holders
        ``c[k, j]``: number of level-``k`` users holding item ``j``, shape ``(K, d)``.
    lambdas
        Reporting probability of each level.
    level_counts
        Users per level, ``n_k``.

    Returns
    -------
    numpy.ndarray
        The frequency vector the estimator is unbiased for, given the data.

    Examples
    --------
    >>> estimator_target([[2, 0], [0, 2]], [0.5, 1.0], [2, 2]).tolist()
    [0.3333333333333333, 0.6666666666666666]
    """
    h = check_array("holders", holders, ndim=2, low=0)
    lam = check_array("lambdas", lambdas, ndim=1, low=0.0, high=1.0)
    if lam.size != h.shape[0]:
        raise ValueError(f"lambdas must have one entry per row of holders ({h.shape[0]}), got {lam.size}")
    nk = _check_level_counts(level_counts, lam.size)
    total = float(nk @ lam)
    if not total > 0:
        raise ValueError("sum_k n_k lambda_k must be > 0")
    return (lam @ h) / total


def conditional_variance(level_counts: object, params: SegmentedParameters, d: int, s: int) -> float:
    """``Σ_j Var[Ŵ_j | X]``, exact for a fixed dataset and an exact level histogram.

    ``(s Σ_k n_k λ_k (1 − λ_k) + n m (1 − γ/d)) / (Σ_k n_k λ_k)^2``.

    Examples
    --------
    >>> round(conditional_variance([1000], SegmentedParameters(1.0, (1.0,)), 10, 2), 10)
    0.0009
    """
    nk = _check_level_counts(level_counts, params.levels)
    d = check_int("d", d, minimum=2)
    s = check_int("s", s, minimum=1)
    lam = np.asarray(params.lambdas)
    total = float(nk @ lam)
    if not total > 0:
        raise ValueError("sum_k n_k lambda_k must be > 0")
    n = float(nk.sum())
    return (s * float(nk @ (lam * (1.0 - lam))) + n * params.m * (1.0 - params.gamma / d)) / total**2


@fill_doc
def expected_mse(level_counts: object, params: SegmentedParameters, d: int, s: int, sum_sq: float) -> float:
    """Exact mean squared error ``E Σ_j (Ŵ_j − w_j)^2`` for i.i.d. data independent of the levels.

    ``(n m (1 − γ/d) + s S − Σ_k n_k λ_k^2 Σ_j w_j^2) / S^2`` with ``S = Σ_k n_k λ_k``.

    Parameters
    ----------
    level_counts
        Users per level (exact).
    %(broadcast_params)s %(d)s %(s)s
    sum_sq
        ``Σ_j w_j^2`` of the population item frequencies, in ``[0, s]``.

    Examples
    --------
    >>> p = SegmentedParameters(1.0, (1.0,))
    >>> round(expected_mse([1000], p, 10, 2, 0.4), 10)  # (1000*0.9 + 2000 - 400) / 1000^2
    0.0025
    """
    nk = _check_level_counts(level_counts, params.levels)
    d = check_int("d", d, minimum=2)
    s = check_int("s", s, minimum=1)
    sum_sq = check_in_range("sum_sq", sum_sq, 0.0, float(s))
    lam = np.asarray(params.lambdas)
    total = float(nk @ lam)
    if not total > 0:
        raise ValueError("sum_k n_k lambda_k must be > 0")
    n = float(nk.sum())
    blanket = n * params.m * (1.0 - params.gamma / d)
    return (blanket + s * total - float(nk @ lam**2) * sum_sq) / total**2


def mse_bound(level_counts: object, lambdas: object, m: float, s: int) -> float:
    """The paper's MSE bound ``(n m + s S) / S^2``, ``S = Σ_k n_k λ_k`` (Section 5.2).

    Examples
    --------
    >>> mse_bound([1000], [1.0], 1.0, 2)
    0.003
    """
    lam = check_array("lambdas", lambdas, ndim=1, low=0.0, high=1.0)
    nk = _check_level_counts(level_counts, lam.size)
    m = check_positive("m", m)
    s = check_int("s", s, minimum=1)
    total = float(nk @ lam)
    if not total > 0:
        raise ValueError("sum_k n_k lambda_k must be > 0")
    return (float(nk.sum()) * m + s * total) / total**2
