"""Erlingsson et al. (2019): eps = 12 eps0 sqrt(log(1/delta)/n) for eps0 < 1/2, n >= 1000, delta < 1/100.

The bound is checked against the exact privacy profile of shuffled binary
randomized response (written here: the count of ones, user 1 switching
0 -> 1 with the other inputs fixed) and, at large ``n``, against
:class:`shufflelib.bounds.exact.TwoPairKRRLowerBound`. Tolerances: ``ROOT_RTOL``/``ROOT_ATOL``
are the documented precision of the certified root finder behind
``max_eps0``; ``CLOSED_FORM_RTOL`` is the documented safety rounding of the
closed forms (relative 1e-12).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from shufflelib._roots import ATOL as ROOT_ATOL
from shufflelib._roots import RTOL as ROOT_RTOL
from shufflelib.bounds.base import DELTA_FLOOR, NotApplicableError
from shufflelib.bounds.erlingsson import ErlingssonBound
from shufflelib.bounds.exact import TwoPairKRRLowerBound

CLOSED_FORM_RTOL = 1e-12
BOUND = ErlingssonBound()
PROPS = settings(max_examples=40, deadline=None)


def exact_rr_delta(n: int, eps0: float, eps: float, ones: int) -> float:
    """Exact delta of shuffled binary RR: ``ones`` of the other n - 1 users hold input 1."""
    p = 1 / (1 + math.exp(-eps0))
    others = np.convolve(binom.pmf(np.arange(ones + 1), ones, p), binom.pmf(np.arange(n - ones), n - 1 - ones, 1 - p))
    padded, shifted = np.append(others, 0.0), np.append(0.0, others)
    with_one = (1 - p) * padded + p * shifted  # user 1 holds 1
    with_zero = p * padded + (1 - p) * shifted  # user 1 holds 0
    t = math.exp(eps)
    return float(max(np.maximum(with_one - t * with_zero, 0).sum(), np.maximum(with_zero - t * with_one, 0).sum()))


def formula(n: int, eps0: float, delta: float) -> float:
    return 12 * eps0 * math.sqrt(math.log(1 / delta) / n)


n_st = st.floats(math.log(1000), math.log(10**9)).map(lambda x: round(math.exp(x)))
eps0_st = st.floats(0.001, 0.5, exclude_max=True)
delta_st = st.floats(1e-15, 0.01, exclude_max=True)


# ------------------------------------------------------------------ the closed form
@PROPS
@given(n=n_st, eps0=eps0_st, delta=delta_st)
def test_epsilon_is_the_corollary_capped_at_eps0(n, eps0, delta):
    eps = BOUND.epsilon(n, eps0, delta)
    expected = min(formula(n, eps0, delta), eps0)
    assert expected <= eps <= expected * (1 + 10 * CLOSED_FORM_RTOL)
    assert eps <= eps0


def test_reproduces_reference_notebook_values():
    """Values printed in 'Bounds on Privacy Amplification by Shuffling.ipynb'
    (github.com/BorjaBalle/amplification-by-shuffling), n = 5000, eps0 = 0.4."""
    assert BOUND.epsilon(5000, 0.4, 1e-6) == pytest.approx(0.2523130449483328, rel=1e-11)
    assert BOUND.delta(5000, 0.4, 0.15) == pytest.approx(0.007575677444259949, rel=1e-10)
    assert BOUND.max_eps0(5000, 0.005, 1e-6) == pytest.approx(0.00792666110628386, rel=1e-8)
    # the notebook reports NaN at eps = 0.005 (exp(-n eps^2/144 eps0^2) > 1/100): nothing certified
    assert BOUND.delta(5000, 0.4, 0.005) == 1.0


def test_delta_is_the_inverse_formula():
    n, eps0, eps = 10**5, 0.3, 0.05
    expected = math.exp(-n * eps**2 / (144 * eps0**2))
    assert expected <= BOUND.delta(n, eps0, eps) <= expected * (1 + 1e-9)
    assert BOUND.delta(n, eps0, eps0) == 0.0  # pure eps0-DP after shuffling
    assert BOUND.delta(n, eps0, 1e-4) == 1.0  # the corollary would need delta >= 1/100
    assert BOUND.delta(10**9, eps0, 0.29) == DELTA_FLOOR  # exp(-1.8e6): floored, never rounded to 0


# ------------------------------------------------------------------ validity
@pytest.mark.parametrize(
    "n,eps0,delta,condition",
    [
        (999, 0.1, 1e-6, "n >= 1000"),
        (10**5, 0.5, 1e-6, "eps0 < 0.5"),
        (10**5, 3.0, 1e-6, "eps0 < 0.5"),
        (10**5, 0.1, 0.01, "delta < 0.01"),
        (10**5, 0.1, 0.5, "delta < 0.01"),
    ],
)
def test_not_applicable_outside_its_regime(n, eps0, delta, condition):
    assert not BOUND.applicable(n, eps0, delta)
    with pytest.raises(NotApplicableError, match=f"not applicable: requires {condition}"):
        BOUND.epsilon(n, eps0, delta)
    if condition != "delta < 0.01":
        with pytest.raises(NotApplicableError, match="not applicable"):
            BOUND.delta(n, eps0, 0.01)


@PROPS
@given(n=st.integers(2, 10**9), eps0=st.floats(0.001, 30.0), delta=st.floats(1e-300, 1.0, exclude_max=True))
def test_never_nan_only_finite_or_not_applicable(n, eps0, delta):
    if n >= 1000 and eps0 < 0.5 and delta < 0.01:
        eps = BOUND.epsilon(n, eps0, delta)
        assert math.isfinite(eps) and 0.0 < eps <= eps0
    else:
        with pytest.raises(NotApplicableError):
            BOUND.epsilon(n, eps0, delta)


# ------------------------------------------------------------------ against the exact curve
@settings(max_examples=30, deadline=None)
@given(
    n=st.floats(math.log(1000), math.log(200_000)).map(lambda x: round(math.exp(x))),
    eps0=st.floats(0.01, 0.49),
    delta=st.floats(1e-12, 0.009),
)
def test_never_below_exact_binary_rr(n, eps0, delta):
    eps = BOUND.epsilon(n, eps0, delta)
    configurations = (0, (n - 1) // 2) if n <= 3000 else (0,)
    for ones in configurations:
        assert exact_rr_delta(n, eps0, eps, ones) <= delta


def test_never_below_exact_krr_curve_at_large_n():
    """TwoPairKRRLowerBound (shufflelib.bounds.exact): exact curve of shuffled binary RR, rounded down."""
    exact = TwoPairKRRLowerBound("krr", k=2)
    for n in (10**4, 10**6, 10**8):
        for eps0 in (0.05, 0.4):
            for delta in (1e-3, 1e-6, 1e-12):
                assert BOUND.epsilon(n, eps0, delta) >= exact.epsilon(n, eps0, delta)


def test_exact_comparison_is_not_vacuous():
    """At n = 1e5 the bound is well below eps0 and the exact delta there is positive."""
    n, eps0, delta = 10**5, 0.4, 1e-6
    eps = BOUND.epsilon(n, eps0, delta)
    assert eps < 0.2 * eps0
    assert 0.0 < exact_rr_delta(n, eps0, eps, 0) <= delta
    assert exact_rr_delta(n, eps0, eps / 20, 0) > delta  # a bound 20x smaller would be wrong


# ------------------------------------------------------------------ monotonicity
@PROPS
@given(n1=n_st, n2=n_st, eps0=eps0_st, delta=delta_st)
def test_epsilon_decreases_with_n(n1, n2, eps0, delta):
    lo, hi = min(n1, n2), max(n1, n2)
    assert BOUND.epsilon(hi, eps0, delta) <= BOUND.epsilon(lo, eps0, delta)


@PROPS
@given(n=n_st, a=eps0_st, b=eps0_st, delta=delta_st)
def test_epsilon_increases_with_eps0(n, a, b, delta):
    assert BOUND.epsilon(n, min(a, b), delta) <= BOUND.epsilon(n, max(a, b), delta)


@PROPS
@given(n=n_st, eps0=eps0_st, d1=delta_st, d2=delta_st)
def test_epsilon_decreases_with_delta(n, eps0, d1, d2):
    assert BOUND.epsilon(n, eps0, max(d1, d2)) <= BOUND.epsilon(n, eps0, min(d1, d2))


@PROPS
@given(n=n_st, eps0=eps0_st, f1=st.floats(0, 1.5), f2=st.floats(0, 1.5))
def test_delta_decreases_with_eps(n, eps0, f1, f2):
    d_lo, d_hi = BOUND.delta(n, eps0, min(f1, f2) * eps0), BOUND.delta(n, eps0, max(f1, f2) * eps0)
    assert 0.0 <= d_hi <= d_lo <= 1.0


# ------------------------------------------------------------------ the three questions
@PROPS
@given(n=n_st, eps0=eps0_st, delta=delta_st)
def test_delta_of_epsilon_is_within_target(n, eps0, delta):
    assert BOUND.delta(n, eps0, BOUND.epsilon(n, eps0, delta)) <= delta


@settings(max_examples=30, deadline=None)
@given(n=n_st, eps=st.floats(1e-4, 2.0), delta=delta_st)
def test_epsilon_of_max_eps0_is_within_target(n, eps, delta):
    eps0 = BOUND.max_eps0(n, eps, delta)
    assert 0.0 < eps0 < 0.5
    assert BOUND.epsilon(n, eps0, delta) <= eps
    # and it is the largest such eps0: the closed form inverts to eps / (12 sqrt(log(1/delta)/n))
    best = min(max(eps / formula(n, 1.0, delta), eps), 0.5)
    assert eps0 <= best
    assert eps0 >= best * (1 - 2 * ROOT_RTOL) - ROOT_ATOL


# ------------------------------------------------------------------ numerical safety and bad input
def test_extreme_parameters_are_finite_and_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in (1000, 10**9):
            for eps0 in (0.01, 0.4999):
                for delta in (1e-15, 0.0099):
                    eps = BOUND.epsilon(n, eps0, delta)
                    assert math.isfinite(eps) and 0 < eps <= eps0
                for eps in (0.0, 1e-300, 0.5 * eps0, eps0, 20.0):
                    assert 0.0 <= BOUND.delta(n, eps0, eps) <= 1.0
        assert BOUND.epsilon(10**9, 0.01, 1e-15) == pytest.approx(formula(10**9, 0.01, 1e-15), rel=1e-11)
        with pytest.raises(NotApplicableError):
            BOUND.epsilon(2, 20.0, 0.5)


def test_bad_input_raises_value_error():
    for mechanism, k in [("laplace", None), ("krr", 2), ("gaussian", None)]:
        with pytest.raises(ValueError, match="mechanism"):
            ErlingssonBound(mechanism, k=k)
    with pytest.raises(ValueError, match="k is only used"):
        ErlingssonBound("generic", k=3)
    for args, name in [
        ((10**4, 0.0, 1e-6), "eps0"),
        ((10**4, -0.1, 1e-6), "eps0"),
        ((10**4, math.nan, 1e-6), "eps0"),
        ((1, 0.1, 1e-6), "n"),
        ((math.nan, 0.1, 1e-6), "n"),
        ((10**4, 0.1, 0.0), "delta"),
        ((10**4, 0.1, 1.0), "delta"),
        ((10**4, 0.1, -1e-6), "delta"),
        ((10**4, 0.1, math.nan), "delta"),
    ]:
        with pytest.raises(ValueError, match=name):
            BOUND.epsilon(*args)
    with pytest.raises(ValueError, match="eps"):
        BOUND.delta(10**4, 0.1, math.nan)
    with pytest.raises(ValueError, match="eps"):
        BOUND.max_eps0(10**4, -1.0, 1e-6)
