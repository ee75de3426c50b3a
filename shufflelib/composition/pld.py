r"""Discretized privacy loss distributions and their composition by FFT.

For a pair ``(P, Q)`` the *privacy loss* is ``L = log P(x) − log Q(x)`` with
``x ~ P``; its law ``ω`` (the privacy loss distribution, PLD) determines the
hockey-stick divergence,

.. math::

    H_{e^\varepsilon}(P \| Q) = \mathbb E_{L\sim\omega}\big[(1 - e^{\varepsilon - L})^+\big]
    \; (+\ \omega(\{+\infty\})),

and the PLD of a composition ``(P_1 × P_2, Q_1 × Q_2)`` is the convolution of
the PLDs. This holds for *adaptive* composition whenever each round's pair
dominates the round's mechanism (Zhu, Dong, Wang 2022).

Discretization (:func:`discretize`). Losses are put on the grid ``step · ℤ`` in one of four
ways (``kind``):

* ``"dots"`` (the default upper bound): **connect the dots** (Doroshenko, Ghazi, Kamath,
  Kumar, Manurangsi, PETS 2022): an atom with loss ``ℓ`` in ``[a, a + step]`` is *split*
  into P-masses ``λ p`` at ``a`` and ``(1 − λ) p`` at ``a + step`` with
  ``λ = (e^{a + step − ℓ} − 1)/(e^{step} − 1)``, which keeps both its P- and its Q-mass.
  The original pair is a post-processing of the split pair (merge the two halves again), so
  the split pair *dominates* it, in both orders, and composes as such: every δ is an upper
  bound. The split moves no loss on average; its error is of second order in ``step``
  (about ``step²/(8σ²)`` relative, ``σ`` the round's loss deviation), independent of the
  number of rounds.
* ``"merge"`` (the default lower bound): a *post-processing* of the pair: the atoms of each
  bin ``[a, a + step)`` are merged (a pair of P-mass ``Σp``, Q-mass ``Σq``), and parts of
  neighbouring bins are merged again so that each output lands *exactly* on a grid point
  ``g`` from above (its excess over ``g``, ``Σ p (1 − e^{g − ℓ})``, balances the deficit of
  the part from the bin below): greedily from the bottom, the unbalanced rest rounded
  *down*. A post-processing, rounded down, is dominated by the pair: every δ is a lower
  bound, again with an error of second order where the loss is spread over many bins.
* ``"up"`` and ``"down"``: every loss rounded up (a pessimistic bound, ``T · step`` at most
  above after ``T`` rounds, about half of it on average) or down (an optimistic one).

Every loss is first moved by a bound on its own rounding error (up for an upper bound, down
for a lower bound), and masses are inflated (deflated) by their summation's rounding.

Composition (:func:`compose`). The composed distribution is computed on a window of the
sum's support chosen by a Chernoff bound, by one real FFT, a power of the spectrum per
distinct round type, and one inverse FFT (cyclic: mass outside the window aliases into it).
With a **tilt** ``θ >= 0`` (:func:`tilt_for`), each round's masses are first multiplied by
``e^{θ ℓ}`` and normalized to a probability vector (convolution commutes with this
exponential tilting), composed, and tilted back: the FFT's absolute rounding error then sits
on the *tilted* vector, and a loss ``ℓ`` sees it multiplied by ``M^T e^{−θ ℓ}``
(``M`` the round's tilted mass, ``M^T e^{−θ ε}`` the Chernoff bound at ``ε`` when ``θ`` is
the saddle point), small where δ is read: tail probabilities of ``1e-12`` and below keep
their relative accuracy. Rounding: Higham's bound for the FFT (``‖error‖₂ <= 5 log₂(N) u
‖x‖₂`` per transform, ``u = 2⁻⁵³``), and ``|a^T − b^T| <= T |a − b|`` for spectra of
modulus <= 1, give an ℓ₂ error of the composed (tilted) masses below ``5 (T + 2) log₂(N) u``
per composition; the powers themselves are chains of complex multiplications (relative error
``√5 u`` each, so ``√5 T u`` in all), and spectral entries below ``SPECTRUM_FLOOR`` are dropped
(``2 · floor`` per distribution; ``_composition_rounding`` adds the three). The error terms
are carried by the result and added to (pessimistic) or subtracted from (optimistic) every δ:

.. math::

    \text{slack}(\varepsilon) = e^{\,\log M^T - θ ε}\,\big(\text{tail} +
    \text{rounding} \cdot \|w_ε\, e^{-θ(ℓ - ε)}\|_2\big),

``w_ε`` the weights ``(1 − e^{ε − ℓ})^+`` of the grid, ``tail`` the tilted mass possibly
outside the window (``2 ·`` the per-side tail) times the largest weight of a loss up to the
composition's top (all of that mass lies there), and ``rounding`` the ℓ₂ budget; the
untilted case is ``θ = 0``, ``M = 1``. The weights are bounded by ``min(1, ℓ − ε)``, not by 1
alone: where the composed loss spans far less than 1 (a tiny ``eps0``: losses of 1e-8, δ read
at 1e-15) both terms shrink with the losses (``_weight_norm``). The tilting's own rounding (relative ``4 u`` per
operation on the logarithms, ``T``-fold through the convolution) is covered by scaling the
masses by ``e^{±η}``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import fft as sfft
from scipy.special import logsumexp

from .._roots import first_integer
from .._validation import check_array, check_int, check_nonnegative, check_positive, check_probability
from ..curves import invert_profile

__all__ = [
    "KINDS",
    "MAX_FFT_LENGTH",
    "MERGE_REACH",
    "SPECTRUM_FLOOR",
    "TILTED_TAIL",
    "WINDOW_TAIL",
    "LossDistribution",
    "WindowTooWide",
    "compose",
    "discretize",
    "from_log_pmfs",
    "log_mgf",
    "predicted_slack",
    "quantize_tilt",
    "self_compose",
    "tilt_for",
    "window_tail",
]

#: Unit roundoff of float64.
_U = 2.0**-53
#: The ways :func:`discretize` puts losses on the grid (module docstring).
KINDS = ("dots", "merge", "up", "down")
#: Mass allowed outside the composition window (per side and composition; counted into δ).
WINDOW_TAIL = 1e-30
#: Share of a known target δ that the composition window may leave out per side
#: (:func:`window_tail`).
WINDOW_SHARE = 1e-4
#: Tilted mass a tilted composition leaves outside its window per side (its effect on δ at ε
#: is this times ``M^T e^{−θ ε}``, the Chernoff bound at ε: negligible).
TILTED_TAIL = 1e-13
#: Modulus below which a part's spectral power ``z^T`` is set to 0 in :func:`compose` (the
#: masses move by at most ``2 ·`` this in ℓ₂ per part, added to the rounding budget).
SPECTRUM_FLOOR = 2.0**-1000
#: Largest FFT length a composition may use (about 0.5 GB of work arrays).
MAX_FFT_LENGTH = 2**25
#: Tilts searched by :func:`tilt_for` (loss units).
_TILTS = np.concatenate([[0.0], np.geomspace(1e-3, 1e12, 301)])
#: Stages and points per stage of the search for each side's Chernoff θ of a composition window
#: (:func:`_window`): ``1e-3 / (the composed support)`` to 50 per index unit, a grid ratio of
#: about 1.03 at the end (a single grid of 96 points had 1.3, at 2.4 times the cost).
WINDOW_STAGES = 4
WINDOW_THETAS = 10


@dataclass(frozen=True)
class LossDistribution:
    """A privacy loss distribution on the grid ``step · ℤ`` (one order of a pair).

    Parameters
    ----------
    step
        Grid spacing of the losses (> 0).
    offset
        ``mass[i]`` sits at loss ``(offset + i) · step``.
    mass
        Nonnegative masses (1-D).
    inf_mass
        Mass at loss ``+∞`` (counted into every δ).
    pessimistic
        True if every δ computed from it is an upper bound, false if a lower bound.
    rounds
        Number of rounds composed into it.
    tail_mass
        (Tilted) mass possibly outside or aliased into the window; with ``rounding``,
        ``log_scale`` and ``tilt`` it makes the slack of the module docstring, added to
        (pessimistic) or subtracted from (optimistic) every δ.
    rounding
        Bound on the ℓ₂ norm of the rounding error of the (tilted) masses.
    max_loss
        An upper bound on every finite loss of the *exact* pair (``inf`` if unknown);
        used by the Rényi moments of :meth:`renyi`.
    log_scale, tilt
        The tilt of the composition (``θ``, loss units) and the log of its total tilted mass
        ``log M^T``: an error ``e`` on the tilted mass at loss ``ℓ`` is an error
        ``e · exp(log_scale − tilt · ℓ)`` on ``mass``. ``0`` and ``0`` when not tilted.
    top
        An upper bound on every finite loss of the distribution that ``mass`` approximates, the
        mass left out of a composition's window included (:func:`compose` sets it; ``inf``:
        unknown). The slack's tail term is weighted by the largest hockey-stick weight up to
        it (``_grid_slack``).

    Examples
    --------
    Randomized response with ``eps0 = 1`` (losses ``±1``) on the grid ``0.5 ℤ``:

    >>> import numpy as np
    >>> from shufflelib.composition.pld import LossDistribution
    >>> p = np.e / (1 + np.e)
    >>> ld = LossDistribution(step=0.5, offset=-2, mass=np.array([1 - p, 0, 0, 0, p]))
    >>> round(ld.delta(0.0), 6)  # total variation distance (e - 1) / (e + 1)
    0.462117
    """

    step: float
    offset: int
    mass: np.ndarray
    inf_mass: float = 0.0
    pessimistic: bool = True
    rounds: int = 1
    tail_mass: float = 0.0
    rounding: float = 0.0
    max_loss: float = math.inf
    log_scale: float = 0.0
    tilt: float = 0.0
    top: float = math.inf
    #: Log-mgfs already computed (:func:`log_mgf` on the grid of tilts, :func:`compose`'s windows).
    cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def losses(self) -> np.ndarray:
        """The grid points carrying ``mass``."""
        return (self.offset + np.arange(self.mass.size)) * self.step

    @property
    def discretization_error(self) -> float:
        """``rounds · step``: no loss moved by a full step in any discretization, so the ε of this
        distribution is within this of the exact composition's (a coarse bound: connect the dots
        and merging are far closer, :func:`discretize`)."""
        return self.rounds * self.step

    @property
    def exact(self) -> bool:
        """Whether the distribution carries no slack (a single round, not composed)."""
        return self.tail_mass == 0.0 and self.rounding == 0.0 and self.log_scale == 0.0 and self.tilt == 0.0

    def delta(self, eps: float) -> float:
        """Hockey-stick divergence at ``eps`` (an upper bound if pessimistic, a lower bound if not).

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.composition.pld import LossDistribution
        >>> round(LossDistribution(step=1.0, offset=0, mass=np.array([0.5, 0.5])).delta(0.0), 6)  # (1 - 1/e)/2
        0.31606
        """
        w, tail, loss = self._above(eps)
        value = float(w @ tail)
        slack = self._slack(eps, w, loss)
        if self.pessimistic:
            return float(min(1.0, value + slack + self.inf_mass))
        return float(min(1.0, max(value - slack, 0.0) + self.inf_mass))

    def _slack(self, eps: float, w: np.ndarray | None = None, loss: np.ndarray | None = None) -> float:
        """The truncation and rounding terms at ``eps`` (module docstring), bounded as :meth:`epsilon`
        bounds them: at the grid point at or below ``eps``, with ``‖w‖₂`` at most the square root of
        the number of points above it (a step function of ``eps``, so that the δ read at an answer
        of :meth:`epsilon` is the δ that answer was solved for). (``w``, ``loss``: not used.)"""
        if self.tail_mass == 0.0 and self.rounding == 0.0:
            return 0.0
        where = eps / self.step - self.offset
        if not where >= 0.0:  # below the grid: the formula at eps itself, every point above
            return float(self._grid_slack(np.array([eps]), np.array([self.mass.size]), on_grid=False)[0])
        i = self.mass.size - 1 if where >= self.mass.size else math.floor(where)
        loss = np.array([(self.offset + i) * self.step])
        return float(self._grid_slack(loss, np.array([self.mass.size - 1 - i]))[0])

    def _live(self) -> np.ndarray:
        """The indices of the grid points carrying mass (cached: every δ read, window and tilt reads
        them, and a composition's are often a few of its points)."""
        if "live" not in self.cache:
            self.cache["live"] = np.flatnonzero(self.mass)
        return self.cache["live"]

    def _above(self, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The weights ``1 − e^{ε − ℓ}`` of the grid losses ``ℓ > eps`` carrying mass, their masses and losses."""
        where = eps / self.step - self.offset
        if not where < self.mass.size:  # above the grid (or not finite): nothing
            return np.zeros(0), np.zeros(0), np.zeros(0)
        first = max(0, math.floor(where) + 1)  # grid points with loss > eps
        live = self._live()
        live = live[np.searchsorted(live, first) :]
        loss = (self.offset + live) * self.step
        keep = loss > eps
        return -np.expm1(eps - loss[keep]), self.mass[live[keep]], loss[keep]

    def epsilon(self, delta: float) -> float:
        """ε at ``delta``: for a pessimistic distribution the smallest ε with ``delta(ε) <= delta``
        (rounded up), for an optimistic one the largest ε with ``delta(ε) > delta`` (rounded
        down, 0 if none): in both cases on the safe side of the bound.

        Between two grid losses ``δ(ε) = A − e^ε B`` (``A``, ``B`` sums over the atoms above),
        so the root is a closed form once its grid interval is known: δ at every grid point at
        once is ``S_{i+1} − e^{−step} R_{i+1}`` (``S`` the tail sums of the masses, ``R_i = m_i +
        e^{−step} R_{i+1}``, ``_tail_sums``). The slack terms decrease in ε: an upper bound on
        them at a grid point (read at the few points a bisection over the grid asks for) finds
        the grid interval, and the slack at the interval's left end moves the target of the
        closed form there, a valid (slightly conservative) answer. It is checked with :meth:`delta`;
        should the check fail, a certified search (``shufflelib._roots``, relative ``1e-9``).
        ``inf`` if no ε reaches ``delta`` (pessimistic).

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.composition.pld import LossDistribution
        >>> ld = LossDistribution(step=0.5, offset=-2, mass=np.array([0.25, 0, 0, 0, 0.75]))
        >>> eps = ld.epsilon(0.1)  # 0.75 (1 - e^(eps - 1)) = 0.1
        >>> round(eps, 6), round(float(1 + np.log(1 - 0.1 / 0.75)), 6)
        (0.856899, 0.856899)
        """
        up = self.pessimistic
        fixed = self.inf_mass
        if up and fixed > delta:
            return math.inf
        # Only the grid from loss 0 up matters (ε >= 0; the sums run from the top down).
        k0 = max(0, min(-self.offset, self.mass.size - 1))
        decay = math.exp(-self.step)
        tail, r = _tail_sums(self.mass[k0:], decay)
        size = tail.size

        # Each read takes a grid index or an array of them (points below the last, for ``closed``).
        def grid(i):
            return (self.offset + k0 + i) * self.step

        def closed(i):
            """δ at grid points ``i`` below the last (the closed form, without the slack terms)."""
            return tail[i + 1] - decay * r[i + 1] + fixed

        def slacks(i):
            """An upper bound on the slack at every ε in ``[grid(i), grid(i + 1))`` (:meth:`_slack`
            with ``‖w‖₂ <= sqrt`` of the number of points above): decreasing in ``i``."""
            return self._grid_slack(grid(i), size - 1 - i)

        def at_grid(i: int) -> float:
            return float(closed(i)) if i + 1 < size else fixed

        def slack(i: int) -> float:
            return float(slacks(np.array([i]))[0])

        # A margin of 1e-12 δ covers the rounding of the two ways δ is summed (the closed form
        # here, the direct sum of :meth:`delta`).
        margin = 1e-12 * delta

        def solve(i: int, target: float) -> float:
            """The ε in ``[grid(i-1), grid(i)]`` where the closed form reaches ``target`` (clipped)."""
            a, b, target = float(tail[i]) + fixed, float(r[i]), float(target)  # δ = a − e^{ε − grid(i)} b
            if not (a > target > 0.0 and b > 0.0):  # no root inside (or the slack there swamps δ)
                return grid(i)
            value = grid(i) + math.log((a - target) / b)
            return min(max(value, grid(i - 1) if i > 0 else 0.0, 0.0), grid(i))

        if up:
            # The first grid point where δ and the slack are a margin below δ: both decrease in ε,
            # so a bisection on the points finds it (each point read in O(1) from the sums).
            reached = lambda i: at_grid(i) + slack(i) <= delta - margin  # noqa: E731
            if not reached(size - 1):
                if self.tilt > 0.0 and delta - margin > fixed and self.tail_mass > 0.0:
                    # Beyond the grid only the tail term is left: e^{log_scale − θ ε} tail.
                    top = (self.log_scale + math.log(self.tail_mass / (delta - margin - fixed))) / self.tilt
                    candidate = max(top, grid(size - 1), 0.0) * (1.0 + 1e-12) + 1e-15
                    return candidate if self.delta(candidate) <= delta else self._epsilon_search(delta)
                # No grid point is a margin below δ. The mass at +∞ may still be at most δ itself (a
                # δ read back from this curve at its floor): the certified search on δ decides.
                return self._epsilon_search(delta)
            i = first_integer(reached, 0, size - 1)
            value = max(grid(i), 0.0) if i == 0 or grid(i) <= 0.0 else solve(i, delta - margin - slack(i - 1))
            candidate = float(value) * (1.0 + 1e-12) + 1e-15
            if self.delta(candidate) > delta:
                return self._epsilon_search(delta)
            # δ's slope there (the closed form's): where the margin moves ε by more than a relative
            # 1e-9 (δ flat in ε), Newton steps on δ itself take it back.
            slope = math.exp(min(float(value) - grid(i), 0.0)) * float(r[i])
            return self._tightened(candidate, delta) if 4.0 * margin > 1e-9 * candidate * slope else candidate
        # The last grid point where δ less the slack is a margin above δ: before the first point
        # where δ itself is not (δ decreases in ε), found by bisection; the slack need not
        # decrease as fast, so the points before it are read back to the last that holds.
        above = lambda i: at_grid(i) > delta + margin  # noqa: E731
        if not above(0):
            return 0.0
        end = size if above(size - 1) else first_integer(lambda i: not above(i), 0, size - 1)
        i = end - 1
        while i >= max(end - 32, 0) and not at_grid(i) - slack(i) > delta + margin:
            i -= 1
        if i == end - 33:  # the slack swamps δ over many points: all of them at once
            ahead = np.arange(i + 1)  # (points before end - 32: each has one above it)
            holds = np.flatnonzero(closed(ahead) - slacks(ahead) > delta + margin)
            i = int(holds[-1]) if holds.size else -1
        if i < 0:
            return 0.0
        if i + 1 >= size:
            value = grid(i)
        else:
            value = solve(i + 1, delta + margin + slack(i))
        candidate = max(float(value) * (1.0 - 1e-12) - 1e-15, 0.0)
        if candidate == 0.0 or self.delta(candidate) > delta:
            return candidate
        return self._epsilon_search(delta)

    def _tightened(self, eps: float, delta: float) -> float:
        """``eps`` (with ``delta(eps) <= delta``, pessimistic) moved down by Newton steps on :meth:`delta`
        itself while it stays ``<= delta``, where that moves it by more than a relative ``1e-9``.

        Where δ is flat in ε (near 1, or far below it), the margin of :meth:`epsilon` and the
        rounding of its sums move the answer by up to 0.3 % (pers-fv, T = 20, δ = 1 − 2e-8): the
        steps bring the answer to δ read at an ε back to that ε (a round trip, relative ``1e-9``).
        A step that lands a rounding above δ (the root lies within the float's resolution there) is
        not taken, but it bounds the root from below: a bisection between it and the best point
        takes the answer the rest of the way (segmented-exact, n = 12, T = 40, δ = 0.99972: the
        step from 0.0030000072 to 0.003 read δ one unit in its last place above, and the answer
        stayed 2.4e-6 above the ε whose δ it was).
        """
        best = point = eps
        below = -math.inf  # the largest point under best that read δ above ``delta``
        slope = 0.0
        for _ in range(3):
            w, mass, _ = self._above(point)
            value = min(1.0, float(w @ mass) + self._slack(point) + self.inf_mass)  # :meth:`delta`
            if value <= delta:
                best = min(best, point)
            elif point < best:
                below = max(below, point)
            slope = float(mass @ (1.0 - w))  # -dδ/dε: the sum of mass e^{ε - ℓ} above ε
            if not slope > 0.0:
                return best
            move = (delta - value) / slope  # > 0: down (a step of the slack terms may send it back up)
            if abs(move) <= 1e-9 * best:
                break
            point = max(point - move, 0.0) * (1.0 + 1e-12) + 1e-15
        # Where δ is this flat, a whole interval of ε reads the same float δ (one unit in its last
        # place, over the slope, wide): its smallest point, by bisection to a 256th of it.
        width = 4.0 * math.ulp(delta) / slope if slope > 0.0 else 0.0
        if below == -math.inf:  # no point under best read above δ: one width down
            if not width > 1e-9 * best:
                return best
            below = max(best - width, 0.0)
            if self.delta(below) <= delta:
                return best
        for _ in range(48):  # halving [below, best] (δ above, at most δ) to the larger tolerance
            if best - below <= max(1e-9 * best, width / 256.0):
                break
            mid = 0.5 * (below + best)
            below, best = (below, mid) if self.delta(mid) <= delta else (mid, best)
        return best

    def _grid_slack(self, loss: np.ndarray, above: np.ndarray, *, on_grid: bool = True) -> np.ndarray:
        """An upper bound on :meth:`_slack` at every ε in ``[loss, loss + step)``, ``above`` grid points
        lying above ``loss``.

        ``on_grid``: each ``loss`` is a grid point (the ``k``-th point above lies ``k · step`` above
        it, its weight at most ``1 − e^{−k step}``, ``_weight_norm``); otherwise every weight is
        bounded by 1. The tail term is weighted by the largest weight ``1 − e^{loss − top}`` of a
        loss up to ``top`` (the left-out and aliased mass lies there): at a tiny ``eps0`` every
        weight is tiny, and so are the slack terms (a bound by 1 once cost the composed ε a
        factor 3 at ε₀ = 1.3e-6, n = 1.5e7, 10 rounds, δ = 1e-15).
        """
        if self.tail_mass == 0.0 and self.rounding == 0.0:
            return np.zeros(loss.shape)
        above = np.asarray(above, dtype=float)
        if on_grid:
            norm = _weight_norm(self.step, self.tilt, above)
        else:
            norm = np.sqrt(above)
            if self.tilt > 0.0:
                norm = np.minimum(norm, 1.0 / math.sqrt(-math.expm1(-2.0 * self.tilt * self.step)))
        with np.errstate(over="ignore"):
            return np.exp(np.minimum(self.log_scale - self.tilt * loss, 700.0)) * (
                self.tail_mass * _weight_cap(loss, self.top) + self.rounding * norm
            )

    def profile(self, eps: np.ndarray) -> np.ndarray:
        """δ at an array of ``eps >= 0`` at once (a single round: no slack terms; the hockey-stick
        divergence of the distribution as it is, plus ``inf_mass``).

        On ``(ℓ_{i−1}, ℓ_i]`` δ is ``A − e^{ε − ℓ_i} B`` (the sums of :meth:`epsilon`).

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.composition.pld import LossDistribution
        >>> ld = LossDistribution(step=0.5, offset=-2, mass=np.array([0.25, 0, 0, 0, 0.75]))
        >>> bool(np.allclose(ld.profile(np.array([0.0, 0.3, 2.0])), [ld.delta(0.0), ld.delta(0.3), 0.0]))
        True
        """
        if not self.exact:
            raise ValueError("profile reads a single round (a distribution without slack terms)")
        eps = np.asarray(eps, dtype=float)
        tail, r = _tail_sums(self.mass, math.exp(-self.step))
        grid = self.losses
        i = np.searchsorted(grid, eps, side="right")  # the first grid point above ε
        inside = i < grid.size
        j = np.minimum(i, grid.size - 1)
        value = np.where(inside, tail[j] - np.exp(eps - grid[j]) * r[j], 0.0)
        return np.clip(value, 0.0, 1.0) + self.inf_mass

    def _epsilon_search(self, delta: float) -> float:
        """:meth:`epsilon` by a certified search on :meth:`delta` (the slow path)."""
        return invert_profile(self.delta, delta, upper=self.pessimistic)

    def renyi(self, alpha: np.ndarray) -> np.ndarray:
        """Rényi divergences ``D_α(P‖Q) = log E_P[e^{(α−1)L}] / (α − 1)`` for ``α > 1``.

        An upper bound if pessimistic: the discretized pair dominates the exact one (connect the
        dots) or is the exact one with losses moved up (``"up"``), so by data processing its
        divergences are at least the exact pair's; the masses are rounded up, and the mass at
        ``+∞`` (dropped tails) is placed at ``max_loss`` (``inf`` if that is unknown).

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.composition.pld import LossDistribution
        >>> p = np.e / (1 + np.e)
        >>> ld = LossDistribution(step=0.5, offset=-2, mass=np.array([1 - p, 0, 0, 0, p]), max_loss=1.0)
        >>> round(float(ld.renyi(np.array([2.0]))[0]), 6)  # log(p e + (1 - p) / e) for RR
        0.735326
        """
        alpha = check_array("alpha", alpha, ndim=1, low=1.0)
        if np.any(alpha <= 1.0):
            raise ValueError("alpha must be > 1")
        live = self.mass > 0
        a1 = (alpha - 1.0)[:, None]
        log_terms = np.log(self.mass[live])[None, :] + a1 * self.losses[live][None, :]
        if self.inf_mass > 0:
            extra = math.log(self.inf_mass) + a1[:, 0] * self.max_loss
            log_terms = np.concatenate([log_terms, extra[:, None]], axis=1)
        return logsumexp(log_terms, axis=1) / (alpha - 1.0)

    def log_mgf(self, theta: np.ndarray) -> np.ndarray:
        """``log Σ_i mass[i] e^{θ i}`` (index units, finite part) for an array of θ."""
        if "log_live" not in self.cache:  # read for every window and tilt decision
            live = self._live()
            self.cache["log_live"] = (live.astype(float), np.log(self.mass[live]))
        idx, logs = self.cache["log_live"]
        if not idx.size:  # no finite loss carries mass: the empty sum
            return np.full(np.shape(theta), -np.inf)
        # log-sum-exp of each row, in place (scipy.special.logsumexp takes several times as long
        # on these tables of up to 300 tilts by the live points, read for every window and tilt)
        table = theta[:, None] * idx[None, :]
        table += logs
        top = table.max(axis=1)
        table -= top[:, None]
        np.exp(table, out=table)
        return top + np.log(table.sum(axis=1))


def log_mgf(ld: LossDistribution, theta: np.ndarray) -> np.ndarray:
    """``log Σ mass e^{θ ℓ}`` in loss units (finite part), for an array of ``θ``.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.pld import LossDistribution, log_mgf
    >>> ld = LossDistribution(step=0.5, offset=-2, mass=np.array([0.5, 0, 0, 0, 0.5]))
    >>> np.round(log_mgf(ld, np.array([0.0, 1.0])), 6).tolist()  # log cosh(1)
    [0.0, 0.433781]
    """
    theta = np.asarray(theta, dtype=float)
    if theta is _TILTS:  # every tilt decision reads this grid: computed once per distribution
        if "tilts" not in ld.cache:
            ld.cache["tilts"] = ld.log_mgf(theta * ld.step) + theta * ld.step * ld.offset
        return ld.cache["tilts"]
    return ld.log_mgf(theta * ld.step) + theta * ld.step * ld.offset


def _weight_norm(step: float, tilt: float, above: np.ndarray) -> np.ndarray:
    """An upper bound on ``‖w_ε e^{−θ(ℓ − g)}‖₂`` over the ``above`` grid points above a grid point ``g``,
    for every ``ε`` in ``[g, g + step)`` (``θ = tilt``, ``h = step``).

    The ``k``-th point above lies ``k h`` above ``g``, so its weight ``1 − e^{ε − ℓ}`` is at most
    ``min(1, k h)`` and its tilt factor is ``r^{k/2}``, ``r = e^{−2θh}``: the squared norm is at most
    ``Σ_{k=1}^{K} min(1, k h)² r^k``, bounded by the smallest of ``K``, ``r/(1 − r)`` (weights
    bounded by 1: the bound used alone before), ``h² Σ_{k<=k₀} k² + (K − k₀)``
    (``k₀ = min(K, ⌊1/h⌋)``) and ``h² r (1 + r)/(1 − r)³`` (``Σ k² r^k``). Where the composed loss
    spans far less than 1 (a tiny ``eps0``) the weights, and with them the rounding term of the
    slack, are that much smaller. Inflated by a relative ``1e-9`` for the rounding of the formulas.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.pld import _weight_norm
    >>> _weight_norm(1e-6, 0.0, np.array([0.0, 100.0, 1e8])).round(6).tolist()  # 0, ~h K^1.5/sqrt(3), < sqrt(K)
    [0.0, 0.000582, 9966.610955]
    """
    k = np.asarray(above, dtype=float)
    h = float(step)
    k0 = np.minimum(k, math.floor(min(1.0 / h, 2.0**60)))
    square = np.minimum(k, h * h * k0 * (k0 + 1.0) * (2.0 * k0 + 1.0) / 6.0 + (k - k0))
    if tilt > 0.0:
        one_minus_r = -math.expm1(-2.0 * tilt * h)
        r = 1.0 - one_minus_r
        square = np.minimum(square, r / one_minus_r)
        square = np.minimum(square, h * h * r * (1.0 + r) / one_minus_r**3)
    return np.sqrt(square * (1.0 + 1e-9))


def _weight_cap(loss: np.ndarray | float, top: float) -> np.ndarray:
    """The largest hockey-stick weight ``1 − e^{ε − ℓ}`` of a loss ``ℓ <= top`` at any ``ε >= loss``
    (1 if ``top`` is infinite), inflated for rounding.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.pld import _weight_cap
    >>> _weight_cap(np.array([0.0, 1e-5]), 1e-5).round(12).tolist(), float(_weight_cap(0.0, np.inf))
    ([9.99995e-06, 0.0], 1.0)
    """
    loss = np.asarray(loss, dtype=float)
    if not math.isfinite(top):
        return np.ones(loss.shape)
    gap = np.maximum(top - loss + 1e-12 * (abs(top) + np.abs(loss)), 0.0)
    return np.minimum(-np.expm1(-gap) * (1.0 + 1e-9), 1.0)


def _top(ld: LossDistribution) -> float:
    """An upper bound on every finite loss ``ld`` stands for: its ``top``, or for
    a distribution without slack (a single round, all its mass on its grid) its last grid point."""
    if math.isfinite(ld.top) or not ld.exact:
        return ld.top
    return (ld.offset + ld.mass.size - 1) * ld.step


def _loss_error(loss: np.ndarray, magnitude: np.ndarray | float) -> np.ndarray:
    """A bound on the rounding error of computed losses ``loss`` whose logarithms had size ``magnitude``
    (plus the rounding of their place on the grid)."""
    return 16.0 * _U * (1.0 + np.abs(loss) + magnitude)


class _Grid:
    """Accumulates atoms (losses, P-masses) into one ``kind`` of discretization on ``step · ℤ``.

    Atoms may be added in several batches (:meth:`add`); :meth:`result` returns the
    :class:`LossDistribution`. ``"merge"`` keeps, per bin ``[k step, (k + 1) step)``, the P-mass
    and the excess and deficit of the bin over its two grid points, and merges at the end.
    """

    def __init__(self, step: float, kind: str, reach: int = 8) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        self.step, self.kind, self.reach = step, kind, check_int("reach", reach, minimum=1)
        self.chunks: list[tuple[np.ndarray, ...]] = []
        self.count = 0
        self.inf_mass = 0.0
        self.bottom = 0.0  # P-mass below every atom (upper bounds: at the lowest grid point)

    def add(self, loss: np.ndarray, p: np.ndarray, error: np.ndarray | float = 0.0) -> None:
        """Add atoms with losses ``loss`` (finite, each within ``error`` of the truth) and P-masses ``p``."""
        loss = np.asarray(loss, dtype=float)
        p = np.asarray(p, dtype=float)
        error = np.broadcast_to(np.asarray(error, dtype=float), loss.shape)
        live = p > 0
        if not live.any():
            return
        if not live.all():  # (atoms listed by a mixture are all live: no copies)
            loss, p, error = loss[live], p[live], error[live]
        error = error + _loss_error(loss, 0.0)
        h = self.step
        upper = self.kind in ("dots", "up")
        moved = np.add(loss, error, out=error) if upper else np.subtract(loss, error, out=error)  # the safe side
        self.count += loss.size
        if self.kind == "up":
            k = np.ceil(moved / h)
            self.chunks.append((k, p))
        elif self.kind == "down":
            k = np.floor(moved / h)
            self.chunks.append((k, p))
        elif self.kind == "dots":
            k = np.empty(2 * loss.size)  # the lower grid points, then the upper ones
            low, high = k[: loss.size], k[loss.size :]
            np.floor(np.divide(moved, h, out=low), out=low)
            np.add(low, 1.0, out=high)
            lam = np.multiply(high, h)
            lam -= moved
            np.expm1(lam, out=lam)
            lam /= math.expm1(h)
            lam *= 1.0 - 8.0 * _U
            np.clip(lam, 0.0, 1.0, out=lam)  # expm1's rounding: less to the lower point
            split = np.empty(2 * loss.size)
            np.multiply(p, lam, out=split[: loss.size])
            np.subtract(1.0, lam, out=lam)
            np.multiply(p, lam, out=split[loss.size :])
            self.chunks.append((k, split))
        else:  # merge
            k = np.floor(moved / h)
            excess = p * -np.expm1(k * h - moved)  # over the bin's lower point, >= 0
            deficit = p * np.expm1((k + 1.0) * h - moved)  # under its upper point, > 0
            self.chunks.append((k, p, excess, deficit))

    def result(self, *, pessimistic_inf: float = 0.0, max_loss: float = math.inf) -> LossDistribution:
        """The discretized distribution; ``pessimistic_inf`` is mass at ``+∞`` (upper bounds only)."""
        upper = self.kind in ("dots", "up")
        if not self.chunks:
            inf = min(1.0, self.inf_mass + pessimistic_inf + self.bottom) if upper else 0.0
            return LossDistribution(self.step, 0, np.zeros(1), inf, upper, max_loss=max_loss)
        k = np.concatenate([c[0] for c in self.chunks])
        lo, hi = int(k.min()), int(k.max())
        idx = (k - lo).astype(np.int64)
        size = hi - lo + 1
        # Summation: each bin's sum of at most `count` terms is within count · u of the truth.
        grow = 2.0 * (self.count + 4) * _U
        if self.kind != "merge":
            mass = np.bincount(idx, weights=np.concatenate([c[1] for c in self.chunks]), minlength=size)
            if upper:
                mass[0] += self.bottom
                mass *= 1.0 + grow
            else:
                mass *= 1.0 - grow
            inf = min(1.0, (self.inf_mass + pessimistic_inf) * (1.0 + grow)) if upper else 0.0
            return LossDistribution(self.step, lo, mass, inf, upper, max_loss=max_loss)
        p = np.bincount(idx, weights=np.concatenate([c[1] for c in self.chunks]), minlength=size)
        excess = np.bincount(idx, weights=np.concatenate([c[2] for c in self.chunks]), minlength=size)
        deficit = np.bincount(idx, weights=np.concatenate([c[3] for c in self.chunks]), minlength=size)
        # Safe side of the merge: less excess, more deficit, less mass (relative 1e-12 covers the
        # sums' rounding and the expm1 of each term).
        safe = 1e-12 + grow
        mass = _merge(p * (1.0 - safe), excess * (1.0 - safe), deficit * (1.0 + safe), self.step, self.reach)
        return LossDistribution(self.step, lo, mass, 0.0, False, max_loss=max_loss)


#: Grid points a part of a bin may be carried up, in the merging step (``_merge``), before it is rounded down.
MERGE_REACH = 8


def _merge(p: np.ndarray, excess: np.ndarray, deficit: np.ndarray, step: float, reach: int = MERGE_REACH) -> np.ndarray:
    """Merge bins onto grid points from above (see the module docstring), greedily from the bottom.

    Bin ``i`` holds P-mass ``p[i]`` with losses in ``[g_i, g_{i+1})``; ``excess[i]`` is
    ``Σ p (1 − e^{g_i − ℓ})``, ``deficit[i]`` is ``Σ p (e^{g_{i+1} − ℓ} − 1)``. At ``g_i`` the parts
    carried up from the bins below (their deficit under ``g_i``) are balanced by a fraction of
    bin ``i`` sent down (its excess over ``g_i``); the rest of bin ``i`` is carried up. A carried
    part that bin ``i`` cannot balance moves on to ``g_{i+1}`` (its deficit grows to
    ``e^{step} D + (e^{step} − 1) P``), for at most ``reach`` grid points; then, and at
    the top, it is rounded down to the grid point it came from. (A part below a grid point can
    only go down: raising its loss would need more P or less Q, neither a lower bound.) Every output at ``g_i``
    has excess >= deficit: its loss is at least ``g_i``. (Returning an unbalanced part at once
    would round it down by up to a step: a first-order error where bins alternate between
    heavy and light, as on the lattice of a clone pair's atoms.)
    """
    size = p.size
    out = np.zeros(size)
    carry_p = carry_d = 0.0
    origin = 0  # the bin a carried part came from (its atoms' losses are >= g_origin)
    grow, add = math.exp(step), math.expm1(step)

    def release() -> None:
        """Round the carried part down to ``g_origin`` (its atoms' losses are at least that)."""
        out[origin] += carry_p

    live = np.flatnonzero(p > 0.0)
    pl, el, dl = p[live].tolist(), excess[live].tolist(), deficit[live].tolist()
    previous = -1
    for i, pi, ei, di in zip(live.tolist(), pl, el, dl, strict=True):
        if carry_p > 0.0 and i - previous > 1:
            # Empty bins between: nothing balances there; the part moves on (e^{kh}(D + P) − P)
            # unless it has gone as far as it may: then it is placed.
            if origin + reach < i:
                release()
                carry_p = carry_d = 0.0
            else:
                gap = (i - previous - 1) * step
                carry_d = math.exp(gap) * carry_d + math.expm1(gap) * carry_p
        previous = i
        if carry_d <= ei * (1.0 - 1e-10):
            lam = min(1.0, carry_d * (1.0 + 1e-10) / ei) if ei > 0.0 else 0.0
            out[i] += carry_p + lam * pi
            carry_p, carry_d, origin = (1.0 - lam) * pi, (1.0 - lam) * di, i
        else:
            share = ei * (1.0 - 1e-10) / carry_d  # the fraction of the carried part bin i balances
            out[i] += pi + share * carry_p
            carry_p *= 1.0 - share
            carry_d = grow * (1.0 - share) * carry_d + add * carry_p
            if i + 1 - origin > reach:
                release()
                carry_p = carry_d = 0.0
    if carry_p > 0.0:
        release()
    return out


def discretize(
    loss: np.ndarray,
    p: np.ndarray,
    step: float,
    kind: str = "dots",
    *,
    inf_mass: float = 0.0,
    error: np.ndarray | float = 0.0,
    max_loss: float = math.inf,
    reach: int = MERGE_REACH,
) -> LossDistribution:
    """Put atoms (finite losses, P-masses) on the grid ``step · ℤ`` (module docstring).

    Parameters
    ----------
    loss, p
        The atoms' finite losses and P-masses (1-D, equal length).
    step
        Grid spacing (> 0).
    kind
        ``"dots"``, ``"merge"``, ``"up"`` or ``"down"``.
    inf_mass
        P-mass at loss ``+∞`` (kept by upper bounds, dropped by lower bounds).
    error
        A bound on the error of each computed loss (besides its own rounding).
    max_loss
        A known bound on the pair's finite losses (for Rényi moments).
    reach
        How many grid points merging may carry a part of a bin up (``"merge"`` only).

    Examples
    --------
    One atom at loss 0.3 on the grid ``0.1 ℤ`` stays there; at 0.25 it is split between 0.2 and
    0.3 (dots) or merged down to 0.2 (merge, no neighbour to balance it):

    >>> import numpy as np
    >>> from shufflelib.composition.pld import discretize
    >>> ld = discretize(np.array([0.25]), np.array([1.0]), 0.1)
    >>> ld.losses.round(2).tolist(), ld.mass.round(4).tolist()
    ([0.2, 0.3], [0.4875, 0.5125])
    >>> discretize(np.array([0.25]), np.array([1.0]), 0.1, "merge").losses.round(2).tolist()
    [0.2]
    """
    step = check_positive("step", step)
    loss = np.asarray(loss, dtype=float)
    p = np.asarray(p, dtype=float)
    if loss.ndim != 1 or loss.shape != p.shape:
        raise ValueError(f"loss and p must be 1-D arrays of equal length, got {loss.shape}, {p.shape}")
    grid = _Grid(step, kind, reach)
    grid.add(loss, p, error)
    return grid.result(pessimistic_inf=check_nonnegative("inf_mass", inf_mass), max_loss=max_loss)


def from_log_pmfs(
    log_p: np.ndarray,
    log_q: np.ndarray,
    step: float,
    *,
    pessimistic: bool = True,
    max_loss: float = math.inf,
    kind: str | None = None,
    reach: int = MERGE_REACH,
) -> LossDistribution:
    """The discretized PLD of ``(P, Q)`` from their log-probabilities on common atoms.

    Atoms where ``Q = 0 < P`` have loss ``+∞``. Missing mass (``sum P < 1``)
    is sent to ``+∞`` if ``pessimistic`` (it may be anywhere), dropped if not.

    Parameters
    ----------
    log_p, log_q
        1-D arrays of equal length, entries finite or ``-inf``.
    step
        Grid spacing (> 0).
    pessimistic
        An upper bound on every δ (default: connect the dots) or a lower bound (merging).
    max_loss
        A known bound on the pair's finite losses (for Rényi moments).
    kind
        One of :data:`KINDS`, overriding the default of ``pessimistic``.
    reach
        See :func:`discretize`.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.pld import from_log_pmfs
    >>> p = np.e / (1 + np.e)
    >>> ld = from_log_pmfs(np.log([p, 1 - p]), np.log([1 - p, p]), step=1e-3)
    >>> round(ld.delta(0.5), 6), round(float((np.e - np.exp(0.5)) / (1 + np.e)), 6)
    (0.287649, 0.287649)
    """
    lp = np.asarray(log_p, dtype=float)
    lq = np.asarray(log_q, dtype=float)
    if lp.ndim != 1 or lp.shape != lq.shape or lp.size == 0:
        raise ValueError(f"log_p and log_q must be non-empty 1-D arrays of equal length, got {lp.shape}, {lq.shape}")
    if np.any(np.isnan(lp)) or np.any(np.isnan(lq)) or np.any(lp > 1e-12) or np.any(lq > 1e-12):
        raise ValueError("log_p and log_q must contain log-probabilities (<= 0, no NaN)")
    step = check_positive("step", step)
    kind = kind if kind is not None else ("dots" if pessimistic else "merge")
    live = lp > -np.inf
    lp, lq = lp[live], lq[live]
    finite = lq > -np.inf
    p = np.exp(lp)
    upper = kind in ("dots", "up")
    inf_mass = float(p[~finite].sum())
    missing = max(0.0, 1.0 - float(p.sum()))
    grid = _Grid(step, kind, reach)
    loss = lp[finite] - lq[finite]
    # exp and the subtraction of two logarithms: a few units in the last place of each.
    error = _loss_error(loss, np.abs(lp[finite]) + np.abs(lq[finite]))
    grid.add(loss, p[finite] * (1.0 + (4.0 if upper else -4.0) * _U), error)
    return grid.result(pessimistic_inf=(inf_mass + missing) if upper else 0.0, max_loss=max_loss)


def _window(parts: Sequence[tuple[LossDistribution, int]], tail: float, shift: float = 0.0) -> tuple[int, int]:
    """Index range ``[lo, hi]`` of the composed sum outside which at most ``tail`` mass lies (per side).

    Chernoff: ``Pr[S >= s] <= exp(K(θ) − θ s)`` for θ > 0 and ``Pr[S <= s] <= exp(K(−θ) + θ s)``,
    ``K`` the sum of the parts' log-mgfs (in index units, relative to each part's offset), of the
    parts tilted by ``shift`` (per index unit) and normalized. Any θ gives a valid bound; the edge
    ``(K(θ) − log tail) / θ`` is quasi-convex in θ (its derivative has the sign of the increasing
    ``θ K'(θ) − K(θ) + log tail``), so each side narrows a geometric grid of θ around its best
    point, :data:`WINDOW_STAGES` times by :data:`WINDOW_THETAS` points, and takes the best θ seen.
    """
    top = sum(count * (ld.mass.size - 1) for ld, count in parts)
    if any(not np.any(ld.mass > 0.0) for ld, _ in parts):
        return 0, top  # a round with no finite loss: the whole support (compose handles it first)
    scale = max(1.0, float(top))
    log_tail = math.log(tail)
    ends = np.log([1e-3 / scale, 50.0]), np.log([1e-3 / scale, 50.0])  # log θ, per side (up, down)
    best = [math.inf, math.inf]  # the least edge seen per side: hi, and −lo
    for _ in range(WINDOW_STAGES):
        grids = [np.exp(np.linspace(a, b, WINDOW_THETAS)) for a, b in ends]
        thetas = np.concatenate([shift + grids[0], shift - grids[1]])
        k = sum(count * _relative_log_mgf(ld, shift, thetas) for ld, count in parts)
        new_ends = []
        for side, (grid, (a, b)) in enumerate(zip(grids, ends, strict=True)):
            edge = (k[side * WINDOW_THETAS : (side + 1) * WINDOW_THETAS] - log_tail) / grid
            j = int(np.argmin(edge))
            best[side] = min(best[side], float(edge[j]))
            width = (b - a) / (WINDOW_THETAS - 1)  # the best point's neighbours bracket the least edge
            new_ends.append((a + max(j - 1, 0) * width, a + min(j + 1, WINDOW_THETAS - 1) * width))
        ends = tuple(new_ends)
    return max(0, math.floor(-best[1])), min(top, math.ceil(best[0]))


def _relative_log_mgf(ld: LossDistribution, shift: float, thetas: np.ndarray) -> np.ndarray:
    """``log mgf(θ) − log mgf(shift)`` of ``ld`` (index units) at ``thetas``, cached (windows are
    asked again for the same parts, tail and tilt: by the meter and by the composition)."""
    key = ("window", shift, thetas.tobytes())
    if key not in ld.cache:
        base = ("window base", shift)
        if base not in ld.cache:
            ld.cache[base] = float(ld.log_mgf(np.array([shift]))[0])
        ld.cache[key] = ld.log_mgf(thetas) - ld.cache[base]
    return ld.cache[key]


class WindowTooWide(ValueError):
    """The composed distribution would need an FFT longer than ``MAX_FFT_LENGTH`` at this step.

    ``factor`` is the ratio of the length needed to the largest allowed: a step about that
    many times larger fits.

    Examples
    --------
    >>> WindowTooWide("too wide", 3.0).factor
    3.0
    """

    def __init__(self, message: str, factor: float) -> None:
        super().__init__(message)
        self.factor = factor


def window_tail(delta: float | None) -> float:
    """Mass the (untilted) composition window may leave out per side when the curve is read at ``delta``.

    ``max(WINDOW_TAIL, WINDOW_SHARE · delta)`` (``WINDOW_TAIL`` for ``None``: a curve read at
    any δ). The window's two tails are counted into every δ, so reading ε at ``delta`` costs
    at most a share ``2e-4`` of ``delta``; in exchange the window of a Gaussian-like sum
    narrows from about ``±sqrt(2 log 1e30) σ`` to ``±sqrt(2 log(1e4 / δ)) σ`` (δ = 1e-6: from
    ``±11.7 σ`` to ``±6.8 σ``), and the FFT with it. A tilted composition uses
    :data:`TILTED_TAIL` instead.

    Examples
    --------
    >>> from shufflelib.composition.pld import window_tail
    >>> window_tail(1e-6), window_tail(1e-40), window_tail(None)
    (1e-10, 1e-30, 1e-30)
    """
    if delta is None:
        return WINDOW_TAIL
    return max(WINDOW_TAIL, WINDOW_SHARE * check_probability("delta", delta))


def tilt_for(
    parts: Sequence[tuple[LossDistribution, int]], *, eps: float | None = None, delta: float | None = None
) -> float:
    """The tilt ``θ >= 0`` (loss units) at which to compose ``parts`` to read δ at ``eps`` or ε at ``delta``.

    ``K(θ) = Σ count · log Σ mass e^{θ ℓ}`` is the composed log-mgf. For ``eps``: the Chernoff
    saddle point, argmin of ``K(θ) − θ ε``, searched on a geometric grid (and 0) and rounded to
    a power of ``√2`` (:func:`quantize_tilt`): nearby questions share a composition. For
    ``delta``: that of the ε where the saddle point estimate of δ reaches ``delta`` (first on
    the grid), so that the δ question at the answer usually reads the same composition. Any
    tilt is valid; the saddle point makes the rounding terms smallest where δ is read. No tilt
    (0) where the untilted composition's rounding terms move ε by less than a relative ``1e-5``
    at δ (``delta`` if given, else the saddle point estimate of δ at ``eps``): give both to
    decide for δ read at ``eps`` when δ is known.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.pld import from_log_pmfs, tilt_for
    >>> p = np.exp(0.1) / (1 + np.exp(0.1))
    >>> rr = from_log_pmfs(np.log([p, 1 - p]), np.log([1 - p, p]), step=1e-3)
    >>> tilt_for([(rr, 100)], delta=1e-6), tilt_for([(rr, 100)], delta=1e-12) > 1.0  # untilted is fine at 1e-6
    (0.0, True)
    """
    if eps is None and delta is None:
        raise ValueError("give eps, delta or both")
    k = sum(count * log_mgf(ld, _TILTS) for ld, count in parts)
    if not np.isfinite(k).all():  # a round with no finite loss (all at +∞): no tilt helps
        return 0.0
    # The saddle point estimate of δ at the ε where the tilt θ is the Chernoff point (ε = K'(θ)):
    # log δ ≈ K(θ) − θ K'(θ) − log(θ (θ + 1)) − log(2π K''(θ)) / 2 (the hockey-stick integrand's
    # Laplace transform is 1/(θ(θ + 1))); K' and K'' by differences on the grid of tilts.
    t, kk = _TILTS[1:], k[1:]
    with np.errstate(invalid="ignore", over="ignore"):
        k1 = np.gradient(kk, t)
        k2 = np.maximum(np.gradient(k1, t), 1e-300)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        estimate = kk - t * k1 - np.log(t * (t + 1.0)) - 0.5 * np.log(2.0 * math.pi * k2)
    fine = np.isfinite(estimate)
    log_delta = None if delta is None else math.log(check_probability("delta", delta))
    if eps is None:
        below = np.flatnonzero(fine & (estimate <= log_delta))
        eps = float(k1[below[0]]) if below.size else float(k1[-1])
    best = int(np.argmin(k - _TILTS * eps))
    theta = float(_TILTS[best])
    if log_delta is None:  # δ at eps, estimated at its saddle point (the Chernoff bound if not finite)
        j = max(best - 1, 0)
        log_delta = float(estimate[j]) if best > 0 and fine[j] else float(k[best] - theta * eps)
    # Untilted, the rounding terms are at most ``untilted``: where they move ε by less than a
    # relative 1e-5 (δ's slope in ε is about θ δ), the untilted composition is kept: its window
    # is never wider (a tilt can make a round's far, rare atoms carry most of the tilted mass).
    negligible = 1e-5 * math.exp(min(log_delta, 0.0)) * max(theta * eps, 1e-2)
    untilted = _untilted_slack(parts)
    tilt = quantize_tilt(theta)
    if untilted <= negligible or tilt == 0.0:
        return 0.0
    slack = predicted_slack(parts, tilt, eps)
    if slack > negligible:  # the saddle point's slack is too large to read δ: a gentler tilt
        tilt, slack = _gentler_tilt(parts, tilt, eps, slack)
    # A tilt shrinks the rounding term where δ is read, but its window leaves TILTED_TAIL out: where
    # every weight is tiny (a tiny eps0) the untilted slack can be the smaller one.
    return 0.0 if untilted <= slack else tilt


def _gentler_tilt(
    parts: Sequence[tuple[LossDistribution, int]], tilt: float, eps: float, slack: float
) -> tuple[float, float]:
    """The tilt at or below ``tilt`` (powers of ``√2``) whose :func:`predicted_slack` at ``eps`` is
    smallest, and that slack: where the saddle point's slack is too large to read δ, a gentler tilt.

    Far, rare atoms can make the saddle point a bad tilt: their weight ``e^{θ ℓ}`` lifts the
    composition's rounding terms far above the δ read (stronger clones, n = 3.2e8, ε₀ = 15.23,
    10 rounds, δ = 2.87e-15: predicted slack 4e9 at the saddle point's θ = 5.66, 3e-17 at
    θ = 2.83). The slack falls, then rises, as the tilt falls from the saddle point: the walk
    stops two steps after its smallest value.
    """
    best, best_slack, rises = tilt, slack, 0
    candidate = tilt
    while rises < 2:
        candidate = quantize_tilt(candidate / math.sqrt(2.0))
        if candidate == 0.0:
            break
        value = predicted_slack(parts, candidate, eps)
        if value < best_slack:
            best, best_slack, rises = candidate, value, 0
        else:
            rises += 1
    return best, best_slack


def _untilted_slack(parts: Sequence[tuple[LossDistribution, int]]) -> float:
    """The slack of ``compose(parts)`` untilted, at most (its window's length from the Chernoff bound;
    the weights' norm over that many grid points, ``_weight_norm``)."""
    lo, hi = _window(parts, WINDOW_TAIL)
    length = hi - lo + 1
    total = sum(count for _, count in parts)
    rounding = _composition_rounding(total, len(parts), max(length, 2))
    norm = float(_weight_norm(parts[0][0].step, 0.0, np.array([float(length)]))[0])
    return 2.0 * WINDOW_TAIL + rounding * norm


def predicted_slack(parts: Sequence[tuple[LossDistribution, int]], tilt: float, eps: float) -> float:
    """An upper bound on the slack at ``eps`` of ``compose(parts, tilt=tilt)`` (single rounds), without composing.

    ``e^{K(θ) − θ ε} (2 · TILTED_TAIL · c + rounding · g)``: ``K`` the composed log-mgf, the rounding
    budget of :func:`compose` at the longest FFT allowed, ``g`` the bound on the weights'
    norm of the distribution's slack (``_weight_norm``) and ``c`` the largest weight of a loss
    up to the composition's top (``_weight_cap``) (for ``θ = 0``: ``WINDOW_TAIL``, and the
    norm over the longest FFT).

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.pld import from_log_pmfs, predicted_slack
    >>> rr = from_log_pmfs(np.log([0.525, 0.475]), np.log([0.475, 0.525]), step=1e-3)  # randomized response, ε0 ≈ 0.1
    >>> predicted_slack([(rr, 100)], 5.0, 3.0) < 1e-10 < predicted_slack([(rr, 100)], 0.0, 3.0)  # tilted, untilted
    True
    """
    total = sum(count for _, count in parts)
    rounding = _composition_rounding(total, len(parts), MAX_FFT_LENGTH)
    step = parts[0][0].step
    if tilt <= 0.0:
        return 2.0 * WINDOW_TAIL + rounding * float(_weight_norm(step, 0.0, np.array([float(MAX_FFT_LENGTH)]))[0])
    k = float(sum(count * log_mgf(ld, np.array([tilt]))[0] for ld, count in parts))
    norm = float(_weight_norm(step, tilt, np.array([float(MAX_FFT_LENGTH)]))[0])
    cap = float(_weight_cap(eps - step, sum(count * _top(ld) for ld, count in parts)))
    scale = k - tilt * eps
    return math.inf if scale > 700.0 else math.exp(scale) * (2.0 * TILTED_TAIL * cap + rounding * norm)


def _tail_sums(mass: np.ndarray, decay: float) -> tuple[np.ndarray, np.ndarray]:
    """``S_i = Σ_{j >= i} mass_j`` and ``R_i = Σ_{j >= i} mass_j decay^{j − i}`` for ``0 < decay < 1``
    (the recursion ``R_i = mass_i + decay R_{i+1}``): the sums of :meth:`LossDistribution.epsilon`
    and :meth:`LossDistribution.profile`.

    ``R`` by blocks of at most 4096 points over which the discount stays above ``e^{−460}``: inside a
    block a cumulative sum of ``mass_j decay^{−j}`` scaled back, across blocks the carried sum
    (the masses are non-negative, so every sum is of terms of one sign: relative rounding
    ``~1e-16`` per term, as the recursion's). ``scipy.signal.lfilter`` computes the same, but
    importing :mod:`scipy.signal` (which imports :mod:`scipy.stats`) costs about 0.4 s.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.pld import _tail_sums
    >>> tail, r = _tail_sums(np.array([1.0, 2.0, 4.0]), 0.5)
    >>> tail.tolist(), r.tolist()  # r: 1 + 0.5 (2 + 0.5 · 4), 2 + 0.5 · 4, 4
    ([7.0, 6.0, 4.0], [3.0, 4.0, 4.0])
    """
    backwards = mass[::-1]
    tail = np.cumsum(backwards)[::-1]
    size = mass.size
    if size == 0 or decay == 0.0:  # (a step beyond 745: e^{−step} underflows)
        return tail, np.array(mass, dtype=float)
    block = max(1, min(size, 4096, int(460.0 / -math.log(decay))))
    flat = np.zeros(-(-size // block) * block)
    flat[:size] = backwards  # R read backwards is a forward recursion
    local = flat.reshape(-1, block)
    power = decay ** np.arange(block, dtype=float)
    np.divide(local, power, out=local)
    np.cumsum(local, axis=1, out=local)
    np.multiply(local, power, out=local)  # each block's own sums, from its start
    ends = local[:, -1].tolist()
    carry = decay**block
    for b in range(1, len(ends)):  # what each block carries into the next
        ends[b] += carry * ends[b - 1]
    local[1:] += np.asarray(ends[:-1])[:, None] * (power * decay)[None, :]
    return tail, flat[size - 1 :: -1]


def quantize_tilt(theta: float) -> float:
    """``θ`` rounded to the nearest power of ``√2`` (0 below ``1e-3``).

    Examples
    --------
    >>> from shufflelib.composition.pld import quantize_tilt
    >>> quantize_tilt(3.0), quantize_tilt(0.0)
    (2.8284271247461903, 0.0)
    """
    if theta < 1e-3:
        return 0.0
    return 2.0 ** (round(2.0 * math.log2(theta)) / 2.0)


def _power(spectrum: np.ndarray, count: int) -> np.ndarray:
    """``spectrum ** count``, with 0 where ``|z|^count < SPECTRUM_FLOOR`` (``spectrum`` may be
    overwritten or left as it was: use the array returned).

    Many rounds of a spread-out loss leave only a few of the spectrum's entries above the floor
    (clones at n = 2, 10^4 rounds: about a hundred of a million): the power, the costliest step
    of a composition after the FFTs, is then taken only there. An entry is dropped only if its
    computed ``|z|²`` is below ``floor^(2 / count) (1 − 1e-6)`` (the margin covers the rounding
    of ``|z|²``). The inverse FFT divides by the length, so the dropped entries (each below the
    floor, times the other parts' powers, of modulus about 1 at most) move the masses by at most
    ``2 · SPECTRUM_FLOOR`` in ℓ₂ per part.
    """
    threshold = math.exp(2.0 * math.log(SPECTRUM_FLOOR) / count) * (1.0 - 1e-6)
    square = spectrum.real**2
    square += spectrum.imag**2
    kept = np.flatnonzero(square >= threshold)
    if 2 * kept.size > spectrum.size:
        return _integer_power(spectrum, count)
    values = _integer_power(spectrum[kept], count)
    spectrum[:] = 0.0
    spectrum[kept] = values
    return spectrum


def _composition_rounding(total: int, kinds: int, length: int) -> float:
    """The ℓ₂ bound on the rounding of the masses one composition of ``total`` rounds of ``kinds``
    distinct distributions computes on an FFT of ``length`` points (module docstring): the
    transforms, ``5 (T + 2 + kinds) log₂(N) u``; the spectra's powers and products, chains of
    complex multiplications of relative error ``√5 u`` each, so ``√5 T u`` relative on each entry
    (and in ℓ₂ on the masses, of ℓ₂ norm at most 1); the entries dropped below the floor,
    ``2 · floor`` per kind."""
    return (5.0 * (total + 2 + kinds) * math.log2(length) + math.sqrt(5.0) * total) * _U + 2.0 * kinds * SPECTRUM_FLOOR


def _integer_power(z: np.ndarray, count: int) -> np.ndarray:
    """``z ** count`` (complex, ``count >= 1``) by repeated multiplication: NumPy's ``power`` does that
    for exponents below 100 and computes ``exp(count · log z)`` above, 3–5 times as slowly
    (2^21 entries: 0.4–0.6 s against 0.1–0.2 s here); above, Horner's scheme on the base-64 digits
    of ``count``. Either way a chain of ``count − 1`` complex multiplications, each adding at most
    ``√5 u`` to the relative error (:func:`_composition_rounding` counts it); NumPy's
    ``exp(count · log z)`` had no such bound of its own."""
    if count < 100:
        return np.power(z, count)
    digits = []
    while count:
        count, digit = divmod(count, 64)
        digits.append(digit)
    out = np.power(z, digits.pop())
    for digit in reversed(digits):
        np.power(out, 64, out=out)
        if digit:
            out *= np.power(z, digit)
    return out


def compose(
    parts: Sequence[tuple[LossDistribution, int]],
    max_length: int = MAX_FFT_LENGTH,
    tail: float | None = None,
    tilt: float = 0.0,
) -> LossDistribution:
    """Compose distributions: ``[(ld_1, T_1), (ld_2, T_2), …]`` is ``T_1`` rounds of ``ld_1``, then ….

    All parts must share ``step`` and ``pessimistic``. The result carries the summed
    ``rounds``, and the slack terms of the module docstring: ``tail_mass`` (the parts' plus
    this window's, ``2 · tail``: at most ``tail`` left out on each side, default
    :data:`WINDOW_TAIL`, or :data:`TILTED_TAIL` of the tilted mass when ``tilt > 0``, see
    :func:`window_tail`) and the rounding budget. A tilted composition (``tilt > 0``, loss
    units, :func:`tilt_for`) takes single rounds only (parts without slack). A window needing an
    FFT longer than ``max_length`` (at most :data:`MAX_FFT_LENGTH`) raises
    :class:`WindowTooWide`.

    Examples
    --------
    Two rounds of randomized response with ``eps0 = 1`` are 2-DP with δ = 0 and
    ``δ(0) = p² − q²`` (``p = e/(1 + e)``, ``q = 1 − p``); the losses ±1 are split between
    the grid points around them, whose δ(0) is within 1e-6:

    >>> import numpy as np
    >>> from shufflelib.composition.pld import compose, from_log_pmfs
    >>> p = np.e / (1 + np.e)
    >>> rr = from_log_pmfs(np.log([p, 1 - p]), np.log([1 - p, p]), step=1e-3)
    >>> two = compose([(rr, 2)])
    >>> abs(two.delta(0.0) - (p**2 - (1 - p) ** 2)) < 1e-6
    True
    >>> two.delta(2.0 + 2e-3) < 1e-12  # 2-DP, up to the two split steps
    True
    """
    if not parts:
        raise ValueError("parts must hold at least one (distribution, count) pair")
    parts = [(ld, check_int("count", count, minimum=1)) for ld, count in parts]
    step, pessimistic = parts[0][0].step, parts[0][0].pessimistic
    for ld, _ in parts:
        if ld.step != step or ld.pessimistic != pessimistic:
            raise ValueError("all parts must share step and pessimistic")
    tilt = check_nonnegative("tilt", tilt)
    if tilt > 0.0 and not all(ld.exact for ld, _ in parts):
        raise ValueError("a tilted composition takes single rounds (parts without slack terms)")
    if len(parts) == 1 and parts[0][1] == 1:
        return parts[0][0]  # one round: nothing to convolve
    tail = (TILTED_TAIL if tilt > 0.0 else WINDOW_TAIL) if tail is None else check_positive("tail", tail)
    if tail >= 0.5:
        raise ValueError(f"tail must be in (0, 0.5), got {tail!r}")
    total = sum(count for _, count in parts)
    rounds = sum(count * ld.rounds for ld, count in parts)
    if any(not np.any(ld.mass > 0.0) for ld, _ in parts):  # a round with every loss infinite
        return LossDistribution(
            step=step,
            offset=0,
            mass=np.zeros(1),
            inf_mass=1.0,
            pessimistic=pessimistic,
            rounds=rounds,
            tail_mass=sum(count * ld.tail_mass for ld, count in parts),
            rounding=sum(count * ld.rounding for ld, count in parts),
            max_loss=math.inf,
        )
    shift = tilt * step  # the tilt per index unit
    lo, hi = _window(parts, tail, shift)
    size = hi - lo + 1
    length = sfft.next_fast_len(size, real=True)
    max_length = min(check_int("max_length", max_length, minimum=2), MAX_FFT_LENGTH)
    if length > max_length:
        raise WindowTooWide(
            f"the composition needs an FFT of length {length} > {max_length}: use a larger step (got step={step})",
            length / max_length,
        )
    spectrum = None
    log_scale = 0.0  # log of the composed tilted mass, M^T (loss units, offsets included)
    eta = 0.0  # relative rounding of the tilting, T-fold through the convolution
    for ld, count in parts:
        mass = ld.mass
        if shift > 0.0:
            idx = np.arange(mass.size)
            with np.errstate(divide="ignore"):
                logs = np.log(mass) + shift * idx
            # Normalized by its sum (any finite log_m is exact bookkeeping: log_scale carries it).
            top = float(np.max(logs))
            mass = np.exp(logs - top)
            summed = float(mass.sum())
            mass /= summed
            log_m = top + math.log(summed)
            log_scale += count * (log_m + tilt * step * ld.offset)
            largest = float(np.max(np.abs(logs), where=mass > 0, initial=0.0))
            eta += count * 4.0 * _U * (4.0 + abs(log_m) + shift * mass.size + largest)
        if mass.size <= length:
            folded = np.zeros(length)
            folded[: mass.size] = mass
        else:
            folded = np.bincount(np.arange(mass.size) % length, weights=mass, minlength=length)
        power = _power(sfft.rfft(folded, overwrite_x=True), count)
        spectrum = power if spectrum is None else np.multiply(spectrum, power, out=spectrum)
    cyclic = sfft.irfft(spectrum, n=length, overwrite_x=True)
    # The window starts at index lo % length of the cycle; clipping only moves towards the truth.
    shift_idx = lo % length
    mass = np.empty(size)
    head = min(size, length - shift_idx)
    mass[:head] = cyclic[shift_idx : shift_idx + head]
    mass[head:] = cyclic[: size - head]
    np.maximum(mass, 0.0, out=mass)
    offset = sum(count * ld.offset for ld, count in parts) + lo
    if shift > 0.0:
        loss = (offset + np.arange(size)) * step
        with np.errstate(divide="ignore"):
            logs = np.log(mass) + log_scale - tilt * loss
        eta += 4.0 * _U * (4.0 + abs(log_scale) + float(np.max(np.abs(tilt * loss))) + 745.0)
        # Untilted masses are at most 1: clipping moves towards the truth.
        mass = np.exp(np.minimum(logs + (eta if pessimistic else -eta), 0.0))
    log_keep = sum(count * math.log1p(-min(ld.inf_mass, 1.0 - 1e-300)) for ld, count in parts)
    return LossDistribution(
        step=step,
        offset=offset,
        mass=mass,
        inf_mass=-math.expm1(log_keep),
        pessimistic=pessimistic,
        rounds=rounds,
        tail_mass=sum(count * ld.tail_mass for ld, count in parts) + 2.0 * tail,
        rounding=sum(count * ld.rounding for ld, count in parts) + _composition_rounding(total, len(parts), length),
        max_loss=sum(count * ld.max_loss for ld, count in parts),
        log_scale=log_scale,
        tilt=tilt if shift > 0.0 else 0.0,
        top=sum(count * _top(ld) for ld, count in parts),
    )


def self_compose(ld: LossDistribution, rounds: int) -> LossDistribution:
    """``rounds``-fold composition of one distribution (``compose([(ld, rounds)])``).

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.pld import from_log_pmfs, self_compose
    >>> p = np.e / (1 + np.e)
    >>> rr = from_log_pmfs(np.log([p, 1 - p]), np.log([1 - p, p]), step=1e-3)
    >>> self_compose(rr, 10).rounds
    10
    """
    return compose([(ld, rounds)])
