r"""The five baselines of the paper's experiments, with their exact mean squared errors.

* **Subexp, local** — the subset exponential mechanism in the local model, every user at the
  liberal ``ε = 2`` (:func:`subexp_local`).
* **Subexp, shuffle** — the same randomizer, one message per user, with the local budget
  amplified by shuffling to the conservative ``(0.5, δ)`` through Theorem 1's pair
  (:func:`subexp_shuffle`), as the paper does.
* **MM, shuffle** — the multi-message "balls-into-bins" protocol (Luo, Wang, Yi, CCS 2022)
  with every user at ``0.5``; approximated, as the digest suggests, by Algorithm 2 with one
  level and ``λ = 1`` and the fewest blanket messages certified by Theorem 3
  (:func:`mm_shuffle`). With ``λ = 1`` the total count carries no information, so this
  accounting is exact (Proposition 1's pair with one more blanket).
* **SepMM** and **Weighted SepMM** — MM run separately in each segment at its own level,
  averaged with equal weights or with the paper's weights
  ``∝ 1/sqrt(d s^2 log(1/δ)/(n E_k)^2 + s/n)`` (:func:`sep_mm`); ``weights="inverse-mse"``
  uses the variance-optimal weights instead.

Subset exponential mechanism (for a set ``x`` of ``s`` items): output a ``k``-subset ``z`` of
the ``d`` items with probability proportional to ``e^ε`` if ``z`` meets ``x`` and to 1
otherwise. Each item ``j`` is in ``z`` with probability ``p_in`` if ``j ∈ x`` and ``p_out``
otherwise (:func:`subexp_probabilities`); the estimator ``ŵ_j = (#{z ∋ j}/n − p_out)/(p_in −
p_out)`` is unbiased, and with i.i.d. data its MSE is
``(s p_in(1 − p_in) + (d − s) p_out(1 − p_out)) / (n (p_in − p_out)^2) + (s − Σ_j w_j^2)/n``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._docstrings import fill_doc
from .._roots import largest_reaching
from .._validation import check_array, check_choice, check_in_range, check_int, check_positive, check_probability
from .optimize import blanket_threshold, slots_for
from .protocol import SegmentedParameters, expected_mse
from .variation_ratio import variation_ratio_pair

__all__ = [
    "Baseline",
    "subexp_probabilities",
    "subexp_total_variation",
    "subexp_mse",
    "subexp_local",
    "subexp_shuffle",
    "mm_shuffle",
    "sep_mm",
    "SEP_WEIGHTS",
    "BASELINE_NAMES",
    "baseline_mses",
]

#: Weightings of the segment estimates in :func:`sep_mm`.
SEP_WEIGHTS = ("equal", "paper", "inverse-mse")
#: The five baselines of the paper's figures, in their order.
BASELINE_NAMES = ("Subexp, local", "Subexp, shuffle", "MM, shuffle", "SepMM, shuffle", "Weighted SepMM, shuffle")


@dataclass(frozen=True)
class Baseline:
    """A baseline's expected mean squared error and the parameters behind it.

    Examples
    --------
    >>> Baseline("demo", 1e-3).mse
    0.001
    """

    name: str
    mse: float
    details: dict = field(default_factory=dict)


def _comb_ratio(a: int, b: int, k: int) -> float:
    """``C(a, k) / C(b, k)`` for ``a <= b`` (0 if ``k > a``)."""
    if k > a:
        return 0.0
    return math.exp(math.lgamma(a + 1) - math.lgamma(a - k + 1) - math.lgamma(b + 1) + math.lgamma(b - k + 1))


def _check_subexp(d: int, s: int, k: int, eps0: float) -> tuple[int, int, int, float]:
    d = check_int("d", d, minimum=2)
    s = check_int("s", s, minimum=1, maximum=d - 1)
    k = check_int("k", k, minimum=1, maximum=d - 1)
    eps0 = check_positive("eps0", eps0)
    return d, s, k, eps0


@fill_doc
def subexp_probabilities(d: int, s: int, k: int, eps0: float) -> tuple[float, float]:
    """``(p_in, p_out)``: probability that an item in / not in the user's set is reported.

    Parameters
    ----------
    %(d)s
    s
        Items per user, an integer in ``[1, d − 1]``.
    k
        Size of the reported subset, an integer in ``[1, d − 1]``.
    %(eps0)s

    Examples
    --------
    With ``s = k = 1`` this is ``d``-ary randomized response:

    >>> import math
    >>> p_in, p_out = subexp_probabilities(4, 1, 1, math.log(3))
    >>> round(p_in, 12), round(p_out, 12)
    (0.5, 0.166666666667)
    """
    d, s, k, eps0 = _check_subexp(d, s, k, eps0)
    e = math.exp(eps0)
    miss = _comb_ratio(d - s, d, k)  # a uniform k-subset misses the set
    miss_given_j = _comb_ratio(d - 1 - s, d - 1, k - 1)  # ... given it holds an item j outside the set
    norm = e * (1.0 - miss) + miss
    p_in = e * (k / d) / norm
    p_out = (k / d) * (e * (1.0 - miss_given_j) + miss_given_j) / norm
    return p_in, p_out


def subexp_total_variation(d: int, s: int, k: int, eps0: float) -> float:
    """Largest total variation between the outputs on two sets (disjoint sets), the ``β`` of Theorem 1.

    Examples
    --------
    >>> import math
    >>> round(subexp_total_variation(4, 1, 1, math.log(3)), 12)  # 4-RR: (e - 1)/(e + 3)
    0.333333333333
    """
    d, s, k, eps0 = _check_subexp(d, s, k, eps0)
    e = math.exp(eps0)
    miss = _comb_ratio(d - s, d, k)
    # subsets that meet x but not a disjoint x': C(d - s, k) - C(d - 2s, k), relative to C(d, k)
    meet_only = miss - _comb_ratio(max(d - 2 * s, 0), d, k) if d - 2 * s >= 0 else miss
    return (e - 1.0) * meet_only / (e * (1.0 - miss) + miss)


def subexp_mse(n: int, d: int, s: int, k: int, eps0: float, sum_sq: float) -> float:
    """Exact MSE of the subset exponential mechanism with ``n`` i.i.d. users (sampling included).

    Examples
    --------
    >>> import math
    >>> round(subexp_mse(1000, 4, 1, 1, math.log(3), 0.25), 8)  # 4-RR: 0.0060 noise + 0.00075 sampling
    0.00675
    """
    n = check_int("n", n, minimum=1)
    sum_sq = check_in_range("sum_sq", sum_sq, 0.0, float(s))
    p_in, p_out = subexp_probabilities(d, s, k, eps0)
    if not p_in > p_out:  # k > d - s: every subset meets the set, the output says nothing
        return math.inf
    noise = s * p_in * (1.0 - p_in) + (d - s) * p_out * (1.0 - p_out)
    return noise / (n * (p_in - p_out) ** 2) + (s - sum_sq) / n


def subexp_local(n: int, d: int, s: int, eps0: float, sum_sq: float) -> Baseline:
    """Subexp in the local model at ``eps0`` with the MSE-optimal subset size ``k``.

    Examples
    --------
    >>> b = subexp_local(5000, 17, 4, 2.0, 1.5)
    >>> b.name, 1 <= b.details["k"] <= 16
    ('Subexp, local', True)
    """
    d = check_int("d", d, minimum=2)
    mses = [subexp_mse(n, d, s, k, eps0, sum_sq) for k in range(1, d)]
    k = int(np.argmin(mses)) + 1
    return Baseline("Subexp, local", float(mses[k - 1]), {"k": k, "eps0": eps0})


def _subset_sizes(d: int) -> list[int]:
    sizes = {int(round(v)) for v in np.geomspace(1, d - 1, 14)}
    return sorted(v for v in sizes if 1 <= v <= d - 1)


def subexp_shuffle(
    n: int, d: int, s: int, eps: float, delta: float, sum_sq: float, *, sizes: object | None = None
) -> Baseline:
    """Subexp with one message per user, the local budget amplified to ``(eps, delta)`` by Theorem 1.

    For each subset size ``k`` the largest ``eps0`` whose variation-ratio pair (``n`` users,
    ``p = q = e^{eps0}``, ``β`` = :func:`subexp_total_variation`) gives ``(eps, delta)`` is found
    (rounded down); the best ``k`` is kept.

    Parameters
    ----------
    sizes
        Subset sizes to try (default: about 14 sizes spread geometrically over ``1..d − 1``).

    Examples
    --------
    >>> b = subexp_shuffle(5000, 17, 4, 0.5, 2e-6, 1.5, sizes=[2, 4])
    >>> b.details["eps0"] > 0.5
    True
    """
    n = check_int("n", n, minimum=2)
    d = check_int("d", d, minimum=2)
    eps = check_positive("eps", eps)
    delta = check_probability("delta", delta)
    ks = _subset_sizes(d) if sizes is None else [int(v) for v in check_array("sizes", sizes, ndim=1, integral=True)]
    best = Baseline("Subexp, shuffle", math.inf)
    for k in ks:

        def amplified_delta(eps0: float, k: int = k) -> float:
            p = math.exp(eps0)
            beta = subexp_total_variation(d, s, k, eps0)
            return float(variation_ratio_pair(n, p, beta, p).delta([eps])[0])

        eps0 = largest_reaching(amplified_delta, delta, 1e-3, 20.0, log_scale=True, rtol=1e-6, atol=1e-9)
        if eps0 is None:
            continue
        mse = subexp_mse(n, d, s, k, eps0, sum_sq)
        if mse < best.mse:
            best = Baseline("Subexp, shuffle", mse, {"k": k, "eps0": eps0})
    return best


def mm_shuffle(n: int, d: int, s: int, eps: float, delta: float, sum_sq: float) -> Baseline:
    """MM (balls-into-bins), approximated by Algorithm 2 with one level and ``λ = 1``.

    Examples
    --------
    >>> b = mm_shuffle(5000, 17, 4, 0.5, 2e-6, 1.5)
    >>> round(b.details["m"], 2)
    6.8
    """
    m = blanket_threshold(n, d, s, eps, delta)
    params = SegmentedParameters(m, (1.0,), slots_for(m))
    return Baseline("MM, shuffle", expected_mse([n], params, d, s, sum_sq), {"m": m})


def sep_mm(
    level_counts: object,
    level_eps: object,
    d: int,
    s: int,
    delta: float,
    sum_sq: float,
    *,
    weights: str = "equal",
) -> Baseline:
    """MM run separately in each segment, the estimates averaged (SepMM / Weighted SepMM).

    Parameters
    ----------
    level_counts, level_eps
        Users and privacy level of each segment.
    d, s, delta, sum_sq
        Items, items per user, the common δ, ``Σ_j w_j^2``.
    weights
        ``"equal"`` (SepMM), ``"paper"`` (Weighted SepMM as printed:
        ``∝ 1/sqrt(d s^2 log(1/δ)/(n E_k)^2 + s/n)`` with the total ``n``) or
        ``"inverse-mse"`` (variance-optimal, ``∝ 1/MSE_k``).

    Examples
    --------
    >>> b = sep_mm([1250, 2500, 1250], [0.5, 1.0, 2.0], 17, 4, 2e-6, 1.5)
    >>> b.name, len(b.details["m"])
    ('SepMM, shuffle', 3)
    """
    counts = check_array("level_counts", level_counts, ndim=1, low=1, integral=True).astype(np.int64)
    levels = check_array("level_eps", level_eps, ndim=1, low=0.0)
    if counts.size != levels.size:
        raise ValueError(f"level_eps must have one entry per segment ({counts.size}), got {levels.size}")
    check_choice("weights", weights, SEP_WEIGHTS)
    n = int(counts.sum())
    ms, mses = [], []
    for nk, e in zip(counts, levels, strict=False):
        m = blanket_threshold(int(nk), d, s, float(e), delta)
        params = SegmentedParameters(m, (1.0,), slots_for(m))
        ms.append(m)
        mses.append(expected_mse([int(nk)], params, d, s, sum_sq))
    mses_arr = np.array(mses)
    if weights == "equal":
        omega = np.full(counts.size, 1.0 / counts.size)
    elif weights == "paper":
        raw = 1.0 / np.sqrt(d * s**2 * math.log(1.0 / delta) / (n * levels) ** 2 + s / n)
        omega = raw / raw.sum()
    else:
        omega = (1.0 / mses_arr) / np.sum(1.0 / mses_arr)
    name = {"equal": "SepMM, shuffle", "paper": "Weighted SepMM, shuffle", "inverse-mse": "Optimal SepMM, shuffle"}
    return Baseline(name[weights], float(omega**2 @ mses_arr), {"m": ms, "weights": omega.tolist(), "mse": mses})


def baseline_mses(
    level_counts: object,
    d: int,
    s: int,
    delta: float,
    sum_sq: float,
    level_eps: object = (0.5, 1.0, 2.0),
) -> dict[str, float]:
    """The exact MSE of each of the five baselines (:data:`BASELINE_NAMES`) in one setting.

    Subexp local at the most liberal level, Subexp and MM shuffle at the most
    conservative one, SepMM and Weighted SepMM segment by segment.

    Examples
    --------
    >>> mses = baseline_mses([1250, 2500, 1250], 17, 4, 2e-6, 1.5)
    >>> list(mses) == list(BASELINE_NAMES), mses["Subexp, local"] > mses["MM, shuffle"]
    (True, True)
    """
    counts = check_array("level_counts", level_counts, ndim=1, low=1, integral=True).astype(np.int64)
    levels = check_array("level_eps", level_eps, ndim=1, low=0.0)
    n = int(counts.sum())
    liberal, conservative = float(levels.max()), float(levels.min())
    found = [
        subexp_local(n, d, s, liberal, sum_sq),
        subexp_shuffle(n, d, s, conservative, delta, sum_sq),
        mm_shuffle(n, d, s, conservative, delta, sum_sq),
        sep_mm(counts, levels, d, s, delta, sum_sq),
        sep_mm(counts, levels, d, s, delta, sum_sq, weights="paper"),
    ]
    return {b.name: b.mse for b in found}
