r"""Group privacy (Lemma 1) and the user-level guarantee of Theorem 3.

A user holds ``s`` items; changing her set changes at most ``s`` "virtual users" (one per item).
If each item is ``(ε', δ')``-DP, group privacy gives the user

* ``(s ε', s e^{s ε'} δ')`` in the paper's form (Lemma 1 as printed), or
* ``(s ε', s e^{(s − 1) ε'} δ')`` in the standard form (Dwork–Roth, Vadhan), smaller by
  ``e^{ε'}``.

To meet a level ``(E, δ)`` the paper asks each item for ``ε' = E/s`` and ``δ' = δ/(s e^{E})``
(constraint (7)); :func:`item_budget` returns that target for either form.
"""

from __future__ import annotations

import math

import numpy as np

from .._docstrings import fill_doc
from .._validation import check_choice, check_int, check_nonnegative, check_probability
from ..curves import PrivacyCurve

__all__ = ["GROUP_FORMS", "group_privacy", "item_budget", "log_item_budget", "GroupCurve"]

#: Forms of the group-privacy step, either the paper's Lemma 1 or the standard one.
GROUP_FORMS = ("paper", "standard")


def _exponent(s: int, form: str) -> int:
    check_choice("form", form, GROUP_FORMS)
    return s if form == "paper" else s - 1


def group_privacy(eps: float, delta: float, s: int, form: str = "paper") -> tuple[float, float]:
    """The guarantee for datasets differing in ``s`` entries, from an ``(ε, δ)`` guarantee.

    Parameters
    ----------
    eps
        Item-level ε >= 0.
    delta
        Item-level δ in ``[0, 1]``.
    s
        Number of changed entries, an integer >= 1.
    form
        ``"paper"`` (``s e^{s ε} δ``) or ``"standard"`` (``s e^{(s − 1) ε} δ``).

    Returns
    -------
    tuple of float
        ``(s ε, min(1, factor · δ))``.

    Examples
    --------
    >>> eps, delta = group_privacy(0.25, 1e-7, 4)
    >>> eps, round(delta / 1e-7, 6)  # 4 e^1
    (1.0, 10.873127)
    >>> group_privacy(0.25, 1e-7, 4, form="standard")[1] < group_privacy(0.25, 1e-7, 4)[1]
    True
    """
    eps = check_nonnegative("eps", eps)
    delta = check_probability("delta", delta, closed_low=True, closed_high=True)
    s = check_int("s", s, minimum=1)
    return s * eps, min(1.0, s * math.exp(_exponent(s, form) * eps) * delta)


@fill_doc
def item_budget(level_eps: float, s: int, delta: float, form: str = "paper") -> tuple[float, float]:
    """Item-level target ``(ε', δ')`` so that group privacy gives ``(level_eps, delta)``.

    Parameters
    ----------
    level_eps
        The user's privacy level ``E`` > 0.
    %(s)s
    delta
        The user-level δ in ``(0, 1)``.
    form
        ``"paper"`` (constraint (7): ``δ' = δ/(s e^{E})``) or ``"standard"``
        (``δ' = δ/(s e^{(s − 1)E/s})``).

    Returns
    -------
    tuple of float
        ``(E/s, δ')``.

    Examples
    --------
    >>> eps1, delta1 = item_budget(0.5, 4, 2e-6)
    >>> eps1, round(delta1 / 2e-6 * 4 * math.exp(0.5), 12)
    (0.125, 1.0)
    >>> item_budget(1e4, 4, 2e-6)[1]  # e^{-10^4}: below the smallest float
    0.0
    """
    level_eps = check_nonnegative("level_eps", level_eps)
    s = check_int("s", s, minimum=1)
    delta = check_probability("delta", delta)
    eps1 = level_eps / s
    exponent = _exponent(s, form) * eps1
    # Past exp's range (E of about 710 and more) δ' underflows: write it as a product, never a
    # quotient by an overflowing exponential (below, the quotient: the book's numbers unchanged).
    return eps1, delta / (s * math.exp(exponent)) if exponent < 700.0 else delta * math.exp(-exponent) / s


def log_item_budget(level_eps: float, s: int, delta: float, form: str = "paper") -> tuple[float, float]:
    """:func:`item_budget` with ``log δ'`` (finite for any level: ``log δ − log s − c E/s``).

    Examples
    --------
    >>> eps1, log_delta1 = log_item_budget(1e4, 4, 2e-6)
    >>> eps1, round(log_delta1, 6) == round(math.log(2e-6) - math.log(4) - 1e4, 6)
    (2500.0, True)
    """
    level_eps = check_nonnegative("level_eps", level_eps)
    s = check_int("s", s, minimum=1)
    delta = check_probability("delta", delta)
    eps1 = level_eps / s
    return eps1, math.log(delta) - math.log(s) - _exponent(s, form) * eps1


@fill_doc
class GroupCurve(PrivacyCurve):
    """The user-level profile ``δ(ε) = min(1, s e^{cε/s} δ_item(ε/s))`` given by group privacy.

    ``c = s`` (paper) or ``s − 1`` (standard). Every point ``(ε, δ(ε))`` is a valid guarantee,
    so :meth:`~shufflelib.curves.PrivacyCurve.epsilon` returns a certified ε even where the product is not monotone.

    Parameters
    ----------
    item_curve
        The item-level privacy curve.
    %(s)s
    form
        ``"paper"`` or ``"standard"``.

    Examples
    --------
    >>> from shufflelib.segmented.variation_ratio import pair_curve, poisson_item_pair
    >>> item = pair_curve(poisson_item_pair(5000, 1.8, 17, 0.5))
    >>> user = GroupCurve(item, 4)
    >>> round(user.delta(0.5) / (4 * math.exp(0.5) * item.delta(0.125)), 9)
    1.0
    """

    def __init__(self, item_curve: PrivacyCurve, s: int, form: str = "paper") -> None:
        if not isinstance(item_curve, PrivacyCurve):
            raise ValueError(f"item_curve must be a PrivacyCurve, got {type(item_curve).__name__}")
        self.item_curve = item_curve
        self.s = check_int("s", s, minimum=1)
        self.form = form
        self._c = _exponent(self.s, form)

    def _delta_array(self, eps: np.ndarray) -> np.ndarray:
        item = self.item_curve.delta(eps / self.s)
        return np.minimum(1.0, self.s * np.exp(self._c * eps / self.s) * np.asarray(item))
