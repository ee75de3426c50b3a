r"""The segmented protocol in the privacy calculator (``python -m shufflelib``).

Two bounds on the privacy of one user of Algorithm 2 (``s`` items, reporting probability
``λ``, ``m`` blanket messages per user, ``n`` users, ``d`` items):

* ``segmented-thm3`` — Theorem 3 as printed (the paper's pair, then group privacy);
* ``segmented-exact`` — the exact single-item curve, which also counts what the number of
  messages reveals, then group privacy (sound).

Examples::

    python -m shufflelib epsilon --bound segmented-exact --n 5000 --m 1.5 --d 17 --s 4 --lam 0.5 --delta 2e-6
    python -m shufflelib delta --bound segmented-thm3 --n 5000 --m 2 --d 17 --s 4 --lam 0.5 --eps 0.5

The ``eps0`` question does not apply (the Poisson randomizer has no local ε); the message
gives the largest reporting probability ``λ`` instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..bounds.base import NotApplicableError
from .group import GROUP_FORMS
from .optimize import check_user, max_reporting_probability, slots_for, user_curve

__all__ = ["SegmentedFamily", "SegmentedThm3", "SegmentedExact"]


class SegmentedThm3:
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


class SegmentedExact:
    """The exact single-item curve (total message count included), then group privacy.

    Examples
    --------
    >>> SegmentedExact.name, SegmentedExact.accounting
    ('segmented-exact', 'exact')
    """

    name = "segmented-exact"
    accounting = "exact"
    title = "Segmented shuffle protocol: exact single-item privacy (counts the number of messages), then group privacy"
    reference = "shuffle-dp-book, chapter 'Segmented private data aggregation'."


def _number(name: str, text: str | None) -> float:
    try:
        return float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {text!r}") from None


def _integer(name: str, text: str | None) -> int:
    value = _number(name, text)
    if not value.is_integer():
        raise ValueError(f"{name} must be an integer, got {text!r}")
    return int(value)


class SegmentedFamily:
    """Calculator family of the segmented protocol.

    It implements the protocol of :class:`shufflelib.__main__.Family` (``bounds``,
    ``arguments``, ``answer``, ``describe``) without inheriting from it: ``shufflelib.__main__``
    imports this module to register it and, under ``python -m shufflelib``, runs as
    ``__main__``, so importing it back at import time would be circular (``Argument`` is
    imported at call time instead).

    Examples
    --------
    >>> from shufflelib.__main__ import QUESTIONS
    >>> fam = SegmentedFamily()
    >>> values = {"n": "5000", "m": "1.5", "d": "17", "s": "4", "lam": "0.5", "delta": "2e-6",
    ...           "slots": None, "group": None}
    >>> record = fam.answer(QUESTIONS[0], "segmented-thm3", values)
    >>> 0.4 < record["eps"] < 0.6
    True
    """

    bounds: Mapping[str, type] = {cls.name: cls for cls in (SegmentedThm3, SegmentedExact)}

    def arguments(self, question: Any) -> tuple[Any, ...]:
        from ..__main__ import Argument

        extra = {"epsilon": ("--delta", "central delta, in (0, 1)", "DELTA"),
                 "delta": ("--eps", "central epsilon (>= 0)", "EPS"),
                 "eps0": ("--eps", "target central epsilon (> 0)", "EPS")}[question.command]
        args = [
            Argument("--n", "number of users (an integer >= 2)", "N"),
            Argument("--m", "expected blanket messages per user (> 0)", "M"),
            Argument("--d", "number of items (an integer >= 3)", "D"),
            Argument("--s", "items per user (an integer >= 1)", "S"),
        ]
        if question.command != "eps0":
            args.append(Argument("--lam", "reporting probability of the user's level, in [0, 1]", "LAM"))
        else:
            args.append(Argument("--delta", "central delta, in (0, 1)", "DELTA"))
        args.append(Argument(*extra))
        args.append(Argument("--slots", "blanket slots per user (default ceil(m))", "SLOTS", required=False))
        args.append(Argument("--group", "group-privacy form (default paper)", required=False, choices=GROUP_FORMS))
        return tuple(args)

    def answer(self, question: Any, bound: str, values: Mapping[str, str | None]) -> dict[str, Any]:
        cls = self.bounds[bound]
        n = _integer("n", values["n"])
        m = _number("m", values["m"])
        d = _integer("d", values["d"])
        s = _integer("s", values["s"])
        n, m, d, s = check_user(n, m, d, s)
        group = values.get("group") or "paper"
        slots = None if values.get("slots") is None else _integer("slots", values["slots"])
        gamma_max = 1.0 if slots is None else min(1.0, m / max(slots, 1))
        if slots is not None and slots_for(m, gamma_max) != slots:
            raise ValueError(f"slots must be an integer >= m = {m!r}, got {slots!r}")
        record: dict[str, Any] = {"bound": bound, "n": n, "m": m, "d": d, "s": s, "group": group, "slots": slots}
        if question.command == "eps0":
            eps = _number("eps", values["eps"])
            delta = _number("delta", values["delta"])
            lam = max_reporting_probability(
                n, m, d, s, eps, delta, accounting=cls.accounting, group=group, gamma_max=gamma_max
            )
            raise NotApplicableError(
                f"the Poisson randomizer has no local eps0; the largest reporting probability "
                f"for (eps={eps}, delta={delta}) is lam={lam!r}"
            )
        lam = _number("lam", values["lam"])
        curve = user_curve(n, m, d, s, lam, accounting=cls.accounting, group=group, gamma_max=gamma_max)
        record["lam"] = lam
        if question.command == "epsilon":
            record["delta"] = _number("delta", values["delta"])
            record[question.answer] = float(curve.epsilon(record["delta"]))
            if record[question.answer] == float("inf"):
                raise NotApplicableError(f"{bound} bound not applicable: no finite eps reaches delta={record['delta']}")
        else:
            record["eps"] = _number("eps", values["eps"])
            record[question.answer] = float(curve.delta(record["eps"]))
        return record

    def describe(self, bound: str) -> list[str]:
        cls = self.bounds[bound]
        return [cls.title, cls.reference, "options: --m --d --s --lam [--slots] [--group paper|standard]"]
