r"""Populations of set-valued records: who holds which ``s`` of the ``d`` items.

A population is a distribution over sets of exactly ``s`` distinct items. Its item frequency
vector ``w_j = Pr[item j in the set]`` sums to ``s``; the estimation target of Algorithm 2.
Two kinds:

* :class:`UniformSets` — every ``s``-subset equally likely (the paper's synthetic data,
  ``d = 128``); the holder counts of ``n`` users are drawn exactly, item by item
  (``O(d s)`` binomial draws per run, whatever ``n``).
* :class:`CatalogueSets` — a finite catalogue of sets with weights; users are drawn from it
  (a multinomial over the catalogue). :func:`msnbc_like` builds the catalogue used in place
  of the MSNBC click-stream data, which cannot be downloaded here: ``d = 17`` page
  categories with Zipf-like popularity, users visiting about two categories on average,
  padded or subsampled to exactly ``s`` items.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from .._docstrings import fill_doc
from .._validation import SIZE_MAX, check_array, check_generator, check_in_range, check_int

__all__ = ["SetPopulation", "UniformSets", "CatalogueSets", "msnbc_like"]


class SetPopulation(ABC):
    """A distribution over ``s``-subsets of ``d`` items.

    Attributes
    ----------
    d, s
        Number of items and items per user.

    Examples
    --------
    >>> import numpy as np
    >>> pop: SetPopulation = UniformSets(8, 2)
    >>> pop.sample_holders(100, np.random.default_rng(0)).sum(), pop.sum_sq
    (np.int64(200), 0.5)
    """

    d: int
    s: int

    @property
    @abstractmethod
    def frequencies(self) -> np.ndarray:
        """The item frequencies ``w`` (sum ``s``)."""

    @property
    def sum_sq(self) -> float:
        """``Σ_j w_j^2`` (enters the exact MSE)."""
        return float(np.sum(self.frequencies**2))

    @abstractmethod
    def sample_sets(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``(n, s)`` array of item ids: the sets of ``n`` i.i.d. users."""

    @abstractmethod
    def sample_holders(self, n: int, rng: np.random.Generator, size: int = 1) -> np.ndarray:
        """``(size, d)`` holder counts: how many of ``n`` i.i.d. users hold each item."""

    def sample_level_holders(self, level_counts: object, rng: np.random.Generator, size: int = 1) -> np.ndarray:
        """``(size, K, d)`` holder counts per level, users i.i.d. and independent of their level.

        Examples
        --------
        >>> import numpy as np
        >>> h = UniformSets(10, 3).sample_level_holders([5, 7], np.random.default_rng(0), size=2)
        >>> h.shape, h.sum(axis=2).tolist()
        ((2, 2, 10), [[15, 21], [15, 21]])
        """
        nk = check_array("level_counts", level_counts, ndim=1, low=0, integral=True).astype(np.int64)
        size = check_int("size", size, minimum=1, maximum=SIZE_MAX)
        return np.stack([self.sample_holders(int(k), rng, size) for k in nk], axis=1)


@fill_doc
class UniformSets(SetPopulation):
    """Every ``s``-subset of ``d`` items equally likely: ``w_j = s/d``.

    Parameters
    ----------
    %(d)s
    s
        Items per user, an integer in ``[1, d]``.

    Examples
    --------
    >>> import numpy as np
    >>> pop = UniformSets(128, 4)
    >>> float(pop.frequencies[0]), pop.sample_sets(3, np.random.default_rng(0)).shape
    (0.03125, (3, 4))
    """

    def __init__(self, d: int, s: int) -> None:
        self.d = check_int("d", d, minimum=2)
        self.s = check_int("s", s, minimum=1, maximum=self.d)

    @property
    def frequencies(self) -> np.ndarray:
        return np.full(self.d, self.s / self.d)

    def sample_sets(self, n: int, rng: np.random.Generator) -> np.ndarray:
        n = check_int("n", n, minimum=0)
        rng = check_generator("rng", rng)
        keys = rng.random((n, self.d))
        return np.argpartition(keys, self.s - 1, axis=1)[:, : self.s].astype(np.int64)

    def sample_holders(self, n: int, rng: np.random.Generator, size: int = 1) -> np.ndarray:
        """Exact draw, item by item: a user with ``r`` items left among ``d − j`` remaining
        items holds item ``j`` with probability ``r/(d − j)``.

        Examples
        --------
        >>> import numpy as np
        >>> h = UniformSets(6, 2).sample_holders(100, np.random.default_rng(0), size=3)
        >>> h.shape, h.sum(axis=1).tolist()
        ((3, 6), [200, 200, 200])
        """
        n = check_int("n", n, minimum=0)
        rng = check_generator("rng", rng)
        size = check_int("size", size, minimum=1, maximum=SIZE_MAX)
        left = np.zeros((size, self.s + 1), dtype=np.int64)  # left[:, r]: users with r items to place
        left[:, self.s] = n
        out = np.zeros((size, self.d), dtype=np.int64)
        r = np.arange(self.s + 1)
        for j in range(self.d):
            take = rng.binomial(left, np.minimum(r / (self.d - j), 1.0))
            out[:, j] = take.sum(axis=1)
            left = left - take
            left[:, :-1] += take[:, 1:]
        return out


@fill_doc
class CatalogueSets(SetPopulation):
    """A population given by a catalogue of sets and their probabilities.

    Parameters
    ----------
    sets
        ``(U, s)`` array of item ids in ``0..d − 1``, distinct within each row.
    %(d)s
    weights
        Probability of each set (default: uniform over the catalogue).

    Examples
    --------
    >>> import numpy as np
    >>> pop = CatalogueSets([[0, 1], [1, 2]], 3, weights=[0.25, 0.75])
    >>> pop.frequencies.tolist()
    [0.25, 1.0, 0.75]
    """

    def __init__(self, sets: object, d: int, weights: object | None = None) -> None:
        self.d = check_int("d", d, minimum=2)
        arr = check_array("sets", sets, ndim=2, low=0, high=self.d - 1, integral=True).astype(np.int64)
        if arr.shape[0] == 0:
            raise ValueError("sets must hold at least one set")
        if np.any(np.diff(np.sort(arr, axis=1), axis=1) == 0):
            raise ValueError("sets must hold distinct items within each row")
        self.s = arr.shape[1]
        self.sets = arr
        if weights is None:
            w = np.full(arr.shape[0], 1.0 / arr.shape[0])
        else:
            w = check_array("weights", weights, ndim=1, low=0.0)
            if w.size != arr.shape[0] or not np.isclose(w.sum(), 1.0, atol=1e-9):
                raise ValueError(f"weights must have one entry per set ({arr.shape[0]}) and sum to 1")
            w = w / w.sum()
        self.weights = w
        self.indicator = np.zeros((arr.shape[0], self.d))
        np.put_along_axis(self.indicator, arr, 1.0, axis=1)

    @property
    def frequencies(self) -> np.ndarray:
        return self.weights @ self.indicator

    def sample_sets(self, n: int, rng: np.random.Generator) -> np.ndarray:
        n = check_int("n", n, minimum=0)
        rng = check_generator("rng", rng)
        return self.sets[rng.choice(self.sets.shape[0], size=n, p=self.weights)]

    def sample_holders(self, n: int, rng: np.random.Generator, size: int = 1) -> np.ndarray:
        """Draw the users (a multinomial over the catalogue, or, for small ``n``, one index per
        user) and count the holders of each item.

        Examples
        --------
        >>> import numpy as np
        >>> pop = CatalogueSets([[0, 1], [1, 2]], 3)
        >>> pop.sample_holders(10, np.random.default_rng(0), size=2).sum(axis=1).tolist()
        [20, 20]
        """
        n = check_int("n", n, minimum=0)
        rng = check_generator("rng", rng)
        size = check_int("size", size, minimum=1, maximum=SIZE_MAX)
        catalogue = self.sets.shape[0]
        if n >= catalogue // 4:
            picks = rng.multinomial(n, self.weights, size=size)
            return np.rint(picks @ self.indicator).astype(np.int64)
        out = np.empty((size, self.d), dtype=np.int64)
        chunk = max(1, 2_000_000 // max(1, n * self.s))
        for start in range(0, size, chunk):
            runs = min(chunk, size - start)
            idx = rng.choice(catalogue, size=(runs, n), p=self.weights)
            flat = self.sets[idx] + self.d * np.arange(runs)[:, None, None]
            out[start : start + runs] = np.bincount(flat.ravel(), minlength=runs * self.d).reshape(runs, self.d)
        return out


def msnbc_like(
    rng: np.random.Generator,
    *,
    d: int = 17,
    s: int = 4,
    size: int = 50_000,
    zipf: float = 1.0,
    mean_visits: float = 2.0,
) -> CatalogueSets:
    """A synthetic population with the shape of the MSNBC data used by the paper.

    The UCI "MSNBC.com anonymous web data" (page categories visited by each user) cannot be
    downloaded here. This stands in for it: ``d = 17`` categories whose popularity follows a
    Zipf law of exponent ``zipf``; each user visits ``1 + Geometric`` distinct categories
    (mean ``mean_visits``, at most ``d``), drawn by popularity without replacement; the set is
    then padded with further categories drawn by popularity, or subsampled uniformly, to
    exactly ``s`` items (the paper pads or selects, without details).

    Parameters
    ----------
    rng
        Random generator for building the catalogue.
    d, s
        Categories and items per user.
    size
        Number of users in the catalogue (the population is uniform over them).
    zipf
        Exponent of the popularity law, >= 0.
    mean_visits
        Mean number of distinct categories visited, >= 1.

    Returns
    -------
    CatalogueSets

    Examples
    --------
    >>> import numpy as np
    >>> pop = msnbc_like(np.random.default_rng(0), size=2_000)
    >>> pop.d, pop.s, round(float(pop.frequencies.sum()), 9)
    (17, 4, 4.0)
    """
    rng = check_generator("rng", rng)
    d = check_int("d", d, minimum=2)
    s = check_int("s", s, minimum=1, maximum=d)
    size = check_int("size", size, minimum=1, maximum=SIZE_MAX)
    zipf = check_in_range("zipf", zipf, 0.0, 10.0)
    mean_visits = check_in_range("mean_visits", mean_visits, 1.0, float(d))
    popularity = 1.0 / np.arange(1, d + 1) ** zipf
    popularity /= popularity.sum()
    visits = np.minimum(rng.geometric(1.0 / mean_visits, size=size), d)
    # Weighted sampling without replacement: order the items by exponential race times.
    race = rng.exponential(size=(size, d)) / popularity[None, :]
    order = np.argsort(race, axis=1)
    sets = np.empty((size, s), dtype=np.int64)
    many = visits > s
    # Users with at most s visits: their visits plus the next most popular draws (padding).
    sets[~many] = order[~many, :s]
    # Users with more than s visits: s of their visited categories, uniformly.
    if many.any():
        rows = np.flatnonzero(many)
        pick = rng.random((rows.size, d))
        pick[np.arange(d)[None, :] >= visits[rows][:, None]] = np.inf
        chosen = np.argsort(pick, axis=1)[:, :s]
        sets[rows] = np.take_along_axis(order[rows], chosen, axis=1)
    return CatalogueSets(sets, d)
