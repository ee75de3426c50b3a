"""The calculator's family for personalized populations (``python -m shufflelib``).

A population is given as levels with the number of users at each::

    python -m shufflelib epsilon --bound pers-clones --randomizer laplace \\
        --eps0 0.5,1,2 --counts 5000,3000,2000 --delta 1e-6

``--delta0`` gives the local δ (one value for all levels, or one per level;
needed by the Gaussian mechanism with the ``classical`` or ``analytic``
calibration). For the ``eps0`` question, ``--eps0`` gives the *shape* of the
levels and the answer is the largest top level (all levels scaled in
proportion) that reaches ``(--eps, --delta)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._validation import EPS0_LIMIT, EPS0_MIN, N_MAX
from ..bounds.base import soundness_record
from ..randomizers import CALIBRATIONS
from ..randomizers import UNIT_KINDS as KINDS
from .base import COMPOSE, EPS0, Argument, Family, LazyBounds, Number, Question, composed_answer, question_inputs

__all__ = ["PersonalizedFamily"]

#: Parameter names of :class:`~shufflelib.personalized.population.Population` -> the calculator's flags.
_FLAG_NAMES = {"eps": "--eps0", "delta": "--delta0", "counts": "--counts"}

_LEVELS = Argument(
    "--eps0",
    "comma-separated local eps levels, each in [1e-6, 100]",
    "LIST",
    number=Number(low=EPS0_MIN, high=EPS0_LIMIT, many=True),
)
_OPTIONS = (
    Argument(
        "--counts",
        "comma-separated number of users at each level (integers in [1, 1e9], adding up to at most 1e9)",
        "LIST",
        number=Number(integer=True, low=1, high=N_MAX, many=True),
    ),
)
_MECHANISM = (
    Argument("--randomizer", "local randomizer of personalized bounds", choices=KINDS),
    Argument(
        "--calibration",
        "noise calibration of the gaussian randomizer (default classical)",
        required=False,
        choices=CALIBRATIONS,
    ),
    Argument(
        "--delta0",
        "local delta: one value, or one per level (default 0)",
        "LIST",
        required=False,
        number=Number(low=0, high=1, open_high=True, many=True),
    ),
)


class PersonalizedFamily(Family):
    """Users at personalized privacy levels: the bounds of :mod:`shufflelib.personalized.bounds`.

    Examples
    --------
    >>> from shufflelib.calculator.base import QUESTIONS
    >>> texts = {"eps0": "0.5,1", "counts": "5000,5000", "delta": "1e-6", "randomizer": "rr"}
    >>> record = PersonalizedFamily().ask(QUESTIONS[0], "pers-clones", texts)
    >>> record["n"], 0 < record["eps"] < 1
    (10000, True)
    """

    #: The bounds of :data:`~shufflelib.personalized.bounds.PERSONALIZED_BOUNDS` (loaded by a
    #: personalized question).
    bounds: Mapping[str, type] = LazyBounds(
        (
            "pers-liu24",
            "pers-liu24-printed",
            "pers-liu24-pair",
            "pers-clones",
            "pers-fv",
            "pers-blanket",
            "pers-gdp",
            "pers-lzx",
        ),
        "shufflelib.personalized.bounds",
        "PERSONALIZED_BOUNDS",
    )

    def arguments(self, question: Question) -> tuple[Argument, ...]:
        """The options read to answer ``question``."""
        given = tuple(arg for arg in question_inputs(question) if arg is not EPS0)
        return (_LEVELS, *_OPTIONS, *given, *_MECHANISM, COMPOSE)

    def answer(self, question: Question, bound: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Answer ``question`` with ``bound``; ``values`` maps each option's dest to its parsed value."""
        from ..personalized.mechanisms import LocalMechanism
        from ..personalized.population import Population

        levels = [float(x) for x in values["eps0"]]
        counts = values["counts"]
        if len(levels) != len(counts):
            raise ValueError(f"--counts must have one entry per --eps0 level ({len(levels)}), got {len(counts)}")
        delta0 = [float(x) for x in values["delta0"]] if values["delta0"] is not None else [0.0]
        if len(delta0) not in (1, len(levels)):
            raise ValueError(f"--delta0 must have one value or one per level ({len(levels)}), got {len(delta0)}")
        try:
            population = Population(levels, counts, delta0[0] if len(delta0) == 1 else delta0)
        except ValueError as exc:  # Population names its parameters eps and delta: use the flags' names
            name, _, rest = str(exc).partition(" ")
            raise ValueError(f"{_FLAG_NAMES.get(name, name)} {rest}") from None
        kind = values["randomizer"]
        calibration = values["calibration"]
        if kind != "gaussian" and calibration is not None:
            raise ValueError("--calibration is only used with --randomizer gaussian")
        model = self.bounds[bound](LocalMechanism(kind or "", calibration))
        record: dict[str, Any] = {
            "bound": bound,
            "randomizer": model.mechanism.label,
            **soundness_record(model.soundness()),
            "n": population.n,
            "eps0": levels,
            "counts": list(counts),
            "delta0": delta0,
        }
        if values.get("compose") is not None:
            from ..composition import loss_model  # only a composed question loads composition

            # One round as a function of its top level (all levels scaled in proportion).
            rounds = loss_model(model.privacy_loss(population))
            given = [values[arg.dest] for arg in question_inputs(question) if arg is not EPS0]
            x, y = (population.eps_max, given[0]) if question.command != "eps0" else given
            record.update({arg.dest: values[arg.dest] for arg in question_inputs(question) if arg is not EPS0})
            record.update(composed_answer(question, rounds, x, y, values["compose"]))
            if question.command == "eps0":
                record["levels"] = levels
            return record
        if question.command == "epsilon":
            record["delta"] = values["delta"]
            record["eps"] = model.epsilon(population, record["delta"])
        elif question.command == "delta":
            record["eps"] = values["eps"]
            record["delta"] = model.delta(population, record["eps"])
        else:
            record["eps"] = values["eps"]
            record["delta"] = values["delta"]
            record["eps0"] = model.max_eps0(population, record["eps"], record["delta"])
            record["levels"] = levels
        return record

    def describe(self, bound: str) -> list[str]:
        """Help paragraphs on ``bound``: title, reference, randomizers and where it is a proven bound."""
        cls = self.bounds[bound]
        sound = ", ".join(cls.sound_for) if cls.sound_for else "none (an approximation or a formula)"
        return [cls.title, cls.reference, f"randomizers: {', '.join(cls.kinds)}; sound for: {sound}"]
