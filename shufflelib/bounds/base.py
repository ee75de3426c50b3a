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

Every answer is also capped by the local guarantee: the shuffled protocol is a
post-processing of one user's ``eps0``-LDP report, so it is ``eps0``-DP
(ε <= ``eps0``, and δ = 0 for ε >= ``eps0``; the whole local profile,
:func:`local_delta`, caps the personalized bounds). Parameters are checked against the
box of :mod:`shufflelib._validation` (``2 <= n <= 10**9``, ``1e-6 <= eps0 <= 100``).
"""

from __future__ import annotations

import math
from abc import ABC
from typing import ClassVar

from .._roots import first_true, last_true
from .._validation import (
    N_MAX,
    check_eps0,
    check_int,
    check_n,
    check_nonnegative,
    check_positive,
    check_probability,
)

__all__ = ["AmplificationBound", "NotApplicableError", "MECHANISMS", "local_delta"]

#: Mechanism families a bound may be specialised to.
MECHANISMS = ("generic", "laplace", "krr")

#: Search range for ``max_eps0``.
EPS0_MAX = 50.0
#: Smallest δ the ``delta`` question resolves (smaller answers are reported as this, rounded up).
DELTA_FLOOR = 1e-300


def local_delta(eps0: float, eps: float) -> float:
    """δ(ε) of ``eps0``-randomized response, which dominates every ``eps0``-LDP randomizer (rounded up).

    Examples
    --------
    >>> local_delta(1.0, 1.0), round(local_delta(1.0, 0.0), 6)
    (0.0, 0.462117)
    """
    if eps >= eps0:
        return 0.0
    # (e^eps0 - e^eps)/(1 + e^eps0) = -expm1(eps - eps0)/(1 + e^-eps0), no overflow for large eps0.
    return min(1.0, -math.expm1(eps - eps0) / (1.0 + math.exp(-eps0)) * (1.0 + 1e-14))


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
        :attr:`mechanisms` are accepted.
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
    #: Whether ``_epsilon`` is a closed form (then ``max_eps0`` inverts it directly; otherwise a
    #: bound with a profile answers ``max_eps0`` from the profile, one evaluation per step).
    closed_form: ClassVar[bool] = False

    def __init__(self, mechanism: str = "generic", k: int | None = None) -> None:
        if mechanism not in self.mechanisms:
            raise ValueError(
                f"mechanism must be one of {', '.join(self.mechanisms)} for the {self.name} bound, "
                f"got {mechanism!r}"
            )
        if mechanism == "krr":
            if k is None:
                raise ValueError("k must be given (an integer >= 2) when mechanism='krr'")
            k = check_int("k", k, minimum=2, maximum=N_MAX)
        elif k is not None:
            raise ValueError(f"k is only used with mechanism='krr', got k={k!r} for {mechanism!r}")
        self.mechanism = mechanism
        self.k = k

    def __repr__(self) -> str:
        extra = f", k={self.k}" if self.k is not None else ""
        return f"{type(self).__name__}(mechanism={self.mechanism!r}{extra})"

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
        """ε(δ) for validated inputs; default: invert :meth:`_delta`."""
        if delta >= self._delta_checked(n, eps0, 0.0):
            return 0.0
        hi = eps0
        if self._delta_checked(n, eps0, hi) > delta:
            # Bounds that do not cap at eps0: search further out.
            while self._delta_checked(n, eps0, hi) > delta:
                hi *= 2.0
                if hi > 1e6:
                    return math.inf
        log_target = math.log(delta)
        return first_true(
            lambda e: self._delta_checked(n, eps0, e) <= delta,
            lambda e: _safe_log(self._delta_checked(n, eps0, e)) - log_target,
            0.0,
            hi,
        )

    def _delta_checked(self, n: int, eps0: float, eps: float) -> float:
        d = float(self._delta(n, eps0, eps))
        if math.isnan(d):
            raise RuntimeError(f"{self.name}: delta evaluated to NaN{self._at(n)}, eps0={eps0}, eps={eps}")
        return min(max(d, 0.0), 1.0)

    # ------------------------------------------------------------ public API
    def delta(self, n: int, eps0: float, eps: float) -> float:
        """Central δ of ``n`` shuffled ``eps0``-LDP reports at central ``eps`` (rounded up).

        Parameters
        ----------
        n
            Number of users, an integer >= 2.
        eps0
            Local privacy parameter, > 0.
        eps
            Central ε, >= 0.

        Returns
        -------
        float
            An upper bound on δ in ``[0, 1]``.
        """
        n, eps0 = _check_n_eps0(n, eps0)
        eps = _check_eps(eps)
        self._require(n, eps0)
        if eps >= eps0:
            return 0.0
        # Below eps0 no shuffled eps0-LDP protocol is pure DP for every randomizer: a delta that
        # underflowed to 0 is reported as the floor, rounded up.
        return max(self._delta_question(n, eps0, eps), DELTA_FLOOR)

    def _delta_question(self, n: int, eps0: float, eps: float) -> float:
        if type(self)._delta is not AmplificationBound._delta:
            return self._delta_checked(n, eps0, eps)
        # Closed form in ε(δ), decreasing in δ: find the smallest δ whose ε is <= eps.
        hi = 1.0 - 1e-12
        if self._epsilon_valid(n, eps0, hi) > eps:
            return 1.0
        lo = DELTA_FLOOR
        if self._epsilon_valid(n, eps0, lo) <= eps:
            return lo

        def score(d: float) -> float:
            v = self._epsilon_valid(n, eps0, d)
            return (v - eps) if math.isfinite(v) else 1e300

        return first_true(
            lambda d: self._epsilon_valid(n, eps0, d) <= eps,
            score,
            lo,
            hi,
            rtol=0.0,  # to the adjacent float: delta(epsilon(d)) <= d exactly as evaluated
            atol=0.0,
        )

    def _epsilon_valid(self, n: int, eps0: float, delta: float) -> float:
        if self.validity(n, eps0, delta) is not None:
            return math.inf
        return self._epsilon(n, eps0, delta)

    def _epsilon_rounded(self, n: int, eps0: float, delta: float) -> float:
        """:meth:`_epsilon`, rounded up by a relative ``2e-15`` for a closed form alone.

        The delta question of a closed form inverts it, and within the float jitter of the
        closed form (a few ulps) the inverse is ill-conditioned: the rounding keeps the round
        trip ``delta(epsilon(d)) <= d`` exact.
        """
        eps = float(self._epsilon(n, eps0, delta))
        return eps * (1.0 + 2e-15) if type(self)._delta is AmplificationBound._delta else eps

    def epsilon(self, n: int, eps0: float, delta: float) -> float:
        """Central ε of ``n`` shuffled ``eps0``-LDP reports at central ``delta`` (rounded up).

        Parameters
        ----------
        n
            Number of users, an integer >= 2.
        eps0
            Local privacy parameter, > 0.
        delta
            Central δ, in (0, 1).

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
        eps = min(self._epsilon_rounded(n, eps0, delta), eps0)
        if math.isnan(eps):
            raise RuntimeError(f"{self.name}: epsilon evaluated to NaN{self._at(n)}, eps0={eps0}, delta={delta}")
        return max(eps, 0.0)

    def max_eps0(self, n: int, eps: float, delta: float) -> float:
        """Largest ``eps0`` for which the bound certifies ``(eps, delta)``-DP (rounded down).

        Parameters
        ----------
        n
            Number of users, an integer >= 2.
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
            # step instead of an epsilon search. Asked slightly below eps (by more than the epsilon
            # search's tolerance, 1e-9 eps + 1e-12) to keep epsilon(n, max_eps0, delta) <= eps.
            inner = max(eps * (1.0 - 3e-9) - 2e-12, eps / 2.0)

            def profile(e0: float) -> float:
                if self.validity(n, e0, delta) is not None:
                    return 1.0
                if e0 <= eps:
                    return 0.0  # the shuffled protocol is e0-DP
                return self._delta_checked(n, e0, inner)

            def ok(e0: float) -> bool:
                return profile(e0) <= delta

            def score(e0: float) -> float:
                return _safe_log(profile(e0)) - math.log(delta)

        else:

            def value(e0: float) -> float:
                valid = self.validity(n, e0, delta) is None
                return self._epsilon_rounded(n, e0, delta) if valid else math.inf

            def ok(e0: float) -> bool:
                return value(e0) <= eps

            def score(e0: float) -> float:
                v = value(e0)
                return (v - eps) if math.isfinite(v) else 1e300

        lo = min(eps, EPS0_MAX)
        if not ok(lo):
            # Bounds that are not capped at eps0 may need a smaller local eps0.
            while lo > 1e-9 and not ok(lo):
                lo /= 2.0
            if not ok(lo):
                raise NotApplicableError(
                    f"{self.name} bound not applicable: no eps0 reaches eps={eps}, delta={delta}{self._at(n)}"
                )
        return last_true(ok, score, lo, EPS0_MAX)


def _check_n_eps0(n: int, eps0: float) -> tuple[int, float]:
    return check_n(n), check_eps0(eps0)


def _check_eps(eps: float) -> float:
    return check_nonnegative("eps", eps)


def _safe_log(x: float) -> float:
    return math.log(x) if x > 0 else -1e300
