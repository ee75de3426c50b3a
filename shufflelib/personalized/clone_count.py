r"""Clone counts of users at personalized privacy levels, and their clone pair.

In every clone analysis of Liu et al., user ``i ≠ 1`` independently produces a clone of user
1's report with probability ``q_i`` (``q_i = 2 p_i``), so the number of clones is
Poisson-binomial; users of one level share ``q``, so it is a sum of a few binomials:
``CloneCount`` (:class:`shufflelib.bounds.clone_pair.BinomialSum`). User 1's report is a
clone of the *other* value with probability ``w``. Both the count and the pair's
hockey-stick divergence are computed by :mod:`shufflelib.bounds.clone_pair`, the one
clone-pair core of the library; this module only translates ``w`` into the local log-odds
``log((1 − w)/w)``.

Examples
--------
>>> import math
>>> cc = CloneCount.from_binomials([0.0], [0])  # no other users: the local pair
>>> w = 1 / (1 + math.e)                        # randomized response, eps0 = 1
>>> round(float(clone_pair_delta(0.5, w, cc)), 6), round((math.e - math.exp(0.5)) / (1 + math.e), 6)
(0.287649, 0.287649)
"""

from __future__ import annotations

import numpy as np

from .._validation import check_array
from ..bounds import clone_pair
from ..bounds.clone_pair import MAX_BLOCKS, MAX_GROUPS, TAIL, BinomialSum, local_log_odds

__all__ = ["CloneCount", "clone_pair_delta", "TAIL", "MAX_GROUPS", "MAX_BLOCKS"]

#: The law of the clone count of users at several privacy levels (a sum of binomials).
CloneCount = BinomialSum


def clone_pair_delta(eps: object, w: float, count: BinomialSum, *, max_blocks: int = MAX_BLOCKS) -> np.ndarray:
    """``H_{e^ε}(P‖Q)`` of the clone pair with weight ``w`` and clone count ``count`` (vectorized in ε).

    :func:`shufflelib.bounds.clone_pair.clone_pair_delta` with local log-odds
    ``log((1 − w)/w)`` on the blocks of ``count`` (evaluated at their left ends, which can
    only increase δ; exact when the count's range has at most ``max_blocks`` values).

    Parameters
    ----------
    eps
        Central ε values (>= 0), any shape.
    w
        User 1's mixing weight in ``[0, 1/2)``.
    count
        The clone count of the other users.
    max_blocks
        Largest number of blocks of counts.

    Returns
    -------
    numpy.ndarray
        δ(ε), same shape as ``eps``.

    Examples
    --------
    >>> cc = CloneCount.from_binomials([0.5], [100])
    >>> float(clone_pair_delta(0.1, 0.0, cc)) > float(clone_pair_delta(0.1, 0.2, cc))
    True
    """
    e = check_array("eps", eps, low=0.0)
    counts, weights = count.blocks(max_blocks)
    return clone_pair.clone_pair_delta(e, local_log_odds(w), counts, weights)
