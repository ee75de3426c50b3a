"""The composed ε₀ search's budget is counted on a work meter, not a clock (issue 29): a budget-cut
answer is the same under any load, and stays certified."""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import replace

import pytest

from shufflelib.bounds import BlanketBennett, ClonesNumerical, NotApplicableError, StrongerClones
from shufflelib.composition import bound_model, compose_bound, composed_epsilon, largest_composed, loss_model
from shufflelib.composition import model as model_module
from shufflelib.composition.model import METER, GridTooFine
from shufflelib.population.laws import PoissonPopulation
from shufflelib.population.tight import TightClones


def _slow_clock(monkeypatch) -> None:
    """Every clock of ``time`` jumps by a second at each reading (a machine under heavy load)."""
    ticks = itertools.count()
    for name in ("process_time", "perf_counter", "thread_time", "monotonic", "time"):
        monkeypatch.setattr(time, name, lambda: float(next(ticks)))


@pytest.mark.parametrize(
    ("bound", "n", "rounds", "eps", "delta", "budget"),
    [
        (StrongerClones(mechanism="krr", k=2), 10_000, 10, 1.0, 1e-6, 0.01),  # pair: a two-stage search
        (BlanketBennett(mechanism="krr", k=3), 100_000, 20, 0.5, 1e-8, 0.01),  # profile
    ],
)
def test_budget_cut_answer_does_not_depend_on_load(monkeypatch, bound, n, rounds, eps, delta, budget):
    model = bound_model(bound, n)
    first: dict = {}
    start = METER.seconds
    answer = largest_composed(model, rounds, eps, delta, budget=budget, info=first)
    spent = METER.seconds - start
    assert first and first["exact"] is False  # the budget cut the search (else this tests nothing)
    # Certified: its composed ε was checked (the safe end of the bracket).
    assert model.curve(answer, rounds, delta=delta).epsilon(delta) <= eps
    assert first["lower"] == answer and (first["upper"] is None or first["upper"] > answer)
    # The same question again, on a fresh model, with every clock running a second per reading.
    _slow_clock(monkeypatch)
    again: dict = {}
    start = METER.seconds
    assert largest_composed(bound_model(bound, n), rounds, eps, delta, budget=budget, info=again) == answer
    assert again == first
    assert METER.seconds - start == pytest.approx(spent, rel=1e-12)  # the same work, counted the same


def test_candidate_under_way_stops_at_twice_the_budget():
    """No candidate is begun past the budget, and the one under way stops at twice it: the meter
    never runs further than that (plus one build, counted after it is built)."""
    model = bound_model(StrongerClones(mechanism="krr", k=2), 10**6)
    start = METER.seconds
    info: dict = {}
    largest_composed(model, 1000, 1.0, 1e-10, budget=0.02, info=info)
    assert info["exact"] is False
    assert METER.seconds - start <= 2 * 0.02 + 0.1


# The shortcuts that keep the composed corners within 2 s (issue 29) skip work whose result is known.


def _counting(model):
    """``model`` with its ``build`` counted (``calls``: the grids built, in order)."""
    calls: list[float] = []

    def build(x, step, coarse=False):
        calls.append(step)
        return model.build(x, step, coarse)

    return replace(model, build=build), calls


def test_a_model_builds_a_grid_once():
    """A δ question fits the ε question's grid too, which often starts from the same default grid."""
    model, calls = _counting(bound_model(StrongerClones(mechanism="krr", k=2), 10_000))
    first = model.fitted(1.0, 10, delta=1e-6)[1]
    again = model.fitted(1.0, 10, delta=1e-6)[1]
    assert len(calls) == 1 and first.step == again.step == calls[0]
    assert first.epsilon(1e-6) == again.epsilon(1e-6)
    assert replace(model)._builds == {}  # a copy (perhaps another build function) remembers nothing


def test_a_grid_finer_than_the_caller_can_use_is_refused_before_it_is_composed():
    model = bound_model(StrongerClones(mechanism="krr", k=2), 10_000)
    single, curve = model.fitted(1.0, 10, delta=1e-6)
    assert curve.refused_step == 0.0  # the default grid fits
    before = METER.seconds
    with pytest.raises(GridTooFine):
        model.fitted(1.0, 10, delta=1e-6, coarser_than=2 * curve.step)
    assert METER.seconds == before  # nothing composed (the grid was built already)
    assert model.fitted(1.0, 10, delta=1e-6, coarser_than=curve.step / 2)[1].step == curve.step


def test_an_eps0_search_that_cannot_build_one_candidate_stops_before_building(monkeypatch):
    """A costly profile (a personalized bound at 10⁹ users: about 1.4 estimated seconds a build)
    against a budget of 0.6: the first candidate would stop at twice the budget, after its build."""
    model, calls = _counting(bound_model(BlanketBennett(mechanism="krr", k=3), 100_000))
    model = replace(model, build_seconds=2.0, largest=lambda eps, delta: pytest.fail("searched"))
    # T rounds of an ε₀-LDP protocol are T ε₀-DP: the search's fallback answer, with its bracket.
    info: dict = {}
    assert largest_composed(model, 100, 1.0, 1e-6, budget=0.6, info=info) == 1.0 / 100 * (1 - 1e-12)
    assert info["exact"] is False
    with pytest.raises(NotApplicableError, match="within the search's budget"):  # without a cap: refused
        largest_composed(replace(model, cap=lambda x: None), 100, 1.0, 1e-6, budget=0.6)
    assert calls == []


def test_a_bracket_reads_the_finer_companion_only_when_its_composition_is_small(monkeypatch):
    curve = compose_bound(StrongerClones(mechanism="krr", k=2), 10_000, 1.0, rounds=10)
    assert len(curve.companions) == 2
    both = curve.bracket(1e-6)
    monkeypatch.setattr(model_module, "COMPANION_POINTS", 0)  # every companion but the first is too large
    first = curve.bracket(1e-6)
    assert first[1] == both[1] == curve.epsilon(1e-6)
    assert first[0] == curve._epsilon_of(0, 1e-6) <= both[0] == max(first[0], curve._epsilon_of(1, 1e-6))
    assert first[0] <= first[1]  # still a bracket (companion 0 lies below the curve)


def test_a_subsampled_round_counts_the_atoms_of_the_pairs_inside_its_profile(monkeypatch):
    """The clone pairs a subsampled round builds inside its profile (one per group of participant
    counts) are most of an ε₀ search's candidate (clones, 10⁶ users at rate 0.1: about 1.8 s on the
    CI machine, which the meter once counted as 0.025 s): the meter counts their atoms."""
    listed: list[int] = []
    monkeypatch.setattr(METER, "listed", listed.append)
    bound_model(ClonesNumerical(), 100_000, sample_rate=0.1).curve(1.0, 10, delta=1e-6)
    assert len(listed) >= 2 and min(listed) > 10_000


@pytest.mark.parametrize(
    "model",
    [
        lambda: bound_model(StrongerClones(mechanism="krr", k=2), 10**6),  # a clone pair's round
        lambda: loss_model(TightClones(PoissonPopulation(10**6)).privacy_loss()),  # a population's
    ],
)
def test_a_pairs_round_counts_the_atoms_it_lists(monkeypatch, model):
    """The atoms of a clone pair's or a population's round are listed before they reach the grid, and
    were most of a candidate's work (stronger clones, 10⁶ users, T = 100: 0.21–0.34 s on the CI
    machine against 0.021 counted from the grid): the meter counts the atoms of every build, listed
    or remembered (``test_budget_cut_answer_does_not_depend_on_load`` asks twice)."""
    listed: list[int] = []
    monkeypatch.setattr(METER, "listed", listed.append)
    model().curve(1.0, 100, delta=1e-6)
    assert listed and min(listed) > 10_000


def test_an_eps0_search_starts_at_the_gaussian_estimate_and_answers_the_same_sooner():
    """With a round's scale (about its loss's standard deviation), the composed ε₀ search starts where
    T rounds of Gaussian DP reach the target (stronger clones, 10⁹ users, T = 10⁴: the first
    candidate's ε within 1 % of the target, three candidates against seven); below
    ``GAUSSIAN_START_DELTA`` the estimate is not used."""
    full = bound_model(StrongerClones(mechanism="krr", k=2), 10**9)
    answers = {}
    for rounds, eps, delta in [(10_000, 1.0, 1e-6), (10, 0.1, 1e-12), (100, 1.0, 1e-10)]:
        for scaled in (True, False):
            model, calls = _counting(full if scaled else replace(full, scale=None))
            answer = largest_composed(model, rounds, eps, delta, budget=math.inf)
            assert model.curve(answer, rounds, delta=delta).epsilon(delta) <= eps  # certified
            answers[scaled] = answer, len(calls)
        (with_scale, fewer), (without, more) = answers[True], answers[False]
        assert with_scale == pytest.approx(without, rel=2e-3)  # each within rtol = 1e-3 of the root
        assert fewer < more
    tiny = model_module.GAUSSIAN_START_DELTA / 10
    assert largest_composed(full, 10, 1.0, tiny) == largest_composed(replace(full, scale=None), 10, 1.0, tiny)


def test_a_profile_search_aims_past_the_root_and_closes_its_bracket_sooner(monkeypatch):
    """Secant steps on a convex ε(ε₀) approach the root from above; aimed a little past it, the
    search certifies a point sooner (clones, 10⁴ users at rate 0.5, T = 100: eight candidates
    before, the first certified at the last)."""
    original = model_module.RoundModel.fitted

    def candidates(aim: float) -> tuple[float, list[float]]:
        monkeypatch.setattr(model_module, "AIM_PAST", aim)
        seen: list[float] = []

        def fitted(self, x, rounds, *args, **kwargs):
            single, composed = original(self, x, rounds, *args, **kwargs)
            seen.append(composed.epsilon(1e-8))
            return single, composed

        monkeypatch.setattr(model_module.RoundModel, "fitted", fitted)
        model = bound_model(ClonesNumerical(), 10_000, sample_rate=0.5)
        return largest_composed(model, 100, 0.5, 1e-8, budget=math.inf), seen

    aimed, seen = candidates(model_module.AIM_PAST)
    straight, seen_straight = candidates(0.0)
    assert len(seen) < len(seen_straight)
    first_good = next(i for i, e in enumerate(seen) if e <= 0.5)
    assert first_good < next(i for i, e in enumerate(seen_straight) if e <= 0.5)
    assert aimed == pytest.approx(straight, rel=2e-3)


def test_an_eps0_search_reads_renyi_dp_where_the_pld_stops_at_a_tiny_delta():
    """At δ = 5e-324 the PLD's truncated tails leave it only the pure-DP end ε/T, where the ε question
    answers with Rényi DP (stronger clones, 10⁴ users, T = 10⁴: ε₀ 1e-4 before, about 0.026 now):
    the search reads the same ε as the ε question, so its answer is certified by that question."""
    model = bound_model(StrongerClones(mechanism="krr", k=2), 10_000)
    rounds, eps, delta = 10_000, 1.0, 5e-324
    answer = largest_composed(model, rounds, eps, delta, budget=math.inf)
    assert answer > 100 * eps / rounds
    record = composed_epsilon(model, answer, rounds, delta)
    assert record["eps"] <= eps and record["method"] == "rdp"
    assert composed_epsilon(model, answer * 1.01, rounds, delta)["eps"] > eps  # the root, to the search's rtol
