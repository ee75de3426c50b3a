r"""The number of clones among heterogeneous users, and the clone pair's privacy curve.

Clone counts
------------
In every clone analysis, user ``i ≠ 1`` independently produces a clone of
user 1's report with probability ``q_i`` (``q_i = 2 p_i`` in Liu et al.), so
the number of clones ``C`` is Poisson-binomial. For a
:class:`~shufflelib.personalized.population.Population` the users of one level
share ``q``, so ``C`` is a sum of a few binomials. :class:`CloneCount` holds
its pmf on the range that matters:

* each binomial is cut to the integers outside which Bernstein's inequality
  leaves mass ``<= 1e-30`` per side (the neglected mass is carried along);
* the pmfs are convolved pairwise in a balanced tree, directly
  (``numpy.convolve``, relative accuracy ``~ 1e-13``) while small and by FFT
  when large; every FFT product adds the standard normwise error bound
  ``8 u log2(N) min(|a|_1 |b|_2, |a|_2 |b|_1)`` (``u = 2^-53``) to an
  absolute per-entry allowance :attr:`CloneCount.pmf_error`, which is charged
  to every expectation; once FFT noise is present the far tails are
  trimmed with a budget of ``1e-12`` per side and per product (charged as
  tail mass), so δ values below about ``1e-11`` need the direct path
  (``CloneCount.from_binomials(..., max_direct=...)``);
* more than ``max_groups`` distinct ``q`` are first merged into that many
  bins of equal width in ``q``, each bin using its **smallest** ``q`` (fewer
  clones: a stochastically smaller count, hence a larger, still valid δ).

Every consumer only needs ``E[h(C)]`` for a function ``h`` that is
**non-increasing** in ``C`` (one more clone is a post-processing: it adds a
fair coin), so :meth:`CloneCount.blocks` may also merge neighbouring counts
into blocks evaluated at their left end: the result stays an upper bound.

The clone pair
--------------
With clone count ``C`` and user 1's mixing weight ``w`` (user 1's report is
a clone of the *other* value with probability ``w``), the shuffled output is
a post-processing of ``P = (1−w) P_0 + w Q_0`` against ``Q = (1−w) Q_0 + w P_0``,
where, given ``C = m``, ``P_0`` puts ``V ~ Bin(m, 1/2)`` and ``Q_0`` puts
``1 + V`` reports on the ``x^1`` side (Feldman, McMillan and Talwar).
:func:`clone_pair_delta` computes ``H_{e^ε}(P‖Q)`` exactly: given ``M = m + 1``
special reports the divergence is
``2(1−2w)(1+e^ε)/M · E[(J − M/2 − d)^+]``, ``J ~ Bin(M, 1/2)``,
``d = M tanh(ε/2) / (2(1−2w))`` (zero once ``tanh(ε/2) >= 1 − 2w``), and the
pair is symmetric, so one order suffices. When the threshold ``M/2 + d`` is
within 64 atoms of the top ``M`` the expectation is summed directly (positive
terms: accurate for every ε, including the limit ``w = 0`` where δ never
vanishes); elsewhere the identity of :func:`binomial_excess` is used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.signal import fftconvolve
from scipy.special import expit, gammaln
from scipy.stats import binom

from .._validation import check_array, check_in_range, check_int

__all__ = [
    "CloneCount",
    "clone_pair_delta",
    "binomial_excess",
    "BINOM_RTOL",
    "TAIL",
    "MAX_GROUPS",
    "MAX_BLOCKS",
    "DIRECT_WORK",
    "FFT_TRIM",
]

#: Assumed relative accuracy of scipy's binomial pmf and sf (Boost; far better in practice).
BINOM_RTOL = 1e-9
#: Mass neglected on each side of the clone count (Bernstein bound, split among the binomials).
TAIL = 1e-30
#: Default largest number of distinct clone probabilities kept exactly.
MAX_GROUPS = 512
#: Default largest number of blocks :meth:`CloneCount.blocks` returns.
MAX_BLOCKS = 4096
#: Mass trimmed per side and per convolution once FFT rounding noise is present (δ floor of the FFT path).
FFT_TRIM = 1e-12
#: Below this many multiply-adds a convolution is done directly.
DIRECT_WORK = 50_000_000
_U = np.finfo(float).eps / 2
_LOG2 = math.log(2.0)


def binomial_excess(m: np.ndarray, p: float, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``E[(X − t)^+]`` for ``X ~ Bin(m, p)`` and ``t = m p + d``, with a bound on its rounding error.

    Uses ``E[(X − mp) 1{X >= s}] = m p (1 − p) Pr(Bin(m − 1, p) = s − 1)``
    (``s = floor(t) + 1``), so that
    ``E[(X − t)^+] = m p (1 − p) Pr(Bin(m−1, p) = s−1) − d Pr(X >= s)``: two
    terms, each accurate to ``BINOM_RTOL``; the returned error bound is
    ``BINOM_RTOL`` times the sum of their magnitudes.

    Examples
    --------
    >>> v, e = binomial_excess(np.array([4.0]), 0.5, np.array([-0.5]))  # E[(X - 1.5)^+]
    >>> round(float(v[0]), 12)  # (0.5 * 6 + 1.5 * 4 + 2.5 * 1) / 16
    0.71875
    """
    m, d = np.broadcast_arrays(np.asarray(m, dtype=float), np.asarray(d, dtype=float))
    value = np.zeros(m.shape)
    err = np.zeros(m.shape)
    t = m * p + d
    s = np.floor(t) + 1.0
    below = s <= 0  # every outcome exceeds t
    value[below] = -d[below]
    mid = (s > 0) & (s <= m)
    if mid.any():
        mm, dd, ss = m[mid], d[mid], s[mid]
        a = mm * p * (1.0 - p) * binom.pmf(ss - 1.0, mm - 1.0, p)
        b = -dd * binom.sf(ss - 1.0, mm, p)
        value[mid] = np.maximum(a + b, 0.0)
        err[mid] = BINOM_RTOL * (np.abs(a) + np.abs(b))
    return value, err


def _bernstein_range(c: np.ndarray, q: np.ndarray, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """Integers ``lo <= hi`` with ``P(X < lo), P(X > hi) <= tail`` for ``X ~ Bin(c, q)``.

    Bernstein's inequality for a sum of independent variables in ``[0, 1]``:
    ``P(X − cq >= t) <= exp(−t² / (2(σ² + t/3)))``, ``σ² = c q (1 − q)`` (and the
    same for ``cq − X``); ``t`` solves ``exp(...) = tail`` in closed form.
    """
    big_l = math.log(1.0 / tail)
    var = c * q * (1.0 - q)
    t = big_l / 3.0 + np.sqrt((big_l / 3.0) ** 2 + 2.0 * big_l * var)
    mean = c * q
    lo = np.maximum(np.floor(mean - t), 0.0)
    hi = np.minimum(np.ceil(mean + t), c)
    return lo.astype(np.int64), hi.astype(np.int64)


@dataclass(frozen=True)
class CloneCount:
    """The law of ``C = Σ_g Bin(counts[g], q[g])`` on ``[start, start + len(pmf))``.

    Attributes
    ----------
    start
        Smallest count represented.
    pmf
        Probabilities of ``C = start, start + 1, ...`` (each within
        :attr:`pmf_error` of the truth, up to a relative ``1e-9``).
    tail_low, tail_high
        Upper bounds on ``P(C < start)`` and ``P(C > start + len(pmf) − 1)``.
    pmf_error
        Absolute error allowance per entry (FFT products).
    trials
        Number of users who may clone (``Σ counts``).
    grouped
        Whether distinct ``q`` were merged into bins (rounded down).

    Examples
    --------
    >>> cc = CloneCount.from_binomials([0.2, 0.5], [10, 4])
    >>> round(cc.mean, 6)  # 10 * 0.2 + 4 * 0.5
    4.0
    >>> bool(abs(cc.pmf.sum() - 1) < 1e-12)
    True
    """

    start: int
    pmf: np.ndarray
    tail_low: float
    tail_high: float
    pmf_error: float
    trials: int
    grouped: bool

    @classmethod
    def from_binomials(
        cls,
        q: object,
        counts: object,
        *,
        max_groups: int = MAX_GROUPS,
        tail: float = TAIL,
        max_direct: float = DIRECT_WORK,
    ) -> CloneCount:
        """Build the clone count of ``counts[g]`` users cloning with probability ``q[g]``.

        Parameters
        ----------
        q
            Clone probabilities in ``[0, 1]`` (1-D).
        counts
            Numbers of users (integers >= 0), same length.
        max_groups
            Largest number of distinct ``q`` kept exactly (>= 1).
        tail
            Mass neglected per side, in ``(0, 1e-3]`` (split among the binomials).
        max_direct
            Convolutions of at most this many multiply-adds are done directly
            (exact); larger ones by FFT. ``math.inf`` forces the direct path.

        Examples
        --------
        >>> cc = CloneCount.from_binomials([0.3], [1_000_000])
        >>> cc.start > 290_000, cc.pmf.size < 20_000
        (True, True)
        """
        q = check_array("q", q, ndim=1, low=0.0, high=1.0)
        c = check_array("counts", counts, ndim=1, low=0.0, integral=True)
        if q.size != c.size:
            raise ValueError(f"counts must have one entry per q ({q.size}), got {c.size}")
        max_groups = check_int("max_groups", max_groups, minimum=1)
        tail = check_in_range("tail", tail, 0.0, 1e-3, closed_low=False)
        if not (isinstance(max_direct, (int, float)) and max_direct >= 0):
            raise ValueError(f"max_direct must be a number >= 0, got {max_direct!r}")
        trials = int(c.sum())
        keep = (c > 0) & (q > 1e-250)  # rarer clones are dropped: fewer clones, a larger (valid) δ
        q, c = q[keep], c[keep]
        grouped = False
        if q.size:
            q, inverse = np.unique(q, return_inverse=True)
            c = np.bincount(inverse.ravel(), weights=c).astype(float)
        if q.size > max_groups:
            grouped = True
            edges = np.linspace(q[0], q[-1], max_groups + 1)
            bins = np.clip(np.searchsorted(edges, q, side="right") - 1, 0, max_groups - 1)
            q_new = np.array([q[bins == b].min() for b in np.unique(bins)])
            c_new = np.array([c[bins == b].sum() for b in np.unique(bins)])
            q, c = q_new, c_new
        if q.size == 0:
            return cls(0, np.array([1.0]), 0.0, 0.0, 0.0, trials, grouped)
        lo, hi = _bernstein_range(c, q, tail / max(q.size, 1))
        widths = hi - lo + 1
        x = np.concatenate([np.arange(a, b + 1, dtype=float) for a, b in zip(lo, hi, strict=True)])
        pmf_all = binom.pmf(x, np.repeat(c, widths), np.repeat(q, widths))  # one vectorized call
        cuts = np.cumsum(widths)[:-1]
        pieces = [(int(a), piece) for a, piece in zip(lo, np.split(pmf_all, cuts), strict=True)]
        start, pmf, err, low, high = _tree_convolve(pieces, tail, max_direct)
        return cls(
            start=start,
            pmf=pmf,
            tail_low=float(tail) + low,
            tail_high=float(tail) + high,
            pmf_error=err,
            trials=trials,
            grouped=grouped,
        )

    @property
    def mean(self) -> float:
        """Mean of the represented pmf."""
        return float(np.dot(np.arange(self.start, self.start + self.pmf.size), self.pmf))

    @property
    def support(self) -> np.ndarray:
        """The counts ``start, ..., start + len(pmf) − 1``."""
        return np.arange(self.start, self.start + self.pmf.size, dtype=float)

    def blocks(self, max_blocks: int = MAX_BLOCKS) -> tuple[np.ndarray, np.ndarray]:
        """Counts ``m_b`` and weights ``ω_b`` with ``E[h(C)] <= Σ_b ω_b h(m_b)`` for every
        non-increasing ``h`` with values in ``[0, 1]``.

        The weights carry the block masses, the per-entry error allowance and
        both neglected tails (the lower tail at count 0, the upper tail at the
        last count).

        Examples
        --------
        >>> cc = CloneCount.from_binomials([0.5], [100])
        >>> m, w = cc.blocks(8)
        >>> m.size <= 10, bool(abs(w.sum() - 1) < 1e-12)
        (True, True)
        """
        max_blocks = check_int("max_blocks", max_blocks, minimum=1)
        size = self.pmf.size
        width = max(1, math.ceil(size / max_blocks))
        starts = np.arange(0, size, width)
        mass = np.add.reduceat(self.pmf, starts) + self.pmf_error * np.diff(np.append(starts, size))
        m = (self.start + starts).astype(float)
        m = np.concatenate([[0.0], m, [float(self.start + size - 1)]])
        w = np.concatenate([[self.tail_low], mass, [self.tail_high]])
        return m, w


def _tree_convolve(
    pieces: list[tuple[int, np.ndarray]], trim: float, max_direct: float
) -> tuple[int, np.ndarray, float, float, float]:
    """Convolve ``(offset, pmf)`` pieces pairwise, trimming far tails.

    Returns the offset, the pmf, the per-entry FFT error allowance and upper
    bounds on the mass trimmed below and above (each trimmed end holds at most
    ``trim`` of computed mass, plus the allowance of its entries).
    """
    err = 0.0
    low = high = 0.0
    items = list(pieces)
    while len(items) > 1:
        items.sort(key=lambda it: it[1].size)
        merged = []
        for k in range(0, len(items) - 1, 2):
            (oa, a), (ob, b) = items[k], items[k + 1]
            if a.size * b.size <= max_direct:
                out = np.convolve(a, b)
            else:
                out = np.maximum(fftconvolve(a, b), 0.0)
                n_fft = 1 << int(math.ceil(math.log2(a.size + b.size - 1)))
                l1a, l1b = float(a.sum()), float(b.sum())
                l2a, l2b = math.sqrt(float(a.max()) * l1a), math.sqrt(float(b.max()) * l1b)  # >= |.|_2
                err += 8 * _U * math.log2(n_fft) * min(l1a * l2b, l2a * l1b)
            offset = oa + ob
            # Trim each end while its mass (computed, plus the allowance of its entries) stays
            # below the budget: `trim` for exact pmfs, FFT_TRIM once FFT noise is present.
            budget = trim if err == 0 else max(trim, FFT_TRIM)
            ramp = err * np.arange(1, out.size + 1)
            cut_lo = int(np.searchsorted(np.cumsum(out) + ramp, budget, side="right"))
            cut_hi = int(np.searchsorted(np.cumsum(out[::-1]) + ramp, budget, side="right"))
            cut_lo = min(cut_lo, int(np.argmax(out)))
            cut_hi = min(cut_hi, out.size - 1 - cut_lo)
            low += float(out[:cut_lo].sum()) + err * cut_lo
            high += float(out[out.size - cut_hi:].sum()) + err * cut_hi
            merged.append((offset + cut_lo, out[cut_lo : out.size - cut_hi]))
        if len(items) % 2:
            merged.append(items[-1])
        items = merged
    start, pmf = items[0]
    return start, pmf, err, low, high


def clone_pair_delta(eps: object, w: float, count: CloneCount, *, max_blocks: int = MAX_BLOCKS) -> np.ndarray:
    """``H_{e^ε}(P‖Q)`` of the clone pair with weight ``w`` and clone count ``count`` (vectorized in ε).

    Exact up to the stated tolerances: binomial functions to a relative
    ``1e-9`` (propagated through the cancellation and added), the clone
    count's error allowance and tails, and the blocks of
    :meth:`CloneCount.blocks` (evaluated at their left ends, which can only
    increase δ; exact when the count's range has at most ``max_blocks``
    values).

    Parameters
    ----------
    eps
        Central ε values (>= 0), any shape.
    w
        User 1's mixing weight in ``[0, 1/2)``.
    count
        The clone count of the other users.
    max_blocks
        Largest number of blocks of counts.

    Returns
    -------
    numpy.ndarray
        δ(ε), same shape as ``eps``.

    Examples
    --------
    >>> import math
    >>> cc = CloneCount.from_binomials([0.0], [0])  # no other users: the local pair
    >>> w = 1 / (1 + math.e)                        # randomized response, eps0 = 1
    >>> d = clone_pair_delta(0.5, w, cc)
    >>> round(float(d), 6), round((math.e - math.exp(0.5)) / (1 + math.e), 6)
    (0.287649, 0.287649)
    """
    e = check_array("eps", eps, low=0.0)
    w = check_in_range("w", w, 0.0, 0.5, closed_high=False)
    shape = e.shape
    flat = np.atleast_1d(e).ravel()
    m, weight = count.blocks(max_blocks)
    big_m = m + 1.0
    gap = 1.0 - 2.0 * w
    # The threshold t = M − M κ sits a fraction κ = (σ(−ε) − w)/(1 − 2w) below the top
    # (σ the logistic function; 1 − tanh(ε/2) = 2σ(−ε) keeps κ accurate for large ε).
    kappa = (expit(-flat) - w) / gap
    out = np.zeros(flat.shape)
    live = kappa > 0
    if live.any():
        kk = kappa[live][:, None]
        ee = flat[live][:, None]
        value, err = _excess_below_top(big_m, big_m[None, :] * kk)
        log_scale = math.log(2.0 * gap) + np.logaddexp(0.0, ee) - np.log(big_m)[None, :]
        terms = np.zeros(value.shape)
        pos = (value + err) > 0
        terms[pos] = np.exp(np.log((value + err)[pos]) + np.broadcast_to(log_scale, value.shape)[pos])
        out[live] = np.minimum((terms @ weight) * (1.0 + BINOM_RTOL), 1.0)
    return out.reshape(shape) if shape else out[0:1].reshape(())


#: Thresholds at most this many atoms below the top are summed directly (no cancellation).
_TOP_ATOMS = 64


def _excess_below_top(big_m: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``E[(J − (M − x))^+]`` for ``J ~ Bin(M, 1/2)``, ``M = big_m[b]``, ``0 < x[e, b] <= M/2``.

    Near the top (``x < 64``) the sum ``Σ_{k < x} Pr(J = M − k)(x − k)`` has positive
    terms only (the top pmf values depend on ``M`` alone and are tabulated once);
    elsewhere :func:`binomial_excess` is used. Returns the value and an error bound.
    """
    big_m = np.asarray(big_m, dtype=float)
    x = np.asarray(x, dtype=float)
    value = np.zeros(x.shape)
    err = np.zeros(x.shape)
    near = x < _TOP_ATOMS
    if near.any():
        k = np.arange(int(math.ceil(float(x[near].max()))) + 1, dtype=float)
        kk = np.minimum(k[None, :], big_m[:, None])
        mcol = big_m[:, None]
        log_top = gammaln(mcol + 1) - gammaln(kk + 1) - gammaln(mcol - kk + 1) - mcol * _LOG2
        top = np.where(k[None, :] <= big_m[:, None], np.exp(log_top), 0.0)  # Pr(J = M − k), shape (B, K)
        gaps = np.maximum(np.where(near, x, 0.0)[:, :, None] - k[None, None, :], 0.0)
        v = np.einsum("ebk,bk->eb", gaps, top)
        value = np.where(near, v, value)
        err = np.where(near, 2 * BINOM_RTOL * v, err)
    far = ~near
    if far.any():
        m_full = np.broadcast_to(big_m[None, :], x.shape)
        v, er = binomial_excess(m_full[far], 0.5, m_full[far] / 2.0 - x[far])
        value[far], err[far] = v, er
    return value, err
