r"""Differential privacy as hypothesis testing: what one test proves about ε.

An observer of a mechanism's output tests the hypothesis "the input was ``D``"
against "it was the neighbour ``D'``" by rejecting ``D`` on a set ``S`` of
outputs. Its false positive rate is ``FPR = P_D[S]`` and its true positive
rate ``TPR = P_D'[S]``. If the mechanism is (ε, δ)-DP, the definition applied
to ``S`` (``D'`` against ``D``) and to its complement (``D`` against ``D'``) gives

.. math::

    \mathrm{TPR} \le e^{\varepsilon}\,\mathrm{FPR} + \delta, \qquad
    1 - \mathrm{FPR} \le e^{\varepsilon}\,(1 - \mathrm{TPR}) + \delta,

so every test certifies the lower bound :func:`epsilon_from_rates`. The Monte
Carlo auditor (:mod:`shufflelib.audit`) applies it to *estimated* rates; this
module holds the exact version, and the exact law of the shuffled count of
binary randomized response on which the book checks it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import binom

from ._docstrings import fill_doc
from ._validation import check_array, check_in_range, check_int, check_positive

__all__ = ["epsilon_from_rates", "shuffled_rr_count_pmfs", "threshold_test_rates"]


def epsilon_from_rates(tpr: float | np.ndarray, fpr: float | np.ndarray, delta: float) -> float | np.ndarray:
    """Smallest ε for which a test with these error rates is compatible with (ε, δ)-DP.

    Returns ``max(0, log((TPR − δ)/FPR), log((1 − FPR − δ)/(1 − TPR)))``, each
    logarithm counted only where its numerator is positive; a positive
    numerator over a zero denominator gives ``inf`` (no finite ε is compatible).

    Parameters
    ----------
    tpr, fpr
        True and false positive rates of one test (numbers or arrays of equal
        shape, entries in ``[0, 1]``).
    delta
        The δ of the guarantee, in ``[0, 1)``.

    Returns
    -------
    float or numpy.ndarray
        The lower bound on ε (``>= 0``, possibly ``inf``), shaped like the rates.

    Examples
    --------
    >>> import math
    >>> round(epsilon_from_rates(0.3, 0.01, 1e-3), 4), round(math.log(0.299 / 0.01), 4)
    (3.3979, 3.3979)
    >>> round(epsilon_from_rates(0.99, 0.5, 0.0), 4), round(math.log(0.5 / 0.01), 4)  # the complement
    (3.912, 3.912)
    >>> epsilon_from_rates(0.2, 0.3, 0.0)                          # a useless test proves nothing
    0.0
    """
    scalar = np.ndim(tpr) == 0 and np.ndim(fpr) == 0
    t = check_array("tpr", tpr, low=0.0, high=1.0)
    f = check_array("fpr", fpr, low=0.0, high=1.0)
    if t.shape != f.shape:
        raise ValueError(f"tpr and fpr must have the same shape, got {t.shape} and {f.shape}")
    delta = check_in_range("delta", delta, 0.0, 1.0, closed_high=False)
    eps = np.zeros(t.shape)
    for num, den in ((t - delta, f), (1.0 - f - delta, 1.0 - t)):
        pos = num > 0
        finite = pos & (den > 0)
        eps[pos & (den <= 0)] = math.inf
        eps[finite] = np.maximum(eps[finite], np.log(num[finite] / den[finite]))
    return float(eps) if scalar else eps


@fill_doc
def shuffled_rr_count_pmfs(n: int, eps0: float, others_ones: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact laws of the shuffled count of 1s of binary randomized response on two neighbours.

    ``D``: user 1 holds 0 and ``others_ones`` of the other ``n − 1`` users hold 1;
    ``D'``: the same with user 1 holding 1. Each user keeps their bit with
    probability ``p = e^{eps0}/(e^{eps0}+1)``; the shuffled reports reveal
    exactly the count of 1s, distributed as ``Bin(others_ones, p) + Bin(n − 1 −
    others_ones, 1 − p)`` plus user 1's report (``Bern(1 − p)`` on ``D``,
    ``Bern(p)`` on ``D'``).

    Parameters
    ----------
    n
        Number of users, an integer in ``[2, 10**6]``.
    %(eps0)s
    others_ones
        Number of users other than user 1 holding 1, in ``[0, n − 1]``.

    Returns
    -------
    pmf_0, pmf_1
        Arrays of length ``n + 1``: ``pmf_0[y] = P_D[count = y]`` and
        ``pmf_1[y] = P_D'[count = y]``.

    Notes
    -----
    The binomial pmfs come from :func:`scipy.stats.binom.pmf` (relative accuracy
    ~1e-12 or better); the convolution of the two binomials is a direct sum of
    positive terms (no cancellation, tails keep their relative accuracy) over the
    counts where each binomial pmf is not 0 in floating point (±40 standard
    deviations at most): ``O(n)`` at the extremes, ``O(n)`` terms per binomial.

    Examples
    --------
    >>> import numpy as np
    >>> p0, p1 = shuffled_rr_count_pmfs(2, np.log(3), 0)   # keep w.p. 3/4
    >>> p0.round(4).tolist(), p1.round(4).tolist()        # [both 0, one 1, both 1]
    ([0.5625, 0.375, 0.0625], [0.1875, 0.625, 0.1875])
    """
    n = check_int("n", n, minimum=2, maximum=10**6)
    eps0 = check_positive("eps0", eps0)
    c = check_int("others_ones", others_ones, minimum=0, maximum=n - 1)
    keep = 1.0 / (1.0 + math.exp(-eps0))  # e^eps0 / (e^eps0 + 1), no overflow
    flip = 1.0 / (1.0 + math.exp(eps0)) if eps0 < 700 else 0.0
    zeros = n - 1 - c
    lo_z, from_zeros = _nonzero_pmf(zeros, flip)
    if c == 0:
        lo, others = lo_z, from_zeros
    else:
        lo_c, from_ones = _nonzero_pmf(c, keep)
        lo, others = lo_c + lo_z, np.convolve(from_ones, from_zeros)
    full = np.zeros(n)  # the count of 1s among the other n - 1 users
    full[lo : lo + others.size] = others
    return np.convolve(full, [keep, flip]), np.convolve(full, [flip, keep])


def _nonzero_pmf(trials: int, prob: float) -> tuple[int, np.ndarray]:
    """The pmf of ``Bin(trials, prob)`` on the range where it is not 0 in floating point.

    Returns the first count of the range and the pmf on it: the direct convolution then costs
    ``O(sd^2)`` instead of ``O(n^2)``. The ends are found by bisection on the log-pmf, which
    is unimodal (rising up to the mode, then falling).
    """
    mode = min(trials, int((trials + 1) * prob))
    alive = -745.2  # below, the pmf is 0 in floating point

    def live(k: int) -> bool:
        return bool(binom.logpmf(k, trials, prob) > alive)

    lo, good = 0, mode  # smallest live count in [0, mode]
    if not live(lo):
        while good - lo > 1:
            mid = (lo + good) // 2
            lo, good = (lo, mid) if live(mid) else (mid, good)
        lo = good
    good, hi = mode, trials  # largest live count in [mode, trials]
    if not live(hi):
        while hi - good > 1:
            mid = (good + hi) // 2
            good, hi = (mid, hi) if live(mid) else (good, mid)
        hi = good
    pmf = binom.pmf(np.arange(lo, hi + 1), trials, prob)
    live = np.flatnonzero(pmf)
    if live.size == 0:
        return lo, pmf[:1]
    return lo + int(live[0]), pmf[live[0] : live[-1] + 1]


def threshold_test_rates(pmf_0: np.ndarray, pmf_1: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Error rates of every threshold test "reject ``D`` when the score is ``>= t``".

    Parameters
    ----------
    pmf_0, pmf_1
        Laws of an integer score ``0, 1, ..., m − 1`` under ``D`` and ``D'``
        (1-D arrays of equal length, nonnegative entries).

    Returns
    -------
    thresholds, fpr, tpr
        ``thresholds = 0, ..., m − 1`` and, for each, ``FPR = P_D[score >= t]``
        and ``TPR = P_D'[score >= t]``. The tails are summed from the top, so
        small rates keep their relative accuracy; the test ``score >= 0`` rejects
        always, and its rates are exactly 1 (a rounded total mass such as
        ``1 - 2**-53`` would otherwise make the complement inequality of
        :func:`epsilon_from_rates` divide a rounding error by zero).

    Examples
    --------
    >>> import numpy as np
    >>> t, fpr, tpr = threshold_test_rates(np.array([0.75, 0.25]), np.array([0.25, 0.75]))
    >>> t.tolist(), fpr.tolist(), tpr.tolist()
    ([0, 1], [1.0, 0.25], [1.0, 0.75])
    """
    p0 = check_array("pmf_0", pmf_0, ndim=1, low=0.0)
    p1 = check_array("pmf_1", pmf_1, ndim=1, low=0.0)
    if p0.shape != p1.shape or p0.size == 0:
        raise ValueError(f"pmf_0 and pmf_1 must be non-empty and of equal length, got {p0.size} and {p1.size}")
    fpr = np.minimum(np.cumsum(p0[::-1])[::-1], 1.0)
    tpr = np.minimum(np.cumsum(p1[::-1])[::-1], 1.0)
    fpr[0] = tpr[0] = 1.0
    return np.arange(p0.size), fpr, tpr
