"""The random-population bounds in the privacy calculator (``python -m shufflelib``).

The population is given with ``--population NAME:PARAMS`` (see
:data:`POPULATION_FORMS`), the dummies with ``--dummies K`` and
``--dummy-mode nonadaptive|adaptive``::

    python -m shufflelib epsilon --bound pop-binomial --population binomial:48842,0.2 --eps0 1 --delta 1e-5
    python -m shufflelib eps0 --bound pop-tight --population poisson:5000 --eps 0.1 --delta 1e-5
    python -m shufflelib delta --bound pop-meanvar --population meanvar:5000,8000 --eps0 0.5 --eps 0.3

Examples
--------
>>> parse_population("binomial:48842,0.2")
BinomialPopulation(n_prime=48842, alpha=0.2)
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._validation import N_MAX
from ..bounds.base import NotApplicableError, soundness_record
from .base import (
    COMPOSE,
    Argument,
    Family,
    LazyBounds,
    Number,
    Question,
    _quoted,
    _read,
    composed_answer,
    question_inputs,
    shorten,
)

if TYPE_CHECKING:  # pragma: no cover - a population question imports them (start-up)
    from ..composition import RoundModel
    from ..population.bounds import PopulationBound

__all__ = ["POPULATION_FORMS", "parse_population", "population_class", "PopulationFamily", "round_model"]

#: ``--population`` forms: name -> (class in :mod:`shufflelib.population.laws`, parameter names).
POPULATION_FORMS: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "fixed": ("FixedPopulation", ("others",)),
    "binomial": ("BinomialPopulation", ("n_prime", "alpha")),
    "poisson": ("PoissonPopulation", ("lam",)),
    "negbin": ("NegativeBinomialPopulation", ("mean", "variance")),
    "meanvar": ("MeanVariance", ("mean", "variance")),
    "subgaussian": ("SubGaussianTail", ("mean", "tau")),
    "subexp": ("SubExponentialTail", ("mean", "a", "b")),
}
_INTEGERS = {"others", "n_prime"}

DUMMY_MODES = ("nonadaptive", "adaptive")


def population_class(name: str) -> type:
    """The class of the ``--population`` form ``name`` (imported on first use).

    Examples
    --------
    >>> population_class("poisson").__name__
    'PoissonPopulation'
    """
    return getattr(importlib.import_module("shufflelib.population.laws"), POPULATION_FORMS[name][0])


def parse_population(text: str | None):
    """Read ``NAME:P1,P2,...`` (e.g. ``poisson:5000``) into a population law or description.

    Each parameter is a plain ASCII number (as every numeric flag); a refusal names
    ``--population`` and the parameter.

    Examples
    --------
    >>> parse_population("subexp:5000,2,0.05")
    SubExponentialTail(mean=5000.0, a=2.0, b=0.05)
    >>> parse_population("poisson:1_000")
    Traceback (most recent call last):
    ...
    ValueError: --population parameter lam must be a number, got '1_000'
    """
    if text is None:
        raise ValueError("--population is required")
    name, _, rest = text.partition(":")
    if name not in POPULATION_FORMS:
        raise ValueError(
            shorten(f"--population must be one of {', '.join(POPULATION_FORMS)} (NAME:PARAMS), got {_quoted(text)}")
        )
    names = POPULATION_FORMS[name][1]
    parts = rest.split(",") if rest else []
    if len(parts) != len(names):
        raise ValueError(
            shorten(f"--population {name} takes {len(names)} parameters ({', '.join(names)}), got {_quoted(text)}")
        )
    values: dict[str, Any] = {}
    for key, part in zip(names, parts, strict=True):
        number = _read(part, key in _INTEGERS)
        if number is None or (isinstance(number, float) and not math.isfinite(number)):
            kind = "an integer" if key in _INTEGERS else "a number"
            raise ValueError(shorten(f"--population parameter {key} must be {kind}, got {_quoted(part)}"))
        values[key] = number
    try:
        return population_class(name)(**values)
    except ValueError as exc:  # the law's own check names the parameter: add the flag
        raise ValueError(shorten(f"--population {name}: {exc}")) from None


_POPULATION = Argument(
    "--population",
    "law of the number of OTHER participants, NAME:PARAMS, one of "
    + "; ".join(f"{name}:{','.join(params)}" for name, (_, params) in POPULATION_FORMS.items()),
    "NAME:PARAMS",
)
_DUMMIES = (
    Argument(
        "--dummies",
        "number of dummy reports k (default 0)",
        "K",
        required=False,
        number=Number(integer=True, low=0, high=N_MAX),
    ),
    Argument(
        "--dummy-mode",
        "nonadaptive: add k dummies; adaptive: pad the batch to k messages (default nonadaptive)",
        required=False,
        choices=DUMMY_MODES,
    ),
)


#: The bounds with a δ budget option (Theorem 4(c)/(d)).
_BUDGETED = ("pop-subgaussian", "pop-subexp")
_BUDGET = Argument(
    "--budget",
    "delta budget of pop-subgaussian and pop-subexp: paper (Theorem 4(c)/(d) as printed, which spends "
    "5 delta/4: not a valid bound for the stated delta) or corrected (valid); default paper",
    required=False,
    choices=("paper", "corrected"),
)


class PopulationFamily(Family):
    """Bounds for a random population (Wang et al. 2023): Theorems 1–4, the tight bound, the exact lower bound.

    Examples
    --------
    >>> from shufflelib.calculator.base import QUESTIONS
    >>> texts = {"population": "binomial:48842,0.2", "eps0": "1", "delta": "1e-5"}
    >>> round(PopulationFamily().ask(QUESTIONS[0], "pop-binomial", texts)["eps"], 5)
    0.08725
    """

    #: The bounds of :data:`~shufflelib.population.choice.BOUNDS` (loaded by a population question).
    bounds: Mapping[str, type] = LazyBounds(
        ("pop-binomial", "pop-poisson", "pop-meanvar", "pop-subgaussian", "pop-subexp", "pop-tight", "pop-exact-rr"),
        "shufflelib.population.choice",
        "BOUNDS",
    )

    def arguments(self, question: Question) -> tuple[Argument, ...]:
        """The options read to answer ``question``."""
        return (_POPULATION, *question_inputs(question), *_DUMMIES, _BUDGET, COMPOSE)

    def describe(self, bound: str) -> list[str]:
        """Help paragraphs on ``bound``: its title, its reference and the populations it accepts."""
        from ..population.choice import ACCEPTS

        cls = self.bounds[bound]
        forms = [name for name in POPULATION_FORMS if issubclass(population_class(name), ACCEPTS[bound])]
        return [cls.title, cls.reference, f"populations: {', '.join(forms)}"]

    def build(
        self, bound: str, population_text: str, dummies: int, mode: str, budget: str = "paper"
    ) -> PopulationBound:
        """The bound object for the parsed command-line values.

        Examples
        --------
        >>> PopulationFamily().build("pop-tight", "poisson:5000", 100, "adaptive")
        TightClones(PoissonPopulation(lam=5000.0), dummies=100, adaptive=True)
        """
        from ..population.choice import bound_for

        if budget != "paper" and bound not in _BUDGETED:
            raise ValueError(f"--budget is only used by the {' and '.join(_BUDGETED)} bounds")
        return bound_for(bound, parse_population(population_text), dummies, mode == "adaptive", budget)

    def answer(self, question: Question, bound: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Answer ``question`` with ``bound``; returns the record printed by ``--json``."""
        dummies = values["dummies"] or 0
        mode = values["dummy_mode"] or "nonadaptive"
        budget = values.get("budget") or "paper"
        model = self.build(bound, values["population"], dummies, mode, budget)
        first, second = (arg.dest for arg in question_inputs(question))
        record = {
            "bound": bound,
            "population": values["population"],
            "dummies": dummies,
            "dummy_mode": mode,
            **({"budget": budget} if bound in _BUDGETED else {}),
            first: values[first],
            second: values[second],
        }
        if values.get("compose") is not None:
            try:
                composed = composed_answer(
                    question, round_model(model), values[first], values[second], values["compose"]
                )
            except NotApplicableError:
                reason = None if question.command == "eps0" else _composed_reason(model, values[first])
                if reason is None:
                    raise
                raise NotApplicableError(
                    f"{bound} bound not applicable: the population {values['population']} is too small for "
                    f"eps0 = {values[first]!r} at every delta up to 1/2 (composition reads each round's eps "
                    f"at delta from 1e-30 to 1/2; a larger population helps): at delta = 1/2 the theorem {reason}"
                ) from None
            return {**record, **composed, **soundness_record(model.soundness())}
        ask = {"epsilon": model.epsilon, "delta": model.delta, "eps0": model.max_eps0}[question.command]
        result = float(ask(values[first], values[second]))
        return {**record, question.answer: result, **soundness_record(model.soundness())}


def _composed_reason(model: PopulationBound, eps0: float) -> str | None:
    """Why no round of ``model`` composes at ``eps0`` (``None``: not for these reasons).

    Composition reads a round's ε at every δ from 1e-30 to 1/2 and keeps those below ``eps0``;
    ε only grows as δ falls, so the reason is the one at the easiest of them, δ = 1/2.
    """
    reason = model.validity(eps0, 0.5)
    if reason is not None:
        return reason
    try:
        eps = model.epsilon(eps0, 0.5)
    except NotApplicableError:
        return None
    return f"gives no eps below eps0 = {eps0!r}, the local guarantee" if eps >= eps0 else None


def round_model(bound: PopulationBound) -> RoundModel:
    """How composition sees one round of a population bound, in ``eps0``: the model of its
    :meth:`~shufflelib.population.bounds.PopulationBound.privacy_loss` (for ``pop-tight`` the mixed
    clone pair, route ``pair``, one clone-count block per block of its law; else the profile).

    Raises
    ------
    ValueError
        For a lower bound (``pop-exact-rr``): a profile composes only as an upper bound.

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> from shufflelib.population import PoissonPopulation, TightClones
    >>> round_model(TightClones(PoissonPopulation(5000))).route
    'pair'
    """
    from ..composition import loss_model

    if not bound.upper:
        raise ValueError(f"the {bound.name} bound is a lower bound: it is not composable")
    return loss_model(bound.privacy_loss())
