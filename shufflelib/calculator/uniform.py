"""The calculator's family of ``n`` users running the same ``eps0``-LDP randomizer.

Examples
--------
>>> from shufflelib.calculator.base import QUESTIONS
>>> UniformFamily().ask(QUESTIONS[0], "exact-krr", {"n": "1000", "eps0": "1", "delta": "1e-6"})["k"]
2
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._validation import N_MAX
from ..bounds import BOUNDS
from ..bounds.base import MECHANISMS, AmplificationBound, soundness_record
from .base import COMPOSE, SAMPLE_RATE, USERS, Argument, Family, Number, Question, composed_answer, question_inputs

__all__ = ["UniformFamily"]

_MECHANISM = Argument(
    "--mechanism",
    "local randomizer family (default: generic if the bound covers it, else the first it covers)",
    required=False,
    choices=MECHANISMS,
)
_K = Argument(
    "--k",
    "domain size of k-ary randomized response (default 2 for krr)",
    "K",
    required=False,
    number=Number(integer=True, low=2, high=N_MAX),
)


class UniformFamily(Family):
    """``n`` users running the same ``eps0``-LDP randomizer: every bound of
    :data:`shufflelib.bounds.BOUNDS`.

    ``--mechanism`` defaults to ``generic`` when the bound covers it, else to the
    first family it covers (``krr`` for ``exact-krr``); ``--k`` defaults to 2
    (binary randomized response) when the mechanism is ``krr``.

    Examples
    --------
    >>> from shufflelib.calculator.base import QUESTIONS
    >>> values = {"n": 1000, "eps0": 1.0, "delta": 1e-6, "mechanism": None, "k": None}
    >>> record = UniformFamily().answer(QUESTIONS[0], "exact-krr", values)
    >>> record["mechanism"], record["k"], 0 < record["eps"] < 1
    ('krr', 2, True)
    """

    bounds: Mapping[str, type[AmplificationBound]] = BOUNDS

    def arguments(self, question: Question) -> tuple[Argument, ...]:
        return (USERS, *question_inputs(question), _MECHANISM, _K, COMPOSE, SAMPLE_RATE)

    def answer(self, question: Question, bound: str, values: Mapping[str, Any]) -> dict[str, Any]:
        cls = self.bounds[bound]
        mechanism = values["mechanism"] or ("generic" if "generic" in cls.mechanisms else cls.mechanisms[0])
        k = values["k"] if values["k"] is not None else (2 if mechanism == "krr" else None)
        # A bound may ask for options of its own on the command line (exact-krr: its budget).
        model = cls(mechanism=mechanism, k=k, **getattr(cls, "CALCULATOR_OPTIONS", {}))
        first, second = (arg.dest for arg in question_inputs(question))
        record = {"bound": bound, "mechanism": mechanism, "k": k, "n": values["n"]}
        record.update({first: values[first], second: values[second]})
        sound = soundness_record(model.soundness(n=values["n"], **{first: values[first], second: values[second]}))
        rate = values.get("sample_rate")
        if values.get("compose") is not None or rate is not None:
            from ..composition import bound_model  # only a composed question loads composition

            model_round = bound_model(model, values["n"], rate)
            rounds = values["compose"] if values.get("compose") is not None else 1
            composed = composed_answer(question, model_round, values[first], values[second], rounds)
            if rate is not None:  # the neighbouring relation of the subsampled rounds
                composed.update({"sample_rate": rate, "neighbours": "substitution"})
            # A soundness warning outranks the note on what is composed.
            return {**record, **composed, **sound}
        ask = {"epsilon": model.epsilon, "delta": model.delta, "eps0": model.max_eps0}[question.command]
        result = float(ask(values["n"], values[first], values[second]))
        details = getattr(model, "details", None)  # e.g. exact-krr: exact or a certified bracket
        extra = details(question.command, values["n"], values[first], values[second]) if details else {}
        return {**record, question.answer: result, **sound, **extra}

    def describe(self, bound: str) -> list[str]:
        return [*super().describe(bound), f"mechanisms: {', '.join(self.bounds[bound].mechanisms)}"]
