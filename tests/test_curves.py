"""Tests for shufflelib.curves: DominatingPair, ProfileCurve and the PrivacyCurve views."""

from __future__ import annotations

import itertools
import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from shufflelib.curves import DominatingPair, PrivacyCurve, ProfileCurve

SETTINGS = settings(max_examples=40, deadline=None)


def rr_pair(eps0: float, symmetric: bool = True) -> DominatingPair:
    """Binary randomized response with parameter eps0 as a dominating pair."""
    hi = -math.log1p(math.exp(-eps0))  # log(e^eps0 / (1 + e^eps0))
    lo = -math.log1p(math.exp(eps0))  # log(1 / (1 + e^eps0))
    return DominatingPair(np.array([hi, lo]), np.array([lo, hi]), symmetric=symmetric)


def rr_delta(eps0: float, eps: np.ndarray) -> np.ndarray:
    return np.maximum(np.exp(eps0) - np.exp(eps), 0.0) / (1.0 + np.exp(eps0))


def rr_tradeoff(eps0: float, alpha: np.ndarray) -> np.ndarray:
    return np.maximum.reduce([np.zeros_like(alpha), 1 - np.exp(eps0) * alpha, np.exp(-eps0) * (1 - alpha)])


def brute_hockey(log_p: np.ndarray, log_q: np.ndarray, eps: float, dps: int = 50) -> float:
    """sum_x max(P(x) - e^eps Q(x), 0) in 50-digit arithmetic from the same float inputs."""
    with mp.workdps(dps):
        e = mp.e ** mp.mpf(eps)
        total = mp.mpf(0)
        for lp, lq in zip(log_p, log_q, strict=False):
            p = mp.e ** mp.mpf(lp) if lp > -np.inf else mp.mpf(0)
            q = mp.e ** mp.mpf(lq) if lq > -np.inf else mp.mpf(0)
            total += max(p - e * q, 0)
        return float(total)


# ----------------------------------------------------------------------------- closed forms
@pytest.mark.parametrize("eps0", [0.01, 0.5, 1.0, 3.0, 20.0])
def test_randomized_response_profile_matches_closed_form(eps0):
    rr = rr_pair(eps0)
    eps = np.linspace(0.0, 1.2 * eps0, 61)
    got = rr.delta(eps)
    want = rr_delta(eps0, eps)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)  # atol: rounding of the log-ratio at eps = eps0
    assert np.all(got[eps >= eps0 * (1 + 1e-12)] == 0.0)


@pytest.mark.parametrize("eps0", [0.1, 1.0, 3.0])
def test_randomized_response_tradeoff_matches_closed_form(eps0):
    alpha = np.linspace(0.0, 1.0, 101)
    for symmetric in (True, False):  # RR is symmetric: both conventions coincide
        got = rr_pair(eps0, symmetric).tradeoff(alpha)
        np.testing.assert_allclose(got, rr_tradeoff(eps0, alpha), atol=1e-12)


def test_randomized_response_epsilon_inverts_closed_form():
    eps0 = 1.0
    rr = rr_pair(eps0)
    for d in [1e-15, 1e-9, 1e-3, 0.1, 0.3]:
        want = math.log(math.exp(eps0) - d * (1 + math.exp(eps0)))
        got = rr.epsilon(d)
        assert want <= got <= want + 1e-9 * want + 1e-12
    assert rr.epsilon(0.5) == 0.0  # delta(0) = tanh(1/2) < 0.5


def test_scalar_and_array_shapes():
    rr = rr_pair(1.0)
    assert isinstance(rr.delta(0.3), float)
    assert rr.delta(np.zeros((2, 3))).shape == (2, 3)
    assert isinstance(rr.tradeoff(0.3), float)
    assert rr.tradeoff(np.full((4,), 0.5)).shape == (4,)


# ----------------------------------------------------------------------------- exact arithmetic
def test_tiny_deltas_keep_relative_precision():
    # Two binomials: the profile falls from ~0.5 to ~1e-32, far below cancellation range.
    x = np.arange(201)
    log_p, log_q = binom.logpmf(x, 200, 0.3), binom.logpmf(x, 200, 0.4)
    pair = DominatingPair(log_p, log_q, symmetric=False)
    values = []
    for eps in [0.0, 2.0, 5.0, 10.0, 20.0, 30.0]:
        want = brute_hockey(log_p, log_q, eps)
        got = pair.delta(eps)
        assert want > 0
        assert got >= want * (1 - 1e-13)
        assert got == pytest.approx(want, rel=1e-12)
        values.append(want)
    assert values[-1] < 1e-25  # the check above reached tiny values


@st.composite
def discrete_pairs(draw):
    size = draw(st.integers(1, 7))
    weights = st.floats(0.0, 1.0, allow_nan=False)
    p = np.array(draw(st.lists(weights, min_size=size, max_size=size)))
    q = np.array(draw(st.lists(weights, min_size=size, max_size=size)))
    if p.sum() == 0 or q.sum() == 0:
        p, q = p + 1.0, q + 1.0
    with np.errstate(divide="ignore"):  # zero probabilities become -inf log-probabilities by design
        return np.log(p / p.sum()), np.log(q / q.sum()), draw(st.booleans())


@SETTINGS
@given(discrete_pairs(), st.lists(st.floats(0.0, 6.0), min_size=1, max_size=5))
def test_random_pairs_match_brute_force(pair_args, eps_values):
    log_p, log_q, symmetric = pair_args
    pair = DominatingPair(log_p, log_q, symmetric=symmetric)
    for eps in eps_values:
        want = brute_hockey(log_p, log_q, eps)
        if symmetric:
            want = max(want, brute_hockey(log_q, log_p, eps))
        got = pair.delta(eps)
        # Exact up to the rounding of the log-ratios (absolute 1e-15) and of the sums (relative 1e-12).
        assert abs(got - want) <= 1e-12 * want + 1e-15
        assert got >= want * (1 - 1e-12) - 1e-15


@SETTINGS
@given(discrete_pairs())
def test_tradeoff_is_the_conjugate_of_the_profile(pair_args):
    log_p, log_q, symmetric = pair_args
    pair = DominatingPair(log_p, log_q, symmetric=symmetric)
    # Every vertex of a Neyman-Pearson curve is a subset sum of P or of Q: include them all.
    subsets = itertools.product([0.0, 1.0], repeat=log_p.size)
    sums = np.array([[np.dot(s, np.exp(log_p)), np.dot(s, np.exp(log_q))] for s in subsets]).ravel()
    alpha = np.unique(np.clip(np.concatenate([np.linspace(0, 1, 201), sums]), 0.0, 1.0))
    f = pair.tradeoff(alpha)
    assert np.all(np.diff(f) <= 1e-12)  # non-increasing
    assert np.all(f <= 1 - alpha + 1e-12)  # never better than a blind guess
    wide = np.concatenate([[True], np.diff(alpha) > 1e-6])
    slopes = np.diff(f[wide]) / np.diff(alpha[wide])
    assert np.all(np.diff(slopes) >= -1e-6)  # convex
    for eps in [0.0, 0.3, 1.0, 2.5]:
        from_tradeoff = np.max(1 - np.exp(eps) * alpha - f)
        assert from_tradeoff == pytest.approx(pair.delta(eps), abs=1e-9)


def test_nonsymmetric_tradeoff_is_neyman_pearson_of_q_against_p():
    # P = (1/2, 1/2) on {x, y}, Q = point mass on y: T(Q, P)(a) = (1 - a) / 2.
    pair = DominatingPair(np.log([0.5, 0.5]), np.array([-np.inf, 0.0]), symmetric=False)
    alpha = np.linspace(0, 1, 11)
    np.testing.assert_allclose(pair.tradeoff(alpha), (1 - alpha) / 2, atol=1e-15)
    np.testing.assert_allclose(pair.delta(np.array([0.0, 1.0, 5.0])), 0.5, rtol=1e-14)


# ----------------------------------------------------------------------------- structure
def test_symmetric_pair_is_order_independent_and_the_max_of_both_orders():
    rng = np.random.default_rng(3)
    p, q = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    eps = np.linspace(0, 3, 31)
    pq = DominatingPair(np.log(p), np.log(q))
    qp = DominatingPair(np.log(q), np.log(p))
    one = DominatingPair(np.log(p), np.log(q), symmetric=False)
    other = DominatingPair(np.log(q), np.log(p), symmetric=False)
    np.testing.assert_allclose(pq.delta(eps), qp.delta(eps), rtol=1e-14)
    np.testing.assert_allclose(pq.delta(eps), np.maximum(one.delta(eps), other.delta(eps)), rtol=1e-14)
    assert np.any(one.delta(eps) != other.delta(eps))  # the example is genuinely asymmetric
    alpha = np.linspace(0, 1, 51)
    np.testing.assert_allclose(pq.tradeoff(alpha), qp.tradeoff(alpha), atol=1e-14)
    assert np.all(pq.tradeoff(alpha) <= np.minimum(one.tradeoff(alpha), other.tradeoff(alpha)) + 1e-14)


def test_profile_is_monotone_and_epsilon_round_trips():
    x = np.arange(201)
    pair = DominatingPair(binom.logpmf(x, 200, 0.5), binom.logpmf(x, 200, 0.56))
    eps = np.linspace(0, 2, 401)
    d = pair.delta(eps)
    assert np.all(np.diff(d) <= 0)
    for target in [1e-15, 1e-12, 1e-8, 1e-4, 1e-2, 0.2]:
        e = pair.epsilon(target)
        assert pair.delta(e) <= target  # rounded in the safe direction
        assert e == 0.0 or pair.delta(max(e - 1e-8 * e - 1e-11, 0.0)) > target  # and tight


def test_infinite_privacy_loss_is_a_delta_floor():
    # P has an atom Q never produces: delta >= P(atom) for every eps.
    pair = DominatingPair(np.log([0.2, 0.3, 0.5]), np.array([-np.inf, np.log(0.5), np.log(0.5)]))
    assert pair.delta(50.0) == pytest.approx(0.2, rel=1e-14)
    assert pair.epsilon(0.1) == math.inf
    assert pair.epsilon(0.25) < math.inf


def test_tail_mass_is_added_to_delta_and_only_lowers_the_tradeoff():
    x = np.arange(41)
    log_p, log_q = binom.logpmf(x, 40, 0.4), binom.logpmf(x, 40, 0.5)
    keep = slice(3, 38)  # drop both tails
    missing = max(1 - np.exp(log_p[keep]).sum(), 1 - np.exp(log_q[keep]).sum())
    full = DominatingPair(log_p, log_q)
    cut = DominatingPair(log_p[keep], log_q[keep], tail_mass=missing)
    eps = np.linspace(0, 1.5, 31)
    assert np.all(cut.delta(eps) >= full.delta(eps))
    np.testing.assert_allclose(cut.delta(eps), full.delta(eps), atol=2 * missing)
    alpha = np.linspace(0, 1, 51)
    assert np.all(cut.tradeoff(alpha) <= full.tradeoff(alpha) + 1e-14)


def test_rejects_bad_inputs():
    good = np.log([0.5, 0.5])
    with pytest.raises(ValueError, match="same length"):
        DominatingPair(good, np.log([1.0]))
    with pytest.raises(ValueError, match="log_p"):
        DominatingPair(np.array([np.nan, 0.0]), good)
    with pytest.raises(ValueError, match="log_q"):
        DominatingPair(good, np.array([np.inf, 0.0]))
    with pytest.raises(ValueError, match="<= 0"):
        DominatingPair(np.array([0.5, -1.0]), good)
    with pytest.raises(ValueError, match="total mass"):
        DominatingPair(np.log([0.9, 0.9]), good)
    with pytest.raises(ValueError, match="tail_mass"):
        DominatingPair(np.log([0.5, 0.3]), good)  # 0.2 of P unaccounted for
    with pytest.raises(ValueError, match="tail_mass"):
        DominatingPair(good, good, tail_mass=-0.1)
    rr = rr_pair(1.0)
    with pytest.raises(ValueError, match="eps"):
        rr.delta(-1.0)
    with pytest.raises(ValueError, match="eps"):
        rr.delta(np.array([0.1, np.nan]))
    with pytest.raises(ValueError, match="delta"):
        rr.epsilon(0.0)
    with pytest.raises(ValueError, match="delta"):
        rr.epsilon(1.0)
    with pytest.raises(ValueError, match="alpha"):
        rr.tradeoff(1.5)
    with pytest.raises(ValueError, match="delta_fn"):
        ProfileCurve(3.0)


# ----------------------------------------------------------------------------- ProfileCurve
def test_profile_curve_reproduces_randomized_response():
    eps0 = 1.5
    curve = ProfileCurve(lambda e: rr_delta(eps0, e))
    assert isinstance(curve, PrivacyCurve)
    for d in [1e-12, 1e-6, 0.1]:
        assert curve.epsilon(d) == pytest.approx(rr_pair(eps0).epsilon(d), rel=1e-8, abs=1e-11)
    alpha = np.linspace(0, 1, 201)
    f = curve.tradeoff(alpha)
    exact = rr_tradeoff(eps0, alpha)
    assert np.all(f <= exact + 1e-12)  # a finite grid only lowers f (safe)
    np.testing.assert_allclose(f, exact, atol=1e-3)


def test_profile_curve_custom_grid_is_used():
    eps0 = 1.0
    coarse = ProfileCurve(lambda e: rr_delta(eps0, e), eps_grid=np.array([0.0]))
    # With only eps = 0 the conversion yields the line 1 - delta(0) - alpha.
    np.testing.assert_allclose(
        coarse.tradeoff(np.array([0.0, 0.5])), [1 - rr_delta(eps0, 0.0), 0.5 - rr_delta(eps0, 0.0)]
    )


def test_no_warnings_at_extremes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for eps0 in [0.01, 20.0, 700.0]:
            rr = rr_pair(eps0)
            d = rr.delta(np.array([0.0, eps0 / 2, eps0, 1e4]))
            assert np.all(np.isfinite(d))
            assert math.isfinite(rr.epsilon(1e-15))
            assert np.all(np.isfinite(rr.tradeoff(np.array([0.0, 1e-300, 0.5, 1.0]))))


def test_tradeoff_with_subnormal_type_one_error_stays_monotone_and_pessimistic():
    # Found by hypothesis: Q puts mass e^-715 (a subnormal float) on an atom where P has 1/2.
    # The exact f drops from 1 to 1/2 within alpha in [0, 1e-311]; the computed curve may
    # only be lower there (snapped to alpha = 0), and must be exact elsewhere.
    log_p = np.array([np.log(0.5), -715.997321, np.log(0.5)])
    log_q = np.array([-715.30417381, -np.inf, 0.0])
    pair = DominatingPair(log_p, log_q, symmetric=False)
    alpha = np.linspace(0.0, 1.0, 101)
    f = pair.tradeoff(alpha)
    assert np.all(np.diff(f) <= 0)
    np.testing.assert_allclose(f[1:], 0.5 * (1 - alpha[1:]), atol=1e-12)
    assert f[0] <= 1.0
