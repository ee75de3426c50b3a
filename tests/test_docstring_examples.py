"""Every example in shufflelib's docstrings runs and prints what it says."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import matplotlib
import pytest

import shufflelib

matplotlib.use("Agg")

MODULES = sorted(info.name for info in pkgutil.walk_packages(shufflelib.__path__, prefix="shufflelib."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples failed in {name}"


def public_names() -> list[str]:
    """Every name in the ``__all__`` of a public (not underscored) shufflelib module."""
    names = []
    for name in MODULES:
        if any(part.startswith("_") and part != "__main__" for part in name.split(".")[1:]):
            continue
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if getattr(obj, "__module__", None) == name:
                names.append(f"{name}:{attr}")
    return names


@pytest.mark.parametrize("qualified", public_names())
def test_public_name_is_documented_with_an_example(qualified: str) -> None:
    """Every public class and function has a docstring with a runnable example."""
    module_name, attr = qualified.split(":")
    obj = getattr(importlib.import_module(module_name), attr)
    doc = inspect.getdoc(obj) or ""
    assert doc.strip(), f"{qualified} has no docstring"
    if inspect.isclass(obj) or inspect.isfunction(obj):
        assert ">>>" in doc, f"{qualified} has no example (an Examples section with >>> lines)"


def test_every_module_declares_its_public_names() -> None:
    missing = [name for name in MODULES if not hasattr(importlib.import_module(name), "__all__")]
    assert not missing, f"modules without __all__: {missing}"
