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

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._validation import check_int
from ..bounds.base import soundness_record
from ..composition import RoundModel, pair_step, profile_model
from ..composition.clone_pld import BLOCK_RTOL, clone_blocks_pld, round_blocks
from ..population.bounds import PopulationBound
from ..population.choice import ACCEPTS, BOUNDS, bound_for
from ..population.laws import (
    BinomialPopulation,
    FixedPopulation,
    MeanVariance,
    NegativeBinomialPopulation,
    PoissonPopulation,
    SubExponentialTail,
    SubGaussianTail,
)
from ..population.tight import TightClones
from .base import COMPOSE, Argument, Family, Number, Question, composed_answer, question_inputs, shorten

__all__ = ["POPULATION_FORMS", "parse_population", "PopulationFamily", "round_model"]

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
        raise ValueError(
            shorten(f"--population must be one of {', '.join(POPULATION_FORMS)} (NAME:PARAMS), got {text!r}")
        )
    cls, names = POPULATION_FORMS[name]
    parts = [part.strip() for part in rest.split(",")] if rest else []
    if len(parts) != len(names):
        raise ValueError(
            shorten(f"--population {name} takes {len(names)} parameters ({', '.join(names)}), got {text!r}")
        )
    values: dict[str, Any] = {}
    for key, part in zip(names, parts, strict=False):
        try:
            number = float(part)
        except ValueError:
            raise ValueError(shorten(f"--population parameter {key} must be a number, got {part!r}")) from None
        values[key] = check_int(key, number) if key in _INTEGERS else number
    return cls(**values)


_POPULATION = Argument(
    "--population",
    "law of the number of OTHER participants, NAME:PARAMS, one of "
    + "; ".join(f"{name}:{','.join(params)}" for name, (_, params) in POPULATION_FORMS.items()),
    "NAME:PARAMS",
)
_DUMMIES = (
    Argument(
        "--dummies", "number of dummy reports k (default 0)", "K", required=False, number=Number(integer=True, low=0)
    ),
    Argument(
        "--dummy-mode",
        "nonadaptive: add k dummies; adaptive: pad the batch to k messages (default nonadaptive)",
        required=False,
        choices=DUMMY_MODES,
    ),
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

    bounds: Mapping[str, type[PopulationBound]] = BOUNDS

    def arguments(self, question: Question) -> tuple[Argument, ...]:
        """The options read to answer ``question``."""
        return (_POPULATION, *question_inputs(question), *_DUMMIES, COMPOSE)

    def describe(self, bound: str) -> list[str]:
        """Help paragraphs on ``bound``: its title, its reference and the populations it accepts."""
        cls = self.bounds[bound]
        forms = [name for name, (form, _) in POPULATION_FORMS.items() if issubclass(form, ACCEPTS[bound])]
        return [cls.title, cls.reference, f"populations: {', '.join(forms)}"]

    def build(self, bound: str, population_text: str, dummies: int, mode: str) -> PopulationBound:
        """The bound object for the parsed command-line values.

        Examples
        --------
        >>> PopulationFamily().build("pop-tight", "poisson:5000", 100, "adaptive")
        TightClones(PoissonPopulation(lam=5000.0), dummies=100, adaptive=True)
        """
        return bound_for(bound, parse_population(population_text), dummies, mode == "adaptive")

    def answer(self, question: Question, bound: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Answer ``question`` with ``bound``; returns the record printed by ``--json``."""
        dummies = values["dummies"] or 0
        mode = values["dummy_mode"] or "nonadaptive"
        model = self.build(bound, values["population"], dummies, mode)
        first, second = (arg.dest for arg in question_inputs(question))
        record = {
            "bound": bound,
            "population": values["population"],
            "dummies": dummies,
            "dummy_mode": mode,
            first: values[first],
            second: values[second],
        }
        if values.get("compose") is not None:
            composed = composed_answer(question, round_model(model), values[first], values[second], values["compose"])
            return {**record, **composed, **soundness_record(model.soundness())}
        ask = {"epsilon": model.epsilon, "delta": model.delta, "eps0": model.max_eps0}[question.command]
        result = float(ask(values[first], values[second]))
        return {**record, question.answer: result, **soundness_record(model.soundness())}


def round_model(bound: PopulationBound) -> RoundModel:
    """How composition sees one round of a population bound, in ``eps0``: the mixed clone pair of
    ``pop-tight`` (route ``pair``, one clone-count block per block of its law), else the profile.

    Raises
    ------
    ValueError
        For a lower bound (``pop-exact-rr``): a profile composes only as an upper bound.

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> round_model(TightClones(PoissonPopulation(5000))).route
    'pair'
    """
    if not bound.upper:
        raise ValueError(f"the {bound.name} bound is a lower bound: it is not composable")
    if isinstance(bound, TightClones):

        def build(eps0: float, step: float, coarse: bool = False):
            count = bound.clone_count(eps0)
            lo, hi = count.range()
            # Blocks at most BLOCK_RTOL of their count wide are enough (each atom listed costs):
            # a population of 10^9 near eps0 = 0 needs one block, not 128.
            size = int(hi - lo + 1)
            enough = max(1, math.ceil(size / max(1.0, BLOCK_RTOL * max(lo, 1))))
            starts, masses, dropped = count.blocks(min(bound.max_blocks, round_blocks(size), enough))
            counts, weights = np.concatenate([[0.0], starts]), np.concatenate([[dropped], masses])
            return (clone_blocks_pld(eps0, counts, weights, step),)

        def step(eps0: float, rounds: int) -> float:
            scale = 2.0 * math.tanh(eps0 / 2.0) / math.sqrt(1.0 + bound.clone_count(eps0).mean())
            return pair_step(scale, eps0, rounds)

        # No coarse stage: the build enumerates the clone counts' atoms, whose cost does not
        # shrink with the grid (and the windows are short): a coarse evaluation costs about as
        # much as a fine one (poisson:1e6, 1,000 rounds: 7 evaluations, 2.4 s -> 5, 1.9 s).
        return RoundModel("pair", build, step, bound.epsilon, bound.max_eps0, coarse=1.0, cap=lambda eps0: eps0)
    closed = type(bound)._delta is PopulationBound._delta  # a closed form ε(δ): sampled in δ
    return profile_model(
        None if closed else (lambda eps0: lambda e: np.array([bound.delta(eps0, float(x)) for x in e])),
        bound.epsilon,
        bound.max_eps0,
        cap=lambda eps0: eps0,
    )
