r"""The segmented protocol in the privacy calculator (``python -m shufflelib``).

Two bounds on the privacy of one user of Algorithm 2 (``s`` items, reporting probability
``λ``, ``m`` blanket messages per user, ``n`` users, ``d`` items;
:mod:`~shufflelib.segmented.bounds`):

* ``segmented-thm3`` — Theorem 3 as printed (the paper's pair, then group privacy);
* ``segmented-exact`` — the exact single-item curve, which also counts what the number of
  messages reveals, then group privacy (sound).

Examples::

    python -m shufflelib epsilon --bound segmented-exact --n 5000 --m 1.5 --d 17 --s 4 --lam 0.5 --delta 2e-6
    python -m shufflelib delta --bound segmented-thm3 --n 5000 --m 2 --d 17 --s 4 --lam 0.5 --eps 0.5
    python -m shufflelib eps0 --bound segmented-exact --n 5000 --m 2 --d 17 --s 4 --eps 1 --delta 2e-6

The Poisson randomizer has no local ε: the ``eps0`` question answers the largest reporting
probability ``λ`` that reaches ``(--eps, --delta)`` (the record's ``lam``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._validation import N_MAX
from ..bounds.base import NotApplicableError, soundness_record
from ..segmented import M_MAX
from ..segmented.bounds import SEGMENTED_BOUNDS
from ..segmented.group import GROUP_FORMS
from .base import COMPOSE, USERS, Argument, Family, Number, Question, composed_answer, question_inputs

__all__ = ["SegmentedFamily"]


_PROTOCOL = (
    USERS,
    Argument(
        "--m", "expected blanket messages per user, in (0, 1e4]", "M", number=Number(low=0, high=M_MAX, open_low=True)
    ),
    Argument("--d", "number of items (an integer in [3, 1e9])", "D", number=Number(integer=True, low=3, high=N_MAX)),
    Argument("--s", "items per user (an integer >= 1, at most d)", "S", number=Number(integer=True, low=1, high=N_MAX)),
)
_LAM = Argument("--lam", "reporting probability of the user's level, in [0, 1]", "LAM", number=Number(low=0, high=1))
_OPTIONS = (
    Argument(
        "--slots",
        "blanket slots per user (default ceil(m))",
        "SLOTS",
        required=False,
        number=Number(integer=True, low=1, high=N_MAX),
    ),
    Argument("--group", "group-privacy form (default paper)", required=False, choices=GROUP_FORMS),
)


class SegmentedFamily(Family):
    """Calculator family of the segmented protocol.

    Examples
    --------
    >>> from shufflelib.calculator.base import QUESTIONS
    >>> texts = {"n": "5000", "m": "1.5", "d": "17", "s": "4", "lam": "0.5", "delta": "2e-6"}
    >>> record = SegmentedFamily().ask(QUESTIONS[0], "segmented-thm3", texts)
    >>> 0.4 < record["eps"] < 0.6
    True
    """

    bounds: Mapping[str, type] = SEGMENTED_BOUNDS

    def arguments(self, question: Question) -> tuple[Argument, ...]:
        """The options read to answer ``question`` (``--lam`` is the answer of the eps0 question)."""
        lam = () if question.command == "eps0" else (_LAM,)
        given = question_inputs(question, first=_LAM)
        return (*_PROTOCOL, *lam, *(arg for arg in given if arg is not _LAM), *_OPTIONS, COMPOSE)

    def answer_key(self, question: Question, bound: str) -> str:
        """``lam`` for the eps0 question (the largest reporting probability), else the question's."""
        return "lam" if question.command == "eps0" else question.answer

    def answer(self, question: Question, bound: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Answer ``question`` with ``bound``; ``values`` maps each option's dest to its parsed value."""
        from ..segmented.optimize import check_user, slots_for

        cls = self.bounds[bound]
        n, m, d, s = values["n"], values["m"], values["d"], values["s"]
        if s > d:
            raise ValueError(f"--s must be at most --d = {d}, got {s}")
        n, m, d, s = check_user(n, m, d, s)
        group = values["group"] or "paper"
        slots = values["slots"]
        gamma_max = 1.0 if slots is None else min(1.0, m / slots)
        if slots is not None and slots_for(m, gamma_max) != slots:
            raise ValueError(f"--slots must be an integer >= --m = {m!r}, got {slots!r}")
        record: dict[str, Any] = {"bound": bound, "n": n, "m": m, "d": d, "s": s, "group": group, "slots": slots}
        options = {"group": group, "gamma_max": gamma_max}
        if values.get("compose") is not None:
            from ..composition import loss_model  # only a composed question loads composition

            # One round as a function of λ.
            rounds = loss_model(cls.privacy_loss(n, m, d, s, **options))
            if question.command == "eps0":
                x, y = values["eps"], values["delta"]
                record.update({"eps": x, "delta": y})
            else:
                given = question_inputs(question, first=_LAM)[1].dest
                x, y = values["lam"], values[given]
                record.update({"lam": x, given: y})
            record.update(composed_answer(question, rounds, x, y, values["compose"], answer="lam"))
            return {**record, **soundness_record(cls.soundness(lam=record["lam"]))}
        if question.command == "eps0":
            record["eps"], record["delta"] = values["eps"], values["delta"]
            record["lam"] = cls.max_lam(n, m, d, s, values["eps"], values["delta"], **options)
            record.update(soundness_record(cls.soundness(lam=record["lam"])))
            return record
        record["lam"] = values["lam"]
        record.update(soundness_record(cls.soundness(lam=values["lam"])))
        curve = cls.curve(n, m, d, s, values["lam"], **options)
        if question.command == "epsilon":
            record["delta"] = values["delta"]
            record[question.answer] = float(curve.epsilon(values["delta"]))
            if record[question.answer] == float("inf"):
                raise NotApplicableError(f"{bound} bound not applicable: no finite eps reaches delta={values['delta']}")
        else:
            record["eps"] = values["eps"]
            record[question.answer] = float(curve.delta(values["eps"]))
        return record

    def describe(self, bound: str) -> list[str]:
        cls = self.bounds[bound]
        return [
            cls.title,
            cls.reference,
            "options: --m --d --s --lam [--slots] [--group paper|standard]; "
            "the eps0 question answers the largest reporting probability lam",
        ]
