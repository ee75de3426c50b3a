"""Shuffle differential privacy for a random population (Wang et al., IEEE TPDS 2023).

Modules:

* :mod:`~shufflelib.population.laws` — laws of the number of other participants, and partial descriptions;
* :mod:`~shufflelib.population.template` — the tail-bound template of Theorems 1–4 (closed forms);
* :mod:`~shufflelib.population.bounds` — Theorems 1–4 and adaptive dummies as bounds with the three questions;
* :mod:`~shufflelib.population.clone_count` — the exact law of the number of clones, with dummies;
* :mod:`~shufflelib.population.tight` — the tight numerical bound, the exact shuffled-RR lower bound, an audit sampler;
* :mod:`~shufflelib.population.choice` — which bound fits which population (the calculator and the chapter ask it);
* :mod:`~shufflelib.population.tails` — the exact probabilities of each theorem's failure events;
* :mod:`~shufflelib.population.estimation` — estimators, their errors, simulation, random check-ins;
* :mod:`~shufflelib.population.dummies` — the optimal number of dummies;
* :mod:`~shufflelib.population.dgauss` — the discrete Gaussian (pmf, exact sampler, sums);
* :mod:`~shufflelib.population.multimessage` — the multi-message protocol (Algorithms 1–2, Lemma 4, Theorem 6);
* :mod:`~shufflelib.population.union` — Theorem 5, Table II and the MULTI-UNION baseline;
* :mod:`~shufflelib.population.security` — sigma-security of shuffled shares, exactly, on toy sizes;
* the calculator family (``python -m shufflelib --bound pop-...``): :mod:`shufflelib.calculator.population`.

Examples
--------
>>> from shufflelib.population import BinomialPopulation, BinomialTheorem, TightClones
>>> law = BinomialPopulation(48_842, 0.2)
>>> TightClones(law).epsilon(1.0, 1e-5) < BinomialTheorem(law).epsilon(1.0, 1e-5)
True
"""

from .bounds import (
    AdaptiveTheorem,
    BinomialTheorem,
    MeanVarianceTheorem,
    PoissonTheorem,
    PopulationBound,
    SubExponentialTheorem,
    SubGaussianTheorem,
    TemplateBound,
)
from .laws import (
    BinomialPopulation,
    DiscretePopulation,
    FixedPopulation,
    MeanVariance,
    NegativeBinomialPopulation,
    PoissonPopulation,
    PopulationLaw,
    SubExponentialTail,
    SubGaussianTail,
)
from .tight import ExactShuffledRR, TightClones

__all__ = [
    "PopulationLaw",
    "FixedPopulation",
    "BinomialPopulation",
    "PoissonPopulation",
    "NegativeBinomialPopulation",
    "DiscretePopulation",
    "MeanVariance",
    "SubGaussianTail",
    "SubExponentialTail",
    "PopulationBound",
    "TemplateBound",
    "BinomialTheorem",
    "PoissonTheorem",
    "MeanVarianceTheorem",
    "SubGaussianTheorem",
    "SubExponentialTheorem",
    "AdaptiveTheorem",
    "TightClones",
    "ExactShuffledRR",
]
