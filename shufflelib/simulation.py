"""Simulating shuffled protocols, fast (sufficient statistics) and slow (every message).

After shuffling, a randomized-response protocol reveals only its histogram, so a
repetition can be drawn directly from the histogram's distribution in time
independent of ``n`` (fine for ``n = 1e9``):

* binary RR with ``c`` ones among ``n`` users: ``ones ~ Bin(c, p) + Bin(n - c, 1 - p)``;
* k-RR with ``n_v`` users holding each value ``v``: the histogram is a sum over
  ``v`` of independent ``Multinomial(n_v, pi_v)``. It is drawn through the
  blanket decomposition of k-RR (each user's report is uniform on
  ``{0, ..., k-1}`` w.p. ``gamma = k q``, and the truth otherwise): with
  ``B_v ~ Bin(n_v, gamma)`` blanket reports among the holders of ``v``, the
  histogram is ``(n_v - B_v)_v + Multinomial(sum_v B_v, uniform)``, which has the
  same distribution in ``O(k)`` draws per repetition instead of ``O(k^2)``.

:func:`simulate_messages` is the message-level reference implementation
(randomize every user's input, then shuffle) against which the fast simulators
are tested.
"""

from __future__ import annotations

import numpy as np

from ._docstrings import fill_doc
from ._validation import SIZE_MAX, check_array, check_eps0, check_generator, check_int, check_n
from .randomizers import KRandomizedResponse, LocalRandomizer
from .shuffler import shuffle

__all__ = ["simulate_binary_rr_counts", "simulate_krr_histograms", "simulate_messages"]


@fill_doc
def simulate_binary_rr_counts(true_count: int, n: int, eps0: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """Draw the number of reported ones in ``size`` independent runs of shuffled binary RR.

    Parameters
    ----------
    true_count
        Number ``c`` of users holding 1, an integer in ``[0, n]``.
    %(n)s %(eps0)s %(repetitions)s %(rng)s

    Returns
    -------
    numpy.ndarray
        ``int64`` array of shape ``(size,)``, distributed as ``Bin(c, p) + Bin(n - c, 1 - p)``.

    Examples
    --------
    >>> import numpy as np
    >>> ones = simulate_binary_rr_counts(300, 1000, 1.0, size=4, rng=np.random.default_rng(0))
    >>> ones.shape, bool(np.all((0 <= ones) & (ones <= 1000)))
    ((4,), True)
    """
    n = check_n(n)
    c = check_int("true_count", true_count, minimum=0, maximum=n)
    eps0 = check_eps0(eps0)
    size = check_int("size", size, minimum=1, maximum=SIZE_MAX)
    rng = check_generator("rng", rng)
    rr = KRandomizedResponse(2, eps0)
    kept = rng.binomial(c, rr.truth_probability, size=size)
    flipped = rng.binomial(n - c, rr.other_probability, size=size)
    return (kept + flipped).astype(np.int64)


@fill_doc
def simulate_krr_histograms(true_counts: object, eps0: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """Draw ``size`` independent shuffled k-RR histograms.

    Parameters
    ----------
    true_counts
        1-D array of ``k >= 2`` non-negative integers: how many users hold each value
        (``n = sum(true_counts)`` must be >= 2).
    %(eps0)s %(repetitions)s %(rng)s

    Returns
    -------
    numpy.ndarray
        ``int64`` array of shape ``(size, k)``; each row sums to ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> h = simulate_krr_histograms([500, 300, 200], 1.0, size=3, rng=np.random.default_rng(0))
    >>> h.shape, h.sum(axis=1).tolist()
    ((3, 3), [1000, 1000, 1000])
    """
    counts = check_array("true_counts", true_counts, ndim=1, low=0, integral=True)
    if counts.size < 2:
        raise ValueError(f"true_counts must have k >= 2 entries, got {counts.size}")
    counts = counts.astype(np.int64)
    if counts.sum() < 2:
        raise ValueError(f"true_counts must sum to n >= 2, got {int(counts.sum())}")
    eps0 = check_eps0(eps0)
    size = check_int("size", size, minimum=1, maximum=SIZE_MAX)
    rng = check_generator("rng", rng)
    k = counts.size
    rr = KRandomizedResponse(k, eps0)
    blanket = rng.binomial(counts, rr.blanket_weight, size=(size, k))
    uniform = rng.multinomial(blanket.sum(axis=1), np.full(k, 1.0 / k))
    return (counts - blanket + uniform).astype(np.int64)


@fill_doc
def simulate_messages(randomizer: LocalRandomizer, x: object, rng: np.random.Generator) -> np.ndarray:
    """Message-level simulation: every user randomizes their input, then the messages are shuffled.

    Parameters
    ----------
    randomizer
        A concrete :class:`~shufflelib.randomizers.LocalRandomizer`.
    x
        1-D array of the users' inputs, in ``randomizer.domain``.
    %(rng)s

    Returns
    -------
    numpy.ndarray
        The shuffled messages, one per user.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.randomizers import KRandomizedResponse
    >>> rr = KRandomizedResponse(3, 1.0)
    >>> simulate_messages(rr, np.zeros(6, dtype=int), np.random.default_rng(0)).shape
    (6,)
    """
    if not isinstance(randomizer, LocalRandomizer):
        raise ValueError(
            "randomizer must be a LocalRandomizer (e.g. KRandomizedResponse); "
            f"got {type(randomizer).__name__}, which cannot sample messages"
        )
    rng = check_generator("rng", rng)
    return shuffle(randomizer.randomize(x, rng), rng)
