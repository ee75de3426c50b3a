"""Composition of shuffled protocols through privacy loss distributions (shufflelib.composition)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import binom

from shufflelib.__main__ import main
from shufflelib.bounds import ClonesNumerical, StrongerClones, TwoPairKRRLowerBound
from shufflelib.composition import (
    MAX_ROUNDS,
    Round,
    bound_model,
    compare_composition,
    compose_bound,
    compose_rounds,
    largest_composed,
)
from shufflelib.composition.baselines import rdp_epsilon
from shufflelib.composition.pld import (
    SPECTRUM_FLOOR,
    LossDistribution,
    _integer_power,
    _power,
    _window,
    compose,
    from_log_pmfs,
    tilt_for,
    window_tail,
)
from shufflelib.curves import DominatingPair

SC = StrongerClones(mechanism="krr", k=2)
EXACT = TwoPairKRRLowerBound(mechanism="krr", k=2)


@pytest.mark.parametrize("bound", [SC, ClonesNumerical()], ids=lambda b: b.name)
@pytest.mark.parametrize("n, eps0", [(1_000, 0.5), (1_000, 2.0), (100_000, 1.0), (1_000_000, 4.0)])
@pytest.mark.parametrize("delta", [1e-6, 1e-10])
def test_one_round_is_the_single_round_bound_within_a_thousandth(bound, n, eps0, delta):
    # The single-round ε is the pair's exact ε (rounded up by 1e-9): the composed curve's upper
    # end is above it, its certified lower end below it, and the answer within 0.1 %.
    curve = compose_bound(bound, n, eps0, rounds=1)
    single = bound.epsilon(n, eps0, delta)
    low, high = curve.bracket(delta)
    assert high == curve.epsilon(delta)
    assert low <= single * (1 + 1e-8) and high >= single * (1 - 1e-8)
    assert high <= single * (1 + 1e-3)


@pytest.mark.parametrize("n, eps0", [(1_000, 1.0), (100_000, 2.0)])
def test_exact_krr_one_round_is_a_lower_bound_within_a_thousandth(n, eps0):
    curve = compose_bound(EXACT, n, eps0, rounds=1)
    single = EXACT.epsilon(n, eps0, 1e-6)  # the pair's exact ε, rounded down
    low, high = curve.bracket(1e-6)
    assert curve.lower_bound and low == curve.epsilon(1e-6)
    assert single * (1 - 1e-3) <= low <= single + 1e-9 and high >= single * (1 - 1e-9)


@pytest.mark.parametrize("size, eps0", [(10**6, 1.0), (10**6, 5.7), (10**9, 5.7)])
def test_pop_tight_round_is_never_below_its_single_round_bound(size, eps0):
    # Its clone-count blocks start with the count-0 block (the tail below them), which widens
    # the grid to +-eps0; every other chunk of counts works on its own part of the grid.
    from shufflelib.calculator.population import round_model
    from shufflelib.population.laws import PoissonPopulation
    from shufflelib.population.tight import TightClones

    bound = TightClones(PoissonPopulation(size))
    model = round_model(bound)
    (ld,) = model.build(eps0, model.step(eps0, 1000), False)
    for eps in (0.0, 1e-3, 1e-2, 5e-2):
        exact = bound.delta(eps0, eps)
        assert exact <= ld.delta(eps) <= exact * 1.5 + 1e-30


@pytest.mark.parametrize("bound", [SC, ClonesNumerical(), EXACT], ids=lambda b: b.name)
def test_composed_epsilon_grows_with_the_number_of_rounds(bound):
    n, eps0, delta = 10_000, 1.0, 1e-6
    values = [compose_bound(bound, n, eps0, t, step=1e-4).epsilon(delta) for t in (1, 2, 5, 20, 100)]
    assert np.all(np.diff(values) > 0)
    assert values[0] >= bound.epsilon(n, eps0, delta) - 1e-4  # two-pair lower bound: optimistic, within one step
    assert values[-1] <= 100 * eps0  # never worse than naive pure composition (the pair is eps0-DP)


def _clone_pair(n: int, eps0: float, prob: float) -> tuple[np.ndarray, np.ndarray]:
    """All atoms (m, j) of the clone pair, enumerated."""
    u = 2.0 / (1.0 + math.exp(-eps0))
    v = 2.0 - u
    p, q = [], []
    for c in range(n):
        m = c + 1
        j = np.arange(m + 1)
        w = binom.pmf(c, n - 1, prob) * binom.pmf(j, m, 0.5)
        p.append(w * (u * j + v * (m - j)) / m)
        q.append(w * (u * (m - j) + v * j) / m)
    return np.concatenate(p), np.concatenate(q)


def _product(p: np.ndarray, rounds: int) -> np.ndarray:
    out = p
    for _ in range(rounds - 1):
        out = np.outer(out, p).ravel()
    return out


@pytest.mark.parametrize("rounds", [2, 3])
def test_composed_bound_sits_above_the_enumerated_product_distribution(rounds):
    n, eps0 = 3, 1.0
    p, q = _clone_pair(n, eps0, SC.clone_probability(eps0))
    exact = DominatingPair(np.log(_product(p, rounds)), np.log(_product(q, rounds)))
    curve = compose_bound(SC, n, eps0, rounds, step=1e-3)
    for eps in np.linspace(curve.discretization_error, rounds * eps0, 13):
        d = curve.delta(eps)
        assert exact.delta(eps) <= d + 1e-12
        # ... and not by more than the discretization error allows.
        assert d <= exact.delta(eps - curve.discretization_error) + 1e-9


def test_exact_krr_composition_is_the_product_distribution_from_below():
    n, eps0, rounds = 4, 1.5, 3
    from shufflelib.bounds.exact import binary_pair_log_pmfs

    log_x0, log_x1 = binary_pair_log_pmfs(n, eps0)
    exact = DominatingPair(np.log(_product(np.exp(log_x0), rounds)), np.log(_product(np.exp(log_x1), rounds)))
    curve = compose_bound(EXACT, n, eps0, rounds, step=1e-3)
    for eps in np.linspace(0.0, rounds * eps0, 10):
        d = curve.delta(eps)
        assert d <= exact.delta(eps) + 1e-12
        assert exact.delta(eps + curve.discretization_error) <= d + 1e-9


def test_fft_composition_agrees_with_direct_convolution_within_its_rounding_budget():
    rng = np.random.default_rng(1)
    mass = rng.random(200)
    mass /= mass.sum()
    ld = LossDistribution(step=1e-2, offset=-120, mass=mass)
    direct = mass
    for _ in range(4):
        direct = np.convolve(direct, mass)
    fft = compose([(ld, 5)])
    start = fft.offset - 5 * ld.offset
    reference = direct[start : start + fft.mass.size]
    assert np.linalg.norm(fft.mass - reference) <= fft.rounding
    assert direct[:start].sum() + direct[start + fft.mass.size :].sum() <= fft.tail_mass


def test_a_window_narrowed_to_the_target_delta_still_bounds_the_exact_composition():
    # 2000 rounds of randomized response: the composed loss is eps0 (2 K - T), K ~ Bin(T, p).
    eps0, rounds, delta = 0.01, 2000, 1e-6
    p = math.exp(eps0) / (1 + math.exp(eps0))
    rr = from_log_pmfs(np.log([p, 1 - p]), np.log([1 - p, p]), step=1e-3)
    wide, narrow = compose([(rr, rounds)]), compose([(rr, rounds)], tail=window_tail(delta))
    assert narrow.mass.size < 0.7 * wide.mass.size
    k = np.arange(rounds + 1)
    loss, pk = eps0 * (2 * k - rounds), binom.pmf(k, rounds, p)
    eps = narrow.epsilon(delta)
    for e in (0.0, 0.5 * eps, eps, 1.5 * eps):
        assert float(np.sum(pk * np.clip(-np.expm1(e - loss), 0.0, None))) <= narrow.delta(e)
    # Reading at delta costs at most the share 2e-4 of delta moved into the window's tails.
    assert eps <= wide.epsilon(delta - 2 * window_tail(delta))


@pytest.mark.parametrize("tail", [1e-3, 1e-8, 1e-30])
@pytest.mark.parametrize("shift", [0.0, 0.02, 0.3])
def test_the_window_search_holds_the_tails_and_is_no_wider_than_a_dense_grid_of_tilts(tail, shift):
    """The window's staged search over θ: the composed mass outside it is at most ``tail`` per side
    (exactly, by direct convolution), and it is no wider than the Chernoff window of a dense grid of
    2,000 θ (the single grid of 96 it replaced was up to 7 % wider)."""
    rng = np.random.default_rng(7)
    mass = rng.random(40) ** 3
    mass[rng.random(40) < 0.3] = 0.0
    mass /= mass.sum()
    ld, rounds = LossDistribution(step=0.01, offset=-20, mass=mass), 60
    lo, hi = _window([(ld, rounds)], tail, shift)
    # The composed sum of the tilted, normalized round (index units, from each part's offset).
    tilted = mass * np.exp(shift * np.arange(mass.size))
    tilted /= tilted.sum()
    exact = np.ones(1)
    for _ in range(rounds):
        exact = np.convolve(exact, tilted)
    assert exact[:lo].sum() <= tail and exact[hi + 1 :].sum() <= tail
    theta = np.geomspace(1e-3 / (rounds * (mass.size - 1)), 50.0, 2000)
    base = ld.log_mgf(np.array([shift]))
    k_up, k_down = rounds * (ld.log_mgf(shift + theta) - base), rounds * (ld.log_mgf(shift - theta) - base)
    dense_hi = math.ceil(float(np.min((k_up - math.log(tail)) / theta)))
    dense_lo = math.floor(float(np.max((math.log(tail) - k_down) / theta)))
    assert lo >= dense_lo - 1 and hi <= dense_hi + 1


def test_the_spectral_power_drops_only_entries_below_its_floor():
    rng = np.random.default_rng(2)
    mass = rng.random(300)
    spectrum = np.fft.rfft(np.concatenate([mass / mass.sum(), np.zeros(2**16)]))
    full = spectrum**3000
    ours = _power(spectrum.copy(), 3000)
    dropped = ours == 0
    assert dropped.mean() > 0.9  # a spread-out loss, many rounds: most of the spectrum is negligible
    assert np.abs(full[dropped]).max() < SPECTRUM_FLOOR
    assert np.allclose(ours[~dropped], full[~dropped], rtol=1e-12, atol=0.0)
    few = _power(spectrum.copy(), 3)  # few rounds: nothing to drop
    assert np.count_nonzero(few == 0) == 0 and np.allclose(few, spectrum**3, rtol=1e-14, atol=0.0)


def test_pld_is_never_above_rdp_advanced_or_naive():
    for n, eps0, rounds in [(1_000, 1.0, 10), (10_000, 2.0, 100), (1_000_000, 1.0, 1000)]:
        r = compare_composition(SC, n, eps0, rounds, 1e-6)
        assert r["pld"] <= r["rdp"]
        assert r["pld"] <= r["advanced"] and r["pld"] <= r["naive"]


@pytest.mark.parametrize("count", [2, 99, 100, 163, 1000, 10_000, 65_537])
def test_the_spectral_power_stays_within_the_rounding_the_composition_counts_for_it(count):
    """``_integer_power`` is a chain of ``count − 1`` complex multiplications: relative error at most
    ``(count − 1) √5 u`` (``_composition_rounding``), checked against extended precision. NumPy's
    ``power`` above 99 (``exp(count log z)``) exceeds that bound by about 2x."""
    rng = np.random.default_rng(3)
    z = rng.random(20_000) ** 1e-3 * np.exp(2j * math.pi * rng.random(20_000))
    reference = np.power(z.astype(np.clongdouble), count)
    error = np.abs(_integer_power(z, count).astype(np.clongdouble) - reference) / np.abs(reference)
    assert float(error.max()) <= (count - 1) * math.sqrt(5.0) * 2.0**-53


def test_rdp_of_randomized_response_matches_its_closed_form():
    eps0 = 0.5
    p = math.exp(eps0) / (1.0 + math.exp(eps0))
    rr = from_log_pmfs(np.log([p, 1 - p]), np.log([1 - p, p]), step=1e-6, max_loss=eps0)
    alpha = np.array([1.5, 2.0, 8.0])
    closed = np.log(p**alpha * (1 - p) ** (1 - alpha) + (1 - p) ** alpha * p ** (1 - alpha)) / (alpha - 1)
    assert np.all(rr.renyi(alpha) >= closed)
    assert np.allclose(rr.renyi(alpha), closed, rtol=1e-5)
    assert math.isfinite(rdp_epsilon([rr], 1, 1e-6))


def test_heterogeneous_rounds_sit_between_the_homogeneous_ones():
    small, large = 10_000, 100_000
    mixed = compose_rounds([Round(SC, small, 1.0, 3), Round(SC, large, 1.0, 3)], step=2e-5).epsilon(1e-6)
    worse = compose_bound(SC, small, 1.0, 6, step=2e-5).epsilon(1e-6)
    better = compose_bound(SC, large, 1.0, 6, step=2e-5).epsilon(1e-6)
    assert better < mixed < worse


def test_largest_eps0_per_round_reaches_the_target():
    eps0 = largest_composed(bound_model(SC, 10_000), 20, 1.0, 1e-6)
    assert compose_bound(SC, 10_000, eps0, 20).epsilon(1e-6) <= 1.0
    assert compose_bound(SC, 10_000, eps0 * 1.01, 20).epsilon(1e-6) > 1.0
    assert eps0 < SC.max_eps0(10_000, 1.0, 1e-6)


@pytest.mark.parametrize("rounds", [0, -3, 2.5, MAX_ROUNDS + 1, float("nan"), True])
def test_bad_rounds_are_rejected(rounds):
    with pytest.raises(ValueError, match="rounds"):
        compose_bound(SC, 1_000, 1.0, rounds)


@pytest.mark.parametrize(
    "plan, named",
    [
        (Round(SC, 1_000, 1.0, 2), "rounds must be a list"),
        ([], "at least one Round"),
        ([(SC, 1_000, 1.0, 2)], r"rounds\[0\] must be a Round"),
        ([Round(None, 1_000, 1.0)], r"rounds\[0\]\.bound"),
        ([Round(SC, 1_000, 1.0), Round(SC, 1, 1.0)], r"rounds\[1\]\.n"),
        ([Round(SC, 1_000, float("nan"))], r"rounds\[0\]\.eps0"),
        ([Round(SC, 1_000, 0.0)], r"rounds\[0\]\.eps0"),
        ([Round(SC, 1_000, 1.0, 0)], r"rounds\[0\]\.count"),
        ([Round(SC, 1_000, 1.0, 2.5)], r"rounds\[0\]\.count"),
    ],
)
def test_bad_plans_name_the_entry(plan, named):
    with pytest.raises(ValueError, match=named):
        compose_rounds(plan)


@pytest.mark.parametrize("rtol", [0.0, -1e-3, 1.0, float("nan")])
def test_bad_rtol_of_the_eps0_question_is_rejected(rtol):
    with pytest.raises(ValueError, match="rtol"):
        largest_composed(bound_model(SC, 1_000), 3, 1.0, 1e-6, rtol=rtol)


def test_non_composable_bounds_and_mixed_kinds_are_rejected():
    # A lower bound without an explicit pair (k = 3: the larger of two pairs) composes neither way.
    with pytest.raises(ValueError, match="not composable"):
        compose_bound(TwoPairKRRLowerBound(mechanism="krr", k=3), 1_000, 1.0, 2)
    with pytest.raises(ValueError, match="lower-bound"):
        compose_rounds([Round(SC, 1_000, 1.0), Round(EXACT, 1_000, 1.0)])


@pytest.mark.parametrize("value", ["0", "-2", "2.5", "abc", str(MAX_ROUNDS + 1)])
def test_cli_rejects_bad_compose(value, capsys):
    argv = ["epsilon", "--bound", "clones", "--n", "1000", "--eps0", "1", "--delta", "1e-6", "--compose", value]
    assert main(argv) == 2
    assert "compose" in capsys.readouterr().err


def test_cli_compose_reports_the_baselines(capsys):
    import json

    argv = ["epsilon", "--bound", "stronger-clones", "--n", "1000", "--eps0", "1", "--delta", "1e-6"]
    assert main([*argv, "--compose", "10", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["compose"] == 10
    assert record["eps"] <= min(record["baselines"].values())
    assert set(record["baselines"]) == {"rdp", "advanced", "naive"}
    assert main([*argv, "--compose", "1"]) == 0
    one = float(capsys.readouterr().out.strip().splitlines()[-1])
    assert SC.epsilon(1000, 1.0, 1e-6) <= one <= record["eps"]


def test_itertools_product_check_is_exhaustive():
    # The product helper enumerates every sequence of atoms (guards the tiny-n tests above).
    p = np.array([0.2, 0.3, 0.5])
    expected = [a * b * c for a, b, c in itertools.product(p, repeat=3)]
    assert np.allclose(_product(p, 3), expected)


def test_a_round_with_every_loss_infinite_composes_to_delta_one():
    # One round reveals the input with certainty: so do any number of rounds (no window to fit).
    blind = from_log_pmfs(np.log([0.5, 0.5]), np.array([-np.inf, -np.inf]), step=1e-3)
    assert blind.inf_mass == 1.0
    composed = compose([(blind, 10_000)])
    assert composed.rounds == 10_000 and composed.inf_mass == 1.0
    assert composed.delta(1e3) == 1.0
    # No finite loss carries mass: its log-mgf is the empty sum's, and no tilt helps (once a
    # zero-size reduction: segmented-exact, n = 6, λ = 0.642, T = 7 stopped with that error).
    assert np.all(blind.log_mgf(np.array([0.0, 1.0, 1e6])) == -np.inf)
    assert tilt_for([(blind, 10_000)], delta=1e-6) == 0.0


def test_the_slack_terms_at_a_tiny_eps0_are_small_and_still_bound_the_fft_error():
    # Losses of about 1e-9 read at δ ~ 1e-15: the weights (1 − e^{ε − ℓ})^+ are below 1e-8, and so
    # are the slack terms they multiply (issue 25). Against a direct convolution (sums of
    # nonnegative terms, relative error ~1e-14), the FFT's δ plus its slack is above, minus its
    # slack below, at every ε, untilted and tilted (about the saddle point of ε = 5e-9).
    from shufflelib.composition.clone_pld import clone_pair_pld

    n, eps0, rounds = 14_912_624, 1.345e-6, 10
    ld = clone_pair_pld(n, eps0, 2 / (math.exp(eps0) + 1), 7e-12)
    direct = ld.mass
    for _ in range(rounds - 1):
        direct = np.convolve(direct, ld.mass)
    losses = (rounds * ld.offset + np.arange(direct.size)) * ld.step
    inf = -math.expm1(rounds * math.log1p(-ld.inf_mass))
    for theta in (0.0, 2.0**26.5):
        up = compose([(ld, rounds)], tilt=theta)
        low = LossDistribution(**{**up.__dict__, "pessimistic": False, "cache": {}})
        for eps in (0.0, 2e-9, 4.9e-9, 8e-9):
            above = losses > eps
            exact = float(direct[above] @ -np.expm1(eps - losses[above])) + inf
            assert low.delta(eps) <= exact * (1 + 1e-12) <= up.delta(eps) * (1 + 2e-12)
            if exact > 1e-16:
                assert up._slack(eps) <= 1e-3 * exact  # the slack once swamped δ here
