"""Property tests over the whole box for the paper families (personalized, population, segmented).

Every question answers a finite number or refuses with ``NotApplicableError``; no warning; ε is at
most the largest local ε (pure randomizers); δ(ε(δ)) <= δ; ε is monotone in n, in the local ε and
in δ. The box is the one of :mod:`shufflelib._validation` (n <= 1e9, eps0 in [1e-6, 100], any δ
in (0, 1)).

Tolerances: ε comes from certified root finding to a relative ``1e-9`` (plus ``1e-12``), so two
answers compared for monotonicity may differ by that much in the wrong direction; δ of a
closed-form bound is resolved to the adjacent float, so a round trip may exceed δ by a few ulps.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shufflelib._validation import EPS0_LIMIT, EPS0_MIN, N_MAX
from shufflelib.bounds import NotApplicableError
from shufflelib.calculator.population import parse_population
from shufflelib.personalized.bounds import PERSONALIZED_BOUNDS
from shufflelib.personalized.mechanisms import LocalMechanism
from shufflelib.personalized.population import Population
from shufflelib.population.choice import bound_for
from shufflelib.segmented.optimize import user_curve

SEARCH = 2e-9  # relative slack of two certified roots (each within 1e-9)
ULPS = 1e-15  # relative slack of a delta resolved to the adjacent float

EXAMPLES = 120
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def log_uniform(lo: float, hi: float) -> st.SearchStrategy[float]:
    # exp(log(hi)) may round above hi (exp(log(100)) = 100.00000000000004): clip into the box
    return st.floats(math.log(lo), math.log(hi)).map(lambda x: min(hi, max(lo, math.exp(x))))


def log_int(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.floats(math.log(lo), math.log(hi)).map(lambda x: min(hi, max(lo, round(math.exp(x)))))


deltas = log_uniform(1e-300, 0.99)
eps0s = log_uniform(EPS0_MIN, EPS0_LIMIT)


def answer(ask, *args) -> float | None:
    """``ask(*args)`` with warnings as errors: a finite float, or ``None`` for a clear refusal."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            value = float(ask(*args))
        except NotApplicableError:
            return None
    assert math.isfinite(value) and value >= 0.0, (ask, args, value)
    return value


def no_larger(a: float | None, b: float | None) -> bool:
    """``a <= b`` up to the search tolerance (a refusal counts as +inf)."""
    a = math.inf if a is None else a
    b = math.inf if b is None else b
    return a <= b * (1 + SEARCH) + 2e-12


# ------------------------------------------------------------------ personalized
PURE = ("rr", "laplace")
# Bounds whose answers are monotone in n (sound bounds; the formulas are not required to be).
MONOTONE_IN_N = ("pers-clones", "pers-liu24-pair", "pers-fv", "pers-blanket", "pers-gdp", "pers-lzx")


@st.composite
def populations(draw, max_levels: int = 3) -> Population:
    levels = draw(st.lists(eps0s, min_size=1, max_size=max_levels, unique=True))
    total = draw(log_int(2, N_MAX))
    shares = draw(st.lists(st.floats(0.05, 1.0), min_size=len(levels), max_size=len(levels)))
    counts = [max(1, int(total * s / sum(shares))) for s in shares]
    while sum(counts) > N_MAX:
        counts[counts.index(max(counts))] //= 2
    if sum(counts) < 2:
        counts[0] += 1
    return Population(levels, counts)


@SETTINGS
@given(
    name=st.sampled_from(sorted(PERSONALIZED_BOUNDS)),
    kind=st.sampled_from(PURE),
    pop=populations(),
    delta=deltas,
    factor=st.floats(1.0, 4.0),
)
def test_personalized_finite_capped_monotone_round_trip(name, kind, pop, delta, factor):
    bound = PERSONALIZED_BOUNDS[name](LocalMechanism(kind))
    eps = answer(bound.epsilon, pop, delta)
    if eps is not None:
        assert eps <= pop.eps_max * (1 + SEARCH) + 1e-12  # the shuffled protocol is eps_max-DP
        assert bound.delta(pop, eps) <= delta * (1 + ULPS)  # round trip
    # monotone in delta
    assert no_larger(answer(bound.epsilon, pop, min(0.99, delta * factor)), eps)
    # monotone in the local levels (all scaled up by the factor, within the box); a formula the
    # library flags as not a valid bound (e.g. Theorem 2 as printed) need not be
    if bound.sound and pop.eps_max * factor <= EPS0_LIMIT * (1 - 1e-12):
        assert no_larger(eps, answer(bound.epsilon, pop.scaled(factor), delta))
    # monotone in n (every count multiplied, within the box)
    bigger = Population(pop.eps, np.minimum(pop.counts * math.ceil(factor), N_MAX // pop.levels))
    if name in MONOTONE_IN_N and bigger.n >= pop.n:
        assert no_larger(answer(bound.epsilon, bigger, delta), eps)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    name=st.sampled_from(sorted(PERSONALIZED_BOUNDS)),
    kind=st.sampled_from(PURE),
    pop=populations(),
    eps=log_uniform(1e-3, 10.0),
    delta=log_uniform(1e-12, 0.5),
)
def test_personalized_max_eps0_round_trip(name, kind, pop, eps, delta):
    bound = PERSONALIZED_BOUNDS[name](LocalMechanism(kind))
    top = answer(bound.max_eps0, pop, eps, delta)
    if top is not None:
        assert bound.epsilon(pop.scaled(top / pop.eps_max), delta) <= eps


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    name=st.sampled_from(["pers-clones", "pers-fv", "pers-gdp", "pers-liu24-printed"]),
    calibration=st.sampled_from(["classical", "analytic"]),
    pop=populations(2),
    delta0=log_uniform(1e-12, 1e-3),
    delta=deltas,
)
def test_personalized_gaussian_finite_or_refused(name, calibration, pop, delta0, delta):
    if pop.eps_max > 10:  # calibrations of the Gaussian mechanism are defined for moderate levels
        pop = pop.scaled(10 / pop.eps_max)
    pop = Population(pop.eps, pop.counts, delta0)
    bound = PERSONALIZED_BOUNDS[name](LocalMechanism("gaussian", calibration))
    eps = answer(bound.epsilon, pop, delta)
    if eps is not None:
        assert bound.delta(pop, eps) <= delta * (1 + ULPS)


# ------------------------------------------------------------------ population
LAWS = {
    "pop-binomial": lambda n, v: f"binomial:{n},0.5",
    "pop-poisson": lambda n, v: f"poisson:{n}",
    "pop-meanvar": lambda n, v: f"meanvar:{n},{v}",
    "pop-subgaussian": lambda n, v: f"subgaussian:{n},{math.sqrt(v)}",
    "pop-subexp": lambda n, v: f"subexp:{n},2,{1 / math.sqrt(v)}",
    "pop-tight": lambda n, v: f"negbin:{n},{min(max(v, n + 1), 1e10)}",  # sd <= 1e5 (the box of negbin)
    "pop-exact-rr": lambda n, v: f"poisson:{n}",
}


@SETTINGS
@given(
    name=st.sampled_from(sorted(LAWS)),
    n=log_int(2, N_MAX),
    spread=log_uniform(1e-2, 1e2),
    eps0=eps0s,
    delta=deltas,
    factor=st.floats(1.0, 4.0),
)
def test_population_finite_capped_monotone_round_trip(name, n, spread, eps0, delta, factor):
    if name == "pop-exact-rr" and n > 10**5:
        n = 10**5  # the exact shuffled count is O(n) per evaluation (documented range)
    variance = min(n * spread, float(N_MAX) ** 2)
    bound = bound_for(name, parse_population(LAWS[name](n, variance)), 0, False)
    eps = answer(bound.epsilon, eps0, delta)
    if eps is not None:
        assert eps <= eps0 * (1 + SEARCH)
        if bound.upper:  # an upper bound rounds eps up, so its delta is within the target
            assert bound.delta(eps0, eps) <= delta * (1 + ULPS)
        elif eps > 0:  # a lower bound (the exact shuffled RR of one pair) rounds eps down
            assert bound.delta(eps0, eps) >= delta * (1 - ULPS)
    assert no_larger(answer(bound.epsilon, eps0, min(0.99, delta * factor)), eps)
    if eps0 * factor <= EPS0_LIMIT:
        assert no_larger(eps, answer(bound.epsilon, eps0 * factor, delta))
    bigger_n = min(N_MAX, int(n * factor))
    if name != "pop-exact-rr" or bigger_n <= 10**5:
        bigger = bound_for(name, parse_population(LAWS[name](bigger_n, variance * bigger_n / n)), 0, False)
        if name not in ("pop-tight", "pop-exact-rr", "pop-meanvar", "pop-subgaussian", "pop-subexp"):
            assert no_larger(answer(bigger.epsilon, eps0, delta), eps)


# ------------------------------------------------------------------ segmented
@SETTINGS
@given(
    accounting=st.sampled_from(["theorem3", "exact"]),
    n=log_int(2, N_MAX),
    m=log_uniform(0.01, 1e4),
    d=log_int(3, N_MAX),
    s_frac=st.floats(0, 1),
    lam=st.floats(0, 1),
    delta=deltas,
    factor=st.floats(1.0, 4.0),
)
def test_segmented_finite_or_refused_monotone_round_trip(accounting, n, m, d, s_frac, lam, delta, factor):
    s = max(1, min(d, int(round(s_frac * min(d, 64)))))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curve = user_curve(n, m, d, s, lam, accounting=accounting)
        eps = curve.epsilon(delta)
        looser = curve.epsilon(min(0.99, delta * factor))
    if math.isfinite(eps):
        assert eps >= 0.0
        assert curve.delta(eps) <= delta
    assert looser <= eps * (1 + SEARCH) + 2e-12


def test_segmented_refusals_are_stated():
    assert user_curve(2, 1.5, 17, 4, 0.5, accounting="exact").epsilon(2e-6) == math.inf
    for bad in [(1, 1.5, 17, 4), (5, 1.5, 2, 1), (5, 1.5, 17, 18), (5, 0.0, 17, 4), (10**10, 1.5, 17, 4)]:
        with pytest.raises(ValueError):
            user_curve(*bad, 0.5)
