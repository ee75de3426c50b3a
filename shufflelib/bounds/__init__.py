"""Amplification-by-shuffling bounds, each answering the field's three questions.

Every bound is a subclass of :class:`~shufflelib.bounds.base.AmplificationBound`
and is registered in :data:`BOUNDS` under its command-line name.
"""

from __future__ import annotations

from .base import MECHANISMS, AmplificationBound, NotApplicableError
from .blanket import BlanketBennett, BlanketHoeffding
from .clones import ClonesClosedForm, ClonesNumerical
from .erlingsson import ErlingssonBound
from .exact import ExactKRR, TwoPairKRRLowerBound
from .stronger_clones import StrongerClones
from .thinned_clones import ThinnedClones
from .variation_ratio import VariationRatioBound

__all__ = [
    "AmplificationBound",
    "NotApplicableError",
    "MECHANISMS",
    "BOUNDS",
    "get_bound",
    "ErlingssonBound",
    "BlanketHoeffding",
    "BlanketBennett",
    "ClonesClosedForm",
    "ClonesNumerical",
    "StrongerClones",
    "ThinnedClones",
    "ExactKRR",
    "TwoPairKRRLowerBound",
    "VariationRatioBound",
]

#: Every bound, by its command-line name (``--bound``).
BOUNDS: dict[str, type[AmplificationBound]] = {
    cls.name: cls
    for cls in (
        ErlingssonBound,
        BlanketHoeffding,
        BlanketBennett,
        ClonesClosedForm,
        ClonesNumerical,
        StrongerClones,
        ThinnedClones,
        ExactKRR,
        TwoPairKRRLowerBound,
        VariationRatioBound,
    )
}


def get_bound(name: str, mechanism: str = "generic", k: int | None = None) -> AmplificationBound:
    """Return the bound registered as ``name`` for the given mechanism family.

    Parameters
    ----------
    name
        One of the keys of :data:`BOUNDS`.
    mechanism
        ``"generic"``, ``"laplace"`` or ``"krr"`` (each bound accepts the families it covers).
    k
        Domain size for ``mechanism="krr"``.

    Examples
    --------
    >>> from shufflelib.bounds import get_bound
    >>> bound = get_bound("clones")
    >>> eps = bound.epsilon(n=10_000, eps0=1.0, delta=1e-6)
    >>> round(eps, 3)
    0.053
    >>> bound.delta(10_000, 1.0, eps) <= 1e-6
    True
    """
    if name not in BOUNDS:
        raise ValueError(f"bound must be one of {', '.join(BOUNDS)}, got {name!r}")
    return BOUNDS[name](mechanism=mechanism, k=k)
