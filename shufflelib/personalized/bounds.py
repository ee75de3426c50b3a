r"""Every bound of the personalized chapter, answering the three questions for a population.

A :class:`PersonalizedBound` is built for a local randomizer family
(:class:`~shufflelib.personalized.mechanisms.LocalMechanism`) and answers, for a
:class:`~shufflelib.personalized.population.Population`:

* :meth:`~PersonalizedBound.epsilon` — the central ε at a target δ (rounded up);
* :meth:`~PersonalizedBound.delta` — the central δ at a target ε;
* :meth:`~PersonalizedBound.max_eps0` — the largest ``ε_max`` such that the
  population scaled to that largest level (every level multiplied by the same
  factor) reaches ``(ε, δ)`` (rounded down).

All go through the shared privacy-curve code: :meth:`~PersonalizedBound.curve`
returns a :class:`~shufflelib.curves.PrivacyCurve` (a
:class:`~shufflelib.curves.ProfileCurve`), whose ε(δ) is found by certified
root finding. Every profile is capped by the local guarantee of the most
revealing level (the shuffled output is a post-processing of one user's
report), so every ε is at most ``ε_max`` when the randomizers are pure; where
no finite ε reaches the target δ, :meth:`~PersonalizedBound.epsilon` raises
:class:`~shufflelib.bounds.base.NotApplicableError` ("no finite ε").

The box: ``2 <= n <= 10**9`` users, every level in ``[1e-6, 100]`` (see
``shufflelib._validation``); outside it a :class:`ValueError` names the
parameter and its range.

:data:`PERSONALIZED_BOUNDS` lists them by command-line name. ``sound`` tells
whether the bound is a proven upper bound for the family (``False`` for the
paper's bound with the Laplace and Gaussian mechanisms, for the baselines
applied at the largest level to other randomizers than randomized response,
and for the Gaussian-DP approximation, which is not a bound at all).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import ClassVar

import numpy as np

from .._roots import first_true, largest_reaching
from .._validation import EPS0_LIMIT, EPS0_MIN, N_MAX, check_nonnegative, check_positive, check_probability
from ..bounds import NotApplicableError
from ..bounds.base import profile_target
from ..bounds.blanket import BlanketBennett
from ..bounds.privacy_loss import PrivacyLoss, costly_profile_seconds
from ..curves import PrivacyCurve, ProfileCurve
from .baselines import approximate_clone_term, gdp_delta, gdp_mu, lzx_proxy_epsilon, stronger_clones_delta
from .clone_count import clone_pair_delta
from .mechanisms import LocalMechanism
from .population import Population
from .sound import no_shuffling_delta, sound_delta
from .theorems import PRINTED_TERMS, paper_plan, theorem2_delta, theorem2_printed_delta

__all__ = [
    "PersonalizedBound",
    "PaperTheorem2",
    "PaperTheorem2Printed",
    "PaperClonePair",
    "SoundClones",
    "StrongerClonesAtMax",
    "BlanketAtMax",
    "GaussianDPApproximation",
    "LZXProxy",
    "PERSONALIZED_BOUNDS",
]

#: Largest ε_max searched by ``max_eps0``.
EPS0_MAX = 20.0

_LIU24 = (
    "Y. Liu, Y. Liu, L. Xiong, Y. Gu, H. Chen. Enhanced privacy bound for shuffle model with "
    "personalized privacy. arXiv:2407.18157, 2024."
)


class PersonalizedBound(ABC):
    """A privacy bound for shuffled personalized randomizers of one family.

    Parameters
    ----------
    mechanism
        The local randomizer family; must be one of :attr:`kinds`.

    Examples
    --------
    Each bound says whether it is proven for the randomizer family it is given:

    >>> from shufflelib.personalized.bounds import PaperTheorem2, SoundClones
    >>> from shufflelib.personalized import LocalMechanism, Population
    >>> population = Population([0.5, 1.0], [500, 500])
    >>> bound = SoundClones(LocalMechanism("rr"))
    >>> bound.sound, round(bound.epsilon(population, 1e-6), 4)
    (True, 0.1347)
    >>> PaperTheorem2(LocalMechanism("laplace")).sound
    False
    """

    #: Command-line name.
    name: ClassVar[str] = ""
    #: Human-readable title.
    title: ClassVar[str] = ""
    #: Bibliographic reference.
    reference: ClassVar[str] = ""
    #: Randomizer kinds the bound accepts.
    kinds: ClassVar[tuple[str, ...]] = ("rr", "laplace", "gaussian")
    #: Kinds for which the bound is a proven upper bound.
    sound_for: ClassVar[tuple[str, ...]] = ()

    def __init__(self, mechanism: LocalMechanism) -> None:
        if not isinstance(mechanism, LocalMechanism):
            raise ValueError(f"mechanism must be a LocalMechanism, got {type(mechanism).__name__}")
        if mechanism.kind not in self.kinds:
            raise ValueError(
                f"mechanism must be one of {', '.join(self.kinds)} for the {self.name} bound, got {mechanism.kind!r}"
            )
        self.mechanism = mechanism

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.mechanism.label})"

    #: Why the bound is not valid for the kinds outside ``sound_for`` (one line).
    unsound_because: ClassVar[str] = "it is not proved for this randomizer"

    def soundness(self, **params: object) -> str | None:
        """``None`` if this is a proven upper bound for the chosen randomizer family, else why not.

        The same shape as :meth:`shufflelib.bounds.base.AmplificationBound.soundness`
        (``params`` are accepted and not read: here soundness depends on the family only).

        Examples
        --------
        >>> from shufflelib.personalized.mechanisms import LocalMechanism
        >>> PaperTheorem2(LocalMechanism("rr")).soundness() is None
        True
        >>> PaperTheorem2(LocalMechanism("laplace")).soundness()[:48]
        'not a valid bound for the laplace randomizer: th'
        """
        if self.mechanism.kind in self.sound_for:
            return None
        return f"not a valid bound for the {self.mechanism.label} randomizer: {self.unsound_because}"

    @property
    def sound(self) -> bool:
        """Whether this is a proven upper bound for the chosen randomizer family."""
        return self.soundness() is None

    # ------------------------------------------------------------ to override
    @abstractmethod
    def _profile(self, population: Population) -> Callable[[np.ndarray], np.ndarray]:
        """δ(ε) for a 1-D array of ε >= 0 (non-increasing)."""

    def _round_profile(self, population: Population) -> Callable[[np.ndarray], np.ndarray]:
        """The profile of one round of a composition: :meth:`_profile`, or a cheaper upper bound on it."""
        return self._profile(population)

    def validity(self, population: Population) -> str | None:
        """``None`` if the bound covers the population, else the reason."""
        if self.mechanism.needs_delta and np.any(population.delta <= 0):
            return f"the {self.mechanism.label} mechanism needs a local delta > 0 for every user"
        return None

    # ------------------------------------------------------------ public API
    def _curve(self, population: Population, composed: bool = False) -> PrivacyCurve:
        """The capped curve, for a population already checked against the box."""
        self._require(population)
        profile = (self._round_profile if composed else self._profile)(population)
        local = _local_profile(population, self.mechanism)

        def capped(e: np.ndarray) -> np.ndarray:
            e = np.asarray(e, dtype=float)
            with np.errstate(over="ignore", invalid="ignore"):
                d = np.asarray(profile(e), dtype=float)
            return np.minimum(np.where(np.isnan(d), 1.0, d), local(e))

        return ProfileCurve(capped)

    def curve(self, population: Population, *, composed: bool = False) -> PrivacyCurve:
        """The bound's privacy curve for ``population``.

        ``composed``: the curve one round of a composition uses (the same, or a cheaper
        valid upper bound on it: :class:`SoundClones` blocks the clone count coarser).

        Examples
        --------
        >>> from shufflelib.personalized import LocalMechanism, Population
        >>> c = SoundClones(LocalMechanism("rr")).curve(Population([1.0], [10_000]))
        >>> 0 < c.epsilon(1e-6) < 1
        True
        """
        return self._curve(_check_box(population), composed)

    def delta(self, population: Population, eps: float) -> float:
        """Central δ at central ε (>= 0).

        Examples
        --------
        >>> from shufflelib.personalized import LocalMechanism, Population
        >>> b = StrongerClonesAtMax(LocalMechanism("rr"))
        >>> f"{b.delta(Population([1.0, 2.0], [9_999, 1]), 0.1):.1e}"
        '6.0e-06'
        """
        eps = check_nonnegative("eps", eps)
        return float(self._curve(_check_box(population)).delta(eps))

    def epsilon(self, population: Population, delta: float) -> float:
        """Central ε at central δ in (0, 1) (rounded up).

        Raises
        ------
        NotApplicableError
            If no finite ε reaches δ (e.g. δ below the local δ of a Gaussian level).

        Examples
        --------
        >>> from shufflelib.personalized import LocalMechanism, Population
        >>> round(PaperTheorem2(LocalMechanism("laplace")).epsilon(Population([1.0], [10_000]), 1e-5), 4)
        0.0282
        """
        delta = check_probability("delta", delta)
        return self._epsilon(_check_box(population), delta)

    def _epsilon(self, population: Population, delta: float) -> float:
        eps = float(self._curve(population).epsilon(delta))
        if not math.isfinite(eps):
            raise NotApplicableError(
                f"{self.name} bound not applicable: no finite eps reaches delta={delta} for this population"
            )
        return eps

    def max_eps0(self, population: Population, eps: float, delta: float) -> float:
        """Largest ``ε_max`` (levels scaled in proportion) whose shuffled population is (ε, δ)-DP.

        Searched in ``(0, 20]`` to relative precision ``1e-9``, rounded down
        (``shufflelib._roots.largest_reaching``). The answer is certified: the
        population scaled to it reaches ``(ε, δ)``, and unless it is 20 one scaled at most
        a relative ``1e-9`` higher does not. Where the bound is non-decreasing in ``ε_max`` (every
        proved bound here) it is the largest such ``ε_max``; for a formula that is not
        monotone it is the crossing the search brackets, not necessarily the supremum; should the
        curve's ε at ``delta`` there exceed ``eps`` (δ not monotone in ε), the search is run again on
        that ε, so that the answer's ε is at most ``eps``.

        Raises
        ------
        NotApplicableError
            If even a tiny ``ε_max`` does not reach the target.

        Examples
        --------
        >>> from shufflelib.personalized import LocalMechanism, Population
        >>> b = SoundClones(LocalMechanism("rr"))
        >>> e0 = b.max_eps0(Population([0.5, 1.0], [5_000, 5_000]), 0.1, 1e-6)
        >>> 1.0 < e0 < 5.0
        True
        """
        return self._max_eps0(population, eps, delta, certify=True)

    def _max_eps0(self, population: Population, eps: float, delta: float, *, certify: bool) -> float:
        """:meth:`max_eps0`; without ``certify``, the crossing of δ at the profile's target only (no second
        search on ε where δ is not monotone in ε): an upper end for the composed search, which
        certifies each of its candidates itself."""
        eps = check_positive("eps", eps)
        delta = check_probability("delta", delta)
        top = _check_box(population).eps_max

        # (eps, delta) is certified at eps_max = e0 iff the scaled population's delta(eps) <= delta:
        # one profile evaluation per step (not an epsilon search).
        inner = profile_target(eps)
        seen: dict[float, float] = {}  # the search asks again for the ends of its bracket

        def value(e0: float) -> float:
            if e0 not in seen:
                seen[e0] = float(self._curve(population.scaled(e0 / top)).delta(inner))
            return seen[e0]

        # From the profile's target: pure levels all at most it are (inner, 0)-DP by the local cap.
        # Scaled below the box (its smallest level under EPS0_MIN) the search stops: not applicable.
        smallest = max(1e-6, EPS0_MIN * top / float(population.eps[0]))
        found = None
        if smallest <= EPS0_MAX:
            start = min(max(inner, smallest), EPS0_MAX)
            found = largest_reaching(value, delta, start, EPS0_MAX, smallest=smallest, log_scale=True)
        if certify and found is not None and self._curve(population.scaled(found / top)).epsilon(delta) > eps:
            # A profile not monotone in ε (a printed formula) can read δ(inner) <= δ where its ε at
            # δ lies above eps (pers-liu24-printed, rr, levels 1, e, e^4.5 with counts 2, 1, 1,
            # (1, e^-2): ε 1.029 at the crossing found): then the search runs on ε itself.
            found = largest_reaching(
                lambda e0: float(self._curve(population.scaled(e0 / top)).epsilon(delta)),
                eps,
                smallest,
                found,
                smallest=smallest,
            )
        if found is None:
            raise NotApplicableError(
                f"{self.name} bound not applicable: no top level eps_max in the box reaches eps={eps}, delta={delta}"
            )
        return found

    def privacy_loss(self, population: Population) -> PrivacyLoss:
        """One round's privacy loss, as composition reads it (:mod:`~shufflelib.bounds.privacy_loss`):
        the profile of one round (:meth:`curve` with ``composed=True``) as a function of the top level
        ``x``, every level scaled in proportion (``population`` itself at ``x = population.eps_max``).

        The loss is stated as an upper bound (:meth:`soundness` says whether it is proven for the
        randomizer family); a round is pure ``x``-DP when every local δ is 0 (``pure``).

        Examples
        --------
        >>> from shufflelib.personalized import LocalMechanism, Population
        >>> population = Population([0.5, 1.0], [5_000, 5_000])
        >>> loss = SoundClones(LocalMechanism("rr")).privacy_loss(population)
        >>> loss.form, loss.upper, loss.pure
        ('profile', True, True)
        >>> bool(loss.profile(1.0)(np.array([0.1]))[0] == SoundClones(LocalMechanism("rr")).curve(
        ...     population, composed=True).delta(0.1))
        True
        """
        top = population.eps_max

        def at(x: float) -> Population:
            return population.scaled(x / top)

        return PrivacyLoss(
            "profile",
            True,
            epsilon=lambda x, d: self.epsilon(at(x), d),
            largest=lambda e, d: self._max_eps0(population, e, d, certify=False),
            profile=lambda x: self.curve(at(x), composed=True).delta,
            pure=bool(np.all(population.delta == 0.0)),
            build_seconds=self._build_seconds(population),
        )

    def _build_seconds(self, population: Population) -> float:
        """Estimated seconds of one composed round's profile (``build_seconds`` of :meth:`privacy_loss`):
        each profile point is a bound's own search (:func:`~shufflelib.bounds.privacy_loss.costly_profile_seconds`)."""
        return costly_profile_seconds(population.n)

    def _require(self, population: Population) -> None:
        if not isinstance(population, Population):
            raise ValueError(f"population must be a Population, got {type(population).__name__}")
        reason = self.validity(population)
        if reason is not None:
            raise NotApplicableError(f"{self.name} bound not applicable: {reason}")


def _check_box(population: Population) -> Population:
    """The population, checked against the box (``2 <= n <= N_MAX``, levels in ``[EPS0_MIN, EPS0_LIMIT]``)."""
    if not isinstance(population, Population):
        raise ValueError(f"population must be a Population, got {type(population).__name__}")
    if not 2 <= population.n <= N_MAX:
        raise ValueError(f"counts must add up to a number of users >= 2 and <= {N_MAX}, got {population.n}")
    if population.eps[0] < EPS0_MIN or population.eps_max > EPS0_LIMIT:
        raise ValueError(
            f"eps0 must have every level in [{EPS0_MIN}, {EPS0_LIMIT}], "
            f"got levels from {float(population.eps[0])!r} to {population.eps_max!r}"
        )
    return population


def _local_profile(population: Population, mechanism: LocalMechanism) -> Callable[[np.ndarray], np.ndarray]:
    """δ(ε) of the most revealing user's own randomizer, rounded up: a cap on any shuffled profile
    (:func:`~shufflelib.personalized.sound.no_shuffling_delta`; shuffling is post-processing)."""
    return lambda e: np.minimum(1.0, no_shuffling_delta(e, population, mechanism) * (1.0 + 1e-12))


def _local_epsilon(population: Population, mechanism: LocalMechanism, delta: float) -> float:
    """The smallest ε the local cap alone certifies at ``delta`` (``inf`` if none)."""
    return float(ProfileCurve(_local_profile(population, mechanism)).epsilon(delta))


# ---------------------------------------------------------------- the paper
class _PaperPlanBound(PersonalizedBound):
    """A bound built on the paper's plan (:func:`~shufflelib.personalized.theorems.paper_plan`):
    not applicable where the paper's hypothesis-testing probabilities are not defined."""

    def validity(self, population: Population) -> str | None:
        reason = super().validity(population)
        if reason is not None:
            return reason
        try:
            paper_plan(population, self.mechanism)
        except ValueError as exc:  # e.g. a level with less noise than the most private user's
            return f"the paper's probabilities p_i are not defined for this population ({str(exc).split(';')[0]})"
        return None


class PaperTheorem2(_PaperPlanBound):
    """Theorem 2 of Liu et al. (2024), consistent reading: ``λ H_{e^{ε'}}(Q_0‖P_0)``.

    Clone probabilities by hypothesis testing (user 1 at the largest level,
    worst case ``x_i = x^0``, ties by the limit convention). A proven bound
    only for randomized response: for the Laplace and Gaussian mechanisms the
    hypothesis-testing probabilities are not valid clone probabilities (see
    the chapter for the violations).

    Examples
    --------
    >>> from shufflelib.personalized.population import table1_population
    >>> from shufflelib.personalized.mechanisms import LocalMechanism
    >>> round(PaperTheorem2(LocalMechanism("laplace")).epsilon(table1_population("Uniform1", 10_000), 1e-5), 4)
    0.0301
    """

    name = "pers-liu24"
    unsound_because = (
        "the hypothesis-testing clone probabilities admit no valid decomposition; exact brackets exceed it"
    )
    title = "Liu et al. (2024), Theorem 2 (consistent reading; not sound for laplace/gaussian)"
    reference = _LIU24
    sound_for = ("rr",)

    def _profile(self, population: Population) -> Callable[[np.ndarray], np.ndarray]:
        plan = paper_plan(population, self.mechanism)
        return lambda e: theorem2_delta(e, plan)


#: Estimated seconds (of :data:`~shufflelib.composition.model.METER`) of one composed round's profile of
#: :class:`PaperTheorem2Printed` (its end's 64 points and its 128 samples, each a search for ``t_ε``
#: and two sums of binomial cdfs) per :data:`~shufflelib.personalized.theorems.PRINTED_TERMS` terms.
#: Measured: 0.55–0.65 s at 1,024 terms on the CI machine, which does the meter's reference work about
#: 1.7–1.9 times as slowly; another personalized profile of 10⁵–10⁶ users is estimated at 0.05–0.1 s.
PRINTED_BUILD_SECONDS = 0.3


class PaperTheorem2Printed(_PaperPlanBound):
    """Theorem 2 of Liu et al. (2024) exactly as printed (``t_ε`` from the aggregated ``l(t)``).

    The formula is a difference of two sums of binomial cdfs; its threshold ``t_ε`` is
    located exactly (:func:`~shufflelib.personalized.theorems.theorem2_printed_delta`), so
    it rises smoothly with ``ε_max``, down to where the difference reaches the subnormal
    numbers: at a ``δ`` there (e.g. ``5e-324``) the ``max_eps0`` answer is a crossing in that
    float noise (about 1 % of ``ε_max`` wide at ``n = 10^9``).

    Parameters
    ----------
    mechanism
        The randomizer family.
    weights
        ``"pi"`` (default: the evident intent, the clone-count pmf) or ``"printed"``
        (the constant ``w_1^0`` of the paper, which cancels; ``O(n)`` per threshold).

    Examples
    --------
    >>> from shufflelib.personalized import LocalMechanism, Population
    >>> b = PaperTheorem2Printed(LocalMechanism("laplace"))
    >>> b.delta(Population([3.0], [300]), 0.1) < PaperTheorem2(LocalMechanism("laplace")).delta(
    ...     Population([3.0], [300]), 0.1)
    True
    """

    name = "pers-liu24-printed"
    unsound_because = "Theorem 2 as printed is a formula, not a proved bound"
    title = "Liu et al. (2024), Theorem 2 as printed (a formula, not a bound)"
    reference = _LIU24

    def __init__(self, mechanism: LocalMechanism, weights: str = "pi") -> None:
        super().__init__(mechanism)
        self.weights = weights

    def _profile(self, population: Population) -> Callable[[np.ndarray], np.ndarray]:
        plan = paper_plan(population, self.mechanism)
        return lambda e: theorem2_printed_delta(e, plan, weights=self.weights)

    def _build_seconds(self, population: Population) -> float:
        """:data:`PRINTED_BUILD_SECONDS` per :data:`~shufflelib.personalized.theorems.PRINTED_TERMS` terms of
        the formula's sums (``n − 1`` for the printed weights, at most ``PRINTED_TERMS`` for ``π``),
        and no less than another personalized profile."""
        terms = population.n - 1 if self.weights == "printed" else min(population.n - 1, PRINTED_TERMS)
        return max(costly_profile_seconds(population.n), PRINTED_BUILD_SECONDS * terms / PRINTED_TERMS)


class PaperClonePair(_PaperPlanBound):
    """The exact clone pair with the paper's probabilities (no f-DP step; tighter than Theorem 2).

    Examples
    --------
    >>> from shufflelib.personalized import LocalMechanism, Population
    >>> pop = Population([1.0], [100])
    >>> m = LocalMechanism("rr")
    >>> PaperClonePair(m).delta(pop, 0.3) <= PaperTheorem2(m).delta(pop, 0.3)
    True
    """

    name = "pers-liu24-pair"
    unsound_because = "the hypothesis-testing clone probabilities admit no valid decomposition"
    title = "Clone pair with the hypothesis-testing probabilities of Liu et al. (not sound for laplace/gaussian)"
    reference = _LIU24
    sound_for = ("rr",)

    def _profile(self, population: Population) -> Callable[[np.ndarray], np.ndarray]:
        plan = paper_plan(population, self.mechanism)
        return lambda e: clone_pair_delta(e, plan.w, plan.count)


# ---------------------------------------------------------------- sound
class SoundClones(PersonalizedBound):
    """The sound personalized clone bound (valid decompositions, every target level).

    See :mod:`shufflelib.personalized.sound`. The profile is the minimum of the clone bound and
    the guarantee without shuffling (:func:`~shufflelib.personalized.sound.no_shuffling_delta`),
    which is smaller for few users.

    Examples
    --------
    >>> from shufflelib.personalized import LocalMechanism, Population
    >>> population = Population([0.5, 1.0], [5_000, 5_000])
    >>> 0 < SoundClones(LocalMechanism("laplace")).epsilon(population, 1e-6) < 1
    True
    """

    name = "pers-clones"
    title = "Personalized clones with valid decompositions (sound; this book)"
    reference = (
        "This book, chapter 'Personalized privacy'; building on V. Feldman, A. McMillan, K. Talwar, "
        "FOCS 2021 and SODA 2023."
    )
    sound_for = ("rr", "laplace", "gaussian")

    def _profile(self, population: Population) -> Callable[[np.ndarray], np.ndarray]:
        # The minimum with the guarantee without shuffling is taken by every bound's curve.
        return lambda e: sound_delta(e, population, self.mechanism)

    def _round_profile(self, population: Population) -> Callable[[np.ndarray], np.ndarray]:
        # The composed rounds' clone-count blocks, as the core bounds' clone pairs: a
        # stochastically smaller count, so a valid bound (answers move up by < 1e-4 relative).
        return lambda e: sound_delta(e, population, self.mechanism, composed=True)


# ---------------------------------------------------------------- baselines
class StrongerClonesAtMax(PersonalizedBound):
    """ "FV": stronger clones at the largest local ε, plus the approximate-DP term for δ_0 > 0.

    Examples
    --------
    >>> from shufflelib.personalized.population import table1_population
    >>> from shufflelib.personalized.mechanisms import LocalMechanism
    >>> b = StrongerClonesAtMax(LocalMechanism("gaussian", "paper"))
    >>> f"{b.delta(table1_population('Uniform2', 10_000, delta=1e-10), 0.08):.1e}"   # Table 2: 6e-5
    '5.5e-05'
    """

    name = "pers-fv"
    unsound_because = "the stronger-clone decomposition is proved for randomized response only"
    title = "Feldman, McMillan, Talwar (2023), stronger clones at the largest eps_i (the paper's FV)"
    reference = (
        "V. Feldman, A. McMillan, K. Talwar. Stronger privacy amplification by shuffling for Rényi and "
        "approximate differential privacy. SODA 2023."
    )
    sound_for = ("rr",)

    def _profile(self, population: Population) -> Callable[[np.ndarray], np.ndarray]:
        n, e0, d0 = population.n, population.eps_max, population.delta_max

        def profile(e: np.ndarray) -> np.ndarray:
            out = stronger_clones_delta(e, n, e0)
            if d0 > 0:
                out = out + approximate_clone_term(e, n, e0, d0)
            return np.minimum(out, 1.0)

        return profile


class BlanketAtMax(PersonalizedBound):
    """ "BBGN": the privacy blanket (Bennett) for a generic ε_max-LDP randomizer; pure LDP only.

    Examples
    --------
    >>> from shufflelib.personalized import LocalMechanism, Population
    >>> b = BlanketAtMax(LocalMechanism("laplace"))
    >>> b.sound, 0 < b.epsilon(Population([0.5, 1.0], [5_000, 5_000]), 1e-5) < 1  # Laplace: not proved
    (False, True)
    """

    name = "pers-blanket"
    unsound_because = "the blanket baseline at the largest level is proved for randomized response only"
    title = "Balle, Bell, Gascon, Nissim (2019), privacy blanket (Bennett) at the largest eps_i (the paper's BBGN)"
    reference = "B. Balle, J. Bell, A. Gascón, K. Nissim. The privacy blanket of the shuffle model. CRYPTO 2019."
    sound_for = ("rr",)

    def validity(self, population: Population) -> str | None:
        if population.delta_max > 0:
            return "the blanket baseline is for pure local DP (every delta_i = 0)"
        return super().validity(population)

    def _profile(self, population: Population) -> Callable[[np.ndarray], np.ndarray]:
        blanket = BlanketBennett(mechanism="generic")
        n, e0 = population.n, population.eps_max
        return lambda e: np.array([blanket.delta(n, e0, float(x)) for x in np.atleast_1d(e)])


class GaussianDPApproximation(PersonalizedBound):
    """ "CCC": the μ-GDP approximation of Chen, Cao and Ge (a CLT approximation, not a bound).

    Parameters
    ----------
    mechanism
        The randomizer family (only its levels are used).
    variant
        ``"abstract"`` (μ = sqrt(2/(S − max s_i))) or ``"table2"`` (μ = 1/sqrt(S)).

    Examples
    --------
    >>> from shufflelib.personalized.population import table1_population
    >>> from shufflelib.personalized.mechanisms import LocalMechanism
    >>> b = GaussianDPApproximation(LocalMechanism("gaussian", "paper"), variant="table2")
    >>> f"{b.delta(table1_population('Uniform2', 10_000, delta=1e-10), 0.01):.1e}"   # Table 2: 0.0042
    '4.3e-03'
    """

    name = "pers-gdp"
    unsound_because = "a central-limit approximation, not a bound"
    title = "Chen, Cao, Ge (2024), Gaussian-DP approximation (the paper's CCC; not a bound)"
    reference = (
        "E. Chen, Y. Cao, Y. Ge. A generalized shuffle framework for privacy amplification: strengthening "
        "privacy guarantees and enhancing utility. AAAI 2024."
    )

    def __init__(self, mechanism: LocalMechanism, variant: str = "abstract") -> None:
        super().__init__(mechanism)
        self.variant = variant

    def _profile(self, population: Population) -> Callable[[np.ndarray], np.ndarray]:
        mu = gdp_mu(population, self.variant)
        return lambda e: gdp_delta(e, mu)


class LZXProxy(PersonalizedBound):
    """ "LZX" proxy: FMT21's closed form with the personalized expected number of clones.

    Examples
    --------
    >>> from shufflelib.personalized import LocalMechanism, Population
    >>> round(LZXProxy(LocalMechanism("laplace")).epsilon(Population([1.0], [10_000]), 1e-5), 3)
    0.199
    """

    name = "pers-lzx"
    unsound_because = "a proxy for a published bound, not a proved bound"
    title = "Proxy for Liu, Zhao, Xiong, Liu, Chen (2023): FMT21 closed form with personalized clones"
    reference = (
        "Y. Liu, S. Zhao, L. Xiong, Y. Liu, H. Chen. Echo of neighbors: privacy amplification for "
        "personalized private federated learning with shuffle model. AAAI 2023 (proxy, see the chapter)."
    )

    def _profile(self, population: Population) -> Callable[[np.ndarray], np.ndarray]:
        # Invert the closed form ε(δ) (decreasing in δ): δ(ε) is the smallest δ whose ε is <= the
        # target, found in log δ by certified root finding (rounded up, the safe side).
        def delta_of(e: float) -> float:
            top = math.log1p(-1e-12)
            if lzx_proxy_epsilon(population, math.exp(top)) > e:
                return 1.0
            if lzx_proxy_epsilon(population, math.exp(-700.0)) <= e:
                return math.exp(-700.0)
            x = first_true(
                lambda v: lzx_proxy_epsilon(population, math.exp(v)) <= e,
                lambda v: lzx_proxy_epsilon(population, math.exp(v)) - e,
                -700.0,
                top,
            )
            return math.exp(x)

        return lambda e: np.array([delta_of(float(x)) for x in np.atleast_1d(e)])

    def _epsilon(self, population: Population, delta: float) -> float:
        self._require(population)
        eps = min(lzx_proxy_epsilon(population, delta), _local_epsilon(population, self.mechanism, delta))
        # Certify the round trip delta(epsilon(delta)) <= delta against the inverted profile.
        curve = self._curve(population)
        if curve.delta(eps) > delta:
            step = max(eps, 1e-12) * 1e-6
            while curve.delta(eps + step) > delta:
                step *= 2.0
            eps = first_true(lambda e: curve.delta(e) <= delta, lambda e: 0.0, eps, eps + step)
        return eps


#: Every personalized bound, by command-line name.
PERSONALIZED_BOUNDS: dict[str, type[PersonalizedBound]] = {
    cls.name: cls
    for cls in (
        PaperTheorem2,
        PaperTheorem2Printed,
        PaperClonePair,
        SoundClones,
        StrongerClonesAtMax,
        BlanketAtMax,
        GaussianDPApproximation,
        LZXProxy,
    )
}
