"""Pure-DP histograms (Corollary 4): one counting protocol per bucket, at ``eps / 2`` each.

A user holding ``x_i in {0, ..., B-1}`` runs the ``(eps/2)``-DP counting
randomizer once per bucket ``b`` on the bit ``1[x_i = b]`` and tags the messages
with ``b`` (``O(log B)`` bits per message). Changing one user's value changes
two buckets' bits, so by basic composition the protocol is ``eps``-DP.

Error. Bucket ``b``'s estimate is ``h_b + N_b - Bin(h_b, q)`` with i.i.d.
``N_b ~ DLap(eps')``, so ``E max_b |h~_b - h_b| <= E max_b |N_b| + n q`` and
``E max_b |N_b| <= (ln(2B) + 1) / eps' + 1``: ``O((1 + log B) / eps)``, better
than the paper's stated ``O(log B log n / eps)``.
"""

from __future__ import annotations

import numpy as np

from .._docstrings import fill_doc
from .._validation import check_array, check_generator, check_int, check_positive
from .counting import CountingParams, labelled_messages, labelled_sums, noisy_counts
from .dlap import expected_max_abs_dlap
from .rules import counting_params

__all__ = [
    "histogram_analyze",
    "histogram_expected_messages",
    "histogram_messages",
    "histogram_params",
    "linf_error_bound",
    "simulate_histograms",
]


@fill_doc
def histogram_params(n: int, eps: float, rho: float = 0.5, rule: str = "practical") -> CountingParams:
    """The per-bucket counting parameters: ``eps / 2``-DP, MSE within ``(1 + rho)`` of ``Var DLap(eps / 2)``.

    Parameters
    ----------
    %(n_users)s %(eps_total)s
    rho
        Relative MSE excess of each bucket, > 0.
    rule
        See :func:`~shufflelib.puredp.rules.counting_params`.

    Returns
    -------
    CountingParams

    Examples
    --------
    >>> histogram_params(1000, 1.0).eps
    0.5
    """
    eps = check_positive("eps", eps)
    return counting_params(n, eps / 2.0, rho, rule)


def _check_params(params: object) -> CountingParams:
    if not isinstance(params, CountingParams):
        raise ValueError(f"params must be a CountingParams, got {type(params).__name__}")
    return params


@fill_doc
def histogram_messages(x: object, buckets: int, params: CountingParams, rng: np.random.Generator) -> np.ndarray:
    """Run every user's randomizer on every bucket and shuffle: the analyzer's input.

    Parameters
    ----------
    x
        1-D array of the users' values in ``{0, ..., buckets - 1}``.
    %(buckets)s %(bucket_params)s %(rng)s

    Returns
    -------
    numpy.ndarray
        ``int64`` array of shape ``(messages, 2)`` of rows ``(bucket, sign)`` in random order.

    Examples
    --------
    >>> import numpy as np
    >>> params = histogram_params(3, 2.0)
    >>> m = histogram_messages(np.array([0, 2, 2]), 3, params, np.random.default_rng(0))
    >>> m.shape[1]
    2
    """
    buckets = check_int("buckets", buckets, minimum=1)
    values = check_array("x", x, ndim=1, low=0, high=buckets - 1, integral=True).astype(np.int64)
    params = _check_params(params)
    rng = check_generator("rng", rng)
    columns = ((values == b).astype(np.int64) for b in range(buckets))
    return labelled_messages(columns, [params] * buckets, rng, instead="simulate_histograms")


@fill_doc
def histogram_analyze(messages: object, buckets: int) -> np.ndarray:
    """The analyzer: per bucket, the sum of the signs of the messages labelled with it.

    Parameters
    ----------
    %(labelled_messages)s
    %(buckets)s

    Returns
    -------
    numpy.ndarray
        ``int64`` estimated histogram of length ``B``.

    Examples
    --------
    >>> histogram_analyze([[0, 1], [1, 1], [1, -1], [1, 1]], 3).tolist()
    [1, 1, 0]
    """
    buckets = check_int("buckets", buckets, minimum=1)
    return labelled_sums(messages, buckets, "buckets").astype(np.int64)


@fill_doc
def simulate_histograms(counts: object, params: CountingParams, size: int, rng: np.random.Generator) -> np.ndarray:
    """Estimated histograms of ``size`` independent runs, through sufficient statistics.

    Parameters
    ----------
    counts
        1-D array of the true bucket counts ``h_b`` (integers >= 0).
    %(bucket_params)s %(size)s %(rng)s

    Returns
    -------
    numpy.ndarray
        ``int64`` array of shape ``(size, B)``: ``h_b - Bin(h_b, q) + DLap(eps')`` per bucket.

    Examples
    --------
    >>> import numpy as np
    >>> params = histogram_params(100, 1.0)
    >>> simulate_histograms([60, 30, 10], params, 4, np.random.default_rng(0)).shape
    (4, 3)
    """
    h = check_array("counts", counts, ndim=1, low=0, integral=True).astype(np.int64)
    params = _check_params(params)
    size = check_int("size", size, minimum=1)
    rng = check_generator("rng", rng)
    return noisy_counts(np.broadcast_to(h, (size, h.size)), params.q, params.eps_noise, rng)


@fill_doc
def histogram_expected_messages(n: int, buckets: int, params: CountingParams) -> float:
    """Expected messages per user: ``B`` runs of the counting randomizer, one with input 1.

    Parameters
    ----------
    n
        Number of users, an integer >= 1 (they share the noise and the flood: ``1/n`` each).
    %(buckets)s %(bucket_params)s

    Returns
    -------
    float
        The expectation, the same for every dataset.

    Examples
    --------
    >>> params = histogram_params(1000, 1.0)
    >>> histogram_expected_messages(1000, 8, params) > 8 * params.expected_messages(1000, 0)
    True
    """
    buckets = check_int("buckets", buckets, minimum=1)
    params = _check_params(params)
    return (buckets - 1) * params.expected_messages(n, 0) + params.expected_messages(n, 1)


@fill_doc
def linf_error_bound(n: int, buckets: int, params: CountingParams) -> float:
    """Upper bound ``E max_b |N_b| + n q`` on the expected l_inf error, for every dataset.

    Parameters
    ----------
    n
        Number of users, an integer >= 1 (each input is dropped with probability ``q``: the ``n q``).
    %(buckets)s %(bucket_params)s

    Returns
    -------
    float
        The bound on ``E max_b |ĥ_b − h_b|``.

    Examples
    --------
    >>> params = histogram_params(10**4, 1.0)
    >>> import math
    >>> linf_error_bound(10**4, 64, params) < 1.0 + (math.log(128) + 1) / params.eps_noise + 10**4 * params.q
    True
    """
    n = check_int("n", n, minimum=1)
    params = _check_params(params)
    return expected_max_abs_dlap(buckets, params.eps_noise) + n * params.q
