r"""Estimating a binary distribution from shuffled randomized response with a random population.

Each participant holds ``x in {0, 1}`` and reports ``x`` with probability
``theta = e^{eps0}/(e^{eps0}+1)``, else ``1 − x``. The analyzer sees the number
of messages and of reported 1s; dummy reports (randomized response on a public
value) may be mixed in, and the number of dummies is public (it does not
depend on the data).

The debiased report ``x_hat = ((e^{eps0}+1) t − 1)/(e^{eps0} − 1)`` is unbiased
with variance ``e^{eps0}/(e^{eps0} − 1)^2``. With ``n`` real reports and ``d``
dummies holding ``v``, the estimate of ``P(1)`` is
``(sum_all x_hat − d v)/n`` and, for ``x`` i.i.d. with ``P(1) = p1``,

.. math::

   E\big[\|\hat P - P\|_2^2 \mid n, d\big] = \frac{2 e^{\varepsilon_0}(1 + d/n)}{n (e^{\varepsilon_0} - 1)^2}
   + \frac{2 p_1 (1 - p_1)}{n}

(the squared ℓ2 error of the two-point distribution is twice that of ``P(1)``).
The paper prints the per-report estimator as ``(t − 1)/(e^{eps0} − 1)``, which
is biased (:func:`paper_debias` keeps it for the erratum).

Simulation uses sufficient statistics: the number of reported 1s is a sum of
binomials, so a run costs O(1) whatever the population.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> n, ones = np.full(20_000, 1000), np.full(20_000, 450)
>>> est = estimate_p1(shuffled_rr_ones(n, ones, 1.0, 0, rng), n, 0, 1.0)
>>> bool(abs(est.mean() - 0.45) < 0.002)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import check_array, check_generator, check_int, check_positive, check_probability
from .laws import TAIL, FixedPopulation, PopulationLaw
from .tight import TightClones

__all__ = [
    "estimate_p1",
    "paper_debias",
    "conditional_mse",
    "expected_mse",
    "shuffled_rr_ones",
    "draw_iid_participants",
    "draw_finite_participants",
    "dummy_count",
    "RandomCheckin",
]


def _theta(eps0: float) -> float:
    return 1.0 / (1.0 + math.exp(-eps0))


def dummy_count(n: object, dummies: int, adaptive: bool) -> np.ndarray:
    """Number of dummies added to ``n`` real reports: ``k``, or ``max(k − n, 0)`` when padding to ``k``.

    Examples
    --------
    >>> dummy_count([10, 200], 100, adaptive=True).tolist()
    [90, 0]
    """
    n = np.asarray(n)
    dummies = check_int("dummies", dummies, minimum=0)
    return np.maximum(dummies - n, 0) if adaptive else np.full(n.shape, dummies)


def estimate_p1(reported_ones: object, n: object, dummies: object, eps0: float, dummy_value: int = 0) -> np.ndarray:
    """Unbiased estimate of ``P(1)`` from ``n`` real reports and ``dummies`` dummy reports of ``dummy_value``.

    Parameters
    ----------
    reported_ones
        Number(s) of reported 1s among all ``n + dummies`` messages.
    n
        Number(s) of real reports (>= 1).
    dummies
        Number(s) of dummy reports (>= 0), public.
    eps0
        Local privacy parameter (> 0).
    dummy_value
        The public input of every dummy (0 or 1).

    Returns
    -------
    numpy.ndarray
        ``(((e^{eps0}+1) S − (n + d))/(e^{eps0} − 1) − d v)/n``.

    Examples
    --------
    >>> round(float(estimate_p1(500, 1000, 0, 1.0)), 12)  # half the reports are 1s
    0.5
    """
    eps0 = check_positive("eps0", eps0)
    n = check_array("n", n, low=1, integral=True)
    d = check_array("dummies", dummies, low=0, integral=True)
    ones = check_array("reported_ones", reported_ones, low=0, integral=True)
    dummy_value = check_int("dummy_value", dummy_value, minimum=0, maximum=1)
    total = n + d
    debiased = ((math.exp(eps0) + 1.0) * ones - total) / math.expm1(eps0)
    return (debiased - d * dummy_value) / n


def paper_debias(reported_ones: object, n: object, eps0: float) -> np.ndarray:
    """The paper's printed estimator: the mean of ``(t − 1)/(e^{eps0} − 1)`` over ``n`` reports (biased).

    Examples
    --------
    >>> float(paper_debias(1000, 1000, 1.0)) <= 0.0  # even if every report is a 1
    True
    """
    eps0 = check_positive("eps0", eps0)
    n = check_array("n", n, low=1, integral=True)
    ones = check_array("reported_ones", reported_ones, low=0, integral=True)
    return (ones - n) / (math.expm1(eps0) * n)


def conditional_mse(n: object, eps0: float, p1: float, dummies: object = 0) -> np.ndarray:
    """``E[||P_hat − P||_2^2 | n, d]`` for i.i.d. data with ``P(1) = p1``.

    Examples
    --------
    >>> round(float(conditional_mse(1000, 1.0, 0.45)), 6)
    0.002336
    """
    eps0 = check_positive("eps0", eps0)
    p1 = check_probability("p1", p1, closed_low=True, closed_high=True)
    n = check_array("n", n, low=1)
    d = check_array("dummies", dummies, low=0)
    noise = 2.0 * math.exp(eps0) * (1.0 + d / n) / (n * math.expm1(eps0) ** 2)
    return noise + 2.0 * p1 * (1.0 - p1) / n


def expected_mse(law: PopulationLaw, eps0: float, p1: float, dummies: int = 0, adaptive: bool = False) -> float:
    """``E[||P_hat − P||_2^2]`` over ``N = 1 + (N − 1)`` and the data (i.i.d. with ``P(1) = p1``).

    Examples
    --------
    >>> from shufflelib.population.laws import BinomialPopulation
    >>> round(expected_mse(BinomialPopulation(5001, 0.2), 0.4, 0.45), 5)
    0.01283
    """
    if not isinstance(law, PopulationLaw):
        raise ValueError(f"law must be a PopulationLaw, got {type(law).__name__}")
    values, probs, _ = law.support(TAIL)
    n = values + 1.0
    mse = conditional_mse(n, eps0, p1, dummy_count(n, dummies, adaptive))
    return float(np.sum(probs * mse) / np.sum(probs))


def shuffled_rr_ones(
    n: object, true_ones: object, eps0: float, dummies: object, rng: np.random.Generator, dummy_value: int = 0
) -> np.ndarray:
    """Reported 1s among ``n`` real reports (``true_ones`` of them holding 1) and ``dummies`` dummies.

    Vectorized over runs (arrays of equal shape).

    Examples
    --------
    >>> import numpy as np
    >>> shuffled_rr_ones([10, 10], [10, 0], 50.0, [0, 0], np.random.default_rng(0)).tolist()
    [10, 0]
    """
    eps0 = check_positive("eps0", eps0)
    rng = check_generator("rng", rng)
    n = check_array("n", n, low=0, integral=True).astype(np.int64)
    ones = check_array("true_ones", true_ones, low=0, integral=True).astype(np.int64)
    d = np.broadcast_to(check_array("dummies", dummies, low=0, integral=True).astype(np.int64), n.shape)
    if np.any(ones > n):
        raise ValueError("true_ones must be <= n in every run")
    dummy_value = check_int("dummy_value", dummy_value, minimum=0, maximum=1)
    theta = _theta(eps0)
    flipped = 1.0 - theta
    kept = rng.binomial(ones, theta) + rng.binomial(n - ones, flipped)
    from_dummies = rng.binomial(d, theta if dummy_value else flipped)
    return (kept + from_dummies).astype(np.int64)


def draw_iid_participants(law: PopulationLaw, p1: float, runs: int, rng: np.random.Generator):
    """``runs`` draws of ``(n, true_ones)``: ``n = 1 + (N − 1)`` participants, each holding 1 w.p. ``p1``.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> n, ones = draw_iid_participants(PoissonPopulation(100), 0.3, 5, np.random.default_rng(0))
    >>> bool(np.all(ones <= n))
    True
    """
    p1 = check_probability("p1", p1, closed_low=True, closed_high=True)
    n = law.sample(runs, rng) + 1
    return n, rng.binomial(n, p1)


def draw_finite_participants(n_ones: int, n_zeros: int, alpha: float, runs: int, rng: np.random.Generator):
    """``runs`` draws of ``(n, true_ones)`` when each of a fixed dataset's users takes part w.p. ``alpha``.

    Runs without any participant are redrawn (the estimator needs ``n >= 1``).

    Examples
    --------
    >>> import numpy as np
    >>> n, ones = draw_finite_participants(16_192, 32_650, 0.1, 3, np.random.default_rng(0))
    >>> n.shape, bool(np.all(ones <= n))
    ((3,), True)
    """
    n_ones = check_int("n_ones", n_ones, minimum=0)
    n_zeros = check_int("n_zeros", n_zeros, minimum=0)
    if n_ones + n_zeros < 1:
        raise ValueError("n_ones + n_zeros must be >= 1")
    alpha = check_probability("alpha", alpha, closed_high=True)
    runs = check_int("runs", runs, minimum=1)
    rng = check_generator("rng", rng)
    ones = rng.binomial(n_ones, alpha, size=runs)
    n = ones + rng.binomial(n_zeros, alpha, size=runs)
    while np.any(n == 0):
        empty = n == 0
        ones[empty] = rng.binomial(n_ones, alpha, size=int(empty.sum()))
        n[empty] = ones[empty] + rng.binomial(n_zeros, alpha, size=int(empty.sum()))
    return n, ones


@dataclass(frozen=True)
class RandomCheckin:
    r"""Random check-ins (Balle et al., NeurIPS 2020) as the paper's baseline: a fixed batch of ``slots`` reports.

    Each user takes part with probability ``alpha`` and checks into a uniformly
    random slot; each occupied slot sends the report of one of its users chosen
    uniformly, each empty slot a dummy report (randomized response on 0). The
    server always receives ``slots`` reports and learns how many are dummies.

    Privacy (a valid stand-in; the paper does not state the bound it used): if
    user 1 is selected, its report hides among ``slots − 1`` other
    ``eps0``-LDP reports, so the fixed-``n`` clone bound with ``n = slots``
    holds at some ``(eps, delta_m)``; if not, the output does not depend on
    user 1. The selection is independent of the data, so by joint convexity the
    protocol is ``(eps, s delta_m)``-DP with ``s`` user 1's selection
    probability ``E[1/(1 + B)]``, ``B ~ Bin(n' − 1, alpha/slots)``.

    Parameters
    ----------
    n_prime
        Number of potential users (an integer >= 2).
    alpha
        Participation rate, in ``(0, 1]``.
    slots
        Number of slots (default ``round(n' alpha)``, at least 2).

    Examples
    --------
    >>> rc = RandomCheckin(48_842, 0.2)
    >>> rc.slots, round(rc.selection_probability, 4)
    (9768, 0.6321)
    """

    n_prime: int
    alpha: float
    slots: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "n_prime", check_int("n_prime", self.n_prime, minimum=2))
        object.__setattr__(self, "alpha", check_probability("alpha", self.alpha, closed_high=True))
        slots = max(2, round(self.n_prime * self.alpha)) if self.slots is None else self.slots
        object.__setattr__(self, "slots", check_int("slots", slots, minimum=2))

    @property
    def selection_probability(self) -> float:
        """Probability that user 1 (who checked in) is the one sent for its slot."""
        rate = self.alpha / self.slots
        return float(-math.expm1(self.n_prime * math.log1p(-rate)) / (self.n_prime * rate))

    def max_local_eps(self, eps: float, delta: float) -> float:
        """Largest ``eps0`` (at least ``eps``) for which the protocol is ``(eps, delta)``-DP.

        Examples
        --------
        >>> RandomCheckin(48_842, 0.2).max_local_eps(0.1, 1e-5) > 1.0
        True
        """
        eps = check_positive("eps", eps)
        delta = check_probability("delta", delta)
        s = self.selection_probability
        if delta >= s:  # delta >= s * TV: any eps0 works; cap at the search range
            return 50.0
        # The fixed-n clone bound with n = slots: a population of slots - 1 others.
        return TightClones(FixedPopulation(self.slots - 1)).max_local_eps(eps, delta / s)

    def draw(self, n_ones: int, n_zeros: int, runs: int, rng: np.random.Generator):
        """``runs`` draws of the selected reports: ``(selected, selected_ones)`` per run.

        The check-ins are drawn once per run, slot by slot (one categorical
        draw per user holding 1 or 0), so a run costs O(``n' alpha + slots``).

        Examples
        --------
        >>> import numpy as np
        >>> sel, ones = RandomCheckin(1000, 0.5).draw(300, 700, 4, np.random.default_rng(0))
        >>> bool(np.all(sel <= 500)), bool(np.all(ones <= sel))
        (True, True)
        """
        n_ones = check_int("n_ones", n_ones, minimum=0)
        n_zeros = check_int("n_zeros", n_zeros, minimum=0)
        runs = check_int("runs", runs, minimum=1)
        rng = check_generator("rng", rng)
        selected = np.empty(runs, dtype=np.int64)
        selected_ones = np.empty(runs, dtype=np.int64)
        for r in range(runs):
            a = np.bincount(rng.integers(self.slots, size=rng.binomial(n_ones, self.alpha)), minlength=self.slots)
            b = np.bincount(rng.integers(self.slots, size=rng.binomial(n_zeros, self.alpha)), minlength=self.slots)
            busy = (a + b) > 0
            selected[r] = int(busy.sum())
            selected_ones[r] = int((rng.random(int(busy.sum())) * (a + b)[busy] < a[busy]).sum())
        return selected, selected_ones
