"""Checking a reader's answer to a numeric exercise.

Examples
--------
>>> from shufflelib.exercises import check_answer
>>> check_answer(0.75, 3 / 4)
Correct: 0.75
True
>>> check_answer(None, 3 / 4) is None   # not attempted yet: silent
True

In the chapters the reader's answer sits in its own cell and the check in the next cell,
whose input is removed from the website (``tags: [remove-input]``): on the site, where no
answer can be entered, the check shows nothing and the expected value stays hidden; in a
notebook the reader sets the answer and runs both cells.
"""

from __future__ import annotations

import math
import numbers

from ._validation import check_nonnegative

__all__ = ["check_answer"]


def check_answer(answer: float | None, expected: float, *, rtol: float = 1e-3, atol: float = 0.0) -> bool | None:
    """Compare a reader's numeric answer with the expected value and say how it went.

    Parameters
    ----------
    answer
        The reader's answer (``None`` while the exercise is not attempted).
    expected
        The correct value, computed by the exercise's own code.
    rtol, atol
        Relative and absolute tolerance: the answer is accepted when
        ``|answer - expected| <= atol + rtol * |expected|``.

    Returns
    -------
    bool or None
        Whether the answer is accepted (a message says how it went), or ``None``, with
        nothing printed, while the answer is ``None``: an exercise not attempted is not
        wrong, and a static page shows no verdict.

    Examples
    --------
    >>> check_answer(96.0, 95.95, rtol=1e-2)
    Correct: 96
    True
    """
    rtol = check_nonnegative("rtol", rtol)
    atol = check_nonnegative("atol", atol)
    if not isinstance(expected, numbers.Real) or not math.isfinite(expected):
        raise ValueError(f"expected must be a finite real number, got {expected!r}")
    if answer is None:
        return None
    if not isinstance(answer, numbers.Real) or math.isnan(answer):
        raise ValueError(f"answer must be a real number or None, got {answer!r}")
    if abs(answer - expected) <= atol + rtol * abs(expected):
        print(f"Correct: {answer:.6g}")
        return True
    direction = "too large" if answer > expected else "too small"
    print(f"Not quite: {answer:.6g} is {direction} (tolerance {rtol:g} relative, {atol:g} absolute).")
    return False
