"""Pure-DP real summation (Corollary 3), reconstructed bit by bit.

The paper's proof is one sentence: run the counting protocol "bit-by-bit with
an appropriate privacy budget split". We make it concrete:

* each user rounds ``x_i in [0, 1]`` to ``v_i / 2^L`` with ``v_i`` in
  ``{0, ..., 2^L}`` by *randomized* rounding (unbiased), ``L = ceil(log2(n) / 2)``
  (so that the rounding error of the sum, at most ``sqrt(n) 2^{-L} / 2 <= 1/2``
  in RMSE, is ``O(1)``), and writes ``v_i`` in ``L + 1`` bits ``b_{ij}``, level
  ``j = 0..L`` worth ``2^{L-j}``;
* level ``j`` runs the counting protocol on the bits ``b_{ij}`` with budget
  ``eps_j = eps c_j``, ``c_j = u / (L+1) + (1-u) 2^{-j/2} / sum_t 2^{-t/2}``
  (a uniform share ``u`` plus a geometric share), and tags its messages with
  ``j`` (``O(log log n)`` bits per message);
* the analyzer returns ``sum_j 2^{-j} * (sum of level j's messages)``.

Privacy: the levels are independent counting protocols and changing one user
changes at most all ``L + 1`` of its bits, so by basic composition the loss is at
most ``sum_j eps_j = eps`` (the rounding is a mixture over bit vectors, which
preserves the bound). Error: by Minkowski's inequality the RMSE is at most
``sqrt(n) 2^{-L} / 2 + sum_j 2^{-j} sqrt(MSE_j)``; the geometric share keeps
``sum_j 2^{-j} / eps_j = O(1 / eps)`` and the uniform share keeps every
``eps_j >= u eps / (L+1)``, hence ``O(log^3 n / eps)`` messages in all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._docstrings import fill_doc
from .._validation import check_array, check_generator, check_in_range, check_int, check_positive
from .counting import CountingParams, labelled_messages, labelled_sums, noisy_counts
from .rules import counting_params

__all__ = [
    "RealSumParams",
    "level_budgets",
    "real_sum_analyze",
    "real_sum_messages",
    "real_sum_params",
    "round_to_levels",
    "simulate_real_sum",
]


@fill_doc
def level_budgets(levels: int, eps: float, uniform_share: float = 0.5) -> np.ndarray:
    """Budgets ``eps_j = eps c_j`` of the levels ``j = 0..levels-1`` (they sum to ``eps``).

    Parameters
    ----------
    levels
        Number of levels ``L + 1``, an integer >= 1.
    %(eps_total)s
    uniform_share
        Share ``u`` in ``[0, 1]`` split uniformly; the rest decays like ``2^{-j/2}``.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> b = level_budgets(5, 1.0)
    >>> round(float(b.sum()), 12), bool(np.all(np.diff(b) < 0))
    (1.0, True)
    """
    levels = check_int("levels", levels, minimum=1)
    eps = check_positive("eps", eps)
    uniform_share = check_in_range("uniform_share", uniform_share, 0.0, 1.0)
    decay = 2.0 ** (-np.arange(levels) / 2.0)
    return eps * (uniform_share / levels + (1.0 - uniform_share) * decay / decay.sum())


@dataclass(frozen=True)
class RealSumParams:
    """Parameters of the bit-by-bit real-summation protocol.

    Attributes
    ----------
    eps
        Total privacy parameter.
    levels
        One :class:`~shufflelib.puredp.counting.CountingParams` per level ``j = 0..L``.

    Examples
    --------
    >>> params = real_sum_params(10**4, 1.0)
    >>> params.depth, params.rmse_bound(10**4) < 25, params.expected_messages(10**4, 0.3) > 0
    (7, True, True)
    """

    eps: float
    levels: tuple[CountingParams, ...]

    @property
    def depth(self) -> int:
        """The depth ``L`` of the levels: values are rounded to multiples of ``2^{-L}``."""
        return len(self.levels) - 1

    @fill_doc
    def expected_messages(self, n: int, x: float) -> float:
        """Expected number of messages sent by a user holding ``x`` (each ``O(log log n)`` bits).

        Parameters
        ----------
        %(n_users)s
        x
            The user's value, in ``[0, 1]``.
        """
        n = check_int("n", n, minimum=1)
        x = check_in_range("x", x, 0.0, 1.0)
        scaled = x * 2**self.depth
        low = math.floor(scaled)
        frac = scaled - low
        total = 0.0
        for j, level in enumerate(self.levels):
            shift = self.depth - j
            bit = (1.0 - frac) * ((low >> shift) & 1) + frac * (((low + 1) >> shift) & 1)
            base = level.expected_messages(n, 0)
            total += base + (1.0 - level.q) * bit
        return total

    @fill_doc
    def rmse_bound(self, n: int) -> float:
        """Upper bound on the RMSE over all datasets: ``sqrt(n) 2^{-L} / 2 + sum_j 2^{-j} sqrt(max MSE_j)``.

        Parameters
        ----------
        %(n_users)s
        """
        n = check_int("n", n, minimum=1)
        rounding = math.sqrt(n) * 2.0 ** (-self.depth) / 2.0
        return rounding + sum(2.0**-j * math.sqrt(level.worst_mse(n)) for j, level in enumerate(self.levels))


@fill_doc
def real_sum_params(
    n: int, eps: float, rho: float = 0.5, *, rule: str = "practical", uniform_share: float = 0.5
) -> RealSumParams:
    """Parameters of the real-summation protocol for ``n`` users.

    Parameters
    ----------
    %(n_users)s %(eps_total)s
    rho
        Each level's counting MSE is within ``(1 + rho)`` of ``Var DLap(eps_j)``.
    rule
        Parameter rule of each level (see :func:`~shufflelib.puredp.rules.counting_params`).
    uniform_share
        See :func:`level_budgets`.

    Returns
    -------
    RealSumParams

    Examples
    --------
    >>> params = real_sum_params(1000, 1.0)
    >>> params.depth, round(sum(level.eps for level in params.levels), 12)
    (5, 1.0)
    """
    n = check_int("n", n, minimum=1)
    depth = max(1, math.ceil(math.log2(n) / 2))  # rounding RMSE sqrt(n) 2^-L / 2 <= 1/2
    budgets = level_budgets(depth + 1, eps, uniform_share)
    levels = tuple(counting_params(n, float(b), rho, rule) for b in budgets)
    return RealSumParams(eps=check_positive("eps", eps), levels=levels)


def _check_values(x: object) -> np.ndarray:
    values = check_array("x", x, ndim=1, low=0.0, high=1.0)
    if values.size == 0:
        raise ValueError("x must hold at least one user's value, got an empty array")
    return values


def _check_real_params(params: object) -> RealSumParams:
    if not isinstance(params, RealSumParams):
        raise ValueError(f"params must be a RealSumParams, got {type(params).__name__}")
    return params


def _bits(v: np.ndarray, depth: int) -> np.ndarray:
    """Bits ``b_j`` (``j = 0..depth``, level ``j`` worth ``2^{depth-j}``) of integers ``v``."""
    shifts = depth - np.arange(depth + 1)
    return (v[..., None] >> shifts) & 1


@fill_doc
def round_to_levels(x: object, depth: int, rng: np.random.Generator) -> np.ndarray:
    """Randomized rounding of ``x in [0, 1]`` to ``v / 2^depth``, returned as bits.

    Parameters
    ----------
    x
        1-D array of values in ``[0, 1]``.
    depth
        ``L``, an integer >= 1.
    %(rng)s

    Returns
    -------
    numpy.ndarray
        ``int64`` array of shape ``(len(x), depth + 1)``: the bits of
        ``v = floor(2^L x) + Bernoulli(frac(2^L x))``, so ``E[v] = 2^L x``.

    Examples
    --------
    >>> import numpy as np
    >>> round_to_levels(np.array([1.0, 0.5]), 2, np.random.default_rng(0)).tolist()
    [[1, 0, 0], [0, 1, 0]]
    """
    values = _check_values(x)
    depth = check_int("depth", depth, minimum=1)
    rng = check_generator("rng", rng)
    scaled = values * 2.0**depth
    low = np.floor(scaled)
    v = (low + (rng.random(values.size) < scaled - low)).astype(np.int64)
    return _bits(v, depth)


@fill_doc
def real_sum_messages(x: object, params: RealSumParams, rng: np.random.Generator) -> np.ndarray:
    """Run every user's randomizer on every level and shuffle: the analyzer's input.

    Parameters
    ----------
    x
        1-D array of the users' values in ``[0, 1]``.
    %(params)s %(rng)s

    Returns
    -------
    numpy.ndarray
        ``int64`` array of shape ``(messages, 2)``: rows ``(level, sign)`` in uniformly random order.

    Examples
    --------
    >>> import numpy as np
    >>> params = real_sum_params(4, 2.0)
    >>> m = real_sum_messages(np.array([0.2, 0.9, 0.5, 0.0]), params, np.random.default_rng(0))
    >>> m.shape[1], set(np.unique(m[:, 1]).tolist()) <= {-1, 1}
    (2, True)
    """
    params = _check_real_params(params)
    bits = round_to_levels(x, params.depth, rng)
    columns = (bits[:, j] for j in range(params.depth + 1))
    return labelled_messages(columns, params.levels, rng, instead="simulate_real_sum")


@fill_doc
def real_sum_analyze(messages: object, params: RealSumParams) -> float:
    """The analyzer: ``sum_j 2^{-j}`` times the sum of the signs of the messages labelled with level ``j``.

    Parameters
    ----------
    %(labelled_messages)s
    %(params)s

    Returns
    -------
    float
        The estimate of ``sum_i x_i``.

    Examples
    --------
    >>> params = real_sum_params(4, 2.0)
    >>> params.depth
    1
    >>> real_sum_analyze([[0, 1], [1, 1], [1, -1], [1, 1]], params)
    1.5
    """
    params = _check_real_params(params)
    sums = labelled_sums(messages, params.depth + 1, "levels")
    return float(np.dot(sums, 2.0 ** -np.arange(params.depth + 1)))


@fill_doc
def simulate_real_sum(
    values: object, counts: object, params: RealSumParams, size: int, rng: np.random.Generator
) -> np.ndarray:
    """Estimates of ``size`` independent runs, through sufficient statistics.

    The dataset is given as distinct ``values`` held by ``counts`` users each.
    Per run: how many holders of each value round up (a binomial), hence the
    per-level counts ``C_j``; then per level the estimate ``C_j - Bin(C_j, q_j) + DLap(eps'_j)``.

    Parameters
    ----------
    values
        1-D array of distinct values in ``[0, 1]``.
    counts
        1-D array of the numbers of users holding each value (integers >= 0).
    %(params)s %(size)s %(rng)s

    Returns
    -------
    numpy.ndarray
        Float estimates of ``sum_i x_i``, shape ``(size,)``.

    Examples
    --------
    >>> import numpy as np
    >>> params = real_sum_params(1000, 1.0)
    >>> est = simulate_real_sum([0.25, 0.7], [600, 400], params, 2000, np.random.default_rng(0))
    >>> rmse = float(np.sqrt(np.mean((est - (0.25 * 600 + 0.7 * 400)) ** 2)))
    >>> rmse < params.rmse_bound(1000)
    True
    """
    vals = _check_values(values)
    cnt = check_array("counts", counts, ndim=1, low=0, integral=True).astype(np.int64)
    if cnt.shape != vals.shape:
        raise ValueError(f"counts must have the shape of values {vals.shape}, got {cnt.shape}")
    params = _check_real_params(params)
    size = check_int("size", size, minimum=1)
    rng = check_generator("rng", rng)
    depth = params.depth
    scaled = vals * 2.0**depth
    low = np.floor(scaled).astype(np.int64)
    frac = scaled - low
    up = rng.binomial(cnt, frac, size=(size, vals.size))  # holders rounding up, per run
    bits_low, bits_up = _bits(low, depth), _bits(np.minimum(low + 1, 2**depth), depth)
    level_counts = (cnt - up) @ bits_low + up @ bits_up  # (size, depth + 1)
    weights = 2.0 ** -np.arange(depth + 1)
    estimate = np.zeros(size)
    for j, level in enumerate(params.levels):
        estimate += weights[j] * noisy_counts(level_counts[:, j], level.q, level.eps_noise, rng)
    return estimate
