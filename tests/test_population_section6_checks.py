"""Exact checks of Lemma 3, Proposition 1, Proposition 2 and Theorem 5 (Section VI of the random-population paper)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shufflelib.population import dgauss
from shufflelib.population.laws import BinomialPopulation, PoissonPopulation
from shufflelib.population.multimessage import cited_messages, fixed_population_errors, messages_prop1
from shufflelib.population.security import max_shares_tv, noisy_shares_pair, noisy_sum_pair, shares_tv
from shufflelib.population.union import multi_union, polya_sum_delta, union_sum_deltas


def _wrapped_dgauss(tau: float, q: int) -> np.ndarray:
    support = np.arange(-40, 41)
    return np.bincount(np.mod(support, q), weights=dgauss.pmf(support, tau), minlength=q)


@pytest.mark.parametrize("m", [2, 3, 4, 5])
def test_lemma3_holds_exactly_on_toy_shares(m):
    """delta of the shuffled noisy shares <= delta of the noisy sum + (1 + e^eps) 2^-sigma."""
    q, noise = 3, _wrapped_dgauss(0.7, 3)
    tv = max_shares_tv(2, q, m)
    for a, b in [([0, 0], [1, 0]), ([0, 0], [2, 0]), ([1, 2], [0, 2])]:
        shares, total = noisy_shares_pair(a, b, noise, q, m), noisy_sum_pair(a, b, noise, q)
        for eps in (0.0, 0.3, 0.7, 1.5):
            assert shares.delta(eps) <= total.delta(eps) + (1 + math.exp(eps)) * tv + 1e-12
            assert shares.delta(eps) >= total.delta(eps) - 1e-12  # the sum is a post-processing


def test_max_shares_tv_is_the_largest_distance_between_equal_sums():
    assert max_shares_tv(2, 3, 1) == 1.0
    assert max_shares_tv(2, 3, 3) >= shares_tv([0, 0], [1, 2], q=3, m=3)
    values = [max_shares_tv(2, 3, m) for m in (2, 3, 4)]
    assert values[0] > values[1] > values[2]


def test_proposition1_covers_every_population_with_natural_logs_only():
    n = np.arange(2, 200_000)
    for sigma in (5.0, 20.0, 80.0):
        for q in (10, 751_606, 2 * 10**9):
            assert np.all(cited_messages(sigma, q, n, "ln") <= messages_prop1(sigma, q, "ln"))
    gap = cited_messages(20.0, 751_606, n, "log2") > messages_prop1(20.0, 751_606, "log2")
    assert n[gap].min() == 10 and n[gap].max() == 18  # with log2 the constant 8 is too small


def test_proposition2_error_is_tau_squared_until_the_noise_wraps_around():
    rng = np.random.default_rng(0)
    x = rng.random(100)  # n = 100: p = 10, q = 2000
    for tau in (2.0, 4.0, 8.0):
        mse = np.mean(fixed_population_errors(x, tau, 20_000, rng) ** 2)
        rounding = np.sum((x * 10 % 1) * (1 - x * 10 % 1)) / 100
        predicted = 100 * dgauss.variance(tau) / 100 + rounding
        assert abs(mse / predicted - 1) < 0.05
    wrapped = np.mean(fixed_population_errors(x, 300.0, 4000, rng) ** 2)
    assert wrapped < 0.2 * 300.0**2  # bounded by (q/p)^2: O(tau^2) only vacuously


def test_polya_sum_delta_is_the_discrete_laplace_curve_with_n1_users():
    a, p = math.exp(-0.8 / 6), 6
    k = np.arange(-3000, 3001)
    dlap = (1 - a) / (1 + a) * a ** np.abs(k)
    for eps in (0.2, 0.5):
        direct = max(np.clip(dlap - math.exp(eps) * np.roll(dlap, s), 0, None).sum() for s in range(1, p + 1))
        assert math.isclose(float(polya_sum_delta(40, 40, a, p, [eps])[0]), direct, rel_tol=1e-9, abs_tol=1e-15)
    assert float(polya_sum_delta(40, 40, a, p, [0.8])[0]) < 1e-12


@pytest.mark.parametrize("law", [PoissonPopulation(60), BinomialPopulation(400, 0.2)])
def test_theorem5_hypotheses_and_conclusion_hold_exactly(law):
    union = multi_union(0.5, 1e-3, law)
    n, probs, deltas = union_sum_deltas(union, law, 0.5)
    assert deltas[n >= union.n1].max() < 1e-12  # (eps, 0)-DP for every population of at least n1
    assert deltas[n < union.n1].max() > 0  # and not below: the quantile matters
    expected = float(probs @ deltas) + (1.0 - float(probs.sum()))
    population = float(law.cdf(union.n1 - 2))  # Pr[N < n1]
    assert expected <= population <= union.delta / 2
