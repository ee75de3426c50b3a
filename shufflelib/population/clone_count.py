r"""The law of the number of clones ``C`` when the population is random, with dummies.

Given ``M`` other reports (``M = N − 1`` real ones, plus dummies), each is a
clone of user 1's report with probability ``q = e^{-eps0}``, so ``C ~ Bin(M, q)``
given ``M``. The dummy policies change ``M``:

* none: ``M = N − 1``;
* ``k`` non-adaptive dummies: ``M = N − 1 + k`` (eq. (3) of Wang et al.);
* adaptive, padding the batch to ``k`` messages: ``M = max(N − 1, k − 1)``
  (the shuffler adds ``max(k − N, 0)`` dummies; this is the convention of the
  paper's prose and of its error formula, while its eq. (4) writes
  ``max(N − 1, k)``).

:func:`clone_count` returns the law of ``C`` as a :class:`CloneCount`, exactly
where possible:

* a closed form when thinning keeps the family (fixed ``n``, binomial, Poisson,
  negative binomial) and there are no dummies (or a fixed population);
* ``C_real + Bin(k, q)`` by convolution for non-adaptive dummies;
* for adaptive dummies on a binomial or Poisson population, the closed form
  ``Pr[C = c] = Pr[N − 1 <= k − 2] b(c; k − 1, q) + Pr[C_real = c] Pr[N − 1 >= k − 1 | C_real = c]``;
* otherwise the mixture ``sum_n Pr[N − 1 = n] Bin(M(n), q)``.

When a sum would be too large, a variable is replaced by a stochastically
smaller one (values rounded down to the left end of a block); since the
divergence of the clone pair decreases with the number of clones, this can
only increase δ. The mass outside the summed ranges is kept in
``CloneCount.dropped`` and counted as if ``C = 0`` (the worst case).

Examples
--------
>>> from shufflelib.population.laws import BinomialPopulation
>>> law = clone_count(BinomialPopulation(5001, 0.2), eps0=1.0)
>>> round(law.mean(), 3)  # 5000 * 0.2 / e
367.879
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._laws import binom, poisson
from .._validation import check_int, check_positive
from ..bounds.clone_pair import BINOM_RTOL
from .laws import BinomialPopulation, FixedPopulation, PoissonPopulation, PopulationLaw, integer_range

__all__ = ["CloneCount", "clone_count", "others_after_dummies", "C_TAIL", "MAX_BLOCKS"]

#: Mass left out on each side of a clone-count range (counted in ``dropped``).
C_TAIL = 1e-30
#: Default number of blocks the clone count is cut into when bounding δ.
MAX_BLOCKS = 2048
#: Largest number of multiply-adds a convolution or a mixture may use before blocking.
_WORK = 4e7
#: Largest number of values of the clone count held as an explicit pmf.
_MAX_POINTS = 20_000_000


def others_after_dummies(others: np.ndarray, dummies: int, adaptive: bool) -> np.ndarray:
    """Number of other reports ``M`` seen with user 1 for ``others = N − 1`` real ones.

    Examples
    --------
    >>> import numpy as np
    >>> others_after_dummies(np.array([0, 5, 50]), 10, adaptive=False).tolist()
    [10, 15, 60]
    >>> others_after_dummies(np.array([0, 5, 50]), 10, adaptive=True).tolist()
    [9, 9, 50]
    """
    others = np.asarray(others)
    if dummies == 0:
        return others
    return np.maximum(others, dummies - 1) if adaptive else others + dummies


@dataclass(frozen=True)
class CloneCount:
    """The law of the clone count ``C`` (or a stochastically smaller stand-in).

    Either a frozen law ``dist`` (with the methods of a frozen :mod:`scipy.stats` distribution),
    or a pmf ``pmf`` on the integers ``start, start + 1, ...``. ``dropped`` is the probability
    mass not represented (bounds treat it as ``C = 0``).

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.population.clone_count import CloneCount, clone_count
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> c = clone_count(PoissonPopulation(1000), 1.0)  # thinning: C ~ Poisson(1000 / e)
    >>> c.pmf is None, round(c.mean(), 3)
    (True, 367.879)
    >>> explicit = CloneCount(start=2, pmf=np.array([0.25, 0.5, 0.25]))
    >>> explicit.range(), explicit.mean(), float(explicit.cdf_below(3.5))  # Pr[C <= 3]
    ((2, 4), 3.0, 0.75)
    """

    dist: object | None = None
    start: int = 0
    pmf: np.ndarray | None = None
    dropped: float = 0.0

    def range(self) -> tuple[int, int]:
        """First and last value of ``C`` represented.

        Examples
        --------
        >>> from scipy import stats
        >>> CloneCount(dist=stats.binom(10, 0.5)).range()
        (0, 10)
        """
        if self.pmf is not None:
            return self.start, self.start + self.pmf.size - 1
        d = self.dist
        return _dist_range(d)

    def mean(self) -> float:
        """``E[C]`` of the represented law (dropped mass excluded).

        Examples
        --------
        >>> from scipy import stats
        >>> CloneCount(dist=stats.poisson(7.0)).mean()
        7.0
        """
        if self.pmf is not None:
            return float(np.sum((self.start + np.arange(self.pmf.size)) * self.pmf))
        return float(self.dist.mean())

    def cdf_below(self, omega: object) -> np.ndarray:
        """``Pr[C < omega]``, counting the dropped mass as below (an upper bound, exact up to ``dropped``).

        Examples
        --------
        >>> from scipy import stats
        >>> float(CloneCount(dist=stats.binom(4, 0.5)).cdf_below(2.0))  # Pr[C <= 1] = 5/16
        0.3125
        """
        x = np.ceil(np.asarray(omega, dtype=float)) - 1.0  # largest integer < omega
        if self.pmf is not None:
            cum = np.concatenate([[0.0], np.cumsum(self.pmf)])
            index = np.clip(x - self.start + 1, 0, self.pmf.size).astype(np.int64)
            below = cum[index]
        else:
            below = self.dist.cdf(x)
        return np.minimum(below + self.dropped, 1.0)

    def blocks(self, max_blocks: int = MAX_BLOCKS) -> tuple[np.ndarray, np.ndarray, float]:
        """Blocks of values of ``C``: their left ends, their masses, and the dropped mass.

        At most ``max_blocks`` blocks of equal width cover the represented
        range (width 1, i.e. exact, when the range is small enough). Giving each
        block's mass to its left end makes ``C`` stochastically smaller; masses are rounded up
        by their error bound (each cdf or sf value within
        :data:`~shufflelib.bounds.clone_pair.BINOM_RTOL`).

        Examples
        --------
        >>> from scipy import stats
        >>> starts, masses, dropped = CloneCount(dist=stats.binom(10, 0.5)).blocks()
        >>> starts.tolist()[:3], 1.0 <= float(masses.sum()) < 1.0 + 1e-8, dropped  # rounded up
        ([0.0, 1.0, 2.0], True, 0.0)
        """
        max_blocks = check_int("max_blocks", max_blocks, minimum=1)
        lo, hi = self.range()
        width = max(1, math.ceil((hi - lo + 1) / max_blocks))
        starts = np.arange(lo, hi + 1, width, dtype=float)
        if self.pmf is not None:
            index = (starts - self.start).astype(np.int64)
            masses = np.add.reduceat(self.pmf, index)
            return starts, np.maximum(masses, 0.0), self.dropped
        stops = np.append(starts[1:] - 1.0, float(hi))
        d = self.dist
        # The difference of the smaller tail, rounded up by its error (as binomial_interval_mass).
        low = stops <= d.mean()
        upper = np.where(low, d.cdf(stops), d.sf(starts - 1.0))
        lower = np.where(low, d.cdf(starts - 1.0), d.sf(stops))
        masses = np.maximum(upper - lower, 0.0) + BINOM_RTOL * (upper + lower)
        dropped = float(d.cdf(lo - 1.0) + d.sf(hi)) if lo > 0 else float(d.sf(hi))
        return starts, masses, self.dropped + dropped * (1.0 + BINOM_RTOL)


def _dist_range(d) -> tuple[int, int]:
    """Integers ``lo <= hi`` with at most :data:`C_TAIL` of ``d``'s mass below ``lo`` and above ``hi``.

    Fast path: ``lo`` from the quantile function and ``hi`` from a Gaussian-tail
    guess, each confirmed by the exact cdf/sf (the range need not be the
    tightest: mass outside it is accounted for); otherwise a bisection.
    """
    low, high = int(d.support()[0]), float(d.support()[1])
    mean, sd = float(d.mean()), float(d.std())
    lo = d.ppf(C_TAIL)
    hi = math.ceil(mean + 1.5 * math.sqrt(2.0 * math.log(1.0 / C_TAIL)) * sd + 10.0)
    if math.isfinite(high):
        hi = min(hi, int(high))
    if math.isfinite(lo) and (lo <= low or d.cdf(lo - 1.0) <= C_TAIL) and d.sf(hi) <= C_TAIL and lo <= hi:
        return int(lo), int(hi)
    return integer_range(lambda x: float(d.cdf(x)), lambda x: float(d.sf(x)), mean, sd, low, high, C_TAIL)


def _pmf_on_range(d) -> tuple[int, np.ndarray, float]:
    """The pmf of ``d`` on its range (:data:`C_TAIL` left out on each side) and the mass left out."""
    lo, hi = _dist_range(d)
    lost = float(d.cdf(lo - 1.0) + d.sf(hi)) if lo > 0 else float(d.sf(hi))
    return lo, d.pmf(np.arange(lo, hi + 1)), lost


def _check_size(size: int) -> None:
    if size > _MAX_POINTS:
        raise ValueError(
            f"the clone count spans {size:,} values, more than {_MAX_POINTS:,}: this population law is too "
            "spread out for an exact mixture (use a law with a closed-form thinning or fewer dummies)"
        )


def _convolve(start_a: int, a: np.ndarray, start_b: int, b: np.ndarray) -> tuple[int, np.ndarray]:
    """Law of the sum of two independent pmfs; ``b`` is blocked (left ends) if the work is too large."""
    if a.size * b.size <= _WORK:
        return start_a + start_b, np.convolve(a, b)
    width = math.ceil(b.size * a.size / _WORK)
    index = np.arange(0, b.size, width)
    weights = np.add.reduceat(b, index)
    out = np.zeros(a.size + b.size)
    for shift, w in zip(index, weights, strict=False):
        out[shift : shift + a.size] += w * a
    return start_a + start_b, out


def _adaptive_closed_form(law: PopulationLaw, q: float, pad_to: int) -> tuple[int, np.ndarray, float]:
    """``Pr[C = c]`` for padding to ``pad_to`` messages, binomial or Poisson population."""
    k1 = pad_to - 1  # the padded batch has at least k1 other reports
    real = law.thinned(q)
    lo_r, _, lost_r = _pmf_on_range(real)
    hi_r = _dist_range(real)[1]
    padded = binom(k1, q)
    lo_p, _, lost_p = _pmf_on_range(padded)
    hi_p = _dist_range(padded)[1]
    short = float(law.cdf(k1 - 1))  # Pr[N - 1 < k - 1]: the batch is padded
    if short <= C_TAIL:  # padding (almost) never happens: count it as dropped mass
        lo_p, hi_p, lost_p = lo_r, hi_r, short
    c = np.arange(min(lo_r, lo_p), max(hi_r, hi_p) + 1, dtype=float)
    _check_size(c.size)
    if isinstance(law, BinomialPopulation):
        trials = law.n_prime - 1
        rest = law.alpha * (1.0 - q) / (1.0 - law.alpha * q)  # others participating but not clones
        # Given c clones, the other participants are Bin(trials - c, rest); c > trials has probability 0.
        enough = np.where(c <= trials, binom.sf(k1 - 1 - c, np.maximum(trials - c, 0), rest), 0.0)
    else:
        enough = poisson.sf(k1 - 1 - c, law.lam * (1.0 - q))
    pmf = (short * padded.pmf(c) if short > C_TAIL else 0.0) + real.pmf(c) * enough
    return int(c[0]), pmf, lost_r + lost_p


def _mixture_by_losses(
    trials: np.ndarray, probs: np.ndarray, q: float, dropped: float
) -> tuple[int, np.ndarray, float]:
    """A clone count stochastically below the mixture, for ``q`` near 1 and a wide law of ``M``.

    ``C = M − B`` with ``B | M ~ Bin(M, 1 − q)`` (the reports that are not clones); ``B`` is
    stochastically below ``B' ~ Bin(max M, 1 − q)``, independent of ``M``, so ``M − B'`` is
    stochastically below ``C`` (the safe side, as blocking's smallest ``M``): its pmf is the law of
    ``M`` convolved with that of ``−B'``, ``|M| · |B'|`` multiply-adds instead of ``|M| · |C|``
    binomial terms. It loses ``(1 − q)(max M − M)`` clones on average, less than blocking's
    ``q`` times a block's width whenever the caller chooses it.
    """
    first = int(trials[0])
    law_m = np.bincount((trials - first).astype(np.int64), weights=probs)
    losses = binom(int(trials[-1]), 1.0 - q)
    lo_b, hi_b = _dist_range(losses)
    pmf_b = binom.pmf(np.arange(lo_b, hi_b + 1, dtype=float), int(trials[-1]), 1.0 - q)
    _check_size(law_m.size + pmf_b.size)
    pmf = np.clip(np.convolve(law_m, pmf_b[::-1]), 0.0, None)
    return first - hi_b, pmf, dropped + 2.0 * C_TAIL


def _mixture(law: PopulationLaw, q: float, dummies: int, adaptive: bool) -> tuple[int, np.ndarray, float]:
    """``sum_n Pr[N − 1 = n] Bin(M(n), q)``; ``N − 1`` blocked (left ends) if the work is too large."""
    values, probs, dropped = law.support()
    trials = others_after_dummies(values, dummies, adaptive).astype(float)
    lo, _ = _dist_range(binom(int(trials.min()), q))
    _, hi = _dist_range(binom(int(trials.max()), q))
    c = np.arange(lo, hi + 1, dtype=float)
    _check_size(c.size)
    blocks = max(1, min(trials.size, int(_WORK // c.size)))
    if blocks < trials.size and (1.0 - q) * (trials[-1] - trials[0]) < q * trials.size / blocks:
        return _mixture_by_losses(trials, probs, q, dropped)
    if blocks < trials.size:  # M(n) is non-decreasing in n: keep each block's smallest M
        index = np.linspace(0, trials.size, blocks, endpoint=False).astype(np.int64)
        trials, probs = trials[index], np.add.reduceat(probs, index)
    pmf = np.zeros(c.size)
    chunk = max(1, int(_WORK // (4 * c.size)))
    for i in range(0, trials.size, chunk):
        pmf += probs[i : i + chunk] @ binom.pmf(c[None, :], trials[i : i + chunk, None], q)
    # [lo, hi] holds all but C_TAIL of each binomial on each side.
    return lo, pmf, dropped + 2.0 * C_TAIL


def clone_count(law: PopulationLaw, eps0: float, dummies: int = 0, adaptive: bool = False) -> CloneCount:
    """The law of the number of clones ``C`` of user 1's report (see the module docstring).

    Parameters
    ----------
    law
        The law of ``N − 1`` (a :class:`~shufflelib.population.laws.PopulationLaw`).
    eps0
        Local privacy parameter (> 0); the clone probability is ``e^{-eps0}``.
    dummies
        Number ``k`` of dummies (non-adaptive) or the padding threshold (adaptive); an integer >= 0.
    adaptive
        Pad the batch to ``k`` messages instead of adding ``k`` dummies.

    Returns
    -------
    CloneCount

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> law = PoissonPopulation(1000)
    >>> plain = clone_count(law, 1.0)
    >>> padded = clone_count(law, 1.0, dummies=2000, adaptive=True)
    >>> plain.mean() < padded.mean()
    True
    """
    if not isinstance(law, PopulationLaw):
        raise ValueError(f"law must be a PopulationLaw, got {type(law).__name__}")
    eps0 = check_positive("eps0", eps0)
    dummies = check_int("dummies", dummies, minimum=0)
    if not isinstance(adaptive, bool):
        raise ValueError(f"adaptive must be True or False, got {adaptive!r}")
    if adaptive and dummies <= 1:  # padding to one message adds nothing: user 1 is there
        dummies = 0
    q = math.exp(-eps0)
    if isinstance(law, FixedPopulation):
        m = int(others_after_dummies(np.array(law.others), dummies, adaptive))
        return CloneCount(dist=binom(m, q))
    real = law.thinned(q)
    if real is not None and dummies == 0:
        return CloneCount(dist=real)
    if real is not None and not adaptive:
        start_r, pmf_r, lost_r = _pmf_on_range(real)
        start_d, pmf_d, lost_d = _pmf_on_range(binom(dummies, q))
        start, pmf = _convolve(start_r, pmf_r, start_d, pmf_d)
        return CloneCount(start=start, pmf=pmf, dropped=lost_r + lost_d)
    if adaptive and isinstance(law, (BinomialPopulation, PoissonPopulation)):
        start, pmf, lost = _adaptive_closed_form(law, q, dummies)
        return CloneCount(start=start, pmf=pmf, dropped=lost)
    start, pmf, lost = _mixture(law, q, dummies, adaptive)
    return CloneCount(start=start, pmf=pmf, dropped=lost)
