"""The shuffler: a uniformly random permutation of the users' messages.

The analyzer of a shuffled protocol never sees who sent which message, only the
*multiset* of messages. For messages from a finite set ``{0, ..., k-1}`` that
multiset is exactly the :func:`histogram` of counts per value, the sufficient
statistic that the fast simulators in :mod:`shufflelib.simulation` sample
directly.
"""

from __future__ import annotations

import numpy as np

from ._docstrings import fill_doc
from ._validation import check_array, check_generator, check_int

__all__ = ["shuffle", "histogram"]


@fill_doc
def shuffle(messages: object, rng: np.random.Generator) -> np.ndarray:
    """Return the messages in a uniformly random order.

    Parameters
    ----------
    messages
        1-D array (one message per user) or 2-D array (one row per user; rows are
        permuted, each row kept intact). The dtype is preserved.
    %(rng)s

    Returns
    -------
    numpy.ndarray
        A new array holding a uniformly random permutation of the messages.

    Examples
    --------
    >>> import numpy as np
    >>> out = shuffle(np.array([3, 1, 2]), np.random.default_rng(0))
    >>> sorted(out.tolist())
    [1, 2, 3]
    """
    rng = check_generator("rng", rng)
    arr = np.asarray(messages)
    if arr.ndim not in (1, 2):
        raise ValueError(f"messages must be a 1- or 2-dimensional array, got shape {arr.shape}")
    return rng.permutation(arr, axis=0)


def histogram(messages: object, k: int) -> np.ndarray:
    """Counts per value of messages in ``{0, ..., k-1}``: all the analyzer learns after shuffling.

    Parameters
    ----------
    messages
        1-D array of messages, or 2-D array with one repetition (a full set of
        messages) per row.
    k
        Number of possible message values, an integer >= 2.

    Returns
    -------
    numpy.ndarray
        ``int64`` counts of shape ``(k,)``, or ``(repetitions, k)`` for 2-D input.

    Examples
    --------
    >>> histogram([0, 2, 2, 1, 2], k=3).tolist()
    [1, 1, 3]
    >>> histogram([[0, 0], [1, 0]], k=2).tolist()
    [[2, 0], [1, 1]]
    """
    k = check_int("k", k, minimum=2)
    arr = check_array("messages", messages, low=0, high=k - 1, integral=True).astype(np.int64)
    if arr.ndim == 1:
        return np.bincount(arr, minlength=k)
    if arr.ndim != 2:
        raise ValueError(f"messages must be a 1- or 2-dimensional array, got shape {arr.shape}")
    reps = arr.shape[0]
    # Offset each repetition's values into its own block of k bins.
    flat = (arr + k * np.arange(reps, dtype=np.int64)[:, None]).ravel()
    return np.bincount(flat, minlength=reps * k).reshape(reps, k)
