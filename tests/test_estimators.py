"""Debiased estimators: exact unbiasedness and variance, plus Monte Carlo checks.

Monte Carlo tolerance: Z = 5 standard errors, with the standard error of the
sample mean sqrt(var / R) and of the sample variance sqrt((kappa4 + 2 var^2) / R),
kappa4 being the exact fourth cumulant of the estimator (a sum of independent
Bernoulli reports, each with kappa4 = v (1 - 6 v), v its variance).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from shufflelib.estimators import count_variance, estimate_count, estimate_frequencies, frequency_variance
from shufflelib.simulation import simulate_binary_rr_counts, simulate_krr_histograms

Z = 5.0
REPS = 20_000


def rr_probs(k: int, eps0: float) -> tuple[float, float]:
    """Truth / other-value probabilities of k-RR, straight from the definition."""
    e = math.exp(eps0)
    return e / (e + k - 1), 1 / (e + k - 1)


def exact_report_pmf(n_true: int, n_other: int, p: float, q: float) -> np.ndarray:
    """pmf of Bin(n_true, p) + Bin(n_other, q) on 0..n_true+n_other, by convolution."""
    a = stats.binom.pmf(np.arange(n_true + 1), n_true, p)
    b = stats.binom.pmf(np.arange(n_other + 1), n_other, q)
    return np.convolve(a, b)


def bernoulli_kappa4(r: float) -> float:
    v = r * (1 - r)
    return v * (1 - 6 * v)


def assert_mean_and_variance(samples: np.ndarray, mean: float, var: float, kappa4: float) -> None:
    r = samples.size
    assert abs(samples.mean() - mean) <= Z * math.sqrt(var / r)
    assert abs(samples.var(ddof=1) - var) <= Z * math.sqrt((kappa4 + 2 * var**2) / r)


# ---------------------------------------------------------------- binary RR
@pytest.mark.parametrize("n,c,eps0", [(2, 1, 1.0), (30, 0, 0.3), (30, 17, 2.0), (45, 45, 5.0)])
def test_count_estimator_exact_mean_and_variance(n, c, eps0):
    p, q = rr_probs(2, eps0)
    pmf = exact_report_pmf(c, n - c, p, q)
    est = estimate_count(np.arange(n + 1), n, eps0)
    mean = pmf @ est
    var = pmf @ (est - mean) ** 2
    assert mean == pytest.approx(c, abs=1e-9 * max(1, n))
    assert var == pytest.approx(count_variance(c, n, eps0), rel=1e-9)
    assert count_variance(c, n, eps0) == pytest.approx(n * p * (1 - p) / (2 * p - 1) ** 2, rel=1e-12)


def test_count_variance_does_not_depend_on_true_count():
    v = count_variance(np.arange(101), 100, 0.8)
    assert v.shape == (101,)
    assert np.all(v == v[0])


@pytest.mark.parametrize("n,c,eps0", [(1000, 300, 1.0), (10**9, 123_456_789, 0.5)])
def test_count_estimator_monte_carlo(n, c, eps0):
    rng = np.random.default_rng(3)
    est = estimate_count(simulate_binary_rr_counts(c, n, eps0, REPS, rng), n, eps0)
    p, _ = rr_probs(2, eps0)
    scale = 1 / (2 * p - 1)
    assert_mean_and_variance(est, c, count_variance(c, n, eps0), n * bernoulli_kappa4(p) * scale**4)


@pytest.mark.parametrize("eps0", [0.01, 20.0])
def test_count_estimator_extreme_parameters_are_finite(eps0):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        n = 10**9
        est = estimate_count(np.array([0, n // 2, n]), n, eps0)
        assert np.isfinite(est).all() and np.isfinite(count_variance(5, n, eps0))
        # Unbiasedness in expectation, by linearity (E[ones] plugged in).
        p, q = rr_probs(2, eps0)
        c = 400_000_000
        assert estimate_count(0, n, eps0) + (c * p + (n - c) * q) / math.tanh(eps0 / 2) == pytest.approx(c, rel=1e-9)


# ---------------------------------------------------------------- k-RR
@pytest.mark.parametrize("true_counts,eps0", [([3, 0, 2], 1.0), ([10, 5, 0, 5], 0.4), ([1, 1], 3.0)])
def test_frequency_estimator_exact_mean_and_variance(true_counts, eps0):
    k, n = len(true_counts), sum(true_counts)
    p, q = rr_probs(k, eps0)
    f = np.array(true_counts) / n
    var = frequency_variance(f, n, k, eps0)
    for v in range(k):
        pmf = exact_report_pmf(true_counts[v], n - true_counts[v], p, q)
        counts = np.zeros((n + 1, k))
        counts[:, v] = np.arange(n + 1)
        counts[:, (v + 1) % k] = n - np.arange(n + 1)  # any completion summing to n
        est = estimate_frequencies(counts, n, k, eps0)[:, v]
        mean = pmf @ est
        assert mean == pytest.approx(f[v], abs=1e-12)
        assert pmf @ (est - mean) ** 2 == pytest.approx(var[v], rel=1e-9)


def test_frequency_estimator_monte_carlo():
    true_counts = np.array([250, 150, 100, 0])
    k, n, eps0 = 4, 500, 1.2
    p, q = rr_probs(k, eps0)
    hists = simulate_krr_histograms(true_counts, eps0, REPS, np.random.default_rng(4))
    est = estimate_frequencies(hists, n, k, eps0)
    f = true_counts / n
    var = frequency_variance(f, n, k, eps0)
    for v in range(k):
        kappa4 = (true_counts[v] * bernoulli_kappa4(p) + (n - true_counts[v]) * bernoulli_kappa4(q)) / (
            n * (p - q)
        ) ** 4
        assert_mean_and_variance(est[:, v], f[v], var[v], kappa4)


def test_k2_frequency_estimator_agrees_with_count_estimator():
    n, eps0 = 80, 0.9
    ones = np.arange(n + 1)
    freqs = estimate_frequencies(np.stack([n - ones, ones], axis=1), n, 2, eps0)
    np.testing.assert_allclose(n * freqs[:, 1], estimate_count(ones, n, eps0), rtol=1e-12, atol=1e-9)
    f1 = 0.3
    assert frequency_variance([1 - f1, f1], n, 2, eps0)[1] == pytest.approx(
        count_variance(24, n, eps0) / n**2, rel=1e-12
    )


def test_estimate_frequencies_vectorizes_over_repetitions():
    counts = np.array([[5, 3, 2], [0, 10, 0], [1, 1, 8]])
    batched = estimate_frequencies(counts, 10, 3, 1.5)
    assert batched.shape == (3, 3)
    for row, expected in zip(counts, batched, strict=True):
        np.testing.assert_array_equal(estimate_frequencies(row, 10, 3, 1.5), expected)
    freqs = counts / 10
    variances = frequency_variance(freqs, 10, 3, 1.5)
    for row, expected in zip(freqs, variances, strict=True):
        np.testing.assert_array_equal(frequency_variance(row, 10, 3, 1.5), expected)


@settings(max_examples=40, deadline=None)
@given(
    counts=st.lists(st.integers(0, 10**6), min_size=2, max_size=30).filter(lambda c: sum(c) >= 2),
    eps0=st.floats(0.01, 20.0),
)
def test_estimate_frequencies_sums_to_one(counts, eps0):
    est = estimate_frequencies(counts, sum(counts), len(counts), eps0)
    assert np.isfinite(est).all()
    assert est.sum() == pytest.approx(1.0, abs=1e-9 * max(1.0, np.abs(est).max()))


@settings(max_examples=30, deadline=None)
@given(k=st.integers(2, 50), eps0=st.floats(0.01, 20.0), n=st.integers(2, 10**9))
def test_frequency_variance_is_positive_and_finite(k, eps0, n):
    f = np.full(k, 1.0 / k)
    v = frequency_variance(f, n, k, eps0)
    assert np.all(np.isfinite(v)) and np.all(v > 0)
