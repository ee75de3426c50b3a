"""Tests for the clone bounds (FMT 2021 closed form and numerical; FMT 2023 stronger clones)."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from shufflelib.bounds import clone_pair as clone_pair_module
from shufflelib.bounds.base import NotApplicableError
from shufflelib.bounds.clones import (
    ClonesClosedForm,
    ClonesNumerical,
    binomial_range,
    binomial_shortfall,
)
from shufflelib.bounds.exact import TwoPairKRRLowerBound
from shufflelib.bounds.stronger_clones import StrongerClones
from shufflelib.curves import DominatingPair

SETTINGS = settings(max_examples=30, deadline=None)
NUMERICAL = [ClonesNumerical(), StrongerClones(mechanism="krr", k=2)]

log_n = st.floats(math.log(2), math.log(1e6))
eps0s = st.floats(0.05, 8.0)
deltas = st.floats(1e-12, 0.1)


def clone_pair(n: int, eps0: float, clone_prob: float) -> DominatingPair:
    """The pair (A + Δ, C − A + 1 − Δ) vs its mirror, enumerated atom by atom."""
    alpha = math.exp(eps0) / (math.exp(eps0) + 1)
    log_p, log_q = [], []
    for c in range(n):
        a = binom.pmf(np.arange(c + 1), c, 0.5) * binom.pmf(c, n - 1, clone_prob)
        p, q = np.zeros(c + 2), np.zeros(c + 2)
        p[1:] += alpha * a  # Δ = 1
        p[:-1] += (1 - alpha) * a
        q[1:] += (1 - alpha) * a
        q[:-1] += alpha * a
        log_p.append(p)
        log_q.append(q)
    with np.errstate(divide="ignore"):  # zero-probability atoms become -inf by design
        return DominatingPair(np.log(np.concatenate(log_p)), np.log(np.concatenate(log_q)))


# ----------------------------------------------------------------------------- building blocks
@SETTINGS
@given(st.integers(0, 150), st.one_of(st.just(0.0), st.floats(1e-200, 1.0)), st.floats(-5.0, 160.0))
def test_binomial_shortfall_matches_direct_sum(m, p, u):
    value, err = binomial_shortfall(np.array([m]), p, np.array([u]))
    with mp.workdps(40):
        exact = mp.fsum(
            mp.binomial(m, x) * mp.mpf(p) ** x * (1 - mp.mpf(p)) ** (m - x) * (mp.mpf(u) - x)
            for x in range(m + 1)
            if x < u
        )
    assert abs(float(value[0]) - float(exact)) <= float(err[0]) + 1e-13 * float(exact) + 1e-300


def test_binomial_shortfall_keeps_tiny_thresholds_exact():
    # Thresholds just above the bottom of the support, as large eps0 produces them.
    value, _ = binomial_shortfall(np.array([1, 5, 10**6]), np.array([0.5, 0.5, 1e-9]), np.array([1e-20, 3e-18, 1e-20]))
    np.testing.assert_allclose(value, [0.5e-20, 3e-18 / 32, 1e-20 * math.exp(1e6 * math.log1p(-1e-9))], rtol=1e-12)


def _exact_fair_coin_cdf(m: int, r: int) -> float:
    """``Pr(Bin(m, 1/2) <= r)`` in exact integer arithmetic, rounded once."""
    term, total = 1, 1
    for x in range(r):
        term = term * (m - x) // (x + 1)
        total += term
    return total / 2**m


def test_a_fair_coins_cdf_summed_from_its_median_is_within_its_error_bound():
    # Exact sums (odd and even m) at the median, one below it, and up to half a standard
    # deviation below it; the error bound is below the library's Boost budget there.
    for m in (1_001, 1_000, 20_001, 20_000):
        half = math.ceil(m / 2) - 1
        r = np.array([half, half - 1, half - 7, half - int(0.25 * math.sqrt(m))], dtype=float)
        served, cdf, err = clone_pair_module._fair_coin_cdf(np.full(r.size, float(m)), r)
        assert served.all()
        exact = np.array([_exact_fair_coin_cdf(m, int(x)) for x in r])
        assert np.all(np.abs(cdf - exact) <= err)
        assert np.all(err <= clone_pair_module.BINOM_RTOL * exact)
    # 10^9 trials (blocks of a clone count): against Boost, within both error budgets.
    m = np.repeat(1e9 + np.arange(0.0, 2_000.0, 101.0), 10)  # 10 thresholds for each m
    r = np.floor(m / 2 - np.tile(np.linspace(0.0, 0.24, 10), 20) * np.sqrt(m)) - 1
    served, cdf, err = clone_pair_module._fair_coin_cdf(m, r)
    assert served.all()
    boost = binom.cdf(r, m, 0.5)
    assert np.all(np.abs(cdf - boost) <= err + clone_pair_module.BINOM_RTOL * boost)
    # A threshold beyond half a standard deviation, or one with a long run to itself, is left to Boost.
    served, _, _ = clone_pair_module._fair_coin_cdf(np.array([1e9, 1e9 + 1]), np.array([5e8 - 9e3, 5e8 - 3e3]))
    assert served.tolist() == [False, False]


def test_binomial_shortfall_near_a_fair_coins_median_matches_an_exact_sum():
    for m, u in ((10_001, 4_990.3), (10_000, 4_999.9), (10_000, 5_000.0), (10_001, 4_961.0)):
        term, total = 1, Fraction(0)  # E[(u − X)^+] = Σ_{x < u} C(m, x) (u − x) / 2^m, exactly
        for x in range(math.ceil(u)):
            total += term * (Fraction(u) - x)
            term = term * (m - x) // (x + 1)
        exact = float(total / 2**m)
        value, err = binomial_shortfall(np.array([float(m)]), 0.5, np.array([u]))
        assert abs(value[0] - exact) <= err[0] + 1e-15 * exact


@pytest.mark.parametrize("bound", NUMERICAL, ids=lambda b: b.name)
def test_max_eps0_narrowed_around_the_gaussian_estimate_answers_the_same_with_fewer_evaluations(bound, monkeypatch):
    questions = ((10**9, 1e-6, 1e-6), (10**6, 0.3, 1e-10), (2_000, 1.0, 1e-6))
    evaluations = []
    delta_profile = type(bound).delta_profile

    def counted(self, *args):
        evaluations[-1] += 1
        return delta_profile(self, *args)

    monkeypatch.setattr(type(bound), "delta_profile", counted)
    answers = {}
    for guessing in (True, False):
        if not guessing:
            monkeypatch.setattr(type(bound), "_eps0_guess", lambda self, n, eps, delta: None)
        evaluations.append(0)
        answers[guessing] = [bound.max_eps0(n, eps, delta) for n, eps, delta in questions]
    np.testing.assert_allclose(answers[True], answers[False], rtol=2e-9)
    assert evaluations[0] < 0.75 * evaluations[1]


def test_binomial_range_is_tight():
    for trials, prob, tail in [
        (10, 0.5, 1e-3),
        (10**6, 0.3, 1e-30),
        (10**9, 2e-9, 1e-300),
        (299, 0.95, 1e-300),
    ]:
        lo, hi = binomial_range(trials, prob, tail)
        assert binom.cdf(lo - 1, trials, prob) <= tail < binom.cdf(lo, trials, prob)
        assert binom.sf(hi, trials, prob) <= tail
        assert hi == 0 or binom.sf(hi - 1, trials, prob) > tail


# ----------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("n", [2, 3, 17, 200])
@pytest.mark.parametrize("eps0", [0.05, 1.0, 4.0])
def test_numerical_bounds_equal_the_divergence_of_their_pair(n, eps0):
    eps = np.linspace(0.0, 1.1 * eps0, 34)
    for bound in NUMERICAL:
        exact = clone_pair(n, eps0, bound.clone_probability(eps0)).delta(eps)
        got = bound.delta_profile(n, eps0, eps)
        assert np.all(got >= exact * (1 - 1e-12) - 1e-15)  # an upper bound ...
        assert np.all(got <= exact * (1 + 1e-5) + 1e-300)  # ... and a tight one (no blocks for small n)


def test_blocking_is_safe_and_its_slack_small(monkeypatch):
    n, eps0 = 10**6, 1.0
    eps = np.array([0.0, 0.001, 0.003, 0.005, 0.008])
    bound = ClonesNumerical()
    blocked = bound.delta_profile(n, eps0, eps)
    monkeypatch.setattr(clone_pair_module, "_BLOCKS", 10**7)  # one block per clone count: exact sum
    clone_pair_module.binomial_blocks.cache_clear()
    try:
        exact = bound.delta_profile(n, eps0, eps)
    finally:
        clone_pair_module.binomial_blocks.cache_clear()
    assert exact[-1] < 1e-10  # the comparison reaches the small-delta regime
    assert np.all(blocked >= exact)
    assert np.all(blocked <= exact * (1 + 4e-4))  # the documented block slack


def test_matches_the_authors_reported_range():
    # apple/ml-shuffling-amplification README: n = 1e5, eps0 = 4, delta = 1e-6 gives eps in [0.1675, 0.1728]
    # (their lower and upper numerical bounds for the same pair).
    eps = ClonesNumerical().epsilon(100_000, 4.0, 1e-6)
    assert 0.1675 <= eps <= 0.1728


def test_closed_form_value_and_constants():
    # Theorem 3.1 evaluated by hand: e^4 = 54.59815, log(4e6) = 15.20181.
    inner = 8 * math.sqrt(54.598150033 * 15.201804919 / 1e5) + 8 * 54.598150033 / 1e5
    assert ClonesClosedForm().epsilon(100_000, 4.0, 1e-6) == pytest.approx(math.log1p(math.tanh(2.0) * inner), rel=1e-9)
    assert ClonesClosedForm().epsilon(100_000, 4.0, 1e-6) == pytest.approx(0.53463, abs=1e-5)


def test_closed_form_validity():
    bound = ClonesClosedForm()
    limit = math.log(10**4 / (16 * math.log(2 / 1e-6)))  # 3.76
    assert bound.applicable(10**4, limit - 1e-6, 1e-6)
    with pytest.raises(NotApplicableError, match="log\\(n / \\(16 log\\(2/delta\\)\\)\\)"):
        bound.epsilon(10**4, limit + 1e-6, 1e-6)
    with pytest.raises(NotApplicableError):
        bound.epsilon(50, 0.1, 1e-6)  # n too small for any eps0
    with pytest.raises(NotApplicableError):
        bound.delta(20, 1.0, 0.1)  # not even delta -> 1 helps
    with pytest.raises(NotApplicableError):
        bound.max_eps0(100, 0.01, 1e-6)


def test_stronger_clones_only_for_randomized_response():
    with pytest.raises(ValueError, match="mechanism"):
        StrongerClones()
    with pytest.raises(ValueError, match="k must be given"):
        StrongerClones(mechanism="krr")
    a = StrongerClones(mechanism="krr", k=2).epsilon(10**4, 1.0, 1e-6)
    b = StrongerClones(mechanism="krr", k=50).epsilon(10**4, 1.0, 1e-6)
    assert a == b  # the pair does not depend on k
    assert a < ClonesNumerical().epsilon(10**4, 1.0, 1e-6)  # larger clone probability


# ----------------------------------------------------------------------------- monotonicity
@SETTINGS
@given(log_n, eps0s, deltas)
def test_epsilon_moves_with_the_parameters(ln, eps0, delta):
    n = int(math.exp(ln))
    for bound in NUMERICAL:
        eps = bound.epsilon(n, eps0, delta)
        assert 0.0 <= eps <= eps0
        assert bound.epsilon(2 * n, eps0, delta) <= eps * (1 + 1e-9) + 1e-12  # more users: more privacy
        assert bound.epsilon(n, 1.2 * eps0, delta) >= eps * (1 - 1e-9) - 1e-12  # weaker local privacy
        assert bound.epsilon(n, eps0, delta / 10) >= eps * (1 - 1e-9) - 1e-12  # smaller delta: larger eps


@SETTINGS
@given(log_n, eps0s, deltas)
def test_closed_form_moves_with_the_parameters_and_exceeds_the_numerical_bound(ln, eps0, delta):
    n = int(math.exp(ln))
    bound = ClonesClosedForm()
    assume(bound.applicable(n, eps0, delta))
    eps = bound.epsilon(n, eps0, delta)
    assert eps >= ClonesNumerical().epsilon(n, eps0, delta) * (1 - 1e-9)  # same pair, looser analysis
    assert bound.epsilon(2 * n, eps0, delta) <= eps
    if bound.applicable(n, 0.8 * eps0, delta):
        assert bound.epsilon(n, 0.8 * eps0, delta) <= eps
    assert bound.epsilon(n, eps0, min(10 * delta, 0.5)) <= eps


@SETTINGS
@given(log_n, eps0s, deltas)
def test_the_questions_are_consistent(ln, eps0, delta):
    n = int(math.exp(ln))
    for bound in [*NUMERICAL, ClonesClosedForm()]:
        if not bound.applicable(n, eps0, delta):
            continue
        eps = bound.epsilon(n, eps0, delta)
        assert bound.delta(n, eps0, eps) <= delta
        assert bound.delta(n, eps0, eps * 1.01 + 1e-9) <= bound.delta(n, eps0, eps)


@settings(max_examples=8, deadline=None)
@given(st.floats(math.log(50), math.log(1e4)), st.floats(0.01, 0.5), st.floats(1e-10, 1e-3))
def test_max_eps0_is_consistent(ln, eps, delta):
    n = int(math.exp(ln))
    for bound in [*NUMERICAL, ClonesClosedForm()]:
        try:
            e0 = bound.max_eps0(n, eps, delta)
        except NotApplicableError:
            continue
        if bound in NUMERICAL:
            assert e0 >= eps  # the pair is eps0-DP (the closed form may stop at its validity limit)
        assert bound.epsilon(n, e0, delta) <= eps


# ----------------------------------------------------------------------------- exact lower bound
@settings(max_examples=20, deadline=None)
@given(
    st.floats(math.log(2), math.log(1e5)),
    st.floats(0.05, 6.0),
    st.floats(1e-10, 0.2),
    st.sampled_from([2, 3, 6]),
)
def test_no_bound_undercuts_the_exact_randomized_response_curve(ln, eps0, delta, k):
    n = int(math.exp(ln))
    exact = TwoPairKRRLowerBound(mechanism="krr", k=k).epsilon(n, eps0, delta)
    assert StrongerClones(mechanism="krr", k=k).epsilon(n, eps0, delta) >= exact
    assert ClonesNumerical().epsilon(n, eps0, delta) >= exact  # generic bounds cover k-RR
    closed = ClonesClosedForm()
    if closed.applicable(n, eps0, delta):
        assert closed.epsilon(n, eps0, delta) >= exact


# ----------------------------------------------------------------------------- extremes
@pytest.mark.parametrize("n", [2, 10**9])
@pytest.mark.parametrize("eps0", [0.01, 20.0])
def test_extreme_parameters_give_finite_answers_without_warnings(n, eps0):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for bound in NUMERICAL:
            for delta in [1e-15, 0.5]:
                eps = bound.epsilon(n, eps0, delta)
                assert 0.0 <= eps <= eps0
            d = [bound.delta(n, eps0, e) for e in (0.0, eps0 / 2, eps0, 2 * eps0, 1e4)]
            assert all(0.0 <= v <= 1.0 for v in d) and d[2] == d[3] == d[4] == 0.0
        closed = ClonesClosedForm()
        for delta in [1e-15, 0.5]:
            if closed.applicable(n, eps0, delta):
                assert 0.0 <= closed.epsilon(n, eps0, delta) <= eps0
            else:
                with pytest.raises(NotApplicableError):
                    closed.epsilon(n, eps0, delta)


@pytest.mark.parametrize("eps0", [30.0, 50.0, 100.0])
def test_large_eps0_keeps_precision(eps0):
    # Few clones: the pair is essentially randomized response, delta(eps) = (e^eps0 - e^eps) / (e^eps0 + 1).
    n, eps = 100, eps0 - 10.0
    want_delta = -math.expm1(eps - eps0) / (1 + math.exp(-eps0))
    want_eps = eps0 + math.log1p(-1e-6 * (1 + math.exp(-eps0)))
    for bound in NUMERICAL:
        assert bound.delta(n, eps0, eps) == pytest.approx(want_delta, rel=1e-8)  # 2e-9 rounding budget
        assert bound.epsilon(n, eps0, 1e-6) == pytest.approx(want_eps, rel=1e-9)
    exact = TwoPairKRRLowerBound(mechanism="krr", k=2)
    assert exact.epsilon(n, eps0, 1e-6) <= NUMERICAL[1].epsilon(n, eps0, 1e-6)


def test_numerical_range_of_eps0():
    for bound in [*NUMERICAL, TwoPairKRRLowerBound(mechanism="krr", k=3)]:
        assert bound.applicable(10, 100.0) and not bound.applicable(10, 100.5)
        with pytest.raises(ValueError, match=r"eps0 must be a number in \[1e-06, 100.0\]"):  # the box
            bound.epsilon(10, 100.5, 1e-6)


def test_curve_views_agree_with_the_bound():
    bound = StrongerClones(mechanism="krr", k=3)
    curve = bound.curve(10**4, 1.0, eps_grid=np.linspace(0, 1, 41))
    eps = np.linspace(0, 1, 11)
    np.testing.assert_array_equal(curve.delta(eps), bound.delta_profile(10**4, 1.0, eps))
    assert curve.epsilon(1e-6) == pytest.approx(bound.epsilon(10**4, 1.0, 1e-6), rel=1e-8)
    f = curve.tradeoff(np.linspace(0, 1, 21))
    assert np.all(np.diff(f) <= 1e-12) and f[0] <= 1.0 and f[-1] == 0.0
    with pytest.raises(ValueError, match="n must be"):
        bound.curve(1, 1.0)
    with pytest.raises(ValueError, match="eps0 must be a number in"):  # outside the box
        bound.curve(10, 101.0)


def test_decomposition_slack_is_the_brute_force_minimum():
    """The stronger clones' condition, by loops over every (y, x, x1 != x1'): zero for k-RR."""
    from shufflelib.bounds.stronger_clones import decomposition_slack
    from shufflelib.randomizers import BoundedLaplace, KRandomizedResponse

    for k, eps0 in ((2, 0.1), (3, 1.0), (5, 4.0)):
        rr = KRandomizedResponse(k, eps0)

        def lik(y, x, rr=rr):
            return float(rr.likelihood(np.array(y), np.array(x)))

        brute = min(
            lik(y, x) - (lik(y, a) + lik(y, b)) / (math.exp(eps0) + 1)
            for y in range(k)
            for x in range(k)
            for a in range(k)
            for b in range(k)
            if a != b
        )
        assert decomposition_slack(rr) == pytest.approx(brute, abs=1e-15)
        assert abs(brute) < 1e-15  # attained with equality: y in {x1, x1'}, x outside
    with pytest.raises(ValueError, match="discrete"):
        decomposition_slack(BoundedLaplace(1.0))
