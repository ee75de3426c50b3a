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
from typing import TYPE_CHECKING, Any

from .bounds import PERSONALIZED_BOUNDS, PersonalizedBound
from .mechanisms import CALIBRATIONS, KINDS, LocalMechanism
from .population import Population

if TYPE_CHECKING:
    from ..__main__ import Argument, Question

__all__ = ["PersonalizedFamily"]


#: Parameter names of :class:`Population` -> the calculator's flags.
_FLAG_NAMES = {"eps": "eps0", "delta": "delta0"}


def _numbers(name: str, text: str | None) -> list[float]:
    if text is None or not text.strip():
        raise ValueError(f"{name} must be a comma-separated list of numbers, got {text!r}")
    try:
        return [float(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"{name} must be a comma-separated list of numbers, got {text!r}") from None


def _real(name: str, text: str | None) -> float:
    try:
        return float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {text!r}") from None


class PersonalizedFamily:
    """Users at personalized privacy levels: the bounds of :mod:`shufflelib.personalized.bounds`.

    A calculator family: it implements the protocol of :class:`shufflelib.__main__.Family`
    (``bounds``, ``arguments``, ``answer``, ``describe``) without inheriting from
    it, because ``shufflelib.__main__`` imports this module to register it and,
    under ``python -m shufflelib``, runs as ``__main__``: importing it back
    from here at import time would be circular (``Argument`` is imported at
    call time instead).

    Examples
    --------
    >>> from shufflelib.__main__ import QUESTIONS
    >>> values = {"eps0": "0.5,1", "counts": "5000,5000", "delta": "1e-6", "randomizer": "rr",
    ...           "calibration": None, "delta0": None}
    >>> record = PersonalizedFamily().answer(QUESTIONS[0], "pers-clones", values)
    >>> record["n"], 0 < record["eps"] < 1
    (10000, True)
    """

    bounds: Mapping[str, type[PersonalizedBound]] = PERSONALIZED_BOUNDS

    _INPUTS: Mapping[str, tuple[str, ...]] = {
        "epsilon": ("delta",),
        "delta": ("eps",),
        "eps0": ("eps", "delta"),
    }

    @staticmethod
    def _options() -> dict[str, Argument]:
        from ..__main__ import Argument  # at call time: see the class docstring

        return {
            "eps0": Argument("--eps0", "comma-separated local eps levels (> 0)", "LIST"),
            "counts": Argument(
                "--counts", "comma-separated number of users at each level (integers >= 1)", "LIST"
            ),
            "eps": Argument("--eps", "central epsilon", "EPS"),
            "delta": Argument("--delta", "central delta, in (0, 1)", "DELTA"),
            "randomizer": Argument("--randomizer", "local randomizer of personalized bounds", choices=KINDS),
            "calibration": Argument(
                "--calibration",
                "noise calibration of the gaussian randomizer (default classical)",
                required=False,
                choices=CALIBRATIONS,
            ),
            "delta0": Argument(
                "--delta0", "local delta: one value, or one per level (default 0)", "LIST", required=False
            ),
        }

    def arguments(self, question: Question) -> tuple[Argument, ...]:
        """The options read to answer ``question``."""
        options = self._options()
        names = ("eps0", "counts", *self._INPUTS[question.command], "randomizer", "calibration", "delta0")
        return tuple(options[name] for name in names)

    def answer(self, question: Question, bound: str, values: Mapping[str, str | None]) -> dict[str, Any]:
        """Answer ``question`` with ``bound``; ``values`` maps each option's dest to its string."""
        levels = _numbers("eps0", values["eps0"])
        counts = _numbers("counts", values["counts"])
        if len(levels) != len(counts):
            raise ValueError(f"counts must have one entry per eps0 level ({len(levels)}), got {len(counts)}")
        delta0 = _numbers("delta0", values["delta0"]) if values["delta0"] is not None else [0.0]
        if len(delta0) not in (1, len(levels)):
            raise ValueError(f"delta0 must have one value or one per level ({len(levels)}), got {len(delta0)}")
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
            "sound": model.sound,
            "n": population.n,
            "eps0": levels,
            "counts": [int(c) for c in counts],
            "delta0": delta0,
        }
        if question.command == "epsilon":
            record["delta"] = _real("delta", values["delta"])
            record["eps"] = model.epsilon(population, record["delta"])
        elif question.command == "delta":
            record["eps"] = _real("eps", values["eps"])
            record["delta"] = model.delta(population, record["eps"])
        else:
            record["eps"] = _real("eps", values["eps"])
            record["delta"] = _real("delta", values["delta"])
            record["eps0"] = model.max_eps0(population, record["eps"], record["delta"])
            record["levels"] = levels
        return record

    def describe(self, bound: str) -> list[str]:
        """Help paragraphs on ``bound``: title, reference, randomizers and where it is a proven bound."""
        cls = self.bounds[bound]
        sound = ", ".join(cls.sound_for) if cls.sound_for else "none (an approximation or a formula)"
        return [cls.title, cls.reference, f"randomizers: {', '.join(cls.kinds)}; sound for: {sound}"]
