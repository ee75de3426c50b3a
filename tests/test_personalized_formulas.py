"""Formulas of the personalized chapter: populations, clone probabilities, clone counts, Theorems 1-2."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from shufflelib.bounds.clone_pair import BINOM_RTOL, _bernstein_range, _binomial_pmf_run, binomial_shortfall
from shufflelib.curves import DominatingPair
from shufflelib.personalized import theorems
from shufflelib.personalized.clone_count import CloneCount, clone_pair_delta
from shufflelib.personalized.hypothesis_testing import numeric_probabilities, paper_p1, paper_pi
from shufflelib.personalized.mechanisms import LocalMechanism, gaussian_delta, gaussian_sigma
from shufflelib.personalized.population import (
    Population,
    gaussian_population,
    table1_population,
    two_level_population,
)
from shufflelib.personalized.theorems import (
    ClonePlan,
    _pair_atoms,
    exact_pair_tradeoff,
    paper_plan,
    symmetrized,
    theorem1_corrected,
    theorem1_printed,
    theorem2_delta,
    theorem2_printed_delta,
)

LAPLACE = LocalMechanism("laplace")


# ------------------------------------------------------------------ populations
def test_population_merges_levels_and_counts():
    pop = Population([2.0, 0.5, 2.0, 1.0], [3, 4, 5, 1])
    assert pop.eps.tolist() == [0.5, 1.0, 2.0]
    assert pop.counts.tolist() == [4, 1, 8]
    assert pop.n == 13 and pop.eps_max == 2.0
    assert pop.without_one(2).counts.tolist() == [4, 1, 7]
    assert Population([1.0], [1]).without_one(0) is None


def test_population_rounds_down_and_compresses():
    values = np.random.default_rng(0).uniform(0.05, 1.0, 200_000)
    pop = Population.from_values(values, resolution=1e-3)
    assert pop.n == 200_000 and pop.levels <= 951
    assert np.all(pop.eps <= values.max()) and pop.eps.min() >= 0.05 - 1e-12
    # Rounding is downwards: the mean level is below the mean request by about half a step.
    mean_level = float(np.dot(pop.eps, pop.counts)) / pop.n
    assert 0 < values.mean() - mean_level < 1e-3


def test_table1_settings_are_clipped():
    for name, top in (("Uniform1", 1.0), ("Gauss1", 1.0), ("Uniform2", 2.0), ("Gauss2", 2.0)):
        pop = table1_population(name, 20_000)
        assert pop.eps_max <= top and pop.n == 20_000
    gauss1 = table1_population("Gauss1", 20_000)
    share_at_top = gauss1.counts[-1] / gauss1.n
    assert abs(share_at_top - stats.norm.sf(1.0, 0.8, 0.5)) < 0.02  # ~34 % of users clipped at 1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: Population([1.0, -1.0], [1, 1]), "eps"),
        (lambda: Population([1.0], [0]), "counts"),
        (lambda: Population([1.0], [1], [1.5]), "delta"),
        (lambda: table1_population("Uniform3", 10), "name"),
        (lambda: two_level_population(0.5, 1.0, 1.5, 10), "fraction_high"),
        (lambda: gaussian_population(1.0, 0.5, (2.0, 1.0), 10), "clip"),
    ],
)
def test_population_bad_input_names_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ------------------------------------------------------------------ mechanisms
def test_gaussian_calibrations():
    for eps in (0.5, 1.0, 2.0):
        s_an = float(gaussian_sigma(eps, 1e-10, "analytic"))
        assert float(gaussian_delta(eps, s_an)) <= 1e-10 < float(gaussian_delta(eps, s_an * (1 - 1e-6)))
        s_cl = float(gaussian_sigma(eps, 1e-10, "classical"))
        assert s_cl >= s_an  # the classical calibration is conservative for these parameters
    # The calibration that reproduces Table 2 is far from (2, 1e-10)-DP.
    assert float(gaussian_delta(2.0, float(gaussian_sigma(2.0, 1e-10, "paper")))) > 0.02


def test_gaussian_delta_matches_integration():
    sigma, eps = 1.3, 0.4
    p = stats.norm(0, sigma).pdf
    q = stats.norm(1, sigma).pdf
    value, _ = integrate.quad(lambda z: max(q(z) - math.exp(eps) * p(z), 0.0), -20, 20, points=[0.5], limit=200)
    assert abs(float(gaussian_delta(eps, sigma)) - value) < 1e-9


# ------------------------------------------------------------------ hypothesis-testing probabilities
def test_p1_closed_forms():
    for eps in (0.5, 1.0, 3.0):
        assert math.isclose(paper_p1(LAPLACE, eps), 0.5 * math.exp(-eps / 2), rel_tol=1e-12)
        assert math.isclose(paper_p1(LocalMechanism("rr"), eps), 1 / (1 + math.exp(eps)), rel_tol=1e-12)
    gauss = LocalMechanism("gaussian", "classical")
    sigma = float(gauss.scale(1.0, 1e-6))
    assert math.isclose(paper_p1(gauss, 1.0, 1e-6), stats.norm.sf(0.5 / sigma) - 5e-7, rel_tol=1e-9)


@pytest.mark.parametrize(
    ("mech", "eps_i", "eps1", "delta"),
    [
        (LAPLACE, 0.3, 3.0, 0.0),
        (LAPLACE, 1.0, 3.0, 0.0),
        (LAPLACE, 1.7, 2.0, 0.0),
        (LocalMechanism("gaussian", "paper"), 1.0, 2.0, 1e-10),
        (LocalMechanism("gaussian", "classical"), 0.5, 1.0, 1e-3),
    ],
)
def test_closed_forms_match_the_numeric_recipe(mech, eps_i, eps1, delta):
    points = 200_001
    p1_num, p0_num, pi1_num = numeric_probabilities(mech, eps_i, delta, eps1, delta, points=points)
    _, p0, pi1 = paper_pi(mech, eps_i, delta, eps1, delta)
    # Tolerance of the recipe: 4 cells of the largest probability (+ 1e-15).
    lo = min(float(mech.quantile(np.array(5e-16), x, float(mech.scale(e, delta)))) for x, e in ((0, eps1), (0, eps_i)))
    width = 2 * abs(lo) / (points - 1) + 1.0 / (points - 1)
    peak = max(1 / (2 * float(mech.scale(eps1, delta))), 1 / math.sqrt(2 * math.pi) / float(mech.scale(eps1, delta)))
    tol = 4 * width * peak + 1e-15
    assert abs(p1_num - paper_p1(mech, eps1, delta)) <= tol
    assert abs(p0_num - float(p0)) <= tol
    assert abs(pi1_num - float(pi1)) <= tol


def test_ties_and_randomized_response():
    p, _, _ = paper_pi(LAPLACE, np.array([3.0, 2.999999]), 0.0, 3.0)
    assert math.isclose(float(p[0]), paper_p1(LAPLACE, 3.0)) and abs(float(p[1] - p[0])) < 1e-5
    literal, _, _ = paper_pi(LAPLACE, 3.0, 0.0, 3.0, tie="literal")
    assert float(literal) == 0.0
    eps = np.array([0.2, 1.0, 2.5])
    p_rr, _, _ = paper_pi(LocalMechanism("rr"), eps, 0.0, 3.0)
    assert np.allclose(p_rr, 1 / (1 + np.exp(eps)))
    with pytest.raises(ValueError, match="eps_i"):
        paper_pi(LAPLACE, 4.0, 0.0, 3.0)


# ------------------------------------------------------------------ clone counts
def _naive_poisson_binomial(q: np.ndarray) -> np.ndarray:
    pmf = np.array([1.0])
    for qi in q:
        pmf = np.convolve(pmf, [1 - qi, qi])
    return pmf


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0.01, 0.99), min_size=1, max_size=4),
    st.lists(st.integers(1, 40), min_size=4, max_size=4),
)
def test_clone_count_is_the_poisson_binomial(qs, counts):
    counts = counts[: len(qs)]
    cc = CloneCount.from_binomials(qs, counts)
    exact = _naive_poisson_binomial(np.repeat(qs, counts))
    got = np.zeros(exact.size)
    got[cc.start : cc.start + cc.pmf.size] = cc.pmf
    assert np.max(np.abs(got - exact)) <= 1e-13
    assert cc.tail_low <= 1e-29 + 1e-30 and cc.tail_high <= 1e-29 + 1e-30


def test_coarse_grid_and_grouping_are_stochastically_smaller():
    rng = np.random.default_rng(3)
    q, c = rng.uniform(0.1, 0.6, 40), rng.integers(200, 600, 40)
    direct = CloneCount.from_binomials(q, c, max_direct=math.inf)
    coarse = CloneCount.from_binomials(q, c, max_direct=1e4)
    assert direct.step == 1 and coarse.step > 1
    # Each binomial X became step * floor(X / step): the cdf of the coarse count is above the exact one,
    # and the mean drops by less than (groups) * (step - 1).
    grid = np.arange(direct.start, direct.start + direct.pmf.size, dtype=float)
    exact_cdf = np.cumsum(direct.pmf)
    coarse_cdf = np.array([coarse.pmf[coarse.support <= x].sum() for x in grid])
    assert np.all(coarse_cdf >= exact_cdf - 1e-12)
    assert 0 < direct.mean - coarse.mean <= q.size * (coarse.step - 1)
    grouped = CloneCount.from_binomials(q, c, max_groups=4)
    assert grouped.grouped and grouped.mean < direct.mean  # smallest q of each bin: fewer clones


def test_a_very_coarse_grid_takes_the_block_masses_of_each_binomial():
    """Beyond a step of 128 each binomial's block masses come from its distribution functions: they
    match the sums of its pmf over the blocks, convolved."""
    q, c = np.array([0.3, 0.6]), np.array([200_000, 300_000])
    coarse = CloneCount.from_binomials(q, c, max_direct=1e3)
    assert coarse.step > 128
    law = np.array([1.0])
    for q_g, c_g in zip(q, c, strict=True):
        x = np.arange(c_g + 1)
        law = np.convolve(law, np.bincount(x // coarse.step, weights=stats.binom.pmf(x, c_g, q_g)))
    exact = law[coarse.start // coarse.step :][: coarse.pmf.size]
    # Never below (relative 1e-11, or the mass cut off beyond the ranges: 1e-30 per side and
    # product); above only by the masses' rounding allowance (BINOM_RTOL per cdf value), whose
    # total bounds every point's excess.
    excess = coarse.pmf - exact
    assert np.all(excess >= -(1e-11 * exact + 1e-29))
    total = float(coarse.pmf.sum() - exact.sum())
    assert 0.0 <= total <= 1e-6
    assert np.all(excess <= 1e-11 * exact + 1e-29 + total)
    assert coarse.pmf.sum() > 1 - 1e-12


@pytest.mark.parametrize(("n", "q"), [(10**9, 0.48), (999_899_998, 0.3), (10**9, 0.999), (123_456_789, 0.731)])
def test_binomial_pmf_runs_keep_the_accuracy_of_scipy(n, q):
    """Runs of a binomial pmf (anchors by scipy, ratios in between) against 30-digit mpmath."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 30
    lo, hi = (int(v[0]) for v in _bernstein_range(np.array([float(n)]), np.array([q]), 1e-30))
    run = _binomial_pmf_run(float(n), q, lo, hi)
    assert run.size == hi - lo + 1
    # the far ends, the last point of a run (63 ratios from its anchor) and points in between
    picks = np.unique(np.r_[0, 63, 64 * 7 + 63, np.linspace(0, run.size - 1, 25).astype(int), run.size - 1])
    for i in picks:
        exact = mpmath.binomial(n, lo + i) * mpmath.mpf(q) ** (lo + i) * (1 - mpmath.mpf(q)) ** (n - lo - i)
        assert abs(run[i] - exact) <= BINOM_RTOL / 10 * exact  # measured <= 6.2e-11 (scipy's own error)


def test_binomial_pmf_runs_from_underflowing_anchors_are_computed_point_by_point():
    run = _binomial_pmf_run(2000.0, 0.5, 0, 2000)  # pmf(0) = 2^-2000 underflows
    direct = stats.binom.pmf(np.arange(2001), 2000, 0.5)
    assert np.all((run == 0) == (direct == 0))
    live = direct > 1e-280
    assert np.max(np.abs(run[live] / direct[live] - 1)) <= 1e-12


def test_binomial_shortfall_of_a_fair_coin_matches_a_direct_sum():
    for m, u in ((10, 3.3), (25, 9.7), (101, 44.2)):
        x = np.arange(m + 1)
        direct = np.sum(stats.binom.pmf(x, m, 0.5) * np.maximum(u - x, 0))
        value, err = binomial_shortfall(np.array([float(m)]), 0.5, np.array([u]))
        assert abs(value[0] - direct) <= err[0] + 1e-15


@settings(max_examples=30, deadline=None)
@given(st.floats(0.0, 0.45), st.floats(0.0, 1.0), st.integers(0, 30), st.floats(0.0, 3.0))
def test_clone_pair_delta_is_the_exact_hockey_stick(w, q, others, eps):
    plan = ClonePlan.homogeneous(w, q, others)
    lp, lq = _pair_atoms(plan, w)
    exact = DominatingPair(lp, lq, symmetric=True).delta(eps)
    got = float(clone_pair_delta(eps, w, plan.count))
    assert exact - 1e-12 <= got <= exact * (1 + 1e-7) + 1e-12  # rounding budget: 1e-9 of each term


# ------------------------------------------------------------------ Theorems 1 and 2
@settings(max_examples=30, deadline=None)
@given(st.floats(0.01, 0.45), st.floats(0.05, 1.0), st.integers(0, 25), st.floats(0.0, 2.0))
def test_theorem2_is_lambda_times_the_p0_q0_divergence_and_above_the_pair(w, q, others, eps):
    plan = ClonePlan.homogeneous(w, q, others)
    lam = plan.lam
    eps_prime = math.log1p(math.expm1(eps) / lam)
    p0, q0 = _pair_atoms(plan, 0.0)
    direct = lam * DominatingPair(q0, p0, symmetric=False).delta(eps_prime)
    got = float(theorem2_delta(eps, plan))
    assert abs(got - direct) <= 1e-7 * direct + 1e-12  # rounding budget: 1e-9 of each term
    # Given a valid decomposition, Theorem 2 (delta_1 = 0) is above the exact clone pair.
    lp, lq = _pair_atoms(plan, w)
    assert got >= DominatingPair(lp, lq).delta(eps) - 1e-12
    # ... and never below its floor lambda E[2^-C].
    floor = lam * float(np.dot(plan.count.pmf, 2.0**-plan.count.support))
    assert got >= floor * (1 - 1e-9)


def test_printed_theorem2_with_aggregated_threshold_is_below_the_supremum():
    pop = Population([3.0], [300])
    plan = paper_plan(pop, LAPLACE)
    eps = np.array([0.1, 0.3, 0.5])
    clean = theorem2_delta(eps, plan)
    printed_pi = theorem2_printed_delta(eps, plan, weights="pi")
    assert np.all(printed_pi < clean) and np.all(printed_pi > 0.9 * clean)
    # As printed (constant weights w_1^0, which cancel) the threshold is far off.
    literal = theorem2_printed_delta(eps, plan)
    assert literal[0] < 0.9 * clean[0] and np.all(literal[1:] == 0)


@pytest.mark.parametrize("weights", ["printed", "pi"])
def test_printed_theorem2_threshold_is_the_exact_step_of_l(weights):
    """t_eps against every step of l(t): k_m(t) = floor(m - (m + 1)/(t + 1)) jumps at t = (m + 1)/(m - k) - 1."""
    plan = ClonePlan.homogeneous(0.2, 0.6, 40)
    w, m = plan.w, np.arange(1.0, 41.0)
    pi = stats.binom.pmf(m, 40, 0.6)
    weight = pi if weights == "pi" else np.ones_like(m)
    steps = np.unique([(mm + 1) / (mm - k) - 1 for mm in m for k in range(int(mm))])
    candidates = np.r_[1e-12, steps[(steps > 1e-12) & (steps <= 1e12)] * (1 + 1e-9)]  # just past each step
    configs = [np.floor(m - (m + 1) / (t + 1)) for t in candidates]
    with np.errstate(divide="ignore"):  # l = -inf where every f_m(k) is 0
        l_values = [-(weight @ stats.binom.pmf(k + 1, m, 0.5)) / (weight @ stats.binom.pmf(k, m, 0.5)) for k in configs]
    for eps in (0.05, 0.3, 0.8):
        first = next(j for j, l_t in enumerate(l_values) if -2 * w + (1 - 2 * w) * l_t >= -math.exp(eps))
        k = configs[first]
        a, b = stats.binom.cdf(k, m, 0.5) @ pi, stats.binom.cdf(k + 1, m, 0.5) @ pi
        expected = max((2 * w - math.exp(eps)) * a + (1 - 2 * w) * b, 0.0)
        assert float(theorem2_printed_delta(eps, plan, weights=weights)) == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_printed_theorem2_is_smooth_in_eps0_at_a_billion_users():
    """With t_eps exact the printed formula rises smoothly with eps0 (an approximate t_eps gave zeros)."""
    population = Population([1e-6, 1.0, 100.0], [1, 100_000, 999_899_999])
    plans = [paper_plan(population.scaled(e0 / 100), LocalMechanism("rr")) for e0 in np.linspace(1.1, 1.5, 9)]
    values = [float(theorem2_printed_delta(1e-3, plan, weights="pi")) for plan in plans]
    assert values[0] > 0 and np.all(np.diff(np.log(values)) > 1.0)  # > e-fold per step of 0.05


@pytest.mark.parametrize("weights", ["printed", "pi"])
def test_printed_theorem2_reads_an_array_of_eps_as_it_reads_each_alone(weights):
    """The thresholds of an array of ε are bisected side by side, sharing the values of l(t) they
    visit: each answer is the one a fresh table gives to that ε alone, bit for bit."""
    population = Population([0.4, 1.5], [2_000, 3])
    eps = np.r_[0.0, np.geomspace(1e-4, 3.0, 40), 50.0, 800.0]
    together = theorem2_printed_delta(eps, paper_plan(population, LAPLACE), weights=weights)
    alone = []
    for e in eps[::-1]:
        theorems._PRINTED_CACHE.clear()  # a fresh table: nothing remembered from the other ε
        alone.append(float(theorem2_printed_delta(e, paper_plan(population, LAPLACE), weights=weights)))
    np.testing.assert_array_equal(together, alone[::-1])
    assert np.any(together > 0) and np.any(together == 0)


def test_theorem1_printed_is_not_a_tradeoff_function_and_corrected_is_not_a_lower_bound():
    w = 1 / (1 + math.e)
    plan = ClonePlan.homogeneous(w, 2 * w, 0)  # n = 1: randomized response with eps0 = 1
    a, f = theorem1_printed(np.array([np.inf]), plan)
    assert a[0] == 1.0 and math.isclose(f[0], 1 - 2 * w)  # f(1) > 0: not a trade-off function
    t = np.concatenate([[0.0], np.logspace(-4, 4, 400), [np.inf]])
    a, f = theorem1_corrected(t, plan)
    grid = np.linspace(0, 1, 2001)
    f_grid = np.interp(grid, a, f)  # randomized tests interpolate between the vertices
    exact = exact_pair_tradeoff(grid, plan)
    gap = f_grid - exact
    assert abs(gap.max() - 0.124) < 0.002  # the digest: +0.124 at alpha = 0.269
    assert abs(grid[np.argmax(gap)] - w) < 0.002
    # Symmetrized, it is a valid lower bound.
    x, y = symmetrized(a, f)
    assert np.all(np.interp(grid, x, y) <= exact + 1e-9)
    # Larger n (n = 10): still above T(P, Q) somewhere, still fine once symmetrized.
    plan10 = ClonePlan.homogeneous(w, 2 * w, 9)
    a, f = theorem1_corrected(t, plan10)
    exact10 = exact_pair_tradeoff(grid, plan10)
    assert (np.interp(grid, a, f) - exact10).max() > 0.01
    x, y = symmetrized(a, f)
    assert np.all(np.interp(grid, x, y) <= exact10 + 1e-9)


def test_local_delta_enters_with_the_wrong_sign():
    base = ClonePlan.homogeneous(0.1, 0.2, 499)
    leaky = ClonePlan(base.w, 1e-3, base.count)
    eps = np.array([0.2, 0.5])
    assert np.all(theorem2_delta(eps, leaky) < theorem2_delta(eps, base))
