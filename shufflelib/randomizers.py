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
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from ._validation import check_array, check_generator, check_in_range, check_int, check_positive

__all__ = [
    "Domain",
    "LocalPrivacyDescription",
    "LocalRandomizer",
    "BinaryRandomizedResponse",
    "KRandomizedResponse",
    "BoundedLaplace",
    "GenericLDP",
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

    def randomize(self, x: object, rng: np.random.Generator) -> np.ndarray:
        """Apply the randomizer independently to every user's input.

        Parameters
        ----------
        x
            1-D array of inputs, each in :attr:`domain`.
        rng
            The only source of randomness.

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


class KRandomizedResponse(LocalRandomizer):
    """k-ary randomized response (k-RR): report the truth w.p. ``e^eps0 / (e^eps0 + k - 1)``.

    Every other value is reported w.p. ``1 / (e^eps0 + k - 1)``. Equivalently, w.p.
    ``gamma = k / (e^eps0 + k - 1)`` the output is uniform on ``{0, ..., k-1}``
    (the blanket), otherwise it is the truth.

    Parameters
    ----------
    k
        Domain size, an integer >= 2; inputs and outputs are ``0, ..., k-1``.
    eps0
        Local privacy parameter, a finite number > 0.

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


class BinaryRandomizedResponse(KRandomizedResponse):
    """Binary randomized response: keep the bit w.p. ``e^eps0 / (e^eps0 + 1)``, else flip it.

    The case ``k = 2`` of :class:`KRandomizedResponse`; blanket weight ``2 / (e^eps0 + 1)``
    with ``omega`` uniform on ``{0, 1}``.

    Parameters
    ----------
    eps0
        Local privacy parameter, a finite number > 0.

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


class BoundedLaplace(LocalRandomizer):
    """Laplace mechanism on ``[low, high]``: ``y = x + Lap((high - low) / eps0)``, unclipped.

    The sensitivity of the identity on ``[low, high]`` is ``high - low``, so the
    scale ``b = (high - low) / eps0`` gives ``eps0``-LDP. The pointwise minimum of
    the densities over inputs is attained at the far end point, and integrates to
    ``gamma = e^{-eps0/2}``; the normalized blanket ``omega`` is the Laplace
    distribution centred at ``mid = (low + high) / 2`` with the same scale.

    Parameters
    ----------
    eps0
        Local privacy parameter, a finite number > 0.
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
    def domain(self) -> Domain:
        return Domain(self._low, self._high, discrete=False)

    @property
    def output_domain(self) -> Domain:
        return Domain(-math.inf, math.inf, discrete=False)

    def _randomize(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return x + rng.laplace(0.0, self._scale, size=x.shape)

    def _log_likelihood(self, y: np.ndarray, x: np.ndarray) -> np.ndarray:
        return -np.abs(y - x) / self._scale - math.log(2 * self._scale)

    def _blanket_sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        mid = 0.5 * (self._low + self._high)
        return rng.laplace(mid, self._scale, size=size)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(eps0={self.eps0!r}, low={self._low!r}, high={self._high!r})"


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
    eps0
        Local privacy parameter, a finite number > 0.

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
