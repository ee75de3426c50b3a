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

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._validation import check_int
from ..bounds.base import soundness_record
from .bounds import (
    AdaptiveTheorem,
    BinomialTheorem,
    MeanVarianceTheorem,
    PoissonTheorem,
    PopulationBound,
    SubExponentialTheorem,
    SubGaussianTheorem,
    TemplateBound,
)
from .laws import (
    BinomialPopulation,
    FixedPopulation,
    MeanVariance,
    NegativeBinomialPopulation,
    PoissonPopulation,
    PopulationLaw,
    SubExponentialTail,
    SubGaussianTail,
)
from .tight import ExactShuffledRR, TightClones

if TYPE_CHECKING:
    from ..__main__ import Argument, Question

__all__ = ["POPULATION_FORMS", "parse_population", "PopulationFamily"]

#: ``--population`` forms: name -> (constructor, parameter names).
POPULATION_FORMS: Mapping[str, tuple[type, tuple[str, ...]]] = {
    "fixed": (FixedPopulation, ("others",)),
    "binomial": (BinomialPopulation, ("n_prime", "alpha")),
    "poisson": (PoissonPopulation, ("lam",)),
    "negbin": (NegativeBinomialPopulation, ("mean", "variance")),
    "meanvar": (MeanVariance, ("mean", "variance")),
    "subgaussian": (SubGaussianTail, ("mean", "tau")),
    "subexp": (SubExponentialTail, ("mean", "a", "b")),
}
_INTEGERS = {"others", "n_prime"}

DUMMY_MODES = ("nonadaptive", "adaptive")
_FULL_LAWS = "fixed, binomial, poisson, negbin"
_ACCEPTS = {
    "pop-binomial": "binomial",
    "pop-poisson": "poisson",
    "pop-meanvar": f"meanvar, {_FULL_LAWS}",
    "pop-subgaussian": "subgaussian, binomial, poisson",
    "pop-subexp": "subexp",
    "pop-tight": _FULL_LAWS,
    "pop-exact-rr": _FULL_LAWS,
}


def parse_population(text: str | None):
    """Read ``NAME:P1,P2,...`` (e.g. ``poisson:5000``) into a population law or description.

    Examples
    --------
    >>> parse_population("subexp:5000,2,0.05")
    SubExponentialTail(mean=5000.0, a=2.0, b=0.05)
    """
    if text is None:
        raise ValueError("--population is required")
    name, _, rest = text.partition(":")
    if name not in POPULATION_FORMS:
        raise ValueError(f"population must be one of {', '.join(POPULATION_FORMS)} (NAME:PARAMS), got {text!r}")
    cls, names = POPULATION_FORMS[name]
    parts = [part.strip() for part in rest.split(",")] if rest else []
    if len(parts) != len(names):
        raise ValueError(f"population {name} takes {len(names)} parameters ({', '.join(names)}), got {text!r}")
    values: dict[str, Any] = {}
    for key, part in zip(names, parts):
        try:
            number = float(part)
        except ValueError:
            raise ValueError(f"{key} must be a number, got {part!r}") from None
        values[key] = check_int(key, number) if key in _INTEGERS else number
    return cls(**values)


def _law(population, bound: str) -> PopulationLaw:
    if not isinstance(population, PopulationLaw):
        raise ValueError(f"the {bound} bound needs a full law ({_FULL_LAWS}), got {population!r}")
    return population


def _theorem(bound: str, population, dummies: int) -> TemplateBound:
    if bound == "pop-binomial":
        if not isinstance(population, BinomialPopulation):
            raise ValueError(f"the pop-binomial bound needs a binomial population, got {population!r}")
        return BinomialTheorem(population, dummies)
    if bound == "pop-poisson":
        if not isinstance(population, PoissonPopulation):
            raise ValueError(f"the pop-poisson bound needs a poisson population, got {population!r}")
        return PoissonTheorem(population, dummies)
    if bound == "pop-meanvar":
        if not isinstance(population, (MeanVariance, PopulationLaw)):
            raise ValueError(f"the pop-meanvar bound needs meanvar or a full law, got {population!r}")
        return MeanVarianceTheorem(population, dummies)
    if bound == "pop-subgaussian":
        if isinstance(population, (BinomialPopulation, PoissonPopulation)):
            population = population.subgaussian_tail()
        if not isinstance(population, SubGaussianTail):
            raise ValueError(f"the pop-subgaussian bound needs subgaussian, binomial or poisson, got {population!r}")
        return SubGaussianTheorem(population, dummies)
    if not isinstance(population, SubExponentialTail):
        raise ValueError(f"the pop-subexp bound needs a subexp population, got {population!r}")
    return SubExponentialTheorem(population, dummies)


class PopulationFamily:
    """Bounds for a random population (Wang et al. 2023): Theorems 1–4, the tight bound, the exact lower bound.

    A calculator family: it implements the protocol of :class:`shufflelib.__main__.Family`
    (``bounds``, ``arguments``, ``answer``, ``describe``) without inheriting from
    it, because ``shufflelib.__main__`` imports this module to register it, and
    under ``python -m shufflelib`` that module runs as ``__main__``: importing
    it back from here at import time would be circular.

    Examples
    --------
    >>> from shufflelib.__main__ import QUESTIONS
    >>> values = {"population": "binomial:48842,0.2", "eps0": "1", "delta": "1e-5",
    ...           "dummies": None, "dummy_mode": None}
    >>> round(PopulationFamily().answer(QUESTIONS[0], "pop-binomial", values)["eps"], 5)
    0.08725
    """

    bounds: Mapping[str, type[PopulationBound]] = {
        cls.name: cls
        for cls in (
            BinomialTheorem,
            PoissonTheorem,
            MeanVarianceTheorem,
            SubGaussianTheorem,
            SubExponentialTheorem,
            TightClones,
            ExactShuffledRR,
        )
    }

    _INPUTS: Mapping[str, tuple[str, str]] = {
        "epsilon": ("eps0", "delta"),
        "delta": ("eps0", "eps"),
        "eps0": ("eps", "delta"),
    }

    @staticmethod
    def _options() -> dict[str, Argument]:
        from ..__main__ import Argument  # at call time: see the class docstring

        forms = "; ".join(f"{name}:{','.join(params)}" for name, (_, params) in POPULATION_FORMS.items())
        return {
            "population": Argument(
                "--population", f"law of the number of OTHER participants, NAME:PARAMS, one of {forms}", "NAME:PARAMS"
            ),
            "eps0": Argument("--eps0", "local privacy parameter of each randomizer (> 0)", "EPS0"),
            "eps": Argument("--eps", "central epsilon", "EPS"),
            "delta": Argument("--delta", "central delta, in (0, 1)", "DELTA"),
            "dummies": Argument("--dummies", "number of dummy reports k (default 0)", "K", required=False),
            "dummy_mode": Argument(
                "--dummy-mode",
                "nonadaptive: add k dummies; adaptive: pad the batch to k messages (default nonadaptive)",
                required=False,
                choices=DUMMY_MODES,
            ),
        }

    def arguments(self, question: Question) -> tuple[Argument, ...]:
        """The options read to answer ``question``."""
        options = self._options()
        names = ("population", *self._INPUTS[question.command], "dummies", "dummy_mode")
        return tuple(options[name] for name in names)

    def describe(self, bound: str) -> list[str]:
        """Help paragraphs on ``bound``: its title, its reference and the populations it accepts."""
        cls = self.bounds[bound]
        return [cls.title, cls.reference, f"populations: {_ACCEPTS[bound]}"]

    def build(self, bound: str, population_text: str, dummies: int, mode: str) -> PopulationBound:
        """The bound object for the parsed command-line values.

        Examples
        --------
        >>> PopulationFamily().build("pop-tight", "poisson:5000", 100, "adaptive")
        TightClones(PoissonPopulation(lam=5000.0), dummies=100, adaptive=True)
        """
        population = parse_population(population_text)
        adaptive = mode == "adaptive"
        if bound == "pop-tight":
            return TightClones(_law(population, bound), dummies, adaptive)
        if bound == "pop-exact-rr":
            return ExactShuffledRR(_law(population, bound), dummies, adaptive)
        if adaptive:
            return AdaptiveTheorem(_theorem(bound, population, 0), dummies)
        return _theorem(bound, population, dummies)

    def answer(self, question: Question, bound: str, values: Mapping[str, str | None]) -> dict[str, Any]:
        """Answer ``question`` with ``bound``; returns the record printed by ``--json``."""
        dummies = check_int("dummies", _real("dummies", values["dummies"] or "0"), minimum=0)
        mode = values["dummy_mode"] or "nonadaptive"
        model = self.build(bound, values["population"], dummies, mode)
        first, second = self._INPUTS[question.command]
        x, y = _real(first, values[first]), _real(second, values[second])
        ask = {"epsilon": model.epsilon, "delta": model.delta, "eps0": model.max_eps0}[question.command]
        result = float(ask(x, y))
        return {
            "bound": bound,
            "population": values["population"],
            "dummies": dummies,
            "dummy_mode": mode,
            first: x,
            second: y,
            question.answer: result,
            **soundness_record(model.soundness()),
        }


def _real(name: str, text: str | None) -> float:
    try:
        return float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {text!r}") from None
