r"""A personalized population: every user has her own local privacy level.

In personalized local differential privacy (PLDP) user ``i`` runs her local
randomizer with her own parameters :math:`(\varepsilon_i, \delta_i)`. Only the
*multiset* of these parameters matters to the privacy of the shuffled
protocol, so :class:`Population` stores it compactly as distinct **levels**
with the **number of users** at each: a million users at a few hundred levels
cost a few kilobytes, and every bound of ``shufflelib.personalized`` works
level by level.

The four settings of Table 1 of Liu et al. (2024) are available through
:func:`table1_population`; :func:`uniform_population`,
:func:`gaussian_population` and :func:`two_level_population` build the
personalizations of the chapter's widget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._docstrings import fill_doc
from .._validation import check_array, check_choice, check_generator, check_in_range, check_int, check_positive

__all__ = [
    "Population",
    "TABLE1",
    "table1_population",
    "uniform_population",
    "gaussian_population",
    "two_level_population",
]

#: Table 1 of Liu et al. (2024), as a map name -> (law, parameters, clip range).
TABLE1: dict[str, tuple[str, tuple[float, float], tuple[float, float]]] = {
    "Uniform1": ("uniform", (0.05, 1.0), (0.05, 1.0)),
    "Gauss1": ("gaussian", (0.8, 0.5), (0.05, 1.0)),
    "Uniform2": ("uniform", (0.5, 2.0), (0.5, 2.0)),
    "Gauss2": ("gaussian", (1.5, 0.5), (0.5, 2.0)),
}

#: Default resolution of drawn privacy levels (each draw is rounded *down* to it).
RESOLUTION = 1e-3


@dataclass(frozen=True)
class Population:
    """Users grouped by privacy level: ``counts[l]`` users run ``(eps[l], delta[l])``-LDP.

    Parameters
    ----------
    eps
        Distinct local ε levels (finite, > 0), 1-D.
    counts
        Number of users at each level (integers >= 1), same length.
    delta
        Local δ of each level, in ``[0, 1)`` (a scalar applies to every level;
        default 0, pure LDP).

    Notes
    -----
    Levels are sorted by ε (then δ) and equal ``(eps, delta)`` pairs are
    merged, so two populations with the same multiset compare equal.

    Examples
    --------
    >>> pop = Population([1.0, 0.5, 1.0], [10, 5, 2])
    >>> pop.eps.tolist(), pop.counts.tolist(), pop.n
    ([0.5, 1.0], [5, 12], 17)
    >>> pop.max_level
    1
    """

    eps: np.ndarray
    counts: np.ndarray
    delta: np.ndarray

    def __init__(self, eps: object, counts: object, delta: object = 0.0) -> None:
        e = check_array("eps", eps, ndim=1)
        if e.size == 0:
            raise ValueError("eps must contain at least one level")
        if np.any(e <= 0):
            raise ValueError(f"eps must have every entry > 0, got min {float(e.min())!r}")
        c = check_array("counts", counts, ndim=1, low=1, integral=True)
        if c.size != e.size:
            raise ValueError(f"counts must have one entry per level ({e.size}), got {c.size}")
        d = check_array("delta", delta, low=0.0)
        if d.ndim == 0:
            d = np.full(e.size, float(d))
        if d.ndim != 1 or d.size != e.size:
            raise ValueError(f"delta must be a scalar or have one entry per level ({e.size}), got shape {d.shape}")
        if np.any(d >= 1):
            raise ValueError(f"delta must have every entry in [0, 1), got max {float(d.max())!r}")
        keys = np.stack([e, d], axis=1)
        uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
        merged = np.zeros(uniq.shape[0], dtype=np.int64)
        np.add.at(merged, inverse.ravel(), c.astype(np.int64))
        object.__setattr__(self, "eps", uniq[:, 0].copy())
        object.__setattr__(self, "delta", uniq[:, 1].copy())
        object.__setattr__(self, "counts", merged)
        for arr in (self.eps, self.delta, self.counts):
            arr.setflags(write=False)

    # ------------------------------------------------------------ views
    @property
    def n(self) -> int:
        """Total number of users."""
        return int(self.counts.sum())

    @property
    def levels(self) -> int:
        """Number of distinct ``(eps, delta)`` levels."""
        return int(self.eps.size)

    @property
    def max_level(self) -> int:
        """Index of the level with the largest ε (on ties, with the largest δ)."""
        return int(self.eps.size - 1)

    @property
    def eps_max(self) -> float:
        """The largest local ε."""
        return float(self.eps[-1])

    @property
    def delta_max(self) -> float:
        """The largest local δ."""
        return float(self.delta.max())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Population):
            return NotImplemented
        return (
            self.eps.shape == other.eps.shape
            and bool(np.all(self.eps == other.eps))
            and bool(np.all(self.delta == other.delta))
            and bool(np.all(self.counts == other.counts))
        )

    def __hash__(self) -> int:
        return hash((self.eps.tobytes(), self.delta.tobytes(), self.counts.tobytes()))

    def __repr__(self) -> str:
        return (
            f"Population(n={self.n}, levels={self.levels}, eps in [{self.eps[0]:g}, {self.eps_max:g}], "
            f"delta max {self.delta_max:g})"
        )

    # ------------------------------------------------------------ constructors
    @classmethod
    def from_values(cls, eps: object, delta: object = 0.0, *, resolution: float | None = None) -> Population:
        """Group per-user values into levels.

        Parameters
        ----------
        eps
            One local ε per user (finite, > 0).
        delta
            One local δ per user, or a scalar for all.
        resolution
            If given, each ε is first rounded **down** to a multiple of
            ``resolution`` (never below ``resolution``): every user then gets at
            least the privacy she asked for, and the number of levels is at
            most ``max(eps) / resolution``.

        Examples
        --------
        >>> Population.from_values([0.31, 0.3, 0.52], resolution=0.1).eps.tolist()
        [0.3, 0.5]
        """
        e = check_array("eps", eps, ndim=1)
        if e.size == 0 or np.any(e <= 0):
            raise ValueError("eps must be a non-empty array of numbers > 0")
        d = check_array("delta", delta, low=0.0)
        if d.ndim == 0:
            d = np.full(e.size, float(d))
        if d.shape != e.shape:
            raise ValueError(f"delta must be a scalar or have one entry per user ({e.size}), got shape {d.shape}")
        if resolution is not None:
            res = check_positive("resolution", resolution)
            e = np.maximum(np.floor(e / res * (1 + 1e-12)) * res, res)
            e = np.round(np.round(e / res) * res, 12)  # clean multiples: 0.3, not 0.30000000000000004
        if np.all(d == d[0]):  # one local delta for everybody: group by eps alone (fast)
            levels, counts = np.unique(e, return_counts=True)
            return cls(levels, counts, float(d[0]))
        keys, counts = np.unique(np.stack([e, d], axis=1), axis=0, return_counts=True)
        return cls(keys[:, 0], counts, keys[:, 1])

    def without_one(self, level: int) -> Population | None:
        """The population with one user of ``level`` removed (``None`` if nobody is left).

        Examples
        --------
        >>> Population([0.5, 1.0], [3, 1]).without_one(1).eps.tolist()
        [0.5]
        """
        level = check_int("level", level, minimum=0, maximum=self.levels - 1)
        counts = self.counts.copy()
        counts[level] -= 1
        keep = counts > 0
        if not keep.any():
            return None
        return Population(self.eps[keep], counts[keep], self.delta[keep])

    def scaled(self, factor: float) -> Population:
        """Every ε multiplied by ``factor`` (> 0), δ unchanged.

        Examples
        --------
        >>> Population([0.5, 1.0], [3, 1]).scaled(2.0).eps.tolist()
        [1.0, 2.0]
        """
        factor = check_positive("factor", factor)
        return Population(self.eps * factor, self.counts, self.delta)

    def with_delta(self, delta: float) -> Population:
        """The same ε levels with local δ set to ``delta`` for every user.

        Examples
        --------
        >>> Population([0.5, 1.0], [3, 1]).with_delta(1e-10).delta_max
        1e-10
        """
        delta = check_in_range("delta", delta, 0.0, 1.0, closed_high=False)
        return Population(self.eps, self.counts, delta)


def _draw_population(
    law: str, params: tuple[float, float], clip: tuple[float, float], n: int, seed: int, resolution: float
) -> Population:
    rng = check_generator("rng", np.random.default_rng(seed))
    if law == "uniform":
        values = rng.uniform(params[0], params[1], size=n)
    else:
        values = rng.normal(params[0], params[1], size=n)
    values = np.clip(values, clip[0], clip[1])
    return Population.from_values(values, resolution=resolution)


@fill_doc
def table1_population(
    name: str, n: int, *, seed: int = 0, delta: float = 0.0, resolution: float = RESOLUTION
) -> Population:
    """One of the four personalization settings of Table 1 of Liu et al. (2024).

    ``Uniform1``: ε_i ~ U(0.05, 1); ``Gauss1``: N(0.8, 0.5²) clipped to
    [0.05, 1]; ``Uniform2``: U(0.5, 2); ``Gauss2``: N(1.5, 0.5²) clipped to
    [0.5, 2] (0.5 read as the standard deviation; the paper does not say).
    The draws use ``numpy.random.default_rng(seed)`` and are rounded down to
    ``resolution``; δ_i = ``delta`` for every user (the paper: 0 for pure
    PLDP, 1e-10 for approximate PLDP).

    Parameters
    ----------
    name
        One of ``"Uniform1"``, ``"Gauss1"``, ``"Uniform2"``, ``"Gauss2"``.
    %(n)s
    seed
        Seed of the random draw.
    delta
        Local δ of every user, in [0, 1).
    resolution
        Resolution of the levels (> 0).

    Examples
    --------
    >>> pop = table1_population("Gauss1", 10_000)
    >>> pop.eps_max, pop.levels <= 951
    (1.0, True)
    """
    check_choice("name", name, TABLE1)
    n = check_int("n", n, minimum=2)
    delta = check_in_range("delta", delta, 0.0, 1.0, closed_high=False)
    law, params, clip = TABLE1[name]
    pop = _draw_population(law, params, clip, n, check_int("seed", seed, minimum=0), resolution)
    return pop.with_delta(delta) if delta > 0 else pop


def uniform_population(low: float, high: float, n: int, *, seed: int = 0, resolution: float = RESOLUTION) -> Population:
    """``n`` users with ε_i ~ U(low, high), rounded down to ``resolution``.

    Examples
    --------
    >>> bool(uniform_population(0.5, 2.0, 1_000).eps.min() >= 0.5)
    True
    """
    low = check_positive("low", low)
    high = check_positive("high", high)
    if not high >= low:
        raise ValueError(f"high must be >= low, got low={low!r}, high={high!r}")
    n = check_int("n", n, minimum=2)
    if high == low:
        return Population([low], [n])
    return _draw_population("uniform", (low, high), (low, high), n, check_int("seed", seed, minimum=0), resolution)


def gaussian_population(
    mean: float, sd: float, clip: tuple[float, float], n: int, *, seed: int = 0, resolution: float = RESOLUTION
) -> Population:
    """``n`` users with ε_i ~ N(mean, sd²) clipped to ``clip``, rounded down to ``resolution``.

    Examples
    --------
    >>> gaussian_population(1.5, 0.5, (0.5, 2.0), 1_000).eps_max
    2.0
    """
    mean = check_positive("mean", mean)
    sd = check_positive("sd", sd)
    lo = check_positive("clip[0]", clip[0])
    hi = check_positive("clip[1]", clip[1])
    if not hi >= lo:
        raise ValueError(f"clip must be an interval (low <= high), got {clip!r}")
    n = check_int("n", n, minimum=2)
    return _draw_population("gaussian", (mean, sd), (lo, hi), n, check_int("seed", seed, minimum=0), resolution)


def two_level_population(eps_low: float, eps_high: float, fraction_high: float, n: int) -> Population:
    """``n`` users: a fraction ``fraction_high`` at ``eps_high``, the rest at ``eps_low``.

    At least one user sits at each level (the counts are rounded to keep both).

    Examples
    --------
    >>> pop = two_level_population(0.5, 2.0, 0.1, 1_000)
    >>> pop.eps.tolist(), pop.counts.tolist()
    ([0.5, 2.0], [900, 100])
    """
    eps_low = check_positive("eps_low", eps_low)
    eps_high = check_positive("eps_high", eps_high)
    fraction_high = check_in_range("fraction_high", fraction_high, 0.0, 1.0)
    n = check_int("n", n, minimum=2)
    high = min(max(int(math.floor(fraction_high * n + 0.5)), 1), n - 1)
    return Population([eps_low, eps_high], [n - high, high])
