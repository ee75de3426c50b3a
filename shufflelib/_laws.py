"""The binomial and Poisson laws as :mod:`scipy.stats` computes them, without importing
:mod:`scipy.stats` (whose import lengthens the start-up, measured by ``benchmarks/bench_startup.py``;
the calculator's questions must not pay it).

``binom`` and ``poisson`` offer ``pmf``, ``logpmf``, ``cdf``, ``sf``, ``ppf``, ``mean``, ``var``,
``std`` and ``support`` with the law's parameters as trailing arguments (``binom.pmf(k, n, p)``,
``poisson.sf(k, mu)``), and calling them freezes the parameters (``poisson(mu).cdf(k)``), as
:data:`scipy.stats.binom` and :data:`scipy.stats.poisson` do. The values come from the same
:mod:`scipy.special` functions SciPy's ``binom`` and ``poisson`` call (for the binomial, the Boost
ufuncs ``scipy.special._ufuncs._binom_pmf``, ``_binom_cdf``, ``_binom_sf``, ``_binom_ppf``; for
Poisson, ``pdtr``, ``pdtrc``, ``pdtrik`` and the log-pmf ``xlogy(k, mu) − gammaln(k + 1) − mu``)
with the conventions of :class:`scipy.stats.rv_discrete` around them: the pmf is 0 (its log
``-inf``) off the integers of the support (``0..n``, or every integer ``>= 0``), ``cdf`` and
``sf`` are read at ``floor(k)`` (0 and 1 below the support, 1 and 0 from its top), pmf, cdf and sf
are clipped to ``[0, 1]``, ``ppf`` is ``-1`` at ``q = 0`` and the top of the support at ``q = 1``,
and invalid parameters (``n`` not a non-negative integer, ``p`` outside ``[0, 1]``, ``mu < 0``)
or a NaN argument give NaN. ``tests/test_laws.py`` checks equality with :mod:`scipy.stats` bit for
bit. A SciPy without the private binomial ufuncs falls back to ``scipy.stats.binom`` itself.

Examples
--------
>>> from shufflelib._laws import binom, poisson
>>> float(binom.pmf(3, 10, 0.5)), float(binom.cdf(-1, 10, 0.5)), float(binom.sf(10, 10, 0.5))
(0.1171875, 0.0, 0.0)
>>> law = poisson(2.0)
>>> float(law.mean()), round(float(law.cdf(1.5)), 6), float(law.ppf(0.5)), float(law.support()[1])
(2.0, 0.406006, 2.0, inf)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import gammaln, pdtr, pdtrc, pdtrik, xlog1py, xlogy

__all__ = ["binom", "poisson"]

try:
    from scipy.special._ufuncs import _binom_cdf, _binom_pmf, _binom_ppf, _binom_sf
except ImportError:  # pragma: no cover - a SciPy without them: the public (slower) scipy.stats
    _binom_pmf = _binom_cdf = _binom_sf = _binom_ppf = None

Formula = Callable[..., np.ndarray]


def _arrays(*values: Any) -> list[np.ndarray]:
    return np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in values))


def _finish(out: np.ndarray) -> Any:
    return out[()] if out.ndim == 0 else out


class _Law:
    """A law on the integers ``0..top`` made of formulas valid inside its support, with the
    conventions of :class:`scipy.stats.rv_discrete` outside it (see the module docstring).

    Parameters
    ----------
    valid
        The parameters' check (a boolean array).
    top
        The top of the support for the given parameters (``inf`` for no top).
    moments
        The mean and the variance for valid parameters.
    pmf, logpmf, cdf, sf, ppf
        Formulas for valid parameters: ``pmf`` and ``logpmf`` at integers of the support, ``cdf``
        and ``sf`` at integers ``0 <= k < top``, ``ppf`` at ``0 < q < 1``.
    """

    def __init__(
        self,
        valid: Formula,
        top: Formula,
        moments: Callable[..., tuple[np.ndarray, np.ndarray]],
        pmf: Formula,
        logpmf: Formula,
        cdf: Formula,
        sf: Formula,
        ppf: Formula,
    ) -> None:
        self._valid, self._top, self._moments = valid, top, moments
        self._pmf, self._logpmf, self._cdf, self._sf, self._ppf = pmf, logpmf, cdf, sf, ppf

    def __call__(self, *params: Any) -> _Frozen:
        """The law with its parameters fixed (as a frozen :mod:`scipy.stats` distribution)."""
        return _Frozen(self, params)

    def _at_integers(self, formula: Formula, k: Any, params: tuple, fill: float, clip: bool) -> Any:
        k, *params = _arrays(k, *params)
        good = self._valid(*params)
        inside = good & (k >= 0) & (k <= self._top(*params)) & (np.floor(k) == k)
        out = np.full(k.shape, fill)
        if inside.any():
            values = formula(k[inside], *(v[inside] for v in params))
            out[inside] = np.clip(values, 0.0, 1.0) if clip else values
        out[~good | np.isnan(k)] = np.nan
        return _finish(out)

    def _tail(self, formula: Formula, k: Any, params: tuple, below: float, above: float) -> Any:
        k, *params = _arrays(k, *params)
        good = self._valid(*params)
        top = self._top(*params)
        inside = good & (k >= 0) & (k < top) & np.isfinite(k)
        out = np.where(k >= top, above, np.where(k < 0, below, 0.0))
        if inside.any():
            out[inside] = np.clip(formula(np.floor(k[inside]), *(v[inside] for v in params)), 0.0, 1.0)
        out[~good | np.isnan(k)] = np.nan
        return _finish(out)

    def pmf(self, k: Any, *params: Any) -> Any:
        """``Pr[X = k]``."""
        return self._at_integers(self._pmf, k, params, 0.0, clip=True)

    def logpmf(self, k: Any, *params: Any) -> Any:
        """``log Pr[X = k]``."""
        return self._at_integers(self._logpmf, k, params, -np.inf, clip=False)

    def cdf(self, k: Any, *params: Any) -> Any:
        """``Pr[X <= k]``."""
        return self._tail(self._cdf, k, params, below=0.0, above=1.0)

    def sf(self, k: Any, *params: Any) -> Any:
        """``Pr[X > k]``."""
        return self._tail(self._sf, k, params, below=1.0, above=0.0)

    def ppf(self, q: Any, *params: Any) -> Any:
        """The smallest integer ``k`` with ``Pr[X <= k] >= q``."""
        q, *params = _arrays(q, *params)
        good = self._valid(*params)
        out = np.full(q.shape, np.nan)
        out[good & (q == 0)] = -1.0
        ones = good & (q == 1)
        out[ones] = self._top(*params)[ones]
        inside = good & (q > 0) & (q < 1)
        if inside.any():
            out[inside] = self._ppf(q[inside], *(v[inside] for v in params)) + 0.0
        return _finish(out)

    def _moment(self, which: int, params: tuple) -> Any:
        params = _arrays(*params)
        good = self._valid(*params)
        out = np.full(good.shape, np.nan)
        if good.any():
            out[good] = self._moments(*(v[good] for v in params))[which] + 0.0
        return _finish(out)

    def mean(self, *params: Any) -> Any:
        """``E[X]``."""
        return self._moment(0, params)

    def var(self, *params: Any) -> Any:
        """``Var[X]``."""
        return self._moment(1, params)

    def std(self, *params: Any) -> Any:
        """The standard deviation of ``X``."""
        return np.sqrt(self.var(*params))

    def support(self, *params: Any) -> tuple[Any, Any]:
        """The ends of the support, ``0`` and the top (NaN for invalid parameters)."""
        params = _arrays(*params)
        good = self._valid(*params)
        if good.all():
            return 0, _finish(np.asarray(self._top(*params)))
        return np.nan, np.nan


class _Frozen:
    """A law with its parameters fixed: ``law(*params)``, used as a frozen :mod:`scipy.stats`
    distribution (``pmf``, ``logpmf``, ``cdf``, ``sf``, ``ppf``, ``mean``, ``var``, ``std``,
    ``support``)."""

    def __init__(self, law: _Law, params: tuple) -> None:
        self.law, self.params = law, params

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(repr, self.params))})"

    def pmf(self, k: Any) -> Any:
        return self.law.pmf(k, *self.params)

    def logpmf(self, k: Any) -> Any:
        return self.law.logpmf(k, *self.params)

    def cdf(self, k: Any) -> Any:
        return self.law.cdf(k, *self.params)

    def sf(self, k: Any) -> Any:
        return self.law.sf(k, *self.params)

    def ppf(self, q: Any) -> Any:
        return self.law.ppf(q, *self.params)

    def mean(self) -> Any:
        return self.law.mean(*self.params)

    def var(self) -> Any:
        return self.law.var(*self.params)

    def std(self) -> Any:
        return self.law.std(*self.params)

    def support(self) -> tuple[Any, Any]:
        return self.law.support(*self.params)


class _FromScipyStats:  # pragma: no cover - only for a SciPy without the private ufuncs
    """``scipy.stats.<name>``, imported on first use."""

    def __init__(self, name: str) -> None:
        self._name = name

    def _law(self) -> Any:
        from scipy import stats

        return getattr(stats, self._name)

    def __call__(self, *params: Any) -> Any:
        return self._law()(*params)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._law(), attribute)


def _binom_logpmf(k: np.ndarray, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    combiln = gammaln(n + 1) - (gammaln(k + 1) + gammaln(n - k + 1))
    return combiln + xlogy(k, p) + xlog1py(n - k, -p)


def _poisson_logpmf(k: np.ndarray, mu: np.ndarray) -> np.ndarray:
    return xlogy(k, mu) - gammaln(k + 1) - mu


def _poisson_ppf(q: np.ndarray, mu: np.ndarray) -> np.ndarray:
    # pdtrik inverts the cdf in its continuous extension: its ceiling, or one less, is the quantile.
    above = np.ceil(pdtrik(q, mu))
    below = np.maximum(above - 1, 0)
    return np.where(pdtr(below, mu) >= q, below, above)


#: The binomial law ``Bin(n, p)`` (``binom.pmf(k, n, p)``, ``binom(n, p).cdf(k)``, ...), as ``scipy.stats.binom``.
binom: Any = (
    _Law(
        valid=lambda n, p: (n >= 0) & (np.floor(n) == n) & (p >= 0) & (p <= 1),
        top=lambda n, p: n,
        moments=lambda n, p: (n * p, n * p - n * np.square(p)),
        pmf=_binom_pmf,
        logpmf=_binom_logpmf,
        cdf=_binom_cdf,
        sf=_binom_sf,
        ppf=_binom_ppf,
    )
    if _binom_pmf is not None
    else _FromScipyStats("binom")
)

#: The Poisson law of mean ``mu`` (``poisson.pmf(k, mu)``, ``poisson(mu).sf(k)``, ...), as ``scipy.stats.poisson``.
poisson: Any = _Law(
    valid=lambda mu: mu >= 0,
    top=lambda mu: np.full(mu.shape, np.inf),
    moments=lambda mu: (mu, mu),
    pmf=lambda k, mu: np.exp(_poisson_logpmf(k, mu)),
    logpmf=_poisson_logpmf,
    cdf=pdtr,
    sf=pdtrc,
    ppf=_poisson_ppf,
)
