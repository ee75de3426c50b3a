"""The book's figure style: figures as wide as the page's text column, text legible on screen.

On the website a figure wider than the text column is shrunk to fit it, and its tick labels
shrink with it. The book therefore draws every figure at most :data:`COLUMN_WIDTH` inches
wide at :data:`DPI` dots per inch, which is the width of the column of a page on a
1366-pixel-wide screen (757 px), so figures are shown at their natural size. With the base
font of 10 pt the smallest text the style uses ("small", 8.3 pt) is 11.6 px tall on screen.
Figures with several panels put at most two (or three small ones) side by side and stack
the rest (:func:`panel_grid`).

Examples
--------
>>> from shufflelib.plotting import COLUMN_WIDTH, panel_grid, use_book_style
>>> use_book_style()
>>> fig, axes = panel_grid(4)
>>> axes.shape, float(fig.get_size_inches()[0]) == COLUMN_WIDTH
((4,), True)
"""

from __future__ import annotations

import math
from typing import Any

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

__all__ = [
    "BOOK_STYLE",
    "COLUMN_WIDTH",
    "DPI",
    "panel_grid",
    "shuffle_model_diagram",
    "text_height_px",
    "use_book_style",
]

#: Width of the page's text column in inches at :data:`DPI` (757 px on a 1366-px screen).
COLUMN_WIDTH = 7.5

#: Resolution of the figures on the website, in dots per inch.
DPI = 100

#: The rcParams of :func:`use_book_style`.
BOOK_STYLE: dict[str, Any] = {
    "figure.figsize": (COLUMN_WIDTH, 3.6),
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "font.size": 10.0,
    "axes.titlesize": "medium",
    "axes.labelsize": "medium",
    "xtick.labelsize": "small",
    "ytick.labelsize": "small",
    "legend.fontsize": "small",
    "legend.title_fontsize": "small",
    "figure.titlesize": "medium",
}


def use_book_style() -> None:
    """Apply :data:`BOOK_STYLE` to matplotlib (every chapter calls this in its setup cell).

    Examples
    --------
    >>> import matplotlib as mpl
    >>> use_book_style()
    >>> mpl.rcParams["figure.dpi"]
    100.0
    """
    mpl.rcParams.update(BOOK_STYLE)


def text_height_px(size: float | str, *, dpi: float = DPI, scale: float = 1.0) -> float:
    """Height in screen pixels of text of a given font size in a figure shown at ``scale``.

    Parameters
    ----------
    size
        A font size in points, or a named size ("small", "x-small", ...) relative to the
        current ``font.size``.
    dpi
        Resolution the figure is rendered at.
    scale
        Shown width over natural width of the picture on the page (1 = natural size).

    Returns
    -------
    float
        ``points * dpi / 72 * scale``.

    Examples
    --------
    >>> round(text_height_px(10.0), 1)
    13.9
    """
    from matplotlib.font_manager import FontProperties

    if not dpi > 0 or not 0 < scale <= 1 or (isinstance(size, (int, float)) and not size > 0):
        raise ValueError(f"need size > 0, dpi > 0 and scale in (0, 1], got {size!r}, {dpi!r}, {scale!r}")
    points = FontProperties(size=size).get_size_in_points()
    return points * dpi / 72 * scale


def panel_grid(panels: int, *, ncols: int = 2, panel_height: float = 2.8, **subplots: Any) -> tuple[Figure, np.ndarray]:
    """A figure of ``panels`` axes, ``ncols`` per row, as wide as the text column.

    Parameters
    ----------
    panels
        Number of panels (at least 1).
    ncols
        Panels per row (1 to 3); the rows needed are stacked. Unused slots are removed.
    panel_height
        Height of one row, in inches.
    **subplots
        Passed to :func:`matplotlib.pyplot.subplots` (for example ``sharey=True``).

    Returns
    -------
    (Figure, numpy.ndarray)
        The figure and a flat array of its ``panels`` axes, row by row.

    Examples
    --------
    >>> fig, axes = panel_grid(3, ncols=2, sharey=True)
    >>> len(fig.axes), len(axes)
    (3, 3)
    """
    if not isinstance(panels, int) or panels < 1:
        raise ValueError(f"panels must be a positive integer, got {panels!r}")
    if not isinstance(ncols, int) or not 1 <= ncols <= 3:
        raise ValueError(f"ncols must be 1, 2 or 3, got {ncols!r}")
    if not panel_height > 0:
        raise ValueError(f"panel_height must be positive, got {panel_height!r}")
    ncols = min(ncols, panels)
    rows = math.ceil(panels / ncols)
    fig, axes = plt.subplots(rows, ncols, figsize=(COLUMN_WIDTH, panel_height * rows), squeeze=False, **subplots)
    flat = axes.ravel()
    for ax in flat[panels:]:
        ax.remove()
    return fig, flat[:panels]


def shuffle_model_diagram(values: tuple[int, ...] = (1, 0, 1, 1), seed: int = 3) -> Figure:
    """The shuffle model in one picture: users, local randomizers, shuffler, analyzer.

    Each user holds a bit, applies randomized response (her local randomizer) and sends
    the report; the shuffler outputs the reports in a uniformly random order, so the
    analyzer sees only the multiset of reports, here their count of ones.

    Parameters
    ----------
    values
        The users' bits (2 to 8 users).
    seed
        Seed of the reports and of the shuffle drawn in the picture.

    Returns
    -------
    matplotlib.figure.Figure
        The diagram, as wide as the text column.

    Examples
    --------
    >>> fig = shuffle_model_diagram()
    >>> {"Users", "Local randomizers", "Shuffler", "Analyzer"} <= {t.get_text() for t in fig.axes[0].texts}
    True
    """
    if not 2 <= len(values) <= 8 or any(v not in (0, 1) for v in values):
        raise ValueError(f"values must be 2 to 8 bits (0 or 1), got {values!r}")
    rng = np.random.default_rng(seed)
    n = len(values)
    keep = rng.random(n) < 0.75  # randomized response with eps0 = log 3: truth w.p. 3/4
    reports = [v if k else 1 - v for v, k in zip(values, keep, strict=True)]
    order = rng.permutation(n)

    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 0.55 * n + 1.4))
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.9, n)
    ax.axis("off")
    ys = [n - 1 - i for i in range(n)]
    box = dict(boxstyle="round,pad=0.3", fc="white", ec="0.3")
    arrow = dict(arrowstyle="->", color="0.4", lw=1)
    columns = [(0.7, "Users"), (3.0, "Local randomizers"), (6.0, "Shuffler"), (8.9, "Analyzer")]
    for x, title in columns:
        ax.text(x, n - 0.35, title, ha="center", va="bottom", fontweight="bold")
    for i, y in enumerate(ys):
        ax.text(0.7, y, f"user {i + 1}: {values[i]}", ha="center", va="center", bbox=box)
        ax.text(3.0, y, "RR", ha="center", va="center", bbox=dict(box, fc="#dce9f5"))
        ax.annotate("", xy=(2.55, y), xytext=(1.45, y), arrowprops=arrow)
        ax.annotate(
            "",
            xy=(5.2, ys[int(np.flatnonzero(order == i)[0])]),
            xytext=(3.45, y),
            arrowprops=dict(arrow, color="#1f4e79"),
        )
        ax.text(4.05, y + 0.12, str(reports[i]), ha="center", va="bottom", color="#1f4e79")
    ax.add_patch(plt.Rectangle((5.2, -0.45), 1.6, n - 0.1, fc="#f3e6d0", ec="0.3"))
    for j, y in enumerate(ys):
        ax.text(6.0, y, str(reports[int(order[j])]), ha="center", va="center")
    ax.annotate("", xy=(8.1, (n - 1) / 2), xytext=(6.85, (n - 1) / 2), arrowprops=arrow)
    ax.text(
        8.9,
        (n - 1) / 2,
        f"count of ones:\n{sum(reports)} of {n}",
        ha="center",
        va="center",
        bbox=dict(box, fc="#e3f0e0"),
    )
    ax.text(
        5,
        -0.8,
        "Each user randomizes locally; the shuffler removes the order; the analyzer sees only the multiset.",
        ha="center",
        va="center",
        fontsize="small",
    )
    return fig
