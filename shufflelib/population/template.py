r"""The common template of Theorems 1–4 of Wang et al. (2023): a lower tail bound on the clones.

Lemma 2 (clones with a random population). User 1 runs an ``eps0``-LDP
randomizer, ``N − 1`` others too. Each other report is, with probability
``q = e^{-eps0}``, a *clone* of one of user 1's two possible reports. The
shuffled output is a post-processing of the pair

.. math::

   P = (A + B,\; C - A + 1 - B), \qquad Q = (A + 1 - B,\; C - A + B),

with ``C ~ Bin(N − 1, q)`` (``N`` random), ``A ~ Bin(C, 1/2)`` and
``B ~ Bern(e^{eps0}/(e^{eps0}+1))``. (The output reveals ``N``, but the
likelihood ratio of the pair depends only on ``(A + B, C − A + 1 − B)``, so
seeing ``N`` adds nothing.)

The template. If ``Pr[C < Omega] <= delta/2`` and ``Omega > 2 L`` with
``L = log(4/delta)``, then ``P`` and ``Q`` are ``(eps_c, delta)``-indistinguishable with

.. math::

   \varepsilon_c = \log\Big(1 + \tanh(\varepsilon_0/2)\,
   \frac{2\sqrt{\Omega L/2} + 1}{\Omega/2 - \sqrt{\Omega L/2}}\Big).

(Hoeffding on ``A`` spends the other ``delta/2``.) Each theorem is one way to
get ``Omega``; every function here is vectorized over ``eps0`` and returns
``-inf`` where its own preconditions fail.

Examples
--------
>>> from shufflelib.population.template import master_epsilon, omega_binomial
>>> omega = omega_binomial(1.0, 1e-5, n_prime=48_842, alpha=0.2)
>>> round(float(master_epsilon(omega, 1.0, 1e-5)), 5)
0.08725
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_choice
from ..bounds.clones import fmt_epsilon

__all__ = [
    "log_over",
    "master_epsilon",
    "omega_binomial",
    "omega_poisson",
    "omega_mean_variance",
    "omega_subgaussian",
    "omega_subexponential",
    "subgaussian_floor",
    "subexponential_floor",
    "omega_clone_binomial",
    "fmt_simplified",
    "POISSON_FORMS",
    "CHEBYSHEV_FORMS",
    "BUDGETS",
]

#: Forms of Theorem 2 / 4(b), either the Chernoff ``sqrt(2 (lam + k) q log(2/δ))`` or the paper's
#: 4(b) ``sqrt((4 lam + 2k) q log(2/δ))``.
POISSON_FORMS = ("chernoff", "paper")
#: Tail inequality for Theorems 3 / 4(e), either the paper's Chebyshev or the (one-sided) Cantelli inequality.
CHEBYSHEV_FORMS = ("chebyshev", "cantelli")
#: δ accounting of Theorem 4(c)/(d), either the paper's (total 5δ/4) or corrected (total δ).
BUDGETS = ("paper", "corrected")


def log_over(c: float, delta: float) -> float:
    """``log(c/delta)``, as ``log(c) − log(delta)`` where ``c/delta`` overflows (δ below about
    ``c · 5.6e-309``; elsewhere the quotient, so every number above is unchanged).

    Examples
    --------
    >>> log_over(4.0, 1e-6) == math.log(4.0 / 1e-6), round(log_over(4.0, 5e-324), 3)
    (True, 745.826)
    """
    ratio = c / delta
    return math.log(ratio) if math.isfinite(ratio) else math.log(c) - math.log(delta)


def _q(eps0: np.ndarray) -> np.ndarray:
    return np.exp(-np.asarray(eps0, dtype=float))


def master_epsilon(omega: object, eps0: object, delta: float) -> np.ndarray:
    """The template's ``eps_c`` from a ``(1 − delta/2)`` lower bound ``omega`` on the clones.

    Returns ``inf`` where ``omega <= 2 log(4/delta)`` (the template does not
    apply). Not capped at ``eps0``.

    Parameters
    ----------
    omega
        Lower bound(s) on the number of clones.
    eps0
        Local privacy parameter(s), broadcast against ``omega``.
    delta
        The central δ (the template spends δ/2 on ``omega`` and δ/2 on Hoeffding).

    Examples
    --------
    >>> import math
    >>> float(master_epsilon(10.0, 1.0, 1e-6)) == math.inf  # 10 < 2 log(4e6)
    True
    """
    omega, eps0 = np.broadcast_arrays(np.asarray(omega, dtype=float), np.asarray(eps0, dtype=float))
    big_l = log_over(4.0, delta)
    out = np.full(omega.shape, np.inf)
    ok = omega > 2.0 * big_l
    half = omega[ok] / 2.0
    root = np.sqrt(half * big_l)
    out[ok] = np.log1p(np.tanh(eps0[ok] / 2.0) * (2.0 * root + 1.0) / (half - root))
    return out


def _chernoff(mean: np.ndarray, log_term: float, factor: float) -> np.ndarray:
    """``mean − sqrt(factor · mean · log_term)`` (``-inf`` for a negative mean)."""
    mean = np.asarray(mean, dtype=float)
    out = np.full(mean.shape, -np.inf)
    ok = mean >= 0
    out[ok] = mean[ok] - np.sqrt(factor * mean[ok] * log_term)
    return out


def omega_binomial(eps0: object, delta: float, n_prime: int, alpha: float, k: int = 0) -> np.ndarray:
    """Theorem 1 (``k = 0``) and Theorem 4(a): ``N − 1 ~ Bin(n' − 1, alpha)`` plus ``k`` dummies.

    ``Omega = mu − sqrt(3 mu log(4/delta))`` with ``mu = (n' alpha + k) e^{-eps0}``
    (multiplicative Chernoff: failure ``(delta/4)^{3/2} <= delta/2``).

    Examples
    --------
    >>> round(float(omega_binomial(1.0, 1e-5, 48_842, 0.2)), 3)
    3220.681
    """
    mean = (n_prime * alpha + k) * _q(eps0)
    return _chernoff(mean, log_over(4.0, delta), 3.0)


def omega_poisson(eps0: object, delta: float, lam: float, k: int = 0, form: str = "chernoff") -> np.ndarray:
    """Theorem 2 (``k = 0``) and Theorem 4(b): ``N − 1 ~ Poisson(lam)`` plus ``k`` dummies.

    ``form="chernoff"``: ``(lam + k) q − sqrt(2 (lam + k) q log(2/delta))``, the
    Chernoff bound for a sum of independent Poisson and Bernoulli variables;
    at ``k = 0`` it is Theorem 2. ``form="paper"``: Theorem 4(b) as printed,
    ``(lam + k) q − sqrt((4 lam + 2 k) q log(2/delta))``: valid but looser, and
    at ``k = 0`` it does not reduce to Theorem 2.

    Examples
    --------
    >>> a = float(omega_poisson(1.0, 1e-5, 5000, k=0, form="paper"))
    >>> b = float(omega_poisson(1.0, 1e-5, 5000, k=0, form="chernoff"))
    >>> a < b
    True
    """
    check_choice("form", form, POISSON_FORMS)
    q = _q(eps0)
    log_term = log_over(2.0, delta)
    mean = (lam + k) * q
    if form == "paper":
        return mean - np.sqrt((4.0 * lam + 2.0 * k) * q * log_term)
    return _chernoff(mean, log_term, 2.0)


def omega_mean_variance(
    eps0: object, delta: float, mean: float, variance: float, k: int = 0, form: str = "chebyshev"
) -> np.ndarray:
    """Theorem 3 (``k = 0``) and Theorem 4(e): only ``E[N − 1] = mean`` and ``Var[N − 1] = variance`` are known.

    ``C`` has mean ``(mean + k) q`` and variance
    ``((mean + k)(e^{eps0} − 1) + variance) q^2`` (law of total variance);
    Chebyshev at ``delta/2`` gives ``Omega = (mean + k) q − sqrt(Var C / (delta/2))``.
    ``form="cantelli"`` uses the one-sided ``sqrt(Var C (2/delta − 1))`` instead.

    Examples
    --------
    >>> round(float(omega_mean_variance(0.5, 1e-3, 5000, 0.0)), 2)
    1487.82
    """
    check_choice("form", form, CHEBYSHEV_FORMS)
    eps0 = np.asarray(eps0, dtype=float)
    q = _q(eps0)
    var_c = ((mean + k) * np.expm1(eps0) + variance) * q**2
    factor = 2.0 / delta if form == "chebyshev" else 2.0 / delta - 1.0
    # two roots: no overflow for tiny delta (and where 2/delta itself overflows, its root)
    root = math.sqrt(factor) if math.isfinite(factor) else math.sqrt(2.0) / math.sqrt(delta)
    return (mean + k) * q - np.sqrt(var_c) * root


def _two_stage(eps0: object, low: float, log_c: float) -> np.ndarray:
    """``Omega`` from ``N* − 1 >= low`` (already charged) and Chernoff on ``Bin(N* − 1, q)`` at ``exp(−log_c)``."""
    q = _q(eps0)
    if not low > 0:
        return np.full(q.shape, -np.inf)
    return _chernoff(low * q, log_c, 2.0)


def subgaussian_floor(delta: float, mean: float, tau: float, k: int = 0) -> float:
    """Theorem 4(c)'s first stage: ``nu = mean + k − tau sqrt(log(4/delta))``, ``Pr[N − 1 + k < nu] <= delta/4``.

    Examples
    --------
    >>> round(subgaussian_floor(1e-5, 5000, 50.0), 2)
    4820.42
    """
    return mean + k - tau * math.sqrt(log_over(4.0, delta))


def subexponential_floor(delta: float, mean: float, a: float, b: float, k: int = 0) -> float:
    """Theorem 4(d)'s first stage: ``nu = mean + k − log(4 a/delta)/b``, ``Pr[N − 1 + k < nu] <= delta/4``.

    Examples
    --------
    >>> round(subexponential_floor(1e-5, 5000, 2.0, 0.05), 2)
    4728.15
    """
    return mean + k - log_over(4.0 * a, delta) / b


def omega_subgaussian(
    eps0: object, delta: float, mean: float, tau: float, k: int = 0, budget: str = "paper"
) -> np.ndarray:
    """Theorem 4(c): ``Pr[N − 1 <= mean − t] <= exp(−t^2/tau^2)``, plus ``k`` dummies.

    Two stages: ``N − 1 >= nu = mean + k − tau sqrt(log(4/delta))`` except with
    probability ``delta/4``, then Chernoff on ``Bin(nu, q)``. ``budget="paper"``
    charges the second stage ``delta/2`` (``log(2/delta)``), so with Hoeffding
    the proof spends ``5 delta/4``; ``budget="corrected"`` charges it
    ``delta/4`` (``log(4/delta)``) and the total is ``delta``.

    Examples
    --------
    >>> round(float(omega_subgaussian(1.0, 1e-5, 5000, 50.0)), 2)
    1565.27
    """
    check_choice("budget", budget, BUDGETS)
    low = subgaussian_floor(delta, mean, tau, k)
    log_c = log_over(2.0, delta) if budget == "paper" else log_over(4.0, delta)
    return _two_stage(eps0, low, log_c)


def omega_subexponential(
    eps0: object, delta: float, mean: float, a: float, b: float, k: int = 0, budget: str = "paper"
) -> np.ndarray:
    """Theorem 4(d): ``Pr[N − 1 <= mean − t] <= a exp(−b t)``, plus ``k`` dummies.

    As :func:`omega_subgaussian` with ``nu = mean + k − log(4 a/delta)/b``.

    Examples
    --------
    >>> round(float(omega_subexponential(1.0, 1e-5, 5000, 2.0, 0.05)), 2)
    1533.33
    """
    check_choice("budget", budget, BUDGETS)
    low = subexponential_floor(delta, mean, a, b, k)
    log_c = log_over(2.0, delta) if budget == "paper" else log_over(4.0, delta)
    return _two_stage(eps0, low, log_c)


def omega_clone_binomial(eps0: object, delta: float, trials: int) -> np.ndarray:
    """``Omega`` for ``C >= Bin(trials, q)`` stochastically: ``trials q − sqrt(3 trials q log(4/delta))``.

    Used for adaptive dummies: padding to ``k`` messages guarantees ``k − 1``
    other reports.

    Examples
    --------
    >>> float(omega_clone_binomial(1.0, 1e-5, 0))
    0.0
    """
    return _chernoff(trials * _q(eps0), log_over(4.0, delta), 3.0)


def fmt_simplified(eps0: object, delta: float, n_eff: float) -> np.ndarray:
    """Theorem 1's "simplified" form: the FMT closed form with ``n -> n_eff = alpha n'``.

    ``log(1 + tanh(eps0/2)(8 sqrt(e^{eps0} log(4/delta)/n_eff) + 8 e^{eps0}/n_eff))``.
    Feldman et al. prove it for ``eps0 <= log(n/(16 log(2/delta)))``; the paper
    states a weaker condition.

    Examples
    --------
    >>> round(float(fmt_simplified(1.0, 1e-5, 0.2 * 48_842)), 4)
    0.2009
    """
    return fmt_epsilon(eps0, delta, n_eff)
