r"""The "stronger clones" bound of Feldman, McMillan and Talwar (SODA 2023).

The analysis of arXiv:2208.04591 decomposes the first user's two possible
reports as ``R(x1) = α Q0 + (1 − α) Q1`` and ``R(x1') = (1 − α) Q0 + α Q1``
with ``α = e^{eps0}/(e^{eps0}+1)``, and every other report as
``R(x) = p Q0 + p Q1 + (1 − 2p) LO(x)`` with ``p = 1/(e^{eps0}+1)``. The
shuffled output is then a post-processing of the pair

.. math::

    P = (A + \Delta,\; C - A + 1 - \Delta), \qquad
    Q = (A + 1 - \Delta,\; C - A + \Delta),

``C ~ Bin(n − 1, 2/(e^{eps0}+1))``, ``A ~ Bin(C, 1/2)``,
``Δ ~ Bern(e^{eps0}/(e^{eps0}+1))``: the pair of the 2021 clones paper
(:class:`~shufflelib.bounds.clones.ClonesNumerical`, ``C ~ Bin(n − 1, e^{-eps0})``)
with the larger clone probability ``2/(e^{eps0}+1) > e^{-eps0}`` (the only
difference between the two pairs).

Scope — read this. The paper's erratum states that the proof of its Lemma 3.5
is wrong for general randomizers and that Theorems 3.1/3.2 hold only for a
restricted class of local randomizers. Indeed the decomposition above forces
``Q0 + Q1 = R(x1) + R(x1')`` and so needs, for all inputs ``x`` and ``x1 != x1'``,
``R(x)(y) >= (R(x1)(y) + R(x1')(y)) / (e^{eps0}+1)`` for every output ``y``;
some ``eps0``-LDP randomizers violate it (``R(x1)(y) = R(x1')(y) = e^{eps0} R(x)(y)``).
k-ary randomized response satisfies it for every ``k >= 2``: every output has
``R(x)(y) >= 1/(e^{eps0}+k−1)``, while ``R(x1)(y) + R(x1')(y)`` is
``(e^{eps0}+1)/(e^{eps0}+k−1)`` for ``y ∈ {x1, x1'}`` and ``2/(e^{eps0}+k−1)``
otherwise. Hence this bound is offered for ``mechanism="krr"`` only (the same
pair for every ``k``); ``tests/test_exact.py`` also checks it against the
worst case over all datasets by enumeration at small ``n``.

The divergence of the pair is computed exactly by the method of
:class:`~shufflelib.bounds.clones.ClonePairBound` (closed form per clone
count, blocks bounded by monotonicity), with its numerical tolerance.
"""

from __future__ import annotations

import math

import numpy as np

from .._docstrings import fill_doc
from ..randomizers import LocalRandomizer
from .clones import ClonePairBound

__all__ = ["StrongerClones", "decomposition_slack"]


def decomposition_slack(randomizer: LocalRandomizer) -> float:
    """``min R(x)(y) − (R(x1)(y) + R(x1')(y)) / (e^{eps0} + 1)`` over outputs ``y``, inputs ``x`` and
    pairs ``x1 != x1'``: the condition of the stronger clones' decomposition (module notes).

    The decomposition exists iff the slack is ``>= 0`` (up to rounding, ~1e-17). Only for a
    randomizer with finite discrete inputs and outputs (the full likelihood table is built).

    Examples
    --------
    >>> from shufflelib.randomizers import KRandomizedResponse
    >>> abs(decomposition_slack(KRandomizedResponse(3, 1.0))) < 1e-15  # k-RR: zero, attained
    True
    """
    if not isinstance(randomizer, LocalRandomizer):
        raise ValueError(f"randomizer must be a LocalRandomizer, got {type(randomizer).__name__}")
    inputs, outputs = randomizer.domain, randomizer.output_domain
    if not (
        inputs.discrete and outputs.discrete and math.isfinite(inputs.high - inputs.low + outputs.high - outputs.low)
    ):
        raise ValueError(f"randomizer must have finite discrete inputs and outputs, got {randomizer!r}")
    xs = np.arange(int(inputs.low), int(inputs.high) + 1)
    ys = np.arange(int(outputs.low), int(outputs.high) + 1)
    if xs.size < 2:
        raise ValueError(f"randomizer must have at least two inputs, got {xs.size}")
    lik = randomizer.likelihood(ys[:, None], xs[None, :])  # [y, x]
    pair_sum = lik[:, :, None] + lik[:, None, :]  # [y, x1, x1']
    slack = lik[:, :, None, None] - pair_sum[:, None] / (math.exp(randomizer.eps0) + 1.0)  # [y, x, x1, x1']
    different = xs[:, None] != xs[None, :]
    return float(slack[:, :, different].min())


@fill_doc
class StrongerClones(ClonePairBound):
    """Feldman–McMillan–Talwar (2023), numerical bound for k-ary randomized response.

    Clone probability ``2/(e^{eps0}+1)``; always ``eps <= eps0``. Valid for
    k-RR (any ``k >= 2``), see the module docstring for why not for a generic
    randomizer (the paper's erratum).

    Parameters
    ----------
    %(mechanism_krr)s
    k
        Domain size (an integer >= 2); the bound does not depend on it.

    Examples
    --------
    >>> from shufflelib.bounds.stronger_clones import StrongerClones
    >>> from shufflelib.bounds.clones import ClonesNumerical
    >>> sc = StrongerClones(mechanism="krr", k=2)
    >>> sc.epsilon(10_000, 1.0, 1e-6) < ClonesNumerical().epsilon(10_000, 1.0, 1e-6)
    True
    """

    name = "stronger-clones"
    title = "Feldman, McMillan, Talwar (2023), stronger clones (numerical, k-RR)"
    reference = (
        "V. Feldman, A. McMillan, K. Talwar. Stronger privacy amplification by shuffling for Rényi "
        "and approximate differential privacy. SODA 2023, arXiv:2208.04591 (with its erratum)."
    )
    mechanisms = ("krr",)

    def clone_probability(self, eps0: float) -> float:
        """``2/(e^{eps0}+1)``."""
        return 2.0 / (math.exp(eps0) + 1.0)
