"""The discrete Laplace distribution, the central benchmark of pure-DP counting.

``DLap(a)`` is the distribution on the integers with mass proportional to
``exp(-a |x|)``; ``a > 0`` is the *decay rate* (this is the parameterisation of the
preliminaries of Ghazi, Kumar and Manurangsi; their Theorem 6 writes
``DLap(e^{-eps})`` for the same law, see the chapter's erratum). Adding
``DLap(eps)`` to a count is the optimal central ``eps``-DP counting mechanism.

Closed forms used here (``r = e^{-a}``):

* pmf ``(1 - r) / (1 + r) * r^|x|``;
* variance ``2 r / (1 - r)^2 = 1 / (2 sinh^2(a / 2))``;
* ``E|X| = 1 / sinh(a)``;
* ``P[|X| >= t] = 2 r^t / (1 + r)`` for integers ``t >= 1``;
* ``X = G_1 - G_2`` with ``G_1, G_2`` i.i.d. geometric on ``{0, 1, ...}`` with
  success probability ``1 - r``.
"""

from __future__ import annotations

import math

import numpy as np

from .._docstrings import fill_doc
from .._validation import check_generator, check_int, check_positive

__all__ = [
    "dlap_variance",
    "expected_max_abs_dlap",
    "max_abs_dlap_bound",
    "sample_dlap",
]

#: Terms of the series for ``E max |X_b|`` are summed until they fall below this.
SERIES_TOL = 1e-17


@fill_doc
def dlap_variance(a: float) -> float:
    """Variance of ``DLap(a)``: ``2 e^{-a} / (1 - e^{-a})^2 = 1 / (2 sinh^2(a/2))``.

    Parameters
    ----------
    %(decay)s

    Returns
    -------
    float
        The variance (the noise's MSE as an estimate of 0).

    Examples
    --------
    >>> round(dlap_variance(1.0), 6)
    1.841347
    """
    a = check_positive("a", a)
    return 1.0 / (2.0 * math.sinh(a / 2.0) ** 2)


@fill_doc
def sample_dlap(a: float, size: int | tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Draw from ``DLap(a)`` as the difference of two geometric variables.

    Parameters
    ----------
    %(decay)s
    size
        Number (or shape) of draws.
    %(rng)s

    Returns
    -------
    numpy.ndarray
        ``int64`` draws.

    Examples
    --------
    >>> import numpy as np
    >>> x = sample_dlap(1.0, 100_000, np.random.default_rng(0))
    >>> x.dtype, bool(abs(x.var() - dlap_variance(1.0)) < 0.05)
    (dtype('int64'), True)
    """
    a = check_positive("a", a)
    rng = check_generator("rng", rng)
    p = -math.expm1(-a)
    # numpy's geometric counts trials (support 1, 2, ...); the offsets cancel in the difference.
    return (rng.geometric(p, size) - rng.geometric(p, size)).astype(np.int64)


@fill_doc
def expected_max_abs_dlap(buckets: int, a: float) -> float:
    """``E max_b |X_b|`` for ``buckets`` i.i.d. ``DLap(a)`` variables (the histogram's noise).

    Computed from ``E max = sum_{t >= 1} P[max >= t]`` with
    ``P[max >= t] = 1 - (1 - 2 e^{-a t} / (1 + e^{-a}))^B``, summed until the
    terms fall below ``SERIES_TOL``; the neglected tail is below
    ``SERIES_TOL / (1 - e^{-a})``.

    Parameters
    ----------
    buckets
        Number ``B`` of independent variables, an integer >= 1.
    %(decay)s

    Returns
    -------
    float
        The truncated sum, below the expectation by at most ``SERIES_TOL / (1 - e^{-a})``.

    Examples
    --------
    >>> round(expected_max_abs_dlap(1, 1.0), 6)  # B = 1: E|X| = 1 / sinh(a)
    0.850918
    """
    buckets = check_int("buckets", buckets, minimum=1)
    a = check_positive("a", a)
    log_two_over = math.log(2.0) - math.log1p(math.exp(-a))
    # P[|X| >= t] <= B-fold union bound 2 B e^{-a t}/(1+e^{-a}): stop where it is below the tolerance.
    t_max = max(1, math.ceil((log_two_over + math.log(buckets) - math.log(SERIES_TOL)) / a))
    t = np.arange(1, t_max + 1, dtype=float)
    log_tail = log_two_over - a * t  # log P[|X| >= t] (< 0 for t >= 1)
    prob_max = -np.expm1(buckets * np.log1p(-np.exp(log_tail)))
    return float(prob_max.sum())


def max_abs_dlap_bound(buckets: int, a: float) -> float:
    """The closed-form bound ``E max_b |X_b| <= (ln(2B) + 1)/a + 1`` for ``B`` i.i.d. ``DLap(a)`` variables.

    From ``E max = Σ_{t>=1} P[max >= t]`` with ``P[max >= t] <= min(1, 2B e^{-a t})``: the
    terms up to ``t0 = ln(2B)/a`` contribute at most ``t0 + 1``, the geometric rest at most
    ``1/a`` (``Σ_{t > t0} e^{-a (t − t0)} <= 1/a``). It is the pure-DP chapter's
    ``O((1 + log B)/ε)`` (no ``log n`` factor); :func:`expected_max_abs_dlap` is exact.

    Examples
    --------
    >>> expected_max_abs_dlap(64, 0.45) <= max_abs_dlap_bound(64, 0.45)
    True
    >>> round(max_abs_dlap_bound(64, 0.45), 4)
    14.0045
    """
    buckets = check_int("buckets", buckets, minimum=1)
    a = check_positive("a", a)
    return (math.log(2.0 * buckets) + 1.0) / a + 1.0
