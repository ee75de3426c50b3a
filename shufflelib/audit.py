"""Monte Carlo auditing: an empirical *lower* bound on a protocol's ε.

An amplification theorem gives an upper bound on ε; an audit gives a lower
bound, with a stated confidence, from samples of the protocol's output on two
neighbouring datasets ``D`` and ``D'``. The two must sandwich the truth.

The test. Each output is summarised by a scalar score (higher suggests ``D'``,
e.g. the shuffled count of reported 1s). A threshold test rejects ``D`` when
``score >= t`` (direction ``">="``) or when ``score <= t`` (direction ``"<="``).
If the protocol is (ε, δ)-DP, its false and true positive rates
``FPR = P_D[reject]`` and ``TPR = P_D'[reject]`` satisfy both

* ``TPR <= e^ε FPR + δ``            (the rejection event, ``D`` against ``D'``),
* ``1 - FPR <= e^ε (1 - TPR) + δ``  (its complement, ``D'`` against ``D``),

so ``ε >= log((TPR - δ) / FPR)`` and ``ε >= log((1 - FPR - δ) / (1 - TPR))``.

The confidence. Both inequalities only need an upper bound on FPR and a lower
bound on TPR: one-sided Clopper–Pearson (exact binomial) intervals, each at
level ``alpha / 2`` (Bonferroni), hold together with probability at least
``1 - alpha``, and on that event the reported ε is a valid lower bound.

Choosing the test. The threshold and the direction are chosen on the first
``split`` fraction of each sample array, to maximise the same bound there;
the bound is then computed only on the held-out rest, so the choice does not
bias it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from tqdm.auto import tqdm

from ._docstrings import fill_doc
from ._validation import (
    check_array,
    check_generator,
    check_in_range,
    check_int,
    check_nonnegative,
    check_positive,
    check_probability,
)
from .simulation import simulate_binary_rr_counts

__all__ = [
    "AuditResult",
    "audit_scores",
    "audit_protocol",
    "audit_exceedances",
    "clopper_pearson",
    "shuffled_rr_sampler",
    "hockey_stick_estimate",
    "SampleFn",
]

#: ``sample_fn(dataset_index, size, rng)``: ``size`` scalar outputs on ``D`` (0) or ``D'`` (1).
SampleFn = Callable[[int, int, np.random.Generator], np.ndarray]

Direction = Literal[">=", "<="]
DIRECTIONS: tuple[Direction, Direction] = (">=", "<=")

#: At most this many candidate thresholds are scored on the selection split.
MAX_CANDIDATES = 4096
#: ``audit_protocol`` shows a progress bar by default above this many samples (both datasets).
PROGRESS_MIN_SAMPLES = 1_000_000


@dataclass(frozen=True)
class AuditResult:
    """Outcome of an audit: a lower bound on ε at confidence ``1 - alpha``.

    Returned by :func:`audit_scores` (and :func:`audit_protocol`, which draws the scores).

    Attributes
    ----------
    epsilon
        The lower bound on ε (``>= 0``) at the given ``delta``.
    delta
        The δ at which ε is bounded.
    alpha
        Significance level: the bound holds with probability at least ``1 - alpha``.
    threshold
        Threshold ``t`` of the chosen test.
    direction
        ``">="`` (reject ``D`` when ``score >= t``) or ``"<="`` (when ``score <= t``).
    tpr_interval
        One-sided Clopper–Pearson interval ``(lower, 1.0)`` on ``TPR = P_D'[reject]``
        (level ``alpha / 2``, held-out samples).
    fpr_interval
        One-sided Clopper–Pearson interval ``(0.0, upper)`` on ``FPR = P_D[reject]``
        (level ``alpha / 2``, held-out samples).
    n_samples
        Total number of samples audited (both datasets, selection and held-out parts).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> res = audit_scores(rng.normal(0, 1, 5_000), rng.normal(1, 1, 5_000), delta=1e-3)
    >>> res.direction, res.tpr_interval[1], res.fpr_interval[0], res.n_samples
    ('>=', 1.0, 0.0, 10000)
    """

    epsilon: float
    delta: float
    alpha: float
    threshold: float
    direction: Direction
    tpr_interval: tuple[float, float]
    fpr_interval: tuple[float, float]
    n_samples: int


def audit_scores(
    scores_0: np.ndarray, scores_1: np.ndarray, delta: float, *, alpha: float = 0.05, split: float = 0.5
) -> AuditResult:
    """Lower-bound ε from scores of a protocol's outputs on two neighbouring datasets.

    Parameters
    ----------
    scores_0, scores_1
        1-D arrays of i.i.d. scores of outputs on ``D`` and on ``D'`` (higher
        suggests ``D'``; the reverse direction is tried too). The split is
        positional, so the arrays must be in sampling order, not sorted.
    delta
        The δ at which ε is bounded, in ``[0, 1)``.
    alpha
        Significance level in ``(0, 1)``: the bound holds with probability at
        least ``1 - alpha`` (``alpha / 2`` for each one-sided interval).
    split
        Fraction in ``(0, 1)`` of each array (its first part) used to choose the
        threshold and direction; the bound is computed on the rest.

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> import math
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s0 = rng.binomial(1, 0.25, size=20_000)   # a 1-bit randomized response,
    >>> s1 = rng.binomial(1, 0.75, size=20_000)   # eps0 = log 3 ~ 1.0986
    >>> res = audit_scores(s0, s1, delta=0.0)
    >>> 0.9 < res.epsilon < math.log(3), res.direction
    (True, '>=')
    """
    s0 = check_array("scores_0", scores_0, ndim=1)
    s1 = check_array("scores_1", scores_1, ndim=1)
    delta = check_in_range("delta", delta, 0.0, 1.0, closed_high=False)
    alpha = check_probability("alpha", alpha)
    split = check_probability("split", split)
    cut0, cut1 = _split_point("scores_0", s0.size, split), _split_point("scores_1", s1.size, split)

    level = alpha / 2.0
    threshold, direction = _choose_test(s0[:cut0], s1[:cut1], delta, level)
    held0, held1 = s0[cut0:], s1[cut1:]
    fp = _rejections(np.sort(held0), np.array([threshold]), direction)
    tp = _rejections(np.sort(held1), np.array([threshold]), direction)
    fpr_hi = _cp_upper(fp, held0.size, level)
    tpr_lo = _cp_lower(tp, held1.size, level)
    eps = _eps_lower(tpr_lo, fpr_hi, delta)
    return AuditResult(
        epsilon=float(eps[0]),
        delta=delta,
        alpha=alpha,
        threshold=float(threshold),
        direction=direction,
        tpr_interval=(float(tpr_lo[0]), 1.0),
        fpr_interval=(0.0, float(fpr_hi[0])),
        n_samples=int(s0.size + s1.size),
    )


def audit_protocol(
    sample_fn: SampleFn,
    n_trials: int,
    delta: float,
    rng: np.random.Generator,
    *,
    alpha: float = 0.05,
    split: float = 0.5,
    batch_size: int = 100_000,
    progress: bool | None = None,
) -> AuditResult:
    """Sample a protocol on ``D`` and ``D'`` and audit it with :func:`audit_scores`.

    Parameters
    ----------
    sample_fn
        ``sample_fn(dataset_index, size, rng)`` returns ``size`` i.i.d. scalar
        scores of the protocol's output on ``D`` (``dataset_index=0``) or ``D'``
        (``1``), drawing randomness only from ``rng``.
    n_trials
        Number of samples per dataset, an integer >= 2.
    delta
        The δ at which ε is bounded, in ``[0, 1)``.
    rng
        The random generator passed to ``sample_fn``.
    alpha, split
        As in :func:`audit_scores`.
    batch_size
        Samples drawn per call of ``sample_fn`` (bounds the memory of one call).
    progress
        Show a ``tqdm`` progress bar; by default only for more than
        ``PROGRESS_MIN_SAMPLES`` samples in total.

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> import numpy as np
    >>> sample = shuffled_rr_sampler(n=10, eps0=2.0, others_ones=0)
    >>> res = audit_protocol(sample, 20_000, 1e-3, np.random.default_rng(1))
    >>> res.n_samples, res.epsilon > 0
    (40000, True)
    """
    if not callable(sample_fn):
        raise ValueError(f"sample_fn must be callable, got {type(sample_fn).__name__}")
    n_trials = check_int("n_trials", n_trials, minimum=2)
    delta = check_in_range("delta", delta, 0.0, 1.0, closed_high=False)
    rng = check_generator("rng", rng)
    alpha = check_probability("alpha", alpha)
    split = check_probability("split", split)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    if progress is None:
        progress = 2 * n_trials > PROGRESS_MIN_SAMPLES
    elif not isinstance(progress, bool):
        raise ValueError(f"progress must be True, False or None, got {progress!r}")

    chunks: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
    with tqdm(total=2 * n_trials, disable=not progress, unit="sample", desc="audit") as bar:
        for start in range(0, n_trials, batch_size):
            size = min(batch_size, n_trials - start)
            for index in (0, 1):
                chunks[index].append(_draw(sample_fn, index, size, rng))
                bar.update(size)
    return audit_scores(np.concatenate(chunks[0]), np.concatenate(chunks[1]), delta, alpha=alpha, split=split)


def audit_exceedances(
    sample_fn: SampleFn,
    true_eps: float,
    n_trials: int,
    delta: float,
    seeds: Iterable[int],
    *,
    alpha: float = 0.05,
) -> tuple[int, int]:
    """How many audits, one per seed, return a lower bound above the true ε (the promise: rate <= α).

    Each audit is :func:`audit_protocol` with ``numpy.random.default_rng(seed)``.

    Returns
    -------
    tuple of int
        The number of audits with ``epsilon > true_eps``, and the number of seeds.

    Examples
    --------
    >>> sample = shuffled_rr_sampler(n=20, eps0=2.0, others_ones=0)
    >>> audit_exceedances(sample, 2.0, 1_000, 1e-2, range(5))
    (0, 5)
    """
    true_eps = check_nonnegative("true_eps", true_eps)
    seeds = [check_int("seed", s, minimum=0) for s in seeds]
    above = sum(
        audit_protocol(sample_fn, n_trials, delta, np.random.default_rng(s), alpha=alpha).epsilon > true_eps
        for s in seeds
    )
    return int(above), len(seeds)


def _beta_ppf(q: object, a: object, b: object) -> np.ndarray:
    """``scipy.stats.beta.ppf(q, a, b)``, imported on first use: the modules that import this one for
    ``SampleFn`` (the population bounds, at the calculator's start-up) do not pay for :mod:`scipy.stats`."""
    from scipy.stats import beta

    return beta.ppf(q, a, b)


def clopper_pearson(k: int, m: int, level: float = 0.95) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval on a probability from ``k`` successes in ``m`` trials.

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 300)
    >>> lo, round(hi, 4)
    (0.0, 0.0122)
    """
    m = check_int("m", m, minimum=1)
    k = check_int("k", k, minimum=0, maximum=m)
    level = check_probability("level", level)
    tail = (1.0 - level) / 2.0
    lo = float(_beta_ppf(tail, k, m - k + 1)) if k > 0 else 0.0
    hi = float(_beta_ppf(1.0 - tail, k + 1, m - k)) if k < m else 1.0
    return lo, hi


@fill_doc
def shuffled_rr_sampler(n: int, eps0: float, others_ones: int) -> SampleFn:
    """Sampler of the shuffled count of 1s of binary randomized response.

    ``D``: user 1 holds 0 and ``others_ones`` of the other ``n - 1`` users hold
    1; ``D'``: the same but user 1 holds 1. After shuffling, binary randomized
    response reveals exactly the count of reported 1s, which is drawn through
    its sufficient statistic
    (:func:`shufflelib.simulation.simulate_binary_rr_counts`), in time
    independent of ``n``.

    Parameters
    ----------
    %(n)s
    eps0
        Local privacy parameter of binary randomized response, > 0.
    others_ones
        Number of users other than user 1 holding 1, in ``[0, n - 1]``.

    Returns
    -------
    SampleFn
        ``sample_fn(dataset_index, size, rng)`` for :func:`audit_protocol`.

    Examples
    --------
    >>> import numpy as np
    >>> sample = shuffled_rr_sampler(n=100, eps0=1.0, others_ones=30)
    >>> counts = sample(1, 5, np.random.default_rng(0))
    >>> counts.shape, bool(((0 <= counts) & (counts <= 100)).all())
    ((5,), True)
    """
    n = check_int("n", n, minimum=2)
    eps0 = check_positive("eps0", eps0)
    others_ones = check_int("others_ones", others_ones, minimum=0, maximum=n - 1)

    def sample_fn(dataset_index: int, size: int, rng: np.random.Generator) -> np.ndarray:
        dataset_index = check_int("dataset_index", dataset_index, minimum=0, maximum=1)
        return simulate_binary_rr_counts(others_ones + dataset_index, n, eps0, size, rng)

    return sample_fn


# ---------------------------------------------------------------- internals
def hockey_stick_estimate(log_ratio: object, eps: object, *, drawn_from: str = "p") -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo estimate of ``H_{e^ε}(P‖Q)`` from draws of the exact ``L = log(dP/dQ)``, and its standard error.

    Draws under ``P`` (``drawn_from="p"``): ``E_P[(1 − e^{ε − L})^+]``, each term in ``[0, 1]``;
    draws under ``Q``: ``E_Q[(e^L − e^ε)^+]`` (``L`` capped at 700). The estimate is unbiased,
    not a bound; ``estimate ± z·se`` is a normal-approximation interval. The one Monte Carlo
    δ estimate of the library (the personalized and segmented chapters use it).

    Parameters
    ----------
    log_ratio
        1-D draws of ``log(dP/dQ)`` (``+inf`` allowed under ``P``: an atom ``Q`` lacks).
    eps
        ε values (>= 0).
    drawn_from
        ``"p"`` or ``"q"``: the distribution the draws come from.

    Returns
    -------
    estimate, se
        Arrays over ``eps``.

    Examples
    --------
    >>> import numpy as np
    >>> est, se = hockey_stick_estimate(np.array([np.log(3.0)] * 3 + [-np.log(3.0)]), [0.0])
    >>> round(float(est[0]), 6)  # randomized response with probability 3/4: TV = 1/2
    0.5
    """
    if drawn_from not in ("p", "q"):
        raise ValueError(f"drawn_from must be 'p' or 'q', got {drawn_from!r}")
    raw = np.asarray(log_ratio, dtype=float)
    llr = check_array("log_ratio", np.where(np.isposinf(raw), 1e300, raw), ndim=1)
    if llr.size < 2:
        raise ValueError("log_ratio must hold at least 2 draws")
    e = np.atleast_1d(check_array("eps", eps, low=0.0)).ravel()
    if drawn_from == "p":
        terms = np.maximum(0.0, -np.expm1(np.minimum(e[:, None] - llr[None, :], 700.0)))
    else:
        terms = np.maximum(np.exp(np.minimum(llr, 700.0))[None, :] - np.exp(e)[:, None], 0.0)
    return terms.mean(axis=1), terms.std(axis=1, ddof=1) / math.sqrt(llr.size)


def _split_point(name: str, size: int, split: float) -> int:
    cut = int(math.floor(split * size))
    if cut < 1 or cut >= size:
        raise ValueError(
            f"{name} must have enough samples for both parts of split={split} "
            f"(at least one sample each), got {size} samples"
        )
    return cut


def _draw(sample_fn: SampleFn, index: int, size: int, rng: np.random.Generator) -> np.ndarray:
    out = check_array("sample_fn output", sample_fn(index, size, rng), ndim=1)
    if out.size != size:
        raise ValueError(f"sample_fn must return {size} scores, got {out.size}")
    return out


def _rejections(sorted_scores: np.ndarray, thresholds: np.ndarray, direction: Direction) -> np.ndarray:
    """Number of scores in the rejection region of each threshold."""
    if direction == ">=":
        return sorted_scores.size - np.searchsorted(sorted_scores, thresholds, side="left")
    return np.searchsorted(sorted_scores, thresholds, side="right")


def _cp_upper(k: np.ndarray, m: int, level: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper bound on p from ``k`` successes in ``m`` trials."""
    inner = _beta_ppf(1.0 - level, k + 1, np.maximum(m - k, 1))
    return np.where(k < m, inner, 1.0)


def _cp_lower(k: np.ndarray, m: int, level: float) -> np.ndarray:
    """One-sided Clopper–Pearson lower bound on p from ``k`` successes in ``m`` trials."""
    inner = _beta_ppf(level, np.maximum(k, 1), m - k + 1)
    return np.where(k > 0, inner, 0.0)


def _eps_lower(tpr_lo: np.ndarray, fpr_hi: np.ndarray, delta: float) -> np.ndarray:
    """``max(log((TPR-δ)/FPR), log((1-FPR-δ)/(1-TPR)), 0)``, each term only where defined.

    ``fpr_hi > 0`` and ``tpr_lo < 1`` always hold for Clopper–Pearson bounds, so
    only the numerators need guarding.
    """
    eps = np.zeros(np.broadcast(tpr_lo, fpr_hi).shape)
    for num, den in ((tpr_lo - delta, fpr_hi), (1.0 - fpr_hi - delta, 1.0 - tpr_lo)):
        ok = num > 0
        eps[ok] = np.maximum(eps[ok], np.log(num[ok] / den[ok]))
    return eps


def _candidates(pooled: np.ndarray) -> np.ndarray:
    """Candidate thresholds: every distinct score, or, if too many, ranks spaced
    geometrically from both ends (the tails are where small FPRs live)."""
    values = np.unique(pooled)
    if values.size <= MAX_CANDIDATES:
        return values
    ranks = np.geomspace(1, values.size, MAX_CANDIDATES // 2).astype(np.int64) - 1
    return np.unique(np.concatenate([values[ranks], values[values.size - 1 - ranks]]))


def _choose_test(sel0: np.ndarray, sel1: np.ndarray, delta: float, level: float) -> tuple[float, Direction]:
    """Threshold and direction maximising the ε lower bound on the selection split.

    Ties (e.g. all bounds 0 on small samples) are broken by the empirical
    ``TPR - FPR``.
    """
    sorted0, sorted1 = np.sort(sel0), np.sort(sel1)
    thresholds = _candidates(np.concatenate([sorted0, sorted1]))
    bounds, advantages = [], []
    for direction in DIRECTIONS:
        fp = _rejections(sorted0, thresholds, direction)
        tp = _rejections(sorted1, thresholds, direction)
        eps = _eps_lower(_cp_lower(tp, sorted1.size, level), _cp_upper(fp, sorted0.size, level), delta)
        bounds.append(eps)
        advantages.append(tp / sorted1.size - fp / sorted0.size)
    best = np.lexsort((np.concatenate(advantages), np.concatenate(bounds)))[-1]
    which, index = divmod(int(best), thresholds.size)
    return float(thresholds[index]), DIRECTIONS[which]
