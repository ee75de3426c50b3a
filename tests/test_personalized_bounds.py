"""Bounds of the personalized chapter against exact and Monte Carlo lower bounds; baselines; API; CLI."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shufflelib.bounds import NotApplicableError
from shufflelib.bounds.clones import ClonesClosedForm
from shufflelib.bounds.stronger_clones import StrongerClones
from shufflelib.personalized.baselines import gdp_delta, gdp_mu, lzx_proxy_epsilon, stronger_clones_delta
from shufflelib.personalized.bounds import (
    PERSONALIZED_BOUNDS,
    GaussianDPApproximation,
    LZXProxy,
    PaperTheorem2,
    SoundClones,
    StrongerClonesAtMax,
)
from shufflelib.personalized.exact_shuffle import exact_rr_delta, laplace_bracket
from shufflelib.personalized.mechanisms import LocalMechanism
from shufflelib.personalized.monte_carlo import count_sampler, log_likelihood_ratios, mc_delta
from shufflelib.personalized.population import Population, table1_population
from shufflelib.personalized.reproduction import TABLE2_EPS, TABLE2_PAPER, table2
from shufflelib.personalized.sound import sound_delta
from shufflelib.personalized.theorems import paper_plan, theorem2_delta

ROOT = Path(__file__).resolve().parents[1]
RR, LAPLACE = LocalMechanism("rr"), LocalMechanism("laplace")
EPS = np.array([0.05, 0.2, 0.5, 1.0])


# ------------------------------------------------------------------ randomized response: exact
@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0.2, 3.0), min_size=1, max_size=3),
    st.lists(st.integers(1, 60), min_size=3, max_size=3),
)
def test_rr_bounds_are_above_the_exact_shuffled_curve(levels, counts):
    pop = Population(levels, counts[: len(levels)])
    exact = exact_rr_delta(EPS, pop)
    assert np.all(sound_delta(EPS, pop, RR) >= exact)
    # For binary randomized response the paper's probabilities are valid: Theorem 2 holds too.
    assert np.all(theorem2_delta(EPS, paper_plan(pop, RR)) >= exact)


def test_exact_rr_matches_the_colleagues_exact_krr_for_one_level():
    from shufflelib.bounds.exact import TwoPairKRRLowerBound

    pop = Population([1.5], [200])
    ours = exact_rr_delta(np.array([0.2, 0.5]), pop)
    theirs = TwoPairKRRLowerBound(mechanism="krr", k=2).curve(200, 1.5).delta(np.array([0.2, 0.5]))
    assert np.allclose(ours, theirs, rtol=1e-6, atol=1e-15)


# ------------------------------------------------------------------ Laplace: exact bracket and Monte Carlo
def test_paper_bound_fails_the_exact_laplace_bracket_and_sound_bound_holds():
    eps = np.array([0.1, 0.3, 0.5])
    lower, upper = laplace_bracket(eps, 3.0, 300)
    assert np.all(lower <= upper) and np.all(upper - lower < 0.1 * lower)
    pop = Population([3.0], [300])
    paper = theorem2_delta(eps, paper_plan(pop, LAPLACE))  # tie convention most favourable to the paper
    assert np.all(paper < lower)  # violated, e.g. 0.0389 < 0.0444 at eps = 0.1
    assert np.all(sound_delta(eps, pop, LAPLACE) >= upper)


def test_paper_bound_fails_monte_carlo_for_heterogeneous_laplace():
    rng = np.random.default_rng(11)
    eps = np.array([0.3, 0.5])
    ll = log_likelihood_ratios(LAPLACE, 100, 40_000, 0, rng, eps1=4.0, eps_other=3.9)
    mc = mc_delta(eps, ll, z=4.0)
    pop = Population([3.9, 4.0], [99, 1])
    paper = theorem2_delta(eps, paper_plan(pop, LAPLACE))
    assert np.all(mc.lower > paper)  # violated by a factor > 1.3 (no tie: 3.9 < 4)
    assert np.all(sound_delta(eps, pop, LAPLACE) > mc.upper)


def test_paper_bound_fails_monte_carlo_for_the_gaussian_of_table2():
    rng = np.random.default_rng(12)
    mech = LocalMechanism("gaussian", "paper")
    eps = np.array([0.1, 0.3])
    ll = log_likelihood_ratios(mech, 100, 40_000, 0, rng, eps1=3.0, eps_other=2.99, delta1=1e-10, delta_other=1e-10)
    mc = mc_delta(eps, ll, z=4.0)
    pop = Population([2.99, 3.0], [99, 1], 1e-10)
    paper = theorem2_delta(eps, paper_plan(pop, mech))
    assert np.all(mc.lower > 1.5 * paper)


# ------------------------------------------------------------------ baselines
def test_stronger_clones_matches_the_shared_implementation():
    ours = stronger_clones_delta(EPS, 5_000, 1.5)
    theirs = StrongerClones(mechanism="krr", k=2).delta_profile(5_000, 1.5, EPS)
    assert np.allclose(ours, theirs, rtol=1e-6, atol=1e-29)  # ours stops at the neglected tail mass 1e-30


def test_lzx_proxy_is_fmt21_closed_form_for_one_level():
    pop = Population([1.0], [50_000])
    ours = lzx_proxy_epsilon(pop, 1e-6)
    theirs = ClonesClosedForm().epsilon(50_000, 1.0, 1e-6)
    assert abs(ours - theirs) < 1e-3 * theirs  # ours excludes user 1 from the clones


def test_gdp_formula_and_variants():
    pop = Population([0.5, 2.0], [5_000, 5_000])
    assert math.isclose(gdp_mu(pop, "abstract") / gdp_mu(pop, "table2"), math.sqrt(2), rel_tol=1e-3)
    mu = 0.3
    from scipy.stats import norm

    eps = 0.4
    direct = norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2)
    assert math.isclose(float(gdp_delta(eps, mu)), direct, rel_tol=1e-10)


def test_table2_reproduces_the_paper_up_to_the_gaussian_calibration():
    ours = table2("paper")
    for row in ("FV", "CCC"):
        ratio = ours[row] / np.array(TABLE2_PAPER[row])
        assert np.all((ratio > 0.5) & (ratio < 1.5)), row
    ratio = ours["Ours"] / np.array(TABLE2_PAPER["Ours"])
    assert np.all((ratio > 0.9) & (ratio < 4.0))  # same orders of magnitude down to 1e-25
    classical = table2("classical")["Ours"]
    assert classical[1] < 1e-20 < TABLE2_PAPER["Ours"][1]  # a genuine (eps, 1e-10) Gaussian: far smaller
    assert len(TABLE2_EPS) == 5


# ------------------------------------------------------------------ the three questions
def test_three_questions_are_consistent():
    pop = table1_population("Uniform2", 20_000)
    for bound in (SoundClones(LAPLACE), PaperTheorem2(LAPLACE), StrongerClonesAtMax(RR), LZXProxy(LAPLACE)):
        eps = bound.epsilon(pop, 1e-6)
        assert bound.delta(pop, eps) <= 1e-6 * (1 + 1e-6)
        assert bound.delta(pop, eps * 0.99) > 1e-6 or eps == 0
    sound = SoundClones(LAPLACE)
    e0 = sound.max_eps0(pop, 0.2, 1e-6)
    assert sound.epsilon(pop.scaled(e0 / pop.eps_max), 1e-6) <= 0.2
    assert sound.epsilon(pop.scaled(e0 * 1.01 / pop.eps_max), 1e-6) > 0.2


def test_sound_bound_is_fast_enough_to_be_grouped_and_never_below_the_paper_for_rr():
    pop = table1_population("Gauss2", 100_000)
    sound = SoundClones(RR).epsilon(pop, 1e-6)
    paper = PaperTheorem2(RR).epsilon(pop, 1e-6)
    # For randomized response both are valid; the sound one pays one clone and no f-DP step.
    assert 0.9 * paper < sound < 1.5 * paper


def test_bad_input_and_not_applicable():
    with pytest.raises(ValueError, match="mechanism"):
        SoundClones("laplace")  # type: ignore[arg-type]
    with pytest.raises(NotApplicableError, match="delta"):
        SoundClones(LocalMechanism("gaussian", "classical")).epsilon(Population([1.0], [100]), 1e-6)
    with pytest.raises(ValueError, match="delta"):
        SoundClones(LAPLACE).epsilon(Population([1.0], [100]), 1.5)
    with pytest.raises(ValueError, match="variant"):
        GaussianDPApproximation(LAPLACE, variant="x").epsilon(Population([1.0], [100]), 1e-6)
    assert set(PERSONALIZED_BOUNDS) >= {"pers-liu24", "pers-clones", "pers-fv", "pers-blanket", "pers-gdp", "pers-lzx"}


def test_count_sampler_gives_a_valid_audit():
    from shufflelib.audit import audit_protocol

    pop = Population([0.5, 2.0], [50, 50])
    res = audit_protocol(count_sampler(pop, LAPLACE), 20_000, 1e-3, np.random.default_rng(5))
    upper = SoundClones(LAPLACE).epsilon(pop, 1e-3)
    assert 0 < res.epsilon <= upper


# ------------------------------------------------------------------ calculator
def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "shufflelib", *argv], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_calculator_accepts_a_personalized_population():
    done = _run(
        "epsilon",
        "--bound",
        "pers-clones",
        "--randomizer",
        "laplace",
        "--eps0",
        "0.5,1,2",
        "--counts",
        "5000,3000,2000",
        "--delta",
        "1e-6",
    )
    assert done.returncode == 0, done.stderr
    eps = float(done.stdout.strip().splitlines()[-1])
    pop = Population([0.5, 1.0, 2.0], [5000, 3000, 2000])
    assert eps == SoundClones(LAPLACE).epsilon(pop, 1e-6)
    helped = _run("epsilon", "--help")
    assert helped.returncode == 0 and all(name in helped.stdout for name in PERSONALIZED_BOUNDS)
    bad = _run(
        "epsilon",
        "--bound",
        "pers-clones",
        "--randomizer",
        "laplace",
        "--eps0",
        "0.5,1",
        "--counts",
        "5000",
        "--delta",
        "1e-6",
    )
    assert bad.returncode == 2 and "counts" in bad.stderr


# ------------------------------------------------------------------ large n, small delta (issue 16, item 1)
def test_sound_clones_reach_small_delta_at_large_n_and_are_monotone_in_n():
    """The clone count of 2·10⁶ users is accurate far below 1e-12 (no FFT floor): δ = 1e-15 is reached
    and ε decreases with n up to the box's 10⁹ users."""
    model = SoundClones(LocalMechanism("rr"))
    two_levels = model.epsilon(Population([1.0, 3.0], [10**6, 10**6]), 1e-15)
    assert two_levels < 0.05  # was 2.999 (= eps_max, vacuous) with the FFT floor near 1e-12
    assert model.epsilon(Population([1.0, 3.0], [10**6, 10**6]), 1e-12) < two_levels
    previous = math.inf
    for n in (3 * 10**5, 3 * 10**6, 4 * 10**6, 10**7, 10**8, 9 * 10**8):  # 9.3e8 users in all: the box's n <= 1e9
        eps = model.epsilon(Population([1.0, 2.0, 3.0], [1, n // 30, n]), 1e-15)
        assert 0 < eps <= previous
        previous = eps
    assert model.delta(Population([1.0, 3.0], [10**6, 10**6]), two_levels) <= 1e-15


@pytest.mark.parametrize(
    ("levels", "counts", "kind"),
    [
        ([0.5, 1.0, 2.0], [4000, 4000, 2000], "laplace"),
        ([1.0, 3.0], [10**6, 10**6], "rr"),
        ([0.5, 4.0], [300, 20], "gaussian"),
    ],
)
def test_sound_delta_on_an_array_is_the_value_point_by_point(levels, counts, kind):
    # The groups are visited for every ε at once: the result must not depend on the others.
    population = Population(levels, counts, 1e-7 if kind == "gaussian" else 0.0)
    mechanism = LocalMechanism(kind)
    grid = np.linspace(0.0, 3.0, 25)
    together = sound_delta(grid, population, mechanism)
    alone = np.array([sound_delta([e], population, mechanism)[0] for e in grid])
    assert np.allclose(together, alone, rtol=1e-12, atol=0.0)
    assert together[0] > 0 and np.all(np.diff(together) <= 0)


def test_composed_rounds_use_a_coarser_and_still_valid_sound_curve():
    # Fewer clone-count blocks: a stochastically smaller count, so never below the fine curve.
    bound = SoundClones(LocalMechanism("rr"))
    population = Population([1.0, 3.0], [10**6, 10**6])
    eps = np.linspace(0.001, 0.05, 30)
    fine, coarse = bound.curve(population).delta(eps), bound.curve(population, composed=True).delta(eps)
    assert np.all(coarse >= fine) and np.any(coarse > fine)
    assert np.all(coarse <= fine * (1.0 + 1e-2))
