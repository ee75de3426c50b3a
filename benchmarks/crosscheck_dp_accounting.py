"""Our composed answers beside Google's ``dp_accounting`` bracket, where ``dp_accounting`` is importable.

``dp_accounting`` is not a dependency of this project (it pins ``attrs<24``). Install it in an
environment of its own, outside the repository, and run this script from there with the worktree
on the path::

    python3 -m venv /tmp/dpacc && /tmp/dpacc/bin/pip install dp-accounting==0.6.0 numpy scipy
    PYTHONPATH=. /tmp/dpacc/bin/python benchmarks/crosscheck_dp_accounting.py

Two tables:

1. **Clone pairs.** The stronger-clone pair, listed independently of the library
   (``composition_reference.clone_atoms``: left ends of the clone-count blocks for the
   pessimistic side, right ends for the optimistic one), every loss rounded up or down onto
   ``dp_accounting``'s grid ``h`` (``pld_pmf.create_pmf``), composed by its ``self_compose`` and
   read by its ``get_epsilon_for_delta``: ``[optimistic, pessimistic]`` brackets the truth, and the
   library's answer (``compose_bound(...).epsilon``, the calculator's) must lie inside, at the
   pessimistic end's side.
2. **Subsampling, where it applies.** ``dp_accounting`` subsamples additive-noise mechanisms:
   its Laplace mechanism with ``sampling_prob = q`` (the remove direction). The library's
   :func:`~shufflelib.composition.subsampling.subsample_pld` applied to ``dp_accounting``'s own
   unsampled Laplace distribution, composed by the library, against ``dp_accounting``'s
   subsampled one composed by itself (optimistic and pessimistic).
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

try:
    from dp_accounting.pld import pld_pmf, privacy_loss_distribution
except ImportError:  # pragma: no cover - the script says so and stops
    print("dp_accounting is not importable here: nothing to cross-check (see the module docstring)")
    raise SystemExit(0) from None

from composition_reference import clone_atoms  # noqa: E402

from shufflelib.bounds import StrongerClones  # noqa: E402
from shufflelib.composition import compose_bound  # noqa: E402
from shufflelib.composition.model import ComposedCurve  # noqa: E402
from shufflelib.composition.pld import LossDistribution  # noqa: E402
from shufflelib.composition.subsampling import subsample_pld  # noqa: E402

SC = StrongerClones(mechanism="krr", k=2)

#: (n, eps0, rounds, delta, grid step of dp_accounting).
CLONE_ROWS = [
    (1_000, 1.0, 1, 1e-6, 1e-6),
    (1_000, 1.0, 100, 1e-6, 1e-6),
    (100_000, 0.5, 100, 1e-6, 1e-6),
    (10_000, 2.0, 100, 1e-8, 1e-6),
    (2, 1.0, 100, 1e-3, 1e-5),
    (1_000, 0.05, 100, 1e-12, 2e-7),
    (1_000_000, 1.0, 100, 1e-9, 1e-6),
]

#: (Laplace scale, sampling probability q, rounds, delta).
LAPLACE_ROWS = [(1.0, 0.1, 100, 1e-6), (2.0, 0.01, 1000, 1e-8), (0.5, 0.3, 10, 1e-5)]


def dp_accounting_clone(n: int, eps0: float, rounds: int, delta: float, h: float) -> tuple[float, float]:
    """``dp_accounting``'s (optimistic, pessimistic) ε of the ``rounds``-fold stronger-clone pair."""
    prob = 2.0 / (math.exp(eps0) + 1.0)
    out = []
    for pessimistic in (False, True):
        loss, p = clone_atoms(n, eps0, prob, upper=pessimistic)
        k = np.ceil(loss / h) if pessimistic else np.floor(loss / h)
        lo = int(k.min())
        dense = np.bincount((k - lo).astype(np.int64), weights=p)
        loss_probs = {lo + i: float(m) for i, m in enumerate(dense) if m > 0}
        pmf = pld_pmf.create_pmf(loss_probs, h, 0.0, pessimistic)
        pld = privacy_loss_distribution.PrivacyLossDistribution(pmf)
        out.append(
            pld.self_compose(rounds).get_epsilon_for_delta(delta) if rounds > 1 else pld.get_epsilon_for_delta(delta)
        )
    return out[0], out[1]


def clones() -> None:
    print("| n | ε₀ | T | δ | dp_accounting optimistic | ours | dp_accounting pessimistic | inside | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n, eps0, rounds, delta, h in CLONE_ROWS:
        t0 = time.perf_counter()
        low, high = dp_accounting_clone(n, eps0, rounds, delta, h)
        ours = compose_bound(SC, n, eps0, rounds).epsilon(delta)
        inside = "yes" if low <= ours <= high * (1 + 1e-3) else "NO"
        print(
            f"| {n:.0e} | {eps0} | {rounds} | {delta:.0e} | {low:.7g} | {ours:.7g} | {high:.7g} | {inside} "
            f"| {time.perf_counter() - t0:.1f} |",
            flush=True,
        )


def as_ours(pmf) -> LossDistribution:
    """A ``dp_accounting`` pessimistic pmf as this library's (single-round) loss distribution."""
    dense = pmf.to_dense_pmf()
    return LossDistribution(
        dense._discretization, int(dense._lower_loss), np.array(dense._probs, dtype=float), float(dense._infinity_mass)
    )


def laplace() -> None:
    print("\n| Laplace b | q | T | δ | dp_accounting optimistic | ours (subsample_pld) | dp_accounting pessimistic |")
    print("|---|---|---|---|---|---|---|")
    for b, q, rounds, delta in LAPLACE_ROWS:
        h = 1e-4
        base = privacy_loss_distribution.from_laplace_mechanism(b, value_discretization_interval=h)
        ours_single = subsample_pld(as_ours(base._pmf_remove), q)
        ours = ComposedCurve([[(ours_single, rounds)]]).epsilon(delta)
        eps = []
        for pessimistic in (False, True):
            pld = privacy_loss_distribution.from_laplace_mechanism(
                b,
                pessimistic_estimate=pessimistic,
                value_discretization_interval=h,
                sampling_prob=q,
                use_connect_dots=pessimistic,  # its optimistic side is the privacy buckets' rounding
            )
            remove = privacy_loss_distribution.PrivacyLossDistribution(pld._pmf_remove)
            eps.append(remove.self_compose(rounds).get_epsilon_for_delta(delta))
        print(f"| {b} | {q} | {rounds} | {delta:.0e} | {eps[0]:.6g} | {ours:.6g} | {eps[1]:.6g} |", flush=True)


if __name__ == "__main__":
    clones()
    laplace()
