"""Tests of :mod:`shufflelib.dp_testing` (DP as hypothesis testing, exact shuffled RR counts)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from shufflelib.bounds.exact import ExactKRR
from shufflelib.curves import DominatingPair
from shufflelib.dp_testing import epsilon_from_rates, shuffled_rr_count_pmfs, threshold_test_rates


# ------------------------------------------------------------ epsilon_from_rates
def test_epsilon_from_rates_hand_values():
    assert epsilon_from_rates(0.3, 0.01, 1e-3) == pytest.approx(math.log(0.299 / 0.01), rel=1e-14)
    # The complement: 1 - FPR <= e^eps (1 - TPR) + delta.
    assert epsilon_from_rates(0.99, 0.5, 0.01) == pytest.approx(math.log(0.49 / 0.01), rel=1e-14)
    # Both inequalities hold with eps = 0: nothing is proved.
    assert epsilon_from_rates(0.2, 0.3, 0.0) == 0.0
    assert epsilon_from_rates(0.3, 0.01, 0.3) == 0.0
    # A rejection that never happens under D but does under D': no finite eps.
    assert epsilon_from_rates(0.5, 0.0, 0.1) == math.inf
    assert epsilon_from_rates(0.5, 0.0, 0.5) == 0.0
    # The tests that always or never reject prove nothing.
    assert epsilon_from_rates(1.0, 1.0, 0.0) == 0.0
    assert epsilon_from_rates(0.0, 0.0, 0.0) == 0.0


def test_epsilon_from_rates_is_vectorized():
    tpr = np.array([0.3, 0.99, 0.2])
    fpr = np.array([0.01, 0.5, 0.3])
    eps = epsilon_from_rates(tpr, fpr, 0.0)
    assert eps.shape == (3,)
    assert eps == pytest.approx([math.log(30.0), math.log(50.0), 0.0], rel=1e-12)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"tpr": 1.5, "fpr": 0.1, "delta": 0.0}, "tpr"),
        ({"tpr": 0.5, "fpr": -0.1, "delta": 0.0}, "fpr"),
        ({"tpr": 0.5, "fpr": 0.1, "delta": 1.0}, "delta"),
        ({"tpr": np.ones(2), "fpr": np.ones(3), "delta": 0.0}, "same shape"),
        ({"tpr": float("nan"), "fpr": 0.1, "delta": 0.0}, "tpr"),
    ],
)
def test_epsilon_from_rates_rejects_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        epsilon_from_rates(**kwargs)


@settings(max_examples=40, deadline=None)
@given(
    p=st.lists(st.floats(0.01, 1.0), min_size=4, max_size=4),
    q=st.lists(st.floats(0.01, 1.0), min_size=4, max_size=4),
    delta=st.sampled_from([0.0, 1e-3, 0.05, 0.3]),
    subset=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_no_test_beats_the_exact_curve(p, q, delta, subset):
    """Soundness: a test's rates never certify more than the pair's exact epsilon(delta).

    The always-reject test is left out: its rates are exactly 1, but sums of normalized
    atoms may miss that by one ulp (it proves nothing; see the hand-written case)."""
    assume(not all(subset))
    p, q = np.array(p) / sum(p), np.array(q) / sum(q)
    reject = np.array(subset)
    fpr, tpr = float(q[reject].sum()), float(p[reject].sum())  # D ~ q, D' ~ p
    pair = DominatingPair(np.log(p), np.log(q))
    # At delta = 0 the exact epsilon is the largest |log-likelihood ratio| (every atom is positive).
    exact = pair.epsilon(delta) if delta > 0 else float(np.max(np.abs(np.log(p) - np.log(q))))
    assert epsilon_from_rates(min(tpr, 1.0), min(fpr, 1.0), delta) <= exact + 1e-9


def test_randomized_response_rates_give_eps0_exactly():
    # The test "reject D when the report is 1" on randomized response attains eps0 at delta = 0.
    eps0 = 1.3
    keep = math.exp(eps0) / (1 + math.exp(eps0))
    assert epsilon_from_rates(keep, 1 - keep, 0.0) == pytest.approx(eps0, rel=1e-12)


# ------------------------------------------------------------ shuffled_rr_count_pmfs
def brute_force_pmfs(n: int, eps0: float, others_ones: int) -> tuple[np.ndarray, np.ndarray]:
    """Enumerate every vector of reports (2^n of them)."""
    keep = math.exp(eps0) / (1 + math.exp(eps0))
    out = []
    for first in (0, 1):
        x = [first] + [1] * others_ones + [0] * (n - 1 - others_ones)
        pmf = np.zeros(n + 1)
        for reports in itertools.product((0, 1), repeat=n):
            prob = math.prod(keep if r == xi else 1 - keep for r, xi in zip(reports, x, strict=False))
            pmf[sum(reports)] += prob
        out.append(pmf)
    return out[0], out[1]


@pytest.mark.parametrize("n, eps0, others_ones", [(2, 0.5, 0), (5, 1.0, 2), (7, 2.5, 6), (8, 0.1, 3)])
def test_count_pmfs_match_brute_force(n, eps0, others_ones):
    p0, p1 = shuffled_rr_count_pmfs(n, eps0, others_ones)
    b0, b1 = brute_force_pmfs(n, eps0, others_ones)
    assert p0 == pytest.approx(b0, rel=1e-12, abs=1e-300)
    assert p1 == pytest.approx(b1, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("n, eps0", [(50, 1.0), (2_000, 3.0), (10_000, 0.5)])
def test_count_pmfs_reproduce_the_exact_krr_curve(n, eps0):
    """Others all hold 0: the pair is ExactKRR's concentrated pair, so the curves agree."""
    p0, p1 = shuffled_rr_count_pmfs(n, eps0, 0)
    assert p0.sum() == pytest.approx(1.0, abs=1e-12) and p1.sum() == pytest.approx(1.0, abs=1e-12)
    with np.errstate(divide="ignore"):  # zero-probability atoms are -inf log-probabilities, as intended
        pair = DominatingPair(np.log(p0), np.log(p1))
    eps = np.linspace(0.0, 0.99 * eps0, 12)
    library = ExactKRR(mechanism="krr", k=2).delta_profile(n, eps0, eps)
    mine = pair.delta(eps)
    big = mine > 1e-250
    assert library[big] == pytest.approx(mine[big], rel=1e-6)


def test_count_pmfs_reject_bad_input():
    with pytest.raises(ValueError, match="others_ones"):
        shuffled_rr_count_pmfs(10, 1.0, 10)
    with pytest.raises(ValueError, match="n must be"):
        shuffled_rr_count_pmfs(1, 1.0, 0)
    with pytest.raises(ValueError, match="eps0"):
        shuffled_rr_count_pmfs(10, 0.0, 0)


def test_count_pmfs_large_eps0_has_no_overflow():
    p0, p1 = shuffled_rr_count_pmfs(20, 800.0, 5)
    assert np.all(np.isfinite(p0)) and np.all(np.isfinite(p1))
    assert p0[5] == pytest.approx(1.0) and p1[6] == pytest.approx(1.0)


# ------------------------------------------------------------ threshold tests
def test_threshold_rates_are_upper_tails():
    p0, p1 = shuffled_rr_count_pmfs(30, 1.5, 4)
    t, fpr, tpr = threshold_test_rates(p0, p1)
    assert t.tolist() == list(range(31))
    assert fpr[0] == 1.0 and tpr[0] == 1.0  # "Y >= 0" rejects always, exactly
    for y in (0, 3, 17, 30):
        assert fpr[y] == pytest.approx(p0[y:].sum(), rel=1e-12)
        assert tpr[y] == pytest.approx(p1[y:].sum(), rel=1e-12)
    assert np.all(np.diff(fpr) <= 0) and np.all(np.diff(tpr) <= 0)


def test_threshold_rates_reject_bad_input():
    with pytest.raises(ValueError, match="equal length"):
        threshold_test_rates(np.ones(3) / 3, np.ones(2) / 2)
    with pytest.raises(ValueError, match="pmf_0"):
        threshold_test_rates(np.array([-0.1, 1.1]), np.array([0.5, 0.5]))


@pytest.mark.parametrize("n, eps0, delta", [(20, 2.0, 0.01), (300, 2.0, 1e-3), (5_000, 1.0, 1e-6)])
def test_best_threshold_test_attains_the_exact_epsilon(n, eps0, delta):
    """The likelihood ratio of the count is increasing, so the set {L > e^eps} where the hockey-stick
    divergence is attained is a threshold set: the best threshold test gives exactly eps(delta).

    Tolerance: ExactKRR rounds its delta down by a relative 1e-9 (its documented budget), which
    moves eps by far less than the relative 1e-6 allowed here."""
    p0, p1 = shuffled_rr_count_pmfs(n, eps0, 0)
    _, fpr, tpr = threshold_test_rates(p0, p1)
    best = float(np.max(epsilon_from_rates(tpr, fpr, delta)))
    exact = ExactKRR(mechanism="krr", k=2).epsilon(n, eps0, delta)
    assert best == pytest.approx(exact, rel=1e-6)
