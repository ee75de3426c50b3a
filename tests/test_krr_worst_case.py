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
    binary_split_deltas,
    brute_force_worst_delta,
    dataset_delta,
    pair_delta,
    worst_case_delta,
    worst_case_epsilon,
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
    for name in ("stronger-clones", "clones", "blanket-bennett", "blanket-hoeffding"):
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


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="others must"):
        pair_delta(5, 3, 1.0, [0.1], (1, 1, 1))
    with pytest.raises(ValueError, match="eps0"):
        worst_case_delta(5, 2, -1.0, [0.1])
    with pytest.raises(ValueError, match="work_limit"):
        ExactKRR("krr", k=2, work_limit=0)
