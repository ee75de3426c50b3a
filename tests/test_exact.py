"""Tests for TwoPairKRRLowerBound: the exact δ of two explicit pairs of datasets of shuffled k-RR."""

from __future__ import annotations

import itertools
import math
import warnings
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from shufflelib.bounds.clones import ClonesNumerical
from shufflelib.bounds.exact import ExactKRR, TwoPairKRRLowerBound, concentrated_delta, spread_delta
from shufflelib.bounds.krr_worst_case import pair_delta, worst_case_delta
from shufflelib.bounds.stronger_clones import StrongerClones
from shufflelib.bounds.thinned_clones import ThinnedClones
from shufflelib.curves import DominatingPair


def enumerate_histograms(values: list[int], k: int, eps0: float) -> dict[tuple[int, ...], float]:
    """Distribution of the shuffled output, by enumerating every report vector of the protocol."""
    keep = math.exp(eps0) / (math.exp(eps0) + k - 1)
    other = 1.0 / (math.exp(eps0) + k - 1)
    dist: dict[tuple[int, ...], float] = defaultdict(float)
    for reports in itertools.product(range(k), repeat=len(values)):
        prob = math.prod(keep if r == v else other for r, v in zip(reports, values, strict=False))
        dist[tuple(np.bincount(reports, minlength=k))] += prob
    return dist


def enumerated_pair(others: list[int], k: int, eps0: float) -> DominatingPair:
    """User 1 holds 0 (X0) or 1 (X1); the other users hold ``others``."""
    p = enumerate_histograms([0, *others], k, eps0)
    q = enumerate_histograms([1, *others], k, eps0)
    keys = sorted(set(p) | set(q))
    log_p = np.log([p[h] for h in keys])
    log_q = np.log([q[h] for h in keys])
    return DominatingPair(log_p - np.logaddexp.reduce(log_p), log_q - np.logaddexp.reduce(log_q))


CASES = [(2, n) for n in (2, 3, 5, 7)] + [(3, n) for n in (2, 3, 5, 6)] + [(4, n) for n in (2, 3, 5)]


@pytest.mark.parametrize("k,n", CASES)
@pytest.mark.parametrize("eps0", [0.3, 1.0, 3.0])
def test_formulas_match_enumeration_of_the_protocol(k, n, eps0):
    eps = np.array([0.0, 0.05, 0.2, 0.5, 0.9, 1.5, 2.5])
    eps = eps[eps < eps0]
    conc = enumerated_pair([0] * (n - 1), k, eps0).delta(eps)
    got = concentrated_delta(n, k, eps0, eps)
    assert np.all(got <= conc * (1 + 1e-12))  # rounded down ...
    np.testing.assert_allclose(got, conc, rtol=1e-7)  # ... and exact
    exact = TwoPairKRRLowerBound(mechanism="krr", k=k).delta_profile(n, eps0, eps)
    if k == 2:
        np.testing.assert_allclose(exact, conc, rtol=1e-7)
        return
    spread = enumerated_pair([2] * (n - 1), k, eps0).delta(eps)
    got = spread_delta(n, k, eps0, eps)
    assert np.all(got <= spread * (1 + 1e-12))
    if k == 3:  # the full histogram
        np.testing.assert_allclose(got, spread, rtol=1e-7)
    both = np.maximum(concentrated_delta(n, k, eps0, eps), got)
    np.testing.assert_allclose(exact, both * (1 - 1e-9), rtol=1e-14)  # rounded down by the 1e-9 budget
    assert np.all(exact <= np.maximum(conc, spread) * (1 + 1e-12))


@pytest.mark.parametrize("k,n", [(2, 6), (3, 5), (4, 4)])
def test_lower_bound_of_the_worst_case_and_below_every_upper_bound(k, n):
    # The true worst case over every configuration of the other users, by enumeration.
    eps0 = 1.5
    eps = np.linspace(0.0, eps0, 16)[:-1]
    configs = itertools.combinations_with_replacement(range(min(k, 3)), n - 1)
    worst = np.max([enumerated_pair(list(c), k, eps0).delta(eps) for c in configs], axis=0)
    exact = TwoPairKRRLowerBound(mechanism="krr", k=k).delta_profile(n, eps0, eps)
    assert np.all(exact <= worst * (1 + 1e-12))
    for bound in [StrongerClones(mechanism="krr", k=k), ClonesNumerical()]:
        assert np.all(bound.delta_profile(n, eps0, eps) >= worst * (1 - 1e-12))


def test_binary_closed_form_matches_a_direct_pair_at_larger_n():
    # Others all hold 1, user 1 holds 0 or 1: the number of 0-reports is Bin(n, p) under X1 = all ones.
    n, eps0 = 3000, 1.0
    p = 1 / (math.exp(eps0) + 1)
    x = np.arange(n + 1)
    log_p1 = binom.logpmf(x, n, p)
    ratio = (math.exp(-eps0) * (n - x) + math.exp(eps0) * x) / n  # Pr[X0] / Pr[X1]
    pair = DominatingPair(log_p1, log_p1 + np.log(ratio) - np.logaddexp.reduce(log_p1 + np.log(ratio)))
    eps = np.array([0.0, 0.02, 0.05, 0.1, 0.2, 0.3])
    got, want = TwoPairKRRLowerBound(mechanism="krr", k=2).delta_profile(n, eps0, eps), pair.delta(eps)
    assert want[-1] < 1e-40  # reaches the far tail, where the rounding-down budget grows
    assert np.all(got <= want)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_allclose(got[:4], want[:4], rtol=1e-7)


def test_concentrated_formula_for_k3_matches_a_direct_pair_at_larger_n():
    # Others all hold a: H ~ Multinomial(n; p_hi, p_lo, p_lo) under X0, ratio (e^-e0 N_a + e^e0 N_b + N_c) / n.
    n, k, eps0 = 300, 3, 1.0
    p_hi, p_lo = math.exp(eps0) / (math.exp(eps0) + 2), 1 / (math.exp(eps0) + 2)
    na, nb = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = na + nb <= n
    na, nb = na[ok], nb[ok]
    log_p0 = binom.logpmf(nb, n, p_lo) + binom.logpmf(na, n - nb, p_hi / (1 - p_lo))
    log_p1 = log_p0 + np.log((math.exp(-eps0) * na + math.exp(eps0) * nb + (n - na - nb)) / n)
    pair = DominatingPair(log_p0 - np.logaddexp.reduce(log_p0), log_p1 - np.logaddexp.reduce(log_p1))
    eps = np.array([0.0, 0.1, 0.3, 0.6])
    got, want = concentrated_delta(n, k, eps0, eps), pair.delta(eps)
    assert want[-1] < 1e-20 and np.all(got <= want * (1 + 1e-12))
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_epsilon_is_rounded_down_and_consistent():
    bound = TwoPairKRRLowerBound(mechanism="krr", k=3)
    for n, eps0, delta in [(10, 1.0, 1e-3), (1000, 2.0, 1e-8), (10**5, 0.5, 1e-6)]:
        eps = bound.epsilon(n, eps0, delta)
        assert 0.0 < eps < eps0
        assert bound.delta(n, eps0, eps) > delta  # the exact epsilon is at least this
        assert bound.delta(n, eps0, eps * (1 + 1e-8) + 1e-12) <= delta  # and barely more
    assert bound.epsilon(10**4, 1.0, 0.9) == 0.0


@settings(max_examples=25, deadline=None)
@given(
    st.floats(math.log(2), math.log(1e5)),
    st.floats(0.05, 6.0),
    st.floats(1e-12, 0.1),
    st.sampled_from([2, 3, 5]),
)
def test_exact_curve_moves_with_the_parameters(ln, eps0, delta, k):
    n = int(math.exp(ln))
    bound = TwoPairKRRLowerBound(mechanism="krr", k=k)
    eps = bound.epsilon(n, eps0, delta)
    assert 0.0 <= eps <= eps0
    assert bound.epsilon(n, eps0, delta / 10) >= eps * (1 - 1e-8)
    assert bound.epsilon(n, eps0 * 1.2, delta) >= eps * (1 - 1e-8)
    assert StrongerClones(mechanism="krr", k=k).epsilon(n, eps0, delta) >= eps


def test_more_users_give_more_privacy():
    bound = TwoPairKRRLowerBound(mechanism="krr", k=2)
    eps = [bound.epsilon(n, 1.0, 1e-6) for n in (10**2, 10**3, 10**4, 10**5, 10**6)]
    assert all(a > b for a, b in itertools.pairwise(eps))


def test_curve_views():
    bound = TwoPairKRRLowerBound(mechanism="krr", k=4)
    curve = bound.curve(2000, 1.0, eps_grid=np.linspace(0.0, 1.0, 81))
    eps = np.linspace(0, 1, 9)
    np.testing.assert_array_equal(curve.delta(eps), bound.delta_profile(2000, 1.0, eps))
    # The curve rounds epsilon up and the bound rounds it down: they bracket the root.
    assert bound.epsilon(2000, 1.0, 1e-6) <= curve.epsilon(1e-6) <= bound.epsilon(2000, 1.0, 1e-6) * (1 + 1e-7)
    alpha = np.linspace(0, 1, 21)
    f = curve.tradeoff(alpha)
    assert np.all(np.diff(f) <= 1e-12) and np.all(f <= 1 - alpha + 1e-12)
    assert f[0] == pytest.approx(1 - curve.delta(1.0), abs=1e-12) and f[-1] == 0.0


def test_requires_randomized_response_and_k():
    with pytest.raises(ValueError, match="mechanism"):
        TwoPairKRRLowerBound()
    with pytest.raises(ValueError, match="k must be given"):
        TwoPairKRRLowerBound(mechanism="krr")
    with pytest.raises(ValueError, match="k must be an integer >= 2"):
        TwoPairKRRLowerBound(mechanism="krr", k=1)
    with pytest.raises(ValueError, match="delta must be in"):
        TwoPairKRRLowerBound(mechanism="krr", k=2).epsilon(100, 1.0, 0.0)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("eps0", [0.01, 20.0])
def test_extreme_parameters_without_nan_or_warnings(k, eps0):
    bound = TwoPairKRRLowerBound(mechanism="krr", k=k)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in [2, 10**6]:
            for delta in [1e-15, 0.5]:
                assert 0.0 <= bound.epsilon(n, eps0, delta) <= eps0
        big = 10**9 if k == 2 else 10**8  # k >= 3 sums over ~2e5 terms: one evaluation is enough
        d = bound.delta_profile(big, eps0, np.array([0.0, eps0 / 2, eps0]))
        assert np.all(np.isfinite(d)) and np.all((0 <= d) & (d <= 1)) and d[-1] == 0.0
        if k == 2:
            assert 0.0 <= bound.epsilon(big, eps0, 1e-15) <= eps0


def test_huge_domain_at_small_n_is_searched_over_the_values_held():
    # k = 1e9 at n = 3: the complete search runs over the values the others can hold (n + 1 at
    # most); the worst histogram comes back with that many counts, and it is a real dataset.
    worst = worst_case_delta(3, 10**9, 1.0, [0.2])
    assert len(worst.others) == 4 and sum(worst.others) == 2
    assert pair_delta(3, 10**9, 1.0, [0.2], worst.others)[0] == pytest.approx(worst.delta[0], rel=1e-12)
    lower = TwoPairKRRLowerBound(mechanism="krr", k=10**9).delta(3, 1.0, 0.2)
    assert lower <= worst.delta[0] <= ThinnedClones(mechanism="krr", k=10**9).delta(3, 1.0, 0.2)


def test_binary_eps0_between_stronger_clones_and_the_two_pairs():
    # n = 1e9: the answer is found just below the two pairs' eps0 (certified by the branch and
    # bound), within EXACT_RTOL of the exact one, and never above the pairs' (real datasets).
    n, eps, delta = 10**9, 1.0, 1e-6
    exact = ExactKRR(mechanism="krr", k=2)
    value = exact.max_eps0(n, eps, delta)
    floor = StrongerClones(mechanism="krr", k=2).max_eps0(n, eps, delta)
    ceiling = TwoPairKRRLowerBound(mechanism="krr", k=2).max_eps0(n, eps, delta)
    assert floor <= value <= ceiling and value >= ceiling * (1.0 - 2e-6)
    assert exact.details("eps0", n, eps, delta)["exact"] is True


def test_binary_questions_below_the_resolution_say_so():
    record = ExactKRR(mechanism="krr", k=2).details("eps0", 10**6, 1.0, 5e-324)
    assert record["exact"] is False and "below the resolution" in record["warning"]
