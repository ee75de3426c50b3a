r"""The discrete Gaussian distribution: pmf, moments, an exact sampler, and its sums.

``DG(0, tau)`` (Canonne, Kamath, Steinke 2020) puts mass proportional to
``exp(−x^2/(2 tau^2))`` on each integer ``x``. Its normaliser and variance are
computed by Poisson summation for ``tau >= 1/2``,

.. math::

   \sum_{x\in\mathbb Z} e^{-x^2/2\tau^2} = \sqrt{2\pi}\,\tau \sum_{k\in\mathbb Z} e^{-2\pi^2\tau^2k^2},

which converges after a few terms, and by direct summation below.

The sampler is Algorithm 3 of Canonne et al.: draw a discrete Laplace
candidate ``Y`` of scale ``t = floor(tau) + 1`` and accept it with probability
``exp(−(|Y| − tau^2/t)^2/(2 tau^2))``. The accepted values follow ``DG(0, tau)``
exactly; the coins use double-precision uniforms (Canonne et al. also give an
all-integer version for deployment).

Sums. Kairouz, Liu and Steinke (2021) show that a sum of ``n`` independent
``DG(0, tau)`` is close to ``DG(0, sqrt(n) tau)``, the closeness controlled by
``10 S_n(tau)`` with ``S_n(tau) = sum_{j=1}^{n-1} exp(−2 pi^2 tau^2 j/(j+1))``;
:func:`sum_pmf` computes the exact law of the sum by convolution so that this
can be checked.

Examples
--------
>>> import numpy as np
>>> x = sample_discrete_gaussian(3.0, 200_000, np.random.default_rng(0))
>>> bool(abs(x.var() - variance(3.0)) < 0.1)
True
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import SIZE_MAX, check_array, check_generator, check_int, check_positive

__all__ = ["normalizer", "pmf", "logpmf", "variance", "sample_discrete_gaussian", "s_term", "sum_pmf"]

#: Below this scale the normaliser and the variance are summed directly.
_POISSON_SUMMATION_MIN = 0.5


def _direct_range(tau: float) -> np.ndarray:
    half = math.ceil(40.0 * tau) + 2
    return np.arange(-half, half + 1, dtype=float)


def normalizer(tau: float) -> float:
    """``sum_x exp(−x^2/(2 tau^2))`` over the integers.

    Examples
    --------
    >>> import numpy as np
    >>> round(normalizer(10.0) / float(np.sqrt(2 * np.pi) * 10.0), 12)
    1.0
    """
    tau = check_positive("tau", tau)
    if tau >= _POISSON_SUMMATION_MIN:
        k = np.arange(1, 8, dtype=float)
        return math.sqrt(2.0 * math.pi) * tau * (1.0 + 2.0 * float(np.sum(np.exp(-2.0 * (math.pi * tau * k) ** 2))))
    x = _direct_range(tau)
    return float(np.sum(np.exp(-(x**2) / (2.0 * tau**2))))


def logpmf(x: object, tau: float) -> np.ndarray:
    """``log Pr[DG(0, tau) = x]`` (vectorized over integers ``x``).

    Examples
    --------
    >>> round(float(np.exp(logpmf(0, 1.0))), 6)
    0.398942
    """
    tau = check_positive("tau", tau)
    x = check_array("x", x, integral=True)
    return -(x**2) / (2.0 * tau**2) - math.log(normalizer(tau))


def pmf(x: object, tau: float) -> np.ndarray:
    """``Pr[DG(0, tau) = x]`` (vectorized over integers ``x``).

    Examples
    --------
    >>> float(round(pmf(np.arange(-60, 61), 5.0).sum(), 12))
    1.0
    """
    return np.exp(logpmf(x, tau))


def variance(tau: float) -> float:
    """``Var[DG(0, tau)]`` (slightly below ``tau^2``).

    Examples
    --------
    >>> round(variance(5.0), 9), round(variance(0.3), 6)
    (25.0, 0.007673)
    """
    tau = check_positive("tau", tau)
    if tau >= _POISSON_SUMMATION_MIN:
        k = np.arange(1, 8, dtype=float)
        g = np.exp(-2.0 * (math.pi * tau * k) ** 2)
        second = tau**2 + 2.0 * float(np.sum((tau**2 - 4.0 * math.pi**2 * tau**4 * k**2) * g))
        return second / (1.0 + 2.0 * float(np.sum(g)))
    x = _direct_range(tau)
    w = np.exp(-(x**2) / (2.0 * tau**2))
    return float(np.sum(x**2 * w) / np.sum(w))


def sample_discrete_gaussian(tau: object, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` independent draws of ``DG(0, tau)`` (rejection from a discrete Laplace; ``int64``).

    ``tau`` is one scale, or an array of ``size`` scales (one per draw).

    Examples
    --------
    >>> import numpy as np
    >>> sample_discrete_gaussian(2.0, 5, np.random.default_rng(1)).dtype
    dtype('int64')
    >>> sample_discrete_gaussian(np.array([1.0, 1e3]), 2, np.random.default_rng(1)).shape
    (2,)
    """
    size = check_int("size", size, minimum=0, maximum=SIZE_MAX)
    if np.ndim(tau):
        tau = check_array("tau", tau, ndim=1)
        if tau.size != size or not np.all(tau > 0):
            raise ValueError(f"tau must be one number > 0 or an array of {size} numbers > 0, got shape {tau.shape}")
    else:
        tau = np.full(size, check_positive("tau", tau))
    rng = check_generator("rng", rng)
    out = np.empty(size, dtype=np.int64)
    todo = np.arange(size)
    while todo.size:
        s = tau[todo]
        t = np.floor(s) + 1.0
        p_geo = -np.expm1(-1.0 / t)  # success probability of each geometric half of the discrete Laplace
        y = rng.geometric(p_geo) - rng.geometric(p_geo)
        keep = rng.random(todo.size) < np.exp(-((np.abs(y) - s**2 / t) ** 2) / (2.0 * s**2))
        out[todo[keep]] = y[keep]
        todo = todo[~keep]
    return out


def s_term(tau: float, n: object) -> np.ndarray:
    """An upper bound on ``S_n(tau) = sum_{j=1}^{n-1} exp(−2 pi^2 tau^2 j/(j+1))``, vectorized over ``n``.

    The first 100,000 terms are summed exactly; the terms decrease in ``j``,
    so each later one is bounded by the 100,001st.

    Examples
    --------
    >>> float(s_term(1.0, 1)), round(float(s_term(0.5, 3)), 6)  # exp(-pi^2/4) + exp(-pi^2/3)
    (0.0, 0.122064)
    """
    tau = check_positive("tau", tau)
    n = check_array("n", n, low=1, integral=True)
    c = 2.0 * (math.pi * tau) ** 2
    head_len = int(min(max(float(n.max()) - 1.0, 0.0), 100_000.0))
    j = np.arange(1, head_len + 1, dtype=float)
    cum = np.concatenate([[0.0], np.cumsum(np.exp(-c * j / (j + 1.0)))])
    head = cum[np.minimum(n - 1.0, head_len).astype(np.int64)]
    rest = np.maximum(n - 1.0 - head_len, 0.0) * math.exp(-c * (head_len + 1.0) / (head_len + 2.0))
    return head + rest


def sum_pmf(n: int, tau: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact pmf of the sum of ``n`` independent ``DG(0, tau)``, by repeated convolution (small ``n``).

    Returns the integer support and the probabilities (each ``DG`` cut at
    ``|x| <= 40 tau + 2``, mass below ``1e-300`` left out).

    Examples
    --------
    >>> x, p = sum_pmf(3, 1.0)
    >>> round(float(p.sum()), 12), int(x[np.argmax(p)])
    (1.0, 0)
    """
    n = check_int("n", n, minimum=1)
    tau = check_positive("tau", tau)
    base_x = _direct_range(tau)
    base = pmf(base_x, tau)
    out = base
    for _ in range(n - 1):
        out = np.convolve(out, base)
    half = (out.size - 1) // 2
    return np.arange(-half, half + 1), out
