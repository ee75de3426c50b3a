"""The variation-ratio engine: clone pairs against brute force, the paper's reductions, bad input."""

from __future__ import annotations

import math
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import gammaln

from shufflelib.bounds.clone_pair import clone_pair_delta
from shufflelib.bounds.exact import concentrated_delta
from shufflelib.segmented.clone_pairs import (
    ClonePair,
    ClonePairCurve,
    block_starts,
)
from shufflelib.segmented.variation_ratio import (
    pair_curve,
    poisson_item_pair,
    random_blanket_pair,
    slot_count,
    variation_ratio_pair,
)


def brute_pair(pair: ClonePair, eps: float) -> float:
    """H(P||Q) by summing the two-dimensional pmfs of the pair."""
    n, r = pair.trials, pair.rate
    grid = np.arange(n + 2)
    a, b = np.meshgrid(grid, grid, indexing="ij")

    def f(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        ok = (x >= 0) & (y >= 0) & (x + y <= n)
        out = np.zeros(x.shape)
        xs, ys = x[ok], y[ok]
        with np.errstate(divide="ignore"):
            log = (
                gammaln(n + 1)
                - gammaln(xs + 1)
                - gammaln(ys + 1)
                - gammaln(n - xs - ys + 1)
                + (xs + ys) * np.log(r)
                + (n - xs - ys) * np.log1p(-2 * r)
            )
        out[ok] = np.exp(log)
        return out

    p = pair.w_near * f(a - 1, b) + pair.w_far * f(a, b - 1) + pair.w_rest * f(a, b)
    q = pair.w_far * f(a - 1, b) + pair.w_near * f(a, b - 1) + pair.w_rest * f(a, b)
    return float(np.maximum(p - math.exp(eps) * q, 0.0).sum())


def histogram_law(dists: list[list[float]]) -> dict[tuple[int, ...], float]:
    """Exact law of the histogram of independent categorical messages (the shuffled view)."""
    law = {(0,) * len(dists[0]): 1.0}
    for dist in dists:
        nxt: dict[tuple[int, ...], float] = defaultdict(float)
        for h, pr in law.items():
            for y, w in enumerate(dist):
                if w > 0:
                    hh = list(h)
                    hh[y] += 1
                    nxt[tuple(hh)] += pr * w
        law = nxt
    return law


def hockey(p: dict, q: dict, eps: float) -> float:
    return sum(max(p.get(k, 0.0) - math.exp(eps) * q.get(k, 0.0), 0.0) for k in set(p) | set(q))


@settings(max_examples=30, deadline=None)
@given(
    trials=st.integers(0, 40),
    rate=st.floats(0.01, 0.45),
    near=st.floats(0.0, 1.0),
    far_frac=st.floats(0.0, 1.0),
    eps=st.floats(0.0, 2.0),
)
def test_exact_pair_matches_brute_force(trials, rate, near, far_frac, eps):
    far = min(near, 1.0 - near) * far_frac
    pair = ClonePair(trials, rate, near, far, 1.0 - near - far)
    exact = float(pair.delta([eps], None)[0])
    brute = brute_pair(pair, eps)
    assert brute - 1e-12 <= exact <= brute + 1e-8


@pytest.mark.parametrize("resolution", [0.05, 0.5])
def test_blocks_round_up_and_stay_close(resolution):
    pair = ClonePair(20_000, 0.5 / 17, 0.5, 0.0, 0.5)
    eps = np.array([0.02, 0.05, 0.1])
    exact = pair.delta(eps, None)
    blocked = pair.delta(eps, resolution)
    assert np.all(blocked >= exact)
    assert np.all(blocked <= exact * (1.02 if resolution < 0.1 else 1.5))


def test_coin_pair_is_randomized_response_without_coins():
    # The coin pair V + Bin(0, 1/2), V ~ Bern(3/4), against Bern(1/4): randomized response.
    value = clone_pair_delta(np.log([1.0, 2.0, 3.0]), math.log(3.0), np.array([0]), np.array([1.0]))
    assert np.allclose(value, [0.5, 0.75 - 2 * 0.25, 0.0], atol=1e-12)


def test_block_starts_cover_the_range():
    starts = block_starts(100, 5000, 2500.0, 40.0, 0.1)
    assert starts[0] == 100 and starts[-1] <= 5000 and np.all(np.diff(starts) > 0)
    assert block_starts(3, 6, 4.0, 1.0, 0.1).tolist() == [3, 4, 5, 6]


def test_theorem1_holds_for_randomized_response_spread():
    # k = 3 randomized response, others holding a third value: the pair is exact (tight).
    e0 = 1.0
    e = math.exp(e0)
    hi, lo = e / (e + 2), 1 / (e + 2)
    n = 6
    p = histogram_law([[hi, lo, lo]] + [[lo, lo, hi]] * (n - 1))
    q = histogram_law([[lo, hi, lo]] + [[lo, lo, hi]] * (n - 1))
    pair = variation_ratio_pair(n, e, (e - 1) / (e + 2), e)
    for eps in (0.2, 0.6):
        assert hockey(p, q, eps) == pytest.approx(float(pair.delta([eps], None)[0]), rel=1e-7)


def test_theorem1_as_restated_fails_for_a_distinguishable_residual():
    # Victim (p = 3, beta = 0.2) and others meeting the q = 3 ratio property, but the others'
    # residual part contains a symbol the victim never sends: the count of that symbol tells
    # whether the victim was "residual", which the pair forgets.
    victim0, victim1 = [0.3, 0.1, 0.6, 0.0], [0.1, 0.3, 0.6, 0.0]
    other = [0.1, 0.1, 0.2, 0.6]
    assert max(v / o for v, o in zip(victim0, other, strict=False) if o > 0) == pytest.approx(3.0)
    n = 8
    p = histogram_law([victim0] + [other] * (n - 1))
    q = histogram_law([victim1] + [other] * (n - 1))
    pair = variation_ratio_pair(n, 3.0, 0.2, 3.0)
    assert hockey(p, q, 0.5) > 3 * float(pair.delta([0.5], None)[0])


def test_theorem1_pair_below_exact_concentrated_krr_in_the_tail():
    # Shuffled 3-RR, n = 7, others holding the victim's first value (an exact curve of the
    # engine): the variation-ratio pair with beta = (e - 1)/(e + 2), q = e is exceeded at eps = 0.8.
    e = math.e
    pair = variation_ratio_pair(7, e, (e - 1) / (e + 2), e)
    exact = float(concentrated_delta(7, 3, 1.0, np.array([0.8]))[0])
    assert exact > 1.5 * float(pair.delta([0.8], None)[0])


def test_theorem2_is_theorem1_with_q_over_gamma():
    pair2 = random_blanket_pair(50, 0.4, 4.0, 0.3, 5.0)
    pair1 = variation_ratio_pair(51, 4.0, 0.3, 5.0 / 0.4)
    assert (pair2.trials, pair2.rate) == (pair1.trials, pytest.approx(pair1.rate))
    assert pair2.w_near == pytest.approx(pair1.w_near)


def test_poisson_pair_is_the_law_of_the_two_victim_cells():
    # Proposition 1's neighbouring datasets: the law of (C_j0, C_j1) is the pair with n*slots trials.
    rng = np.random.default_rng(3)
    n, m, d, lam = 30, 0.7, 5, 0.6
    pair = poisson_item_pair(n, m, d, lam, convention="proposition1")
    runs = 200_000
    slots = slot_count(m)
    sent = rng.binomial(n * slots, m / slots, size=runs)
    cells = rng.multinomial(sent, [1 / d, 1 / d, 1 - 2 / d])[:, :2]
    cells[:, 0] += rng.random(runs) < lam
    freq = np.bincount(cells[:, 0] * 50 + cells[:, 1], minlength=2500) / runs
    grid = np.arange(50)
    a, b = np.meshgrid(grid, grid, indexing="ij")

    def f(x, y):
        ok = (x >= 0) & (y >= 0)
        out = np.zeros(x.shape)
        xs, ys = x[ok], y[ok]
        nn = pair.trials
        log = (
            gammaln(nn + 1)
            - gammaln(xs + 1)
            - gammaln(ys + 1)
            - gammaln(nn - xs - ys + 1)
            + (xs + ys) * np.log(pair.rate)
            + (nn - xs - ys) * np.log1p(-2 * pair.rate)
        )
        out[ok] = np.exp(log)
        return out

    law = (lam * f(a - 1, b) + (1 - lam) * f(a, b)).ravel()
    chi2 = np.sum((freq - law) ** 2 / np.maximum(law, 1e-12) * runs * (law > 1e-5))
    dof = int(np.sum(law > 1e-5)) - 1
    assert chi2 < dof + 5 * math.sqrt(2 * dof)


def test_theorem3_trials_are_one_fewer_and_conservative():
    t3 = pair_curve(poisson_item_pair(200, 1.0, 17, 1.0))
    p1 = pair_curve(poisson_item_pair(200, 1.0, 17, 1.0, convention="proposition1"))
    e3, e1 = t3.epsilon(1e-3), p1.epsilon(1e-3)
    assert e1 < e3 < e1 + 0.01  # the digest's 1.262 against 1.267
    assert e1 == pytest.approx(1.262, abs=2e-3)


def test_pair_monotone_in_lambda_and_trials():
    eps = np.array([0.05, 0.1])
    base = poisson_item_pair(2000, 1.5, 17, 0.5).delta(eps)
    assert np.all(poisson_item_pair(2000, 1.5, 17, 0.6).delta(eps) >= base)
    assert np.all(poisson_item_pair(2200, 1.5, 17, 0.5).delta(eps) <= base)


def test_curve_epsilon_certifies_delta():
    curve = ClonePairCurve(poisson_item_pair(5000, 1.8, 17, 0.5))
    eps = curve.epsilon(1e-7)
    assert curve.delta(eps) <= 1e-7 < curve.delta(eps * 0.99)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: ClonePair(-1, 0.1, 1.0, 0.0, 0.0), "trials"),
        (lambda: ClonePair(5, 0.6, 1.0, 0.0, 0.0), "rate"),
        (lambda: ClonePair(5, 0.1, 0.2, 0.5, 0.3), "w_near must be >= w_far"),
        (lambda: ClonePair(5, 0.1, 0.5, 0.0, 0.1), "must equal 1"),
        (lambda: variation_ratio_pair(10, 1.0, 0.1, 2.0), "p must be > 1"),
        (lambda: variation_ratio_pair(10, 3.0, 0.9, 3.0), "beta"),
        (lambda: poisson_item_pair(10, 0.0, 17, 0.5), "m must be"),
        (lambda: poisson_item_pair(10, 1.0, 1, 0.5), "d must be"),
        (lambda: poisson_item_pair(10, 1.0, 17, 1.5), "lam must be"),
        (lambda: poisson_item_pair(10, 1.0, 17, 0.5, convention="x"), "convention"),
        (lambda: slot_count(2.5, slots=2), "slots"),
        (lambda: ClonePair(5, 0.1, 1.0, 0.0, 0.0).delta([-1.0]), "eps"),
        (lambda: ClonePair(5, 0.1, 1.0, 0.0, 0.0).delta([0.1], resolution=0.0), "resolution"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def mp_brute_pair(pair: ClonePair, eps: float) -> mp.mpf:
    """H(P||Q) of the two-dimensional pmfs in 40-digit arithmetic (tails included)."""
    n, r, e = pair.trials, mp.mpf(pair.rate), mp.e ** mp.mpf(eps)
    w_near, w_far, w_rest = (mp.mpf(w) for w in (pair.w_near, pair.w_far, pair.w_rest))

    def f(x: int, y: int) -> mp.mpf:
        if x < 0 or y < 0 or x + y > n:
            return mp.mpf(0)
        return (
            mp.factorial(n)
            / (mp.factorial(x) * mp.factorial(y) * mp.factorial(n - x - y))
            * r ** (x + y)
            * (1 - 2 * r) ** (n - x - y)
        )

    total = mp.mpf(0)
    for x in range(n + 2):
        for y in range(n + 2 - x):
            p = w_near * f(x - 1, y) + w_far * f(x, y - 1) + w_rest * f(x, y)
            q = w_far * f(x - 1, y) + w_near * f(x, y - 1) + w_rest * f(x, y)
            total += max(p - e * q, 0)
    return total


@pytest.mark.parametrize(
    ("trials", "rate", "w_near", "w_far"), [(30, 0.1, 0.5, 0.1), (40, 0.2, 0.3, 0.0), (25, 0.05, 0.7, 0.2)]
)
def test_exact_pair_tails_match_a_40_digit_brute_force(trials, rate, w_near, w_far):
    """The pair (a mixture of the core's clone pairs, one log-odds per total) is an upper bound within
    the core's rounding budget, down to the deepest tails."""
    mp.mp.dps = 40
    pair = ClonePair(trials, rate, w_near, w_far, 1.0 - w_near - w_far)
    eps = np.array([0.0, 0.3, 1.0, 2.0, 3.0])
    ours = pair.delta(eps, None)
    for e, value in zip(eps, ours, strict=True):
        brute = float(mp_brute_pair(pair, float(e)))
        if brute == 0.0:
            assert value <= 1e-300
            continue
        assert brute <= value <= brute * (1 + 1e-8)


def test_the_segmented_modules_import_before_the_bounds():
    """No import cycle: the segmented pairs import the clone-pair core from ``shufflelib.bounds``,
    whose variation-ratio bound builds the segmented pair."""
    root = Path(__file__).resolve().parents[1]
    for module in ("shufflelib.segmented.clone_pairs", "shufflelib.segmented.protocol"):
        subprocess.run([sys.executable, "-c", f"import {module}"], cwd=root, check=True)
