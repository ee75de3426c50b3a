"""The tight bound and the exact lower bound for a random population (:mod:`shufflelib.population.tight`)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from shufflelib.audit import audit_protocol
from shufflelib.bounds.clones import ClonesNumerical
from shufflelib.curves import DominatingPair
from shufflelib.population.bounds import BinomialTheorem, PoissonTheorem
from shufflelib.population.laws import (
    BinomialPopulation,
    DiscretePopulation,
    FixedPopulation,
    PoissonPopulation,
)
from shufflelib.population.tight import (
    ExactShuffledRR,
    TightClones,
    clone_pair_delta,
    rr_population_sampler,
)

EPS_GRID = np.array([0.0, 0.05, 0.2, 0.5, 1.0])


def _clone_pair(c_values, c_probs, eps0):
    """The pair (A + B, C - A + 1 - B) vs (A + 1 - B, C - A + B), enumerated atom by atom."""
    theta = 1.0 / (1.0 + math.exp(-eps0))
    atoms: dict[tuple[int, int], list[float]] = {}
    for c, pc in zip(c_values, c_probs, strict=False):
        for a in range(c + 1):
            w = pc * stats.binom.pmf(a, c, 0.5)
            for b, wb in ((1, theta), (0, 1.0 - theta)):
                atoms.setdefault((a + b, c - a + 1 - b), [0.0, 0.0])[0] += w * wb
                atoms.setdefault((a + 1 - b, c - a + b), [0.0, 0.0])[1] += w * wb
    p, q = np.array(list(atoms.values())).T
    with np.errstate(divide="ignore"):  # atoms that one side never reaches
        return DominatingPair(np.log(p), np.log(q))


def test_clone_pair_delta_is_the_exact_divergence_of_the_pair():
    c_values, c_probs = np.array([0, 3, 7, 20]), np.array([0.1, 0.2, 0.3, 0.4])
    for eps0 in (0.5, 2.0):
        exact = _clone_pair(c_values, c_probs, eps0).delta(EPS_GRID)
        got = clone_pair_delta(EPS_GRID, eps0, c_values.astype(float), c_probs, 0.0)
        live = EPS_GRID < eps0
        assert np.allclose(got[live], exact[live], rtol=1e-8, atol=1e-15)
        assert np.all(got[~live] == 0.0)


def test_tight_bound_of_a_small_population_matches_enumeration():
    law = DiscretePopulation([2, 5, 12], [0.2, 0.5, 0.3])
    eps0 = 1.0
    q = math.exp(-eps0)
    c = np.arange(13)
    c_probs = law.probs @ stats.binom.pmf(c[None, :], law.values[:, None], q)
    exact = _clone_pair(c, c_probs, eps0).delta(EPS_GRID[:-1])
    got = TightClones(law).delta_profile(eps0, EPS_GRID[:-1])
    assert np.allclose(got, exact, rtol=1e-8)


@pytest.mark.parametrize("n", [1_000, 50_000, 3_000_000])
def test_fixed_population_is_the_classical_clone_bound(n):
    ours = TightClones(FixedPopulation(n - 1)).epsilon(1.0, 1e-6)
    theirs = ClonesNumerical().epsilon(n, 1.0, 1e-6)
    assert ours == pytest.approx(theirs, rel=2e-4)


def test_exact_rr_matches_enumeration_of_the_output():
    law = DiscretePopulation([1, 4, 9], [0.3, 0.3, 0.4])
    eps0 = 1.5
    p_lo = 1.0 / (math.exp(eps0) + 1.0)
    log_p, log_q = [], []
    for others, w in zip(law.values, law.probs, strict=False):
        base = stats.binom.pmf(np.arange(others + 1), others, p_lo)
        log_p += list(np.log(w * np.convolve(base, [1 - p_lo, p_lo])))  # user 1 holds 0
        log_q += list(np.log(w * np.convolve(base, [p_lo, 1 - p_lo])))  # user 1 holds 1
    exact = DominatingPair(np.array(log_p), np.array(log_q)).delta(EPS_GRID)
    got = ExactShuffledRR(law).delta_profile(eps0, EPS_GRID)
    assert np.allclose(got, exact, rtol=1e-8, atol=1e-15)


@pytest.mark.parametrize("dummies,adaptive", [(0, False), (300, False), (300, True)])
def test_exact_lower_bound_is_below_the_tight_bound(dummies, adaptive):
    law = BinomialPopulation(2001, 0.25)
    for eps0 in (0.5, 1.5, 3.0):
        tight = TightClones(law, dummies, adaptive)
        exact = ExactShuffledRR(law, dummies, adaptive)
        assert np.all(exact.delta_profile(eps0, EPS_GRID) <= tight.delta_profile(eps0, EPS_GRID))
        assert exact.epsilon(eps0, 1e-6) <= tight.epsilon(eps0, 1e-6)


def test_ordering_audit_exact_tight_theorem():
    """Monte Carlo lower bound <= exact shuffled RR <= tight bound <= Theorem 1 (digest's chain)."""
    law, eps0, delta = BinomialPopulation(1001, 0.5), 3.0, 1e-3
    audit = audit_protocol(rr_population_sampler(law, eps0), 400_000, delta, np.random.default_rng(7))
    exact = ExactShuffledRR(law).epsilon(eps0, delta)
    tight = TightClones(law).epsilon(eps0, delta)
    assert 0.2 < audit.epsilon <= exact < tight
    law = BinomialPopulation(10_001, 0.5)
    chain = [ExactShuffledRR(law).epsilon(1.5, 1e-5), TightClones(law).epsilon(1.5, 1e-5)]
    chain.append(BinomialTheorem(law).epsilon(1.5, 1e-5))
    assert np.allclose(chain, [0.0710, 0.1189, 0.2305], atol=5e-4)  # the digest's values


def test_tight_delta_increases_with_eps0():
    bound = TightClones(PoissonPopulation(3000))
    deltas = [bound.delta(e0, 0.1) for e0 in np.linspace(0.2, 5.0, 13)]
    assert np.all(np.diff(deltas) >= 0)


def test_tight_three_questions_agree():
    bound = TightClones(PoissonPopulation(5000), dummies=2000, adaptive=True)
    eps = bound.epsilon(1.0, 1e-6)
    assert bound.delta(1.0, eps) <= 1e-6
    assert bound.delta(1.0, eps * 0.999) > 1e-6
    assert bound.max_eps0(eps, 1e-6) == pytest.approx(1.0, rel=1e-6)
    assert bound.max_local_eps(0.05, 1e-6) > 0.05
    assert bound.curve(1.0).epsilon(1e-6) == pytest.approx(eps, rel=1e-8)
    assert PoissonTheorem(PoissonPopulation(5000)).max_eps0(0.1, 1e-6) < TightClones(PoissonPopulation(5000)).max_eps0(
        0.1, 1e-6
    )


def test_the_composed_searchs_top_brackets_one_rounds_largest_eps0_from_above():
    # The composed eps0 search's top is resolved to 1e-4 only, and taken at its bracket's far end.
    bound = TightClones(PoissonPopulation(50_000))
    for eps, delta in ((0.05, 1e-6), (0.3, 1e-12), (0.012, 5e-324)):
        exact = bound.max_eps0(eps, delta)
        top = bound.privacy_loss().largest(eps, delta)
        assert exact <= top <= exact * (1 + 3e-4)
        assert bound.delta(exact, eps) <= delta


def test_large_population_is_numerically_safe():
    law = BinomialPopulation(2 * 10**8 + 1, 0.5)
    bound = TightClones(law)
    for eps0 in (0.01, 1.0, 15.0):
        eps = bound.epsilon(eps0, 1e-10)
        assert 0 < eps <= eps0 and math.isfinite(eps)
    exact = ExactShuffledRR(PoissonPopulation(1e8), max_blocks=64).epsilon(1.0, 1e-10)
    assert 0 < exact < TightClones(PoissonPopulation(1e8)).epsilon(1.0, 1e-10)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: TightClones("poisson"), "law"),
        (lambda: TightClones(PoissonPopulation(5), dummies=1.5), "dummies"),
        (lambda: TightClones(PoissonPopulation(5), adaptive="yes"), "adaptive"),
        (lambda: TightClones(PoissonPopulation(5)).delta_profile(-1.0, EPS_GRID), "eps0"),
        (lambda: TightClones(PoissonPopulation(5)).max_eps0(0.1, 0.0), "delta"),
        (lambda: ExactShuffledRR(PoissonPopulation(5), max_blocks=0), "max_blocks"),
        (lambda: rr_population_sampler(PoissonPopulation(5), 1.0)(2, 3, np.random.default_rng(0)), "dataset_index"),
    ],
)
def test_bad_input_names_the_parameter(make, message):
    with pytest.raises(ValueError, match=message):
        make()
