"""Composition of bounds that are only a privacy profile, and --compose in every calculator family."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from shufflelib.__main__ import main
from shufflelib.bounds import (
    BlanketBennett,
    BlanketHoeffding,
    ClonesClosedForm,
    ErlingssonBound,
    ExactKRR,
    NotApplicableError,
    StrongerClones,
)
from shufflelib.bounds.exact import binary_pair_log_pmfs
from shufflelib.bounds.krr_worst_case import worst_case_epsilon_bracket
from shufflelib.composition import (
    bound_model,
    compose_bound,
    largest_composed,
    route,
)
from shufflelib.composition.model import composed_epsilon
from shufflelib.composition.pld import compose
from shufflelib.composition.profile import PROFILE_POINTS, profile_end, profile_pld, sampled_profile_pld
from shufflelib.curves import DominatingPair

# ---------------------------------------------------------------- the construction


def test_two_guarantees_of_randomized_response_give_randomized_response_back():
    eps0 = 1.0
    ld = profile_pld(np.array([0.0, eps0]), np.array([math.tanh(eps0 / 2), 0.0]), step=0.25)
    p = math.e / (1 + math.e)
    assert ld.mass[0] == pytest.approx(1 - p, rel=1e-12) and ld.mass[-1] == pytest.approx(p, rel=1e-12)
    assert ld.inf_mass == 0.0 and ld.mass.sum() == pytest.approx(1.0, abs=1e-12)
    rr = DominatingPair(np.log([p, 1 - p]), np.log([1 - p, p]))
    for e in (0.0, 0.3, 0.7):
        assert ld.delta(e) == pytest.approx(float(rr.delta(e)), rel=1e-9)


def test_one_guarantee_gives_the_canonical_pair_of_approximate_dp():
    # (eps, delta)-DP alone: mass delta at +inf, (1 - delta) e^eps / (1 + e^eps) at eps and
    # (1 - delta) / (1 + e^eps) at -eps (Kairouz, Oh, Viswanath; dp_accounting's
    # from_privacy_parameters builds the same distribution).
    eps, delta = 0.7, 1e-3
    ld = profile_pld(np.array([eps]), np.array([delta]), step=0.1)
    e = math.exp(eps)
    assert ld.inf_mass == pytest.approx(delta, rel=1e-12)
    assert ld.mass[-1] == pytest.approx((1 - delta) * e / (1 + e), rel=1e-12)
    assert ld.mass[0] == pytest.approx((1 - delta) / (1 + e), rel=1e-12)
    assert ld.mass[1:-1].sum() == pytest.approx(0.0, abs=1e-15)


def test_a_non_convex_profile_is_replaced_by_its_hull_and_never_undershoots():
    # (eps, delta) points of a profile that is not convex in e^eps (a loose bound in the middle):
    # the pair keeps every guarantee (delta <= given at each point) and has nonnegative masses.
    eps = np.array([0.0, 0.1, 0.2, 0.3, 0.6])
    delta = np.array([0.3, 0.2, 0.19, 0.05, 0.0])
    ld = profile_pld(eps, delta, step=0.05)
    assert np.all(ld.mass >= 0) and ld.mass.sum() == pytest.approx(1.0, abs=1e-12)
    for e, d in zip(eps, delta, strict=True):
        assert ld.delta(e) <= d * (1 + 1e-12) + 1e-15
    assert ld.delta(0.2) < 0.19  # the hull is strictly below the loose point


def test_a_profile_that_never_reaches_zero_has_an_infinite_loss_atom():
    ld = profile_pld(np.array([0.0, 0.5, 1.0]), np.array([0.2, 0.05, 0.01]), step=0.1)
    assert ld.inf_mass == pytest.approx(0.01, rel=1e-9)
    assert ld.delta(5.0) == pytest.approx(0.01, rel=1e-9)


def test_losses_are_rounded_up_to_the_grid():
    ld = profile_pld(np.array([0.0, 0.33]), np.array([0.2, 0.0]), step=0.1)
    assert ld.losses[ld.mass > 0].max() == pytest.approx(0.4)


def test_bad_profile_points_are_rejected():
    with pytest.raises(ValueError, match="delta"):
        profile_pld(np.array([0.0, 1.0]), np.array([0.5, 1.5]), 0.1)
    with pytest.raises(ValueError, match="eps"):
        profile_pld(np.array([0.0, -1.0]), np.array([0.5, 0.1]), 0.1)
    with pytest.raises(ValueError, match="equal length"):
        profile_pld(np.array([0.0, 1.0]), np.array([0.5]), 0.1)
    with pytest.raises(ValueError, match="eps_max"):
        profile_pld(np.array([0.0, 1.0]), np.array([0.5, 0.1]), 0.1, eps_max=0.5)


# ---------------------------------------------------------------- one round: never below the bound

N, EPS0 = 10_000, 0.4
PROFILE_BOUNDS = [ErlingssonBound(), BlanketHoeffding(), BlanketBennett(), ClonesClosedForm()]


def _implied_delta(eps_points, delta_points, eps):
    """δ at ``eps`` implied by the guarantees ``(ε_i, δ_i)`` (Dong, Roth, Su), computed
    independently of the library: the lower convex hull (qhull) of the points ``(e^{ε_i}, δ_i)``,
    the total-variation caps ``(1, δ_i + (1 − δ_i) tanh(ε_i/2))`` and a far point at ``min δ``."""
    from scipy.spatial import ConvexHull

    e, d = np.asarray(eps_points, dtype=float), np.minimum.accumulate(np.asarray(delta_points, dtype=float))
    x = np.concatenate([np.exp(e), np.ones(e.size), [1e6]])
    y = np.concatenate([d, d + (1 - d) * np.tanh(e / 2), [d.min()]])
    hull = ConvexHull(np.column_stack([x, y]))
    g = math.exp(eps)
    lower = [float(y[x == g].min())] if np.any(x == g) else []
    for a, b in hull.simplices:  # the lowest hull edge above g is the lower hull there
        (xa, ya), (xb, yb) = (x[a], y[a]), (x[b], y[b])
        if xa != xb and min(xa, xb) <= g <= max(xa, xb):
            lower.append(ya + (yb - ya) * (g - xa) / (xb - xa))
    return min(lower)


@pytest.mark.parametrize("bound", PROFILE_BOUNDS, ids=lambda b: b.name)
def test_one_round_through_the_profile_is_the_bound_within_the_grid_spacing(bound):
    model = bound_model(bound, N)
    assert model.route == "profile"
    step = model.step(EPS0, 1)
    (ld,) = model.build(EPS0, step, False)

    def profile(e):
        return np.array([bound.delta(N, EPS0, float(x)) for x in e])

    end = profile_end(profile, EPS0)
    spacing = step * max(1, math.ceil(end / (PROFILE_POINTS * step)))
    # δ keeps every guarantee of the bound and is never below what the guarantees imply (the
    # hull can be below the bound itself where its profile is not convex in e^ε: e.g. δ = 1
    # where a theorem does not apply, at small ε).
    dense = np.union1d(np.linspace(0.0, EPS0, 401), spacing * np.arange(math.ceil(end / spacing) + 1))
    dense = dense[dense <= EPS0]  # with the cap: the bound is EPS0-DP
    values = profile(dense)
    for e in np.linspace(0.0, EPS0, 17):
        assert _implied_delta(dense, values, e) - 1e-9 <= ld.delta(float(e))
        assert ld.delta(float(e)) <= bound.delta(N, EPS0, float(e)) + spacing * math.exp(EPS0)
    for d in (1e-3, 1e-6, 1e-9):
        single = bound.epsilon(N, EPS0, d)
        composed = compose_bound(bound, N, EPS0, 1).epsilon(d)
        assert single * (1 - 1e-9) - 1e-12 <= composed <= single + spacing + 1e-9


def test_a_profile_resting_on_a_floor_of_its_own_below_its_cap_ends_where_it_reaches_it(capsys):
    """A numerical profile that levels off at about 2e-30 (a bound's neglected tails) and is 0 only at
    its cap ends where it comes within the tail of that floor, not at the cap: the sampled grid
    then spends its points on the profile's slope. A profile decaying to 0 ends as before."""
    cap = 7.65

    def resting(e):
        e = np.asarray(e, dtype=float)
        return np.where(e >= cap, 0.0, np.maximum(np.exp(-200.0 * e * e), 2.03e-30))

    end = profile_end(resting, cap)
    assert math.sqrt(math.log(1 / 3.03e-30) / 200.0) <= end < 0.6  # exp(-200 e^2) = floor + tail

    def floored(level):
        return lambda e: np.where(np.asarray(e) >= cap, 0.0, np.maximum(np.exp(-200.0 * np.asarray(e) ** 2), level))

    assert profile_end(floored(0.0), cap) < 0.6
    # A floor far above the tail is a real part of the profile: the grid still runs to the cap.
    assert profile_end(floored(1e-25), cap) > 0.6 * cap
    # The personalized bound whose composed ε once jumped by 4 % at top level 7.65 (the grid ran to
    # the cap): smooth in the level now, and tighter.
    head = ["epsilon", "--bound", "pers-liu24", "--randomizer", "rr", "--counts", "6000,3000,1000"]
    answers = []
    for top in (7.6, 7.65, 7.7):
        levels = ",".join(repr(top * f) for f in (0.25, 0.5, 1.0))
        answer, _ = _run(capsys, [*head, "--eps0", levels, "--delta", "1e-6", "--compose", "2", "--json"])
        answers.append(answer["eps"])
    assert answers[0] <= answers[1] * (1 + 1e-3) and answers[1] <= answers[2] * (1 + 1e-3)
    assert answers[1] < 0.29  # 0.3066 when the grid ran to the cap


def test_one_round_of_the_exact_krr_worst_case_through_its_profile():
    bound = ExactKRR(mechanism="krr", k=2)
    assert route(bound, 30) == "profile" and route(bound, 10**6) == "pair"
    curve = compose_bound(bound, 30, 1.0, 1)
    for e in (0.0, 0.2, 0.5):
        assert curve.delta(e) >= bound.delta(30, 1.0, e) * (1 - 1e-12)
    single = bound.epsilon(30, 1.0, 1e-3)
    # the exact single-round ε lies in [lower, single] (certified bracket of the search)
    lower = worst_case_epsilon_bracket(30, 2, 1.0, 1e-3).lower
    assert lower <= curve.epsilon(1e-3) <= single + 1.0 / PROFILE_POINTS + 1e-9


# ---------------------------------------------------------------- profile route vs pair route


@pytest.mark.parametrize("rounds", [1, 10, 100])
def test_profile_route_is_never_below_the_exact_pair_route_for_stronger_clones(rounds):
    """The pair built from the clone pair's own profile is dominated by it: composed, it may not
    beat the exact composition of the pair, i.e. the pair route minus its discretization error."""
    sc = StrongerClones(mechanism="krr", k=2)
    pair = compose_bound(sc, N, 1.0, rounds)
    step = pair.distributions[0].step

    def profile(e):
        return np.array([sc.delta(N, 1.0, float(x)) for x in e])

    (ld,) = (sampled_profile_pld(profile, step, eps_max=1.0),)
    via_profile = compose([(ld, rounds)])
    for d in (1e-4, 1e-8):
        e_pair = pair.epsilon(d)
        e_profile = via_profile.epsilon(d)
        assert e_profile >= e_pair - pair.discretization_error
        assert e_profile <= e_pair * 1.02  # and loses little (measured in the book)


# ---------------------------------------------------------------- exact composition at tiny n


def _exact_composed_delta(log_p, log_q, rounds, eps):
    """δ of the product of ``rounds`` copies, by enumerating the product's atoms."""
    p, q = np.exp(log_p), np.exp(log_q)
    total = 0.0
    for idx in itertools.product(range(p.size), repeat=rounds):
        pp = math.prod(p[i] for i in idx)
        qq = math.prod(q[i] for i in idx)
        total += max(pp - math.exp(eps) * qq, 0.0)
    return total


@pytest.mark.parametrize("bound", [BlanketHoeffding(mechanism="krr", k=2), ExactKRR(mechanism="krr", k=2)])
def test_an_exact_composition_of_a_real_pair_stays_below_the_composed_profile(bound):
    n, eps0, rounds = 4, 1.5, 3
    log_x0, log_x1 = binary_pair_log_pmfs(n, eps0)  # the others hold 0; user 1 holds 0 or 1
    curve = compose_bound(bound, n, eps0, rounds)
    for eps in (0.0, 0.5, 1.5, 3.0):
        exact = max(
            _exact_composed_delta(log_x0, log_x1, rounds, eps), _exact_composed_delta(log_x1, log_x0, rounds, eps)
        )
        assert exact <= curve.delta(eps) * (1 + 1e-9) + 1e-15


@pytest.mark.parametrize("bound", PROFILE_BOUNDS, ids=lambda b: b.name)
def test_composed_epsilon_grows_with_the_rounds(bound):
    model = bound_model(bound, N)
    values = [composed_epsilon(model, 0.2, t, 1e-6)["eps"] for t in (1, 4, 16)]
    assert values[0] < values[1] < values[2]
    assert values[2] < 16 * values[0]  # and slower than naive composition


def test_the_eps0_question_is_checked_and_below_one_round():
    model = bound_model(BlanketBennett(), N)
    e0 = largest_composed(model, 20, 1.0, 1e-6)
    assert model.curve(e0, 20, delta=1e-6).epsilon(1e-6) <= 1.0
    assert model.curve(e0 * 1.01, 20).epsilon(1e-6) > 1.0  # and it is close to the largest
    assert e0 < BlanketBennett().max_eps0(N, 1.0, 1e-6)


def test_the_eps0_question_is_refused_when_one_round_only_reaches_at_the_smallest_eps0():
    # One round reaches (1e-6, 5e-324) only at the box's smallest eps0, two rounds nowhere: a
    # refusal (the search once looped for ever on a NaN here).
    assert BlanketBennett().max_eps0(2, 1e-6, 5e-324) == 1e-6
    with pytest.raises(NotApplicableError, match="no local parameter"):
        largest_composed(bound_model(BlanketBennett(), 2), 2, 1e-6, 5e-324)


# ---------------------------------------------------------------- the calculator

COMMANDS = [
    ["--bound", "erlingsson", "--n", "10000"],
    ["--bound", "blanket-hoeffding", "--n", "10000"],
    ["--bound", "blanket-bennett", "--n", "10000"],
    ["--bound", "clones-closed", "--n", "10000"],
    ["--bound", "exact-krr", "--n", "20"],
    ["--bound", "exact-krr", "--n", "10000"],
    ["--bound", "pers-clones", "--randomizer", "rr", "--counts", "5000,5000"],
    ["--bound", "pop-tight", "--population", "poisson:5000"],
    ["--bound", "pop-binomial", "--population", "binomial:48842,0.2"],
]
FIRST = {"pers-clones": ["--eps0", "0.2,0.4"]}


def _run(capsys, argv):
    status = main(argv)
    out = capsys.readouterr()
    assert status == 0, out.err
    return json.loads(out.out), out.err


@pytest.mark.parametrize("family", COMMANDS, ids=lambda c: f"{c[1]}-{c[3]}")
def test_every_family_answers_the_three_questions_composed(family, capsys):
    name = family[1]
    local = FIRST.get(name, ["--eps0", "0.4"])
    base = [*family, "--json"]
    one, _ = _run(capsys, ["epsilon", *base, *local, "--delta", "1e-6"])
    eps, _ = _run(capsys, ["epsilon", *base, *local, "--delta", "1e-6", "--compose", "5"])
    assert eps["compose"] == 5 and eps["route"] in ("pair", "profile")
    # Never above naive composition, up to a profile's discretization (5 rounds of a step <= 1e-4).
    assert one["eps"] < eps["eps"] <= eps["baselines"]["naive"] * (1 + 1e-9) + 5e-4
    delta, _ = _run(capsys, ["delta", *base, *local, "--eps", str(eps["eps"]), "--compose", "5"])
    assert delta["delta"] <= 1e-6 * (1 + 1e-6)
    target = ["--eps", "1", "--delta", "1e-6", *(local if name in FIRST else [])]  # the levels' shape
    single, _ = _run(capsys, ["eps0", *base, *target])
    answer, _ = _run(capsys, ["eps0", *base, *target, "--compose", "5"])
    assert 0 < answer["eps0"] <= single["eps0"]


def test_segmented_answers_composed_with_the_reporting_probability(capsys):
    base = ["--bound", "segmented-exact", "--n", "5000", "--m", "1.5", "--d", "17", "--s", "4", "--json"]
    eps, _ = _run(capsys, ["epsilon", *base, "--lam", "0.5", "--delta", "2e-6", "--compose", "3"])
    one, _ = _run(capsys, ["epsilon", *base, "--lam", "0.5", "--delta", "2e-6"])
    assert one["eps"] < eps["eps"]
    lam, _ = _run(capsys, ["eps0", *base, "--eps", "1", "--delta", "2e-6", "--compose", "3"])
    assert 0 < lam["lam"] <= 1.0 and lam["route"] == "profile"


def test_exact_krr_beyond_its_search_composes_the_bracket_upper_end_and_says_so(capsys):
    argv = ["epsilon", "--bound", "exact-krr", "--n", "100000", "--eps0", "1", "--delta", "1e-6", "--json"]
    record, err = _run(capsys, [*argv, "--compose", "10"])
    assert record["route"] == "pair" and "stronger-clone pair, which dominates" in record["note"]
    assert err == ""  # a note, not a warning: stderr carries only warnings about validity
    sc, _ = _run(capsys, [*argv[:2], "stronger-clones", *argv[3:], "--compose", "10"])
    assert record["eps"] == sc["eps"]
    # k = 3: the stronger-clone pair and blanket Bennett's profile (both valid for 3-RR) compose,
    # the tighter answers, and the note says which.
    k3 = ["--mechanism", "krr", "--k", "3", *argv[3:], "--compose", "10"]
    thin, err = _run(capsys, [*argv[:2], "thinned-clones", *k3])
    sc3, _ = _run(capsys, [*argv[:2], "stronger-clones", *k3])
    bennett, _ = _run(capsys, [*argv[:2], "blanket-bennett", *k3])
    assert thin["eps"] == min(sc3["eps"], bennett["eps"]) and thin["note"] and err == ""


def test_composition_keeps_the_order_of_the_ordering_question(capsys):
    # Issue 29: one round of thinned clones is below blanket Bennett at every eps; two rounds were
    # above it (the stronger-clone pair, looser than both, was composed). benchmarks/ordering_check.py
    # composes an explicit pair of these datasets independently: 0.013875, below both.
    head = ["epsilon", "--mechanism", "krr", "--k", "3", "--n", "59929", "--eps0", "0.5052572085829723"]
    tail = ["--delta", "7.889389925440744e-12", "--compose", "2", "--json"]
    answers = {b: _run(capsys, [head[0], "--bound", b, *head[1:], *tail])[0]["eps"] for b in BOUNDS_ORDERED}
    assert answers["thinned-clones"] <= answers["blanket-bennett"] <= answers["stronger-clones"]
    assert answers["exact-krr"] <= answers["blanket-bennett"]
    assert answers["thinned-clones"] >= 0.013875  # the explicit pair's two-round ε


BOUNDS_ORDERED = ("thinned-clones", "exact-krr", "blanket-bennett", "stronger-clones")


@pytest.mark.parametrize(
    "argv",
    [
        ["epsilon", "--bound", "variation-ratio", "--n", "10000", "--eps0", "1", "--delta", "1e-6"],
        ["epsilon", "--bound", "pers-liu24-pair", "--randomizer", "laplace", "--eps0", "0.5,1"]
        + ["--counts", "5000,5000", "--delta", "1e-6"],
        ["delta", "--bound", "segmented-thm3", "--n", "5000", "--m", "2", "--d", "17", "--s", "4"]
        + ["--lam", "0.5", "--eps", "0.5"],
    ],
    ids=["variation-ratio", "pers-liu24-pair", "segmented-thm3"],
)
def test_unsound_bounds_keep_their_warning_when_composed(argv, capsys):
    record, err = _run(capsys, [*argv, "--compose", "3", "--json"])
    assert record["sound"] is False and record["warning"]
    assert f"warning: {record['warning'][:40]}" in err


@pytest.mark.parametrize("value", ["0", "-1", "2.5", "1e9", "many"])
@pytest.mark.parametrize(
    "argv",
    [
        ["epsilon", "--bound", "blanket-bennett", "--n", "1000", "--eps0", "1", "--delta", "1e-6"],
        ["epsilon", "--bound", "pers-clones", "--randomizer", "rr", "--eps0", "1", "--counts", "100"]
        + ["--delta", "1e-6"],
        ["eps0", "--bound", "pop-tight", "--population", "poisson:100", "--eps", "1", "--delta", "1e-6"],
        ["delta", "--bound", "segmented-exact", "--n", "500", "--m", "2", "--d", "17", "--s", "4"]
        + ["--lam", "0.5", "--eps", "1"],
    ],
    ids=["uniform", "personalized", "population", "segmented"],
)
def test_bad_rounds_are_a_clear_error_in_every_family(argv, value, capsys):
    assert main([*argv, "--compose", value]) == 2
    assert "--compose must be an integer in [1, 10000]" in capsys.readouterr().err


def test_a_lower_bound_without_a_pair_is_refused(capsys):
    argv = ["epsilon", "--bound", "pop-exact-rr", "--population", "poisson:100", "--eps0", "1", "--delta", "1e-6"]
    assert main([*argv, "--compose", "2"]) == 2
    assert "lower bound" in capsys.readouterr().err
