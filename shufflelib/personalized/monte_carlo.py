r"""Monte Carlo evidence on the true privacy of shuffled personalized randomizers.

The pair. ``D_0``: every user holds ``x^0 = 0``; ``D_1``: user 1 holds
``x^1 = 1`` instead. User 1 runs the randomizer at level ``(ε_1, δ_1)`` and the
``n − 1`` others at a common level ``(ε_o, δ_o)`` (possibly the same).

**Likelihood ratio.** With ``g`` the others' density and ``h_b`` user 1's on
``x^b``, the density of the shuffled sample is
``Π_j g(y_j) · (1/n) Σ_j h_b(y_j)/g(y_j)``, so
``L = dP_{D_1}/dP_{D_0} = Σ_j ρ_1(y_j) / Σ_j ρ_0(y_j)``, ``ρ_b = h_b/g``
(:func:`log_likelihood_ratios`, computed in log space). Then

* :func:`mc_delta` estimates both hockey-stick divergences from samples of
  ``L`` under ``D_0``: ``H_{e^ε}(D_1‖D_0) = E_0[(L − e^ε)^+]`` and
  ``H_{e^ε}(D_0‖D_1) = E_0[(1 − e^ε L)^+]`` (unbiased), with normal
  confidence intervals; the true δ(ε) of the protocol is at least either one;
* :func:`likelihood_ratio_sampler` feeds ``log L`` to the auditor of
  :mod:`shufflelib.audit`, whose Clopper–Pearson bound on ε holds with the
  stated confidence (the likelihood ratio is the most powerful score).

For populations with more than two levels the likelihood ratio is a ratio of
permanents; :func:`count_sampler` instead audits the number of reports above
1/2 (ones, for randomized response), drawn through its sufficient statistic
in time independent of ``n`` — a weaker but valid test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from .._docstrings import fill_doc
from .._validation import SIZE_MAX, check_array, check_generator, check_int, check_positive
from ..audit import SampleFn, hockey_stick_estimate
from .clone_count import CloneCount
from .mechanisms import LocalMechanism
from .population import Population

__all__ = ["MonteCarloDelta", "log_likelihood_ratios", "mc_delta", "likelihood_ratio_sampler", "count_sampler"]

#: Largest number of reports held in memory at once.
_CHUNK_REPORTS = 2_000_000


@fill_doc
def log_likelihood_ratios(
    mechanism: LocalMechanism,
    n: int,
    size: int,
    dataset: int,
    rng: np.random.Generator,
    *,
    eps1: float,
    eps_other: float,
    delta1: float = 0.0,
    delta_other: float = 0.0,
) -> np.ndarray:
    """``size`` draws of ``log L`` (``L = dP_{D_1}/dP_{D_0}`` of the shuffled sample) under ``D_dataset``.

    Parameters
    ----------
    %(local_mechanism)s
    n
        Number of users (>= 1): user 1 and ``n − 1`` others.
    size
        Number of independent runs.
    dataset
        0 (user 1 holds 0) or 1 (user 1 holds 1).
    rng
        Random generator.
    eps1, delta1, eps_other, delta_other
        Levels of user 1 and of the others.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.personalized.mechanisms import LocalMechanism
    >>> l0 = log_likelihood_ratios(LocalMechanism("rr"), 1, 20_000, 0, np.random.default_rng(0),
    ...                            eps1=1.0, eps_other=1.0)
    >>> sorted(set(np.round(l0, 6).tolist()))    # one user: L = e^{±1}
    [-1.0, 1.0]
    """
    n = check_int("n", n, minimum=1)
    size = check_int("size", size, minimum=1, maximum=SIZE_MAX)
    dataset = check_int("dataset", dataset, minimum=0, maximum=1)
    rng = check_generator("rng", rng)
    eps1 = check_positive("eps1", eps1)
    eps_other = check_positive("eps_other", eps_other)
    s1 = float(mechanism.scale(eps1, delta1))
    so = float(mechanism.scale(eps_other, delta_other))
    chunk = max(1, _CHUNK_REPORTS // n)
    out = np.empty(size)
    for start in range(0, size, chunk):
        k = min(chunk, size - start)
        y_first = mechanism.sample(np.full((k, 1), float(dataset)), np.full((k, 1), s1), rng)
        y_rest = mechanism.sample(np.zeros((k, n - 1)), np.full((k, n - 1), so), rng)
        y = np.concatenate([y_first, y_rest], axis=1)
        log_g = mechanism.logpdf(y, 0.0, so)
        log_r1 = mechanism.logpdf(y, 1.0, s1) - log_g
        log_r0 = mechanism.logpdf(y, 0.0, s1) - log_g
        out[start : start + k] = logsumexp(log_r1, axis=1) - logsumexp(log_r0, axis=1)
    return out


@dataclass(frozen=True)
class MonteCarloDelta:
    """Monte Carlo estimates of both hockey-stick divergences of the pair, per ε.

    Returned by :func:`mc_delta`; the δ(ε) of the pair is the larger divergence (:attr:`estimate`).

    Attributes
    ----------
    eps
        The ε values.
    forward, backward
        Estimates of ``H_{e^ε}(D_1‖D_0)`` and ``H_{e^ε}(D_0‖D_1)``.
    forward_se, backward_se
        Their standard errors.
    z
        Normal quantile of the reported intervals.

    Examples
    --------
    >>> import numpy as np
    >>> mc = MonteCarloDelta(np.array([0.1]), np.array([0.03]), np.array([0.02]),
    ...                      np.array([0.001]), np.array([0.001]), 3.0)
    >>> mc.estimate.tolist(), [round(v, 3) for v in mc.lower.tolist()]
    ([0.03], [0.027])
    """

    eps: np.ndarray
    forward: np.ndarray
    backward: np.ndarray
    forward_se: np.ndarray
    backward_se: np.ndarray
    z: float

    @property
    def estimate(self) -> np.ndarray:
        """The larger of the two estimates."""
        return np.maximum(self.forward, self.backward)

    @property
    def lower(self) -> np.ndarray:
        """``max`` of the two lower confidence limits: a lower bound on the true δ(ε) (normal approximation)."""
        return np.maximum(self.forward - self.z * self.forward_se, self.backward - self.z * self.backward_se)

    @property
    def upper(self) -> np.ndarray:
        """Upper confidence limit of :attr:`estimate`."""
        return np.maximum(self.forward + self.z * self.forward_se, self.backward + self.z * self.backward_se)


def mc_delta(eps: object, log_l_d0: np.ndarray, *, z: float = 3.0) -> MonteCarloDelta:
    """Estimate δ(ε) of the pair from draws of ``log L`` under ``D_0``.

    Parameters
    ----------
    eps
        Central ε values (>= 0), 1-D.
    log_l_d0
        Draws of ``log L`` under ``D_0`` (:func:`log_likelihood_ratios` with ``dataset=0``).
    z
        Normal quantile of the confidence intervals (3.0: two-sided ~99.7 %).

    Examples
    --------
    >>> import numpy as np
    >>> p = 1 / (1 + np.e)  # one user's randomized response at ε = 1: log L = +1 with probability p, else −1
    >>> l0 = np.where(np.random.default_rng(1).random(200_000) < p, 1.0, -1.0)
    >>> mc = mc_delta([0.5], l0)
    >>> exact = (np.e - np.exp(0.5)) / (1 + np.e)
    >>> bool(mc.lower[0] < exact < mc.upper[0])
    True
    """
    e = check_array("eps", eps, ndim=1, low=0.0)
    ll = check_array("log_l_d0", log_l_d0, ndim=1)
    z = check_positive("z", z)
    if ll.size < 2:
        raise ValueError("log_l_d0 must hold at least 2 draws")
    fwd, fse = hockey_stick_estimate(ll, e, drawn_from="q")  # H(D_1 || D_0): L = log dD_1/dD_0 under D_0
    bwd, bse = hockey_stick_estimate(-ll, e, drawn_from="p")  # H(D_0 || D_1)
    return MonteCarloDelta(e, fwd, bwd, fse, bse, z)


def likelihood_ratio_sampler(
    mechanism: LocalMechanism, n: int, *, eps1: float, eps_other: float, delta1: float = 0.0, delta_other: float = 0.0
) -> SampleFn:
    """A sampler of ``log L`` for :func:`shufflelib.audit.audit_protocol` (``D = D_0``, ``D' = D_1``).

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.audit import audit_protocol
    >>> from shufflelib.personalized.mechanisms import LocalMechanism
    >>> sample = likelihood_ratio_sampler(LocalMechanism("laplace"), 5, eps1=2.0, eps_other=2.0)
    >>> res = audit_protocol(sample, 20_000, 1e-3, np.random.default_rng(2))
    >>> 0 < res.epsilon < 2.0
    True
    """
    n = check_int("n", n, minimum=1)

    def sample_fn(dataset_index: int, size: int, rng: np.random.Generator) -> np.ndarray:
        return log_likelihood_ratios(
            mechanism,
            n,
            size,
            dataset_index,
            rng,
            eps1=eps1,
            eps_other=eps_other,
            delta1=delta1,
            delta_other=delta_other,
        )

    return sample_fn


def count_sampler(population: Population, mechanism: LocalMechanism, *, target: int | None = None) -> SampleFn:
    """A sampler of the number of reports above 1/2 (of ones, for ``"rr"``), for the auditor.

    ``D_0``: everybody holds 0; ``D_1``: one user of level ``target``
    (default: the largest ε) holds 1. The other users' count is drawn from its
    exact law (a sum of binomials, :class:`~shufflelib.bounds.clone_pair.BinomialSum`,
    tails below ``1e-30`` dropped) by inversion: ``O(log n)`` per draw.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.personalized import LocalMechanism, Population
    >>> sample = count_sampler(Population([0.5, 2.0], [900, 100]), LocalMechanism("laplace"))
    >>> sample(1, 4, np.random.default_rng(0)).shape
    (4,)
    """
    level = (
        population.max_level
        if target is None
        else check_int("target", target, minimum=0, maximum=population.levels - 1)
    )
    if mechanism.needs_delta and np.any(population.delta <= 0):
        raise ValueError(f"the {mechanism.label} mechanism needs a local delta > 0 for every user")
    scales = np.asarray(mechanism.scale(population.eps, population.delta))
    if mechanism.kind == "rr":
        above0 = scales  # P(report 1 | x = 0) = flip probability
    else:
        above0 = 1.0 - mechanism.cdf(np.full(scales.shape, 0.5), 0.0, scales)
    counts = population.counts.copy()
    counts[level] -= 1
    others = CloneCount.from_binomials(above0, counts, max_direct=math.inf)  # law of the others' count
    cdf = np.cumsum(others.pmf)
    cdf /= cdf[-1]  # the neglected tails (< 1e-30) are not sampled
    p1_given = {0: float(above0[level]), 1: float(1.0 - above0[level])}

    def sample_fn(dataset_index: int, size: int, rng: np.random.Generator) -> np.ndarray:
        dataset_index = check_int("dataset_index", dataset_index, minimum=0, maximum=1)
        rng = check_generator("rng", rng)
        total = others.start + np.minimum(np.searchsorted(cdf, rng.random(size), side="right"), cdf.size - 1)
        return (total + rng.binomial(1, p1_given[dataset_index], size=size)).astype(float)

    return sample_fn
