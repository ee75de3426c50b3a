r"""Exact privacy of a small shuffled view, through its three sufficient counts.

The setting of Theorem 2 and Lemmas 2–3, at sizes where every count can be
enumerated: ``slots`` blanket slots each send, with probability ``γ``, one item
uniform over ``d`` items; the victim holds item ``a`` (dataset ``X``) or ``b``
(``X'``) and sends ``a`` / ``b`` / another item / nothing with probabilities
``victim = (near, far, other, none)`` under ``X`` (``near`` and ``far`` swap
under ``X'``); other users' input-dependent reports may add independent counts
on the two victim cells (``extra_a``, ``extra_b``). The server sees the shuffled
multiset, i.e. every item's count. Given the counts ``C_a``, ``C_b`` and the
number ``R`` of messages on the other ``d − 2`` items, those ``R`` are split
uniformly over the other items under both datasets, so ``(C_a, C_b, R)`` is a
sufficient statistic and its two laws give the exact privacy curve
(:class:`~shufflelib.curves.DominatingPair`).

Two victims are built in:

* :func:`poisson_victim` — the Poisson randomizer of Algorithm 2 (item sent with
  probability ``λ``, else nothing);
* :func:`krr_victim` — ``k``-ary randomized response over ``d = k`` values, whose
  uniform blanket messages make the reduction of Theorem 2 apply.

Examples
--------
>>> pair = cell_view_pair(40, 0.5, 17, poisson_victim(1.0))
>>> round(float(pair.delta(0.5)), 6)
0.393646
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln, logsumexp

from .._validation import check_array, check_int, check_probability
from ..curves import DominatingPair

__all__ = ["MAX_SLOTS", "poisson_victim", "krr_victim", "binomial_reports", "cell_view_pair"]

#: Largest number of blanket slots :func:`cell_view_pair` enumerates ((slots + 1)^3 counts).
MAX_SLOTS = 120


def poisson_victim(lam: float) -> tuple[float, float, float, float]:
    """The Poisson randomizer's message law ``(near, far, other, none) = (λ, 0, 0, 1 − λ)``.

    Examples
    --------
    >>> poisson_victim(0.25)
    (0.25, 0.0, 0.0, 0.75)
    """
    lam = check_probability("lam", lam, closed_high=True)
    return (lam, 0.0, 0.0, 1.0 - lam)


def krr_victim(k: int, eps0: float) -> tuple[float, float, float, float]:
    """``k``-RR at ``eps0``: its own value w.p. ``e^eps0/(e^eps0 + k − 1)``, each other value w.p. ``1/(…)``.

    Examples
    --------
    >>> [round(w, 4) for w in krr_victim(3, math.log(2))]
    [0.5, 0.25, 0.25, 0.0]
    """
    k = check_int("k", k, minimum=2)
    if not (math.isfinite(eps0) and eps0 > 0):
        raise ValueError(f"eps0 must be a finite number > 0, got {eps0!r}")
    total = math.exp(eps0) + k - 1
    return (math.exp(eps0) / total, 1.0 / total, (k - 2) / total, 0.0)


def binomial_reports(holders: int, lam: float) -> np.ndarray:
    """The pmf of the number of reports of ``holders`` other users who each report w.p. ``λ``.

    Examples
    --------
    >>> binomial_reports(2, 0.5).tolist()
    [0.25, 0.5, 0.25]
    """
    holders = check_int("holders", holders, minimum=0)
    lam = check_probability("lam", lam, closed_low=True, closed_high=True)
    k = np.arange(holders + 1)
    if lam in (0.0, 1.0):
        return (k == (holders if lam == 1.0 else 0)).astype(float)
    log_pmf = (
        gammaln(holders + 1)
        - gammaln(k + 1)
        - gammaln(holders - k + 1)
        + k * np.log(lam)
        + (holders - k) * np.log1p(-lam)
    )
    return np.exp(log_pmf)


def _blanket_counts(slots: int, gamma: float, d: int) -> np.ndarray:
    """Joint pmf of the blanket messages on ``a``, on ``b`` and on the other items, shape ``(slots + 1,) * 3``."""
    i = np.arange(slots + 1)
    a, b, o = np.meshgrid(i, i, i, indexing="ij")
    rest = slots - a - b - o
    probs = np.array([gamma / d, gamma / d, gamma * (d - 2) / d, 1.0 - gamma])
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(probs)
        log_pmf = (
            gammaln(slots + 1)
            - gammaln(a + 1)
            - gammaln(b + 1)
            - gammaln(o + 1)
            - gammaln(np.maximum(rest, 0) + 1)
            + np.where(a > 0, a * logs[0], 0.0)
            + np.where(b > 0, b * logs[1], 0.0)
            + np.where(o > 0, o * logs[2], 0.0)
            + np.where(rest > 0, rest * logs[3], 0.0)
        )
    log_pmf = np.where(rest >= 0, log_pmf, -np.inf)
    return np.exp(log_pmf)


def _convolve_axis(array: np.ndarray, pmf: np.ndarray, axis: int) -> np.ndarray:
    return np.apply_along_axis(lambda line: np.convolve(line, pmf), axis, array)


def cell_view_pair(
    slots: int,
    gamma: float,
    d: int,
    victim: tuple[float, float, float, float],
    extra_a: object | None = None,
    extra_b: object | None = None,
) -> DominatingPair:
    """The exact privacy curve of the view ``(C_a, C_b, R)`` under ``X`` and ``X'``.

    Parameters
    ----------
    slots
        Number of blanket slots (all users' slots, the victim's own included), at
        most :data:`MAX_SLOTS`.
    gamma
        Probability that a slot sends, in ``[0, 1]``.
    d
        Number of items (at least 2; with ``d = 2`` there are no other items).
    victim
        ``(near, far, other, none)``: the victim's message on her own item, on the
        alternative item, on another item, or no message, under ``X``.
    extra_a, extra_b
        pmfs of independent counts that other users' input-dependent reports add
        to cells ``a`` and ``b`` (e.g. :func:`binomial_reports`); ``None`` for none
        (the reduced view of Lemma 2).

    Returns
    -------
    DominatingPair
        ``δ(ε) = max(H_{e^ε}(P‖Q), H_{e^ε}(Q‖P))`` of the two laws.

    Examples
    --------
    >>> reduced = cell_view_pair(30, 1.0, 5, poisson_victim(0.5))
    >>> full = cell_view_pair(30, 1.0, 5, poisson_victim(0.5), binomial_reports(3, 0.5), binomial_reports(3, 0.5))
    >>> bool(full.delta(0.5) <= reduced.delta(0.5))  # others' noisy reports only help (Lemma 2)
    True
    """
    slots = check_int("slots", slots, minimum=0, maximum=MAX_SLOTS)
    gamma = check_probability("gamma", gamma, closed_low=True, closed_high=True)
    d = check_int("d", d, minimum=2)
    weights = check_array("victim", victim, ndim=1, low=0.0, high=1.0)
    if weights.size != 4 or abs(weights.sum() - 1.0) > 1e-9:
        raise ValueError(f"victim must be four probabilities (near, far, other, none) summing to 1, got {victim!r}")
    if d == 2 and weights[2] > 0:
        raise ValueError("with d = 2 items the victim cannot send another item")
    base = _blanket_counts(slots, gamma, d)
    for axis, extra in ((0, extra_a), (1, extra_b)):
        if extra is not None:
            pmf = check_array(f"extra_{'ab'[axis]}", extra, ndim=1, low=0.0)
            if abs(pmf.sum() - 1.0) > 1e-9:
                raise ValueError(f"extra_{'ab'[axis]} must be a pmf (summing to 1)")
            base = _convolve_axis(base, pmf, axis)
    padded = np.pad(base, ((0, 1), (0, 1), (0, 1)))
    shifted = [np.roll(padded, 1, axis=axis) for axis in range(3)]  # one more message on a, on b, elsewhere
    near, far, other, none = weights
    law_x = near * shifted[0] + far * shifted[1] + other * shifted[2] + none * padded
    law_y = far * shifted[0] + near * shifted[1] + other * shifted[2] + none * padded
    with np.errstate(divide="ignore"):
        log_p, log_q = np.log(law_x.ravel()), np.log(law_y.ravel())
    keep = (log_p > -np.inf) | (log_q > -np.inf)
    log_p, log_q = log_p[keep], log_q[keep]
    # Normalise away the rounding of the enumeration (masses are 1 up to ~1e-15).
    return DominatingPair(log_p - logsumexp(log_p), log_q - logsumexp(log_q))
