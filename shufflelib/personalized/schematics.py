"""The pictures that carry Liu et al.'s ideas, drawn for this book: Figs. 1 and 2 of the paper.

* :func:`pipeline_figure`: the shuffle model with personalized privacy (the paper's Fig. 1):
  each user randomizes her value with her own budget, the shuffler removes the order, the
  analyzer computes a statistic of the reports;
* :func:`regions_figure`: the regions :math:`U_0, U_1` whose areas are the paper's clone
  probabilities (the paper's Fig. 2), and beside them the pointwise conditions that a clone
  decomposition needs, which the paper's weights break
  (:mod:`~shufflelib.personalized.regions`).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .._validation import check_generator
from ..plotting import COLUMN_WIDTH, PIPELINE_ARROW, PIPELINE_BOX, pipeline_canvas, pipeline_columns
from .mechanisms import LocalMechanism
from .regions import RegionPicture

__all__ = ["pipeline_figure", "regions_figure"]


def pipeline_figure(
    values: tuple[float, ...] = (0.3, 0.8, 0.5, 0.1),
    budgets: tuple[tuple[float, float], ...] = ((2.0, 0.0), (1.0, 0.0), (0.5, 0.0), (0.2, 0.0)),
    rng: np.random.Generator | None = None,
) -> Figure:
    r"""Personalized privacy in the shuffle model, in one picture (Liu et al.'s Fig. 1).

    User :math:`i` holds :math:`x_i \in [0, 1]` and a budget :math:`(\varepsilon_i, \delta_i)`;
    she sends :math:`\tilde x_i = x_i + \mathrm{Lap}(1/\varepsilon_i)` (the Laplace mechanism; a
    user with :math:`\delta_i > 0` would use the Gaussian one). The shuffler outputs the reports
    in a uniformly random order and the analyzer computes their mean.

    Parameters
    ----------
    values
        The users' values in ``[0, 1]`` (2 to 6 users).
    budgets
        One ``(eps_i, delta_i)`` per user (``delta_i = 0`` draws a Laplace report).
    rng
        Generator for the reports and the shuffle (default: seed 4).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = pipeline_figure()
    >>> {"Users", "Local randomizers", "Shuffler", "Analyzer"} <= {t.get_text() for t in fig.axes[0].texts}
    True
    """
    n = len(values)
    if not 2 <= n <= 6 or len(budgets) != n:
        raise ValueError(f"values and budgets must list the same 2 to 6 users, got {n} and {len(budgets)}")
    if any(not 0.0 <= v <= 1.0 for v in values):
        raise ValueError(f"values must lie in [0, 1], got {values!r}")
    if any(not (e > 0 and 0 <= d < 1) for e, d in budgets):
        raise ValueError(f"budgets must be pairs (eps > 0, delta in [0, 1)), got {budgets!r}")
    rng = np.random.default_rng(4) if rng is None else check_generator("rng", rng)
    laplace, gauss = LocalMechanism("laplace"), LocalMechanism("gaussian", "classical")
    reports = []
    for v, (e, d) in zip(values, budgets, strict=True):
        mech = gauss if d > 0 else laplace
        reports.append(float(mech.sample(np.array([v]), mech.scale(e, d), rng)[0]))
    order = rng.permutation(n)

    fig, ax, ys = pipeline_canvas(n, 0.62 * n + 1.2, -0.8)
    for i, y in enumerate(ys):
        e, d = budgets[i]
        budget = rf"$\varepsilon_{i + 1} = {e:g}$" + (rf", $\delta_{i + 1} = {d:g}$" if d > 0 else "")
        ax.text(
            0.95,
            y,
            f"$x_{i + 1} = {values[i]:g}$\n{budget}",
            ha="center",
            va="center",
            bbox=PIPELINE_BOX,
            fontsize="small",
        )
        ax.text(
            3.35,
            y,
            rf"$R(x_{i + 1};\ \varepsilon_{i + 1})$",
            ha="center",
            va="center",
            bbox=dict(PIPELINE_BOX, fc="#dce9f5"),
            fontsize="small",
        )
        ax.annotate("", xy=(2.55, y), xytext=(1.85, y), arrowprops=PIPELINE_ARROW)
        target = ys[int(np.flatnonzero(order == i)[0])]
        ax.annotate("", xy=(5.55, target), xytext=(4.15, y), arrowprops=dict(PIPELINE_ARROW, color="#1f4e79"))
        ax.text(4.7, y + 0.12, rf"$\tilde x_{i + 1}$", ha="center", va="bottom", color="#1f4e79", fontsize="small")
    pipeline_columns(
        ax,
        ys,
        (0.95, 3.35, (5.55, 1.4), (7.0, 8.05)),
        [f"{reports[int(j)]:+.2f}" for j in order],
        f"mean of the\nreports: {np.mean(reports):+.2f}",
        "Each user randomizes with her own budget; the shuffler removes the order.",
        fontsize="small",
    )
    return fig


def regions_figure(picture: RegionPicture, *, eps_i: float, eps1: float) -> Figure:
    r"""The paper's regions (its Fig. 2) and the pointwise conditions its weights break.

    Top: the densities :math:`g_0, g_1` of user 1's reports on :math:`x^0, x^1` and
    :math:`g_i` of user :math:`i`'s report on :math:`x_i`; the green area is
    :math:`p_i^0 = \Pr[R(x_i) \in U_0]`, the yellow one :math:`p_i^1 = \Pr[R(x_i) \in U_1]`.
    Bottom left: the weight residual :math:`(1-w)g_1 - wg_0` (the density of :math:`Q_1` times
    :math:`1 - 2w`) with the paper's :math:`w` and with the largest valid one; bottom right:
    the clone residual :math:`g_i - p_i(g_0 + g_1)` (the leftover's density times
    :math:`1 - 2p_i`) likewise. Where a residual is negative (red) no decomposition exists.

    Parameters
    ----------
    picture
        From :func:`~shufflelib.personalized.regions.region_picture`.
    eps_i, eps1
        The budgets the picture was computed for (for the labels).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from shufflelib.personalized.regions import region_picture
    >>> fig = regions_figure(region_picture(LocalMechanism("laplace"), 1.0, 2.0), eps_i=1.0, eps1=2.0)
    >>> len(fig.axes)
    3
    """
    pic = picture
    fig = plt.figure(figsize=(COLUMN_WIDTH, 5.6), layout="constrained")
    grid = fig.add_gridspec(2, 2, height_ratios=[1.1, 1])
    top = fig.add_subplot(grid[0, :])
    left, right = fig.add_subplot(grid[1, 0]), fig.add_subplot(grid[1, 1], sharex=None)
    view = (pic.z > -3.5) & (pic.z < 4.5)
    z = pic.z[view]
    top.plot(z, pic.g0[view], color="C0", label=rf"$g_0$: user 1 on $x^0$ ($\varepsilon_1 = {eps1:g}$)")
    top.plot(z, pic.g1[view], color="C1", label=r"$g_1$: user 1 on $x^1$")
    top.plot(z, pic.gi[view], color="k", lw=1.5, label=rf"$g_i$: user $i$ on $x_i$ ($\varepsilon_i = {eps_i:g}$)")
    for j, region, color in [(0, pic.u0, "#7fc97f"), (1, pic.u1, "#fdd835")]:
        area = rf"$U_{j}$: area $p_i^{j} = {pic.area(region):.3f}$"
        top.fill_between(z, 0, pic.gi[view], where=region[view], color=color, alpha=0.7, label=area)
    top.set(xlabel="report $z$", ylabel="density", title="(a) the paper's regions (its Fig. 2)")
    top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    for ax, residual, paper, valid, name, title in [
        (left, pic.weight_residual, pic.w_paper, pic.w_grid, "w", "(b) user 1: $(1-w)g_1 - w g_0$"),
        (right, pic.clone_residual, pic.p_paper, pic.p_grid, "p_i", r"(c) user $i$: $g_i - p_i(g_0 + g_1)$"),
    ]:
        bad = residual(paper)[view]
        ax.plot(z, bad, color="C3", label=rf"paper's ${name} = {paper:.3f}$")
        ax.fill_between(z, bad, 0, where=bad < 0, color="C3", alpha=0.35, label="negative: no decomposition")
        ax.plot(z, residual(valid)[view], "--", color="C0", label=rf"largest valid ${name} = {valid:.3f}$")
        ax.axhline(0, color="black", lw=0.8)
        ax.set(xlabel="report $z$", title=title)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.28), fontsize="small")
    left.set_ylabel("residual density")
    return fig
