"""Exact small views (:mod:`shufflelib.segmented.cell_view`): Lemma 2, Theorem 2 and the "no message" condition."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from shufflelib.curves import DominatingPair
from shufflelib.segmented.cell_view import binomial_reports, cell_view_pair, krr_victim, poisson_victim
from shufflelib.segmented.exact_item import ExactItemCurve
from shufflelib.segmented.variation_ratio import (
    pair_curve,
    poisson_item_pair,
    random_blanket_pair,
    variation_ratio_pair,
)

EPS = np.array([0.0, 0.2, 0.5, 1.0])


def _brute_force(slots, gamma, d, victim, others_a=0, lam_others=1.0):
    """Every outcome of the victim, the slots and the others' reports, as full item-count vectors."""
    laws = []
    for swap in (False, True):
        near, far, other, none = victim
        probs = {0: far if swap else near, 1: near if swap else far, None: none}
        outcomes = {}
        victim_moves = [(0, probs[0]), (1, probs[1]), (None, probs[None])]
        victim_moves += [(j, other / (d - 2)) for j in range(2, d)] if d > 2 else []
        slot_moves = [(None, 1 - gamma)] + [(j, gamma / d) for j in range(d)]
        for v, pv in victim_moves:
            for combo in itertools.product(slot_moves, repeat=slots):
                for reports in range(others_a + 1):
                    pr = stats.binom.pmf(reports, others_a, lam_others)
                    w = pv * pr * math.prod(p for _, p in combo)
                    if w == 0:
                        continue
                    counts = [0] * d
                    counts[0] += reports
                    for j in [v] + [j for j, _ in combo]:
                        if j is not None:
                            counts[j] += 1
                    outcomes[tuple(counts)] = outcomes.get(tuple(counts), 0.0) + w
        laws.append(outcomes)
    keys = sorted(set(laws[0]) | set(laws[1]))
    with np.errstate(divide="ignore"):
        return DominatingPair(np.log([laws[0].get(k, 0) for k in keys]), np.log([laws[1].get(k, 0) for k in keys]))


@pytest.mark.parametrize(
    "slots,gamma,d,victim,others",
    [
        (3, 0.6, 4, krr_victim(4, 1.0), 0),
        (3, 1.0, 3, krr_victim(3, 0.5), 0),
        (4, 0.5, 3, poisson_victim(0.4), 0),
        (3, 0.7, 3, poisson_victim(0.6), 2),
    ],
)
def test_cell_view_matches_enumerating_every_message(slots, gamma, d, victim, others):
    extra = binomial_reports(others, 0.5) if others else None
    fast = cell_view_pair(slots, gamma, d, victim, extra_a=extra)
    slow = _brute_force(slots, gamma, d, victim, others, 0.5)
    np.testing.assert_allclose(fast.delta(EPS), slow.delta(EPS), rtol=1e-9, atol=1e-14)


@pytest.mark.parametrize("gamma,lam", [(0.3, 0.5), (1.0, 0.5), (0.8, 1.0)])
def test_cell_view_agrees_with_the_exact_item_curve(gamma, lam):
    ours = cell_view_pair(50, gamma, 17, poisson_victim(lam)).delta(EPS)
    theirs = ExactItemCurve(50, gamma, 17, lam, t_resolution=None, resolution=None).delta(EPS)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-14)


def test_lemma2_other_users_reports_only_help_and_are_harmless_when_deterministic():
    reduced = cell_view_pair(40, 1.0, 17, poisson_victim(0.5)).delta(EPS)
    noisy = cell_view_pair(40, 1.0, 17, poisson_victim(0.5), binomial_reports(5, 0.3), binomial_reports(5, 0.3)).delta(
        EPS
    )
    assert np.all(noisy <= reduced + 1e-15) and noisy[1] < 0.9 * reduced[1]
    fixed = cell_view_pair(40, 1.0, 17, poisson_victim(0.5), binomial_reports(5, 1.0)).delta(EPS)
    np.testing.assert_allclose(fixed, reduced, rtol=1e-9)


def test_theorem2_pair_falls_below_the_exact_view_when_the_count_is_visible():
    """4-RR among Bin(n, gamma) uniform blanket messages: the truth averages Theorem 1 over N."""
    k, eps0, slots, gamma = 4, 1.0, 40, 0.5
    p = math.exp(eps0)
    beta, q = (p - 1) / (p + k - 1), k * p / (p + k - 1)
    exact = cell_view_pair(slots, gamma, k, krr_victim(k, eps0)).delta(EPS)
    claimed = pair_curve(random_blanket_pair(slots, gamma, p, beta, q), resolution=None).delta(EPS)
    averaged = stats.binom.pmf(np.arange(slots + 1), slots, gamma) @ np.array(
        [variation_ratio_pair(count + 1, p, beta, q).delta(EPS, None) for count in range(slots + 1)]
    )
    np.testing.assert_allclose(exact, averaged, rtol=1e-7, atol=1e-14)
    assert exact[2] > 1.5 * claimed[2]
    # With every slot sending (gamma = 1) the uniform blanket makes Theorem 1's pair exact.
    full = cell_view_pair(slots, 1.0, k, krr_victim(k, eps0)).delta(EPS)
    np.testing.assert_allclose(full, variation_ratio_pair(slots + 1, p, beta, q).delta(EPS, None), rtol=1e-7)


def test_no_message_condition_marks_where_the_count_starts_to_leak():
    """Below gamma* = d lambda / (1 + (d - 1) lambda) the exact item curve stays within a few % of the pair."""
    d, lam = 17, 0.3
    gamma_star = d * lam / (1 + (d - 1) * lam)
    assert 1 - gamma_star == pytest.approx(gamma_star * (1 - lam) / (d * lam))
    ratios = []
    for gamma in (0.5, 0.8, 0.99):
        exact = ExactItemCurve(400, gamma, d, lam, t_resolution=None, resolution=None).epsilon(1e-4)
        pair = pair_curve(poisson_item_pair(400, gamma, d, lam, convention="proposition1"), resolution=None)
        ratios.append(exact / pair.epsilon(1e-4))
    assert 1.0 <= ratios[0] < 1.01 and ratios[0] < ratios[1] < 1.03 and ratios[2] > 1.5
