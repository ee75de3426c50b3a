r"""From a privacy profile to a composable loss distribution ("connect the dots").

Many bounds are only a privacy profile ``δ(ε)`` (the privacy blanket, Erlingsson
et al., the closed-form clone bound, the exact k-RR worst case — a maximum over
datasets —, the personalized, population and segmented bounds): a list of
``(ε, δ)`` guarantees, not a pair of distributions. This module turns any finite
set of guarantees into a dominating pair, so that composition applies.

Construction. Let a mechanism be ``(ε_i, δ_i)``-DP for ``i = 1, …, m``, with
``0 <= ε_1 < … < ε_m``. By Dong, Roth, Su (2022, Proposition 2.12) it is
``f``-DP for

.. math::

    f(α) = \max_i \max\big(0,\; 1 - δ_i - e^{ε_i} α,\; e^{-ε_i}(1 - δ_i - α)\big),

a symmetric, convex, piecewise-linear trade-off function (using only finitely many
points of a profile gives a smaller ``f``: valid, and pessimistic). Its privacy
profile, ``δ_f(γ) = 1 + f^*(-γ)`` as a function of ``γ = e^ε >= 1``, is the
*lower convex hull* of the points ``(1, v)`` and ``(e^{ε_i}, δ_i)`` followed by
the horizontal ray at ``min_i δ_i``, with
``v = min(δ(0), min_i δ_i + (1 − δ_i) tanh(ε_i/2))`` (each single guarantee
caps the total variation by its own value at ``γ = 1``). Proof sketch: the
profile of ``f_{ε,δ}`` is the tent ``δ + (1 − δ)(e^ε − γ)^+/(e^ε + 1)`` on
``γ >= 1``; the conjugate of a maximum of convex functions is the convex hull of
the minimum of their conjugates, and the lower hull of the tents on ``γ >= 1``
has exactly the vertices above. (Sampling the profile densely, this is the
"connect the dots" accountant of Doroshenko, Ghazi, Kamath, Kumar, Manurangsi,
PETS 2022: linear interpolation of ``δ`` in ``e^ε`` between grid points, an upper
bound because every profile is convex in ``e^ε``.)

A piecewise-linear convex profile with vertices ``γ_0 = 1 < γ_1 < … < γ_K`` and
slopes ``s_0 <= … <= s_{K−1} <= s_K = 0`` is the profile of a symmetric pair
whose privacy loss distribution (under ``P``) has atoms

* ``+ε_k = log γ_k`` with mass ``γ_k (s_k − s_{k−1})`` (the ``Q``-mass ``s_k − s_{k−1}``
  of the atom is the slope's jump at ``γ_k``),
* ``−ε_k`` with mass ``s_k − s_{k−1}`` (symmetry: ``ω(−ℓ) = e^{−ℓ} ω(ℓ)``),
* ``+∞`` with mass ``δ_K = min_i δ_i`` (the infinite-loss atom: ``f(0) < 1``),
* ``0`` with the rest, ``1 − v − 2|s_0|``, which the hull keeps ``>= 0`` (it is
  where the symmetric extension of the profile to ``γ < 1`` stays convex).

Indeed ``Σ_{γ_k > γ} (s_k − s_{k−1})(γ_k − γ) + δ_K`` is the piecewise-linear
function with those slopes and end value. Since the trade-off function of this
pair is ``f`` (the hull's profile), ``T`` adaptive rounds of the mechanism are
``f^{⊗T}``-DP (Dong, Roth, Su, Theorem 3.2), whose profile the composed loss
distribution gives.

Grid and tolerance. The points are put on the loss grid ``step · ℤ`` by
*rounding ε up* (a mechanism ``(ε, δ)``-DP is ``(ε', δ)``-DP for ``ε' >= ε``),
so every atom lands on the grid with no further rounding. The masses are
multiplied by ``1 + 64 K u`` (``u = 2^{-53}``) to cover the float rounding of the
slopes, the side that only raises δ. The composed ε is then within
:attr:`~shufflelib.composition.pld.LossDistribution.discretization_error`
(``T · step``) of the exact composition of the pair built from the sampled
profile; how much the sampling itself costs against a bound's own dominating
pair is measured in the composition chapter.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .._validation import check_array, check_positive
from ..bounds.base import NotApplicableError
from .pld import LossDistribution

__all__ = [
    "PROFILE_POINTS",
    "PROFILE_TAIL",
    "inverse_profile_pld",
    "profile_end",
    "profile_pld",
    "sampled_profile_pld",
]

#: Default number of grid points at which a profile is sampled.
PROFILE_POINTS = 128
#: The sampled grid ends where δ first drops to this (the rest of the profile is the chord to
#: the cap, or an infinite-loss atom of at most this mass).
PROFILE_TAIL = 1e-30
#: Largest ε searched for the end of a profile without a cap.
PROFILE_EPS_MAX = 50.0
#: Below this, a profile's last δ may go to +∞ (times at most 2) instead of an atom at the cap.
_NEGLIGIBLE = 1e-20
#: A profile at most this many times :func:`profile_end`'s ``tail`` just below its cap rests on a floor
#: of its own there.
_PLATEAU = 10.0
#: Unit roundoff of float64.
_U = 2.0**-53


def _hull(gamma: np.ndarray, delta: np.ndarray) -> list[int]:
    """Indices of the lower convex hull of the points (sorted by ``gamma``) with non-decreasing slopes."""
    stack: list[int] = []
    for i in range(gamma.size):
        while len(stack) >= 2:
            a, b = stack[-2], stack[-1]
            left = (delta[b] - delta[a]) / (gamma[b] - gamma[a])
            right = (delta[i] - delta[b]) / (gamma[i] - gamma[b])
            if left < right:
                break
            stack.pop()
        stack.append(i)
    return stack


def profile_pld(eps: np.ndarray, delta: np.ndarray, step: float, *, eps_max: float | None = None) -> LossDistribution:
    """Pessimistic loss distribution of the symmetric pair built from ``(ε_i, δ_i)`` guarantees.

    See the module docstring. Every ``(eps[i], delta[i])`` must be a valid (ε, δ)-DP
    guarantee of the mechanism for both orders of every pair of neighbouring datasets; ``eps``
    is rounded up to the grid ``step · ℤ``, and ``δ`` is replaced by its running minimum
    (a guarantee at ε holds at every larger ε).

    Parameters
    ----------
    eps
        ε values >= 0 (finite, any order).
    delta
        δ values in ``[0, 1]``, one per ε.
    step
        Grid spacing of the losses.
    eps_max
        A cap: the mechanism is ``eps_max``-DP, i.e. ``(eps_max, 0)`` is one more guarantee
        (it must exceed every ``eps``), added as a point (an atom at ``eps_max``), unless the
        last δ is negligible (``<= 1e-20``) and the last ε far from the cap (the chord to
        ``(eps_max, 0)`` at most doubles the last δ): then that δ, times the chord's factor,
        is the mass at ``+∞`` (placed at ``eps_max`` for Rényi moments: ``max_loss``), which
        keeps the grid short.

    Examples
    --------
    Randomized response with ``eps0 = 1`` is ``(1, 0)``-DP and ``(0, tanh(1/2))``-DP; the pair
    built from these two points is randomized response again:

    >>> import numpy as np
    >>> from shufflelib.composition.profile import profile_pld
    >>> ld = profile_pld(np.array([0.0, 1.0]), np.array([np.tanh(0.5), 0.0]), step=0.5)
    >>> ld.losses.tolist(), np.round(ld.mass, 4).tolist()
    ([-1.0, -0.5, 0.0, 0.5, 1.0], [0.2689, 0.0, 0.0, 0.0, 0.7311])
    """
    step = check_positive("step", step)
    e = check_array("eps", eps, ndim=1, low=0.0)
    d = check_array("delta", delta, ndim=1, low=0.0, high=1.0)
    if e.shape != d.shape or e.size == 0:
        raise ValueError(f"eps and delta must be non-empty and of equal length, got {e.shape}, {d.shape}")
    if eps_max is not None:
        cap = check_positive("eps_max", eps_max)
        if cap <= float(e.max()):
            raise ValueError(f"eps_max must exceed every eps, got {eps_max!r} <= {float(e.max())!r}")
        last = int(np.argmax(e))
        low = float(np.min(d))
        if low > 0.0 and (low > _NEGLIGIBLE or -1.0 / math.expm1(float(e[last]) - cap) > 2.0):
            # A last δ that matters, or close to the cap: the chord to (eps_max, 0) is a real
            # atom at eps_max.
            e, d = np.append(e, cap), np.append(d, 0.0)
    k = np.ceil(e / step - 1e-12).astype(np.int64)
    k = np.where(k * step < e, k + 1, k)  # round up, whatever the float division did
    order = np.argsort(k, kind="stable")
    k, d = k[order], np.minimum.accumulate(d[order])
    # One point per grid value (the smallest delta there), then the point at gamma = 1.
    keep = np.append(k[1:] != k[:-1], True)
    k, d = k[keep], d[keep]
    grid_eps = k * step
    tv = float(np.min(d + (1.0 - d) * np.tanh(grid_eps / 2.0)))  # each guarantee caps δ(0)
    if k[0] == 0:
        k, d, grid_eps = k[1:], d[1:], grid_eps[1:]
    k = np.concatenate([[0], k])
    d = np.concatenate([[tv], d])
    grid_eps = np.concatenate([[0.0], grid_eps])
    # gamma - 1 = expm1(eps): accurate differences near gamma = 1.
    verts = _hull(np.expm1(grid_eps), d)
    # Keep vertices up to the first one at the smallest delta (then the profile is flat).
    last = int(np.argmin(d[verts]))
    verts = verts[: last + 1]
    g, dv, kv = np.expm1(grid_eps[verts]), d[verts], k[verts]
    slopes = np.append(np.diff(dv) / np.diff(g), 0.0) if len(verts) > 1 else np.zeros(1)
    jumps = np.maximum(np.diff(slopes), 0.0)  # Q-mass at vertex 1..K
    kpos = kv[1:]
    top = int(kpos[-1]) if kpos.size else 0
    mass = np.zeros(2 * top + 1)
    np.add.at(mass, top + kpos, (1.0 + g[1:]) * jumps)  # P-mass gamma_k * jump at +eps_k
    np.add.at(mass, top - kpos, jumps)  # and jump at -eps_k
    mass[top] += max(0.0, 1.0 - dv[0] + 2.0 * slopes[0])
    scale = 1.0 + 64.0 * (len(verts) + 2) * _U
    inf_mass, max_loss = float(dv[-1]), math.inf
    if eps_max is not None and inf_mass > 0.0:
        # Far from the cap: the chord to (eps_max, 0) puts P-mass e^cap * last / (e^cap - e^end)
        # <= 2 last at eps_max; it is counted at +inf (and at eps_max for Rényi moments).
        inf_mass *= -1.0 / math.expm1(grid_eps[verts[-1]] - eps_max)
        max_loss = float(eps_max)
    elif eps_max is not None:
        max_loss = min(float(eps_max), top * step)
    elif inf_mass == 0.0:
        max_loss = top * step
    return LossDistribution(step, -top, mass * scale, min(1.0, inf_mass * scale), max_loss=max_loss)


def profile_end(
    profile: Callable[[np.ndarray], np.ndarray], eps_max: float | None = None, tail: float = PROFILE_TAIL
) -> float:
    """Where a profile first comes within ``tail`` of its floor: the end of its sampled grid.

    The floor is δ at ``eps_max`` (default 50): 0 for a capped profile, the mass no ε removes
    otherwise; or, where the profile rests below its cap on a floor of its own of at most
    ``_PLATEAU · tail`` (δ at the last point before the cap of the first grid), that floor.
    Searched on 32 geometric points in ``(0, eps_max]``, then on two finer grids of 16
    points (to a 256th of the geometric spacing: a little late, never early).

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.profile import profile_end
    >>> round(profile_end(lambda e: np.exp(-1e4 * e * e)), 3)  # exp(-1e4 e^2) = 1e-30
    0.083
    """
    top = PROFILE_EPS_MAX if eps_max is None else float(eps_max)
    grid = np.geomspace(min(1e-6, top / 2.0), top, 32)
    values = np.asarray(profile(grid), dtype=float)
    # A numerical profile may rest on a floor of its own, of the order of ``tail``, up to its cap
    # (the binomial tails a clone-pair bound leaves out): within ``tail`` of that floor, not of the
    # cap's 0, or the grid runs to the cap and samples the profile's slope with a few points
    # (pers-liu24, levels 1.9, 3.8, 7.65, 10^4 users: floor 2e-30 from ε = 0.6, 10 of 128 points).
    floor = float(values[-1])
    if floor < float(values[-2]) <= _PLATEAU * tail:
        floor = float(values[-2])
    level = floor + tail
    below = np.nonzero(values <= level)[0]
    hi = float(grid[below[0]])
    lo = float(grid[below[0] - 1]) if below[0] > 0 else 0.0
    # Two vectorized refinements of 16 points each (a profile may be a costly search per call).
    for _ in range(2):
        fine = np.linspace(lo, hi, 17)[1:]
        inside = np.nonzero(np.asarray(profile(fine), dtype=float) <= level)[0]
        hi, lo = float(fine[inside[0]]), (float(fine[inside[0] - 1]) if inside[0] > 0 else lo)
    return hi


def sampled_profile_pld(
    profile: Callable[[np.ndarray], np.ndarray],
    step: float,
    *,
    eps_max: float | None = None,
    end: float | None = None,
    points: int = PROFILE_POINTS,
) -> LossDistribution:
    """:func:`profile_pld` of a vectorized profile sampled on a grid of multiples of ``step``.

    The grid is uniform on ``[0, end]`` (``end`` default :func:`profile_end`), spacing the
    smallest multiple of ``step`` giving at most ``points`` points; the profile beyond ``end``
    (at most :data:`PROFILE_TAIL`) becomes the mass at ``+∞`` (see :func:`profile_pld` for
    ``eps_max``).

    Parameters
    ----------
    profile
        δ(ε) for an array of ε >= 0: an upper bound, valid for both orders of every pair of
        neighbouring datasets.
    step
        Loss grid spacing.
    eps_max
        The profile's cap (the mechanism is ``eps_max``-DP), if any.
    end
        End of the uniform part of the grid.
    points
        Number of uniform grid points.

    Examples
    --------
    The Gaussian mechanism's profile (μ = 0.5) sampled and rebuilt gives back its δ:

    >>> import numpy as np
    >>> from scipy.stats import norm
    >>> from shufflelib.composition.profile import sampled_profile_pld
    >>> def gauss(e, mu=0.5):
    ...     return norm.cdf(-e / mu + mu / 2) - np.exp(e) * norm.cdf(-e / mu - mu / 2)
    >>> ld = sampled_profile_pld(gauss, 1e-3)
    >>> bool(gauss(0.3) <= ld.delta(0.3) <= gauss(0.3) * 1.01)
    True
    """
    step = check_positive("step", step)
    if end is None:
        end = profile_end(profile, eps_max)
    end = max(float(end), step)
    spacing = step * max(1, math.ceil(end / (points * step)))
    grid = spacing * np.arange(math.ceil(end / spacing) + 1)
    if eps_max is not None:
        grid = grid[grid < eps_max]
    values = np.clip(np.asarray(profile(grid), dtype=float), 0.0, 1.0)
    if np.any(np.isnan(values)):
        raise RuntimeError("the profile evaluated to NaN")
    return profile_pld(grid, values, step, eps_max=eps_max)


def inverse_profile_pld(
    epsilon: Callable[[float], float],
    step: float,
    *,
    eps_max: float | None = None,
    points: int = PROFILE_POINTS,
) -> LossDistribution:
    """:func:`profile_pld` of a bound given as ε(δ) (a closed form), sampled on a δ grid.

    ``points`` values of δ, geometric from :data:`PROFILE_TAIL` to 1/2; each gives the
    guarantee ``(epsilon(δ), δ)`` (``inf`` where the theorem does not apply: left out).

    Examples
    --------
    >>> import math
    >>> from shufflelib.composition.profile import inverse_profile_pld
    >>> def gauss(d):  # the classical Gaussian-mechanism bound, sigma = 20
    ...     return math.sqrt(2 * math.log(1.25 / d)) / 20
    >>> ld = inverse_profile_pld(gauss, 1e-4, eps_max=1.0)
    >>> gauss(1e-6) <= ld.epsilon(1e-6) <= gauss(1e-6) * 1.03  # within the δ grid's spacing
    True
    """
    step = check_positive("step", step)
    deltas = np.geomspace(PROFILE_TAIL, 0.5, points)
    eps = np.array([epsilon(float(d)) for d in deltas])
    keep = np.isfinite(eps) & (eps >= 0.0)
    if eps_max is not None:
        keep &= eps < eps_max
    if not keep.any():
        raise NotApplicableError("not applicable: epsilon(delta) is infinite on the whole delta grid (1e-30 to 1/2)")
    return profile_pld(eps[keep], deltas[keep], step, eps_max=eps_max)
