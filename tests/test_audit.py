"""Tests of the Monte Carlo auditor (:mod:`shufflelib.audit`).

The audited ε is a lower bound at confidence ``1 - alpha``; it is compared with
the EXACT ε of the audited pair of datasets, computed here independently: the
shuffled binary randomized response reveals only the count of 1s, whose two
distributions are convolutions of binomials, and δ(ε) = Σ max(P - e^ε Q, 0) in
both orders.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from scipy.stats import binom, binomtest, norm

from shufflelib import audit
from shufflelib.audit import AuditResult, audit_protocol, audit_scores, shuffled_rr_sampler
from shufflelib.bounds.exact import ExactKRR

EPS0 = 2.0


# ------------------------------------------------------------ exact reference
def rr_count_pmfs(n: int, eps0: float, others_ones: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact pmfs of the count of reported 1s: user 1 holds 0 (D) or 1 (D')."""
    p = math.exp(eps0) / (1.0 + math.exp(eps0))
    ones, zeros = others_ones, n - 1 - others_ones
    others = np.convolve(binom.pmf(np.arange(ones + 1), ones, p), binom.pmf(np.arange(zeros + 1), zeros, 1 - p))
    return np.convolve(others, [p, 1 - p]), np.convolve(others, [1 - p, p])


def exact_epsilon(p: np.ndarray, q: np.ndarray, delta: float) -> float:
    """Smallest ε with max(δ_{P||Q}(ε), δ_{Q||P}(ε)) <= delta, for pmfs on a common support."""

    def excess(eps: float) -> float:
        d = max(np.maximum(p - math.exp(eps) * q, 0).sum(), np.maximum(q - math.exp(eps) * p, 0).sum())
        return d - delta

    return 0.0 if excess(0.0) <= 0 else brentq(excess, 0.0, 50.0, xtol=1e-12)


def gaussian_epsilon(mu: float, delta: float) -> float:
    """Exact ε of the pair N(0, 1), N(mu, 1) at delta."""

    def excess(eps: float) -> float:
        return norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2) - delta

    return brentq(excess, 0.0, 50.0, xtol=1e-12)


def test_exact_reference_worst_split_is_others_all_zero():
    # The audited pair (others all hold 0) is the worst split at these parameters,
    # so its exact ε is the protocol's ε.
    for n in (10, 20):
        p0, p1 = rr_count_pmfs(n, EPS0, 0)
        worst = exact_epsilon(p0, p1, 0.01)
        for c in range(1, n):
            assert exact_epsilon(*rr_count_pmfs(n, EPS0, c), 0.01) <= worst + 1e-9


@pytest.mark.parametrize("n, delta", [(10, 0.01), (20, 0.01), (20, 0.05)])
def test_exact_reference_matches_library_exact_krr(n, delta):
    # The library's exact shuffled binary RR curve (worst-case datasets) agrees
    # with the independent computation here (both solve delta(eps) = delta to ~1e-9).
    library = ExactKRR(mechanism="krr", k=2).epsilon(n, EPS0, delta)
    assert library == pytest.approx(exact_epsilon(*rr_count_pmfs(n, EPS0, 0), delta), rel=1e-7)


# ------------------------------------------------------------ validity and power
@pytest.mark.parametrize("alpha", [0.05, 0.5])
def test_lower_bound_holds_at_stated_confidence(alpha):
    """Over 40 seeds, the audit exceeds the exact ε at most at rate alpha.

    Each run exceeds it with probability <= alpha; the number of failures is
    compared with Bin(40, alpha) by a one-sided binomial test at level 0.01.
    """
    n, delta, trials = 20, 0.01, 5_000
    exact = exact_epsilon(*rr_count_pmfs(n, EPS0, 0), delta)
    sample = shuffled_rr_sampler(n, EPS0, others_ones=0)
    eps = np.array(
        [audit_protocol(sample, trials, delta, np.random.default_rng(seed), alpha=alpha).epsilon for seed in range(40)]
    )
    failures = int(np.sum(eps > exact))
    assert binomtest(failures, 40, alpha, alternative="greater").pvalue > 0.01
    # Not vacuous: the audit finds most of the privacy loss (about 0.7 x exact here).
    assert np.median(eps) > 0.5 * exact


@pytest.mark.parametrize("n", [10, 20])
def test_close_to_exact_with_many_samples(n):
    """With 2e5 samples per side the audit is within 20% below the exact ε.

    Tolerance: the best test here has 1 - TPR ~ 0.011 (n = 20; 0.038 for
    n = 10), estimated from 1e5 held-out samples with relative standard error
    ~ 3%. The Clopper–Pearson bound moves it by ~2.2 standard errors and the
    sampling noise by up to ~3 more, costing ~ log(1 + 5 x 0.03) ~ 0.15 of
    ε ~ 1.9, i.e. ~ 8%; 20% leaves a margin of more than two.
    """
    delta = 0.01
    exact = exact_epsilon(*rr_count_pmfs(n, EPS0, 0), delta)
    res = audit_protocol(shuffled_rr_sampler(n, EPS0, 0), 200_000, delta, np.random.default_rng(0))
    assert 0.8 * exact <= res.epsilon <= exact
    assert res.n_samples == 400_000


def test_continuous_scores_gaussian_shift():
    """Continuous scores (more distinct values than candidate thresholds): N(0,1) vs N(1,1).

    The likelihood ratio is monotone, so threshold tests are optimal; with 1e5
    samples per side the audit lies between 70% of the exact ε and the exact ε
    (the best test at delta = 0.01 has rates ~ 0.03-0.2, known to ~ 3-5%).
    """
    mu, delta = 1.0, 0.01
    rng = np.random.default_rng(3)
    res = audit_scores(rng.normal(0, 1, 100_000), rng.normal(mu, 1, 100_000), delta)
    exact = gaussian_epsilon(mu, delta)
    assert 0.7 * exact <= res.epsilon <= exact


def test_reversed_scores_use_the_reverse_direction():
    rng = np.random.default_rng(5)
    sample = shuffled_rr_sampler(12, EPS0, 0)
    s0, s1 = sample(0, 20_000, rng), sample(1, 20_000, rng)
    up = audit_scores(s0, s1, 0.01)
    down = audit_scores(-s0, -s1, 0.01)
    assert up.direction == ">=" and down.direction == "<="
    assert down.threshold == -up.threshold
    assert down.epsilon == up.epsilon > 0


# ------------------------------------------------------------ the statistics
def test_intervals_are_clopper_pearson_on_held_out_part():
    rng = np.random.default_rng(11)
    sample = shuffled_rr_sampler(15, 1.5, 3)
    s0, s1 = sample(0, 3_001, rng), sample(1, 2_000, rng)
    alpha, delta = 0.1, 0.02
    res = audit_scores(s0, s1, delta, alpha=alpha, split=0.4)
    held0, held1 = s0[int(0.4 * 3_001) :], s1[int(0.4 * 2_000) :]
    reject = (lambda s: s >= res.threshold) if res.direction == ">=" else (lambda s: s <= res.threshold)
    fp, tp = int(reject(held0).sum()), int(reject(held1).sum())
    fpr_hi = binomtest(fp, held0.size, alternative="less").proportion_ci(1 - alpha / 2, "exact").high
    tpr_lo = binomtest(tp, held1.size, alternative="greater").proportion_ci(1 - alpha / 2, "exact").low
    assert res.fpr_interval == (0.0, pytest.approx(fpr_hi, rel=1e-9))
    assert res.tpr_interval == (pytest.approx(tpr_lo, rel=1e-9), 1.0)
    expected = max(0.0, math.log((tpr_lo - delta) / fpr_hi), math.log((1 - fpr_hi - delta) / (1 - tpr_lo)))
    assert res.epsilon == pytest.approx(expected, rel=1e-9)
    assert (res.delta, res.alpha, res.n_samples) == (delta, alpha, 5_001)


def test_threshold_is_chosen_on_the_selection_split(monkeypatch):
    rng = np.random.default_rng(2)
    s0, s1 = rng.normal(0, 1, 1_000), rng.normal(2, 1, 1_000)
    seen = {}
    real = audit._choose_test

    def spy(sel0, sel1, delta, level):
        seen.update(sel0=sel0.copy(), sel1=sel1.copy(), level=level)
        return real(sel0, sel1, delta, level)

    monkeypatch.setattr(audit, "_choose_test", spy)
    res = audit_scores(s0, s1, 1e-3, alpha=0.1, split=0.3)
    np.testing.assert_array_equal(seen["sel0"], s0[:300])
    np.testing.assert_array_equal(seen["sel1"], s1[:300])
    assert seen["level"] == 0.05
    assert res.threshold in np.concatenate([s0[:300], s1[:300]])


def test_bound_is_evaluated_on_the_held_out_split_only(monkeypatch):
    # A fixed test "score <= 0.5" evaluated on held-out data only.
    s0 = np.array([0.0] * 50 + [0.0, 1.0] * 25)
    s1 = np.array([1.0] * 50 + [0.0] * 10 + [1.0] * 40)
    monkeypatch.setattr(audit, "_choose_test", lambda *args: (0.5, "<="))
    res = audit_scores(s0, s1, 0.0, alpha=0.2)
    assert (res.threshold, res.direction) == (0.5, "<=")
    fpr_hi = binomtest(25, 50, alternative="less").proportion_ci(0.9, "exact").high
    tpr_lo = binomtest(10, 50, alternative="greater").proportion_ci(0.9, "exact").low
    assert res.fpr_interval[1] == pytest.approx(fpr_hi, rel=1e-9)
    assert res.tpr_interval[0] == pytest.approx(tpr_lo, rel=1e-9)


def test_selection_data_does_not_leak_into_the_bound():
    # Perfectly separated on the selection half, identical on the held-out half:
    # the threshold is chosen, but the bound (held-out only) must be 0.
    held = np.tile([0.0, 1.0], 500)
    s0 = np.concatenate([np.zeros(1_000), held])
    s1 = np.concatenate([np.ones(1_000), held])
    res = audit_scores(s0, s1, 1e-6)
    assert (res.threshold, res.direction) == (1.0, ">=")
    assert res.epsilon == 0.0
    # Whereas the selection half alone shows a large ε.
    assert audit_scores(np.zeros(2_000), np.ones(2_000), 1e-6).epsilon > 5


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(-3, 3), min_size=2, max_size=60),
    st.lists(st.integers(-3, 3), min_size=2, max_size=60),
    st.sampled_from([0.0, 1e-9, 0.1, 0.9]),
    st.floats(0.01, 0.99),
)
def test_result_is_well_formed(a, b, delta, alpha):
    s0, s1 = np.array(a, float), np.array(b, float)
    res = audit_scores(s0, s1, delta, alpha=alpha)
    assert isinstance(res, AuditResult)
    assert math.isfinite(res.epsilon) and res.epsilon >= 0
    assert 0 <= res.tpr_interval[0] < 1 and res.tpr_interval[1] == 1.0
    assert 0 < res.fpr_interval[1] <= 1 and res.fpr_interval[0] == 0.0
    assert res.direction in (">=", "<=") and res.threshold in np.concatenate([s0, s1])
    assert res.n_samples == s0.size + s1.size


# ------------------------------------------------------------ audit_protocol
def test_audit_protocol_draws_in_batches_in_order():
    calls = []

    def sample_fn(index, size, rng):
        calls.append((index, size))
        return rng.normal(index, 1.0, size)

    res = audit_protocol(sample_fn, 250, 1e-3, np.random.default_rng(4), batch_size=100)
    assert calls == [(0, 100), (1, 100), (0, 100), (1, 100), (0, 50), (1, 50)]
    # Same draws, audited directly: identical result.
    rng = np.random.default_rng(4)
    draws = [rng.normal(i, 1.0, s) for i, s in calls]
    direct = audit_scores(np.concatenate(draws[0::2]), np.concatenate(draws[1::2]), 1e-3)
    assert res == direct


def test_progress_bar(capsys):
    sample = shuffled_rr_sampler(10, 1.0, 0)
    audit_protocol(sample, 1_000, 1e-3, np.random.default_rng(0))
    assert capsys.readouterr().err == ""  # off by default for small runs
    audit_protocol(sample, 1_000, 1e-3, np.random.default_rng(0), progress=True)
    assert "audit" in capsys.readouterr().err


def test_shuffled_rr_sampler_means():
    n, eps0, ones = 50, 1.0, 20
    p = math.exp(eps0) / (1 + math.exp(eps0))
    sample = shuffled_rr_sampler(n, eps0, ones)
    rng = np.random.default_rng(9)
    for index in (0, 1):
        counts = sample(index, 20_000, rng)
        c = ones + index
        mean = c * p + (n - c) * (1 - p)
        se = math.sqrt(n * p * (1 - p) / counts.size)
        assert abs(counts.mean() - mean) < 5 * se  # 5 standard errors


# ------------------------------------------------------------ bad input
def _ok_sample(index, size, rng):
    return rng.normal(index, 1.0, size)


GOOD = np.arange(10.0)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(scores_0=np.array([0.0, np.nan, 1.0])), "scores_0"),
        (dict(scores_1=np.ones((3, 3))), "scores_1"),
        (dict(scores_0=np.array([1.0])), "scores_0"),
        (dict(scores_1=["a", "b"]), "scores_1"),
        (dict(delta=-0.1), "delta"),
        (dict(delta=1.0), "delta"),
        (dict(delta=float("nan")), "delta"),
        (dict(alpha=0.0), "alpha"),
        (dict(alpha=1.0), "alpha"),
        (dict(split=0.0), "split"),
        (dict(split=1.0), "split"),
        (dict(split=0.05), "scores_0"),
    ],
)
def test_audit_scores_rejects_bad_input(kwargs, name):
    args = dict(scores_0=GOOD, scores_1=GOOD + 1, delta=0.01) | kwargs
    with pytest.raises(ValueError, match=name):
        audit_scores(args.pop("scores_0"), args.pop("scores_1"), args.pop("delta"), **args)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(sample_fn=3), "sample_fn"),
        (dict(n_trials=1), "n_trials"),
        (dict(n_trials=10.5), "n_trials"),
        (dict(delta=2.0), "delta"),
        (dict(rng=0), "rng"),
        (dict(alpha=1.5), "alpha"),
        (dict(split=-0.5), "split"),
        (dict(batch_size=0), "batch_size"),
        (dict(progress="yes"), "progress"),
        (dict(sample_fn=lambda i, size, rng: np.zeros(size + 1)), "sample_fn"),
        (dict(sample_fn=lambda i, size, rng: np.full(size, np.inf)), "sample_fn"),
    ],
)
def test_audit_protocol_rejects_bad_input(kwargs, name):
    args = dict(sample_fn=_ok_sample, n_trials=10, delta=0.01, rng=np.random.default_rng(0)) | kwargs
    with pytest.raises(ValueError, match=name):
        audit_protocol(args.pop("sample_fn"), args.pop("n_trials"), args.pop("delta"), args.pop("rng"), **args)


@pytest.mark.parametrize(
    "args, name",
    [
        ((1, 1.0, 0), "n"),
        ((10, 0.0, 0), "eps0"),
        ((10, float("nan"), 0), "eps0"),
        ((10, 1.0, 10), "others_ones"),
        ((10, 1.0, -1), "others_ones"),
    ],
)
def test_shuffled_rr_sampler_rejects_bad_input(args, name):
    with pytest.raises(ValueError, match=name):
        shuffled_rr_sampler(*args)


def test_sampler_rejects_bad_dataset_index():
    with pytest.raises(ValueError, match="dataset_index"):
        shuffled_rr_sampler(10, 1.0, 0)(2, 5, np.random.default_rng(0))
