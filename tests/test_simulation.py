"""Shuffler and simulators: the fast sufficient-statistics simulators match the
message-level reference in distribution.

Distribution tests are chi-square tests at fixed seeds with significance level
ALPHA = 1e-3 (cells with expected count < 5 are pooled); each comes with a power
check showing the same test rejects a wrong model. Moment tests allow Z = 5
standard errors.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from shufflelib.randomizers import BinaryRandomizedResponse, BoundedLaplace, KRandomizedResponse
from shufflelib.shuffler import histogram, shuffle
from shufflelib.simulation import simulate_binary_rr_counts, simulate_krr_histograms, simulate_messages

ALPHA = 1e-3
Z = 5.0


# ---------------------------------------------------------------- helpers
def pooled_chisquare(observed: np.ndarray, expected_probs: np.ndarray) -> float:
    """Goodness-of-fit p-value; every cell with expected count < 5 goes into one pooled cell
    (grown with the next least likely cells until it reaches 5)."""
    m = observed.sum()
    order = np.argsort(expected_probs)
    obs, exp = observed[order].astype(float), m * expected_probs[order]
    cut = max(int(np.sum(exp < 5)), int(np.searchsorted(np.cumsum(exp), 5)) + 1)
    obs = np.concatenate([[obs[:cut].sum()], obs[cut:]])
    exp = np.concatenate([[exp[:cut].sum()], exp[cut:]])
    exp *= m / exp.sum()
    return float(stats.chisquare(obs, exp).pvalue)


def two_sample_pvalue(a: list, b: list) -> float:
    """Chi-square test of homogeneity of two samples of hashable outcomes (rare outcomes pooled)."""
    ca, cb = Counter(a), Counter(b)
    keys = sorted(set(ca) | set(cb), key=lambda key: ca[key] + cb[key])
    table = np.array([[ca[key] for key in keys], [cb[key] for key in keys]], dtype=float)
    expected_min = table.sum(axis=0) * min(len(a), len(b)) / (len(a) + len(b))
    cut = max(int(np.sum(expected_min < 5)), int(np.searchsorted(np.cumsum(expected_min), 5)) + 1)
    table = np.column_stack([table[:, :cut].sum(axis=1), table[:, cut:]])
    return float(stats.chi2_contingency(table).pvalue)


def binary_rr_pmf(c: int, n: int, eps0: float) -> np.ndarray:
    e = math.exp(eps0)
    p = e / (e + 1)
    return np.convolve(stats.binom.pmf(np.arange(c + 1), c, p), stats.binom.pmf(np.arange(n - c + 1), n - c, 1 - p))


def krr_histogram_pmf(true_counts: list[int], eps0: float) -> dict[tuple[int, ...], float]:
    """Exact pmf of the shuffled k-RR histogram: convolution over inputs of Multinomial(n_v, pi_v)."""
    k = len(true_counts)
    e = math.exp(eps0)
    pmf: dict[tuple[int, ...], float] = {(0,) * k: 1.0}
    for v, n_v in enumerate(true_counts):
        pi = np.full(k, 1 / (e + k - 1))
        pi[v] = e / (e + k - 1)
        step = {
            h: float(stats.multinomial.pmf(h, n_v, pi))
            for h in itertools.product(range(n_v + 1), repeat=k)
            if sum(h) == n_v
        }
        new: dict[tuple[int, ...], float] = {}
        for h1, p1 in pmf.items():
            for h2, p2 in step.items():
                key = tuple(a + b for a, b in zip(h1, h2, strict=True))
                new[key] = new.get(key, 0.0) + p1 * p2
        pmf = new
    return pmf


# ---------------------------------------------------------------- binary RR
def test_binary_rr_counts_match_message_level_in_distribution():
    n, c, eps0 = 40, 13, 1.0
    # Calibration of this test over seeds 0-1099: 2 rejections at ALPHA (1.1 expected), 67 at 0.05 (55).
    rng = np.random.default_rng(2025)
    fast = simulate_binary_rr_counts(c, n, eps0, 20_000, rng)
    x = np.r_[np.ones(c, dtype=int), np.zeros(n - c, dtype=int)]
    rr = BinaryRandomizedResponse(eps0)
    slow = np.array([simulate_messages(rr, x, rng).sum() for _ in range(3_000)])
    pmf = binary_rr_pmf(c, n, eps0)
    assert pooled_chisquare(np.bincount(fast, minlength=n + 1), pmf) > ALPHA
    assert pooled_chisquare(np.bincount(slow, minlength=n + 1), pmf) > ALPHA
    assert two_sample_pvalue(fast.tolist(), slow.tolist()) > ALPHA
    # Power: the same test rejects a neighbouring eps0.
    assert pooled_chisquare(np.bincount(fast, minlength=n + 1), binary_rr_pmf(c, n, 1.3)) < ALPHA


@pytest.mark.parametrize("n,c,eps0", [(1000, 0, 0.5), (10**9, 10**8, 1.0), (10**9, 10**9, 20.0)])
def test_binary_rr_counts_moments(n, c, eps0):
    e = math.exp(eps0)
    p = e / (e + 1)
    ones = simulate_binary_rr_counts(c, n, eps0, 20_000, np.random.default_rng(9))
    assert ones.dtype == np.int64 and ones.shape == (20_000,)
    assert ones.min() >= 0 and ones.max() <= n
    mean, var = c * p + (n - c) * (1 - p), n * p * (1 - p)
    assert abs(ones.mean() - mean) <= Z * math.sqrt(var / ones.size)
    v = p * (1 - p)
    kappa4 = n * v * (1 - 6 * v)
    assert abs(ones.var(ddof=1) - var) <= Z * math.sqrt((kappa4 + 2 * var**2) / ones.size)


# ---------------------------------------------------------------- k-RR
def test_krr_histograms_match_message_level_in_distribution():
    true_counts, eps0 = [3, 2, 1], 0.8
    k = 3
    rng = np.random.default_rng(10)
    fast = [tuple(h) for h in simulate_krr_histograms(true_counts, eps0, 20_000, rng)]
    x = np.repeat(np.arange(k), true_counts)
    rr = KRandomizedResponse(k, eps0)
    slow = [tuple(histogram(simulate_messages(rr, x, rng), k)) for _ in range(3_000)]
    pmf = krr_histogram_pmf(true_counts, eps0)
    assert sum(pmf.values()) == pytest.approx(1.0, abs=1e-12)
    keys = list(pmf)
    probs = np.array([pmf[key] for key in keys])
    for sample in (fast, slow):
        counts = Counter(sample)
        assert set(counts) <= set(keys)
        assert pooled_chisquare(np.array([counts[key] for key in keys]), probs) > ALPHA
    assert two_sample_pvalue(fast, slow) > ALPHA
    # Power: the same test rejects a neighbouring eps0.
    wrong = krr_histogram_pmf(true_counts, 1.1)
    counts = Counter(fast)
    assert pooled_chisquare(np.array([counts[key] for key in keys]), np.array([wrong[key] for key in keys])) < ALPHA


@pytest.mark.parametrize(
    "true_counts,eps0",
    [([500, 300, 200, 0], 1.0), ([4 * 10**8, 3 * 10**8, 3 * 10**8], 0.1), ([0, 10**9], 20.0)],
)
def test_krr_histogram_moments(true_counts, eps0):
    """Mean and covariance against sum_v n_v (diag(pi_v) - pi_v pi_v^T)."""
    counts = np.array(true_counts)
    k, n = counts.size, counts.sum()
    e = math.exp(eps0)
    pis = np.full((k, k), 1 / (e + k - 1))
    np.fill_diagonal(pis, e / (e + k - 1))  # row v: output distribution of input v
    mean = counts @ pis
    cov = sum(n_v * (np.diag(pi) - np.outer(pi, pi)) for n_v, pi in zip(counts, pis, strict=True))
    reps = 20_000
    hists = simulate_krr_histograms(true_counts, eps0, reps, np.random.default_rng(12))
    assert hists.shape == (reps, k) and hists.dtype == np.int64
    assert np.all(hists.sum(axis=1) == n) and hists.min() >= 0
    assert np.all(np.abs(hists.mean(axis=0) - mean) <= Z * np.sqrt(np.diag(cov) / reps))
    sample_cov = np.cov(hists, rowvar=False)
    # Standard error of a sample covariance, from the sample's own products of deviations.
    dev = hists - hists.mean(axis=0)
    prod_sd = np.sqrt(np.einsum("ri,rj->ij", dev**2, dev**2) / reps - sample_cov**2)
    assert np.all(np.abs(sample_cov - cov) <= Z * prod_sd / math.sqrt(reps) + 1e-9 * np.abs(cov).max())


def test_simulators_are_reproducible():
    a = simulate_krr_histograms([5, 5, 5], 1.0, 10, np.random.default_rng(1))
    b = simulate_krr_histograms([5, 5, 5], 1.0, 10, np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(
        simulate_binary_rr_counts(3, 10, 1.0, 10, np.random.default_rng(2)),
        simulate_binary_rr_counts(3, 10, 1.0, 10, np.random.default_rng(2)),
    )


# ---------------------------------------------------------------- message level
def test_simulate_messages_randomizes_then_shuffles():
    lap = BoundedLaplace(1.0)
    x = np.linspace(0, 1, 25)
    msgs = simulate_messages(lap, x, np.random.default_rng(3))
    np.testing.assert_array_equal(np.sort(msgs), np.sort(lap.randomize(x, np.random.default_rng(3))))
    # Positions carry no information: with nearly deterministic reports of x = (1, 0, 0, 0),
    # the 1 lands in the first slot about a quarter of the time.
    rr = BinaryRandomizedResponse(20.0)
    rng = np.random.default_rng(4)
    first = sum(int(simulate_messages(rr, np.array([1, 0, 0, 0]), rng)[0]) for _ in range(4_000))
    assert abs(first / 4_000 - 0.25) <= Z * math.sqrt(0.25 * 0.75 / 4_000)


# ---------------------------------------------------------------- shuffler
def test_shuffle_is_uniform_over_permutations():
    rng = np.random.default_rng(5)
    base = np.array([0, 1, 2])
    perms = Counter(tuple(shuffle(base, rng)) for _ in range(6_000))
    assert set(perms) == set(itertools.permutations(range(3)))
    assert stats.chisquare([perms[p] for p in itertools.permutations(range(3))]).pvalue > ALPHA


def test_shuffle_keeps_rows_dtype_and_input():
    rows = np.arange(20).reshape(10, 2)
    original = rows.copy()
    out = shuffle(rows, np.random.default_rng(6))
    np.testing.assert_array_equal(rows, original)  # input untouched
    assert out.dtype == rows.dtype and out.shape == rows.shape
    assert sorted(map(tuple, out.tolist())) == sorted(map(tuple, rows.tolist()))
    assert not np.array_equal(out, rows)


def test_histogram_is_the_shuffle_invariant_sufficient_statistic():
    rng = np.random.default_rng(7)
    msgs = rng.integers(0, 5, size=200)
    h = histogram(msgs, 5)
    np.testing.assert_array_equal(h, np.bincount(msgs, minlength=5))
    np.testing.assert_array_equal(histogram(shuffle(msgs, rng), 5), h)
    batch = rng.integers(0, 4, size=(6, 30))
    np.testing.assert_array_equal(histogram(batch, 4), np.stack([np.bincount(r, minlength=4) for r in batch]))
    assert histogram(np.array([], dtype=int), 3).tolist() == [0, 0, 0]
