"""Which bound of Wang et al. (IEEE TPDS 2023) fits which population: the one place that decides.

:data:`ACCEPTS` lists, for each bound (by command-line name), the population descriptions it
takes; :func:`bound_for` builds the bound for a population and a dummy policy (the calculator
calls it), and :func:`law_bounds` every bound that covers a full law (the random-population
chapter's comparison).

Examples
--------
>>> from shufflelib.population.laws import PoissonPopulation
>>> sorted(law_bounds(PoissonPopulation(5000)))
['Theorem 2', 'Theorem 3', 'Theorem 4(c)', 'exact RR (lower)', 'tight']
>>> bound_for("pop-subgaussian", PoissonPopulation(5000))
SubGaussianTheorem(SubGaussianTail(mean=5000.0, tau=...), dummies=0, budget='paper')
"""

from __future__ import annotations

from collections.abc import Mapping

from .._validation import check_choice
from .bounds import (
    AdaptiveTheorem,
    BinomialTheorem,
    MeanVarianceTheorem,
    PoissonTheorem,
    PopulationBound,
    SubExponentialTheorem,
    SubGaussianTheorem,
)
from .laws import (
    BinomialPopulation,
    MeanVariance,
    PoissonPopulation,
    PopulationLaw,
    SubExponentialTail,
    SubGaussianTail,
)
from .tight import ExactShuffledRR, TightClones

__all__ = ["ACCEPTS", "BOUNDS", "bound_for", "law_bounds"]

#: The bound classes, by command-line name.
BOUNDS: Mapping[str, type[PopulationBound]] = {
    cls.name: cls
    for cls in (
        BinomialTheorem,
        PoissonTheorem,
        MeanVarianceTheorem,
        SubGaussianTheorem,
        SubExponentialTheorem,
        TightClones,
        ExactShuffledRR,
    )
}

#: The population descriptions each bound takes (binomial and Poisson laws reach Theorem 4(c)
#: through their sub-Gaussian tails).
ACCEPTS: Mapping[str, tuple[type, ...]] = {
    "pop-binomial": (BinomialPopulation,),
    "pop-poisson": (PoissonPopulation,),
    "pop-meanvar": (MeanVariance, PopulationLaw),
    "pop-subgaussian": (SubGaussianTail, BinomialPopulation, PoissonPopulation),
    "pop-subexp": (SubExponentialTail,),
    "pop-tight": (PopulationLaw,),
    "pop-exact-rr": (PopulationLaw,),
}

_WORDS = {
    BinomialPopulation: "a binomial population",
    PoissonPopulation: "a Poisson population",
    PopulationLaw: "a full law (fixed, binomial, Poisson or negative binomial)",
    MeanVariance: "a mean and a variance",
    SubGaussianTail: "a sub-Gaussian tail",
    SubExponentialTail: "a sub-exponential tail",
}


def bound_for(
    name: str, population: object, dummies: int = 0, adaptive: bool = False, budget: str = "paper"
) -> PopulationBound:
    """The bound ``name`` for ``population`` with ``dummies`` dummies (padding if ``adaptive``).

    ``budget`` (``"paper"`` or ``"corrected"``) is the δ budget of Theorem 4(c)/(d)
    (``pop-subgaussian``, ``pop-subexp``; the other bounds take only ``"paper"``).

    Raises
    ------
    ValueError
        If the bound does not take this kind of population (the message lists the kinds it takes).

    Examples
    --------
    >>> from shufflelib.population.laws import BinomialPopulation
    >>> bound_for("pop-binomial", BinomialPopulation(5001, 0.2), 100, adaptive=True)
    AdaptiveTheorem(BinomialTheorem(BinomialPopulation(n_prime=5001, alpha=0.2), dummies=0), pad_to=100)
    """
    check_choice("bound", name, ACCEPTS)
    if not isinstance(population, ACCEPTS[name]):
        kinds = " or ".join(_WORDS[cls] for cls in ACCEPTS[name])
        raise ValueError(f"the {name} bound needs {kinds}, got {population!r}")
    cls = BOUNDS[name]
    options = {}
    if name in ("pop-subgaussian", "pop-subexp"):
        options["budget"] = budget
    elif budget != "paper":
        raise ValueError(f"the {name} bound has no budget option (only pop-subgaussian and pop-subexp)")
    if name in ("pop-tight", "pop-exact-rr"):
        return cls(population, dummies, adaptive)
    if name == "pop-subgaussian" and not isinstance(population, SubGaussianTail):
        population = population.subgaussian_tail()
    if adaptive:
        return AdaptiveTheorem(cls(population, 0, **options), dummies)
    return cls(population, dummies, **options)


def law_bounds(law: PopulationLaw, *, exact_blocks: int = 256) -> dict[str, PopulationBound]:
    """Every bound covering the full law ``law``, by short label: the tight bound, the theorems that
    apply, and the exact lower bound (with ``exact_blocks`` blocks: coarser blocks stay a lower bound).

    Examples
    --------
    >>> from shufflelib.population.laws import BinomialPopulation
    >>> list(law_bounds(BinomialPopulation(5001, 0.2)))
    ['tight', 'Theorem 3', 'Theorem 1', 'Theorem 4(c)', 'exact RR (lower)']
    """
    if not isinstance(law, PopulationLaw):
        raise ValueError(f"law must be a PopulationLaw, got {type(law).__name__}")
    bounds: dict[str, PopulationBound] = {"tight": TightClones(law), "Theorem 3": MeanVarianceTheorem(law)}
    if isinstance(law, BinomialPopulation):
        bounds["Theorem 1"] = BinomialTheorem(law)
    if isinstance(law, PoissonPopulation):
        bounds["Theorem 2"] = PoissonTheorem(law)
    if isinstance(law, (BinomialPopulation, PoissonPopulation)):
        bounds["Theorem 4(c)"] = SubGaussianTheorem(law.subgaussian_tail())
    bounds["exact RR (lower)"] = ExactShuffledRR(law, max_blocks=exact_blocks)
    return bounds
