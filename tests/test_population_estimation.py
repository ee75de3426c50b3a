"""Estimators, their errors, dummies and random check-ins (:mod:`shufflelib.population.estimation`, ``dummies``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shufflelib.bounds.clones import ClonesNumerical
from shufflelib.population.bounds import AdaptiveTheorem, BinomialTheorem
from shufflelib.population.dummies import noise_objective, optimal_dummies
from shufflelib.population.estimation import (
    RandomCheckin,
    conditional_mse,
    draw_finite_participants,
    draw_iid_participants,
    dummy_count,
    estimate_p1,
    expected_mse,
    paper_debias,
    shuffled_rr_ones,
)
from shufflelib.population.experiments import (
    adult_scenario,
    mean_tve,
    plan,
    poisson_scenario,
)
from shufflelib.population.laws import BinomialPopulation, PoissonPopulation
from shufflelib.population.tight import TightClones

RUNS = 200_000


@pytest.mark.parametrize("dummies,adaptive", [(0, False), (500, False), (1500, False), (500, True), (1500, True)])
def test_estimator_is_unbiased_and_its_mse_matches_the_formula(dummies, adaptive):
    """Digest V1: eps0 = 0.4, n' = 5001, alpha = 0.2, P(1) = 0.45."""
    law, eps0, p1 = BinomialPopulation(5001, 0.2), 0.4, 0.45
    rng = np.random.default_rng(11)
    n, ones = draw_iid_participants(law, p1, RUNS, rng)
    d = dummy_count(n, dummies, adaptive)
    est = estimate_p1(shuffled_rr_ones(n, ones, eps0, d, rng), n, d, eps0)
    err = 2.0 * (est - p1) ** 2
    assert abs(est.mean() - p1) < 4 * est.std() / math.sqrt(RUNS)
    expected = expected_mse(law, eps0, p1, dummies, adaptive)
    assert abs(err.mean() - expected) < 4 * err.std() / math.sqrt(RUNS)


def test_mse_formula_reference_values():
    law = BinomialPopulation(5001, 0.2)
    got = [expected_mse(law, 0.4, 0.45, k) for k in (0, 500, 1500)]
    assert np.allclose(got, [0.01283, 0.01900, 0.03134], atol=5e-5)  # the digest's formula values
    assert expected_mse(law, 0.4, 0.45, 500, adaptive=True) == pytest.approx(0.01283, abs=5e-5)


def test_estimator_with_dummies_holding_one_and_conditional_mse():
    rng = np.random.default_rng(3)
    n, ones, d = np.full(RUNS, 400), np.full(RUNS, 100), np.full(RUNS, 250)
    est = estimate_p1(shuffled_rr_ones(n, ones, 1.0, d, rng, dummy_value=1), n, d, 1.0, dummy_value=1)
    assert abs(est.mean() - 0.25) < 4 * est.std() / math.sqrt(RUNS)
    noise_only = conditional_mse(400, 1.0, 0.25, 250) - 2 * 0.25 * 0.75 / 400  # fixed data: no sampling term
    assert np.mean(2 * (est - 0.25) ** 2) == pytest.approx(noise_only, rel=0.02)


def test_the_printed_estimator_is_biased():
    rng = np.random.default_rng(5)
    n, ones = np.full(RUNS, 1000), np.full(RUNS, 450)
    reported = shuffled_rr_ones(n, ones, 1.0, 0, rng)
    printed = paper_debias(reported, n, 1.0)
    assert printed.max() <= 0.0  # (t - 1)/(e^eps0 - 1) <= 0 for t in {0, 1}
    assert abs(estimate_p1(reported, n, 0, 1.0).mean() - 0.45) < 0.001


def test_finite_participants_have_the_right_law():
    n, ones = draw_finite_participants(16_192, 32_650, 0.1, RUNS, np.random.default_rng(2))
    assert n.mean() == pytest.approx(4884.2, rel=2e-3)
    assert (ones / n).mean() == pytest.approx(16_192 / 48_842, rel=2e-3)


def test_random_checkin_selection_probability_and_draws():
    rc = RandomCheckin(2000, 0.3)
    rng = np.random.default_rng(9)
    selected, selected_ones = rc.draw(600, 1400, 3000, rng)
    # each checked-in user is selected with probability E[1/(1 + B)]; E[selected] = E[checked in] * s
    assert selected.mean() == pytest.approx(2000 * 0.3 * rc.selection_probability, rel=0.01)
    assert (selected_ones.sum() / selected.sum()) == pytest.approx(0.3, abs=0.01)
    assert np.all(selected <= rc.slots)


def test_random_checkin_budget_is_a_valid_clone_bound():
    rc = RandomCheckin(48_842, 0.2)
    eps0 = rc.max_local_eps(0.1, 1e-5)
    assert eps0 > 0.1
    eps = ClonesNumerical().epsilon(rc.slots, eps0, 1e-5 / rc.selection_probability)
    assert eps <= 0.1 * (1 + 1e-9)


def test_noise_objective_matches_equations_6_and_7():
    law = BinomialPopulation(5001, 0.2)
    e1, e2 = law.inverse_moments()
    scale = 2 * math.e / (math.e - 1) ** 2
    assert float(noise_objective(1.0, 700, law)) == pytest.approx(scale * (e1 + 700 * e2), rel=1e-12)
    values, probs, _ = law.support()
    n = values + 1.0
    extra = np.sum(probs * np.maximum(3000 - n, 0) / n**2)
    assert float(noise_objective(1.0, 3000, law, adaptive=True)) == pytest.approx(scale * (e1 + extra), rel=1e-9)


def test_optimal_dummies_for_figure_3():
    """Digest 4.3: Theorem 4(a) at eps_c = 0.05 gives k* ~ 2750 and a 14% smaller noise term, not 20%."""
    law = BinomialPopulation(5001, 0.2)
    choice = optimal_dummies(lambda k: BinomialTheorem(law, k), law, 0.05, 1e-5)
    assert choice.objective == choice.objectives.min()
    assert 2500 < choice.dummies < 3000
    assert choice.eps0 == pytest.approx(0.421, abs=0.002)
    assert 1 - choice.objective / choice.objectives[0] == pytest.approx(0.139, abs=0.003)
    tight = optimal_dummies(lambda k: TightClones(law, k), law, 0.05, 1e-5, grid=[0, 1000, 3000])
    assert tight.dummies == 0  # with the tight bound dummies do not pay


def test_adaptive_dummies_help_only_when_padding_beyond_the_mean():
    law = BinomialPopulation(5001, 0.2)
    base = BinomialTheorem(law)
    assert AdaptiveTheorem(base, 500).max_local_eps(0.05, 1e-5) == base.max_local_eps(0.05, 1e-5)
    assert AdaptiveTheorem(base, 3000).max_local_eps(0.05, 1e-5) > base.max_local_eps(0.05, 1e-5)


def test_amplification_beats_the_local_model_in_the_experiments():
    for scenario in (adult_scenario(0.05), poisson_scenario(1000, 0.45)):
        plans = plan(scenario, 0.01, 1e-5, ("LOCAL", "AMPLIFIED", "TIGHT"))
        draws = scenario.draw(400, np.random.default_rng(4))
        errors = {m: mean_tve(scenario, plans[m], draws, np.random.default_rng(5)) for m in plans}
        assert errors["TIGHT"] < errors["AMPLIFIED"] < 0.4 * errors["LOCAL"]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: estimate_p1(10, 0, 0, 1.0), "n"),
        (lambda: estimate_p1(10, 20, 0, 1.0, dummy_value=2), "dummy_value"),
        (lambda: shuffled_rr_ones([5], [6], 1.0, [0], np.random.default_rng(0)), "true_ones"),
        (lambda: conditional_mse(100, 1.0, 1.5), "p1"),
        (lambda: expected_mse("law", 1.0, 0.5), "law"),
        (lambda: RandomCheckin(100, 0.0), "alpha"),
        (lambda: RandomCheckin(100, 0.5, slots=1), "slots"),
        (lambda: noise_objective(0.0, 0, PoissonPopulation(10)), "eps0"),
        (lambda: optimal_dummies(None, PoissonPopulation(10), 0.1, 1e-5), "make_bound"),
        (lambda: plan(poisson_scenario(100, 0.5), 0.1, 1e-5, ("GLOBAL",)), "method"),
        (lambda: plan(poisson_scenario(100, 0.5), 0.1, 1e-5, ("RandomCheckin",)), "binomial"),
    ],
)
def test_bad_input_names_the_parameter(make, message):
    with pytest.raises(ValueError, match=message):
        make()
