"""The correlated-noise counting protocol of Ghazi, Kumar and Manurangsi (pure DP).

Each of ``n`` users holds a bit ``x_i`` and sends copies of the one-bit messages
``+1`` and ``-1`` (Algorithm 1 of the paper):

* **input-dependent block**: with probability ``q`` nothing; otherwise ``s + x_i``
  copies of ``+1`` and ``s`` copies of ``-1``;
* **noise**: ``z+`` extra ``+1`` and ``z-`` extra ``-1``, i.i.d. ``NB(1/n, p)`` with
  ``p = 1 - e^{-eps'}``, so that over all users they sum to two independent
  geometric variables and their difference is ``DLap(eps')``;
* **flooding**: ``z±`` copies of *both* ``+1`` and ``-1``, ``z± ~ Poi(lam / n)``;
  they cancel in the sum and only hide the input-dependent blocks.

The analyzer returns the sum of the messages, ``V+ - V-``. (The paper's
Algorithm 2 prints ``sum - n s``; that subtracts a term that is not there, see
:func:`analyze_as_printed` and the chapter's erratum.)

Sufficient statistics. The analyzer's view is the pair ``(V+, V-)`` of message
counts (every ordering of a multiset is equally likely), and its law depends on
the data only through ``k = sum x_i``:

``V+ = s M + K + Z + G+``, ``V- = s M + Z + G-``, with independent
``K ~ Bin(k, 1-q)``, ``R ~ Bin(n-k, 1-q)``, ``M = K + R``, ``Z ~ Poi(lam)``,
``G± ~ Geo(p)`` on ``{0, 1, ...}``. Hence the estimate is ``K + G+ - G-`` and its
error is ``DLap(eps') - Bin(k, q)``, which gives the exact bias ``-k q``,
variance ``Var DLap(eps') + k q (1 - q)`` and MSE ``Var DLap(eps') + k q (1-q) + k^2 q^2``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .._docstrings import fill_doc
from .._validation import check_array, check_generator, check_in_range, check_int, check_nonnegative, check_positive
from ..shuffler import shuffle
from .dlap import dlap_variance, sample_dlap

__all__ = [
    "MAX_MESSAGES",
    "CountingParams",
    "analyze",
    "analyze_as_printed",
    "labelled_messages",
    "labelled_sums",
    "noisy_counts",
    "randomize",
    "run_protocol",
    "simulate_estimates",
    "simulate_view",
]

#: Largest number of messages :func:`run_protocol` materialises (use :func:`simulate_view` beyond).
MAX_MESSAGES = 20_000_000


@dataclass(frozen=True)
class CountingParams:
    """Parameters of the correlated-noise counting protocol.

    Parameters
    ----------
    eps
        The target privacy parameter the parameters are meant for (> 0); the
        protocol itself does not use it, the privacy checks compare against it.
    eps_noise
        ``eps'`` (> 0): the noise is ``DLap(eps')`` in total.
    q
        Probability, in ``[0, 1)``, that a user sends no input-dependent block.
        ``q = 0`` is allowed for negative controls (the protocol is then not pure DP).
    s
        Number of ``(+1, -1)`` pairs in the input-dependent block, an integer >= 0.
    lam
        Mean ``lambda`` (>= 0) of the total flood ``Poi(lambda)``.

    Examples
    --------
    >>> params = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0)
    >>> round(params.expected_messages(n=50, x=1), 3)
    23.012
    >>> round(params.mean_messages(n=50, k=30), 3)
    22.632
    >>> round(params.debiased_variance(k=30), 4)
    10.2608
    >>> round(params.mse(n=50, k=30), 4)
    11.5104
    """

    eps: float
    eps_noise: float
    q: float
    s: int
    lam: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", check_positive("eps", self.eps))
        object.__setattr__(self, "eps_noise", check_positive("eps_noise", self.eps_noise))
        object.__setattr__(self, "q", check_in_range("q", self.q, 0.0, 1.0, closed_high=False))
        object.__setattr__(self, "s", check_int("s", self.s, minimum=0))
        object.__setattr__(self, "lam", check_nonnegative("lam", self.lam))

    @property
    def noise_p(self) -> float:
        """Success probability ``p = 1 - e^{-eps'}`` of the geometric noise."""
        return -math.expm1(-self.eps_noise)

    def bias(self, k: int) -> float:
        """Exact bias ``-k q`` of the estimate when ``k`` users hold 1."""
        k = check_int("k", k, minimum=0)
        return -k * self.q

    def variance(self, k: int) -> float:
        """Exact variance ``Var DLap(eps') + k q (1 - q)`` of the estimate."""
        k = check_int("k", k, minimum=0)
        return dlap_variance(self.eps_noise) + k * self.q * (1.0 - self.q)

    def mse(self, n: int, k: int) -> float:
        """Exact mean squared error with ``n`` users of whom ``k`` hold 1.

        ``Var DLap(eps') + k q (1 - q) + k^2 q^2``; its maximum over ``k <= n``,
        at ``k = n``, is the bound ``Var DLap(eps') + q n + q^2 n (n-1)`` of
        Lemma 11.
        """
        n = check_int("n", n, minimum=1)
        k = check_int("k", k, minimum=0, maximum=n)
        return self.variance(k) + (k * self.q) ** 2

    def worst_mse(self, n: int) -> float:
        """The largest MSE over all datasets of ``n`` users (reached at ``k = n``)."""
        return self.mse(n, check_int("n", n, minimum=1))

    def debias(self, estimates: object) -> np.ndarray:
        """Divide estimates by ``1 - q``: unbiased, with variance :meth:`debiased_variance`.

        Not in the paper, whose analyzer keeps the bias ``-k q``.
        """
        return check_array("estimates", estimates) / (1.0 - self.q)

    def debiased_variance(self, k: int) -> float:
        """Exact variance (and MSE) of :meth:`debias` applied to the estimate."""
        return self.variance(k) / (1.0 - self.q) ** 2

    def expected_messages(self, n: int, x: int = 1) -> float:
        """Expected number of one-bit messages sent by a user holding ``x``.

        ``(1 - q)(2 s + x) + 2 / (n (e^{eps'} - 1)) + 2 lam / n``: the block, the
        two noise shares (each of mean ``(1-p)/(p n)``) and the flood, which
        costs one ``+1`` *and* one ``-1`` per unit.
        """
        n = check_int("n", n, minimum=1)
        x = check_int("x", x, minimum=0, maximum=1)
        noise = 2.0 / (n * math.expm1(self.eps_noise))
        return (1.0 - self.q) * (2 * self.s + x) + noise + 2.0 * self.lam / n

    def mean_messages(self, n: int, k: int) -> float:
        """Expected messages per user, averaged over ``n`` users of whom ``k`` hold 1.

        ``(1 - q)(2 s + k / n) + 2 / (n (e^{eps'} - 1)) + 2 lam / n``.
        """
        n = check_int("n", n, minimum=1)
        k = check_int("k", k, minimum=0, maximum=n)
        return (k * self.expected_messages(n, 1) + (n - k) * self.expected_messages(n, 0)) / n


def _check_bits(x: object) -> np.ndarray:
    bits = check_array("x", x, ndim=1, low=0, high=1, integral=True).astype(np.int64)
    if bits.size == 0:
        raise ValueError("x must hold at least one user's bit, got an empty array")
    return bits


@fill_doc
def randomize(x: object, params: CountingParams, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Run every user's randomizer (Algorithm 1): how many ``+1`` and ``-1`` each sends.

    Parameters
    ----------
    x
        1-D array of the ``n`` users' bits.
    %(params)s %(rng)s

    Returns
    -------
    plus, minus
        ``int64`` arrays of length ``n``: the numbers of ``+1`` and ``-1`` messages of each user.

    Examples
    --------
    >>> import numpy as np
    >>> params = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0)
    >>> plus, minus = randomize(np.array([1, 0, 1]), params, np.random.default_rng(0))
    >>> plus.shape, bool((plus >= 0).all() and (minus >= 0).all())
    ((3,), True)
    """
    bits = _check_bits(x)
    if not isinstance(params, CountingParams):
        raise ValueError(f"params must be a CountingParams, got {type(params).__name__}")
    rng = check_generator("rng", rng)
    n = bits.size
    active = rng.random(n) >= params.q
    y_plus = np.where(active, params.s + bits, 0)
    y_minus = np.where(active, params.s, 0)
    # NB(1/n, p): failures before 1/n successes; n users' shares sum to Geo(p) on {0, 1, ...}.
    z_plus = rng.negative_binomial(1.0 / n, params.noise_p, n)
    z_minus = rng.negative_binomial(1.0 / n, params.noise_p, n)
    flood = rng.poisson(params.lam / n, n)
    return (y_plus + z_plus + flood).astype(np.int64), (y_minus + z_minus + flood).astype(np.int64)


@fill_doc
def run_protocol(x: object, params: CountingParams, rng: np.random.Generator) -> np.ndarray:
    """Randomize every user's bit and shuffle all messages: the analyzer's input.

    Parameters
    ----------
    x
        1-D array of the users' bits.
    %(params)s %(rng)s

    Returns
    -------
    numpy.ndarray
        ``int8`` array of ``+1`` and ``-1`` messages in uniformly random order.

    Raises
    ------
    ValueError
        If the users would send more than :data:`MAX_MESSAGES` messages (use
        :func:`simulate_view` then).

    Examples
    --------
    >>> import numpy as np
    >>> params = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0)
    >>> messages = run_protocol(np.array([1, 0, 1, 1]), params, np.random.default_rng(1))
    >>> set(np.unique(messages).tolist()) <= {-1, 1}
    True
    """
    plus, minus = randomize(x, params, rng)
    total = int(plus.sum() + minus.sum())
    if total > MAX_MESSAGES:
        raise ValueError(
            f"the users send {total} messages, more than MAX_MESSAGES={MAX_MESSAGES}: "
            "use simulate_view, which samples the shuffled view directly"
        )
    messages = np.concatenate([np.ones(int(plus.sum()), dtype=np.int8), -np.ones(int(minus.sum()), dtype=np.int8)])
    return shuffle(messages, rng)


def analyze(messages: object) -> int:
    """The analyzer (Algorithm 2, corrected): the sum of all ``±1`` messages.

    Parameters
    ----------
    messages
        1-D array of ``+1`` / ``-1`` messages (in any order).

    Returns
    -------
    int
        ``V+ - V-``, the estimate of the number of users holding 1.

    Examples
    --------
    >>> analyze([1, -1, 1, 1, -1])
    1
    """
    arr = check_array("messages", messages, ndim=1, integral=True)
    if arr.size and not np.all(np.abs(arr) == 1):
        raise ValueError("messages must contain only +1 and -1")
    return int(arr.sum())


@fill_doc
def analyze_as_printed(messages: object, n: int, s: int) -> int:
    """Algorithm 2 exactly as printed in the paper: ``sum(messages) - n s``.

    Kept to demonstrate the erratum: the input-dependent blocks ``(s + x, s)``
    already cancel in the sum, so subtracting ``n s`` biases the estimate by
    ``-n s``.

    Parameters
    ----------
    messages
        1-D array of ``+1`` / ``-1`` messages.
    %(n_users)s
    s
        The protocol's ``s``, an integer >= 0.

    Returns
    -------
    int

    Examples
    --------
    >>> analyze_as_printed([1, -1, 1], n=2, s=3)
    -5
    """
    n = check_int("n", n, minimum=1)
    s = check_int("s", s, minimum=0)
    return analyze(messages) - n * s


@fill_doc
def labelled_messages(
    columns: Iterable[np.ndarray], params: Iterable[CountingParams], rng: np.random.Generator, *, instead: str
) -> np.ndarray:
    """The counting protocol run once per label (a histogram's bucket, a sum's level), shuffled.

    Column ``j`` holds the users' bits for label ``j``; each user's messages for it are tagged
    ``(j, +1)`` or ``(j, -1)`` and all of them are shuffled together (validated inputs).

    Parameters
    ----------
    columns
        Per label, the 1-D array of the users' bits (drawn in order, so lazily made ones are fine).
    params
        Per label, the counting protocol's parameters.
    %(rng)s
    instead
        The sufficient-statistics simulation to name when the messages exceed :data:`MAX_MESSAGES`.

    Returns
    -------
    numpy.ndarray
        ``int64`` array of shape ``(messages, 2)`` of rows ``(label, sign)``.

    Examples
    --------
    >>> import numpy as np
    >>> params = CountingParams(eps=1.0, eps_noise=0.5, q=0.0, s=0, lam=0.0)
    >>> m = labelled_messages([np.array([1, 1]), np.array([0, 1])], [params] * 2, np.random.default_rng(0),
    ...                       instead="simulate_histograms")
    >>> m.shape[1], set(m[:, 0].tolist()) <= {0, 1}
    (2, True)
    """
    parts, total = [], 0
    for label, (column, level) in enumerate(zip(columns, params, strict=True)):
        plus, minus = randomize(column, level, rng)
        p, m = int(plus.sum()), int(minus.sum())
        total += p + m
        if total > MAX_MESSAGES:
            raise ValueError(f"the users send more than MAX_MESSAGES={MAX_MESSAGES} messages: use {instead}")
        parts.append(np.column_stack([np.full(p + m, label), np.r_[np.ones(p, np.int64), -np.ones(m, np.int64)]]))
    return shuffle(np.concatenate(parts).astype(np.int64), rng)


@fill_doc
def labelled_sums(messages: object, labels: int, what: str) -> np.ndarray:
    """The analyzer of :func:`labelled_messages`: per label ``0..labels-1``, the sum of its signs.

    Parameters
    ----------
    %(labelled_messages)s
    labels
        Number of labels, an integer >= 1 (validated by the caller).
    what
        What a label is, plural, for the error message (``"buckets"``, ``"levels"``).

    Returns
    -------
    numpy.ndarray
        ``float`` sums of length ``labels``.

    Examples
    --------
    >>> labelled_sums([[0, 1], [1, 1], [1, -1], [1, 1]], 3, "buckets").tolist()
    [1.0, 1.0, 0.0]
    """
    arr = check_array("messages", messages, ndim=2, integral=True).astype(np.int64)
    if arr.shape[1] != 2:
        raise ValueError(f"messages must have 2 columns ({what[:-1]}, sign), got shape {arr.shape}")
    if arr.size and (arr[:, 0].min() < 0 or arr[:, 0].max() >= labels or not np.all(np.abs(arr[:, 1]) == 1)):
        raise ValueError(f"messages must have {what} in [0, {labels - 1}] and signs +1 or -1")
    return np.bincount(arr[:, 0], weights=arr[:, 1], minlength=labels)


def _check_common(n: int, k: int, params: CountingParams, size: int, rng: np.random.Generator):
    n = check_int("n", n, minimum=1)
    k = check_int("k", k, minimum=0, maximum=n)
    if not isinstance(params, CountingParams):
        raise ValueError(f"params must be a CountingParams, got {type(params).__name__}")
    size = check_int("size", size, minimum=1)
    rng = check_generator("rng", rng)
    return n, k, size, rng


@fill_doc
def simulate_view(
    n: int, k: int, params: CountingParams, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Draw the analyzer's view ``(V+, V-)`` of ``size`` independent runs, in time independent of ``n``.

    Parameters
    ----------
    %(n_users)s %(k_holding)s %(params)s %(size)s %(rng)s

    Returns
    -------
    v_plus, v_minus
        ``int64`` arrays of shape ``(size,)``: the numbers of ``+1`` and ``-1`` messages.

    Examples
    --------
    >>> import numpy as np
    >>> params = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0)
    >>> vp, vm = simulate_view(10**6, 300_000, params, 4, np.random.default_rng(0))
    >>> vp.shape, bool(((vp - vm) > 250_000).all())
    ((4,), True)
    """
    n, k, size, rng = _check_common(n, k, params, size, rng)
    keep = 1.0 - params.q
    ones = rng.binomial(k, keep, size)
    zeros = rng.binomial(n - k, keep, size)
    flood = rng.poisson(params.lam, size)
    # numpy's geometric counts trials (support 1, 2, ...): subtract 1 for the paper's Geo on {0, 1, ...}.
    g_plus = rng.geometric(params.noise_p, size) - 1
    g_minus = rng.geometric(params.noise_p, size) - 1
    blocks = params.s * (ones + zeros) + flood
    return (blocks + ones + g_plus).astype(np.int64), (blocks + g_minus).astype(np.int64)


@fill_doc
def simulate_estimates(n: int, k: int, params: CountingParams, size: int, rng: np.random.Generator) -> np.ndarray:
    """Draw the analyzer's estimate ``V+ - V-`` of ``size`` independent runs (``K + G+ - G-``).

    Parameters
    ----------
    %(n_users)s %(k_holding)s %(params)s %(size)s %(rng)s

    Returns
    -------
    numpy.ndarray
        ``int64`` estimates of ``k``, shape ``(size,)``.

    Examples
    --------
    >>> import numpy as np
    >>> params = CountingParams(eps=1.0, eps_noise=0.5, q=0.05, s=10, lam=75.0)
    >>> est = simulate_estimates(50, 30, params, 100_000, np.random.default_rng(0))
    >>> abs(float(((est - 30) ** 2).mean()) - params.mse(50, 30)) < 0.3
    True
    """
    n, k, size, rng = _check_common(n, k, params, size, rng)
    return noisy_counts(np.full(size, k), params.q, params.eps_noise, rng)


def noisy_counts(counts: np.ndarray, q: float, eps_noise: float, rng: np.random.Generator) -> np.ndarray:
    """The counting protocol's estimate of each count in ``counts``: ``C - Bin(C, q) + DLap(eps_noise)``.

    The one sampler behind the estimates of counting, histograms (one count per bucket) and
    real summation (one count per level): the kept messages ``Bin(C, 1 - q)`` plus the
    noise's net ``G+ - G-``, drawn in that order (validated inputs).

    Examples
    --------
    >>> import numpy as np
    >>> noisy_counts(np.array([5, 7]), 0.0, 50.0, np.random.default_rng(0))
    array([5, 7])
    """
    kept = rng.binomial(counts, 1.0 - q)
    return (kept + sample_dlap(eps_noise, counts.shape, rng)).astype(np.int64)
