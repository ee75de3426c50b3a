"""The exact worst case of shuffled k-RR (shufflelib.bounds.krr_worst_case, ExactKRR).

References: a literal brute force (every histogram of the others, every ordered pair of
differing values, every output histogram), the two-pair lower bound, and the upper bounds.
Tolerance: the fast search returns the upper end of a numerical bracket whose documented width
is far below 1e-6 relative; we check 1e-7 relative against the brute force (plus 1e-15
absolute where δ is 0).
"""

from __future__ import annotations

import numpy as np
import pytest

from shufflelib.bounds import get_bound
from shufflelib.bounds.exact import ExactKRR, TwoPairKRRLowerBound
from shufflelib.bounds.krr_worst_case import (
    EXACT_RTOL,
    binary_max_eps0_bracket,
    binary_split_deltas,
    brute_force_worst_delta,
    dataset_delta,
    pair_delta,
    worst_case_delta,
    worst_case_epsilon,
    worst_case_epsilon_bracket,
)

EPS = np.array([0.0, 0.1, 0.3, 0.7, 1.5, 2.9])
GRID = [(k, n) for k in (2, 3) for n in (2, 3, 5, 8, 12)] + [(4, n) for n in (2, 3, 5, 8)]


@pytest.mark.parametrize(("k", "n"), GRID)
@pytest.mark.parametrize("eps0", [0.5, 1.5, 3.0])
def test_fast_search_equals_brute_force(k, n, eps0) -> None:
    want = brute_force_worst_delta(n, k, eps0, EPS)
    got = worst_case_delta(n, k, eps0, EPS)
    assert np.all(got.delta >= want - 1e-15) and np.all(got.lower <= want + 1e-15)
    np.testing.assert_allclose(got.delta, want, rtol=1e-7, atol=1e-15)
    # The dataset reported attains the worst case at the last ε.
    np.testing.assert_allclose(pair_delta(n, k, eps0, EPS[-1:], got.others), got.delta[-1:], rtol=1e-7, atol=1e-15)


def test_issue_counterexample_binary_rr_n20() -> None:
    """Nine or ten of the other users holding 1 (n = 20, eps0 = 3, eps = 0): δ = 0.443, two pairs 0.360."""
    split = dataset_delta((10, 9), 2, 3.0, [0.0])[0]
    assert split == pytest.approx(0.44343, abs=1e-5)
    assert TwoPairKRRLowerBound("krr", k=2).delta(20, 3.0, 0.0) == pytest.approx(0.35958, abs=1e-5)
    assert ExactKRR("krr", k=2).delta(20, 3.0, 0.0) == pytest.approx(split, rel=1e-9)


@pytest.mark.parametrize(("n", "eps0", "eps"), [(300, 1.0, 0.1), (3000, 1.0, 0.1), (1000, 3.0, 0.4)])
def test_binary_splits_against_direct_convolution(n, eps0, eps) -> None:
    """Lemma 4's one-tail formula against summing every output count (both orders via the mirror)."""
    up, lo = binary_split_deltas(n, eps0, eps)
    p = np.exp(eps0) / (np.exp(eps0) + 1.0)
    from scipy.stats import binom

    for ha in (0, n // 3, n - 1):
        hb = n - 1 - ha
        d = np.convolve(binom.pmf(np.arange(ha + 1), ha, p), binom.pmf(np.arange(hb + 1), hb, 1 - p))
        law_p, law_q = np.zeros(n + 1), np.zeros(n + 1)
        law_p[1:] += p * d
        law_p[:-1] += (1 - p) * d
        law_q[1:] += (1 - p) * d
        law_q[:-1] += p * d
        want = np.maximum(law_p - np.exp(eps) * law_q, 0.0).sum()
        assert lo[ha] <= want * (1 + 1e-9) and want <= up[ha] * (1 + 1e-9)
        assert up[ha] - lo[ha] <= 1e-7 * want


@pytest.mark.parametrize(
    ("k", "n", "eps0", "delta"), [(2, 50, 1.0, 1e-4), (2, 400, 2.0, 1e-6), (3, 12, 2.0, 1e-3), (4, 7, 3.0, 1e-2)]
)
def test_ordering_audit_two_pairs_exact_upper_bounds(k, n, eps0, delta) -> None:
    """two-pair lower bound <= exact worst case <= every upper bound valid for k-RR."""
    eps, others = worst_case_epsilon(n, k, eps0, delta)
    assert pair_delta(n, k, eps0, [eps], others)[0] <= delta
    assert pair_delta(n, k, eps0, [eps * (1 - 1e-6)], others)[0] > delta  # attained by that dataset
    assert TwoPairKRRLowerBound("krr", k=k).epsilon(n, eps0, delta) <= eps * (1 + 1e-9)
    for name in ("stronger-clones", "thinned-clones", "clones", "blanket-bennett", "blanket-hoeffding"):
        for mechanism in ("krr", "generic"):
            try:
                bound = get_bound(name, mechanism, k if mechanism == "krr" else None)
                upper = bound.epsilon(n, eps0, delta)
            except ValueError:  # mechanism not covered or theorem not applicable
                continue
            assert upper >= eps, (name, mechanism, upper, eps)


def test_exact_bound_answers_and_bracket_beyond_the_search() -> None:
    exact = ExactKRR("krr", k=3)
    eps = exact.epsilon(15, 1.5, 1e-3)
    assert exact.delta(15, 1.5, eps) <= 1e-3 < exact.delta(15, 1.5, eps * (1 - 1e-6))
    assert exact.details("epsilon", 15, 1.5, 1e-3)["exact"] is True
    far = exact.details("epsilon", 10**6, 1.0, 1e-6)
    assert far["exact"] is False and far["lower"] < far["upper"] == exact.epsilon(10**6, 1.0, 1e-6)
    assert "not exact" in far["warning"]
    with pytest.raises(ValueError, match="beyond the exact search"):
        worst_case_delta(10**6, 3, 1.0, [0.1])


def _log_space_split_delta(n: int, eps0: float, eps: float, ha: int) -> float:
    """δ of one binary split by a log-space convolution over every output count (independent code)."""
    from scipy.special import logsumexp
    from scipy.stats import binom

    hb = n - 1 - ha
    p = 1.0 / (1.0 + np.exp(-eps0))
    q = 1.0 - p
    log_x, log_y = binom.logpmf(np.arange(ha + 1), ha, p), binom.logpmf(np.arange(hb + 1), hb, q)
    log_d = np.full(n, -np.inf)
    for x in range(ha + 1):
        log_d[x : x + hb + 1] = np.logaddexp(log_d[x : x + hb + 1], log_x[x] + log_y)
    alpha, beta = p - np.exp(eps) * q, np.exp(eps) * p - q
    if alpha <= 0:
        return 0.0
    first = np.log(alpha) + np.concatenate([[-np.inf], log_d])  # α D(u − 1), u = 0..n
    second = np.log(beta) + np.concatenate([log_d, [-np.inf]])  # β D(u)
    keep = first > second
    return float(np.exp(logsumexp(first[keep] + np.log1p(-np.exp(second[keep] - first[keep])))))


@pytest.mark.parametrize(
    ("n", "eps0", "eps", "ha"),
    [(4345, 6.6302356208725115, 2.7130866899850816, 2795), (1000, 1.0, 0.2, 500), (2000, 3.0, 0.5, 1999)],
)
def test_split_bracket_holds_an_independent_log_space_value(n, eps0, eps, ha) -> None:
    """The first case is where an earlier version returned 5e-59 as the upper end (truth 3.8e-28)."""
    up, lo = binary_split_deltas(n, eps0, eps, np.array([ha]))
    want = _log_space_split_delta(n, eps0, eps, ha)
    assert lo[0] <= want * (1 + 1e-12) and want <= up[0] * (1 + 1e-12)
    assert up[0] - lo[0] <= 1e-6 * want


@pytest.mark.parametrize("seed", range(6))
def test_branch_and_bound_equals_every_split(seed) -> None:
    """Lemma 6's branch and bound finds the maximum of all n splits (and brackets it on a tiny budget)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 4000))
    eps0 = float(rng.uniform(0.05, 6.0))
    eps = float(rng.uniform(0.0, eps0))
    up, lo = binary_split_deltas(n, eps0, eps)
    full = worst_case_delta(n, 2, eps0, [eps], work_limit=100.0)
    assert full.exact or up.max() < 1e-30  # below, the truncated tails set the bracket (module notes)
    assert lo.max() <= full.delta[0] and (not full.exact or full.delta[0] <= up.max() * (1 + 1.1e-6))
    assert full.lower[0] <= up.max() and pair_delta(n, 2, eps0, [eps], full.others)[0] >= full.lower[0]
    quick = worst_case_delta(n, 2, eps0, [eps], work_limit=1e-3)
    assert quick.lower[0] <= up.max() and quick.delta[0] >= lo.max()


@pytest.mark.parametrize(
    ("k", "others", "removed"), [(2, (4, 3), (1, 2)), (2, (0, 9), (0, 4)), (3, (2, 3, 2), (1, 0, 2))]
)
def test_fewer_users_give_a_larger_delta(k, others, removed) -> None:
    """Lemma 6: removing users (the same histogram under both hypotheses) never decreases δ."""
    fewer = tuple(a - b for a, b in zip(others, removed, strict=True))
    assert np.all(dataset_delta(fewer, k, 1.5, EPS) >= dataset_delta(others, k, 1.5, EPS) - 1e-15)


def test_epsilon_bracket_on_a_small_budget_contains_the_exact_value() -> None:
    n, eps0, delta = 3000, 1.0, 1e-6
    exact = worst_case_epsilon_bracket(n, 2, eps0, delta, work_limit=100.0)
    assert exact.exact and exact.upper - exact.lower < 1e-8
    quick = worst_case_epsilon_bracket(n, 2, eps0, delta, work_limit=1e-3)
    assert quick.lower <= exact.upper and exact.lower <= quick.upper
    assert pair_delta(n, 2, eps0, [quick.upper], exact.others)[0] <= delta


def test_epsilon_walk_from_the_two_pairs_answer_finds_the_same_worst_case() -> None:
    """The ε walk may start at the two explicit pairs' ε (at most the exact answer, as ExactKRR
    starts it): the same exact answer as from 0, and that start is the bracket's lower end."""
    n, eps0, delta = 3000, 1.0, 1e-6
    from_zero = worst_case_epsilon_bracket(n, 2, eps0, delta, work_limit=100.0)
    floor = TwoPairKRRLowerBound("krr", k=2).epsilon(n, eps0, delta)
    from_floor = worst_case_epsilon_bracket(n, 2, eps0, delta, work_limit=100.0, floor=floor)
    assert from_zero.exact and from_floor.exact and 0.0 < floor <= from_floor.lower
    assert abs(from_floor.upper - from_zero.upper) <= 1e-8 * from_zero.upper


def test_binary_answers_are_certified_beyond_exactness() -> None:
    """n = 1e6, eps0 = 0.5: a bracket (warning) whose upper end is at most the stronger-clones bound."""
    from shufflelib.bounds.stronger_clones import StrongerClones

    exact, upper = ExactKRR("krr", k=2), StrongerClones("krr", k=2)
    far = exact.details("epsilon", 10**6, 0.5, 1e-6)
    two_pair = TwoPairKRRLowerBound("krr", k=2).epsilon(10**6, 0.5, 1e-6)
    assert not far["exact"]
    assert two_pair <= far["lower"] <= far["upper"] <= upper.epsilon(10**6, 0.5, 1e-6)
    e0 = exact.max_eps0(2000, 0.5, 1e-6)
    assert exact.epsilon(2000, e0, 1e-6) <= 0.5 and e0 >= upper.max_eps0(2000, 0.5, 1e-6)


def test_binary_worst_case_at_a_million_users_is_exact() -> None:
    """n = 1e6, eps0 = 1: the calculator's epsilon is the exact worst case (within its budget),
    between the two explicit pairs and stronger clones, attained by the dataset it reports."""
    from shufflelib.bounds.stronger_clones import StrongerClones

    n, eps0, delta = 10**6, 1.0, 1e-6
    exact = ExactKRR("krr", k=2)
    found = exact.details("epsilon", n, eps0, delta)
    assert found["exact"]
    eps = exact.epsilon(n, eps0, delta)
    two_pair = TwoPairKRRLowerBound("krr", k=2).epsilon(n, eps0, delta)
    assert two_pair <= eps <= StrongerClones("krr", k=2).epsilon(n, eps0, delta)
    others = tuple(found["worst_others"])
    assert pair_delta(n, 2, eps0, [eps * (1.0 - 1e-6)], others)[0] > delta * (1.0 - 2.0 * EXACT_RTOL)


@pytest.mark.parametrize("n", [5, 9, 12])
@pytest.mark.parametrize(("eps", "delta"), [(0.1, 1e-3), (0.5, 0.05)])
def test_binary_eps0_equals_brute_force(n, eps, delta) -> None:
    """The eps0 question's walk against bisection on the literal brute force: the largest eps0
    whose worst case is at most delta (the walk certifies delta (1 - 2e-6): a little below)."""
    lo, hi = eps, 20.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if brute_force_worst_delta(n, 2, mid, [eps])[0] <= delta else (lo, mid)
    exact = ExactKRR("krr", k=2)
    got = exact.max_eps0(n, eps, delta)
    assert exact.details("eps0", n, eps, delta)["exact"]
    assert lo * (1.0 - 1e-5) <= got <= hi


def test_binary_eps0_on_a_small_budget_contains_the_exact_value() -> None:
    from shufflelib.bounds.stronger_clones import StrongerClones

    n, eps, delta = 10**5, 0.01, 1e-6
    floor = StrongerClones("krr", k=2).max_eps0(n, eps, delta)
    ceiling = TwoPairKRRLowerBound("krr", k=2).max_eps0(n, eps, delta)
    quick = binary_max_eps0_bracket(n, eps, delta, 0.02, floor=floor, ceiling=ceiling)
    full = binary_max_eps0_bracket(n, eps, delta, floor=floor, ceiling=ceiling)
    assert full.exact and not quick.exact
    assert floor <= quick.lower <= full.lower <= full.upper <= quick.upper <= ceiling
    assert full.upper <= full.lower * (1.0 + 1e-5)


def test_binary_eps0_at_a_million_users_is_exact() -> None:
    """n = 1e6: the eps0 question at the exact worst-case epsilon of eps0 = 1 answers (almost) 1,
    exactly, and the round trip holds."""
    n, delta = 10**6, 1e-6
    exact = ExactKRR("krr", k=2)
    eps = exact.epsilon(n, 1.0, delta)
    eps0 = exact.max_eps0(n, eps, delta)
    assert exact.details("eps0", n, eps, delta)["exact"]
    assert 1.0 - 2e-5 <= eps0 <= 1.0 + 1e-9
    assert exact.epsilon(n, eps0, delta) <= eps


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="others must"):
        pair_delta(5, 3, 1.0, [0.1], (1, 1, 1))
    with pytest.raises(ValueError, match="eps0"):
        worst_case_delta(5, 2, -1.0, [0.1])
    with pytest.raises(ValueError, match="work_limit"):
        ExactKRR("krr", k=2, work_limit=0)
