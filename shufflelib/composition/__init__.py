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

Every bound composes (:func:`round_distributions`, :func:`bound_model`) through the one
protocol of :mod:`~shufflelib.bounds.privacy_loss`: ``bound.privacy_loss(n)`` states one round's
privacy loss as a dominating pair or a privacy profile, upper or lower bound, and this package
reads nothing else of the bound (no test of its class). The route follows:

* **a pair** (``"pair"``; ``"lower pair"`` for an attained pair, a lower bound): discretized by
  connecting the dots (an upper bound) or merging (a lower bound), by its description
  (:class:`~shufflelib.bounds.privacy_loss.ClonePairLoss`: ``clones``, ``stronger-clones``, and
  the stronger-clone pair that ``thinned-clones`` and ``exact-krr`` beyond its search name as
  dominating them; :class:`~shufflelib.bounds.privacy_loss.ExplicitPairLoss`:
  ``krr-two-pair-lower`` with ``k = 2``; :class:`~shufflelib.bounds.privacy_loss.CloneCountLoss`:
  the population's ``pop-tight``);
* **a profile** (``"profile"``, :mod:`~shufflelib.composition.profile`): the pair built from it,
  for an upper bound only (``erlingsson``, ``blanket-*``, ``clones-closed``, ``variation-ratio``,
  ``exact-krr`` within its search, the other population bounds, the personalized bounds in their
  top level and the segmented ones in their reporting probability λ, neither capped by pure DP
  where their ``PrivacyLoss.pure`` is false).

A bound the library knows may be unsound stays so when composed: the composition is a valid
bound only if the round's bound is (the calculator keeps the warning).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from .._validation import EPS0_LIMIT, check_eps0, check_int, check_n, check_positive, check_probability
from .._validation import MAX_ROUNDS as _BOX_ROUNDS
from ..bounds.base import AmplificationBound, NotApplicableError
from ..bounds.privacy_loss import CloneCountLoss, ClonePairLoss, ExplicitPairLoss, PrivacyLoss, clone_loss_scale
from ..curves import invert_profile
from .baselines import advanced_epsilon, naive_epsilon, rdp_epsilon
from .clone_pld import BLOCK_RTOL, clone_blocks_pld, clone_pair_pld, round_blocks
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
    "ALIGNED_POINTS",
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
    "loss_distributions",
    "loss_model",
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


def _route(loss: PrivacyLoss) -> str:
    """``"pair"``, ``"lower pair"`` or ``"profile"``: the route of a privacy loss."""
    if loss.form == "pair":
        return "pair" if loss.upper else "lower pair"
    return "profile"


def route(bound: AmplificationBound, n: int) -> str:
    """How ``bound`` composes at ``n`` users: ``"pair"``, ``"lower pair"`` or ``"profile"``
    (the form of its :meth:`~shufflelib.bounds.base.AmplificationBound.privacy_loss`).

    Raises
    ------
    ValueError
        For a lower bound given by a profile: a profile composes only as an upper bound.

    Examples
    --------
    >>> from shufflelib.bounds import BlanketBennett, ExactKRR, StrongerClones
    >>> from shufflelib.composition import route
    >>> route(StrongerClones(mechanism="krr", k=2), 1000), route(BlanketBennett(), 1000)
    ('pair', 'profile')
    >>> route(ExactKRR(mechanism="krr", k=2), 50), route(ExactKRR(mechanism="krr", k=2), 10**6)
    ('profile', 'pair')
    """
    return _route(_composable(bound, n))


def _composable(bound: AmplificationBound, n: int) -> PrivacyLoss:
    """The bound's privacy loss at ``n`` users, refused if it is a lower bound given by a profile."""
    loss = bound.privacy_loss(n)
    if loss.form == "profile" and not loss.upper:
        raise ValueError(
            f"the {bound.name} bound is a lower bound without an explicit pair: it is not composable "
            "(a profile composes only as an upper bound)"
        )
    return loss


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
    loss = _composable(bound, n)
    if loss.form == "profile" and companion:
        raise ValueError(f"the {bound.name} bound composes through its profile: it has no pair to bracket")
    lds = loss_distributions(loss, eps0, step, companion=companion, reach=reach, coarse=coarse)
    return lds, loss.upper == companion


def loss_distributions(
    loss: PrivacyLoss,
    eps0: float,
    step: float,
    *,
    companion: bool = False,
    reach: int | None = None,
    coarse: bool = False,
    pair: ClonePairLoss | ExplicitPairLoss | CloneCountLoss | None = None,
) -> tuple[LossDistribution, ...]:
    """The discretized loss distributions of one round of privacy loss ``loss`` at ``eps0``.

    See :func:`round_distributions` (which validates a bound's inputs and calls this); a
    profile is sampled and has no companion. ``pair``: ``loss.pair(eps0)`` where the caller has
    built it already (building one can be costly: the exact pair's pmfs).

    Examples
    --------
    >>> from shufflelib.bounds import ClonesNumerical
    >>> from shufflelib.composition import loss_distributions
    >>> ld, = loss_distributions(ClonesNumerical().privacy_loss(1_000), 1.0, 1e-4)
    >>> ld.pessimistic
    True
    """
    upper = loss.upper != companion  # which side these distributions bound
    if reach is None:
        reach = MERGE_REACH * (LOWER_PAIR_REFINE if not loss.upper and not companion else 1)
    if loss.form == "profile":
        return (sampled_profile_pld(loss.profile(eps0), step, eps_max=eps0),)
    pair = loss.pair(eps0) if pair is None else pair
    if isinstance(pair, ClonePairLoss):
        kwargs = {"pessimistic": upper, "reach": reach, "coarse": coarse}
        return (clone_pair_pld(pair.n, pair.eps0, pair.clone_probability, step, **kwargs),)
    if isinstance(pair, CloneCountLoss):
        lo, hi = pair.count.range()
        # Blocks at most BLOCK_RTOL of their count wide are enough (each atom listed costs):
        # a population of 10^9 near eps0 = 0 needs one block, not 128.
        size = int(hi - lo + 1)
        enough = max(1, math.ceil(size / max(1.0, BLOCK_RTOL * max(lo, 1))))
        starts, masses, dropped = pair.count.blocks(min(pair.max_blocks, round_blocks(size), enough))
        counts, weights = np.concatenate([[0.0], starts]), np.concatenate([[dropped], masses])
        return (clone_blocks_pld(pair.eps0, counts, weights, step),)
    orders = [(pair.log_p, pair.log_q)] + ([] if pair.symmetric else [(pair.log_q, pair.log_p)])
    lds = []
    for lp, lq in orders:
        ld = from_log_pmfs(lp, lq, step, pessimistic=upper, max_loss=pair.max_loss, reach=reach)
        if upper and pair.tail_mass > 0.0:  # the pair's own missing mass, at +inf
            ld = replace(ld, inf_mass=min(1.0, ld.inf_mass + pair.tail_mass), cache={})
        lds.append(ld)
    return tuple(lds)


#: The lower pair (``krr-two-pair-lower``, one atom per count of 1-reports: a lattice) is merged on a
#: grid this many times finer than :func:`default_step`, carrying parts as far in loss: merging
#: loses up to 0.3 % of ε on a lattice at the default grid, below 0.05 % at this one.
LOWER_PAIR_REFINE = 8

#: Grid points per standard deviation of one round's loss (:func:`pair_step`): connecting the
#: dots at this spacing adds about ``1 / (8 · 50²) = 5e-5`` of the loss's variance, whatever
#: the number of rounds (the answer moves by about 1e-5 relative from 40 to 200 points).
POINTS_PER_SCALE = 50.0


#: Largest number of grid steps in ``eps0`` at which :func:`pair_step` puts ``eps0`` on the grid
#: (beyond, the mass near the largest loss is negligible where δ is read, and the step is kept).
ALIGNED_POINTS = 1000


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
    return pair_step(clone_loss_scale(n, eps0), eps0, rounds)


def pair_step(scale: float, eps0: float, rounds: int) -> float:
    """Grid spacing ``scale / POINTS_PER_SCALE`` for a pair whose loss has standard deviation about
    ``scale`` (connect the dots: the error does not grow with ``rounds``, and one round's grid
    covers its listed atoms, about ``±12 scale``; the argument ``rounds`` is kept for callers
    that pass it), at least ``eps0 · 1e-12``. Where ``eps0`` spans at most
    :data:`ALIGNED_POINTS` steps (a loss spread out over a sizable part of ``[−eps0, eps0]``: few
    clones), the step is made a divisor of ``eps0`` (at most that much finer): the pair's largest
    loss ``eps0`` is then a grid point, so connecting the dots puts no mass above it, and ``T``
    rounds none above ``T eps0``, where the composition is pure DP (a grid point just above
    ``eps0`` once kept the answer of 10 rounds at n = 456, ε₀ = 8.257, δ = 0.0092 at its cap
    ``T eps0``, 82.571, above the page's 82.561; aligned: 82.554).

    Examples
    --------
    >>> from shufflelib.composition import pair_step
    >>> pair_step(0.01, 1.0, 10)
    0.0002
    """
    step = max(scale / POINTS_PER_SCALE, eps0 * 1e-12)
    points = math.ceil(eps0 / step)
    return eps0 / points if points <= ALIGNED_POINTS else step


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
    loss = _composable(bound, n)
    if loss.form == "pair":
        return default_step(n, eps0, rounds) / (1 if loss.upper else LOWER_PAIR_REFINE)
    n, eps0 = _applicable(bound, n, eps0)
    return profile_step(profile_end(loss.profile(eps0), eps0), rounds)


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
    return loss_model(_composable(bound, n))


def loss_model(loss: PrivacyLoss) -> RoundModel:
    """The :class:`~shufflelib.composition.model.RoundModel` of one round of privacy loss ``loss``, in ``eps0``.

    A pair composes with its companion (the bracket) unless ``loss.bracket`` is false; a profile
    through :func:`~shufflelib.composition.model.profile_model`; ``loss.alternative``, if any, is the
    model's alternative. A round is ``eps0``-DP (the cap) if ``loss.pure``; ``loss.top`` is the
    model's ``top``. A lower bound given by a profile
    is refused (:func:`route`).

    Examples
    --------
    >>> from shufflelib.bounds import ThinnedClones
    >>> from shufflelib.composition import loss_model
    >>> model = loss_model(ThinnedClones(mechanism="krr", k=3).privacy_loss(10_000))
    >>> model.route, model.alternative.route
    ('pair', 'profile')
    """
    cap = (lambda e0: e0) if loss.pure else (lambda e0: None)  # shuffled eps0-LDP reports are eps0-DP
    if loss.form == "profile":
        if not loss.upper:
            raise ValueError(
                "a lower bound given by a profile is not composable (a profile composes only as an upper bound)"
            )
        model = profile_model(
            loss.profile, loss.epsilon, loss.largest, cap=cap, note=loss.note, build_seconds=loss.build_seconds
        )
        return replace(model, top=loss.top)
    how = _route(loss)
    refine = 1 if loss.upper else LOWER_PAIR_REFINE

    def companion(e0: float, step: float, reach: int) -> tuple[LossDistribution, ...]:
        return loss_distributions(loss, e0, step, companion=True, reach=reach)

    return RoundModel(
        alternative=None if loss.alternative is None else loss_model(loss.alternative),
        route=how,
        build=lambda e0, step, coarse=False: loss_distributions(loss, e0, step, coarse=coarse),
        step=lambda e0, rounds: pair_step(loss.scale(e0), e0, rounds) / refine,
        epsilon=loss.epsilon,
        largest=loss.largest,
        note=loss.note,
        lower_bound=not loss.upper,
        coarse=COARSE if loss.coarse else 1.0,
        cap=cap,
        top=loss.top,
        companion=companion if loss.bracket else None,
        scale=loss.scale,
    )


def _profile_at_users(bound: AmplificationBound, users: int, eps0: float) -> Callable[[np.ndarray], np.ndarray]:
    """A vectorized upper bound on the shuffle's δ(ε) at ``users`` users: the bound's own pair (connected
    on its default grid) or profile; randomized response where the bound does not apply there."""
    if bound.validity(users, eps0) is not None:
        return randomized_response_profile(eps0)
    loss = _composable(bound, users)
    if loss.form == "profile":
        return loss.profile(eps0)
    pair = loss.pair(eps0)
    lds = loss_distributions(loss, eps0, pair_step(loss.scale(eps0), eps0, 1), pair=pair)
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
