"""Theorems 1–4 of Wang et al. as bounds (:mod:`shufflelib.population.bounds`), against the tight bound."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shufflelib.bounds.base import NotApplicableError
from shufflelib.population.bounds import (
    AdaptiveTheorem,
    BinomialTheorem,
    MeanVarianceTheorem,
    PoissonTheorem,
    SubExponentialTheorem,
    SubGaussianTheorem,
)
from shufflelib.population.laws import (
    BinomialPopulation,
    MeanVariance,
    NegativeBinomialPopulation,
    PoissonPopulation,
    SubExponentialTail,
    SubGaussianTail,
)
from shufflelib.population.tails import tail_check
from shufflelib.population.template import (
    fmt_simplified,
    master_epsilon,
    omega_mean_variance,
    omega_poisson,
)
from shufflelib.population.tight import TightClones

DELTA = 1e-5


def test_reference_values_of_the_digest():
    """Values computed independently in the paper's digest (section 5.7)."""
    adult = BinomialPopulation(48_842, 0.2)
    assert BinomialTheorem(adult).epsilon(1.0, DELTA) == pytest.approx(0.08725, abs=5e-6)
    assert BinomialTheorem(adult).max_eps0(0.1, DELTA) == pytest.approx(1.1034, abs=5e-5)
    assert float(fmt_simplified(1.0, DELTA, 0.2 * 48_842)) == pytest.approx(0.2009, abs=5e-5)
    assert PoissonTheorem(PoissonPopulation(5000)).epsilon(1.0, DELTA) == pytest.approx(0.12555, abs=5e-6)
    paper_4b = float(master_epsilon(omega_poisson(1.0, DELTA, 5000, 0, "paper"), 1.0, DELTA))
    assert paper_4b == pytest.approx(0.12937, abs=5e-6)
    assert SubGaussianTheorem(SubGaussianTail(5000, 50)).epsilon(1.0, DELTA) == pytest.approx(0.12822, abs=5e-6)
    assert SubExponentialTheorem(SubExponentialTail(5000, 2, 0.05)).epsilon(1.0, DELTA) == pytest.approx(
        0.12966, abs=5e-6
    )


def test_figure_2_parameters():
    """Fig. 2 (mu = 5000, eps0 = 0.5): vacuous at the printed delta = 1e-4; delta = 1e-3 matches the digest."""
    for tau2 in (0.0, 4000.0, 8000.0):
        assert float(omega_mean_variance(0.5, 1e-4, 5000, tau2)) < 2 * math.log(4 / 1e-4)
    expected = {0.0: 0.0566, 2000.0: 0.0679, 4000.0: 0.0845, 6000.0: 0.1152, 8000.0: 0.2161}
    for tau2, eps in expected.items():
        got = float(master_epsilon(omega_mean_variance(0.5, 1e-3, 5000, tau2), 0.5, 1e-3))
        assert got == pytest.approx(eps, abs=6e-5)


def _theorems_for(law):
    """Every closed-form theorem whose assumption ``law`` satisfies."""
    out = [MeanVarianceTheorem(law)]
    if isinstance(law, BinomialPopulation):
        out.append(BinomialTheorem(law))
    if isinstance(law, PoissonPopulation):
        out.append(PoissonTheorem(law))
    if isinstance(law, (BinomialPopulation, PoissonPopulation)):
        tail = law.subgaussian_tail()
        out += [SubGaussianTheorem(tail), SubGaussianTheorem(tail, budget="corrected")]
        # exp(-t^2/tau^2) <= a exp(-b t) for all t >= 0 when a = exp(b^2 tau^2 / 4).
        b = 2.0 / tail.tau
        out.append(SubExponentialTheorem(SubExponentialTail(tail.mean, math.exp(b**2 * tail.tau**2 / 4), b)))
    return out


@settings(max_examples=30, deadline=None)
@given(
    kind=st.sampled_from(["binomial", "poisson", "negbin"]),
    size=st.floats(3e3, 3e5),
    eps0=st.floats(0.2, 4.0),
    log_delta=st.floats(-12.0, -2.0),
)
def test_every_theorem_is_above_the_tight_bound(kind, size, eps0, log_delta):
    delta = 10.0**log_delta
    law = {
        "binomial": lambda: BinomialPopulation(int(size), 0.3),
        "poisson": lambda: PoissonPopulation(size),
        "negbin": lambda: NegativeBinomialPopulation(size, 3.0 * size),
    }[kind]()
    tight = TightClones(law).epsilon(eps0, delta)
    for theorem in _theorems_for(law):
        if theorem.applicable(eps0, delta):
            assert theorem.epsilon(eps0, delta) >= tight * (1 - 1e-9), theorem


@pytest.mark.parametrize("dummies", [500, 3000])
def test_dummy_theorems_are_above_the_tight_bound_with_dummies(dummies):
    law = BinomialPopulation(5001, 0.2)
    for eps0 in (0.5, 1.0, 2.0):
        tight = TightClones(law, dummies).epsilon(eps0, DELTA)
        assert BinomialTheorem(law, dummies).epsilon(eps0, DELTA) >= tight
        chebyshev = MeanVarianceTheorem(law, dummies)
        if chebyshev.applicable(eps0, 1e-2):
            assert chebyshev.epsilon(eps0, 1e-2) >= TightClones(law, dummies).epsilon(eps0, 1e-2)
        padded = TightClones(law, dummies, adaptive=True).epsilon(eps0, DELTA)
        assert AdaptiveTheorem(BinomialTheorem(law), dummies).epsilon(eps0, DELTA) >= padded
    poisson = PoissonPopulation(1000)
    for form in ("paper", "chernoff"):
        assert PoissonTheorem(poisson, dummies, form).epsilon(1.0, DELTA) >= TightClones(poisson, dummies).epsilon(
            1.0, DELTA
        )


def test_theorem_4b_as_printed_is_looser_than_theorem_2_at_zero_dummies():
    law = PoissonPopulation(5000)
    assert PoissonTheorem(law, 0, "paper").epsilon(1.0, DELTA) > PoissonTheorem(law).epsilon(1.0, DELTA)


@pytest.mark.parametrize(
    "theorem",
    [
        BinomialTheorem(BinomialPopulation(48_842, 0.2)),
        PoissonTheorem(PoissonPopulation(5000), 200),
        MeanVarianceTheorem(MeanVariance(2e7, 5e6), form="cantelli"),
        AdaptiveTheorem(PoissonTheorem(PoissonPopulation(800)), 3000),
    ],
    ids=repr,
)
def test_the_three_questions_agree(theorem):
    eps0 = 1.2
    eps = theorem.epsilon(eps0, DELTA)
    assert 0 < eps <= eps0
    assert theorem.delta(eps0, eps) <= DELTA * (1 + 1e-6)
    assert theorem.delta(eps0, eps * 0.999) > DELTA
    e0 = theorem.max_eps0(eps, DELTA)
    assert e0 == pytest.approx(eps0, rel=1e-6)
    assert theorem.epsilon(e0, DELTA) <= eps
    assert theorem.delta(eps0, eps0) == 0.0  # capped at eps0


def test_epsilon_increases_with_eps0_and_decreases_with_delta():
    theorem = BinomialTheorem(BinomialPopulation(48_842, 0.1))
    grid = [theorem.epsilon(e, DELTA) for e in np.linspace(0.2, 3.0, 15)]
    assert np.all(np.diff(grid) > 0)
    grid = [theorem.epsilon(1.0, d) for d in np.logspace(-12, -2, 11)]
    assert np.all(np.diff(grid) < 0)


def test_inapplicable_theorem_raises_and_the_local_budget_falls_back():
    theorem = BinomialTheorem(BinomialPopulation(100, 0.2))
    with pytest.raises(NotApplicableError, match="pop-binomial bound not applicable"):
        theorem.epsilon(1.0, DELTA)
    assert theorem.max_local_eps(0.3, DELTA) == 0.3


def test_cantelli_is_tighter_than_chebyshev():
    mv = MeanVariance(50_000, 4e4)
    assert MeanVarianceTheorem(mv, form="cantelli").epsilon(1.0, 1e-3) < MeanVarianceTheorem(mv).epsilon(1.0, 1e-3)


def test_paper_budget_of_theorem_4c_spends_five_quarters_of_delta():
    tail = SubGaussianTail(5000, 50)
    paper, corrected = SubGaussianTheorem(tail), SubGaussianTheorem(tail, budget="corrected")
    assert (paper.total_budget(), corrected.total_budget()) == (1.25, 1.0)
    assert corrected.epsilon(1.0, DELTA) > paper.epsilon(1.0, DELTA)
    law = BinomialPopulation(10_001, 0.5)  # Hoeffding: tau = sqrt(5000)
    check = tail_check(SubGaussianTheorem(law.subgaussian_tail()), law, 1.0, 1e-3)
    assert check.clones_proved == pytest.approx(0.75e-3)
    assert check.population_below <= check.population_budget


@pytest.mark.parametrize(
    "law",
    [BinomialPopulation(5001, 0.2), PoissonPopulation(5000), BinomialPopulation(48_842, 0.05)],
    ids=repr,
)
@pytest.mark.parametrize("delta", [1e-2, 1e-4])
def test_tail_events_stay_within_their_budgets(law, delta):
    theorems = _theorems_for(law)
    if isinstance(law, BinomialPopulation):
        theorems += [BinomialTheorem(law, 800), AdaptiveTheorem(BinomialTheorem(law), 3 * int(law.mean))]
    for theorem in theorems:
        check = tail_check(theorem, law, 1.0, delta)
        if not check.omega > 2 * math.log(4 / delta):
            continue
        assert check.clones_below <= check.clones_budget, theorem
        assert check.hoeffding <= check.hoeffding_budget, theorem
        if not math.isnan(check.population_below):
            assert check.population_below <= check.population_budget, theorem


def test_tail_check_sees_a_violated_tail_assumption():
    """A population far below its claimed sub-Gaussian mean violates the first stage."""
    law = PoissonPopulation(3000)
    check = tail_check(SubGaussianTheorem(SubGaussianTail(5000, 50)), law, 1.0, 1e-3)
    assert check.population_below > check.population_budget


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: BinomialTheorem(PoissonPopulation(5)), "law"),
        (lambda: BinomialTheorem(BinomialPopulation(100, 0.5), dummies=-1), "dummies"),
        (lambda: PoissonTheorem(PoissonPopulation(5), form="exact"), "form"),
        (lambda: MeanVarianceTheorem(5000), "population"),
        (lambda: SubGaussianTheorem(SubGaussianTail(1, 1), budget="half"), "budget"),
        (lambda: SubExponentialTheorem(SubGaussianTail(1, 1)), "tail"),
        (lambda: AdaptiveTheorem(BinomialTheorem(BinomialPopulation(100, 0.5), 3), 10), "base"),
        (lambda: BinomialTheorem(BinomialPopulation(5001, 0.2)).epsilon(-1.0, DELTA), "eps0"),
        (lambda: BinomialTheorem(BinomialPopulation(5001, 0.2)).epsilon(1.0, 1.5), "delta"),
        (lambda: BinomialTheorem(BinomialPopulation(5001, 0.2)).delta(1.0, -0.1), "eps"),
        (lambda: BinomialTheorem(BinomialPopulation(5001, 0.2)).max_eps0(0.0, DELTA), "eps"),
    ],
)
def test_bad_input_names_the_parameter(make, message):
    with pytest.raises(ValueError, match=message):
        make()
