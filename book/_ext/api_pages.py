"""The API reference's pages: per module a summary table, then each public object once.

``.. shufflelib-module:: shufflelib.bounds.clones`` (in an ``{eval-rst}`` block of a page of
``book/api/``) writes:

* the module's docstring;
* a summary table of its public names (its ``__all__``) with each one's one-line
  description; names the module only re-exports are listed in a second table, "Also
  available here", that links to where they are documented;
* each name the module defines, documented in full, once (classes with their members).

Signatures never show a default's Python repr (``<function …>``, ``<class …>``, ``<object
at 0x…>``): defaults are shown as written in the source (``autodoc_preserve_defaults``), and
a default with no source text (a dataclass field's ``lambda``) as ``…``. Module-level data
is documented without its value (a registry's repr is a page of ``<class …>``).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

#: A default's repr that means nothing to a reader: ``<function f>``, ``<class 'C'>``, ``<C object at 0x…>``.
REPR = re.compile(
    r"<(?:function|class|bound method|built-in function|module|lambda)[^<>]*>|<[\w.]+ object at 0x[0-9a-f]+>"
)


def _defined_data(module) -> set[str]:
    """Names assigned at the top level of the module's source (its own data, not imports)."""
    try:
        tree = ast.parse(Path(inspect.getsourcefile(module)).read_text(encoding="utf-8"))
    except (TypeError, OSError):
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def public_names(modname: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The module's own public names, and its re-exported ones as (name, where it is defined)."""
    module = importlib.import_module(modname)
    own, reexported = [], []
    for name in getattr(module, "__all__", []):
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            continue
        if inspect.isclass(obj) or inspect.isroutine(obj):
            home = f"{obj.__module__}.{obj.__qualname__}"
        else:
            home = _data_home(modname, name)
        if home == f"{modname}.{name}":
            own.append(name)
        else:
            reexported.append((name, home))
    return own, reexported


def _data_home(modname: str, name: str) -> str:
    """Where a piece of module data is defined: follow the module's ``from … import name``."""
    module = importlib.import_module(modname)
    if name in _defined_data(module):
        return f"{modname}.{name}"
    try:
        tree = ast.parse(Path(inspect.getsourcefile(module)).read_text(encoding="utf-8"))
    except (TypeError, OSError):
        return f"{modname}.{name}"
    package = modname if hasattr(module, "__path__") else modname.rpartition(".")[0]
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            source = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            original = next(a.name for a in node.names if (a.asname or a.name) == name)
            return _data_home(source, original)
    return f"{modname}.{name}"


def module_rst(modname: str) -> list[str]:
    """The reStructuredText of one module's reference."""
    own, reexported = public_names(modname)
    module = importlib.import_module(modname)
    lines = [f".. automodule:: {modname}", ""]
    if own:
        lines += [".. rubric:: Contents", "", ".. autosummary::", "   :nosignatures:", ""]
        lines += [f"   {name}" for name in own] + [""]  # relative to the module automodule set
    if reexported:
        lines += [".. rubric:: Also available here", "", ".. list-table::", "   :widths: 35 65", ""]
        for name, home in reexported:
            holder, _, attribute = home.rpartition(".")
            obj = getattr(importlib.import_module(holder), attribute, None) if holder else None
            lines += [f"   * - :py:obj:`{name} <{home}>`", f"     - {summary_line(obj) if obj is not None else ''}"]
        lines += [""]
    for name in own:
        obj = getattr(module, name)
        if inspect.isclass(obj):
            lines += [f".. autoclass:: {modname}.{name}", "   :members:"]
            # the bases, where each is documented (a private base has no page to link to)
            if not any(base.__name__.startswith("_") for base in obj.__bases__):
                lines += ["   :show-inheritance:"]
            lines += [""]
        elif inspect.isroutine(obj):
            lines += [f".. autofunction:: {modname}.{name}", ""]
        else:
            lines += [f".. autodata:: {modname}.{name}", "   :no-value:", ""]
    return lines


ROLE = re.compile(r":[\w:]+:`~?([^`<]+?)(?:\s*<[^`]*>)?`")


def summary_line(obj: object) -> str:
    """The first paragraph of an object's docstring, its roles written as literals (the
    summary is shown out of the object's module, where the roles' short targets would not
    resolve)."""
    doc = inspect.getdoc(obj) or ""
    first = doc.split("\n\n", 1)[0].replace("\n", " ").strip()
    text = ROLE.sub(lambda m: f"``{m.group(1).strip()}``", first)
    # outside literals, characters that reST would read as markup are escaped
    parts = text.split("``")
    for i in range(0, len(parts), 2):
        parts[i] = re.sub(r"([*|])", r"\\\1", parts[i])
        parts[i] = re.sub(r"(\w)_(?=\W|$)", r"\1\\_", parts[i])
    return "``".join(parts)


class ShufflelibModuleIndex(SphinxDirective):
    """``{shufflelib-module-index}`` with one module per line: a table of the modules, each
    linked to its reference and described by its docstring's first line."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        lines = [".. list-table::", "   :header-rows: 1", "   :widths: 35 65", ""]
        lines += ["   * - module", "     - what it holds"]
        for modname in (line.strip() for line in self.content if line.strip()):
            lines += [f"   * - :py:mod:`{modname}`", f"     - {summary_line(importlib.import_module(modname))}"]
        container = nodes.container(classes=["shufflelib-module-index"])
        nested_parse_with_titles(self.state, StringList(lines, source="<shufflelib-module-index>"), container)
        return container.children


class ShufflelibModule(SphinxDirective):
    """``{shufflelib-module} <module>``: the module's summary table and its objects, once each."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        modname = self.arguments[0]
        rst = StringList(module_rst(modname), source=f"<shufflelib-module {modname}>")
        container = nodes.container(classes=["shufflelib-module"])
        nested_parse_with_titles(self.state, rst, container)
        return container.children


def _no_reprs(app, what, name, obj, options, signature, return_annotation):
    """Signatures without a default's repr: ``cap=<function RoundModel.<lambda>>`` becomes ``cap=…``."""
    if signature and REPR.search(signature):
        signature = _strip_reprs(signature)
    if return_annotation and REPR.search(return_annotation):
        return_annotation = _strip_reprs(return_annotation)
    return signature, return_annotation


def _strip_reprs(text: str) -> str:
    while REPR.search(text):
        text = REPR.sub("…", text)
    return text


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx.ext.autodoc")
    app.setup_extension("sphinx.ext.autosummary")
    app.add_directive("shufflelib-module", ShufflelibModule)
    app.add_directive("shufflelib-module-index", ShufflelibModuleIndex)
    app.connect("autodoc-process-signature", _no_reprs)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
