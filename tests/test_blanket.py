"""Privacy-blanket bounds (Balle, Bell, Gascón, Nissim 2019): validity, monotonicity, reference values.

Upper bounds are checked against exact computations written here:

* the exact privacy profile of shuffled binary randomized response (the count
  of ones), user 1 switching 0 -> 1 with the other inputs fixed;
* the same for two lower bounds obtained by post-processing: k-RR seen
  through the counts of the two values that differ, and the Laplace
  mechanism thresholded at 1/2 (a binary randomized response);
* the exact value of the blanket theorem (Theorem 3.1) for k-RR, which the
  Hoeffding and Bennett bounds must dominate and which must itself dominate
  the exact profile;
* at large ``n``, the exact k-RR curve of :class:`shufflelib.bounds.exact.TwoPairKRRLowerBound`.

Tolerances: ``ROOT_RTOL``/``ROOT_ATOL`` are the documented precision of the
certified root finder behind ``epsilon`` and ``max_eps0``; ``SUM_ATOL`` is the
float64 rounding floor of the exact sums (at most a few hundred terms of size
<= 1); ``FLOAT_RTOL`` is the rounding floor of one closed-form evaluation.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.special import gammaln
from scipy.stats import binom

from shufflelib._roots import ATOL as ROOT_ATOL
from shufflelib._roots import RTOL as ROOT_RTOL
from shufflelib.bounds.base import DELTA_FLOOR, NotApplicableError
from shufflelib.bounds.blanket import BlanketBennett, BlanketHoeffding, _generic, _krr, _laplace
from shufflelib.bounds.exact import TwoPairKRRLowerBound
from shufflelib.bounds.variation_ratio import variation_ratio_parameters
from shufflelib.randomizers import RandomizerFamily

SUM_ATOL = 1e-12
FLOAT_RTOL = 1e-12
BOUND_CLASSES = (BlanketHoeffding, BlanketBennett)
FAMILIES = (("generic", None), ("laplace", None), ("krr", 2), ("krr", 5), ("krr", 1000))
ALL_BOUNDS = [cls(m, k=k) for cls in BOUND_CLASSES for m, k in FAMILIES]
PROPS = settings(max_examples=30, deadline=None)


# ------------------------------------------------------------------ exact computations
def hockey_stick(p: np.ndarray, q: np.ndarray, eps: float) -> float:
    """max over both directions of sum (p - e^eps q)_+."""
    t = math.exp(eps)
    return float(max(np.maximum(p - t * q, 0).sum(), np.maximum(q - t * p, 0).sum()))


def exact_binary_delta(n: int, eps: float, p1: float, p0: float, ones: int) -> float:
    """Exact delta of the shuffled count of ones.

    Each user reports 1 with probability ``p1`` (input 1) or ``p0`` (input 0);
    ``ones`` of the other ``n - 1`` users hold input 1; user 1 switches 0 -> 1.
    """
    others = np.convolve(binom.pmf(np.arange(ones + 1), ones, p1), binom.pmf(np.arange(n - ones), n - 1 - ones, p0))
    shifted = np.append(0.0, others)
    padded = np.append(others, 0.0)
    p = (1 - p1) * padded + p1 * shifted
    q = (1 - p0) * padded + p0 * shifted
    return hockey_stick(p, q, eps)


def exact_rr_delta(n: int, eps0: float, eps: float) -> float:
    """Exact delta of shuffled binary randomized response, worst case over the other inputs."""
    p1 = 1 / (1 + math.exp(-eps0))
    return max(exact_binary_delta(n, eps, p1, 1 - p1, c) for c in range(n))


def exact_laplace_lower(n: int, eps0: float, eps: float) -> float:
    """A lower bound on shuffled Laplace on [0, 1]: threshold every report at 1/2 (post-processing)."""
    p1 = 1 - 0.5 * math.exp(-eps0 / 2)  # P(report > 1/2 | input 1)
    return max(exact_binary_delta(n, eps, p1, 1 - p1, c) for c in (0, (n - 1) // 2, n - 1))


def exact_krr_pair_delta(n: int, k: int, eps0: float, eps: float) -> float:
    """Exact delta of shuffled k-RR, user 1 switching value 1 -> 2, others holding value 3 (k >= 3).

    The counts (N1, N2) of reports 1 and 2 are a sufficient statistic here.
    """
    norm = math.exp(eps0) + k - 1
    p, q = math.exp(eps0) / norm, 1 / norm
    i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")

    def others(a, b):  # multinomial(n - 1; q, q, 1 - 2q) at (a, b)
        m = n - 1
        ok = (a >= 0) & (b >= 0) & (a + b <= m)
        a_, b_ = np.where(ok, a, 0), np.where(ok, b, 0)
        logp = (
            gammaln(m + 1)
            - gammaln(a_ + 1)
            - gammaln(b_ + 1)
            - gammaln(m - a_ - b_ + 1)
            + (a_ + b_) * math.log(q)
            + (m - a_ - b_) * math.log1p(-2 * q)
        )
        return np.where(ok, np.exp(logp), 0.0)

    stay = others(i, j)
    to1, to2 = others(i - 1, j), others(i, j - 1)
    big_p = p * to1 + q * to2 + (1 - p - q) * stay
    big_q = q * to1 + p * to2 + (1 - p - q) * stay
    return hockey_stick(big_p, big_q, eps)


def krr_losses(k: int, eps0: float, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Values and probabilities of L = (mu_1 - e^eps mu_2)/omega for k-RR (omega uniform)."""
    norm = math.exp(eps0) + k - 1
    p, q = math.exp(eps0) / norm, 1 / norm
    t = math.exp(eps)
    values = np.array([p - t * q, q - t * p, q - t * q]) * k
    probs = np.array([1 / k, 1 / k, (k - 2) / k])
    return values, probs


def exact_blanket_theorem(n: int, k: int, eps0: float, eps: float) -> float:
    """Theorem 3.1 evaluated exactly for k-RR: (1/(gamma n)) E_M E[(L_1 + ... + L_M)_+]."""
    gamma = k / (math.exp(eps0) + k - 1)
    (u1, u2, u3), (r1, r2, r3) = krr_losses(k, eps0, eps)
    total = 0.0
    for m in range(1, n + 1):
        i, j = np.meshgrid(np.arange(m + 1), np.arange(m + 1), indexing="ij")
        ok = i + j <= m
        i, j = i[ok], j[ok]
        rest = m - i - j
        logw = (
            gammaln(m + 1) - gammaln(i + 1) - gammaln(j + 1) - gammaln(rest + 1) + i * math.log(r1) + j * math.log(r2)
        )
        if r3 > 0:
            logw = logw + rest * math.log(r3)
        else:
            logw = np.where(rest == 0, logw, -np.inf)
        s = np.maximum(i * u1 + j * u2 + rest * u3, 0.0)
        total += binom.pmf(m, n, gamma) * float(np.sum(np.exp(logw) * s))
    return total / (gamma * n)


# ------------------------------------------------------------------ strategies
eps0_st = st.floats(0.01, 8.0)
small_n = st.integers(2, 40)
bound_st = st.sampled_from(ALL_BOUNDS)


def log_int(lo: int, hi: int):
    return st.floats(math.log(lo), math.log(hi)).map(lambda x: round(math.exp(x)))


# ------------------------------------------------------------------ the family constants
@pytest.mark.parametrize("k", [2, 3, 7])
@pytest.mark.parametrize("eps0", [0.01, 0.7, 3.0])
def test_krr_constants_are_exact_worst_case(k, eps0):
    for eps in (0.3 * eps0, 0.9 * eps0):
        values, probs = krr_losses(k, eps0, eps)
        b = _krr(eps0, np.array([eps]), k)
        assert math.exp(b.log_gamma) == pytest.approx(k / (math.exp(eps0) + k - 1), rel=1e-14)
        # the pair (1, 2) attains the constants; the pair (1, 1) stays below them
        same = np.array([1 - math.exp(eps)]) * k * np.array([math.exp(eps0), 1.0]) / (math.exp(eps0) + k - 1)
        same_probs = np.array([1 / k, (k - 1) / k])
        span = math.exp(b.log_span) * (math.exp(eps) + 1)
        assert values.max() - values[probs > 0].min() == pytest.approx(span, rel=1e-12)
        assert values.max() == pytest.approx(math.exp(b.log_upper[0]), rel=1e-12)
        assert np.dot(probs, values**2) == pytest.approx(math.exp(b.log_second[0]), rel=1e-12)
        assert np.ptp(same) <= span and same.max() <= math.exp(b.log_upper[0])
        assert np.dot(same_probs, same**2) <= math.exp(b.log_second[0])
        assert np.dot(probs, values) == pytest.approx(1 - math.exp(eps), rel=1e-12)


def laplace_loss_moments(eps0: float, eps: float, x: float, xp: float) -> tuple[float, float, float]:
    """max L, min L and E[L^2] (Y ~ blanket) for the Laplace mechanism on [0, 1], inputs x, x'."""
    gamma = math.exp(-eps0 / 2)

    def mu(y, c):
        return 0.5 * eps0 * np.exp(-eps0 * np.abs(y - c))

    def omega(y):
        return 0.5 * eps0 * np.exp(-eps0 * np.maximum(np.abs(y), np.abs(y - 1))) / gamma

    def loss(y):
        return (mu(y, x) - math.exp(eps) * mu(y, xp)) / omega(y)

    cut = 60 / eps0
    pts = sorted({-cut, 0.0, x, xp, 0.5, 1.0, 1 + cut})
    second = sum(
        integrate.quad(lambda y: loss(y) ** 2 * omega(y), a, b, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
        for a, b in itertools.pairwise(pts)
    )
    ys = np.concatenate([np.linspace(-cut, 1 + cut, 20001), pts])
    values = loss(ys)
    return float(values.max()), float(values.min()), second


@pytest.mark.parametrize("eps0,eps", [(0.5, 0.1), (2.0, 1.0), (6.0, 0.5)])
def test_laplace_constants_cover_every_pair(eps0, eps):
    b = _laplace(eps0, np.array([eps]))
    upper, second = math.exp(b.log_upper[0]), math.exp(b.log_second[0])
    span = math.exp(b.log_span) * (math.exp(eps) + 1)
    assert math.exp(b.log_gamma) == pytest.approx(math.exp(-eps0 / 2), rel=1e-14)
    grid = np.linspace(0, 1, 5)
    for x in grid:
        for xp in grid:
            hi, lo, m2 = laplace_loss_moments(eps0, eps, x, xp)
            assert hi <= upper * (1 + 1e-12)
            assert hi - lo <= span * (1 + 1e-12)
            assert m2 <= second * (1 + 1e-9)  # quad's relative accuracy
    hi, lo, m2 = laplace_loss_moments(eps0, eps, 0.0, 1.0)  # the extreme pair attains them
    assert (hi, hi - lo, m2) == pytest.approx((upper, span, second), rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(eps0=st.floats(0.01, 8.0), frac=st.floats(0.01, 0.99), seed=st.integers(0, 2**32 - 1))
def test_generic_constants_hold_for_random_ldp_mechanisms(eps0, frac, seed):
    """Random eps0-LDP mechanisms on 6 outputs; blanket omega = mu_{x0}, gamma = e^-eps0."""
    rng = np.random.default_rng(seed)
    base = rng.dirichlet(np.ones(6))
    tilt = np.exp(0.5 * eps0 * rng.random((3, 6)))  # each ratio of tilts and of normalizers <= e^(eps0/2)
    mu = base * tilt
    mu /= mu.sum(axis=1, keepdims=True)
    assert np.log(mu.max(axis=0) / mu.min(axis=0)).max() <= eps0 + 1e-12
    eps = frac * eps0
    b = _generic(eps0, np.array([eps]))
    omega = mu[0]
    assert np.all(math.exp(b.log_gamma) * omega <= mu.min(axis=0) * (1 + 1e-12))
    span = math.exp(b.log_span) * (math.exp(eps) + 1)
    for x in range(3):
        for xp in range(3):
            loss = (mu[x] - math.exp(eps) * mu[xp]) / omega
            assert loss.max() <= math.exp(b.log_upper[0]) * (1 + 1e-12)
            assert np.ptp(loss) <= span * (1 + 1e-12)
            assert np.dot(omega, loss**2) <= math.exp(b.log_second[0]) * (1 + 1e-12)


# ------------------------------------------------------------------ against exact curves
@PROPS
@given(
    n=small_n,
    eps0=eps0_st,
    frac=st.floats(0.0, 1.0),
    cls=st.sampled_from(BOUND_CLASSES),
    family=st.sampled_from([("generic", None), ("krr", 2)]),
)
def test_never_below_exact_binary_rr(n, eps0, frac, cls, family):
    eps = frac * eps0
    bound = cls(family[0], k=family[1])
    assert bound.delta(n, eps0, eps) >= exact_rr_delta(n, eps0, eps) - SUM_ATOL


@PROPS
@given(n=small_n, eps0=eps0_st, frac=st.floats(0.0, 1.0), cls=st.sampled_from(BOUND_CLASSES))
def test_laplace_never_below_thresholded_exact(n, eps0, frac, cls):
    eps = frac * eps0
    assert cls("laplace").delta(n, eps0, eps) >= exact_laplace_lower(n, eps0, eps) - SUM_ATOL


@PROPS
@given(n=st.integers(2, 25), k=st.sampled_from([2, 3, 10, 100]), eps0=eps0_st, frac=st.floats(0.01, 0.99))
def test_krr_theorem_chain(n, k, eps0, frac):
    """exact shuffled k-RR <= exact Theorem 3.1 <= Hoeffding, Bennett."""
    eps = frac * eps0
    theorem = exact_blanket_theorem(n, k, eps0, eps)
    exact = exact_rr_delta(n, eps0, eps) if k == 2 else exact_krr_pair_delta(n, k, eps0, eps)
    assert exact <= theorem + SUM_ATOL
    for cls in BOUND_CLASSES:
        assert cls("krr", k=k).delta(n, eps0, eps) >= min(theorem, 1.0) - SUM_ATOL


def test_bounds_are_not_vacuous_where_they_should_bite():
    """Sanity of the comparisons above: at moderate n the bounds are far below 1 and above exact."""
    n, eps0, eps = 40, 0.5, 0.45
    for bound in (BlanketHoeffding("krr", k=2), BlanketBennett("krr", k=2)):
        d = bound.delta(n, eps0, eps)
        assert exact_rr_delta(n, eps0, eps) < d < 1.0
    n, k, eps0, eps = 20, 10, 2.0, 1.5
    theorem = exact_blanket_theorem(n, k, eps0, eps)
    assert exact_krr_pair_delta(n, k, eps0, eps) < theorem < BlanketBennett("krr", k=k).delta(n, eps0, eps) < 1.0


@pytest.mark.parametrize("k,eps0", [(10, 2.0), (100, 1.0)])
def test_krr_at_moderate_n_never_below_exact(k, eps0):
    """n = 1000: both bounds certify an eps where the exact delta of shuffled k-RR is within target."""
    n, delta = 1000, 1e-6
    for cls in BOUND_CLASSES:
        eps = cls("krr", k=k).epsilon(n, eps0, delta)
        assert exact_krr_pair_delta(n, k, eps0, eps) <= delta
    # Bennett is within a factor 2 of exact here: the comparison can fail
    eps = BlanketBennett("krr", k=k).epsilon(n, eps0, delta)
    assert exact_krr_pair_delta(n, k, eps0, eps / 2) > delta


@pytest.mark.parametrize("k", [2, 10, 100])
def test_never_below_exact_krr_curve_at_large_n(k):
    """TwoPairKRRLowerBound (shufflelib.bounds.exact) is the exact curve of real neighbouring datasets, rounded down."""
    exact = TwoPairKRRLowerBound("krr", k=k)
    for n in (1000, 10**5) + ((10**7,) if k == 2 else ()):
        for eps0 in (0.5, 2.0, 5.0):
            lower = exact.epsilon(n, eps0, 1e-6)
            for cls in BOUND_CLASSES:
                bound = cls("krr", k=k)
                assert bound.epsilon(n, eps0, 1e-6) >= lower
                for frac in (0.05, 0.3, 0.9):
                    assert bound.delta(n, eps0, frac * eps0) >= exact.delta(n, eps0, frac * eps0)
    # Bennett is within a factor 2 of the exact curve here, so the comparison has teeth
    assert BlanketBennett("krr", k=k).epsilon(10**5, 2.0, 1e-6) < 2 * exact.epsilon(10**5, 2.0, 1e-6)


# ------------------------------------------------------------------ monotonicity
@PROPS
@given(
    bound=bound_st,
    n1=log_int(2, 10**9),
    n2=log_int(2, 10**9),
    eps0=st.floats(0.01, 10.0),
    delta=st.floats(1e-12, 0.4),
)
def test_epsilon_decreases_with_n(bound, n1, n2, eps0, delta):
    n1, n2 = min(n1, n2), max(n1, n2)
    e1, e2 = bound.epsilon(n1, eps0, delta), bound.epsilon(n2, eps0, delta)
    assert e2 <= e1 * (1 + ROOT_RTOL) + ROOT_ATOL
    assert 0.0 <= e2 <= eps0


@PROPS
@given(
    bound=bound_st,
    n=log_int(2, 10**9),
    a=st.floats(0.01, 10.0),
    b=st.floats(0.01, 10.0),
    delta=st.floats(1e-12, 0.4),
)
def test_epsilon_increases_with_eps0(bound, n, a, b, delta):
    lo, hi = min(a, b), max(a, b)
    assert bound.epsilon(n, lo, delta) <= bound.epsilon(n, hi, delta) * (1 + ROOT_RTOL) + ROOT_ATOL


@PROPS
@given(
    bound=bound_st,
    n=log_int(2, 10**9),
    eps0=st.floats(0.01, 10.0),
    d1=st.floats(1e-15, 0.5, exclude_max=True),
    d2=st.floats(1e-15, 0.5, exclude_max=True),
)
def test_epsilon_decreases_with_delta(bound, n, eps0, d1, d2):
    lo, hi = min(d1, d2), max(d1, d2)
    assert bound.epsilon(n, eps0, hi) <= bound.epsilon(n, eps0, lo) * (1 + ROOT_RTOL) + ROOT_ATOL


@PROPS
@given(
    bound=bound_st,
    n=log_int(2, 10**9),
    eps0=st.floats(0.01, 20.0),
    f1=st.floats(0, 1.2),
    f2=st.floats(0, 1.2),
)
def test_delta_profile_is_non_increasing(bound, n, eps0, f1, f2):
    lo, hi = min(f1, f2) * eps0, max(f1, f2) * eps0
    d_lo, d_hi = bound.delta(n, eps0, lo), bound.delta(n, eps0, hi)
    assert 0.0 <= d_hi <= d_lo * (1 + FLOAT_RTOL) <= 1.0 + FLOAT_RTOL
    if hi >= eps0:
        assert d_hi == 0.0  # the shuffled protocol is eps0-DP


# ------------------------------------------------------------------ the three questions
@PROPS
@given(
    bound=bound_st,
    n=log_int(2, 10**9),
    eps0=st.floats(0.01, 20.0),
    delta=st.floats(1e-15, 0.5, exclude_max=True),
)
def test_delta_of_epsilon_is_within_target(bound, n, eps0, delta):
    eps = bound.epsilon(n, eps0, delta)
    assert bound.delta(n, eps0, eps) <= delta


@settings(max_examples=15, deadline=None)
@given(bound=bound_st, n=log_int(100, 10**9), eps=st.floats(0.01, 5.0), delta=st.floats(1e-12, 0.1))
def test_epsilon_of_max_eps0_is_within_target(bound, n, eps, delta):
    try:
        eps0 = bound.max_eps0(n, eps, delta)
    except NotApplicableError:
        return  # nothing to certify: no eps0 reaches the target
    assert eps0 >= eps  # eps0 <= eps is always (eps, 0)-DP
    assert bound.epsilon(n, eps0, delta) <= eps


# ------------------------------------------------------------------ reference values
# From the authors' notebook "Bounds on Privacy Amplification by Shuffling.ipynb"
# (github.com/BorjaBalle/amplification-by-shuffling, the code behind the paper's plots),
# n = 5000, eps0 = 0.4. rel=1e-8: their binomial expectation and root finding run at 1e-12,
# ours rounds delta up by a relative 1e-10 and epsilon to a relative 1e-9.
REFERENCE_DELTA_AT_EPS_0_005 = {
    ("hoeffding", "generic", None): 0.037942471911790294,
    ("bennett", "generic", None): 0.14009168313254008,
    ("hoeffding", "laplace", None): 0.005792337614227242,
    ("bennett", "laplace", None): 0.004853541355460176,
    ("hoeffding", "krr", 2): 0.005642546362741425,
    ("bennett", "krr", 2): 0.005686529997978448,
    ("hoeffding", "krr", 100): 0.007445148952583604,
    ("bennett", "krr", 100): 3.360217120217285e-09,
}
REFERENCE_EPS_AT_DELTA_1E6 = {
    ("hoeffding", "generic", None): 0.05746164784348143,
    ("bennett", "generic", None): 0.11301679081207759,
    ("hoeffding", "laplace", None): 0.02423345457274603,
    ("bennett", "laplace", None): 0.022807535585468337,
    ("hoeffding", "krr", 2): 0.02397882347116631,
    ("bennett", "krr", 2): 0.02428301504607527,
    ("hoeffding", "krr", 100): 0.026881289729458715,
    ("bennett", "krr", 100): 0.0035207898339832183,
}
REFERENCE_EPS0_AT_EPS_0_005_DELTA_1E6 = {
    ("hoeffding", "laplace", None): 0.09927144247094191,
    ("bennett", "laplace", None): 0.09994509899812597,
    ("hoeffding", "krr", 2): 0.09933108921716256,
    ("bennett", "krr", 2): 0.09839052251746179,
    ("hoeffding", "krr", 100): 0.0970004939783926,
    ("bennett", "krr", 100): 0.5191456848866671,
}


def make(kind: str, mechanism: str, k: int | None):
    return (BlanketHoeffding if kind == "hoeffding" else BlanketBennett)(mechanism, k=k)


@pytest.mark.parametrize("key", sorted(REFERENCE_DELTA_AT_EPS_0_005, key=str))
def test_reproduces_reference_delta(key):
    ours = make(*key).delta(5000, 0.4, 0.005)
    assert ours == pytest.approx(REFERENCE_DELTA_AT_EPS_0_005[key], rel=1e-8)
    assert ours >= REFERENCE_DELTA_AT_EPS_0_005[key]  # rounded up, never down


@pytest.mark.parametrize("key", sorted(REFERENCE_EPS_AT_DELTA_1E6, key=str))
def test_reproduces_reference_epsilon(key):
    assert make(*key).epsilon(5000, 0.4, 1e-6) == pytest.approx(REFERENCE_EPS_AT_DELTA_1E6[key], rel=1e-8)


@pytest.mark.parametrize("key", sorted(REFERENCE_EPS0_AT_EPS_0_005_DELTA_1E6, key=str))
def test_reproduces_reference_max_eps0(key):
    ours = make(*key).max_eps0(5000, 0.005, 1e-6)
    assert ours == pytest.approx(REFERENCE_EPS0_AT_EPS_0_005_DELTA_1E6[key], rel=1e-8)


def test_bennett_beats_hoeffding_for_large_k():
    """The paper's point about Bennett: the loss of k-RR is rarely large, its variance is small."""
    n, eps0, delta = 10**6, 2.0, 1e-8
    h = BlanketHoeffding("krr", k=1000).epsilon(n, eps0, delta)
    b = BlanketBennett("krr", k=1000).epsilon(n, eps0, delta)
    assert b < 0.5 * h


# ------------------------------------------------------------------ numerical safety
@pytest.mark.parametrize("bound", ALL_BOUNDS, ids=repr)
def test_extreme_parameters_are_finite_and_silent(bound):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in (2, 10**9):
            for eps0 in (0.01, 20.0):
                for delta in (1e-15, 0.5):
                    eps = bound.epsilon(n, eps0, delta)
                    assert 0.0 <= eps <= eps0 and math.isfinite(eps)
                for eps in (0.0, 1e-300, 0.5 * eps0, eps0, 2 * eps0):
                    d = bound.delta(n, eps0, eps)
                    assert 0.0 <= d <= 1.0
                with np.errstate(all="raise"):
                    bound.delta(n, eps0, 0.999 * eps0)
            eps0 = bound.max_eps0(n, 1.0, 1e-6)
            assert 0.0 < eps0 <= 50.0


def test_tiny_delta_is_floored_not_rounded_to_zero():
    for bound in ALL_BOUNDS:
        assert bound.delta(10**9, 1.0, 0.9) == DELTA_FLOOR
        assert bound.delta(10**9, 1.0, 1.0) == 0.0


def test_bounds_improve_with_n_at_the_extremes():
    for bound in ALL_BOUNDS:
        assert bound.epsilon(10**9, 1.0, 1e-15) < bound.epsilon(10**4, 1.0, 1e-15) <= 1.0
        assert bound.epsilon(10**9, 1.0, 1e-15) < 0.01


# ------------------------------------------------------------------ the randomizer description
def test_a_bound_holds_its_randomizer_family():
    """``mechanism`` and ``k`` are views of one description, the family each question reads."""
    bound = BlanketBennett("krr", k=10)
    assert bound.randomizer == RandomizerFamily("krr", k=10)
    assert (bound.mechanism, bound.k) == ("krr", 10) and repr(bound) == "BlanketBennett(mechanism='krr', k=10)"
    assert BlanketHoeffding().randomizer == RandomizerFamily("generic")
    for mechanism, k in [("generic", None), ("laplace", None), ("krr", 4)]:
        for eps0 in (0.1, 1.0, 6.0):
            _, beta, _ = variation_ratio_parameters(mechanism, eps0, k)
            assert beta == RandomizerFamily(mechanism, k=k).at(eps0).total_variation


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("cls", BOUND_CLASSES)
def test_bad_input_raises_value_error(cls):
    with pytest.raises(ValueError, match="mechanism"):
        cls("gaussian")
    with pytest.raises(ValueError, match="k must be given"):
        cls("krr")
    with pytest.raises(ValueError, match="k"):
        cls("krr", k=1)
    with pytest.raises(ValueError, match="k is only used"):
        cls("laplace", k=3)
    bound = cls("generic")
    for args, name in [
        ((10, 0.0, 1e-6), "eps0"),
        ((10, -1.0, 1e-6), "eps0"),
        ((10, math.nan, 1e-6), "eps0"),
        ((10, math.inf, 1e-6), "eps0"),
        ((1, 1.0, 1e-6), "n"),
        ((10.5, 1.0, 1e-6), "n"),
        ((10, 1.0, 0.0), "delta"),
        ((10, 1.0, 1.0), "delta"),
        ((10, 1.0, math.nan), "delta"),
    ]:
        with pytest.raises(ValueError, match=name):
            bound.epsilon(*args)
    with pytest.raises(ValueError, match="eps"):
        bound.delta(10, 1.0, -0.1)
    with pytest.raises(ValueError, match="eps"):
        bound.delta(10, 1.0, math.nan)
    with pytest.raises(ValueError, match="delta"):
        bound.max_eps0(10, 1.0, 2.0)
