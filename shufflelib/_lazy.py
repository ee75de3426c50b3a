"""Attributes of a package imported from their module when first read (PEP 562).

The calculator's start-up loads only what its question needs: a package lists which module
holds each attribute, and its module-level ``__getattr__`` imports that module on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, modules: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: ``name`` from its submodule ``modules[name]``, then cached.

    Parameters
    ----------
    package
        The package's ``__name__``.
    modules
        Each lazy attribute's submodule, relative to the package.
    namespace
        The package's ``globals()``: a read attribute is stored there, so it is imported once.

    Examples
    --------
    >>> space = {}
    >>> getattr_ = lazy_getattr("shufflelib", {"shuffle": "shuffler"}, space)
    >>> getattr_("shuffle").__name__, "shuffle" in space
    ('shuffle', True)
    """

    def __getattr__(name: str) -> Any:
        if name not in modules:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{modules[name]}", package), name)
        namespace[name] = value
        return value

    return __getattr__
