r"""Monte Carlo runs of the paper's experiments, through sufficient statistics.

Each run draws a fresh dataset of ``n`` i.i.d. users from a population (levels fixed by the
mix, data independent of the level), runs the protocol through
:func:`~shufflelib.segmented.protocol.simulate_counts` and records the squared error
``Σ_j (Ŵ_j − w_j)^2`` against the population frequencies ``w``. The mean over runs estimates
the MSE (compare :func:`~shufflelib.segmented.protocol.expected_mse`); its standard error gives
the error bars.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_array, check_generator, check_int
from .populations import SetPopulation
from .protocol import SegmentedParameters, estimate_frequencies, simulate_counts

__all__ = ["LEVEL_MIXES", "level_counts_for", "segmented_errors", "separate_errors", "mean_and_error"]

#: The paper's level mixes (fractions of users at ``E = (0.5, 1, 2)``).
LEVEL_MIXES = {"S1": (0.25, 0.5, 0.25), "S2": (0.5, 0.25, 0.25), "S3": (0.25, 0.25, 0.5)}


def level_counts_for(n: int, mix: str | tuple[float, ...]) -> np.ndarray:
    """Users per level for a mix name (``"S1"``, ``"S2"``, ``"S3"``) or fractions.

    Examples
    --------
    >>> level_counts_for(5000, "S1").tolist()
    [1250, 2500, 1250]
    """
    n = check_int("n", n, minimum=1)
    fractions = LEVEL_MIXES[mix] if isinstance(mix, str) and mix in LEVEL_MIXES else mix
    if isinstance(fractions, str):
        raise ValueError(f"mix must be one of {', '.join(LEVEL_MIXES)} or fractions, got {mix!r}")
    frac = check_array("mix", fractions, ndim=1, low=0.0)
    if not np.isclose(frac.sum(), 1.0):
        raise ValueError(f"mix fractions must sum to 1, got {frac.sum()!r}")
    counts = np.floor(frac * n).astype(np.int64)
    counts[np.argmax(frac)] += n - counts.sum()
    return counts


def segmented_errors(
    population: SetPopulation,
    level_counts: object,
    params: SegmentedParameters,
    rng: np.random.Generator,
    runs: int,
    *,
    holders: object | None = None,
) -> np.ndarray:
    """Squared errors of Algorithm 2 over ``runs`` independent datasets and protocol runs.

    ``holders`` (shape ``(runs, K, d)``, from
    :meth:`~shufflelib.segmented.populations.SetPopulation.sample_level_holders`) reuses given
    datasets, e.g. the same ones for several values of ``m``.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.segmented.populations import UniformSets
    >>> err = segmented_errors(UniformSets(17, 4), [100, 100], SegmentedParameters(1.0, (0.5, 1.0)),
    ...                        np.random.default_rng(0), 5)
    >>> err.shape
    (5,)
    """
    if not isinstance(population, SetPopulation):
        raise ValueError(f"population must be a SetPopulation, got {type(population).__name__}")
    nk = check_array("level_counts", level_counts, ndim=1, low=0, integral=True).astype(np.int64)
    rng = check_generator("rng", rng)
    runs = check_int("runs", runs, minimum=1)
    n = int(nk.sum())
    if holders is None:
        holders = population.sample_level_holders(nk, rng, size=runs)
    else:
        holders = check_array("holders", holders, ndim=3, low=0, integral=True).astype(np.int64)
        if holders.shape != (runs, nk.size, population.d):
            raise ValueError(f"holders must have shape (runs, K, d) = ({runs}, {nk.size}, {population.d})")
    counts = simulate_counts(holders, n, params, rng)
    est = estimate_frequencies(counts, n, params, nk)
    return np.sum((est - population.frequencies[None, :]) ** 2, axis=1)


def separate_errors(
    population: SetPopulation,
    level_counts: object,
    segment_params: list[SegmentedParameters],
    weights: object,
    rng: np.random.Generator,
    runs: int,
) -> np.ndarray:
    """Squared errors of SepMM-type baselines: one single-level run per segment, estimates averaged.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.segmented.populations import UniformSets
    >>> seg = [SegmentedParameters(2.0, (1.0,)), SegmentedParameters(1.0, (1.0,))]
    >>> separate_errors(UniformSets(17, 4), [100, 100], seg, [0.5, 0.5], np.random.default_rng(0), 3).shape
    (3,)
    """
    nk = check_array("level_counts", level_counts, ndim=1, low=1, integral=True).astype(np.int64)
    omega = check_array("weights", weights, ndim=1, low=0.0)
    if len(segment_params) != nk.size or omega.size != nk.size:
        raise ValueError("segment_params and weights must have one entry per segment")
    rng = check_generator("rng", rng)
    runs = check_int("runs", runs, minimum=1)
    total = np.zeros((runs, population.d))
    for count, params, w in zip(nk, segment_params, omega, strict=False):
        holders = population.sample_holders(int(count), rng, size=runs)[:, None, :]
        counts = simulate_counts(holders, int(count), params, rng)
        total += w * estimate_frequencies(counts, int(count), params, [int(count)])
    return np.sum((total - population.frequencies[None, :]) ** 2, axis=1)


def mean_and_error(values: object) -> tuple[float, float]:
    """Mean and standard error of Monte Carlo values.

    Examples
    --------
    >>> mean_and_error([1.0, 3.0])
    (2.0, 1.0)
    """
    arr = check_array("values", values, ndim=1)
    if arr.size < 2:
        raise ValueError(f"values must hold at least 2 samples, got {arr.size}")
    return float(arr.mean()), float(arr.std(ddof=1) / np.sqrt(arr.size))
