r"""Choosing the number of dummy reports (Section V-C of Wang et al.).

More dummies mean more clones, hence a larger local budget ``A(k)`` for the
same central target; but every dummy report adds its own noise to the
estimate. For binary randomized response the privacy-noise part of the
expected squared error is

.. math::

   \frac{2 e^{A}}{(e^{A} - 1)^2}\Big(E[1/N] + E[d(N)/N^2]\Big),

with ``d(N) = k`` for non-adaptive dummies (eq. (6)) and
``d(N) = max(k − N, 0)`` when padding to ``k`` messages (eq. (7), where the
paper prints a spurious extra factor ``k``). :func:`optimal_dummies` minimises
it over ``k`` for any bound (a closed-form theorem or the tight bound).

Examples
--------
>>> from shufflelib.population.laws import BinomialPopulation
>>> from shufflelib.population.bounds import BinomialTheorem
>>> law = BinomialPopulation(5001, 0.2)
>>> choice = optimal_dummies(lambda k: BinomialTheorem(law, k), law, 0.05, 1e-5)
>>> choice.dummies > 0, bool(choice.objective < choice.objectives[0])
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._validation import check_array, check_positive, check_probability
from .bounds import PopulationBound
from .laws import TAIL, PopulationLaw

__all__ = ["DummyChoice", "noise_objective", "optimal_dummies"]

#: Points of the coarse grid and of the refinement around its best point.
_COARSE, _FINE = 24, 12


@dataclass(frozen=True)
class DummyChoice:
    """The outcome of :func:`optimal_dummies`.

    Attributes
    ----------
    dummies
        The best ``k`` found.
    eps0
        Its local budget ``A(k)``.
    objective
        Its privacy-noise term (eq. (6) or (7)).
    grid, eps0s, objectives
        Every ``k`` tried (sorted), its ``A(k)`` and its objective.

    Examples
    --------
    >>> from shufflelib.population.laws import BinomialPopulation
    >>> from shufflelib.population.bounds import BinomialTheorem
    >>> law = BinomialPopulation(5001, 0.2)
    >>> choice = optimal_dummies(lambda k: BinomialTheorem(law, k), law, 0.05, 1e-5, grid=[0, 1000, 2000, 4000])
    >>> choice.dummies, round(choice.eps0, 4), round(choice.objective, 4)
    (2000, 0.3768, 0.0418)
    >>> choice.grid.tolist(), choice.eps0s.round(3).tolist()  # A(k) grows with k
    ([0, 1000, 2000, 4000], [0.203, 0.304, 0.377, 0.484])
    """

    dummies: int
    eps0: float
    objective: float
    grid: np.ndarray
    eps0s: np.ndarray
    objectives: np.ndarray


def _moments(law: PopulationLaw) -> tuple[np.ndarray, np.ndarray]:
    values, probs, _ = law.support(TAIL)
    return values + 1.0, probs / probs.sum()


def noise_objective(eps0: object, dummies: object, law: PopulationLaw, adaptive: bool = False) -> np.ndarray:
    """The privacy-noise term of the expected squared error, vectorized over ``eps0`` and ``dummies``.

    Examples
    --------
    >>> from shufflelib.population.laws import BinomialPopulation
    >>> law = BinomialPopulation(5001, 0.2)
    >>> round(float(noise_objective(0.203, 0, law)), 4)
    0.0484
    """
    if not isinstance(law, PopulationLaw):
        raise ValueError(f"law must be a PopulationLaw, got {type(law).__name__}")
    eps0 = check_array("eps0", eps0)
    if np.any(eps0 <= 0):
        raise ValueError("eps0 must have every entry > 0")
    k = check_array("dummies", dummies, low=0, integral=True)
    n, probs = _moments(law)
    k_col = np.atleast_1d(k).astype(float)[:, None]
    extra = np.maximum(k_col - n, 0.0) if adaptive else np.broadcast_to(k_col, (k_col.shape[0], n.size))
    spread = (probs * (1.0 / n + extra / n**2)).sum(axis=1).reshape(k.shape)
    scale = 2.0 * np.exp(eps0) / np.expm1(eps0) ** 2
    return scale * spread


def optimal_dummies(
    make_bound: Callable[[int], PopulationBound],
    law: PopulationLaw,
    eps: float,
    delta: float,
    adaptive: bool = False,
    grid: object | None = None,
) -> DummyChoice:
    """The number of dummies minimising the privacy-noise error for the target ``(eps, delta)``.

    Parameters
    ----------
    make_bound
        ``k -> bound`` for ``k`` dummies (e.g. ``lambda k: BinomialTheorem(law, k)``).
    law
        The law of ``N − 1`` (for the moments of ``1/N``).
    eps, delta
        The central target.
    adaptive
        Score with eq. (7) (padding to ``k``) instead of eq. (6).
    grid
        The ``k`` to try; by default 24 values from 0 to ``5 (E[N − 1] + 1)``,
        then 12 more between the neighbours of the best one.

    Returns
    -------
    DummyChoice

    Notes
    -----
    ``A(k)`` is :meth:`~shufflelib.population.bounds.PopulationBound.max_local_eps`; the search is a grid
    (the objective has no closed form), so the result is the best point tried.

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> from shufflelib.population.bounds import PoissonTheorem
    >>> law = PoissonPopulation(1000)
    >>> choice = optimal_dummies(lambda k: PoissonTheorem(law, k, form="chernoff"), law, 0.05, 1e-5)
    >>> choice.eps0 >= 0.05
    True
    """
    eps = check_positive("eps", eps)
    delta = check_probability("delta", delta)
    if not callable(make_bound):
        raise ValueError(f"make_bound must be callable (k -> PopulationBound), got {make_bound!r}")
    tried: dict[int, float] = {}

    def evaluate(ks: np.ndarray) -> None:
        for k in ks:
            if int(k) not in tried:
                tried[int(k)] = make_bound(int(k)).max_local_eps(eps, delta)

    if grid is None:
        top = int(np.ceil(5.0 * (law.mean + 1.0)))
        evaluate(np.unique(np.linspace(0, top, _COARSE).round().astype(np.int64)))
        ks = np.array(sorted(tried))
        best = int(np.argmin(noise_objective(np.array([tried[k] for k in ks]), ks, law, adaptive)))
        left, right = ks[max(best - 1, 0)], ks[min(best + 1, ks.size - 1)]
        evaluate(np.unique(np.linspace(left, right, _FINE).round().astype(np.int64)))
    else:
        evaluate(np.unique(check_array("grid", grid, ndim=1, low=0, integral=True).astype(np.int64)))
    ks = np.array(sorted(tried))
    eps0s = np.array([tried[k] for k in ks])
    objectives = noise_objective(eps0s, ks, law, adaptive)
    best = int(np.argmin(objectives))
    return DummyChoice(int(ks[best]), float(eps0s[best]), float(objectives[best]), ks, eps0s, objectives)
