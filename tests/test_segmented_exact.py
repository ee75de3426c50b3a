"""The exact single-item curve against brute force, and the evidence that Theorem 3 fails."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest
from scipy.special import gammaln

from shufflelib.audit import audit_scores
from shufflelib.segmented.attacks import (
    item_log_ratio,
    item_view,
    level_total_pair,
    pair_log_ratio,
    profile_estimate,
    set_log_ratio,
    set_view,
)
from shufflelib.segmented.exact_item import ExactItemCurve
from shufflelib.segmented.group import GroupCurve, group_privacy, item_budget
from shufflelib.segmented.variation_ratio import pair_curve, poisson_item_pair


def brute_view(n_slots: int, gamma: float, d: int, lam: float, eps: float) -> float:
    """H(P||Q) of the full reduced view (U, V, T), by enumerating every slot outcome count."""
    g = gamma / d
    p: dict = defaultdict(float)
    q: dict = defaultdict(float)
    for a in range(n_slots + 1):
        for b in range(n_slots + 1 - a):
            for r in range(n_slots + 1 - a - b):
                idle = n_slots - a - b - r
                if gamma == 1.0 and idle > 0:
                    continue
                log = (
                    gammaln(n_slots + 1)
                    - gammaln(a + 1)
                    - gammaln(b + 1)
                    - gammaln(r + 1)
                    - gammaln(idle + 1)
                    + (a + b) * math.log(g)
                    + r * math.log((d - 2) * g)
                )
                if idle:
                    log += idle * math.log(1 - gamma)
                w = math.exp(log)
                t = a + b + r
                p[(a, b, t)] += (1 - lam) * w
                q[(a, b, t)] += (1 - lam) * w
                p[(a + 1, b, t + 1)] += lam * w
                q[(a, b + 1, t + 1)] += lam * w
    e = math.exp(eps)
    return sum(max(p[k] - e * q.get(k, 0.0), 0.0) for k in p)


@pytest.mark.parametrize("lam, gamma", [(0.3, 0.3), (0.3, 0.6), (0.3, 1.0), (0.7, 0.9), (1.0, 0.6)])
def test_exact_item_matches_enumeration(lam, gamma):
    curve = ExactItemCurve(16, gamma, 5, lam, t_resolution=None, resolution=None)
    brute = brute_view(16, gamma, 5, lam, 0.5)
    assert brute - 1e-12 <= curve.delta(0.5) <= brute + 1e-8
    assert ExactItemCurve(16, gamma, 5, lam).delta(0.5) >= curve.delta(0.5)  # blocks round up


def test_total_count_adds_information_only_when_lambda_below_one():
    exact = ExactItemCurve(24, 0.6, 5, 0.3, t_resolution=None, resolution=None)
    marginal = poisson_item_pair(24, 0.6, 5, 0.3, convention="proposition1")
    assert exact.delta(0.5) > 1.3 * float(marginal.delta([0.5], None)[0])
    exact1 = ExactItemCurve(24, 0.6, 5, 1.0, t_resolution=None, resolution=None)
    marginal1 = poisson_item_pair(24, 0.6, 5, 1.0, convention="proposition1")
    assert exact1.delta(0.5) == pytest.approx(float(marginal1.delta([0.5], None)[0]), rel=1e-7)


def test_blocked_curve_is_close_at_scale():
    fine = ExactItemCurve(10_000, 0.75, 17, 0.47, t_resolution=0.05, resolution=0.05).delta(0.125)
    coarse = ExactItemCurve(10_000, 0.75, 17, 0.47).delta(0.125)
    assert fine <= coarse <= 1.15 * fine


def test_theorem3_fails_at_integer_m_exactly_and_by_audit():
    n_slots, d, lam = 400, 17, 0.5  # n = 400 users, m = 1: gamma = 1
    claimed = pair_curve(poisson_item_pair(400, 1.0, d, lam)).epsilon(1e-3)
    exact = ExactItemCurve(n_slots, 1.0, d, lam)
    assert exact.epsilon(1e-3) > 2 * claimed
    rng = np.random.default_rng(11)
    scores = []
    for dataset in (0, 1):
        u, v, t = item_view(n_slots, 1.0, d, lam, dataset, 150_000, rng)
        scores.append(-item_log_ratio(u, v, t, n_slots, 1.0, d, lam))  # higher suggests D'
    audit = audit_scores(scores[0], scores[1], 1e-3, alpha=0.05)
    assert claimed < audit.epsilon <= exact.epsilon(1e-3)


def test_monte_carlo_profile_matches_exact_curve():
    rng = np.random.default_rng(5)
    n_slots, gamma, d, lam = 300, 0.75, 17, 0.4
    u, v, t = item_view(n_slots, gamma, d, lam, 0, 200_000, rng)
    est, se = profile_estimate(item_log_ratio(u, v, t, n_slots, gamma, d, lam), [0.3, 0.6])
    exact = ExactItemCurve(n_slots, gamma, d, lam, t_resolution=None, resolution=None).delta(np.array([0.3, 0.6]))
    assert np.all(np.abs(est - exact) <= 4 * se + 1e-9)


def test_pair_log_ratio_is_the_likelihood_ratio_of_the_pair():
    pair = poisson_item_pair(20, 0.5, 5, 0.6, convention="proposition1")
    llr = pair_log_ratio([3, 0, 2], [1, 2, 2], pair.trials, pair.rate, 0.6)
    kappa = (1 - 2 * pair.rate) / pair.rate
    expected = np.log(0.4 + 0.6 * kappa * 3 / 17) - np.log(0.4 + 0.6 * kappa / 17)
    assert llr[0] == pytest.approx(expected)
    assert llr[2] == 0.0 and llr[1] < 0


def test_set_view_ratio_reduces_to_products_when_everything_is_sent():
    cells = np.array([[4, 2, 3, 1]])
    total = np.array([102])
    llr = set_log_ratio(cells, total, 100, 1.0, 17, 1.0, 2)
    assert llr[0] == pytest.approx(math.log(4 * 2 / (3 * 1)))
    c, t = set_view(100, 0.5, 17, 0.5, 2, 1, 10, np.random.default_rng(0))
    assert c.shape == (10, 4) and np.all(t >= c.sum(axis=1))


def test_group_privacy_is_loose_for_four_items():
    # s = 4 items, lambda = 1 (no reporting coin): audit with the exact likelihood ratio.
    n_slots, d, s, lam = 2_000, 17, 4, 1.0
    item = pair_curve(poisson_item_pair(2_000, 1.0, d, lam))
    claimed = GroupCurve(item, s).epsilon(1e-3)
    rng = np.random.default_rng(8)
    draws = []
    for dataset in (0, 1):
        cells, total = set_view(n_slots, 1.0, d, lam, s, dataset, 100_000, rng)
        draws.append(set_log_ratio(cells, total, n_slots, 1.0, d, lam, s))
    est, se = profile_estimate(draws[0], [claimed / 2])
    assert est[0] + 4 * se[0] < 1e-3  # already (claimed/2, 1e-3) holds: group privacy loses > 2x
    audit = audit_scores(-draws[0], -draws[1], 1e-3)
    assert 0 < audit.epsilon < claimed / 2


def test_group_helpers():
    eps, delta = group_privacy(0.1, 1e-8, 3, form="standard")
    assert eps == pytest.approx(0.3) and delta == pytest.approx(3 * math.exp(0.2) * 1e-8)
    e1, d1 = item_budget(1.0, 4, 1e-6, form="standard")
    assert group_privacy(e1, d1, 4, form="standard") == pytest.approx((1.0, 1e-6))


def test_level_leakage_through_the_total_count():
    # gamma = 1: the total reveals how many items were reported; lambda 0.5 vs 1 for s = 4.
    pair = level_total_pair(500, 1.0, 4, 0.5, 1.0)
    assert pair.delta(30.0) == pytest.approx(1 - 0.5**4, abs=1e-9)
    assert level_total_pair(500, 0.5, 4, 0.5, 1.0).epsilon(1e-6) > 0.2


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: ExactItemCurve(-1, 0.5, 17, 0.5), "n_slots"),
        (lambda: ExactItemCurve(10, 0.0, 17, 0.5), "gamma"),
        (lambda: ExactItemCurve(10, 0.5, 17, 0.5, t_resolution=-1.0), "t_resolution"),
        (lambda: item_view(10, 0.5, 2, 0.5, 0, 5, np.random.default_rng(0)), "d must be"),
        (lambda: set_view(10, 0.5, 17, 0.5, 9, 0, 5, np.random.default_rng(0)), "s must be"),
        (lambda: set_log_ratio(np.zeros((2, 3)), [5, 5], 10, 0.5, 17, 0.5, 2), "cells must have shape"),
        (lambda: level_total_pair(10, 0.5, 0, 0.5, 1.0), "s must be"),
        (lambda: group_privacy(0.1, 1e-6, 2, form="loose"), "form"),
        (lambda: GroupCurve("curve", 2), "item_curve"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
