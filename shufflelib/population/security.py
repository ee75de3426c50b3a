r"""Sigma-security of shuffled additive shares, exactly, on toy parameters (Definition 6).

Each of ``n`` users splits ``y_i in Z_q`` into ``m`` shares, uniform subject to
summing to ``y_i`` modulo ``q``; the shuffler releases the multiset of all
``n m`` shares. A protocol is ``sigma``-secure if, for any two input vectors
with the same sum modulo ``q``, the released multisets are within total
variation ``2^{-sigma}``. :func:`shares_tv` computes that distance by
enumerating every share pattern (``q^{n(m-1)}`` of them), which shows what
``sigma`` measures and how fast it grows with ``m``.

Lemma 3 on toy sizes: :func:`max_shares_tv` is ``2^{-sigma}`` of the shuffle of
shares (the largest distance over all pairs of inputs with equal sums);
:func:`noisy_sum_pair` is the exact privacy curve of the noisy sum modulo ``q``
and :func:`noisy_shares_pair` that of the shuffled shares of the noisy inputs, so
Lemma 3's claim ``δ_shares(ε) <= δ_sum(ε) + (1 + e^ε) 2^{-sigma}`` can be checked
exactly.

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
from ..curves import DominatingPair

__all__ = ["shares_tv", "max_shares_tv", "noisy_shares_pair", "noisy_sum_pair", "MAX_PATTERNS"]

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


def _codes(rows: np.ndarray, q: int) -> np.ndarray:
    return rows @ q ** np.arange(rows.shape[1], dtype=np.int64)


def max_shares_tv(n: int, q: int, m: int) -> float:
    """``2^{-sigma}`` of the shuffled shares: the largest :func:`shares_tv` over input vectors with equal sums.

    Examples
    --------
    >>> round(max_shares_tv(2, 5, 2), 4)
    0.64
    """
    n = check_int("n", n, minimum=1)
    q = check_int("q", q, minimum=2)
    m = check_int("m", m, minimum=1)
    inputs = np.array(np.meshgrid(*[np.arange(q)] * n, indexing="ij")).reshape(n, -1).T
    inputs = np.unique(np.sort(inputs, axis=1), axis=0)  # the multiset of inputs is what matters
    worst = 0.0
    for total in range(q):
        group = inputs[inputs.sum(axis=1) % q == total]
        for i in range(len(group)):
            for j in range(i + 1, len(group)):
                worst = max(worst, shares_tv(group[i], group[j], q, m))
    return worst


def _noise_law(noise_pmf: object, q: int) -> np.ndarray:
    pmf = check_array("noise_pmf", noise_pmf, ndim=1, low=0.0)
    if pmf.size != q or abs(pmf.sum() - 1.0) > 1e-9:
        raise ValueError(f"noise_pmf must be a pmf on Z_q (length q = {q}, summing to 1)")
    return pmf / pmf.sum()


def _noisy_inputs(inputs: np.ndarray, pmf: np.ndarray, q: int) -> tuple[np.ndarray, np.ndarray]:
    """Every noisy input vector ``(x_i + noise_i) mod q`` and its probability."""
    n = inputs.size
    noise = np.array(np.meshgrid(*[np.arange(q)] * n, indexing="ij")).reshape(n, -1).T
    return np.mod(inputs[None, :] + noise, q), np.prod(pmf[noise], axis=1)


def _pair(weights_a: dict, weights_b: dict) -> DominatingPair:
    keys = sorted(set(weights_a) | set(weights_b))
    with np.errstate(divide="ignore"):
        log_p = np.log([weights_a.get(k, 0.0) for k in keys])
        log_q = np.log([weights_b.get(k, 0.0) for k in keys])
    return DominatingPair(log_p, log_q)


def noisy_sum_pair(inputs_a: object, inputs_b: object, noise_pmf: object, q: int) -> DominatingPair:
    """Exact privacy curve of ``Σ_i (x_i + noise_i) mod q`` for two input vectors (noise i.i.d. on ``Z_q``).

    Examples
    --------
    >>> pair = noisy_sum_pair([0, 0], [1, 0], [0.5, 0.25, 0, 0, 0.25], 5)
    >>> round(float(pair.delta(0.0)), 4)  # the total variation between the two sums' laws
    0.3125
    """
    q = check_int("q", q, minimum=2)
    pmf = _noise_law(noise_pmf, q)
    laws = []
    for name, inputs in (("inputs_a", inputs_a), ("inputs_b", inputs_b)):
        x = check_array(name, inputs, ndim=1, low=0, high=q - 1, integral=True).astype(np.int64)
        noisy, probs = _noisy_inputs(x, pmf, q)
        laws.append(dict(enumerate(np.bincount(noisy.sum(axis=1) % q, weights=probs, minlength=q))))
    return _pair(*laws)


def noisy_shares_pair(inputs_a: object, inputs_b: object, noise_pmf: object, q: int, m: int) -> DominatingPair:
    """Exact privacy curve of the shuffled shares of ``(x_i + noise_i) mod q`` for two input vectors.

    Each noisy value is split into ``m`` uniform shares modulo ``q`` and the
    multiset of all shares is released (enumerated: ``q^{n m}`` rows per input).

    Examples
    --------
    >>> pmf = [0.5, 0.25, 0, 0, 0.25]
    >>> one = noisy_shares_pair([0, 0], [1, 0], pmf, 5, 1).delta(0.0)  # one share: the noisy inputs
    >>> two = noisy_shares_pair([0, 0], [1, 0], pmf, 5, 2).delta(0.0)
    >>> bool(two <= one)
    True
    """
    q = check_int("q", q, minimum=2)
    m = check_int("m", m, minimum=1)
    pmf = _noise_law(noise_pmf, q)
    laws = []
    for name, inputs in (("inputs_a", inputs_a), ("inputs_b", inputs_b)):
        x = check_array(name, inputs, ndim=1, low=0, high=q - 1, integral=True).astype(np.int64)
        if q ** (x.size * m) > MAX_PATTERNS:
            raise ValueError(f"q^(n m) must be at most {MAX_PATTERNS} to enumerate")
        noisy, probs = _noisy_inputs(x, pmf, q)
        law: dict[int, float] = {}
        for values, weight in zip(noisy, probs, strict=True):
            if weight == 0.0:
                continue
            rows = _released(values, q, m) if m > 1 else np.sort(values)[None, :]
            codes, counts = np.unique(_codes(rows, q), return_counts=True)
            for code, count in zip(codes.tolist(), counts.tolist(), strict=True):
                law[code] = law.get(code, 0.0) + weight * count / rows.shape[0]
        laws.append(law)
    return _pair(*laws)
