"""Privacy of the counting protocol: exact view, exact loss, certificate, audits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.signal import convolve

from shufflelib.audit import audit_protocol
from shufflelib.puredp import (
    CountingParams,
    counting_params,
    exact_privacy_loss,
    lemma10_log_margin,
    privacy_certificate,
    reduced_log_ratio,
    view_logpmf,
    view_sampler,
)

RULE_D = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0)
TINY = CountingParams(eps=1.0, eps_noise=0.9, q=0.15, s=2, lam=2.5)


# ------------------------------------------------------------- brute force
def _user_pmf(x: int, n: int, params: CountingParams, size: int) -> np.ndarray:
    """One user's pmf of (#+1, #-1) on [0, size)^2, from Algorithm 1 directly."""
    t = np.arange(size)
    noise = stats.nbinom.pmf(t, 1.0 / n, params.noise_p)  # NB(1/n, p), numpy's parameterisation
    flood = stats.poisson.pmf(t, params.lam / n)
    noise2 = np.outer(noise, noise)
    pmf = np.zeros((size, size))
    for z in range(size):  # the flood adds z to both coordinates
        pmf[z:, z:] += flood[z] * noise2[: size - z, : size - z]
    out = params.q * pmf
    shift_a, shift_b = params.s + x, params.s
    out[shift_a:, shift_b:] += (1 - params.q) * pmf[: size - shift_a, : size - shift_b]
    return out


def _brute_view(xs: list[int], params: CountingParams, size: int) -> np.ndarray:
    """The view's pmf on [0, size)^2 by direct convolution of the users' pmfs.

    Exact in the window (every component is >= 0, so no mass from outside lands in it),
    and accurate in relative terms even for tiny probabilities (no FFT round-off).
    """
    total = None
    for x in xs:
        pmf = _user_pmf(x, len(xs), params, size)
        total = pmf if total is None else convolve(total, pmf, method="direct")[:size, :size]
    return total


@pytest.mark.parametrize("xs", [[1], [0, 1], [1, 0, 1], [0, 0, 1]])
def test_closed_form_view_matches_brute_force_convolution(xs) -> None:
    size = 48
    brute = _brute_view(xs, TINY, size)
    a, b = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    exact = np.exp(view_logpmf(len(xs), sum(xs), TINY, a, b))
    assert np.allclose(brute, exact, rtol=1e-9, atol=0.0)
    assert abs(exact.sum() - 1) < 1e-3  # most of the mass is in the window


def test_exact_loss_matches_brute_force_maximum() -> None:
    size, n = 64, 2
    views = [_brute_view([1] * k + [0] * (n - k), TINY, size) for k in range(n + 1)]
    brute = 0.0
    for k in range(n):
        lo, hi = views[k], views[k + 1]
        ok = (lo > 1e-250) & (hi > 1e-250)
        brute = max(brute, float(np.abs(np.log(hi[ok]) - np.log(lo[ok])).max()))
    loss = exact_privacy_loss(n, TINY)
    assert loss.worst_cell is not None and max(loss.worst_cell) < size // 2
    assert math.isclose(loss.epsilon, brute, rel_tol=1e-7)


def test_reference_values_of_rule_d() -> None:
    cert = privacy_certificate(RULE_D)
    assert cert.direction1 == 0.5 and cert.argmax == 73
    assert abs(cert.direction2 - 0.568322647) < 1e-8
    expected = [0.5605, 0.5546, 0.5494, 0.5446, 0.5407, 0.5371, 0.5340, 0.5314, 0.5292]
    for n, value in zip(range(2, 11), expected, strict=False):
        loss = exact_privacy_loss(n, RULE_D)
        assert round(loss.epsilon, 4) == value
        assert loss.worst_k == 0 and loss.direction == 2 and loss.worst_cell[0] == loss.worst_cell[1]
        assert loss.epsilon <= cert.epsilon


def test_certificate_equals_direct_maximum_of_log_ratio() -> None:
    for params in [RULE_D, TINY, counting_params(1000, 1.0, 0.5), counting_params(50, 0.3, 0.25)]:
        i = np.arange(0, params.s + int(math.exp(params.eps_noise) * params.lam) + 3)
        direct = reduced_log_ratio(params, i)
        cert = privacy_certificate(params)
        assert direct.max() <= cert.direction2 <= direct.max() + 1e-8
        assert cert.argmax == int(np.argmax(direct))


@settings(max_examples=30, deadline=None)
@given(
    eps_noise=st.floats(0.05, 3.0),
    q=st.floats(1e-6, 0.9),
    s=st.integers(0, 40),
    lam=st.floats(0.5, 400.0),
)
def test_certificate_bounds_direct_evaluation_everywhere(eps_noise, q, s, lam) -> None:
    params = CountingParams(eps=eps_noise + 1.0, eps_noise=eps_noise, q=q, s=s, lam=lam)
    cert = privacy_certificate(params)
    i = np.arange(0, s + int(math.exp(eps_noise) * lam) + 3)
    direct = float(reduced_log_ratio(params, i).max())
    assert direct <= cert.direction2 <= direct + 1e-7 * max(1.0, direct)


def test_certificate_is_fast_and_finite_for_huge_floods() -> None:
    params = counting_params(10**6, 0.1, 0.5, rule="corrected")  # lam ~ 3e8
    cert = privacy_certificate(params)
    assert params.lam > 1e8 and cert.holds and cert.epsilon < params.eps


def test_exact_loss_never_exceeds_certificate_of_practical_rule() -> None:
    for n, eps in [(2, 1.0), (5, 0.5), (8, 2.0)]:
        params = counting_params(n, eps, 0.5)
        cert = privacy_certificate(params)
        loss = exact_privacy_loss(n, params)
        assert cert.holds and loss.epsilon <= cert.epsilon + 1e-9


def test_negative_controls_break_privacy() -> None:
    # Condition 7 violated, exact loss above eps = 1 (values of the digest, recomputed independently).
    weak = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=2, lam=5.0)
    assert round(exact_privacy_loss(2, weak).epsilon, 3) == 1.170
    assert not privacy_certificate(weak).holds
    # Condition 7 violated, yet private: the condition is sufficient, not necessary.
    lucky = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=4, lam=7.6)
    assert privacy_certificate(lucky).holds and exact_privacy_loss(2, lucky).epsilon < 1.0
    # GKMP20 (no q-branch, no block): supports differ, infinite loss.
    gkmp = CountingParams(eps=1.0, eps_noise=0.5, q=0.0, s=0, lam=5.0)
    assert exact_privacy_loss(3, gkmp).epsilon == math.inf
    assert privacy_certificate(gkmp).epsilon == math.inf
    # No flood: the reduced certificate cannot help.
    assert privacy_certificate(CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=3, lam=0.0)).epsilon == math.inf


def test_lemma10_holds_under_condition7_and_fails_for_the_negative_control() -> None:
    i = np.arange(0, 400)
    assert np.all(lemma10_log_margin(RULE_D, i) >= 0)
    weak = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=2, lam=5.0)
    assert np.any(lemma10_log_margin(weak, i) < 0)


def test_bernoulli_flood_variant_is_exactly_checkable() -> None:
    n, pi = 4, 0.5
    flood = stats.binom.pmf(np.arange(n + 1), n, pi)
    loss = exact_privacy_loss(n, TINY, flood_pmf=flood)
    assert math.isfinite(loss.epsilon) and loss.epsilon > 0


def test_monte_carlo_audit_is_below_the_exact_loss() -> None:
    sample = view_sampler(2, 0, RULE_D, score="estimate")
    result = audit_protocol(sample, 200_000, 0.0, np.random.default_rng(3))
    assert 0.2 < result.epsilon <= exact_privacy_loss(2, RULE_D).epsilon


def test_monte_carlo_audit_catches_gkmp20() -> None:
    params = CountingParams(eps=1.0, eps_noise=1.0, q=0.0, s=0, lam=2.0)
    result = audit_protocol(view_sampler(1000, 0, params, score="plus"), 200_000, 0.0, np.random.default_rng(4))
    assert result.epsilon > 5.0


def test_bad_inputs_are_rejected() -> None:
    with pytest.raises(ValueError, match="params must be"):
        privacy_certificate("rule D")
    with pytest.raises(ValueError, match="flood_pmf"):
        exact_privacy_loss(2, TINY, flood_pmf=[0.5, 0.2])
    with pytest.raises(ValueError, match="MAX_BAND_CELLS"):
        exact_privacy_loss(10, counting_params(10, 1.0, 0.5, rule="corrected"))
    with pytest.raises(ValueError, match="k must be"):
        view_sampler(5, 5, TINY)
    with pytest.raises(ValueError, match="score must be"):
        view_sampler(5, 1, TINY, score="diagonal")
    with pytest.raises(ValueError, match="i must"):
        reduced_log_ratio(TINY, [-1])
