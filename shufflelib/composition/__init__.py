r"""Composition: the privacy of repeated shuffled collection.

``T`` rounds of a shuffled protocol (daily telemetry, rounds of federated
learning) are a ``T``-fold adaptive composition. When a bound is the privacy
curve of a dominating pair ``(P, Q)`` (a pair whose hockey-stick divergences
dominate the round's, for every pair of neighbouring datasets), the ``T``
rounds are dominated by ``(P^T, Q^T)`` (Zhu, Dong, Wang 2022), whose privacy
loss distribution is the ``T``-fold convolution of the round's. This package
discretizes that distribution on the pessimistic side and convolves by FFT
(:mod:`~shufflelib.composition.pld`); clone pairs get their distribution
without enumerating their ``O(n^{1.5})`` atoms
(:mod:`~shufflelib.composition.clone_pld`); baselines (Rényi DP, advanced and
naive composition) are in :mod:`~shufflelib.composition.baselines`.

Composable bounds (:func:`round_distributions`):

* ``clones`` and ``stronger-clones`` — their clone pairs (upper bounds);
* ``krr-two-pair-lower`` with ``k = 2`` — the exact pair of its datasets, discretized on
  the *optimistic* side: a **lower bound** on the composed privacy, like the
  single-round curve;
* any bound object with a ``dominating_pair(n, eps0)`` method returning a
  :class:`~shufflelib.curves.DominatingPair` (the pair is discretized as given).

Bounds that are only a δ(ε) profile or a closed form (``erlingsson``,
``blanket-*``, ``clones-closed``) are not composed here: a profile is a
dominating pair only through the profile-to-pair construction, not implemented
yet; their ε can still be composed by the advanced composition baseline.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

from .._roots import last_true
from .._validation import check_int, check_positive, check_probability
from ..bounds import AmplificationBound, NotApplicableError
from ..bounds.base import _check_n_eps0
from ..bounds.clones import ClonePairBound, binomial_range
from ..bounds.exact import TwoPairKRRLowerBound
from ..curves import PrivacyCurve
from .baselines import advanced_epsilon, naive_epsilon, rdp_epsilon
from .clone_pld import MAX_BINS, clone_pair_pld
from .pld import LossDistribution, compose, from_log_pmfs

__all__ = [
    "MAX_ROUNDS",
    "ComposedCurve",
    "Round",
    "check_rounds",
    "compare_composition",
    "compare_over_rounds",
    "compose_bound",
    "compose_rounds",
    "default_step",
    "max_eps0_composed",
    "round_distributions",
]

#: Largest number of rounds accepted (beyond, the FFT windows outgrow memory at useful steps).
MAX_ROUNDS = 10_000


def check_rounds(rounds: object) -> int:
    """Validate a number of rounds: an integer in ``[1, MAX_ROUNDS]``.

    Examples
    --------
    >>> from shufflelib.composition import check_rounds
    >>> check_rounds(10)
    10
    >>> check_rounds(0)
    Traceback (most recent call last):
    ...
    ValueError: rounds must be an integer >= 1 and <= 10000, got 0
    """
    return check_int("rounds", rounds, minimum=1, maximum=MAX_ROUNDS)


@dataclass(frozen=True)
class Round:
    """``count`` rounds of one shuffled protocol: a bound, ``n`` users, local ``eps0``.

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import Round
    >>> Round(StrongerClones(mechanism="krr", k=2), n=10_000, eps0=1.0, count=5).count
    5
    """

    bound: AmplificationBound
    n: int
    eps0: float
    count: int = 1


def _exact_krr_pair(n: int, eps0: float) -> tuple[np.ndarray, np.ndarray]:
    """Log-pmfs of the number of 1-reports: all users hold 0 (``X0``) vs user 1 holds 1 (``X1``), binary RR."""
    p_lo = 1.0 / (1.0 + math.exp(eps0))
    p_hi = 1.0 - p_lo
    lo, hi = binomial_range(n - 1, p_lo, 1e-30)
    x = np.arange(lo, hi + 2, dtype=float)
    base, shifted = binom.logpmf(x, n - 1, p_lo), binom.logpmf(x - 1.0, n - 1, p_lo)
    log_x0 = np.logaddexp(math.log(p_hi) + base, math.log(p_lo) + shifted)
    log_x1 = np.logaddexp(math.log(p_lo) + base, math.log(p_hi) + shifted)
    return log_x0, log_x1


def round_distributions(
    bound: AmplificationBound, n: int, eps0: float, step: float
) -> tuple[tuple[LossDistribution, ...], bool]:
    """The discretized loss distributions of one round, and whether they are a lower bound.

    Returns one distribution for a symmetric pair (both orders alike) and two
    (``P‖Q``, ``Q‖P``) otherwise.

    Raises
    ------
    ValueError
        If the bound is not composable (see the module docstring).

    Examples
    --------
    >>> from shufflelib.bounds import ClonesNumerical
    >>> from shufflelib.composition import round_distributions
    >>> lds, lower = round_distributions(ClonesNumerical(), 1_000, 1.0, 1e-4)
    >>> len(lds), lower, lds[0].pessimistic
    (1, False, True)
    """
    n, eps0 = _check_n_eps0(n, eps0)
    bound._require(n, eps0)
    if isinstance(bound, ClonePairBound):
        return (clone_pair_pld(n, eps0, bound.clone_probability(eps0), step),), False
    if isinstance(bound, TwoPairKRRLowerBound) and bound.k == 2:
        log_x0, log_x1 = _exact_krr_pair(n, eps0)
        pair = (log_x0, log_x1), (log_x1, log_x0)
        return tuple(from_log_pmfs(a, b, step, pessimistic=False, max_loss=eps0) for a, b in pair), True
    pair_fn = getattr(bound, "dominating_pair", None)
    if callable(pair_fn):
        pair = pair_fn(n, eps0)
        orders = [(pair.log_p, pair.log_q)] + ([(pair.log_q, pair.log_p)] if pair.symmetric else [])
        lds = []
        for lp, lq in orders:
            ld = from_log_pmfs(lp, lq, step)
            lds.append(LossDistribution(ld.step, ld.offset, ld.mass, min(1.0, ld.inf_mass + pair.tail_mass)))
        return tuple(lds), False
    raise ValueError(
        f"the {bound.name} bound is not composable: composition needs a dominating pair "
        "(composable: clones, stronger-clones, krr-two-pair-lower with k=2)"
    )


def default_step(n: int, eps0: float, rounds: int) -> float:
    """Default grid spacing: ``min(1e-4, 0.01 / rounds, σ / 50)``, σ the clone pair's loss scale.

    (At least ``4 eps0 / MAX_BINS``, so that one round fits its grid; for many rounds at
    few users the discretization error ``rounds · step`` then exceeds 0.01, and is reported.)

    ``σ = 2 tanh(eps0/2) / sqrt(1 + (n − 1) · 2/(e^{eps0} + 1))`` (the standard
    deviation of one round's loss for stronger clones).

    Examples
    --------
    >>> from shufflelib.composition import default_step
    >>> default_step(1_000_000, 1.0, 1000)
    1e-05
    """
    scale = 2.0 * math.tanh(eps0 / 2.0) / math.sqrt(1.0 + (n - 1) * 2.0 / (math.exp(min(eps0, 700.0)) + 1.0))
    # ... but never so fine that one round's grid over [-eps0, eps0] exceeds MAX_BINS / 2 points.
    return max(min(1e-4, 0.01 / rounds, scale / 50.0), 4.0 * eps0 / MAX_BINS)


class ComposedCurve(PrivacyCurve):
    """The privacy curve of composed rounds, from their discretized loss distributions.

    ``delta`` is the largest hockey-stick divergence over the stored orders
    (one for symmetric pairs); it is an upper bound (or a lower bound when
    :attr:`lower_bound`) including the truncation and rounding terms, and
    :attr:`discretization_error` bounds how far ``epsilon`` may be from the exact
    composition of the pairs.

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import compose_bound
    >>> curve = compose_bound(StrongerClones(mechanism="krr", k=2), 10_000, 1.0, rounds=10)
    >>> single = StrongerClones(mechanism="krr", k=2).epsilon(10_000, 1.0, 1e-6)
    >>> single < curve.epsilon(1e-6) < 10 * single
    True
    """

    def __init__(self, distributions: Sequence[LossDistribution], lower_bound: bool = False) -> None:
        if not distributions:
            raise ValueError("distributions must not be empty")
        self.distributions = tuple(distributions)
        self.lower_bound = bool(lower_bound)

    @property
    def rounds(self) -> int:
        """Number of composed rounds."""
        return self.distributions[0].rounds

    @property
    def discretization_error(self) -> float:
        """``rounds · step``: the composed ε is within this of the exact composition's ε."""
        return self.distributions[0].discretization_error

    def _delta_array(self, eps: np.ndarray) -> np.ndarray:
        return np.array([max(ld.delta(float(e)) for ld in self.distributions) for e in eps])


def compose_rounds(rounds: Sequence[Round], step: float | None = None) -> ComposedCurve:
    """Compose heterogeneous rounds (different bounds, ``n`` or ``eps0``).

    Parameters
    ----------
    rounds
        The rounds; the total count is at most :data:`MAX_ROUNDS`.
    step
        Grid spacing of the losses (default: the smallest :func:`default_step` of the rounds).

    Examples
    --------
    A day with 10⁴ users and one with 10⁵:

    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import Round, compose_rounds
    >>> sc = StrongerClones(mechanism="krr", k=2)
    >>> both = compose_rounds([Round(sc, 10_000, 1.0), Round(sc, 100_000, 1.0)])
    >>> sc.epsilon(10_000, 1.0, 1e-6) < both.epsilon(1e-6)
    True
    """
    rounds = list(rounds)
    if not rounds:
        raise ValueError("rounds must hold at least one Round")
    total = check_rounds(sum(check_int("count", r.count, minimum=1) for r in rounds))
    if step is None:
        step = min(default_step(r.n, r.eps0, total) for r in rounds)
    step = check_positive("step", step)
    parts = [(round_distributions(r.bound, r.n, r.eps0, step), r.count) for r in rounds]
    kinds = {lower for (_, lower), _ in parts}
    if len(kinds) > 1:
        raise ValueError("cannot compose lower-bound curves (krr-two-pair-lower) with upper bounds")
    orders = max(len(lds) for (lds, _), _ in parts)
    composed = [compose([(lds[min(i, len(lds) - 1)], count) for (lds, _), count in parts]) for i in range(orders)]
    return ComposedCurve(composed, lower_bound=kinds.pop())


def compose_bound(
    bound: AmplificationBound, n: int, eps0: float, rounds: int, step: float | None = None
) -> ComposedCurve:
    """``rounds``-fold composition of one shuffled protocol's bound.

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import compose_bound
    >>> curve = compose_bound(StrongerClones(mechanism="krr", k=2), 1_000_000, 1.0, rounds=1000)
    >>> round(curve.epsilon(1e-6), 2), curve.discretization_error
    (0.15, 0.01)
    """
    rounds = check_rounds(rounds)
    return compose_rounds([Round(bound, n, eps0, rounds)], step)


def max_eps0_composed(
    bound: AmplificationBound, n: int, eps: float, delta: float, rounds: int, *, rtol: float = 1e-4
) -> float:
    """Largest ``eps0`` per round such that ``rounds`` rounds are ``(eps, delta)``-DP (rounded down).

    Searched to relative precision ``rtol`` (each step composes the rounds afresh).

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import compose_bound, max_eps0_composed
    >>> sc = StrongerClones(mechanism="krr", k=2)
    >>> e0 = max_eps0_composed(sc, 10_000, 1.0, 1e-6, rounds=10)
    >>> compose_bound(sc, 10_000, e0, 10).epsilon(1e-6) <= 1.0
    True
    """
    n = check_int("n", n, minimum=2)
    eps = check_positive("eps", eps)
    delta = check_probability("delta", delta)
    rounds = check_rounds(rounds)

    def value(e0: float) -> float:
        return compose_bound(bound, n, e0, rounds).epsilon(delta)

    def ok(e0: float) -> bool:
        return value(e0) <= eps

    # Composition never beats one round: the single-round answer brackets the search from above.
    hi = bound.max_eps0(n, eps, delta)
    lo = min(eps / (2.0 * rounds), hi)  # rounds of pure eps/(2 rounds)-DP: eps/2 plus the discretization error
    if not ok(lo):
        raise NotApplicableError(f"no eps0 >= {lo} reaches eps={eps}, delta={delta} in {rounds} rounds")
    return last_true(ok, lambda e0: value(e0) - eps, lo, hi, rtol=rtol, atol=0.0)


def compare_composition(
    bound: AmplificationBound, n: int, eps0: float, rounds: int, delta: float, step: float | None = None
) -> dict[str, float | bool]:
    """ε of ``rounds`` rounds at ``delta`` by PLD composition and by the three baselines.

    Returns a dict with keys ``pld``, ``rdp``, ``advanced``, ``naive``,
    ``discretization_error`` and ``lower_bound`` (true for ``krr-two-pair-lower``,
    whose curves are lower bounds). The baselines use the same round: Rényi DP
    from the same pessimistic distribution, advanced and naive composition from
    the bound's own ε(δ).

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import compare_composition
    >>> r = compare_composition(StrongerClones(mechanism="krr", k=2), 10_000, 1.0, 10, 1e-6)
    >>> r["pld"] < r["rdp"] < r["naive"] and r["pld"] < r["advanced"]
    True
    """
    rounds = check_rounds(rounds)
    delta = check_probability("delta", delta)
    curve = compose_bound(bound, n, eps0, rounds, step)
    single = compose_bound(bound, n, eps0, 1, step).distributions

    def one(d: float) -> float:
        return bound.epsilon(n, eps0, d)

    return {
        "pld": curve.epsilon(delta),
        "rdp": rdp_epsilon(single, rounds, delta),
        "advanced": advanced_epsilon(one, rounds, delta),
        "naive": naive_epsilon(one, rounds, delta),
        "discretization_error": curve.discretization_error,
        "lower_bound": curve.lower_bound,
    }


def compare_over_rounds(
    bound: AmplificationBound, n: int, eps0: float, rounds: Sequence[int], delta: float
) -> dict[str, np.ndarray]:
    """:func:`compare_composition` for several numbers of rounds, building the round once.

    The grid step is :func:`default_step` for the largest number of rounds. Returns arrays
    (one entry per number of rounds) under ``pld``, ``rdp``, ``advanced``,
    ``naive`` and ``rounds``.

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import compare_over_rounds
    >>> r = compare_over_rounds(StrongerClones(mechanism="krr", k=2), 10_000, 1.0, [1, 10, 100], 1e-6)
    >>> bool((r["pld"] <= r["rdp"]).all() and (r["pld"][1:] < r["advanced"][1:]).all())
    True
    """
    counts = [check_rounds(t) for t in rounds]
    delta = check_probability("delta", delta)
    step = default_step(n, eps0, max(counts))
    lds, lower = round_distributions(bound, n, eps0, step)
    cache: dict[float, float] = {}

    def one(d: float) -> float:
        if d not in cache:
            cache[d] = bound.epsilon(n, eps0, d)
        return cache[d]

    out: dict[str, list[float]] = {"pld": [], "rdp": [], "advanced": [], "naive": []}
    for t in counts:
        out["pld"].append(ComposedCurve([compose([(ld, t)]) for ld in lds], lower).epsilon(delta))
        out["rdp"].append(rdp_epsilon(lds, t, delta))
        out["advanced"].append(advanced_epsilon(one, t, delta))
        out["naive"].append(naive_epsilon(one, t, delta))
    return {"rounds": np.array(counts), **{key: np.array(v) for key, v in out.items()}}
