"""Amplification-by-shuffling bounds, each answering the field's three questions.

Every bound is a subclass of :class:`~shufflelib.bounds.base.AmplificationBound`
and is registered in :data:`BOUNDS` under its command-line name.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from .._docstrings import fill_doc
from .._lazy import lazy_getattr

if TYPE_CHECKING:  # pragma: no cover - imported lazily at run time (see _WHERE)
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

#: Every bound: its command-line name -> (its module in this package, its class). Importing the
#: package loads none of them (the calculator's start-up: a question loads the one it asks);
#: :data:`BOUNDS` and the package's attributes import a module when first read.
_WHERE: dict[str, tuple[str, str]] = {
    "erlingsson": ("erlingsson", "ErlingssonBound"),
    "blanket-hoeffding": ("blanket", "BlanketHoeffding"),
    "blanket-bennett": ("blanket", "BlanketBennett"),
    "clones-closed": ("clones", "ClonesClosedForm"),
    "clones": ("clones", "ClonesNumerical"),
    "stronger-clones": ("stronger_clones", "StrongerClones"),
    "thinned-clones": ("thinned_clones", "ThinnedClones"),
    "exact-krr": ("exact", "ExactKRR"),
    "krr-two-pair-lower": ("exact", "TwoPairKRRLowerBound"),
    "variation-ratio": ("variation_ratio", "VariationRatioBound"),
}
_MODULES: dict[str, str] = {
    **{cls: module for module, cls in _WHERE.values()},
    "AmplificationBound": "base",
    "NotApplicableError": "base",
    "MECHANISMS": "base",
}


#: The package's attributes, imported from their module when first read.
__getattr__ = lazy_getattr(__name__, _MODULES, globals())


class _Registry(Mapping[str, "type[AmplificationBound]"]):
    """The bounds by command-line name: the names known at once, each class imported when read."""

    def __getitem__(self, name: str) -> type[AmplificationBound]:
        if name not in _WHERE:
            raise KeyError(name)
        return __getattr__(_WHERE[name][1])

    def __iter__(self) -> Iterator[str]:
        return iter(_WHERE)

    def __len__(self) -> int:
        return len(_WHERE)

    def __repr__(self) -> str:
        return f"BOUNDS({', '.join(_WHERE)})"


#: Every bound, by its command-line name (``--bound``); a mapping whose classes are imported
#: when read.
BOUNDS: Mapping[str, type[AmplificationBound]] = _Registry()


@fill_doc
def get_bound(name: str, mechanism: str = "generic", k: int | None = None) -> AmplificationBound:
    """Return the bound registered as ``name`` for the given mechanism family.

    Parameters
    ----------
    name
        One of the keys of :data:`BOUNDS`.
    mechanism
        ``"generic"``, ``"laplace"`` or ``"krr"`` (each bound accepts the families it covers).
    %(k_blanket)s

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
