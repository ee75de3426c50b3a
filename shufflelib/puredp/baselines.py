"""Baselines for pure ``eps``-DP counting: central, local, and single-message shuffled.

* **Central** (a trusted curator): the true count plus ``DLap(eps)``, MSE
  ``Var DLap(eps) = 1 / (2 sinh^2(eps/2))``, optimal among ``eps``-DP mechanisms.
* **Local**: binary randomized response with ``eps0 = eps`` and the debiased
  count of :mod:`shufflelib.estimators`, MSE ``n e^eps / (e^eps - 1)^2``.
* **Single-message shuffled**: randomized response whose one-bit reports are
  shuffled. Under *pure* DP the shuffler buys nothing here: the shuffled count
  ``Bin(k, p) + Bin(n - k, 1 - p)`` has the same pure privacy loss ``eps0`` as a
  single report (the extreme counts 0 and ``n`` are as revealing as one report),
  so ``eps0 = eps`` and the error is the local one. :func:`shuffled_rr_pure_epsilon`
  computes that loss exactly; Balcer and Cheu prove that no single-message pure
  protocol does better than the local model.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp
from scipy.stats import binom

from .._docstrings import fill_doc
from .._validation import check_int, check_positive
from ..estimators import count_variance
from ..randomizers import BinaryRandomizedResponse
from .dlap import dlap_variance

__all__ = [
    "MAX_EXACT_USERS",
    "central_dlap_mse",
    "local_rr_mse",
    "shuffled_rr_pure_epsilon",
]

#: Largest ``n`` for which :func:`shuffled_rr_pure_epsilon` convolves the pmfs (cost ``O(n^3)``).
MAX_EXACT_USERS = 400


def central_dlap_mse(eps: float) -> float:
    """MSE of the central discrete Laplace mechanism at privacy ``eps`` (> 0): its noise's variance ``Var DLap(eps)``.

    Examples
    --------
    >>> round(central_dlap_mse(1.0), 4)
    1.8413
    """
    return dlap_variance(eps)


@fill_doc
def local_rr_mse(n: int, eps: float) -> float:
    """MSE of the debiased count of binary randomized response with ``eps0 = eps`` (local or shuffled).

    Parameters
    ----------
    %(n)s %(eps_pure)s

    Returns
    -------
    float
        ``n e^eps / (e^eps - 1)^2``, whatever the true count.

    Examples
    --------
    >>> round(local_rr_mse(10_000, 1.0), 1)
    9206.7
    """
    return float(count_variance(0, n, eps))


@fill_doc
def shuffled_rr_pure_epsilon(n: int, eps0: float) -> float:
    """Exact pure privacy loss of the shuffled count of ``n`` binary randomized-response reports.

    ``max_k max_y |ln P[Y_{k+1} = y] - ln P[Y_k = y]|`` with
    ``Y_k = Bin(k, p) + Bin(n - k, 1 - p)``, ``p = e^{eps0} / (e^{eps0} + 1)``,
    computed by exact log-space convolution for every ``k`` and ``y``
    (``n <= MAX_EXACT_USERS``).

    Parameters
    ----------
    n
        Number of users, an integer in ``[1, MAX_EXACT_USERS]``.
    %(eps0)s

    Returns
    -------
    float
        The loss; it equals ``eps0`` (attained at ``y = 0`` and ``y = n``).

    Examples
    --------
    >>> round(shuffled_rr_pure_epsilon(50, 1.0), 12)
    1.0
    """
    n = check_int("n", n, minimum=1, maximum=MAX_EXACT_USERS)
    eps0 = check_positive("eps0", eps0)
    p = BinaryRandomizedResponse(eps0).truth_probability
    y = np.arange(n + 1)
    logs = []
    for k in range(n + 1):
        i = np.arange(k + 1)
        # log P[Bin(k, p) = i] + log P[Bin(n - k, 1 - p) = y - i], summed over i.
        terms = binom.logpmf(i, k, p)[:, None] + binom.logpmf(y[None, :] - i[:, None], n - k, 1.0 - p)
        logs.append(logsumexp(terms, axis=0))
    return float(max(np.abs(logs[k + 1] - logs[k]).max() for k in range(n)))
