"""Thinned clones: a valid upper bound on shuffled k-RR (checked against the complete search),
equal to its defining pair where the blocks are single points, and the bracket it closes."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom
from threadpoolctl import threadpool_limits

from shufflelib.__main__ import main
from shufflelib.bounds import ExactKRR, StrongerClones, ThinnedClones, TwoPairKRRLowerBound
from shufflelib.bounds.krr_worst_case import krr_probabilities, pair_delta, worst_case_delta
from shufflelib.bounds.thinned_clones import kept_probability


def revealed_pair_delta(n: int, k: int, eps0: float, eps: float) -> float:
    """δ of the pair the bound is defined by, built outright: given ``m = C + 1`` reports (victim
    first), each ``Q0``/``Q1`` (victim: ``Q0`` w.p. ``e^ε0/(e^ε0+1)`` under P, the clones fair
    coins) and kept w.p. ``s`` on ``a`` (``Q0``) or ``b`` (``Q1``); the law of ``(N_a, N_b)`` by
    convolution, the hockey-stick divergence summed over every outcome, averaged over ``C``."""
    p, q = krr_probabilities(k, eps0)
    s = p + q
    alpha = math.exp(eps0) / (math.exp(eps0) + 1.0)
    total = 0.0
    for c in range(n):
        weight = binom.pmf(c, n - 1, 2.0 / (math.exp(eps0) + 1.0))
        clone = np.zeros((c + 2, c + 2))  # law of (N_a, N_b) of the c clones
        clone[0, 0] = 1.0
        for _ in range(c):
            step = (1.0 - s) * clone
            step[1:, :] += s / 2.0 * clone[:-1, :]
            step[:, 1:] += s / 2.0 * clone[:, :-1]
            clone = step

        def with_victim(bias: float, clone: np.ndarray = clone) -> np.ndarray:
            out = (1.0 - s) * clone
            out[1:, :] += s * bias * clone[:-1, :]
            out[:, 1:] += s * (1.0 - bias) * clone[:, :-1]
            return out

        law_p, law_q = with_victim(alpha), with_victim(1.0 - alpha)
        total += weight * np.maximum(law_p - math.exp(eps) * law_q, 0.0).sum()
    return total


@pytest.mark.parametrize(("n", "k", "eps0"), [(2, 3, 1.0), (9, 3, 0.5), (12, 4, 2.0), (15, 7, 1.0), (10, 3, 5.0)])
def test_blocks_are_the_pair_where_exact(n, k, eps0):
    # At these n every block is a single point: the bound is its pair's δ (rounding only).
    bound = ThinnedClones(mechanism="krr", k=k)
    for eps in (0.0, 0.1, 0.4, 0.9 * eps0):
        want = revealed_pair_delta(n, k, eps0, eps)
        got = bound.delta(n, eps0, eps)
        assert want <= got <= want * (1.0 + 1e-8) + 1e-15


@settings(max_examples=40, deadline=None)
@given(
    case=st.sampled_from([(3, 14), (4, 8), (5, 7)]),
    n_share=st.floats(0.0, 1.0),
    eps0=st.floats(0.05, 6.0),
    eps_share=st.floats(0.0, 0.99),
)
def test_never_below_the_exact_worst_case(case, n_share, eps0, eps_share):
    k, n_max = case
    n = 2 + int(n_share * (n_max - 2))
    eps = eps_share * eps0
    exact = worst_case_delta(n, k, eps0, [eps], work_limit=60.0)
    assert ThinnedClones(mechanism="krr", k=k).delta(n, eps0, eps) >= exact.lower[0]


def test_meets_the_worst_case_at_eps_zero():
    # At ε = 0 the bound equals the exact worst case (k = 3, others at the third value): the
    # complete search's worst dataset, to the rounding budgets.
    for n, eps0 in [(10, 1.0), (14, 3.0)]:
        exact = worst_case_delta(n, 3, eps0, [0.0])
        value = ThinnedClones(mechanism="krr", k=3).delta(n, eps0, 0.0)
        assert exact.lower[0] <= value <= exact.delta[0] * (1.0 + 1e-8)  # the core budgets 1e-9 per pmf


def test_k2_is_stronger_clones():
    for n, eps0, eps in [(1000, 1.0, 0.1), (10**6, 3.0, 0.01)]:
        assert ThinnedClones(mechanism="krr", k=2).delta(n, eps0, eps) == StrongerClones(mechanism="krr", k=2).delta(
            n, eps0, eps
        )


@pytest.mark.parametrize("k", [3, 4, 10, 1000])
@pytest.mark.parametrize("n", [100, 10**4, 10**6])
def test_between_the_two_pairs_and_stronger_clones(n, k):
    # two explicit pairs (real datasets) <= thinned clones <= stronger clones (its pair is a
    # post-processing of the stronger-clone pair; the blocks add at most their slack).
    thin, strong = ThinnedClones(mechanism="krr", k=k), StrongerClones(mechanism="krr", k=k)
    lower = TwoPairKRRLowerBound(mechanism="krr", k=k)
    for eps0 in (0.5, 2.0):
        eps = strong.epsilon(n, eps0, 1e-6)
        for e in (eps / 2.0, eps):
            value = thin.delta(n, eps0, e)
            assert lower.delta(n, eps0, e) <= value <= strong.delta(n, eps0, e)


def test_the_bracket_narrows_with_n():
    # The gap to the pair with the others at a third value, in ε at δ = 1e-6 (k = 3, eps0 = 1):
    # measured 4.8e-3 (n = 1e3), 9.3e-4 (1e4), 7.9e-5 (1e6); stronger clones is 14 % above at 1e6.
    gaps = []
    for n in (1000, 10**4, 10**6):
        upper = ThinnedClones(mechanism="krr", k=3).epsilon(n, 1.0, 1e-6)
        lower = TwoPairKRRLowerBound(mechanism="krr", k=3).epsilon(n, 1.0, 1e-6)
        gaps.append(upper / lower - 1.0)
    assert 0.0 <= gaps[2] < gaps[1] < gaps[0] < 0.01
    assert StrongerClones(mechanism="krr", k=3).epsilon(10**6, 1.0, 1e-6) > 1.1 * upper


def test_kept_probability():
    for k, eps0 in [(3, 1.0), (10, 0.1), (10**9, 5.0)]:
        p, q = krr_probabilities(k, eps0)
        assert kept_probability(k, eps0) == pytest.approx(p + q, rel=1e-12)


def test_exact_krr_answers_with_it_beyond_the_search(capsys):
    bound = ExactKRR(mechanism="krr", k=3)
    n = 10**5
    assert not bound.is_exact(n, "epsilon")
    # As the command line computes (one BLAS thread: a threaded dot product sums in another order,
    # which moves δ in its last bits, and the root search's last step with it).
    with threadpool_limits(limits=1, user_api="blas"):
        value = bound.epsilon(n, 1.0, 1e-6)
        assert value == ThinnedClones(mechanism="krr", k=3).epsilon(n, 1.0, 1e-6)
        details = bound.details("epsilon", n, 1.0, 1e-6)
    assert details["lower"] <= details["upper"] == value
    assert "thinned clones" in details["warning"]
    status = main(
        [
            "epsilon",
            "--bound",
            "thinned-clones",
            "--mechanism",
            "krr",
            "--k",
            "3",
            "--n",
            "1e5",
            "--eps0",
            "1",
            "--delta",
            "1e-6",
        ]
    )
    assert status == 0 and float(capsys.readouterr().out.split()[-1]) == value


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(30, 160),
    shares=st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)),
    eps0=st.floats(0.2, 4.0),
    eps_share=st.floats(0.0, 0.8),
)
def test_above_random_datasets_beyond_the_search(n, shares, eps0, eps_share):
    # k = 3 at n beyond the complete search's budget: any dataset's exact δ is below the bound.
    held_a = int(shares[0] * (n - 1))
    held_b = int(shares[1] * (n - 1 - held_a))
    others = (held_a, held_b, n - 1 - held_a - held_b)
    eps = eps_share * eps0
    exact = float(pair_delta(n, 3, eps0, [eps], others)[0])  # upper end of a bracket ~1e-13 wide
    assert exact <= ThinnedClones(mechanism="krr", k=3).delta(n, eps0, eps) * (1.0 + 1e-9)


@pytest.mark.parametrize(("start", "eps0", "eps"), [(700, 1.0, 0.05), (1400, 0.5, 0.05), (2900, 3.0, 0.3)])
def test_monotone_in_n_over_consecutive_n(start, eps0, eps):
    # The block layout moves smoothly with n (fixed block counts): no jump between neighbours
    # (a switch to single-point blocks at a threshold of n once broke this by up to 2 %).
    bound = ThinnedClones(mechanism="krr", k=3)
    values = np.array([bound.delta(n, eps0, eps) for n in range(start, start + 40)])
    assert np.all(np.diff(values) <= 0.0)
