r"""Baselines for composed shuffled protocols: Rényi DP, advanced and naive composition.

* **Rényi DP.** The Rényi divergences of one round's pair are computed
  numerically from its pessimistic loss distribution
  (:meth:`~shufflelib.composition.pld.LossDistribution.renyi`, an upper bound:
  the same pair the PLD accountant composes, so at least as tight as the
  closed-form Rényi bounds of Feldman, McMillan, Talwar 2023 or Girgis et al.
  2021 for it), multiplied by ``T`` and converted with the improved conversion
  of Canonne, Kamath, Steinke (2020) / Asoodeh et al. (2021):
  ``ε = T D_α + log((α − 1)/α) − (log δ + log α)/(α − 1)``, minimized over a grid of α.
* **Advanced composition** (Kairouz, Oh, Viswanath 2015, Theorem 3.5): ``T``
  rounds of ``(ε₁, δ₁)``-DP are ``(ε_T, 1 − (1 − δ₁)^T (1 − δ'))``-DP with
  ``ε_T = min(Tε₁, Tε₁ tanh(ε₁/2) + ε₁ √(2T log(e + √(T ε₁²)/δ')),
  Tε₁ tanh(ε₁/2) + ε₁ √(2T log(1/δ')))``; the split of δ between ``δ₁`` and
  ``δ'`` is optimized on a grid, ``ε₁`` is the round's bound at ``δ₁``.
* **Naive composition**: ``T`` rounds of ``(ε₁, δ/T)``-DP are ``(T ε₁, δ)``-DP.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from .._validation import check_probability
from .pld import LossDistribution

__all__ = ["ALPHAS", "advanced_epsilon", "naive_epsilon", "rdp_delta", "rdp_epsilon"]

#: Rényi orders searched by :func:`rdp_epsilon`.
ALPHAS = np.concatenate([1.0 + np.geomspace(1e-3, 1.0, 60)[:-1], np.geomspace(2.0, 1e5, 240)])
#: Fractions of δ given to the per-round δ₁ (the rest to δ') in :func:`advanced_epsilon`.
_SPLITS = np.array([0.01, 0.03, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9])


def rdp_epsilon(distributions: Sequence[LossDistribution], rounds: int, delta: float) -> float:
    """ε of ``rounds`` rounds by Rényi DP, from one round's pessimistic loss distributions.

    ``distributions`` holds one order (symmetric pair) or both; the larger
    divergence is used.

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.pld import from_log_pmfs
    >>> from shufflelib.composition.baselines import rdp_epsilon
    >>> p = np.exp(0.1) / (1 + np.exp(0.1))  # randomized response, eps0 = 0.1
    >>> rr = from_log_pmfs(np.log([p, 1 - p]), np.log([1 - p, p]), step=1e-4, max_loss=0.1)
    >>> round(rdp_epsilon([rr], 100, 1e-6), 3)  # PLD: 4.785, naive: 10
    5.074
    """
    delta = check_probability("delta", delta)
    d = np.max([ld.renyi(ALPHAS) for ld in distributions], axis=0)
    a = ALPHAS
    eps = rounds * d + np.log1p(-1.0 / a) - (math.log(delta) + np.log(a)) / (a - 1.0)
    # Rounded up (relative 1e-9), so that :func:`rdp_delta` at the answer is at most ``delta``.
    return float(max(np.min(eps), 0.0)) * (1.0 + 1e-9) + 1e-12


def rdp_delta(distributions: Sequence[LossDistribution], rounds: int, eps: float) -> float:
    """δ of ``rounds`` rounds at ``eps`` by Rényi DP: the inverse of :func:`rdp_epsilon`'s conversion,
    ``log δ = (α − 1)(T D_α + log((α − 1)/α) − ε) − log α``, minimized over the same α (so that
    ``rdp_delta(rdp_epsilon(δ)) <= δ``).

    Examples
    --------
    >>> import numpy as np
    >>> from shufflelib.composition.pld import from_log_pmfs
    >>> from shufflelib.composition.baselines import rdp_delta, rdp_epsilon
    >>> p = np.exp(0.1) / (1 + np.exp(0.1))
    >>> rr = from_log_pmfs(np.log([p, 1 - p]), np.log([1 - p, p]), step=1e-4, max_loss=0.1)
    >>> rdp_delta([rr], 100, rdp_epsilon([rr], 100, 1e-6)) <= 1e-6
    True
    """
    d = np.max([ld.renyi(ALPHAS) for ld in distributions], axis=0)
    a = ALPHAS
    with np.errstate(invalid="ignore"):
        log_delta = (a - 1.0) * (rounds * d + np.log1p(-1.0 / a) - eps) - np.log(a)
    best = float(np.nanmin(np.where(np.isnan(log_delta), np.inf, log_delta)))
    return float(min(1.0, math.exp(best))) if best < 700.0 else 1.0


def advanced_epsilon(single: Callable[[float], float], rounds: int, delta: float) -> float:
    """ε of ``rounds`` rounds by optimal-style advanced composition (Kairouz et al., Theorem 3.5).

    ``inf`` if every split of δ underflows.

    ``single(delta1)`` is one round's ε at ``delta1``.

    Examples
    --------
    >>> from shufflelib.composition.baselines import advanced_epsilon
    >>> round(advanced_epsilon(lambda d: 0.1, 100, 1e-6), 3)  # pure 0.1-DP rounds
    5.758
    """
    delta = check_probability("delta", delta)
    best = math.inf
    for share in _SPLITS:
        d_prime = (1.0 - share) * delta
        # (1 − δ₁)^T (1 − δ') = 1 − δ  ⇒  δ₁ = 1 − ((1 − δ)/(1 − δ'))^{1/T}
        d1 = -math.expm1((math.log1p(-delta) - math.log1p(-d_prime)) / rounds)
        if not d1 > 0.0:  # underflow (δ near the smallest float): this split gives nothing
            continue
        e1 = single(d1)
        if not math.isfinite(e1):
            continue
        core = rounds * e1 * math.tanh(e1 / 2.0)
        best = min(
            best,
            rounds * e1,
            core + e1 * math.sqrt(2.0 * rounds * math.log(math.e + math.sqrt(rounds * e1 * e1) / d_prime)),
            core + e1 * math.sqrt(2.0 * rounds * math.log(1.0 / d_prime)),
        )
    return best


def naive_epsilon(single: Callable[[float], float], rounds: int, delta: float) -> float:
    """``rounds · ε₁(δ / rounds)`` (basic composition; ``inf`` if ``δ / rounds`` underflows to 0).

    Examples
    --------
    >>> from shufflelib.composition.baselines import naive_epsilon
    >>> naive_epsilon(lambda d: 0.1, 100, 1e-6)
    10.0
    """
    delta = check_probability("delta", delta)
    share = delta / rounds
    return rounds * single(share) if share > 0.0 else math.inf  # inf: δ / rounds underflows
