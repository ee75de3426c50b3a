"""The variation-ratio bound (Wang et al., VLDB 2024) in the registry, and its verdict for k-RR.

The truth is the exact worst case of shuffled k-RR (tests/test_krr_worst_case.py checks it
against brute force). Tolerances: the bound's ε is rounded up by root finding (relative 1e-9),
the exact ε likewise; every asserted gap is orders of magnitude larger.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from shufflelib.bounds import BOUNDS, get_bound
from shufflelib.bounds.krr_worst_case import pair_delta, worst_case_epsilon, worst_case_epsilon_bracket
from shufflelib.bounds.variation_ratio import (
    VariationRatioBound,
    variation_ratio_parameters,
    variation_ratio_table,
    variation_ratio_verdict,
)
from shufflelib.calculator.cli import main
from shufflelib.segmented.variation_ratio import variation_ratio_pair


def test_headline_three_rr_n20() -> None:
    """3-RR, n = 20, eps0 = 2, delta = 1e-6: the bound claims eps = 1.861; the truth is 1.9999.

    The worst dataset: every other user holds the victim's alternative value. At the claimed
    eps the true delta is 1.08e-3, about 1076 times the claim.
    """
    row = variation_ratio_verdict(3, 20, 2.0, 1e-6)
    assert row.exact
    assert row.claimed_eps == pytest.approx(1.86128, abs=1e-4)
    assert row.true_eps == pytest.approx(1.99988, abs=1e-4)
    assert row.ratio == pytest.approx(1075.8, rel=1e-3)
    eps, others = worst_case_epsilon(20, 3, 2.0, 1e-6)
    assert others == (0, 19, 0) and eps == row.true_eps
    assert pair_delta(20, 3, 2.0, [row.claimed_eps], others)[0] > 1000 * 1e-6


def test_failure_does_not_vanish_with_n() -> None:
    """At n = 1e4 and 1e5 explicit pairs (a lower bound on the truth) still beat the claim, at larger eps0."""
    for n, eps0 in ((10_000, 8.0), (100_000, 10.0)):
        row = variation_ratio_verdict(3, n, eps0, 1e-6)
        assert not row.exact and row.ratio > 50 and row.shortfall > 0.2


def test_paper_parameter_table() -> None:
    e = math.exp(1.0)
    assert variation_ratio_parameters("generic", 1.0) == pytest.approx((e, (e - 1) / (e + 1), e))
    assert variation_ratio_parameters("laplace", 1.0) == pytest.approx((e, 1 - math.exp(-0.5), e))
    assert variation_ratio_parameters("krr", 1.0, k=5) == pytest.approx((e, (e - 1) / (e + 4), e))
    with pytest.raises(ValueError, match="mechanism"):
        variation_ratio_parameters("gaussian", 1.0)


def test_one_implementation_of_the_pair() -> None:
    bound = VariationRatioBound(mechanism="krr", k=4)
    p, beta, q = variation_ratio_parameters("krr", 1.5, k=4)
    assert bound.pair(500, 1.5) == variation_ratio_pair(500, p, beta, q)
    # The generic row is the stronger-clones pair: clone rate 1/(e^eps0 + 1) per side.
    assert VariationRatioBound().pair(500, 1.5).rate == pytest.approx(1 / (math.exp(1.5) + 1))
    assert "variation-ratio" in BOUNDS


@pytest.mark.parametrize(("n", "eps0", "delta"), [(12, 1.0, 1e-3), (50, 2.0, 1e-6), (300, 3.0, 1e-6)])
def test_binary_rr_row_holds(n, eps0, delta) -> None:
    """k = 2: the pair is the stronger-clones pair and bounds the exact worst case (its certified lower end)."""
    exact = worst_case_epsilon_bracket(n, 2, eps0, delta)
    assert exact.exact and exact.upper <= exact.lower * (1 + 1e-6)
    assert VariationRatioBound(mechanism="krr", k=2).epsilon(n, eps0, delta) >= exact.lower


def test_soundness_flags_and_calculator_warning(capsys) -> None:
    assert VariationRatioBound(mechanism="krr", k=2).sound
    for mechanism, k in (("krr", 3), ("generic", None), ("laplace", None)):
        assert not VariationRatioBound(mechanism=mechanism, k=k).sound
    argv = [
        "epsilon",
        "--bound",
        "variation-ratio",
        "--mechanism",
        "krr",
        "--k",
        "3",
        "--n",
        "1000",
        "--eps0",
        "1",
        "--delta",
        "1e-6",
        "--json",
    ]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    record = json.loads(out.strip().splitlines()[-1])
    assert record["sound"] is False and "not a valid bound" in err
    assert record["eps"] == get_bound("variation-ratio", "krr", 3).epsilon(1000, 1.0, 1e-6)


def test_verdict_table_rows() -> None:
    rows = variation_ratio_table((3,), (7,), (1e-6,), (1.0, 2.0))
    assert len(rows) == 1 and rows[0]["exact"] and rows[0]["ratio"] > 1 and rows[0]["shortfall"] > 0
    assert np.isfinite(rows[0]["relative"])


def test_paper_settings_failure_not_shown() -> None:
    """n = 1e4, delta = 1e-6, k = 100 (the authors' script): the explicit pairs reach ~0.9999 of the claim."""
    for eps0 in (1.0, 5.0):
        row = variation_ratio_verdict(100, 10_000, eps0, 1e-6)
        assert not row.exact and 0.999 < row.ratio <= 1.0
