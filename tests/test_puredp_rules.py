"""Parameter rules: privacy (Condition 7 or certificate), MSE guarantee, and the paper's errata."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shufflelib.puredp import (
    CountingParams,
    condition7_minimum,
    condition7_violations,
    counting_params,
    dlap_variance,
    privacy_certificate,
)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 10**9),
    eps=st.floats(0.01, 10.0),
    rho=st.floats(0.01, 0.5),
    rule=st.sampled_from(["corrected", "condition7", "practical"]),
)
def test_every_rule_is_private_and_meets_the_mse_target(n, eps, rho, rule) -> None:
    params = counting_params(n, eps, rho, rule)
    assert params.eps == eps and 0 < params.q < 1 and params.s >= 1
    assert params.worst_mse(n) <= (1 + rho) * dlap_variance(eps) * (1 + 1e-12)
    cert = privacy_certificate(params)
    assert cert.holds
    if rule != "practical":
        assert condition7_violations(params) == []


def test_corrected_rule_meets_the_digest_constant() -> None:
    # Rule B: MSE <= (1 + 0.145 rho) Var DLap(eps), for small and large eps.
    for eps in [0.01, 0.1, 1.0, 5.0]:
        params = counting_params(10**4, eps, 0.5, "corrected")
        assert params.worst_mse(10**4) <= (1 + 0.145 * 0.5) * dlap_variance(eps)


def test_paper_rule_breaks_the_mse_claim_for_small_eps() -> None:
    n, rho = 10**4, 0.5
    params = counting_params(n, 0.1, rho, "paper")
    ratio = params.worst_mse(n) / dlap_variance(0.1)
    assert condition7_violations(params) == []  # still private
    assert 1.55 < ratio < 1.57  # above the promised 1 + rho = 1.5
    assert counting_params(n, 1.0, rho, "paper").worst_mse(n) <= 1.5 * dlap_variance(1.0)


def test_paper_rule_gives_q_above_one() -> None:
    n = 10**4
    eps = 2.0 / n  # above the paper's cut-off eps < 1/n
    with pytest.raises(ValueError, match="q = .* >= 1"):
        counting_params(n, eps, 0.5, "paper")


def test_practical_rule_sends_far_fewer_messages() -> None:
    n = 10**6
    cost = {
        rule: counting_params(n, 1.0, 0.5, rule).expected_messages(n)
        for rule in ["corrected", "condition7", "practical"]
    }
    assert cost["practical"] < cost["condition7"] / 2 < cost["corrected"] / 40


def test_flood_grows_like_one_over_rho_squared() -> None:
    # The paper states lam = O(log(n/rho) / (eps^2 rho)); its own rule gives Theta(1 / rho^2).
    n, eps = 10**6, 1.0
    lam = {rho: counting_params(n, eps, rho, "corrected").lam for rho in [0.5, 0.05]}
    log_ratio = math.log(n / 0.05) / math.log(n / 0.5)
    assert lam[0.05] / lam[0.5] > 0.8 * 100 * log_ratio


def test_condition7_minimum_and_violations() -> None:
    s_min, lam_per_s = condition7_minimum(1.0, 0.5, 0.05)
    assert math.isclose(s_min, 2 * math.log(1 / ((math.e - 1) * 0.05)) / 0.5)
    assert math.isclose(lam_per_s, math.exp(0.5) / (1 - math.exp(-0.25)))
    bad = CountingParams(eps=1.0, eps_noise=1.2, q=0.05, s=10, lam=75.0)
    assert condition7_violations(bad)[0].startswith("(C1)")
    thin = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=70.0)
    assert condition7_violations(thin) == ["(C3) lam = 70 < 74.54"]
    assert condition7_violations(CountingParams(eps=1.0, eps_noise=0.5, q=0.0, s=0, lam=1.0)) == [
        "q must be > 0",
        "s must be >= 1",
    ]


@pytest.mark.parametrize(
    "args, match",
    [
        ((0, 1.0, 0.5), "n must be"),
        ((10, -1.0, 0.5), "eps must be"),
        ((10, 1.0, 0.0), "rho must be"),
        ((10, 1.0, float("inf")), "rho must be"),
    ],
)
def test_bad_inputs_are_rejected(args, match) -> None:
    with pytest.raises(ValueError, match=match):
        counting_params(*args)


def test_bad_rule_and_rho_for_paper_rules() -> None:
    with pytest.raises(ValueError, match="rule must be one of"):
        counting_params(10, 1.0, 0.5, "best")
    with pytest.raises(ValueError, match="rho must be in \\(0, 0.5\\]"):
        counting_params(10, 1.0, 0.8, "paper")
    with pytest.raises(ValueError, match="eps_noise must be"):
        condition7_minimum(1.0, 1.5, 0.1)
