"""The three questions every amplification bound answers.

A bound for shuffling ``n`` reports of an ``eps0``-LDP randomizer answers

* :meth:`AmplificationBound.epsilon` — the central ε for ``(n, eps0, delta)``,
* :meth:`AmplificationBound.delta` — the central δ for ``(n, eps0, eps)``,
* :meth:`AmplificationBound.max_eps0` — the largest ``eps0`` whose shuffled
  protocol is ``(eps, delta)``-DP.

A subclass implements either ``_delta`` (a privacy profile, monotone decreasing
in ``eps``) or ``_epsilon`` (a closed form, monotone decreasing in ``delta``);
the other questions are answered by certified monotone root finding
(``shufflelib._roots``), which rounds in the safe direction: ε and δ up,
the largest ``eps0`` down.

Soundness. A bound the library knows may not be valid (a formula as printed, a bound shown
to fail by the book's evidence) says so: :meth:`AmplificationBound.soundness` returns
``None`` for a valid bound (proved or certified) and otherwise a one-line reason, and
:attr:`AmplificationBound.sound` is ``soundness() is None``. Every bound family of the
library (personalized, segmented) has the same two members; the calculator prints
``warning: not a valid bound for ...`` and ``"sound": false`` from them.

Every answer is also capped by the local guarantee: the shuffled protocol is a
post-processing of one user's ``eps0``-LDP report, so it is ``eps0``-DP
(ε <= ``eps0``, and δ = 0 for ε >= ``eps0``; the whole local profile,
:func:`~shufflelib.personalized.sound.no_shuffling_delta`, caps the personalized bounds).
Parameters are checked against the box of ``shufflelib._validation``
(``2 <= n <= 10**9``, ``1e-6 <= eps0 <= 100``).
"""

from __future__ import annotations

import math
from abc import ABC
from collections.abc import Callable
from typing import ClassVar

import numpy as np

from .._docstrings import fill_doc
from .._roots import first_true, largest_reaching
from .._validation import (
    EPS0_LIMIT,
    EPS0_MIN,
    N_MAX,
    check_eps0,
    check_int,
    check_n,
    check_nonnegative,
    check_positive,
    check_probability,
)
from ..curves import ProfileCurve, invert_profile
from ..randomizers import RandomizerFamily
from .privacy_loss import PrivacyLoss

__all__ = [
    "AmplificationBound",
    "NotApplicableError",
    "PrivacyLoss",
    "ProfileBound",
    "MECHANISMS",
    "delta_from_epsilon",
    "eps0_reason",
    "largest_eps0",
    "profile_target",
    "soundness_record",
]

#: Randomizer families (kinds of :class:`~shufflelib.randomizers.RandomizerFamily`) a bound may be specialised to.
MECHANISMS = ("generic", "laplace", "krr")

#: Search range for ``max_eps0``.
EPS0_MAX = 50.0
#: Smallest δ the ``delta`` question resolves (smaller answers are reported as this, rounded up).
DELTA_FLOOR = 1e-300


class NotApplicableError(ValueError):
    """The bound's theorem does not cover these parameters (its validity range is stated).

    Examples
    --------
    >>> from shufflelib.bounds import ErlingssonBound, NotApplicableError
    >>> try:
    ...     ErlingssonBound().epsilon(n=10_000, eps0=2.0, delta=1e-6)
    ... except NotApplicableError as error:
    ...     print("not applicable")
    not applicable
    """


class AmplificationBound(ABC):
    """Base class: an upper bound on the privacy of a shuffled ``eps0``-LDP protocol.

    Parameters
    ----------
    mechanism
        The local randomizer family: ``"generic"`` (any ``eps0``-LDP randomizer),
        ``"laplace"`` (Laplace mechanism on a bounded domain) or ``"krr"``
        (k-ary randomized response). Only families listed in
        :attr:`mechanisms` are accepted. The bound holds it as :attr:`randomizer`, a
        :class:`~shufflelib.randomizers.RandomizerFamily`; ``mechanism`` and ``k`` are views of it.
    k
        Domain size for ``mechanism="krr"`` (an integer >= 2).

    Examples
    --------
    Every bound answers the same three questions:

    >>> from shufflelib.bounds import BlanketBennett
    >>> bound = BlanketBennett(mechanism="krr", k=10)
    >>> eps = bound.epsilon(n=100_000, eps0=2.0, delta=1e-8)
    >>> bound.delta(100_000, 2.0, eps) <= 1e-8
    True
    >>> bound.epsilon(100_000, bound.max_eps0(100_000, eps, 1e-8), 1e-8) <= eps
    True
    """

    #: Short name used by the command line (``--bound``).
    name: ClassVar[str] = ""
    #: Human-readable title.
    title: ClassVar[str] = ""
    #: Bibliographic reference.
    reference: ClassVar[str] = ""
    #: Mechanism families the theorem covers.
    mechanisms: ClassVar[tuple[str, ...]] = ("generic",)
    #: True for an upper bound on the privacy loss (ε, δ rounded up, ``eps0`` down); False for a
    #: lower bound (an attained pair: δ and ε rounded down). The default inversions follow it.
    upper: ClassVar[bool] = True
    #: Whether ``_epsilon`` is a closed form (then ``max_eps0`` inverts it directly; otherwise a
    #: bound with a profile answers ``max_eps0`` from the profile, one evaluation per step).
    closed_form: ClassVar[bool] = False

    def __init__(self, mechanism: str = "generic", k: int | None = None) -> None:
        if mechanism not in self.mechanisms:
            raise ValueError(
                f"mechanism must be one of {', '.join(self.mechanisms)} for the {self.name} bound, got {mechanism!r}"
            )
        if mechanism == "krr" and k is not None:
            k = check_int("k", k, minimum=2, maximum=N_MAX)
        #: The randomizer family the bound is stated for (each question reads ``randomizer.at(eps0)``).
        self.randomizer = RandomizerFamily(mechanism, k=k)

    @property
    def mechanism(self) -> str:
        """Name of the randomizer family (``randomizer.kind``), e.g. ``"krr"``."""
        return self.randomizer.kind

    @property
    def k(self) -> int | None:
        """Domain size of k-ary randomized response (``randomizer.k``; ``None`` for other families)."""
        return self.randomizer.k

    def __repr__(self) -> str:
        extra = f", k={self.k}" if self.k is not None else ""
        return f"{type(self).__name__}(mechanism={self.mechanism!r}{extra})"

    # ------------------------------------------------------------------ soundness
    def soundness(self, **params: object) -> str | None:
        """``None`` if this is a valid bound (proved or certified) for these parameters, else why not.

        ``params`` are the question's parameters (``n``, ``eps0``, ...); a bound whose validity
        depends on them reads them, the others ignore them. Validity *range* (where the theorem
        applies at all) is :meth:`validity`; this is about a value that is computed but may not
        bound the true privacy.

        Examples
        --------
        >>> from shufflelib.bounds import ClonesNumerical
        >>> ClonesNumerical().soundness(n=1000, eps0=1.0) is None
        True
        """
        return None

    @property
    def sound(self) -> bool:
        """Whether the library holds this bound valid (``soundness()`` is ``None``)."""
        return self.soundness() is None

    # ------------------------------------------------------------------ validity
    def validity(self, n: int, eps0: float, delta: float | None = None) -> str | None:
        """Return ``None`` if the theorem covers these parameters, else the reason it does not."""
        return None

    def applicable(self, n: int, eps0: float, delta: float | None = None) -> bool:
        """Whether the theorem covers ``(n, eps0[, delta])``."""
        return self.validity(n, eps0, delta) is None

    def _at(self, n: int) -> str:
        """Where the question was asked, for messages (``" at n=..."``)."""
        return f" at n={n}"

    def _require(self, n: int, eps0: float, delta: float | None = None) -> None:
        reason = self.validity(n, eps0, delta)
        if reason is not None:
            raise NotApplicableError(f"{self.name} bound not applicable: {reason}")

    # ------------------------------------------------------------ to override
    def _delta(self, n: int, eps0: float, eps: float) -> float:
        """δ(ε) for validated inputs; override this *or* :meth:`_epsilon`."""
        raise NotImplementedError

    def _epsilon(self, n: int, eps0: float, delta: float) -> float:
        """ε(δ) for validated inputs; default: invert :meth:`_delta` in the direction of :attr:`upper`."""
        return invert_profile(lambda e: self._delta_checked(n, eps0, e), delta, hi=eps0, upper=self.upper, cap=1e6)

    def _delta_checked(self, n: int, eps0: float, eps: float) -> float:
        d = float(self._delta(n, eps0, eps))
        if math.isnan(d):
            raise RuntimeError(f"{self.name}: delta evaluated to NaN{self._at(n)}, eps0={eps0}, eps={eps}")
        return min(max(d, 0.0), 1.0)

    # ------------------------------------------------------------ public API
    @fill_doc
    def delta(self, n: int, eps0: float, eps: float) -> float:
        """Central δ of ``n`` shuffled ``eps0``-LDP reports at central ``eps`` (rounded up).

        Parameters
        ----------
        %(n)s %(eps0)s %(eps)s

        Returns
        -------
        float
            An upper bound on δ in ``[0, 1]``.
        """
        n, eps0 = _check_n_eps0(n, eps0)
        eps = _check_eps(eps)
        self._require(n, eps0)
        if eps >= eps0:
            return 0.0  # the shuffled protocol is eps0-DP
        if type(self)._delta is not AmplificationBound._delta:
            delta = self._delta_checked(n, eps0, eps)
        else:
            delta = delta_from_epsilon(lambda d: self._epsilon_valid(n, eps0, d), eps)
        # Below eps0 no shuffled eps0-LDP protocol is pure DP for every randomizer: an upper bound
        # that underflowed to 0 is reported as the floor, rounded up.
        return max(delta, DELTA_FLOOR) if self.upper else delta

    def _epsilon_valid(self, n: int, eps0: float, delta: float) -> float:
        if self.validity(n, eps0, delta) is not None:
            return math.inf
        return self._epsilon(n, eps0, delta)

    def _epsilon_rounded(self, n: int, eps0: float, delta: float) -> float:
        """:meth:`_epsilon`, rounded up by a relative ``2e-15`` for a closed-form upper bound.

        The delta question of a closed form inverts it, and within the float jitter of the
        closed form (a few ulps) the inverse is ill-conditioned: the rounding keeps the round
        trip ``delta(epsilon(d)) <= d`` exact.
        """
        eps = float(self._epsilon(n, eps0, delta))
        closed = type(self)._delta is AmplificationBound._delta
        return eps * (1.0 + 2e-15) if closed and self.upper else eps

    @fill_doc
    def epsilon(self, n: int, eps0: float, delta: float) -> float:
        """Central ε of ``n`` shuffled ``eps0``-LDP reports at central ``delta`` (rounded up).

        Parameters
        ----------
        %(n)s %(eps0)s %(delta)s

        Returns
        -------
        float
            An upper bound on ε (``>= 0``).

        Raises
        ------
        NotApplicableError
            If the theorem does not cover these parameters.
        """
        n, eps0 = _check_n_eps0(n, eps0)
        delta = check_probability("delta", delta)
        self._require(n, eps0, delta)
        eps = min(self._epsilon_rounded(n, eps0, delta), eps0)  # the shuffled protocol is eps0-DP
        if math.isnan(eps):
            raise RuntimeError(f"{self.name}: epsilon evaluated to NaN{self._at(n)}, eps0={eps0}, delta={delta}")
        return max(eps, 0.0)

    @fill_doc
    def max_eps0(self, n: int, eps: float, delta: float) -> float:
        """Largest ``eps0`` for which the bound certifies ``(eps, delta)``-DP (rounded down).

        Parameters
        ----------
        %(n)s
        eps
            Target central ε, > 0.
        delta
            Target central δ, in (0, 1).

        Returns
        -------
        float
            The largest ``eps0`` in ``(0, 50]`` (searched to relative precision 1e-9).

        Raises
        ------
        NotApplicableError
            If no ``eps0`` in the theorem's validity range reaches the target.
        """
        n = check_n(n)
        eps = check_positive("eps", eps)
        delta = check_probability("delta", delta)
        if type(self)._delta is not AmplificationBound._delta and not self.closed_form:
            # A profile: (eps, delta) holds at e0 iff delta(e0, eps) <= delta, one evaluation per
            # step instead of an epsilon search.
            inner = profile_target(eps)

            def profile(e0: float) -> float:
                if e0 <= eps:
                    return 0.0  # the shuffled protocol is e0-DP, whatever the theorem's range
                if self.validity(n, e0, delta) is not None:
                    return math.inf
                return self._delta_checked(n, e0, inner)

            guess = self._eps0_guess(n, eps, delta)
            return largest_eps0(profile, eps, delta, self.name, self._at(n), target=delta, log_scale=True, guess=guess)

        def value(e0: float) -> float:
            return self._epsilon_rounded(n, e0, delta) if self.validity(n, e0, delta) is None else math.inf

        return largest_eps0(value, eps, delta, self.name, self._at(n))

    def _eps0_guess(self, n: int, eps: float, delta: float) -> float | None:
        """An estimate of :meth:`max_eps0`'s answer around which its search narrows the bracket
        first (a profile bound's evaluations can be costly), or ``None``: no estimate."""
        return None

    def privacy_loss(self, n: int) -> PrivacyLoss:
        """One round's privacy loss at ``n`` users, as composition reads it (the one protocol of
        :mod:`~shufflelib.bounds.privacy_loss`): by default the bound's own profile, evaluated
        point by point, an upper or a lower bound as :attr:`upper` says. A bound with a pair (or a
        faster profile) overrides it.

        Examples
        --------
        >>> from shufflelib.bounds import BlanketHoeffding
        >>> loss = BlanketHoeffding().privacy_loss(10_000)
        >>> loss.form, loss.upper
        ('profile', True)
        >>> float(loss.profile(1.0)(np.array([0.5]))[0]) == BlanketHoeffding().delta(10_000, 1.0, 0.5)
        True
        """
        return PrivacyLoss(
            "profile",
            self.upper,
            epsilon=lambda e0, d: self.epsilon(n, e0, d),
            largest=lambda e, d: self.max_eps0(n, e, d),
            profile=lambda e0: lambda e: np.array([self.delta(n, e0, float(x)) for x in e]),
        )


class ProfileBound(AmplificationBound):
    """A bound given by a vectorized privacy profile ``delta_profile`` evaluated numerically.

    Subclasses implement :meth:`delta_profile`; the ``delta`` question, the curve and the
    validity range (``eps0 <= 100``, the range of the numerical evaluation)
    follow from it.

    Examples
    --------
    >>> from shufflelib.bounds import ClonesNumerical, ThinnedClones, TwoPairKRRLowerBound
    >>> from shufflelib.bounds.base import ProfileBound
    >>> all(issubclass(c, ProfileBound) for c in (ClonesNumerical, ThinnedClones, TwoPairKRRLowerBound))
    True
    """

    def validity(self, n: int, eps0: float, delta: float | None = None) -> str | None:
        """``None`` for ``eps0 <= 100`` (the range of the numerical evaluation), else the reason.

        Examples
        --------
        >>> from shufflelib.bounds.clones import ClonesNumerical
        >>> ClonesNumerical().validity(100, 150.0)
        'the numerical evaluation requires eps0 <= 100.0 (beyond, use the trivial eps = eps0), got eps0=150.0'
        """
        return eps0_reason(eps0)

    def delta_profile(self, n: int, eps0: float, eps: np.ndarray) -> np.ndarray:
        """Vectorized δ(ε) for an array of ε >= 0 (validated inputs)."""
        raise NotImplementedError

    def _delta(self, n: int, eps0: float, eps: float) -> float:
        return float(self.delta_profile(n, eps0, np.array([eps]))[0])

    def curve(self, n: int, eps0: float, eps_grid: np.ndarray | None = None) -> ProfileCurve:
        """The bound's privacy curve for fixed ``(n, eps0)`` (profile, inverse, trade-off).

        ``eps_grid`` is the grid of the trade-off conversion (default: 401 points on
        ``[0, eps0]``, beyond which δ = 0).

        Examples
        --------
        >>> from shufflelib.bounds.clones import ClonesNumerical
        >>> c = ClonesNumerical().curve(10_000, 1.0)
        >>> abs(c.epsilon(1e-6) - ClonesNumerical().epsilon(10_000, 1.0, 1e-6)) < 1e-8
        True
        """
        n, eps0 = _check_n_eps0(n, eps0)
        self._require(n, eps0)
        grid = np.linspace(0.0, eps0, 401) if eps_grid is None else eps_grid
        return ProfileCurve(lambda e: self.delta_profile(n, eps0, e), eps_grid=grid)


def eps0_reason(eps0: float) -> str | None:
    """Why ``eps0`` is beyond the numerical evaluations (``None`` if it is not).

    Examples
    --------
    >>> eps0_reason(1.0) is None, eps0_reason(150.0) is None
    (True, False)
    """
    if eps0 <= EPS0_LIMIT:
        return None
    return (
        f"the numerical evaluation requires eps0 <= {EPS0_LIMIT} (beyond, use the trivial eps = eps0), got eps0={eps0}"
    )


def profile_target(eps: float) -> float:
    """The ε at which the ``max_eps0`` questions evaluate a profile, slightly below ``eps``.

    Below by more than the ε search's tolerance (``1e-9 eps + 1e-12``), so that the round trip
    ``epsilon(n, max_eps0(n, eps, delta), delta) <= eps`` holds.

    Examples
    --------
    >>> 0.5 < profile_target(1.0) < 1.0
    True
    """
    return max(eps * (1.0 - 3e-9) - 2e-12, eps / 2.0)


def delta_from_epsilon(epsilon_at: Callable[[float], float], eps: float) -> float:
    """Smallest δ whose ``epsilon_at(δ)`` (a closed form, non-increasing in δ; ``inf`` outside the
    theorem's range) is ``<= eps``, rounded up; 1 if none, ``DELTA_FLOOR`` (1e-300) if every δ does.

    Examples
    --------
    >>> import math
    >>> round(delta_from_epsilon(lambda d: math.sqrt(math.log(1 / d)), 3.0), 6)  # exp(-9)
    0.000123
    """
    hi = 1.0 - 1e-12
    if epsilon_at(hi) > eps:
        return 1.0
    lo = DELTA_FLOOR
    if epsilon_at(lo) <= eps:
        return lo

    def score(d: float) -> float:
        v = epsilon_at(d)
        return (v - eps) if math.isfinite(v) else 1e300

    # To the adjacent float: delta(epsilon(d)) <= d exactly as evaluated.
    return first_true(lambda d: epsilon_at(d) <= eps, score, lo, hi, rtol=0.0, atol=0.0)


def largest_eps0(
    epsilon_at: Callable[[float], float],
    eps: float,
    delta: float,
    name: str,
    where: str = "",
    *,
    target: float | None = None,
    log_scale: bool = False,
    guess: float | None = None,
) -> float:
    """Largest ``eps0`` in ``(0, 50]`` whose central ``epsilon_at(eps0)`` is ``<= eps`` (rounded down).

    With ``target`` given, ``epsilon_at`` may be any non-decreasing function of ``eps0`` (e.g.
    the profile δ at a fixed ε, compared on a ``log_scale``) and is compared with ``target``
    instead of ``eps``.

    The one "largest local parameter reaching (ε, δ)" search of the bounds
    (``shufflelib._roots.largest_reaching``): starts at ``min(eps, 50)`` (at least the box's
    smallest ``eps0``, ``EPS0_MIN = 1e-6``), halving down to
    ``EPS0_MIN = 1e-6`` for bounds not capped at ``eps0``; ``epsilon_at``
    returns ``inf`` where the theorem does not apply. The answer is in the box: an ``eps0``
    below it would be refused by the other two questions. A ``guess`` of the answer (e.g. a
    Gaussian-DP estimate) narrows the bracket first; the answer does not depend on it.

    Raises
    ------
    NotApplicableError
        If no ``eps0`` in ``[EPS0_MIN, 50]`` reaches the target (``name`` and ``where`` complete
        the message).

    Examples
    --------
    >>> round(largest_eps0(lambda e0: e0 / 10, 0.5, 1e-6, "toy"), 6)
    5.0
    """
    goal = eps if target is None else target
    start = min(max(eps, EPS0_MIN), EPS0_MAX)
    found = largest_reaching(epsilon_at, goal, start, EPS0_MAX, smallest=EPS0_MIN, log_scale=log_scale, guess=guess)
    if found is None or found < EPS0_MIN:
        raise NotApplicableError(
            f"{name} bound not applicable: no eps0 in [{EPS0_MIN:g}, {EPS0_MAX:g}] reaches eps={eps}, "
            f"delta={delta}{where}"
        )
    return found


def soundness_record(reason: str | None) -> dict[str, object]:
    """The soundness fields of a calculator record: ``{"sound": True}``, or ``False`` with the reason.

    Examples
    --------
    >>> soundness_record(None)
    {'sound': True}
    >>> soundness_record("not a valid bound for lam < 1: ...")
    {'sound': False, 'warning': 'not a valid bound for lam < 1: ...'}
    """
    if reason is None:
        return {"sound": True}
    return {"sound": False, "warning": reason}


def _check_n_eps0(n: int, eps0: float) -> tuple[int, float]:
    return check_n(n), check_eps0(eps0)


def _check_eps(eps: float) -> float:
    return check_nonnegative("eps", eps)
