r"""Sigma-security of shuffled additive shares, exactly, on toy parameters (Definition 6).

Each of ``n`` users splits ``y_i in Z_q`` into ``m`` shares, uniform subject to
summing to ``y_i`` modulo ``q``; the shuffler releases the multiset of all
``n m`` shares. A protocol is ``sigma``-secure if, for any two input vectors
with the same sum modulo ``q``, the released multisets are within total
variation ``2^{-sigma}``. :func:`shares_tv` computes that distance by
enumerating every share pattern (``q^{n(m-1)}`` of them), which shows what
``sigma`` measures and how fast it grows with ``m``.

Examples
--------
>>> shares_tv([0, 0], [1, 6], q=7, m=1)  # one share each: the inputs themselves
1.0
>>> shares_tv([0, 0], [1, 6], q=7, m=2) < 1.0
True
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_array, check_int

__all__ = ["shares_tv", "MAX_PATTERNS"]

#: Largest number of share patterns :func:`shares_tv` enumerates.
MAX_PATTERNS = 2_000_000


def _released(inputs: np.ndarray, q: int, m: int) -> np.ndarray:
    """Every equally likely released multiset (sorted shares), one row per share pattern."""
    n = inputs.size
    digits = n * (m - 1)
    index = np.arange(q**digits, dtype=np.int64)[:, None]
    free = (index // q ** np.arange(digits, dtype=np.int64) % q).reshape(-1, n, m - 1)  # base-q digits
    last = np.mod(inputs[None, :] - free.sum(axis=2), q)[:, :, None]
    return np.sort(np.concatenate([free, last], axis=2).reshape(free.shape[0], n * m), axis=1)


def shares_tv(inputs_a: object, inputs_b: object, q: int, m: int) -> float:
    """Total variation between the shuffled shares of two input vectors with the same sum mod ``q``.

    Parameters
    ----------
    inputs_a, inputs_b
        Integer inputs in ``[0, q)``, one per user (equal lengths, equal sums modulo ``q``).
    q
        Group order (an integer >= 2).
    m
        Shares per user (an integer >= 1).

    Returns
    -------
    float
        The exact total variation; ``sigma = −log2(tv)``.

    Examples
    --------
    >>> round(shares_tv([0, 0, 0], [1, 2, 4], q=7, m=2), 4)
    0.8717
    """
    q = check_int("q", q, minimum=2)
    m = check_int("m", m, minimum=1)
    a = check_array("inputs_a", inputs_a, ndim=1, low=0, high=q - 1, integral=True).astype(np.int64)
    b = check_array("inputs_b", inputs_b, ndim=1, low=0, high=q - 1, integral=True).astype(np.int64)
    if a.size != b.size or a.size == 0:
        raise ValueError(f"inputs_a and inputs_b must be non-empty and of equal length, got {a.size} and {b.size}")
    if a.sum() % q != b.sum() % q:
        raise ValueError("inputs_a and inputs_b must have the same sum modulo q")
    patterns = q ** (a.size * (m - 1))
    if patterns > MAX_PATTERNS:
        raise ValueError(f"q^(n (m - 1)) must be at most {MAX_PATTERNS} to enumerate, got {patterns}")
    if m == 1:
        return 0.0 if sorted(a.tolist()) == sorted(b.tolist()) else 1.0
    if a.size * m * math.log2(q) > 62:
        raise ValueError(f"q^(n m) must be below 2^62 to encode a multiset, got q={q}, n={a.size}, m={m}")
    rows = np.concatenate([_released(a, q, m), _released(b, q, m)])
    codes = rows @ q ** np.arange(rows.shape[1], dtype=np.int64)  # one integer per sorted multiset
    _, which = np.unique(codes, return_inverse=True)
    count_a = np.bincount(which[:patterns], minlength=which.max() + 1)
    count_b = np.bincount(which[patterns:], minlength=which.max() + 1)
    return 0.5 * float(np.abs(count_a - count_b).sum()) / patterns
