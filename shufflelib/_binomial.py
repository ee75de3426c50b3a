"""The binomial law's ``pmf``, ``cdf``, ``sf`` and ``logpmf`` as :data:`scipy.stats.binom` computes
them, without importing :mod:`scipy.stats` (whose import lengthens the start-up, measured by
``benchmarks/bench_startup.py``; the calculator's simple questions must not pay it).

The values come from the same Boost ufuncs ``scipy.stats.binom`` calls (SciPy's
``scipy.special._ufuncs._binom_pmf``, ``_binom_cdf``, ``_binom_sf``) with the same
conventions around them: 0 outside the support ``0..n`` (and for a non-integer ``k`` in the
pmf), ``cdf`` and ``sf`` read at ``floor(k)`` (1 and 0 beyond the ends), results clipped to
``[0, 1]``, NaN for invalid parameters (``n`` not a non-negative integer, ``p`` outside
``[0, 1]``); ``logpmf`` is SciPy's own formula from :mod:`scipy.special` (``-inf`` off the
support). ``tests/test_binomial.py`` checks equality with ``scipy.stats.binom`` bit for bit. A
SciPy without those private ufuncs falls back to ``scipy.stats.binom`` itself.

Examples
--------
>>> from shufflelib._binomial import binom
>>> float(binom.pmf(3, 10, 0.5)), float(binom.cdf(-1, 10, 0.5)), float(binom.sf(10, 10, 0.5))
(0.1171875, 0.0, 0.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import gammaln, xlog1py, xlogy

__all__ = ["binom"]

try:
    from scipy.special._ufuncs import _binom_cdf, _binom_pmf, _binom_sf
except ImportError:  # pragma: no cover - a SciPy without them: the public (slower) scipy.stats
    _binom_pmf = _binom_cdf = _binom_sf = None


def _valid(n: np.ndarray, p: np.ndarray) -> np.ndarray:
    return (n >= 0) & (np.floor(n) == n) & (p >= 0) & (p <= 1)


def _finish(out: np.ndarray) -> Any:
    return out[()] if out.ndim == 0 else out


def _masked(name: str, ufunc: Any, k: Any, n: Any, p: Any) -> Any:
    """``binom.<name>(k, n, p)``: Boost's ufunc inside the support, the law's values outside it."""
    if ufunc is None:  # pragma: no cover
        from scipy.stats import binom

        return getattr(binom, name)(k, n, p)
    k, n, p = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (k, n, p)))
    good = _valid(n, p)
    if name == "pmf":  # 0 off the integers 0..n
        inside = good & (k >= 0) & (k <= n) & (np.floor(k) == k)
        out = np.zeros(k.shape)
    else:  # read at floor(k); below 0 and from n on the cdf is 0 and 1, the sf 1 and 0
        k = np.floor(k)
        inside = good & (k >= 0) & (k < n) & np.isfinite(k)
        out = np.where(k >= n, 1.0, 0.0) if name == "cdf" else np.where(k < 0, 1.0, 0.0)
    if inside.any():
        out[inside] = np.clip(ufunc(k[inside], n[inside], p[inside]), 0.0, 1.0)
    out[~good | np.isnan(k)] = np.nan
    return _finish(out)


def _logpmf(k: Any, n: Any, p: Any) -> Any:
    """``binom.logpmf(k, n, p)``: SciPy's formula (``gammaln``, ``xlogy``, ``xlog1py``) inside the
    support, ``-inf`` off the integers ``0..n``, NaN for invalid parameters."""
    k, n, p = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (k, n, p)))
    good = _valid(n, p)
    inside = good & (k >= 0) & (k <= n) & (np.floor(k) == k)
    out = np.full(k.shape, -np.inf)
    if inside.any():
        kk, nn, pp = k[inside], n[inside], p[inside]
        combiln = gammaln(nn + 1) - (gammaln(kk + 1) + gammaln(nn - kk + 1))
        out[inside] = combiln + xlogy(kk, pp) + xlog1py(nn - kk, -pp)
    out[~good | np.isnan(k)] = np.nan
    return _finish(out)


class _Binomial:
    """``pmf``, ``cdf``, ``sf`` and ``logpmf`` of ``Bin(n, p)`` at ``k`` (arrays broadcast together)."""

    def pmf(self, k: Any, n: Any, p: Any) -> Any:
        return _masked("pmf", _binom_pmf, k, n, p)

    def cdf(self, k: Any, n: Any, p: Any) -> Any:
        return _masked("cdf", _binom_cdf, k, n, p)

    def sf(self, k: Any, n: Any, p: Any) -> Any:
        return _masked("sf", _binom_sf, k, n, p)

    def logpmf(self, k: Any, n: Any, p: Any) -> Any:
        return _logpmf(k, n, p)


#: The binomial law (``binom.pmf(k, n, p)``, ``binom.cdf``, ``binom.sf``, ``binom.logpmf``), as ``scipy.stats.binom``.
binom = _Binomial()
