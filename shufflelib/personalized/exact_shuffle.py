r"""Exact privacy curves of shuffled randomizers on concrete neighbouring datasets.

Every value here is the privacy of one real pair of neighbouring datasets,
hence a **lower bound** on the true privacy curve of the shuffled protocol:
no valid upper bound may fall below it.

The pair. ``D_0``: every user holds ``x^0 = 0``; ``D_1``: the same, but user 1
holds ``x^1 = 1`` (the worst case that Liu et al. (2024) use for ``p_i``).

* :func:`exact_rr_delta` — binary randomized response with personalized
  levels. The shuffled output is the count of reported ones,
  ``K = Y_1 + K'``, ``K'`` Poisson-binomial; the two laws are
  ``PB * [1 − f_1, f_1]`` and ``PB * [f_1, 1 − f_1]`` with
  ``f = 1/(1 + e^ε)``. Exact (binomial pmf accuracy ``~1e-15`` relative; the
  neglected binomial tails, below ``1e-30``, can only lower δ).
* :func:`laplace_bracket` — the Laplace mechanism ``x + Lap(1/ε_0)`` for ``n``
  users at the same level. With ``ρ(z) = e^{ε_0(|z| − |z − 1|)}`` the
  likelihood ratio of the shuffled sample is ``L = (1/n) Σ_j ρ(Z_j)``, ``Z_j``
  i.i.d. under ``D_0``, so
  ``H_{e^ε}(D_1‖D_0) = E[(S/n − e^ε)^+]`` and
  ``H_{e^ε}(D_0‖D_1) = E[(1 − e^ε S/n)^+]``, ``S = Σ_j ρ(Z_j)``. The law of
  ``ρ(Z)`` (two atoms and a continuous part) is put on a lattice of step
  ``h``, rounding up and down, and convolved ``n`` times by FFT. Rounding up
  and down brackets each expectation (both functions are monotone in ``S``);
  the FFT error (the standard normwise bound ``8 u log2(N) min(|a|_1 |b|_2, |a|_2 |b|_1)``,
  ``u = 2^-53``) widens the bracket.
"""

from __future__ import annotations

import math

import numpy as np

from .._docstrings import fill_doc
from .._validation import check_array, check_int, check_positive
from .clone_count import CloneCount
from .population import Population

__all__ = ["exact_rr_delta", "laplace_bracket"]

_U = np.finfo(float).eps / 2


@fill_doc
def exact_rr_delta(eps: object, population: Population, *, target: int | None = None) -> np.ndarray:
    """Exact δ(ε) of shuffled binary randomized response on the pair ``D_0, D_1`` (both orders).

    Parameters
    ----------
    %(eps_values)s
    population
        The personalized population (pure levels; δ is ignored).
    target
        Level of user 1 (default: the largest ε).

    Returns
    -------
    numpy.ndarray
        The exact δ(ε) of this pair, rounded **down** by a relative ``1e-12``
        and an absolute ``16 u (1 + e^ε) sqrt(n)`` for the rounding of the sums
        (a lower bound on the protocol's privacy curve).

    Examples
    --------
    >>> import math
    >>> from shufflelib.personalized.population import Population
    >>> d = exact_rr_delta(0.5, Population([1.0], [1]))   # one user: local randomized response
    >>> round(float(d), 6), round((math.e - math.exp(0.5)) / (1 + math.e), 6)
    (0.287649, 0.287649)
    """
    e = check_array("eps", eps, low=0.0)
    top = population.levels - 1
    level = population.max_level if target is None else check_int("target", target, minimum=0, maximum=top)
    f1 = 1.0 / (1.0 + math.exp(population.eps[level]))
    others = population.without_one(level)
    if others is None:
        base = CloneCount.from_binomials([0.0], [0])
    else:
        base = CloneCount.from_binomials(1.0 / (1.0 + np.exp(others.eps)), others.counts, max_direct=math.inf)
    p0 = np.convolve(base.pmf, [1.0 - f1, f1])
    p1 = np.convolve(base.pmf, [f1, 1.0 - f1])
    flat = np.atleast_1d(e).ravel()
    gamma = np.exp(flat)[:, None]
    d10 = np.maximum(p1[None, :] - gamma * p0[None, :], 0.0).sum(axis=1)
    d01 = np.maximum(p0[None, :] - gamma * p1[None, :], 0.0).sum(axis=1)
    # Round down: relative 1e-12 (pmf accuracy) and the absolute rounding of the sums.
    slack = 16.0 * _U * (1.0 + gamma[:, 0]) * max(p0.size, 1) ** 0.5
    out = np.maximum(np.maximum(d10, d01) * (1.0 - 1e-12) - slack, 0.0)
    return out.reshape(e.shape)


def _nfold(pmf: np.ndarray, n: int) -> tuple[np.ndarray, float]:
    """``n``-fold self-convolution by repeated squaring (FFT), and its absolute error bound."""
    from scipy.signal import fftconvolve  # imported here: scipy.signal lengthens every command's start-up

    out, err_out = np.array([1.0]), 0.0
    base, err_base = pmf.copy(), 0.0
    k = n
    while k:
        if k & 1:
            err_out = err_out + err_base + _fft_error(out, base)
            out = np.maximum(fftconvolve(out, base), 0.0)
        k >>= 1
        if k:
            err_base = 2 * err_base + _fft_error(base, base)
            base = np.maximum(fftconvolve(base, base), 0.0)
    return out, err_out


def _fft_error(a: np.ndarray, b: np.ndarray) -> float:
    if a.size * b.size <= 1:
        return 0.0
    n_fft = 1 << int(math.ceil(math.log2(a.size + b.size - 1)))
    l1a, l1b = float(a.sum()), float(b.sum())
    l2a, l2b = math.sqrt(float(a.max()) * l1a), math.sqrt(float(b.max()) * l1b)
    return 8 * _U * math.log2(n_fft) * min(l1a * l2b, l2a * l1b)


@fill_doc
def laplace_bracket(
    eps: object, eps0: float, n: int, *, step: float = 5e-3, cells: int = 100_000
) -> tuple[np.ndarray, np.ndarray]:
    """Certified bracket ``[lower, upper]`` on δ(ε) of ``n`` shuffled Laplace reports (same level).

    Parameters
    ----------
    %(eps_values)s
    eps0
        Every user's local ε (Laplace scale ``1/eps0`` on ``[0, 1]``), in (0, 8].
    n
        Number of users, an integer in ``[1, 2000]``.
    step
        Lattice step ``h`` for the values of ``ρ(Z)`` (> 0).
    cells
        Number of cells the continuous part of ``ρ(Z)`` is cut into.

    Returns
    -------
    lower, upper
        Arrays with ``lower <= δ(ε) <= upper`` for the pair ``D_0, D_1``
        (``max`` of both orders). ``lower`` is a lower bound on the shuffled
        protocol's privacy curve.

    Examples
    --------
    >>> lo, up = laplace_bracket(0.1, 3.0, 300)
    >>> bool(0.0444 < lo < up < 0.0463)   # digest, Sec. 7.3 (finer lattice): [0.0447, 0.0455]
    True
    """
    e = check_array("eps", eps, low=0.0)
    eps0 = check_positive("eps0", eps0)
    if eps0 > 8:
        raise ValueError(f"eps0 must be <= 8 for the lattice to stay small, got {eps0!r}")
    n = check_int("n", n, minimum=1, maximum=2000)
    step = check_positive("step", step)
    cells = check_int("cells", cells, minimum=100)
    top = math.exp(eps0)
    size = int(math.ceil(top / step)) + 2
    # Continuous part: z in (0, 1), rho = exp(eps0 (2z - 1)) increasing, density (eps0/2) e^{-eps0 z}.
    z = np.linspace(0.0, 1.0, cells + 1)
    mass = 0.5 * (np.exp(-eps0 * z[:-1]) - np.exp(-eps0 * z[1:]))
    rho_lo = np.exp(eps0 * (2 * z[:-1] - 1))
    rho_hi = np.exp(eps0 * (2 * z[1:] - 1))
    atoms = np.array([math.exp(-eps0), top])
    atom_mass = np.array([0.5, 0.5 * math.exp(-eps0)])
    lattices = {}
    for name, values, at_round in (("up", rho_hi, np.ceil), ("down", rho_lo, np.floor)):
        pmf = np.zeros(size)
        np.add.at(pmf, at_round(values / step).astype(int), mass)
        np.add.at(pmf, at_round(atoms / step).astype(int), atom_mass)
        lattices[name] = _nfold(pmf, n)
    flat = np.atleast_1d(e).ravel()
    gamma = np.exp(flat)[:, None]
    out = {}
    for name, (pmf, err) in lattices.items():
        s = np.arange(pmf.size) * step / n
        up_part = np.maximum(s[None, :] - gamma, 0.0)
        down_part = np.maximum(1.0 - gamma * s[None, :], 0.0)
        out[name] = (up_part @ pmf, down_part @ pmf, err * up_part.sum(axis=1), err * down_part.sum(axis=1))
    a_lo = out["down"][0] - out["down"][2]
    a_hi = out["up"][0] + out["up"][2]
    b_lo = out["up"][1] - out["up"][3]
    b_hi = out["down"][1] + out["down"][3]
    lower = np.maximum(np.maximum(a_lo, b_lo), 0.0)
    upper = np.minimum(np.maximum(a_hi, b_hi), 1.0)
    return lower.reshape(e.shape), upper.reshape(e.shape)
