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
"""

from __future__ import annotations

import math
from abc import ABC
from collections.abc import Callable
from typing import ClassVar

from .._roots import first_true, largest_reaching
from .._validation import check_int, check_nonnegative, check_positive, check_probability
from ..curves import invert_profile

__all__ = ["AmplificationBound", "NotApplicableError", "MECHANISMS", "delta_from_epsilon", "largest_eps0"]

#: Mechanism families a bound may be specialised to.
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
    #: True for an upper bound on the privacy loss (ε, δ rounded up, ``eps0`` down); False for a
    #: lower bound (an attained pair: δ and ε rounded down). The default inversions follow it.
    upper: ClassVar[bool] = True

    def __init__(self, mechanism: str = "generic", k: int | None = None) -> None:
        if mechanism not in self.mechanisms:
            raise ValueError(
                f"mechanism must be one of {', '.join(self.mechanisms)} for the {self.name} bound, got {mechanism!r}"
            )
        if mechanism == "krr":
            if k is None:
                raise ValueError("k must be given (an integer >= 2) when mechanism='krr'")
            k = check_int("k", k, minimum=2)
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
            raise RuntimeError(f"{self.name}: delta evaluated to NaN at n={n}, eps0={eps0}, eps={eps}")
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
        if type(self)._delta is not AmplificationBound._delta:
            return self._delta_checked(n, eps0, eps)
        return delta_from_epsilon(lambda d: self._epsilon_valid(n, eps0, d), eps)

    def _epsilon_valid(self, n: int, eps0: float, delta: float) -> float:
        if self.validity(n, eps0, delta) is not None:
            return math.inf
        return self._epsilon(n, eps0, delta)

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
        eps = float(self._epsilon(n, eps0, delta))
        if math.isnan(eps):
            raise RuntimeError(f"{self.name}: epsilon evaluated to NaN at n={n}, eps0={eps0}, delta={delta}")
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
        n = check_int("n", n, minimum=2)
        eps = check_positive("eps", eps)
        delta = check_probability("delta", delta)
        return largest_eps0(lambda e0: self._epsilon_valid(n, e0, delta), eps, delta, self.name, f" at n={n}")


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

    return first_true(lambda d: epsilon_at(d) <= eps, score, lo, hi, rtol=1e-9, atol=0.0)


def largest_eps0(epsilon_at: Callable[[float], float], eps: float, delta: float, name: str, where: str = "") -> float:
    """Largest ``eps0`` in ``(0, 50]`` whose central ``epsilon_at(eps0)`` is ``<= eps`` (rounded down).

    The one "largest local parameter reaching (ε, δ)" search of the bounds
    (``shufflelib._roots.largest_reaching``): starts at ``min(eps, 50)``, halving down to
    ``1e-9`` for bounds not capped at ``eps0``; ``epsilon_at`` returns ``inf`` where the theorem
    does not apply.

    Raises
    ------
    NotApplicableError
        If no ``eps0`` reaches the target (``name`` and ``where`` complete the message).

    Examples
    --------
    >>> round(largest_eps0(lambda e0: e0 / 10, 0.5, 1e-6, "toy"), 6)
    5.0
    """
    found = largest_reaching(epsilon_at, eps, min(eps, EPS0_MAX), EPS0_MAX, smallest=1e-9)
    if found is None:
        raise NotApplicableError(f"{name} bound not applicable: no eps0 reaches eps={eps}, delta={delta}{where}")
    return found


def _check_n_eps0(n: int, eps0: float) -> tuple[int, float]:
    return check_int("n", n, minimum=2), check_positive("eps0", eps0)


def _check_eps(eps: float) -> float:
    return check_nonnegative("eps", eps)
