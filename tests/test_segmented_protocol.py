"""Algorithm 2: message-level against sufficient statistics, the estimator, populations, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from shufflelib.segmented.experiments import (
    level_counts_for,
    mean_and_error,
    segmented_errors,
    separate_errors,
)
from shufflelib.segmented.populations import CatalogueSets, UniformSets, msnbc_like
from shufflelib.segmented.protocol import (
    SegmentedParameters,
    conditional_variance,
    estimate_frequencies,
    estimator_target,
    expected_mse,
    level_histogram,
    mse_bound,
    randomize_users,
    run_protocol,
    simulate_counts,
)
from shufflelib.shuffler import histogram


def small_dataset(rng):
    pop = msnbc_like(np.random.default_rng(0), size=3_000)
    sets = pop.sample_sets(150, rng)
    levels = np.repeat([0, 1, 2], 50)
    holders = np.zeros((3, 17), dtype=np.int64)
    for k in range(3):
        np.add.at(holders[k], sets[levels == k].ravel(), 1)
    return sets, levels, holders


def test_message_level_and_sufficient_statistics_agree():
    rng = np.random.default_rng(1)
    sets, levels, holders = small_dataset(rng)
    params = SegmentedParameters(1.5, (0.3, 0.7, 1.0))
    runs = 1_500
    slow = np.array([histogram(run_protocol(sets, levels, params, 17, rng), 17) for _ in range(runs)])
    fast = simulate_counts(holders, 150, params, rng, size=runs)
    mean = holders.T @ np.array(params.lambdas) + 150 * 1.5 / 17
    for counts in (slow, fast):
        se = counts.std(axis=0) / np.sqrt(runs)
        assert np.all(np.abs(counts.mean(axis=0) - mean) < 4.5 * se + 1e-9)
    assert np.allclose(slow.var(axis=0), fast.var(axis=0), rtol=0.25)


def test_user_messages_follow_algorithm_2():
    rng = np.random.default_rng(2)
    params = SegmentedParameters(2.0, (0.0, 1.0))
    out = randomize_users([[0, 1, 2], [3, 4, 5]], [0, 1], params, 8, rng)
    assert len(out[0]) == 2  # lambda = 0: only the two blanket slots (gamma = 1)
    assert sorted(out[1][:3].tolist()) == [3, 4, 5] and len(out[1]) == 5


def test_estimator_is_unbiased_for_the_weighted_empirical_frequency():
    rng = np.random.default_rng(3)
    _, _, holders = small_dataset(rng)
    params = SegmentedParameters(1.5, (0.3, 0.7, 1.0))
    nk = [50, 50, 50]
    est = estimate_frequencies(simulate_counts(holders, 150, params, rng, size=40_000), 150, params, nk)
    target = estimator_target(holders, params.lambdas, nk)
    se = est.std(axis=0) / np.sqrt(est.shape[0])
    assert np.all(np.abs(est.mean(axis=0) - target) < 4.5 * se)
    total_var = est.var(axis=0).sum()
    assert total_var == pytest.approx(conditional_variance(nk, params, 17, 4), rel=0.03)
    empirical = holders.sum(axis=0) / 150
    # the levels hold different data, so the target is measurably not the empirical frequency
    assert np.max(np.abs(target - empirical)) > 5 * np.max(se)


def test_bias_when_level_choice_depends_on_the_data():
    # Conservative users hold items 0-3, liberal users items 4-7: the estimator converges to the
    # lambda-weighted mixture, not to the population frequency.
    cons = CatalogueSets([[0, 1, 2, 3]], 8)
    lib = CatalogueSets([[4, 5, 6, 7]], 8)
    nk = np.array([500, 500])
    holders = np.stack(
        [cons.sample_holders(500, np.random.default_rng(0))[0], lib.sample_holders(500, np.random.default_rng(0))[0]]
    )
    target = estimator_target(holders, [0.3, 1.0], nk)
    truth = (holders.sum(axis=0)) / 1000
    assert target[0] == pytest.approx(0.3 * 500 / (0.3 * 500 + 500))
    assert truth[0] == 0.5 and abs(target[0] - truth[0]) > 0.2


def test_expected_mse_matches_monte_carlo_and_is_below_the_bound():
    rng = np.random.default_rng(4)
    for pop in (msnbc_like(np.random.default_rng(0), size=5_000), UniformSets(32, 4)):
        nk = level_counts_for(2_000, "S1")
        params = SegmentedParameters(0.8, (0.4, 0.8, 1.0))
        mean, se = mean_and_error(segmented_errors(pop, nk, params, rng, 3_000))
        exact = expected_mse(nk, params, pop.d, pop.s, pop.sum_sq)
        assert abs(mean - exact) < 4 * se
        assert exact < mse_bound(nk, params.lambdas, params.m, pop.s)


def test_separate_errors_match_the_single_level_formula():
    rng = np.random.default_rng(5)
    pop = UniformSets(32, 4)
    seg = [SegmentedParameters(3.0, (1.0,)), SegmentedParameters(1.0, (1.0,))]
    err = separate_errors(pop, [400, 600], seg, [0.5, 0.5], rng, 3_000)
    exact = 0.25 * (expected_mse([400], seg[0], 32, 4, pop.sum_sq) + expected_mse([600], seg[1], 32, 4, pop.sum_sq))
    mean, se = mean_and_error(err)
    assert abs(mean - exact) < 4 * se


def test_populations():
    rng = np.random.default_rng(6)
    uni = UniformSets(10, 3)
    h = uni.sample_holders(2_000, rng, size=4_000)
    assert np.all(h.sum(axis=1) == 6_000)
    assert np.allclose(h.mean(axis=0), 600, rtol=0.01)
    assert h.var(axis=0).mean() == pytest.approx(2_000 * 0.3 * 0.7, rel=0.05)
    sets = uni.sample_sets(100, rng)
    assert all(len(set(row)) == 3 for row in sets.tolist())
    pop = msnbc_like(np.random.default_rng(1), size=4_000)
    w = pop.frequencies
    assert w.sum() == pytest.approx(4.0) and np.all(np.diff(w[:5]) < 0)  # Zipf-like popularity
    small = pop.sample_holders(50, rng, size=3)
    big = pop.sample_holders(5_000, rng, size=3)
    assert np.all(small.sum(axis=1) == 200) and np.all(big.sum(axis=1) == 20_000)


def test_level_histogram_exact_and_noisy():
    levels = np.repeat([0, 1, 2], [10, 20, 30])
    assert level_histogram(levels, 3).tolist() == [10, 20, 30]
    rng = np.random.default_rng(7)
    noisy = np.array([level_histogram(levels, 3, eps_p=1.0, rng=rng) for _ in range(4_000)])
    assert np.allclose(noisy.mean(axis=0), [10, 20, 30], atol=0.25)
    assert np.any(noisy != [10, 20, 30])


def test_moments_by_hand():
    params = SegmentedParameters(1.0, (1.0,))
    assert mse_bound([1000], [1.0], 1.0, 2) == pytest.approx(0.003)
    assert expected_mse([1000], params, 10, 2, 0.4) == pytest.approx((900 + 2000 - 400) / 1e6)
    assert estimate_frequencies([3, 1], 2, params, [2]).tolist() == [1.0, 0.0]
    assert level_counts_for(5000, "S2").tolist() == [2500, 1250, 1250]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: SegmentedParameters(-1.0, (0.5,)), "m must be"),
        (lambda: SegmentedParameters(1.0, (1.5,)), "lambdas"),
        (lambda: SegmentedParameters(1.0, ()), "lambdas"),
        (lambda: SegmentedParameters(2.5, (0.5,), slots=2), "slots"),
        (lambda: level_histogram([0, 3], 3), "levels"),
        (lambda: level_histogram([0, 1], 2, eps_p=1.0), "rng"),
        (lambda: estimate_frequencies([1, 2], 2, SegmentedParameters(1.0, (0.5, 1.0)), [1]), "level_counts"),
        (lambda: estimate_frequencies([1, 2], 2, SegmentedParameters(1.0, (0.0,)), [2]), "must be > 0"),
        (
            lambda: simulate_counts(np.zeros((2, 5)), 3, SegmentedParameters(1.0, (1.0,)), np.random.default_rng(0)),
            "one row per level",
        ),
        (lambda: randomize_users([[0, 9]], [0], SegmentedParameters(1.0, (1.0,)), 5, np.random.default_rng(0)), "sets"),
        (lambda: expected_mse([10], SegmentedParameters(1.0, (1.0,)), 10, 2, 3.0), "sum_sq"),
        (lambda: UniformSets(5, 6), "s must be"),
        (lambda: CatalogueSets([[0, 0]], 3), "distinct"),
        (lambda: level_counts_for(100, (0.5, 0.4)), "sum to 1"),
        (lambda: mean_and_error([1.0]), "at least 2"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
