r"""The regions of Liu et al.'s Fig. 2 and the pointwise conditions of a clone decomposition.

The paper computes user ``i``'s clone probability from *areas*: with :math:`g_0, g_1` the
densities of user 1's reports on :math:`x^0 = 0, x^1 = 1` and :math:`g_i` that of user ``i``'s
report on :math:`x_i`,

.. math:: U_b = \{g_i < g_b\} \cap \{g_{1-b} < g_b\}, \qquad
   p_i^b = \Pr[R(x_i) \in U_b], \qquad p_i = \min(p_i^0, p_i^1),

and user 1's weight :math:`w = p_1 = \Pr[R(x^0) \in \{g_0 < g_1\}]` (Sec. 3.2 and Fig. 2 of the
paper). A clone decomposition (:func:`~shufflelib.personalized.clone_count.clone_pair_delta`)
needs *pointwise* inequalities instead. Since :math:`Q_0 + Q_1 = R(x^0) + R(x^1)`,

* user 1's decomposition :math:`R(x^b) = (1-w)Q_b + wQ_{1-b}` exists iff the **weight
  residual** :math:`(1-w)g_1 - wg_0 = (1-2w)\,q_1` is non-negative everywhere (:math:`q_1`
  the density of :math:`Q_1`; by symmetry the same for :math:`Q_0`);
* user ``i``'s decomposition :math:`R(x_i) = p_iQ_0 + p_iQ_1 + (1-2p_i)LO_i` exists iff the
  **clone residual** :math:`g_i - p_i(g_0 + g_1) = (1-2p_i)\,\ell_i` is non-negative
  everywhere (:math:`\ell_i` the density of the leftover :math:`LO_i`).

:func:`region_picture` evaluates all of this on a grid, for the Laplace and the Gaussian
mechanism (pure local privacy: the failure sets of approximate DP are not drawn). The
largest constants that keep a residual non-negative *on the grid* are upper bounds on the
valid ones (the grid checks finitely many points); for the Laplace mechanism the weight is
exact, :math:`1/(1 + e^{\varepsilon_1})`, because the likelihood ratio is constant on
:math:`z \le 0`, which every grid here reaches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_in_range, check_int, check_positive
from .hypothesis_testing import numeric_probabilities, paper_p1, paper_pi
from .mechanisms import LocalMechanism

__all__ = ["RegionPicture", "region_picture"]


@dataclass(frozen=True)
class RegionPicture:
    """Densities, regions and decomposition residuals of one pair (user 1, user ``i``) on a grid.

    Attributes
    ----------
    z
        The grid of report values.
    g0, g1, gi
        Densities of user 1's report on ``x^0 = 0`` and ``x^1 = 1``, and of user ``i``'s on ``x_i``.
    u0, u1
        Masks of the paper's regions :math:`U_0` and :math:`U_1` on the grid.
    w_paper, p_paper
        The paper's weight :math:`w = p_1` and clone probability :math:`p_i` (closed forms at
        ``x_i = 0``, the paper's grid recipe elsewhere).
    w_grid, p_grid
        The largest weight and clone probability whose residuals are non-negative on the grid.

    Examples
    --------
    >>> pic = region_picture(LocalMechanism("laplace"), 1.0, 2.0)
    >>> round(pic.area(pic.u0), 3), round(pic.area(pic.u1), 3), round(pic.p_paper, 3)
    (0.447, 0.269, 0.269)
    >>> bool(pic.clone_residual(pic.p_paper).min() < 0)
    True
    """

    z: np.ndarray
    g0: np.ndarray
    g1: np.ndarray
    gi: np.ndarray
    u0: np.ndarray
    u1: np.ndarray
    w_paper: float
    p_paper: float
    w_grid: float
    p_grid: float

    def weight_residual(self, w: float) -> np.ndarray:
        """:math:`(1-w)g_1 - wg_0`, which is :math:`(1-2w)` times the density of :math:`Q_1`."""
        return (1.0 - w) * self.g1 - w * self.g0

    def clone_residual(self, p: float) -> np.ndarray:
        """:math:`g_i - p(g_0 + g_1)`, which is :math:`(1-2p)` times the density of :math:`LO_i`."""
        return self.gi - p * (self.g0 + self.g1)

    def area(self, mask: np.ndarray) -> float:
        """:math:`\\Pr[R(x_i) \\in \\text{mask}]` by the trapezoidal rule on the grid."""
        return float(np.trapezoid(np.where(mask, self.gi, 0.0), self.z))


def region_picture(
    mechanism: LocalMechanism, eps_i: float, eps1: float, *, x_i: float = 0.0, points: int = 20_001
) -> RegionPicture:
    """The regions of the paper's Fig. 2 and the decomposition residuals, on a grid.

    Parameters
    ----------
    mechanism
        ``"laplace"`` or ``"gaussian"`` family (pure local privacy: ``δ = 0`` for the
        Laplace mechanism; the Gaussian's noise comes from its calibration at ``δ = 1e-10``).
    eps_i, eps1
        Budgets of user ``i`` and of user 1; ``eps_i < eps1`` (user 1 has the largest budget,
        and at a tie ``U_0`` is empty).
    x_i
        User ``i``'s value in ``[0, 1]`` (the paper's worst case is ``0``).
    points
        Grid points (at least 1,001) on ``[-L, 1 + L]``, ``L`` six noise scales of user ``i``.

    Returns
    -------
    RegionPicture

    Examples
    --------
    >>> import math
    >>> pic = region_picture(LocalMechanism("laplace"), 1.0, 2.0)
    >>> round(pic.w_paper, 4), round(pic.w_grid, 4), round(1 / (1 + math.e**2), 4)
    (0.1839, 0.1192, 0.1192)
    >>> bool(pic.weight_residual(pic.w_paper).min() < 0), bool(pic.weight_residual(pic.w_grid).min() >= 0)
    (True, True)
    """
    if mechanism.kind not in ("laplace", "gaussian"):
        raise ValueError(f"mechanism must be the laplace or gaussian family, got {mechanism.kind!r}")
    eps_i = check_positive("eps_i", eps_i)
    eps1 = check_positive("eps1", eps1)
    if not eps_i < eps1:
        raise ValueError(f"eps_i must be < eps1 = {eps1} (user 1 has the largest budget), got {eps_i!r}")
    x_i = check_in_range("x_i", x_i, 0.0, 1.0)
    points = check_int("points", points, minimum=1001)
    delta = 1e-10 if mechanism.needs_delta else 0.0
    s1 = float(mechanism.scale(eps1, delta))
    si = float(mechanism.scale(eps_i, delta))
    reach = 6.0 * max(s1, si)
    z = np.linspace(-reach, 1.0 + reach, points)
    g0 = np.exp(mechanism.logpdf(z, 0.0, s1))
    g1 = np.exp(mechanism.logpdf(z, 1.0, s1))
    gi = np.exp(mechanism.logpdf(z, x_i, si))
    u0 = (gi < g0) & (g1 < g0)
    u1 = (gi < g1) & (g0 < g1)
    with np.errstate(divide="ignore"):
        w_grid = float(1.0 / (1.0 + np.max(g0 / g1)))
        p_grid = float(np.min(gi / (g0 + g1)))
    if x_i == 0.0:
        p_paper = float(paper_pi(mechanism, eps_i, delta, eps1, delta)[0])
    else:  # the paper's recipe on a fine grid (numeric_probabilities states its tolerance)
        p_paper = min(numeric_probabilities(mechanism, eps_i, delta, eps1, delta, x_i=x_i)[1:])
    return RegionPicture(
        z=z,
        g0=g0,
        g1=g1,
        gi=gi,
        u0=u0,
        u1=u1,
        w_paper=paper_p1(mechanism, eps1, delta),
        p_paper=p_paper,
        w_grid=w_grid,
        p_grid=p_grid,
    )
