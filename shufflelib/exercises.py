"""Checking a reader's answer to a numeric exercise, without giving the answer away.

Every numeric exercise of the book has the same shape: a cell where the reader enters an
answer, then a cell that checks it, ``check_answer(answer, expected)``, where ``expected``
is computed by the chapter's own code. On the website the check cell is removed
(``tags: [remove-cell]``): no answer can be entered there, and the expected value stays
hidden. In a notebook the reader sets the answer and runs both cells.

The student notebooks (the course kit, ``book/_ext/course_kit.py``) keep the check but not
the expected value: when the book is built, each check cell, run with no answer yet,
publishes the :class:`AnswerKey` of its expected value (a hash of the value rounded to the
check's tolerance); the student notebook's check cell holds that key, as a string, in place
of the code that computes the value. The key accepts the same answers as the value, within
the tolerance's rounding (see :class:`AnswerKey`).

Examples
--------
>>> from shufflelib.exercises import AnswerKey, check_answer
>>> check_answer(0.75, 3 / 4)   # a notebook shows the line only
Correct: 0.75
Verdict(True)
>>> check_answer(None, 3 / 4)   # not attempted yet: silent
>>> key = str(AnswerKey.of(3 / 4))
>>> check_answer(0.7501, key)   # the student notebook's form: the value is not in it
Correct: 0.7501
Verdict(True)
"""

from __future__ import annotations

import hashlib
import math
import numbers
import re
from dataclasses import dataclass

from ._validation import check_nonnegative

__all__ = ["ANSWER_KEY_MIME", "AnswerKey", "Verdict", "answer_matches", "check_answer"]

#: The MIME type of the display output by which a check cell hands its key to the course kit.
ANSWER_KEY_MIME = "application/vnd.shufflelib.answer-key+json"

_KEY = re.compile(r"^answer-key:(exact|[0-9.e+-]+):([0-9a-f]{16})$")


def _digest(text: str) -> str:
    return hashlib.sha256(f"shufflelib answer {text}".encode()).hexdigest()[:16]


def _real(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class AnswerKey:
    """An expected answer, hashed: it checks an answer without revealing the value.

    The value ``v`` with tolerance ``t = atol + rtol |v|`` is stored as the quantum
    ``q = 10^floor(log10 t)`` (a power of ten between ``t/10`` and ``t``) and a hash of
    ``round(v / q)``. An answer ``a`` is accepted when ``round(a / q)`` is within one of
    ``round(v / q)``: always when ``|a - v| <= q/2``, never when ``|a - v| > 1.5 q``.
    With no tolerance (``t = 0``) the hash is of the exact value.

    The key reveals the order of magnitude of the tolerance (``q``), not the value; a
    reader could find the value by trying many answers, as with any checker.

    Attributes
    ----------
    quantum
        The rounding quantum ``q``, or ``None`` for an exact key.
    digest
        The hash (16 hexadecimal digits).

    Examples
    --------
    >>> key = AnswerKey.of(95.95, rtol=1e-2)
    >>> key.quantum, key.accepts(95.9), key.accepts(97.5)
    (0.1, True, False)
    >>> AnswerKey.parse(str(key)) == key
    True
    """

    quantum: float | None
    digest: str

    @classmethod
    def of(cls, expected: float, *, rtol: float = 1e-3, atol: float = 0.0) -> AnswerKey:
        """The key of ``expected`` for the tolerance ``atol + rtol |expected|``."""
        value = _real("expected", expected)
        tolerance = check_nonnegative("atol", atol) + check_nonnegative("rtol", rtol) * abs(value)
        if tolerance == 0:
            return cls(None, _digest(f"exact {value.hex()}"))
        quantum = float(f"1e{math.floor(math.log10(tolerance))}")
        return cls(quantum, _digest(f"{quantum!r} {round(value / quantum)}"))

    @classmethod
    def parse(cls, text: str) -> AnswerKey:
        """The key written as ``str(key)``: ``answer-key:<quantum or exact>:<digest>``."""
        match = _KEY.match(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"not an answer key (answer-key:<quantum>:<16 hex digits>): {text!r}")
        quantum = None if match[1] == "exact" else float(match[1])
        if quantum is not None and not (math.isfinite(quantum) and quantum > 0):
            raise ValueError(f"an answer key's quantum must be positive, got {match[1]!r}")
        return cls(quantum, match[2])

    def accepts(self, answer: float) -> bool:
        """Whether ``answer`` matches the hashed value (within one quantum, see above)."""
        value = _real("answer", answer)
        if self.quantum is None:
            return _digest(f"exact {value.hex()}") == self.digest
        center = round(value / self.quantum)
        return any(_digest(f"{self.quantum!r} {center + d}") == self.digest for d in (-1, 0, 1))

    def __str__(self) -> str:
        return f"answer-key:{'exact' if self.quantum is None else repr(self.quantum)}:{self.digest}"


class Verdict:
    """The outcome of :func:`check_answer`: true when the answer is accepted.

    It is used as a bool (``if check_answer(...)``); a notebook shows nothing for it, since
    the check has already printed its one-line verdict (no bare ``True`` under the cell).

    Examples
    --------
    >>> bool(Verdict(True)), Verdict(False) == False
    (True, True)
    """

    __slots__ = ("accepted",)

    def __init__(self, accepted: bool) -> None:
        self.accepted = bool(accepted)

    def __bool__(self) -> bool:
        return self.accepted

    def __eq__(self, other: object) -> bool:
        return self.accepted == (other.accepted if isinstance(other, Verdict) else other)

    def __hash__(self) -> int:
        return hash(self.accepted)

    def __repr__(self) -> str:
        return f"Verdict({self.accepted})"

    def _ipython_display_(self) -> None:
        """Nothing to show: the verdict is the line :func:`check_answer` printed."""


def answer_matches(answer: float, expected: float | str | AnswerKey, *, rtol: float = 1e-3, atol: float = 0.0) -> bool:
    """Whether ``answer`` is accepted: ``|answer - expected| <= atol + rtol |expected|``, or the key accepts it.

    Examples
    --------
    >>> answer_matches(96.0, 95.95, rtol=1e-2), answer_matches(90.0, 95.95, rtol=1e-2)
    (True, False)
    """
    rtol = check_nonnegative("rtol", rtol)
    atol = check_nonnegative("atol", atol)
    if isinstance(expected, (str, AnswerKey)):
        key = AnswerKey.parse(expected) if isinstance(expected, str) else expected
        return key.accepts(answer)
    value = _real("expected", expected)
    return abs(_real("answer", answer) - value) <= atol + rtol * abs(value)


def check_answer(
    answer: float | None, expected: float | str | AnswerKey, *, rtol: float = 1e-3, atol: float = 0.0
) -> Verdict | None:
    """Compare a reader's numeric answer with the expected value and say how it went.

    Parameters
    ----------
    answer
        The reader's answer (``None`` while the exercise is not attempted).
    expected
        The correct value, computed by the exercise's own code; or its :class:`AnswerKey`
        (or the key's string), as in the student notebooks.
    rtol, atol
        Relative and absolute tolerance: the answer is accepted when
        ``|answer - expected| <= atol + rtol * |expected|`` (a key carries its own).

    Returns
    -------
    Verdict or None
        Whether the answer is accepted (a printed line says how it went; a notebook shows
        nothing more), or ``None`` while the answer is ``None``: then nothing is printed
        (an exercise not attempted is not wrong, and a static page shows no verdict), and
        in a notebook the check hands the value's :class:`AnswerKey` to the book's build,
        as a display output of type :data:`ANSWER_KEY_MIME`.

    Examples
    --------
    >>> check_answer(96.0, 95.95, rtol=1e-2)
    Correct: 96
    Verdict(True)
    >>> check_answer(90.0, 95.95, rtol=1e-2)
    Not quite: 90 is too small (tolerance 0.01 relative, 0 absolute).
    Verdict(False)
    """
    rtol = check_nonnegative("rtol", rtol)
    atol = check_nonnegative("atol", atol)
    keyed = isinstance(expected, (str, AnswerKey))
    key = (AnswerKey.parse(expected) if isinstance(expected, str) else expected) if keyed else None
    if not keyed:
        _real("expected", expected)
    if answer is None:
        if keyed:
            print("(enter your answer in the cell above, then run this cell)")
        else:
            _publish(AnswerKey.of(expected, rtol=rtol, atol=atol))
        return None
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real) or math.isnan(answer):
        raise ValueError(f"answer must be a real number or None, got {answer!r}")
    accepted = answer_matches(answer, key if keyed else expected, rtol=rtol, atol=atol)
    if accepted:
        print(f"Correct: {answer:.6g}")
    elif keyed:
        print(f"Not quite: {answer:.6g} is not the expected value (try again, or see the solution).")
    else:
        direction = "too large" if answer > expected else "too small"
        print(f"Not quite: {answer:.6g} is {direction} (tolerance {rtol:g} relative, {atol:g} absolute).")
    return Verdict(accepted)


def _publish(key: AnswerKey) -> None:
    """In a notebook, a display output carrying ``key`` (the course kit reads it from the build)."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # pragma: no cover (IPython comes with the notebook stack)
        return
    if get_ipython() is None:
        return
    display(
        {ANSWER_KEY_MIME: {"key": str(key)}, "text/plain": "(enter your answer in the cell above, then run this cell)"},
        raw=True,
    )
