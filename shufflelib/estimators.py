"""Debiased estimators for randomized-response protocols, with their exact variances.

Binary randomized response (``p = e^eps0 / (e^eps0 + 1)``) with ``c`` of ``n``
users holding 1 reports ``ones ~ Bin(c, p) + Bin(n - c, 1 - p)`` ones, so
``E[ones] = c p + (n - c)(1 - p)`` and the unbiased estimator of ``c`` is

.. math:: \\hat c = \\frac{\\text{ones} - n(1-p)}{2p - 1},
   \\qquad \\operatorname{Var}\\hat c = \\frac{n p (1-p)}{(2p-1)^2}
   = \\frac{n}{4 \\sinh^2(\\varepsilon_0 / 2)},

independent of ``c`` (each user's report is a Bernoulli with variance ``p(1-p)``
whatever their bit).

For k-RR (truth w.p. ``p = e^eps0 / (e^eps0 + k - 1)``, any other value w.p.
``q = 1 / (e^eps0 + k - 1)``), a value held by a fraction ``f_v`` of users is
reported ``N_v`` times with ``E[N_v] = n (f_v p + (1 - f_v) q)``; the estimator
``f_v_hat = (N_v / n - q) / (p - q)`` is unbiased, sums to 1 exactly (because
``1 - k q = p - q``), and has variance
``(f_v p (1 - p) + (1 - f_v) q (1 - q)) / (n (p - q)^2)``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._docstrings import fill_doc
from ._validation import check_array, check_eps0, check_int, check_n
from .randomizers import KRandomizedResponse

__all__ = ["estimate_count", "count_variance", "estimate_frequencies", "frequency_variance"]

#: Tolerance on ``sum(freqs) == 1`` in :func:`frequency_variance`.
FREQ_SUM_TOL = 1e-9


def _scalar_or_array(values: np.ndarray) -> float | np.ndarray:
    return float(values) if values.ndim == 0 else values


def _check_binary(name: str, counts: object, n: int, eps0: float) -> tuple[np.ndarray, int, float]:
    """Validate ``n``, ``eps0`` and the integer ``counts`` in ``[0, n]`` of a binary RR question, in that order."""
    n = check_n(n)
    eps0 = check_eps0(eps0)
    return check_array(name, counts, low=0, high=n, integral=True), n, eps0


@fill_doc
def estimate_count(ones: object, n: int, eps0: float) -> float | np.ndarray:
    """Unbiased estimate of how many of ``n`` users hold 1, from the reported ones under binary RR.

    Parameters
    ----------
    ones
        Number(s) of reported ones, integers in ``[0, n]`` (any shape, e.g. one per repetition).
    %(n)s
    eps0
        Local privacy parameter of the binary randomized response, > 0.

    Returns
    -------
    float or numpy.ndarray
        ``(ones - n (1 - p)) / (2 p - 1)``, same shape as ``ones``.

    Examples
    --------
    >>> round(estimate_count(600, n=1000, eps0=1.0), 3)
    716.395
    """
    ones, n, eps0 = _check_binary("ones", ones, n, eps0)
    rr = KRandomizedResponse(2, eps0)
    # 2p - 1 = tanh(eps0 / 2), accurate for small eps0.
    return _scalar_or_array((ones - n * rr.other_probability) / math.tanh(eps0 / 2))


@fill_doc
def count_variance(true_count: object, n: int, eps0: float) -> float | np.ndarray:
    """Exact variance of :func:`estimate_count`: ``n p (1-p) / (2p-1)^2``, whatever the true count.

    Parameters
    ----------
    true_count
        Number(s) of users holding 1, integers in ``[0, n]`` (the variance does not depend on it,
        but it is validated and sets the output shape).
    %(n)s %(eps0)s

    Returns
    -------
    float or numpy.ndarray
        ``n / (4 sinh^2(eps0 / 2))``, same shape as ``true_count``.

    Examples
    --------
    >>> round(count_variance(10, n=1000, eps0=1.0), 3)
    920.674
    """
    c, n, eps0 = _check_binary("true_count", true_count, n, eps0)
    var = n / (4.0 * math.sinh(eps0 / 2) ** 2)
    return _scalar_or_array(np.full(c.shape, var))


def _check_krr(
    name: str, values: object, n: int, k: int, eps0: float, **limits: Any
) -> tuple[np.ndarray, int, int, float]:
    """Validate ``n``, ``k``, ``eps0`` and the array ``values`` of a k-RR question, in that order.

    ``limits`` go to ``check_array``; ``values`` must be 1-D ``(k,)`` or 2-D ``(repetitions, k)``.
    """
    n = check_n(n)
    k = check_int("k", k, minimum=2)
    eps0 = check_eps0(eps0)
    arr = check_array(name, values, **limits)
    if arr.ndim not in (1, 2):
        raise ValueError(f"{name} must be a 1-D (k,) or 2-D (repetitions, k) array, got shape {arr.shape}")
    if arr.shape[-1] != k:
        raise ValueError(f"{name} must have k={k} entries along its last axis, got shape {arr.shape}")
    return arr, n, k, eps0


@fill_doc
def estimate_frequencies(counts: object, n: int, k: int, eps0: float) -> np.ndarray:
    """Unbiased frequency estimates from a shuffled k-RR histogram; each row sums to 1.

    Parameters
    ----------
    counts
        Reported counts per value, shape ``(k,)`` or ``(repetitions, k)``; non-negative
        integers, each row summing to ``n``.
    %(n)s %(k_domain)s %(eps0_krr)s

    Returns
    -------
    numpy.ndarray
        ``(counts / n - q) / (p - q)``, same shape as ``counts``.

    Examples
    --------
    >>> estimate_frequencies([50, 30, 20], n=100, k=3, eps0=2.0).round(4).tolist()
    [0.5783, 0.2843, 0.1374]
    >>> estimate_frequencies([[50, 30, 20], [40, 40, 20]], n=100, k=3, eps0=2.0).sum(axis=1).round(12).tolist()
    [1.0, 1.0]
    """
    arr, n, k, eps0 = _check_krr("counts", counts, n, k, eps0, low=0, integral=True)
    sums = np.atleast_1d(arr.sum(axis=-1))
    bad = np.flatnonzero(sums != n)
    if bad.size:
        raise ValueError(f"counts must sum to n={n} along the last axis, got a sum of {sums[bad[0]]:g}")
    rr = KRandomizedResponse(k, eps0)
    p, q = rr.truth_probability, rr.other_probability
    # p - q = (1 - e^{-eps0}) p, computed with expm1 for small eps0.
    return (arr / n - q) / (-math.expm1(-eps0) * p)


@fill_doc
def frequency_variance(freqs: object, n: int, k: int, eps0: float) -> np.ndarray:
    """Exact per-coordinate variance of :func:`estimate_frequencies` at true frequencies ``freqs``.

    Parameters
    ----------
    freqs
        True frequencies, shape ``(k,)`` or ``(repetitions, k)``, entries in ``[0, 1]``
        and rows summing to 1 (within 1e-9).
    %(n)s %(k_domain)s %(eps0_krr)s

    Returns
    -------
    numpy.ndarray
        ``(f p (1 - p) + (1 - f) q (1 - q)) / (n (p - q)^2)``, same shape as ``freqs``.

    Examples
    --------
    >>> frequency_variance([0.5, 0.3, 0.2], n=100, k=3, eps0=2.0).round(5).tolist()
    [0.00284, 0.00252, 0.00237]
    """
    f, n, k, eps0 = _check_krr("freqs", freqs, n, k, eps0, low=0.0, high=1.0)
    sums = np.atleast_1d(f.sum(axis=-1))
    bad = np.flatnonzero(np.abs(sums - 1.0) > FREQ_SUM_TOL)
    if bad.size:
        raise ValueError(
            f"freqs must sum to 1 along the last axis (within {FREQ_SUM_TOL}), got a sum of {sums[bad[0]]}"
        )
    rr = KRandomizedResponse(k, eps0)
    p, q = rr.truth_probability, rr.other_probability
    # 1 - p = (k - 1) q avoids cancellation when p is close to 1.
    per_user = f * p * ((k - 1) * q) + (1.0 - f) * q * (1.0 - q)
    return per_user / (n * (math.expm1(-eps0) * p) ** 2)
