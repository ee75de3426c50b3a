r"""The variation-ratio bound of Wang et al. (VLDB 2024), with the paper's parameter table.

Theorem 1 of S. Wang et al., "Unified, simplified and tightened privacy amplification in the
shuffle model" (PVLDB 17(8), 2024, arXiv:2304.05007) bounds the shuffled output of ``n`` users
by the pair of :func:`~shufflelib.segmented.variation_ratio.variation_ratio_pair` (one
implementation, shared with the segmented chapter), with parameters ``(p, β, q)`` read off the
local randomizer. The paper's table (and its code, ``computeUBParameters`` in
``wangsw/PrivacyAmplification``), for an ``eps0``-LDP randomizer:

=====================  ===============  =====================================  ===============
randomizer             ``p``            ``β``                                  ``q``
=====================  ===============  =====================================  ===============
generic ``eps0``-LDP   ``e^{eps0}``     ``(e^{eps0} − 1)/(e^{eps0} + 1)``      ``e^{eps0}``
Laplace                ``e^{eps0}``     ``1 − e^{−eps0/2}``                    ``e^{eps0}``
k-RR                   ``e^{eps0}``     ``(e^{eps0} − 1)/(e^{eps0} + k − 1)``  ``e^{eps0}``
=====================  ===============  =====================================  ===============

The clone rate per side is ``βp/((p − 1)q)``: ``1/(e^{eps0}+1)`` for the generic row (the
pair is then the stronger-clones pair), ``1/(e^{eps0}+k−1)`` for k-RR.

Soundness (see :func:`variation_ratio_verdict` and the segmented chapter). For k-RR with
``k >= 3`` the value is **not** a valid bound: the exact worst case of shuffled k-RR
(:mod:`~shufflelib.bounds.krr_worst_case`), and already the explicit pairs of
:class:`~shufflelib.bounds.exact.TwoPairKRRLowerBound`, exceed it. For ``k = 2`` and the generic
row the pair is the stronger-clones pair, valid for k-RR (every ``k``); for a general
``eps0``-LDP randomizer that pair is what the stronger-clones erratum withdrew, so the
generic row is not established. The Laplace row is not checked against an exact
computation here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .._validation import check_choice, check_int, check_positive, check_probability
from ..randomizers import RandomizerFamily
from .base import MECHANISMS, AmplificationBound, eps0_reason
from .exact import TwoPairKRRLowerBound
from .krr_worst_case import worst_case_delta, worst_case_epsilon, worst_case_work
from .privacy_loss import PrivacyLoss

if TYPE_CHECKING:
    from ..segmented.clone_pairs import ClonePair

__all__ = [
    "VariationRatioBound",
    "VerdictRow",
    "variation_ratio_parameters",
    "variation_ratio_table",
    "variation_ratio_verdict",
]


#: The verdict uses the exact worst case where one complete search takes at most this (estimated s).
_VERDICT_SECONDS = 2.0


def variation_ratio_parameters(mechanism: str, eps0: float, k: int | None = None) -> tuple[float, float, float]:
    """``(p, β, q)`` of the paper's table for ``"generic"``, ``"laplace"`` or ``"krr"``.

    ``p = q = e^{eps0}`` and ``β`` the randomizer's
    :attr:`~shufflelib.randomizers.LocalPrivacyDescription.total_variation`.

    Examples
    --------
    >>> p, beta, q = variation_ratio_parameters("krr", math.log(3.0), k=3)
    >>> round(p, 12), round(beta, 12), round(q, 12)
    (3.0, 0.4, 3.0)
    """
    eps0 = check_positive("eps0", eps0)
    check_choice("mechanism", mechanism, MECHANISMS)
    beta = RandomizerFamily(mechanism, k=k).at(eps0).total_variation
    p = q = math.exp(eps0)
    return p, min(beta, (p - 1.0) / (p + 1.0)), q  # the largest β the theorem allows, in floats


class VariationRatioBound(AmplificationBound):
    """Wang et al. (VLDB 2024), Theorem 1: the variation-ratio pair, computed numerically.

    ``delta`` is the hockey-stick divergence of the pair (blocks of the clone count rounded
    up, :class:`~shufflelib.segmented.clone_pairs.ClonePair`); ``epsilon`` and ``max_eps0``
    invert it. :meth:`soundness` says where the value is not a valid bound (k-RR with
    ``k >= 3``: shown false; generic and Laplace: not established).

    Parameters
    ----------
    mechanism
        ``"generic"``, ``"laplace"`` or ``"krr"`` (the rows of the paper's table).
    k
        Domain size for ``"krr"``.

    Examples
    --------
    >>> from shufflelib.bounds.variation_ratio import VariationRatioBound
    >>> vr = VariationRatioBound(mechanism="krr", k=3)
    >>> 0 < vr.epsilon(10_000, 1.0, 1e-6) < 1.0
    True
    >>> vr.sound, VariationRatioBound(mechanism="krr", k=2).sound
    (False, True)
    """

    name = "variation-ratio"
    title = "Wang et al. (2024), variation-ratio reduction (numerical; not valid for k-RR with k >= 3)"
    reference = (
        "S. Wang, Y. Peng, J. Li, Z. Wen, Z. Li, S. Yu, D. Wang, W. Yang. Privacy amplification "
        "via shuffling: unified, simplified, and tightened. PVLDB 17(8), 2024, arXiv:2304.05007."
    )
    mechanisms = ("generic", "laplace", "krr")

    def soundness(self, **params: object) -> str | None:
        """``None`` where the value is a valid bound, else the reason (see the module notes).

        Examples
        --------
        >>> VariationRatioBound(mechanism="krr", k=5).soundness() is not None
        True
        """
        if self.mechanism == "krr" and self.k == 2:
            return None  # the stronger-clones pair, valid for k-RR
        if self.mechanism == "krr":
            return (
                f"not a valid bound for {self.k}-RR: the exact worst case of shuffled k-RR exceeds the "
                "variation-ratio pair (book: segmented chapter, 'the variation-ratio bound on trial')"
            )
        if self.mechanism == "generic":
            return (
                "not a valid bound for a generic eps0-LDP randomizer (not established: the pair is the "
                "stronger-clones pair, whose proof the authors' erratum restricts to k-RR)"
            )
        return "not a valid bound for the Laplace mechanism (not established: not checked against an exact computation)"

    def pair(self, n: int, eps0: float) -> ClonePair:
        """The variation-ratio pair of ``n`` users.

        Examples
        --------
        >>> VariationRatioBound(mechanism="generic").pair(100, math.log(3.0)).rate
        0.25
        """
        # Imported here: the segmented package imports the clone-pair core from this package.
        from ..segmented.variation_ratio import variation_ratio_pair

        p, beta, q = variation_ratio_parameters(self.mechanism, eps0, self.k)
        return variation_ratio_pair(n, p, beta, q)

    def validity(self, n: int, eps0: float, delta: float | None = None) -> str | None:
        """``None`` for ``eps0 <= 100`` (the range of the numerical evaluation), else the reason.

        Examples
        --------
        >>> VariationRatioBound().validity(100, 1.0) is None
        True
        """
        return eps0_reason(eps0)

    def privacy_loss(self, n: int) -> PrivacyLoss:
        """Its profile (an upper bound where the bound is valid), vectorized over ε through its pair's.

        Examples
        --------
        >>> loss = VariationRatioBound().privacy_loss(1000)
        >>> loss.form, float(loss.profile(1.0)(np.array([1.0]))[0])
        ('profile', 0.0)
        """

        def profile(eps0: float):
            pair = self.pair(n, eps0)
            return lambda e: np.where(e < eps0, np.minimum(pair.delta(np.minimum(e, eps0)), 1.0), 0.0)

        return PrivacyLoss(
            "profile",
            True,
            epsilon=lambda e0, d: self.epsilon(n, e0, d),
            largest=lambda e, d: self.max_eps0(n, e, d),
            profile=profile,
        )

    def _delta(self, n: int, eps0: float, eps: float) -> float:
        if eps >= eps0:
            return 0.0  # the pair's likelihood ratios are within [e^-eps0, e^eps0]
        return float(min(self.pair(n, eps0).delta([eps])[0], 1.0))  # blocks at the default RESOLUTION


@dataclass(frozen=True)
class VerdictRow:
    """One line of :func:`variation_ratio_verdict`.

    Attributes
    ----------
    k, n, eps0, delta
        The setting.
    claimed_eps
        ε of the variation-ratio bound at ``delta``.
    true_delta
        δ of shuffled k-RR at ``claimed_eps``: the exact worst case where the complete search
        runs (``exact``), else the two-pair lower bound (a lower bound on the truth).
    exact
        Whether ``true_delta`` is the exact worst case.
    true_eps
        ε of shuffled k-RR at ``delta`` (exact, or the two-pair lower bound).

    Examples
    --------
    >>> row = VerdictRow(3, 7, 1.0, 1e-6, claimed_eps=0.5, true_delta=2e-6, exact=True, true_eps=0.6)
    >>> row.ratio, round(row.shortfall, 12)
    (2.0, 0.1)
    """

    k: int
    n: int
    eps0: float
    delta: float
    claimed_eps: float
    true_delta: float
    exact: bool
    true_eps: float

    @property
    def ratio(self) -> float:
        """True δ over the claimed δ at the claimed ε (the claim is at most ``delta``; see the class example)."""
        return self.true_delta / self.delta

    @property
    def shortfall(self) -> float:
        """``true ε − claimed ε`` (positive: the bound is violated; see the class example)."""
        return self.true_eps - self.claimed_eps


def variation_ratio_verdict(k: int, n: int, eps0: float, delta: float) -> VerdictRow:
    """Confront the variation-ratio bound for k-RR with the truth at ``(k, n, eps0, delta)``.

    Examples
    --------
    >>> row = variation_ratio_verdict(3, 7, 1.0, 1e-2)
    >>> row.exact, row.ratio > 1.0, row.shortfall > 0.0
    (True, True, True)
    """
    k = check_int("k", k, minimum=2)
    n = check_int("n", n, minimum=2)
    eps0 = check_positive("eps0", eps0)
    delta = check_probability("delta", delta)
    claimed = VariationRatioBound(mechanism="krr", k=k).epsilon(n, eps0, delta)
    exact = worst_case_work(n, k) <= _VERDICT_SECONDS
    if exact:
        true_delta = float(worst_case_delta(n, k, eps0, [claimed], math.inf).lower[0])
        true_eps = worst_case_epsilon(n, k, eps0, delta, math.inf)[0]
    else:
        lower = TwoPairKRRLowerBound(mechanism="krr", k=k)
        true_delta = lower.delta(n, eps0, claimed)
        true_eps = lower.epsilon(n, eps0, delta)
    return VerdictRow(k, n, eps0, delta, claimed, float(np.float64(true_delta)), exact, true_eps)


def variation_ratio_table(
    ks: tuple[int, ...], ns: tuple[int, ...], deltas: tuple[float, ...], eps0s: tuple[float, ...]
) -> list[dict[str, object]]:
    """The verdict table: for each ``(k, n, delta)``, the worst over ``eps0s`` of :func:`variation_ratio_verdict`.

    Returns
    -------
    list of dict
        Keys ``k, n, delta, exact`` (every truth exact), ``ratio`` (largest true/claimed δ)
        with ``ratio_eps0``, ``shortfall`` (largest true − claimed ε, negative if none) with
        ``shortfall_eps0`` and ``relative`` (that shortfall over the claimed ε).

    Examples
    --------
    >>> row = variation_ratio_table((3,), (7,), (1e-6,), (1.0, 2.0))[0]
    >>> row["exact"], row["ratio"] > 1.0, row["shortfall_eps0"]
    (True, True, 2.0)
    """
    rows = []
    for k in ks:
        for n in ns:
            for delta in deltas:
                verdicts = [variation_ratio_verdict(k, n, e0, delta) for e0 in eps0s]
                worst_ratio = max(verdicts, key=lambda v: v.ratio)
                worst_gap = max(verdicts, key=lambda v: v.shortfall)
                rows.append(
                    {
                        "k": k,
                        "n": n,
                        "delta": delta,
                        "exact": all(v.exact for v in verdicts),
                        "ratio": worst_ratio.ratio,
                        "ratio_eps0": worst_ratio.eps0,
                        "shortfall": worst_gap.shortfall,
                        "shortfall_eps0": worst_gap.eps0,
                        "relative": worst_gap.shortfall / worst_gap.claimed_eps,
                    }
                )
    return rows
