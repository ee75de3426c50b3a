"""Checking the pure privacy of the correlated-noise counting protocol.

Three tools, from the most general to the most concrete:

* :func:`privacy_certificate`: an ``n``-independent upper bound on the privacy
  loss, the computable form of the proof of Lemma 8. By Lemma 5 (adding a common
  independent noise never increases the max-divergence), the loss between two
  neighbouring datasets is at most

  - direction 1, ``d_inf(V(X) || V(X'))`` (``X`` holds the extra 1): exactly
    ``eps'`` when ``s >= 1``;
  - direction 2, ``d_inf(V(X') || V(X))``: ``sup_i ln R(i)`` with ``f`` the
    ``Poi(lam)`` pmf and

    ``R(i) = (q f(i) + (1-q) f(i-s)) / (q f(i) + (1-q) e^{-eps'} f(i-s-1))``.

  Writing ``i = s + j``, ``ln R(i) <= E`` holds iff
  ``h_E(j) = sum_{t=1}^{s} ln((j+t)/lam) + ln(1 - e^{E-eps'} j/lam) - ln(q (e^E-1)/(1-q)) <= 0``
  (or ``e^{E-eps'} j >= lam``), and ``h_E`` is *concave* in ``j``. So the
  largest ``h_E`` over the integers sits next to the maximiser of a concave
  function, which a bisection on its derivative finds; a certified monotone
  root finder (``shufflelib._roots.first_true``) then gives the smallest
  such ``E``. This is exact (no truncation) and costs milliseconds even for
  ``lam = 1e9``.

* :func:`exact_privacy_loss`: the exact largest log-ratio of the analyzer's
  view ``(V+, V-)`` over all neighbouring datasets of ``n`` users, for small
  ``n``. The view's law ``P_{n,k}`` depends only on the number ``k`` of ones and
  has the closed form ``P_{n,k}(a, b) = sum beta_k(kappa) beta_{n-k}(r) H(a - s m - kappa, b - s m)``
  (``m = kappa + r`` active users, ``beta`` binomial weights) with
  ``H(u, v) = p^2 e^{-eps'(u+v)} sum_{z <= min(u,v)} f(z) e^{2 eps' z}``.
  The log-ratio ``ln P_{n,k+1} - ln P_{n,k}`` is constant in ``b`` above the
  diagonal ``a = b`` and constant in ``a`` beyond ``a = b + k + 1``, so the
  supremum over the infinite plane is a maximum over the band
  ``b <= a <= b + k + 1`` (up to a cut-off ``B``) and a tail beyond ``B``, where
  the ratio is within ``-ln(1 - T)`` of its limit
  ``ln((q + (1-q) e^{(2s+1)eps'}) / (q + (1-q) e^{2 s eps'}))`` (``T`` bounds
  the neglected tilted flood mass, ``<= 1e-17``).

* :func:`view_sampler`: scalar scores of the view for the Monte Carlo auditor
  (:mod:`shufflelib.audit`), for any ``n``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy.special import digamma, gammaln

from .._docstrings import fill_doc
from .._roots import first_true
from .._validation import check_array, check_choice, check_int
from ..audit import SampleFn
from .counting import CountingParams, simulate_view

__all__ = [
    "MAX_BAND_CELLS",
    "TAIL_MASS",
    "Certificate",
    "ExactLoss",
    "exact_privacy_loss",
    "lemma10_log_margin",
    "privacy_certificate",
    "reduced_log_ratio",
    "view_logpmf",
    "view_sampler",
]

#: Neglected (tilted) flood mass beyond the band's cut-off in :func:`exact_privacy_loss`.
TAIL_MASS = 1e-17
#: Largest band (cut-off times ``n + 1``) :func:`exact_privacy_loss` evaluates.
MAX_BAND_CELLS = 4_000_000
#: Beyond this ``j``, Stirling's series replaces differences of log-gamma values (which cancel badly).
RISING_SWITCH = 1e5
#: A direction-2 bound above this is reported as infinite.
EPS_CAP = 2000.0
_MACHINE_EPS = np.finfo(float).eps


def _check_params(params: object) -> CountingParams:
    if not isinstance(params, CountingParams):
        raise ValueError(f"params must be a CountingParams, got {type(params).__name__}")
    return params


# ------------------------------------------------------------------ certificate
@dataclass(frozen=True)
class Certificate:
    """An ``n``-independent upper bound on the pure privacy loss of the counting protocol.

    Attributes
    ----------
    epsilon
        ``max(direction1, direction2)``: the protocol is ``epsilon``-DP in the
        shuffle model for every number of users (``inf``: no finite bound).
    direction1
        Bound on ``d_inf(V(X) || V(X'))``: ``eps'`` when ``s >= 1``.
    direction2
        Bound on ``d_inf(V(X') || V(X))``: ``sup_i ln R(i)``, rounded up.
    argmax
        The ``i`` (a number of ``+1`` messages in the reduced view) where
        ``ln R`` is largest.
    target
        The privacy parameter ``params.eps`` the parameters were meant for.

    Examples
    --------
    >>> cert = privacy_certificate(CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=2, lam=5.0))
    >>> round(cert.epsilon, 4), cert.holds
    (1.2753, False)
    """

    epsilon: float
    direction1: float
    direction2: float
    argmax: int
    target: float

    @property
    def holds(self) -> bool:
        """Whether the certificate proves ``target``-DP."""
        return self.epsilon <= self.target


def _log_odds(q: float) -> float:
    return math.log(q) - math.log1p(-q)


def _log_rising(j: np.ndarray, s: int, log_lam: float) -> np.ndarray:
    """``sum_{t=1}^{s} ln((j + t) / lam) = lnGamma(j+s+1) - lnGamma(j+1) - s ln lam`` for ``j >= 0``.

    Far out (``j > RISING_SWITCH``) the two log-gamma values cancel badly, so the
    difference is taken inside Stirling's series instead:
    ``s ln(z1 / lam) + (z0 - 1/2) log1p(s / z0) - s + [1/(12 z) - 1/(360 z^3)]_{z0}^{z1}``
    with ``z0 = j + 1``, ``z1 = j + s + 1`` (truncation error below ``1e-27``).
    """
    j = np.asarray(j, dtype=float)
    near = np.minimum(j, RISING_SWITCH)
    direct = gammaln(near + s + 1) - gammaln(near + 1) - s * log_lam
    z0 = np.maximum(j, RISING_SWITCH) + 1.0
    z1 = z0 + s
    series = (1.0 / (12.0 * z1) - 1.0 / (360.0 * z1**3)) - (1.0 / (12.0 * z0) - 1.0 / (360.0 * z0**3))
    stirling = s * (np.log(z1) - log_lam) + (z0 - 0.5) * np.log1p(s / z0) - s + series
    return np.where(j <= RISING_SWITCH, direct, stirling)


def _direction2(eps_noise: float, q: float, s: int, lam: float) -> tuple[float, int]:
    """``sup_i ln R(i)`` (rounded up) and its argmax; see the module docstring."""
    if q == 0.0:
        return math.inf, s  # R(s) has zero denominator: the GKMP20 support problem
    if lam == 0.0:
        return (-math.log(q), 0) if s == 0 else (math.inf, s)
    log_lam, log_odds = math.log(lam), _log_odds(q)

    def rising(j: float) -> float:  # sum_{t=1}^{s} ln((j + t) / lam)
        return float(_log_rising(np.float64(j), s, log_lam))

    def h(E: float, j: int) -> float:
        c = math.exp(E - eps_noise) / lam
        if c * j >= 1.0:
            return -math.inf
        return rising(j) + math.log1p(-c * j) - log_odds - math.log(math.expm1(E))

    def best_j(E: float) -> int:
        c = math.exp(E - eps_noise) / lam
        j_top = math.ceil(1.0 / c) - 1  # largest integer with c j < 1

        def slope(y: float) -> float:
            return float(digamma(y + s + 1) - digamma(y + 1)) - c / (1.0 - c * y)

        lo, hi = 0.0, float(j_top) + 1.0
        if slope(0.0) > 0.0:
            # h_E is concave: bisection on the sign of its (decreasing) derivative.
            hi = min(hi, 1.0 / c)
            for _ in range(200):
                mid = 0.5 * (lo + hi)
                if mid in (lo, hi):
                    break
                if slope(mid) > 0.0:
                    lo = mid
                else:
                    hi = mid
        j = min(max(math.floor(lo), 0), j_top)
        # Concave on the integers: walk to the discrete local (= global) maximum.
        while j < j_top and h(E, j + 1) > h(E, j):
            j += 1
        while j > 0 and h(E, j - 1) > h(E, j):
            j -= 1
        return j

    def score(E: float) -> float:
        return h(E, best_j(E))

    def ok(E: float) -> bool:
        return score(E) <= 0.0

    hi = max(1.0, 2.0 * eps_noise)
    while not ok(hi):
        hi *= 2.0
        if hi > EPS_CAP:
            return math.inf, s
    lo = 1e-9 * min(1.0, eps_noise)
    E = first_true(ok, score, lo, hi)
    j = best_j(E)
    # Rounding: the floating error of h (its terms are at most `scale` in size) bounds the
    # error in E, because -dh/dE >= 1.
    if j <= RISING_SWITCH:
        scale = abs(float(gammaln(j + s + 1))) + abs(float(gammaln(j + 1))) + s * abs(log_lam)
    else:
        scale = s * (abs(math.log(j + s + 1) - log_lam) + 2.0)
    scale += abs(log_odds) + abs(math.log(math.expm1(E))) + 1.0
    return E + 16.0 * _MACHINE_EPS * scale, j + s


def privacy_certificate(params: CountingParams) -> Certificate:
    """The ``n``-independent privacy certificate of the proof of Lemma 8, computed exactly.

    Tolerance: ``direction2`` is rounded up by the root finder's tolerance
    (relative ``1e-9``) and by a bound on the floating-point error of the
    log-gamma values it uses (about ``1e-13`` for ``lam`` in the hundreds,
    ``1e-6`` for ``lam = 1e9``), so ``epsilon`` is an upper bound.

    Parameters
    ----------
    params
        The protocol's parameters (``params.eps`` is the target).

    Returns
    -------
    Certificate

    Examples
    --------
    >>> cert = privacy_certificate(CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0))
    >>> round(cert.direction2, 4), cert.argmax, cert.holds
    (0.5683, 73, True)
    """
    params = _check_params(params)
    ep, q, s = params.eps_noise, params.q, params.s
    if s >= 1:
        direction1 = ep
    else:
        # Row j = 0 only: ratio q + (1 - q) e^{eps'} for i >= 1.
        direction1 = math.log1p((1.0 - q) * math.expm1(ep))
    direction2, argmax = _direction2(ep, q, s, params.lam)
    return Certificate(
        epsilon=float(max(direction1, direction2)),
        direction1=float(direction1),
        direction2=float(direction2),
        argmax=int(argmax),
        target=params.eps,
    )


@fill_doc
def reduced_log_ratio(params: CountingParams, i: object) -> np.ndarray:
    """``ln R(i)`` of the direction-2 reduction, evaluated directly at integers ``i >= 0``.

    ``0`` for ``i < s`` (both reduced views put the same mass ``q f(i)`` there);
    ``inf`` where the denominator vanishes (``q = 0``). Used for plots and to test
    :func:`privacy_certificate` by brute force.

    Parameters
    ----------
    params
        The protocol's parameters (``lam > 0``).
    %(outcomes)s

    Returns
    -------
    numpy.ndarray
        ``ln R(i)`` at each ``i``.

    Examples
    --------
    >>> params = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0)
    >>> float(reduced_log_ratio(params, 73).round(4))
    0.5683
    """
    params = _check_params(params)
    idx = check_array("i", i, low=0, integral=True)
    if params.lam <= 0.0:
        raise ValueError(f"params.lam must be > 0 for reduced_log_ratio, got {params.lam!r}")
    s, ep, lam, q = params.s, params.eps_noise, params.lam, params.q
    j = idx - s
    jj = np.maximum(j, 0.0)
    w = math.exp(-ep) * jj / lam  # e^{-eps'} f(j - 1) / f(j)
    if q == 0.0:
        with np.errstate(divide="ignore"):  # 1 / w at j = 0 is the intended +inf
            inside = -np.log(w)
        return np.where(j >= 0, inside, -np.inf)
    log_u = _log_odds(q) - _log_rising(jj, s, math.log(lam))  # log of q f(j+s) / ((1-q) f(j))
    # ln R = log1p((1 - w) / (u + w)), computed without overflowing u.
    small = np.exp(-np.abs(log_u))
    ratio = np.where(log_u > 0, (1.0 - w) * small / (1.0 + w * small), (1.0 - w) / (small + w))
    return np.where(j >= 0, np.log1p(ratio), 0.0)


@fill_doc
def lemma10_log_margin(params: CountingParams, i: object) -> np.ndarray:
    """Log of the two sides' ratio in Lemma 10; Lemma 10 holds at ``i`` iff the value is ``>= 0``.

    ``ln[(e^eps - 1) q f(i+s) + e^{eps-eps'} f(i-1)] - ln f(i)`` with ``f`` the
    ``Poi(lam)`` pmf (``lam > 0``, ``q > 0``).

    Parameters
    ----------
    %(params)s %(outcomes)s

    Returns
    -------
    numpy.ndarray
        The log margin at each ``i``.

    Examples
    --------
    >>> params = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0)
    >>> bool((lemma10_log_margin(params, range(200)) >= 0).all())
    True
    """
    params = _check_params(params)
    idx = check_array("i", i, low=0, integral=True)
    if params.lam <= 0.0 or params.q <= 0.0:
        raise ValueError("lemma10_log_margin needs params.lam > 0 and params.q > 0")
    s, lam = params.s, params.lam
    log_lam = math.log(lam)
    # Ratios to f(i): f(i+s)/f(i) = lam^s i!/(i+s)!, f(i-1)/f(i) = i/lam.
    shift = math.log(math.expm1(params.eps) * params.q) - _log_rising(idx, s, log_lam)
    with np.errstate(divide="ignore"):  # log(0) at i = 0 is the intended -inf (f(-1) = 0)
        back = (params.eps - params.eps_noise) + np.log(idx) - log_lam
    return np.logaddexp(shift, back)


# ------------------------------------------------------------------ exact view
@dataclass(frozen=True)
class ExactLoss:
    """The exact pure privacy loss of the analyzer's view for ``n`` users.

    Attributes
    ----------
    epsilon
        ``max_k sup_{a,b} |ln P_{n,k+1}(a,b) - ln P_{n,k}(a,b)|`` (``inf`` if the
        supports differ), within ``tail_slack`` plus floating-point error
        (about ``1e-12``) above the true value.
    per_k
        The same maximum for each neighbouring pair ``(k, k+1)``, ``k = 0..n-1``.
    worst_k
        The pair ``(worst_k, worst_k + 1)`` attaining ``epsilon``.
    worst_cell
        The view ``(a, b)`` = (number of ``+1``, number of ``-1``) attaining it,
        or ``None`` if the supremum is the tail limit.
    direction
        1 if ``P_{n,k+1} > P_{n,k}`` at the worst cell (the dataset with the extra
        1 is more likely), 2 otherwise.
    tail_limit
        The limit of the log-ratio far along the diagonal (the same for every ``k``).
    tail_slack
        ``-ln(1 - T)``, added to the tail limit to bound the truncated part.

    Examples
    --------
    >>> loss = exact_privacy_loss(3, CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=2, lam=5.0))
    >>> loss.per_k.round(3).tolist(), loss.epsilon > 1.0
    ([1.126, 1.019, 1.043], True)
    """

    epsilon: float
    per_k: np.ndarray
    worst_k: int
    worst_cell: tuple[int, int] | None
    direction: int
    tail_limit: float
    tail_slack: float


def _check_flood(flood_pmf: object) -> np.ndarray | None:
    if flood_pmf is None:
        return None
    pmf = check_array("flood_pmf", flood_pmf, ndim=1, low=0.0)
    if pmf.size == 0 or abs(pmf.sum() - 1.0) > 1e-9:
        raise ValueError(f"flood_pmf must be a non-empty probability vector summing to 1, got sum {pmf.sum()!r}")
    return pmf


def _poisson_tail_cutoff(mu: float) -> tuple[int, float]:
    """Smallest ``m`` (found by a Chernoff bound) with ``P[Poi(mu) > m] <= TAIL_MASS``, and that bound."""

    def log_bound(m: float) -> float:  # log P[Poi(mu) >= m] <= -mu + m - m ln(m / mu), m > mu
        return -mu + m - m * math.log(m / mu)

    target = math.log(TAIL_MASS)
    lo = mu + 1.0
    hi = mu + 12.0 * math.sqrt(mu) + 60.0
    while log_bound(hi) > target:
        hi *= 2.0
    m = first_true(lambda x: log_bound(x) <= target, lambda x: log_bound(x) - target, lo, hi)
    cutoff = math.ceil(m)  # P[X > cutoff - 1] = P[X >= cutoff] <= exp(log_bound(cutoff))
    return cutoff, math.exp(log_bound(cutoff))


def _log_tilted_cdf(params: CountingParams, length: int, flood: np.ndarray | None) -> np.ndarray:
    """``c[m] = log sum_{z <= m} f(z) e^{2 eps' z}`` for ``m = 0..length-1``."""
    z = np.arange(length, dtype=float)
    if flood is None:
        if params.lam == 0.0:
            return np.zeros(length)
        log_terms = z * (math.log(params.lam) + 2.0 * params.eps_noise) - params.lam - gammaln(z + 1)
    else:
        with np.errstate(divide="ignore"):  # zero flood probabilities are the intended -inf
            log_f = np.log(flood)
        log_terms = np.full(length, -np.inf)
        m = min(length, flood.size)
        log_terms[:m] = log_f[:m] + 2.0 * params.eps_noise * z[:m]
    return np.logaddexp.accumulate(log_terms)


def _log_binom_weights(m: int, keep: float) -> np.ndarray:
    """``log Bin(m, keep)`` pmf on ``0..m`` (exact -inf where a weight is 0)."""
    j = np.arange(m + 1, dtype=float)
    log_comb = gammaln(m + 1) - gammaln(j + 1) - gammaln(m - j + 1)
    if keep == 1.0:
        return np.where(j == m, 0.0, -np.inf)
    return log_comb + j * math.log(keep) + (m - j) * math.log1p(-keep)


def _kept_terms(n: int, k: int, keep: float) -> Iterator[tuple[float, int, int]]:
    """The law of the kept inputs: ``(log weight, kept ones kappa, kept users m)`` of nonzero weight.

    ``kappa ~ Bin(k, keep)`` of the ``k`` ones and ``m - kappa ~ Bin(n - k, keep)`` of the zeros.
    """
    w_ones, w_zeros = _log_binom_weights(k, keep), _log_binom_weights(n - k, keep)
    for kappa in range(k + 1):
        for r in range(n - k + 1):
            w = w_ones[kappa] + w_zeros[r]
            if w != -np.inf:
                yield w, kappa, kappa + r


def _log_h_grid(params: CountingParams, v: np.ndarray, e: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``log H(v + e, v)`` on the grid ``v`` (rows) x ``e`` (columns); -inf outside ``u, v >= 0``."""
    vv, ee = np.meshgrid(v, e, indexing="ij")
    uu = vv + ee
    valid = (vv >= 0) & (uu >= 0)
    low = np.where(valid, np.minimum(uu, vv), 0).astype(np.int64)
    log_p = math.log(params.noise_p)
    out = 2.0 * log_p - params.eps_noise * (uu + vv) + c[np.minimum(low, c.size - 1)]
    return np.where(valid, out, -np.inf)


@fill_doc
def view_logpmf(
    n: int, k: int, params: CountingParams, a: object, b: object, *, flood_pmf: object = None
) -> np.ndarray:
    """Exact ``log P[V+ = a, V- = b]`` with ``n`` users of whom ``k`` hold 1.

    Parameters
    ----------
    %(n_users)s %(k_holding)s %(params)s
    a, b
        Integer arrays (broadcast together) of numbers of ``+1`` and ``-1`` messages.
    flood_pmf
        Optional pmf of the *total* flood on ``0, 1, ...`` replacing ``Poi(lam)``
        (e.g. ``Bin(n, pi)`` for per-user Bernoulli flooding).

    Returns
    -------
    numpy.ndarray
        Log-probabilities (``-inf`` outside the support), shape of ``a + b``.

    Examples
    --------
    >>> import numpy as np
    >>> params = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=2, lam=3.0)
    >>> a, b = np.meshgrid(np.arange(400), np.arange(400), indexing="ij")
    >>> round(float(np.exp(view_logpmf(3, 1, params, a, b)).sum()), 9)
    1.0
    """
    params = _check_params(params)
    n = check_int("n", n, minimum=1)
    k = check_int("k", k, minimum=0, maximum=n)
    aa = check_array("a", a, integral=True)
    bb = check_array("b", b, integral=True)
    aa, bb = np.broadcast_arrays(aa, bb)
    flood = _check_flood(flood_pmf)
    s = params.s
    top = int(max(aa.max(initial=0), bb.max(initial=0))) + 1
    c = _log_tilted_cdf(params, top, flood)
    log_p = math.log(params.noise_p)
    out = np.full(aa.shape, -np.inf)
    for w, kappa, m in _kept_terms(n, k, 1.0 - params.q):
        u, v = aa - s * m - kappa, bb - s * m
        valid = (u >= 0) & (v >= 0)
        low = np.where(valid, np.minimum(u, v), 0).astype(np.int64)
        term = w + 2.0 * log_p - params.eps_noise * (u + v) + c[low]
        out = np.logaddexp(out, np.where(valid, term, -np.inf))
    return out


@fill_doc
def exact_privacy_loss(n: int, params: CountingParams, *, flood_pmf: object = None) -> ExactLoss:
    """The exact pure privacy loss of the shuffled view for ``n`` users (small ``n``).

    Evaluates every ``P_{n,k}``, ``k = 0..n``, on the band
    ``b <= a <= b + n``, ``0 <= b < B`` with ``B = m_0 + (s + 1) n + 2`` and
    ``m_0`` the point beyond which the tilted flood has mass ``T <= 1e-17``, and
    bounds the rest of the plane by the tail limit plus ``-ln(1 - T)`` (see
    the module docstring). Cost ``O(n^3 B)``; about a second for ``n = 10``
    and ``lam`` in the thousands.

    Parameters
    ----------
    %(n_users)s %(params)s
    flood_pmf
        Optional pmf of the total flood replacing ``Poi(lam)``.

    Returns
    -------
    ExactLoss

    Raises
    ------
    ValueError
        If the band has more than :data:`MAX_BAND_CELLS` cells (use
        :func:`privacy_certificate` instead).

    Examples
    --------
    >>> loss = exact_privacy_loss(2, CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0))
    >>> round(loss.epsilon, 4), loss.worst_k, loss.worst_cell, loss.direction
    (0.5605, 0, (83, 83), 2)
    """
    params = _check_params(params)
    n = check_int("n", n, minimum=1)
    flood = _check_flood(flood_pmf)
    ep, q, s = params.eps_noise, params.q, params.s
    if flood is None and params.lam > 0.0:
        cutoff, tail = _poisson_tail_cutoff(params.lam * math.exp(2.0 * ep))
    else:
        cutoff, tail = (flood.size if flood is not None else 1), 0.0
    band = cutoff + (s + 1) * n + 2
    if band * (n + 1) > MAX_BAND_CELLS:
        raise ValueError(
            f"the band has {band * (n + 1)} cells, more than MAX_BAND_CELLS={MAX_BAND_CELLS}: "
            "use privacy_certificate (valid for every n) or fewer users"
        )
    # log H(v + e, v) for v = -s n .. band - 1 (rows) and e = -n .. n (columns).
    c = _log_tilted_cdf(params, band + n + 1, flood)
    log_h = _log_h_grid(params, np.arange(-s * n, band), np.arange(-n, n + 1), c)
    keep = 1.0 - q
    log_views = []
    for k in range(n + 1):
        acc = np.full((band, n + 1), -np.inf)  # rows b = 0..band-1, columns d = a - b = 0..n
        for w, kappa, m in _kept_terms(n, k, keep):
            # P term at (a, b) = (b + d, b) is H(b + d - s m - kappa, b - s m):
            # row v = b - s m (offset s n), column e = d - kappa (offset n).
            rows = slice(s * (n - m), s * (n - m) + band)
            cols = slice(n - kappa, 2 * n - kappa + 1)
            acc = np.logaddexp(acc, w + log_h[rows, cols])
        log_views.append(acc)

    limit = math.log((q + keep * math.exp((2 * s + 1) * ep)) / (q + keep * math.exp(2 * s * ep)))
    slack = -math.log1p(-tail)
    per_k = np.empty(n)
    best = (-math.inf, 0, None, 1)
    for k in range(n):
        lo, hi = log_views[k][:, : k + 2], log_views[k + 1][:, : k + 2]
        both = np.isfinite(lo) & np.isfinite(hi)
        one = np.isfinite(lo) ^ np.isfinite(hi)
        if one.any():
            b_idx, d_idx = np.argwhere(one)[0]
            direction = 1 if np.isfinite(hi[b_idx, d_idx]) else 2
            per_k[k] = math.inf
            if best[0] < math.inf:
                best = (math.inf, k, (int(b_idx + d_idx), int(b_idx)), direction)
            continue
        diff = np.where(both, hi - lo, 0.0)
        flat = int(np.argmax(np.abs(diff)))
        b_idx, d_idx = divmod(flat, k + 2)
        value = float(abs(diff[b_idx, d_idx]))
        per_k[k] = max(value, abs(limit) + slack)
        if per_k[k] > best[0]:
            if value >= abs(limit) + slack:
                best = (per_k[k], k, (int(b_idx + d_idx), int(b_idx)), 1 if diff[b_idx, d_idx] > 0 else 2)
            else:
                best = (per_k[k], k, None, 1 if limit > 0 else 2)
    return ExactLoss(
        epsilon=float(best[0]),
        per_k=per_k,
        worst_k=best[1],
        worst_cell=best[2],
        direction=best[3],
        tail_limit=limit,
        tail_slack=slack,
    )


# ------------------------------------------------------------------ Monte Carlo
#: Scores :func:`view_sampler` can compute from a view ``(V+, V-)``.
SCORES = ("estimate", "plus", "minus")


@fill_doc
def view_sampler(n: int, k: int, params: CountingParams, score: str = "estimate") -> SampleFn:
    """Scores of simulated views for :func:`shufflelib.audit.audit_protocol`.

    ``D`` (``dataset_index = 0``): ``k`` of the ``n`` users hold 1; ``D'``
    (``dataset_index = 1``): ``k + 1`` do. Views are drawn through the
    sufficient statistics of :func:`~shufflelib.puredp.counting.simulate_view`,
    in time independent of ``n``.

    Parameters
    ----------
    %(n_users)s
    k
        Number of users holding 1 in ``D``, in ``[0, n - 1]``.
    %(params)s
    score
        ``"estimate"`` (``V+ - V-``, the analyzer's output), ``"plus"`` (``V+``)
        or ``"minus"`` (``V-``).

    Returns
    -------
    SampleFn

    Examples
    --------
    >>> import numpy as np
    >>> params = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0)
    >>> sample = view_sampler(1000, 0, params)
    >>> sample(1, 3, np.random.default_rng(0)).shape
    (3,)
    """
    params = _check_params(params)
    n = check_int("n", n, minimum=1)
    k = check_int("k", k, minimum=0, maximum=n - 1)
    check_choice("score", score, SCORES)

    def sample_fn(dataset_index: int, size: int, rng: np.random.Generator) -> np.ndarray:
        dataset_index = check_int("dataset_index", dataset_index, minimum=0, maximum=1)
        plus, minus = simulate_view(n, k + dataset_index, params, size, rng)
        if score == "estimate":
            return plus - minus
        return plus if score == "plus" else minus

    return sample_fn
