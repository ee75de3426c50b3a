"""The composed ε₀ search's budget is counted on a work meter, not a clock (issue 29): a budget-cut
answer is the same under any load, and stays certified."""

from __future__ import annotations

import itertools
import time

import pytest

from shufflelib.bounds import BlanketBennett, StrongerClones
from shufflelib.composition import bound_model, largest_composed
from shufflelib.composition.model import METER


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
