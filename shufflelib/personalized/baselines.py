r"""The baselines Liu et al. (2024) compare against, as privacy profiles of a population.

The paper applies the two non-personalized bounds at the **largest** local ε
(and δ), as if every user were that little private:

* **FV** — the stronger-clone bound of Feldman, McMillan and Talwar (SODA
  2023, the paper's reference [12]): the exact clone pair with clone
  probability :math:`2/(e^{\varepsilon_0}+1)` and weight
  :math:`1/(e^{\varepsilon_0}+1)` (:func:`stronger_clones_delta`). For
  approximate local DP the term :math:`(e^{\varepsilon}+1)(1+e^{-\varepsilon_0}/2)\,n\,\delta_0`
  is added (the approximate-DP extension of the clone analysis as used for
  Table 2; it reproduces the paper's FV row). Valid for randomized response
  (the users' ``q_i = 2/(e^{ε_i}+1)`` are at least the one at ε_max); for
  other randomizers the stronger-clone decomposition is not guaranteed.
* **BBGN** — the privacy blanket of Balle, Bell, Gascón and Nissim, Bennett
  form, for a generic ε_max-LDP randomizer
  (:class:`shufflelib.bounds.blanket.BlanketBennett`; pure LDP only).

and two personalized approximations:

* **CCC** — Chen, Cao and Ge (AAAI 2024): the shuffled process is
  *approximately* μ-GDP (a central-limit argument, **not** an upper bound),
  :math:`\mu = \sqrt{2/(S - \max_i s_i)}`, :math:`s_i = (1-\delta_i)/(1+e^{\varepsilon_i})`,
  :math:`S = \sum_i s_i` (their abstract). Table 2 of Liu et al. is reproduced
  by :math:`\mu = 1/\sqrt{S}` instead (variant ``"table2"``), a factor
  :math:`\sqrt 2` smaller.
* **LZX** — Liu, Zhao, Xiong, Liu and Chen (AAAI 2023), whose exact bound the
  paper does not restate. We use a labelled **proxy**: the closed form of
  Feldman, McMillan and Talwar (2021) with the expected number of clones
  :math:`n e^{-\varepsilon_0}` replaced by :math:`\sum_{i \ge 2} e^{-\varepsilon_i}`
  and ε_0 by ε_max.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy.special import log_ndtr

from .._validation import check_array, check_choice, check_probability
from ..bounds.clones import fmt_epsilon
from .clone_count import CloneCount, clone_pair_delta
from .population import Population

__all__ = [
    "stronger_clones_delta",
    "approximate_clone_term",
    "gdp_mu",
    "gdp_delta",
    "lzx_proxy_epsilon",
    "GDP_VARIANTS",
]

#: Variants of the Gaussian-DP approximation of Chen, Cao and Ge.
GDP_VARIANTS = ("abstract", "table2")


def stronger_clones_delta(eps: object, n: int, eps0: float) -> np.ndarray:
    """δ(ε) of the stronger-clone pair for ``n`` users at ``eps0`` (vectorized in ε).

    Examples
    --------
    >>> import numpy as np
    >>> d = stronger_clones_delta(np.array([0.01, 0.1]), 10_000, 2.0)
    >>> [f"{v:.1e}" for v in d]   # Table 2, FV row (without the approximate term): 0.0083, 1e-5
    ['8.1e-03', '6.0e-06']
    """
    e = check_array("eps", eps, low=0.0)
    q = 2.0 / (math.exp(eps0) + 1.0) if eps0 < 700 else 0.0
    return clone_pair_delta(e, 1.0 / (math.exp(min(eps0, 700.0)) + 1.0), _clone_count(q, n - 1))


@lru_cache(maxsize=32)
def _clone_count(q: float, others: int) -> CloneCount:
    """The clone count of ``others`` users cloning with probability ``q`` (built once per profile)."""
    return CloneCount.from_binomials([q], [others])


def approximate_clone_term(eps: object, n: int, eps0: float, delta0: float) -> np.ndarray:
    """``(e^ε + 1)(1 + e^{-ε_0}/2) n δ_0``: the additive term for (ε_0, δ_0)-LDP users.

    Examples
    --------
    >>> f"{float(approximate_clone_term(0.1, 10_000, 2.0, 1e-10)):.2e}"
    '2.25e-06'
    """
    e = check_array("eps", eps, low=0.0)
    return (np.exp(np.minimum(e, 50.0)) + 1.0) * (1.0 + math.exp(-eps0) / 2.0) * n * delta0


def gdp_mu(population: Population, variant: str = "abstract") -> float:
    """The μ of the Gaussian-DP approximation of Chen, Cao and Ge.

    Examples
    --------
    >>> from shufflelib.personalized.population import table1_population
    >>> pop = table1_population("Uniform2", 10_000, delta=1e-10)
    >>> round(gdp_mu(pop, "table2"), 4)   # digest: 0.0208
    0.0208
    """
    check_choice("variant", variant, GDP_VARIANTS)
    s = (1.0 - population.delta) / (1.0 + np.exp(population.eps))
    total = float(np.dot(s, population.counts))
    if variant == "table2":
        return 1.0 / math.sqrt(total)
    rest = total - float(s.max())
    if rest <= 0:
        return math.inf
    return math.sqrt(2.0 / rest)


def gdp_delta(eps: object, mu: float) -> np.ndarray:
    r"""δ(ε) of μ-GDP: :math:`\Phi(-\varepsilon/\mu + \mu/2) - e^{\varepsilon}\Phi(-\varepsilon/\mu - \mu/2)`.

    Examples
    --------
    >>> f"{float(gdp_delta(0.01, 0.0208)):.1e}"   # Table 2, CCC row: 0.0042
    '4.3e-03'
    """
    e = check_array("eps", eps, low=0.0)
    if not mu > 0:
        raise ValueError(f"mu must be > 0, got {mu!r}")
    if math.isinf(mu):
        return np.ones(e.shape)
    a = log_ndtr(-e / mu + mu / 2.0)
    b = e + log_ndtr(-e / mu - mu / 2.0)
    return np.exp(a) * -np.expm1(np.minimum(b - a, 0.0))


def lzx_proxy_epsilon(population: Population, delta: float) -> float:
    """The LZX **proxy**: FMT21's closed form with ``Σ_{i≥2} e^{-ε_i}`` expected clones.

    ``ε = log(1 + (e^{ε_max} − 1)/(e^{ε_max} + 1) (8 sqrt(log(4/δ)/N) + 8/N))``,
    ``N = Σ_{i≥2} e^{-ε_i}`` (one user at ε_max excluded), capped at ε_max.

    Examples
    --------
    >>> from shufflelib.personalized.population import Population
    >>> round(lzx_proxy_epsilon(Population([1.0], [10_000]), 1e-5), 3)   # = FMT21's closed form here
    0.199
    """
    delta = check_probability("delta", delta)
    e_max = population.eps_max
    n_clones = float(np.dot(np.exp(-population.eps), population.counts)) - math.exp(-e_max)
    if n_clones <= 0:
        return e_max
    return min(float(fmt_epsilon(e_max, delta, n_clones * math.exp(e_max))), e_max)
