r"""The privacy loss distribution of a clone pair, without enumerating its support.

A clone pair (:class:`~shufflelib.bounds.clones.ClonePairBound`) is a mixture
over the number of clones ``M = C + 1`` of pairs on ``J ∈ {0, …, M}``:

.. math::

    P(j \mid m) = b_m(j)\,\frac{\alpha_m + \beta_m j}{\alpha_m + \beta_m m/2}, \qquad
    Q(j \mid m) = b_m(j)\,\frac{\alpha_m + \beta_m (m - j)}{\alpha_m + \beta_m m/2},

``b_m = Bin(m, 1/2)`` (clones: ``α_m = v m``, ``β_m = u − v``, ``u = 2e^{ε₀}/(e^{ε₀}+1)``,
``v = 2 − u``). The loss ``log((α + βj)/(α + β(m − j)))`` is increasing in
``j``, so the loss grid's bin edges are thresholds on ``j`` and, since
``j b_m(j) = (m/2) b_{m−1}(j − 1)``, the ``P``-mass below a threshold ``t`` is the
closed form ``(α F_m(t) + β (m/2) F_{m−1}(t − 1)) / (α + βm/2)`` (``F`` the
binomial cdf; its complement with survival functions in the upper half). The
mass per bin is a difference of two closed forms, vectorized over the clone
count and the bins: ``O(#blocks · #bins)`` instead of the ``O(n^{1.5})`` atoms.

Clone counts are grouped into blocks (the central range of ``C``, binomial
tail ``1e-20`` per side, one block per count up to 1024 counts, else
``blocks`` equal blocks) and each block
uses its *smallest* count: one more clone is a post-processing (a fair coin
added to ``A``), so this can only worsen the pair — a pessimistic pair. The
mass of ``C`` below the central range (at most ``1e-20``) goes to ``+∞``, the
mass above it joins the last block. Binomial cdf/sf values are trusted to a
relative ``BINOM_RTOL = 1e-9``; each bin's mass is moved by its error bound
in the safe direction (up if pessimistic, down if not).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import binom

from ..bounds.clone_pair import binomial_interval_mass, binomial_pmf_rows
from ..bounds.clones import BINOM_RTOL, binomial_range
from .pld import LossDistribution

__all__ = ["round_blocks", "clone_count_blocks", "binomial_mixture", "clone_blocks_pld", "clone_pair_pld"]

#: Tail of the clone count outside the blocks (per side).
CENTRAL_TAIL = 1e-20
#: Default number of blocks of clone counts (when the central range has more counts than
#: ``EXACT_COUNTS``; otherwise every count is its own block).
BLOCKS = 128
#: Central ranges up to this many clone counts are not grouped.
EXACT_COUNTS = 1024
#: Width of the loss grid, in binomial standard deviations of ``J`` on each side of ``m/2``.
_Z = 12.0
#: Largest number of grid points of one round's distribution.
MAX_BINS = 400_000
#: Clone counts processed together (bounds the memory of the vectorized closed forms).
_CHUNK = 16


def round_blocks(size: int, blocks: int = BLOCKS) -> int:
    """Blocks of a composed round's clone count whose central range has ``size`` values.

    One block per count up to ``EXACT_COUNTS`` counts, else ``blocks``: the left-end
    rounding of the count (relative ``size / (blocks · mean)``) is far below the error of
    the composition's loss grid.

    Examples
    --------
    >>> from shufflelib.composition.clone_pld import round_blocks
    >>> round_blocks(1000), round_blocks(36_000)
    (1000, 128)
    """
    return int(size) if size <= EXACT_COUNTS else max(1, min(int(size), int(blocks)))


def clone_count_blocks(trials: int, prob: float, blocks: int = BLOCKS) -> tuple[np.ndarray, np.ndarray, float]:
    """Blocks of ``C ~ Bin(trials, prob)``: first counts, masses, and the mass below the first block.

    One block per count when the central range has at most ``EXACT_COUNTS``
    counts, else ``blocks`` equal blocks. The mass above the central range is
    added to the last block.

    Examples
    --------
    >>> from shufflelib.composition.clone_pld import clone_count_blocks
    >>> start, mass, below = clone_count_blocks(10, 0.5)  # few counts: one block each
    >>> start.tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]
    >>> start, mass, below = clone_count_blocks(10**6, 0.5, blocks=4)
    >>> start.size, 1.0 <= float(mass.sum() + below) < 1.0 + 1e-8  # rounded up
    (4, True)
    """
    lo, hi = binomial_range(trials, prob, CENTRAL_TAIL)
    width = math.ceil((hi - lo + 1) / round_blocks(hi - lo + 1, blocks))
    start = np.arange(lo, hi + 1, width, dtype=float)
    stop = np.append(start[1:] - 1.0, float(trials))  # the last block absorbs the upper tail
    mass, err = binomial_interval_mass(start, stop, trials, prob)
    return start, mass + err, float(binom.cdf(lo - 1.0, trials, prob)) * (1.0 + BINOM_RTOL)


def _mass_below(m, alpha, beta, t, cdf: bool):
    """``P(J <= t | m)`` (``cdf``) or ``P(J > t | m)`` for integer thresholds ``t``."""
    f = binom.cdf if cdf else binom.sf
    norm = alpha + beta * m / 2.0
    return (alpha * f(t, m, 0.5) + beta * (m / 2.0) * f(t - 1.0, m - 1.0, 0.5)) / norm


def binomial_mixture(
    m: np.ndarray,
    weight: np.ndarray,
    alpha: np.ndarray,
    beta: np.ndarray,
    step: float,
    *,
    pessimistic: bool = True,
    inf_mass: float = 0.0,
    max_loss: float = math.inf,
) -> LossDistribution:
    """Discretized PLD of ``Σ_m weight_m (P(·|m), Q(·|m))`` (see the module docstring).

    Parameters
    ----------
    m
        Trial counts (integers >= 1, as floats).
    weight
        Mixture weights (the same under ``P`` and ``Q``).
    alpha, beta
        Coefficients (arrays broadcast with ``m``; ``alpha >= 0``, ``beta > 0``).
    step
        Grid spacing of the losses.
    pessimistic
        Round losses up, tails to the safe side (upper bounds on δ), or down (lower bounds).
    inf_mass
        Extra mass at loss ``+∞`` (e.g. clone counts left out).
    max_loss
        A known bound on every finite loss.

    Examples
    --------
    One clone (``m = 1``) is randomized response: losses ``±eps0``.

    >>> import numpy as np
    >>> from shufflelib.composition.clone_pld import binomial_mixture
    >>> u = 2 * np.e / (1 + np.e)
    >>> ld = binomial_mixture(np.array([1.0]), np.array([1.0]), np.array([2 - u]), np.array([2 * u - 2]), 1e-3)
    >>> round(float(ld.delta(0.0)), 3), round(float((np.e - 1) / (np.e + 1)), 3)  # within the step
    (0.462, 0.462)
    """
    m = np.asarray(m, dtype=float)
    weight = np.asarray(weight, dtype=float)
    alpha, beta = np.broadcast_to(alpha, m.shape).astype(float), np.broadcast_to(beta, m.shape).astype(float)

    def loss(j: np.ndarray) -> np.ndarray:
        return np.log(alpha + beta * j) - np.log(alpha + beta * (m - j))

    spread = _Z * np.sqrt(m) / 2.0
    # Each count's grid indices (margins keep rounded atoms on the grid), and the whole grid.
    first_k = np.floor(loss(np.clip(m / 2.0 - spread, 0.0, m)) / step) - 1.0
    last_k = np.ceil(loss(np.clip(m / 2.0 + spread, 0.0, m)) / step) + 1.0
    k_lo, k_hi = int(first_k.min()), int(last_k.max())
    bins = k_hi - k_lo + 1
    if bins > MAX_BINS:
        raise ValueError(f"step={step} needs {bins} grid points per round (> {MAX_BINS}): use a larger step")
    # Pessimistic: bin i holds losses in (edge_{i-1}, edge_i], edge_i = (k_lo + i) step, the mass
    # below edge_0 joins bin 0 and the mass above the last edge goes to +inf. Optimistic: bin i holds
    # [edge_i, edge_{i+1}), the mass below edge_0 is dropped and the mass above the top edge joins
    # the top bin. A chunk of counts uses the same rules on its own part of the edges.
    edges = (k_lo + np.arange(bins if pessimistic else bins + 1)) * step
    rtol = BINOM_RTOL + 64.0 * 2.0**-53
    total = np.zeros(bins)
    top = 0.0
    atoms = np.minimum(m, np.ceil(m / 2.0 + spread)) - np.maximum(0.0, np.floor(m / 2.0 - spread)) + 1.0
    for s in range(0, m.size, _CHUNK):
        rows = slice(s, s + _CHUNK)
        # The chunk's own part of the grid: the bins from i0 to i1 (its atoms within the spread).
        i0, i1 = int(first_k[rows].min()) - k_lo, int(last_k[rows].max()) - k_lo
        part = edges[i0 : i1 + (1 if pessimistic else 2)]
        if atoms[rows].sum() < 4.0 * part.size * atoms[rows].size:
            # Few atoms per clone count (small n, fine grid): enumerate them.
            top += _enumerate(
                total, m[rows], alpha[rows], beta[rows], weight[rows], spread[rows], step, k_lo, pessimistic, rtol
            )
            continue
        mm, aa, bb = m[rows, None], alpha[rows, None], beta[rows, None]
        e = np.exp(part)[None, :]
        thr = (e * (aa + bb * mm) - aa) / (bb * (1.0 + e))
        slack = 1e-9 * (1.0 + np.abs(thr))  # atoms on an edge go to the safe side
        # Pessimistic: j <= t iff loss(j) <= edge; optimistic: j <= t iff loss(j) < edge.
        t = np.floor(thr - slack) if pessimistic else np.ceil(thr + slack) - 1.0
        t = np.clip(t, -1.0, mm)
        # Mass between consecutive edges, from the cdf below the median and the sf above it: each
        # only where used (the first edge's cdf and the last edge's sf always).
        use_g = (t <= mm / 2.0)[:, 1:]
        need_g, need_sf = np.zeros(t.shape, dtype=bool), np.zeros(t.shape, dtype=bool)
        need_g[:, 0] = need_sf[:, -1] = True
        need_g[:, 1:] |= use_g
        need_g[:, :-1] |= use_g
        need_sf[:, 1:] |= ~use_g
        need_sf[:, :-1] |= ~use_g
        full = np.broadcast_arrays(mm, aa, bb, t)
        g, sf = np.zeros(t.shape), np.zeros(t.shape)
        g[need_g] = _mass_below(*(a[need_g] for a in full), cdf=True)
        sf[need_sf] = _mass_below(*(a[need_sf] for a in full), cdf=False)
        between = np.where(use_g, np.diff(g, axis=1), -np.diff(sf, axis=1))
        err = rtol * np.where(use_g, g[:, 1:] + g[:, :-1], sf[:, 1:] + sf[:, :-1])
        w = weight[rows]
        if pessimistic:
            per_bin = np.concatenate([g[:, :1], between], axis=1)
            err = np.concatenate([rtol * g[:, :1], err], axis=1)
            total[i0 : i1 + 1] += (np.maximum(per_bin, 0.0) + err).T @ w
            top += float((sf[:, -1] * (1.0 + rtol)) @ w)
        else:
            between[:, -1] += sf[:, -1]
            err[:, -1] += rtol * sf[:, -1]
            total[i0 : i1 + 1] += np.maximum(between - err, 0.0).T @ w
    if pessimistic:
        total *= 1.0 + rtol
        inf = min(1.0, inf_mass + top * (1.0 + rtol))
        return LossDistribution(step, k_lo, total, inf, True, max_loss=max_loss)
    return LossDistribution(step, k_lo, total, 0.0, False, max_loss=max_loss)


def _enumerate(total, m, a, b, w, spread, step, k_lo, pessimistic, rtol) -> float:
    """Add the atoms ``|j − m/2| <= spread`` of a chunk of clone counts (1-D arrays, one entry per
    count) to ``total``; return the mass sent to ``+∞``.

    The mass below the range joins the lowest bin (pessimistic) or is dropped; the
    mass above it goes to ``+∞`` (pessimistic) or joins the top bin.
    """
    first = np.maximum(0.0, np.floor(m / 2.0 - spread))
    last = np.minimum(m, np.ceil(m / 2.0 + spread))
    j = first[:, None] + np.arange(int(np.max(last - first)) + 1)[None, :]
    live = j <= last[:, None]
    j = np.where(live, j, first[:, None])  # padding: a valid atom, weight 0 below
    mm, aa, bb = m[:, None], a[:, None], b[:, None]
    pmf = binomial_pmf_rows(m, np.full(m.shape, 0.5), first, j.shape[1])
    p = pmf * (aa + bb * j) / (aa + bb * mm / 2.0)
    loss = np.log(aa + bb * j) - np.log(aa + bb * (mm - j))
    slack = 1e-12 * (1.0 + np.abs(loss)) / step
    k = (np.ceil(loss / step + slack) if pessimistic else np.floor(loss / step - slack)) - k_lo
    below = _mass_below(m, a, b, first - 1.0, cdf=True)
    above = _mass_below(m, a, b, last, cdf=False)
    bins = total.size
    scale = w * (1.0 + rtol if pessimistic else 1.0 - rtol)
    weights = p * scale[:, None] * live
    if pessimistic:
        inside = k < bins
        total += np.bincount(np.maximum(k[inside], 0).astype(np.int64), weights[inside], bins)
        total[0] += float(below @ scale)
        return float(above @ scale) + float(weights[~inside].sum())
    inside = k >= 0
    total += np.bincount(np.minimum(k[inside], bins - 1).astype(np.int64), weights[inside], bins)
    total[-1] += float(above @ scale)
    return 0.0


def clone_blocks_pld(
    local: float, counts: np.ndarray, weights: np.ndarray, step: float, *, inf_mass: float = 0.0
) -> LossDistribution:
    """Pessimistic discretized PLD of a clone pair given by blocks of its clone-count law.

    The convention of :mod:`shufflelib.bounds.clone_pair`: ``counts`` are the left ends
    of blocks of ``C`` (the other users' clones), ``weights`` their masses, ``local`` the
    victim's local log-odds ``L`` (``eps0`` for an ``eps0``-LDP randomizer; finite). Any
    block law that is a valid (stochastically smaller, left-end) replacement for ``C``
    gives a valid pessimistic distribution; ``inf_mass`` is mass left out of the blocks.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.clone_pld import clone_blocks_pld
    >>> ld = clone_blocks_pld(1.0, np.array([0.0]), np.array([1.0]), 1e-3)  # no clones: RR
    >>> round(ld.delta(0.0), 3)
    0.462
    """
    if not math.isfinite(local) or local <= 0:
        raise ValueError(f"local must be a finite log-odds > 0, got {local!r}")
    v = 2.0 / (1.0 + math.exp(local))  # u = 2 - v; u - v = 2 tanh(L/2), accurate for any L
    m = np.asarray(counts, dtype=float) + 1.0
    beta = np.full(m.shape, 2.0 * math.tanh(local / 2.0))
    return binomial_mixture(m, weights, v * m, beta, step, pessimistic=True, inf_mass=inf_mass, max_loss=local)


def clone_pair_pld(
    n: int, eps0: float, clone_probability: float, step: float, *, blocks: int = BLOCKS
) -> LossDistribution:
    """Pessimistic discretized PLD of the clone pair with ``C ~ Bin(n − 1, clone_probability)``.

    The pair is symmetric (``J → M − J`` swaps ``P`` and ``Q``), so this one
    distribution describes both orders. Every finite loss is at most ``eps0``.

    Examples
    --------
    >>> import math
    >>> from shufflelib.composition.clone_pld import clone_pair_pld
    >>> from shufflelib.bounds import StrongerClones
    >>> ld = clone_pair_pld(10_000, 1.0, 2 / (math.e + 1), step=1e-4)
    >>> exact = StrongerClones(mechanism="krr", k=2).delta(10_000, 1.0, 0.05)
    >>> bool(exact <= ld.delta(0.05) <= exact * 1.05)
    True
    """
    start, weight, below = clone_count_blocks(n - 1, clone_probability, blocks)
    return clone_blocks_pld(eps0, start, weight, step, inf_mass=below)
