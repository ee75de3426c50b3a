"""The work budget of the exact k-RR worst case: how much one answer may spend, and the meter.

The complete search of :mod:`~shufflelib.bounds.krr_worst_case` costs ``O(n^{3/2})`` for binary
RR and grows much faster for ``k >= 3``. The calculator's policy: one answer spends at most
:data:`WORK_LIMIT` estimated seconds. For ``k >= 3`` a search whose estimate
(:func:`worst_case_work`) exceeds it is refused, and
:class:`~shufflelib.bounds.exact.ExactKRR` answers with a certified bracket instead; for
``k = 2`` the branch and bound stops at the budget with a wider certified bracket. The seconds
are *estimated* from the work done (tables, cells, binomial values from scipy, at rates
calibrated on one core), not read from a clock, so that a search stops at the same point on
every machine and under any load and its answers are reproducible.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_int
from .clone_pair import _ANCHOR_FLOOR, _ANCHOR_SPACING

__all__ = ["WORK_LIMIT", "WorkMeter", "worst_case_work"]

#: Largest estimated run time, in seconds, of one complete search that
#: :func:`~shufflelib.bounds.krr_worst_case.worst_case_delta` accepts (see :func:`worst_case_work`); also
#: ``ExactKRR``'s budget for one answer.
WORK_LIMIT = 4.0


#: Binary RR, the meter's rates (calibrated on one core, see ``_Meter``): seconds per call
#: of a table, per cell of a table or of a sum, per value of a binomial pmf or tail from scipy.
_METER_CALL, _METER_CELL, _METER_SCIPY = 3e-4, 4e-9, 1.3e-7


class WorkMeter:
    """Estimated seconds of the work done so far: the clock of a search's budget, read by differences.

    Counted from the work done (each kind at a rate calibrated on one core), not read from a
    clock: a search that stops at a budget of these seconds stops at the same point on every
    machine and under any load, so its answers are reproducible. Subclasses name the kinds of
    work (``_Meter`` here, the composed searches'
    :class:`~shufflelib.composition.model.CompositionMeter`).

    Examples
    --------
    >>> meter = WorkMeter()
    >>> meter.add(0.25)
    >>> meter.seconds
    0.25
    """

    def __init__(self) -> None:
        self.seconds = 0.0

    def add(self, seconds: float) -> None:
        """Count ``seconds`` of estimated work."""
        self.seconds += seconds


class _Meter(WorkMeter):
    """Estimated seconds of the binary RR evaluations so far: the clock of the searches' budgets.

    Counted from the work done (tables, their cells, the binomial values scipy computes, at
    calibrated rates), not read from a clock (:class:`WorkMeter`). It counts every evaluation (the
    fallback search for a threshold in a far tail, where every pmf value comes from scipy, is
    many times dearer than the first pass :func:`_splits_cost` plans for).
    """

    def table(self, rows: int, width: int, table: np.ndarray) -> None:
        """A table of ``rows`` binomial pmf rows of ``width`` columns (as computed)."""
        if width < 4 * _ANCHOR_SPACING:  # computed point by point
            scipy_values = rows * width
        else:  # anchors, and the blocks after a tiny anchor point by point
            anchors = table[:, ::_ANCHOR_SPACING]
            scipy_values = anchors.size + _ANCHOR_SPACING * int(np.count_nonzero(anchors < _ANCHOR_FLOOR))
        self.add(_METER_CALL + _METER_CELL * rows * width + _METER_SCIPY * scipy_values)

    def sums(self, cells: int, scipy_values: int = 0) -> None:
        """Sums over ``cells`` cells, and ``scipy_values`` tail probabilities from scipy."""
        self.add(_METER_CELL * cells + _METER_SCIPY * scipy_values)


#: The meter of every binary RR evaluation in this process (read by differences).
_METER = _Meter()


def _partitions(total: int, parts: int, largest: int | None = None):
    """Partitions of ``total`` into at most ``parts`` positive parts, in decreasing order."""
    largest = total if largest is None else largest
    if total == 0:
        yield ()
        return
    if parts == 0:
        return
    for first in range(min(total, largest), 0, -1):
        for tail in _partitions(total - first, parts - 1, first):
            yield (first, *tail)


def worst_case_work(n: int, k: int) -> float:
    """Estimated seconds of one complete search at one ε (calibrated on one core of the CI machine).

    Examples
    --------
    >>> worst_case_work(1000, 2) < worst_case_work(1000, 3)
    True
    """
    n = check_int("n", n, minimum=2)
    k = check_int("k", k, minimum=2)
    if k == 2:  # n splits, each a bisection over a window of ~24 sd
        return 8e-7 * n * (12.0 * math.sqrt(n) + 60.0)
    if k == 3:  # O(n^2) datasets, each O(n) steps on an (n+1)^2 grid
        return 1.5e-9 * n**5 + 1e-4
    if n > 40:  # far beyond reach; avoid enumerating the partitions
        return math.inf
    total = 0.0  # every dataset: n users added to a dense output cube of `dims` coordinates
    for rest in range(n):
        for part in _partitions(rest, k - 2):
            dims = 2 + len(part) + (1 if len(part) < k - 2 else 0)
            total += ((n - rest + 1) // 2) * (n + 1) * dims * float(n + 1) ** dims
    return 5e-9 * total
