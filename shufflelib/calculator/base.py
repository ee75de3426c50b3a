"""The calculator's vocabulary: questions, arguments (with their parsers) and families.

Nothing here knows a bound; the families (:mod:`~shufflelib.calculator.uniform`,
:mod:`~shufflelib.calculator.personalized`, :mod:`~shufflelib.calculator.population`,
:mod:`~shufflelib.calculator.segmented`) build on it and
:mod:`~shufflelib.calculator.registry` lists them.
"""

from __future__ import annotations

import importlib
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._validation import EPS0_LIMIT, EPS0_MIN, MAX_ROUNDS, N_MAX

if TYPE_CHECKING:  # pragma: no cover - composition is imported by the composed questions only
    from ..composition.model import RoundModel

__all__ = [
    "COMPOSE",
    "SAMPLE_RATE",
    "composed_answer",
    "Question",
    "QUESTIONS",
    "Number",
    "Argument",
    "Family",
    "LazyBounds",
    "shorten",
    "question_inputs",
    "EPS0",
    "EPS",
    "EPS_TARGET",
    "DELTA",
    "USERS",
]


@dataclass(frozen=True)
class Question:
    """One subcommand: the quantity it answers and the key of the answer in ``--json``.

    Examples
    --------
    >>> [(q.command, q.answer) for q in QUESTIONS]
    [('epsilon', 'eps'), ('delta', 'delta'), ('eps0', 'eps0')]
    """

    command: str
    answer: str
    help: str


#: The three subcommands, in the order the parser lists them.
QUESTIONS: tuple[Question, ...] = (
    Question("epsilon", "eps", "central epsilon of n shuffled eps0-LDP reports at a given delta"),
    Question("delta", "delta", "central delta of n shuffled eps0-LDP reports at a given epsilon"),
    Question("eps0", "eps0", "largest local eps0 whose shuffled protocol is (eps, delta)-DP"),
)

_LONG = re.compile(r"\S{61,}")


def shorten(text: str) -> str:
    """``text`` on one line, every run of more than 60 non-blank characters cut to 40 + its length.

    Error messages quote what the user typed; a 100,000-character value is not echoed in full.

    Examples
    --------
    >>> shorten("got 'x'\\n  and " + "y" * 100)
    "got 'x' and yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy... (100 characters)"
    """
    return _LONG.sub(lambda m: f"{m.group()[:40]}... ({len(m.group())} characters)", " ".join(text.split()))


@dataclass(frozen=True)
class Number:
    """How an argument's text becomes a number (or a comma-separated list of them), and its range.

    ``low``/``high`` bound the value (``None``: unbounded; infinite values and NaN are always
    refused), ``open_low``/``open_high`` exclude the end, ``integer`` asks for an integral
    value (``"1e4"`` reads as ``10000``), ``many`` for a comma-separated list.

    Examples
    --------
    >>> Number(low=0, open_low=True).parse("--eps0", "0.5")
    0.5
    >>> Number(integer=True, low=2).parse("--n", "1e4")
    10000
    >>> Number(low=0, high=1, open_low=True, open_high=True).describe()
    'a number in (0, 1)'
    >>> Number(low=0, open_low=True, many=True).parse("--eps0", "1,3")
    [1.0, 3.0]
    >>> Number(integer=True, low=2).parse("--n", "1")
    Traceback (most recent call last):
    ...
    ValueError: --n must be an integer >= 2, got '1'
    """

    integer: bool = False
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    many: bool = False

    def describe(self) -> str:
        """The allowed values in words (used in help and error messages)."""
        what = "an integer" if self.integer else "a number"
        if self.low is not None and self.high is not None:
            left, right = "(" if self.open_low else "[", ")" if self.open_high else "]"
            what += f" in {left}{_g(self.low)}, {_g(self.high)}{right}"
        elif self.low is not None:
            what += f" {'>' if self.open_low else '>='} {_g(self.low)}"
        elif self.high is not None:
            what += f" {'<' if self.open_high else '<='} {_g(self.high)}"
        if self.many:
            what = "a comma-separated list of " + what.replace("an integer", "integers").replace("a number", "numbers")
        return what

    def parse(self, flag: str, text: str) -> Any:
        """The value of ``text``, or a :class:`ValueError` naming ``flag`` and the allowed range."""
        if not self.many:
            return self._one(flag, text, text)
        parts = text.split(",")
        return [self._one(flag, part, text) for part in parts]

    def _one(self, flag: str, part: str, text: str) -> Any:
        value = _read(part, self.integer)
        # An int is compared exactly (math.isfinite would overflow past 10**308); a float
        # must be finite.
        ok = value is not None and (isinstance(value, int) or math.isfinite(value))
        if ok and self.low is not None:
            ok = value > self.low if self.open_low else value >= self.low
        if ok and self.high is not None:
            ok = value < self.high if self.open_high else value <= self.high
        if not ok:
            raise ValueError(shorten(f"{flag} must be {self.describe()}, got {_quoted(text)}"))
        return value


def _g(x: float) -> str:
    """``x`` as a range end: ``2``, ``0.5``, ``1e9``, ``1e-6`` (not ``1e+09``, ``1e-06``)."""
    return f"{x:g}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")


def _quoted(text: str) -> str:
    """``text`` in quotes for a message, every character outside printable ASCII shown as ``\\uXXXX``
    (a no-break space or an Arabic digit is seen for what it is)."""
    return "'" + "".join(c if " " <= c <= "~" else f"\\u{ord(c):04x}" for c in text) + "'"


#: A number as the calculator reads it: ASCII digits, an optional sign, point and exponent
#: (no ``_`` separators, no other script's digits, no ``inf``/``nan``: Python's ``float`` and
#: ``int`` accept all of these).
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")


def _read(text: str, integer: bool) -> float | int | None:
    """The number written in ``text`` (ASCII blanks around it allowed), ``None`` if it is not one.

    An integer's digits are read exactly (any length up to Python's limit of 4,300 digits; a
    longer one reads as infinite); ``1e4`` is an integer if its value is.
    """
    text = text.strip(" \t")
    if not _NUMBER.fullmatch(text):
        return None
    if integer and _INTEGER.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than int() converts: out of any range
            return math.inf
    value = float(text)
    if integer:
        return int(value) if math.isfinite(value) and value.is_integer() else None
    return value


@dataclass(frozen=True)
class Argument:
    """A command-line option read by a family, declared once with the way it is parsed.

    ``number`` turns the text into a number or list (``None``: the family gets the text, or one
    of ``choices``). The family receives the parsed value under :attr:`dest` (``None`` if the
    option is optional and not given).

    Examples
    --------
    >>> counts = Number(integer=True, low=1, many=True)
    >>> arg = Argument("--counts", "number of users per eps0 level", "LIST", number=counts)
    >>> arg.dest, arg.parse("10,20")
    ('counts', [10, 20])
    """

    flag: str
    help: str
    metavar: str | None = None
    required: bool = True
    choices: tuple[str, ...] | None = None
    number: Number | None = None

    @property
    def dest(self) -> str:
        """Attribute name of the parsed value."""
        return self.flag.lstrip("-").replace("-", "_")

    def parse(self, text: str | None) -> Any:
        """The value the family receives for ``text`` (``None`` stays ``None``)."""
        if text is None or self.number is None:
            return text
        return self.number.parse(self.flag, text)


class LazyBounds(Mapping[str, type]):
    """A family's bound classes by ``--bound`` name: the names known at once, the classes read
    from the mapping ``attribute`` of ``module`` (the family's own registry) when one is first
    read.

    The parser needs only the names; a question loads the modules of its own family (the
    calculator's start-up). The registry must hold exactly ``names`` (checked when it loads).

    Examples
    --------
    >>> bounds = LazyBounds(("pop-tight",), "shufflelib.population.choice", "BOUNDS")
    >>> list(bounds)
    ['pop-tight']
    """

    def __init__(self, names: tuple[str, ...], module: str, attribute: str) -> None:
        self._names, self._where = names, (module, attribute)
        self._loaded: Mapping[str, type] | None = None

    def __getitem__(self, name: str) -> type:
        if name not in self._names:
            raise KeyError(name)
        if self._loaded is None:
            loaded = getattr(importlib.import_module(self._where[0]), self._where[1])
            if set(loaded) != set(self._names):
                raise RuntimeError(f"the calculator names {self._names}, {'.'.join(self._where)} holds {tuple(loaded)}")
            self._loaded = loaded
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


class Family(ABC):
    """A family of bounds sharing one description of the population of users.

    Subclasses set :attr:`bounds` (classes with ``title`` and ``reference`` attributes, by
    ``--bound`` name) and implement :meth:`arguments` and :meth:`answer`; adding an instance
    to :data:`shufflelib.calculator.registry.FAMILIES` makes its bounds and options available
    to every subcommand.

    Examples
    --------
    >>> from shufflelib.calculator import FAMILIES
    >>> family = FAMILIES[0]
    >>> [arg.flag for arg in family.arguments(QUESTIONS[0])]
    ['--n', '--eps0', '--delta', '--mechanism', '--k', '--compose', '--sample-rate']
    >>> record = family.ask(QUESTIONS[0], "clones", {"n": "1e4", "eps0": "1", "delta": "1e-6"})
    >>> record["n"], 0 < record["eps"] < 1
    (10000, True)
    """

    #: Bound classes of this family, by ``--bound`` name.
    bounds: Mapping[str, type]

    @abstractmethod
    def arguments(self, question: Question) -> tuple[Argument, ...]:
        """The options this family reads to answer ``question``."""

    @abstractmethod
    def answer(self, question: Question, bound: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Answer ``question`` with bound ``bound``.

        ``values`` maps each :attr:`~shufflelib.calculator.base.Argument.dest` of ``arguments`` to
        its parsed value (``None`` if not given). Returns the record printed by ``--json``: the
        inputs and the answer under :meth:`~shufflelib.calculator.base.Family.answer_key`. An
        optional ``"warning"`` entry (a sentence) is printed on stderr and the answer still exits 0.
        Raises :class:`ValueError` for bad values and
        :class:`~shufflelib.bounds.base.NotApplicableError` when the theorem does not cover them.
        """

    def answer_key(self, question: Question, bound: str) -> str:
        """Key of the record's entry printed as the answer (default ``question.answer``)."""
        return question.answer

    def describe(self, bound: str) -> list[str]:
        """Help paragraphs on ``bound``: its title and its reference."""
        cls = self.bounds[bound]
        return [cls.title, cls.reference]

    def parse(self, question: Question, texts: Mapping[str, str | None]) -> dict[str, Any]:
        """Parse the option strings ``texts`` (by dest; missing means not given) with :meth:`arguments`."""
        return {arg.dest: arg.parse(texts.get(arg.dest)) for arg in self.arguments(question)}

    def ask(self, question: Question, bound: str, texts: Mapping[str, str | None]) -> dict[str, Any]:
        """:meth:`answer` for option strings, as the command line gives them."""
        return self.answer(question, bound, self.parse(question, texts))


# Options several families read the same way (a family may also declare its own reading).
#: ``--eps0``: one local privacy parameter.
EPS0 = Argument(
    "--eps0",
    "local privacy parameter of each randomizer, in [1e-6, 100]",
    "EPS0",
    number=Number(low=EPS0_MIN, high=EPS0_LIMIT),
)
#: ``--eps``: central epsilon given to the delta question.
EPS = Argument("--eps", "central epsilon (>= 0)", "EPS", number=Number(low=0))
#: ``--eps``: central epsilon targeted by the eps0 question.
EPS_TARGET = Argument("--eps", "target central epsilon (> 0)", "EPS", number=Number(low=0, open_low=True))
#: ``--delta``: central delta.
DELTA = Argument(
    "--delta", "central delta, in (0, 1)", "DELTA", number=Number(low=0, high=1, open_low=True, open_high=True)
)
#: ``--n``: number of users.
USERS = Argument("--n", "number of users (an integer in [2, 1e9])", "N", number=Number(integer=True, low=2, high=N_MAX))


#: ``--compose``: number of rounds of the composed question (every family reads it).
COMPOSE = Argument(
    "--compose",
    "number of rounds T: answer for the T-fold adaptive composition (privacy loss distributions; "
    "--json adds the Renyi DP, advanced and naive composition baselines to the epsilon question)",
    "T",
    required=False,
    number=Number(integer=True, low=1, high=MAX_ROUNDS),
)


#: ``--sample-rate``: each user takes part in a round with this probability (the uniform family).
SAMPLE_RATE = Argument(
    "--sample-rate",
    "probability q that a user takes part in a round, in (0, 1] (Poisson subsampling of the users; "
    "substitution neighbours; with or without --compose)",
    "Q",
    required=False,
    number=Number(low=0, high=1, open_low=True),
)


def composed_answer(
    question: Question, model: RoundModel, x: float, y: float, rounds: int, answer: str | None = None
) -> dict[str, Any]:
    """The record entries of ``question`` for ``rounds`` composed rounds of ``model``.

    ``x, y`` are the question's two given values (:func:`question_inputs`); ``answer`` is the
    key of the eps0 question's answer (default ``question.answer``). A model's ``note`` (e.g. which
    pair stands for a bracket's end) goes into the record only: stderr carries warnings, which
    are about validity (``warning: not a valid bound for …``), and this is none.

    Examples
    --------
    >>> from shufflelib.bounds import ErlingssonBound
    >>> from shufflelib.composition import bound_model
    >>> r = composed_answer(QUESTIONS[1], bound_model(ErlingssonBound(), 10_000), 0.4, 1.0, 10)
    >>> r["route"], 0 < r["delta"] < 1e-3
    ('profile', True)
    """
    from ..composition.model import composed_record  # only a composed question loads composition

    return composed_record(question.command, model, x, y, rounds, answer or question.answer)


def question_inputs(question: Question, first: Argument = EPS0) -> tuple[Argument, Argument]:
    """The two given quantities of ``question``: ``(first, delta)``, ``(first, eps)`` or ``(eps, delta)``.

    Examples
    --------
    >>> [arg.flag for arg in question_inputs(QUESTIONS[2])]
    ['--eps', '--delta']
    """
    return {"epsilon": (first, DELTA), "delta": (first, EPS), "eps0": (EPS_TARGET, DELTA)}[question.command]
