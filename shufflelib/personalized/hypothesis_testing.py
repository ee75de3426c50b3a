r"""The clone-generating probabilities of Liu et al. (2024), by hypothesis testing.

User 1 holds :math:`x^0 = 0` or :math:`x^1 = 1` and has the largest budget
:math:`(\varepsilon_1, \delta_1)`; user ``i`` holds :math:`x_i` (worst case
:math:`x_i = x^0`). Write :math:`g_0, g_1, g_i` for the densities of
:math:`R(x^0), R(x^1)` (user 1's parameters) and :math:`R(x_i)` (user i's).

* **p_1** (Sec. 3.2.1): the type I error of the likelihood-ratio test of
  :math:`x^0` against :math:`x^1` after removing user 1's failure set,
  :math:`p_1 = \Pr[R(x^0) \in S \setminus T^0_{\delta_1}]` with
  :math:`S = \{g_0 < g_1\}`.
* **p_i** (Sec. 3.2.2): :math:`p_i = \min(p_i^0, p_i^1)` with
  :math:`p_i^b = \Pr[R(x_i) \in U_b \setminus T^i_{\delta_i}]`,
  :math:`U_b = \{g_i < g_b\} \cap \{g_{1-b} < g_b\}`.

The failure set :math:`T^x_\delta` is read as the two tails of mass δ/2 of
:math:`R(x)` (the printed definition, "Pr[R(x)=z] < −δ/2 or > 1−δ/2", is
impossible as written). Closed forms:

* randomized response: :math:`p_1 = p_i = 1/(1+e^{\varepsilon})` at the
  respective ε (the failure set plays no role for a pure randomizer);
* Laplace (scale :math:`1/\varepsilon`): :math:`p_1 = \tfrac12 e^{-\varepsilon_1/2}`;
  for :math:`\varepsilon_i < \varepsilon_1`, with :math:`L = \ln(\varepsilon_1/\varepsilon_i)`,
  :math:`U_0 = (-u^*, \min(u^*, \tfrac12))`, :math:`u^* = L/(\varepsilon_1-\varepsilon_i)`,
  and :math:`U_1 = (\max(u_l, \tfrac12), u_r)`,
  :math:`u_l = (\varepsilon_1 - L)/(\varepsilon_1 + \varepsilon_i)`,
  :math:`u_r = (\varepsilon_1 + L)/(\varepsilon_1 - \varepsilon_i)`;
* Gaussian: :math:`p_1 = \Phi(-1/(2\sigma_1)) - \delta_1/2`; for
  :math:`\sigma_i > \sigma_1`, :math:`U_0 = (-u^*, \min(u^*, \tfrac12))` with
  :math:`u^* = \sigma_1\sigma_i\sqrt{2\ln(\sigma_i/\sigma_1)/(\sigma_i^2-\sigma_1^2)}`
  and :math:`U_1 = (\max(r_-, \tfrac12), r_+)`, :math:`r_\pm` the roots of
  :math:`(z-1)^2/(2\sigma_1^2) - z^2/(2\sigma_i^2) = \ln(\sigma_i/\sigma_1)`;
  both intersected with the central :math:`1-\delta_i` interval of :math:`R(x_i)`.

**Ties.** If :math:`\varepsilon_i = \varepsilon_1` and :math:`x_i = x^0` then
:math:`R(x_i) = R(x^0)`, :math:`U_0 = \emptyset` and the printed recipe gives
:math:`p_i = 0`, although :math:`p_i \to p_1` as :math:`\varepsilon_i \uparrow \varepsilon_1`.
``tie="limit"`` (default, the convention most favourable to the paper) uses
:math:`p_1`; ``tie="literal"`` uses 0.

:func:`numeric_probabilities` is the paper's generic recipe on a grid, for any
:math:`x_i \in [0, 1]` (Fig. 3(a)); its tolerance is stated there.

These probabilities are *not* valid clone probabilities for the Laplace and
Gaussian mechanisms (see :mod:`shufflelib.personalized.sound`); they are
computed here to evaluate the paper's bound exactly as proposed.
"""

from __future__ import annotations

import math

import numpy as np

from .._docstrings import fill_doc
from .._validation import check_array, check_choice, check_in_range, check_int, check_positive
from .mechanisms import LocalMechanism

__all__ = ["TIES", "paper_p1", "paper_pi", "numeric_probabilities"]

#: Conventions for users whose level equals user 1's.
TIES = ("limit", "literal")


def _central_interval(
    mech: LocalMechanism, x: float, scale: np.ndarray, delta: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``[lo, hi]``: the report's range minus its two δ/2 tails (``±inf`` when δ = 0)."""
    lo = np.full(np.shape(scale), -np.inf)
    hi = np.full(np.shape(scale), np.inf)
    pos = delta > 0
    if np.any(pos):
        lo = np.where(pos, mech.quantile(np.where(pos, delta / 2, 0.5), x, scale), lo)
        hi = np.where(pos, mech.quantile(np.where(pos, 1 - delta / 2, 0.5), x, scale), hi)
    return lo, hi


def _mass(mech: LocalMechanism, a: np.ndarray, b: np.ndarray, x: float, scale: np.ndarray) -> np.ndarray:
    """Probability that the report on input ``x`` falls in ``(a, b)`` (0 if empty)."""
    a, b = np.broadcast_arrays(a, b)
    out = mech.cdf(b, x, scale) - mech.cdf(a, x, scale)
    return np.where(b > a, np.maximum(out, 0.0), 0.0)


@fill_doc
def paper_p1(mechanism: LocalMechanism, eps1: float, delta1: float = 0.0) -> float:
    """The paper's confounding probability :math:`p_1 = w` of user 1.

    Parameters
    ----------
    %(local_mechanism)s
    eps1, delta1
        User 1's budget (ε > 0, δ in [0, 1)).

    Examples
    --------
    >>> import math
    >>> from shufflelib.personalized.mechanisms import LocalMechanism
    >>> round(paper_p1(LocalMechanism("laplace"), 2.0), 4), round(0.5 * math.exp(-1.0), 4)
    (0.1839, 0.1839)
    >>> round(paper_p1(LocalMechanism("rr"), 1.0), 4)
    0.2689
    """
    eps1 = check_positive("eps1", eps1)
    delta1 = check_in_range("delta1", delta1, 0.0, 1.0, closed_high=False)
    if mechanism.kind == "rr":
        return 1.0 / (1.0 + math.exp(eps1))
    scale = np.asarray(mechanism.scale(eps1, delta1), dtype=float)
    _, hi = _central_interval(mechanism, 0.0, scale, np.asarray(delta1))
    return float(_mass(mechanism, np.asarray(0.5), hi, 0.0, scale))


@fill_doc
def paper_pi(
    mechanism: LocalMechanism,
    eps_i: float | np.ndarray,
    delta_i: float | np.ndarray,
    eps1: float,
    delta1: float = 0.0,
    *,
    tie: str = "limit",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The paper's ``(p_i, p_i^0, p_i^1)`` for users at ``x_i = x^0``, closed forms.

    Parameters
    ----------
    %(local_mechanism)s
    eps_i, delta_i
        Budgets of the users (arrays broadcast together); every ``eps_i``
        must be <= ``eps1`` (user 1 has the largest budget).
    eps1, delta1
        User 1's budget.
    tie
        ``"limit"`` (``p_i = p_1`` when user i's randomizer equals user 1's)
        or ``"literal"`` (``p_i = 0`` then).

    Returns
    -------
    p, p0, p1
        Arrays: ``min(p0, p1)`` (after the tie convention) and the two type I errors.

    Examples
    --------
    >>> from shufflelib.personalized.mechanisms import LocalMechanism
    >>> p, p0, p1 = paper_pi(LocalMechanism("laplace"), 1.0, 0.0, 3.0)
    >>> round(float(p0), 4), round(float(p1), 4), round(float(p), 4)
    (0.4081, 0.2389, 0.2389)
    """
    check_choice("tie", tie, TIES)
    eps1 = check_positive("eps1", eps1)
    delta1 = check_in_range("delta1", delta1, 0.0, 1.0, closed_high=False)
    e_i = check_array("eps_i", eps_i)
    d_i = check_array("delta_i", delta_i, low=0.0, high=1.0)
    if np.any(e_i <= 0):
        raise ValueError("eps_i must be > 0")
    e_i, d_i = np.broadcast_arrays(e_i, d_i)
    if np.any(e_i > eps1):
        raise ValueError(f"eps_i must be <= eps1 = {eps1} (user 1 has the largest budget), got max {e_i.max()!r}")
    p1 = paper_p1(mechanism, eps1, delta1)
    if mechanism.kind == "rr":
        p = 1.0 / (1.0 + np.exp(e_i))
        p0, p1_arr = 1.0 - p, p.copy()
        tied = e_i == eps1
    else:
        s1 = float(mechanism.scale(eps1, delta1))
        s_i = np.asarray(mechanism.scale(e_i, d_i), dtype=float)
        tied = np.isclose(s_i, s1, rtol=1e-12, atol=0.0)
        if np.any(s_i < s1 * (1 - 1e-12)):
            raise ValueError("every user's noise must be at least user 1's; use numeric_probabilities otherwise")
        s_i = np.where(tied, s1 * 2.0, s_i)  # placeholder for tied users (overwritten below)
        lo, hi = _central_interval(mechanism, 0.0, s_i, d_i)
        if mechanism.kind == "laplace":
            e_safe = 1.0 / s_i
            gap = eps1 - e_safe
            log_ratio = np.log(eps1 / e_safe)
            u_star = log_ratio / gap
            u_l = (eps1 - log_ratio) / (eps1 + e_safe)
            u_r = (eps1 + log_ratio) / gap
            a0, b0 = -u_star, np.minimum(u_star, 0.5)
            a1, b1 = np.maximum(u_l, 0.5), u_r
        else:
            ratio = s_i / s1
            u_star = s1 * s_i * np.sqrt(2 * np.log(ratio) / (s_i**2 - s1**2))
            a = 0.5 / s1**2 - 0.5 / s_i**2
            b = -1.0 / s1**2
            c = 0.5 / s1**2 - np.log(ratio)
            disc = np.maximum(b * b - 4 * a * c, 0.0)
            r_minus = (-b - np.sqrt(disc)) / (2 * a)
            r_plus = (-b + np.sqrt(disc)) / (2 * a)
            a0, b0 = -u_star, np.minimum(u_star, 0.5)
            a1, b1 = np.maximum(r_minus, 0.5), r_plus
        p0 = _mass(mechanism, np.maximum(a0, lo), np.minimum(b0, hi), 0.0, s_i)
        p1_arr = _mass(mechanism, np.maximum(a1, lo), np.minimum(b1, hi), 0.0, s_i)
        p0 = np.where(tied, 0.0, p0)
        p1_arr = np.where(tied, p1, p1_arr)
        p = np.minimum(p0, p1_arr)
    p = np.where(tied, p1 if tie == "limit" else 0.0, p)
    return p, np.asarray(p0, dtype=float), np.asarray(p1_arr, dtype=float)


def numeric_probabilities(
    mechanism: LocalMechanism,
    eps_i: float,
    delta_i: float,
    eps1: float,
    delta1: float = 0.0,
    *,
    x_i: float = 0.0,
    points: int = 1_000_001,
) -> tuple[float, float, float]:
    """The paper's generic recipe on a grid: ``(p_1, p_i^0, p_i^1)`` for any ``x_i`` in ``[0, 1]``.

    The real line is cut into ``points − 1`` cells spanning the central
    ``1 − 1e-15`` range of the three reports; each cell is classified by the
    densities at its midpoint and contributes its exact probability (CDF
    difference). Cells outside the range and the failure sets' tails are
    excluded. Tolerance: only cells containing a boundary of ``S``, ``U_0``
    or ``U_1`` can be misclassified, so each result is within
    ``4 × (largest cell probability) + 1e-15`` of the exact value
    (``≈ 1.4e-4`` for the Laplace mechanism with ε = 1 and the default grid;
    observed errors are about ten times smaller).

    Parameters
    ----------
    mechanism
        ``"laplace"`` or ``"gaussian"`` family.
    eps_i, delta_i, eps1, delta1
        Budgets of user i and user 1 (any order of ε).
    x_i
        User i's value in ``[0, 1]``.
    points
        Number of grid points (>= 1001).

    Examples
    --------
    >>> from shufflelib.personalized.mechanisms import LocalMechanism
    >>> p1, p0, p1i = numeric_probabilities(LocalMechanism("laplace"), 1.0, 0.0, 3.0)
    >>> round(p1, 4), round(p0, 4), round(p1i, 4)
    (0.1116, 0.4081, 0.2389)
    """
    if mechanism.kind == "rr":
        raise ValueError("numeric_probabilities needs a continuous kind (laplace or gaussian), got 'rr'")
    eps_i = check_positive("eps_i", eps_i)
    eps1 = check_positive("eps1", eps1)
    delta_i = check_in_range("delta_i", delta_i, 0.0, 1.0, closed_high=False)
    delta1 = check_in_range("delta1", delta1, 0.0, 1.0, closed_high=False)
    x_i = check_in_range("x_i", x_i, 0.0, 1.0)
    points = check_int("points", points, minimum=1001)
    s1 = float(mechanism.scale(eps1, delta1))
    s_i = float(mechanism.scale(eps_i, delta_i))
    tiny = 5e-16
    lo = min(float(mechanism.quantile(np.array(tiny), x, s)) for x, s in ((0.0, s1), (1.0, s1), (x_i, s_i)))
    hi = max(float(mechanism.quantile(np.array(1 - tiny), x, s)) for x, s in ((0.0, s1), (1.0, s1), (x_i, s_i)))
    edges = np.linspace(lo, hi, points)
    mid = 0.5 * (edges[1:] + edges[:-1])
    g0 = mechanism.logpdf(mid, 0.0, s1)
    g1 = mechanism.logpdf(mid, 1.0, s1)
    gi = mechanism.logpdf(mid, x_i, s_i)

    def cell_mass(x: float, s: float, delta: float) -> np.ndarray:
        a, b = edges[:-1], edges[1:]
        if delta > 0:
            t_lo = float(mechanism.quantile(np.array(delta / 2), x, s))
            t_hi = float(mechanism.quantile(np.array(1 - delta / 2), x, s))
            a, b = np.maximum(a, t_lo), np.minimum(b, t_hi)
        return _mass(mechanism, a, b, x, s)

    mass_1 = cell_mass(0.0, s1, delta1)
    mass_i = cell_mass(x_i, s_i, delta_i)
    p1 = float(mass_1[g0 < g1].sum())
    p_i0 = float(mass_i[(gi < g0) & (g1 < g0)].sum())
    p_i1 = float(mass_i[(gi < g1) & (g0 < g1)].sum())
    return p1, p_i0, p_i1
