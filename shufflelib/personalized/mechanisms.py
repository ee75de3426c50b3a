r"""The local randomizers of the personalized chapter, with per-user parameters.

Every user holds a value in the interval ``[0, 1]`` (sensitivity ``Δ = 1``);
user 1's two neighbouring values are the end points ``x^0 = 0`` and
``x^1 = 1``, the worst case of Liu et al. (2024).

* ``"rr"``: binary randomized response on ``{0, 1}``, truthful with
  probability :math:`e^{\varepsilon}/(1+e^{\varepsilon})`;
* ``"laplace"``: :math:`x + \mathrm{Lap}(1/\varepsilon)` (pure ε-LDP);
* ``"gaussian"``: :math:`x + \mathcal N(0, \sigma^2)` with
  :math:`\sigma = \sigma(\varepsilon, \delta)` from a **calibration**
  (:func:`~shufflelib.randomizers.gaussian_sigma`, one of
  :data:`~shufflelib.randomizers.CALIBRATIONS`): ``"classical"``, ``"analytic"`` or
  ``"paper"`` (the calibration that reproduces Table 2 of Liu et al. (2024), **not**
  (ε, δ)-DP for small δ).

The description lives in :mod:`shufflelib.randomizers`, with every other local randomizer:
:class:`LocalMechanism` is :class:`~shufflelib.randomizers.RandomizerFamily` under this
chapter's name, restricted to the :data:`KINDS` with a per-user law on ``[0, 1]`` (a thin
subclass: no method of its own). ``CALIBRATIONS``, ``gaussian_delta`` and ``gaussian_sigma``
are importable from here too (the names of :mod:`shufflelib.randomizers`).

Examples
--------
>>> from shufflelib.randomizers import RandomizerFamily
>>> isinstance(LocalMechanism("laplace"), RandomizerFamily), KINDS
(True, ('rr', 'laplace', 'gaussian'))
>>> float(LocalMechanism("gaussian", "paper").scale(2.0, 1e-10))
1.0
"""

from __future__ import annotations

from .._validation import check_choice

# The chapter's names, re-exported (``X as X``):
from ..randomizers import CALIBRATIONS as CALIBRATIONS
from ..randomizers import UNIT_KINDS, RandomizerFamily
from ..randomizers import gaussian_delta as gaussian_delta
from ..randomizers import gaussian_sigma as gaussian_sigma

__all__ = ["KINDS", "LocalMechanism"]

#: The randomizer families of the chapter (a per-user law on ``[0, 1]``).
KINDS = UNIT_KINDS


class LocalMechanism(RandomizerFamily):
    """A randomizer family whose parameters are chosen per user from (ε_i, δ_i).

    :class:`~shufflelib.randomizers.RandomizerFamily` of one of the :data:`KINDS`.

    Parameters
    ----------
    kind
        ``"rr"``, ``"laplace"`` or ``"gaussian"``.
    calibration
        Gaussian calibration (``"classical"``, ``"analytic"``, ``"paper"``);
        must be ``None`` for the other kinds. Default for Gaussian: ``"classical"``.

    Examples
    --------
    >>> lap = LocalMechanism("laplace")
    >>> float(lap.scale(2.0))
    0.5
    >>> g = LocalMechanism("gaussian", "paper")
    >>> float(g.scale(2.0, 1e-10))
    1.0
    """

    def __init__(self, kind: str, calibration: str | None = None) -> None:
        check_choice("kind", kind, KINDS)
        super().__init__(kind, calibration)
