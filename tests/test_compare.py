"""All bounds side by side (shufflelib.bounds.compare)."""

from __future__ import annotations

import pytest

from shufflelib.bounds import ErlingssonBound, get_bound
from shufflelib.bounds.compare import STANDARD_SPECS, BoundSpec, compare_epsilons

EXACT = "two-pair lower bound (RR)"


@pytest.mark.parametrize(("n", "eps0", "delta"), [(1_000, 0.3, 1e-4), (50_000, 1.0, 1e-6), (10**7, 4.0, 1e-8)])
def test_every_upper_bound_is_above_the_exact_curve(n, eps0, delta) -> None:
    table = compare_epsilons(n, eps0, delta)
    assert list(table) == [spec.label for spec in STANDARD_SPECS]
    exact = table[EXACT]
    assert exact is not None and 0 < exact < eps0
    for label, eps in table.items():
        if eps is not None:
            assert eps >= exact, f"{label} = {eps} is below the exact curve {exact}"


def test_values_are_the_bounds_own_answers_and_none_means_not_applicable() -> None:
    table = compare_epsilons(20_000, 2.0, 1e-7)
    for spec in STANDARD_SPECS:
        if spec.name == "erlingsson":
            assert table[spec.label] is None
            assert not ErlingssonBound().applicable(20_000, 2.0, 1e-7)
        else:
            assert table[spec.label] == get_bound(spec.name, spec.mechanism, spec.k).epsilon(20_000, 2.0, 1e-7)


def test_custom_specs() -> None:
    specs = (BoundSpec("Bennett, 10-RR", "blanket-bennett", "krr", 10),)
    assert set(compare_epsilons(10_000, 1.0, 1e-6, specs)) == {"Bennett, 10-RR"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((1, 1.0, 1e-6), "n"),
        ((100, 0.0, 1e-6), "eps0"),
        ((100, 1.0, 1.5), "delta"),
        ((100, 1.0, float("nan")), "delta"),
    ],
)
def test_bad_input(args, message) -> None:
    with pytest.raises(ValueError, match=message):
        compare_epsilons(*args)


def test_bad_specs() -> None:
    with pytest.raises(ValueError, match="specs"):
        compare_epsilons(100, 1.0, 1e-6, ())
    with pytest.raises(ValueError, match="specs"):
        compare_epsilons(100, 1.0, 1e-6, ("clones",))
