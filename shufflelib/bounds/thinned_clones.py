r"""Thinned clones: the stronger-clones pair of k-ary randomized response, kept as k-RR reports.

A valid upper bound on shuffled k-RR for every ``k >= 2``, derived in this library (the
amplification chapter's proposition "thinned clones"); for ``k = 2`` it is the stronger-clones
bound itself, for ``k >= 3`` it is much smaller (four to a hundred times in δ at δ = 1e-6)
and, as ``n`` grows, meets the exact δ of the pair whose other users all hold a third value.

**Derivation.** Write ``p = e^{ε0}/(e^{ε0}+k−1)``, ``q = 1/(e^{ε0}+k−1)``, ``s = p + q``,
``γ = 2/(e^{ε0}+1)`` and ``β = tanh(ε0/2)``. Let ``Q0`` report ``a`` with probability ``s``
and each value outside ``{a, b}`` with probability ``q``, and ``Q1`` the same with ``b``. Then

* the victim: ``R(a) = α Q0 + (1 − α) Q1`` and ``R(b) = (1 − α) Q0 + α Q1``,
  ``α = e^{ε0}/(e^{ε0}+1)``;
* every other user ``x``: ``R(x) = (γ/2) Q0 + (γ/2) Q1 + (1 − γ) W_x`` with ``W_x`` a
  distribution (the decomposition of Feldman, McMillan and Talwar's stronger clones, which
  k-RR admits: :mod:`~shufflelib.bounds.stronger_clones`).

Draw which other users are *clones* (the ``Q0``/``Q1`` part), ``C ~ Bin(n − 1, γ)`` of them,
the same law under both inputs. Reports from ``W_x`` are independent of the victim: dropping
them cannot decrease δ (a post-processing adds them back). A ``Q0`` or ``Q1`` report is
*kept* on ``a`` or ``b`` with probability ``s`` and otherwise falls uniformly on the ``k − 2``
other values, whichever of the two it was: the other values' counts are a post-processing
of the number of reports *not* kept. So the output is a post-processing of ``m = C + 1``,
the number ``T ~ Bin(m, s)`` of kept reports (the same law under both inputs) and
``D = N_a − N_b`` among them. With ``M_m`` the law of ``D`` when all ``m`` reports are
fair coins between ``Q0`` and ``Q1``, a direct computation of the likelihoods gives

.. math::

    P(m, d) = M_m(d)\,\big(1 + \beta d/m\big), \qquad Q(m, d) = M_m(d)\,\big(1 - \beta d/m\big),

and given ``T = t`` this is the clone pair of :mod:`~shufflelib.bounds.clone_pair` with
``t − 1`` clones and a victim of local log-odds ``L = 2 artanh(β t/m)`` (the victim is among the
kept reports with probability ``t/m``). Hence

.. math::

    \delta(\varepsilon) \le \sum_{c} \mathrm{Bin}(c; n-1, \gamma)
    \sum_{t \ge 1} \mathrm{Bin}(t; c + 1, s)\; h\big(t,\, 2\,\mathrm{artanh}(\beta t/(c+1))\big),

``h(t, L)`` the clone pair's divergence given ``t`` reports. For ``k = 2`` (``s = 1``,
``t = m``) it is the stronger-clones pair. For ``k = 3`` and others all holding the third
value the output hides ``C`` (kept and dropped reports both count towards that value), and
the bound is that pair's δ with ``C`` revealed: the gap closes as ``C`` concentrates.

**Evaluation.** Blocks, each an upper bound: ``C`` on the blocks of
:func:`~shufflelib.bounds.clone_pair.binomial_blocks` at their left end (``m ↦`` the inner
sum is non-increasing: one more clone is a post-processing), and given ``m``, ``T`` on
blocks ``[t1, t2]`` carrying ``h(t1, 2 artanh(β t2/m))`` (``h`` is non-increasing in the
count and non-decreasing in ``L``; convex in ``x = tanh(L/2)``, so within a block of ``T`` the
chord between the ends at the block's mean of ``x`` bounds every term). The central ranges
have a fixed number of blocks (single points where they are narrower, as at small ``n``), so
the layout moves smoothly with ``n`` and the result stays monotone in ``n`` (checked on
windows of consecutive ``n``; a switch to single points at a threshold of ``n`` broke that by
up to 2 %). The result exceeds the bound by the block slack (a relative ``~1e-2`` in δ at
``n = 1e3``, ``~1e-3`` at ``n = 1e6``, at δ = 1e-6, smaller for larger ``n``). Each block's
mass carries the rounding of its cdf difference. See ``benchmarks/bench_bounds.py``.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

import numpy as np

from .._docstrings import fill_doc
from ..curves import invert_profile
from .base import ProfileBound
from .clone_pair import _bernstein_range, binomial_blocks, binomial_interval_mass, binomial_range, clone_pair_delta
from .clones import gaussian_dp_epsilon
from .privacy_loss import PrivacyLoss
from .stronger_clones import StrongerClones

__all__ = ["ThinnedClones", "kept_probability", "thinned_blocks"]

#: Blocks of the clone count ``C`` (central range) and of the kept count ``T`` given ``C`` up to
#: 1e6 users; beyond, fewer (the relative slack of a block of fixed count falls as ``1/sqrt(n)``).
OUTER_BLOCKS = 256
INNER_BLOCKS = 64
#: Blocks of ``T`` given ``C`` where ``C`` is outside its central range (tail mass below 1e-20).
_SIDE_INNER_BLOCKS = 16
#: Tail masses delimiting the central and the outer ranges of ``T`` given ``C``.
_CENTRAL_TAIL = 1e-20
_TAIL = 1e-300
_SIDE_BLOCKS = 8
#: Relative allowance rounding each block's log-odds up (a few ulps of ``log1p`` and ``log``).
_ROUND_UP = 1e-13


def kept_probability(k: int, eps0: float) -> float:
    """``s = p + q = (e^{ε0}+1)/(e^{ε0}+k−1)``: a clone's report lands on ``a`` or ``b``.

    Examples
    --------
    >>> kept_probability(2, 1.0), round(kept_probability(3, 1.0), 6)
    (1.0, 0.788058)
    """
    return 1.0 / (1.0 + (k - 2) / (math.exp(eps0) + 1.0))


@lru_cache(maxsize=32)
def thinned_blocks(n: int, k: int, eps0: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bound as a mixture of clone pairs: other-clone counts, local log-odds and weights.

    For :func:`~shufflelib.bounds.clone_pair.clone_pair_delta`; each block of ``T`` given ``m``
    gives two pairs (module notes: the chord between its ends).

    Examples
    --------
    >>> counts, local, weights = thinned_blocks(1000, 3, 1.0)
    >>> bool(local.max() <= 1.0), bool(abs(weights.sum() - 1.0) < 1e-6)  # the law of (C, T), plus rounding
    (True, True)
    """
    gamma, s = 2.0 / (math.exp(eps0) + 1.0), kept_probability(k, eps0)
    c_lo, c_hi = binomial_range(n - 1, gamma, _CENTRAL_TAIL)
    fewer = min(1.0, math.sqrt(1e6 / n))
    outer = max(64, round(OUTER_BLOCKS * fewer))
    inner = max(_SIDE_INNER_BLOCKS, round(INNER_BLOCKS * fewer))
    outer_start, outer_weight = binomial_blocks(n - 1, gamma, outer)
    central = (outer_start >= c_lo) & (outer_start <= c_hi)
    parts = [
        _kept_blocks(outer_start[rows] + 1.0, outer_weight[rows], s, eps0, count)
        for rows, count in ((central, inner), (~central, _SIDE_INNER_BLOCKS))
    ]
    return tuple(np.concatenate(arrays) for arrays in zip(*parts, strict=True))


def _kept_blocks(
    m: np.ndarray, w: np.ndarray, s: float, eps0: float, inner: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of :func:`thinned_blocks` for clone-count blocks of left end ``m − 1`` and weights ``w``."""
    live = w > 0.0
    m, w = m[live], w[live]
    lo, hi = _bernstein_range(m, s, _TAIL)
    c_lo, c_hi = _bernstein_range(m, s, _CENTRAL_TAIL)
    edges = np.concatenate(
        [
            np.stack([np.zeros_like(m), np.ones_like(m), hi + 1.0, m + 1.0], axis=1),
            _cuts(lo, c_lo, _SIDE_BLOCKS),
            _cuts(c_lo, c_hi + 1.0, inner),
            _cuts(c_hi + 1.0, hi + 1.0, _SIDE_BLOCKS),
        ],
        axis=1,
    )
    edges = np.sort(np.minimum(edges, (m + 1.0)[:, None]), axis=1)
    start, stop = edges[:, :-1], edges[:, 1:] - 1.0
    row = np.broadcast_to(np.arange(m.size)[:, None], start.shape)
    keep = (start <= stop) & (start >= 1.0)  # T = 0: the victim's report was not kept, both laws agree
    start, stop, m, w = start[keep], stop[keep], m[row[keep]], w[row[keep]]
    mass, mass_err = binomial_interval_mass(start, stop, m, s)
    # The block's mean of T: E[T; block] = m s Pr(Bin(m − 1, s) in [start − 1, stop − 1]).
    shifted, shifted_err = binomial_interval_mass(start - 1.0, stop - 1.0, m - 1.0, s)
    positive = (mass > 0.0) & (shifted > 0.0)
    mean = np.clip(m * s * shifted / np.where(positive, mass, 1.0), start, stop)
    mean_err = np.where(
        positive,
        mean * (shifted_err / np.where(positive, shifted, 1.0) + mass_err / np.where(positive, mass, 1.0) + 1e-15),
        stop - start,
    )
    # h is convex in x = tanh(L/2) = β t/m: the chord between the block's ends, at its mean
    # (its weight on the upper end rounded up by the mean's error).
    width = np.maximum(stop - start, 1.0)
    theta = np.clip((mean - start + mean_err) / width, 0.0, 1.0)
    weight = w * (mass + mass_err)
    beta = math.tanh(eps0 / 2.0)
    wide = stop > start  # a single point is one pair (both ends agree)
    theta = np.where(wide, theta, 0.0)
    return (
        np.concatenate([start - 1.0, start[wide] - 1.0]),
        np.concatenate([_log_odds(start, m, beta, eps0), _log_odds(np.minimum(stop, m), m, beta, eps0)[wide]]),
        np.concatenate([weight * (1.0 - theta), (weight * theta)[wide]]),
    )


def _log_odds(t: np.ndarray, m: np.ndarray, beta: float, eps0: float) -> np.ndarray:
    """``L = 2 artanh(β t/m)`` rounded up (``eps0`` at ``t = m``): ``log1p(x) − log(1 − x)`` with
    ``1 − x = (m − t)/m + (t/m)(1 − β)`` computed without cancellation, ``1 − β = 2/(e^{eps0}+1)``."""
    lam = t / m
    one_minus = (m - t) / m + lam * (2.0 / (math.exp(eps0) + 1.0))
    inner = np.where(t < m, one_minus, 1.0)
    value = (np.log1p(lam * beta) - np.log(inner)) * (1.0 + _ROUND_UP)
    return np.where(t < m, np.minimum(value, eps0), eps0)


def _cuts(start: np.ndarray, stop: np.ndarray, count: int) -> np.ndarray:
    """Per row, ``count`` block starts of equal width in ``[start, stop)`` (``inf`` past ``stop``)."""
    width = np.maximum(1.0, np.ceil((stop - start) / count))
    cut = start[:, None] + width[:, None] * np.arange(count)[None, :]
    return np.where(cut < stop[:, None], cut, np.inf)


@fill_doc
class ThinnedClones(ProfileBound):
    """Thinned clones (this library): the stronger-clones pair of k-RR with its reports kept as k-RR reports.

    A valid upper bound for shuffled k-RR (module notes for the proof); equal to
    :class:`~shufflelib.bounds.stronger_clones.StrongerClones` for ``k = 2`` and much smaller for
    ``k >= 3``.

    Parameters
    ----------
    %(mechanism_krr)s %(k_krr)s

    Examples
    --------
    >>> from shufflelib.bounds import StrongerClones, ThinnedClones
    >>> thin = ThinnedClones(mechanism="krr", k=3).delta(10_000, 1.0, 0.04)
    >>> strong = StrongerClones(mechanism="krr", k=3).delta(10_000, 1.0, 0.04)
    >>> bool(thin < strong / 3)
    True
    """

    name = "thinned-clones"
    title = "Thinned clones: the stronger-clones pair kept as k-RR reports (this library, k-RR)"
    reference = (
        "Derived in this library from V. Feldman, A. McMillan, K. Talwar. Stronger privacy "
        "amplification by shuffling for Rényi and approximate DP. SODA 2023, arXiv:2208.04591."
    )
    mechanisms = ("krr",)

    def delta_profile(self, n: int, eps0: float, eps: np.ndarray) -> np.ndarray:
        """Vectorized δ(ε) for an array of ε >= 0 (validated inputs).

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.bounds.thinned_clones import ThinnedClones
        >>> d = ThinnedClones(mechanism="krr", k=3).delta_profile(1000, 1.0, np.array([0.1, 0.2, 1.0]))
        >>> bool(d[0] > d[1] > d[2] == 0.0)
        True
        """
        if self.k == 2:
            return StrongerClones(mechanism="krr", k=2).delta_profile(n, eps0, eps)
        counts, local, weights = thinned_blocks(n, self.k, eps0)
        return clone_pair_delta(eps, local, counts, weights)

    def privacy_loss(self, n: int) -> PrivacyLoss:
        """The stronger-clone pair, which dominates the thinned pair (a post-processing of it;
        composing the thinned pair itself, a mixture of tens of thousands of clone pairs, is not
        implemented): :meth:`stronger_pair_loss`.

        Examples
        --------
        >>> loss = ThinnedClones(mechanism="krr", k=3).privacy_loss(10_000)
        >>> loss.form, loss.alternative.form
        ('pair', 'profile')
        """
        return self.stronger_pair_loss(
            n, self.k, "composed: the stronger-clone pair, which dominates the thinned-clone pair"
        )

    @staticmethod
    def stronger_pair_loss(n: int, k: int, note: str) -> PrivacyLoss:
        """The stronger-clone pair of k-RR standing for a tighter bound of the same protocol
        (``note`` says which), its ε in the baselines. For ``k >= 3`` that pair is looser than the
        bound it stands for, and than blanket Bennett's profile near small δ: that profile, valid
        for k-RR, is the alternative, and the tighter answers (``benchmarks/ordering_check.py``).

        Examples
        --------
        >>> ThinnedClones.stronger_pair_loss(10_000, 2, "composed: ...").alternative is None
        True
        """
        from .blanket import BlanketBennett

        alternative = None
        if k >= 3:
            alternative = replace(
                BlanketBennett(mechanism="krr", k=k).privacy_loss(n),
                note="composed: blanket Bennett's profile (valid for k-RR), tighter here than the stronger-clone pair",
            )
        loss = StrongerClones(mechanism="krr", k=k).privacy_loss(n)
        return replace(loss, note=note, alternative=alternative)

    def _epsilon(self, n: int, eps0: float, delta: float) -> float:
        """ε(δ) by certified root finding, the bracket narrowed around a Gaussian-DP estimate."""
        s = kept_probability(self.k, eps0)
        kept = ((n - 1) * 2.0 / (math.exp(eps0) + 1.0) + 1.0) * s
        guess = gaussian_dp_epsilon(2.0 * s * math.tanh(eps0 / 2.0) / math.sqrt(kept), delta)
        return invert_profile(lambda e: self._delta_checked(n, eps0, e), delta, hi=eps0, guess=guess)
