r"""Amplification bounds for a random population, each answering the three questions.

A :class:`PopulationBound` is built for one population (a law of the number
``N − 1`` of other participants, or a partial description of it) and one
dummy policy; it then answers, like every bound of :mod:`shufflelib.bounds`,

* :meth:`~PopulationBound.epsilon` — the central ε of user 1 for ``(eps0, delta)``,
* :meth:`~PopulationBound.delta` — the central δ for ``(eps0, eps)``,
* :meth:`~PopulationBound.max_eps0` — the largest local ``eps0`` reaching ``(eps, delta)``,

and :meth:`~PopulationBound.max_local_eps`, the paper's ``A(k)``: the local
budget a protocol may use for a target ``eps_c`` (never below ``eps_c``, which
needs no amplification at all).

The closed forms of Theorems 1–4 of Wang et al. (IEEE TPDS 2023) are
:class:`TemplateBound` subclasses (see :mod:`shufflelib.population.template`);
every one is capped at ``eps0`` (the clone pair is ``eps0``-DP whatever the
population), rounded up by a relative ``1e-12``, and raises
:class:`~shufflelib.bounds.base.NotApplicableError` when its ``Omega <= 2 log(4/delta)``.
The tight numerical bound and the exact lower bound are in
:mod:`shufflelib.population.tight`.

Examples
--------
>>> from shufflelib.population.laws import BinomialPopulation
>>> from shufflelib.population.bounds import BinomialTheorem
>>> thm1 = BinomialTheorem(BinomialPopulation(48_842, 0.2))
>>> round(thm1.epsilon(1.0, 1e-5), 5)
0.08725
>>> round(thm1.max_eps0(0.1, 1e-5), 4)  # the paper's A(0) for eps_c = 0.1
1.1034
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

from .._docstrings import fill_doc
from .._validation import (
    N_MAX,
    check_choice,
    check_eps0,
    check_int,
    check_nonnegative,
    check_positive,
    check_probability,
)
from ..bounds.base import NotApplicableError, delta_from_epsilon, largest_eps0
from ..bounds.privacy_loss import PrivacyLoss
from ..curves import invert_profile
from .laws import (
    BinomialPopulation,
    MeanVariance,
    PoissonPopulation,
    PopulationLaw,
    SubExponentialTail,
    SubGaussianTail,
)
from .template import (
    BUDGETS,
    CHEBYSHEV_FORMS,
    POISSON_FORMS,
    log_over,
    master_epsilon,
    omega_binomial,
    omega_clone_binomial,
    omega_mean_variance,
    omega_poisson,
    omega_subexponential,
    omega_subgaussian,
    subexponential_floor,
    subgaussian_floor,
)

__all__ = [
    "PopulationBound",
    "TemplateBound",
    "BinomialTheorem",
    "PoissonTheorem",
    "MeanVarianceTheorem",
    "SubGaussianTheorem",
    "SubExponentialTheorem",
    "AdaptiveTheorem",
    "WANG_2023",
]

#: The paper every bound of this subpackage comes from.
WANG_2023 = (
    "S. Wang, X. Luo, Y. Qian, Y. Zhu, K. Chen, Q. Chen, B. Xin, W. Yang. Shuffle differential "
    "private data aggregation for random population. IEEE TPDS 34(5), 2023, doi:10.1109/TPDS.2023.3247541."
)
#: Relative margin by which closed forms are rounded up.
_ROUNDING = 1e-12


class PopulationBound(ABC):
    """Base class: an upper bound on user 1's central privacy when the population is random.

    A subclass overrides either ``_epsilon`` (a closed form, decreasing in
    ``delta``) or ``_delta`` (a privacy profile, decreasing in ``eps``; it may also override
    ``_epsilon`` with a faster search), and may override :meth:`validity`. The inversions are
    the library's (:func:`~shufflelib.curves.invert_profile`,
    :func:`~shufflelib.bounds.base.delta_from_epsilon`,
    :func:`~shufflelib.bounds.base.largest_eps0`): certified root finding rounding ε and δ up
    and ``eps0`` down — ε and δ down for a lower bound (:attr:`upper` false).

    Examples
    --------
    The three questions, through the concrete :class:`BinomialTheorem`:

    >>> from shufflelib.population.laws import BinomialPopulation
    >>> thm1 = BinomialTheorem(BinomialPopulation(5001, 0.2))
    >>> isinstance(thm1, PopulationBound)
    True
    >>> eps = thm1.epsilon(1.0, 1e-5)
    >>> round(eps, 4), round(thm1.delta(1.0, eps), 10), thm1.delta(1.0, 1.0)  # round trip; 0 at eps0
    (0.3679, 1e-05, 0.0)
    >>> round(thm1.max_eps0(0.1, 1e-5), 4)  # the local budget reaching (0.1, 1e-5)
    0.3711
    """

    #: Short name (command line ``--bound``).
    name: ClassVar[str] = ""
    #: Human-readable title.
    title: ClassVar[str] = ""
    #: Bibliographic reference.
    reference: ClassVar[str] = WANG_2023

    #: True for an upper bound on user 1's privacy loss (rounded up), False for a lower bound.
    upper: ClassVar[bool] = True

    def _epsilon(self, eps0: float, delta: float) -> float:
        """ε(δ) for validated inputs: closed-form bounds override this; default: invert ``_delta``."""
        return invert_profile(lambda e: self._delta_checked(eps0, e), delta, hi=eps0, upper=self.upper, cap=1e6)

    def _delta(self, eps0: float, eps: float) -> float:
        """δ(ε) for validated inputs (profile bounds override this)."""
        raise NotImplementedError

    def validity(self, eps0: float, delta: float | None = None) -> str | None:
        """``None`` if the theorem covers ``(eps0, delta)``, else the reason it does not."""
        return None

    def applicable(self, eps0: float, delta: float | None = None) -> bool:
        """Whether the theorem covers ``(eps0[, delta])``."""
        return self.validity(eps0, delta) is None

    def soundness(self, **params: object) -> str | None:
        """``None`` for a valid bound, else why the value may not bound the true privacy.

        The shape of :meth:`shufflelib.bounds.base.AmplificationBound.soundness`.

        Examples
        --------
        >>> from shufflelib.population.laws import PoissonPopulation
        >>> PoissonTheorem(PoissonPopulation(5000)).soundness() is None
        True
        """
        return None

    @property
    def sound(self) -> bool:
        """Whether the library holds this bound valid (``soundness()`` is ``None``)."""
        return self.soundness() is None

    def privacy_loss(self) -> PrivacyLoss:
        """One round's privacy loss, as composition reads it (:mod:`~shufflelib.bounds.privacy_loss`):
        the bound's profile in ``eps0``, point by point, or (a closed form ε(δ)) no profile, its ε
        sampled in δ instead; an upper or a lower bound as :attr:`upper` says.

        Examples
        --------
        >>> from shufflelib.population.laws import PoissonPopulation
        >>> loss = PoissonTheorem(PoissonPopulation(5000)).privacy_loss()
        >>> loss.form, loss.upper, loss.profile is None
        ('profile', True, True)
        """
        closed = type(self)._delta is PopulationBound._delta  # a closed form ε(δ): sampled in δ
        return PrivacyLoss(
            "profile",
            self.upper,
            epsilon=self.epsilon,
            largest=self.max_eps0,
            profile=None if closed else (lambda eps0: lambda e: np.array([self.delta(eps0, float(x)) for x in e])),
        )

    def _require(self, eps0: float, delta: float | None = None) -> None:
        reason = self.validity(eps0, delta)
        if reason is not None:
            raise NotApplicableError(f"{self.name} bound not applicable: {reason}")

    def _delta_checked(self, eps0: float, eps: float) -> float:
        d = float(self._delta(eps0, eps))
        if math.isnan(d):
            raise RuntimeError(f"{self.name}: delta evaluated to NaN at eps0={eps0}, eps={eps}")
        return min(max(d, 0.0), 1.0)

    def _epsilon_valid(self, eps0: float, delta: float) -> float:
        return math.inf if self.validity(eps0, delta) is not None else self._epsilon(eps0, delta)

    @fill_doc
    def epsilon(self, eps0: float, delta: float) -> float:
        """User 1's central ε for local ``eps0`` and central ``delta`` (rounded up).

        Parameters
        ----------
        %(eps0)s %(delta)s

        Raises
        ------
        NotApplicableError
            If the theorem does not cover these parameters.
        """
        eps0 = check_eps0(eps0)
        delta = check_probability("delta", delta)
        self._require(eps0, delta)
        eps = float(self._epsilon(eps0, delta))
        if math.isnan(eps):
            raise RuntimeError(f"{self.name}: epsilon evaluated to NaN at eps0={eps0}, delta={delta}")
        return max(eps, 0.0)

    @fill_doc
    def delta(self, eps0: float, eps: float) -> float:
        """User 1's central δ for local ``eps0`` and central ``eps`` (rounded up; 0 for ``eps >= eps0``).

        Parameters
        ----------
        %(eps0)s %(eps)s
        """
        eps0 = check_eps0(eps0)
        if check_nonnegative("eps", eps) >= eps0:
            return 0.0
        self._require(eps0)
        if type(self)._delta is not PopulationBound._delta:
            return self._delta_checked(eps0, eps)
        return delta_from_epsilon(lambda d: self._epsilon_valid(eps0, d), eps)

    def max_eps0(self, eps: float, delta: float) -> float:
        """Largest local ``eps0`` (in ``(0, 50]``) for which the bound certifies ``(eps, delta)`` (rounded down).

        Raises
        ------
        NotApplicableError
            If no ``eps0`` in the theorem's validity range reaches the target.
        """
        eps = check_positive("eps", eps)
        delta = check_probability("delta", delta)
        return largest_eps0(lambda e0: self._epsilon_valid(e0, delta), eps, delta, self.name)

    def max_local_eps(self, eps: float, delta: float) -> float:
        """The paper's ``A``: ``max(eps, max_eps0(eps, delta))``, or ``eps`` if the theorem does not apply.

        A local budget of ``eps`` is ``(eps, 0)``-DP without any amplification,
        so it is always allowed.

        Examples
        --------
        >>> from shufflelib.population.laws import BinomialPopulation
        >>> thm1 = BinomialTheorem(BinomialPopulation(100, 0.2))  # too few users for Theorem 1
        >>> thm1.max_local_eps(0.1, 1e-5)
        0.1
        """
        eps = check_positive("eps", eps)
        try:
            return max(eps, self.max_eps0(eps, delta))
        except NotApplicableError:
            return eps

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._describe()})"

    def _describe(self) -> str:
        return ""


class TemplateBound(PopulationBound):
    """A bound from the template: ``Omega`` with ``Pr[C < Omega] <= delta/2``, then Hoeffding.

    Subclasses implement :meth:`omega`. ``epsilon = min(master(Omega), eps0)``,
    rounded up by a relative ``1e-12``.

    Examples
    --------
    Through the concrete :class:`BinomialTheorem`: ``Omega`` shrinks as ``eps0``
    grows (fewer clones), and ε is the master formula at ``Omega``:

    >>> import numpy as np
    >>> from shufflelib.population.laws import BinomialPopulation
    >>> from shufflelib.population.template import master_epsilon
    >>> thm1 = BinomialTheorem(BinomialPopulation(5001, 0.2))
    >>> thm1.omega(np.array([0.5, 1.0, 2.0]), 1e-5).round(2).tolist()
    [453.43, 248.63, 62.99]
    >>> omega = float(thm1.omega(1.0, 1e-5))
    >>> bool(abs(thm1.epsilon(1.0, 1e-5) - float(master_epsilon(omega, 1.0, 1e-5))) < 1e-9)
    True
    >>> thm1.applicable(10.0, 1e-5)  # Omega <= 2 log(4/delta): too few clones
    False
    """

    @abstractmethod
    def omega(self, eps0: object, delta: float) -> np.ndarray:
        """The ``(1 − delta/2)`` lower bound on the number of clones (vectorized over ``eps0``)."""

    def validity(self, eps0: float, delta: float | None = None) -> str | None:
        """``None`` if ``Omega > 2 log(4/delta)``, else the reason (``None`` when ``delta`` is not given).

        Examples
        --------
        >>> from shufflelib.population.laws import BinomialPopulation
        >>> BinomialTheorem(BinomialPopulation(100, 0.2)).validity(1.0, 1e-5)[:30]
        'requires Omega > 2 log(4/delta'
        """
        if delta is None:
            return None
        omega = float(self.omega(eps0, delta))
        need = 2.0 * log_over(4.0, delta)
        if not omega > need:
            got = f"Omega = {omega:.4g}" if math.isfinite(omega) else "no participant left by the tail bound"
            return f"requires Omega > 2 log(4/delta) = {need:.4g}, got {got} (eps0={eps0})"
        return None

    def _epsilon(self, eps0: float, delta: float) -> float:
        eps = float(master_epsilon(self.omega(eps0, delta), eps0, delta))
        return min(eps * (1.0 + _ROUNDING), eps0)


def _check_dummies(dummies: int) -> int:
    return check_int("dummies", dummies, minimum=0, maximum=N_MAX)


class BinomialTheorem(TemplateBound):
    """Theorem 1 (``dummies = 0``) and Theorem 4(a): binomial participation, ``k`` non-adaptive dummies.

    Parameters
    ----------
    law
        A :class:`~shufflelib.population.laws.BinomialPopulation` (``n'``, ``alpha``).
    dummies
        Number ``k`` of dummy reports added by the shuffler (an integer >= 0).

    Examples
    --------
    >>> from shufflelib.population.laws import BinomialPopulation
    >>> law = BinomialPopulation(5001, 0.2)
    >>> BinomialTheorem(law, dummies=2000).epsilon(1.0, 1e-5) < BinomialTheorem(law).epsilon(1.0, 1e-5)
    True
    """

    name = "pop-binomial"
    title = "Wang et al. (2023), Theorem 1 / 4(a): binomial population (Chernoff on the clones)"

    def __init__(self, law: BinomialPopulation, dummies: int = 0) -> None:
        if not isinstance(law, BinomialPopulation):
            raise ValueError(f"law must be a BinomialPopulation, got {type(law).__name__}")
        self.law = law
        self.dummies = _check_dummies(dummies)

    def _describe(self) -> str:
        return f"{self.law!r}, dummies={self.dummies}"

    def omega(self, eps0: object, delta: float) -> np.ndarray:
        return omega_binomial(eps0, delta, self.law.n_prime, self.law.alpha, self.dummies)


@fill_doc
class PoissonTheorem(TemplateBound):
    """Theorem 2 (``dummies = 0``) and Theorem 4(b): Poisson population, ``k`` non-adaptive dummies.

    Parameters
    ----------
    law
        A :class:`~shufflelib.population.laws.PoissonPopulation`.
    %(dummies)s
    form
        ``"chernoff"`` (Theorem 2's tail, extended to dummies) or ``"paper"``
        (Theorem 4(b) as printed); default: Theorem 2 for ``k = 0`` and
        Theorem 4(b) for ``k > 0``, as in the paper.

    Examples
    --------
    >>> from shufflelib.population.laws import PoissonPopulation
    >>> round(PoissonTheorem(PoissonPopulation(5000)).epsilon(1.0, 1e-5), 5)
    0.12555
    """

    name = "pop-poisson"
    title = "Wang et al. (2023), Theorem 2 / 4(b): Poisson population"

    def __init__(self, law: PoissonPopulation, dummies: int = 0, form: str | None = None) -> None:
        if not isinstance(law, PoissonPopulation):
            raise ValueError(f"law must be a PoissonPopulation, got {type(law).__name__}")
        self.law = law
        self.dummies = _check_dummies(dummies)
        if form is None:
            form = "chernoff" if self.dummies == 0 else "paper"
        check_choice("form", form, POISSON_FORMS)
        self.form = form

    def _describe(self) -> str:
        return f"{self.law!r}, dummies={self.dummies}, form={self.form!r}"

    def omega(self, eps0: object, delta: float) -> np.ndarray:
        return omega_poisson(eps0, delta, self.law.lam, self.dummies, self.form)


def _as_moments(population: MeanVariance | PopulationLaw) -> MeanVariance:
    if isinstance(population, MeanVariance):
        return population
    if isinstance(population, PopulationLaw):
        return population.moments()
    raise ValueError(f"population must be a MeanVariance or a PopulationLaw, got {type(population).__name__}")


class MeanVarianceTheorem(TemplateBound):
    """Theorem 3 (``dummies = 0``) and Theorem 4(e): only the mean and variance of ``N − 1`` are known.

    Parameters
    ----------
    population
        A :class:`~shufflelib.population.laws.MeanVariance` or any law (its moments are used).
    dummies
        Number ``k`` of non-adaptive dummy reports (an integer >= 0).
    form
        ``"chebyshev"`` (the paper) or ``"cantelli"`` (one-sided, slightly tighter).

    Examples
    --------
    >>> from shufflelib.population.laws import MeanVariance
    >>> thm3 = MeanVarianceTheorem(MeanVariance(5000, 2000))
    >>> round(thm3.epsilon(0.5, 1e-3), 4)
    0.0679
    """

    name = "pop-meanvar"
    title = "Wang et al. (2023), Theorem 3 / 4(e): known mean and variance (Chebyshev)"

    def __init__(self, population: MeanVariance | PopulationLaw, dummies: int = 0, form: str = "chebyshev") -> None:
        self.moments = _as_moments(population)
        self.dummies = _check_dummies(dummies)
        check_choice("form", form, CHEBYSHEV_FORMS)
        self.form = form

    def _describe(self) -> str:
        return f"{self.moments!r}, dummies={self.dummies}, form={self.form!r}"

    def omega(self, eps0: object, delta: float) -> np.ndarray:
        m = self.moments
        return omega_mean_variance(eps0, delta, m.mean, m.variance, self.dummies, self.form)


class _TwoStageTheorem(TemplateBound):
    """Theorem 4(c)/(d): a lower tail of ``N − 1`` at ``delta/4``, then Chernoff on the clones."""

    #: The tail assumption the theorem takes (each subclass's own).
    tail_type: type

    def __init__(self, tail: SubGaussianTail | SubExponentialTail, dummies: int = 0, budget: str = "paper") -> None:
        if not isinstance(tail, self.tail_type):
            raise ValueError(f"tail must be a {self.tail_type.__name__}, got {type(tail).__name__}")
        self.tail = tail
        self.dummies = _check_dummies(dummies)
        check_choice("budget", budget, BUDGETS)
        self.budget = budget

    def _describe(self) -> str:
        return f"{self.tail!r}, dummies={self.dummies}, budget={self.budget!r}"

    @abstractmethod
    def floor(self, delta: float) -> float:
        """The first stage's bound ``nu``: ``Pr[N − 1 + k < nu] <= delta/4`` under the tail assumption."""

    def total_budget(self) -> float:
        """The δ the proof actually spends, as a multiple of the stated δ (5/4 for the paper's budget).

        Examples
        --------
        >>> SubGaussianTheorem(SubGaussianTail(5000, 50)).total_budget()
        1.25
        """
        return 1.25 if self.budget == "paper" else 1.0

    def soundness(self, **params: object) -> str | None:
        """``None`` with the corrected budget; with the paper's, why the value may not be valid.

        Examples
        --------
        >>> SubGaussianTheorem(SubGaussianTail(5000, 50), budget="corrected").soundness() is None
        True
        >>> SubGaussianTheorem(SubGaussianTail(5000, 50)).soundness()[:40]
        'not a valid bound for the stated delta: '
        """
        if self.budget != "paper":
            return None
        return (
            "not a valid bound for the stated delta: Theorem 4(c)/(d) as printed spends 5 delta/4 "
            "(a proved (eps, 1.25 delta) guarantee); the corrected budget is valid "
            "(--budget corrected; budget='corrected' in Python)"
        )


@fill_doc
class SubGaussianTheorem(_TwoStageTheorem):
    """Theorem 4(c): ``Pr[N − 1 <= mean − t] <= exp(−t^2/tau^2)``, ``k`` non-adaptive dummies.

    With ``budget="paper"`` the proof spends ``5 delta/4`` in total (see
    :func:`~shufflelib.population.template.omega_subgaussian`); ``"corrected"``
    spends ``delta``.

    Parameters
    ----------
    tail
        A :class:`~shufflelib.population.laws.SubGaussianTail`.
    %(dummies)s
    budget
        ``"paper"`` or ``"corrected"``.

    Examples
    --------
    >>> round(SubGaussianTheorem(SubGaussianTail(5000, 50)).epsilon(1.0, 1e-5), 5)
    0.12822
    """

    name = "pop-subgaussian"
    title = "Wang et al. (2023), Theorem 4(c): sub-Gaussian population"

    tail_type = SubGaussianTail

    def omega(self, eps0: object, delta: float) -> np.ndarray:
        return omega_subgaussian(eps0, delta, self.tail.mean, self.tail.tau, self.dummies, self.budget)

    def floor(self, delta: float) -> float:
        return subgaussian_floor(delta, self.tail.mean, self.tail.tau, self.dummies)


@fill_doc
class SubExponentialTheorem(_TwoStageTheorem):
    """Theorem 4(d): ``Pr[N − 1 <= mean − t] <= a exp(−b t)``, ``k`` non-adaptive dummies.

    Parameters
    ----------
    tail
        A :class:`~shufflelib.population.laws.SubExponentialTail`.
    %(dummies)s
    budget
        ``"paper"`` (total ``5 delta/4``) or ``"corrected"`` (total ``delta``).

    Examples
    --------
    >>> round(SubExponentialTheorem(SubExponentialTail(5000, 2, 0.05)).epsilon(1.0, 1e-5), 5)
    0.12966
    """

    name = "pop-subexp"
    title = "Wang et al. (2023), Theorem 4(d): sub-exponential population"

    tail_type = SubExponentialTail

    def omega(self, eps0: object, delta: float) -> np.ndarray:
        t = self.tail
        return omega_subexponential(eps0, delta, t.mean, t.a, t.b, self.dummies, self.budget)

    def floor(self, delta: float) -> float:
        t = self.tail
        return subexponential_floor(delta, t.mean, t.a, t.b, self.dummies)


class AdaptiveTheorem(TemplateBound):
    """Adaptive dummies (pad the shuffled batch to ``pad_to`` messages): a reconstruction.

    The paper defers this bound to a supplement that is not published. Padding
    to ``k`` messages leaves user 1 among at least ``k − 1`` other reports and
    never removes one, so the clone count dominates both the no-dummy count and
    ``Bin(k − 1, e^{-eps0})``; hence ``Omega = max(Omega_0, Omega_k)`` is a
    valid ``(1 − delta/2)`` lower bound (``Omega_0`` from the no-dummy theorem,
    ``Omega_k`` from Chernoff).

    Parameters
    ----------
    base
        The theorem for the population without dummies (a :class:`TemplateBound` with ``dummies = 0``).
    pad_to
        The threshold ``k`` (an integer >= 0): the shuffler adds ``max(k − N, 0)`` dummies.

    Examples
    --------
    >>> from shufflelib.population.laws import BinomialPopulation
    >>> base = BinomialTheorem(BinomialPopulation(5001, 0.2))
    >>> AdaptiveTheorem(base, pad_to=500).epsilon(1.0, 1e-5) == base.epsilon(1.0, 1e-5)
    True
    """

    name = "pop-adaptive"
    title = "Adaptive dummies (reconstruction): max of the no-dummy theorem and the padding guarantee"

    def __init__(self, base: TemplateBound, pad_to: int) -> None:
        if not isinstance(base, TemplateBound) or getattr(base, "dummies", 0) != 0:
            raise ValueError("base must be a TemplateBound without dummies (dummies=0)")
        self.base = base
        self.pad_to = check_int("pad_to", pad_to, minimum=0)
        self.name = base.name  # messages name the bound the user chose, padded

    def soundness(self, **params: object) -> str | None:
        """The base theorem's (padding adds a guarantee, never a flaw)."""
        return self.base.soundness(**params)

    def _describe(self) -> str:
        return f"{self.base!r}, pad_to={self.pad_to}"

    def omega(self, eps0: object, delta: float) -> np.ndarray:
        padded = omega_clone_binomial(eps0, delta, max(self.pad_to - 1, 0))
        return np.maximum(self.base.omega(eps0, delta), padded)
