r"""Theorem 5 (a union bound over the population), Table II, and the MULTI-UNION baseline.

Theorem 5. If a protocol is ``(eps, delta_a)``-DP for any fixed population of
at least ``n_1`` users, and ``Pr[N < n_1] <= delta_b``, it is
``(eps, delta_a + delta_b)``-DP for the random population (more users only
add independent noise: a post-processing). Table II lists lower bounds on
``N`` holding with probability ``1 − delta``; :func:`table2_bound` returns
each printed row, and a full law's exact tail can be compared with it
(:meth:`~shufflelib.population.laws.PopulationLaw.cdf`).

MULTI-UNION (the paper's baseline, reconstructed from Balle, Bell, Gascón and
Nissim, CCS 2020): each user adds the difference of two Pólya(``1/n_1``, ``a``)
variables, ``a = e^{-eps/p}``; a sum of ``n >= n_1`` such noises is a discrete
Laplace of parameter ``a`` plus independent extra noise, so the sum is
``eps``-DP (sensitivity ``p``) whenever ``N >= n_1``. With ``n_1`` the exact
``delta/2`` lower quantile and a ``sigma``-secure shuffle of shares at
``delta/2``, the protocol is ``(eps, delta)``-DP.

Examples
--------
>>> from shufflelib.population.laws import PoissonPopulation
>>> union = multi_union(0.2, 1e-5, PoissonPopulation(5000))
>>> union.n1 < 5000
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._validation import check_array, check_generator, check_int, check_positive, check_probability
from .laws import PopulationLaw
from .multimessage import group_order, messages_prop1, noisy_means, sigma_for
from .template import log_over

__all__ = ["TABLE2_ROWS", "table2_bound", "MultiUnion", "multi_union", "polya_sum_delta", "union_sum_deltas"]

#: Rows of Table II, by the law of ``N − 1`` they assume.
TABLE2_ROWS = ("binomial", "poisson", "subgaussian", "subexponential", "variance")


def table2_bound(row: str, delta_a: float, **params: float) -> float:
    """Table II as printed: a value ``b`` with (claimed) ``Pr[N − 1 < b] <= delta_a``.

    Parameters
    ----------
    row
        One of :data:`TABLE2_ROWS`.
    delta_a
        The failure probability.
    **params
        ``binomial``: ``n_prime``, ``alpha`` (the row's ``Binomial(n', alpha)``);
        ``poisson``: ``lam``; ``subgaussian``: ``mean``, ``tau``;
        ``subexponential``: ``mean``, ``a``, ``b``; ``variance``: ``mean``, ``variance``.

    Returns
    -------
    float
        The printed bound on ``n − 1`` (the table adds 1 for ``n``).

    Examples
    --------
    >>> round(table2_bound("binomial", 1e-5, n_prime=48_842, alpha=0.05), 2)
    2274.42
    """
    delta_a = check_probability("delta_a", delta_a)
    log_term = log_over(1.0, delta_a)
    forms = {
        "binomial": lambda n_prime, alpha: n_prime * alpha - math.sqrt(n_prime * alpha * log_term),
        "poisson": lambda lam: lam - math.sqrt(3.0 * lam * log_term),
        "subgaussian": lambda mean, tau: mean - math.sqrt(tau**2 * log_term),
        "subexponential": lambda mean, a, b: mean - log_over(a, delta_a) / b,
        "variance": lambda mean, variance: mean - math.sqrt(variance / delta_a),
    }
    if row not in forms:
        raise ValueError(f"row must be one of {', '.join(TABLE2_ROWS)}, got {row!r}")
    try:
        return float(forms[row](**params))
    except TypeError:
        raise ValueError(
            f"row {row!r} takes parameters {forms[row].__code__.co_varnames}, got {sorted(params)}"
        ) from None


@dataclass(frozen=True)
class MultiUnion:
    """Parameters of MULTI-UNION for a target ``(eps, delta)``.

    Attributes
    ----------
    eps, delta
        The target.
    n1
        Exact ``delta/2`` lower quantile of the number of users ``N``.
    p
        Precision ``ceil(sqrt(E[N]))``.
    a
        Discrete Laplace parameter ``e^{-eps/p}``.
    n_hi, q
        Population size the group accommodates, and the group order ``ceil(2 n_hi p)``.
    sigma, m
        Security parameter (``(1 + e^eps) 2^-sigma = delta/2``) and messages per user.

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> law = PoissonPopulation(1000)
    >>> union = multi_union(0.5, 1e-5, law)
    >>> union.n1, union.p, round(union.a, 4), union.n_hi, union.q, union.m
    (864, 32, 0.9845, 1142, 73088, 88)
    >>> bool(law.cdf(union.n1 - 2) <= union.delta / 2)  # Pr[N < n1] <= delta/2
    True
    >>> round(union.noise_variance * union.eps**2, 3)  # about 2 / eps^2
    2.0
    """

    eps: float
    delta: float
    n1: int
    p: int
    a: float
    n_hi: int
    q: int
    sigma: float
    m: int

    @property
    def noise_variance(self) -> float:
        """Variance of the discrete Laplace part of the sum, in units of the input (``2a/(1 − a)^2 / p^2``)."""
        return 2.0 * self.a / (1.0 - self.a) ** 2 / self.p**2

    def simulate_means(self, n: object, ones: object, rng: np.random.Generator) -> np.ndarray:
        """Simulated estimates of the mean of binary data: ``ones`` of ``n`` users hold 1 (one per run).

        A sum of ``n`` independent Pólya(``1/n1``, ``a``) is Pólya(``n/n1``, ``a``),
        a negative binomial, so the total noise is drawn exactly in O(1) per run.

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.population.laws import BinomialPopulation
        >>> union = multi_union(0.5, 1e-5, BinomialPopulation(2000, 0.5))
        >>> est = union.simulate_means(np.full(1000, 1000), np.full(1000, 450), np.random.default_rng(0))
        >>> round(float(est.mean()), 2)  # unbiased
        0.45
        """
        n = check_array("n", n, low=1, integral=True)
        rng = check_generator("rng", rng)
        shape = n / self.n1
        noise = rng.negative_binomial(shape, 1.0 - self.a) - rng.negative_binomial(shape, 1.0 - self.a)
        return noisy_means(ones, n, noise, self.p, self.q, self.n_hi)


def multi_union(eps: float, delta: float, law: PopulationLaw) -> MultiUnion:
    """Choose the parameters of MULTI-UNION (Theorem 5 with the exact population quantile).

    Examples
    --------
    >>> from shufflelib.population.laws import BinomialPopulation
    >>> union = multi_union(0.1, 1e-5, BinomialPopulation(48_842, 0.2))
    >>> union.p, round(union.noise_variance * union.eps**2, 3)  # about 2 / eps^2
    (99, 2.0)
    """
    eps = check_positive("eps", eps)
    delta = check_probability("delta", delta)
    if not isinstance(law, PopulationLaw):
        raise ValueError(f"law must be a PopulationLaw, got {type(law).__name__}")
    n1 = 1 + law.lower_quantile(delta / 2.0)
    if n1 < 1:
        raise ValueError("the population's delta/2 quantile must leave at least one user")
    p = math.ceil(math.sqrt(law.mean + 1.0))
    a = math.exp(-eps / p)
    # The group order rule of MULTI-EXPECTED (Theorem 6); each user's noise has variance 2a/(1 - a)^2 / n1.
    n_hi, q = group_order(law, math.sqrt(2.0 * a / n1) / (1.0 - a), p)
    sigma = sigma_for(eps, delta / 2.0)
    return MultiUnion(eps, delta, n1, p, a, n_hi, q, sigma, messages_prop1(sigma, q))


def polya_sum_delta(users: int, n1: int, a: float, sensitivity: int, eps: object) -> np.ndarray:
    """Exact ``δ(ε)`` of a sum with sensitivity ``sensitivity`` when ``users`` users each add MULTI-UNION's noise.

    Each user adds ``Pólya(1/n1, a) − Pólya(1/n1, a)``; ``users`` of them add
    ``NB(users/n1, 1 − a) − NB(users/n1, 1 − a)`` (negative binomials add their
    shapes). The curve is the largest hockey-stick divergence between this noise and
    its shift by ``1, …, sensitivity``, both orders; the noise's pmf is summed
    where it exceeds ``1e-300`` and the neglected mass (below ``1e-15``) is added.

    Examples
    --------
    >>> import math
    >>> a = math.exp(-0.5 / 8)
    >>> float(polya_sum_delta(100, 100, a, 8, [0.5])[0]) < 1e-12  # n >= n1: a discrete Laplace inside
    True
    >>> float(polya_sum_delta(20, 100, a, 8, [0.5])[0]) > 1e-3  # too few users
    True
    """
    users = check_int("users", users, minimum=1)
    n1 = check_int("n1", n1, minimum=1)
    a = check_probability("a", a)
    sensitivity = check_int("sensitivity", sensitivity, minimum=1)
    eps = np.atleast_1d(check_array("eps", eps, low=0.0))
    dist = stats.nbinom(users / n1, 1.0 - a)
    top = int(dist.isf(1e-16)) + 1
    pmf = dist.pmf(np.arange(top + 1))
    lost = float(dist.sf(top))
    noise = np.convolve(pmf, pmf[::-1])  # the difference of two independent copies
    padded = np.concatenate([np.zeros(sensitivity), noise, np.zeros(sensitivity)])
    worst = np.zeros(eps.size)
    for shift in range(1, sensitivity + 1):
        moved = np.roll(padded, shift)
        for first, second in ((padded, moved), (moved, padded)):
            gap = first[None, :] - np.exp(eps)[:, None] * second[None, :]
            worst = np.maximum(worst, np.clip(gap, 0.0, None).sum(axis=1))
    return np.minimum(1.0, worst + 2.0 * lost)


def union_sum_deltas(union: MultiUnion, law: PopulationLaw, eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """MULTI-UNION's sum with a random population: ``(n, Pr[N = n], δ_n(ε))`` over the support of ``N``.

    ``δ_n`` is :func:`polya_sum_delta` with ``n`` users and sensitivity ``p``. With ``N``
    visible to the server (it counts the shares), the sum is ``(ε, E_N[δ_N])``-DP
    exactly; Theorem 5 bounds this by ``sup_{n >= n1} δ_n + Pr[N < n1]``.

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> law = PoissonPopulation(50)
    >>> union = multi_union(0.5, 1e-3, law)
    >>> n, probs, deltas = union_sum_deltas(union, law, 0.5)
    >>> bool(deltas[n >= union.n1].max() < 1e-12), bool(probs @ deltas <= law.cdf(union.n1 - 2))
    (True, True)
    """
    eps = check_positive("eps", eps)
    values, probs, _ = law.support()
    n = values.astype(np.int64) + 1
    deltas = np.array([float(polya_sum_delta(int(k), union.n1, union.a, union.p, [eps])[0]) for k in n])
    return n, probs, deltas
