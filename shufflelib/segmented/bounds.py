r"""The two bounds on the privacy of one user of the segmented protocol (Algorithm 2), by name.

A user holds ``s`` items and reports with probability ``λ``; ``n`` users each add ``m`` blanket
messages on average, over ``d`` items. Each bound is one accounting of
:func:`~shufflelib.segmented.optimize.user_curve` (one item's curve, then group privacy over the
``s`` items):

* :class:`SegmentedThm3` (``segmented-thm3``) — Theorem 3 as printed (the paper's pair, then group
  privacy), not sound for ``λ < 1``;
* :class:`SegmentedExact` (``segmented-exact``) — the exact single-item curve, which also counts
  what the number of messages reveals, then group privacy (sound).

Each answers the user's curve at ``λ`` (:meth:`SegmentedBound.curve`), the largest ``λ`` reaching
``(ε, δ)`` (:meth:`SegmentedBound.max_lam`) and, for composition, one round's privacy loss as a
function of ``λ`` (:meth:`SegmentedBound.privacy_loss`, the protocol of
:mod:`~shufflelib.bounds.privacy_loss`). :data:`SEGMENTED_BOUNDS` lists them by command-line name
(the calculator's family, :mod:`~shufflelib.calculator.segmented`).

Examples
--------
>>> curve = SegmentedExact.curve(5000, 1.5, 17, 4, 0.5)
>>> 0.4 < curve.epsilon(2e-6) < 0.6
True
>>> sorted(SEGMENTED_BOUNDS)
['segmented-exact', 'segmented-thm3']
"""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

from ..bounds.privacy_loss import PrivacyLoss, costly_profile_seconds
from ..curves import PrivacyCurve

__all__ = ["SegmentedBound", "SegmentedThm3", "SegmentedExact", "SEGMENTED_BOUNDS"]


class SegmentedBound:
    """One accounting of a segmented user's privacy (:func:`~shufflelib.segmented.optimize.user_curve`).

    Used as a class (the calculator's registry holds classes): every method is a class method.
    ``group`` is the group-privacy form (:data:`~shufflelib.segmented.group.GROUP_FORMS`),
    ``gamma_max`` the cap on a blanket slot's sending probability
    (:func:`~shufflelib.segmented.optimize.slots_for`).

    Examples
    --------
    >>> SegmentedThm3.name, SegmentedThm3.accounting
    ('segmented-thm3', 'theorem3')
    """

    #: Command-line name.
    name: ClassVar[str] = ""
    #: The accounting of one item (:data:`~shufflelib.segmented.optimize.ACCOUNTINGS`).
    accounting: ClassVar[str] = ""
    #: Human-readable title.
    title: ClassVar[str] = ""
    #: Bibliographic reference.
    reference: ClassVar[str] = ""

    @classmethod
    def soundness(cls, lam: float = 1.0, **params: object) -> str | None:
        """``None`` for a valid bound at ``lam``, else why it is not (the shape of
        :meth:`shufflelib.bounds.base.AmplificationBound.soundness`)."""
        return None

    @classmethod
    def curve(
        cls, n: int, m: float, d: int, s: int, lam: float, *, group: str = "paper", gamma_max: float = 1.0
    ) -> PrivacyCurve:
        """The user's privacy curve at reporting probability ``lam``.

        Examples
        --------
        >>> 0.4 < SegmentedThm3.curve(5000, 1.5, 17, 4, 0.5).epsilon(2e-6) < 0.6
        True
        """
        from .optimize import user_curve

        return user_curve(n, m, d, s, lam, accounting=cls.accounting, group=group, gamma_max=gamma_max)

    @classmethod
    def max_lam(
        cls, n: int, m: float, d: int, s: int, eps: float, delta: float, *, group: str = "paper", gamma_max: float = 1.0
    ) -> float:
        """The largest reporting probability whose user is ``(eps, delta)``-DP (rounded down,
        :func:`~shufflelib.segmented.optimize.max_reporting_probability`).

        Examples
        --------
        >>> 0 < SegmentedExact.max_lam(5000, 2, 17, 4, 1.0, 2e-6) <= 1
        True
        """
        from .optimize import max_reporting_probability

        found = max_reporting_probability(
            n, m, d, s, eps, delta, accounting=cls.accounting, group=group, gamma_max=gamma_max
        )
        return float(found)

    @classmethod
    def privacy_loss(
        cls, n: int, m: float, d: int, s: int, *, group: str = "paper", gamma_max: float = 1.0
    ) -> PrivacyLoss:
        """One round's privacy loss as a function of ``λ``, as composition reads it: the user's profile.

        Each round's curve is the coarser one of a composed round
        (:data:`~shufflelib.segmented.optimize.COMPOSED_ENVELOPE_POINTS`,
        :data:`~shufflelib.segmented.optimize.COMPOSED_RESOLUTIONS`; still valid). ``λ`` is no ε:
        no pure-DP cap (``pure`` false), and the largest ``λ`` is 1 (``top``).

        Examples
        --------
        >>> loss = SegmentedExact.privacy_loss(5000, 1.5, 17, 4)
        >>> loss.form, loss.pure, loss.top
        ('profile', False, 1.0)
        """
        from .optimize import COMPOSED_ENVELOPE_POINTS, COMPOSED_RESOLUTIONS, user_curve

        options = {"accounting": cls.accounting, "group": group, "gamma_max": gamma_max}

        @lru_cache(maxsize=8)  # one curve per λ: its profile, ε and the baselines' ε read the same
        def curve(lam: float) -> PrivacyCurve:
            return user_curve(
                n, m, d, s, lam, points=COMPOSED_ENVELOPE_POINTS, resolutions=COMPOSED_RESOLUTIONS, **options
            )

        return PrivacyLoss(
            "profile",
            True,
            epsilon=lambda lam, delta: float(curve(lam).epsilon(delta)),
            largest=lambda eps, delta: cls.max_lam(n, m, d, s, eps, delta, group=group, gamma_max=gamma_max),
            profile=lambda lam: curve(lam).delta,
            pure=False,
            top=1.0,
            build_seconds=costly_profile_seconds(n),  # each λ's profile is an exact item curve
        )


class SegmentedThm3(SegmentedBound):
    """Theorem 3 as printed: Lemma 3's pair with ``n·⌈m⌉ − 1`` blanket slots, then group privacy.

    Examples
    --------
    >>> SegmentedThm3.name, SegmentedThm3.accounting
    ('segmented-thm3', 'theorem3')
    """

    name = "segmented-thm3"
    accounting = "theorem3"
    title = "Segmented shuffle protocol (Wang et al.), Theorem 3 as printed: not sound for lam < 1"
    reference = "S. Wang et al., Segmented Private Data Aggregation in the Multi-message Shuffle Model."

    @classmethod
    def soundness(cls, lam: float = 1.0, **params: object) -> str | None:
        """``None`` when ``lam == 1``; for ``lam < 1`` why Theorem 3 is not a valid bound.

        Examples
        --------
        >>> SegmentedThm3.soundness(lam=1.0) is None
        True
        >>> SegmentedThm3.soundness(lam=0.5)[:30]
        'not a valid bound for lam < 1:'
        """
        if lam >= 1.0:
            return None
        return (
            "not a valid bound for lam < 1: Theorem 3 ignores the total number of messages, "
            "which shows whether the user reported (see the segmented chapter's erratum)"
        )


class SegmentedExact(SegmentedBound):
    """The exact single-item curve (total message count included), then group privacy.

    Its :meth:`~SegmentedBound.soundness` is always ``None``: the exact item curve (rounded up) and group privacy
    are valid.

    Examples
    --------
    >>> SegmentedExact.name, SegmentedExact.accounting, SegmentedExact.soundness(lam=0.5)
    ('segmented-exact', 'exact', None)
    """

    name = "segmented-exact"
    accounting = "exact"
    title = "Segmented shuffle protocol: exact single-item privacy (counts the number of messages), then group privacy"
    reference = "shuffle-dp-book, chapter 'Segmented private data aggregation'."


#: The segmented bounds by command-line name.
SEGMENTED_BOUNDS: dict[str, type[SegmentedBound]] = {cls.name: cls for cls in (SegmentedThm3, SegmentedExact)}
