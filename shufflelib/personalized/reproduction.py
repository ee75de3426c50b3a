r"""The experiments of Liu et al. (2024): Table 2 and Figure 4, with the paper's printed numbers.

* :data:`TABLE2_EPS` and :data:`TABLE2_PAPER` — Table 2 of the paper (δ at
  fixed ε, approximate PLDP, Uniform2, ``n = 10^4``), as printed.
* :func:`table2` — our values for the same rows.
* :func:`epsilon_grid` — ε at a target δ for several bounds and several
  numbers of users (the data of Figure 4 and of the chapter's widget).
* :func:`widget_population` — the personalizations of the chapter's widget.

Populations are drawn by :func:`~shufflelib.personalized.population.table1_population`
(seed 0, levels rounded down to 0.001).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_choice, check_in_range, check_int, check_probability
from ..bounds import NotApplicableError
from .bounds import (
    BlanketAtMax,
    GaussianDPApproximation,
    LZXProxy,
    PaperTheorem2,
    PersonalizedBound,
    SoundClones,
    StrongerClonesAtMax,
)
from .mechanisms import LocalMechanism
from .population import Population, gaussian_population, table1_population, two_level_population, uniform_population

__all__ = [
    "TABLE2_EPS",
    "TABLE2_PAPER",
    "table2",
    "epsilon_grid",
    "figure4_bounds",
    "FIGURE4_PANELS",
    "PERSONALIZATIONS",
    "widget_population",
]

#: Central ε of the columns of Table 2.
TABLE2_EPS = (0.01, 0.03, 0.05, 0.08, 0.1)
#: Table 2 of Liu et al. (2024) as printed, as a map row -> δ at each ε of :data:`TABLE2_EPS`.
TABLE2_PAPER = {
    "FV": (0.0083, 0.0029, 0.0008, 6e-5, 1e-5),
    "CCC": (0.0042, 0.0007, 5e-5, 3e-7, 3e-9),
    "Ours": (0.0007, 2e-6, 3e-10, 1e-18, 1e-25),
}
#: Figure 4 of the paper, as a map panel -> (ε range name of Table 1, pure or approximate).
FIGURE4_PANELS = {
    "a": (("Uniform1", "Gauss1"), False),
    "b": (("Uniform1", "Gauss1"), True),
    "c": (("Uniform2", "Gauss2"), False),
    "d": (("Uniform2", "Gauss2"), True),
}
#: Personalizations of the chapter's widget.
PERSONALIZATIONS = ("uniform", "gaussian", "two-level")


def table2(calibration: str = "paper", n: int = 10_000) -> dict[str, np.ndarray]:
    """Our Table 2: δ at the ε of :data:`TABLE2_EPS` for FV, CCC (both μ variants) and Theorem 2.

    Parameters
    ----------
    calibration
        Gaussian calibration of "Ours" (``"paper"`` σ = 2/ε reproduces the
        printed row; ``"classical"`` is a genuine (ε, 1e-10) mechanism).
    n
        Number of users (the paper: 10^4).

    Examples
    --------
    >>> rows = table2()
    >>> [f"{v:.0e}" for v in rows["Ours"]]
    ['8e-04', '3e-06', '5e-10', '4e-18', '3e-25']
    """
    n = check_int("n", n, minimum=2)
    pop = table1_population("Uniform2", n, delta=1e-10)
    eps = np.array(TABLE2_EPS)
    mech = LocalMechanism("gaussian", calibration)
    return {
        "FV": StrongerClonesAtMax(mech).curve(pop).delta(eps),
        "CCC": GaussianDPApproximation(mech, variant="table2").curve(pop).delta(eps),
        "CCC (abstract μ)": GaussianDPApproximation(mech, variant="abstract").curve(pop).delta(eps),
        "Ours": PaperTheorem2(mech).curve(pop).delta(eps),
        "Sound clones": SoundClones(mech).curve(pop).delta(eps),
    }


def figure4_bounds(approximate: bool, calibration: str = "paper") -> dict[str, PersonalizedBound]:
    """The curves of a Figure 4 panel: the paper's baselines, Theorem 2 and the sound bound.

    CCC uses the μ that reproduces Table 2 (``variant="table2"``).

    Examples
    --------
    >>> sorted(figure4_bounds(False))
    ['BBGN', 'CCC', 'FV', 'LZX (proxy)', 'Sound clones', 'Thm 2 (paper, unsound)']
    """
    if approximate:
        mech = LocalMechanism("gaussian", calibration)
        return {
            "Thm 2 (paper, unsound)": PaperTheorem2(mech),
            "FV": StrongerClonesAtMax(mech),
            "CCC": GaussianDPApproximation(mech, variant="table2"),
            "Sound clones": SoundClones(mech),
        }
    mech = LocalMechanism("laplace")
    return {
        "Thm 2 (paper, unsound)": PaperTheorem2(mech),
        "FV": StrongerClonesAtMax(mech),
        "CCC": GaussianDPApproximation(mech, variant="table2"),
        "BBGN": BlanketAtMax(mech),
        "LZX (proxy)": LZXProxy(mech),
        "Sound clones": SoundClones(mech),
    }


def epsilon_grid(
    bounds: dict[str, PersonalizedBound], populations: list[Population], delta: float
) -> dict[str, np.ndarray]:
    """ε at ``delta`` of every bound for every population (``nan`` where a bound does not apply).

    Examples
    --------
    >>> from shufflelib.personalized.population import Population
    >>> from shufflelib.personalized.bounds import SoundClones
    >>> from shufflelib.personalized.mechanisms import LocalMechanism
    >>> grid = epsilon_grid({"sound": SoundClones(LocalMechanism("rr"))},
    ...                     [Population([1.0], [n]) for n in (1_000, 10_000)], 1e-6)
    >>> bool(grid["sound"][0] > grid["sound"][1])
    True
    """
    delta = check_probability("delta", delta)
    out: dict[str, np.ndarray] = {}
    for name, bound in bounds.items():
        values = []
        for pop in populations:
            try:
                values.append(bound.epsilon(pop, delta))
            except NotApplicableError:
                values.append(math.nan)
        out[name] = np.array(values)
    return out


def widget_population(kind: str, spread: float, n: int, *, center: float = 1.0) -> Population:
    """A personalization of the widget: levels around ``center`` with a given ``spread``.

    ``"uniform"``: ε_i ~ U(center − spread, center + spread); ``"gaussian"``:
    N(center, spread²) clipped to ``[center/4, 2 center]``; ``"two-level"``:
    half the users at ``center − spread``, half at ``center + spread``.
    ``spread = 0`` gives the homogeneous population. Levels are rounded down
    to 0.01 (seed 0).

    Examples
    --------
    >>> widget_population("two-level", 0.5, 1_000).eps.tolist()
    [0.5, 1.5]
    """
    check_choice("kind", kind, PERSONALIZATIONS)
    spread = check_in_range("spread", spread, 0.0, center, closed_high=False)
    n = check_int("n", n, minimum=2)
    if spread == 0:
        return Population([center], [n])
    if kind == "uniform":
        return uniform_population(center - spread, center + spread, n, resolution=0.01)
    if kind == "gaussian":
        return gaussian_population(center, spread, (center / 4, 2 * center), n, resolution=0.01)
    return two_level_population(center - spread, center + spread, 0.5, n)
