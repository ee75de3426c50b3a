"""The privacy calculator: ``python -m shufflelib`` (or the ``shufflelib`` script).

Three subcommands ask an amplification bound its three questions::

    python -m shufflelib epsilon --bound clones --n 10000 --eps0 1 --delta 1e-6
    python -m shufflelib delta   --bound clones --n 10000 --eps0 1 --eps 0.5
    python -m shufflelib eps0    --bound clones --n 10000 --eps 0.5 --delta 1e-6

The answer alone is printed on the last line of stdout (a round-trip exact
float); ``--json`` prints one JSON record of the inputs and the answer instead.
Bad arguments exit with status 2, a bound whose theorem does not cover the
parameters with status 1; either way with a one-line message on stderr.

Extending the calculator. Bounds are reached through *families*
(:class:`Family`). A family owns a set of bound names, declares the arguments
it reads for each question and answers the question from them. Argument values
reach the family as strings, so two families may share a flag (``--eps0``) and
read it differently (one number, or a comma-separated list of them). A new
family of bounds (a personalized population, a population law, ...) is one
subclass of :class:`Family` added to :data:`FAMILIES`; the parser is built
from that list.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from ._validation import check_int, check_nonnegative
from .bounds import BOUNDS, MECHANISMS, AmplificationBound, NotApplicableError
from .composition import MAX_ROUNDS, compare_composition, compose_bound, max_eps0_composed
from .personalized.cli import PersonalizedFamily
from .population.cli import PopulationFamily
from .segmented.cli import SegmentedFamily

__all__ = ["main", "build_parser", "Question", "Argument", "Family", "UniformFamily", "FAMILIES", "QUESTIONS"]

PROG = "shufflelib"


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


@dataclass(frozen=True)
class Argument:
    """A command-line option read by a family (its value reaches the family as a string).

    Examples
    --------
    >>> Argument("--counts", "comma-separated number of users per eps0", "LIST").dest
    'counts'
    """

    flag: str
    help: str
    metavar: str | None = None
    required: bool = True
    choices: tuple[str, ...] | None = None

    @property
    def dest(self) -> str:
        """Attribute name of the parsed value."""
        return self.flag.lstrip("-").replace("-", "_")


class Family(ABC):
    """A family of bounds sharing one description of the population of users.

    Subclasses set :attr:`bounds` (classes with ``title`` and ``reference``
    attributes, by command-line name) and implement :meth:`arguments` and
    :meth:`answer`; adding an instance to :data:`FAMILIES` makes its bounds and
    options available to every subcommand.

    Examples
    --------
    >>> family = FAMILIES[0]
    >>> [arg.flag for arg in family.arguments(QUESTIONS[0])]
    ['--n', '--eps0', '--delta', '--mechanism', '--k', '--compose']
    """

    #: Bound classes of this family, by ``--bound`` name.
    bounds: Mapping[str, type]

    @abstractmethod
    def arguments(self, question: Question) -> tuple[Argument, ...]:
        """The options this family reads to answer ``question``."""

    @abstractmethod
    def answer(self, question: Question, bound: str, values: Mapping[str, str | None]) -> dict[str, Any]:
        """Answer ``question`` with bound ``bound``.

        ``values`` maps each :attr:`Argument.dest` of :meth:`arguments` to its
        string value (``None`` if not given). Returns the record printed by
        ``--json``: the parsed inputs and the answer under ``question.answer``.
        Raises :class:`ValueError` for bad values and
        :class:`~shufflelib.bounds.base.NotApplicableError` when the theorem does not
        cover them.
        """

    def describe(self, bound: str) -> list[str]:
        """Help paragraphs on ``bound``: its title and its reference."""
        cls = self.bounds[bound]
        return [cls.title, cls.reference]


class UniformFamily(Family):
    """``n`` users running the same ``eps0``-LDP randomizer: every bound of
    :data:`shufflelib.bounds.BOUNDS`.

    ``--mechanism`` defaults to ``generic`` when the bound covers it, else to the
    first family it covers (``krr`` for ``exact-krr``); ``--k`` defaults to 2
    (binary randomized response) when the mechanism is ``krr``.

    Examples
    --------
    >>> values = {"n": "1000", "eps0": "1", "delta": "1e-6", "mechanism": None, "k": None}
    >>> record = UniformFamily().answer(QUESTIONS[0], "exact-krr", values)
    >>> record["mechanism"], record["k"], 0 < record["eps"] < 1
    ('krr', 2, True)
    """

    bounds: Mapping[str, type[AmplificationBound]] = BOUNDS

    _INPUTS: Mapping[str, tuple[str, str]] = {
        "epsilon": ("eps0", "delta"),
        "delta": ("eps0", "eps"),
        "eps0": ("eps", "delta"),
    }
    _OPTIONS: Mapping[str, Argument] = {
        "n": Argument("--n", "number of users (an integer >= 2)", "N"),
        "eps0": Argument("--eps0", "local privacy parameter of each randomizer (> 0)", "EPS0"),
        "eps": Argument("--eps", "central epsilon (>= 0; > 0 for the eps0 question)", "EPS"),
        "delta": Argument("--delta", "central delta, in (0, 1)", "DELTA"),
        "mechanism": Argument(
            "--mechanism",
            "local randomizer family (default: generic if the bound covers it, else the first it covers)",
            required=False,
            choices=MECHANISMS,
        ),
        "k": Argument(
            "--k", "domain size of k-ary randomized response (default 2 for krr)", "K", required=False
        ),
        "compose": Argument(
            "--compose",
            f"number of rounds T (an integer in [1, {MAX_ROUNDS}]): answer for T-fold adaptive composition "
            "(privacy loss distributions; --json adds the RDP, advanced and naive composition baselines "
            "for the epsilon question)",
            "T",
            required=False,
        ),
    }

    def arguments(self, question: Question) -> tuple[Argument, ...]:
        names = ("n", *self._INPUTS[question.command], "mechanism", "k", "compose")
        return tuple(self._OPTIONS[name] for name in names)

    def answer(self, question: Question, bound: str, values: Mapping[str, str | None]) -> dict[str, Any]:
        cls = self.bounds[bound]
        mechanism = values["mechanism"] or ("generic" if "generic" in cls.mechanisms else cls.mechanisms[0])
        k_text = values["k"]
        k = _integer("k", k_text) if k_text is not None else (2 if mechanism == "krr" else None)
        model = cls(mechanism=mechanism, k=k)
        n = _integer("n", values["n"])
        first, second = self._INPUTS[question.command]
        x, y = _real(first, values[first]), _real(second, values[second])
        record: dict[str, Any] = {"bound": bound, "mechanism": mechanism, "k": k, "n": n, first: x, second: y}
        if values.get("compose") is not None:
            rounds = check_int("compose", _integer("compose", values["compose"]), minimum=1, maximum=MAX_ROUNDS)
            return {**record, "compose": rounds, **_composed(question, model, n, x, y, rounds)}
        ask = {"epsilon": model.epsilon, "delta": model.delta, "eps0": model.max_eps0}[question.command]
        return {**record, question.answer: float(ask(n, x, y))}

    def describe(self, bound: str) -> list[str]:
        return [*super().describe(bound), f"mechanisms: {', '.join(self.bounds[bound].mechanisms)}"]


def _composed(
    question: Question, model: AmplificationBound, n: int, x: float, y: float, rounds: int
) -> dict[str, Any]:
    """Answer ``question`` for ``rounds`` composed rounds (``x, y`` as in ``UniformFamily._INPUTS``)."""
    if question.command == "epsilon":
        r = compare_composition(model, n, x, rounds, y)
        baselines = {key: r[key] for key in ("rdp", "advanced", "naive")}
        return {
            "eps": r["pld"],
            "discretization_error": r["discretization_error"],
            "lower_bound": r["lower_bound"],
            "baselines": baselines,
        }
    if question.command == "delta":
        curve = compose_bound(model, n, x, rounds)
        return {
            "delta": curve.delta(check_nonnegative("eps", y)),
            "discretization_error": curve.discretization_error,
            "lower_bound": curve.lower_bound,
        }
    return {"eps0": max_eps0_composed(model, n, x, y, rounds)}


#: Every family the calculator knows; the parser is built from this list.
FAMILIES: list[Family] = [UniformFamily(), PersonalizedFamily(), PopulationFamily(), SegmentedFamily()]


# ------------------------------------------------------------------ parser
class _UsageError(Exception):
    """Bad command-line arguments (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors become :class:`_UsageError` (one line, status 2).

    Abbreviated options are refused: ``--eps`` must never be read as ``--eps0``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, allow_abbrev=False, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: error: {message}")


def _integer(name: str, text: str | None) -> int:
    try:
        value: float = int(text)  # type: ignore[arg-type]
    except ValueError:
        value = _real(name, text)
    return check_int(name, value)


def _real(name: str, text: str | None) -> float:
    try:
        return float(text)  # type: ignore[arg-type]
    except ValueError:
        raise ValueError(f"{name} must be a number, got {text!r}") from None


def _family_of(bound: str) -> Family:
    return next(family for family in FAMILIES if bound in family.bounds)


def _bounds_epilog() -> str:
    lines = ["bounds (--bound):"]
    for family in FAMILIES:
        for name in family.bounds:
            lines.append(f"  {name}")
            for paragraph in family.describe(name):
                lines.extend(
                    textwrap.wrap(paragraph, 78, initial_indent="      ", subsequent_indent="        ")
                )
    return "\n".join(lines)


def _arguments(question: Question) -> list[Argument]:
    """Union of the families' options for ``question`` (first declaration of a flag wins);
    an option is mandatory for argparse only if every family requires it."""
    seen: dict[str, Argument] = {}
    for family in FAMILIES:
        for arg in family.arguments(question):
            seen.setdefault(arg.flag, arg)
    return [
        Argument(arg.flag, arg.help, arg.metavar, _required_everywhere(question, arg.flag), arg.choices)
        for arg in seen.values()
    ]


def _required_everywhere(question: Question, flag: str) -> bool:
    return all(
        any(arg.flag == flag and arg.required for arg in family.arguments(question)) for family in FAMILIES
    )


def build_parser() -> argparse.ArgumentParser:
    """The ``shufflelib`` argument parser (one subcommand per :data:`QUESTIONS` entry).

    Examples
    --------
    >>> argv = ["eps0", "--bound", "clones", "--n", "1e4", "--eps", "1", "--delta", "1e-6"]
    >>> args = build_parser().parse_args(argv)
    >>> args.command, args.bound, args.n
    ('eps0', 'clones', '1e4')
    """
    epilog = _bounds_epilog()
    formatter = argparse.RawDescriptionHelpFormatter
    parser = _Parser(
        prog=PROG,
        description="Privacy calculator for amplification by shuffling.",
        epilog=epilog,
        formatter_class=formatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    names = [name for family in FAMILIES for name in family.bounds]
    if len(set(names)) != len(names):
        raise RuntimeError(f"FAMILIES must give each bound one name, got {names}")
    for question in QUESTIONS:
        sub = commands.add_parser(
            question.command,
            help=question.help,
            description=question.help,
            epilog=epilog,
            formatter_class=formatter,
        )
        sub.add_argument(
            "--bound", required=True, choices=names, metavar="BOUND", help=f"one of: {', '.join(names)}"
        )
        for arg in _arguments(question):
            sub.add_argument(
                arg.flag, required=arg.required, metavar=arg.metavar, choices=arg.choices, help=arg.help
            )
        sub.add_argument(
            "--json", action="store_true", help="print one JSON record of the inputs and the answer"
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the privacy calculator; return the exit status.

    Parameters
    ----------
    argv
        Command-line arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 if the bound does not apply to the parameters, 2 for bad arguments.

    Examples
    --------
    >>> argv = ["epsilon", "--bound", "exact-krr", "--n", "1000", "--eps0", "1", "--delta", "1e-6"]
    >>> status = main(argv)  # doctest: +ELLIPSIS
    0...
    >>> status
    0
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    except _UsageError as exc:
        return _fail(str(exc), 2)
    question = next(q for q in QUESTIONS if q.command == args.command)
    prefix = f"{PROG} {question.command}"
    family = _family_of(args.bound)
    try:
        values = _family_values(question, family, args)
        record = {"question": question.command, **family.answer(question, args.bound, values)}
    except NotApplicableError as exc:
        return _fail(f"{prefix}: {exc}", 1)
    except ValueError as exc:
        return _fail(f"{prefix}: error: {exc}", 2)
    if args.json:
        print(json.dumps(record))
    else:
        print(repr(record[question.answer]))
    return 0


def _family_values(question: Question, family: Family, args: argparse.Namespace) -> dict[str, str | None]:
    """The family's options from ``args``; reject missing required ones and options it does not read."""
    own = family.arguments(question)
    for arg in own:
        if arg.required and getattr(args, arg.dest) is None:
            raise ValueError(f"{arg.flag} is required by the {args.bound} bound")
    own_flags = {arg.flag for arg in own}
    for arg in _arguments(question):
        if arg.flag not in own_flags and getattr(args, arg.dest) is not None:
            raise ValueError(f"{arg.flag} is not used by the {args.bound} bound")
    return {arg.dest: getattr(args, arg.dest) for arg in own}


def _fail(message: str, status: int) -> int:
    print(" ".join(message.split()), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
