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

Every bound composes (:func:`round_distributions`, :func:`bound_model`), by one of two
routes:

* **its own dominating pair** (``"pair"``): ``clones`` and ``stronger-clones`` (their clone
  pairs, upper bounds); ``exact-krr`` beyond its exact search (single-round answer: a
  certified bracket) and ``thinned-clones``: the stronger-clone pair, which dominates both
  (the thinned pair is a post-processing of it; composing the thinned pair itself, a mixture
  of tens of thousands of clone pairs, is not implemented), with the stronger-clone
  single-round ε in the baselines; any bound object with a
  ``dominating_pair(n, eps0)`` method returning a :class:`~shufflelib.curves.DominatingPair`;
  ``krr-two-pair-lower`` with ``k = 2`` (``"lower pair"``): the exact pair of its datasets,
  discretized on the *optimistic* side, a **lower bound** on the composed privacy, like the
  single-round curve;
* **the pair built from its privacy profile** (``"profile"``,
  :mod:`~shufflelib.composition.profile`): every other upper bound (``erlingsson``,
  ``blanket-*``, ``clones-closed``, ``variation-ratio``, ``exact-krr`` within its search — a
  maximum over datasets, hence only a profile — and the personalized, population and
  segmented bounds through :func:`~shufflelib.composition.model.profile_model`).

A bound the library knows may be unsound stays so when composed: the composition is a valid
bound only if the round's bound is (the calculator keeps the warning).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy.stats import binom

from .._validation import EPS0_LIMIT, check_eps0, check_int, check_n, check_positive, check_probability
from .._validation import MAX_ROUNDS as _BOX_ROUNDS
from ..bounds import AmplificationBound, BlanketBennett
from ..bounds.base import NotApplicableError
from ..bounds.clones import ClonePairBound, binomial_range
from ..bounds.exact import ExactKRR, TwoPairKRRLowerBound
from ..bounds.krr_worst_case import worst_case_delta
from ..bounds.stronger_clones import StrongerClones
from ..bounds.thinned_clones import ThinnedClones
from ..bounds.variation_ratio import VariationRatioBound
from ..curves import invert_profile
from ..segmented.clone_pairs import RESOLUTION
from .baselines import advanced_epsilon, naive_epsilon, rdp_epsilon
from .clone_pld import clone_pair_pld
from .model import (
    COARSE,
    COMPANION_REFINE,
    ComposedCurve,
    RoundModel,
    composed_delta,
    composed_epsilon,
    composed_record,
    largest_composed,
    profile_model,
    profile_step,
)
from .pld import MERGE_REACH, LossDistribution, from_log_pmfs
from .profile import profile_end, sampled_profile_pld
from .subsampling import randomized_response_profile, subsampled_profile

__all__ = [
    "LOWER_PAIR_REFINE",
    "MAX_ROUNDS",
    "ComposedCurve",
    "Round",
    "RoundModel",
    "bound_model",
    "bound_step",
    "check_rounds",
    "compare_composition",
    "compare_over_rounds",
    "compose_bound",
    "compose_rounds",
    "composed_delta",
    "composed_epsilon",
    "composed_record",
    "default_step",
    "largest_composed",
    "max_eps0_composed",
    "pair_step",
    "POINTS_PER_SCALE",
    "profile_model",
    "profile_step",
    "round_distributions",
    "route",
    "subsampled_model",
]

#: Largest number of rounds accepted (the calculator's box; beyond, the FFT windows outgrow
#: memory at useful steps).
MAX_ROUNDS: int = _BOX_ROUNDS


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


def route(bound: AmplificationBound, n: int) -> str:
    """How ``bound`` composes at ``n`` users: ``"pair"``, ``"lower pair"`` or ``"profile"``.

    Examples
    --------
    >>> from shufflelib.bounds import BlanketBennett, ExactKRR, StrongerClones
    >>> from shufflelib.composition import route
    >>> route(StrongerClones(mechanism="krr", k=2), 1000), route(BlanketBennett(), 1000)
    ('pair', 'profile')
    >>> route(ExactKRR(mechanism="krr", k=2), 50), route(ExactKRR(mechanism="krr", k=2), 10**6)
    ('profile', 'pair')
    """
    if isinstance(bound, ClonePairBound) or callable(getattr(bound, "dominating_pair", None)):
        return "pair"
    if isinstance(bound, ThinnedClones) or (isinstance(bound, ExactKRR) and not _exact_profile_fits(bound, n)):
        return "pair"  # the stronger-clone pair, which dominates both
    if isinstance(bound, TwoPairKRRLowerBound) and bound.k == 2:
        return "lower pair"
    if not bound.upper:
        raise ValueError(
            f"the {bound.name} bound is a lower bound without an explicit pair: it is not composable "
            "(a profile composes only as an upper bound)"
        )
    return "profile"


#: Largest n at which the exact worst case of binary RR is composed through its profile (its
#: branch and bound at every point of the profile's grid stays within about a second).
EXACT_PROFILE_MAX_N = 64


def _exact_profile_fits(bound: ExactKRR, n: int) -> bool:
    """Whether the exact k-RR worst case is composed through its own profile at ``n`` (else its bracket's upper end)."""
    if bound.k == 2:
        return n <= EXACT_PROFILE_MAX_N
    return bound.is_exact(n, "delta")


def _composed_bound(bound: AmplificationBound, how: str) -> AmplificationBound:
    """The bound whose pair a ``"pair"`` route composes: stronger clones for exact-krr beyond its
    search and for thinned clones (its pair dominates both), else the bound itself."""
    if how == "pair" and isinstance(bound, (ExactKRR, ThinnedClones)):
        return StrongerClones(mechanism="krr", k=bound.k)
    return bound


def _bound_profile(bound: AmplificationBound, n: int, eps0: float):
    """The bound's δ(ε) at ``(n, eps0)``, vectorized (the exact k-RR search runs once for all ε)."""
    if isinstance(bound, ExactKRR):
        return lambda e: worst_case_delta(n, bound.k, eps0, np.minimum(e, eps0), bound.work_limit).delta
    if isinstance(bound, VariationRatioBound):  # its clone pair's profile is vectorized
        pair = bound.pair(n, eps0)
        return lambda e: np.where(e < eps0, np.minimum(pair.delta(np.minimum(e, eps0), RESOLUTION), 1.0), 0.0)
    return lambda e: np.array([bound.delta(n, eps0, float(x)) for x in e])


def _applicable(bound: AmplificationBound, n: int, eps0: float) -> tuple[int, float]:
    """Validated ``(n, eps0)`` covered by the bound's theorem (else :class:`NotApplicableError`)."""
    n, eps0 = check_n(n), check_eps0(eps0)
    reason = bound.validity(n, eps0)
    if reason is not None:
        raise NotApplicableError(f"{bound.name} bound not applicable: {reason}")
    return n, eps0


def round_distributions(
    bound: AmplificationBound,
    n: int,
    eps0: float,
    step: float,
    *,
    companion: bool = False,
    reach: int | None = None,
    coarse: bool = False,
) -> tuple[tuple[LossDistribution, ...], bool]:
    """The discretized loss distributions of one round, and whether they are a lower bound.

    Returns one distribution for a symmetric pair (both orders alike) and two
    (``P‖Q``, ``Q‖P``) otherwise. The route is :func:`route`'s (module docstring): a pair is
    discretized by connecting the dots (an upper bound), the lower pair of
    ``krr-two-pair-lower`` by merging (a lower bound). With ``companion``, the same pair on
    the other side instead (merged for an upper route, connected for the lower pair; the exact
    composition of the pair lies between the two; merging carries parts of bins up to ``reach``
    grid points, default :data:`~shufflelib.composition.pld.MERGE_REACH`, times
    :data:`LOWER_PAIR_REFINE` for the lower pair); a profile has none (``ValueError``). ``coarse``:
    a cheaper list of a clone pair's atoms (still valid), for the first guesses of a search.

    Raises
    ------
    ValueError
        If the bound is a lower bound other than ``krr-two-pair-lower`` with ``k = 2``, or a
        companion is asked of a profile.

    Examples
    --------
    >>> from shufflelib.bounds import ClonesNumerical
    >>> from shufflelib.composition import round_distributions
    >>> lds, lower = round_distributions(ClonesNumerical(), 1_000, 1.0, 1e-4)
    >>> len(lds), lower, lds[0].pessimistic
    (1, False, True)
    >>> round_distributions(ClonesNumerical(), 1_000, 1.0, 1e-4, companion=True)[0][0].pessimistic
    False
    """
    n, eps0 = _applicable(bound, n, eps0)
    how = route(bound, n)
    bound = _composed_bound(bound, how)
    upper = (how != "lower pair") != companion  # which side these distributions bound
    if reach is None:
        reach = MERGE_REACH * (LOWER_PAIR_REFINE if how == "lower pair" and not companion else 1)
    if how == "profile":
        if companion:
            raise ValueError(f"the {bound.name} bound composes through its profile: it has no pair to bracket")
        return (sampled_profile_pld(_bound_profile(bound, n, eps0), step, eps_max=eps0),), False
    if isinstance(bound, ClonePairBound):
        ld = clone_pair_pld(n, eps0, bound.clone_probability(eps0), step, pessimistic=upper, reach=reach, coarse=coarse)
        return (ld,), not upper
    if how == "lower pair":
        log_x0, log_x1 = _exact_krr_pair(n, eps0)
        orders = ((log_x0, log_x1), (log_x1, log_x0))
        return tuple(
            from_log_pmfs(a, b, step, pessimistic=upper, max_loss=eps0, reach=reach) for a, b in orders
        ), not upper
    pair = bound.dominating_pair(n, eps0)
    orders = [(pair.log_p, pair.log_q)] + ([] if pair.symmetric else [(pair.log_q, pair.log_p)])
    lds = []
    for lp, lq in orders:
        ld = from_log_pmfs(lp, lq, step, pessimistic=upper, reach=reach)
        if upper:  # the pair's own missing mass, at +inf
            ld = replace(ld, inf_mass=min(1.0, ld.inf_mass + pair.tail_mass), cache={})
        lds.append(ld)
    return tuple(lds), not upper


#: The lower pair (``krr-two-pair-lower``, one atom per count of 1-reports: a lattice) is merged on a
#: grid this many times finer than :func:`default_step`, carrying parts as far in loss: merging
#: loses up to 0.3 % of ε on a lattice at the default grid, below 0.05 % at this one.
LOWER_PAIR_REFINE = 8

#: Grid points per standard deviation of one round's loss (:func:`pair_step`): connecting the
#: dots at this spacing adds about ``1 / (8 · 50²) = 5e-5`` of the loss's variance, whatever
#: the number of rounds (the answer moves by about 1e-5 relative from 40 to 200 points).
POINTS_PER_SCALE = 50.0


def default_step(n: int, eps0: float, rounds: int) -> float:
    """Default grid spacing of a clone pair: :func:`pair_step` of its loss scale ``σ``.

    ``σ = 2 tanh(eps0/2) / sqrt(1 + (n − 1) · 2/(e^{eps0} + 1))`` (about the standard
    deviation of one round's loss for stronger clones). Profile-route bounds use
    :func:`~shufflelib.composition.model.profile_step` instead (:func:`bound_step`).

    Examples
    --------
    >>> from shufflelib.composition import default_step
    >>> round(default_step(1_000_000, 1.0, 1000), 8)
    2.52e-05
    """
    scale = 2.0 * math.tanh(eps0 / 2.0) / math.sqrt(1.0 + (n - 1) * 2.0 / (math.exp(min(eps0, 700.0)) + 1.0))
    return pair_step(scale, eps0, rounds)


def pair_step(scale: float, eps0: float, rounds: int) -> float:
    """Grid spacing ``scale / POINTS_PER_SCALE`` for a pair whose loss has standard deviation about
    ``scale`` (connect the dots: the error does not grow with ``rounds``, and one round's grid
    covers its listed atoms, about ``±12 scale``; the arguments ``eps0`` and ``rounds`` are
    kept for callers that pass them), at least ``eps0 · 1e-12``.

    Examples
    --------
    >>> from shufflelib.composition import pair_step
    >>> pair_step(0.01, 1.0, 10)
    0.0002
    """
    return max(scale / POINTS_PER_SCALE, eps0 * 1e-12)


def bound_step(bound: AmplificationBound, n: int, eps0: float, rounds: int) -> float:
    """Default grid spacing for ``rounds`` rounds of ``bound``: :func:`default_step` for a pair (divided by
    :data:`LOWER_PAIR_REFINE` for the lower pair), :func:`~shufflelib.composition.model.profile_step`
    at the profile's end for a profile.

    Examples
    --------
    >>> from shufflelib.bounds import BlanketHoeffding
    >>> from shufflelib.composition import bound_step
    >>> 1e-6 < bound_step(BlanketHoeffding(), 10_000, 1.0, 10) <= 1e-3
    True
    """
    how = route(bound, n)
    if how != "profile":
        return default_step(n, eps0, rounds) / (LOWER_PAIR_REFINE if how == "lower pair" else 1)
    n, eps0 = _applicable(bound, n, eps0)
    return profile_step(profile_end(_bound_profile(bound, n, eps0), eps0), rounds)


def bound_model(bound: AmplificationBound, n: int, sample_rate: float | None = None) -> RoundModel:
    """The :class:`~shufflelib.composition.model.RoundModel` of ``n`` users running ``bound``, in ``eps0``.

    With ``sample_rate`` ``q``: each user takes part in a round with probability ``q``
    (:func:`subsampled_model`).

    Examples
    --------
    >>> from shufflelib.bounds import ExactKRR
    >>> from shufflelib.composition import bound_model
    >>> bound_model(ExactKRR(mechanism="krr", k=2), 10**6).note[:40]
    'composed: the stronger-clone pair, which'
    """
    n = check_n(n)
    if sample_rate is not None:
        return subsampled_model(bound, n, sample_rate)
    how = route(bound, n)
    note = None
    if isinstance(bound, ExactKRR) and how == "pair":
        note = (
            "composed: the stronger-clone pair, which dominates the certified bracket's upper end; "
            f"n = {n} is beyond the exact search"
        )
    if isinstance(bound, ThinnedClones):
        note = "composed: the stronger-clone pair, which dominates the thinned-clone pair"
    composes_stronger_pair = how == "pair" and isinstance(bound, (ExactKRR, ThinnedClones))
    bound = _composed_bound(bound, how)  # its pair is composed, and its ε in the baselines
    if how == "profile":
        # The exact k-RR worst case is at least its two explicit pairs: their (fast) single-round
        # answer brackets the composed search from above.
        top = TwoPairKRRLowerBound(mechanism="krr", k=bound.k) if isinstance(bound, ExactKRR) else bound
        return profile_model(
            lambda e0: _bound_profile(bound, n, e0),
            lambda e0, d: bound.epsilon(n, e0, d),
            lambda e, d: top.max_eps0(n, e, d),
            cap=lambda e0: e0,
            note=note,
        )
    alternative = None
    if composes_stronger_pair and bound.k >= 3:
        # For k >= 3 the stronger-clone pair is looser than the bound it stands for (thinned
        # clones), and than blanket Bennett's profile near small δ: that profile, valid for k-RR,
        # composes too, and the tighter answers (benchmarks/ordering_check.py).
        alternative = replace(
            bound_model(BlanketBennett(mechanism="krr", k=bound.k), n),
            note="composed: blanket Bennett's profile (valid for k-RR), tighter here than the stronger-clone pair",
        )
    return RoundModel(
        alternative=alternative,
        route=how,
        build=lambda e0, step, coarse=False: round_distributions(bound, n, e0, step, coarse=coarse)[0],
        step=lambda e0, rounds: bound_step(bound, n, e0, rounds),
        epsilon=lambda e0, d: bound.epsilon(n, e0, d),
        largest=lambda e, d: bound.max_eps0(n, e, d),
        note=note,
        lower_bound=how == "lower pair",
        coarse=COARSE,
        cap=lambda e0: e0,  # every shuffled eps0-LDP protocol is eps0-DP
        companion=lambda e0, step, reach: round_distributions(bound, n, e0, step, companion=True, reach=reach)[0],
    )


def _profile_at_users(bound: AmplificationBound, users: int, eps0: float) -> Callable[[np.ndarray], np.ndarray]:
    """A vectorized upper bound on the shuffle's δ(ε) at ``users`` users: the bound's own pair (connected
    on its default grid) or profile; randomized response where the bound does not apply there."""
    if bound.validity(users, eps0) is not None:
        return randomized_response_profile(eps0)
    how = route(bound, users)
    composed = _composed_bound(bound, how)
    if how == "profile":
        return _bound_profile(composed, users, eps0)
    lds, _ = round_distributions(composed, users, eps0, default_step(users, eps0, 1))
    return lambda e: np.max([ld.profile(e) for ld in lds], axis=0)


#: Profile points of a subsampled round (every point of its grid): its profile is vectorized and
#: cheap, and the pair built from 128 points loses about 3 % of ε over 100 rounds (q = 1, where
#: the pair route is the truth), from every point about 0.1 %.
SUBSAMPLED_POINTS = 2048


def subsampled_model(bound: AmplificationBound, n: int, q: float) -> RoundModel:
    """The round model of ``n`` users each taking part with probability ``q``, running ``bound``, in ``eps0``.

    The profile route of the subsampled round's profile
    (:func:`~shufflelib.composition.subsampling.subsampled_profile`: substitution neighbours,
    the shuffle bound at the number of participants, Zhu, Dong and Wang's subsampled pair per
    count of reports, symmetrized); pure DP from ``log(1 + π_max (e^{ε₀} − 1))`` on.

    Raises
    ------
    NotApplicableError
        For a lower bound (``krr-two-pair-lower``): the construction composes upper bounds.

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import bound_model, composed_epsilon
    >>> sc = StrongerClones(mechanism="krr", k=2)
    >>> full = composed_epsilon(bound_model(sc, 10_000), 1.0, 10, 1e-6)["eps"]
    >>> tenth = composed_epsilon(bound_model(sc, 10_000, sample_rate=0.1), 1.0, 10, 1e-6)["eps"]
    >>> tenth < full
    True
    """
    n = check_n(n)
    if not bound.upper:
        raise NotApplicableError(
            f"{bound.name} bound not applicable: subsampled rounds compose upper bounds, and it is a lower bound"
        )
    cache: dict[float, tuple[Callable[[np.ndarray], np.ndarray], float]] = {}

    def round_profile(eps0: float) -> tuple[Callable[[np.ndarray], np.ndarray], float]:
        if eps0 not in cache:
            if len(cache) > 16:
                cache.clear()
            # A pair's profile is vectorized; a bound's own is costly per point: tabulated.
            tabulate = route(bound, n) == "profile"
            cache[eps0] = subsampled_profile(lambda k: _profile_at_users(bound, k, eps0), n, eps0, q, tabulate=tabulate)
        return cache[eps0]

    def epsilon(eps0: float, delta: float) -> float:
        profile, _ = round_profile(eps0)
        return invert_profile(lambda e: float(profile(np.array([e]))[0]), delta)

    return profile_model(
        lambda e0: round_profile(e0)[0],
        epsilon,
        lambda eps, delta: EPS0_LIMIT,  # no closed single-round answer: the search starts at the box's top
        cap=lambda e0: round_profile(e0)[1],
        points=SUBSAMPLED_POINTS,
    )


def _checked_rounds(rounds: object) -> list[Round]:
    """The plan of :func:`compose_rounds` as a list of valid :class:`Round` (``ValueError`` naming the entry)."""
    if isinstance(rounds, Round) or not isinstance(rounds, Sequence) or isinstance(rounds, str):
        raise ValueError(f"rounds must be a list of Round, got {type(rounds).__name__}")
    if not rounds:
        raise ValueError("rounds must hold at least one Round")
    checked = []
    for i, r in enumerate(rounds):
        if not isinstance(r, Round):
            raise ValueError(f"rounds[{i}] must be a Round(bound, n, eps0, count), got {type(r).__name__}")
        if not isinstance(r.bound, AmplificationBound):
            raise ValueError(f"rounds[{i}].bound must be an AmplificationBound, got {type(r.bound).__name__}")
        checked.append(
            replace(
                r,
                n=check_n(r.n, f"rounds[{i}].n"),
                eps0=check_eps0(r.eps0, f"rounds[{i}].eps0"),
                count=check_int(f"rounds[{i}].count", r.count, minimum=1),
            )
        )
    return checked


def compose_rounds(rounds: Sequence[Round], step: float | None = None) -> ComposedCurve:
    """Compose heterogeneous rounds (different bounds, ``n`` or ``eps0``).

    Parameters
    ----------
    rounds
        The rounds; the total count is at most :data:`MAX_ROUNDS`.
    step
        Grid spacing of the losses (default: the smallest :func:`bound_step` of the rounds).

    Returns
    -------
    ComposedCurve
        Its :meth:`~shufflelib.composition.model.ComposedCurve.bracket` when every round
        composes through a pair; the pure-DP cap is the rounds' ``eps0`` added up.

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
    rounds = _checked_rounds(rounds)
    total = check_rounds(sum(r.count for r in rounds))
    if step is None:
        step = min(bound_step(r.bound, r.n, r.eps0, total) for r in rounds)
    step = check_positive("step", step)
    parts = [(round_distributions(r.bound, r.n, r.eps0, step), r.count) for r in rounds]
    kinds = {lower for (_, lower), _ in parts}
    if len(kinds) > 1:
        raise ValueError("cannot compose lower-bound curves (krr-two-pair-lower) with upper bounds")
    orders = max(len(lds) for (lds, _), _ in parts)
    main = [[(lds[min(i, len(lds) - 1)], count) for (lds, _), count in parts] for i in range(orders)]
    companions = []
    if all(route(r.bound, r.n) != "profile" for r in rounds):
        for refine in COMPANION_REFINE:
            others = [
                (
                    round_distributions(
                        r.bound, r.n, r.eps0, step / refine, companion=True, reach=MERGE_REACH * refine
                    )[0],
                    r.count,
                )
                for r in rounds
            ]
            companions.append([[(lds[min(i, len(lds) - 1)], c) for lds, c in others] for i in range(orders)])
    pure = sum(r.eps0 * r.count for r in rounds)
    return ComposedCurve(main, lower_bound=kinds.pop(), pure=pure, companions=companions)


def compose_bound(
    bound: AmplificationBound, n: int, eps0: float, rounds: int, step: float | None = None
) -> ComposedCurve:
    """``rounds``-fold composition of one shuffled protocol's bound: the curve the calculator reads.

    The model of :func:`bound_model` at ``eps0`` (the default grid, or ``step``), with the
    companion that brackets it: ``compose_bound(...).epsilon(δ)`` is the calculator's PLD answer
    to ``epsilon --compose``.

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import compose_bound
    >>> curve = compose_bound(StrongerClones(mechanism="krr", k=2), 1_000_000, 1.0, rounds=1000)
    >>> round(curve.epsilon(1e-6), 4), curve.error(1e-6) < 1e-4
    (0.1485, True)
    """
    rounds = check_rounds(rounds)
    return bound_model(bound, n).curve(eps0, rounds, step, bracket=True)


def max_eps0_composed(
    bound: AmplificationBound, n: int, eps: float, delta: float, rounds: int, *, rtol: float = 1e-3
) -> float:
    """Largest ``eps0`` per round such that ``rounds`` rounds are ``(eps, delta)``-DP (rounded down).

    :func:`~shufflelib.composition.model.largest_composed` on :func:`bound_model`.

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import compose_bound, max_eps0_composed
    >>> sc = StrongerClones(mechanism="krr", k=2)
    >>> e0 = max_eps0_composed(sc, 10_000, 1.0, 1e-6, rounds=10)
    >>> compose_bound(sc, 10_000, e0, 10).epsilon(1e-6) <= 1.0
    True
    """
    n = check_n(n)
    rounds = check_rounds(rounds)
    return largest_composed(bound_model(bound, n), rounds, eps, delta, rtol=rtol)


def compare_composition(
    bound: AmplificationBound, n: int, eps0: float, rounds: int, delta: float, step: float | None = None
) -> dict[str, float | bool]:
    """ε of ``rounds`` rounds at ``delta`` by PLD composition and by the three baselines.

    Returns a dict with keys ``pld``, ``rdp``, ``advanced``, ``naive``, ``error`` and
    ``lower_bound`` (true for ``krr-two-pair-lower``, whose curves are lower bounds). The
    baselines use the same round: Rényi DP from the same discretized distribution, advanced and
    naive composition from the bound's own ε(δ).

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
    model = bound_model(bound, n)
    if step is not None:
        model = replace(model, step=lambda e0, t: step)
    r = composed_epsilon(model, eps0, rounds, delta)
    keys = ("rdp", "advanced", "naive", "error", "lower_bound")
    return {"pld": r["eps"], **{key: r[key] for key in keys}}


def compare_over_rounds(
    bound: AmplificationBound, n: int, eps0: float, rounds: Sequence[int], delta: float
) -> dict[str, np.ndarray]:
    """:func:`compare_composition` for several numbers of rounds, building the round once.

    The grid step is :func:`bound_step` for the largest number of rounds. Returns arrays
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
    step = bound_step(bound, n, eps0, max(counts))
    lds, lower = round_distributions(bound, n, eps0, step)
    cache: dict[float, float] = {}

    def one(d: float) -> float:
        if d not in cache:
            cache[d] = bound.epsilon(n, eps0, d)
        return cache[d]

    out: dict[str, list[float]] = {"pld": [], "rdp": [], "advanced": [], "naive": []}
    for t in counts:
        out["pld"].append(ComposedCurve([[(ld, t)] for ld in lds], lower, pure=t * eps0).epsilon(delta))
        out["rdp"].append(rdp_epsilon(lds, t, delta))
        out["advanced"].append(advanced_epsilon(one, t, delta))
        out["naive"].append(naive_epsilon(one, t, delta))
    return {"rounds": np.array(counts), **{key: np.array(v) for key, v in out.items()}}
