r"""The exact privacy of one item in Algorithm 2, counting what the number of messages reveals.

Setting (the reduced view of Lemma 2, which is exactly the worst case when every other user's
input-dependent messages are deterministic, e.g. all other users at a level with ``λ = 1``):
the victim reports her item ``x0`` (or ``x1`` under the neighbouring dataset) with probability
``λ`` and sends nothing otherwise; ``N`` blanket slots each send, with probability ``γ``, one
item uniform on ``d``. The server sees every count, in particular the **total** ``T`` of
messages, ``T = K + Δ`` with ``K ~ Bin(N, γ)`` active slots and ``Δ ~ Bern(λ)``.

Sufficient statistics: ``(T, U, V)``, the total and the two victim cells (given them, the other
cells are uniform whatever the hypothesis). Given ``T = t`` the victim's unit is present with
probability ``λ_t = λ b(t − 1) / π(t)``, ``π(t) = (1 − λ) b(t) + λ b(t − 1)`` (``b`` the pmf of
``K``), and otherwise one of the ``t`` uniform messages stands in its place. So, exactly,

.. math::

    H_{e^\varepsilon}(P\,\|\,Q) = \sum_t \pi(t)\; H_{e^\varepsilon}\big(P_t\,\|\,Q_t\big),

where ``(P_t, Q_t)`` is the variation-ratio pair of a victim that sends ``x0`` w.p. ``λ_t``
and a uniform item otherwise, among ``t − 1`` uniform messages: ``ClonePair(t − 1, 1/d,
λ_t + (1 − λ_t)/d, (1 − λ_t)/d, (1 − λ_t)(1 − 2/d))``. The paper's pair (Lemma 3) is the law
of ``(U, V)`` alone; it forgets ``T``, which tells whether the victim sent a message. The two
agree when ``λ = 1`` (then the likelihood ratio ``u/v`` does not depend on ``t``) and in the
Poisson limit ``γ → 0``; at ``γ = 1`` (integer ``m``) ``T`` reveals ``Δ`` exactly and
sampling the item with ``λ < 1`` gives no amplification at all.

Blocks (rounded up). ``H(P_t‖Q_t)`` increases with ``λ_t`` (common uniform component) and
decreases with the number ``t − 1`` of other messages (post-processing); ``λ_t`` increases with
``t``. Over a block ``t_a <= t <= t_b`` we use ``λ_{t_b}`` and ``t_a − 1`` messages, so blocks
``t_resolution`` standard deviations of ``T`` wide give an upper bound at a cost that does not
grow with ``N``; the pairs themselves are blocked as in
:mod:`~shufflelib.segmented.clone_pairs`. The exact mass of ``K`` outside the summation range
(``±9.5`` standard deviations) is added to δ.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import binom

from .._docstrings import fill_doc
from .._validation import check_in_range, check_int, check_positive, check_probability
from ..bounds.clone_pair import binomial_interval_mass
from ..curves import PrivacyCurve
from .clone_pairs import block_starts, mixture_delta, pair_blocks

__all__ = ["ExactItemCurve", "T_RESOLUTION", "ITEM_RESOLUTION"]

#: Default block width of the total message count, in its standard deviations.
T_RESOLUTION = 0.25
#: Default block width of the clone totals inside each block (coarser than for a single pair:
#: together they overstate δ by a few percent at most, at a few hundredths of a second).
ITEM_RESOLUTION = 0.1
_Z = 9.5


@fill_doc
class ExactItemCurve(PrivacyCurve):
    """Exact (or, with blocks, rounded-up) privacy curve of one item of Algorithm 2.

    Parameters
    ----------
    n_slots
        Number ``N`` of blanket slots of all users together (``n · slots``), an integer >= 0.
    gamma
        Probability that a slot sends its blanket message, in ``(0, 1]``.
    %(d)s
    lam
        The victim's reporting probability ``λ``, in ``[0, 1]``.
    t_resolution
        Block width of the total count in its standard deviations (``None``: exact).
    resolution
        Block width of the clone total inside each (``None``: exact).

    Examples
    --------
    With ``λ = 1`` the total count carries no information and the curve is the paper's
    Proposition 1 pair (above it only by the block masses' rounding allowance):

    >>> from shufflelib.segmented.variation_ratio import poisson_item_pair
    >>> exact = ExactItemCurve(240, 0.6, 17, 1.0, t_resolution=None, resolution=None)
    >>> paper = poisson_item_pair(120, 1.2, 17, 1.0, convention="proposition1")
    >>> gap = exact.delta(0.5) / paper.delta([0.5], None)[0] - 1.0
    >>> bool(0.0 <= gap < 1e-7)
    True
    """

    def __init__(
        self,
        n_slots: int,
        gamma: float,
        d: int,
        lam: float,
        *,
        t_resolution: float | None = T_RESOLUTION,
        resolution: float | None = ITEM_RESOLUTION,
    ) -> None:
        self.n_slots = check_int("n_slots", n_slots, minimum=0)
        self.gamma = check_probability("gamma", gamma, closed_high=True)
        self.d = check_int("d", d, minimum=2)
        self.lam = check_in_range("lam", lam, 0.0, 1.0)
        self.t_resolution = None if t_resolution is None else check_positive("t_resolution", t_resolution)
        self.resolution = None if resolution is None else check_positive("resolution", resolution)
        self._blocks = self._components()

    def _components(self) -> tuple[np.ndarray, ...]:
        """Coin-pair blocks of every block of the total count, their weights, and the mass left out."""
        n, g, lam = self.n_slots, self.gamma, self.lam
        if g >= 1.0:
            lo = hi = n
            outside = 0.0
            sd = 0.0
        else:
            mean, sd = n * g, math.sqrt(n * g * (1.0 - g))
            lo = int(max(0.0, math.floor(mean - _Z * sd - 5.0)))
            hi = int(min(float(n), math.ceil(mean + _Z * sd + 40.0)))
            outside = float(binom.cdf(lo - 1, n, g) + binom.sf(hi, n, g))
        # Totals t = K + Delta run over max(lo, 1)..hi + 1 (t = 0: nothing sent, no information).
        starts = block_starts(max(lo, 1), hi + 1, n * g + lam, sd, self.t_resolution).astype(float)
        ends = np.append(starts[1:] - 1.0, float(hi + 1))
        k_mass = _range_mass(starts, ends, lo, hi, n, g)
        k_mass_prev = _range_mass(starts - 1.0, ends - 1.0, lo, hi, n, g)
        weight = (1.0 - lam) * k_mass + lam * k_mass_prev
        b_end = np.where(ends <= hi, binom.pmf(ends, n, g), 0.0)
        b_prev = np.where(ends - 1.0 >= lo, binom.pmf(ends - 1.0, n, g), 0.0)
        denom = (1.0 - lam) * b_end + lam * b_prev
        with np.errstate(divide="ignore", invalid="ignore"):  # denom = 0 only where both pmfs vanish
            lam_t = np.where(denom > 0, lam * b_prev / denom, 0.0)
        keep = weight > 0
        others, lam_t, weight = starts[keep] - 1.0, lam_t[keep], weight[keep]
        inv = 1.0 / self.d
        coins, alpha, block_weight, block_out = pair_blocks(
            others,
            inv,
            lam_t + (1.0 - lam_t) * inv,
            (1.0 - lam_t) * inv,
            (1.0 - lam_t) * (1.0 - 2.0 * inv),
            self.resolution,
        )
        return coins, alpha, block_weight, block_out, weight, np.array([outside])

    def _delta_array(self, eps: np.ndarray) -> np.ndarray:
        coins, alpha, block_weight, block_out, weight, outside = self._blocks
        if weight.size == 0:
            return np.full(eps.shape, float(outside[0]))
        return mixture_delta(coins, alpha, block_weight, block_out, weight, eps) + float(outside[0])


def _range_mass(starts: np.ndarray, ends: np.ndarray, lo: int, hi: int, n: int, g: float) -> np.ndarray:
    """``Pr[Bin(n, g) in [max(start, lo), min(end, hi)]]`` per block, rounded up by its error bound."""
    a, b = np.maximum(starts, lo), np.minimum(ends, hi)
    if g >= 1.0:
        return ((a <= b) & (a <= n) & (b >= n)).astype(float)
    mass, err = binomial_interval_mass(a, b, n, g)
    return mass + err  # rounded up
