"""Algorithm 1 end to end: a differentially private level round, the server's choice, the data round.

Step 1 sends each user's level through the shuffler; with ``eps_p`` the server
sees an ``eps_p``-DP histogram (:func:`~shufflelib.segmented.protocol.level_histogram`,
two-sided geometric noise on each count). Step 2 chooses ``m`` and the ``λ_k``
from that histogram (:func:`~shufflelib.segmented.optimize.optimize_parameters`,
on the counts rounded to non-negative integers). Step 3 runs Algorithm 2 and
estimates the item frequencies with the noisy histogram in the denominator.

:func:`level_round_loss` is the exact worst-case privacy loss of the noisy
histogram: one user changing level moves two counts by one, each count's noise
has log-ratio at most ``eps_p/2`` for a shift of one, so the loss is ``eps_p``.

Examples
--------
>>> import numpy as np
>>> sets = np.tile([0, 1], (400, 1))
>>> levels = np.repeat([0, 1], 200)
>>> out = two_rounds(sets, levels, [1.0, 2.0], 5, 2, 1e-4, 1.0, np.random.default_rng(0))
>>> out.level_counts.shape, out.estimate.shape
((2,), (5,))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._docstrings import fill_doc
from .._validation import check_array, check_generator, check_int, check_positive
from ..shuffler import histogram
from .optimize import optimize_parameters
from .protocol import SegmentedParameters, estimate_frequencies, level_histogram, run_protocol

__all__ = ["TwoRounds", "two_rounds", "level_round_loss"]


@dataclass(frozen=True)
class TwoRounds:
    """One run of Algorithm 1.

    Attributes
    ----------
    level_counts
        The server's (noisy) level histogram ``n̂``.
    params
        The parameters the server chose from it.
    messages
        Number of messages of the data round.
    estimate
        The estimated item frequencies.

    Examples
    --------
    >>> import numpy as np
    >>> sets, levels = np.tile([0, 1], (400, 1)), np.repeat([0, 1], 200)
    >>> run = two_rounds(sets, levels, [1.0, 2.0], 5, 2, 1e-4, 1.0, np.random.default_rng(0))
    >>> isinstance(run, TwoRounds), run.messages >= 0
    (True, True)
    """

    level_counts: np.ndarray
    params: SegmentedParameters
    messages: int
    estimate: np.ndarray


@fill_doc
def two_rounds(
    sets: object,
    levels: object,
    level_eps: object,
    d: int,
    s: int,
    delta: float,
    eps_p: float | None,
    rng: np.random.Generator,
    grid_points: int = 12,
) -> TwoRounds:
    """Run Algorithm 1 once: the level round (``eps_p``-DP, or exact with ``None``), Step 2, Algorithm 2.

    Parameters
    ----------
    sets
        ``(n, s)`` item ids in ``0..d − 1``.
    levels
        Each user's level index in ``0..K − 1``.
    level_eps
        The levels ``E_1 <= … <= E_K``.
    d, s, delta
        Items, items per user, the common δ.
    eps_p
        Privacy of the level round (> 0), or ``None`` for plain shuffling.
    %(rng)s
    grid_points
        Size of Step 2's grid of ``m``.

    Examples
    --------
    >>> import numpy as np
    >>> sets, levels = np.tile([0, 1], (400, 1)), np.repeat([0, 1], 200)
    >>> run = two_rounds(sets, levels, [1.0, 2.0], 5, 2, 1e-4, None, np.random.default_rng(0))
    >>> run.level_counts.tolist()  # eps_p=None: the exact level histogram
    [200.0, 200.0]
    """
    levels = check_array("levels", levels, ndim=1, low=0, integral=True).astype(np.int64)
    level_eps = check_array("level_eps", level_eps, ndim=1, low=0.0)
    rng = check_generator("rng", rng)
    noisy = level_histogram(levels, level_eps.size, eps_p=eps_p, rng=rng)
    counts = np.maximum(np.rint(noisy), 0).astype(np.int64)
    if counts.sum() < 2:
        raise ValueError("the noisy level histogram must count at least 2 users")
    params = optimize_parameters(level_eps, counts, d, s, delta, grid_points=grid_points).params
    messages = run_protocol(sets, levels, params, d, rng)
    estimate = estimate_frequencies(histogram(messages, d), levels.size, params, noisy)
    return TwoRounds(noisy, params, int(messages.size), estimate)


def level_round_loss(eps_p: float, radius: int = 200) -> float:
    """The largest privacy loss of the ``eps_p``-DP level histogram, computed on its noise's support.

    The noise of each count is two-sided geometric with parameter ``a = e^{-eps_p/2}``;
    a user who changes level moves one count up and another down by one. The loss
    is the largest ``log(f(x) f(y) / (f(x − 1) f(y + 1)))`` over ``|x|, |y| <= radius``.

    Examples
    --------
    >>> round(level_round_loss(1.0), 12)
    1.0
    """
    eps_p = check_positive("eps_p", eps_p)
    radius = check_int("radius", radius, minimum=2)
    a = math.exp(-eps_p / 2.0)
    x = np.arange(-radius, radius + 1, dtype=float)
    log_f = np.abs(x) * math.log(a)  # up to the common normaliser
    up = log_f[1:] - log_f[:-1]  # log f(x) - log f(x - 1)
    return float(up.max() + (-up).max())
