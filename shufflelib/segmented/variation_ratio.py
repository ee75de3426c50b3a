r"""The paper's privacy reductions as variation-ratio pairs (Theorem 1, Theorem 2, Lemma 3, Prop. 1).

* **Theorem 1** (Wang et al., VLDB 2024, as restated by the paper). A victim whose randomizer
  has likelihood ratio at most ``p`` and total variation at most ``β`` between any two inputs,
  among ``n − 1`` others whose messages are each at least ``1/q`` times the victim's
  distribution, is bounded by the pair with ``C ~ Bin(n − 1, 2βp/((p − 1)q))`` and victim
  weights ``(pα, α, 1 − α − pα)``, ``α = β/(p − 1)``: :func:`variation_ratio_pair`.
* **Theorem 2** (random number of blanket messages). ``N ~ Bin(n, γ)`` blanket messages act like
  ``n`` messages with ratio ``q/γ``: the pair of Theorem 1 with ``n + 1`` users and ``q/γ``,
  i.e. ``C ~ Bin(n, 2γβp/((p − 1)q))``: :func:`random_blanket_pair`.
* **Lemma 3** (Poisson randomizer, ``p = ∞``, ``β = λ``, ``q = dλ``) combined with Theorem 2 and
  Lemma 2: one item of a level-``λ`` user among ``n⌈m⌉`` blanket slots, each active with
  probability ``γ = m/⌈m⌉`` and uniform on ``d`` items. In the limit ``p → ∞`` the victim's
  weights are ``(λ, 0, 1 − λ)`` and each slot is a clone with probability ``2γ/d`` (``λ``
  cancels). Theorem 3 uses ``n⌈m⌉ − 1`` trials, Proposition 1 (the exact law of the two
  victim cells on the worst-case datasets) ``n⌈m⌉``: :func:`poisson_item_pair`.

These are the bounds *as printed*. The chapter shows where they fail: the pairs ignore what the
*number* of messages reveals (see :mod:`shufflelib.segmented.exact_item` for the exact
single-item curve), and Theorem 1's conclusion does not hold for every randomizer meeting its
two hypotheses.
"""

from __future__ import annotations

import math

from .._docstrings import fill_doc
from .._validation import check_choice, check_in_range, check_int, check_positive, check_probability
from .clone_pairs import RESOLUTION, ClonePair, ClonePairCurve

__all__ = [
    "variation_ratio_pair",
    "random_blanket_pair",
    "poisson_item_pair",
    "slot_count",
    "pair_curve",
    "CONVENTIONS",
]

#: Trials convention of :func:`poisson_item_pair`: Theorem 3 (``n·slots − 1``) or Proposition 1
#: (``n·slots``).
CONVENTIONS = ("theorem3", "proposition1")


def _victim_weights(p: float, beta: float) -> tuple[float, float, float]:
    """``(pα, α, 1 − α − pα)`` with ``α = β/(p − 1)``; ``(β, 0, 1 − β)`` for ``p = ∞``."""
    if math.isinf(p):
        return beta, 0.0, 1.0 - beta
    alpha = beta / (p - 1.0)
    return p * alpha, alpha, max(0.0, 1.0 - alpha - p * alpha)


def _check_variation(p: float, beta: float, q: float) -> tuple[float, float, float]:
    p = check_positive("p", p, allow_inf=True)
    if not p > 1.0:
        raise ValueError(f"p must be > 1 (or inf), got {p!r}")
    beta_max = 1.0 if math.isinf(p) else (p - 1.0) / (p + 1.0)
    beta = check_in_range("beta", beta, 0.0, beta_max)
    q = check_positive("q", q)
    return p, beta, q


def _clone_rate(p: float, beta: float, q: float) -> float:
    rate = beta / q if math.isinf(p) else beta * p / ((p - 1.0) * q)
    if rate > 0.5 + 1e-12:
        raise ValueError(f"beta p / ((p - 1) q) must be <= 1/2 (a probability per clone cell), got {rate!r}")
    return min(rate, 0.5)


@fill_doc
def variation_ratio_pair(n: int, p: float, beta: float, q: float) -> ClonePair:
    """Theorem 1: the variation-ratio pair of ``n`` users (the victim and ``n − 1`` others).

    Parameters
    ----------
    %(n_users)s
    p
        Bound on the victim's likelihood ratio between two inputs, > 1 (``inf`` allowed).
    beta
        Bound on the victim's total variation between two inputs, in ``[0, (p − 1)/(p + 1)]``.
    q
        Ratio bound of the other users' messages (``R_v(x)(y) <= q R_i(x_i)(y)``), > 0 with
        ``βp/((p − 1)q) <= 1/2``.

    Returns
    -------
    ClonePair

    Examples
    --------
    Binary randomized response with ``eps0 = 1`` (``p = q = e``, ``β = (e − 1)/(e + 1)``):

    >>> import math
    >>> pair = variation_ratio_pair(1000, math.e, (math.e - 1) / (math.e + 1), math.e)
    >>> round(pair.rate, 6), pair.trials  # clone rate 1/(e + 1)
    (0.268941, 999)
    """
    n = check_int("n", n, minimum=1)
    p, beta, q = _check_variation(p, beta, q)
    near, far, rest = _victim_weights(p, beta)
    return ClonePair(n - 1, _clone_rate(p, beta, q), near, far, rest)


def random_blanket_pair(n: int, gamma: float, p: float, beta: float, q: float) -> ClonePair:
    """Theorem 2: the victim's message among ``N ~ Bin(n, γ)`` blanket messages.

    The pair of Theorem 1 with ``n + 1`` users and ratio ``q/γ``: ``C ~ Bin(n, 2γβp/((p − 1)q))``.

    Parameters
    ----------
    n
        Number of blanket slots, an integer >= 0.
    gamma
        Probability that a slot sends its blanket message, in ``(0, 1]``.
    p, beta, q
        As in :func:`variation_ratio_pair`.

    Returns
    -------
    ClonePair

    Examples
    --------
    >>> pair = random_blanket_pair(100, 0.5, float("inf"), 1.0, 10.0)
    >>> pair.trials, pair.rate
    (100, 0.05)
    """
    n = check_int("n", n, minimum=0)
    gamma = check_probability("gamma", gamma, closed_high=True)
    p, beta, q = _check_variation(p, beta, q)
    near, far, rest = _victim_weights(p, beta)
    return ClonePair(n, _clone_rate(p, beta, q / gamma), near, far, rest)


def slot_count(m: float, slots: int | None = None) -> int:
    """Blanket slots per user: ``⌈m⌉`` (Algorithm 2) unless ``slots`` (an integer >= m) is given.

    Examples
    --------
    >>> slot_count(1.5), slot_count(2.0), slot_count(0.3, slots=3)
    (2, 2, 3)
    """
    m = check_positive("m", m)
    if slots is None:
        return max(1, math.ceil(m))
    slots = check_int("slots", slots, minimum=1)
    if slots < m:
        raise ValueError(f"slots must be an integer >= m = {m!r}, got {slots!r}")
    return slots


@fill_doc
def poisson_item_pair(
    n: int, m: float, d: int, lam: float, *, slots: int | None = None, convention: str = "theorem3"
) -> ClonePair:
    """Lemma 3 with Theorems 2–3: the pair bounding one item of a user with reporting probability ``λ``.

    Parameters
    ----------
    %(n_users)s
    m
        Expected number of blanket messages per user, > 0.
    %(d)s
    lam
        The user's reporting probability ``λ``, in ``[0, 1]``.
    slots
        Blanket slots per user (default ``⌈m⌉`` as in Algorithm 2); each sends w.p. ``m/slots``.
    convention
        ``"theorem3"`` (``n·slots − 1`` trials, the upper bound as printed) or
        ``"proposition1"`` (``n·slots`` trials: the exact law of the two victim cells on the
        worst-case datasets of Proposition 1).

    Returns
    -------
    ClonePair

    Examples
    --------
    >>> pair = poisson_item_pair(5000, 1.5, 17, 0.5)
    >>> pair.trials, round(pair.rate, 6), pair.w_near
    (9999, 0.044118, 0.5)
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=2)
    lam = check_in_range("lam", lam, 0.0, 1.0)
    per_user = slot_count(m, slots)
    check_choice("convention", convention, CONVENTIONS)
    gamma = min(1.0, m / per_user)
    trials = n * per_user - (1 if convention == "theorem3" else 0)
    return ClonePair(trials, gamma / d, lam, 0.0, 1.0 - lam)


def pair_curve(pair: ClonePair, resolution: float | None = RESOLUTION) -> ClonePairCurve:
    """The :class:`~shufflelib.segmented.clone_pairs.ClonePairCurve` of ``pair``.

    Examples
    --------
    >>> curve = pair_curve(poisson_item_pair(5000, 1.5, 17, 1.0))
    >>> 0 < curve.epsilon(1e-6) < 1
    True
    """
    return ClonePairCurve(pair, resolution)
