r"""The tight reference bound and an exact lower bound for a random population.

* :class:`TightClones` — the clone pair of Lemma 2 with ``C`` mixed over the
  population law (and the dummy policy), its hockey-stick divergence computed
  numerically. Every closed-form theorem of the paper bounds this same pair
  from above with tail inequalities, so it is the reference they should all
  exceed; it is itself a valid upper bound for every ``eps0``-LDP randomizer.
* :class:`ExactShuffledRR` — the exact privacy curve of shuffled binary
  randomized response on one pair of neighbouring datasets (every other user,
  and every dummy, holds user 1's first value; the output reveals the number
  of messages and the number of 1s). It is attained, so it is a **lower**
  bound on the true curve: no valid upper bound may be smaller.
* :func:`rr_population_sampler` — samples of that pair's output for the Monte
  Carlo auditor (:func:`shufflelib.audit.audit_scores`), a statistical lower bound.

Examples
--------
>>> from shufflelib.population.laws import BinomialPopulation
>>> law = BinomialPopulation(10_001, 0.5)
>>> tight = TightClones(law).epsilon(1.5, 1e-5)
>>> exact = ExactShuffledRR(law).epsilon(1.5, 1e-5)
>>> exact < tight
True
"""

from __future__ import annotations

import math

import numpy as np

from .._roots import RTOL, SEARCH_TOP_RTOL, last_true, narrow_bracket, upper_end
from .._validation import EPS0_MIN, N_MAX, check_int, check_positive, check_probability
from ..audit import SampleFn
from ..bounds import clone_pair
from ..bounds.base import DELTA_FLOOR, EPS0_MAX, NotApplicableError
from ..bounds.clone_pair import BINOM_RTOL, binomial_shortfall, log_sinh, scaled_sum
from ..bounds.clones import ClonesNumerical, gaussian_dp_epsilon, gaussian_eps0, gaussian_mu
from ..bounds.privacy_loss import CloneCountLoss, PrivacyLoss
from ..curves import ProfileCurve, invert_profile
from .bounds import WANG_2023, PopulationBound
from .clone_count import MAX_BLOCKS, CloneCount, clone_count, others_after_dummies
from .laws import PopulationLaw

__all__ = ["clone_pair_delta", "TightClones", "ExactShuffledRR", "rr_population_sampler", "EXACT_BLOCKS"]

#: Number of clone-count laws a :class:`TightClones` keeps (one per ``eps0``).
_CACHE = 64
#: Default number of blocks of population sizes of :class:`ExactShuffledRR`.
EXACT_BLOCKS = 512


def clone_pair_delta(eps: object, eps0: float, starts: np.ndarray, masses: np.ndarray, dropped: float) -> np.ndarray:
    """δ(ε) of the clone pair when ``C`` takes the value ``starts[i]`` with probability ``masses[i]``.

    :func:`shufflelib.bounds.clone_pair.clone_pair_delta` with local log-odds ``eps0``; the
    ``dropped`` mass is placed at ``C = 0`` (the worst case). ``delta = 0`` for ``eps >= eps0``
    (the pair is ``eps0``-DP).

    Examples
    --------
    >>> import numpy as np
    >>> d = clone_pair_delta(np.array([0.0, 1.0]), 1.0, np.array([0.0]), np.array([1.0]), 0.0)
    >>> round(float(d[0]), 6), float(d[1])  # no clone: randomized response itself, TV = tanh(1/2)
    (0.462117, 0.0)
    """
    counts = np.concatenate([[0.0], np.asarray(starts, dtype=float)])
    weights = np.concatenate([[float(dropped)], np.asarray(masses, dtype=float)])
    return clone_pair.clone_pair_delta(np.atleast_1d(np.asarray(eps, dtype=float)), eps0, counts, weights)


class _PopulationCurve(PopulationBound):
    """A numerical privacy curve for a population law and a dummy policy (shared by the two curves below).

    Subclasses give ``_delta`` and the clone probability of their Gaussian-DP
    starting points; ``max_eps0`` is found on the profile directly.
    """

    def __init__(self, law: PopulationLaw, dummies: int, adaptive: bool, max_blocks: int) -> None:
        if not isinstance(law, PopulationLaw):
            raise ValueError(f"law must be a PopulationLaw, got {type(law).__name__}")
        self.law = law
        self.dummies = check_int("dummies", dummies, minimum=0, maximum=N_MAX)
        if not isinstance(adaptive, bool):
            raise ValueError(f"adaptive must be True or False, got {adaptive!r}")
        self.adaptive = adaptive
        self.max_blocks = check_int("max_blocks", max_blocks, minimum=1)
        values, probs, _ = law.support()
        others = others_after_dummies(values, self.dummies, self.adaptive)
        self._mean_others = float(np.sum(probs * others) / np.sum(probs))

    def _describe(self) -> str:
        return f"{self.law!r}, dummies={self.dummies}, adaptive={self.adaptive}"

    def _clone_probability(self, eps0: float) -> float:
        raise NotImplementedError

    def _gaussian_mu(self, eps0: float) -> float:
        """Gaussian-DP parameter of the clone pair with ``E[C]`` clones: ``2 tanh(eps0/2)/sqrt(E[C] + 1)``."""
        return gaussian_mu(eps0, self._mean_others * self._clone_probability(eps0))

    def max_eps0(self, eps: float, delta: float, *, rtol: float = RTOL) -> float:
        """Largest ``eps0`` in ``[eps, 50]`` with ``delta(eps0, eps) <= delta`` (rounded down, to a
        relative ``rtol``).

        Examples
        --------
        >>> from shufflelib.population.laws import PoissonPopulation
        >>> bound = TightClones(PoissonPopulation(5000))
        >>> e0 = bound.max_eps0(0.1, 1e-5)
        >>> bound.delta(e0, 0.1) <= 1e-5
        True
        """
        eps = check_positive("eps", eps)
        delta = check_probability("delta", delta)
        log_target = math.log(delta)

        def ok(e0: float) -> bool:
            return self._delta(e0, eps) <= delta

        def score(e0: float) -> float:
            return math.log(max(self._delta(e0, eps), DELTA_FLOOR)) - log_target

        floor = max(eps, EPS0_MIN)  # eps0 <= eps always reaches (eps0, 0)-DP; the box starts at EPS0_MIN
        if not ok(floor):
            raise NotApplicableError(
                f"{self.name} bound not applicable: no eps0 in [{EPS0_MIN:g}, {EPS0_MAX:g}] reaches eps={eps}, "
                f"delta={delta}"
            )
        lo, hi = narrow_bracket(ok, gaussian_eps0(self._gaussian_mu, eps, delta), floor, EPS0_MAX)
        return last_true(ok, score, lo, hi, rtol=rtol)

    def _search_top(self, eps: float, delta: float) -> float:
        """An upper end of one round's largest ``eps0`` reaching ``(eps, delta)``: the top of the
        composed ε₀ search, which only needs it bracketed from above (every answer is certified by
        its composed ε). Resolved to a relative ``SEARCH_TOP_RTOL`` (1e-4) instead of 1e-9: at δ below
        the profile's floor its search bisects a jump (about 40 evaluations); then the far end of the
        bracket (:func:`~shufflelib._roots.upper_end`)."""
        return min(EPS0_MAX, upper_end(self.max_eps0(eps, delta, rtol=SEARCH_TOP_RTOL)))

    def _epsilon(self, eps0: float, delta: float) -> float:
        """ε(δ) by certified root finding in the direction of :attr:`upper`, on a bracket narrowed
        around the Gaussian-DP estimate (``mu = 2 tanh(eps0/2)/sqrt(E[C] + 1)``): ~10 evaluations."""
        guess = gaussian_dp_epsilon(self._gaussian_mu(eps0), delta)
        return invert_profile(lambda e: self._delta(eps0, e), delta, hi=eps0, upper=self.upper, guess=guess)

    def curve(self, eps0: float) -> ProfileCurve:
        """The privacy curve for local ``eps0`` (profile, inverse and trade-off views), upper or lower
        as the bound is (:attr:`upper`).

        Examples
        --------
        >>> from shufflelib.population.laws import PoissonPopulation
        >>> bound = TightClones(PoissonPopulation(5000))
        >>> abs(bound.curve(1.0).epsilon(1e-5) - bound.epsilon(1.0, 1e-5)) < 1e-8
        True
        """
        eps0 = check_positive("eps0", eps0)
        return ProfileCurve(lambda e: self.delta_profile(eps0, e), upper=self.upper)


class TightClones(_PopulationCurve):
    """The clone pair of Lemma 2 mixed over the population law: the numerical reference bound.

    Parameters
    ----------
    law
        The law of ``N − 1``.
    dummies
        Non-adaptive dummies ``k`` (or the padding threshold if ``adaptive``), an integer >= 0.
    adaptive
        Pad the batch to ``dummies`` messages instead of adding ``dummies`` reports.
    max_blocks
        Number of blocks the clone count is cut into (exact when its range is smaller).

    Notes
    -----
    Numerical tolerance: the result exceeds the pair's exact δ by the block
    slack (none when the clone count spans at most ``max_blocks`` values), the
    dropped mass (below ``1e-29`` for the closed-form laws, ``1e-17`` per side
    of ``N − 1`` for mixtures) and the rounding budget of
    :func:`clone_pair_delta`; δ is never reported below ``1e-300``.

    Examples
    --------
    >>> from shufflelib.population.laws import FixedPopulation
    >>> from shufflelib.bounds.clones import ClonesNumerical
    >>> a = TightClones(FixedPopulation(9_999)).epsilon(1.0, 1e-6)
    >>> b = ClonesNumerical().epsilon(10_000, 1.0, 1e-6)
    >>> abs(a - b) < 1e-8  # a fixed population is the classical clone bound
    True
    """

    name = "pop-tight"
    title = "Clone pair mixed over the population law (numerical reference; Lemma 2 computed exactly)"
    reference = WANG_2023 + " Computed as in " + ClonesNumerical.reference

    def __init__(
        self, law: PopulationLaw, dummies: int = 0, adaptive: bool = False, max_blocks: int = MAX_BLOCKS
    ) -> None:
        super().__init__(law, dummies, adaptive, max_blocks)
        self._counts: dict[float, tuple[np.ndarray, np.ndarray, float]] = {}

    def _clone_probability(self, eps0: float) -> float:
        return math.exp(-eps0)

    def privacy_loss(self) -> PrivacyLoss:
        """The mixed clone pair (an upper bound): one clone pair per block of the clone count's law
        (:class:`~shufflelib.bounds.privacy_loss.CloneCountLoss`). Its atoms are listed one by one,
        whose cost does not shrink with the grid (and the windows are short): no coarse stage, and
        no companion.

        Examples
        --------
        >>> from shufflelib.population.laws import PoissonPopulation
        >>> loss = TightClones(PoissonPopulation(5000)).privacy_loss()
        >>> loss.form, loss.upper, loss.coarse, loss.bracket
        ('pair', True, False, False)
        """

        def scale(eps0: float) -> float:
            return 2.0 * math.tanh(eps0 / 2.0) / math.sqrt(1.0 + self.clone_count(eps0).mean())

        return PrivacyLoss(
            "pair",
            True,
            epsilon=self.epsilon,
            largest=self._search_top,
            pair=lambda eps0: CloneCountLoss(eps0, self.clone_count(eps0), self.max_blocks),
            scale=scale,
            coarse=False,
            bracket=False,
        )

    def clone_count(self, eps0: float) -> CloneCount:
        """The law of the number of clones at local parameter ``eps0``.

        Examples
        --------
        >>> from shufflelib.population.laws import PoissonPopulation
        >>> round(TightClones(PoissonPopulation(100)).clone_count(1.0).mean(), 4)
        36.7879
        """
        return clone_count(self.law, check_positive("eps0", eps0), self.dummies, self.adaptive)

    def _blocks(self, eps0: float) -> tuple[np.ndarray, np.ndarray, float]:
        if eps0 not in self._counts:
            if len(self._counts) >= _CACHE:
                self._counts.clear()
            self._counts[eps0] = self.clone_count(eps0).blocks(self.max_blocks)
        return self._counts[eps0]

    def delta_profile(self, eps0: float, eps: object) -> np.ndarray:
        """Vectorized δ(ε) for local ``eps0`` and an array of ``eps >= 0``.

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.population.laws import PoissonPopulation
        >>> d = TightClones(PoissonPopulation(5000)).delta_profile(1.0, np.array([0.05, 0.1, 0.2]))
        >>> bool(np.all(np.diff(d) < 0))
        True
        """
        eps0 = check_positive("eps0", eps0)
        starts, masses, dropped = self._blocks(eps0)
        return clone_pair_delta(eps, eps0, starts, masses, dropped)

    def _delta(self, eps0: float, eps: float) -> float:
        return float(self.delta_profile(eps0, np.array([eps]))[0])


class ExactShuffledRR(_PopulationCurve):
    """Exact δ(ε) of shuffled binary randomized response on one pair of datasets: a lower bound.

    User 1 holds 0 or 1; every other participant and every dummy holds 0. The
    analyzer sees the number of messages and the number of 1s. Given ``n``
    messages the likelihood ratio is linear in the count of 1s, so each
    direction of the divergence is a binomial tail expectation; the output
    reveals ``n``, so δ is the average over the population law, direction by
    direction. Values are rounded **down**: the support of ``N − 1`` is cut
    at ``1e-17`` on each side and grouped in blocks whose *right* end is used
    (δ decreases with ``n``), the binomial error budget is subtracted.

    Parameters
    ----------
    law
        The law of ``N − 1``.
    dummies
        Non-adaptive dummies ``k`` (or the padding threshold if ``adaptive``).
    adaptive
        Pad the batch to ``dummies`` messages.
    max_blocks
        Number of blocks of values of ``N − 1`` (exact when the support is smaller).

    Examples
    --------
    >>> from shufflelib.population.laws import FixedPopulation
    >>> from shufflelib.bounds.exact import TwoPairKRRLowerBound
    >>> a = ExactShuffledRR(FixedPopulation(999)).epsilon(1.0, 1e-6)
    >>> b = TwoPairKRRLowerBound(mechanism="krr", k=2).epsilon(1_000, 1.0, 1e-6)
    >>> abs(a - b) < 1e-6
    True
    """

    name = "pop-exact-rr"
    title = "Exact shuffled binary randomized response on one pair of datasets (a lower bound)"
    upper = False

    def __init__(
        self, law: PopulationLaw, dummies: int = 0, adaptive: bool = False, max_blocks: int = EXACT_BLOCKS
    ) -> None:
        super().__init__(law, dummies, adaptive, max_blocks)
        values, probs, _ = self.law.support()
        users = others_after_dummies(values, self.dummies, self.adaptive).astype(float) + 1.0
        if users.size > self.max_blocks:  # group; each block keeps its largest n (delta decreases in n)
            index = np.linspace(0, users.size, self.max_blocks, endpoint=False).astype(np.int64)
            right = np.append(index[1:], users.size) - 1
            users, probs = users[right], np.add.reduceat(probs, index)
        self._users, self._weights = users, probs

    def _clone_probability(self, eps0: float) -> float:
        # The count of 1s moves by tanh(eps0/2) against a standard deviation sqrt(n p (1 - p)):
        # the Gaussian estimate of the clone pair with 4 p (1 - p) = 1/cosh^2(eps0/2) clones per user.
        t = math.exp(-eps0)
        return 4.0 * t / (1.0 + t) ** 2

    def delta_profile(self, eps0: float, eps: object) -> np.ndarray:
        """Vectorized exact δ(ε) (rounded down) for local ``eps0`` and an array of ``eps >= 0``.

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.population.laws import FixedPopulation
        >>> d = ExactShuffledRR(FixedPopulation(1)).delta_profile(1.0, np.array([0.0]))
        >>> round(float(d[0]), 6)  # two users: TV of Bern(p) + Bern(p) and Bern(p) + Bern(1 - p)
        0.337835
        """
        eps0 = check_positive("eps0", eps0)
        eps = np.atleast_1d(np.asarray(eps, dtype=float))
        out = np.zeros(eps.shape)
        live = eps < eps0
        if not live.any():
            return out
        e = eps[live][:, None]
        n = self._users[None, :]
        p_hi = 1.0 / (1.0 + math.exp(-eps0))
        p_lo = math.exp(-eps0) * p_hi
        two_sinh = 2.0 * math.exp(float(log_sinh(eps0)))  # e^eps0 - e^-eps0
        down = np.exp(-e) * -np.expm1(e - eps0)  # e^-eps - e^-eps0 >= 0
        up = np.exp(e) * np.expm1(eps0 - e)  # e^eps0 - e^eps >= 0
        # User 1 holds 0 (X0) or 1 (X1); given n messages with S ones, Pr[S | X1]/Pr[S | X0]
        # = (e^-eps0 (n - S) + e^eps0 S)/n, so each direction is kappa E[(t - X)^+] for a binomial X.
        va, ea = binomial_shortfall(n, p_lo, n * down / two_sinh)  # X0 || X1, X = S
        vb, eb = binomial_shortfall(n, p_hi, n * up / two_sinh)  # X1 || X0, X = n - S
        log_kappa = math.log(two_sinh) - np.log(n)
        da = scaled_sum(np.maximum(va - ea, 0.0), e + log_kappa, self._weights)
        db = scaled_sum(np.maximum(vb - eb, 0.0), log_kappa, self._weights)
        out[live] = np.maximum(da, db) * (1.0 - BINOM_RTOL)
        return out

    def _delta(self, eps0: float, eps: float) -> float:
        return float(self.delta_profile(eps0, np.array([eps]))[0])


def rr_population_sampler(law: PopulationLaw, eps0: float, dummies: int = 0, adaptive: bool = False) -> SampleFn:
    """Sampler of the likelihood-ratio score of :class:`ExactShuffledRR`'s pair, for the auditor.

    Dataset 0: everyone holds 0; dataset 1: user 1 holds 1. Each draw samples
    ``N − 1`` from ``law``, applies the dummy policy (dummies hold 0) and
    randomized response, and returns ``(e^{-eps0}(n − S) + e^{eps0} S)/n`` for
    ``n`` messages with ``S`` ones: the likelihood ratio of dataset 1 to
    dataset 0, the most powerful score.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> sample = rr_population_sampler(PoissonPopulation(100), 2.0)
    >>> sample(1, 4, np.random.default_rng(0)).shape
    (4,)
    """
    if not isinstance(law, PopulationLaw):
        raise ValueError(f"law must be a PopulationLaw, got {type(law).__name__}")
    dummies = check_int("dummies", dummies, minimum=0, maximum=N_MAX)
    if not isinstance(adaptive, bool):
        raise ValueError(f"adaptive must be True or False, got {adaptive!r}")
    eps0 = check_positive("eps0", eps0)
    p_lo = 1.0 / (math.exp(eps0) + 1.0)

    def sample_fn(dataset_index: int, size: int, rng: np.random.Generator) -> np.ndarray:
        dataset_index = check_int("dataset_index", dataset_index, minimum=0, maximum=1)
        others = others_after_dummies(law.sample(size, rng), dummies, adaptive)
        first = rng.random(size) < (1.0 - p_lo if dataset_index else p_lo)
        ones = rng.binomial(others, p_lo) + first
        n = others + 1.0
        return (math.exp(-eps0) * (n - ones) + math.exp(eps0) * ones) / n

    return sample_fn
