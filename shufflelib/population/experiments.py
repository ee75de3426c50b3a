r"""The experiments of Section VII: binary distribution estimation with a random population.

A :class:`Scenario` couples a population law (for privacy) with the data the
participants hold (for utility). For a central target ``(eps, delta)``,
:func:`plan` sets each approach's local budget (and dummies):

* ``LOCAL`` — ``eps0 = eps`` (no amplification: ``N − 1 = 0`` is possible);
* ``AMPLIFIED`` — ``A(0)`` from the paper's theorem (Theorem 1 or 2);
* ``TIGHT`` — ``A(0)`` from the tight clone bound (not in the paper);
* ``NON-ADAPTIVE`` / ``ADAPTIVE`` — the optimal dummies (eqs. (6)–(7)) with
  Theorem 4 / the adaptive reconstruction;
* ``RandomCheckin`` — random check-ins (binomial participation only);
* ``MULTI-EXPECTED`` / ``MULTI-UNION`` — the two multi-message protocols.

:func:`mean_tve` simulates one approach through sufficient statistics and
returns the mean total variation error ``TVE = |P_hat(0) − P(0)| + |P_hat(1) − P(1)| = 2 |P_hat(1) − P(1)|``
(no projection onto the simplex, as in the paper).

Examples
--------
>>> plans = plan(poisson_scenario(5000, 0.45), 0.1, 1e-5, ("LOCAL", "AMPLIFIED"))
>>> plans["LOCAL"].eps0, round(plans["AMPLIFIED"].eps0, 3)  # the local ε0 that shuffling amplifies to ε = 0.1
(0.1, 0.845)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .._validation import check_positive, check_probability
from .bounds import AdaptiveTheorem, BinomialTheorem, PoissonTheorem, TemplateBound
from .dummies import optimal_dummies
from .estimation import (
    RandomCheckin,
    draw_finite_participants,
    draw_iid_participants,
    dummy_count,
    estimate_p1,
    shuffled_rr_ones,
)
from .laws import BinomialPopulation, PoissonPopulation, PopulationLaw
from .multimessage import MultiExpected, multi_expected
from .tight import TightClones
from .union import MultiUnion, multi_union

__all__ = [
    "SINGLE_MESSAGE",
    "MULTI_MESSAGE",
    "ADULT_FEMALE",
    "ADULT_MALE",
    "Scenario",
    "Plan",
    "adult_scenario",
    "poisson_scenario",
    "plan",
    "mean_tve",
]

#: Single-message approaches, in the order of the paper's figures (plus ``TIGHT``).
SINGLE_MESSAGE = ("LOCAL", "AMPLIFIED", "TIGHT", "NON-ADAPTIVE", "ADAPTIVE", "RandomCheckin")
#: Multi-message approaches.
MULTI_MESSAGE = ("MULTI-UNION", "MULTI-EXPECTED")
#: UCI Adult, attribute sex, with 16,192 women and 32,650 men (48,842 people).
ADULT_FEMALE, ADULT_MALE = 16_192, 32_650


@dataclass(frozen=True)
class Scenario:
    """A population law, the data of the participants, and the paper's theorem for the law.

    Made by :func:`adult_scenario` and :func:`poisson_scenario`.

    Attributes
    ----------
    law
        Law of ``N − 1``.
    p1
        The target ``P(1)``.
    theorem
        ``k -> TemplateBound`` with ``k`` non-adaptive dummies (Theorem 1/4(a) or 2/4(b)).
    finite
        ``(ones, zeros)`` of a fixed dataset whose users take part independently
        (binomial participation), or ``None`` for i.i.d. data.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> law = PoissonPopulation(1000)
    >>> s = Scenario(law, 0.3, lambda k: PoissonTheorem(law, k))  # what poisson_scenario(1000, 0.3) builds
    >>> s.theorem(0), s.checkin
    (PoissonTheorem(PoissonPopulation(lam=1000.0), dummies=0, form='chernoff'), None)
    >>> n, ones = s.draw(3, np.random.default_rng(0))  # participants and how many of them hold 1
    >>> n.tolist(), ones.tolist()
    ([1013, 920, 1011], [301, 280, 316])
    >>> adult_scenario(0.2).checkin  # a fixed dataset with binomial participation
    RandomCheckin(n_prime=48842, alpha=0.2, slots=9768)
    """

    law: PopulationLaw
    p1: float
    theorem: Callable[[int], TemplateBound]
    finite: tuple[int, int] | None = None

    def draw(self, runs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``runs`` draws of ``(n, true_ones)`` for the participants."""
        if self.finite is not None:
            alpha = self.law.alpha  # type: ignore[attr-defined]
            return draw_finite_participants(self.finite[0], self.finite[1], alpha, runs, rng)
        return draw_iid_participants(self.law, self.p1, runs, rng)

    @property
    def checkin(self) -> RandomCheckin | None:
        """The random check-in baseline (binomial participation only)."""
        if isinstance(self.law, BinomialPopulation):
            return RandomCheckin(self.law.n_prime, self.law.alpha)
        return None


def adult_scenario(alpha: float) -> Scenario:
    """UCI Adult's sex attribute (48,842 people), each taking part with probability ``alpha``.

    Examples
    --------
    >>> round(adult_scenario(0.2).p1, 4)
    0.3315
    """
    alpha = check_probability("alpha", alpha, closed_high=True)
    law = BinomialPopulation(ADULT_FEMALE + ADULT_MALE, alpha)
    return Scenario(
        law, ADULT_FEMALE / (ADULT_FEMALE + ADULT_MALE), lambda k: BinomialTheorem(law, k), (ADULT_FEMALE, ADULT_MALE)
    )


def poisson_scenario(lam: float, p1: float) -> Scenario:
    """Synthetic data: ``N − 1 ~ Poisson(lam)``, each participant holds 1 with probability ``p1``.

    Examples
    --------
    >>> poisson_scenario(1000, 0.9).law
    PoissonPopulation(lam=1000.0)
    """
    law = PoissonPopulation(check_positive("lam", lam))
    return Scenario(law, check_probability("p1", p1), lambda k: PoissonTheorem(law, k))


@dataclass(frozen=True)
class Plan:
    """An approach's parameters for one central target.

    Attributes
    ----------
    method
        One of :data:`SINGLE_MESSAGE` or :data:`MULTI_MESSAGE`.
    eps0
        Local budget (single-message approaches; ``nan`` otherwise).
    dummies
        Number of dummies, or the padding threshold when ``adaptive``.
    adaptive
        Whether dummies pad the batch.
    protocol
        The multi-message protocol's parameters (``None`` for single-message approaches).

    Examples
    --------
    >>> Plan("LOCAL", 0.5)
    Plan(method='LOCAL', eps0=0.5, dummies=0, adaptive=False, protocol=None)
    >>> plans = plan(poisson_scenario(1000, 0.3), 0.1, 1e-5, ("LOCAL", "AMPLIFIED"))
    >>> plans["LOCAL"].eps0, round(plans["AMPLIFIED"].eps0, 4)  # amplification allows a larger local budget
    (0.1, 0.3831)
    """

    method: str
    eps0: float = float("nan")
    dummies: int = 0
    adaptive: bool = False
    protocol: MultiExpected | MultiUnion | None = None


def plan(scenario: Scenario, eps: float, delta: float, methods: Sequence[str] = SINGLE_MESSAGE) -> dict[str, Plan]:
    """Each approach's parameters for the central target ``(eps, delta)``.

    Examples
    --------
    >>> plans = plan(adult_scenario(0.05), 0.001, 1e-5, ("AMPLIFIED", "NON-ADAPTIVE"))
    >>> plans["NON-ADAPTIVE"].dummies > 0
    True
    """
    eps = check_positive("eps", eps)
    delta = check_probability("delta", delta)
    law, theorem = scenario.law, scenario.theorem
    out: dict[str, Plan] = {}
    for method in methods:
        if method == "LOCAL":
            out[method] = Plan(method, eps)
        elif method == "AMPLIFIED":
            out[method] = Plan(method, theorem(0).max_local_eps(eps, delta))
        elif method == "TIGHT":
            out[method] = Plan(method, TightClones(law).max_local_eps(eps, delta))
        elif method == "NON-ADAPTIVE":
            choice = optimal_dummies(theorem, law, eps, delta)
            out[method] = Plan(method, choice.eps0, choice.dummies)
        elif method == "ADAPTIVE":
            base = theorem(0)
            choice = optimal_dummies(lambda k, base=base: AdaptiveTheorem(base, k), law, eps, delta, adaptive=True)
            out[method] = Plan(method, choice.eps0, choice.dummies, adaptive=True)
        elif method == "RandomCheckin":
            checkin = scenario.checkin
            if checkin is None:
                raise ValueError("RandomCheckin needs a binomial population")
            out[method] = Plan(method, checkin.max_local_eps(eps, delta))
        elif method == "MULTI-EXPECTED":
            out[method] = Plan(method, protocol=multi_expected(eps, delta, law))
        elif method == "MULTI-UNION":
            out[method] = Plan(method, protocol=multi_union(eps, delta, law))
        else:
            raise ValueError(f"method must be one of {', '.join(SINGLE_MESSAGE + MULTI_MESSAGE)}, got {method!r}")
    return out


def mean_tve(
    scenario: Scenario, approach: Plan, draws: tuple[np.ndarray, np.ndarray], rng: np.random.Generator
) -> float:
    """Mean total variation error of ``approach`` over the participant ``draws`` (one run per draw).

    Parameters
    ----------
    scenario
        The scenario (for the target ``P(1)`` and the check-in baseline).
    approach
        A :class:`Plan` from :func:`plan`.
    draws
        ``(n, true_ones)`` per run, from :meth:`Scenario.draw` (shared by the
        approaches, so that their errors are compared on the same participants).
    rng
        Randomness of the reports.

    Examples
    --------
    >>> import numpy as np
    >>> scenario = poisson_scenario(1000, 0.3)
    >>> plans = plan(scenario, 0.1, 1e-5, ("LOCAL", "AMPLIFIED"))
    >>> draws = scenario.draw(500, np.random.default_rng(0))
    >>> round(mean_tve(scenario, plans["LOCAL"], draws, np.random.default_rng(1)), 2)  # eps0 = 0.1
    0.51
    >>> round(mean_tve(scenario, plans["AMPLIFIED"], draws, np.random.default_rng(1)), 2)  # eps0 = 0.383
    0.13
    """
    n, ones = draws
    if approach.protocol is not None:
        estimates = approach.protocol.simulate_means(n, ones, rng)
    elif approach.method == "RandomCheckin":
        checkin = scenario.checkin
        if checkin is None or scenario.finite is None:
            raise ValueError("RandomCheckin needs a fixed dataset with binomial participation")
        selected, selected_ones = checkin.draw(scenario.finite[0], scenario.finite[1], n.size, rng)
        dummies = checkin.slots - selected
        reported = shuffled_rr_ones(selected, selected_ones, approach.eps0, dummies, rng)
        estimates = estimate_p1(reported, selected, dummies, approach.eps0)
    else:
        dummies = dummy_count(n, approach.dummies, approach.adaptive)
        reported = shuffled_rr_ones(n, ones, approach.eps0, dummies, rng)
        estimates = estimate_p1(reported, n, dummies, approach.eps0)
    return float(np.mean(2.0 * np.abs(estimates - scenario.p1)))
