"""The server's optimisation (Eqs. (6)-(7)), the baselines and the calculator family."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shufflelib.calculator import QUESTIONS
from shufflelib.calculator.segmented import SegmentedFamily
from shufflelib.segmented.baselines import (
    mm_shuffle,
    sep_mm,
    subexp_local,
    subexp_mse,
    subexp_probabilities,
    subexp_shuffle,
    subexp_total_variation,
)
from shufflelib.segmented.group import item_budget
from shufflelib.segmented.optimize import (
    COMPOSED_RESOLUTIONS,
    blanket_threshold,
    item_curve,
    lambda_grid,
    max_reporting_probability,
    optimize_parameters,
    slots_for,
    user_curve,
)
from shufflelib.segmented.protocol import mse_bound

N, D, S = 5000, 17, 4
DELTA = 0.01 / N


def test_lambda_star_meets_its_constraint_and_is_maximal():
    lam = max_reporting_probability(N, 1.5, D, S, 0.5, DELTA)
    eps1, delta1 = item_budget(0.5, S, DELTA)
    assert item_curve(N, 1.5, D, lam).delta(eps1) <= delta1
    assert item_curve(N, 1.5, D, lam * 1.001).delta(eps1) > delta1


def test_thresholds_decrease_with_the_level_so_the_papers_range_is_reversed():
    m = [blanket_threshold(N, D, S, e, DELTA) for e in (0.5, 1.0, 2.0)]
    assert m[0] > m[1] > m[2]
    assert m == pytest.approx([6.80, 1.95, 0.596], rel=5e-3)  # the digest's reference values
    assert max_reporting_probability(N, m[2] * 1.001, D, S, 2.0, DELTA) == 1.0
    assert max_reporting_probability(N, m[2] * 0.98, D, S, 2.0, DELTA) < 1.0


def test_optimizer_minimises_the_bound_on_its_grid():
    counts = [1250, 2500, 1250]
    opt = optimize_parameters([0.5, 1.0, 2.0], counts, D, S, DELTA, grid_points=8)
    assert opt.bound == pytest.approx(opt.bound_grid.min())
    assert opt.m_grid[0] == pytest.approx(opt.thresholds[-1]) and opt.m_grid[-1] == pytest.approx(opt.thresholds[0])
    lam = np.array(opt.params.lambdas)
    assert opt.bound == pytest.approx(mse_bound(counts, lam, opt.params.m, S))
    grid = lambda_grid([opt.params.m], N, D, S, [0.5, 1.0, 2.0], DELTA)
    assert np.allclose(grid[0], lam)


def test_exact_accounting_needs_small_gamma_at_integer_m():
    paper = max_reporting_probability(N, 2.0, D, S, 0.5, DELTA)
    exact_int = max_reporting_probability(N, 2.0, D, S, 0.5, DELTA, accounting="exact")
    exact_half = max_reporting_probability(N, 2.0, D, S, 0.5, DELTA, accounting="exact", gamma_max=0.5)
    assert exact_int < 0.01
    assert paper > 0.5
    assert exact_half == pytest.approx(paper, rel=2e-3)
    assert slots_for(2.0, 0.5) == 4


def test_certified_bound_exceeds_the_promise_at_integer_m():
    # An upper bound (exact item curve, then group privacy) above the promise: this does not show
    # that the true epsilon exceeds it (tests/test_errata.py shows a true failure with s = 1).
    from shufflelib.segmented.group import GroupCurve

    lam = max_reporting_probability(N, 2.0, D, S, 0.5, DELTA)
    promised = GroupCurve(item_curve(N, 2.0, D, lam), S).epsilon(DELTA)
    certified = GroupCurve(item_curve(N, 2.0, D, lam, accounting="exact"), S).epsilon(DELTA)
    assert promised == pytest.approx(0.5, abs=1e-6)
    assert certified > 1.6 * promised


def test_subexp_reduces_to_randomized_response_and_matches_monte_carlo():
    p_in, p_out = subexp_probabilities(5, 1, 1, 1.0)
    e = math.e
    assert (p_in, p_out) == pytest.approx((e / (e + 4), 1 / (e + 4)))
    assert subexp_total_variation(5, 1, 1, 1.0) == pytest.approx((e - 1) / (e + 4))
    # Monte Carlo of the mechanism with d = 8, s = 2, k = 3 on a fixed population.
    rng = np.random.default_rng(0)
    d, s, k, eps0, n = 8, 2, 3, 1.0, 400
    subsets = np.array([c for c in __import__("itertools").combinations(range(d), k)])
    runs, sq = 3_000, []
    for _ in range(runs):
        x = np.sort(rng.random((n, d)).argsort(axis=1)[:, :s] % d, axis=1)  # uniform 2-sets
        meets = (subsets[None, :, :, None] == x[:, None, None, :]).any(axis=(2, 3))
        w = np.where(meets, math.exp(eps0), 1.0)
        pick = (w.cumsum(axis=1) / w.sum(axis=1, keepdims=True) > rng.random((n, 1))).argmax(axis=1)
        counts = np.bincount(subsets[pick].ravel(), minlength=d)
        p_in, p_out = subexp_probabilities(d, s, k, eps0)
        est = (counts / n - p_out) / (p_in - p_out)
        sq.append(np.sum((est - s / d) ** 2))
    mean, se = np.mean(sq), np.std(sq) / math.sqrt(runs)
    assert abs(mean - subexp_mse(n, d, s, k, eps0, s * s / d)) < 4 * se


def test_baselines_order_and_structure():
    sq = 1.5
    local = subexp_local(N, D, S, 2.0, sq)
    shuffle = subexp_shuffle(N, D, S, 0.5, DELTA, sq, sizes=[1, 2])
    mm = mm_shuffle(N, D, S, 0.5, DELTA, sq)
    assert shuffle.details["eps0"] > 0.5 and mm.mse < shuffle.mse < local.mse
    counts = [1250, 2500, 1250]
    equal = sep_mm(counts, [0.5, 1, 2], D, S, DELTA, sq)
    paper = sep_mm(counts, [0.5, 1, 2], D, S, DELTA, sq, weights="paper")
    best = sep_mm(counts, [0.5, 1, 2], D, S, DELTA, sq, weights="inverse-mse")
    assert best.mse <= paper.mse and best.mse <= equal.mse
    assert equal.details["m"][0] > equal.details["m"][2]
    assert sum(paper.details["weights"]) == pytest.approx(1.0)


def test_calculator_family():
    fam = SegmentedFamily()
    base = {"n": "5000", "m": "2", "d": "17", "s": "4", "lam": "0.5", "slots": None, "group": None}
    eps_paper = fam.ask(QUESTIONS[0], "segmented-thm3", {**base, "delta": "2e-6"})["eps"]
    eps_exact = fam.ask(QUESTIONS[0], "segmented-exact", {**base, "delta": "2e-6"})["eps"]
    assert eps_exact > 1.5 * eps_paper
    eps_slots = fam.ask(QUESTIONS[0], "segmented-exact", {**base, "slots": "4", "delta": "2e-6"})["eps"]
    assert eps_slots < 1.1 * eps_paper
    delta = fam.ask(QUESTIONS[1], "segmented-thm3", {**base, "eps": str(eps_paper)})["delta"]
    assert delta <= 2e-6 * (1 + 1e-6)
    record = fam.ask(QUESTIONS[2], "segmented-thm3", {**base, "eps": "0.5", "delta": "2e-6"})
    assert fam.answer_key(QUESTIONS[2], "segmented-thm3") == "lam"
    assert record["lam"] == max_reporting_probability(5000, 2.0, 17, 4, 0.5, 2e-6)
    with pytest.raises(ValueError, match="slots"):
        fam.ask(QUESTIONS[0], "segmented-thm3", {**base, "slots": "1", "delta": "2e-6"})
    assert [a.flag for a in fam.arguments(QUESTIONS[0])][:5] == ["--n", "--m", "--d", "--s", "--lam"]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: max_reporting_probability(N, 1.0, D, S, -0.5, DELTA), "level_eps"),
        (lambda: max_reporting_probability(N, 1.0, D, S, 0.5, DELTA, accounting="loose"), "accounting"),
        (lambda: max_reporting_probability(N, 1.0, D, S, 0.5, DELTA, group="x"), "group"),
        (lambda: slots_for(1.0, gamma_max=0.0), "gamma_max"),
        (lambda: optimize_parameters([1.0, 0.5], [10, 10], D, S, DELTA), "non-decreasing"),
        (lambda: optimize_parameters([0.5, 1.0], [10], D, S, DELTA), "one entry per level"),
        (lambda: optimize_parameters([0.5], [100], D, S, 1.5), "delta"),
        (lambda: subexp_probabilities(5, 5, 1, 1.0), "s must be"),
        (lambda: subexp_probabilities(5, 1, 0, 1.0), "k must be"),
        (lambda: sep_mm([10, 10], [0.5], D, S, DELTA, 1.0), "one entry per segment"),
        (lambda: sep_mm([10], [0.5], D, S, DELTA, 1.0, weights="x"), "weights"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("n", [30, 100])
def test_composed_rounds_coarser_blocks_stay_above_the_exact_item_curve(n):
    # Coarser blocks of the exact item curve (a composed round's): still an upper bound on the
    # curve computed with one block per count, and not far above it.
    eps = np.linspace(0.05, 2.0, 12)
    exact = user_curve(n, 1.5, 17, 4, 0.5, accounting="exact", resolutions=(None, None)).delta(eps)
    coarse = user_curve(n, 1.5, 17, 4, 0.5, accounting="exact", resolutions=COMPOSED_RESOLUTIONS).delta(eps)
    live = exact > 1e-12
    assert live.sum() >= 6
    assert np.all(coarse[live] >= exact[live] * (1.0 - 1e-9))
    assert np.all(coarse[live] <= 2.0 * exact[live])
