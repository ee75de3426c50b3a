"""The multi-message protocol: discrete Gaussian, Lemma 4, Algorithms 1–2, MULTI-UNION, Table II, sigma-security."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from shufflelib.population import dgauss
from shufflelib.population.laws import (
    BinomialPopulation,
    FixedPopulation,
    PoissonPopulation,
)
from shufflelib.population.multimessage import (
    analyze,
    calibrate_tau,
    exact_sum_delta,
    expected_delta_sum,
    group_order,
    lemma4_delta,
    messages_prop1,
    multi_expected,
    noisy_means,
    randomize,
    security_delta,
    sigma_for,
    x_star,
)
from shufflelib.population.security import shares_tv
from shufflelib.population.union import multi_union, table2_bound


@pytest.mark.parametrize("tau", [0.3, 0.8, 2.5])
def test_sampler_follows_the_discrete_gaussian_pmf(tau):
    size = 200_000
    x = dgauss.sample_discrete_gaussian(tau, size, np.random.default_rng(int(tau * 10)))
    values = np.arange(-int(8 * tau) - 2, int(8 * tau) + 3)
    expected = dgauss.pmf(values, tau) * size
    observed = np.array([(x == v).sum() for v in values])
    keep = expected > 5
    chi2 = np.sum((observed[keep] - expected[keep]) ** 2 / expected[keep])
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3
    assert observed.sum() == size  # nothing beyond 8 tau + 2


def test_sampler_takes_one_scale_per_draw():
    taus = np.repeat([1.0, 50.0], 50_000)
    x = dgauss.sample_discrete_gaussian(taus, taus.size, np.random.default_rng(1))
    assert x[:50_000].var() == pytest.approx(dgauss.variance(1.0), rel=0.03)
    assert x[50_000:].var() == pytest.approx(dgauss.variance(50.0), rel=0.03)


@pytest.mark.parametrize("tau", [0.2, 0.5, 1.0, 7.0])
def test_normalizer_and_variance_by_direct_summation(tau):
    x = np.arange(-400, 401, dtype=float)
    w = np.exp(-(x**2) / (2 * tau**2))
    assert dgauss.normalizer(tau) == pytest.approx(w.sum(), rel=1e-13)
    assert dgauss.variance(tau) == pytest.approx(np.sum(x**2 * w) / w.sum(), rel=1e-12)


@pytest.mark.parametrize("tau", [0.5, 0.75, 1.0])
@pytest.mark.parametrize("n", [2, 5, 20])
def test_sum_of_discrete_gaussians_is_close_to_one(tau, n):
    """Kairouz-Liu-Steinke: the sum is within 10 S_n(tau) of DG(0, sqrt(n) tau) (checked in total variation)."""
    x, p = dgauss.sum_pmf(n, tau)
    tv = 0.5 * np.abs(p - dgauss.pmf(x, math.sqrt(n) * tau)).sum()
    assert tv <= 10 * float(dgauss.s_term(tau, n))


def test_s_term_is_an_upper_bound_of_the_sum():
    tau = 0.6
    c = 2 * (math.pi * tau) ** 2
    for n in (1, 2, 10, 1000, 250_000):
        j = np.arange(1, n, dtype=float)
        exact = float(np.sum(np.exp(-c * j / (j + 1))))
        got = float(dgauss.s_term(tau, n))
        # exact for n <= 1e5 + 1; beyond, each term is bounded by the 100,001st: slack <= c / 1e5
        assert exact <= got <= exact * (1 + max(1e-12, c / 1e5 * (n > 100_001)))


@pytest.mark.parametrize("n,tau,p", [(4, 1.0, 2), (10, 2.0, 3), (50, 0.8, 7), (200, 3.0, 14)])
def test_lemma4_is_above_the_exact_privacy_of_the_sum(n, tau, p):
    eps = np.array([0.3, 0.6, 1.0, 2.0])
    exact = exact_sum_delta(eps, tau, p, n)
    bound = lemma4_delta(float(eps[0]), tau, p, n)
    for e, d in zip(eps, exact, strict=False):
        assert lemma4_delta(float(e), tau, p, n) >= d
    assert bound <= 1.0


def test_lemma4_forms_and_clamp():
    proof = lemma4_delta(1.0, 3.0, 10, 100)
    assert lemma4_delta(1.0, 3.0, 10, 100, "expected") > proof  # p^2/(n tau^2) instead of p^2/(2 n tau^2)
    assert lemma4_delta(1.0, 3.0, 10, 100, "statement") < proof  # p instead of p^2: too small
    assert lemma4_delta(0.001, 1.0, 10, 100) == 1.0  # numerator <= 0: no guarantee


def test_expected_delta_is_monotone_and_calibration_is_certified():
    law = PoissonPopulation(5000)
    taus = np.linspace(5.0, 60.0, 12)
    values = [expected_delta_sum(0.2, t, 71, law) for t in taus]
    assert np.all(np.diff(values) <= 0)
    tau = calibrate_tau(0.2, 5e-6, 71, law)
    assert tau == pytest.approx(24.92, abs=0.01)  # the digest's tau*
    assert expected_delta_sum(0.2, tau, 71, law) <= 5e-6 < expected_delta_sum(0.2, tau * (1 - 1e-6), 71, law)


def test_x_star_and_group_orders():
    law = PoissonPopulation(5000)
    assert x_star(law, 24.92) == 5293  # the digest's x*
    assert x_star(FixedPopulation(99), 5.0) == 101
    (n_t, q_t), (n_l, q_l) = group_order(law, 25.0, 71, "theorem6"), group_order(law, 25.0, 71, "literal")
    assert n_t == n_l and q_t == 2 * q_l
    n_h, q_h = group_order(law, 25.0, 71, "headroom")
    assert n_h > n_t and q_h > q_t


def test_algorithms_1_and_2_estimate_the_sum_without_bias():
    rng = np.random.default_rng(21)
    x = rng.random(300)
    p, q, n_hi, tau, m = 20, 2 * 400 * 20 + 2000, 400, 2.0, 6
    shares = randomize(x, tau, m, p, q, rng)
    assert shares.shape == (300, m) and shares.min() >= 0 and shares.max() < q
    est = np.array([analyze(randomize(x, tau, m, p, q, rng), p, q, n_hi) for _ in range(800)])
    var = (300 * dgauss.variance(tau) + np.sum((x * p % 1) * (1 - x * p % 1))) / p**2
    assert abs(est.mean() - x.sum()) < 4 * math.sqrt(var / est.size)
    assert est.var() == pytest.approx(var, rel=0.15)


def test_the_literal_group_order_breaks_a_rare_attribute():
    """Theorem 6 read literally: q ~ x* p leaves no room for a negative noisy sum."""
    law = PoissonPopulation(5000)
    rng = np.random.default_rng(3)
    n = law.sample(2000, rng) + 1
    ones = np.zeros(n.size, dtype=np.int64)  # nobody holds the attribute: the true mean is 0
    for reading, worst in (("literal", 0.5), ("theorem6", 0.01), ("headroom", 0.01)):
        params = multi_expected(0.5, 1e-5, law, reading)
        noise = dgauss.sample_discrete_gaussian(np.sqrt(n) * params.tau, n.size, rng)
        err = np.abs(noisy_means(ones, n, noise, params.p, params.q, params.n_hi))
        assert (err.max() > worst) == (reading == "literal")


def test_theorem_6_group_order_wraps_the_noise_at_small_budgets():
    """At a small eps the noise exceeds the group: the sum wraps around (with headroom for the noise it does not)."""
    law = PoissonPopulation(1000)
    rng = np.random.default_rng(8)
    n = law.sample(400, rng) + 1
    ones = rng.binomial(n, 0.45)
    errors = {}
    for reading in ("theorem6", "headroom"):
        params = multi_expected(0.003, 1e-5, law, reading)
        errors[reading] = np.mean(np.abs(params.simulate_means(n, ones, rng) - 0.45))
    predicted = math.sqrt(2 / math.pi) * math.sqrt(dgauss.variance(params.tau) / (params.p**2 * 1001))
    assert errors["headroom"] == pytest.approx(predicted, rel=0.15)  # unbiased, with its full (huge) noise
    # Theorem 6's q ignores the noise: the noisy sum wraps around and the error is folded into a bounded window.
    assert errors["theorem6"] < 0.5 * errors["headroom"]


def test_security_conventions_and_messages():
    assert security_delta(1.0, sigma_for(1.0, 1e-6)) == pytest.approx(1e-6)
    sigma = math.log(1 + math.e) + 0.5 * 5.0**2  # the proof of Proposition 2 at z = 5
    assert security_delta(1.0, sigma, "proof") == pytest.approx(math.exp(-12.5))
    assert security_delta(1.0, sigma) > 50 * security_delta(1.0, sigma, "proof")  # (e/2)^sigma ~ 69
    assert security_delta(1.0, sigma, "statement") > 1.0  # as printed: not a probability
    assert messages_prop1(20.0, 751_606) == 8 + 5 * 14 + 20  # the IKOS term dominates
    assert messages_prop1(60.0, 4, ikos_log="log2") == 8 + 5 * 2 + 60
    assert messages_prop1(20.0, 751_606, ikos_log="log2") == 8 + 5 * 20 + 20


def test_shares_are_sigma_secure_only_with_enough_messages():
    assert shares_tv([0, 0], [1, 4], q=5, m=1) == 1.0
    tvs = [shares_tv([0, 0], [1, 4], q=5, m=m) for m in (2, 3, 4)]
    assert tvs[0] > tvs[1] > tvs[2] > 0
    assert shares_tv([2, 3], [3, 2], q=5, m=2) == 0.0  # the same multiset of inputs


def test_multi_union_noise_and_estimates():
    law = BinomialPopulation(48_842, 0.2)
    union = multi_union(0.1, 1e-5, law)
    assert union.noise_variance * 0.1**2 == pytest.approx(2.0, rel=1e-3)  # discrete Laplace: 2/eps^2
    assert float(law.cdf(union.n1 - 2)) <= 0.5e-5 < float(law.cdf(union.n1 - 1))  # exact delta/2 quantile of N
    rng = np.random.default_rng(6)
    n = law.sample(20_000, rng) + 1
    ones = rng.binomial(n, 0.33)
    err = union.simulate_means(n, ones, rng) - ones / n
    assert abs(err.mean()) < 4 * err.std() / math.sqrt(err.size)
    assert np.var(err * n) == pytest.approx(
        np.mean(n / union.n1) * 2 * union.a / (1 - union.a) ** 2 / union.p**2, rel=0.05
    )


def test_table_2_binomial_row_fails_and_the_others_hold():
    law = BinomialPopulation(48_843, 0.05)  # the row's Bin(n', alpha) with n' = 48,842
    for delta_a in (1e-3, 1e-5):
        bound = table2_bound("binomial", delta_a, n_prime=48_842, alpha=0.05)
        assert float(law.cdf(math.ceil(bound) - 1)) > delta_a
    poisson = PoissonPopulation(5000)
    assert float(poisson.cdf(math.ceil(table2_bound("poisson", 1e-5, lam=5000)) - 1)) <= 1e-5
    tail = poisson.subgaussian_tail()
    assert float(poisson.cdf(math.ceil(table2_bound("subgaussian", 1e-5, mean=5000, tau=tail.tau)) - 1)) <= 1e-5
    bound = table2_bound("variance", 1e-3, mean=5000, variance=5000)
    assert float(poisson.cdf(math.ceil(bound) - 1)) <= 1e-3


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: dgauss.sample_discrete_gaussian(-1.0, 3, np.random.default_rng(0)), "tau"),
        (lambda: dgauss.pmf([0.5], 1.0), "x"),
        (lambda: lemma4_delta(1.0, 1.0, 10, 0), "n"),
        (lambda: lemma4_delta(1.0, 1.0, 10, 5, form="zcdp"), "form"),
        (lambda: security_delta(1.0, 3.0, "bits"), "convention"),
        (lambda: messages_prop1(5.0, 1), "q"),
        (lambda: multi_expected(0.5, 1e-5, PoissonPopulation(10), reading="exact"), "reading"),
        (lambda: table2_bound("uniform", 1e-3, mean=1.0), "row"),
        (lambda: table2_bound("poisson", 1e-3, mean=1.0), "parameters"),
        (lambda: shares_tv([0, 1], [0, 2], q=5, m=2), "sum modulo q"),
        (lambda: shares_tv([0, 0], [1, 4], q=5, m=12), "q"),
        (lambda: randomize([1.5], 1.0, 3, 10, 101, np.random.default_rng(0)), "x"),
    ],
)
def test_bad_input_names_the_parameter(make, message):
    with pytest.raises(ValueError, match=message):
        make()
