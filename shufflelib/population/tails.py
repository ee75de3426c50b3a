r"""The tail events behind Theorems 1–4, computed exactly for a given population law.

Each theorem's proof charges δ to events:

* the clones fall short, ``C < Omega``: the template needs probability at most
  ``delta/2``; the proofs of Theorem 4(c)/(d) only guarantee ``delta/4`` (the
  population) plus ``delta/2`` (the second stage), i.e. ``3 delta/4``;
* the population falls short, ``N − 1 + k < nu`` (Theorem 4(c)/(d) only, ``delta/4``);
* Hoeffding fails, ``|A − C/2| > sqrt(C log(4/delta)/2)`` (``delta/2``).

:func:`tail_check` returns the exact probability of each event under a full
law, next to its budget, so a reader can see which inequalities are loose and
whether any budget is exceeded.

Examples
--------
>>> from shufflelib.population.laws import BinomialPopulation
>>> from shufflelib.population.bounds import BinomialTheorem
>>> law = BinomialPopulation(5001, 0.2)
>>> check = tail_check(BinomialTheorem(law), law, 1.0, 1e-3)
>>> check.clones_below <= check.clones_budget, check.hoeffding <= check.hoeffding_budget
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._laws import binom
from .._validation import check_positive, check_probability
from .bounds import AdaptiveTheorem, TemplateBound, _TwoStageTheorem
from .clone_count import CloneCount, clone_count
from .laws import PopulationLaw
from .template import log_over

__all__ = ["TailCheck", "tail_check", "hoeffding_failure"]


@dataclass(frozen=True)
class TailCheck:
    """Exact probabilities of a theorem's failure events, with the budgets its proof assigns.

    Returned by :func:`tail_check`.

    Attributes
    ----------
    omega
        The theorem's lower bound on the clones.
    clones_below, clones_budget, clones_proved
        ``Pr[C < Omega]``, the ``delta/2`` the template needs, and what the proof guarantees.
    population_below, population_budget
        ``Pr[N − 1 + k < nu]`` and ``delta/4`` (two-stage theorems; ``nan`` otherwise).
    hoeffding, hoeffding_budget
        ``Pr[|A − C/2| > sqrt(C log(4/delta)/2)]`` and ``delta/2``.

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> from shufflelib.population.bounds import SubGaussianTheorem
    >>> law = PoissonPopulation(5000)
    >>> check = tail_check(SubGaussianTheorem(law.subgaussian_tail()), law, 1.0, 1e-3)
    >>> round(check.omega, 1), check.clones_budget, check.clones_proved
    (1571.1, 0.0005, 0.00075)
    >>> f"{check.population_below:.2e}", check.population_budget
    ('2.04e-05', 0.00025)
    >>> f"{check.clones_below:.1e}", f"{check.hoeffding:.1e}"  # far below their budgets
    ('7.6e-11', '4.6e-05')
    """

    omega: float
    clones_below: float
    clones_budget: float
    clones_proved: float
    population_below: float
    population_budget: float
    hoeffding: float
    hoeffding_budget: float


def hoeffding_failure(count: CloneCount, delta: float) -> float:
    """``Pr[|A − C/2| > sqrt(C log(4/delta)/2)]`` with ``A ~ Bin(C, 1/2)``, exactly over the law of ``C``.

    Examples
    --------
    >>> from scipy import stats
    >>> from shufflelib.population.clone_count import CloneCount
    >>> hoeffding_failure(CloneCount(dist=stats.binom(2000, 0.3)), 1e-3) <= 5e-4
    True
    """
    delta = check_probability("delta", delta)
    lo, hi = count.range()
    c = np.arange(lo, hi + 1, dtype=float)
    weights = count.pmf if count.pmf is not None else count.dist.pmf(c)
    radius = np.sqrt(c * log_over(4.0, delta) / 2.0)
    # |A - c/2| > radius: A > c/2 + radius or A < c/2 - radius (symmetric).
    upper = binom.sf(np.floor(c / 2.0 + radius), c, 0.5)
    return float(np.sum(weights * 2.0 * upper) + count.dropped)


def tail_check(theorem: TemplateBound, law: PopulationLaw, eps0: float, delta: float) -> TailCheck:
    """Exact failure probabilities of ``theorem``'s events when ``N − 1`` follows ``law``.

    ``law`` must satisfy the theorem's assumption (e.g. have its mean and
    variance, or its tail); the dummies and adaptive padding of ``theorem``
    are applied to the law.

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> from shufflelib.population.bounds import MeanVarianceTheorem
    >>> law = PoissonPopulation(5000)
    >>> check = tail_check(MeanVarianceTheorem(law, dummies=500), law, 1.0, 1e-3)
    >>> check.clones_below <= check.clones_budget, check.population_below  # one stage: no population event
    (True, nan)
    """
    if not isinstance(theorem, TemplateBound):
        raise ValueError(f"theorem must be a TemplateBound, got {type(theorem).__name__}")
    eps0 = check_positive("eps0", eps0)
    delta = check_probability("delta", delta)
    adaptive = isinstance(theorem, AdaptiveTheorem)
    dummies = theorem.pad_to if adaptive else getattr(theorem, "dummies", 0)
    count = clone_count(law, eps0, dummies, adaptive)
    omega = float(theorem.omega(eps0, delta))
    population_below, population_budget = math.nan, math.nan
    clones_proved = delta / 2.0
    if isinstance(theorem, _TwoStageTheorem):
        nu = theorem.floor(delta)
        population_below = float(law.cdf(math.ceil(nu - dummies) - 1))
        population_budget = delta / 4.0
        clones_proved = delta / 4.0 + (delta / 2.0 if theorem.budget == "paper" else delta / 4.0)
    return TailCheck(
        omega=omega,
        clones_below=float(count.cdf_below(omega)),
        clones_budget=delta / 2.0,
        clones_proved=clones_proved,
        population_below=population_below,
        population_budget=population_budget,
        hoeffding=hoeffding_failure(count, delta),
        hoeffding_budget=delta / 2.0,
    )
