r"""The closed-form amplification bound of Erlingsson et al. (SODA 2019).

Erlingsson, Feldman, Mironov, Raghunathan, Talwar and Thakurta show that
shuffling ``n`` reports of an ``eps0``-LDP randomizer gives a central
``(eps, delta)``-DP protocol with

.. math::

    \varepsilon = 12\,\varepsilon_0 \sqrt{\log(1/\delta) / n}

in the regime ``eps0 < 1/2``, ``n >= 1000`` and ``delta < 1/100`` (the explicit
corollary of their amplification theorem, arXiv:1811.12469). The constant 12
and the three conditions are those of the paper; the authors of the privacy
blanket paper use the same regime in their reference code.

Two facts are combined with the formula, both exact:

* the shuffled protocol is always ``(eps0, 0)``-DP (post-processing of the
  local reports), so ``epsilon`` is capped at ``eps0`` and ``delta(eps) = 0``
  for ``eps >= eps0``;
* the formula inverts in closed form, ``delta = exp(-n eps^2 / (144 eps0^2))``,
  which answers the ``delta`` question directly (``1`` when that value is not
  below ``1/100``, since the corollary then certifies nothing).

Numerical tolerance: ``epsilon`` is rounded up by a relative ``1e-12`` and the
exponent of ``delta`` is shrunk by a relative ``1e-12`` (``delta`` rounded up);
both margins exceed the floating-point error of the closed forms by orders of
magnitude. A ``delta`` below ``1e-300`` is reported as ``1e-300``.
"""

from __future__ import annotations

import math

from .._docstrings import fill_doc
from .base import DELTA_FLOOR, AmplificationBound

__all__ = ["ErlingssonBound"]

#: Relative margin used to round the closed forms in the safe direction.
_ROUNDING = 1e-12


@fill_doc
class ErlingssonBound(AmplificationBound):
    """Erlingsson et al. (2019): ``eps = 12 eps0 sqrt(log(1/delta) / n)``.

    Valid for a generic ``eps0``-LDP randomizer when ``eps0 < 1/2``,
    ``n >= 1000`` and ``delta < 1/100``. Outside that regime :meth:`~shufflelib.bounds.base.AmplificationBound.epsilon`
    raises :class:`~shufflelib.bounds.base.NotApplicableError` (naming the
    violated condition); so does :meth:`~shufflelib.bounds.base.AmplificationBound.delta` when ``n`` or ``eps0`` is
    outside, while a ``delta`` that would not be below ``1/100`` is reported
    as ``1`` (nothing certified).

    Parameters
    ----------
    mechanism
        Only ``"generic"`` (the theorem does not use the randomizer's shape).
    %(k_unused)s

    Examples
    --------
    >>> b = ErlingssonBound()
    >>> round(b.epsilon(10_000, 0.4, 1e-6), 4)
    0.1784
    >>> b.delta(10_000, 0.4, 0.18) <= 1e-6
    True
    >>> b.applicable(100, 0.4, 1e-6)
    False
    """

    closed_form = True
    name = "erlingsson"
    title = "Erlingsson et al. (2019), closed form"
    reference = (
        "Ú. Erlingsson, V. Feldman, I. Mironov, A. Raghunathan, K. Talwar, A. Thakurta. "
        "Amplification by shuffling: from local to central differential privacy via anonymity. "
        "SODA 2019, arXiv:1811.12469."
    )
    mechanisms = ("generic",)

    #: Smallest number of users the corollary covers.
    MIN_N = 1000
    #: The corollary needs ``eps0`` strictly below this.
    EPS0_LIMIT = 0.5
    #: The corollary needs ``delta`` strictly below this.
    DELTA_LIMIT = 0.01

    def validity(self, n: int, eps0: float, delta: float | None = None) -> str | None:
        """Return ``None`` inside the corollary's regime, else the violated condition.

        Examples
        --------
        >>> ErlingssonBound().validity(10_000, 0.7, 1e-6)
        'requires eps0 < 0.5, got eps0=0.7'
        """
        if n < self.MIN_N:
            return f"requires n >= {self.MIN_N}, got n={n}"
        if not eps0 < self.EPS0_LIMIT:
            return f"requires eps0 < {self.EPS0_LIMIT}, got eps0={eps0}"
        if delta is not None and not delta < self.DELTA_LIMIT:
            return f"requires delta < {self.DELTA_LIMIT}, got delta={delta}"
        return None

    def _epsilon(self, n: int, eps0: float, delta: float) -> float:
        eps = 12.0 * eps0 * math.sqrt(-math.log(delta) / n) * (1.0 + _ROUNDING)
        return min(eps, eps0)

    def _delta(self, n: int, eps0: float, eps: float) -> float:
        if eps >= eps0:
            return 0.0
        exponent = n * (eps / (12.0 * eps0)) ** 2
        delta = max(math.exp(-exponent * (1.0 - _ROUNDING)), DELTA_FLOOR)  # never rounded down to 0
        # The corollary only speaks about delta < 1/100: above, it certifies nothing.
        return delta if delta < self.DELTA_LIMIT else 1.0
