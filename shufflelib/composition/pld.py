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

Discretization. Losses are put on the grid ``step · ℤ``. A **pessimistic**
distribution rounds every loss *up* (and sends dropped upper tails to
``+∞``, lower tails up to the lowest kept point): the integrand is
non-decreasing in ``L``, so every δ it reports is an upper bound, and after
``T`` rounds its ε exceeds the exact composition's ε at the same δ by at most
``T · step`` (each round's loss moved by less than ``step``) — the stated
*discretization error*. An **optimistic** distribution rounds down and drops
tails: every δ is a lower bound (used for curves that are themselves lower
bounds, such as :class:`~shufflelib.bounds.exact.TwoPairKRRLowerBound`).

Composition. The composed distribution is computed on a window of the sum's
support chosen by a Chernoff bound (mass outside ``tail_mass``, counted into
δ), by one real FFT, a power of the spectrum per distinct round type, and one
inverse FFT (cyclic: mass outside the window aliases into it, which only adds
mass and is covered by the same count). Rounding: Higham's bound for the FFT
(``‖error‖₂ <= 5 log₂(N) u ‖x‖₂`` per transform, ``u = 2⁻⁵³``), and ``|a^T − b^T|
<= T |a − b|`` for spectra of modulus <= 1, give an ℓ₂ error of the composed
masses below ``5 (T + 2) log₂(N) u`` per composition; δ(ε) adds (pessimistic)
or subtracts (optimistic) ``‖w_ε‖₂`` times that budget, ``w_ε`` being the
weights ``(1 − e^{ε − ℓ})^+`` of the grid.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import fft as sfft
from scipy.special import logsumexp

from .._validation import check_array, check_int, check_positive, check_probability
from ..curves import invert_profile

__all__ = [
    "MAX_FFT_LENGTH",
    "LossDistribution",
    "WindowTooWide",
    "compose",
    "from_log_pmfs",
    "self_compose",
    "window_tail",
]

#: Unit roundoff of float64.
_U = 2.0**-53
#: Mass allowed outside the composition window (per side and composition; counted into δ).
WINDOW_TAIL = 1e-30
#: Share of a known target δ that the composition window may leave out per side
#: (:func:`window_tail`).
WINDOW_SHARE = 1e-4
#: Modulus below which a part's spectral power ``z^T`` is set to 0 in :func:`compose` (the
#: masses move by at most ``2 ·`` this in ℓ₂ per part, added to the rounding budget).
SPECTRUM_FLOOR = 2.0**-1000
#: Largest FFT length a composition may use (about 0.5 GB of work arrays).
MAX_FFT_LENGTH = 2**25


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
        True if every δ computed from it is an upper bound (losses rounded up),
        false if a lower bound (losses rounded down).
    rounds
        Number of rounds composed into it (the discretization error is ``rounds · step``).
    tail_mass
        Mass possibly outside or aliased into the window, added to (pessimistic)
        or subtracted from (optimistic) every δ.
    rounding
        Bound on the ℓ₂ norm of the rounding error of ``mass``.
    max_loss
        An upper bound on every finite loss of the *exact* pair (``inf`` if unknown);
        used by the Rényi moments of :meth:`renyi`.

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

    @property
    def losses(self) -> np.ndarray:
        """The grid points carrying ``mass``."""
        return (self.offset + np.arange(self.mass.size)) * self.step

    @property
    def discretization_error(self) -> float:
        """``rounds · step``: how far the ε of this distribution may be from the exact composition's."""
        return self.rounds * self.step

    def delta(self, eps: float) -> float:
        """Hockey-stick divergence at ``eps`` (an upper bound if pessimistic, a lower bound if not).

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.composition.pld import LossDistribution
        >>> round(LossDistribution(step=1.0, offset=0, mass=np.array([0.5, 0.5])).delta(0.0), 6)  # (1 - 1/e)/2
        0.31606
        """
        w, tail = self._above(eps)
        value = float(w @ tail)
        slack = float(np.sqrt(w @ w)) * self.rounding + self.tail_mass
        if self.pessimistic:
            return float(min(1.0, value + slack + self.inf_mass))
        return float(min(1.0, max(value - slack, 0.0) + self.inf_mass))

    def _above(self, eps: float) -> tuple[np.ndarray, np.ndarray]:
        """The weights ``1 − e^{ε − ℓ}`` of the grid losses ``ℓ > eps`` and their masses."""
        first = max(0, math.floor(eps / self.step - self.offset) + 1)  # grid points with loss > eps
        loss = (self.offset + np.arange(first, self.mass.size)) * self.step
        keep = loss > eps
        return -np.expm1(eps - loss[keep]), self.mass[first:][keep]

    def epsilon(self, delta: float) -> float:
        """ε at ``delta``: for a pessimistic distribution the smallest ε with ``delta(ε) <= delta``
        (rounded up), for an optimistic one the largest ε with ``delta(ε) > delta`` (rounded
        down, 0 if none): in both cases on the safe side of the bound.

        Between two grid losses ``δ(ε) = A − e^ε B`` (``A``, ``B`` sums over the atoms above),
        so the root is a closed form once its grid interval is known: δ at every grid point at
        once is ``S_{i+1} − e^{−step} R_{i+1}`` (``S`` the tail sums of the masses, ``R_i = m_i +
        e^{−step} R_{i+1}``, one linear filter). The answer is checked with :meth:`delta`
        (slack terms included): the rounding slack, smaller at larger ε, is evaluated at a
        first candidate and the root solved again for the moved target; if the check still
        fails, a certified search (``shufflelib._roots``, relative ``1e-9``). ``inf`` if no ε
        reaches ``delta`` (pessimistic).

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.composition.pld import LossDistribution
        >>> ld = LossDistribution(step=0.5, offset=-2, mass=np.array([0.25, 0, 0, 0, 0.75]))
        >>> eps = ld.epsilon(0.1)  # 0.75 (1 - e^(eps - 1)) = 0.1
        >>> round(eps, 6), round(float(1 + np.log(1 - 0.1 / 0.75)), 6)
        (0.856899, 0.856899)
        """
        from scipy.signal import lfilter

        up = self.pessimistic
        fixed = self.inf_mass + (self.tail_mass if up else 0.0)
        if up and fixed >= delta:
            return math.inf
        # Only the grid from loss 0 up matters (ε >= 0; the sums run from the top down).
        k0 = max(0, min(-self.offset, self.mass.size - 1))
        rev = self.mass[k0:][::-1]
        tail = np.cumsum(rev)[::-1]
        decay = math.exp(-self.step)
        r = lfilter([1.0], [1.0, -decay], rev)[::-1]
        at_grid = np.empty(tail.size)
        at_grid[:-1] = tail[1:] - decay * r[1:]
        at_grid[-1] = 0.0
        at_grid += fixed

        def loss(i: int) -> float:
            return float((self.offset + k0 + i) * self.step)

        def root(target: float) -> float:
            hit = at_grid <= target
            i = int(np.argmax(hit))
            if not hit[i]:
                return math.inf
            if i == 0 or loss(i) <= 0.0:
                return max(loss(i), 0.0)
            # On (loss(i-1), loss(i)] the atoms above are those from i on.
            a, b = float(tail[i]) + fixed, float(r[i])  # r[i] = sum of m_j e^{loss(i) - loss(j)}
            value = loss(i) + math.log((a - target) / b) if a > target and b > 0 else loss(i)
            return min(max(value, loss(i - 1), 0.0), loss(i))

        def holds(e: float) -> bool:
            return self.delta(e) <= delta if up else self.delta(e) > delta

        # The rounding slack decreases in ε: evaluated at the first candidate (below the root of
        # an upper bound; with a margin for a lower bound, whose root moves down), it moves the
        # target so that the second root is on the safe side.
        slack = 0.0 if up else self.tail_mass
        for _ in range(2):
            value = root(delta - slack if up else delta + slack)
            if not math.isfinite(value):
                return math.inf if up else self._epsilon_search(delta)
            candidate = value * (1.0 + 1e-12) + 1e-15 if up else max(value * (1.0 - 1e-12) - 1e-15, 0.0)
            if holds(candidate):
                return candidate
            w = self._above(candidate)[0]
            # Optimistic: the root moves down, where the slack is larger: a margin of 1%.
            slack = float(np.sqrt(w @ w)) * self.rounding * (1.0 if up else 1.01) + (0.0 if up else self.tail_mass)
        return self._epsilon_search(delta)

    def _epsilon_search(self, delta: float) -> float:
        """:meth:`epsilon` by a certified search on :meth:`delta` (the slow path)."""
        return invert_profile(self.delta, delta, upper=self.pessimistic)

    def renyi(self, alpha: np.ndarray) -> np.ndarray:
        """Rényi divergences ``D_α(P‖Q) = log E_P[e^{(α−1)L}] / (α − 1)`` for ``α > 1``.

        An upper bound if pessimistic: losses only moved up, and the mass at
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
        live = self.mass > 0
        idx = np.arange(self.mass.size)[live]
        return logsumexp(np.log(self.mass[live])[None, :] + theta[:, None] * idx[None, :], axis=1)


def from_log_pmfs(
    log_p: np.ndarray,
    log_q: np.ndarray,
    step: float,
    *,
    pessimistic: bool = True,
    max_loss: float = math.inf,
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
        Round losses up (upper bounds on δ) or down (lower bounds).
    max_loss
        A known bound on the pair's finite losses (for Rényi moments).

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.pld import from_log_pmfs
    >>> p = np.e / (1 + np.e)
    >>> ld = from_log_pmfs(np.log([p, 1 - p]), np.log([1 - p, p]), step=1e-3)
    >>> round(ld.delta(0.5), 3), round(float((np.e - np.exp(0.5)) / (1 + np.e)), 3)  # within the step
    (0.288, 0.288)
    """
    lp = np.asarray(log_p, dtype=float)
    lq = np.asarray(log_q, dtype=float)
    if lp.ndim != 1 or lp.shape != lq.shape or lp.size == 0:
        raise ValueError(f"log_p and log_q must be non-empty 1-D arrays of equal length, got {lp.shape}, {lq.shape}")
    if np.any(np.isnan(lp)) or np.any(np.isnan(lq)) or np.any(lp > 1e-12) or np.any(lq > 1e-12):
        raise ValueError("log_p and log_q must contain log-probabilities (<= 0, no NaN)")
    step = check_positive("step", step)
    live = lp > -np.inf
    lp, lq = lp[live], lq[live]
    finite = lq > -np.inf
    p = np.exp(lp)
    inf_mass = float(p[~finite].sum())
    loss = lp[finite] - lq[finite]
    # Rounding slack of the computed loss: move atoms at a grid point to the safe side.
    slack = 8.0 * _U * (np.abs(lp[finite]) + np.abs(lq[finite]) + np.abs(loss)) / step
    k = np.ceil(loss / step + slack) if pessimistic else np.floor(loss / step - slack)
    pf = p[finite]
    if pf.size == 0:
        return LossDistribution(step, 0, np.zeros(1), min(inf_mass, 1.0), pessimistic, max_loss=max_loss)
    lo, hi = int(k.min()), int(k.max())
    mass = np.bincount((k - lo).astype(np.int64), weights=pf, minlength=hi - lo + 1)
    missing = max(0.0, 1.0 - float(p.sum()))
    if pessimistic:
        mass = mass * (1.0 + 4.0 * pf.size * _U)  # summation rounding, on the safe side
        inf_mass += missing
    return LossDistribution(step, lo, mass, min(inf_mass, 1.0), pessimistic, max_loss=max_loss)


def _window(parts: Sequence[tuple[LossDistribution, int]], tail: float) -> tuple[int, int]:
    """Index range ``[lo, hi]`` of the composed sum outside which at most ``tail`` mass lies (per side).

    Chernoff: ``Pr[S >= s] <= exp(K(θ) − θ s)`` for θ > 0 and ``Pr[S <= s] <= exp(K(−θ) + θ s)``,
    ``K`` the sum of the parts' log-mgfs (in index units, relative to each part's offset).
    """
    top = sum(count * (ld.mass.size - 1) for ld, count in parts)
    scale = max(1.0, float(top))
    theta = np.geomspace(1e-3 / scale, 50.0, 96)  # any θ gives a valid bound
    k_up = sum(count * ld.log_mgf(theta) for ld, count in parts)
    k_down = sum(count * ld.log_mgf(-theta) for ld, count in parts)
    log_tail = math.log(tail)
    hi = float(np.min((k_up - log_tail) / theta))
    lo = float(np.max((log_tail - k_down) / theta))
    return max(0, math.floor(lo)), min(top, math.ceil(hi))


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
    """Mass the composition window may leave out per side when the curve is read at ``delta``.

    ``max(WINDOW_TAIL, WINDOW_SHARE · delta)`` (``WINDOW_TAIL`` for ``None``: a curve read at
    any δ). The window's two tails are counted into every δ, so reading ε at ``delta`` costs
    at most a share ``2e-4`` of ``delta``; in exchange the window of a Gaussian-like sum
    narrows from about ``±sqrt(2 log 1e30) σ`` to ``±sqrt(2 log(1e4 / δ)) σ`` (δ = 1e-6: from
    ``±11.7 σ`` to ``±6.8 σ``), and the FFT with it.

    Examples
    --------
    >>> from shufflelib.composition.pld import window_tail
    >>> window_tail(1e-6), window_tail(1e-40), window_tail(None)
    (1e-10, 1e-30, 1e-30)
    """
    if delta is None:
        return WINDOW_TAIL
    return max(WINDOW_TAIL, WINDOW_SHARE * check_probability("delta", delta))


def _power(spectrum: np.ndarray, count: int) -> np.ndarray:
    """``spectrum ** count`` in place, with 0 where ``|z|^count < SPECTRUM_FLOOR``.

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
        return np.power(spectrum, count, out=spectrum)
    values = spectrum[kept] ** count
    spectrum[:] = 0.0
    spectrum[kept] = values
    return spectrum


def compose(
    parts: Sequence[tuple[LossDistribution, int]], max_length: int = MAX_FFT_LENGTH, tail: float = WINDOW_TAIL
) -> LossDistribution:
    """Compose distributions: ``[(ld_1, T_1), (ld_2, T_2), …]`` is ``T_1`` rounds of ``ld_1``, then ….

    All parts must share ``step`` and ``pessimistic``. The result carries the
    summed ``rounds``, ``tail_mass`` (plus this window's, ``2 · tail``: at most ``tail`` left
    out on each side, see :func:`window_tail`) and rounding budget. A window
    needing an FFT longer than ``max_length`` (at most :data:`MAX_FFT_LENGTH`) raises
    :class:`WindowTooWide`.

    Examples
    --------
    Two rounds of randomized response with ``eps0 = 1`` are 2-DP with δ = 0 and
    ``δ(0) = p² − q²`` (``p = e/(1 + e)``, ``q = 1 − p``), here within the step 1e-3:

    >>> import numpy as np
    >>> from shufflelib.composition.pld import compose, from_log_pmfs
    >>> p = np.e / (1 + np.e)
    >>> rr = from_log_pmfs(np.log([p, 1 - p]), np.log([1 - p, p]), step=1e-3)
    >>> two = compose([(rr, 2)])
    >>> round(two.delta(0.0), 2), round(p**2 - (1 - p) ** 2, 2)
    (0.46, 0.46)
    >>> two.delta(2.0 + two.discretization_error) < 1e-12  # 2-DP, up to 2 · step
    True
    """
    if not parts:
        raise ValueError("parts must hold at least one (distribution, count) pair")
    parts = [(ld, check_int("count", count, minimum=1)) for ld, count in parts]
    step, pessimistic = parts[0][0].step, parts[0][0].pessimistic
    for ld, _ in parts:
        if ld.step != step or ld.pessimistic != pessimistic:
            raise ValueError("all parts must share step and pessimistic")
    if len(parts) == 1 and parts[0][1] == 1:
        return parts[0][0]  # one round: nothing to convolve
    tail = check_positive("tail", tail)
    if tail >= 0.5:
        raise ValueError(f"tail must be in (0, 0.5), got {tail!r}")
    if any(not np.any(ld.mass > 0.0) for ld, _ in parts):  # a round with every loss infinite
        return LossDistribution(
            step=step,
            offset=0,
            mass=np.zeros(1),
            inf_mass=1.0,
            pessimistic=pessimistic,
            rounds=sum(count * ld.rounds for ld, count in parts),
            tail_mass=sum(count * ld.tail_mass for ld, count in parts),
            rounding=sum(count * ld.rounding for ld, count in parts),
            max_loss=math.inf,
        )
    lo, hi = _window(parts, tail)
    size = hi - lo + 1
    length = sfft.next_fast_len(size, real=True)
    max_length = min(check_int("max_length", max_length, minimum=2), MAX_FFT_LENGTH)
    if length > max_length:
        raise WindowTooWide(
            f"the composition needs an FFT of length {length} > {max_length}: use a larger step (got step={step})",
            length / max_length,
        )
    spectrum = None
    for ld, count in parts:
        if ld.mass.size <= length:
            folded = np.zeros(length)
            folded[: ld.mass.size] = ld.mass
        else:
            folded = np.bincount(np.arange(ld.mass.size) % length, weights=ld.mass, minlength=length)
        power = _power(sfft.rfft(folded, overwrite_x=True), count)
        spectrum = power if spectrum is None else np.multiply(spectrum, power, out=spectrum)
    cyclic = sfft.irfft(spectrum, n=length, overwrite_x=True)
    # The window starts at index lo % length of the cycle; clipping only moves towards the truth.
    shift = lo % length
    mass = np.empty(size)
    head = min(size, length - shift)
    mass[:head] = cyclic[shift : shift + head]
    mass[head:] = cyclic[: size - head]
    np.maximum(mass, 0.0, out=mass)
    total = sum(count for _, count in parts)
    log_keep = sum(count * math.log1p(-min(ld.inf_mass, 1.0 - 1e-300)) for ld, count in parts)
    return LossDistribution(
        step=step,
        offset=sum(count * ld.offset for ld, count in parts) + lo,
        mass=mass,
        inf_mass=-math.expm1(log_keep),
        pessimistic=pessimistic,
        rounds=sum(count * ld.rounds for ld, count in parts),
        tail_mass=sum(count * ld.tail_mass for ld, count in parts) + 2.0 * tail,
        rounding=sum(count * ld.rounding for ld, count in parts)
        + 5.0 * (total + 2 + len(parts)) * math.log2(length) * _U
        + 2.0 * len(parts) * SPECTRUM_FLOOR,
        max_loss=sum(count * ld.max_loss for ld, count in parts),
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
