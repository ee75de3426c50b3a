"""Properties of composed answers over random inputs of the box (issue 29).

Drawn: ``n`` from 2 to 10⁹ (log-uniform), ``ε₀`` from 0.05 to 10, ``T`` from 1 to 10⁴, δ from
1e-300 to 1e-3. Checked:

* a composed upper bound is never below the composed lower bound of ``krr-two-pair-lower``
  (the exact composition of an explicit pair of datasets: the worst case is above it);
* composition keeps the order of profiles: stronger clones is a post-processing of clones'
  pair, so its composition is below clones' (rigorously, up to its own ``error`` field);
  ``thinned-clones`` with ``k = 3`` never above blanket Bennett (it composes the tighter of
  the stronger-clone pair and Bennett's profile);
* the two questions agree: ``delta(epsilon(δ)) <= δ`` and ``epsilon(delta(ε)) <= ε``, relative
  ``1e-8`` (the ε answer aims ``1e-12 δ`` below δ), for a pair, a profile and subsampled rounds;
* the cap: ``T`` rounds of an ``ε₀``-LDP protocol are ``T ε₀``-DP, and no answer exceeds it.
"""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shufflelib.bounds import (
    BlanketBennett,
    ClonesNumerical,
    NotApplicableError,
    StrongerClones,
    ThinnedClones,
    TwoPairKRRLowerBound,
)
from shufflelib.composition import bound_model, composed_delta, composed_epsilon, largest_composed

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
SC = StrongerClones(mechanism="krr", k=2)


def log_uniform(lo: float, hi: float) -> st.SearchStrategy[float]:
    return st.floats(math.log(lo), math.log(hi)).map(lambda x: min(hi, max(lo, math.exp(x))))


users = log_uniform(2, 1e9).map(round)
locals_ = log_uniform(0.05, 10.0)
rounds = log_uniform(1, 1e4).map(round)
deltas = log_uniform(1e-300, 1e-3)


def eps_of(bound, n, eps0, t, delta, rate=None) -> dict:
    return composed_epsilon(bound_model(bound, n, rate), eps0, t, delta)


@SETTINGS
@given(users, locals_, rounds, deltas)
def test_a_composed_upper_bound_is_above_the_composed_two_pair_lower_bound(n, eps0, t, delta):
    lower = eps_of(TwoPairKRRLowerBound(mechanism="krr", k=2), n, eps0, t, delta)["eps"]
    for bound in (SC, BlanketBennett(mechanism="krr", k=2)):
        try:
            upper = eps_of(bound, n, eps0, t, delta)["eps"]
        except NotApplicableError:
            continue
        assert upper >= lower * (1 - 1e-9)
        assert upper <= t * eps0 * (1 + 1e-12)  # the cap


@SETTINGS
@given(users, locals_, rounds, deltas)
def test_composition_keeps_the_order_of_the_rounds_profiles(n, eps0, t, delta):
    tight = eps_of(SC, n, eps0, t, delta)
    loose = eps_of(ClonesNumerical(), n, eps0, t, delta)
    # Exact compositions keep the order: tight's truth <= loose's truth <= loose's answer.
    assert tight["eps"] <= loose["eps"] + tight["error"] + 1e-12
    thin = eps_of(ThinnedClones(mechanism="krr", k=3), n, eps0, t, delta)["eps"]
    try:
        bennett = eps_of(BlanketBennett(mechanism="krr", k=3), n, eps0, t, delta)["eps"]
    except NotApplicableError:
        return
    assert thin <= bennett


@SETTINGS
@given(users, locals_, rounds, deltas, st.sampled_from(["pair", "profile", "subsampled"]))
def test_the_composed_questions_agree_both_ways(n, eps0, t, delta, kind):
    bound = BlanketBennett(mechanism="krr", k=2) if kind == "profile" else SC
    model = bound_model(bound, n, 0.1 if kind == "subsampled" else None)
    try:
        answer = composed_epsilon(model, eps0, t, delta)
    except NotApplicableError:
        return
    back = composed_delta(model, eps0, t, answer["eps"])
    assert back["delta"] <= delta
    if 0.0 < back["delta"] and answer["eps"] < t * eps0:
        again = composed_epsilon(model, eps0, t, back["delta"])
        assert again["eps"] <= answer["eps"] * (1 + 1e-8) + 1e-12


@SETTINGS
@given(users, locals_, rounds, log_uniform(1e-3, 50.0), st.sampled_from(["pair", "profile", "subsampled"]))
def test_the_composed_questions_agree_starting_from_eps(n, eps0, t, eps, kind):
    bound = BlanketBennett(mechanism="krr", k=2) if kind == "profile" else SC
    model = bound_model(bound, n, 0.1 if kind == "subsampled" else None)
    try:
        delta = composed_delta(model, eps0, t, eps)["delta"]
    except NotApplicableError:
        return
    assert 0.0 <= delta <= 1.0
    if not 1e-300 < delta < 1.0:
        return
    try:
        back = composed_epsilon(model, eps0, t, delta)["eps"]
    except NotApplicableError:
        return
    assert back <= eps * (1 + 1e-8) + 1e-12


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(
    log_uniform(10, 1e8).map(round), log_uniform(1e-3, 5.0), log_uniform(1, 1e3).map(round), log_uniform(1e-12, 1e-4)
)
def test_the_eps0_answer_is_certified_and_more_rounds_allow_no_more(n, eps, t, delta):
    model = bound_model(SC, n)
    # Without the calculator's CPU budget: a search stopped at its budget answers a certified but
    # smaller eps0 (load-dependent), for which "more rounds allow no more" need not hold.
    try:
        e0 = largest_composed(model, t, eps, delta, budget=math.inf)
    except NotApplicableError:
        return
    assert composed_epsilon(model, e0, t, delta)["eps"] <= eps
    try:
        e0_more = largest_composed(model, 2 * t, eps, delta, budget=math.inf)
    except NotApplicableError:
        return
    # Both answers are certified, rounded down to rtol = 1e-3 of the largest: the answer for
    # 2T rounds is certified at 2T, hence at T; it is at most the largest eps0 of T (within rtol).
    assert e0_more <= e0 * (1 + 2e-3)
