r"""Laws of a random population: how many *other* users take part.

The privacy analysis of a shuffled protocol with a random population is made
from the viewpoint of one user who certainly participates (user 1). What
matters is the law of the number ``N − 1`` of *other* participants; ``N`` is
the total number of participants. Every class here describes that law.

* Full laws (a distribution of ``N − 1``): :class:`FixedPopulation`,
  :class:`BinomialPopulation` (``n'`` potential users, each other one takes
  part with probability ``alpha``), :class:`PoissonPopulation`,
  :class:`NegativeBinomialPopulation` (over-dispersed: any mean and variance
  with ``variance > mean``) and :class:`DiscretePopulation` (any finite law).
  They give the exact quantities the tight bound needs: the pmf of
  ``N − 1``, its quantiles, the law of the number of clones ``Bin(N − 1, q)``
  and the inverse moments ``E[1/N]``, ``E[1/N^2]`` of the estimators.
* Partial descriptions, all that Theorems 3 and 4(c)–(e) of Wang et al. use:
  :class:`MeanVariance`, :class:`SubGaussianTail` (lower tail
  ``Pr[N − 1 <= mean − t] <= exp(−t^2/tau^2)``) and :class:`SubExponentialTail`
  (``Pr[N − 1 <= mean − t] <= a exp(−b t)``).

Truncation. A full law is summed over ``[lo, hi]`` where each tail beyond
holds at most :data:`TAIL` of the mass; the dropped mass is reported so that
bounds can add it to δ.

Examples
--------
>>> from shufflelib.population.laws import BinomialPopulation
>>> law = BinomialPopulation(n_prime=48_842, alpha=0.2)
>>> round(law.mean, 1), round(law.variance, 1)
(9768.2, 7814.6)
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from .._docstrings import fill_doc
from .._laws import binom, poisson
from .._roots import first_integer
from .._validation import (
    N_MAX,
    SIZE_MAX,
    check_array,
    check_generator,
    check_in_range,
    check_int,
    check_n,
    check_positive,
    check_probability,
)

__all__ = [
    "TAIL",
    "PopulationLaw",
    "FixedPopulation",
    "BinomialPopulation",
    "PoissonPopulation",
    "NegativeBinomialPopulation",
    "DiscretePopulation",
    "MeanVariance",
    "SubGaussianTail",
    "SubExponentialTail",
    "integer_range",
]

#: Mass left out on each side when a law is summed over a finite range.
TAIL = 1e-17


def integer_range(cdf, sf, mean: float, sd: float, low: int, high: float, tail: float) -> tuple[int, int]:
    """Tightest integers ``lo <= hi`` with ``cdf(lo − 1) <= tail`` and ``sf(hi) <= tail``.

    ``cdf``/``sf`` are those of an integer law supported in ``[low, high]``
    (``high`` may be ``inf``); ``mean``/``sd`` only seed the search, which is a
    bisection on the exact ``cdf``/``sf`` (quantile functions are unreliable
    far in the tails).

    Examples
    --------
    >>> from scipy import stats
    >>> d = stats.binom(10, 0.5)
    >>> integer_range(d.cdf, d.sf, 5.0, 1.58, 0, 10, 1e-3)
    (1, 9)
    """

    width = max(40.0 * sd, 10.0)
    # Lower end: smallest x with cdf(x) > tail, i.e. cdf(x - 1) <= tail.
    below = max(low, math.floor(mean - width))
    while below > low and cdf(below - 1) > tail:
        width *= 2.0
        below = max(low, math.floor(mean - width))
    top = math.ceil(mean + width)
    if math.isfinite(high):
        top = min(int(high), top)
    while sf(top) > tail:
        width *= 2.0
        top = math.ceil(mean + width)
        if math.isfinite(high):
            top = min(int(high), top)
    lo = first_integer(lambda x: cdf(x) > tail, below, top)
    hi = first_integer(lambda x: sf(x) <= tail, lo, top)
    return int(lo), int(hi)


def _check_mean(name: str, value: object) -> float:
    """A mean number of other users: in ``[0, N_MAX]`` (the box of :mod:`shufflelib._validation`)."""
    return check_in_range(name, value, 0.0, N_MAX)


def _check_variance(name: str, value: object) -> float:
    """A variance of the number of other users: in ``[0, N_MAX**2]``."""
    return check_in_range(name, value, 0.0, float(N_MAX) ** 2)


@fill_doc
@dataclass(frozen=True)
class MeanVariance:
    """Only the mean and the variance of ``N − 1`` are known (Theorem 3, Theorem 4(e)).

    Parameters
    ----------
    %(law_mean)s
    variance
        ``Var[N − 1]``, a finite number >= 0.

    Examples
    --------
    >>> MeanVariance(5000, 8700)
    MeanVariance(mean=5000.0, variance=8700.0)
    """

    mean: float
    variance: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "mean", _check_mean("mean", self.mean))
        object.__setattr__(self, "variance", _check_variance("variance", self.variance))


@fill_doc
@dataclass(frozen=True)
class SubGaussianTail:
    r"""A lower-tail assumption ``Pr[N − 1 <= mean − t] <= exp(−t^2 / tau^2)`` for all ``t >= 0``.

    This is the convention the formula of Theorem 4(c) implies (the paper's
    appendix defining it is not in the published text). Under the common
    variance-proxy convention ``exp(−t^2/(2 s^2))`` use ``tau = sqrt(2) s``.

    Parameters
    ----------
    %(law_mean)s
    tau
        Tail parameter, a finite number >= 0.

    Examples
    --------
    >>> SubGaussianTail(5000, 50).tau
    50.0
    """

    mean: float
    tau: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "mean", _check_mean("mean", self.mean))
        object.__setattr__(self, "tau", check_in_range("tau", self.tau, 0.0, N_MAX))

    def as_subexponential(self, b: float) -> SubExponentialTail:
        r"""The same tail as a sub-exponential one, ``a exp(−b t)`` with ``a = exp(b^2 tau^2 / 4)``.

        Since ``t^2/tau^2 >= b t − b^2 tau^2/4`` for every ``t`` (the square
        ``(t/tau − b tau/2)^2 >= 0``), ``exp(−t^2/tau^2) <= a exp(−b t)``: a sub-Gaussian
        lower tail is ``(a, b)``-sub-exponential for every rate ``b > 0``, which lets
        Theorem 4(d) be computed on the laws of the book.

        Parameters
        ----------
        b
            The rate, a finite number > 0.

        Returns
        -------
        SubExponentialTail
            With the same mean.

        Examples
        --------
        >>> tail = SubGaussianTail(5000, 100).as_subexponential(0.02)
        >>> round(tail.a, 4), tail.b
        (2.7183, 0.02)
        """
        b = check_positive("b", b)
        return SubExponentialTail(self.mean, math.exp(b**2 * self.tau**2 / 4), b)


@fill_doc
@dataclass(frozen=True)
class SubExponentialTail:
    r"""A lower-tail assumption ``Pr[N − 1 <= mean − t] <= a exp(−b t)`` for all ``t >= 0``.

    The convention of Theorem 4(d) (``(alpha, beta)``-sub-exponential in the
    paper; renamed ``(a, b)`` here, since ``alpha`` is the participation rate).

    Parameters
    ----------
    %(law_mean)s
    a
        Tail constant, a finite number >= 1.
    b
        Tail rate, a finite number > 0.

    Examples
    --------
    >>> SubExponentialTail(5000, 2, 0.05).b
    0.05
    >>> SubExponentialTail(5000, 0.5, 0.05)
    Traceback (most recent call last):
    ...
    ValueError: a must be in [1.0, inf), got 0.5
    """

    mean: float
    a: float
    b: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "mean", _check_mean("mean", self.mean))
        object.__setattr__(self, "a", check_in_range("a", self.a, 1.0, math.inf, closed_high=False))
        object.__setattr__(self, "b", check_positive("b", self.b))


class PopulationLaw(ABC):
    """The law of the number ``N − 1`` of participants other than user 1.

    Subclasses provide the frozen law of ``N − 1`` (a frozen :mod:`scipy.stats`
    distribution or one of ``shufflelib._laws``, which computes the same values
    without importing :mod:`scipy.stats`), or override the pmf/cdf methods, and,
    when it has a closed form, the law of its binomial thinning (the number of clones).

    Examples
    --------
    The abstract interface, through the concrete :class:`PoissonPopulation`:

    >>> law = PoissonPopulation(100)
    >>> isinstance(law, PopulationLaw), law.mean, law.variance
    (True, 100.0, 100.0)
    >>> float(law.cdf(99) + law.sf(99))  # Pr[N - 1 <= 99] + Pr[N - 1 > 99]
    1.0
    >>> law.range(1e-6), float(law.thinned(0.5).mean())  # the clones of Poisson(lam) are Poisson(lam q)
    ((56, 151), 50.0)
    """

    #: Short name (used by the command line).
    name: str = ""

    # ---------------------------------------------------------------- the law
    @property
    @abstractmethod
    def mean(self) -> float:
        """``E[N − 1]``."""

    @property
    @abstractmethod
    def variance(self) -> float:
        """``Var[N − 1]``."""

    @abstractmethod
    def pmf(self, x: object) -> np.ndarray:
        """``Pr[N − 1 = x]`` (vectorized over integers ``x``)."""

    @abstractmethod
    def cdf(self, x: object) -> np.ndarray:
        """``Pr[N − 1 <= x]`` (vectorized)."""

    @abstractmethod
    def sf(self, x: object) -> np.ndarray:
        """``Pr[N − 1 > x]`` (vectorized)."""

    @abstractmethod
    def _sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws of ``N − 1`` (validated inputs)."""

    def thinned(self, q: float):
        """The law of ``Bin(N − 1, q)`` as a frozen law (a frozen :mod:`scipy.stats` distribution's methods), or
        ``None`` if no closed form."""

    # ----------------------------------------------------------- derived views
    def range(self, tail: float = TAIL) -> tuple[int, int]:
        """Integers ``lo <= hi`` with ``Pr[N − 1 < lo] <= tail`` and ``Pr[N − 1 > hi] <= tail``.

        Examples
        --------
        >>> from shufflelib.population.laws import PoissonPopulation
        >>> PoissonPopulation(100).range(1e-6)
        (56, 151)
        """
        tail = check_probability("tail", tail)
        return integer_range(
            lambda x: float(self.cdf(x)),
            lambda x: float(self.sf(x)),
            self.mean,
            math.sqrt(self.variance),
            0,
            self._high,
            tail,
        )

    @property
    def _high(self) -> float:
        return math.inf

    def support(self, tail: float = TAIL) -> tuple[np.ndarray, np.ndarray, float]:
        """Values of ``N − 1`` on :meth:`range`, their probabilities, and the mass left out.

        Examples
        --------
        >>> from shufflelib.population.laws import FixedPopulation
        >>> values, probs, dropped = FixedPopulation(9).support()
        >>> values.tolist(), probs.tolist(), dropped
        ([9], [1.0], 0.0)
        """
        lo, hi = self.range(tail)
        values = np.arange(lo, hi + 1, dtype=np.int64)
        probs = np.asarray(self.pmf(values), dtype=float)
        dropped = float(self.cdf(lo - 1) + self.sf(hi)) if lo > 0 else float(self.sf(hi))
        return values, probs, max(dropped, 0.0)

    def lower_quantile(self, prob: float) -> int:
        """Largest integer ``m`` with ``Pr[N − 1 < m] <= prob`` (an exact, valid lower bound on ``N − 1``).

        Examples
        --------
        >>> from shufflelib.population.laws import BinomialPopulation
        >>> law = BinomialPopulation(48_842, 0.05)
        >>> m = law.lower_quantile(1e-5)
        >>> bool(law.cdf(m - 1) <= 1e-5 < law.cdf(m))
        True
        """
        prob = check_probability("prob", prob)
        return self.range(prob)[0]

    def inverse_moments(self, tail: float = TAIL) -> tuple[float, float]:
        """``E[1/N]`` and ``E[1/N^2]`` for ``N = 1 + (N − 1)`` (the ``2 tail`` left out is below 1e-16).

        Examples
        --------
        >>> from shufflelib.population.laws import PoissonPopulation
        >>> e1, e2 = PoissonPopulation(1000).inverse_moments()
        >>> round(e1 * 1000, 6)  # closed form (1 - e^-1000) / 1000
        1.0
        """
        values, probs, _ = self.support(tail)
        total = values + 1.0
        return float(np.sum(probs / total)), float(np.sum(probs / total**2))

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent draws of ``N − 1`` (an ``int64`` array).

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.population.laws import PoissonPopulation
        >>> PoissonPopulation(50).sample(3, np.random.default_rng(0)).shape
        (3,)
        """
        size = check_int("size", size, minimum=1, maximum=SIZE_MAX)
        rng = check_generator("rng", rng)
        return np.asarray(self._sample(size, rng), dtype=np.int64)

    def moments(self) -> MeanVariance:
        """The :class:`MeanVariance` description of this law (for Theorem 3).

        Examples
        --------
        >>> from shufflelib.population.laws import PoissonPopulation
        >>> PoissonPopulation(5000).moments()
        MeanVariance(mean=5000.0, variance=5000.0)
        """
        return MeanVariance(self.mean, self.variance)


class _FrozenLaw(PopulationLaw):
    """A law given by a frozen discrete law ``self._dist`` (``pmf``, ``cdf``, ``sf``, ``mean``, ``var``)."""

    _dist: object

    @property
    def mean(self) -> float:
        return float(self._dist.mean())

    @property
    def variance(self) -> float:
        return float(self._dist.var())

    def pmf(self, x: object) -> np.ndarray:
        return self._dist.pmf(x)

    def cdf(self, x: object) -> np.ndarray:
        return self._dist.cdf(x)

    def sf(self, x: object) -> np.ndarray:
        return self._dist.sf(x)


class FixedPopulation(PopulationLaw):
    """Exactly ``others`` other users take part (the classical shuffle model, ``n = others + 1``).

    Parameters
    ----------
    others
        Number of other participants, an integer >= 0.

    Examples
    --------
    >>> law = FixedPopulation(9_999)
    >>> law.mean, law.variance, law.lower_quantile(1e-9)
    (9999.0, 0.0, 9999)
    """

    name = "fixed"

    def __init__(self, others: int) -> None:
        self.others = check_int("others", others, minimum=0, maximum=N_MAX)

    def __repr__(self) -> str:
        return f"FixedPopulation(others={self.others})"

    @property
    def mean(self) -> float:
        return float(self.others)

    @property
    def variance(self) -> float:
        return 0.0

    def pmf(self, x: object) -> np.ndarray:
        return (np.asarray(x) == self.others).astype(float)

    def cdf(self, x: object) -> np.ndarray:
        return (np.asarray(x) >= self.others).astype(float)

    def sf(self, x: object) -> np.ndarray:
        return (np.asarray(x) < self.others).astype(float)

    def range(self, tail: float = TAIL) -> tuple[int, int]:
        check_probability("tail", tail)
        return self.others, self.others

    def _sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.full(size, self.others)

    def thinned(self, q: float):
        return binom(self.others, q)


class BinomialPopulation(_FrozenLaw):
    """Each of the ``n' − 1`` other potential users takes part independently with probability ``alpha``.

    ``N − 1 ~ Bin(n' − 1, alpha)`` (Theorem 1; the Adult experiment has
    ``n' = 48,842``).

    Parameters
    ----------
    n_prime
        Number of potential users, user 1 included (an integer >= 2).
    alpha
        Participation rate, in ``(0, 1]``.

    Examples
    --------
    >>> law = BinomialPopulation(5001, 0.2)
    >>> law.mean, round(law.inverse_moments()[0] * 1e4, 4)
    (1000.0, 9.998)
    """

    name = "binomial"

    def __init__(self, n_prime: int, alpha: float) -> None:
        self.n_prime = check_n(n_prime, "n_prime")
        self.alpha = check_probability("alpha", alpha, closed_high=True)
        self._dist = binom(self.n_prime - 1, self.alpha)

    def __repr__(self) -> str:
        return f"BinomialPopulation(n_prime={self.n_prime}, alpha={self.alpha})"

    @property
    def _high(self) -> float:
        return float(self.n_prime - 1)

    def _sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.binomial(self.n_prime - 1, self.alpha, size=size)

    def thinned(self, q: float):
        return binom(self.n_prime - 1, self.alpha * q)

    def subgaussian_tail(self) -> SubGaussianTail:
        """A valid :class:`SubGaussianTail`: Hoeffding gives ``tau^2 = (n' − 1)/2``.

        Examples
        --------
        >>> BinomialPopulation(5001, 0.2).subgaussian_tail()
        SubGaussianTail(mean=1000.0, tau=50.0)
        """
        return SubGaussianTail(self.mean, math.sqrt((self.n_prime - 1) / 2.0))


class PoissonPopulation(_FrozenLaw):
    """``N − 1 ~ Poisson(lam)``: arrivals in a time window (Theorem 2).

    Parameters
    ----------
    lam
        Mean number of other participants, a finite number > 0.

    Examples
    --------
    >>> PoissonPopulation(5000).subgaussian_tail()
    SubGaussianTail(mean=5000.0, tau=100.0)
    """

    name = "poisson"

    def __init__(self, lam: float) -> None:
        self.lam = check_positive("lam", lam)
        if self.lam > N_MAX:
            raise ValueError(f"lam must be a number > 0 and <= {N_MAX}, got {lam!r}")
        self._dist = poisson(self.lam)

    def __repr__(self) -> str:
        return f"PoissonPopulation(lam={self.lam})"

    def _sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.poisson(self.lam, size=size)

    def thinned(self, q: float):
        return poisson(self.lam * q)

    def subgaussian_tail(self) -> SubGaussianTail:
        """A valid :class:`SubGaussianTail`: the Poisson lower tail is at most ``exp(−t^2/(2 lam))``."""
        return SubGaussianTail(self.mean, math.sqrt(2.0 * self.lam))


def _nbinom(r: float, p: float):
    """The frozen ``scipy.stats.nbinom(r, p)``, imported on first use (the start-up of the other laws'
    questions does not pay for :mod:`scipy.stats`)."""
    from scipy.stats import nbinom

    return nbinom(r, p)


class NegativeBinomialPopulation(_FrozenLaw):
    """An over-dispersed population: a negative binomial with the given mean and variance.

    ``N − 1`` is a Poisson count whose rate is Gamma-distributed, so any
    ``variance > mean`` is reachable; thinning keeps the family (the number
    of clones is again negative binomial).

    Parameters
    ----------
    mean
        ``E[N − 1]``, a finite number > 0.
    variance
        ``Var[N − 1]``, a finite number ``> mean``.

    Examples
    --------
    >>> law = NegativeBinomialPopulation(5000, 8000)
    >>> round(law.mean, 6), round(law.variance, 6)
    (5000.0, 8000.0)
    """

    name = "negbin"

    def __init__(self, mean: float, variance: float) -> None:
        mean = check_positive("mean", _check_mean("mean", mean))
        # The exact bounds walk the law's support (about 20 standard deviations wide): a standard
        # deviation of at most 1e5 keeps it to a few million counts.
        variance = check_positive("variance", check_in_range("variance", variance, 0.0, 1e10))
        if not variance > mean:
            raise ValueError(f"variance must be > mean = {mean!r} for a negative binomial, got {variance!r}")
        self._mean, self._variance = mean, variance
        self.r = mean**2 / (variance - mean)
        self.p = mean / variance
        self._dist = _nbinom(self.r, self.p)

    def __repr__(self) -> str:
        return f"NegativeBinomialPopulation(mean={self._mean}, variance={self._variance})"

    @property
    def mean(self) -> float:
        return self._mean

    @property
    def variance(self) -> float:
        return self._variance

    def _sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.negative_binomial(self.r, self.p, size=size)

    def thinned(self, q: float):
        # PGF (p / (1 - (1 - p) z))^r at z -> 1 - q + q z keeps the form with p' = p / (p + q (1 - p)).
        return _nbinom(self.r, self.p / (self.p + q * (1.0 - self.p)))


class DiscretePopulation(PopulationLaw):
    """Any finite law of ``N − 1``: values and their probabilities.

    Parameters
    ----------
    values
        Distinct non-negative integers (1-D).
    probs
        Their probabilities (non-negative, summing to 1 within 1e-9).

    Examples
    --------
    >>> law = DiscretePopulation([0, 10_000], [0.01, 0.99])
    >>> law.mean, law.lower_quantile(0.02)
    (9900.0, 10000)
    """

    name = "discrete"

    def __init__(self, values: object, probs: object) -> None:
        v = check_array("values", values, ndim=1, low=0, integral=True)
        w = check_array("probs", probs, ndim=1, low=0.0)
        if v.size == 0 or v.size != w.size:
            raise ValueError(f"values and probs must be non-empty and of equal length, got {v.size} and {w.size}")
        if np.unique(v).size != v.size:
            raise ValueError("values must be distinct")
        if abs(w.sum() - 1.0) > 1e-9:
            raise ValueError(f"probs must sum to 1, got {w.sum()!r}")
        order = np.argsort(v)
        self.values = v[order].astype(np.int64)
        self.probs = w[order] / w.sum()
        self._cum = np.cumsum(self.probs)
        self._rcum = np.cumsum(self.probs[::-1])[::-1]  # mass at or above each value

    def __repr__(self) -> str:
        return f"DiscretePopulation(values={self.values.tolist()}, probs={self.probs.tolist()})"

    @property
    def mean(self) -> float:
        return float(np.sum(self.values * self.probs))

    @property
    def variance(self) -> float:
        return float(np.sum((self.values - self.mean) ** 2 * self.probs))

    def pmf(self, x: object) -> np.ndarray:
        x = np.asarray(x)
        index = np.searchsorted(self.values, x)
        inside = (index < self.values.size) & (self.values[np.minimum(index, self.values.size - 1)] == x)
        return np.where(inside, self.probs[np.minimum(index, self.values.size - 1)], 0.0)

    def cdf(self, x: object) -> np.ndarray:
        index = np.searchsorted(self.values, np.asarray(x), side="right")  # values <= x
        return np.where(index > 0, self._cum[np.maximum(index - 1, 0)], 0.0)

    def sf(self, x: object) -> np.ndarray:
        index = np.searchsorted(self.values, np.asarray(x), side="right")  # first value > x
        return np.where(index < self.values.size, self._rcum[np.minimum(index, self.values.size - 1)], 0.0)

    def range(self, tail: float = TAIL) -> tuple[int, int]:
        tail = check_probability("tail", tail)
        lo = int(self.values[np.searchsorted(self._cum, tail, side="right")])
        above = np.flatnonzero(self._rcum > tail)
        hi = int(self.values[above[-1]]) if above.size else lo
        return lo, max(lo, hi)

    def support(self, tail: float = TAIL) -> tuple[np.ndarray, np.ndarray, float]:
        lo, hi = self.range(tail)
        keep = (self.values >= lo) & (self.values <= hi)
        return self.values[keep], self.probs[keep], float(max(1.0 - self.probs[keep].sum(), 0.0))

    def _sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.choice(self.values, size=size, p=self.probs)
