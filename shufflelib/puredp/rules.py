"""Choosing the counting protocol's parameters ``(eps', q, s, lam)`` from ``(n, eps, rho)``.

Every rule returns parameters whose protocol is ``eps``-DP in the shuffle model
for every ``n`` and whose MSE is at most ``(1 + rho) Var DLap(eps)`` for every
dataset (except ``"paper"``, kept as printed to show where it fails).

``"paper"``
    The proof of Theorem 6 as printed: ``Delta = 0.01 rho min(eps, 1)``,
    ``eps' = eps - Delta``, ``q = 0.1 rho Var DLap(eps) / n``, and ``s``, ``lam``
    at the bounds of Condition 7. Private whenever ``q < 1``, but for small
    ``eps`` its MSE exceeds ``(1 + rho) Var DLap(eps)`` and ``q`` can exceed 1.
``"corrected"``
    The same with ``q = 0.1 rho min(1, Var DLap(eps)) / n``, which proves
    Theorem 6 (MSE ``<= (1 + 0.145 rho) Var DLap(eps)``).
``"condition7"``
    Spends the error budget ``rho Var DLap(eps)`` better: a share ``theta`` on
    the noise (``Var DLap(eps') = (1 + theta rho) Var DLap(eps)``), the rest on
    the bias (``n q + n (n-1) q^2 = (1 - theta) rho Var DLap(eps)``, the worst
    case of Lemma 11), with ``theta`` chosen to minimise the messages; ``s`` and
    ``lam`` at the bounds of Condition 7, so Lemma 8 applies verbatim.
``"practical"`` (default)
    The same budget split, but ``(s, lam)`` minimise the expected messages
    subject to the privacy inequality that the proof of Lemma 8 actually uses
    (``ln R <= eps``, see :mod:`shufflelib.puredp.checker`) instead of the
    sufficient Condition 7. The search uses a concave continuous relaxation of
    that inequality (monotone in ``lam``), and the result is certified by
    :func:`~shufflelib.puredp.checker.privacy_certificate`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import digamma, gammaln

from .._docstrings import fill_doc
from .._roots import brent
from .._validation import check_choice, check_in_range, check_int, check_positive
from .checker import privacy_certificate
from .counting import CountingParams
from .dlap import dlap_variance

__all__ = ["RULES", "condition7_minimum", "condition7_violations", "counting_params", "paper_rule_breakdown"]

#: The parameter rules :func:`counting_params` knows, from the paper's to the most economical.
RULES = ("paper", "corrected", "condition7", "practical")

#: Noise shares ``theta`` of the error budget tried by the ``"condition7"`` and ``"practical"`` rules.
THETAS = (0.4, 0.6, 0.75, 0.9)
#: Relative margin below ``eps`` the ``"practical"`` search aims at.
CERT_MARGIN = 1e-6
#: Largest ``q`` the split rules use (when the bias budget would allow more).
Q_MAX = 0.5


def condition7_minimum(eps: float, eps_noise: float, q: float) -> tuple[float, float]:
    """The bounds of Condition 7: the smallest ``s`` (before rounding up) and ``lam / s``.

    (C2) ``s >= 2 ln(1 / ((e^eps - 1) q)) / (eps - eps')`` and (C3)
    ``lam >= e^{eps - eps'} s / (1 - e^{-(eps - eps')/2})``.

    Parameters
    ----------
    eps, eps_noise
        ``eps > eps' > 0``.
    q
        In ``(0, 1)``.

    Returns
    -------
    s_min, lam_per_s
        ``s_min`` may be below 1 (then any ``s >= 1`` satisfies (C2)).

    Examples
    --------
    >>> s_min, lam_per_s = condition7_minimum(1.0, 0.5, 0.05)
    >>> round(s_min, 3), round(lam_per_s * 10, 2)
    (9.818, 74.54)
    """
    eps = check_positive("eps", eps)
    eps_noise = check_in_range("eps_noise", eps_noise, 0.0, eps, closed_low=False, closed_high=False)
    q = check_in_range("q", q, 0.0, 1.0, closed_low=False, closed_high=False)
    gap = eps - eps_noise
    s_min = 2.0 * (-math.log(math.expm1(eps)) - math.log(q)) / gap
    return s_min, math.exp(gap) / -math.expm1(-gap / 2.0)


def condition7_violations(params: CountingParams) -> list[str]:
    """Which parts of Condition 7 the parameters violate (an empty list: it holds).

    Parameters
    ----------
    params
        The protocol's parameters; ``params.eps`` is the target.

    Returns
    -------
    list of str
        One sentence per violated requirement.

    Examples
    --------
    >>> condition7_violations(CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0))
    []
    >>> condition7_violations(CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=2, lam=5.0))[0]
    '(C2) s = 2 < 9.818'
    """
    if not isinstance(params, CountingParams):
        raise ValueError(f"params must be a CountingParams, got {type(params).__name__}")
    problems = []
    if params.q <= 0.0:
        problems.append("q must be > 0")
    if params.s < 1:
        problems.append("s must be >= 1")
    if params.eps_noise >= params.eps:
        problems.append(f"(C1) eps' = {params.eps_noise:g} >= eps = {params.eps:g}")
    if problems:
        return problems
    s_min, lam_per_s = condition7_minimum(params.eps, params.eps_noise, params.q)
    if params.s < s_min:
        problems.append(f"(C2) s = {params.s} < {s_min:.4g}")
    if params.lam < lam_per_s * params.s:
        problems.append(f"(C3) lam = {params.lam:g} < {lam_per_s * params.s:.4g}")
    return problems


# ------------------------------------------------------------------ the rules
def _paper(n: int, eps: float, rho: float, corrected: bool) -> CountingParams:
    if rho > 0.5:
        raise ValueError(f"rho must be in (0, 0.5] for the paper's rules (Theorem 6), got {rho!r}")
    gap = 0.01 * rho * min(eps, 1.0)
    var = dlap_variance(eps)
    q = 0.1 * rho * (min(1.0, var) if corrected else var) / n
    if q >= 1.0:
        raise ValueError(
            f"the paper's rule gives q = 0.1 rho Var DLap(eps) / n = {q:.4g} >= 1 for n={n}, eps={eps}, "
            f"rho={rho}: it is undefined here (use rule='corrected')"
        )
    s_min, lam_per_s = condition7_minimum(eps, eps - gap, q)
    s = max(1, math.ceil(s_min))
    return CountingParams(eps=eps, eps_noise=eps - gap, q=q, s=s, lam=lam_per_s * s)


def _split(n: int, eps: float, rho: float, theta: float) -> tuple[float, float]:
    """``(eps', q)`` spending ``theta`` of the budget on the noise, the rest on the bias."""
    var = dlap_variance(eps)
    eps_noise = 2.0 * math.asinh(math.sinh(eps / 2.0) / math.sqrt(1.0 + theta * rho))
    slack = (1.0 + rho) * var - dlap_variance(eps_noise)
    # Largest q with n q + n (n - 1) q^2 <= slack (stable root), shrunk against rounding.
    q = 2.0 * slack / (n + math.sqrt(n * n + 4.0 * n * (n - 1) * slack)) * (1.0 - 1e-9)
    return eps_noise, min(q, Q_MAX)


def _cont_sup(s: np.ndarray, lam: np.ndarray, gap: float) -> np.ndarray:
    """``max_{0 <= y < e^{-gap}} sum_{t=1}^{s} ln(y + t/lam) + ln(1 - e^{gap} y)`` (concave in ``y``)."""
    growth = math.exp(gap)
    lo, hi = np.zeros(s.shape), np.full(s.shape, 1.0 / growth)

    def slope(y: np.ndarray) -> np.ndarray:
        return lam * (digamma(lam * y + s + 1) - digamma(lam * y + 1)) - growth / (1.0 - growth * y)

    for _ in range(30):  # the bracket shrinks to 1e-9: the error in the maximum is far below 1e-12
        mid = 0.5 * (lo + hi)
        up = slope(mid) > 0.0
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    y = lo
    return gammaln(lam * y + s + 1) - gammaln(lam * y + 1) - s * np.log(lam) + np.log1p(-growth * y)


def _smallest_lam(s: np.ndarray, gap: float, bound: float) -> np.ndarray:
    """For each ``s``, (about) the smallest ``lam`` meeting the continuous relaxation; ``inf`` if none.

    The relaxation is monotone in ``lam``: a coarse geometric grid brackets the
    smallest admissible ``lam``, two finer grids narrow the bracket to about 0.2%.
    """
    sf = s.astype(float)[:, None]
    lo, hi = 0.25 * sf[:, 0], sf[:, 0] * 1e5 / gap
    found = np.ones(s.size, dtype=bool)
    for points in (32, 16, 16):
        lam = np.geomspace(lo, hi, points, axis=1)
        ok = _cont_sup(np.broadcast_to(sf, lam.shape), lam, gap) <= bound
        found &= ok[:, -1]
        first = np.argmax(ok, axis=1)
        rows = np.arange(s.size)
        hi = lam[rows, first]
        lo = np.where(first > 0, lam[rows, np.maximum(first - 1, 0)], hi)
    return np.where(found, hi, np.inf)


def _messages(n: int, q: float, eps_noise: float, s: np.ndarray, lam: np.ndarray) -> np.ndarray:
    return (1.0 - q) * (2 * s + 1) + 2.0 / (n * math.expm1(eps_noise)) + 2.0 * lam / n


def _best_s(n: int, q: float, eps_noise: float, candidates: np.ndarray, gap: float, bound: float):
    lam = _smallest_lam(candidates, gap, bound)
    pick = int(np.argmin(_messages(n, q, eps_noise, candidates, lam)))
    return pick, lam[pick]


def _practical_s_lam(n: int, eps: float, eps_noise: float, q: float) -> tuple[int, float]:
    # Aim at E slightly below eps, so that the exact certificate (rounded up) lands below eps.
    target = eps - CERT_MARGIN * max(1.0, eps)
    bound = math.log(q * math.expm1(target)) - math.log1p(-q)  # ln(q (e^E - 1) / (1 - q))
    gap = target - eps_noise
    s_min, lam_per_s = condition7_minimum(eps, eps_noise, q)
    s_top = max(1, math.ceil(s_min))
    # No lam helps below s_low: the relaxation's supremum only decreases towards its lam -> inf
    # limit  -s gap - s ln(1 + 1/s) - ln(s + 1), which must be <= bound.
    s_all = np.arange(1, s_top + 1, dtype=float)
    feasible = -s_all * gap - s_all * np.log1p(1.0 / s_all) - np.log1p(s_all) <= bound
    s_low = int(s_all[np.argmax(feasible)]) if feasible.any() else s_top
    # Coarse geometric grid of s from s_low to Condition 7's value, then finer grids around the best.
    grid = np.unique(np.round(np.geomspace(s_low, s_top, min(s_top - s_low + 1, 16))).astype(np.int64))
    while True:
        best, lam = _best_s(n, q, eps_noise, grid, gap, bound)
        s = int(grid[best])
        lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, grid.size - 1)]
        if hi - lo <= 2:
            break
        grid = np.unique(np.round(np.linspace(lo, hi, min(hi - lo + 1, 9))).astype(np.int64))
    if not math.isfinite(lam):
        return s_top, lam_per_s * s_top
    return s, float(lam)


def _split_rule(n: int, eps: float, rho: float, certified: bool) -> CountingParams:
    best: tuple[float, CountingParams] | None = None
    for theta in THETAS:
        eps_noise, q = _split(n, eps, rho, theta)
        if certified:
            s, lam = _practical_s_lam(n, eps, eps_noise, q)
        else:
            s_min, lam_per_s = condition7_minimum(eps, eps_noise, q)
            s = max(1, math.ceil(s_min))
            lam = lam_per_s * s
        params = CountingParams(eps=eps, eps_noise=eps_noise, q=q, s=s, lam=lam)
        cost = params.expected_messages(n, 1)
        if best is None or cost < best[0]:
            best = (cost, params)
    assert best is not None
    return best[1]


@fill_doc
def counting_params(n: int, eps: float, rho: float, rule: str = "practical") -> CountingParams:
    """Parameters of the pure ``eps``-DP counting protocol with MSE within ``(1 + rho)`` of ``Var DLap(eps)``.

    Parameters
    ----------
    %(n_users)s %(eps_pure)s
    rho
        Allowed relative excess of the worst-case MSE over ``Var DLap(eps)``,
        > 0 (at most 0.5 for the paper's rules, as in Theorem 6).
    rule
        One of :data:`RULES` (see the module docstring).

    Returns
    -------
    CountingParams

    Raises
    ------
    ValueError
        For invalid inputs, or when the paper's printed rule gives ``q >= 1``.
    RuntimeError
        If the ``"practical"`` parameters fail their privacy certificate (a bug).

    Examples
    --------
    >>> p = counting_params(10**6, 1.0, 0.5)
    >>> p.worst_mse(10**6) <= 1.5 * 1.8413471884155845
    True
    >>> p.expected_messages(10**6) < counting_params(10**6, 1.0, 0.5, rule="condition7").expected_messages(10**6)
    True
    """
    n = check_int("n", n, minimum=1)
    eps = check_positive("eps", eps)
    rho = check_positive("rho", rho)
    check_choice("rule", rule, RULES)
    if rule in ("paper", "corrected"):
        return _paper(n, eps, rho, corrected=rule == "corrected")
    params = _split_rule(n, eps, rho, certified=rule == "practical")
    if rule == "practical" and not privacy_certificate(params).holds:
        raise RuntimeError(f"the practical parameters {params} fail their privacy certificate")
    return params


@fill_doc
def paper_rule_breakdown(n: int, rho: float, *, eps_high: float = 1.0, xtol: float = 1e-12) -> float:
    """The ε below which the printed rule misses its MSE promise ``(1 + rho) Var DLap(eps)``.

    The excess ``worst_mse / Var DLap(eps) − (1 + rho)`` of rule ``"paper"`` is continuous in
    ``eps``; a geometric grid of 200 points from ``eps_high`` down to where ``q`` reaches 1
    brackets its largest sign change, and Brent's method finds the root to ``xtol``. The
    grid points below the root are all checked to be failures (else ``RuntimeError``: the
    failure set would not be an interval and a single threshold would mislead).

    Parameters
    ----------
    %(n_users)s
    rho
        The relative excess allowed, in ``(0, 0.5]`` as in Theorem 6.
    eps_high
        Upper end of the search, > 0 (the promise must hold there).
    xtol
        Absolute tolerance of the root.

    Returns
    -------
    float
        ``eps*``: the promise fails for ``eps < eps*`` (down to where ``q >= 1``) and holds at
        every grid point above.

    Examples
    --------
    >>> round(paper_rule_breakdown(10**4, 0.5), 5)
    0.10655
    """
    n = check_int("n", n, minimum=1)
    rho = check_in_range("rho", rho, 0.0, 0.5, closed_low=False, closed_high=True)
    eps_high = check_positive("eps_high", eps_high)

    def excess(eps: float) -> float:
        return counting_params(n, eps, rho, "paper").worst_mse(n) / dlap_variance(eps) - (1.0 + rho)

    # q = 0.1 rho Var DLap(eps) / n < 1: Var DLap(eps) = 2 e^-eps / (1 - e^-eps)^2 decreases in eps.
    eps_low = brent(lambda e: 0.1 * rho * dlap_variance(e) / n - (1.0 - 1e-9), 1e-12, 50.0)
    grid = np.geomspace(eps_high, eps_low * (1.0 + 1e-6), 200)
    values = np.array([excess(float(e)) for e in grid])
    if values[0] > 0:
        raise ValueError(f"the printed rule already fails at eps_high={eps_high}; choose a larger eps_high")
    failing = np.flatnonzero(values > 0)
    if failing.size == 0:
        return float(eps_low)
    first = int(failing[0])
    if not np.all(values[first:] > 0):
        raise RuntimeError("the printed rule's failures do not form an interval on the grid")
    return float(brent(excess, float(grid[first]), float(grid[first - 1]), xtol=xtol))
