"""Exercise labels that resolve in the PDF edition.

sphinx-exercise writes each exercise's LaTeX label as ``exercise:<label>``, while Sphinx's
LaTeX writer refers to it as ``<docname>:<label>`` (the form of every other label), so every
``{ref}`` to an exercise from another page (the instructors' plan links about thirty) was an
undefined reference in the PDF. This extension keeps sphinx-exercise's output and adds the
label in Sphinx's form before it.
"""

from __future__ import annotations

from collections.abc import Callable

from docutils.nodes import Node
from sphinx.application import Sphinx
from sphinx_exercise.nodes import (
    depart_exercise_enumerable_node,
    depart_exercise_node,
    exercise_enumerable_node,
    exercise_node,
    visit_exercise_enumerable_node,
    visit_exercise_node,
)


def _with_sphinx_label(visit: Callable[[object, Node], None]) -> Callable[[object, Node], None]:
    """``visit`` preceded by ``\\label{<docname>:<label>}`` (the form Sphinx's references use)."""

    def labelled(self, node: Node) -> None:
        self.body.append("\\phantomsection\\label{\\detokenize{" + f"{node['docname']}:{node['label']}" + "}}")
        visit(self, node)

    return labelled


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx_exercise")
    app.add_node(exercise_node, override=True, latex=(_with_sphinx_label(visit_exercise_node), depart_exercise_node))
    app.add_node(
        exercise_enumerable_node,
        override=True,
        latex=(_with_sphinx_label(visit_exercise_enumerable_node), depart_exercise_enumerable_node),
    )
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
