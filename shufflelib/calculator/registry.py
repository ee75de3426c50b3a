"""Every family the calculator knows, and the bound names they own.

Examples
--------
>>> family_of("pop-tight").__class__.__name__
'PopulationFamily'
>>> bound_title("clones") == family_of("clones").bounds["clones"].title
True
"""

from __future__ import annotations

from .base import Family
from .personalized import PersonalizedFamily
from .population import PopulationFamily
from .segmented import SegmentedFamily
from .uniform import UniformFamily

__all__ = ["FAMILIES", "family_of", "bound_title"]

#: Every family the calculator knows; the parser is built from this list.
FAMILIES: list[Family] = [UniformFamily(), PersonalizedFamily(), PopulationFamily(), SegmentedFamily()]


def family_of(bound: str, families: list[Family] | None = None) -> Family:
    """The family owning ``--bound`` name ``bound``.

    Examples
    --------
    >>> family_of("segmented-exact").__class__.__name__
    'SegmentedFamily'
    """
    for family in FAMILIES if families is None else families:
        if bound in family.bounds:
            return family
    raise ValueError(f"unknown bound {bound!r}")


def bound_title(bound: str) -> str:
    """The long label of ``--bound`` name ``bound`` (its ``title``), as tables and legends show it.

    Examples
    --------
    >>> bound_title("segmented-thm3")
    'Segmented shuffle protocol (Wang et al.), Theorem 3 as printed: not sound for lam < 1'
    """
    return family_of(bound).bounds[bound].title
