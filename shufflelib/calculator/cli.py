"""The command line of the privacy calculator: the parser, :func:`main` and its exit statuses.

Exit statuses: 0 an answer (last line of stdout), 1 the bound does not apply ("not
applicable: ..."), 2 bad arguments, 3 an internal error. Every failure is one line on
stderr; no traceback reaches the user.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, NoReturn

from threadpoolctl import threadpool_limits

from ..bounds.base import NotApplicableError
from . import registry
from .base import QUESTIONS, Argument, Family, Question, shorten

__all__ = ["main", "build_parser", "PROG", "NOT_APPLICABLE", "BAD_ARGUMENTS", "INTERNAL_ERROR"]

PROG = "shufflelib"
#: The exit status when the bound's theorem does not cover the parameters.
NOT_APPLICABLE = 1
#: The exit status of bad command-line arguments.
BAD_ARGUMENTS = 2
#: The exit status of an unexpected exception (a bug), reported in one line.
INTERNAL_ERROR = 3


class _UsageError(Exception):
    """Bad command-line arguments (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors become :class:`_UsageError` (one line, status 2).

    Abbreviated options are refused: ``--eps`` must never be read as ``--eps0``. The epilog
    (every bound with its title and reference) is written only when the help is printed:
    it imports every bound's module, which a question does not need (the start-up).
    """

    def __init__(self, *args: Any, families: Sequence[Family] = (), **kwargs: Any) -> None:
        super().__init__(*args, allow_abbrev=False, **kwargs)
        self._families = families

    def format_help(self) -> str:
        if self._families and self.epilog is None:
            self.epilog = _bounds_epilog(self._families)
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: error: {message}")


def _families(families: Sequence[Family] | None) -> Sequence[Family]:
    return registry.FAMILIES if families is None else families


def _bounds_epilog(families: Sequence[Family]) -> str:
    lines = ["bounds (--bound):"]
    for family in families:
        for name in family.bounds:
            lines.append(f"  {name}")
            for paragraph in family.describe(name):
                lines.extend(textwrap.wrap(paragraph, 78, initial_indent="      ", subsequent_indent="        "))
    return "\n".join(lines)


def _arguments(question: Question, families: Sequence[Family]) -> list[Argument]:
    """Union of the families' options for ``question`` (first declaration of a flag gives its help);
    an option is mandatory for argparse only if every family requires it. Values are parsed by
    the family that reads them, so argparse sees strings."""
    seen: dict[str, Argument] = {}
    for family in families:
        for arg in family.arguments(question):
            seen.setdefault(arg.flag, arg)
    return [
        Argument(arg.flag, arg.help, arg.metavar, _required_everywhere(question, arg.flag, families), arg.choices)
        for arg in seen.values()
    ]


def _required_everywhere(question: Question, flag: str, families: Sequence[Family]) -> bool:
    return all(any(arg.flag == flag and arg.required for arg in family.arguments(question)) for family in families)


def build_parser(families: Sequence[Family] | None = None) -> argparse.ArgumentParser:
    """The ``shufflelib`` argument parser (one subcommand per :data:`~shufflelib.calculator.base.QUESTIONS` entry).

    Examples
    --------
    >>> argv = ["eps0", "--bound", "clones", "--n", "1e4", "--eps", "1", "--delta", "1e-6"]
    >>> args = build_parser().parse_args(argv)
    >>> args.command, args.bound, args.n
    ('eps0', 'clones', '1e4')
    """
    families = _families(families)
    formatter = argparse.RawDescriptionHelpFormatter
    parser = _Parser(
        prog=PROG,
        description="Privacy calculator for amplification by shuffling.",
        formatter_class=formatter,
        families=families,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    names = [name for family in families for name in family.bounds]
    if len(set(names)) != len(names):
        raise RuntimeError(f"the calculator's families must give each bound one name, got {names}")
    for question in QUESTIONS:
        sub = commands.add_parser(
            question.command,
            help=question.help,
            description=question.help,
            formatter_class=formatter,
            families=families,
        )
        sub.add_argument("--bound", required=True, choices=names, metavar="BOUND", help=f"one of: {', '.join(names)}")
        for arg in _arguments(question, families):
            sub.add_argument(arg.flag, required=arg.required, metavar=arg.metavar, choices=arg.choices, help=arg.help)
        sub.add_argument("--json", action="store_true", help="print one JSON record of the inputs and the answer")
    return parser


def main(argv: Sequence[str] | None = None, families: Sequence[Family] | None = None) -> int:
    """Run the privacy calculator; return the exit status.

    Parameters
    ----------
    argv
        Command-line arguments without the program name (default ``sys.argv[1:]``).
    families
        The families to offer (default :data:`~shufflelib.calculator.registry.FAMILIES`).

    Returns
    -------
    int
        0 on success, 1 if the bound does not apply to the parameters, 2 for bad arguments,
        3 for an internal error.

    Examples
    --------
    >>> argv = ["epsilon", "--bound", "exact-krr", "--n", "1000", "--eps0", "1", "--delta", "1e-6"]
    >>> status = main(argv)  # doctest: +ELLIPSIS
    0...
    >>> status
    0
    >>> main(["epsilon", "--bound", "exact-krr", "--n", "1", "--eps0", "1", "--delta", "1e-6"])
    2
    """
    families = _families(families)
    try:
        parser = build_parser(families)
        try:
            words = _attach_negative_values(sys.argv[1:] if argv is None else list(argv))
            _refuse_repeated(words)
            args = parser.parse_args(words)
        except SystemExit as exc:  # --help
            return int(exc.code or 0)
        except _UsageError as exc:
            return _fail(str(exc), BAD_ARGUMENTS)
        question = next(q for q in QUESTIONS if q.command == args.command)
        prefix = f"{PROG} {question.command}"
        family = registry.family_of(args.bound, list(families))
        try:
            values = family.parse(question, _family_texts(question, family, args, families))
            # One BLAS thread: the answers' matrix products are small, and idle BLAS threads
            # spinning after each one cost CPU without saving time.
            with threadpool_limits(limits=1, user_api="blas"):
                record = {"question": question.command, **family.answer(question, args.bound, values)}
            key = family.answer_key(question, args.bound)
            answer = record[key]
        except NotApplicableError as exc:
            reason = str(exc)  # the documented wording: "<bound> bound not applicable: <why>"
            if "not applicable: " not in reason:
                reason = f"{args.bound} bound not applicable: {reason}"
            return _fail(f"{prefix}: {reason}", NOT_APPLICABLE)
        except ValueError as exc:
            return _fail(f"{prefix}: error: {exc}", BAD_ARGUMENTS)
    except Exception as exc:  # a bug: one line, never a traceback, never status 0 or 1
        return _fail(f"{PROG}: internal error: {type(exc).__name__}: {exc}", INTERNAL_ERROR)
    if record.get("warning"):
        _fail(f"{prefix}: warning: {record['warning']}", 0)
    if args.json:
        print(json.dumps(record))
    else:
        print(repr(answer))
    return 0


def _attach_negative_values(argv: list[str]) -> list[str]:
    """``--n -inf`` -> ``--n=-inf``: argparse takes a value starting with ``-`` for an option (every
    calculator option is long, so a single-dash token after one is its value)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        following = argv[i + 1] if i + 1 < len(argv) else ""
        if (
            token.startswith("--")
            and "=" not in token
            and token != "--json"
            and following.startswith("-")
            and not following.startswith("--")
            and following not in ("-h",)
        ):
            out.append(f"{token}={following}")
            i += 2
        else:
            out.append(token)
            i += 1
    return out


def _refuse_repeated(words: list[str]) -> None:
    """A flag given twice is refused (argparse would silently keep the last value)."""
    seen: set[str] = set()
    for word in words:
        if word == "--":
            return
        flag = word.partition("=")[0]
        if flag.startswith("--"):
            if flag in seen:
                raise _UsageError(f"{PROG}: error: {flag} is given more than once")
            seen.add(flag)


def _family_texts(
    question: Question, family: Family, args: argparse.Namespace, families: Sequence[Family]
) -> dict[str, str | None]:
    """The family's option strings from ``args``; reject missing required ones and options it does not read."""
    own = family.arguments(question)
    for arg in own:
        if arg.required and getattr(args, arg.dest) is None:
            raise ValueError(f"{arg.flag} is required by the {args.bound} bound")
    own_flags = {arg.flag for arg in own}
    for arg in _arguments(question, families):
        if arg.flag not in own_flags and getattr(args, arg.dest) is not None:
            raise ValueError(f"{arg.flag} is not used by the {args.bound} bound")
    return {arg.dest: getattr(args, arg.dest) for arg in own}


def _fail(message: str, status: int) -> int:
    print(shorten(message), file=sys.stderr)
    return status
