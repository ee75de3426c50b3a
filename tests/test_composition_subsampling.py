"""Rounds in which each user takes part at random (``--sample-rate``, shufflelib.composition.subsampling).

Checked against the exact pair of a small subsampled shuffle (binary randomized response, the other
users all holding 0), by enumeration and by Monte Carlo over many rounds, and against the
closed form of the subsampled randomized response. Monte Carlo intervals: Hoeffding at level
``1 − 1e-3`` (values in ``[0, 1]``), seeds fixed.
"""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest
from scipy.stats import binom

from shufflelib.__main__ import main
from shufflelib.bounds import StrongerClones
from shufflelib.composition import bound_model, composed_delta, composed_epsilon
from shufflelib.composition.pld import compose, from_log_pmfs
from shufflelib.composition.subsampling import subsample_pld
from shufflelib.curves import DominatingPair

SC = StrongerClones(mechanism="krr", k=2)


def _subsampled_rr_pmfs(n: int, eps0: float, q: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact pmfs of (reports, ones) when the victim holds 0 or 1 and the other n − 1 users hold 0."""
    lo = 1.0 / (1.0 + math.exp(eps0))
    k = np.arange(n + 1)[:, None]
    s = np.arange(n + 1)[None, :]

    def others(kk: np.ndarray, ss: np.ndarray) -> np.ndarray:
        ok = (kk >= 0) & (ss >= 0) & (ss <= kk)
        return np.where(ok, binom.pmf(kk, n - 1, q) * binom.pmf(ss, np.maximum(kk, 0), lo), 0.0)

    out = []
    for p_one in (lo, 1.0 - lo):
        joint = (1 - q) * others(k, s) + q * (p_one * others(k - 1, s - 1) + (1 - p_one) * others(k - 1, s))
        out.append(joint.ravel())
    return out[0], out[1]


@pytest.mark.parametrize("n, eps0, q", [(12, 1.0, 0.5), (30, 2.0, 0.2)])
def test_one_subsampled_round_bounds_the_exact_pair(n, eps0, q):
    p0, p1 = _subsampled_rr_pmfs(n, eps0, q)
    with np.errstate(divide="ignore"):
        exact = DominatingPair(np.log(p0), np.log(p1))
    model = bound_model(SC, n, sample_rate=q)
    for eps in (0.0, 0.1, 0.3, 0.6):
        assert exact.delta(eps) <= composed_delta(model, eps0, 1, eps)["delta"] * (1 + 1e-9)
    # ... and it is far below the round without subsampling.
    assert composed_delta(model, eps0, 1, 0.1)["delta"] < SC.delta(n, eps0, 0.1)


def test_many_subsampled_rounds_stay_above_a_monte_carlo_estimate():
    n, eps0, q, rounds, samples = 12, 1.0, 0.5, 20, 200_000
    p0, p1 = _subsampled_rr_pmfs(n, eps0, q)
    live = p0 > 0
    loss = np.full(p0.size, -np.inf)
    loss[live] = np.log(p0[live]) - np.log(p1[live])
    rng = np.random.default_rng(2026)
    draws = rng.choice(p0.size, size=(samples, rounds), p=p0 / p0.sum())
    total = loss[draws].sum(axis=1)
    half = math.sqrt(math.log(2 / 1e-3) / (2 * samples))
    model = bound_model(SC, n, sample_rate=q)
    # The exact pair composed (its two discretizations bracket it) sits under the bound too.
    with np.errstate(divide="ignore"):
        lp, lq = np.log(p0), np.log(p1)
    exact_up = compose([(from_log_pmfs(lp, lq, 1e-3), rounds)])
    for eps in (1.0, 2.0, 3.0):
        estimate = float(np.maximum(-np.expm1(eps - total), 0.0).mean())
        bound = composed_delta(model, eps0, rounds, eps)["delta"]
        assert estimate - half <= bound
        assert estimate - half <= exact_up.delta(eps)
        assert exact_up.delta(eps - 2e-2) <= bound * (1 + 1e-6) + 1e-12  # within the grid's moves


def test_the_subsampled_pair_of_randomized_response_is_the_amplification_formula():
    eps0, q = 1.0, 0.1
    p = math.exp(eps0) / (1 + math.exp(eps0))
    rr = from_log_pmfs(np.log([p, 1 - p]), np.log([1 - p, p]), step=1e-5)
    sub = subsample_pld(rr, q)
    for eps in (0.0, 0.05, 0.1, 0.15):
        inner = math.log1p(math.expm1(eps) / q)
        formula = q * max(0.0, (math.exp(eps0) - math.exp(inner)) / (1 + math.exp(eps0)))
        assert formula * (1 - 1e-9) <= sub.delta(eps) <= formula + 1e-4 * q


def test_sampling_everyone_is_the_round_itself_and_fewer_users_compose_to_less():
    n, eps0, rounds, delta = 10_000, 1.0, 100, 1e-6
    full = composed_epsilon(bound_model(SC, n), eps0, rounds, delta)["eps"]
    everyone = composed_epsilon(bound_model(SC, n, sample_rate=1.0), eps0, rounds, delta)["eps"]
    assert full * (1 - 1e-9) <= everyone <= full * 1.005  # the profile route: at most 0.5 % looser
    rates = [0.5, 0.1, 0.01]
    values = [composed_epsilon(bound_model(SC, n, sample_rate=q), eps0, rounds, delta)["eps"] for q in rates]
    assert everyone > values[0] > values[1] > values[2]


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def test_the_calculator_answers_with_a_sample_rate_and_says_which_neighbours():
    argv = ["epsilon", "--bound", "stronger-clones", "--n", "100000", "--eps0", "1", "--delta", "1e-6"]
    status, out, err = _cli([*argv, "--sample-rate", "0.1", "--compose", "100", "--json"])
    record = json.loads(out)
    assert status == 0 and not err
    assert record["sample_rate"] == 0.1 and record["neighbours"] == "substitution" and record["compose"] == 100
    status, out, _ = _cli([*argv, "--compose", "100"])
    assert record["eps"] < float(out)
    status, out, _ = _cli([*argv, "--sample-rate", "0.1"])  # one round
    assert status == 0 and 0 < float(out) < record["eps"]


@pytest.mark.parametrize(
    "extra, status, words",
    [
        (["--sample-rate", "0"], 2, "--sample-rate must be a number in (0, 1]"),
        (["--sample-rate", "1.5"], 2, "--sample-rate must be a number in (0, 1]"),
        (["--sample-rate", "nan"], 2, "--sample-rate"),
    ],
)
def test_bad_sample_rates_are_refused_naming_the_flag(extra, status, words):
    argv = ["epsilon", "--bound", "stronger-clones", "--n", "1000", "--eps0", "1", "--delta", "1e-6", *extra]
    code, _, err = _cli(argv)
    assert code == status and words in err


def test_a_lower_bound_is_not_subsampled():
    argv = ["epsilon", "--bound", "krr-two-pair-lower", "--n", "1000", "--eps0", "1", "--delta", "1e-6"]
    code, _, err = _cli([*argv, "--sample-rate", "0.5"])
    assert code == 1 and "not applicable" in err
