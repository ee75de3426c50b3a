"""Every example in shufflelib's docstrings runs and prints what it says."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import matplotlib
import pytest

import shufflelib

matplotlib.use("Agg")

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(shufflelib.__path__, prefix="shufflelib.")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples failed in {name}"
