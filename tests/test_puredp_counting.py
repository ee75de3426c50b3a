"""The correlated-noise counting protocol: randomizer, analyzer, simulation, exact moments."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from shufflelib.puredp import (
    CountingParams,
    analyze,
    analyze_as_printed,
    dlap_variance,
    randomize,
    run_protocol,
    simulate_estimates,
    simulate_view,
)

RULE_D = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0)
SMALL = CountingParams(eps=1.0, eps_noise=0.7, q=0.2, s=2, lam=3.0)


def _z(observed: float, expected: float, standard_error: float) -> float:
    return abs(observed - expected) / standard_error


def test_estimate_mean_variance_and_mse_match_theory() -> None:
    rng = np.random.default_rng(11)
    n, k, size = 50, 30, 400_000
    est = simulate_estimates(n, k, RULE_D, size, rng).astype(float)
    var = RULE_D.variance(k)
    # Mean k (1 - q): the estimator's bias is exactly -k q.
    assert _z(est.mean(), k + RULE_D.bias(k), math.sqrt(var / size)) < 5
    # Variance: Var DLap(eps') + k q (1 - q); standard error from the sample's fourth moment.
    centred = est - est.mean()
    var_se = math.sqrt((np.mean(centred**4) - est.var() ** 2) / size)
    assert _z(est.var(ddof=1), var, var_se) < 5
    mse_se = math.sqrt(np.var((est - k) ** 2) / size)
    assert _z(np.mean((est - k) ** 2), RULE_D.mse(n, k), mse_se) < 5


def test_debiased_estimate_is_unbiased_with_its_variance() -> None:
    rng = np.random.default_rng(12)
    params = CountingParams(eps=1.0, eps_noise=0.8, q=0.3, s=1, lam=5.0)  # a large q makes the bias visible
    n, k, size = 40, 25, 300_000
    est = params.debias(simulate_estimates(n, k, params, size, rng))
    var = params.debiased_variance(k)
    assert _z(est.mean(), k, math.sqrt(var / size)) < 5
    assert abs(est.var() / var - 1) < 0.02
    # The paper's estimator is visibly biased here.
    raw = simulate_estimates(n, k, params, size, rng)
    assert raw.mean() < k - 6


def test_worst_mse_is_lemma_11_at_k_equal_n() -> None:
    n, p = 200, RULE_D
    lemma11 = dlap_variance(p.eps_noise) + p.q * n + p.q**2 * n * (n - 1)
    assert math.isclose(p.worst_mse(n), lemma11, rel_tol=1e-12)
    assert max(p.mse(n, k) for k in range(n + 1)) == p.worst_mse(n)


def test_message_level_protocol_matches_sufficient_statistics() -> None:
    rng = np.random.default_rng(13)
    x = np.array([1, 0, 1, 1, 0])
    runs = 3000
    plus_msg, minus_msg, est_msg = [], [], []
    for _ in range(runs):
        messages = run_protocol(x, SMALL, rng)
        plus_msg.append(int((messages == 1).sum()))
        minus_msg.append(int((messages == -1).sum()))
        est_msg.append(analyze(messages))
    plus, minus = simulate_view(x.size, int(x.sum()), SMALL, runs, rng)
    for a, b in [(plus_msg, plus), (minus_msg, minus), (est_msg, plus - minus)]:
        assert stats.ks_2samp(a, b).pvalue > 1e-3


def test_per_user_shares_sum_to_the_totals_infinite_divisibility() -> None:
    rng = np.random.default_rng(14)
    n, runs = 20, 20_000
    params = CountingParams(eps=1.0, eps_noise=0.6, q=0.5, s=0, lam=4.0)
    x = np.zeros(n, dtype=int)
    sums = np.array([randomize(x, params, rng) for _ in range(runs)]).sum(axis=2)  # (runs, 2)
    # With s = 0 the totals are Z + G+ and Z + G-: compare with the direct draw.
    plus, minus = simulate_view(n, 0, params, runs, rng)
    assert stats.ks_2samp(sums[:, 0], plus).pvalue > 1e-3
    assert stats.ks_2samp(sums[:, 1], minus).pvalue > 1e-3


def test_expected_messages_include_the_flood_twice() -> None:
    rng = np.random.default_rng(15)
    n, k, runs = 100, 40, 200_000
    plus, minus = simulate_view(n, k, RULE_D, runs, rng)
    per_user = (plus + minus) / n
    expected = RULE_D.mean_messages(n, k)
    assert _z(per_user.mean(), expected, per_user.std() / math.sqrt(runs)) < 5
    # Lemma 12 as printed counts the flood once: lam / n = 0.75 fewer messages, far outside the noise.
    printed = expected - RULE_D.lam / n
    assert _z(per_user.mean(), printed, per_user.std() / math.sqrt(runs)) > 100


def test_printed_analyzer_is_biased_by_n_s() -> None:
    rng = np.random.default_rng(16)
    x = np.array([1, 1, 0, 1, 0, 0])
    fixed, printed = [], []
    for _ in range(2000):
        messages = run_protocol(x, SMALL, rng)
        fixed.append(analyze(messages))
        printed.append(analyze_as_printed(messages, x.size, SMALL.s))
    assert np.allclose(np.array(fixed) - np.array(printed), x.size * SMALL.s)
    se = math.sqrt(SMALL.variance(3) / 2000)
    assert _z(np.mean(fixed), 3 * (1 - SMALL.q), se) < 5


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 10**9),
    frac=st.floats(0, 1),
    eps_noise=st.floats(0.01, 20),
    q=st.floats(0, 0.99),
    s=st.integers(0, 10**4),
    lam=st.floats(0, 1e9),
)
def test_simulated_views_are_valid_counts(n, frac, eps_noise, q, s, lam) -> None:
    params = CountingParams(eps=eps_noise * 1.5, eps_noise=eps_noise, q=q, s=s, lam=lam)
    k = int(frac * n)
    plus, minus = simulate_view(n, k, params, 5, np.random.default_rng(0))
    assert plus.dtype == np.int64 and np.all(plus >= 0) and np.all(minus >= 0)
    est = simulate_estimates(n, k, params, 5, np.random.default_rng(0))
    assert est.dtype == np.int64 and np.all(est >= -(10**12))
    assert np.isfinite(params.worst_mse(n)) and params.expected_messages(n) >= 0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"eps": 0, "eps_noise": 0.5, "q": 0.1, "s": 1, "lam": 1}, "eps must be"),
        ({"eps": 1, "eps_noise": -1, "q": 0.1, "s": 1, "lam": 1}, "eps_noise must be"),
        ({"eps": 1, "eps_noise": 0.5, "q": 1.0, "s": 1, "lam": 1}, "q must be in"),
        ({"eps": 1, "eps_noise": 0.5, "q": 0.1, "s": 1.5, "lam": 1}, "s must be an integer"),
        ({"eps": 1, "eps_noise": 0.5, "q": 0.1, "s": -1, "lam": 1}, "s must be an integer >= 0"),
        ({"eps": 1, "eps_noise": 0.5, "q": 0.1, "s": 1, "lam": float("nan")}, "lam must be"),
    ],
)
def test_bad_parameters_are_rejected(kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        CountingParams(**kwargs)


def test_bad_inputs_are_rejected() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="x must"):
        randomize([0, 2], SMALL, rng)
    with pytest.raises(ValueError, match="at least one"):
        randomize([], SMALL, rng)
    with pytest.raises(ValueError, match="params must be"):
        randomize([0, 1], {"q": 0.1}, rng)
    with pytest.raises(ValueError, match="rng must be"):
        randomize([0, 1], SMALL, 0)
    with pytest.raises(ValueError, match="k must be"):
        simulate_view(5, 6, SMALL, 3, rng)
    with pytest.raises(ValueError, match="size must be"):
        simulate_estimates(5, 1, SMALL, 0, rng)
    with pytest.raises(ValueError, match="only \\+1 and -1"):
        analyze([1, 0, -1])
    with pytest.raises(ValueError, match="MAX_MESSAGES"):
        run_protocol(np.ones(10), CountingParams(eps=1, eps_noise=0.5, q=0.1, s=1, lam=1e9), rng)
