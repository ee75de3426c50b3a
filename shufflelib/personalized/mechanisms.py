r"""The local randomizers of the personalized chapter, with per-user parameters.

Every user holds a value in the interval ``[0, 1]`` (sensitivity ``Δ = 1``);
user 1's two neighbouring values are the end points ``x^0 = 0`` and
``x^1 = 1``, the worst case of Liu et al. (2024).

* ``"rr"``: binary randomized response on ``{0, 1}``, truthful with
  probability :math:`e^{\varepsilon}/(1+e^{\varepsilon})`;
* ``"laplace"``: :math:`x + \mathrm{Lap}(1/\varepsilon)` (pure ε-LDP);
* ``"gaussian"``: :math:`x + \mathcal N(0, \sigma^2)` with
  :math:`\sigma = \sigma(\varepsilon, \delta)` from a **calibration**:

  - ``"classical"``: :math:`\sqrt{2\ln(1.25/\delta)}/\varepsilon` (Dwork and Roth,
    Theorem A.1; its proof needs ε < 1, but for the parameters of this chapter
    the exact δ of :func:`gaussian_delta` stays below the target, which
    :meth:`LocalMechanism.check_calibration` verifies);
  - ``"analytic"``: the smallest σ with an exact δ(ε) <= δ (Balle and Wang 2018);
  - ``"paper"``: :math:`\sigma = 2/\varepsilon`, the calibration that reproduces
    Table 2 of Liu et al. (2024). It is **not** (ε, δ)-DP for small δ: for
    ε = 2, σ = 1 only gives δ(2) ≈ 0.021 (see :func:`gaussian_delta`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr, ndtr, ndtri

from .._validation import check_array, check_generator, check_in_range, check_positive

__all__ = ["KINDS", "CALIBRATIONS", "LocalMechanism", "gaussian_delta", "gaussian_sigma"]

#: The randomizer families.
KINDS = ("rr", "laplace", "gaussian")
#: Calibrations of the Gaussian mechanism.
CALIBRATIONS = ("classical", "analytic", "paper")


def gaussian_delta(eps: float | np.ndarray, sigma: float | np.ndarray) -> np.ndarray:
    r"""Exact δ(ε) of the Gaussian mechanism with sensitivity 1 and noise σ.

    :math:`\delta(\varepsilon) = \Phi(\tfrac{1}{2\sigma} - \varepsilon\sigma)
    - e^{\varepsilon}\Phi(-\tfrac{1}{2\sigma} - \varepsilon\sigma)`
    (Balle and Wang 2018), evaluated in log space.

    Examples
    --------
    >>> round(float(gaussian_delta(2.0, 1.0)), 4)
    0.0209
    """
    eps = check_array("eps", eps, low=0.0)
    sigma = check_array("sigma", sigma)
    if np.any(sigma <= 0):
        raise ValueError("sigma must be > 0")
    mu = 1.0 / sigma
    a = log_ndtr(mu / 2 - eps / mu)
    b = eps + log_ndtr(-mu / 2 - eps / mu)
    # a >= b always (delta >= 0); -expm1 of a non-positive number is safe.
    return np.exp(a) * -np.expm1(np.minimum(b - a, 0.0))


def gaussian_sigma(eps: float | np.ndarray, delta: float | np.ndarray, calibration: str) -> np.ndarray:
    """Noise σ of the Gaussian mechanism for (ε, δ) under a calibration.

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
    if calibration not in CALIBRATIONS:
        raise ValueError(f"calibration must be one of {', '.join(CALIBRATIONS)}, got {calibration!r}")
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
        root = brentq(excess, lo, hi, xtol=1e-13)
        s = math.exp(root)
        while float(gaussian_delta(e, s)) > d:  # round up: sigma must be (eps, delta)-DP
            s *= 1 + 1e-12
        out[idx] = s
    return out


@dataclass(frozen=True)
class LocalMechanism:
    """A randomizer family whose parameters are chosen per user from (ε_i, δ_i).

    Parameters
    ----------
    kind
        ``"rr"``, ``"laplace"`` or ``"gaussian"``.
    calibration
        Gaussian calibration (``"classical"``, ``"analytic"``, ``"paper"``);
        must be ``None`` for the other kinds. Default for Gaussian: ``"classical"``.

    Examples
    --------
    >>> lap = LocalMechanism("laplace")
    >>> float(lap.scale(2.0))
    0.5
    >>> g = LocalMechanism("gaussian", "paper")
    >>> float(g.scale(2.0, 1e-10))
    1.0
    """

    kind: str
    calibration: str | None = None

    def __init__(self, kind: str, calibration: str | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        if kind == "gaussian":
            calibration = "classical" if calibration is None else calibration
            if calibration not in CALIBRATIONS:
                raise ValueError(f"calibration must be one of {', '.join(CALIBRATIONS)}, got {calibration!r}")
        elif calibration is not None:
            raise ValueError(f"calibration is only used by kind='gaussian', got {calibration!r} for {kind!r}")
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "calibration", calibration)

    @property
    def label(self) -> str:
        """Short description, e.g. ``"gaussian (paper)"``."""
        return self.kind if self.calibration is None else f"{self.kind} ({self.calibration})"

    @property
    def needs_delta(self) -> bool:
        """Whether the local δ enters the randomizer (Gaussian, except the ``paper`` calibration)."""
        return self.kind == "gaussian" and self.calibration != "paper"

    def scale(self, eps: float | np.ndarray, delta: float | np.ndarray = 0.0) -> np.ndarray:
        """Noise scale: Laplace ``b = 1/ε``, Gaussian σ; for ``"rr"`` the flip probability.

        Examples
        --------
        >>> round(float(LocalMechanism("rr").scale(np.log(3))), 6)
        0.25
        """
        eps = check_array("eps", eps)
        if np.any(eps <= 0):
            raise ValueError("eps must be > 0")
        if self.kind == "rr":
            return 1.0 / (1.0 + np.exp(eps))
        if self.kind == "laplace":
            return 1.0 / eps
        return gaussian_sigma(eps, delta, self.calibration or "classical")

    # ------------------------------------------------------------ densities
    def logpdf(self, z: np.ndarray, x: float | np.ndarray, scale: float | np.ndarray) -> np.ndarray:
        """Log density (log pmf for ``"rr"``) of the report ``z`` on input ``x`` at noise ``scale``.

        Examples
        --------
        >>> lap = LocalMechanism("laplace")
        >>> round(float(lap.logpdf(np.array(0.0), 0.0, 1.0)), 6)  # log(1/2)
        -0.693147
        """
        z = np.asarray(z, dtype=float)
        x = np.asarray(x, dtype=float)
        s = np.asarray(scale, dtype=float)
        if self.kind == "rr":
            return np.where(z == x, np.log1p(-s), np.log(s))
        if self.kind == "laplace":
            return -np.abs(z - x) / s - np.log(2.0 * s)
        return -0.5 * ((z - x) / s) ** 2 - np.log(s) - 0.5 * math.log(2 * math.pi)

    def cdf(self, z: np.ndarray, x: float | np.ndarray, scale: float | np.ndarray) -> np.ndarray:
        """CDF of the report on input ``x`` (continuous kinds only).

        Examples
        --------
        >>> float(LocalMechanism("gaussian").cdf(np.array(0.0), 0.0, 2.0))
        0.5
        """
        if self.kind == "rr":
            raise ValueError("cdf is defined for the continuous kinds laplace and gaussian, got kind='rr'")
        u = (np.asarray(z, dtype=float) - np.asarray(x, dtype=float)) / np.asarray(scale, dtype=float)
        if self.kind == "laplace":
            return np.where(u < 0, 0.5 * np.exp(np.minimum(u, 0.0)), 1.0 - 0.5 * np.exp(-np.maximum(u, 0.0)))
        return ndtr(u)

    def quantile(self, p: np.ndarray, x: float | np.ndarray, scale: float | np.ndarray) -> np.ndarray:
        """Inverse CDF (continuous kinds); ``p`` in (0, 1).

        Examples
        --------
        >>> round(float(LocalMechanism("laplace").quantile(np.array(0.75), 0.0, 1.0)), 6)
        0.693147
        """
        if self.kind == "rr":
            raise ValueError("quantile is defined for the continuous kinds laplace and gaussian, got kind='rr'")
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
        >>> LocalMechanism("rr").sample(np.zeros(5), np.full(5, 0.0), rng).tolist()
        [0.0, 0.0, 0.0, 0.0, 0.0]
        """
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
        >>> LocalMechanism("gaussian", "classical").check_calibration(2.0, 1e-10) <= 1e-10
        True
        >>> LocalMechanism("gaussian", "paper").check_calibration(2.0, 1e-10) > 0.02
        True
        """
        eps = check_positive("eps", eps)
        delta = check_in_range("delta", delta, 0.0, 1.0, closed_low=False, closed_high=False)
        if self.kind != "gaussian":
            return 0.0
        return float(gaussian_delta(eps, float(self.scale(eps, delta))))
