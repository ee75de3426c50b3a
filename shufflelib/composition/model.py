r"""One round of any bound, as composition sees it, and the three composed questions.

A :class:`RoundModel` is one round's privacy as a function of the round's local
parameter ``x`` (``eps0`` for the uniform and population bounds, the top level
of a personalized population, the reporting probability ``λ`` of the segmented
protocol): it builds the round's discretized loss distributions by one of two
*routes*,

* ``"pair"`` — the bound's own dominating pair (the clone pairs: clones,
  stronger clones, the population-mixed clone pair; the exact k-RR worst case
  beyond its search, whose certified bracket's upper end is stronger clones), or
* ``"profile"`` — the pair built from the bound's privacy profile
  (:mod:`~shufflelib.composition.profile`): every other valid bound,

(or ``"lower pair"`` for the explicit pair of ``krr-two-pair-lower``, a lower
bound). :func:`composed_epsilon`, :func:`composed_delta` and
:func:`largest_composed` answer the calculator's three questions for ``T``
rounds; the calculator's families only build the model.

Speed of the ε₀ question. "Largest ``x`` such that ``T`` rounds are ``(ε, δ)``-DP"
is a root of the composed ε in ``x``, bracketed from above by the single-round answer
``hi`` (composition never helps), searched in ``log x`` vs ``log ε`` (nearly linear) from
about where one round reaches ``ε / sqrt(T)`` (composed ε grows roughly like ``sqrt(T)``;
one secant step on the single-round ε at ``hi / sqrt(T)`` and ``hi``, whose slope is also the
first guess of the composed ε's: an amplified round's ε grows faster than ``x``), or, for a pair
whose loss has a scale (about its standard deviation, a Gaussian-DP ``μ(x)``) and a δ not below
``GAUSSIAN_START_DELTA``, from where ``sqrt(T) μ(x)``-Gaussian DP reaches the target. For a pair, a first
stage on a grid ``RoundModel.coarse`` (:data:`COARSE`) times coarser (its first point, often far
from the root where the window is wide, ``COARSE²`` times) brackets the root and
finds it to 1% in ε (Illinois method); then Illinois steps on the default grid, each aimed
just beyond the root on the side opposite to the last point so that the bracket closes.
A profile (whose cost does not shrink with the grid) goes to the secant steps as soon as
the root is bracketed. Every candidate is checked: the answer is the largest ``x`` whose
composed ε on the default grid was evaluated ``<= ε`` (the PLD's, or Rényi DP's where smaller,
as the ε question answers: below the PLD's truncated tails, a tiny δ, the PLD alone would
reach only the pure-DP end ``ε / T``). Every composition is built for the
target δ (a window narrowed to it, :func:`~shufflelib.composition.pld.window_tail`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from .._validation import EPS0_MIN, check_positive, check_probability
from ..bounds.base import DELTA_FLOOR, NotApplicableError
from ..bounds.clones import gaussian_dp_epsilon, gaussian_eps0
from ..bounds.krr_budget import WorkMeter
from ..curves import PrivacyCurve, invert_profile
from .baselines import advanced_epsilon, naive_epsilon, rdp_delta, rdp_epsilon
from .pld import (
    MAX_FFT_LENGTH,
    MERGE_REACH,
    TILTED_TAIL,
    WINDOW_TAIL,
    LossDistribution,
    WindowTooWide,
    _window,
    compose,
    predicted_slack,
    quantize_tilt,
    tilt_for,
)
from .profile import (
    PROFILE_EPS_MAX,
    PROFILE_POINTS,
    PROFILE_TAIL,
    inverse_profile_pld,
    profile_end,
    sampled_profile_pld,
)

__all__ = [
    "COARSE",
    "COMPANION_POINTS",
    "COMPANION_REFINE",
    "METER",
    "SEARCH_BUDGET",
    "GAUSSIAN_START_DELTA",
    "FITTED_FFT_LENGTH",
    "ComposedCurve",
    "CompositionMeter",
    "GridTooFine",
    "RoundModel",
    "composed_delta",
    "composed_record",
    "composed_epsilon",
    "largest_composed",
    "profile_model",
    "profile_step",
]

#: Grids of a curve's companions (:meth:`RoundModel.curve`): the curve's step divided by each. Merging
#: loses most where bins alternate between heavy and light (the lattice of a clone pair's atoms)
#: or atoms are isolated (a few users), differently on different grids: the bracket takes the
#: best of a grid like the curve's and one four times finer (read up to :data:`COMPANION_POINTS`).
COMPANION_REFINE = (1, 4)

#: Largest composition (points of its window) of a companion after the first, which the bracket then
#: reads: beyond, its FFTs would take about a second of a question that must answer within two
#: (the two-pair lower bound at n = 2, T = 10⁴, δ = 5e-324: 2.4 million points, 0.84 s, for an
#: upper end 0.08 % lower). The first companion, on the curve's own grid, is always read.
COMPANION_POINTS = 2**20

#: Factor by which the first stage of :func:`largest_composed` coarsens the grid.
COARSE = 2.0
#: Longest FFT of a composition on the default grid (:meth:`RoundModel.fitted`): a wider
#: window is rebuilt on a coarser grid, whose error ``rounds · step`` the curve reports (the
#: cost of longer FFTs: ``benchmarks/bench_composition.py``); the FFT's rounding allowance,
#: which grows with the length, partly offsets the coarser grid (stronger clones, n = 2,
#: 10^4 rounds, ε0 = 1: ε 3751.61 at 2^23 points, 3752.22 at 2^22; blanket,
#: n = 2, 10^4 rounds, (1, 1e-6): ε0 0.0023626 at 2^23, 0.0023627 at 2^22).
FITTED_FFT_LENGTH = 2**22


#: Rates of :class:`CompositionMeter` (estimated seconds on one core of a quiet machine, fitted
#: to the composed ε₀ questions of ``benchmarks/bench_corners.py`` and ``fuzz_composed.py``):
#: per build of one round's distributions (plus the model's own ``build_seconds``, for a profile
#: costly per point), per grid point built, per grid point carrying mass (each is read again by
#: the tilt and window decisions), and per point of a composition's FFT (the transforms, the
#: power, and the reads of the composed distribution).
_BUILD_CALL, _BUILD_POINT, _LIVE_POINT, _FFT_POINT = 2e-2, 2e-7, 1e-6, 1.5e-7
#: Rate of :meth:`CompositionMeter.listed`, per atom of a clone pair put on a grid (listing the atoms
#: of the clone counts' binomials and putting them on the grid): measured 0.11–0.14 µs per atom on
#: the CI machine (10^5 to 1.8·10^6 atoms, clones and stronger clones, 10^4 to 10^9 users; 0.13 µs
#: for pop-tight at 10^6 users, 4.2·10^6 atoms), which does the work of the rates above about
#: 1.7–1.9 times as slowly.
_ATOM = 7e-8


class GridTooFine(ValueError):
    """The grid :meth:`RoundModel.fitted` would fit is finer than its caller can use (``coarser_than``).

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import bound_model
    >>> model = bound_model(StrongerClones(mechanism="krr", k=2), 10_000)
    >>> try:
    ...     model.fitted(1.0, 10, delta=1e-6, coarser_than=1.0)
    ... except GridTooFine as refusal:
    ...     print(refusal)
    the grid that fits is at most 1.0
    """


class _OutOfTime(Exception):
    """A search of :func:`largest_composed` used its budget (of :data:`METER`'s seconds)."""


class CompositionMeter(WorkMeter):
    """Estimated seconds of the composed questions' work: the clock of :func:`largest_composed`'s budget.

    Counted from the work (:class:`~shufflelib.bounds.krr_budget.WorkMeter`): each round's
    distributions built (:meth:`built`), the atoms of clone pairs put on a grid (:meth:`listed`)
    and each composition (:meth:`composition`, counted by its FFT's length before it is
    computed), so that a budget-limited search stops at the same point
    under any load and its answer is reproducible. ``limit`` is the reading past which counting
    more work raises (set by a search for its duration; ``inf`` otherwise).

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import compose_bound
    >>> from shufflelib.composition.model import METER
    >>> before = METER.seconds
    >>> _ = compose_bound(StrongerClones(mechanism="krr", k=2), 10_000, 1.0, rounds=10).epsilon(1e-6)
    >>> METER.seconds > before
    True
    """

    def __init__(self) -> None:
        super().__init__()
        self.limit = math.inf

    def add(self, seconds: float) -> None:
        """Count ``seconds``; raise the search's ``_OutOfTime`` past ``limit``."""
        super().add(seconds)
        if self.seconds > self.limit:
            raise _OutOfTime

    def built(self, distributions: tuple[LossDistribution, ...], extra: float = 0.0) -> tuple[LossDistribution, ...]:
        """Count one round's distributions just built, and ``extra`` seconds (returned as they are)."""
        points = sum(ld.mass.size for ld in distributions)
        live = sum(int(np.count_nonzero(ld.mass)) for ld in distributions)
        self.add(_BUILD_CALL + extra + _BUILD_POINT * points + _LIVE_POINT * live)
        return distributions

    def listed(self, atoms: int) -> None:
        """Count ``atoms`` of a mixture of clone-like pairs put on a grid
        (:meth:`~shufflelib.composition.clone_pld.Atoms.discretize`: a clone pair's round, a
        population's, or a subsampled round's shuffle at each number of participants), listed
        for it or remembered, whose work :meth:`built` does not see: it counts the grid."""
        self.add(_ATOM * atoms)

    def composition(self, parts: Sequence[tuple[LossDistribution, int]], tilt: float, max_length: int) -> None:
        """Count :func:`~shufflelib.composition.pld.compose` of ``parts`` at ``tilt``, by its window's length
        (nothing for a single round, or a window beyond ``max_length``, which ``compose`` refuses at
        once; the window is the one ``compose`` computes, cached)."""
        size = _window_size(parts, tilt)
        if 0 < size <= max_length:
            self.add(_FFT_POINT * size)


def _window_size(parts: Sequence[tuple[LossDistribution, int]], tilt: float) -> int:
    """Points of the window :func:`~shufflelib.composition.pld.compose` computes for ``parts`` at ``tilt``
    (cached; 0 where it convolves nothing: a single round, or a round with no finite loss)."""
    if len(parts) == 1 and parts[0][1] == 1 or any(not np.any(ld.mass > 0.0) for ld, _ in parts):
        return 0
    lo, hi = _window(parts, TILTED_TAIL if tilt > 0.0 else WINDOW_TAIL, tilt * parts[0][0].step)
    return hi - lo + 1


#: The meter of every composition in this process (read by differences).
METER = CompositionMeter()


class ComposedCurve(PrivacyCurve):
    """The privacy curve of composed rounds, from one round's discretized loss distributions.

    ``parts`` holds, per order of the pair (one for a symmetric pair, two otherwise), the
    rounds as ``[(distribution, count), …]`` (single rounds, not yet composed), or a composed
    :class:`~shufflelib.composition.pld.LossDistribution` (then read as it is). Each question
    composes at its own tilt (:func:`~shufflelib.composition.pld.tilt_for`, cached): δ at ε at
    the Chernoff saddle point of ε, and ε at δ at the saddle point of its answer, found by
    :meth:`epsilon` so that the answer's δ is read from the same composition (a round trip
    ``delta(epsilon(δ)) <= δ``). δ is the largest over the orders, an upper bound (or a
    lower bound when ``lower_bound``) including the truncation and rounding terms. With
    ``pure`` (the rounds' pure-DP levels added up: ``T eps0`` for ``T`` rounds of a shuffled
    ``eps0``-LDP protocol), δ is 0 from ``pure`` on, so ``epsilon`` is at most ``pure``.

    ``companions``: the same rounds discretized on the other side (a lower bound for an upper
    curve, an upper bound for a lower one), one or more alternatives (each holding its orders'
    parts, e.g. on two grids), for :meth:`bracket` and :meth:`error`: the exact composition of
    the round's pair lies between the curve and the best of them.

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import compose_bound
    >>> curve = compose_bound(StrongerClones(mechanism="krr", k=2), 10_000, 1.0, rounds=10)
    >>> single = StrongerClones(mechanism="krr", k=2).epsilon(10_000, 1.0, 1e-6)
    >>> single < curve.epsilon(1e-6) < 10 * single
    True
    >>> 0.0 <= curve.error(1e-6) < 1e-3 * curve.epsilon(1e-6)
    True
    """

    def __init__(
        self,
        parts: Sequence[Sequence[tuple[LossDistribution, int]] | LossDistribution],
        lower_bound: bool = False,
        pure: float | None = None,
        *,
        companions: Sequence[Sequence[Sequence[tuple[LossDistribution, int]] | LossDistribution]] | None = None,
        max_length: int = MAX_FFT_LENGTH,
    ) -> None:
        if not parts:
            raise ValueError("parts must not be empty")
        self.parts = tuple(_as_parts(p) for p in parts)
        self.companions = tuple(tuple(_as_parts(p) for p in alt) for alt in companions or ())
        self.lower_bound = bool(lower_bound)
        self.upper = not self.lower_bound
        #: An ε at which the composition is pure DP (the rounds' caps added up), or ``None``.
        self.pure = None if pure is None or self.lower_bound else float(pure)
        self.max_length = max_length
        self._cache: dict[tuple[int, int, float], LossDistribution] = {}
        self._answers: dict[tuple[int, float], float] = {}  # ε of the curve or a companion at δ
        #: The largest grid step :meth:`RoundModel.fitted` refused before this curve's (0.0 if none).
        self.refused_step = 0.0

    @property
    def rounds(self) -> int:
        """Number of composed rounds."""
        return sum(count * ld.rounds for ld, count in self.parts[0])

    @property
    def step(self) -> float:
        """Grid spacing of the losses."""
        return self.parts[0][0][0].step

    @property
    def discretization_error(self) -> float:
        """``rounds · step``: a coarse bound on the distance of the composed ε from the exact
        composition's (no loss moves by a full step); :meth:`error` is the sharp one."""
        return self.rounds * self.step

    @property
    def distributions(self) -> tuple[LossDistribution, ...]:
        """The composed distributions of the orders, untilted (for plots and inspection)."""
        return tuple(self._composed(i, False, 0.0) for i in range(len(self.parts)))

    def _parts(self, which: int) -> tuple[tuple[tuple[LossDistribution, int], ...], ...]:
        """The orders' parts of the curve (``which = -1``) or of companion ``which``."""
        return self.parts if which < 0 else self.companions[which]

    def _composed(self, order: int, which: int, tilt: float) -> LossDistribution:
        key = (order, which, tilt)
        if key not in self._cache:
            if len(self._cache) > 16:
                self._cache.clear()
            parts = self._parts(which)[order]
            METER.composition(parts, tilt, self.max_length)  # counted before the FFT: a budget stops it first
            self._cache[key] = compose(parts, self.max_length, tilt=tilt)
        return self._cache[key]

    def starts_within(self, delta: float) -> bool:
        """Whether the ε question at ``delta`` can start: its first composition of each order (at the
        tilt :meth:`epsilon` tries first) fits ``max_length``. Read from the windows, without an FFT."""
        return self._first_window(-1, delta=delta) <= self.max_length

    def _first_window(self, which: int, *, delta: float | None = None, eps: float | None = None) -> int:
        """Points of the largest first composition of the curve (``which = -1``) or of companion ``which``:
        the ε question's at ``delta`` (its first tilt), or the δ question's at ``eps`` (untilted)."""
        size = 0
        for order, parts in enumerate(self._parts(which)):
            tilt = tilt_for(parts, delta=delta) if delta is not None and self._tiltable(order, which) else 0.0
            size = max(size, _window_size(parts, tilt))
        return size

    def _bracketing(self, **question: float) -> list[int]:
        """The companions a bracket reads: the first, and the others whose first composition has at
        most :data:`COMPANION_POINTS` points (``question``: ``delta=`` or ``eps=``)."""
        return [
            k for k in range(len(self.companions)) if k == 0 or self._first_window(k, **question) <= COMPANION_POINTS
        ]

    def _tiltable(self, order: int, which: int) -> bool:
        return all(ld.exact for ld, _ in self._parts(which)[order])

    def _order_delta(self, order: int, which: int, eps: float) -> float:
        """δ of one order at ``eps``: untilted, unless its rounding terms matter at the δ read there
        (:func:`~shufflelib.composition.pld.tilt_for` given that δ): then at ε's saddle point, and
        at the saddle point for the δ read there too where that is another tilt."""
        untilted = self._composed(order, which, 0.0).delta(eps)
        if not self._tiltable(order, which) or untilted <= 0.0:
            return untilted
        parts = self._parts(which)[order]
        tilt = tilt_for(parts, eps=eps, delta=min(untilted, 0.5))
        if tilt == 0.0:
            return untilted
        # Every read is valid (upper, or lower for the other side): the best. A saddle point at
        # the tilt grid's end can carry more slack than no tilt (blanket Bennett, n = 5.2e8,
        # T = 3436: 0.23 tilted, 5.0e-9 untilted at eps = 0.0138).
        best = min if self.upper == (which < 0) else max
        value = best(untilted, self._composed(order, which, tilt).delta(eps))
        # The saddle point for the δ just read is the tilt the ε question at that δ composes at
        # (:meth:`_order_epsilon`); where the untilted δ pointed elsewhere, read there too, so that
        # the two questions agree (pop-tight, poisson:10, ε₀ = 0.0706, T = 7,853: the ε question
        # answered 59.13299 for δ = 5.9776e-172 at tilt 11.3; δ read there at tilt 16 was 6.0052e-172).
        again = tilt_for(parts, eps=eps, delta=min(value, 0.5)) if value > 0.0 else tilt
        if again not in (tilt, 0.0):
            value = best(value, self._composed(order, which, again).delta(eps))
        return value

    def _order_epsilon(self, order: int, which: int, delta: float) -> float:
        """ε of one order at ``delta``, composed at the tilt that the δ question at the answer uses."""
        if not self._tiltable(order, which):
            return self._composed(order, which, 0.0).epsilon(delta)
        parts = self._parts(which)[order]
        tilt = tilt_for(parts, delta=delta)
        seen: dict[float, float] = {}
        for attempt in range(4):
            composed = self._composed(order, which, tilt)
            eps = composed.epsilon(delta)
            seen[tilt] = eps
            if not math.isfinite(eps) and attempt == 0:
                # The estimate of the saddle point missed (the slack at that tilt exceeds δ):
                # steeper tilts, whose slack falls faster in ε, then gentler ones.
                for factor in (4.0, 16.0, 64.0, 256.0, 0.25, 1.0 / 16.0):
                    other = quantize_tilt(max(tilt, 1e-2) * factor)
                    eps = self._composed(order, which, other).epsilon(delta)
                    if math.isfinite(eps):
                        tilt = other
                        seen[tilt] = eps
                        break
            if not math.isfinite(eps):
                return eps
            if attempt == 0 and eps <= (composed.offset + 1) * composed.step:
                # The answer is the window's start (far, rare atoms weigh e^{θ ℓ} at a steep tilt
                # and carry the tilted mass; what lies below is not read): gentler tilts, keeping
                # the tightest answer (any tilt is valid); the loop then settles on the tilt of
                # the δ question at the answer.
                pick = min if self.upper == (which < 0) else max
                for factor in (0.5, 0.25, 0.125, 0.0625):
                    other = quantize_tilt(tilt * factor)
                    if other == 0.0:
                        break
                    seen[other] = self._composed(order, which, other).epsilon(delta)
                tilt = pick(seen, key=seen.__getitem__)
                eps, composed = seen[tilt], self._composed(order, which, tilt)
            again = tilt_for(parts, eps=eps, delta=delta)
            if again == tilt:
                return eps
            # The δ question at ``eps`` composes at ``again``. Both compositions are within their
            # slack of the exact values, and the answer has a margin of 1e-12 δ (pld's epsilon):
            # if both slacks are below 1e-13 δ, δ read there is below δ too; no need to compose.
            w, _, losses = composed._above(eps)
            if composed._slack(eps, w, losses) <= 1e-13 * delta and predicted_slack(parts, again, eps) <= 1e-13 * delta:
                return eps
            if again in seen:  # two tilts each pointing at the other: the answer between them
                break
            tilt = again
        # The δ question reads δ at ε from the composition at ε's own tilt: a search on that.
        upper = self.upper == (which < 0)
        return invert_profile(
            lambda e: self._order_delta(order, which, e),
            delta,
            upper=upper,
            guess=(min if upper else max)(seen.values()),
            smooth=False,  # δ jumps where the tilt of the read changes: at the crossing, here
        )

    def _epsilon_of(self, which: int, delta: float) -> float:
        """The largest of the orders' ε (of the curve, or of companion ``which``), remembered: a question
        reads it twice (:meth:`RoundModel.fitted`'s check that the grid fits, then :meth:`bracket`)."""
        if (which, delta) not in self._answers:
            self._answers[which, delta] = max(
                self._order_epsilon(i, which, delta) for i in range(len(self._parts(which)))
            )
        return self._answers[which, delta]

    def _delta_of(self, which: int, eps: float) -> float:
        """The largest of the orders' δ (of the curve, or of companion ``which``)."""
        return max(self._order_delta(i, which, eps) for i in range(len(self._parts(which))))

    def _delta_array(self, eps: np.ndarray) -> np.ndarray:
        pure = math.inf if self.pure is None else self.pure
        return np.array([0.0 if e >= pure else self._delta_of(-1, float(e)) for e in eps])

    def epsilon(self, delta: float) -> float:
        """Smallest ε >= 0 with ``delta(ε) <= delta``, rounded up (largest with ``delta(ε) > delta``,
        rounded down, for a lower bound): the largest of the orders' answers.

        Examples
        --------
        >>> from shufflelib.bounds import StrongerClones
        >>> from shufflelib.composition import compose_bound
        >>> curve = compose_bound(StrongerClones(mechanism="krr", k=2), 10_000, 1.0, rounds=10)
        >>> eps = curve.epsilon(1e-6)
        >>> curve.delta(eps) <= 1e-6 < curve.delta(eps * (1 - 1e-6))
        True
        """
        delta = check_probability("delta", delta)
        found = self._epsilon_of(-1, delta)
        return found if self.pure is None else min(found, self.pure)  # T rounds of eps0-DP: (T eps0, 0)

    def bracket(self, delta: float) -> tuple[float, float]:
        """``(lower, upper)``: ε of the exact composition of the rounds' pair at ``delta`` lies between.

        One end is :meth:`epsilon`, the other the best of the companions' (``nan`` without one).

        Examples
        --------
        >>> from shufflelib.bounds import StrongerClones
        >>> from shufflelib.composition import compose_bound
        >>> low, high = compose_bound(StrongerClones(mechanism="krr", k=2), 10_000, 1.0, 10).bracket(1e-6)
        >>> 0 < low <= high
        True
        """
        delta = check_probability("delta", delta)
        mine = self.epsilon(delta)
        others = []
        for k in self._bracketing(delta=delta):
            try:
                others.append(self._epsilon_of(k, delta))
            except WindowTooWide:  # a companion's finer grid does not fit: it brackets nothing
                continue
        if not others:  # no companion, or none that fits
            return (math.nan, mine) if self.upper else (mine, math.nan)
        if self.upper:
            other = max(others)
            return (other if self.pure is None else min(other, self.pure)), mine
        return mine, min(others)

    def error(self, delta: float) -> float:
        """A bound on ``|epsilon(delta) − ε of the exact composition|``: the width of :meth:`bracket`
        (``nan`` without a companion).

        Examples
        --------
        >>> from shufflelib.bounds import StrongerClones
        >>> from shufflelib.composition import compose_bound
        >>> compose_bound(StrongerClones(mechanism="krr", k=2), 10_000, 1.0, 10).error(1e-6) < 1e-4
        True
        """
        low, high = self.bracket(delta)
        return max(high - low, 0.0) if math.isfinite(high - low) else (math.nan if math.isnan(high - low) else math.inf)

    def delta_bracket(self, eps: float) -> tuple[float, float]:
        """``(lower, upper)``: δ of the exact composition of the rounds' pair at ``eps`` lies between
        (one end is :meth:`~shufflelib.curves.PrivacyCurve.delta`, the other the best companion's; ``nan`` without one).

        Examples
        --------
        >>> from shufflelib.bounds import StrongerClones
        >>> from shufflelib.composition import compose_bound
        >>> low, high = compose_bound(StrongerClones(mechanism="krr", k=2), 10_000, 1.0, 10).delta_bracket(0.1)
        >>> 0 < low <= high
        True
        """
        mine = float(self.delta(eps))
        if not self.companions:
            return (math.nan, mine) if self.upper else (mine, math.nan)
        if self.pure is not None and eps >= self.pure:
            return 0.0, mine
        others = [self._delta_of(k, eps) for k in self._bracketing(eps=eps)]
        return (max(others), mine) if self.upper else (mine, min(others))


def _as_parts(
    part: Sequence[tuple[LossDistribution, int]] | LossDistribution,
) -> tuple[tuple[LossDistribution, int], ...]:
    """One order's rounds as ``((distribution, count), …)``."""
    if isinstance(part, LossDistribution):
        return ((part, 1),)
    return tuple((ld, int(count)) for ld, count in part)


@dataclass(frozen=True)
class RoundModel:
    """One round's privacy as a function of its local parameter ``x`` (see the module docstring).

    Parameters
    ----------
    route
        ``"pair"``, ``"profile"`` or ``"lower pair"``.
    build
        ``build(x, step, coarse)``: the round's loss distributions on the grid ``step · ℤ`` (one
        for a symmetric pair, two orders otherwise); ``coarse`` allows a cheaper, more
        pessimistic construction (fewer profile points) for the first stage of
        :func:`largest_composed`.
    step
        ``step(x, rounds)``: the default grid spacing for ``rounds`` rounds.
    epsilon
        ``epsilon(x, delta)``: one round's ε (for the advanced and naive baselines).
    largest
        ``largest(eps, delta)``: one round's largest ``x`` reaching ``(eps, delta)`` (brackets
        the composed search from above).
    note
        A sentence the calculator adds to its record (e.g. which end of a bracket is composed).
    lower_bound
        Whether the distributions are a lower bound (``"lower pair"``).
    coarse
        Factor by which the first stage of :func:`largest_composed` coarsens the grid (1: no
        coarse stage, for a model whose cost does not shrink with the grid, e.g. a profile).
    smallest
        Smallest local parameter :func:`largest_composed` tries (default: the box's ``EPS0_MIN``).
    top
        Largest local parameter ``largest`` returns (e.g. ``λ = 1``), or ``None`` (the default):
        when ``largest`` returns it, one round's ε there (often far below the target) aims the
        first step of :func:`largest_composed`.
    cap
        ``cap(x)``: an ε at which one round is pure DP (``eps0``), or ``None`` (the default).
    companion
        ``companion(x, step, reach)``: the round's distributions on the other side (a lower
        bound of the round's pair for an upper route, merged on the grid ``step · ℤ`` carrying
        parts up to ``reach`` points; an upper bound for ``"lower pair"``), for the curve's
        :meth:`~ComposedCurve.bracket`, or ``None`` (a profile: no pair to bracket). Built on
        the grids :data:`COMPANION_REFINE` times finer than the curve's.
    alternative
        Another valid model of the same round (e.g. a bound's pair, and a second bound's profile
        for the same protocol), or ``None``: the three questions answer with the tighter of the
        two (the smaller ε or δ, the larger local parameter), and the record says which route.
    build_seconds
        Estimated seconds of one ``build`` beyond what :data:`METER` counts from its output (a
        profile whose every point is a costly computation, e.g. the personalized and segmented
        bounds): counted by the meter of :func:`largest_composed`'s budget.
    scale
        ``scale(x)``: about the standard deviation of one round's privacy loss (the ``scale`` of a
        pair's :class:`~shufflelib.bounds.privacy_loss.PrivacyLoss`), or ``None`` (the default).
        Given, :func:`largest_composed` starts where ``rounds`` rounds of ``scale(x)``-Gaussian DP
        (``sqrt(rounds) · scale(x)``-Gaussian DP) reach the target: a guess, every candidate is
        still checked.

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import bound_model
    >>> bound_model(StrongerClones(mechanism="krr", k=2), 10_000).route
    'pair'
    """

    route: str
    build: Callable[[float, float, bool], tuple[LossDistribution, ...]]
    step: Callable[[float, int], float]
    epsilon: Callable[[float, float], float]
    largest: Callable[[float, float], float]
    note: str | None = None
    lower_bound: bool = field(default=False)
    coarse: float = 1.0
    smallest: float = EPS0_MIN
    cap: Callable[[float], float | None] = field(default=lambda x: None)
    top: float | None = None
    companion: Callable[[float, float, int], tuple[LossDistribution, ...]] | None = None
    alternative: RoundModel | None = None
    build_seconds: float = 0.0
    scale: Callable[[float], float] | None = None
    _builds: dict[tuple[float, float, bool], tuple[LossDistribution, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def _built(self, x: float, step: float, coarse: bool) -> tuple[LossDistribution, ...]:
        """``build(x, step, coarse)``, counted by :data:`METER`; the last few are remembered (a δ question
        fits the ε question's grid too, which often starts from the same default grid)."""
        key = (x, step, coarse)
        if key not in self._builds:
            if len(self._builds) >= 4:
                self._builds.clear()
            self._builds[key] = METER.built(self.build(x, step, coarse), self.build_seconds)
        return self._builds[key]

    def curve(
        self,
        x: float,
        rounds: int,
        step: float | None = None,
        coarse: int = 0,
        delta: float | None = None,
        *,
        bracket: bool = False,
    ) -> ComposedCurve:
        """The composed curve of ``rounds`` rounds at ``x`` (default step: the model's ``step(x, rounds)``,
        times ``self.coarse ** coarse``: ``coarse`` is 0 for the default grid, 1 for the coarse
        one, 2 for one coarser still), with its companion if ``bracket`` (and the model has one).

        With the default step, a composition needing an FFT longer than
        :data:`~shufflelib.composition.model.FITTED_FFT_LENGTH` is rebuilt on a coarser grid
        rather than refused (tried at ``delta``, the δ at which the curve will be read, if
        given).
        """
        if step is not None:
            step = check_positive("step", step)
            single = self._built(x, step, coarse > 0)
            return self._curve(single, x, rounds, step, MAX_FFT_LENGTH, bracket)
        return self.fitted(x, rounds, coarse, delta, bracket=bracket)[1]

    def _curve(
        self, single: tuple[LossDistribution, ...], x: float, rounds: int, step: float, max_length: int, bracket: bool
    ) -> ComposedCurve:
        cap = self.cap(x)
        pure = None if cap is None else rounds * cap
        others = []
        if bracket and self.companion is not None:
            for refine in COMPANION_REFINE:
                alt = METER.built(self.companion(x, step / refine, MERGE_REACH * refine))
                others.append([[(ld, rounds)] for ld in alt])
        return ComposedCurve(
            [[(ld, rounds)] for ld in single], self.lower_bound, pure, companions=others, max_length=max_length
        )

    def fitted(
        self,
        x: float,
        rounds: int,
        coarse: int = 0,
        delta: float | None = None,
        *,
        bracket: bool = False,
        eps: float | None = None,
        coarser_than: float = 0.0,
    ) -> tuple[tuple[LossDistribution, ...], ComposedCurve]:
        """One round's distributions and the composed curve, on the default grid or the coarser one that fits
        (``coarse``, ``delta``, ``bracket``: see :meth:`curve`; ``eps``: the ε at which δ will be
        read, instead of ``delta``). The curve's ``refused_step`` is the largest step refused.

        ``coarser_than``: a grid of at most this step is of no use to the caller. Where the ε
        question at ``delta`` would start on such a grid (:meth:`ComposedCurve.starts_within`),
        :class:`GridTooFine` is raised before anything is composed there.

        Examples
        --------
        >>> from shufflelib.bounds import ClonesNumerical
        >>> from shufflelib.composition import bound_model
        >>> single, curve = bound_model(ClonesNumerical(), 2).fitted(1.0, 10_000)
        >>> curve.rounds, curve.step == single[0].step
        (10000, True)
        """
        step = self.step(x, rounds) * self.coarse**coarse
        target = delta if delta is not None else 1e-6  # the δ of the ε question that must fit
        refused = 0.0
        for _ in range(8):
            single = self._built(x, step, coarse > 0)
            curve = self._curve(single, x, rounds, step, FITTED_FFT_LENGTH, bracket)
            if step <= coarser_than and eps is None and curve.starts_within(target):
                raise GridTooFine(f"the grid that fits is at most {coarser_than!r}")
            try:
                if eps is not None:  # composes (cached) at the question's tilt
                    curve.delta(eps)
                else:
                    curve.epsilon(target)
                curve.refused_step = refused
                return single, curve
            except WindowTooWide as wide:
                refused = step
                step *= 1.25 * wide.factor
        raise ValueError(f"no grid fits {rounds} composed rounds at {x!r}")  # pragma: no cover


def profile_step(end: float, rounds: int) -> float:
    """Default grid spacing of a profile-route round whose profile ends (δ = 1e-30) at ``end``: ``end / 640``,
    whatever the number of rounds (kept in the signature for callers that pass it).

    ``end`` is about 12 standard deviations of a Gaussian-like loss: the step is about a 50th of
    one. The profile is sampled at multiples of the step (every fifth, 128 points,
    :func:`~shufflelib.composition.profile.sampled_profile_pld`), so the pair built from the
    samples has its atoms on the grid: composing it moves no loss, and a finer grid would change
    nothing but the cost (it once shrank like ``0.01 / rounds``, as the pessimistic rounding of a
    pair's losses needed).

    Examples
    --------
    >>> from shufflelib.composition import profile_step
    >>> profile_step(0.12, 1000)
    0.0001875
    """
    return end / 640.0


def profile_model(
    profile_at: Callable[[float], Callable[[np.ndarray], np.ndarray]] | None,
    epsilon: Callable[[float, float], float],
    largest: Callable[[float, float], float],
    *,
    cap: Callable[[float], float | None] = lambda x: None,
    note: str | None = None,
    points: int = PROFILE_POINTS,
    build_seconds: float = 0.0,
) -> RoundModel:
    """The profile-route model of a bound given by its (vectorized) profile at each ``x``.

    Parameters
    ----------
    profile_at
        ``profile_at(x)``: δ(ε) for an array of ε >= 0, a valid symmetric upper bound; ``None``
        for a bound that is a closed form ε(δ): then ``epsilon`` is sampled on a δ grid instead
        (:func:`~shufflelib.composition.profile.inverse_profile_pld`).
    epsilon, largest
        One round's ε and largest ``x`` (see :class:`RoundModel`).
    cap
        ``cap(x)``: an ε at which the round is pure DP (``eps0``), or ``None``.
    note
        See :class:`RoundModel`.
    points
        Number of profile points sampled per round.
    build_seconds
        See :class:`RoundModel`.

    Examples
    --------
    >>> from shufflelib.bounds import BlanketBennett
    >>> from shufflelib.composition import composed_epsilon, profile_model
    >>> b = BlanketBennett()
    >>> model = profile_model(
    ...     lambda e0: lambda e: [b.delta(10_000, e0, float(x)) for x in e],
    ...     lambda e0, d: b.epsilon(10_000, e0, d),
    ...     lambda e, d: b.max_eps0(10_000, e, d),
    ...     cap=lambda e0: e0,
    ... )
    >>> r = composed_epsilon(model, 1.0, 10, 1e-6)
    >>> b.epsilon(10_000, 1.0, 1e-6) < r["eps"] < r["advanced"]
    True
    """
    profiles: dict[float, Callable[[np.ndarray], np.ndarray]] = {}
    ends: dict[float, float] = {}

    def vectorized(x: float) -> Callable[[np.ndarray], np.ndarray]:
        if x not in profiles:  # one profile object per x (building one may be costly)
            if len(profiles) > 64:
                profiles.clear()
            inner = profile_at(x)
            profiles[x] = lambda e: np.asarray(inner(np.atleast_1d(np.asarray(e, dtype=float))), dtype=float)
        return profiles[x]

    def safe_epsilon(x: float, d: float) -> float:
        try:
            return float(epsilon(x, d))
        except NotApplicableError:
            return math.inf

    def end(x: float) -> float:
        if x not in ends:
            if len(ends) > 64:
                ends.clear()
            if profile_at is None:
                value = safe_epsilon(x, PROFILE_TAIL)
                ends[x] = value if math.isfinite(value) else (cap(x) or PROFILE_EPS_MAX)
            else:
                ends[x] = profile_end(vectorized(x), cap(x))
        return ends[x]

    def build(x: float, step: float, coarse: bool = False) -> tuple[LossDistribution, ...]:
        if profile_at is None:
            return (inverse_profile_pld(lambda d: safe_epsilon(x, d), step, eps_max=cap(x), points=points),)
        return (sampled_profile_pld(vectorized(x), step, eps_max=cap(x), end=end(x), points=points),)

    return RoundModel(
        route="profile",
        build=build,
        step=lambda x, rounds: profile_step(end(x), rounds),
        epsilon=epsilon,
        largest=largest,
        note=note,
        cap=cap,
        build_seconds=build_seconds,
    )


def _tighter(
    question: Callable[[RoundModel, float, int, float], dict[str, object]],
    key: str,
    model: RoundModel,
    x: float,
    rounds: int,
    given: float,
) -> dict[str, object]:
    """The record of ``question`` (:func:`composed_epsilon` or :func:`composed_delta`) for ``model``
    and for its alternative, whichever answers the smaller ``key``; the model's own where the
    alternative does not apply."""
    first = question(replace(model, alternative=None), x, rounds, given)
    try:
        second = question(model.alternative, x, rounds, given)
    except NotApplicableError:
        return first
    return first if first[key] <= second[key] else second


def composed_epsilon(model: RoundModel, x: float, rounds: int, delta: float) -> dict[str, object]:
    """ε of ``rounds`` rounds at ``delta``: PLD composition, with the three baselines beside it.

    Returns a dict with ``eps`` (the answer: the PLD's, or Rényi DP's where that is smaller,
    which happens only where the PLD's own truncation terms exceed a tiny δ; for a lower-bound
    route, the PLD's), ``method`` (which of the two), ``rdp``, ``advanced``, ``naive`` (the
    baselines: valid bounds, never the answer but for Rényi DP; advanced and naive composition
    read one round's ε from the round's discretized pair, or from the bound for a profile),
    ``error`` (a bound on the
    distance of ``eps`` from the exact composition of the round's pair, :meth:`ComposedCurve.error`;
    ``nan`` for a profile), ``lower_bound`` and ``route``. :func:`composed_delta` reads the
    same two curves, so that the answers of the two questions agree.

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import bound_model, composed_epsilon
    >>> r = composed_epsilon(bound_model(StrongerClones(mechanism="krr", k=2), 10_000), 1.0, 10, 1e-6)
    >>> r["eps"] < r["rdp"] < r["naive"] and r["eps"] < r["advanced"], r["method"]
    (True, 'pld')
    >>> 0 <= r["error"] < 1e-3 * r["eps"]
    True
    """
    delta = check_probability("delta", delta)
    if model.alternative is not None:
        return _tighter(composed_epsilon, "eps", model, x, rounds, delta)
    single, curve = model.fitted(x, rounds, delta=delta, bracket=True)
    cache: dict[float, float] = {}

    def one(d: float) -> float:
        """One round's ε at ``d``: from the round's discretized pair (a valid bound, and read in
        microseconds) for a pair, from the bound itself for a profile."""
        if d not in cache:
            try:
                if model.route == "pair":
                    cache[d] = max(ld.epsilon(d) for ld in single)
                else:
                    cache[d] = float(model.epsilon(x, d))
            except NotApplicableError:
                cache[d] = math.inf
        return cache[d]

    low, high = curve.bracket(delta)
    pld = high if curve.upper else low
    rdp = rdp_epsilon(single, rounds, delta) if curve.upper else math.inf
    method = "rdp" if rdp < pld else "pld"
    eps = min(pld, rdp)
    if curve.upper:
        error = eps - low if math.isfinite(low) else math.nan
    else:
        error = high - eps if math.isfinite(high) else math.nan
    return {
        "eps": eps,
        "method": method,
        "rdp": rdp_epsilon(single, rounds, delta),
        "advanced": advanced_epsilon(one, rounds, delta),
        "naive": naive_epsilon(one, rounds, delta),
        "error": max(error, 0.0) if math.isfinite(error) else error,
        "lower_bound": curve.lower_bound,
        "route": model.route,
        "note": model.note,
    }


def composed_delta(model: RoundModel, x: float, rounds: int, eps: float) -> dict[str, object]:
    """δ of ``rounds`` rounds at ``eps``: the PLD's, or Rényi DP's where smaller (as :func:`composed_epsilon`),
    with ``method``, ``error`` (a bound on the distance from the exact composition of the round's
    pair; ``nan`` for a profile), ``lower_bound`` and ``route``.

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import bound_model, composed_delta
    >>> r = composed_delta(bound_model(StrongerClones(mechanism="krr", k=2), 10_000), 1.0, 10, 0.2)
    >>> 0 < r["delta"] < 1e-6, r["method"]
    (True, 'pld')
    """
    if model.alternative is not None:
        return _tighter(composed_delta, "delta", model, x, rounds, eps)
    single, curve = model.fitted(x, rounds, bracket=True, eps=eps)
    pld = float(curve.delta(eps))
    if curve.upper and 0.0 < pld < 1.0 and curve.step != model.step(x, rounds):
        # A grid coarsened to fit: the ε question at this answer fits its own (its compositions
        # are at other tilts, and coarsen by other factors). Both curves are valid upper bounds:
        # the smaller δ, so that the ε question's curve is read too (blanket Bennett, n = 5.2e8,
        # T = 3,436: δ 4.97e-9 on the δ question's grid, 1.50e-9 on the ε question's at 1.5e-9).
        # A grid no coarser than one the δ question refused cannot be read at ``eps`` either.
        try:
            other = model.fitted(x, rounds, delta=pld, coarser_than=curve.refused_step)[1]
            if other.step != curve.step:
                pld = min(pld, float(other.delta(eps)))
        except (ValueError, NotApplicableError):
            pass
    rdp = rdp_delta(single, rounds, eps) if curve.upper else math.inf
    method = "rdp" if rdp < pld else "pld"
    value = min(pld, rdp)
    if curve.upper and 0.0 < pld and value < DELTA_FLOOR:
        value = DELTA_FLOOR  # an upper bound below the floor (e.g. Rényi DP's exp underflowing to 0) rounds up
    error = math.nan
    if curve.companions:
        low, high = curve.delta_bracket(eps)
        error = max(value - low, 0.0) if curve.upper else max(high - value, 0.0)
    return {
        "delta": value,
        "method": method,
        "error": error,
        "lower_bound": curve.lower_bound,
        "route": model.route,
        "note": model.note,
    }


#: How far past the root (in log ε) the first stage of :func:`largest_composed` aims where it has no
#: coarse stage (a profile): approached from one side, the root's secant steps stay on that side
#: (clones, 10⁴ users sampled at rate 0.5, T = 100: four candidates above the target in a row).
AIM_PAST = 5e-3

#: Budget of the ε₀ question's search (:func:`largest_composed`), in :data:`METER`'s estimated
#: seconds: no new candidate is tried past it, and the candidate under way stops at twice it;
#: then the search answers with the largest local parameter already certified (a valid answer,
#: with a warning).
SEARCH_BUDGET = 0.6


def largest_composed(
    model: RoundModel,
    rounds: int,
    eps: float,
    delta: float,
    *,
    rtol: float = 1e-3,
    budget: float = SEARCH_BUDGET,
    info: dict | None = None,
) -> float:
    """Largest ``x`` such that ``rounds`` rounds are ``(eps, delta)``-DP (rounded down; module docstring).

    Every answer is certified (its composed ε was evaluated ``<= eps``: the PLD's, or Rényi DP's
    where smaller, as :func:`composed_epsilon` answers); a search that uses its
    ``budget`` (of :data:`METER`'s estimated seconds, counted from the work: the answer does not
    depend on the machine or its load) answers with the largest ``x`` certified so far (or, for a
    model whose cap is ``x`` itself, ``eps / rounds``: pure DP), and ``info`` (a dict, if given)
    receives ``{"exact": False, "lower": x, "upper": the smallest x found not to reach}``.

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition import bound_model, largest_composed
    >>> model = bound_model(StrongerClones(mechanism="krr", k=2), 10_000)
    >>> e0 = largest_composed(model, 10, 1.0, 1e-6)
    >>> model.curve(e0, 10, delta=1e-6).epsilon(1e-6) <= 1.0
    True
    """
    rtol = check_probability("rtol", rtol)
    start, outer = METER.seconds, METER.limit
    deadline = start + budget
    METER.limit = min(outer, start + 2.0 * budget)  # the candidate under way stops here
    found: dict = {"good": -math.inf, "bad": math.inf}
    try:
        answer = _largest_composed(model, rounds, eps, delta, rtol, deadline, found)
        if found.get("cut") and info is not None:
            info.update(found["cut"])
        return answer
    except _OutOfTime:
        good = found["good"]
        if not math.isfinite(good) and model.cap(1.0) == 1.0 and model.cap(2.0) == 2.0:
            good = eps / rounds * (1.0 - 1e-12)  # T rounds of an x-DP round are (T x, 0)-DP
        if not math.isfinite(good):
            raise NotApplicableError(
                f"not applicable: no local parameter was certified to reach eps={eps}, delta={delta} "
                f"in {rounds} rounds within the search's budget"
            ) from None
        if info is not None:
            info.update({"exact": False, "lower": good, "upper": found["bad"] if math.isfinite(found["bad"]) else None})
        return good
    finally:
        METER.limit = outer


#: Smallest δ at which :func:`largest_composed` starts from the Gaussian-DP estimate (a model's
#: ``scale``): at δ = 1e-6 and 1e-12 its first candidate's composed ε was within 1.0–1.5 times the
#: target (stronger clones, clones, exact-krr; 10⁴ and 10⁹ users; 10 and 10⁴ rounds), at δ = 1e-30
#: and below 10² to 10⁵ times it (the binomial tails, which the estimate ignores, set ε there).
GAUSSIAN_START_DELTA = 1e-15


def _gaussian_start(model: RoundModel, rounds: int, eps: float, delta: float) -> tuple[float, float] | None:
    """Where ``rounds`` rounds of ``model.scale(x)``-Gaussian DP reach ``(eps, delta)``: ``log x`` and the
    slope of ``log ε`` in ``log x`` there (``None`` without a scale, or where the estimate has no root)."""
    if model.scale is None or delta < GAUSSIAN_START_DELTA:
        return None

    def mu(x: float) -> float:
        return math.sqrt(rounds) * model.scale(x)

    x = gaussian_eps0(mu, eps, delta)
    if not x > 0.0:
        return None
    nearby = gaussian_dp_epsilon(mu(x * math.exp(0.01)), delta)
    slope = max((math.log(nearby) - math.log(eps)) / 0.01, 0.1) if nearby > 0.0 else 1.0
    return math.log(x), slope


def _largest_composed(
    model: RoundModel, rounds: int, eps: float, delta: float, rtol: float, deadline: float, found: dict[str, float]
) -> float:
    """The search of :func:`largest_composed` (it raises ``_OutOfTime`` once :data:`METER` is past
    ``deadline``; ``found`` collects the largest certified and the smallest refused local parameter)."""
    eps = check_positive("eps", eps)
    delta = check_probability("delta", delta)
    if model.alternative is not None:  # the tighter model allows the larger local parameter
        answers = []
        for one in (replace(model, alternative=None), model.alternative):
            share = max(deadline - METER.seconds, 0.0) / 2 + 0.05
            cut: dict = {}
            try:
                answers.append((largest_composed(one, rounds, eps, delta, rtol=rtol, budget=share, info=cut), cut))
            except NotApplicableError as refusal:
                reason = refusal
        if not answers:
            raise reason
        best, cut = max(answers, key=lambda answer: answer[0])
        found["cut"] = cut  # a budget-cut answer keeps its bracket (and its warning)
        return best
    if METER.seconds + _BUILD_CALL + model.build_seconds > METER.limit:
        raise _OutOfTime  # no candidate can be built within the budget (a costly profile at 10⁹ users)
    hi = model.largest(eps, delta)
    if hi <= 0.0:  # one round reaches the target only at x = 0 (a victim who never reports): so do T
        return 0.0

    scores: dict[tuple[float, int], float] = {}
    two_stages = model.coarse != 1.0

    def score(x: float, level: int = 0) -> float:
        """``log(composed ε / eps)`` at ``x`` on the grid ``model.coarse ** level`` times the default
        (``inf`` where the grid is too fine to build)."""
        key = (x, level if two_stages else 0)
        if key not in scores:
            if METER.seconds > deadline:
                raise _OutOfTime
            try:
                single, curve = model.fitted(x, rounds, key[1], delta)
                value = curve.epsilon(delta)
                if curve.upper:  # Rényi DP where smaller, as the ε question answers (a δ below the PLD's tails)
                    value = min(value, rdp_epsilon(single, rounds, delta))
            except ValueError:
                value = math.inf
            scores[key] = math.log(max(value, 1e-300) / eps)
            if key[1] == 0:  # the default grid: a certified answer, or a certified miss
                if scores[key] <= 0:
                    found["good"] = max(found["good"], x)
                else:
                    found["bad"] = min(found["bad"], x)
        return scores[key]

    # Stage 1: the root on the coarse grid in log x vs log ε (nearly linear): secant steps
    # (the first of one round's slope) from the start until the root is bracketed, then the Illinois
    # method, until ε is within 1% or x within a relative 2e-2 (without a coarse grid: stage 2
    # takes over as soon as the root is bracketed, with this bracket). The start is evaluated on a
    # grid coarser still (``model.coarse`` squared): it is often far from the root, where the
    # window is wide, and stage 1 is only a guide (stage 2 checks every candidate).
    tol = math.log1p(rtol)
    width, close = (2e-2, 1e-2) if two_stages else (tol, 0.0)
    lo = max(min(eps / (2.0 * rounds), hi), min(model.smallest, hi))
    bottom, top = math.log(lo), math.log(hi)
    # Start where T rounds of Gaussian DP reach the target (a model with a scale, δ not tiny), else
    # about where one round reaches eps / sqrt(rounds) (composed ε grows about like sqrt(rounds)):
    # a secant step in log x vs log ε through one round's ε at hi / sqrt(rounds) and at hi (which
    # is eps, unless hi is the model's top).
    t = max(top - 0.5 * math.log(rounds), bottom)
    slope = 1.0  # of log(composed ε) in log x: first that of one round's ε (the secant), else 1
    gaussian = _gaussian_start(model, rounds, eps, delta)
    if gaussian is not None:
        t, slope = min(max(gaussian[0], bottom), top), gaussian[1]
    elif t < top:
        try:
            single = float(model.epsilon(math.exp(t), delta))
            at_hi = float(model.epsilon(hi, delta)) if model.top is not None and hi >= model.top else eps
        except (NotApplicableError, ValueError):
            single = at_hi = math.nan
        if 0.0 < single < at_hi <= eps:
            slope = max((math.log(at_hi) - math.log(single)) / (top - t), 0.1)
            t = min(max(t + (math.log(eps / math.sqrt(rounds)) - math.log(single)) / slope, bottom), top)
    a = b = fa = fb = start = math.nan
    last: tuple[float, float] | None = None
    seen: dict[float, float] = {}  # stage 1's values (Illinois halves its copies)
    level = 2  # the first point, often far from the root, on a grid coarser still (a guide only)
    reach = 1.5  # the longest step in log x (doubled after each step it shortens)
    for _ in range(60):
        ft = seen[t] = score(math.exp(t), level)
        level = 1
        if ft <= 0:
            a, fa = t, ft
        else:
            b, fb = t, ft
        if abs(ft) <= close:
            start = t  # ε within 1%: the coarse grid is not more accurate than this
            break
        if not (math.isnan(a) or math.isnan(b)) or (ft <= 0 and t >= top) or (ft > 0 and t <= bottom):
            break
        if last is not None and math.isfinite(ft) and ft != last[1]:
            slope = max((ft - last[1]) / (t - last[0]), 0.1)
        last = (t, ft)
        # Without a coarse stage, aim a little past the root (AIM_PAST in ε), so that the bracket
        # closes, and a search cut by its budget has a certified point to answer with.
        aim = 0.0 if two_stages else math.copysign(AIM_PAST, ft)
        step = -(ft + aim) / slope if math.isfinite(ft) else -1.0
        t = min(max(t + max(min(step, reach), -reach), bottom), top)
        if abs(step) > reach:  # far from the root: the next step may go twice as far
            reach *= 2.0
    if math.isnan(a):
        if not two_stages and not math.isnan(b) and b <= bottom:
            # Stage 1 evaluated the bottom on the default grid: nothing reaches.
            raise NotApplicableError(
                f"not applicable: no local parameter >= {lo:.3g} reaches eps={eps}, delta={delta} in {rounds} rounds"
            )
        a = bottom  # the fine stage halves down from here (and says so if nothing reaches)
    elif not math.isnan(b) and math.isnan(start) and two_stages:
        side = 0
        while b - a > width:
            if math.isfinite(fb):
                t = (a * fb - b * fa) / (fb - fa)
                t = min(max(t, a + 0.02 * (b - a)), b - 0.02 * (b - a))
            else:
                t = 0.5 * (a + b)
            ft = seen[t] = score(math.exp(t), 1)
            if abs(ft) <= close:
                start = t
                break
            if ft <= 0:
                a, fa = t, ft
                fb, side = (fb / 2.0 if side == -1 else fb), -1  # Illinois: halve the stale end
            else:
                b, fb = t, ft
                fa, side = (fa / 2.0 if side == 1 else fa), 1
    if not (math.isnan(fa) or math.isnan(fb)) and math.isfinite(fb) and b > a:
        # The bracket's slope from its ends' own values (Illinois halved the copies).
        slope = max((seen[b] - seen[a]) / (b - a), 1e-3)
    # Stage 2: the default grid, secant steps on log x from the coarse root, aimed just beyond
    # the root on the side opposite to the last point (so that the bracket closes); every
    # candidate is checked.
    good, bad = -math.inf, top + 1e-12
    if not two_stages:  # stage 1 evaluated on the default grid: its bracket holds
        good = a if not math.isnan(fa) else good
        bad = b if not math.isnan(fb) else bad
    if not two_stages and not (math.isnan(fa) or math.isnan(fb)):
        # Start from the secant root of the bracket, just inside its safe side.
        t, prev = a - fa / slope, (a, fa)
        t = min(max(t, a + 0.02 * (b - a)), b - 0.02 * (b - a))
    else:
        t, prev = (a if math.isnan(start) else start), None
    f_good = f_bad = math.nan
    if not two_stages:
        f_good, f_bad = fa, fb
    side = 0  # which end moved last (-1 good, +1 bad): Illinois halves the stale end's value
    for _ in range(8):
        ft = score(math.exp(t))
        if ft <= 0 and t >= good:
            good, f_good = t, ft
            f_bad, side = (f_bad / 2.0 if side == -1 else f_bad), -1
        elif ft > 0 and t <= bad:
            bad, f_bad = t, ft
            f_good, side = (f_good / 2.0 if side == 1 else f_good), 1
        if good >= top or bad - good <= tol:
            return math.exp(good)
        if math.isfinite(good) and math.isfinite(f_bad) and not math.isnan(f_good) and f_bad != f_good:
            slope = max((f_bad - f_good) / (bad - good), 1e-3)  # false position on the bracket
        elif prev is not None and prev[1] != ft and math.isfinite(ft) and math.isfinite(prev[1]):
            slope = max((ft - prev[1]) / (t - prev[0]), 1e-3)
        root = t - ft / slope if math.isfinite(ft) else t - 10.0 * tol
        nxt = min(root + 0.4 * tol if ft <= 0 else root - 0.4 * tol, top)
        if not good < nxt < bad or nxt == t:
            nxt = 0.5 * (good + bad) if math.isfinite(good) else t - 0.1
        prev, t = (t, ft), nxt
    while not math.isfinite(good):
        # Halve down to a reaching x.
        t -= math.log(2.0)
        if t < bottom - math.log(2.0):
            raise NotApplicableError(
                f"not applicable: no local parameter >= {lo:.3g} reaches eps={eps}, delta={delta} in {rounds} rounds"
            )
        if score(math.exp(t)) <= 0:
            good = t
        else:
            bad = t
    while bad - good > tol:
        mid = 0.5 * (good + bad)
        if score(math.exp(mid)) <= 0:
            good = mid
        else:
            bad = mid
    return math.exp(good)


def composed_record(
    command: str, model: RoundModel, x: float, y: float, rounds: int, answer: str = "eps0"
) -> dict[str, object]:
    """The calculator's record for ``rounds`` rounds: one implementation for every family.

    ``command`` is ``"epsilon"`` (``x`` the local parameter, ``y`` δ: adds the baselines),
    ``"delta"`` (``x``, ``y`` = ε) or ``"eps0"`` (``x, y`` = ε, δ: the largest local
    parameter, under ``answer``). The record holds ``compose`` and ``route``, and ``note``
    when the model has one.

    Raises
    ------
    NotApplicableError
        If no finite composed ε reaches δ (epsilon question).

    Examples
    --------
    >>> from shufflelib.bounds import BlanketHoeffding
    >>> from shufflelib.composition import bound_model
    >>> from shufflelib.composition.model import composed_record
    >>> r = composed_record("epsilon", bound_model(BlanketHoeffding(), 10_000), 1.0, 1e-6, 10)
    >>> r["route"], sorted(r["baselines"])
    ('profile', ['advanced', 'naive', 'rdp'])
    """
    out: dict[str, object] = {"compose": rounds, "route": model.route}
    note = model.note
    if command == "epsilon":
        r = composed_epsilon(model, x, rounds, y)
        out["route"], note = r["route"], r["note"]
        if not math.isfinite(r["eps"]):
            raise NotApplicableError(f"not applicable: no finite eps reaches delta={y} in {rounds} rounds")
        out.update({key: r[key] for key in ("eps", "method", "error", "lower_bound")})
        out["error"] = _finite_or_none(r["error"])
        # A baseline that certifies nothing (e.g. Rényi DP of a profile without a cap) is null.
        out["baselines"] = {key: r[key] if math.isfinite(r[key]) else None for key in ("rdp", "advanced", "naive")}
    elif command == "delta":
        r = composed_delta(model, x, rounds, y)
        out["route"], note = r["route"], r["note"]
        out.update({key: r[key] for key in ("delta", "method", "error", "lower_bound")})
        out["error"] = _finite_or_none(r["error"])
    elif command == "eps0":
        info: dict = {}
        out[answer] = largest_composed(model, rounds, x, y, info=info)
        if info:
            upper = "its top" if info["upper"] is None else f"{info['upper']:.6g}"
            bracket = f"[{info['lower']:.6g}, {upper}]"
            out.update(info)
            out["warning"] = (
                f"not exact: the search stopped at its time budget; the value is a valid bound (its composed "
                f"eps was checked), and the largest {answer} lies in {bracket}"
            )
    else:
        raise ValueError(f"command must be epsilon, delta or eps0, got {command!r}")
    if note:
        out["note"] = note
    return out


def _finite_or_none(value: float) -> float | None:
    """``value``, or ``None`` (JSON's null) where it is not finite."""
    return float(value) if math.isfinite(value) else None
