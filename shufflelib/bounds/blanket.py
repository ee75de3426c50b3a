r"""The privacy-blanket bounds of Balle, Bell, Gascón and Nissim (CRYPTO 2019).

The blanket
-----------
The output density of a local randomizer on input ``x`` splits as
:math:`\mu_x = \gamma\,\omega + (1-\gamma)\,\nu_x`: with probability
:math:`\gamma` a report is drawn from the *blanket* :math:`\omega`, which does
not depend on the input. Among the other ``n - 1`` users, the number ``M`` who
draw from the blanket is ``Bin(n - 1, gamma)``, and their reports hide the
report of the user whose input changes. Writing
:math:`L = (\mu_x - e^\varepsilon \mu_{x'}) / \omega` for the privacy
amplification random variable (``Y ~ omega``; its mean is
:math:`-a = 1 - e^\varepsilon`), Theorem 3.1 of the paper (arXiv:1903.02837)
bounds the privacy profile of the shuffled protocol by

.. math::

    \delta(\varepsilon) \le \frac{1}{\gamma n}\,
    \mathbb{E}_{M \sim \mathrm{Bin}(n, \gamma)}
    \mathbb{E}\Big[\Big(\sum_{i=1}^{M} L_i\Big)_+\Big],

which is the ``Bin(n - 1, gamma)`` form rewritten with
:math:`\Pr[\mathrm{Bin}(n,\gamma)=m+1] = \frac{n\gamma}{m+1}\Pr[\mathrm{Bin}(n-1,\gamma)=m]`.

Tail bounds
-----------
Integrating a concentration inequality for :math:`\sum_i L_i` over
:math:`t \ge 0` and linearising the exponent at :math:`t = 0` gives, for each ``M``,

* **Hoeffding** (``L`` in an interval of length ``R``):
  :math:`\mathbb{E}[(\cdot)_+] \le \frac{R^2}{4a} e^{-2a^2 M / R^2}`;
* **Bennett** (``L <= b`` and :math:`\mathbb{E}[L^2] \le v`):
  :math:`\mathbb{E}[(\cdot)_+] \le \frac{b}{\log(1 + ab/v)}
  e^{-M (v/b^2)\, h(ab/v)}` with :math:`h(u) = (1+u)\log(1+u) - u`
  (Bennett's inequality in the form that uses the uncentred second moment).

Both are of the form :math:`C e^{-cM}`, so the expectation over ``M`` is the
binomial generating function,
:math:`\mathbb{E}[e^{-cM}\mathbf 1\{M\ge1\}] = (1-\gamma+\gamma e^{-c})^n - (1-\gamma)^n`.
It is evaluated exactly, in log space: there is no sum over ``M``, hence no
truncated binomial tail, and the cost does not depend on ``n``.

Mechanism families
------------------
``generic`` (any ``eps0``-LDP randomizer)
    ``gamma = e^{-eps0}`` (blanket: the output law of any fixed input), so
    ``mu_x / omega`` lies in ``[e^{-eps0}, e^{eps0}]``:
    ``R = (e^eps + 1)(e^eps0 - e^-eps0)``, ``b = e^eps0 - e^(eps - eps0)``,
    ``v = e^eps0 (e^(2 eps) + 1) - 2 e^(eps - 3 eps0)`` (the paper's constants).
``laplace`` (Laplace mechanism on ``[0, 1]`` with scale ``1/eps0``)
    ``gamma = e^{-eps0/2}``; ``R = (e^eps + 1)(e^(eps0/2) - e^(-eps0/2))``,
    ``b = e^(eps0/2) (1 - e^(eps - eps0))``,
    ``v = (e^(2 eps) + 1)(2 e^(eps0/2) + e^-eps0)/3 - 2 e^eps (2 e^(-eps0/2) - e^-eps0)``
    (exact, attained by the inputs ``0`` and ``1``).
``krr`` (k-ary randomized response)
    ``gamma = k / (e^eps0 + k - 1)`` (uniform blanket);
    ``R = k (1 - gamma)(e^eps + 1)``, ``b = gamma (e^eps0 - e^eps)``,
    ``v = gamma (2 - gamma)(e^eps - 1)^2 + k (1 - gamma)^2 (e^(2 eps) + 1)`` (exact).

Each second moment is evaluated in a rearranged form that is a sum of
nonnegative terms, so it carries no cancellation for small ``eps0``.

Two exact facts complete the profile: ``delta(eps) = 0`` for ``eps >= eps0``
(the shuffled protocol is ``eps0``-DP) and, since a privacy profile is
non-increasing, ``delta(eps) <= bound(eps')`` for every ``eps' <= eps``. The
Hoeffding and Bennett bounds decrease in ``eps`` up to a turning point and
then grow (their prefactors grow with ``e^eps``); beyond the turning point
the value at the turning point is used, which keeps ``delta`` monotone.
Values below ``1e-300`` are reported as ``1e-300`` (never rounded down to 0).

Numerical tolerance: every step is computed in log space with relative error
below ``1e-12`` in the exponent; the returned ``delta`` is rounded up by a
relative ``1e-10`` (added to its logarithm), which covers that error.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from .._docstrings import fill_doc
from ..randomizers import BoundedLaplace, GenericLDP, KRandomizedResponse, RandomizerFamily
from .base import DELTA_FLOOR, AmplificationBound

__all__ = ["BlanketBennett", "BlanketHoeffding"]

#: Added to log(delta): rounds delta up by a relative 1e-10.
_LOG_MARGIN = 1e-10
_LOG2 = math.log(2.0)
_LOG4 = math.log(4.0)


class _Blanket(NamedTuple):
    """The blanket of one randomizer family and the privacy-loss quantities at each ``eps``."""

    log_gamma: float  # log of the blanket probability gamma
    log_1m_gamma: float  # log(1 - gamma)
    log_span: float  # log S, where the range of L is R = S (e^eps + 1)
    log_upper: np.ndarray  # log b(eps), b an upper bound on L
    log_second: np.ndarray  # log v(eps), v an upper bound on E[L^2]


# --------------------------------------------------------------------------- helpers
def _log_expm1(x: np.ndarray | float) -> np.ndarray:
    """``log(e^x - 1)`` for ``x > 0``, without overflow."""
    x = np.asarray(x, dtype=float)
    return x + np.log(-np.expm1(-x))


def _expm1_minus_id(x: float) -> float:
    """``e^x - 1 - x`` without cancellation (series for ``|x| < 1``)."""
    if abs(x) >= 1.0:
        return math.expm1(x) - x
    term, total = x, 0.0
    for j in range(2, 30):
        term *= x / j
        total += term
    return total


def _log_h_over_square(log_u: np.ndarray) -> np.ndarray:
    """Lower bound on ``log(h(u) / u^2)``, ``h(u) = (1 + u) log(1 + u) - u``, exact to rounding.

    Small ``u``: the alternating series ``sum_j (-1)^j u^j / ((j + 1)(j + 2))``
    stopped after a negative term (a lower bound). Huge ``u`` (``e^690``):
    ``h(u) >= u (log u - 1)``.
    """
    out = np.empty_like(log_u)
    small = log_u < math.log(0.1)
    huge = log_u > 690.0
    mid = ~(small | huge)
    u = np.exp(log_u[small])
    series = np.zeros_like(u)
    for j in range(15, -1, -1):  # terms j = 0..15; j = 15 is negative
        series = series * u + (-1.0) ** j / ((j + 1) * (j + 2))
    out[small] = np.log(series)
    um = np.exp(log_u[mid])
    out[mid] = np.log((1.0 + um) * np.log1p(um) - um) - 2.0 * log_u[mid]
    out[huge] = np.log(log_u[huge] - 1.0) - log_u[huge]
    return out


def _log_log1p_exp(log_u: np.ndarray) -> np.ndarray:
    """Lower bound on ``log(log(1 + u))`` given ``log u``, exact to rounding."""
    out = np.empty_like(log_u)
    tiny = log_u < -20.0
    huge = log_u > 690.0
    mid = ~(tiny | huge)
    # log(1 + u) >= u (1 - u/2) for small u, and >= log u for large u.
    out[tiny] = log_u[tiny] + np.log1p(-0.5 * np.exp(log_u[tiny]))
    out[mid] = np.log(np.log1p(np.exp(log_u[mid])))
    out[huge] = np.log(log_u[huge])
    return out


def _log_blanket_expectation(n: int, blanket: _Blanket, c: np.ndarray) -> np.ndarray:
    """``log E[e^{-cM} 1{M >= 1}]`` for ``M ~ Bin(n, gamma)``, exactly (``0 <= c <= 1/2``).

    Equals ``n log(1 - gamma + gamma e^{-c}) + log(1 - e^{-n d})`` with
    ``d = log(1 + gamma e^{-c} / (1 - gamma))``; when ``d`` underflows, the upper
    bound ``log(n) + log(gamma e^{-c} / (1 - gamma))`` replaces the second term.
    """
    gamma = math.exp(blanket.log_gamma)
    log_one_draw = np.log1p(gamma * np.expm1(-c))
    log_ratio = blanket.log_gamma - c - blanket.log_1m_gamma
    nd = n * np.logaddexp(0.0, log_ratio)
    tail = np.log(n) + log_ratio
    pos = nd > 0
    tail[pos] = np.log(-np.expm1(-nd[pos]))
    return n * log_one_draw + tail


# --------------------------------------------------------------------------- families
def _generic(eps0: float, eps: np.ndarray) -> _Blanket:
    """Any ``eps0``-LDP randomizer: ``gamma = e^{-eps0}``, ``mu_x / omega`` in ``[e^-eps0, e^eps0]``."""
    log_a = _log_expm1(eps)
    # v = e^eps0 (e^2eps + 1) - 2 e^(eps - 3 eps0) = e^eps0 a^2 + 2 e^(eps - 3 eps0) (e^(4 eps0) - 1)
    log_second = np.logaddexp(eps0 + 2.0 * log_a, _LOG2 + eps - 3.0 * eps0 + _log_expm1(4.0 * eps0))
    return _Blanket(
        log_gamma=GenericLDP(eps0).log_blanket_weight,
        log_1m_gamma=math.log(-math.expm1(-eps0)),
        log_span=eps0 + math.log(-math.expm1(-2.0 * eps0)),
        log_upper=eps0 + np.log(-np.expm1(eps - 2.0 * eps0)),
        log_second=log_second,
    )


def _laplace(eps0: float, eps: np.ndarray) -> _Blanket:
    """Laplace mechanism on ``[0, 1]`` with scale ``1/eps0``: ``gamma = e^{-eps0/2}``."""
    u = 0.5 * eps0
    log_a = _log_expm1(eps)
    # v = a^2 + (e^2eps + 1) alpha + 2 e^eps beta^2, with
    # alpha = (2 e^u + e^-2u - 3) / 3 >= 0 and beta = 1 - e^-u.
    if u < 1.0:
        log_alpha = math.log((2.0 * _expm1_minus_id(u) + _expm1_minus_id(-2.0 * u)) / 3.0)
    else:
        log_alpha = u + math.log(2.0 + math.exp(-3.0 * u) - 3.0 * math.exp(-u)) - math.log(3.0)
    log_beta = math.log(-math.expm1(-u))
    terms = np.stack([2.0 * log_a, np.logaddexp(2.0 * eps, 0.0) + log_alpha, _LOG2 + eps + 2.0 * log_beta])
    return _Blanket(
        log_gamma=BoundedLaplace(eps0).log_blanket_weight,
        log_1m_gamma=log_beta,
        log_span=u + math.log(-math.expm1(-eps0)),
        log_upper=u + np.log(-np.expm1(eps - eps0)),
        log_second=np.logaddexp.reduce(terms, axis=0),
    )


def _krr(eps0: float, eps: np.ndarray, k: int) -> _Blanket:
    """k-ary randomized response: ``gamma = k / (e^eps0 + k - 1)``, uniform blanket."""
    log_a = _log_expm1(eps)
    log_km1 = math.log(k - 1)
    log_norm = float(np.logaddexp(eps0, log_km1))
    log_gamma = KRandomizedResponse(k, eps0).log_blanket_weight
    log_1m_gamma = float(_log_expm1(eps0)) - log_norm
    # v = a^2 + (1 - gamma)^2 (k (1 + e^2eps) - a^2) and k (1 + e^2eps) - a^2 = (k-1)(1 + e^2eps) + 2 e^eps
    log_excess = np.logaddexp(log_km1 + np.logaddexp(0.0, 2.0 * eps), _LOG2 + eps)
    return _Blanket(
        log_gamma=log_gamma,
        log_1m_gamma=log_1m_gamma,
        log_span=math.log(k) + log_1m_gamma,
        log_upper=log_gamma + eps + _log_expm1(eps0 - eps),
        log_second=np.logaddexp(2.0 * log_a, 2.0 * log_1m_gamma + log_excess),
    )


def _blanket(family: RandomizerFamily, eps0: float, eps: np.ndarray) -> _Blanket:
    """The blanket quantities of the family's randomizer at ``eps0`` (its ``log_blanket_weight``)."""
    if family.kind == "generic":
        return _generic(eps0, eps)
    if family.kind == "laplace":
        return _laplace(eps0, eps)
    return _krr(eps0, eps, family.k)


# --------------------------------------------------------------------------- tails
Tail = Callable[[_Blanket, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def _hoeffding_tail(blanket: _Blanket, log_a: np.ndarray, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(log C, c)`` with ``E[(sum of M losses)_+] <= C e^{-cM}`` by Hoeffding's inequality."""
    log_range = blanket.log_span + np.logaddexp(eps, 0.0)
    c = np.exp(_LOG2 + 2.0 * (log_a - log_range))
    return 2.0 * log_range - _LOG4 - log_a, c


def _bennett_tail(blanket: _Blanket, log_a: np.ndarray, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(log C, c)`` with ``E[(sum of M losses)_+] <= C e^{-cM}`` by Bennett's inequality.

    ``c = (v / b^2) h(ab / v) = (a^2 / v) h(beta) / beta^2`` with ``beta = ab / v``.
    """
    log_beta = log_a + blanket.log_upper - blanket.log_second
    c = np.exp(2.0 * log_a - blanket.log_second + _log_h_over_square(log_beta))
    return blanket.log_upper - _log_log1p_exp(log_beta), c


def _log_profile(tail: Tail, family: RandomizerFamily, n: int, eps0: float, eps: np.ndarray) -> np.ndarray:
    """Log of the theorem's bound on ``delta`` at each ``eps`` in ``(0, eps0)`` (before capping)."""
    blanket = _blanket(family, eps0, eps)
    log_const, c = tail(blanket, _log_expm1(eps), eps)
    return log_const - blanket.log_gamma - math.log(n) + _log_blanket_expectation(n, blanket, c)


@lru_cache(maxsize=4096)
def _grid_profile(tail: Tail, family: RandomizerFamily, n: int, eps0: float) -> tuple[np.ndarray, np.ndarray]:
    """A grid of ``eps`` in ``(0, eps0)`` and the log-profile on it."""
    grid = eps0 * np.union1d(np.geomspace(1e-8, 1.0 - 1e-9, 160), np.linspace(0.005, 1.0 - 1e-9, 200))
    return grid, _log_profile(tail, family, n, eps0, grid)


def _running_minimum(tail: Tail, family: RandomizerFamily, n: int, eps0: float, eps: float) -> float:
    """``min`` of the log-profile over the grid points ``<= eps`` (``inf`` if none).

    A guarantee ``(ε', δ)`` holds at every ``ε >= ε'`` too, so this running minimum is still a
    valid bound; it makes the profile monotone where the theorem's bound dips, rises and falls
    again (k-ary randomized response with a huge ``k`` and few users).
    """
    grid, values = _grid_profile(tail, family, n, eps0)
    below = int(np.searchsorted(grid, eps, side="right"))
    return float(values[:below].min()) if below else math.inf


@lru_cache(maxsize=4096)
def _turning_point(tail: Tail, family: RandomizerFamily, n: int, eps0: float) -> float:
    """The ``eps`` in ``(0, eps0]`` where the bound stops decreasing (``eps0`` if it never does)."""
    grid, values = _grid_profile(tail, family, n, eps0)
    i = int(np.argmin(values))
    if i == grid.size - 1:
        return eps0

    def f(e: float) -> float:
        return float(_log_profile(tail, family, n, eps0, np.array([e]))[0])

    from scipy.optimize import minimize_scalar  # imported here: scipy.optimize lengthens the start-up

    lo, hi = grid[max(i - 1, 0)], grid[i + 1]
    res = minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10 * eps0})
    return float(res.x) if res.fun <= values[i] else float(grid[i])


# --------------------------------------------------------------------------- bounds
class _PrivacyBlanketBound(AmplificationBound):
    """Shared machinery: the blanket profile with a Hoeffding or Bennett tail."""

    mechanisms = ("generic", "laplace", "krr")
    reference = (
        "B. Balle, J. Bell, A. Gascón, K. Nissim. The privacy blanket of the shuffle model. "
        "CRYPTO 2019, arXiv:1903.02837."
    )
    _tail: Tail

    def _delta(self, n: int, eps0: float, eps: float) -> float:
        if eps >= eps0:
            return 0.0
        if eps <= 0.0:
            return 1.0
        tail = type(self)._tail
        eps = min(eps, _turning_point(tail, self.randomizer, n, eps0))
        log_delta = float(_log_profile(tail, self.randomizer, n, eps0, np.array([eps]))[0])
        log_delta = min(log_delta, _running_minimum(tail, self.randomizer, n, eps0, eps))
        log_delta += _LOG_MARGIN
        if log_delta >= 0.0:
            return 1.0
        # Below the floor, report the floor: never round a positive delta down to 0.
        return max(math.exp(log_delta), DELTA_FLOOR)


@fill_doc
class BlanketHoeffding(_PrivacyBlanketBound):
    """Privacy blanket bound with Hoeffding's inequality (Balle et al. 2019).

    Uses only the range of the privacy amplification random variable.

    Parameters
    ----------
    %(mechanism_blanket)s %(k_blanket)s

    Examples
    --------
    >>> b = BlanketHoeffding("krr", k=2)
    >>> round(b.delta(5000, 0.4, 0.005), 6)
    0.005643
    >>> round(b.epsilon(10**6, 1.0, 1e-6), 5)
    0.00433
    """

    name = "blanket-hoeffding"
    title = "Privacy blanket, Hoeffding (Balle et al. 2019)"
    _tail = staticmethod(_hoeffding_tail)


@fill_doc
class BlanketBennett(_PrivacyBlanketBound):
    """Privacy blanket bound with Bennett's inequality (Balle et al. 2019).

    Uses an upper bound and the second moment of the privacy amplification
    random variable, which pays off for randomizers whose privacy loss is
    usually small (e.g. k-RR with large ``k``).

    Parameters
    ----------
    %(mechanism_blanket)s %(k_blanket)s

    Examples
    --------
    >>> b = BlanketBennett("laplace")
    >>> round(b.delta(5000, 0.4, 0.005), 6)
    0.004854
    >>> b.epsilon(10**6, 1.0, 1e-6) < BlanketHoeffding("laplace").epsilon(10**6, 1.0, 1e-6)
    True
    """

    name = "blanket-bennett"
    title = "Privacy blanket, Bennett (Balle et al. 2019)"
    _tail = staticmethod(_bennett_tail)
