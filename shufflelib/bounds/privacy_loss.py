"""The one protocol between a bound and whatever composes it: its privacy loss, in one of two forms.

Every bound answers ``privacy_loss(...)`` (the uniform bounds
:meth:`~shufflelib.bounds.base.AmplificationBound.privacy_loss` at ``n`` users, the random-population
bounds :meth:`~shufflelib.population.bounds.PopulationBound.privacy_loss`) with a
:class:`PrivacyLoss`: one round's privacy as a function of the local parameter ``eps0``, in one of
two forms, and whether it is an upper or a lower bound:

* ``"pair"`` — a dominating pair (for a lower bound: an attained pair), ready to become a privacy
  loss distribution: ``PrivacyLoss.pair(eps0)`` is one of the three descriptions below;
* ``"profile"`` — a privacy profile δ(ε): ``PrivacyLoss.profile(eps0)`` is a vectorized
  function of an array of ε (``profile`` itself ``None``: a closed form ε(δ), sampled in δ).

The descriptions of a pair (data, no code: :mod:`~shufflelib.composition` turns each into its loss
distribution, as ``dp_accounting`` builds a ``PrivacyLossDistribution`` from a mechanism's
parameters):

* :class:`ClonePairLoss` — the clone pair of ``n`` users with clone probability ``p``
  (:func:`~shufflelib.composition.clone_pld.clone_pair_pld` lists it without its ``O(n^1.5)``
  atoms);
* :class:`ExplicitPairLoss` — two probability vectors on common atoms (log-pmfs);
* :class:`CloneCountLoss` — a mixture of clone pairs over a random number of clones (the
  population's clone count).

Composition reads nothing else of a bound: adding a bound means writing its ``privacy_loss`` (the
default of :class:`~shufflelib.bounds.base.AmplificationBound` is its own profile) and registering it.

Examples
--------
>>> from shufflelib.bounds import BlanketBennett, StrongerClones
>>> loss = StrongerClones(mechanism="krr", k=2).privacy_loss(10_000)
>>> loss.form, loss.upper, round(loss.pair(1.0).clone_probability, 4)
('pair', True, 0.5379)
>>> BlanketBennett().privacy_loss(10_000).form
'profile'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "FORMS",
    "COSTLY_PROFILE_SECONDS",
    "PrivacyLoss",
    "costly_profile_seconds",
    "ClonePairLoss",
    "ExplicitPairLoss",
    "CloneCountLoss",
    "clone_loss_scale",
]

#: The two forms of a privacy loss.
FORMS = ("pair", "profile")


#: ``build_seconds`` of a privacy loss whose every point is a costly computation (the
#: personalized bounds' and the segmented protocol's profiles) at up to 10^4 users: counted by
#: :data:`~shufflelib.composition.model.METER` beside the build's output. A build of 128 points
#: costs about 0.01 s for the book's populations of 10^4 users (their ε₀ answers stay those of
#: the clock's budget, every one exact); see :func:`costly_profile_seconds` for larger populations.
COSTLY_PROFILE_SECONDS = 0.03


def costly_profile_seconds(n: int) -> float:
    """``build_seconds`` of a costly profile for ``n`` users (a fixed estimate, so that the
    search's budget stays a count of work, not of time).

    A build's cost grows with the population: :data:`COSTLY_PROFILE_SECONDS` up to 10^4 users,
    times ``(n / 10^4)^(1/3)`` above. The growth is chosen, not fitted: one measurement at 10^9
    users (Liu et al.'s bound with randomized response, ``benchmarks/bench_corners.py``: about
    0.8 s per build, where a flat 0.03 let the search run to 10 s) puts the estimate there at
    1.4 s, on the side of stopping earlier.

    Examples
    --------
    >>> from shufflelib.bounds.privacy_loss import costly_profile_seconds
    >>> costly_profile_seconds(10_000), round(costly_profile_seconds(10**9), 2)
    (0.03, 1.39)
    """
    return COSTLY_PROFILE_SECONDS * max(1.0, n / 1e4) ** (1.0 / 3.0)


def clone_loss_scale(n: int, eps0: float) -> float:
    """About the standard deviation of one round's privacy loss of the stronger-clone pair of ``n`` users.

    ``2 tanh(eps0/2) / sqrt(1 + (n − 1) · 2/(e^{eps0} + 1))``: the loss moves by about
    ``2 tanh(eps0/2)`` per clone, against the square root of the expected number of clones. The
    grid of a composed pair is a fixed fraction of it
    (:func:`~shufflelib.composition.default_step`).

    Examples
    --------
    >>> round(clone_loss_scale(1_000_000, 1.0), 6)
    0.00126
    """
    return 2.0 * math.tanh(eps0 / 2.0) / math.sqrt(1.0 + (n - 1) * 2.0 / (math.exp(min(eps0, 700.0)) + 1.0))


@dataclass(frozen=True)
class ClonePairLoss:
    """The clone pair of ``n`` users at local ``eps0``: ``C ~ Bin(n − 1, clone_probability)`` clones.

    Examples
    --------
    >>> ClonePairLoss(1000, 1.0, 0.5).clone_probability
    0.5
    """

    n: int
    eps0: float
    clone_probability: float


@dataclass(frozen=True)
class ExplicitPairLoss:
    """A pair given by its log-probabilities on common atoms.

    ``symmetric``: both orders have the same loss distribution (one is built); ``tail_mass``: the
    pair's own missing probability, counted at loss ``+∞`` by an upper bound; ``max_loss``: a
    bound on the loss known in advance (e.g. ``eps0``), ``inf`` if none.

    Examples
    --------
    >>> pair = ExplicitPairLoss(np.log([0.75, 0.25]), np.log([0.25, 0.75]), symmetric=True)
    >>> pair.symmetric, pair.max_loss
    (True, inf)
    """

    log_p: np.ndarray
    log_q: np.ndarray
    symmetric: bool = False
    tail_mass: float = 0.0
    max_loss: float = math.inf


@dataclass(frozen=True)
class CloneCountLoss:
    """A mixture of clone pairs at local ``eps0`` over a random number of clones ``count``.

    ``count`` is a law of the clone count with ``range()`` (its support's ends),
    ``blocks(k)`` (``k`` blocks of counts: starts, masses, and the mass dropped) and ``mean()``;
    ``max_blocks`` caps the number of blocks listed.

    Examples
    --------
    >>> from shufflelib.population import PoissonPopulation, TightClones
    >>> loss = TightClones(PoissonPopulation(5000)).privacy_loss().pair(1.0)
    >>> loss.eps0, loss.max_blocks > 0
    (1.0, True)
    """

    eps0: float
    count: Any
    max_blocks: int


@dataclass(frozen=True)
class PrivacyLoss:
    """One round's privacy loss as a bound states it, as a function of its local parameter ``eps0``.

    Parameters
    ----------
    form
        ``"pair"`` or ``"profile"`` (:data:`FORMS`).
    upper
        True for an upper bound on the round's privacy (a dominating pair, a valid profile), False
        for a lower bound (an attained pair or profile).
    epsilon, largest
        ``epsilon(eps0, delta)``: one round's ε, and ``largest(eps, delta)``: one round's largest
        ``eps0`` reaching ``(eps, delta)`` (of the bound whose pair or profile this is).
    pair
        ``pair(eps0)``: a :class:`ClonePairLoss`, :class:`ExplicitPairLoss` or :class:`CloneCountLoss`
        (form ``"pair"``).
    scale
        ``scale(eps0)``: about the standard deviation of the pair's loss, which sets the grid of its
        distribution (form ``"pair"``).
    profile
        ``profile(eps0)``: δ(ε) for an array of ε >= 0 (form ``"profile"``); ``None``: the bound is a
        closed form ε(δ), sampled in δ instead.
    note
        A sentence saying what stands for the bound (e.g. a dominating bound's pair), or ``None``.
    alternative
        Another valid privacy loss of the same round (e.g. a second bound's profile for the same
        protocol), or ``None``: the composition answers with the tighter of the two.
    coarse, bracket
        For a pair: whether a coarser grid builds it cheaper (a first stage of the ε₀ search), and
        whether its other side is built too, to bracket the composition (a clone-count mixture,
        built atom by atom, does neither).
    pure
        Whether one round is pure ``x``-DP at its parameter ``x`` (shuffled ``eps0``-LDP reports are
        ``eps0``-DP): the composition caps ``T`` rounds at ``T · x``. False where the parameter is
        no ε (the segmented protocol's reporting probability λ) or a local δ is positive.
    top
        The largest parameter ``largest`` returns (λ = 1), or ``None``: where ``largest`` returns
        it, one round's ε there aims the first step of the composed search
        (:func:`~shufflelib.composition.model.largest_composed`).
    build_seconds
        For a profile whose every point is a costly computation: the estimated seconds of one build
        (:func:`costly_profile_seconds`), which the composition's work meter counts; 0 for a cheap one.

    Examples
    --------
    >>> from shufflelib.bounds import ErlingssonBound
    >>> loss = ErlingssonBound().privacy_loss(10_000)
    >>> loss.form, loss.upper, loss.pair is None
    ('profile', True, True)
    """

    form: str
    upper: bool
    epsilon: Callable[[float, float], float]
    largest: Callable[[float, float], float]
    pair: Callable[[float], ClonePairLoss | ExplicitPairLoss | CloneCountLoss] | None = None
    scale: Callable[[float], float] | None = None
    profile: Callable[[float], Callable[[np.ndarray], np.ndarray]] | None = None
    note: str | None = None
    alternative: PrivacyLoss | None = None
    coarse: bool = True
    bracket: bool = True
    pure: bool = True
    top: float | None = None
    build_seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.form not in FORMS:
            raise ValueError(f"form must be one of {', '.join(FORMS)}, got {self.form!r}")
        if self.form == "pair" and (self.pair is None or self.scale is None):
            raise ValueError("a pair-form privacy loss needs its pair and its scale")
