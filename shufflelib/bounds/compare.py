"""Every amplification bound at one parameter point, side by side.

The book compares the bounds on binary randomized response, whose exact
shuffled curve is known: the generic bounds apply to it (it is
``eps0``-LDP) and the mechanism-specific ones use its shape. A bound whose
theorem does not cover the parameters is reported as ``None`` ("not
applicable"), never as NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._docstrings import fill_doc
from .._validation import check_int, check_positive, check_probability
from . import get_bound
from .base import NotApplicableError

__all__ = ["BoundSpec", "STANDARD_SPECS", "compare_epsilons", "label"]


@dataclass(frozen=True)
class BoundSpec:
    """One bound applied to one mechanism family, with a label for tables and plots.

    Examples
    --------
    >>> spec = BoundSpec("clones, numerical (generic)", "clones", "generic")
    >>> spec.bound().epsilon(10_000, 1.0, 1e-6) > 0
    True
    """

    label: str
    name: str
    mechanism: str = "generic"
    k: int | None = None

    def bound(self):
        """The :class:`~shufflelib.bounds.base.AmplificationBound` this spec names."""
        return get_bound(self.name, self.mechanism, self.k)


#: The comparison used throughout the book, every bound on binary randomized response
#: (generic bounds, bounds specialised to k-RR with k = 2, and the two-pair lower bound on the exact worst case).
STANDARD_SPECS: tuple[BoundSpec, ...] = (
    BoundSpec("Erlingsson et al. (generic)", "erlingsson"),
    BoundSpec("blanket, Hoeffding (generic)", "blanket-hoeffding"),
    BoundSpec("blanket, Bennett (generic)", "blanket-bennett"),
    BoundSpec("clones, closed form (generic)", "clones-closed"),
    BoundSpec("clones, numerical (generic)", "clones"),
    BoundSpec("blanket, Hoeffding (RR)", "blanket-hoeffding", "krr", 2),
    BoundSpec("blanket, Bennett (RR)", "blanket-bennett", "krr", 2),
    BoundSpec("stronger clones (RR)", "stronger-clones", "krr", 2),
    BoundSpec("two-pair lower bound (RR)", "krr-two-pair-lower", "krr", 2),
)


def label(name: str, mechanism: str = "generic") -> str:
    """The label of the :data:`STANDARD_SPECS` entry of bound ``name`` (``--bound`` name) on ``mechanism``.

    Chapters key their tables and plot styles by it, so a bound's label is written once.

    Examples
    --------
    >>> label("clones"), label("stronger-clones", "krr")
    ('clones, numerical (generic)', 'stronger clones (RR)')
    """
    for spec in STANDARD_SPECS:
        if spec.name == name and spec.mechanism == mechanism:
            return spec.label
    raise ValueError(f"no standard comparison entry for bound {name!r} with mechanism {mechanism!r}")


@fill_doc
def compare_epsilons(
    n: int, eps0: float, delta: float, specs: tuple[BoundSpec, ...] = STANDARD_SPECS
) -> dict[str, float | None]:
    """The central ε of each bound at ``(n, eps0, delta)``.

    Parameters
    ----------
    %(n)s %(eps0)s %(delta)s
    specs
        The bounds to evaluate (default :data:`STANDARD_SPECS`).

    Returns
    -------
    dict
        Label -> ε (rounded up, as each bound rounds it), or ``None`` where the
        bound's theorem does not cover the parameters.

    Examples
    --------
    >>> table = compare_epsilons(10_000, 1.0, 1e-6)
    >>> table["Erlingsson et al. (generic)"] is None      # needs eps0 < 1/2
    True
    >>> table["two-pair lower bound (RR)"] <= table["stronger clones (RR)"]
    True
    """
    n = check_int("n", n, minimum=2)
    eps0 = check_positive("eps0", eps0)
    delta = check_probability("delta", delta)
    if not specs or not all(isinstance(spec, BoundSpec) for spec in specs):
        raise ValueError("specs must be a non-empty sequence of BoundSpec")
    out: dict[str, float | None] = {}
    for spec in specs:
        try:
            out[spec.label] = spec.bound().epsilon(n, eps0, delta)
        except NotApplicableError:
            out[spec.label] = None
    return out
