"""Local randomizers: eps0-LDP, likelihoods, blanket decompositions and sampling.

Statistical tests use fixed seeds and reject at significance level ALPHA = 1e-3.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from shufflelib.randomizers import (
    BinaryRandomizedResponse,
    BoundedLaplace,
    Domain,
    GenericLDP,
    KRandomizedResponse,
    LocalPrivacyDescription,
    LocalRandomizer,
    RandomizerFamily,
)

ALPHA = 1e-3
EPS0S = [0.01, 0.5, 1.0, 3.0, 20.0]


def discrete_randomizers(eps0: float) -> list[KRandomizedResponse]:
    return [BinaryRandomizedResponse(eps0), KRandomizedResponse(2, eps0), KRandomizedResponse(5, eps0)]


def likelihood_table(rr: KRandomizedResponse) -> np.ndarray:
    """Rows: outputs y, columns: inputs x."""
    ys = np.arange(rr.k)
    return rr.likelihood(ys[:, None], ys[None, :])


def max_log_ratio(rr: KRandomizedResponse) -> float:
    """epsilon0 check: the largest log-likelihood ratio over outputs and pairs of inputs."""
    ys = np.arange(rr.k)
    ll = rr.log_likelihood(ys[:, None], ys[None, :])
    return float(np.max(ll.max(axis=1) - ll.min(axis=1)))


# ---------------------------------------------------------------- discrete mechanisms
@pytest.mark.parametrize("eps0", EPS0S)
def test_discrete_closed_forms(eps0):
    e = math.exp(eps0)
    rr = BinaryRandomizedResponse(eps0)
    assert rr.truth_probability == pytest.approx(e / (e + 1), rel=1e-13)
    assert rr.blanket_weight == pytest.approx(2 / (e + 1), rel=1e-13)
    krr = KRandomizedResponse(7, eps0)
    assert krr.truth_probability == pytest.approx(e / (e + 6), rel=1e-13)
    assert krr.other_probability == pytest.approx(1 / (e + 6), rel=1e-13)
    assert krr.blanket_weight == pytest.approx(7 / (e + 6), rel=1e-13)


@pytest.mark.parametrize("eps0", EPS0S)
def test_discrete_max_log_ratio_is_eps0(eps0):
    for rr in discrete_randomizers(eps0):
        assert max_log_ratio(rr) == pytest.approx(eps0, abs=1e-12)


@pytest.mark.parametrize("eps0", EPS0S)
def test_discrete_blanket_weight_is_sum_of_row_minima(eps0):
    for rr in discrete_randomizers(eps0):
        table = likelihood_table(rr)
        assert rr.blanket_weight == pytest.approx(table.min(axis=1).sum(), rel=1e-12)
        # The residual (1 - gamma) nu_x must be a non-negative measure.
        residual = table - rr.blanket_weight / rr.k
        assert residual.min() >= -1e-15


@settings(max_examples=40, deadline=None)
@given(k=st.integers(2, 60), eps0=st.floats(0.01, 20.0))
def test_krr_likelihood_columns_sum_to_one_and_ratio_is_eps0(k, eps0):
    rr = KRandomizedResponse(k, eps0)
    table = likelihood_table(rr)
    np.testing.assert_allclose(table.sum(axis=0), 1.0, rtol=1e-12)
    assert max_log_ratio(rr) == pytest.approx(eps0, abs=1e-12)
    assert rr.blanket_weight >= GenericLDP(eps0).blanket_weight


@pytest.mark.parametrize("eps0", [0.5, 2.0])
def test_binary_rr_is_krr_with_k_2(eps0):
    ys = np.array([0, 0, 1, 1])
    xs = np.array([0, 1, 0, 1])
    np.testing.assert_allclose(
        BinaryRandomizedResponse(eps0).likelihood(ys, xs),
        KRandomizedResponse(2, eps0).likelihood(ys, xs),
        rtol=1e-15,
    )


@pytest.mark.parametrize("rr", [BinaryRandomizedResponse(1.0), KRandomizedResponse(4, 1.5)], ids=repr)
def test_discrete_randomize_matches_likelihood(rr):
    """Chi-square goodness of fit of the outputs for each input, at level ALPHA."""
    rng = np.random.default_rng(2024)
    m = 20_000
    for x in range(rr.k):
        y = rr.randomize(np.full(m, x), rng)
        assert y.dtype == np.int64 and y.shape == (m,)
        observed = np.bincount(y, minlength=rr.k)
        expected = m * rr.likelihood(np.arange(rr.k), x)
        assert stats.chisquare(observed, expected).pvalue > ALPHA


def test_chi_square_detects_wrong_eps0():
    """Power check: the goodness-of-fit test above can fail."""
    rng = np.random.default_rng(2024)
    y = KRandomizedResponse(4, 1.5).randomize(np.zeros(20_000, dtype=int), rng)
    expected = 20_000 * KRandomizedResponse(4, 1.3).likelihood(np.arange(4), 0)
    assert stats.chisquare(np.bincount(y, minlength=4), expected).pvalue < ALPHA


@pytest.mark.parametrize("rr", [BinaryRandomizedResponse(0.7), KRandomizedResponse(6, 2.0)], ids=repr)
def test_discrete_blanket_sample_is_uniform(rr):
    rng = np.random.default_rng(7)
    y = rr.blanket_sample(30_000, rng)
    assert y.shape == (30_000,)
    assert stats.chisquare(np.bincount(y, minlength=rr.k)).pvalue > ALPHA


# ---------------------------------------------------------------- Laplace
@pytest.mark.parametrize("eps0", EPS0S)
@pytest.mark.parametrize("low,high", [(0.0, 1.0), (-3.0, 5.0)])
def test_laplace_sup_log_ratio_is_eps0(eps0, low, high):
    lap = BoundedLaplace(eps0, low, high)
    span = high - low
    ys = np.linspace(low - 5 * span, high + 5 * span, 2001)
    ratio = lap.log_likelihood(ys, low) - lap.log_likelihood(ys, high)
    # Attained (exactly, up to rounding) for every y <= low.
    assert np.max(ratio) == pytest.approx(eps0, abs=1e-9 * max(1.0, eps0))
    # No pair of inputs exceeds eps0 anywhere.
    xs = np.linspace(low, high, 41)
    ll = lap.log_likelihood(ys[:, None], xs[None, :])
    assert np.max(ll.max(axis=1) - ll.min(axis=1)) <= eps0 * (1 + 1e-12)


@pytest.mark.parametrize("eps0", [0.1, 1.0, 5.0])
def test_laplace_density_integrates_to_one(eps0):
    lap = BoundedLaplace(eps0, -1.0, 2.0)
    total, _ = integrate.quad(lambda y: float(lap.likelihood(y, 0.5)), -np.inf, np.inf, points=None)
    assert total == pytest.approx(1.0, abs=1e-8)


@pytest.mark.parametrize("eps0", [0.05, 1.0, 4.0, 12.0])
@pytest.mark.parametrize("low,high", [(0.0, 1.0), (-2.0, 0.5)])
def test_laplace_blanket_weight_by_numeric_integration(eps0, low, high):
    """gamma = integral of min over x in [low, high] of p(y|x), with the min over a grid of inputs."""
    lap = BoundedLaplace(eps0, low, high)
    xs = np.linspace(low, high, 201)
    mid = 0.5 * (low + high)

    def min_density(y: float) -> float:
        return float(lap.likelihood(y, xs).min())

    b = lap.scale
    pieces = [
        (-np.inf, low - 40 * b),
        (low - 40 * b, low),
        (low, mid),
        (mid, high),
        (high, high + 40 * b),
        (high + 40 * b, np.inf),
    ]
    gamma = sum(integrate.quad(min_density, a, c, epsabs=1e-13, epsrel=1e-11, limit=200)[0] for a, c in pieces)
    assert gamma == pytest.approx(lap.blanket_weight, rel=1e-8)
    assert lap.blanket_weight == pytest.approx(math.exp(-eps0 / 2), rel=1e-15)
    # omega(y) = min_x p(y|x) / gamma is the Laplace(mid, b) density.
    ys = np.linspace(low - 10 * b, high + 10 * b, 301)
    omega = np.array([min_density(y) for y in ys]) / lap.blanket_weight
    np.testing.assert_allclose(omega, stats.laplace.pdf(ys, loc=mid, scale=b), rtol=1e-10)


def test_laplace_randomize_and_blanket_sample_distributions():
    """Kolmogorov-Smirnov tests at level ALPHA (and a power check with the wrong scale)."""
    lap = BoundedLaplace(2.0, -1.0, 3.0)
    rng = np.random.default_rng(11)
    y = lap.randomize(np.full(20_000, 2.5), rng)
    assert y.dtype == np.float64
    assert stats.kstest(y, stats.laplace(loc=2.5, scale=lap.scale).cdf).pvalue > ALPHA
    assert stats.kstest(y, stats.laplace(loc=2.5, scale=1.1 * lap.scale).cdf).pvalue < ALPHA
    w = lap.blanket_sample(20_000, rng)
    assert stats.kstest(w, stats.laplace(loc=1.0, scale=lap.scale).cdf).pvalue > ALPHA


# ---------------------------------------------------------------- common behaviour
ALL = [BinaryRandomizedResponse(1.0), KRandomizedResponse(3, 1.0), BoundedLaplace(1.0, 0.0, 2.0)]


@pytest.mark.parametrize("rr", ALL, ids=repr)
def test_randomize_uses_only_the_given_generator(rr):
    x = np.linspace(0, 2, 50).round() if rr.domain.size != 2 else np.arange(50) % 2
    # The legacy global generator is used on purpose: randomize must not touch it.
    np.random.seed(123)  # noqa: NPY002
    before = np.random.random()  # noqa: NPY002
    np.random.seed(123)  # noqa: NPY002
    a = rr.randomize(x, np.random.default_rng(5))
    b = rr.randomize(x, np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)
    assert np.random.random() == before  # noqa: NPY002
    assert not np.array_equal(a, rr.randomize(x, np.random.default_rng(6)))
    assert rr.output_domain.contains(a).all()


@pytest.mark.parametrize("rr", ALL, ids=repr)
def test_blanket_weight_at_least_generic(rr):
    assert isinstance(rr, LocalRandomizer)
    assert GenericLDP(rr.eps0).blanket_weight <= rr.blanket_weight <= 1.0


@pytest.mark.parametrize("eps0", [0.01, 20.0])
def test_extreme_eps0_is_finite_and_silent(eps0):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for rr in [*discrete_randomizers(eps0), KRandomizedResponse(10**6, eps0), BoundedLaplace(eps0)]:
            assert 0 < rr.blanket_weight <= 1
            y = rr.randomize(np.zeros(1000, dtype=int), np.random.default_rng(0))
            assert np.isfinite(rr.likelihood(y, 0)).all()
            assert np.isfinite(rr.log_likelihood(y, 0)).all()


def test_generic_ldp_is_a_description_not_a_randomizer():
    g = GenericLDP(2.0)
    assert isinstance(g, LocalPrivacyDescription) and not isinstance(g, LocalRandomizer)
    assert g.eps0 == 2.0
    assert g.blanket_weight == pytest.approx(math.exp(-2.0), rel=1e-15)
    assert not hasattr(g, "randomize")


def test_anti_krr_blanket_weight_approaches_generic_infimum():
    """e^{-eps0} is an infimum: the 'report the truth least often' mechanism on m values has
    gamma = m / ((m - 1) e^eps0 + 1) -> e^{-eps0}, from above (checked from its likelihood table)."""
    eps0 = 1.0
    gammas = []
    for m in (2, 10, 1000):
        table = np.full((m, m), math.exp(eps0))
        np.fill_diagonal(table, 1.0)
        table /= table.sum(axis=0, keepdims=True)
        ll = np.log(table)
        assert np.max(ll.max(axis=1) - ll.min(axis=1)) == pytest.approx(eps0, abs=1e-12)
        gammas.append(table.min(axis=1).sum())
    assert all(g > math.exp(-eps0) for g in gammas)
    assert gammas == sorted(gammas, reverse=True)
    assert gammas[-1] - math.exp(-eps0) < 1e-3


def test_domains():
    assert KRandomizedResponse(5, 1.0).domain == Domain(0, 4, discrete=True)
    assert KRandomizedResponse(5, 1.0).domain.size == 5
    lap = BoundedLaplace(1.0, -1.0, 1.0)
    assert lap.domain.contains([-1.0, 1.0, 1.5]).tolist() == [True, True, False]
    assert lap.output_domain.contains([-1e300, 1e300]).all()
    assert Domain(0, 3, discrete=True).contains([0.5, 2, 4]).tolist() == [False, True, False]


def test_likelihood_broadcasts():
    rr = KRandomizedResponse(3, 1.0)
    assert rr.likelihood(np.arange(3)[:, None], np.arange(3)[None, :]).shape == (3, 3)
    assert rr.likelihood(1, 1).shape == ()
    assert BoundedLaplace(1.0).likelihood(np.zeros((2, 4)), 0.5).shape == (2, 4)


# ---------------------------------------------------------------- families and total variation
def test_family_at_gives_the_randomizer_of_each_kind():
    generic = RandomizerFamily("generic").at(0.7)
    assert isinstance(generic, GenericLDP) and generic.eps0 == 0.7
    krr = RandomizerFamily("krr", k=5).at(1.5)
    assert isinstance(krr, KRandomizedResponse) and (krr.k, krr.eps0) == (5, 1.5)
    assert type(RandomizerFamily("rr").at(1.0)) is BinaryRandomizedResponse
    lap = RandomizerFamily("laplace").at(2.0)
    assert isinstance(lap, BoundedLaplace) and (lap.low, lap.high) == (0.0, 1.0)
    # The per-user law of "rr" and "laplace" at eps is the law of the randomizer at eps0 = eps.
    ys = np.array([0.0, 1.0, 0.3, -2.0])
    assert RandomizerFamily("rr").scale(1.0) == pytest.approx(
        BinaryRandomizedResponse(1.0).other_probability, rel=1e-15
    )
    np.testing.assert_allclose(
        RandomizerFamily("laplace").logpdf(ys, 0.0, RandomizerFamily("laplace").scale(2.0)),
        lap.log_likelihood(ys, 0.0),
        rtol=1e-15,
    )
    with pytest.raises(ValueError, match="not eps0-LDP"):
        RandomizerFamily("gaussian").at(1.0)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: RandomizerFamily("ldp"), "kind must be one of generic, krr, rr, laplace, gaussian"),
        (lambda: RandomizerFamily("krr"), "k must be given"),
        (lambda: RandomizerFamily("krr", k=1), "k must be an integer >= 2"),
        (lambda: RandomizerFamily("laplace", k=3), "k is only used"),
        (lambda: RandomizerFamily("rr", "paper"), "calibration is only used"),
        (lambda: RandomizerFamily("gaussian", "exact"), "calibration must be one of"),
        (lambda: RandomizerFamily("krr", k=3).scale(1.0), "per-user kinds rr, laplace, gaussian"),
        (lambda: RandomizerFamily("generic").sample(np.zeros(2), np.ones(2), np.random.default_rng(0)), "per-user"),
        (lambda: RandomizerFamily("rr").cdf(np.zeros(1), 0.0, 0.1), "continuous kinds"),
    ],
)
def test_family_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_family_labels_and_delta_needs():
    assert [
        RandomizerFamily(*a, **kw).label for a, kw in [(("rr",), {}), (("gaussian",), {}), (("krr",), {"k": 7})]
    ] == [
        "rr",
        "gaussian (classical)",
        "krr (k=7)",
    ]
    assert RandomizerFamily("gaussian").needs_delta and not RandomizerFamily("gaussian", "paper").needs_delta


@pytest.mark.parametrize("eps0", EPS0S)
def test_total_variation_from_the_likelihoods(eps0):
    """β = the largest total variation between two inputs: from the k-RR table, by integration
    for Laplace (end points); ``1 − gamma`` for both; ``tanh(eps0/2)`` bounds every one."""
    for k in (2, 3, 10):
        rr = KRandomizedResponse(k, eps0)
        table = likelihood_table(rr)
        tv = 0.5 * np.abs(table[:, 0] - table[:, 1]).sum()
        assert rr.total_variation == pytest.approx(tv, rel=1e-12, abs=1e-300)
        assert rr.total_variation == pytest.approx(1.0 - rr.blanket_weight, rel=1e-12)
        assert rr.total_variation <= GenericLDP(eps0).total_variation * (1 + 1e-15)
    lap = BoundedLaplace(eps0, -1.0, 2.0)
    b = lap.scale

    def gap(y: float) -> float:
        return 0.5 * abs(float(lap.likelihood(y, -1.0)) - float(lap.likelihood(y, 2.0)))

    pieces = [(-np.inf, -1.0), (-1.0, 0.5), (0.5, 2.0), (2.0, np.inf)]
    tv = sum(integrate.quad(gap, a, c, epsabs=1e-14, epsrel=1e-11, limit=200)[0] for a, c in pieces)
    assert lap.total_variation == pytest.approx(tv, rel=1e-8, abs=1e-14 * (1 + b))
    assert lap.total_variation <= GenericLDP(eps0).total_variation
    # The generic value is attained by binary randomized response.
    assert GenericLDP(eps0).total_variation == pytest.approx(BinaryRandomizedResponse(eps0).total_variation, rel=1e-12)


def test_total_variation_is_finite_for_huge_eps0():
    assert KRandomizedResponse(5, 800.0).total_variation == 1.0
    assert GenericLDP(800.0).total_variation == 1.0
