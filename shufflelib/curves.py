"""Privacy curves: one guarantee, three views.

A privacy guarantee for a pair of neighbouring datasets can be read as

* a **privacy profile** ``delta(eps)``: the smallest δ such that the pair is
  (ε, δ)-indistinguishable, for every ε >= 0;
* its inverse ``epsilon(delta)``: the smallest ε achieving a target δ;
* a **trade-off function** ``tradeoff(alpha)`` (f-DP): the smallest type II
  error of any test whose type I error is at most α.

:class:`PrivacyCurve` is the common interface. :class:`DominatingPair` builds
all three views exactly from two discrete distributions (a dominating pair);
:class:`ProfileCurve` wraps any monotone ``delta(eps)`` function.

Conventions. For a pair ``(P, Q)`` the hockey-stick divergence is
``H_{e^ε}(P‖Q) = Σ_x max(P(x) − e^ε Q(x), 0)``. A *symmetric* curve reports
``max(H(P‖Q), H(Q‖P))`` (the guarantee for both orders of the neighbouring
datasets). The trade-off function is the one whose convex conjugate is the
profile: ``delta(ε) = sup_α (1 − e^ε α − f(α))``.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable

import numpy as np
from scipy.special import logsumexp

from ._roots import first_true, last_true, narrow_bracket
from ._validation import check_array, check_in_range, check_probability

__all__ = [
    "DominatingPair",
    "MonotoneEnvelope",
    "envelope_grid",
    "PrivacyCurve",
    "ProfileCurve",
    "invert_profile",
    "symmetrized",
]

#: Largest ε searched by :meth:`PrivacyCurve.epsilon` before answering ``inf``.
EPS_SEARCH_MAX = 1e4


def _log1mexp(x: np.ndarray) -> np.ndarray:
    """``log(1 − e^x)`` for ``x <= 0``, accurate near 0 and -inf; ``-inf`` at ``x = 0``."""
    x = np.asarray(x, dtype=float)
    out = np.full(x.shape, -np.inf)
    near = (x < 0) & (x > -math.log(2))
    far = x <= -math.log(2)
    out[near] = np.log(-np.expm1(x[near]))
    out[far] = np.log1p(-np.exp(x[far]))
    return out


def _safe_log(x: float) -> float:
    return math.log(x) if x > 0 else -1e300


def invert_profile(
    delta_at: Callable[[float], float],
    delta: float,
    *,
    hi: float = 1.0,
    upper: bool = True,
    cap: float = EPS_SEARCH_MAX,
    guess: float | None = None,
    smooth: bool = True,
) -> float:
    """ε(δ) of a non-increasing privacy profile, rounded in the direction of the bound.

    For an **upper** bound: the smallest ε with ``delta_at(ε) <= delta``, rounded up. For a
    **lower** bound: the largest ε with ``delta_at(ε) > delta``, rounded down (0 if none), so
    that the answer stays a lower bound on the true ε. The search starts on ``[0, hi]`` and
    doubles ``hi`` up to ``cap`` (beyond: ``inf``); a ``guess`` of the root (e.g. a Gaussian-DP
    estimate) narrows the bracket first (``shufflelib._roots.narrow_bracket``), which saves
    evaluations and never changes the answer. ``smooth=False``: bisection alone, for a profile that
    jumps at the crossing (Brent's interpolation steps are then slower). Tolerance: relative
    ``1e-9``, on the safe side, with no absolute floor (``shufflelib._roots``' default ``1e-12``
    is a sizable part of an ε of a few ``1e-11``, read at a tiny ε₀ and many users: clones,
    n = 837,831,383, ε₀ = 1.02e-6, two rounds, δ = 8.9e-12 once answered 2.877e-11 where
    2.832e-11 reaches δ).

    Examples
    --------
    >>> import numpy as np
    >>> profile = lambda e: max(0.0, float((np.e - np.exp(e)) / (1 + np.e)))  # randomized response, eps0 = 1
    >>> up, down = invert_profile(profile, 0.1), invert_profile(profile, 0.1, upper=False)
    >>> down <= up and up - down < 1e-8 and profile(up) <= 0.1 < profile(down)
    True
    """
    cache: dict[float, float] = {}

    def d(e: float) -> float:
        if e not in cache:
            cache[e] = delta_at(e)
        return cache[e]

    if d(0.0) <= delta:
        return 0.0
    while d(hi) > delta:
        hi *= 2.0
        if hi > cap:
            return math.inf
    lo = 0.0
    if guess is not None:
        lo, hi = narrow_bracket(lambda e: d(e) > delta, guess, lo, hi)
    log_target = math.log(delta)
    if upper:
        score = (lambda e: _safe_log(d(e)) - log_target) if smooth else None
        return first_true(lambda e: d(e) <= delta, score, lo, hi, atol=0.0)
    score = (lambda e: log_target - _safe_log(d(e))) if smooth else None
    return last_true(lambda e: d(e) > delta, score, lo, hi, atol=0.0)


class PrivacyCurve(ABC):
    """A privacy guarantee seen as a profile, its inverse and a trade-off function.

    Subclasses implement ``_delta_array`` (vectorized, for an array of
    ε >= 0) and may override :meth:`tradeoff`; the default trade-off uses the
    profile-to-trade-off conversion of :class:`ProfileCurve`.

    A curve knows which way it was rounded: :attr:`upper` is true for an upper bound on the
    privacy loss (δ rounded up, ε rounded up: the default) and false for a lower bound (an
    attained pair or an audit, δ rounded down); :meth:`epsilon` inverts accordingly (as
    ``dp_accounting``'s ``pessimistic_estimate`` does explicitly).

    Examples
    --------
    The three views of one guarantee, for randomized response with ``eps0 = 1``:

    >>> import numpy as np
    >>> from shufflelib.curves import DominatingPair
    >>> p = np.e / (1 + np.e)
    >>> curve = DominatingPair(np.log([p, 1 - p]), np.log([1 - p, p]))
    >>> round(float(curve.delta(0.0)), 4), round(curve.epsilon(0.1), 4)
    (0.4621, 0.8529)
    >>> round(float(curve.tradeoff(0.1)), 4)
    0.7282
    """

    #: True for an upper bound on the privacy loss (rounded up), False for a lower bound (rounded down).
    upper: bool = True

    @abstractmethod
    def _delta_array(self, eps: np.ndarray) -> np.ndarray:
        """δ(ε) for a 1-D array of validated ε >= 0."""

    def delta(self, eps: float | np.ndarray) -> float | np.ndarray:
        """The privacy profile δ(ε) (vectorized over ε >= 0).

        Parameters
        ----------
        eps
            A number or an array of finite numbers >= 0.

        Returns
        -------
        float or numpy.ndarray
            δ(ε) in ``[0, 1]``, with the shape of ``eps``.

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.curves import DominatingPair
        >>> rr = DominatingPair(np.log([0.75, 0.25]), np.log([0.25, 0.75]))
        >>> round(rr.delta(0.0), 6)
        0.5
        """
        scalar = np.ndim(eps) == 0
        arr = check_array("eps", eps, low=0.0)
        flat = np.atleast_1d(arr).ravel()
        out = np.clip(np.asarray(self._delta_array(flat), dtype=float), 0.0, 1.0)
        if np.any(np.isnan(out)):
            raise RuntimeError(f"{type(self).__name__}: delta evaluated to NaN")
        return float(out[0]) if scalar else out.reshape(arr.shape)

    def _delta_scalar(self, eps: float) -> float:
        return float(np.clip(self._delta_array(np.array([eps], dtype=float))[0], 0.0, 1.0))

    def epsilon(self, delta: float) -> float:
        """Smallest ε >= 0 with ``delta(ε) <= delta``, rounded up (rounded down for a lower bound).

        Found with :func:`invert_profile`: for an upper bound the returned ε satisfies
        ``delta(ε) <= delta`` as evaluated, and exceeds the true root by at most
        ``1e-9·ε + 1e-12``; for a lower bound (:attr:`upper` false) it is the largest ε with
        ``delta(ε) > delta``, within the same tolerance below the root. Returns ``inf`` if no
        ε <= 1e4 reaches ``delta``.

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.curves import DominatingPair
        >>> rr = DominatingPair(np.log([0.75, 0.25]), np.log([0.25, 0.75]))
        >>> round(rr.epsilon(1e-6), 6)  # randomized response with eps0 = log 3
        1.098611
        """
        delta = check_probability("delta", delta)
        return invert_profile(self._delta_scalar, delta, upper=self.upper)

    def tradeoff(self, alpha: float | np.ndarray) -> float | np.ndarray:
        """The trade-off function f(α) (f-DP), vectorized over α in [0, 1].

        Default: the conversion from the profile on a finite ε grid (see
        :class:`ProfileCurve`), which can only lower f (a safe lower bound);
        :class:`DominatingPair` overrides it with the exact Neyman–Pearson curve.

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.curves import ProfileCurve
        >>> rr = ProfileCurve(lambda e: np.maximum(3.0 - np.exp(e), 0.0) / 4.0)  # eps0 = log 3
        >>> round(rr.tradeoff(0.25), 6)  # exact: max(0, 1 - 3 a, (1 - a) / 3) = 0.25
        0.25
        """
        scalar = np.ndim(alpha) == 0
        arr = check_array("alpha", alpha, low=0.0, high=1.0)
        flat = np.atleast_1d(arr).ravel()
        grid = self._default_eps_grid()
        out = _tradeoff_from_profile(grid, self._delta_array(grid), flat)
        return float(out[0]) if scalar else out.reshape(arr.shape)

    def _default_eps_grid(self, points: int = 4001) -> np.ndarray:
        hi = self.epsilon(1e-15)
        if not math.isfinite(hi) or hi <= 0.0:
            hi = 50.0 if not math.isfinite(hi) else 1.0
        return np.linspace(0.0, hi, points)


def _tradeoff_from_profile(eps: np.ndarray, deltas: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """``sup_ε max(0, 1 − δ(ε) − e^ε α, e^{-ε}(1 − δ(ε) − α))`` over the finite grid ``eps``."""
    e = np.exp(eps)[None, :]
    one_minus = (1.0 - np.clip(deltas, 0.0, 1.0))[None, :]
    a = alpha[:, None]
    lines = np.maximum(one_minus - e * a, (one_minus - a) / e)
    return np.clip(lines.max(axis=1), 0.0, 1.0 - alpha)


class _HockeyStick:
    """``H_{e^ε}(P‖Q)`` for many ε, from the privacy loss distribution of ``(P, Q)``.

    Atoms are sorted by log-likelihood ratio ``ℓ = log P − log Q`` (descending).
    With ``Q_i`` the Q-mass of the first ``i + 1`` atoms and ``D_i = H(ℓ_i)``,
    ``D_{i+1} = D_i + (e^{ℓ_i} − e^{ℓ_{i+1}}) Q_i`` and, for ``ℓ_{i+1} <= ε < ℓ_i``,
    ``H(ε) = D_i + (e^{ℓ_i} − e^ε) Q_i``: every term is >= 0, so the recursion
    (run in log space) has no cancellation and tiny δ keep full relative precision.
    """

    def __init__(self, log_p: np.ndarray, log_q: np.ndarray) -> None:
        live = log_p > -np.inf
        log_p, log_q = log_p[live], log_q[live]
        inf_atoms = log_q == -np.inf
        self.inf_mass = float(np.exp(logsumexp(log_p[inf_atoms]))) if inf_atoms.any() else 0.0
        lp, lq = log_p[~inf_atoms], log_q[~inf_atoms]
        ratio = lp - lq
        order = np.argsort(-ratio, kind="stable")
        self.ratio = ratio[order]  # descending
        self.log_qcum = np.logaddexp.accumulate(lq[order]) if lq.size else lq
        if self.ratio.size:
            gap = _log1mexp(self.ratio[1:] - self.ratio[:-1])
            log_inc = self.ratio[:-1] + gap + self.log_qcum[:-1]
            self.log_d = np.concatenate([[-np.inf], np.logaddexp.accumulate(log_inc)])
        else:
            self.log_d = np.empty(0)
        #: Relative rounding slack of the accumulated sums (safe-direction inflation).
        self.rel_err = 8.0 * (self.ratio.size + 2) * np.finfo(float).eps

    def __call__(self, eps: np.ndarray) -> np.ndarray:
        count = np.searchsorted(-self.ratio, -eps, side="left")  # atoms with ℓ > ε
        out = np.zeros(eps.shape)
        has = count > 0
        if has.any():
            i = count[has] - 1
            lr = self.ratio[i]
            tail = lr + _log1mexp(eps[has] - lr) + self.log_qcum[i]
            out[has] = np.exp(np.logaddexp(self.log_d[i], tail))
        return (out + self.inf_mass) * (1.0 + self.rel_err)


class DominatingPair(PrivacyCurve):
    """The exact privacy curve of two discrete distributions on a common support.

    Parameters
    ----------
    log_p, log_q
        Log-probabilities of ``P`` and ``Q`` on the same atoms (1-D, equal
        length). Entries may be ``-inf`` (zero probability). Each total mass
        may be below 1 if the missing mass is covered by ``tail_mass``.
    symmetric
        If true (default) the curve is the guarantee for both orders:
        ``delta = max(H(P‖Q), H(Q‖P))`` and the trade-off is the lower convex
        envelope of ``min(T(P, Q), T(Q, P))``. If false, ``delta = H(P‖Q)`` and
        the trade-off is ``T(Q, P)`` (type I error under Q, type II under P).
    tail_mass
        Probability mass of P and of Q not represented by the atoms (e.g. a
        truncated binomial tail); must be at least ``1 − sum(P)`` and
        ``1 − sum(Q)`` (up to 1e-9). It is added to δ; the trade-off counts
        only represented P mass as type II error. Both keep the curve a valid
        (pessimistic) privacy curve whatever the missing mass is.

    Notes
    -----
    The privacy loss distribution is built once (sort by log-likelihood ratio,
    cumulative sums in log space); each δ(ε) then costs a binary search.
    δ is exact up to a relative rounding error of ``8·(atoms + 2)·2^-52``,
    which is added (rounded up).

    Examples
    --------
    Randomized response with ``eps0 = 1``:

    >>> import numpy as np
    >>> from shufflelib.curves import DominatingPair
    >>> e = np.e
    >>> rr = DominatingPair(np.log([e / (1 + e), 1 / (1 + e)]), np.log([1 / (1 + e), e / (1 + e)]))
    >>> round(rr.delta(0.5), 6), round(float((e - np.exp(0.5)) / (1 + e)), 6)
    (0.287649, 0.287649)
    >>> round(rr.epsilon(1e-9), 6)
    1.0
    """

    def __init__(
        self,
        log_p: np.ndarray,
        log_q: np.ndarray,
        symmetric: bool = True,
        tail_mass: float = 0.0,
    ) -> None:
        log_p = _check_log_probs("log_p", log_p)
        log_q = _check_log_probs("log_q", log_q)
        if log_p.shape != log_q.shape:
            raise ValueError(f"log_p and log_q must have the same length, got {log_p.size} and {log_q.size}")
        tail_mass = check_in_range("tail_mass", tail_mass, 0.0, 1.0)
        for name, lp in (("log_p", log_p), ("log_q", log_q)):
            mass = float(np.exp(logsumexp(lp))) if lp.size and np.any(lp > -np.inf) else 0.0
            if mass > 1.0 + 1e-9:
                raise ValueError(f"{name} must describe a total mass <= 1, got {mass!r}")
            if 1.0 - mass > tail_mass + 1e-9:
                raise ValueError(
                    f"tail_mass must be >= the missing mass 1 - sum(exp({name})) = {1.0 - mass!r}, got {tail_mass!r}"
                )
        self.log_p, self.log_q = log_p, log_q
        self.symmetric = bool(symmetric)
        self.tail_mass = tail_mass
        self._pq = _HockeyStick(log_p, log_q)
        self._qp = _HockeyStick(log_q, log_p) if self.symmetric else None

    def _delta_array(self, eps: np.ndarray) -> np.ndarray:
        d = self._pq(eps)
        if self._qp is not None:
            d = np.maximum(d, self._qp(eps))
        return d + self.tail_mass

    def tradeoff(self, alpha: float | np.ndarray) -> float | np.ndarray:
        """Exact Neyman–Pearson trade-off function (piecewise linear, randomized tests).

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.curves import DominatingPair
        >>> rr = DominatingPair(np.log([0.75, 0.25]), np.log([0.25, 0.75]))
        >>> [round(float(v), 6) for v in rr.tradeoff(np.array([0.0, 0.1, 0.5, 1.0]))]
        [1.0, 0.7, 0.166667, 0.0]
        """
        scalar = np.ndim(alpha) == 0
        arr = check_array("alpha", alpha, low=0.0, high=1.0)
        flat = np.atleast_1d(arr).ravel()
        x, y = _np_vertices(self.log_p, self.log_q)  # T(Q, P)
        if self.symmetric:
            x, y = symmetrized(x, y)  # with its inverse
        else:  # subnormal type I errors snapped to 0, as in symmetrized
            x, y = _lower_hull(np.where(x < np.finfo(float).tiny, 0.0, x), y)
        out = np.clip(np.interp(flat, x, y), 0.0, 1.0 - flat)
        return float(out[0]) if scalar else out.reshape(arr.shape)


def symmetrized(alpha: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(min{f, f^{-1}})^{**}``: the symmetrization of a trade-off curve given on points.

    The one symmetrization of the library (:meth:`~shufflelib.curves.DominatingPair.tradeoff` with
    ``symmetric=True``, the personalized chapter's curves).

    ``f`` is given by the points ``(alpha, f)`` (non-increasing, from
    ``(0, ≤1)`` to ``(1, 0)``); its inverse is the reflection
    ``(f, alpha)``. The result is the lower convex hull of both point sets.

    Examples
    --------
    >>> import numpy as np
    >>> x, y = symmetrized(np.array([0.0, 0.5, 1.0]), np.array([1.0, 0.2, 0.0]))
    >>> [round(float(v), 2) for v in np.interp([0.2, 0.5], x, y)]
    [0.5, 0.2]
    """
    a = check_array("alpha", alpha, ndim=1, low=0.0, high=1.0)
    y = check_array("f", f, ndim=1, low=0.0, high=1.0)
    if a.size != y.size:
        raise ValueError(f"alpha and f must have the same length, got {a.size} and {y.size}")
    xs = np.concatenate([a, y, [0.0, 1.0]])
    ys = np.concatenate([y, a, [1.0, 0.0]])
    # Type I errors below the smallest normal float (atoms of subnormal mass) are snapped to 0:
    # this moves vertices left, which only lowers f (pessimistic), and keeps np.interp's slopes
    # finite. The hull then keeps one vertex (the lowest) per abscissa.
    return _lower_hull(np.where(xs < np.finfo(float).tiny, 0.0, xs), ys)


def _check_log_probs(name: str, value: np.ndarray) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of log-probabilities, got {value!r}") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-dimensional array, got shape {arr.shape}")
    if np.any(np.isnan(arr)) or np.any(arr == np.inf):
        raise ValueError(f"{name} must contain log-probabilities (finite numbers or -inf, no NaN or +inf)")
    if np.any(arr > 1e-12):
        raise ValueError(f"{name} must contain log-probabilities <= 0, got max {arr.max()!r}")
    return np.minimum(arr, 0.0)


def _np_vertices(log_p: np.ndarray, log_q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices of T(Q, P): reject Q on atoms in decreasing order of P/Q (type I under Q, type II under P)."""
    live = (log_p > -np.inf) | (log_q > -np.inf)
    lp, lq = log_p[live], log_q[live]
    ratio = lp - lq  # +inf where Q is 0; never -inf - -inf (dead atoms were dropped)
    order = np.argsort(-ratio, kind="stable")
    p, q = np.exp(lp[order]), np.exp(lq[order])
    # Prefix sums of Q (type I) and suffix sums of P (type II): exact zeros at the ends, and only
    # represented mass is counted, which can only lower T (safe when mass is missing).
    x = np.concatenate([[0.0], np.cumsum(q), [1.0]])
    y = np.concatenate([np.cumsum(p[::-1])[::-1], [0.0, 0.0]])
    return np.minimum(x, 1.0), np.minimum(y, 1.0)


def _lower_hull(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower convex hull (monotone chain) of points, returned sorted by x."""
    order = np.lexsort((y, x))
    xs, ys = x[order].tolist(), y[order].tolist()
    hx: list[float] = []
    hy: list[float] = []
    for px, py in zip(xs, ys, strict=False):
        if hx and px == hx[-1]:
            continue  # same x: the first (lowest y) was kept
        while len(hx) >= 2 and (hx[-1] - hx[-2]) * (py - hy[-2]) - (hy[-1] - hy[-2]) * (px - hx[-2]) <= 0:
            hx.pop()
            hy.pop()
        hx.append(px)
        hy.append(py)
    return np.asarray(hx), np.asarray(hy)


class ProfileCurve(PrivacyCurve):
    """A privacy curve given by a monotone privacy profile ``delta_fn(eps)``.

    Parameters
    ----------
    delta_fn
        Function mapping a 1-D numpy array of ε >= 0 to the array of δ(ε);
        non-increasing in ε, values in ``[0, 1]``.
    eps_grid
        ε values used by :meth:`~shufflelib.curves.PrivacyCurve.tradeoff` (default: 4001 points from 0 to
        ``epsilon(1e-15)``).
    upper
        Whether ``delta_fn`` is an upper bound on the privacy profile (rounded up; the default) or
        a lower bound (rounded down: an attained pair, an audit). The trade-off conversion is
        only rounded in the safe direction for an upper bound.

    Notes
    -----
    The trade-off function is the standard conversion
    ``f(α) = sup_ε max(0, 1 − δ(ε) − e^ε α, e^{-ε}(1 − δ(ε) − α))``.
    Taking the supremum over a *finite* grid can only lower f, so the result
    is a valid (slightly pessimistic) trade-off function for the guarantee.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.curves import ProfileCurve
    >>> e0 = 1.0
    >>> rr = ProfileCurve(lambda e: np.maximum(np.exp(e0) - np.exp(e), 0) / (1 + np.exp(e0)))
    >>> round(rr.epsilon(0.1), 6)
    0.852905
    >>> abs(rr.tradeoff(0.2) - max(0, 1 - np.e * 0.2, (1 - 0.2) / np.e)) < 1e-3
    True
    """

    def __init__(
        self, delta_fn: Callable[[np.ndarray], np.ndarray], eps_grid: np.ndarray | None = None, *, upper: bool = True
    ) -> None:
        if not callable(delta_fn):
            raise ValueError(f"delta_fn must be callable, got {delta_fn!r}")
        if not isinstance(upper, bool):
            raise ValueError(f"upper must be True or False, got {upper!r}")
        self.upper = upper
        self._fn = delta_fn
        self._grid = None if eps_grid is None else np.unique(check_array("eps_grid", eps_grid, ndim=1, low=0.0))

    def _delta_array(self, eps: np.ndarray) -> np.ndarray:
        return np.asarray(self._fn(eps), dtype=float).reshape(eps.shape)

    def _default_eps_grid(self, points: int = 4001) -> np.ndarray:
        return self._grid if self._grid is not None else super()._default_eps_grid(points)


def envelope_grid(eps_max: float = 700.0, points: int = 256) -> np.ndarray:
    """The ε grid of :class:`MonotoneEnvelope`: 0, then ``points`` geometric values from ``1e-4``
    to ``eps_max``.

    Examples
    --------
    >>> g = envelope_grid()
    >>> g.size, float(g[0]), float(g[1]), float(g[-1])
    (257, 0.0, 0.0001, 700.0)
    """
    return np.concatenate([[0.0], np.geomspace(1e-4, eps_max, points)])


class MonotoneEnvelope(PrivacyCurve):
    """The running minimum of a valid privacy profile: still valid, and non-increasing on a grid.

    If ``(ε', δ(ε'))`` is a valid guarantee, so is ``(ε, δ(ε'))`` for every ``ε >= ε'``. A
    profile computed with a rounding-error allowance (which grows like ``e^ε``) or by a
    formula that is not monotone (group privacy, ``s e^{cε/s} δ(ε/s)``) is therefore replaced by
    ``min(δ(ε), min{δ(g) : g <= ε})`` over a fixed grid ``g`` of ``points`` values from 0 to
    ``eps_max``; beyond ``eps_max`` the value at ``eps_max`` is used (no overflow), and a NaN
    of the wrapped curve counts as δ = 1 (always valid).

    Parameters
    ----------
    curve
        The wrapped privacy curve.
    eps_max
        Largest ε evaluated (default 700, below the overflow of ``exp``).
    points
        Number of grid points (geometric from ``1e-4``, plus 0).

    Examples
    --------
    A profile whose error allowance ``1e-9 e^ε`` takes over beyond ε = 10:

    >>> import numpy as np
    >>> rising = ProfileCurve(lambda e: np.minimum(1.0, 0.5 * np.exp(-e) + 1e-9 * np.exp(e)))
    >>> env = MonotoneEnvelope(rising)
    >>> rising.delta(30.0), bool(env.delta(30.0) < 5e-5), env.delta(1.0) == rising.delta(1.0)
    (1.0, True, True)
    """

    def __init__(self, curve: PrivacyCurve, eps_max: float = 700.0, points: int = 256) -> None:
        if not isinstance(curve, PrivacyCurve):
            raise ValueError(f"curve must be a PrivacyCurve, got {type(curve).__name__}")
        self.curve = curve
        self.eps_max = check_in_range("eps_max", eps_max, 0.0, 700.0, closed_low=False)
        self._grid = envelope_grid(self.eps_max, points)
        # The running minimum over the grid's first points, extended as questions reach further:
        # δ at ε reads the grid up to ε only (a small ε: a few dozen of its points).
        self._running = np.empty(0)

    def _raw(self, eps: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):
            d = np.asarray(self.curve._delta_array(np.minimum(eps, self.eps_max)), dtype=float)
        return np.clip(np.where(np.isnan(d), 1.0, d), 0.0, 1.0)

    def _delta_array(self, eps: np.ndarray) -> np.ndarray:
        if eps.size == 0:
            return np.empty(0)
        below = np.searchsorted(self._grid, eps, side="right") - 1
        done = self._running.size
        new = self._grid[done : int(below.max()) + 1]
        raw = self._raw(np.concatenate([new, eps]))  # the grid's new points and ε, in one evaluation
        if new.size:
            running = np.minimum.accumulate(np.concatenate([self._running[-1:], raw[: new.size]]))
            self._running = np.concatenate([self._running, running[min(done, 1) :]])
        return np.minimum(raw[new.size :], self._running[below])
