"""Population laws (:mod:`shufflelib.population.laws`) and the law of the clone count."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from shufflelib.bounds.clone_pair import BINOM_RTOL
from shufflelib.population.clone_count import clone_count, others_after_dummies
from shufflelib.population.laws import (
    BinomialPopulation,
    DiscretePopulation,
    FixedPopulation,
    MeanVariance,
    NegativeBinomialPopulation,
    PoissonPopulation,
    SubExponentialTail,
    SubGaussianTail,
)

LAWS = [
    FixedPopulation(300),
    BinomialPopulation(2001, 0.3),
    PoissonPopulation(400.0),
    NegativeBinomialPopulation(400.0, 1600.0),
    DiscretePopulation([0, 50, 400], [0.1, 0.3, 0.6]),
]


@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_support_holds_all_but_the_dropped_mass(law):
    values, probs, dropped = law.support()
    assert abs(probs.sum() + dropped - 1.0) < 1e-12
    assert dropped <= 2e-17
    assert abs(np.sum(values * probs) - law.mean) < 1e-9 * max(law.mean, 1.0)


@pytest.mark.parametrize("law", LAWS, ids=repr)
@pytest.mark.parametrize("prob", [1e-12, 1e-5, 0.05])
def test_lower_quantile_is_the_largest_valid_bound(law, prob):
    m = law.lower_quantile(prob)
    assert float(law.cdf(m - 1)) <= prob  # Pr[N - 1 < m] <= prob
    assert float(law.cdf(m)) > prob  # and m + 1 would not be


def test_inverse_moments_match_closed_forms():
    e1, e2 = BinomialPopulation(5001, 0.2).inverse_moments()
    assert e1 == pytest.approx((1 - 0.8**5001) / (5001 * 0.2), rel=1e-12)
    # E[1/N^2] by brute force over the whole support of Bin(5000, 0.2)
    n = np.arange(5001)
    assert e2 == pytest.approx(np.sum(stats.binom.pmf(n, 5000, 0.2) / (n + 1.0) ** 2), rel=1e-12)
    e1, _ = PoissonPopulation(1000.0).inverse_moments()
    assert e1 == pytest.approx(-math.expm1(-1000.0) / 1000.0, rel=1e-12)
    e1, e2 = FixedPopulation(9).inverse_moments()
    assert (e1, e2) == (0.1, pytest.approx(0.01))


def test_negative_binomial_has_the_requested_moments_and_samples_them():
    law = NegativeBinomialPopulation(5000.0, 8000.0)
    x = law.sample(200_000, np.random.default_rng(0))
    assert abs(x.mean() - 5000.0) < 5 * math.sqrt(8000.0 / 200_000)
    assert x.var() == pytest.approx(8000.0, rel=0.02)


@settings(max_examples=30, deadline=None)
@given(
    mean=st.floats(5.0, 300.0),
    spread=st.floats(1.05, 6.0),
    q=st.floats(0.01, 0.99),
)
def test_negative_binomial_thinning_is_the_mixture_of_binomials(mean, spread, q):
    law = NegativeBinomialPopulation(mean, mean * spread)
    values, probs, _ = law.support(1e-14)
    c = np.arange(0, int(values.max()) + 1)
    mixture = probs @ stats.binom.pmf(c[None, :], values[:, None], q)
    assert np.max(np.abs(mixture - law.thinned(q).pmf(c))) < 1e-10


@pytest.mark.parametrize("law", LAWS, ids=repr)
@pytest.mark.parametrize("dummies,adaptive", [(0, False), (150, False), (150, True)])
def test_clone_count_matches_the_brute_force_mixture(law, dummies, adaptive):
    eps0 = 1.3
    q = math.exp(-eps0)
    count = clone_count(law, eps0, dummies, adaptive)
    values, probs, _ = law.support(1e-15)
    trials = others_after_dummies(values, dummies, adaptive)
    lo, hi = count.range()
    c = np.arange(lo, hi + 1)
    brute = probs @ stats.binom.pmf(c[None, :], trials[:, None], q)
    got = count.pmf if count.pmf is not None else count.dist.pmf(c)
    assert np.max(np.abs(got - brute)) < 1e-12
    assert count.dropped < 1e-14


def test_adaptive_padding_to_one_message_changes_nothing():
    law = PoissonPopulation(50.0)
    assert clone_count(law, 1.0, 1, adaptive=True).mean() == pytest.approx(clone_count(law, 1.0).mean())


def test_clone_count_blocks_are_stochastically_smaller_and_keep_the_mass():
    count = clone_count(BinomialPopulation(10**7, 0.3), 1.0)
    starts, masses, dropped = count.blocks(512)
    # The mass is kept, rounded up by the cdf differences' allowance (2 BINOM_RTOL per block).
    assert 0.0 <= masses.sum() + dropped - 1.0 <= 2.0 * BINOM_RTOL * masses.size
    assert np.sum(starts * masses) / masses.sum() <= count.mean()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: BinomialPopulation(1, 0.5), "n_prime"),
        (lambda: BinomialPopulation(100, 1.5), "alpha"),
        (lambda: PoissonPopulation(-1.0), "lam"),
        (lambda: NegativeBinomialPopulation(100.0, 50.0), "variance"),
        (lambda: FixedPopulation(-3), "others"),
        (lambda: DiscretePopulation([1, 2], [0.5, 0.6]), "probs"),
        (lambda: DiscretePopulation([1, 1], [0.5, 0.5]), "values"),
        (lambda: MeanVariance(10.0, -1.0), "variance"),
        (lambda: SubGaussianTail(float("nan"), 1.0), "mean"),
        (lambda: SubExponentialTail(10.0, 0.5, 1.0), "a"),
        (lambda: clone_count(PoissonPopulation(5.0), 0.0), "eps0"),
        (lambda: clone_count(PoissonPopulation(5.0), 1.0, dummies=-1), "dummies"),
        (lambda: PoissonPopulation(5.0).lower_quantile(1.0), "prob"),
    ],
)
def test_bad_input_names_the_parameter(make, message):
    with pytest.raises(ValueError, match=message):
        make()
