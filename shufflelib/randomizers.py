"""Local randomizers: what each user applies to their own value before shuffling.

Every randomizer here is ``eps0``-locally differentially private (LDP): for all
inputs ``x, x'`` and outputs ``y``, ``p(y | x) <= e^eps0 p(y | x')``. Each one is
vectorized over users (:meth:`LocalRandomizer.randomize` maps an array of inputs
to an array of outputs, drawing randomness *only* from the explicit
:class:`numpy.random.Generator` it is given) and exposes its *privacy blanket*
(Balle et al. 2019): the decomposition

.. math:: p(y \\mid x) = \\gamma\\,\\omega(y) + (1 - \\gamma)\\,\\nu_x(y),
   \\qquad \\gamma = \\int \\min_x p(y \\mid x)\\,dy,

whose input-independent part ``omega`` (weight ``gamma``, the *blanket weight*)
hides the shuffled reports of the other users.

Closed forms (``p = e^eps0``):

=========================  ==========================  ==============================
randomizer                 blanket weight ``gamma``    blanket distribution ``omega``
=========================  ==========================  ==============================
binary RR                  ``2 / (p + 1)``             uniform on {0, 1}
k-RR                       ``k / (p + k - 1)``         uniform on {0, ..., k-1}
Laplace on [low, high]     ``e^{-eps0/2}``             Laplace(mid, (high-low)/eps0)
any eps0-LDP (generic)     ``>= e^{-eps0}``            (depends on the randomizer)
=========================  ==========================  ==============================

All probabilities are computed from ``e^{-eps0}`` (never ``e^{eps0}``), so they
are finite and accurate for every finite ``eps0 > 0``.

One description of a local randomizer. A randomizer at one level
(:class:`LocalPrivacyDescription`: ``eps0``, the blanket weight, the total variation between
two inputs; :class:`LocalRandomizer` adds the output law and sampling) belongs to a
*family* indexed by the local level, :class:`RandomizerFamily` — what a bound is stated for
(the bounds' ``mechanism="krr", k=...`` is a family, and ``family.at(eps0)`` the randomizer
each question reads) and what a personalized population draws per user (each user's noise
scale, density, distribution function and sampler on ``[0, 1]``, vectorized over users;
:class:`~shufflelib.personalized.mechanisms.LocalMechanism` is this class under the
personalized chapter's name, restricted to those kinds). The Gaussian mechanism of that chapter is a family too (its
noise ``σ`` comes from a local ``(ε, δ)`` through a calibration, :func:`gaussian_sigma`),
but not an ``eps0``-LDP randomizer, so it has no :meth:`RandomizerFamily.at`.

==================  ===================================  =====================================
family              ``at(eps0)``                         read by
==================  ===================================  =====================================
``"generic"``       :class:`GenericLDP`                  every bound (only ``eps0``)
``"krr"`` (``k``)   :class:`KRandomizedResponse`         blanket, variation-ratio, exact k-RR
``"rr"``            :class:`BinaryRandomizedResponse`    personalized bounds, simulations
``"laplace"``       :class:`BoundedLaplace` on [0, 1]    blanket, variation-ratio, personalized
``"gaussian"``      (not ``eps0``-LDP)                   personalized bounds (per-user σ)
==================  ===================================  =====================================
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri

from ._docstrings import fill_doc
from ._roots import brent
from ._validation import check_array, check_choice, check_generator, check_in_range, check_int, check_positive

__all__ = [
    "Domain",
    "LocalPrivacyDescription",
    "LocalRandomizer",
    "BinaryRandomizedResponse",
    "KRandomizedResponse",
    "BoundedLaplace",
    "GenericLDP",
    "RandomizerFamily",
    "KINDS",
    "UNIT_KINDS",
    "CALIBRATIONS",
    "gaussian_delta",
    "gaussian_sigma",
]


@dataclass(frozen=True)
class Domain:
    """A set of inputs or outputs: the integers or the reals in ``[low, high]``.

    Parameters
    ----------
    low, high
        Inclusive end points (``-inf``/``inf`` for an unbounded real line).
    discrete
        ``True`` for the integers ``low, low + 1, ..., high``.

    Examples
    --------
    >>> Domain(0, 2, discrete=True).size
    3
    >>> Domain(0.0, 1.0, discrete=False).contains([0.5, 2.0]).tolist()
    [True, False]
    """

    low: float
    high: float
    discrete: bool

    def __post_init__(self) -> None:
        if self.discrete:
            low, high = check_int("low", self.low), check_int("high", self.high)
        else:
            low, high = (
                check_in_range("low", self.low, -math.inf, math.inf),
                check_in_range("high", self.high, -math.inf, math.inf),
            )
        if not low <= high:
            raise ValueError(f"high must be >= low, got low={self.low!r}, high={self.high!r}")

    @property
    def size(self) -> int | None:
        """Number of elements of a discrete domain (``None`` for an interval)."""
        return int(self.high - self.low) + 1 if self.discrete else None

    def contains(self, values: object) -> np.ndarray:
        """Elementwise membership test (NaN is never a member)."""
        v = np.asarray(values, dtype=float)
        inside = (v >= self.low) & (v <= self.high)
        if self.discrete:
            inside &= v == np.round(v)
        return inside


class LocalPrivacyDescription(ABC):
    """What every ``eps0``-LDP mechanism guarantees: its ``eps0`` and blanket weight.

    Amplification bounds that only know ``eps0`` need nothing more; concrete
    randomizers (:class:`LocalRandomizer`) add sampling and likelihoods.

    Examples
    --------
    >>> [type(m).__name__ for m in (GenericLDP(1.0), BoundedLaplace(1.0))
    ...  if isinstance(m, LocalPrivacyDescription)]
    ['GenericLDP', 'BoundedLaplace']
    """

    def __init__(self, eps0: float) -> None:
        self._eps0 = check_positive("eps0", eps0)

    @property
    def eps0(self) -> float:
        """Local privacy parameter (the mechanism is ``eps0``-LDP)."""
        return self._eps0

    @property
    def blanket_weight(self) -> float:
        """Weight ``gamma`` of the input-independent part of the output distribution."""
        return math.exp(self.log_blanket_weight)

    @property
    @abstractmethod
    def log_blanket_weight(self) -> float:
        """``log gamma``, accurate for every ``eps0`` (the blanket bounds work with it)."""

    @property
    @abstractmethod
    def total_variation(self) -> float:
        """The largest total-variation distance between the output laws of two inputs.

        The ``β`` of the variation-ratio reduction (Wang et al. 2024); for the randomizers
        here it is ``1 − gamma``, for :class:`GenericLDP` the largest value any ``eps0``-LDP
        randomizer can have, ``tanh(eps0/2)``.
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}(eps0={self.eps0!r})"


class LocalRandomizer(LocalPrivacyDescription):
    """Base class of concrete, samplable ``eps0``-LDP randomizers.

    Subclasses define :attr:`domain` (inputs), :attr:`output_domain`,
    :attr:`~LocalPrivacyDescription.blanket_weight`, :meth:`randomize`, :meth:`log_likelihood` and
    :meth:`blanket_sample`; :meth:`likelihood` follows.

    Examples
    --------
    >>> rr = KRandomizedResponse(3, 1.0)
    >>> isinstance(rr, LocalRandomizer), rr.domain.size, rr.output_domain.size
    (True, 3, 3)
    """

    @property
    @abstractmethod
    def domain(self) -> Domain:
        """The set of valid inputs."""

    @property
    @abstractmethod
    def output_domain(self) -> Domain:
        """The set of possible outputs."""

    @abstractmethod
    def _randomize(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Randomize validated inputs."""

    @abstractmethod
    def _log_likelihood(self, y: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Log pmf/pdf for validated, broadcast-compatible ``y`` and ``x``."""

    @abstractmethod
    def _blanket_sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Draw ``size`` samples from ``omega``."""

    @fill_doc
    def randomize(self, x: object, rng: np.random.Generator) -> np.ndarray:
        """Apply the randomizer independently to every user's input.

        Parameters
        ----------
        x
            1-D array of inputs, each in :attr:`domain`.
        %(rng)s

        Returns
        -------
        numpy.ndarray
            One output per input (``int64`` for discrete outputs, ``float64`` otherwise).

        Examples
        --------
        >>> import numpy as np
        >>> KRandomizedResponse(5, 20.0).randomize(np.array([4, 0, 2]), np.random.default_rng(0)).tolist()
        [4, 0, 2]
        """
        rng = check_generator("rng", rng)
        return self._randomize(self._check_values("x", x, self.domain, ndim=1), rng)

    def log_likelihood(self, y: object, x: object) -> np.ndarray:
        """Log of :meth:`likelihood`, computed without underflow.

        Examples
        --------
        >>> round(float(BoundedLaplace(1.0).log_likelihood(1e6, 0.0)), 1)
        -1000000.7
        """
        yv = self._check_values("y", y, self.output_domain)
        xv = self._check_values("x", x, self.domain)
        try:
            np.broadcast_shapes(yv.shape, xv.shape)
        except ValueError:
            raise ValueError(f"y and x must have broadcast-compatible shapes, got {yv.shape} and {xv.shape}") from None
        return self._log_likelihood(yv, xv)

    def likelihood(self, y: object, x: object) -> np.ndarray:
        """Probability (discrete outputs) or density (real outputs) of output ``y`` given input ``x``.

        ``y`` and ``x`` broadcast against each other, e.g. ``likelihood(ys[:, None], xs[None, :])``
        is the full likelihood table.

        Examples
        --------
        >>> import numpy as np
        >>> ys = np.arange(2)
        >>> BinaryRandomizedResponse(np.log(3)).likelihood(ys[:, None], ys[None, :]).round(3).tolist()
        [[0.75, 0.25], [0.25, 0.75]]
        """
        return np.exp(self.log_likelihood(y, x))

    def blanket_sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Draw ``size`` samples from the normalized input-independent part ``omega``.

        Examples
        --------
        >>> import numpy as np
        >>> w = KRandomizedResponse(4, 1.0).blanket_sample(1000, np.random.default_rng(0))
        >>> sorted(set(w.tolist()))
        [0, 1, 2, 3]
        """
        size = check_int("size", size, minimum=0)
        rng = check_generator("rng", rng)
        return self._blanket_sample(size, rng)

    @staticmethod
    def _check_values(name: str, values: object, domain: Domain, *, ndim: int | None = None) -> np.ndarray:
        arr = check_array(name, values, ndim=ndim, low=domain.low, high=domain.high, integral=domain.discrete)
        return arr.astype(np.int64) if domain.discrete else arr


@fill_doc
class KRandomizedResponse(LocalRandomizer):
    """k-ary randomized response (k-RR): report the truth w.p. ``e^eps0 / (e^eps0 + k - 1)``.

    Every other value is reported w.p. ``1 / (e^eps0 + k - 1)``. Equivalently, w.p.
    ``gamma = k / (e^eps0 + k - 1)`` the output is uniform on ``{0, ..., k-1}``
    (the blanket), otherwise it is the truth.

    Parameters
    ----------
    k
        Domain size, an integer >= 2; inputs and outputs are ``0, ..., k-1``.
    %(eps0_finite)s

    Examples
    --------
    >>> import numpy as np
    >>> rr = KRandomizedResponse(k=4, eps0=1.0)
    >>> round(rr.truth_probability, 4), round(rr.blanket_weight, 4)
    (0.4754, 0.6995)
    >>> rr.randomize(np.array([0, 3, 3]), np.random.default_rng(0)).shape
    (3,)
    """

    def __init__(self, k: int, eps0: float) -> None:
        super().__init__(eps0)
        self._k = check_int("k", k, minimum=2)
        # log(1 + (k-1) e^{-eps0}): the log normalizer divided by e^{eps0}.
        self._log_norm = math.log1p((self._k - 1) * math.exp(-self.eps0))

    @property
    def k(self) -> int:
        """Domain size."""
        return self._k

    @property
    def truth_probability(self) -> float:
        """``e^eps0 / (e^eps0 + k - 1)``: probability of reporting the true value."""
        return math.exp(-self._log_norm)

    @property
    def other_probability(self) -> float:
        """``1 / (e^eps0 + k - 1)``: probability of reporting one given other value."""
        return math.exp(-self.eps0 - self._log_norm)

    @property
    def log_blanket_weight(self) -> float:
        """``log(k / (e^eps0 + k - 1))``."""
        return math.log(self._k) - self.eps0 - self._log_norm

    @property
    def total_variation(self) -> float:
        """``(e^eps0 - 1) / (e^eps0 + k - 1)``: truth against another value."""
        return -math.expm1(-self.eps0) / (1.0 + (self._k - 1) * math.exp(-self.eps0))

    @property
    def domain(self) -> Domain:
        return Domain(0, self._k - 1, discrete=True)

    @property
    def output_domain(self) -> Domain:
        return self.domain

    def _randomize(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        lie = rng.random(x.shape) < (self._k - 1) * self.other_probability
        shift = rng.integers(1, self._k, size=x.shape)
        return np.where(lie, (x + shift) % self._k, x)

    def _log_likelihood(self, y: np.ndarray, x: np.ndarray) -> np.ndarray:
        return np.where(y == x, 0.0, -self.eps0) - self._log_norm

    def _blanket_sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.integers(0, self._k, size=size)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(k={self._k!r}, eps0={self.eps0!r})"


@fill_doc
class BinaryRandomizedResponse(KRandomizedResponse):
    """Binary randomized response: keep the bit w.p. ``e^eps0 / (e^eps0 + 1)``, else flip it.

    The case ``k = 2`` of :class:`KRandomizedResponse`; blanket weight ``2 / (e^eps0 + 1)``
    with ``omega`` uniform on ``{0, 1}``.

    Parameters
    ----------
    %(eps0_finite)s

    Examples
    --------
    >>> import numpy as np
    >>> rr = BinaryRandomizedResponse(eps0=1.0)
    >>> round(rr.truth_probability, 4), round(rr.blanket_weight, 4)
    (0.7311, 0.5379)
    >>> rr.randomize(np.ones(5, dtype=int), np.random.default_rng(1)).tolist()
    [1, 1, 0, 1, 1]
    """

    def __init__(self, eps0: float) -> None:
        super().__init__(2, eps0)

    def _randomize(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        flip = rng.random(x.shape) < self.other_probability
        return x ^ flip

    def __repr__(self) -> str:
        return f"{type(self).__name__}(eps0={self.eps0!r})"


@fill_doc
class BoundedLaplace(LocalRandomizer):
    """Laplace mechanism on ``[low, high]``: ``y = x + Lap((high - low) / eps0)``, unclipped.

    The sensitivity of the identity on ``[low, high]`` is ``high - low``, so the
    scale ``b = (high - low) / eps0`` gives ``eps0``-LDP. The pointwise minimum of
    the densities over inputs is attained at the far end point, and integrates to
    ``gamma = e^{-eps0/2}``; the normalized blanket ``omega`` is the Laplace
    distribution centred at ``mid = (low + high) / 2`` with the same scale.

    Parameters
    ----------
    %(eps0_finite)s
    low, high
        Input domain, finite with ``low < high``.

    Examples
    --------
    >>> import numpy as np
    >>> lap = BoundedLaplace(eps0=2.0)
    >>> lap.scale, round(lap.blanket_weight, 4)
    (0.5, 0.3679)
    >>> float(lap.likelihood(0.0, 0.0))
    1.0
    >>> lap.randomize(np.array([0.2, 0.9]), np.random.default_rng(0)).shape
    (2,)
    """

    def __init__(self, eps0: float, low: float = 0.0, high: float = 1.0) -> None:
        super().__init__(eps0)
        self._low = float(check_array("low", low, ndim=0))
        self._high = float(check_array("high", high, ndim=0))
        if not self._high > self._low:
            raise ValueError(f"high must be > low, got low={low!r}, high={high!r}")
        width = check_positive("high - low", self._high - self._low)
        self._scale = width / self.eps0
        if not math.isfinite(self._scale):
            raise ValueError(f"(high - low) / eps0 must be finite, got {self._scale!r}")

    @property
    def low(self) -> float:
        """Lower end of the input domain."""
        return self._low

    @property
    def high(self) -> float:
        """Upper end of the input domain."""
        return self._high

    @property
    def scale(self) -> float:
        """Laplace scale ``b = (high - low) / eps0``."""
        return self._scale

    @property
    def log_blanket_weight(self) -> float:
        """``-eps0/2``."""
        return -self.eps0 / 2

    @property
    def total_variation(self) -> float:
        """``1 - e^{-eps0/2}``: the two end points of the input domain."""
        return -math.expm1(-self.eps0 / 2.0)

    @property
    def domain(self) -> Domain:
        return Domain(self._low, self._high, discrete=False)

    @property
    def output_domain(self) -> Domain:
        return Domain(-math.inf, math.inf, discrete=False)

    def _randomize(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return x + rng.laplace(0.0, self._scale, size=x.shape)

    def _log_likelihood(self, y: np.ndarray, x: np.ndarray) -> np.ndarray:
        return _laplace_logpdf(y, x, self._scale)

    def _blanket_sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        mid = 0.5 * (self._low + self._high)
        return rng.laplace(mid, self._scale, size=size)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(eps0={self.eps0!r}, low={self._low!r}, high={self._high!r})"


@fill_doc
class GenericLDP(LocalPrivacyDescription):
    """An arbitrary ``eps0``-LDP randomizer, known only through ``eps0`` (not samplable).

    Generic amplification bounds hold for *every* ``eps0``-LDP randomizer and use
    only the blanket guarantee ``gamma >= e^{-eps0}`` (Balle et al. 2019): since
    ``min_x p(y|x) >= e^{-eps0} p(y|x0)`` for every ``y``, integrating gives
    ``gamma >= e^{-eps0}``. :attr:`~LocalPrivacyDescription.blanket_weight` is this guaranteed value.

    This is deliberately a description, not a :class:`LocalRandomizer`: no
    randomizer has blanket weight exactly ``e^{-eps0}`` (integrating
    ``min_x p(y|x) >= e^{-eps0} max_x p(y|x)`` gives ``gamma >= e^{-eps0}``
    with ``integral of max_x p(y|x) > 1`` unless all output distributions
    coincide, in which case ``gamma = 1``), so the value is an infimum, not a
    mechanism. Sampling a stand-in such as binary randomized response would be
    dishonest: its blanket weight ``2 / (e^eps0 + 1)`` exceeds ``e^{-eps0}``, so
    simulations and audits would silently be of a more favourable mechanism
    than the one generic bounds are stated for. To simulate, pick a concrete
    randomizer; every concrete one is covered by generic bounds at its ``eps0``.

    Parameters
    ----------
    %(eps0_finite)s

    Examples
    --------
    >>> g = GenericLDP(eps0=1.0)
    >>> round(g.blanket_weight, 4)
    0.3679
    """

    @property
    def log_blanket_weight(self) -> float:
        """``-eps0``: every ``eps0``-LDP randomizer has blanket weight at least ``e^{-eps0}``."""
        return -self.eps0

    @property
    def total_variation(self) -> float:
        """``tanh(eps0/2) = (e^eps0 - 1)/(e^eps0 + 1)``: no ``eps0``-LDP randomizer has more."""
        return math.tanh(self.eps0 / 2.0)


# --------------------------------------------------------------------------- families
#: The randomizer families (:class:`RandomizerFamily`).
KINDS = ("generic", "krr", "rr", "laplace", "gaussian")
#: The families with a per-user law on the unit interval (personalized populations).
UNIT_KINDS = ("rr", "laplace", "gaussian")
#: Calibrations of the Gaussian mechanism.
CALIBRATIONS = ("classical", "analytic", "paper")


def _laplace_logpdf(z: np.ndarray, x: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Log density of ``x + Lap(scale)`` at ``z``."""
    return -np.abs(z - x) / scale - np.log(2.0 * scale)


def gaussian_delta(eps: float | np.ndarray, sigma: float | np.ndarray) -> np.ndarray:
    r"""Exact δ(ε) of the Gaussian mechanism with sensitivity 1 and noise σ.

    :math:`\delta(\varepsilon) = \Phi(\tfrac{1}{2\sigma} - \varepsilon\sigma)
    - e^{\varepsilon}\Phi(-\tfrac{1}{2\sigma} - \varepsilon\sigma)`
    (Balle and Wang 2018), evaluated in log space.

    Examples
    --------
    >>> round(float(gaussian_delta(2.0, 1.0)), 4)
    0.0209
    >>> float(gaussian_delta(1e300, 1.0))
    0.0
    """
    eps = check_array("eps", eps, low=0.0)
    sigma = check_array("sigma", sigma)
    if np.any(sigma <= 0):
        raise ValueError("sigma must be > 0")
    mu = 1.0 / sigma
    a = log_ndtr(mu / 2 - eps / mu)
    b = eps + log_ndtr(-mu / 2 - eps / mu)
    # a >= b always (delta >= 0); -expm1 of a non-positive number is safe. Where a = -inf (eps
    # so large that both tails underflow) delta is 0, not (-inf) - (-inf).
    with np.errstate(invalid="ignore"):
        gap = np.where(np.isneginf(a), -np.inf, b - a)
    return np.exp(a) * -np.expm1(np.minimum(gap, 0.0))


def gaussian_sigma(eps: float | np.ndarray, delta: float | np.ndarray, calibration: str) -> np.ndarray:
    """Noise σ of the Gaussian mechanism for (ε, δ) under a calibration.

    * ``"classical"``: ``sqrt(2 ln(1.25/δ))/ε`` (Dwork and Roth, Theorem A.1; its proof needs
      ε < 1, :meth:`~shufflelib.randomizers.RandomizerFamily.check_calibration` gives the exact δ it
      reaches);
    * ``"analytic"``: the smallest σ with an exact δ(ε) <= δ (Balle and Wang 2018);
    * ``"paper"``: ``σ = 2/ε``, the calibration that reproduces Table 2 of Liu et al. (2024).
      It is **not** (ε, δ)-DP for small δ: for ε = 2, σ = 1 only gives δ(2) ≈ 0.021.

    Parameters
    ----------
    eps
        Local ε (> 0), scalar or array.
    delta
        Local δ in (0, 1) (ignored by ``"paper"``), scalar or array.
    calibration
        ``"classical"``, ``"analytic"`` or ``"paper"``.

    Examples
    --------
    >>> round(float(gaussian_sigma(2.0, 1e-10, "classical")), 3)
    3.409
    >>> float(gaussian_sigma(2.0, 1e-10, "paper"))
    1.0
    >>> s = float(gaussian_sigma(2.0, 1e-10, "analytic"))
    >>> float(gaussian_delta(2.0, s)) <= 1e-10 < float(gaussian_delta(2.0, 0.99 * s))
    True
    """
    check_choice("calibration", calibration, CALIBRATIONS)
    eps = check_array("eps", eps)
    if np.any(eps <= 0):
        raise ValueError("eps must be > 0")
    if calibration == "paper":
        return 2.0 / eps
    delta = check_array("delta", delta)
    if np.any(delta <= 0) or np.any(delta >= 1):
        raise ValueError("delta must be in (0, 1) for the Gaussian mechanism")
    eps, delta = np.broadcast_arrays(eps, delta)
    if calibration == "classical":
        return np.sqrt(2.0 * np.log(1.25 / delta)) / eps
    out = np.empty(eps.shape)
    for idx in np.ndindex(eps.shape):
        e, d = float(eps[idx]), float(delta[idx])

        def excess(log_s: float, e: float = e, d: float = d) -> float:
            return math.log(max(float(gaussian_delta(e, math.exp(log_s))), 1e-320)) - math.log(d)

        hi = 0.0
        while excess(hi) > 0:
            hi += 1.0
        lo = hi - 1.0
        while excess(lo) <= 0:
            lo -= 1.0
        root = brent(excess, lo, hi, xtol=1e-13)
        s = math.exp(root)
        while float(gaussian_delta(e, s)) > d:  # round up: sigma must be (eps, delta)-DP
            s *= 1 + 1e-12
        out[idx] = s
    return out


@dataclass(frozen=True)
class RandomizerFamily:
    r"""A family of local randomizers indexed by the local privacy level.

    What a bound is stated for (``AmplificationBound(mechanism="krr", k=3)`` holds
    ``RandomizerFamily("krr", k=3)``; each question reads the randomizer
    :meth:`at` its ``eps0``) and what a personalized population draws, user by user, at its
    own level (``"rr"``, ``"laplace"``, ``"gaussian"``: values in ``[0, 1]``, sensitivity 1,
    the neighbouring inputs are the end points 0 and 1, the worst case of Liu et al. 2024).
    The per-user methods (:meth:`scale`, :meth:`logpdf`, :meth:`cdf`, :meth:`quantile`,
    :meth:`sample`, :meth:`local_delta`) are vectorized over users: each user's law is given
    by its noise scale.

    Parameters
    ----------
    kind
        ``"generic"`` (any ``eps0``-LDP randomizer), ``"krr"`` (k-ary randomized response),
        ``"rr"`` (binary randomized response on {0, 1}), ``"laplace"`` (Laplace on [0, 1]) or
        ``"gaussian"`` (Gaussian on [0, 1], ``(ε, δ)``-LDP through a calibration).
    calibration
        Gaussian calibration (``"classical"``, ``"analytic"``, ``"paper"``, see
        :func:`gaussian_sigma`); must be ``None`` for the other kinds. Default for Gaussian:
        ``"classical"``.
    k
        Domain size for ``kind="krr"`` (an integer >= 2); ``None`` otherwise.

    Examples
    --------
    >>> RandomizerFamily("krr", k=4).at(1.0)
    KRandomizedResponse(k=4, eps0=1.0)
    >>> lap = RandomizerFamily("laplace")
    >>> float(lap.scale(2.0)), round(lap.at(2.0).blanket_weight, 4)
    (0.5, 0.3679)
    >>> g = RandomizerFamily("gaussian", "paper")
    >>> g.label, float(g.scale(2.0, 1e-10))
    ('gaussian (paper)', 1.0)
    """

    kind: str
    calibration: str | None = None
    k: int | None = None

    def __init__(self, kind: str, calibration: str | None = None, *, k: int | None = None) -> None:
        check_choice("kind", kind, KINDS)
        if kind == "gaussian":
            calibration = "classical" if calibration is None else calibration
            check_choice("calibration", calibration, CALIBRATIONS)
        elif calibration is not None:
            raise ValueError(f"calibration is only used by kind='gaussian', got {calibration!r} for {kind!r}")
        if kind == "krr":
            if k is None:
                raise ValueError("k must be given (an integer >= 2) when mechanism='krr'")
            k = check_int("k", k, minimum=2)
        elif k is not None:
            raise ValueError(f"k is only used with mechanism='krr', got k={k!r} for {kind!r}")
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "calibration", calibration)
        object.__setattr__(self, "k", k)

    @property
    def label(self) -> str:
        """Short description, e.g. ``"gaussian (paper)"`` or ``"krr (k=3)"``.

        Examples
        --------
        >>> RandomizerFamily("krr", k=3).label, RandomizerFamily("rr").label
        ('krr (k=3)', 'rr')
        """
        if self.k is not None:
            return f"{self.kind} (k={self.k})"
        return self.kind if self.calibration is None else f"{self.kind} ({self.calibration})"

    @property
    def needs_delta(self) -> bool:
        """Whether the local δ enters the randomizer (Gaussian, except the ``paper`` calibration)."""
        return self.kind == "gaussian" and self.calibration != "paper"

    def at(self, eps0: float) -> LocalPrivacyDescription:
        """The family's ``eps0``-LDP randomizer (every pure kind; not the Gaussian).

        Examples
        --------
        >>> RandomizerFamily("generic").at(1.0), RandomizerFamily("rr").at(1.0)
        (GenericLDP(eps0=1.0), BinaryRandomizedResponse(eps0=1.0))
        """
        if self.kind == "generic":
            return GenericLDP(eps0)
        if self.kind == "krr":
            return KRandomizedResponse(self.k, eps0)
        if self.kind == "rr":
            return BinaryRandomizedResponse(eps0)
        if self.kind == "laplace":
            return BoundedLaplace(eps0)
        raise ValueError(
            "the Gaussian family is not eps0-LDP (no randomizer at a local eps0 alone): use its per-user "
            "laws (scale, logpdf, cdf, sample) at a local (eps, delta)"
        )

    def _require_unit(self, what: str) -> None:
        if self.kind not in UNIT_KINDS:
            raise ValueError(
                f"{what} is defined for the per-user kinds {', '.join(UNIT_KINDS)}, got kind={self.kind!r}"
            )

    def scale(self, eps: float | np.ndarray, delta: float | np.ndarray = 0.0) -> np.ndarray:
        """Noise scale: Laplace ``b = 1/ε``, Gaussian σ; for ``"rr"`` the flip probability.

        Examples
        --------
        >>> round(float(RandomizerFamily("rr").scale(np.log(3))), 6)
        0.25
        """
        self._require_unit("scale")
        eps = check_array("eps", eps)
        if np.any(eps <= 0):
            raise ValueError("eps must be > 0")
        if self.kind == "rr":
            return 1.0 / (1.0 + np.exp(eps))
        if self.kind == "laplace":
            return 1.0 / eps
        return gaussian_sigma(eps, delta, self.calibration or "classical")

    def local_delta(self, eps: object, level_eps: float, level_delta: float = 0.0) -> np.ndarray:
        r"""Exact privacy profile δ(ε) of one user's report, inputs ``0`` against ``1`` (no shuffling).

        ``"rr"``: :math:`(e^{\varepsilon_i} - e^{\varepsilon})_+/(1 + e^{\varepsilon_i})`;
        ``"laplace"``: :math:`(1 - e^{(\varepsilon - \varepsilon_i)/2})_+`; ``"gaussian"``:
        :func:`gaussian_delta` at the calibrated σ. The two end points are the worst pair of
        inputs in ``[0, 1]`` for all three, so this is the guarantee the user has without any
        shuffling (the shuffled output is a post-processing of her report and independent ones).

        Parameters
        ----------
        eps
            Central ε values, >= 0.
        level_eps, level_delta
            The user's local parameters (``level_delta`` is read by the Gaussian calibrations
            that need it).

        Examples
        --------
        >>> RandomizerFamily("gaussian", "paper").local_delta([0.3], 2.0).round(4).tolist()  # sigma = 1
        [0.2933]
        >>> RandomizerFamily("rr").local_delta([0.0, 1.0], 1.0).round(4).tolist()
        [0.4621, 0.0]
        """
        self._require_unit("local_delta")
        e = check_array("eps", eps, low=0.0)
        level_eps = check_positive("level_eps", level_eps)
        if self.kind == "rr":
            return (
                np.maximum(-np.expm1(np.minimum(e - level_eps, 0.0)), 0.0)
                * math.exp(level_eps)
                / (1.0 + math.exp(level_eps))
            )
        if self.kind == "laplace":
            return np.maximum(-np.expm1(np.minimum((e - level_eps) / 2.0, 0.0)), 0.0)
        sigma = float(self.scale(level_eps, level_delta))
        return np.asarray(gaussian_delta(e, sigma), dtype=float)

    def logpdf(self, z: np.ndarray, x: float | np.ndarray, scale: float | np.ndarray) -> np.ndarray:
        """Log density (log pmf for ``"rr"``) of the report ``z`` on input ``x`` at noise ``scale``.

        Examples
        --------
        >>> lap = RandomizerFamily("laplace")
        >>> round(float(lap.logpdf(np.array(0.0), 0.0, 1.0)), 6)  # log(1/2)
        -0.693147
        """
        self._require_unit("logpdf")
        z = np.asarray(z, dtype=float)
        x = np.asarray(x, dtype=float)
        s = np.asarray(scale, dtype=float)
        if self.kind == "rr":
            return np.where(z == x, np.log1p(-s), np.log(s))
        if self.kind == "laplace":
            return _laplace_logpdf(z, x, s)
        return -0.5 * ((z - x) / s) ** 2 - np.log(s) - 0.5 * math.log(2 * math.pi)

    def cdf(self, z: np.ndarray, x: float | np.ndarray, scale: float | np.ndarray) -> np.ndarray:
        """CDF of the report on input ``x`` (continuous kinds only).

        Examples
        --------
        >>> float(RandomizerFamily("gaussian").cdf(np.array(0.0), 0.0, 2.0))
        0.5
        """
        if self.kind not in ("laplace", "gaussian"):
            raise ValueError(f"cdf is defined for the continuous kinds laplace and gaussian, got kind={self.kind!r}")
        u = (np.asarray(z, dtype=float) - np.asarray(x, dtype=float)) / np.asarray(scale, dtype=float)
        if self.kind == "laplace":
            return np.where(u < 0, 0.5 * np.exp(np.minimum(u, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(u, 0.0)))
        return ndtr(u)

    def quantile(self, p: np.ndarray, x: float | np.ndarray, scale: float | np.ndarray) -> np.ndarray:
        """Inverse CDF (continuous kinds); ``p`` in (0, 1).

        Examples
        --------
        >>> round(float(RandomizerFamily("laplace").quantile(np.array(0.75), 0.0, 1.0)), 6)
        0.693147
        """
        if self.kind not in ("laplace", "gaussian"):
            raise ValueError(
                f"quantile is defined for the continuous kinds laplace and gaussian, got kind={self.kind!r}"
            )
        p = np.asarray(p, dtype=float)
        x = np.asarray(x, dtype=float)
        s = np.asarray(scale, dtype=float)
        if self.kind == "laplace":
            u = np.where(p < 0.5, np.log(2 * np.minimum(p, 0.5)), -np.log(2 * (1 - np.maximum(p, 0.5))))
            return x + s * u
        return x + s * ndtri(p)

    def sample(self, x: np.ndarray, scale: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Reports of users with inputs ``x`` and noise scales ``scale`` (broadcast).

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> RandomizerFamily("rr").sample(np.zeros(5), np.full(5, 0.0), rng).tolist()
        [0.0, 0.0, 0.0, 0.0, 0.0]
        """
        self._require_unit("sample")
        rng = check_generator("rng", rng)
        x = np.asarray(x, dtype=float)
        s = np.asarray(scale, dtype=float)
        shape = np.broadcast_shapes(x.shape, s.shape)
        if self.kind == "rr":
            flip = rng.random(shape) < s
            return np.where(flip, 1.0 - x, x)
        if self.kind == "laplace":
            return x + rng.laplace(0.0, 1.0, size=shape) * s
        return x + rng.standard_normal(shape) * s

    def check_calibration(self, eps: float, delta: float) -> float:
        """The exact local δ at ε of the calibrated randomizer (Gaussian) — 0 for pure kinds.

        Examples
        --------
        >>> RandomizerFamily("gaussian", "classical").check_calibration(2.0, 1e-10) <= 1e-10
        True
        >>> RandomizerFamily("gaussian", "paper").check_calibration(2.0, 1e-10) > 0.02
        True
        """
        eps = check_positive("eps", eps)
        delta = check_in_range("delta", delta, 0.0, 1.0, closed_low=False, closed_high=False)
        if self.kind != "gaussian":
            return 0.0
        return float(gaussian_delta(eps, float(self.scale(eps, delta))))
