r"""The "hiding among the clones" bounds of Feldman, McMillan and Talwar (FOCS 2021).

Let ``R`` be an ``eps0``-LDP randomizer and ``X0, X1`` neighbouring datasets
differing in user 1 (``x1`` vs ``x1'``). Every other user's report
decomposes as ``R(x) = (p/2) R(x1) + (p/2) R(x1') + (1 - p) LO(x)`` with clone
probability ``p = e^{-eps0}`` (true for *every* ``eps0``-LDP randomizer, since
``R(x) >= e^{-eps0} max(R(x1), R(x1'))``). Counting the clones, the shuffled
output is a post-processing of the pair

.. math::

    P = (A + \Delta,\; C - A + 1 - \Delta), \qquad
    Q = (A + 1 - \Delta,\; C - A + \Delta),

with ``C ~ Bin(n - 1, p)``, ``A ~ Bin(C, 1/2)``, ``Δ ~ Bern(e^{eps0}/(e^{eps0}+1))``
(arXiv:2012.12803, Theorem 3.2 and Appendix E; the same pair, with
``p = e^{-eps0}``, is used by the authors' code ``apple/ml-shuffling-amplification``).

* :class:`ClonesNumerical` (``"clones"``) computes the hockey-stick divergence
  of this pair exactly (see :class:`ClonePairBound` for the method and the
  numerical tolerance).
* :class:`ClonesClosedForm` (``"clones-closed"``) is their Theorem 3.1: for
  ``eps0 <= log(n / (16 log(2/delta)))``,

  .. math::

      \varepsilon \le \log\Big(1 + \frac{e^{\varepsilon_0}-1}{e^{\varepsilon_0}+1}
      \Big(\frac{8\sqrt{e^{\varepsilon_0}\log(4/\delta)}}{\sqrt n}
      + \frac{8 e^{\varepsilon_0}}{n}\Big)\Big).

  Constants checked against the theorem as implemented in OpenDP/SmartNoise
  (``compose_epsilon_theoretical``, "theorem 3.1") and as quoted in C. Canonne's
  DifferentialPrivacy.org post on the paper. The authors' repository
  (``closedformanalysis``) uses the slightly larger factor
  ``(1 − e^{-eps0}) / (1 + e^{-eps0-e1})``, ``e1 = log(1 + 8 sqrt(...) + 8 e^{eps0}/n)``,
  in place of ``(e^{eps0}−1)/(e^{eps0}+1) = (1 − e^{-eps0})/(1 + e^{-eps0})``; we
  implement the theorem as stated. Sanity check: over ``n`` from 1e2 to 1e7,
  ``delta`` from 1e-15 to 0.3 and ``eps0`` across the validity range, the closed
  form is at least 1.7 times the exact divergence of the clone pair it is
  derived from (``ClonesNumerical``).

Both the pair and the binomial machinery live in :mod:`~shufflelib.bounds.clone_pair`
(re-exported here: ``binomial_shortfall``, ``binomial_range``, ``BINOM_RTOL``).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

import numpy as np
from scipy.special import log_ndtr

from .._docstrings import fill_doc
from .._roots import brent
from .._validation import check_int, check_positive, check_probability
from ..curves import invert_profile
from .base import EPS0_MAX, AmplificationBound, NotApplicableError, ProfileBound
from .clone_pair import BINOM_RTOL, binomial_blocks, binomial_range, binomial_shortfall, clone_pair_delta
from .privacy_loss import ClonePairLoss, PrivacyLoss, clone_loss_scale

__all__ = [
    "ClonePairBound",
    "ClonesClosedForm",
    "ClonesNumerical",
    "closed_form_authors_code",
    "fmt_epsilon",
    "binomial_range",
    "binomial_shortfall",
    "BINOM_RTOL",
    "gaussian_dp_epsilon",
    "gaussian_eps0",
    "gaussian_mu",
]

#: Relative margin used to round closed forms up ...
_ROUNDING = 1e-12
#: ... and the (larger) one for ε, so that ``delta(epsilon(d)) <= d`` survives both roundings.
_INVERSE_ROUNDING = 1e-10


class ClonePairBound(ProfileBound):
    """Numerical bound from a clone pair: ``(A + Δ, C − A + 1 − Δ)`` vs its mirror image.

    Subclasses fix the clone probability ``p(eps0)`` (``C ~ Bin(n − 1, p)``);
    ``Δ ~ Bern(e^{eps0}/(e^{eps0}+1))``.

    Method: :func:`~shufflelib.bounds.clone_pair.clone_pair_delta` with local log-odds
    ``eps0`` on the blocks of :func:`~shufflelib.bounds.clone_pair.binomial_blocks`: the
    central range of ``C`` (binomial tail ``1e-20`` per side) is cut into 2048 blocks, the
    outer ranges down to tail ``1e-300`` into 64 blocks each, and each remaining tail is one
    block (left ends: an upper bound), at most ~2200 closed forms per ε, whatever ``n``.

    Numerical tolerance: the result exceeds the pair's exact δ by the block
    slack — zero when the central range has at most 2048 points (e.g.
    ``n <= 2e4``), at most a relative ``4e-4`` at ``delta >= 1e-15`` in our
    checks (``n`` from 1e5 to 1e9, ``eps0`` from 0.1 to 10), i.e. ε within a
    relative ``~1e-5`` — plus the rounding budget (pmf/sf relative error
    ``1e-9``, propagated through the cancellation). For ``eps < eps0`` values
    below ``1e-300`` are reported as ``1e-300``; ``delta(eps) = 0`` exactly for
    ``eps >= eps0``.

    Examples
    --------
    The abstract base through :class:`ClonesNumerical` (clone probability ``e^{-eps0}``):

    >>> import numpy as np
    >>> from shufflelib.bounds.clones import ClonePairBound, ClonesNumerical
    >>> b = ClonesNumerical()
    >>> isinstance(b, ClonePairBound), round(b.clone_probability(1.0), 4)
    (True, 0.3679)
    >>> d = b.delta_profile(10_000, 1.0, np.array([0.05, 0.1, 1.0]))  # delta = 0 at eps = eps0
    >>> [float(f"{x:.3g}") for x in d]
    [2.14e-06, 6.42e-14, 0.0]
    """

    def clone_probability(self, eps0: float) -> float:
        """Probability that another user is a clone (``C ~ Bin(n − 1, p)``)."""
        raise NotImplementedError

    def privacy_loss(self, n: int) -> PrivacyLoss:
        """The clone pair itself (an upper bound): a :class:`~shufflelib.bounds.privacy_loss.ClonePairLoss`.

        Examples
        --------
        >>> loss = ClonesNumerical().privacy_loss(1000)
        >>> loss.form, round(loss.pair(1.0).clone_probability, 4)
        ('pair', 0.3679)
        """
        return PrivacyLoss(
            "pair",
            True,
            epsilon=lambda e0, d: self.epsilon(n, e0, d),
            largest=lambda e, d: self.max_eps0(n, e, d),
            pair=lambda e0: ClonePairLoss(n, e0, self.clone_probability(e0)),
            scale=lambda e0: clone_loss_scale(n, e0),
        )

    def _epsilon(self, n: int, eps0: float, delta: float) -> float:
        """ε(δ) by certified root finding on a bracket narrowed around a Gaussian-DP estimate.

        The estimate (``mu = 2 tanh(eps0/2) / sqrt(E[C + 1])``) only narrows the bracket
        (:func:`~shufflelib.curves.invert_profile`); the root itself is certified on the profile.
        """
        guess = gaussian_dp_epsilon(self._gaussian_mu(n, eps0), delta)
        return invert_profile(lambda e: self._delta_checked(n, eps0, e), delta, hi=eps0, guess=guess)

    def _gaussian_mu(self, n: int, eps0: float) -> float:
        """Gaussian-DP parameter of the pair at ``n`` users (:func:`gaussian_mu`)."""
        return gaussian_mu(eps0, (n - 1) * self.clone_probability(eps0))

    def _eps0_guess(self, n: int, eps: float, delta: float) -> float | None:
        """Where the Gaussian-DP estimate reaches ``(eps, delta)``: :meth:`max_eps0` narrows its
        bracket around it (about half the profile evaluations at 10^9 users)."""
        return gaussian_eps0(lambda e0: self._gaussian_mu(n, e0), eps, delta) or None

    def delta_profile(self, n: int, eps0: float, eps: np.ndarray) -> np.ndarray:
        """Vectorized δ(ε) of the clone pair for an array of ε >= 0 (validated inputs).

        Examples
        --------
        >>> import numpy as np
        >>> from shufflelib.bounds.clones import ClonesNumerical
        >>> d = ClonesNumerical().delta_profile(10_000, 1.0, np.array([0.05, 0.1, 0.2]))
        >>> bool(np.all(np.diff(d) < 0))
        True
        """
        counts, weights = binomial_blocks(n - 1, self.clone_probability(eps0))
        return clone_pair_delta(eps, eps0, counts, weights)


def gaussian_dp_epsilon(mu: float, delta: float) -> float:
    """ε at which μ-Gaussian DP reaches ``delta`` (a heuristic starting point; 0 if not found).

    A clone pair's loss is close to Gaussian for many clones (``μ = 2 tanh(ε₀/2)/sqrt(clones)``):
    the clone-pair bounds start their root searches for ε(δ) here. Not a bound.

    Examples
    --------
    >>> round(gaussian_dp_epsilon(0.1, 1e-6), 4)
    0.3969
    >>> gaussian_dp_epsilon(0.1, 0.9)  # delta above the curve's value at eps = 0
    0.0
    """

    def log_delta(e: float) -> float:  # log(Φ(−e/μ + μ/2) − e^e Φ(−e/μ − μ/2))
        la, lb = log_ndtr(-e / mu + mu / 2.0), log_ndtr(-e / mu - mu / 2.0)
        r = e + lb - la
        return la + math.log(-math.expm1(r)) if r < 0.0 else -1e300

    log_target = math.log(delta)
    hi = mu * (mu + 40.0)  # far beyond any delta >= 1e-300
    if not (mu > 0.0 and math.isfinite(hi)) or log_delta(0.0) <= log_target or log_delta(hi) >= log_target:
        return 0.0
    return brent(lambda e: log_delta(e) - log_target, 0.0, hi, xtol=1e-12 * hi)


def gaussian_mu(eps0: float, mean_clones: float) -> float:
    """Gaussian-DP parameter of a clone pair with ``E[C] = mean_clones`` clones among the others:
    ``2 tanh(eps0/2)/sqrt(E[C] + 1)`` (the loss moves by about ``2 tanh(eps0/2)`` per clone).
    A starting point of the clone bounds' root searches, not a bound.

    Examples
    --------
    >>> round(gaussian_mu(1.0, 99.0), 6)
    0.092423
    """
    return 2.0 * math.tanh(eps0 / 2.0) / math.sqrt(mean_clones + 1.0)


def gaussian_eps0(mu_of: Callable[[float], float], eps: float, delta: float) -> float:
    """``eps0`` in ``[eps, 50]`` at which ``mu_of(eps0)``-Gaussian DP reaches ``(eps, delta)`` (a
    heuristic starting point of the largest-``eps0`` searches; 0 if not found). Not a bound.

    Examples
    --------
    >>> import math
    >>> e0 = gaussian_eps0(lambda e0: 2 * math.tanh(e0 / 2) / math.sqrt(1e4 * math.exp(-e0)), 0.3, 1e-6)
    >>> round(e0, 3)
    2.913
    """

    def gap(e0: float) -> float:
        return gaussian_dp_epsilon(mu_of(e0), delta) - eps

    try:
        return brent(gap, eps, EPS0_MAX, xtol=1e-6) if gap(eps) < 0 < gap(EPS0_MAX) else 0.0
    except (ValueError, RuntimeError):
        return 0.0


def _log_or_floor(x: float) -> float:  # read by bounds/exact.py
    return math.log(x) if x > 0 else -1e300


@fill_doc
class ClonesNumerical(ClonePairBound):
    """Feldman–McMillan–Talwar (2021), numerical bound: exact δ of the clone pair.

    Valid for every ``eps0``-LDP randomizer (clone probability ``e^{-eps0}``).
    Always ``eps <= eps0`` (the pair itself is ``eps0``-DP).

    Parameters
    ----------
    %(mechanism_generic)s %(k_unused)s

    Examples
    --------
    >>> from shufflelib.bounds import ClonesNumerical
    >>> b = ClonesNumerical()
    >>> round(b.epsilon(100_000, 4.0, 1e-6), 4)  # authors' code: between 0.1675 and 0.1728
    0.1698
    >>> b.delta(10_000, 1.0, b.epsilon(10_000, 1.0, 1e-6)) <= 1e-6
    True
    """

    name = "clones"
    title = "Feldman, McMillan, Talwar (2021), hiding among the clones (numerical)"
    reference = (
        "V. Feldman, A. McMillan, K. Talwar. Hiding among the clones: a simple and nearly optimal "
        "analysis of privacy amplification by shuffling. FOCS 2021, arXiv:2012.12803."
    )
    mechanisms = ("generic",)

    def clone_probability(self, eps0: float) -> float:
        """``e^{-eps0}``: every ``eps0``-LDP report contains a clone with this probability."""
        return math.exp(-eps0)


def fmt_epsilon(eps0: object, delta: float, n: object) -> np.ndarray:
    """Feldman, McMillan and Talwar's closed form (Theorem 3.1), vectorized, without its validity check:

    ``log(1 + tanh(eps0/2) (8 sqrt(e^{eps0} log(4/δ)/n) + 8 e^{eps0}/n))``.

    The one implementation of the formula: :class:`ClonesClosedForm` (with its validity range
    and rounding), the random-population paper's "simplified" form
    (:func:`~shufflelib.population.template.fmt_simplified`, ``n -> α n'``) and the LZX proxy
    of the personalized chapter (:func:`~shufflelib.personalized.baselines.lzx_proxy_epsilon`,
    ``n -> e^{eps0}·(expected clones)``) call it. ``n`` may be any positive real.

    Examples
    --------
    >>> round(float(fmt_epsilon(4.0, 1e-6, 100_000)), 4)
    0.5346
    """
    eps0 = np.asarray(eps0, dtype=float)
    e0 = np.exp(eps0)
    inner = 8.0 * np.sqrt(e0 * (math.log(4.0) - math.log(delta)) / n) + 8.0 * e0 / n  # no overflow of 4/delta
    return np.log1p(np.tanh(eps0 / 2.0) * inner)


@fill_doc
class ClonesClosedForm(AmplificationBound):
    """Feldman–McMillan–Talwar (2021), Theorem 3.1 (closed form).

    ``eps = log(1 + (e^{eps0} − 1)/(e^{eps0} + 1) (8 sqrt(e^{eps0} log(4/δ)/n) + 8 e^{eps0}/n))``,
    valid for ``eps0 <= log(n / (16 log(2/δ)))``; capped at ``eps0`` (the
    shuffled protocol is always ``eps0``-DP). Outside the validity range the
    questions raise :class:`~shufflelib.bounds.base.NotApplicableError`.

    Numerical tolerance: ε is rounded up by a relative ``1e-10`` and δ (the
    closed-form inverse) by ``1e-12``.

    Parameters
    ----------
    %(mechanism_generic)s %(k_unused)s

    Examples
    --------
    >>> from shufflelib.bounds.clones import ClonesClosedForm
    >>> round(ClonesClosedForm().epsilon(100_000, 4.0, 1e-6), 4)
    0.5346
    >>> ClonesClosedForm().applicable(1_000, 4.0, 1e-6)
    False
    """

    closed_form = True
    name = "clones-closed"
    title = "Feldman, McMillan, Talwar (2021), hiding among the clones (closed form)"
    reference = ClonesNumerical.reference
    mechanisms = ("generic",)

    def validity(self, n: int, eps0: float, delta: float | None = None) -> str | None:
        """``None`` if ``eps0 <= log(n / (16 log(2/delta)))``, else the reason.

        Without ``delta`` the limit ``delta -> 1`` is used (the most permissive).

        Examples
        --------
        >>> from shufflelib.bounds.clones import ClonesClosedForm
        >>> ClonesClosedForm().validity(1_000, 4.0, 1e-6)
        'requires eps0 <= log(n / (16 log(2/delta))) = 1.46, got eps0=4.0'
        """
        if delta is None:
            log_term = math.log(2.0)
        elif delta > 4.0 / sys.float_info.max:
            log_term = math.log(2.0 / delta)  # the formula as printed (bit for bit)
        else:
            log_term = math.log(2.0) - math.log(delta)  # 2/delta would overflow
        limit = math.log(n / (16.0 * log_term))
        if not eps0 <= limit:
            return f"requires eps0 <= log(n / (16 log(2/delta))) = {limit:.4g}, got eps0={eps0}"
        return None

    def _epsilon(self, n: int, eps0: float, delta: float) -> float:
        return min(float(fmt_epsilon(eps0, delta, n)) * (1.0 + _INVERSE_ROUNDING), eps0)

    def _delta(self, n: int, eps0: float, eps: float) -> float:
        """Smallest δ the theorem certifies at ``eps`` (the closed-form inverse of :meth:`_epsilon`)."""
        if eps >= eps0:
            return 0.0  # the shuffled protocol is eps0-DP
        e0 = math.exp(eps0)
        root = (math.expm1(eps) / math.tanh(eps0 / 2.0) - 8.0 * e0 / n) / 8.0  # sqrt(e0 log(4/δ) / n)
        if root <= 0.0:
            return 1.0  # no δ in the theorem's range reaches eps
        log_delta = math.log(4.0) - n * root * root / e0
        # The theorem needs log(2/δ) <= n / (16 e0): the smallest admissible δ.
        log_delta_min = math.log(2.0) - n / (16.0 * e0)
        log_delta = max(log_delta, log_delta_min)
        return min(math.exp(log_delta) * (1.0 + _ROUNDING), 1.0)


def closed_form_authors_code(n: int, eps0: float, delta: float) -> float:
    r"""The closed form as the authors' code computes it (not the printed Theorem 3.1).

    The public code of Feldman, McMillan and Talwar (``apple/ml-shuffling-amplification``,
    ``computeamplification.py``, ``closedformanalysis``) differs from the printed theorem
    (:class:`ClonesClosedForm`) in two places: the factor is
    :math:`(1 - e^{-\varepsilon_0})/(1 + e^{-\varepsilon_0 - \varepsilon_1})` with
    :math:`\varepsilon_1 = \log(1 + a + c)` instead of
    :math:`(e^{\varepsilon_0} - 1)/(e^{\varepsilon_0} + 1)` (larger, since
    :math:`\varepsilon_1 > 0`), and the validity condition has :math:`\log(4/\delta)` instead
    of :math:`\log(2/\delta)`. Here :math:`a = 8\sqrt{e^{\varepsilon_0}\log(4/\delta)/n}` and
    :math:`c = 8e^{\varepsilon_0}/n` as in the theorem. Written from the formula, for
    comparison only: the library's bound is :class:`ClonesClosedForm`.

    Raises
    ------
    NotApplicableError
        If ``eps0 > log(n / (16 log(4/delta)))``.

    Examples
    --------
    >>> round(closed_form_authors_code(100_000, 4.0, 1e-6), 6)
    0.537804
    """
    n = check_int("n", n, minimum=2)
    eps0 = check_positive("eps0", eps0)
    delta = check_probability("delta", delta)
    log_term = math.log(4.0 / delta) if delta > 4.0 / sys.float_info.max else math.log(4.0) - math.log(delta)
    limit = math.log(n / (16.0 * log_term))
    if not eps0 <= limit:
        raise NotApplicableError(f"requires eps0 <= log(n / (16 log(4/delta))) = {limit:.4g}, got eps0={eps0}")
    e0 = math.exp(eps0)
    inner = 8.0 * math.sqrt(e0 * log_term / n) + 8.0 * e0 / n
    eps1 = math.log1p(inner)
    factor = -math.expm1(-eps0) / (1.0 + math.exp(-eps0 - eps1))
    return math.log1p(factor * inner)
