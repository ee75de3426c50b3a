r"""Attacks on Algorithm 2: samplers of worst-case views and their exact likelihood ratios.

Proposition 1's neighbouring datasets: the victim holds item ``0`` (dataset ``D``) or item
``1`` (``D'``); every other user holds neither and sits at a level with ``λ = 1``, so their
messages are known to the adversary and subtracted. What remains is the victim's report and
``N = n · slots`` blanket slots, each sending w.p. ``γ`` an item uniform on ``d``. The
adversary sees the victim's cells ``(U, V)`` and the total ``T`` (:func:`item_view`).

* :func:`item_log_ratio` is the exact log-likelihood ratio ``log P(u, v, t)/Q(u, v, t)``, the
  most powerful test statistic (Neyman–Pearson); its law under ``D`` gives the exact privacy
  profile ``δ(ε) = E_D[(1 − e^{ε − L})_+]`` (:func:`profile_estimate`).
* :func:`pair_log_ratio` is the ratio of the paper's pair, which uses ``(U, V)`` only.
* For a set of ``s`` items (``{0..s−1}`` against ``{s..2s−1}``), :func:`set_view` and
  :func:`set_log_ratio` do the same; the ratio involves the elementary symmetric polynomials
  of the victim's cell counts.

Level leakage: :func:`level_total_pair` is the law of the total count when the victim's data
are known and only her level (hence ``λ``) differs: a lower bound on what round 2 reveals about
the level.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln, logsumexp
from scipy.stats import binom

from .._validation import check_array, check_generator, check_in_range, check_int, check_probability
from ..audit import hockey_stick_estimate
from ..curves import DominatingPair

__all__ = [
    "item_view",
    "item_log_ratio",
    "pair_log_ratio",
    "set_view",
    "set_log_ratio",
    "profile_estimate",
    "level_total_pair",
]


def _check_view(n_slots: int, gamma: float, d: int, lam: float) -> tuple[int, float, int, float]:
    return (
        check_int("n_slots", n_slots, minimum=1),
        check_probability("gamma", gamma, closed_high=True),
        check_int("d", d, minimum=3),
        check_in_range("lam", lam, 0.0, 1.0),
    )


def set_view(
    n_slots: int, gamma: float, d: int, lam: float, s: int, dataset: int, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Draw the adversary's view for a victim with ``s`` items: the ``2s`` victim cells and the total.

    Dataset 0: the victim holds items ``0..s−1``; dataset 1: ``s..2s−1``.

    Returns
    -------
    cells, total
        ``(size, 2s)`` counts of items ``0..2s−1`` and the ``(size,)`` totals.

    Examples
    --------
    >>> import numpy as np
    >>> cells, total = set_view(100, 0.5, 17, 1.0, 2, 0, 3, np.random.default_rng(0))
    >>> cells.shape, bool(np.all(total >= cells.sum(axis=1)))
    ((3, 4), True)
    """
    n_slots, gamma, d, lam = _check_view(n_slots, gamma, d, lam)
    s = check_int("s", s, minimum=1, maximum=d // 2)
    dataset = check_int("dataset", dataset, minimum=0, maximum=1)
    size = check_int("size", size, minimum=1)
    rng = check_generator("rng", rng)
    sent = rng.binomial(n_slots, gamma, size=size)
    probs = np.append(np.full(2 * s, 1.0 / d), 1.0 - 2 * s / d)
    blankets = rng.multinomial(sent, probs)[:, : 2 * s]
    reports = rng.random((size, s)) <= lam
    cells = blankets.copy()
    cells[:, dataset * s : (dataset + 1) * s] += reports
    return cells.astype(np.int64), (sent + reports.sum(axis=1)).astype(np.int64)


def item_view(
    n_slots: int, gamma: float, d: int, lam: float, dataset: int, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Draw ``(U, V, T)`` on Proposition 1's datasets (``dataset`` 0: victim holds item 0).

    Examples
    --------
    >>> import numpy as np
    >>> u, v, t = item_view(1000, 1.0, 17, 1.0, 0, 4, np.random.default_rng(0))
    >>> t.tolist()  # gamma = 1 and lam = 1: every slot and the victim send
    [1001, 1001, 1001, 1001]
    """
    cells, total = set_view(n_slots, gamma, d, lam, 1, dataset, size, rng)
    return cells[:, 0], cells[:, 1], total


def _log_binom_pmf(t: np.ndarray, n: int, p: float) -> np.ndarray:
    with np.errstate(divide="ignore"):  # log(0) = -inf outside the support is intended
        return binom.logpmf(t, n, p)


def set_log_ratio(cells: object, total: object, n_slots: int, gamma: float, d: int, lam: float, s: int) -> np.ndarray:
    """Exact ``log P/Q`` of a view ``(cells, total)`` for a victim with ``s`` items.

    Under dataset 0, ``P(h, t) = M_t(h) Σ_r c_r(t) e_r(h_0, ..., h_{s−1})`` with ``M_t`` the
    multinomial law of ``t`` uniform messages, ``e_r`` the elementary symmetric polynomial and
    ``c_r(t) = λ^r (1 − λ)^{s − r} b(t − r) d^r (t − r)!/t!`` (``b`` the pmf of the number of
    blanket messages); ``Q`` uses the cells ``s..2s−1``.

    Examples
    --------
    >>> import numpy as np
    >>> cells = np.array([[5, 3]]); total = np.array([101])
    >>> round(float(set_log_ratio(cells, total, 100, 1.0, 17, 1.0, 1)[0]), 12) == round(float(np.log(5 / 3)), 12)
    True
    """
    n_slots, gamma, d, lam = _check_view(n_slots, gamma, d, lam)
    s = check_int("s", s, minimum=1, maximum=d // 2)
    h = check_array("cells", cells, ndim=2, low=0, integral=True)
    t = check_array("total", total, ndim=1, low=0, integral=True)
    if h.shape != (t.size, 2 * s):
        raise ValueError(f"cells must have shape (len(total), 2 s) = ({t.size}, {2 * s}), got {h.shape}")
    r = np.arange(s + 1)
    with np.errstate(divide="ignore"):  # log(0) for lam in {0, 1} or empty supports: -inf is intended
        log_c = (r * math.log(lam) if lam > 0 else np.where(r == 0, 0.0, -np.inf)) + (
            (s - r) * math.log1p(-lam) if lam < 1 else np.where(r == s, 0.0, -np.inf)
        )
        log_c = log_c[None, :] + _log_binom_pmf(t[:, None] - r[None, :], n_slots, gamma)
        log_c = log_c + r[None, :] * math.log(d) + gammaln(t[:, None] - r[None, :] + 1) - gammaln(t[:, None] + 1)
        log_c = np.where(t[:, None] - r[None, :] >= 0, log_c, -np.inf)
        num = logsumexp(log_c + _log_elementary(h[:, :s]), axis=1)
        den = logsumexp(log_c + _log_elementary(h[:, s:]), axis=1)
    return num - den


def _log_elementary(x: np.ndarray) -> np.ndarray:
    """``log e_r(x)`` for ``r = 0..k`` (rows of non-negative integers)."""
    k = x.shape[1]
    e = np.zeros((x.shape[0], k + 1))
    e[:, 0] = 1.0
    for j in range(k):
        e[:, 1:] = e[:, 1:] + x[:, j : j + 1] * e[:, :-1]
    with np.errstate(divide="ignore"):  # e_r = 0 (a zero cell) gives -inf, intended
        return np.log(e)


def item_log_ratio(u: object, v: object, t: object, n_slots: int, gamma: float, d: int, lam: float) -> np.ndarray:
    """Exact ``log P/Q`` of the single-item view ``(U, V, T)``.

    Examples
    --------
    >>> import numpy as np
    >>> round(float(item_log_ratio([4], [2], [11], 10, 1.0, 17, 0.5)[0]), 12) == round(float(np.log(2.0)), 12)
    True
    """
    u = np.atleast_1d(np.asarray(u))
    cells = np.stack([u, np.atleast_1d(np.asarray(v))], axis=1)
    return set_log_ratio(cells, t, n_slots, gamma, d, lam, 1)


def pair_log_ratio(u: object, v: object, trials: int, rate: float, lam: float) -> np.ndarray:
    """``log P/Q`` of the paper's pair (the victim's two cells only, ``trials`` blanket slots).

    ``P(u, v)/f(u, v) = 1 − λ + λ κ u/(trials − u − v + 1)`` with ``κ = (1 − 2r)/r``.

    Examples
    --------
    >>> round(float(pair_log_ratio([3], [3], 50, 0.05, 0.5)[0]), 12)
    0.0
    """
    trials = check_int("trials", trials, minimum=0)
    rate = check_in_range("rate", rate, 0.0, 0.5, closed_low=False, closed_high=False)
    lam = check_in_range("lam", lam, 0.0, 1.0)
    u = check_array("u", u, low=0, integral=True)
    v = check_array("v", v, low=0, integral=True)
    kappa = (1.0 - 2.0 * rate) / rate
    free = trials - u - v + 1.0
    with np.errstate(divide="ignore"):  # a zero likelihood gives an infinite ratio, intended
        return np.log(1.0 - lam + lam * kappa * u / free) - np.log(1.0 - lam + lam * kappa * v / free)


def profile_estimate(log_ratio_under_p: object, eps: object) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo estimate of the exact profile ``δ(ε) = E_P[(1 − e^{ε − L})_+]`` and its standard error.

    ``L`` are samples of the exact log-likelihood ratio under ``P``; the estimate is unbiased
    (not a bound): each term lies in ``[0, 1]`` (:func:`shufflelib.audit.hockey_stick_estimate`).

    Examples
    --------
    >>> import numpy as np
    >>> llr = np.log([3.0, 3.0, 3.0, 1 / 3])  # randomized response with probability 3/4, drawn under P
    >>> est, se = profile_estimate(llr, [0.0, np.log(2.0)])
    >>> np.round(est, 6).tolist()
    [0.5, 0.25]
    """
    return hockey_stick_estimate(log_ratio_under_p, eps, drawn_from="p")


def level_total_pair(n_slots: int, gamma: float, s: int, lam_a: float, lam_b: float) -> DominatingPair:
    """The law of the total message count for a victim whose level (``λ_a`` or ``λ_b``) differs.

    The victim's items and everyone else's messages are known to the adversary; the total is
    ``Bin(N, γ) + Bin(s, λ)``. Its privacy curve lower-bounds what round 2 reveals about the
    level (a post-processing of the full view).

    Examples
    --------
    >>> pair = level_total_pair(1000, 1.0, 4, 0.5, 1.0)
    >>> round(pair.delta(10.0), 6)  # gamma = 1: the count reveals the number of reports
    0.9375
    """
    n_slots = check_int("n_slots", n_slots, minimum=0)
    gamma = check_probability("gamma", gamma, closed_high=True)
    s = check_int("s", s, minimum=1)
    lam_a = check_in_range("lam_a", lam_a, 0.0, 1.0)
    lam_b = check_in_range("lam_b", lam_b, 0.0, 1.0)
    if gamma >= 1.0:
        lo = hi = n_slots
    else:
        mean, sd = n_slots * gamma, math.sqrt(n_slots * gamma * (1.0 - gamma))
        lo = int(max(0.0, math.floor(mean - 12.0 * sd - 5.0)))
        hi = int(min(float(n_slots), math.ceil(mean + 12.0 * sd + 40.0)))
    k = np.arange(lo, hi + 1)
    lb = _log_binom_pmf(k, n_slots, gamma)
    outside = float(max(0.0, 1.0 - np.exp(logsumexp(lb))))
    r = np.arange(s + 1)
    totals = np.arange(lo, hi + s + 1)
    logs = []
    for lam in (lam_a, lam_b):
        lr = _log_binom_pmf(r, s, lam)
        grid = lb[:, None] + lr[None, :]
        out = np.full(totals.size, -np.inf)
        idx = (k[:, None] - lo) + r[None, :]
        np.logaddexp.at(out, idx.ravel(), grid.ravel())
        logs.append(out)
    return DominatingPair(logs[0], logs[1], tail_mass=outside + 1e-12)
