"""The privacy calculator: ``python -m shufflelib`` (or the ``shufflelib`` script).

Three subcommands ask an amplification bound its three questions::

    python -m shufflelib epsilon --bound clones --n 10000 --eps0 1 --delta 1e-6
    python -m shufflelib delta   --bound clones --n 10000 --eps0 1 --eps 0.5
    python -m shufflelib eps0    --bound clones --n 10000 --eps 0.5 --delta 1e-6

The answer alone is printed on the last line of stdout (a round-trip exact float);
``--json`` prints one JSON record of the inputs and the answer instead. Exit statuses:

* 0 — an answer;
* 1 — the bound does not apply to the parameters: one line ``... not applicable: <why>``
  (raise :class:`~shufflelib.bounds.base.NotApplicableError`);
* 2 — bad arguments: one line naming the flag and its allowed range (raise ``ValueError``);
* 3 — an internal error (any other exception): one line ``internal error: ...``.

No traceback reaches the user, and a long value is never echoed in full.

**Modules.**

* :mod:`~shufflelib.calculator.base` — :class:`~shufflelib.calculator.base.Question`,
  :class:`~shufflelib.calculator.base.Argument` (a flag declared once with its
  :class:`~shufflelib.calculator.base.Number` parser and range),
  :class:`~shufflelib.calculator.base.Family`, shared arguments
  (``EPS0``, ``EPS``, ``EPS_TARGET``, ``DELTA``, ``USERS``);
* :mod:`~shufflelib.calculator.uniform`, :mod:`~shufflelib.calculator.personalized`,
  :mod:`~shufflelib.calculator.population`, :mod:`~shufflelib.calculator.segmented` — the families;
* :mod:`~shufflelib.calculator.registry` — the list of families
  (:data:`~shufflelib.calculator.registry.FAMILIES`) and the bound names they own;
* :mod:`~shufflelib.calculator.cli` — the parser and :func:`~shufflelib.calculator.cli.main`.

Nothing outside this package imports it except ``shufflelib/__main__.py`` (three lines).

**Adding a flag.** Declare it once, as an :class:`~shufflelib.calculator.base.Argument` in the
family that reads it (in its ``arguments(question)``), with a
:class:`~shufflelib.calculator.base.Number` if it is numeric::

    _COMPOSE = Argument("--compose", "number of compositions T (default 1)", "T",
                        required=False, number=Number(integer=True, low=1))

The family's ``answer`` then receives ``values["compose"]`` already parsed (``None`` if not given);
a bad value exits 2 with ``--compose must be an integer >= 1, got '0'``. A flag every family reads
is declared in :mod:`~shufflelib.calculator.base` and added to each family's ``arguments``. Two
families may read one flag differently (``--eps0`` is a number for the uniform family, a list for
the personalized one): argparse sees strings, and each family parses with its own declaration.

**Adding a family.** Subclass :class:`~shufflelib.calculator.base.Family` (``bounds``: classes with
``title`` and ``reference`` by ``--bound`` name; ``arguments``; ``answer``; optionally ``describe``
for the help and ``answer_key`` when the printed answer is not ``question.answer``) and append an
instance to ``FAMILIES`` in :mod:`~shufflelib.calculator.registry`. The parser, the help and the
checks for missing or foreign flags follow from the declarations.

**Marking an answer unsound.** A record with a ``"warning"`` entry (a sentence) prints ``<prog>
<question>: warning: <sentence>`` on stderr; the answer is still printed and the exit status is 0.
Put the bound's soundness in the record too (``"sound": False``, as the personalized family does) so
``--json`` carries it.

Examples
--------
>>> from shufflelib.calculator import QUESTIONS, family_of
>>> family_of("clones").ask(QUESTIONS[1], "clones", {"n": "1e4", "eps0": "1", "eps": "0.5"})["delta"] < 1e-6
True
"""

from __future__ import annotations

from .base import QUESTIONS, Argument, Family, Number, Question
from .cli import build_parser, main
from .registry import FAMILIES, bound_title, family_of

__all__ = [
    "main",
    "build_parser",
    "Question",
    "QUESTIONS",
    "Argument",
    "Number",
    "Family",
    "FAMILIES",
    "family_of",
    "bound_title",
]
