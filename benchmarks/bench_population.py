"""Time the random-population bounds and the dummy optimisation; print Markdown tables.

Run ``python benchmarks/bench_population.py``. Targets of issue 6: every bound
at a mean population of 1e8 in under 1 s (each question), the optimal number of
dummies in under 2 s. Each cell is one call on a fresh object, shown as
``value (wall-clock seconds)``; a question the theorem does not cover is ``n/a``.

* ``epsilon`` at ``eps0 = 1``, ``delta = 1e-6``;
* ``delta`` at ``eps0 = 1``, ``eps = 0.001``;
* ``max_eps0`` at ``eps = 0.001``, ``delta = 1e-6``.

Population of mean 1e8: ``N − 1 ~ Bin(2e8, 0.5)`` for binomial bounds,
``Poisson(1e8)`` otherwise (its sub-Gaussian tail for Theorem 4(c), a
sub-exponential tail for 4(d), its mean and variance for Theorem 3).
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shufflelib.bounds.base import NotApplicableError  # noqa: E402
from shufflelib.population.bounds import (  # noqa: E402
    AdaptiveTheorem,
    BinomialTheorem,
    MeanVarianceTheorem,
    PoissonTheorem,
    SubExponentialTheorem,
    SubGaussianTheorem,
)
from shufflelib.population.dummies import optimal_dummies  # noqa: E402
from shufflelib.population.laws import (  # noqa: E402
    BinomialPopulation,
    PoissonPopulation,
    SubExponentialTail,
)
from shufflelib.population.multimessage import multi_expected  # noqa: E402
from shufflelib.population.tight import ExactShuffledRR, TightClones  # noqa: E402

EPS0, DELTA, EPS = 1.0, 1e-6, 0.001


def timed(fn) -> str:
    """``value (seconds)``, or ``n/a`` when the theorem does not apply."""
    start = time.perf_counter()
    try:
        value = fn()
    except NotApplicableError:
        return "n/a"
    return f"{value:.6g} ({time.perf_counter() - start:.3f} s)"


def bounds_at_1e8():
    binomial = BinomialPopulation(2 * 10**8 + 1, 0.5)
    poisson = PoissonPopulation(1e8)
    rate = 2.0 / poisson.subgaussian_tail().tau
    subexp = SubExponentialTail(1e8, math.exp(1.0), rate)  # exp(-t^2/tau^2) <= e exp(-2t/tau)
    return [
        ("Theorem 1 (binomial)", lambda: BinomialTheorem(binomial)),
        ("Theorem 4(a), k = 1e7", lambda: BinomialTheorem(binomial, 10**7)),
        ("Theorem 2 (Poisson)", lambda: PoissonTheorem(poisson)),
        ("Theorem 3 (mean, variance)", lambda: MeanVarianceTheorem(poisson)),
        ("Theorem 4(c) (sub-Gaussian)", lambda: SubGaussianTheorem(poisson.subgaussian_tail())),
        ("Theorem 4(d) (sub-exponential)", lambda: SubExponentialTheorem(subexp)),
        ("adaptive (reconstruction), k = 1.1e8", lambda: AdaptiveTheorem(PoissonTheorem(poisson), 110_000_000)),
        ("tight, binomial", lambda: TightClones(binomial)),
        ("tight, Poisson", lambda: TightClones(poisson)),
        ("tight, Poisson + 1e7 dummies", lambda: TightClones(poisson, 10**7)),
        ("exact shuffled RR (lower bound), Poisson", lambda: ExactShuffledRR(poisson)),
    ]


def main() -> None:
    print(f"### Bounds at a mean population of 1e8 (eps0 = {EPS0}, delta = {DELTA:g}, eps = {EPS:g})\n")
    print("| bound | epsilon | delta | max_eps0 |")
    print("| --- | --- | --- | --- |")
    for name, make in bounds_at_1e8():
        questions = (
            lambda bound: bound.epsilon(EPS0, DELTA),
            lambda bound: bound.delta(EPS0, EPS),
            lambda bound: bound.max_eps0(EPS, DELTA),
        )
        cells = [timed(lambda ask=ask, make=make: ask(make())) for ask in questions]
        print(f"| {name} | " + " | ".join(cells) + " |")

    print("\n### Optimal number of dummies (eps_c = 0.05, delta = 1e-5)\n")
    print("| population | bound | k* (seconds) |")
    print("| --- | --- | --- |")
    cases = [
        ("Bin(5000, 0.2)", BinomialPopulation(5001, 0.2), "Theorem 4(a)", False),
        ("Bin(48841, 0.05)", BinomialPopulation(48_842, 0.05), "Theorem 4(a)", False),
        ("Bin(48841, 0.05)", BinomialPopulation(48_842, 0.05), "adaptive", True),
        ("Poisson(1e8)", PoissonPopulation(1e8), "Theorem 4(b)", False),
    ]
    for label, law, name, adaptive in cases:
        family = BinomialTheorem if isinstance(law, BinomialPopulation) else PoissonTheorem
        base = family(law)

        def make(k, law=law, family=family, base=base, adaptive=adaptive):
            return AdaptiveTheorem(base, k) if adaptive else family(law, k)

        start = time.perf_counter()
        choice = optimal_dummies(make, law, 0.05, 1e-5, adaptive=adaptive)
        print(f"| {label} | {name} | {choice.dummies} ({time.perf_counter() - start:.3f} s) |")

    print("\n### Multi-message parameters (MULTI-EXPECTED, eps = 0.2, delta = 1e-5)\n")
    print("| population | tau (seconds) |")
    print("| --- | --- |")
    for label, law in (("Poisson(5000)", PoissonPopulation(5000)), ("Poisson(1e8)", PoissonPopulation(1e8))):
        start = time.perf_counter()
        params = multi_expected(0.2, 1e-5, law)
        print(f"| {label} | {params.tau:.4g} ({time.perf_counter() - start:.3f} s) |")


if __name__ == "__main__":
    main()
