r"""A sound privacy bound for shuffled personalized randomizers: valid clone decompositions.

Why the paper's probabilities are not enough
--------------------------------------------
The clone argument of Feldman, McMillan and Talwar needs genuine mixture
decompositions. For the target user ``t`` with neighbouring inputs ``a, a'``:

.. math::

    R_t(a) = (1-w) Q_0 + w Q_1, \quad R_t(a') = w Q_0 + (1-w) Q_1, \qquad
    R_i(x) = p_i Q_0 + p_i Q_1 + (1 - 2p_i) LO_i \quad (i \ne t),

with :math:`Q_0, Q_1, LO_i` probability distributions. Since
:math:`Q_0 + Q_1 = R_t(a) + R_t(a')`, this holds iff the likelihood ratio of
:math:`R_t(a), R_t(a')` is at most :math:`(1-w)/w` and
:math:`R_i(x) \ge p_i\,(R_t(a) + R_t(a'))` **pointwise**. The type I errors of
Liu et al. (2024) are larger than these constants for the Laplace and Gaussian
mechanisms (e.g. :math:`p_1 = \tfrac12 e^{-\varepsilon/2} > 1/(1+e^{\varepsilon})`),
so no decomposition with their weights exists. Here the constants are
computed from the pointwise conditions, for **every** pair ``a, a'`` in
``[0, 1]``, every input ``x`` and every target user.

The bounds
----------
``"rr"`` (binary randomized response)
    :math:`R_t(0), R_t(1)` are exactly :math:`(1-w_t)\delta_b + w_t\delta_{1-b}`
    with :math:`w_t = 1/(1+e^{\varepsilon_t})`, and
    :math:`R_i(x) \ge \tfrac{1}{1+e^{\varepsilon_i}}(\delta_0 + \delta_1)`, so
    :math:`q_i = 2/(1+e^{\varepsilon_i})` does not depend on the target. The
    clone-pair δ decreases in ``w`` and in the clone count, so one computation
    covers every target: ``w`` of the largest ε and the clone count of all
    users but one user of the level with the largest ``q``
    (a stochastically smaller count than any target's).
``"laplace"`` and ``"gaussian"``
    The target's report is split on the event that it lands in
    :math:`I = [\min(a,a') - T, \max(a,a') + T]`: outside (probability at most
    δ', the two tails beyond ``T``) anything may leak; inside, the
    likelihood ratio is at most :math:`e^{L}` (Laplace :math:`L = \varepsilon_t`,
    Gaussian :math:`L = (T + 1/2)/\sigma_t^2`, with :math:`T = \sigma_t \Phi^{-1}(1 - \delta'/2)`)
    and every other report
    dominates :math:`p_i(R_t(a) + R_t(a'))` on ``I`` with
    :math:`2p_i = (1-\delta')\min_{z \in [-T, 1+T]} R_i(\mathrm{far}(z)) / R_t(\mathrm{near}(z))`,
    where far and near are the distances from ``z`` to the farthest and nearest
    point of ``[0, 1]`` (closed-form minima: the log-ratio is piecewise
    quadratic or concave in the distance). Joint convexity gives
    :math:`\delta(\varepsilon) \le (1-\delta')\,\delta_{\rm pair}(\varepsilon; w, C) + \delta'`.
    ``T = ∞`` (δ' = 0) is allowed for Laplace (then only users at least as
    noisy as the target produce clones). Every target level
    is covered: levels are cut into groups, group ``k`` holding the levels
    with :math:`\ln(\varepsilon_{\max}/\varepsilon) \in [c k^2, c (k+1)^2)`,
    :math:`c = \ln(\text{group\_ratio})` (fine near the largest level, which
    is usually the binding target), and each group uses its worst ``w``,
    ``δ'`` and ``q_i`` over the group; the bound is the maximum over groups of
    the minimum over the ``T`` grid.

Numerical tolerance: that of
:func:`~shufflelib.personalized.clone_count.clone_pair_delta` and
:class:`~shufflelib.bounds.clone_pair.BinomialSum` (clone probabilities
are merged into at most ``q_groups`` bins, each at its smallest value).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import ndtri

from .._validation import check_array, check_int, check_positive
from ..composition.clone_pld import round_blocks
from .clone_count import CloneCount, clone_pair_delta
from .mechanisms import LocalMechanism
from .population import Population

__all__ = [
    "SoundPiece",
    "sound_pieces",
    "sound_delta",
    "no_shuffling_delta",
    "DELTA_PRIMES",
    "location_clone_probability",
]

#: Probabilities δ' of the truncation event tried for the location mechanisms (0 means no truncation, Laplace).
DELTA_PRIMES = {"laplace": (0.0, 1e-9), "gaussian": (1e-12, 1e-9, 1e-7)}
#: Blocks and ε grid used to screen pieces before the exact evaluation.
_SCREEN_BLOCKS = 64
_SCREEN_GRID = 129
#: Blocks of clone counts in the final evaluation (each evaluated at its left end: an upper bound).
_BLOCKS = 1024


@dataclass(frozen=True)
class SoundPiece:
    """One target group and truncation: ``δ(ε) <= (1 − δ') δ_pair(ε; w, C) + δ'``.

    The clone count is built on first use (and kept): pieces whose
    zero-clone (local) bound is already small are never built.

    Attributes
    ----------
    group
        Index of the target group (0 = the most private levels).
    eps_range
        ``(ε_a, ε_b)``: the target levels covered.
    delta_prime
        Probability of the truncation event (0 for none).
    w
        The target's mixing weight.
    q, counts
        Clone probability of each level of the other users, and their numbers.
    q_groups
        Largest number of distinct clone probabilities kept exactly.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.personalized import LocalMechanism, Population
    >>> piece = sound_pieces(Population([0.5, 1.0], [50, 50]), LocalMechanism("rr"))[0]
    >>> piece.group, piece.eps_range, piece.delta_prime
    (0, (0.5, 1.0), 0.0)
    >>> float(piece.delta(np.array([0.5]))[0]) < 1e-6
    True
    """

    group: int
    eps_range: tuple[float, float]
    delta_prime: float
    w: float
    q: np.ndarray
    counts: np.ndarray
    q_groups: int

    @property
    def count(self) -> CloneCount:
        """The clone count of the other users (built once)."""
        cached = self.__dict__.get("_count")
        if cached is None:
            cached = CloneCount.from_binomials(self.q, self.counts, max_groups=self.q_groups)
            object.__setattr__(self, "_count", cached)
        return cached

    @property
    def screen_count(self) -> CloneCount:
        """A single binomial ``Bin(N(q*), q*)``, ``N(q*)`` the users with ``q_i >= q*``: a
        stochastically smaller clone count (``q*`` maximizes ``q* N(q*)``), cheap to build."""
        cached = self.__dict__.get("_screen")
        if cached is None:
            order = np.argsort(-self.q)
            q_sorted, n_cum = self.q[order], np.cumsum(self.counts[order])
            best = int(np.argmax(q_sorted * n_cum))
            cached = CloneCount.from_binomials([q_sorted[best]], [n_cum[best]])
            object.__setattr__(self, "_screen", cached)
        return cached

    def screen_delta(self, eps: np.ndarray) -> np.ndarray:
        """An upper bound on :meth:`delta`: the :attr:`screen_count` bound (64 blocks) at the
        largest point of a fixed grid of 129 ε values that is <= ε (a profile is non-increasing).

        Grid values are computed when first needed (and kept)."""
        cached = self.__dict__.get("_screen_grid")
        if cached is None:
            big_l = math.log((1.0 - self.w) / self.w)
            cached = (np.linspace(0.0, big_l, _SCREEN_GRID), np.full(_SCREEN_GRID, np.nan))
            object.__setattr__(self, "_screen_grid", cached)
        grid, values = cached
        idx = np.clip(np.searchsorted(grid, np.asarray(eps, float), side="right") - 1, 0, grid.size - 1)
        missing = np.unique(idx[np.isnan(values[idx])])
        if missing.size:
            pair = clone_pair_delta(grid[missing], self.w, self.screen_count, max_blocks=_SCREEN_BLOCKS)
            values[missing] = np.minimum((1.0 - self.delta_prime) * pair + self.delta_prime, 1.0)
        return values[idx]

    def local_delta(self, eps: np.ndarray) -> np.ndarray:
        """The piece's bound without any clone (cheap, >= :meth:`delta`)."""
        big_l = math.log((1.0 - self.w) / self.w)
        pair = np.maximum(-np.expm1(np.minimum(np.asarray(eps, float) - big_l, 0.0)), 0.0) * (1.0 - self.w)
        return np.minimum((1.0 - self.delta_prime) * pair + self.delta_prime, 1.0)

    def delta(self, eps: np.ndarray, max_blocks: int = _BLOCKS) -> np.ndarray:
        """The piece's bound at each ε (vectorized)."""
        pair = clone_pair_delta(eps, self.w, self.count, max_blocks=max_blocks)
        return np.minimum((1.0 - self.delta_prime) * pair + self.delta_prime, 1.0)


def _rr_pieces(population: Population, q_groups: int) -> list[SoundPiece]:
    q = 2.0 / (1.0 + np.exp(population.eps))
    w = 1.0 / (1.0 + math.exp(population.eps_max))
    counts = population.counts.copy()
    counts[int(np.argmax(q))] -= 1  # drop the most clone-prone user: covers every target
    return [SoundPiece(0, (float(population.eps[0]), population.eps_max), 0.0, w, q, counts, q_groups)]


def _laplace_log_ratio_min(eps_i: np.ndarray, ea: float, eb: float, t_cut: float) -> np.ndarray:
    """``min_{t in [ea, eb]} log[(ε_i/t) e^{-ε_i} e^{-(ε_i - t)^+ T}]`` (``-inf`` where it is 0)."""
    inv_t = 0.0 if math.isinf(t_cut) else 1.0 / t_cut
    cands = [np.full(eps_i.shape, ea), np.full(eps_i.shape, eb), np.clip(inv_t, ea, np.minimum(eb, eps_i))]
    best = np.full(eps_i.shape, np.inf)
    for t in cands:
        excess = np.maximum(eps_i - t, 0.0)
        with np.errstate(invalid="ignore"):  # inf * 0 where eps_i <= t: masked just below
            pen = np.where(excess > 0, excess * t_cut, 0.0)
        val = np.log(eps_i / t) - eps_i - pen
        best = np.minimum(best, val)
    return best


def _gaussian_log_ratio_min(sig_i: np.ndarray, sb: float, sa: float, t_cut: float) -> np.ndarray:
    """``min_z [log φ_i(far(z)) − log max_{σ in [sb, sa]} φ_σ(near(z))]`` over ``z in [−T, 1+T]``."""

    def log_phi(u: np.ndarray, s: np.ndarray) -> np.ndarray:
        return -0.5 * (u / s) ** 2 - np.log(s)

    def r(u: np.ndarray) -> np.ndarray:  # distance u >= 0 outside [0, 1]
        s = np.clip(u, sb, sa)
        return log_phi(1.0 + u, sig_i) - log_phi(u, s)

    best = log_phi(np.ones_like(sig_i), sig_i) - log_phi(np.zeros(1), np.array([sb]))  # z in [0, 1]
    pieces = [(0.0, min(sb, t_cut), sb), (sb, min(sa, t_cut), None), (sa, t_cut, sa)]
    for lo, hi, s in pieces:
        if hi < lo:
            continue
        cands = [np.full(sig_i.shape, lo), np.full(sig_i.shape, hi)]
        if s is not None:
            with np.errstate(divide="ignore"):  # sig_i == s: no vertex (linear piece), clipped away below
                vertex = np.where(sig_i > s, s**2 / np.maximum(sig_i**2 - s**2, 1e-300), lo)
            cands.append(np.clip(vertex, lo, hi))
        for u in cands:
            best = np.minimum(best, r(u))
    return best


def location_clone_probability(
    kind: str,
    eps_i: np.ndarray,
    scale_i: np.ndarray,
    eps_range: tuple[float, float],
    scale_range: tuple[float, float],
    t_cut: float,
    delta_prime: float,
) -> np.ndarray:
    """Valid clone probabilities ``q_i = 2 p_i`` of users at ``eps_i`` for a target group.

    Parameters
    ----------
    kind
        ``"laplace"`` or ``"gaussian"``.
    eps_i, scale_i
        The users' ε and noise scales.
    eps_range, scale_range
        ``(ε_a, ε_b)`` of the target group and the matching ``(σ_b, σ_a)``
        (smallest, largest noise) for Gaussian.
    t_cut
        Truncation distance ``T`` (``inf`` allowed for Laplace).
    delta_prime
        Probability of the truncation event.

    Examples
    --------
    >>> import numpy as np
    >>> q = location_clone_probability("laplace", np.array([2.0]), np.array([0.5]), (2.0, 2.0), (0.5, 0.5),
    ...                                math.inf, 0.0)
    >>> round(float(q[0]), 6), round(math.exp(-2.0), 6)   # FMT21's e^{-eps0} for equal levels
    (0.135335, 0.135335)
    """
    if kind == "laplace":
        log_r = _laplace_log_ratio_min(np.asarray(eps_i, float), eps_range[0], eps_range[1], t_cut)
    elif kind == "gaussian":
        log_r = _gaussian_log_ratio_min(np.asarray(scale_i, float), scale_range[0], scale_range[1], t_cut)
    else:
        raise ValueError(f"kind must be 'laplace' or 'gaussian', got {kind!r}")
    return np.minimum((1.0 - delta_prime) * np.exp(log_r), 1.0)


def _location_pieces(
    population: Population, mech: LocalMechanism, group_ratio: float, q_groups: int
) -> list[SoundPiece]:
    eps = population.eps
    if mech.needs_delta and np.any(population.delta <= 0):
        raise ValueError(f"the {mech.label} mechanism needs a local delta > 0 for every user")
    scales = np.asarray(mech.scale(eps, population.delta), dtype=float)
    # Target groups: group k holds the levels with log(eps_max / eps) in [c k^2, c (k+1)^2),
    # c = log(group_ratio): fine groups near the largest level (usually the binding target),
    # coarser ones below.
    depth = np.log(population.eps_max / eps) / math.log(group_ratio)
    keys = -np.floor(np.sqrt(np.maximum(depth, 0.0)) + 1e-12).astype(int)
    pieces: list[SoundPiece] = []
    for g, key in enumerate(np.unique(keys)):
        members = np.flatnonzero(keys == key)
        ea, eb = float(eps[members].min()), float(eps[members].max())
        s_small, s_large = float(scales[members].min()), float(scales[members].max())
        for dp in DELTA_PRIMES[mech.kind]:
            if mech.kind == "laplace":
                t_cut = math.inf if dp == 0 else math.log(1.0 / dp) / ea
                big_l = eb
            else:
                # Each target truncates at its own T_t = σ_t z (same δ' = 2Φ(-z) for all); the clone
                # probabilities use the widest range, T = σ_a z, and L is largest at the smallest σ.
                z = float(ndtri(1.0 - dp / 2.0))
                t_cut = s_large * z
                big_l = (s_small * z + 0.5) / s_small**2
            w = 1.0 / (1.0 + math.exp(min(big_l, 700.0)))
            q = location_clone_probability(mech.kind, eps, scales, (ea, eb), (s_small, s_large), t_cut, dp)
            # One user of the target's level is not an "other" user: drop the most clone-prone one.
            counts = population.counts.copy()
            counts[int(np.argmax(q))] -= 1
            pieces.append(SoundPiece(g, (ea, eb), dp, w, q, counts, q_groups))
    return pieces


def sound_pieces(
    population: Population, mechanism: LocalMechanism, *, group_ratio: float = 1.02, q_groups: int = 32
) -> tuple[SoundPiece, ...]:
    """The pieces whose max over target groups of min over truncations is the sound bound.

    Parameters
    ----------
    population
        The personalized population.
    mechanism
        ``"rr"``, ``"laplace"`` or ``"gaussian"`` family.
    group_ratio
        Ratio (> 1) of the largest to the smallest ε of the top target group;
        lower groups are wider (see the module docstring).
    q_groups
        Largest number of distinct clone probabilities kept exactly.

    Examples
    --------
    >>> from shufflelib.personalized import LocalMechanism, Population
    >>> pieces = sound_pieces(Population([0.5, 1.0], [50, 50]), LocalMechanism("laplace"))
    >>> sorted({p.group for p in pieces}), sorted({p.delta_prime for p in pieces})
    ([0, 1], [0.0, 1e-09])
    """
    group_ratio = check_positive("group_ratio", group_ratio)
    if not group_ratio > 1:
        raise ValueError(f"group_ratio must be > 1, got {group_ratio!r}")
    q_groups = check_int("q_groups", q_groups, minimum=1)
    return _sound_pieces(population, mechanism, group_ratio, q_groups)


@lru_cache(maxsize=64)
def _sound_pieces(
    population: Population, mechanism: LocalMechanism, group_ratio: float, q_groups: int
) -> tuple[SoundPiece, ...]:
    if mechanism.kind == "rr":
        return tuple(_rr_pieces(population, q_groups))
    return tuple(_location_pieces(population, mechanism, group_ratio, q_groups))


def sound_delta(
    eps: object,
    population: Population,
    mechanism: LocalMechanism,
    *,
    group_ratio: float = 1.02,
    q_groups: int = 32,
    composed: bool = False,
) -> np.ndarray:
    """The sound personalized clone bound δ(ε) (vectorized over ε).

    Target groups are visited in decreasing order of a cheap upper bound (the
    zero-clone bound, then the bound with a single-binomial clone count that is
    stochastically smaller than the true one, see :attr:`SoundPiece.screen_count`); at each
    ε a group is skipped as soon as its upper bound cannot exceed the current maximum,
    otherwise its truncation with the smallest screened value is evaluated (all such ε of a
    truncation in one call). Each returned value is a valid bound (any truncation of a group
    is valid; skipped groups are dominated). ``composed``: one round of a composition, whose
    clone counts are grouped into the blocks of
    :func:`~shufflelib.composition.clone_pld.round_blocks` (every count up to 1,024 values, else
    128 blocks; 1,024 blocks otherwise): fewer is faster and looser, still valid.

    Examples
    --------
    >>> from shufflelib.personalized import LocalMechanism, Population
    >>> pop = Population([0.5, 1.0, 2.0], [4000, 4000, 2000])
    >>> d = sound_delta([0.2, 0.4], pop, LocalMechanism("laplace"))
    >>> bool(d[0] > d[1] > 0)
    True
    """
    e = check_array("eps", eps, low=0.0)
    pieces = sound_pieces(population, mechanism, group_ratio=group_ratio, q_groups=q_groups)
    flat = np.atleast_1d(e).ravel()
    groups: dict[int, list[SoundPiece]] = {}
    for piece in pieces:
        groups.setdefault(piece.group, []).append(piece)
    # A group's value at a point is the bound of its member with the smallest screened
    # value, and a group whose upper bound is at most the running maximum cannot change it,
    # so the order of the groups changes which are skipped, never the result: groups go in
    # decreasing order of their largest zero-clone bound, every point at once.
    local = {id(p): p.local_delta(flat) for p in pieces}
    ceiling = {g: np.min([local[id(p)] for p in ps], axis=0) for g, ps in groups.items()}
    out = np.zeros(flat.shape)
    for g in sorted(groups, key=lambda g: -float(ceiling[g].max(initial=0.0))):
        members = groups[g]
        live = np.flatnonzero(ceiling[g] > out)
        if not live.size:
            continue
        screened = np.array([p.screen_delta(flat[live]) for p in members])
        above = screened.min(axis=0) > out[live]
        live, screened = live[above], screened[:, above]
        best = np.argmin(screened, axis=0)
        for i, piece in enumerate(members):
            at = live[best == i]
            if at.size:
                blocks = round_blocks(piece.count.pmf.size) if composed else _BLOCKS
                out[at] = np.maximum(out[at], piece.delta(flat[at], blocks))
    return out.reshape(e.shape)


def no_shuffling_delta(eps: object, population: Population, mechanism: LocalMechanism) -> np.ndarray:
    """The guarantee without shuffling: the largest exact local profile over the levels.

    Shuffling is post-processing of the reports, so every user keeps at least her local
    guarantee; a shuffled bound above this curve is loose and can be replaced by it
    (:class:`~shufflelib.personalized.bounds.SoundClones` takes the minimum).

    Examples
    --------
    >>> from shufflelib.personalized import LocalMechanism, Population
    >>> pop = Population([1.0, 2.0], [50, 50])
    >>> no_shuffling_delta([0.3], pop, LocalMechanism("gaussian", "paper")).round(4).tolist()
    [0.2933]
    """
    e = check_array("eps", eps, low=0.0)
    flat = np.atleast_1d(e).ravel()
    deltas = np.broadcast_to(population.delta, population.eps.shape)
    out = np.zeros(flat.shape)
    for level_eps, level_delta in zip(population.eps, deltas, strict=True):
        out = np.maximum(out, mechanism.local_delta(flat, float(level_eps), float(level_delta)))
    return out.reshape(e.shape)
