"""Shared parameter checks and the certified monotone root finders."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shufflelib._roots import brent, first_true, last_true
from shufflelib._validation import (
    check_array,
    check_generator,
    check_in_range,
    check_int,
    check_nonnegative,
    check_positive,
    check_probability,
)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: check_positive("eps0", 0), "eps0 must be a finite number > 0"),
        (lambda: check_positive("eps0", -1.0), "eps0"),
        (lambda: check_positive("eps0", float("nan")), "eps0 must be a number, got NaN"),
        (lambda: check_positive("eps0", float("inf")), "eps0"),
        (lambda: check_positive("eps0", "1"), "eps0 must be a real number"),
        (lambda: check_positive("eps0", True), "eps0 must be a real number"),
        (lambda: check_nonnegative("eps", -0.1), "eps must be a finite number >= 0"),
        (lambda: check_probability("delta", 0.0), r"delta must be in \(0, 1\)"),
        (lambda: check_probability("delta", 1.0), r"delta must be in \(0, 1\)"),
        (lambda: check_probability("p", 1.5, closed_high=True), r"p must be in \(0, 1\]"),
        (lambda: check_int("n", 1, minimum=2), "n must be an integer >= 2"),
        (lambda: check_int("n", 2.5), "n must be an integer"),
        (lambda: check_int("k", 11, minimum=2, maximum=10), "k must be an integer >= 2 and <= 10"),
        (lambda: check_in_range("alpha", 2.0, 0.0, 1.0), r"alpha must be in \[0.0, 1.0\]"),
        (lambda: check_generator("rng", 42), "rng must be a numpy.random.Generator"),
        (lambda: check_array("x", [[1, 2]], ndim=1), "x must be a 1-dimensional array"),
        (lambda: check_array("x", [1, float("nan")]), "x must contain only finite numbers"),
        (lambda: check_array("x", [0, 3], high=2), "x must have every entry <= 2"),
        (lambda: check_array("x", [0.5], integral=True), "x must contain only integers"),
    ],
)
def test_checks_name_the_parameter_and_range(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_checks_return_converted_values() -> None:
    assert check_positive("x", np.float32(2.0)) == 2.0
    assert check_int("n", np.int64(10**9), minimum=2) == 10**9
    assert check_int("n", 1e6) == 10**6
    assert check_probability("p", 1.0, closed_high=True) == 1.0
    rng = np.random.default_rng(0)
    assert check_generator("rng", rng) is rng
    assert check_array("x", [1, 2], ndim=1, integral=True).tolist() == [1.0, 2.0]


@settings(max_examples=60, deadline=None)
@given(root=st.floats(0.001, 0.999), scale=st.floats(0.1, 100.0))
def test_first_true_rounds_up(root: float, scale: float) -> None:
    # ok(x) holds from the root on; the answer must satisfy ok and lie within the tolerance.
    x = first_true(lambda t: t >= root, lambda t: scale * (root - t), 0.0, 1.0)
    assert x >= root
    assert x - root <= 1e-9 * root + 1e-12 + 1e-15


@settings(max_examples=60, deadline=None)
@given(root=st.floats(0.001, 0.999), power=st.floats(0.2, 5.0))
def test_last_true_rounds_down(root: float, power: float) -> None:
    x = last_true(lambda t: t <= root, lambda t: t**power - root**power, 0.0, 1.0)
    assert x <= root
    assert root - x <= 1e-9 * root + 1e-12 + 1e-15


@settings(max_examples=30, deadline=None)
@given(root=st.floats(0.001, 0.999))
def test_without_a_score_the_root_finders_bisect_to_the_same_tolerance(root: float) -> None:
    calls: list[float] = []

    def ok(t: float) -> bool:
        calls.append(t)
        return t >= root

    x = first_true(ok, None, 0.0, 1.0)
    assert root <= x <= root + 1e-9 * root + 1e-12 + 1e-15
    assert len(calls) <= 45  # halving [0, 1] to 1e-12: 40 steps
    y = last_true(lambda t: t <= root, None, 0.0, 1.0)
    assert root - 1e-9 * root - 1e-12 - 1e-15 <= y <= root


def test_root_finders_certify_even_when_the_score_misleads() -> None:
    # The score crosses zero at 0.3 but ok() only holds from 0.7 on: ok() wins.
    x = first_true(lambda t: t >= 0.7, lambda t: 0.3 - t, 0.0, 1.0)
    assert 0.7 <= x <= 0.7 + 1e-9
    # A score that is not finite everywhere falls back to bisection.
    y = last_true(lambda t: t <= 0.25, lambda t: math.inf if t > 0.5 else t - 0.25, 0.0, 1.0)
    assert 0.25 - 1e-9 <= y <= 0.25


def test_endpoints() -> None:
    assert first_true(lambda t: True, lambda t: -1.0, 0.0, 1.0) == 0.0
    assert last_true(lambda t: True, lambda t: -1.0, 0.0, 1.0) == 1.0


FUNCTIONS = [
    (lambda x: x**3 - 2.0 * x - 5.0, 2.0, 3.0),  # Wallis' cubic
    (lambda x: math.exp(x) - 1e-200, -500.0, 1.0),  # a root far out on one side
    (lambda x: math.tanh(50.0 * (x - 0.3)), -1.0, 1.0),  # nearly a step
    (lambda x: math.log(x) + 700.0, 1e-310, 1.0),  # a subnormal bracket end
    (lambda x: (x - 1e-9) * 1e12, 0.0, 1.0),  # a tiny root
    (lambda x: 1.0 if x > 0.7 else -1.0, 0.0, 1.0),  # a jump: bisection alone
]


@pytest.mark.parametrize(("f", "a", "b"), FUNCTIONS)
@pytest.mark.parametrize("rtol", [4 * np.finfo(float).eps, 1e-9])
def test_brent_finds_the_root_scipy_finds(f, a, b, rtol) -> None:
    """Brent's method of ``_roots`` (written out so that the command line need not import
    scipy.optimize) locates each root within its tolerance, as ``scipy.optimize.brentq`` does."""
    from scipy.optimize import brentq

    xtol = 1e-300
    mine = brent(f, a, b, xtol=xtol, rtol=rtol, maxiter=1100)
    theirs = brentq(f, a, b, xtol=xtol, rtol=rtol, maxiter=1100)
    assert a <= mine <= b
    assert abs(mine - theirs) <= 4 * (rtol * abs(theirs) + xtol) + 8 * math.ulp(theirs)
    # The sign changes within the tolerance around the answer.
    step = 2 * (rtol * abs(mine) + xtol) + 4 * math.ulp(mine)
    assert f(mine) == 0.0 or (f(max(mine - step, a)) > 0.0) != (f(min(mine + step, b)) > 0.0)


def test_brent_refuses_a_bracket_without_a_sign_change() -> None:
    with pytest.raises(ValueError, match="different signs"):
        brent(lambda x: x * x + 1.0, -1.0, 1.0, xtol=1e-12, rtol=1e-12)
    with pytest.raises(RuntimeError, match="no root within 3 steps"):
        brent(lambda x: x**3 - 2.0 * x - 5.0, 2.0, 3.0, xtol=1e-300, rtol=1e-15, maxiter=3)
