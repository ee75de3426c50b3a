r"""Rounds in which each user takes part at random (Poisson subsampling of the shuffled protocol).

In many deployments a user contributes to a round with probability ``q`` (federated learning,
DP-SGD with shuffling): each of the ``n`` users joins independently, the participants run their
``ε₀``-LDP randomizer, and the shuffler releases the multiset of their reports — whose size, the
number of participants, is seen too.

Neighbouring relation: **substitution** (one user's value changes, ``v`` or ``v'``; the set of
users does not), the relation of every shuffle bound of this book. Add/remove (a user present or
absent) is the natural relation of subsampling in DP-SGD, but it does not suit a shuffled round:
without subsampling the number of reports alone reveals presence (δ = 1), so no bound of the book
is a dominating pair for it.

What a round reveals. Given ``K = k`` reports, the participants are a uniform ``k``-subset of
the ``n`` users, so the victim is among them with probability ``π_k = k / n``. Writing ``A_k``
(``B_k``) for the shuffle of the victim's report on ``v`` (``v'``) and ``k − 1`` others, and
``R_k`` for ``k`` others without the victim,

.. math::

    X \mid k = π_k A_k + (1 − π_k) R_k, \qquad Y \mid k = π_k B_k + (1 − π_k) R_k .

``R_k`` is the shuffle with the victim's report replaced by that of a random other user, so
``(A_k, R_k)``, like ``(A_k, B_k)``, is a substitution of the victim's value with ``k − 1``
others: both are dominated by the round's shuffle bound ``δ_k`` at ``k`` users. The advanced
joint convexity of Balle, Barthe and Gaboardi (2018) then gives, for ``γ' = e^{ε'} >= 1``,

.. math::

    H_{γ'}(X \mid k \,\|\, Y \mid k) \le π_k\, δ_k\big(\log(1 + (γ' − 1)/π_k)\big)
    = H_{γ'}\big(π_k P + (1 − π_k) Q \,\|\, Q\big),

the hockey-stick divergence of Zhu, Dong and Wang's (2022) dominating pair of Poisson subsampling
for the remove direction, ``(π P + (1 − π) Q, Q)``, with ``(P, Q)`` the round's pair (or any pair
with profile ``δ_k``). The same holds with ``v`` and ``v'`` swapped. So both orders of the
subsampled round have the privacy profile

.. math::

    δ'(ε') = \sum_k \Pr[K = k \mid \text{victim in}]\; π_k\, δ_k\big(\log(1 + (e^{ε'} − 1)/π_k)\big),

(the number of reports is seen, and has the same law under both datasets), and the symmetric pair
built from this profile (:mod:`~shufflelib.composition.profile`, Dong, Roth and Su's
``f``-DP) dominates the round in both orders for every order ``α`` of the hockey-stick
divergence — what composition needs for a fixed pair of neighbouring datasets. (The remove pair
``(πP + (1 − π)Q, Q)`` alone would not do: its other order differs.) For ``ε' >= log(1 +
π_max (e^{ε₀} − 1))`` the profile is 0: the subsampled round is pure DP there.

Computation (:func:`subsampled_profile`). The others taking part, ``N = K − 1 ~ Bin(n − 1, q)``,
are cut into a few *groups* (each uses ``δ_k`` at its smallest ``k``: fewer users can only worsen
the shuffle, a post-processing argument) and, within a group, into *blocks* at most
``BLOCK_RTOL`` wide relative to ``N`` (each uses its largest ``π_k``: the right-hand side grows
with ``π``); the binomial tails beyond ``1e-20`` count as ``δ <= 1`` each. ``k = 1`` (the victim
alone) is randomized response, the worst ``ε₀``-LDP randomizer.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .._laws import binom
from .._validation import check_in_range, check_int, check_n
from ..bounds.clone_pair import BINOM_RTOL, binomial_interval_mass, binomial_range
from .pld import LossDistribution, discretize

__all__ = ["BLOCK_RTOL", "GROUPS", "randomized_response_profile", "subsample_pld", "subsampled_profile"]

#: Largest width of a block of participant counts, relative to its first count (``π`` moves by
#: at most this much within a block, and ε' about as much).
BLOCK_RTOL = 2e-3
#: Number of groups of participant counts whose shuffle bound is evaluated (each at its smallest count).
GROUPS = 4
#: Tail of the participant count left out of the blocks (per side; counted as δ = 1).
TAIL = 1e-20

Profile = Callable[[np.ndarray], np.ndarray]


def randomized_response_profile(eps0: float) -> Profile:
    """δ(ε) of ``ε₀``-randomized response, which dominates every ``ε₀``-LDP randomizer (one user alone).

    ``(e^{ε₀} − e^{ε})^+ / (e^{ε₀} + 1)``.

    Examples
    --------
    >>> from shufflelib.composition.subsampling import randomized_response_profile
    >>> round(float(randomized_response_profile(1.0)(np.array([0.0]))[0]), 6)  # (e - 1)/(e + 1)
    0.462117
    """

    def profile(e: np.ndarray) -> np.ndarray:
        e = np.asarray(e, dtype=float)
        return np.maximum(-np.expm1(np.minimum(e, eps0) - eps0), 0.0) / (1.0 + math.exp(-eps0))

    return profile


def subsampled_profile(
    profile_at_users: Callable[[int], Profile],
    n: int,
    eps0: float,
    q: float,
    *,
    groups: int = GROUPS,
    tabulate: bool = False,
) -> tuple[Profile, float]:
    """The profile ``δ'`` of one subsampled round (module docstring), and its pure-DP level.

    Parameters
    ----------
    profile_at_users
        ``profile_at_users(k)``: a vectorized upper bound on the shuffle's δ(ε) at ``k >= 2`` users
        (for both orders of every pair of neighbouring datasets).
    n
        Number of users (each takes part with probability ``q``).
    eps0
        The local randomizer's privacy level (``k = 1`` is randomized response).
    q
        Probability that a user takes part, in ``(0, 1]``.
    groups
        Number of participant counts at which ``profile_at_users`` is evaluated.
    tabulate
        Evaluate each group's profile once on a grid of ``TABLE`` points up to where it falls
        below ``1e-30`` and read it as the step function through them from the left (an upper
        bound: a profile decreases), for profiles that are costly per point.

    Returns
    -------
    profile, cap
        ``δ'(ε')`` for an array of ``ε' >= 0``, and ``log(1 + π_max (e^{ε₀} − 1))``, from which on
        it is 0.

    Examples
    --------
    With ``q = 1`` every user takes part and the round is the shuffle itself:

    >>> import numpy as np
    >>> from shufflelib.bounds import StrongerClones
    >>> from shufflelib.composition.subsampling import subsampled_profile
    >>> sc = StrongerClones(mechanism="krr", k=2)
    >>> at = lambda k: lambda e: np.array([sc.delta(k, 1.0, float(x)) for x in e])
    >>> full, _ = subsampled_profile(at, 1000, 1.0, 1.0)
    >>> bool(abs(full(np.array([0.1]))[0] - sc.delta(1000, 1.0, 0.1)) < 1e-15)
    True
    >>> half, cap = subsampled_profile(at, 1000, 1.0, 0.5)
    >>> bool(half(np.array([0.1]))[0] < full(np.array([0.1]))[0]), round(cap, 4)
    (True, 0.7467)
    """
    n = check_n(n)
    q = check_in_range("q", q, 0.0, 1.0)
    if q <= 0.0:
        raise ValueError(f"q must be in (0, 1], got {q!r}")
    groups = check_int("groups", groups, minimum=1)
    trials = n - 1
    lo, hi = binomial_range(trials, q, TAIL) if q < 1.0 else (trials, trials)
    # Blocks of N (participating others), at most BLOCK_RTOL wide, each with its largest π.
    starts = [int(lo)]
    while starts[-1] + max(1, math.floor(BLOCK_RTOL * max(starts[-1], 1))) <= hi:
        starts.append(starts[-1] + max(1, math.floor(BLOCK_RTOL * max(starts[-1], 1))))
    start = np.array(starts, dtype=float)
    stop = np.append(start[1:] - 1.0, float(hi))
    if q < 1.0:
        weight, err = binomial_interval_mass(start, stop, trials, q)
        weight = weight + err
        outside = float(binom.cdf(lo - 1.0, trials, q) + binom.sf(hi, trials, q)) * (1.0 + BINOM_RTOL)
    else:
        weight, outside = np.ones(1), 0.0
    pi = (stop + 1.0) / n
    # Groups of blocks, each with the shuffle bound at its smallest number of users.
    cuts = np.unique(np.linspace(0, start.size, min(groups, start.size) + 1).astype(int))
    parts: list[tuple[Profile, np.ndarray, np.ndarray]] = []
    for a, b in zip(cuts[:-1], cuts[1:], strict=True):
        users = int(start[a]) + 1
        at = randomized_response_profile(eps0) if users < 2 else profile_at_users(users)
        parts.append((_tabulated(at, eps0) if tabulate else at, weight[a:b], pi[a:b]))
    pi_max = float(pi.max())
    cap = math.log1p(pi_max * math.expm1(eps0))

    def profile(e: np.ndarray) -> np.ndarray:
        e = np.atleast_1d(np.asarray(e, dtype=float))
        total = np.full(e.shape, outside)
        grow = np.expm1(e)
        for at, w, p in parts:
            inner = np.log1p(grow[None, :] / p[:, None])  # ε of the round given K, per block
            values = np.asarray(at(inner.ravel()), dtype=float).reshape(inner.shape)
            total += (w * p) @ np.clip(values, 0.0, 1.0)
        return np.where(e >= cap, 0.0, np.minimum(total, 1.0))

    return profile, cap


#: Points of a tabulated profile (:func:`subsampled_profile` with ``tabulate``).
TABLE = 512


def _tabulated(at: Profile, eps0: float) -> Profile:
    """``at`` on a uniform grid up to where it first drops below 1e-30 (or ``eps0``), read from the left."""
    from .profile import profile_end

    end = profile_end(at, eps0)
    grid = np.linspace(0.0, end, TABLE)
    values = np.clip(np.asarray(at(grid), dtype=float), 0.0, 1.0)
    floor = float(np.asarray(at(np.array([end])), dtype=float)[0])

    def profile(e: np.ndarray) -> np.ndarray:
        e = np.asarray(e, dtype=float)
        i = np.clip(np.searchsorted(grid, e, side="right") - 1, 0, grid.size - 1)
        return np.where(e >= end, min(max(floor, 0.0), 1.0), values[i])

    return profile


def subsample_pld(ld: LossDistribution, q: float) -> LossDistribution:
    """The loss distribution of ``(q P + (1 − q) Q, Q)`` from that of ``(P, Q)``, connected onto ``ld``'s grid.

    Zhu, Dong and Wang's (2022) dominating pair of Poisson subsampling for the remove direction
    (the one-sided piece of :mod:`~shufflelib.composition.subsampling`'s construction): an atom
    of loss ``ℓ`` and P-mass ``p`` becomes one of loss ``log(1 + q (e^ℓ − 1))`` and P-mass
    ``p (q + (1 − q) e^{−ℓ})``. The pair built from a dominating pair dominates (a post-processing
    stays one), and connecting the dots keeps it an upper bound. For a cross-check against
    ``dp_accounting``'s subsampled mechanisms.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.pld import from_log_pmfs
    >>> from shufflelib.composition.subsampling import subsample_pld
    >>> p = np.e / (1 + np.e)
    >>> rr = from_log_pmfs(np.log([p, 1 - p]), np.log([1 - p, p]), step=1e-4)
    >>> sub = subsample_pld(rr, 0.1)
    >>> round(sub.delta(0.0), 4), round(0.1 * rr.delta(0.0), 4)  # q H_1(P || Q) at ε' = 0
    (0.0462, 0.0462)
    """
    q = check_in_range("q", q, 0.0, 1.0)
    if q <= 0.0:
        raise ValueError(f"q must be in (0, 1], got {q!r}")
    live = ld.mass > 0
    loss, p = ld.losses[live], ld.mass[live]
    new_loss = np.log1p(q * np.expm1(loss))
    new_p = p * (q + (1.0 - q) * np.exp(-loss))
    error = 16.0 * 2.0**-53 * (1.0 + np.abs(loss) + np.abs(new_loss))
    if not ld.pessimistic:
        raise ValueError("subsample_pld takes an upper bound (a pessimistic distribution)")
    return discretize(new_loss, new_p * (1.0 + 8.0 * 2.0**-53), ld.step, "dots", inf_mass=q * ld.inf_mass, error=error)
