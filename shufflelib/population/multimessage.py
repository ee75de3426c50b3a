r"""The multi-message protocol of Section VI: discrete Gaussian noise in additive shares modulo ``q``.

Each participant holds ``x in [0, 1]``, rounds it to ``x_t in {0, ..., p}``
(randomized rounding, unbiased), adds ``DG(0, tau)`` noise and sends ``m``
uniformly random shares of the result modulo ``q`` (Algorithm 1). The shuffler
mixes all shares; the analyzer adds them modulo ``q``, undoes the wrap-around
of a negative sum and divides by ``p`` (Algorithm 2).

Privacy (for the sum; Lemmas 3–4, Proposition 2):

* Lemma 4 — ``n`` users' discrete Gaussians make the sum
  ``(eps, delta_n)``-DP with ``delta_n = exp(−z^2/2)``,
  ``z = (eps − p^2/(2 n tau^2) − 2.5 S_n)/(p/(tau sqrt n) + 10 S_n)``
  (Kairouz–Liu–Steinke's bound, converted from concentrated DP), and
  ``delta_n = 1`` when the numerator is not positive. The statement prints
  ``p/(2 n tau^2)``; the proof (and :func:`lemma4_delta`) has ``p^2``.
* Lemma 3 / Definition 6 — shares through a ``sigma``-secure shuffle add
  ``(1 + e^eps) 2^{-sigma}`` to δ (:func:`security_delta`; the lemma prints
  ``(1 + e^eps) sigma`` and the proof of Proposition 2 uses ``e^{-sigma}``).
* With a random population the failure probability is the expectation
  ``E_N[delta_N]`` (:func:`expected_delta_sum`), since ``N`` does not depend
  on the data.

Examples
--------
>>> from shufflelib.population.laws import PoissonPopulation
>>> params = multi_expected(0.2, 1e-5, PoissonPopulation(5000))
>>> params.p, round(params.tau, 2), params.n_hi, params.q
(71, 24.92, 5293, 751606)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._roots import first_true
from .._validation import check_array, check_choice, check_generator, check_int, check_positive, check_probability
from ..curves import DominatingPair
from . import dgauss
from .laws import TAIL, PopulationLaw

__all__ = [
    "LEMMA4_FORMS",
    "SECURITY_CONVENTIONS",
    "READINGS",
    "lemma4_delta",
    "exact_sum_delta",
    "security_delta",
    "sigma_for",
    "messages_prop1",
    "cited_messages",
    "fixed_population_errors",
    "expected_delta_sum",
    "calibrate_tau",
    "x_star",
    "group_order",
    "paper_threshold_size",
    "MultiExpected",
    "multi_expected",
    "randomized_rounding",
    "share",
    "randomize",
    "analyze",
    "unwrap",
    "noisy_means",
    "THRESHOLDS",
    "everyone_rate",
]

#: Correction thresholds of the analyzer, the library's ``n_hi`` or the paper's quantile of ``N``.
THRESHOLDS = ("library", "paper")

#: Lemma 4 as proved (``p^2/(2 n tau^2)``), as stated (``p/(2 n tau^2)``), and as printed for
#: random populations (``p^2/(n tau^2)``).
LEMMA4_FORMS = ("proof", "statement", "expected")
#: ``sigma``-security term, as in Definition 6 (``2^-sigma``), the proof of Proposition 2
#: (``e^-sigma``), Lemma 3 as printed (``sigma``).
SECURITY_CONVENTIONS = ("definition", "proof", "statement")
#: Group order, as in Theorem 6 with ``q = ceil(2 x* p)`` (``"theorem6"``), its literal ``ceil(2 n* p)`` with
#: ``n* = x*/2`` (``"literal"``), or room for the largest population and the noise (``"headroom"``, ours).
READINGS = ("theorem6", "literal", "headroom")
#: Standard deviations of noise the ``"headroom"`` group order leaves room for (Gaussian tail below 1e-15).
HEADROOM_SDS = 8.0


def lemma4_delta(eps: float, tau: float, p: float, n: object, form: str = "proof") -> np.ndarray:
    """Lemma 4: δ of the sum of ``n`` users' ``DG(0, tau)`` noise at sensitivity ``p`` (vectorized over ``n``).

    Parameters
    ----------
    eps
        Central ε (> 0).
    tau
        Scale of each user's discrete Gaussian (> 0).
    p
        Sensitivity of the sum (the precision: inputs are rounded to ``{0, ..., p}``), > 0.
    n
        Number(s) of users (integers >= 1).
    form
        One of :data:`LEMMA4_FORMS`.

    Examples
    --------
    >>> d = lemma4_delta(1.0, 3.0, 10, [100, 1000, 10_000])
    >>> bool(d[0] > d[1] > d[2])
    True
    """
    eps = check_positive("eps", eps)
    tau = check_positive("tau", tau)
    p = check_positive("p", p)
    n = check_array("n", n, low=1, integral=True)
    check_choice("form", form, LEMMA4_FORMS)
    s = dgauss.s_term(tau, n)
    quadratic = {
        "proof": p**2 / (2.0 * n * tau**2),
        "statement": p / (2.0 * n * tau**2),
        "expected": p**2 / (n * tau**2),
    }
    num = eps - quadratic[form] - 2.5 * s
    den = p / (tau * np.sqrt(n)) + 10.0 * s
    z = np.where(num > 0, num / den, 0.0)
    return np.where(num > 0, np.exp(-0.5 * z**2), 1.0)


def exact_sum_delta(eps: object, tau: float, p: int, n: int) -> np.ndarray:
    """Exact δ(ε) of the noisy sum for one pair of neighbours (sum shifted by ``p``), small ``n``.

    The law of the sum of ``n`` discrete Gaussians is computed by convolution
    (:func:`~shufflelib.population.dgauss.sum_pmf`) and compared with itself
    shifted by ``p`` (:class:`~shufflelib.curves.DominatingPair`). It is the
    privacy of the sum for neighbours whose rounded inputs differ by ``p``, so
    Lemma 4 must not be below it.

    Examples
    --------
    >>> import numpy as np
    >>> d = exact_sum_delta(np.array([0.5, 1.0]), 2.0, 3, 4)
    >>> bool(d[0] > d[1] > 0)
    True
    """
    p = check_int("p", p, minimum=1)
    _, probs = dgauss.sum_pmf(n, tau)
    with np.errstate(divide="ignore"):  # zero mass at the two ends after the shift: log 0 = -inf
        log_a = np.log(np.concatenate([probs, np.zeros(p)]))
        log_b = np.log(np.concatenate([np.zeros(p), probs]))
    return np.atleast_1d(DominatingPair(log_a, log_b).delta(eps))


def security_delta(eps: float, sigma: float, convention: str = "definition") -> float:
    """The δ a ``sigma``-secure shuffle of shares adds (Lemma 3), in each of the paper's conventions.

    Examples
    --------
    >>> round(security_delta(1.0, 20.0), 10), round(security_delta(1.0, 20.0, "proof"), 10)
    (3.546e-06, 7.7e-09)
    """
    eps = check_positive("eps", eps)
    sigma = check_positive("sigma", sigma)
    check_choice("convention", convention, SECURITY_CONVENTIONS)
    factor = 1.0 + math.exp(eps)
    return factor * {"definition": 2.0**-sigma, "proof": math.exp(-sigma), "statement": sigma}[convention]


def sigma_for(eps: float, delta_sec: float) -> float:
    """Smallest ``sigma`` with ``(1 + e^eps) 2^{-sigma} <= delta_sec`` (Definition 6's convention).

    Examples
    --------
    >>> round(sigma_for(1.0, 5e-6), 4)
    19.5043
    """
    eps = check_positive("eps", eps)
    delta_sec = check_probability("delta_sec", delta_sec)
    return math.log2((1.0 + math.exp(eps)) / delta_sec)


def messages_prop1(sigma: float, q: int, ikos_log: str = "ln") -> int:
    """Proposition 1: messages per user for a ``sigma``-secure summation over ``Z_q``, any ``n``.

    ``max(8 + 5 ceil(log q) + ceil(sigma), 1 + ceil((4 sigma + 2 log2 q)/5))``; the
    base of the first ``log`` is not stated (``ikos_log`` is ``"ln"`` or ``"log2"``).

    Examples
    --------
    >>> messages_prop1(20.0, 751_606), messages_prop1(20.0, 751_606, ikos_log="log2")
    (98, 128)
    """
    sigma = check_positive("sigma", sigma)
    q = check_int("q", q, minimum=2)
    if ikos_log not in ("ln", "log2"):
        raise ValueError(f"ikos_log must be 'ln' or 'log2', got {ikos_log!r}")
    log_q = math.log(q) if ikos_log == "ln" else math.log2(q)
    ikos = 8 + 5 * math.ceil(log_q) + math.ceil(sigma)
    bbgn = 1 + math.ceil((4.0 * sigma + 2.0 * math.log2(q)) / 5.0)
    return int(max(ikos, bbgn))


def cited_messages(sigma: float, q: int, n: object, ikos_log: str = "ln") -> np.ndarray:
    """The fewest messages per party that the two analyses Proposition 1 cites guarantee for ``n`` parties.

    Ishai et al. (as sharpened, quoted by the paper): ``2 + 5 ceil(log q) + ceil(sigma + 2 log(n − 1))``,
    any ``n >= 2``; Balle et al.: ``ceil((2 sigma + log2 q)/(log2 n − log2 e) + 1)``, for
    ``n >= 19`` (and at least 3 messages). Proposition 1 claims one count,
    :func:`messages_prop1`, that is at least the smaller of the two for every ``n``;
    ``ikos_log`` is the (unstated) base of the logarithms of the first analysis.

    Examples
    --------
    >>> cited_messages(20.0, 751_606, [2, 18, 19, 10**6]).tolist()
    [92, 98, 23, 5]
    """
    sigma = check_positive("sigma", sigma)
    q = check_int("q", q, minimum=2)
    n = check_array("n", n, low=2, integral=True).astype(np.float64)
    if ikos_log not in ("ln", "log2"):
        raise ValueError(f"ikos_log must be 'ln' or 'log2', got {ikos_log!r}")
    log = np.log if ikos_log == "ln" else np.log2
    ikos = 2 + 5 * math.ceil(float(log(q))) + np.ceil(sigma + 2.0 * log(n - 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        bbgn = np.maximum(3.0, np.ceil((2.0 * sigma + math.log2(q)) / (np.log2(n) - math.log2(math.e)) + 1.0))
    return np.where(n >= 19, np.minimum(ikos, bbgn), ikos).astype(np.int64)


def fixed_population_errors(
    x: object, tau: float, runs: int, rng: np.random.Generator, p: int | None = None, q: int | None = None
) -> np.ndarray:
    """Errors of Algorithm 2's estimated sum for ``n`` fixed users (Proposition 2's setting), one per run.

    Each run rounds every input (:func:`randomized_rounding`), adds one ``DG(0, tau)``
    per user, reduces the total modulo ``q``, undoes the wrap-around with
    ``n_hi = n`` (:func:`unwrap`) and divides by ``p``; the shares are not drawn,
    since they add up to the same residue. Defaults: Proposition 2's
    ``p = ceil(sqrt(n))`` and ``q = ceil(2 n^{3/2})``.

    Returns
    -------
    numpy.ndarray
        ``estimate − sum(x)`` for each run.

    Examples
    --------
    >>> import numpy as np
    >>> err = fixed_population_errors(np.full(100, 0.5), 2.0, 2000, np.random.default_rng(0))
    >>> bool(abs(np.mean(err**2) / 2.0**2 - 1.0) < 0.1)  # n / p^2 = 1: MSE close to tau^2
    True
    """
    x = check_array("x", x, ndim=1, low=0.0, high=1.0)
    n = check_int("n (the length of x)", x.size, minimum=1)
    tau = check_positive("tau", tau)
    runs = check_int("runs", runs, minimum=1)
    rng = check_generator("rng", rng)
    p = math.ceil(math.sqrt(n)) if p is None else check_int("p", p, minimum=1)
    q = math.ceil(2 * n**1.5) if q is None else check_int("q", q, minimum=2)
    rounded = np.stack([randomized_rounding(x, p, rng) for _ in range(runs)]).sum(axis=1)
    noise = dgauss.sample_discrete_gaussian(tau, runs * n, rng).reshape(runs, n).sum(axis=1)
    z = np.mod(rounded + noise, q)
    return unwrap(z, q, n, p) / p - float(x.sum())


def _users(law: PopulationLaw) -> tuple[np.ndarray, np.ndarray, float]:
    if not isinstance(law, PopulationLaw):
        raise ValueError(f"law must be a PopulationLaw, got {type(law).__name__}")
    values, probs, dropped = law.support(TAIL)
    return values + 1, probs, dropped


def expected_delta_sum(eps: float, tau: float, p: float, law: PopulationLaw, form: str = "proof") -> float:
    """``E_N[delta_N]`` (Lemma 4 at each population size ``N = 1 + (N − 1)``), plus the mass left out.

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> law = PoissonPopulation(5000)
    >>> expected_delta_sum(0.2, 30.0, 71, law) < expected_delta_sum(0.2, 20.0, 71, law)
    True
    """
    n, probs, dropped = _users(law)
    return float(np.sum(probs * lemma4_delta(eps, tau, p, n, form)) + dropped)


def calibrate_tau(eps: float, delta_sum: float, p: float, law: PopulationLaw, form: str = "proof") -> float:
    """Smallest ``tau`` with :func:`expected_delta_sum` ``<= delta_sum`` (rounded up).

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> round(calibrate_tau(0.2, 5e-6, 71, PoissonPopulation(5000)), 2)
    24.92
    """
    eps = check_positive("eps", eps)
    delta_sum = check_probability("delta_sum", delta_sum)
    log_target = math.log(delta_sum)

    def value(log_tau: float) -> float:
        return expected_delta_sum(eps, math.exp(log_tau), p, law, form)

    hi = math.log(max(10.0 * math.sqrt(2.0 * math.log(1.25 / delta_sum)) / eps, 1.0))
    while value(hi) > delta_sum:
        hi += 1.0
    lo = math.log(1e-3)
    found = first_true(lambda t: value(t) <= delta_sum, lambda t: math.log(max(value(t), 1e-300)) - log_target, lo, hi)
    return math.exp(found)


def x_star(law: PopulationLaw, tau: float) -> int:
    """Theorem 6: the smallest ``x`` with ``E[N^2 1{N >= x}] <= tau^2`` (``N = 1 + (N − 1)``).

    Examples
    --------
    >>> from shufflelib.population.laws import FixedPopulation
    >>> x_star(FixedPopulation(99), 5.0)  # a fixed n: the first x above n
    101
    """
    tau = check_positive("tau", tau)
    n, probs, _ = _users(law)
    tail = np.cumsum((probs * n.astype(float) ** 2)[::-1])[::-1]  # E[N^2 1{N >= n_i}] on the support
    ok = np.flatnonzero(tail <= tau**2)
    return int(n[ok[0]]) if ok.size else int(n[-1]) + 1


def group_order(law: PopulationLaw, tau: float, p: int, reading: str = "theorem6") -> tuple[int, int]:
    """The population size ``n_hi`` the group is built for, and the group order ``q``.

    * ``"theorem6"``: Theorem 6 with the factor 2 on ``x*``: ``n_hi = x*``,
      ``q = ceil(2 x* p)``. It ignores the noise: when ``sqrt(n) tau`` is
      comparable to ``x* p`` (small ε), the noisy sum wraps around.
    * ``"literal"``: Theorem 6 as printed, ``q = ceil(2 n* p)`` with ``n* = x*/2``:
      no room at all for a negative noisy sum.
    * ``"headroom"``: ``n_hi`` is the top of the population's range (mass
      ``1e-17`` above it) and ``q = ceil(2 (n_hi p + 8 sqrt(n_hi) tau))``: a sum of
      ``n <= n_hi`` inputs plus noise of standard deviation ``sqrt(n) tau`` never
      wraps around unnoticed (except with probability about ``1e-15``).

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> law = PoissonPopulation(5000)
    >>> group_order(law, 25.0, 71, "theorem6"), group_order(law, 25.0, 71, "literal")
    ((5293, 751606), (5293, 375803))
    """
    tau = check_positive("tau", tau)
    p = check_int("p", p, minimum=1)
    check_choice("reading", reading, READINGS)
    if reading == "headroom":
        n_hi = law.range(TAIL)[1] + 1
        return n_hi, math.ceil(2.0 * (n_hi * p + HEADROOM_SDS * math.sqrt(n_hi) * tau))
    n_hi = x_star(law, tau)
    return n_hi, math.ceil((2.0 if reading == "theorem6" else 1.0) * n_hi * p)


def paper_threshold_size(law: PopulationLaw, tau: float) -> int:
    """Algorithm 2 as printed: the population size ``Q_N[1 − e^{−tau}]`` of its correction threshold.

    The paper's analyzer treats a residue above ``(Q_N[1 − e^{−tau}] p + q)/2`` as a negative
    sum, where ``Q_N`` is the quantile function of ``N``; the library's :func:`unwrap` uses
    ``n_hi`` (``x*`` of Theorem 6) instead. Returns the smallest ``x`` with
    ``Pr[N > x] <= e^{−tau}`` (``e^{−tau}`` floored at ``1e-300``).

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> paper_threshold_size(PoissonPopulation(5000), 10.0) > 5000
    True
    """
    if not isinstance(law, PopulationLaw):
        raise ValueError(f"law must be a PopulationLaw, got {type(law).__name__}")
    tau = check_positive("tau", tau)
    return law.range(max(math.exp(-tau), 1e-300))[1] + 1


@dataclass(frozen=True)
class MultiExpected:
    """Parameters of the proposed protocol (MULTI-EXPECTED) for a target ``(eps, delta)``.

    Attributes
    ----------
    eps, delta
        The target; ``delta`` is split into ``delta_sum`` (Lemma 4, in
        expectation over ``N``) and ``delta_sec`` (the shuffle of shares).
    p
        Precision ``ceil(sqrt(E[N]))``.
    tau
        Each user's discrete Gaussian scale.
    n_hi
        Theorem 6's ``x*``: the population size the group must accommodate.
    q
        Group order.
    sigma
        Security parameter (Definition 6: statistical distance ``2^-sigma``).
    m
        Messages per user (Proposition 1, natural log in its first term).

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> law = PoissonPopulation(1000)
    >>> params = multi_expected(0.5, 1e-5, law)
    >>> params.p, round(params.tau, 2), params.n_hi, params.q, params.m
    (32, 10.13, 1124, 71936, 88)
    >>> params.delta_sum + params.delta_sec == params.delta
    True
    >>> expected_delta_sum(params.eps, params.tau, params.p, law) <= params.delta_sum
    True
    """

    eps: float
    delta: float
    delta_sum: float
    delta_sec: float
    p: int
    tau: float
    n_hi: int
    q: int
    sigma: float
    m: int

    def simulate_means(self, n: object, ones: object, rng: np.random.Generator) -> np.ndarray:
        """Simulated estimates of the mean of binary data: ``ones`` of ``n`` users hold 1 (one per run).

        Binary inputs need no rounding (``x p`` is an integer), and the sum of
        the shares modulo ``q`` is the noisy sum modulo ``q``, so a run draws
        only the total noise: ``DG(0, sqrt(n) tau)``, which differs from the
        sum of ``n`` independent ``DG(0, tau)`` by a total variation of order
        ``10 S_n(tau)`` (Kairouz, Liu, Steinke; checked by
        :func:`~shufflelib.population.dgauss.sum_pmf` in the tests);
        :meth:`sum_tv_bound` gives it, below ``1e-300`` for ``tau >= 4``.

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.population.laws import PoissonPopulation
        >>> params = multi_expected(0.5, 1e-5, PoissonPopulation(1000))
        >>> est = params.simulate_means(np.full(4, 1000), np.full(4, 450), np.random.default_rng(0))
        >>> bool(np.all(np.abs(est - 0.45) < 0.05))
        True
        """
        n = check_array("n", n, low=1, integral=True).astype(np.int64)
        noise = dgauss.sample_discrete_gaussian(np.sqrt(n) * self.tau, n.size, rng)
        return noisy_means(ones, n, noise, self.p, self.q, self.n_hi)

    def sum_tv_bound(self, n: object) -> np.ndarray:
        """``10 S_n(tau)``: the closeness of the sum of ``n`` users' noise to ``DG(0, sqrt(n) tau)``."""
        return 10.0 * dgauss.s_term(self.tau, n)


def multi_expected(eps: float, delta: float, law: PopulationLaw, reading: str = "theorem6") -> MultiExpected:
    """Choose the parameters of MULTI-EXPECTED (Theorem 6) for a random population.

    ``p = ceil(sqrt(E[N]))``; ``delta_sum = delta_sec = delta/2``;
    ``sigma = log2((1 + e^eps)/delta_sec)``; ``tau`` the smallest scale with
    ``E_N[delta_N] <= delta_sum``; ``(n_hi, q)`` from :func:`group_order`.

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> a = multi_expected(0.2, 1e-5, PoissonPopulation(5000), reading="theorem6")
    >>> b = multi_expected(0.2, 1e-5, PoissonPopulation(5000), reading="literal")
    >>> a.q == 2 * b.q
    True
    """
    eps = check_positive("eps", eps)
    delta = check_probability("delta", delta)
    p = math.ceil(math.sqrt(law.mean + 1.0))
    delta_sum = delta_sec = delta / 2.0
    tau = calibrate_tau(eps, delta_sum, p, law)
    n_hi, q = group_order(law, tau, p, reading)
    sigma = sigma_for(eps, delta_sec)
    return MultiExpected(eps, delta, delta_sum, delta_sec, p, tau, n_hi, q, sigma, messages_prop1(sigma, q))


# ------------------------------------------------------------------ Algorithms 1 and 2
def randomized_rounding(x: object, p: int, rng: np.random.Generator) -> np.ndarray:
    """``floor(x p) + Bern(x p − floor(x p))``: an unbiased rounding of ``x p`` (``x`` in ``[0, 1]``).

    Examples
    --------
    >>> import numpy as np
    >>> randomized_rounding(np.array([0.0, 1.0]), 7, np.random.default_rng(0)).tolist()
    [0, 7]
    """
    x = check_array("x", x, low=0.0, high=1.0)
    p = check_int("p", p, minimum=1)
    rng = check_generator("rng", rng)
    scaled = x * p
    low = np.floor(scaled)
    return (low + (rng.random(x.shape) < scaled - low)).astype(np.int64)


def share(y: object, m: int, q: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` uniform shares modulo ``q`` of each integer in ``y`` (shape ``(len(y), m)``).

    Examples
    --------
    >>> import numpy as np
    >>> s = share(np.array([5, -3]), 4, 11, np.random.default_rng(0))
    >>> (s.sum(axis=1) % 11).tolist()
    [5, 8]
    """
    y = check_array("y", y, ndim=1, integral=True).astype(np.int64)
    m = check_int("m", m, minimum=1)
    q = check_int("q", q, minimum=2)
    rng = check_generator("rng", rng)
    shares = rng.integers(0, q, size=(y.size, m), dtype=np.int64)
    shares[:, -1] = np.mod(y - shares[:, :-1].sum(axis=1), q)
    return shares


def randomize(x: object, tau: float, m: int, p: int, q: int, rng: np.random.Generator) -> np.ndarray:
    """Algorithm 1 for every user: round, add ``DG(0, tau)``, split into ``m`` shares modulo ``q``.

    Examples
    --------
    >>> import numpy as np
    >>> randomize(np.array([0.2, 0.9, 0.5]), 2.0, 5, 10, 101, np.random.default_rng(0)).shape
    (3, 5)
    """
    rounded = randomized_rounding(x, p, rng)
    noisy = rounded + dgauss.sample_discrete_gaussian(tau, rounded.size, rng)
    return share(noisy, m, q, rng)


def unwrap(z: object, q: int, n_hi: int, p: int) -> np.ndarray:
    """Algorithm 2's correction: a residue above ``(n_hi p + q)/2`` stands for a negative sum.

    Examples
    --------
    >>> unwrap([5, 99], q=100, n_hi=10, p=5).tolist()
    [5, -1]
    """
    z = check_array("z", z, integral=True).astype(np.int64)
    return np.where(z > (n_hi * p + q) / 2.0, z - q, z)


def analyze(shares: object, p: int, q: int, n_hi: int) -> float:
    """Algorithm 2: the estimated sum of the inputs from all the shuffled shares.

    Parameters
    ----------
    shares
        Every share received (any shape; the order does not matter).
    p, q, n_hi
        Precision, group order and the population size ``q`` was chosen for.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.random(500)
    >>> s = randomize(x, 1.0, 8, 30, 2 * 600 * 30, rng)
    >>> bool(abs(analyze(rng.permutation(s.ravel()), 30, 2 * 600 * 30, 600) - x.sum()) < 3)
    True
    """
    flat = check_array("shares", shares, integral=True).astype(np.int64).ravel()
    q = check_int("q", q, minimum=2)
    total = int(np.mod(flat, q).sum() % q)
    return float(unwrap(np.array([total]), q, n_hi, p)[0]) / p


def noisy_means(ones: object, n: object, noise: object, p: int, q: int, n_hi: int) -> np.ndarray:
    """What Algorithm 2 outputs, divided by ``n``, for binary data with total noise ``noise`` (one per run).

    The analyzer sees ``(p · ones + noise) mod q``, undoes the wrap-around with
    :func:`unwrap` and divides by ``p n``.

    Examples
    --------
    >>> noisy_means([45], [100], [-3], p=10, q=2_000, n_hi=100).round(4).tolist()
    [0.447]
    """
    ones = check_array("ones", ones, low=0, integral=True).astype(np.int64)
    n = check_array("n", n, low=1, integral=True)
    noise = check_array("noise", noise, integral=True).astype(np.int64)
    z = np.mod(p * ones + noise, q)
    return unwrap(z, q, n_hi, p) / (p * n)


def everyone_rate(
    law: PopulationLaw,
    eps: float,
    delta: float,
    rng: np.random.Generator,
    *,
    reading: str = "literal",
    threshold: str = "library",
    draws: int = 2000,
) -> tuple[int, int]:
    """How often an attribute nobody has (true sum 0) is estimated as about everyone (mean > 1/2).

    Draws ``draws`` populations ``N``, adds the protocol's summed noise ``DG(0, sqrt(N) tau)``
    and runs the analyzer with group order from ``reading`` and the correction threshold
    ``threshold``: ``"library"`` (``n_hi``, :func:`unwrap`) or ``"paper"`` (Algorithm 2 as
    printed, :func:`paper_threshold_size`). A Monte Carlo count: report it with its
    confidence interval.

    Returns
    -------
    tuple of int
        The number of estimates above 1/2, and ``draws``.

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> hits, draws = everyone_rate(PoissonPopulation(5000), 1.0, 1e-5, np.random.default_rng(3), threshold="paper")
    >>> hits, draws
    (0, 2000)
    """
    rng = check_generator("rng", rng)
    draws = check_int("draws", draws, minimum=1)
    check_choice("threshold", threshold, THRESHOLDS)
    params = multi_expected(eps, delta, law, reading)
    n = law.sample(draws, rng) + 1
    noise = dgauss.sample_discrete_gaussian(np.sqrt(n) * params.tau, n.size, rng)
    size = params.n_hi if threshold == "library" else paper_threshold_size(law, params.tau)
    est = noisy_means(np.zeros(n.size, dtype=np.int64), n, noise, params.p, params.q, size)
    return int(np.sum(est > 0.5)), draws
