"""Real summation, histograms, baselines and the discrete Laplace helpers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from shufflelib.estimators import estimate_count
from shufflelib.puredp import (
    dlap_variance,
    expected_max_abs_dlap,
    histogram_analyze,
    histogram_expected_messages,
    histogram_messages,
    histogram_params,
    level_budgets,
    linf_error_bound,
    local_rr_mse,
    max_abs_dlap_bound,
    real_sum_analyze,
    real_sum_messages,
    real_sum_params,
    round_to_levels,
    sample_dlap,
    shuffled_rr_pure_epsilon,
    simulate_histograms,
    simulate_real_sum,
)
from shufflelib.simulation import simulate_binary_rr_counts


# ------------------------------------------------------------------ DLap
def _dlap_pmf(x: np.ndarray, a: float) -> np.ndarray:
    """The pmf of DLap(a): (1 - e^{-a}) / (1 + e^{-a}) e^{-a |x|}."""
    return (1 - math.exp(-a)) / (1 + math.exp(-a)) * np.exp(-a * np.abs(x))


def test_dlap_closed_forms_match_the_pmf() -> None:
    x = np.arange(-400, 401)
    for a in [0.3, 1.0, 4.0]:
        pmf = _dlap_pmf(x, a)
        assert math.isclose(pmf.sum(), 1.0, rel_tol=1e-12)
        assert math.isclose((x**2 * pmf).sum(), dlap_variance(a), rel_tol=1e-12)
        # one bucket: E max_b |X_b| is E|X| = 1 / sinh(a)
        assert math.isclose((np.abs(x) * pmf).sum(), expected_max_abs_dlap(1, a), rel_tol=1e-12)


def test_dlap_sampler_matches_the_pmf() -> None:
    draws = sample_dlap(0.7, 200_000, np.random.default_rng(1))
    values, counts = np.unique(np.clip(draws, -8, 8), return_counts=True)
    pmf = _dlap_pmf(values, 0.7)
    pmf[0] = _dlap_pmf(np.arange(-400, -7), 0.7).sum()
    pmf[-1] = pmf[0]
    assert stats.chisquare(counts, pmf / pmf.sum() * counts.sum()).pvalue > 1e-3


def test_expected_max_matches_monte_carlo() -> None:
    rng = np.random.default_rng(2)
    draws = np.abs(sample_dlap(0.45, (100_000, 64), rng)).max(axis=1)
    theory = expected_max_abs_dlap(64, 0.45)
    assert abs(draws.mean() - theory) < 5 * draws.std() / math.sqrt(draws.size)
    assert theory <= (math.log(128) + 1) / 0.45 + 1


# ------------------------------------------------------------------ baselines
def test_single_message_shuffling_buys_no_pure_privacy() -> None:
    for n, eps0 in [(2, 0.5), (30, 1.0), (120, 3.0)]:
        assert math.isclose(shuffled_rr_pure_epsilon(n, eps0), eps0, rel_tol=1e-9)


def test_baseline_samplers_have_their_mse() -> None:
    rng = np.random.default_rng(3)
    central = 40 + sample_dlap(1.0, 200_000, rng)  # the central mechanism
    assert abs(np.mean((central - 40.0) ** 2) / dlap_variance(1.0) - 1) < 0.03
    local = estimate_count(simulate_binary_rr_counts(300, 1000, 1.0, 100_000, rng), 1000, 1.0)
    assert abs(np.mean((local - 300) ** 2) / local_rr_mse(1000, 1.0) - 1) < 0.03


# ------------------------------------------------------------------ summation
def test_level_budgets_sum_to_eps_and_keep_a_floor() -> None:
    budgets = level_budgets(21, 2.0, uniform_share=0.5)
    assert math.isclose(budgets.sum(), 2.0) and budgets.min() >= 0.5 * 2.0 / 21


def test_randomized_rounding_is_unbiased() -> None:
    rng = np.random.default_rng(4)
    x = np.full(200_000, 0.3)
    bits = round_to_levels(x, 3, rng)
    v = bits @ (2 ** (3 - np.arange(4)))
    assert set(np.unique(v).tolist()) == {2, 3}
    assert abs(v.mean() / 8 - 0.3) < 5 * math.sqrt(0.4 * 0.6 / x.size) / 8


def test_real_sum_message_level_and_simulation_agree() -> None:
    rng = np.random.default_rng(5)
    n = 6
    x = np.array([0.0, 0.25, 0.5, 0.9, 1.0, 0.6])
    params = real_sum_params(n, 4.0, rule="practical")
    message_level = np.array([real_sum_analyze(real_sum_messages(x, params, rng), params) for _ in range(300)])
    values, counts = np.unique(x, return_counts=True)
    simulated = simulate_real_sum(values, counts, params, 20_000, rng)
    assert stats.ks_2samp(message_level, simulated).pvalue > 1e-3


def test_real_sum_error_is_within_its_bound_and_flat_in_n() -> None:
    rng = np.random.default_rng(6)
    eps = 1.0
    rmse = []
    for n in [100, 10_000]:
        params = real_sum_params(n, eps)
        values, counts = np.array([0.1, 0.55, 0.93]), np.array([n // 2, n // 4, n - n // 2 - n // 4])
        truth = float(values @ counts)
        est = simulate_real_sum(values, counts, params, 4000, rng)
        rmse.append(math.sqrt(np.mean((est - truth) ** 2)))
        assert rmse[-1] <= params.rmse_bound(n)
        assert params.expected_messages(n, 0.55) > 0
    assert rmse[1] < 2 * rmse[0]  # O(1/eps): no growth with n


# ------------------------------------------------------------------ histograms
def test_histogram_message_level_and_simulation_agree() -> None:
    rng = np.random.default_rng(7)
    x = np.array([0, 2, 2, 1, 2])
    params = histogram_params(x.size, 3.0)
    runs = np.array([histogram_analyze(histogram_messages(x, 3, params, rng), 3) for _ in range(400)])
    sim = simulate_histograms(np.bincount(x, minlength=3), params, 20_000, rng)
    for b in range(3):
        assert stats.ks_2samp(runs[:, b], sim[:, b]).pvalue > 1e-3


def test_histogram_linf_error_is_within_the_bound() -> None:
    rng = np.random.default_rng(8)
    n, eps = 10_000, 1.0
    params = histogram_params(n, eps)
    assert params.eps == eps / 2
    for buckets in [4, 64]:
        counts = np.full(buckets, n // buckets)
        est = simulate_histograms(counts, params, 5000, rng)
        linf = np.abs(est - counts).max(axis=1)
        assert linf.mean() <= linf_error_bound(n, buckets, params)
        assert linf.mean() >= expected_max_abs_dlap(buckets, params.eps_noise) - 5 * linf.std() / math.sqrt(5000)
    per_user = histogram_expected_messages(n, 64, params)
    assert math.isclose(per_user, 63 * params.expected_messages(n, 0) + params.expected_messages(n, 1))


def test_bad_inputs_are_rejected() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="x must"):
        round_to_levels([1.5], 3, rng)
    with pytest.raises(ValueError, match="counts must have the shape"):
        simulate_real_sum([0.1, 0.2], [3], real_sum_params(4, 1.0), 2, rng)
    with pytest.raises(ValueError, match="messages must have levels"):
        real_sum_analyze([[99, 1]], real_sum_params(4, 1.0))
    with pytest.raises(ValueError, match="x must"):
        histogram_messages([0, 3], 3, histogram_params(2, 1.0), rng)
    with pytest.raises(ValueError, match="messages must have buckets"):
        histogram_analyze([[0, 2]], 3)
    with pytest.raises(ValueError, match="n must be"):
        shuffled_rr_pure_epsilon(10_000, 1.0)
    with pytest.raises(ValueError, match="buckets must be"):
        expected_max_abs_dlap(0, 1.0)
    with pytest.raises(ValueError, match="uniform_share"):
        level_budgets(3, 1.0, uniform_share=1.5)


@pytest.mark.parametrize("buckets", [1, 2, 64, 1024, 10**6])
@pytest.mark.parametrize("a", [0.05, 0.45, 1.0, 3.0])
def test_max_abs_dlap_bound_holds_and_is_of_the_right_order(buckets, a):
    exact = expected_max_abs_dlap(buckets, a)
    bound = max_abs_dlap_bound(buckets, a)
    assert exact <= bound <= exact + 2.0 / a + 2.0  # the bound is loose by at most O(1/a)
