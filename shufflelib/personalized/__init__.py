"""Personalized privacy in the shuffle model (Liu, Liu, Xiong, Gu and Chen, 2024).

Users choose their own local privacy ``(eps_i, delta_i)``; after shuffling,
how private is the whole protocol?

* :mod:`~shufflelib.personalized.population`: populations stored as levels
  with counts, and the settings of Table 1;
* :mod:`~shufflelib.personalized.mechanisms`: randomized response, Laplace
  and Gaussian randomizers with per-user parameters (and Gaussian calibrations);
* :mod:`~shufflelib.personalized.hypothesis_testing`: the paper's clone
  probabilities ``p_1``, ``p_i`` (closed forms and the numeric recipe);
* :mod:`~shufflelib.personalized.clone_count`: Poisson-binomial clone counts
  and the exact privacy curve of a clone pair;
* :mod:`~shufflelib.personalized.theorems`: Theorems 1 and 2, printed and
  consistently read;
* :mod:`~shufflelib.personalized.sound`: a sound bound from valid clone
  decompositions;
* :mod:`~shufflelib.personalized.baselines` and
  :mod:`~shufflelib.personalized.bounds`: the paper's baselines and every
  bound answering the three questions for a population;
* :mod:`~shufflelib.personalized.exact_shuffle` and
  :mod:`~shufflelib.personalized.monte_carlo`: exact and Monte Carlo lower
  bounds on the true privacy of the shuffled protocol;
* :mod:`~shufflelib.personalized.reproduction`: Table 2 and Figure 4;
* :mod:`~shufflelib.personalized.regions` and :mod:`~shufflelib.personalized.schematics`:
  the regions of the paper's Fig. 2 with the pointwise conditions they break, and the
  pictures of Figs. 1 and 2;
* the calculator's family: :mod:`shufflelib.calculator.personalized`.
"""

from .bounds import (
    PERSONALIZED_BOUNDS,
    BlanketAtMax,
    GaussianDPApproximation,
    LZXProxy,
    PaperClonePair,
    PaperTheorem2,
    PaperTheorem2Printed,
    PersonalizedBound,
    SoundClones,
    StrongerClonesAtMax,
)
from .clone_count import CloneCount, clone_pair_delta
from .exact_shuffle import exact_rr_delta, laplace_bracket
from .hypothesis_testing import numeric_probabilities, paper_p1, paper_pi
from .mechanisms import LocalMechanism, gaussian_delta, gaussian_sigma
from .monte_carlo import MonteCarloDelta, count_sampler, likelihood_ratio_sampler, log_likelihood_ratios, mc_delta
from .population import Population, gaussian_population, table1_population, two_level_population, uniform_population
from .sound import no_shuffling_delta, sound_delta
from .theorems import (
    ClonePlan,
    exact_pair_tradeoff,
    paper_plan,
    symmetrized,
    theorem1_corrected,
    theorem1_printed,
    theorem2_delta,
    theorem2_printed_delta,
)

__all__ = [
    "Population",
    "table1_population",
    "uniform_population",
    "gaussian_population",
    "two_level_population",
    "LocalMechanism",
    "gaussian_delta",
    "gaussian_sigma",
    "paper_p1",
    "paper_pi",
    "numeric_probabilities",
    "CloneCount",
    "clone_pair_delta",
    "ClonePlan",
    "paper_plan",
    "theorem1_printed",
    "theorem1_corrected",
    "theorem2_delta",
    "theorem2_printed_delta",
    "exact_pair_tradeoff",
    "symmetrized",
    "sound_delta",
    "no_shuffling_delta",
    "exact_rr_delta",
    "laplace_bracket",
    "MonteCarloDelta",
    "log_likelihood_ratios",
    "mc_delta",
    "likelihood_ratio_sampler",
    "count_sampler",
    "PersonalizedBound",
    "PaperTheorem2",
    "PaperTheorem2Printed",
    "PaperClonePair",
    "SoundClones",
    "StrongerClonesAtMax",
    "BlanketAtMax",
    "GaussianDPApproximation",
    "LZXProxy",
    "PERSONALIZED_BOUNDS",
]
