r"""The privacy loss distribution of a clone pair, from its atoms, on a grid.

A clone pair (:class:`~shufflelib.bounds.clones.ClonePairBound`) is a mixture
over the number of clones ``M = C + 1`` of pairs on ``J ∈ {0, …, M}``:

.. math::

    P(j \mid m) = b_m(j)\,\frac{\alpha_m + \beta_m j}{\alpha_m + \beta_m m/2}, \qquad
    Q(j \mid m) = b_m(j)\,\frac{\alpha_m + \beta_m (m - j)}{\alpha_m + \beta_m m/2},

``b_m = Bin(m, 1/2)`` (clones: ``α_m = v m``, ``β_m = u − v``, ``u = 2e^{ε₀}/(e^{ε₀}+1)``,
``v = 2 − u``), with loss ``log((α + βj)/(α + β(m − j)))``, increasing in ``j``.

Atoms. For each clone count the atoms within ``_Z = 12`` binomial standard deviations of
``m/2`` are listed (their pmfs by :func:`~shufflelib.bounds.clone_pair.binomial_pmf_rows`,
trusted to ``BINOM_RTOL``) and put on the grid by :mod:`~shufflelib.composition.pld`'s
connect-the-dots (an upper bound) or merging (a lower bound): both need each atom's own loss,
which is what makes their error of second order (a bin's mass from differences of
distribution functions would carry ``BINOM_RTOL`` of the *cdf* into the split, a first-order
error at fine grids). The mass beyond the listed atoms (below ``1e-32`` per count) goes to
the lowest grid point or to ``+∞`` (upper bound) or is dropped (lower bound).

Clone counts (:func:`clone_count_law`). The central range of ``C`` (binomial tail ``1e-40``
per side) is cut into blocks: one per count up to 1024 counts, else blocks whose width is at
most ``BLOCK_RTOL = 2e-4`` of their first count (the relative change of the loss scale
across a block is then below ``1e-4``: at 10⁶ users about 140 blocks, at 10⁹ a handful). An
upper bound uses each block's *smallest* count (one more clone is a post-processing: a fair
coin added to ``A``, so fewer clones can only worsen the pair), sends the tail below the
range to ``+∞`` and puts the tail above into the last block; a lower bound uses each block's
*largest* count and drops both tails (removing mass only lowers δ). So the atoms number about
``12 · 18.6 / BLOCK_RTOL ≈ 10⁶`` at most, whatever ``n``. Where the blocks are wider than half
a standard deviation of ``C`` (large ``n``, ``C`` concentrated), a fine build adds blocks starting
at ``CENTRE_STARTS`` standard deviations from its mean, as many as ``REFINE_ATOMS`` atoms allow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .._laws import binom
from ..bounds.clone_pair import BINOM_RTOL, binomial_interval_mass, binomial_pmf_rows, binomial_range, row_chunks
from .model import METER
from .pld import KINDS, MERGE_REACH, LossDistribution, _Grid

__all__ = [
    "BLOCK_RTOL",
    "CENTRE_STARTS",
    "REFINE_ATOMS",
    "round_blocks",
    "clone_count_law",
    "Atoms",
    "binomial_mixture",
    "mixture_atoms",
    "clone_blocks_pld",
    "clone_pair_pld",
]

#: Tail of the clone count outside the blocks (per side).
CENTRAL_TAIL = 1e-40
#: Number of blocks of :func:`round_blocks` (the personalized and population clone counts).
BLOCKS = 128
#: Central ranges up to this many clone counts are not grouped.
EXACT_COUNTS = 1024
#: Largest width of a block of clone counts, relative to its first count (:func:`clone_count_law`).
BLOCK_RTOL = 2e-4
#: Extra block starts of a fine build where the blocks are wide (:func:`clone_count_law`'s ``blocks``),
#: in standard deviations of the clone count from its mean, the most useful first.
CENTRE_STARTS = np.array([-1.0, 0.0, 1.0, -2.0, -0.5, 0.5, 2.0, -1.5, 1.5, -3.0, -2.5, 2.5, 3.0, -4.5, 4.5])
#: Atoms (about ``_Z sqrt(m)`` per clone count) up to which a fine build adds those blocks.
REFINE_ATOMS = 2**20
#: Width of the listed atoms, in binomial standard deviations of ``J`` on each side of ``m/2``.
_Z = 12.0
#: The cheaper list of a coarse build (:func:`clone_pair_pld`): blocks and atom range.
COARSE_BLOCK_RTOL, COARSE_Z = 4e-3, 9.0
#: Largest number of grid points of one round's distribution.
MAX_BINS = 2**22
#: Largest number of atoms listed at once (bounds the memory of a chunk of clone counts).
_CHUNK_ATOMS = 2_000_000


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


def clone_count_law(
    trials: int, prob: float, *, upper: bool = True, width_rtol: float = BLOCK_RTOL, blocks: int = 0
) -> tuple[np.ndarray, np.ndarray, float]:
    """Blocks of ``C ~ Bin(trials, prob)``: one count and one mass per block, and the mass left out.

    See the module docstring: an upper bound (``upper``) gets each block's first count, masses
    rounded up (their error bound added) and the tail below the central range as the mass left
    out (for ``+∞``); a lower bound gets each block's last count, masses rounded down and no
    tails (0 left out).

    ``blocks``: where the blocks are wider than half a standard deviation of ``C`` and fewer than
    ``blocks``, more start at ``mean + CENTRE_STARTS · sd`` (the first ones, up to ``blocks`` in
    all; a refinement: every count's representative moves towards it, so an upper bound only
    gets tighter and a lower one too). Over a narrow law (10⁷ users, ε₀ near 0: the central
    range is a few thousand counts, a few blocks) the blocks alone stand a count up to 13
    standard deviations below the mean for most of the mass: about 1e-4 of ε.

    Examples
    --------
    >>> from shufflelib.composition.clone_pld import clone_count_law
    >>> counts, mass, below = clone_count_law(10, 0.5)  # few counts: one block each
    >>> counts.tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]
    >>> up, m_up, _ = clone_count_law(10**6, 0.5)
    >>> low, m_low, _ = clone_count_law(10**6, 0.5, upper=False)
    >>> up.size, bool(((low - up) <= 2e-4 * up).all()), 1.0 <= float(m_up.sum() + below) < 1.0 + 1e-8
    (136, True, True)
    """
    lo, hi = binomial_range(trials, prob, CENTRAL_TAIL)
    size = hi - lo + 1
    # One block per count where the counts are few or small (each then narrower than width_rtol of
    # itself); wide blocks where they are many or large (10^9 users, ε₀ near 0: a few hundred counts
    # near 10^9, one block rather than 10^8 atoms).
    width = max(1, math.floor(width_rtol * max(lo, 1)))
    if size <= EXACT_COUNTS and width * 4 <= size:
        width = 1  # few counts, each a small part of the range: every count exact
    start = np.arange(lo, hi + 1, width, dtype=float)
    sd = math.sqrt(trials * prob * (1.0 - prob))
    if blocks > start.size and width > sd / 2.0:
        extra = np.floor(trials * prob + CENTRE_STARTS * sd)
        extra = extra[(extra > lo) & (extra <= hi)][: blocks - start.size]
        start = np.unique(np.concatenate([start, extra]))
    stop = np.append(start[1:] - 1.0, float(hi))
    if upper:
        stop[-1] = float(trials)  # the last block absorbs the upper tail
        mass, err = binomial_interval_mass(start, stop, trials, prob)
        below = float(binom.cdf(lo - 1.0, trials, prob)) * (1.0 + BINOM_RTOL) if lo > 0 else 0.0
        return start, mass + err, below
    mass, err = binomial_interval_mass(start, stop, trials, prob)
    return stop, np.maximum(mass - err, 0.0), 0.0


def _mass_beyond(m, alpha, beta, t, below: bool):
    """``P(J <= t | m)`` (``below``) or ``P(J > t | m)`` for integer thresholds ``t`` (closed forms,
    ``j b_m(j) = (m/2) b_{m−1}(j − 1)``)."""
    f = binom.cdf if below else binom.sf
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
    kind: str | None = None,
    inf_mass: float = 0.0,
    max_loss: float = math.inf,
    reach: int = MERGE_REACH,
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
        An upper bound on every δ (connect the dots) or a lower bound (merging).
    kind
        One of :data:`~shufflelib.composition.pld.KINDS`, overriding ``pessimistic``'s default.
    inf_mass
        Extra mass at loss ``+∞`` (e.g. clone counts left out; upper bounds only).
    max_loss
        A known bound on every finite loss.
    reach
        How far merging may carry a part of a bin (:func:`~shufflelib.composition.pld.discretize`).

    Examples
    --------
    One clone (``m = 1``) is randomized response: losses ``±eps0``.

    >>> import numpy as np
    >>> from shufflelib.composition.clone_pld import binomial_mixture
    >>> u = 2 * np.e / (1 + np.e)
    >>> ld = binomial_mixture(np.array([1.0]), np.array([1.0]), np.array([2 - u]), np.array([2 * u - 2]), 1e-3)
    >>> round(float(ld.delta(0.0)), 6), round(float((np.e - 1) / (np.e + 1)), 6)
    (0.462117, 0.462117)
    """
    kind = kind if kind is not None else ("dots" if pessimistic else "merge")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    atoms = _recent_atoms(m, weight, alpha, beta, upper=kind in ("dots", "up"))
    return atoms.discretize(step, kind, inf_mass=inf_mass, max_loss=max_loss, reach=reach)


#: The atoms of the last few mixtures (:func:`_recent_atoms`).
_ATOMS: dict[tuple, Atoms] = {}


def _recent_atoms(m: np.ndarray, weight: np.ndarray, alpha: np.ndarray, beta: np.ndarray, *, upper: bool) -> Atoms:
    """:func:`mixture_atoms`, remembered for the last two mixtures: a composed question discretizes
    the same mixture on several grids (the fitted step, its companions, a coarser first stage),
    and the atoms do not depend on the grid (pop-tight, poisson:1e9: 1.9 million atoms, 0.15 s
    a list, five lists per question)."""
    arrays = [np.ascontiguousarray(np.broadcast_to(a, np.shape(m)), dtype=float) for a in (m, weight, alpha, beta)]
    key = (upper, *(a.tobytes() for a in arrays))
    if key not in _ATOMS:
        while len(_ATOMS) >= 2:
            _ATOMS.pop(next(iter(_ATOMS)))
        _ATOMS[key] = mixture_atoms(*arrays, upper=upper)
    return _ATOMS[key]


@dataclass(frozen=True)
class Atoms:
    """The listed atoms of a mixture of clone-like pairs (:func:`mixture_atoms`).

    ``loss``, ``p`` and ``error`` (a bound on each loss's rounding) describe the atoms;
    ``bottom`` and ``top`` are the P-masses beyond them (upper bounds: at the lowest grid point
    and at ``+∞``; 0 for a lower bound, which drops them); ``upper`` says which side the masses
    were rounded to.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.clone_pld import Atoms
    >>> atoms = Atoms(np.array([-0.05, 0.05]), np.array([0.4, 0.6]), np.zeros(2), 0.0, 0.0, True)
    >>> atoms.discretize(0.03, "dots").losses.round(2).tolist()
    [-0.06, -0.03, 0.0, 0.03, 0.06]
    """

    loss: np.ndarray
    p: np.ndarray
    error: np.ndarray
    bottom: float
    top: float
    upper: bool

    def discretize(
        self, step: float, kind: str, *, inf_mass: float = 0.0, max_loss: float = math.inf, reach: int = MERGE_REACH
    ) -> LossDistribution:
        """The atoms on the grid ``step · ℤ`` (``kind`` on the side the atoms were rounded to).

        Counted by :data:`~shufflelib.composition.model.METER` as if the atoms were listed afresh (the
        work of a composed search's candidate that its grid does not show; listed or remembered,
        the same count, so that a budget-limited answer does not depend on what the process
        computed before)."""
        if (kind in ("dots", "up")) != self.upper:
            raise ValueError(f"kind={kind!r} is on the other side of these atoms (upper={self.upper})")
        METER.listed(self.loss.size)
        if self.loss.size:
            bins = (float(self.loss.max()) - float(self.loss.min())) / step + 2.0
            if bins > MAX_BINS:
                raise ValueError(
                    f"step={step} needs {math.ceil(bins)} grid points per round (> {MAX_BINS}): use a larger step"
                )
        grid = _Grid(step, kind, reach)
        grid.add(self.loss, self.p, self.error)
        grid.bottom = self.bottom
        return grid.result(pessimistic_inf=(inf_mass + self.top) if self.upper else 0.0, max_loss=max_loss)


def mixture_atoms(
    m: np.ndarray, weight: np.ndarray, alpha: np.ndarray, beta: np.ndarray, *, upper: bool, z: float = _Z
) -> Atoms:
    """The atoms ``|j − m/2| <= z sqrt(m)/2`` of ``Σ_m weight_m (P(·|m), Q(·|m))`` (default ``z = 12``),
    masses rounded up (``upper``) or down by ``BINOM_RTOL``, and the masses beyond them (module
    docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.clone_pld import mixture_atoms
    >>> atoms = mixture_atoms(np.array([1.0]), np.array([1.0]), np.array([0.5]), np.array([1.0]), upper=True)
    >>> np.round(atoms.loss, 4).tolist(), np.round(atoms.p, 4).tolist()  # losses ±log 3
    ([-1.0986, 1.0986], [0.25, 0.75])
    """
    m = np.asarray(m, dtype=float)
    weight = np.asarray(weight, dtype=float)
    alpha, beta = np.broadcast_to(alpha, m.shape).astype(float), np.broadcast_to(beta, m.shape).astype(float)
    spread = z * np.sqrt(m) / 2.0
    first = np.maximum(0.0, np.floor(m / 2.0 - spread))
    last = np.minimum(m, np.ceil(m / 2.0 + spread))
    scale = 1.0 + BINOM_RTOL if upper else 1.0 - BINOM_RTOL
    sizes = last - first + 1.0
    losses, masses, errors = [], [], []
    bottom = top = 0.0
    for rows in row_chunks(sizes, _CHUNK_ATOMS):  # tables of at most _CHUNK_ATOMS atoms
        mm, aa, bb, ww = m[rows], alpha[rows], beta[rows], weight[rows] * scale
        width = int(np.max(sizes[rows]))
        live = np.arange(width, dtype=float)[None, :] <= (last[rows] - first[rows])[:, None]
        pmf = binomial_pmf_rows(mm, np.full(mm.shape, 0.5), first[rows], width)
        # p = pmf · num / (α + β m/2) · weight, with num = α + β j, in one table (in place)
        p = first[rows, None] + np.arange(width, dtype=float)[None, :]
        p *= bb[:, None]
        p += aa[:, None]
        p /= (aa + bb * mm / 2.0)[:, None]
        p *= pmf
        p *= ww[:, None]
        keep = live & (p > 0.0)
        counts = np.count_nonzero(keep, axis=1)  # the atoms, row by row: each row's values repeated
        jk = np.repeat(first[rows], counts) + np.nonzero(keep)[1]
        mk, ak, bk = np.repeat(mm, counts), np.repeat(aa, counts), np.repeat(bb, counts)
        nk, dk, diff = ak + bk * jk, ak + bk * (mk - jk), bk * (2.0 * jk - mk)
        # The loss log(num/den) as log1p(β (2j − m)/den): its error is relative to the loss itself
        # (log num − log den carried ~1e-14 absolute from logarithms near log n, against losses of
        # 1e-10 at a tiny eps0: moved up by that bound, 100 rounds gained 4e-4 of ε).
        # Where |x| >= 1/2 (num and den far apart: a large eps0), the two logarithms, as before.
        with np.errstate(divide="ignore", invalid="ignore"):
            x = diff / dk
            far = ~(np.abs(x) < 0.5)
            if far.any():
                x[far] = 0.0  # read below
            loss = np.log1p(x)
            size = np.abs(diff)
            error = np.abs(loss) + (size / nk + size / dk)
            if far.any():
                log_num, log_den = np.log(nk[far]), np.log(dk[far])
                loss[far] = log_num - log_den
                error[far] = np.abs(log_num) + np.abs(log_den) + 4.0
        error *= 16.0 * 2.0**-53
        losses.append(loss)
        masses.append(p[keep])
        errors.append(error)
        if upper:
            bottom += float(_mass_beyond(mm, aa, bb, first[rows] - 1.0, True) @ ww)
            top += float(_mass_beyond(mm, aa, bb, last[rows], False) @ ww)
    return Atoms(np.concatenate(losses), np.concatenate(masses), np.concatenate(errors), bottom, top, upper)


def clone_blocks_pld(
    local: float,
    counts: np.ndarray,
    weights: np.ndarray,
    step: float,
    *,
    inf_mass: float = 0.0,
    pessimistic: bool = True,
    reach: int = MERGE_REACH,
) -> LossDistribution:
    """Discretized PLD of a clone pair given by blocks of its clone-count law.

    The convention of :mod:`shufflelib.bounds.clone_pair`: ``counts`` are the counts of ``C``
    (the other users' clones) standing for blocks, ``weights`` their masses, ``local`` the
    victim's local log-odds ``L`` (``eps0`` for an ``eps0``-LDP randomizer; finite). For an
    upper bound (``pessimistic``, connect the dots) any block law that is a valid
    (stochastically smaller, e.g. left-end) replacement for ``C`` gives a valid distribution,
    and ``inf_mass`` is mass left out of the blocks; for a lower bound (merging) the law must
    be stochastically larger (right ends), with any mass left out; ``reach``: see
    :func:`~shufflelib.composition.pld.discretize`.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.clone_pld import clone_blocks_pld
    >>> ld = clone_blocks_pld(1.0, np.array([0.0]), np.array([1.0]), 1e-3)  # no clones: RR
    >>> round(ld.delta(0.0), 6)
    0.462117
    """
    if not math.isfinite(local) or local <= 0:
        raise ValueError(f"local must be a finite log-odds > 0, got {local!r}")
    v = 2.0 / (1.0 + math.exp(local))  # u = 2 - v; u - v = 2 tanh(L/2), accurate for any L
    m = np.asarray(counts, dtype=float) + 1.0
    beta = np.full(m.shape, 2.0 * math.tanh(local / 2.0))
    return binomial_mixture(
        m, weights, v * m, beta, step, pessimistic=pessimistic, inf_mass=inf_mass, max_loss=local, reach=reach
    )


def clone_pair_pld(
    n: int,
    eps0: float,
    clone_probability: float,
    step: float,
    *,
    pessimistic: bool = True,
    reach: int = MERGE_REACH,
    coarse: bool = False,
) -> LossDistribution:
    """Discretized PLD of the clone pair with ``C ~ Bin(n − 1, clone_probability)``: an upper bound
    (``pessimistic``, connect the dots on the blocks' first counts) or a lower bound (merging on
    their last counts, carrying parts of bins up to ``reach`` grid points), :func:`clone_count_law`.
    ``coarse``: a cheaper, still valid list (blocks ``COARSE_BLOCK_RTOL`` wide, atoms within
    ``COARSE_Z`` deviations, the rest at ``+∞``), for a search's first guesses.

    The pair is symmetric (``J → M − J`` swaps ``P`` and ``Q``), so this one
    distribution describes both orders. Every finite loss is at most ``eps0``.

    Examples
    --------
    >>> import math
    >>> from shufflelib.composition.clone_pld import clone_pair_pld
    >>> from shufflelib.bounds import StrongerClones
    >>> up = clone_pair_pld(10_000, 1.0, 2 / (math.e + 1), step=1e-4)
    >>> low = clone_pair_pld(10_000, 1.0, 2 / (math.e + 1), step=1e-4, pessimistic=False)
    >>> exact = StrongerClones(mechanism="krr", k=2).delta(10_000, 1.0, 0.05)  # itself rounded up by ~1e-9
    >>> bool(low.delta(0.05) <= exact), abs(up.delta(0.05) / exact - 1) < 1e-6, low.delta(0.05) / exact > 0.99
    (True, True, True)
    """
    atoms, below = _clone_pair_atoms(int(n), float(eps0), float(clone_probability), bool(pessimistic), bool(coarse))
    kind = "dots" if pessimistic else "merge"
    return atoms.discretize(step, kind, inf_mass=below, max_loss=eps0, reach=reach)


@lru_cache(maxsize=4)
def _clone_pair_atoms(
    n: int, eps0: float, clone_probability: float, upper: bool, coarse: bool = False
) -> tuple[Atoms, float]:
    """The atoms of :func:`clone_pair_pld`'s pair (cached: a curve's companions list them once for
    several grids) and the clone-count mass left out."""
    if not math.isfinite(eps0) or eps0 <= 0:
        raise ValueError(f"eps0 must be a finite number > 0, got {eps0!r}")
    width = COARSE_BLOCK_RTOL if coarse else BLOCK_RTOL
    blocks = 0 if coarse else int(REFINE_ATOMS / (_Z * math.sqrt((n - 1) * clone_probability + 1.0) + 2.0))
    counts, weight, below = clone_count_law(n - 1, clone_probability, upper=upper, width_rtol=width, blocks=blocks)
    v = 2.0 / (1.0 + math.exp(eps0))
    m = counts + 1.0
    beta = np.full(m.shape, 2.0 * math.tanh(eps0 / 2.0))
    return mixture_atoms(m, weight, v * m, beta, upper=upper, z=COARSE_Z if coarse else _Z), below
