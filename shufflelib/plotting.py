"""The book's figure style: figures as wide as the page's text column, text legible on screen.

On the website a figure wider than the text column is shrunk to fit it, and its tick labels
shrink with it. The book therefore draws every figure at most :data:`COLUMN_WIDTH` inches
wide at :data:`DPI` dots per inch, which is the width of the column of a page on a
1366-pixel-wide screen (757 px), so figures are shown at their natural size. With the base
font of 10 pt the smallest text the style uses ("small", 8.3 pt) is 11.6 px tall on screen.
Figures with several panels put at most two (or three small ones) side by side and stack
the rest (:func:`panel_grid`); a last row that is not full is widened, so no slot stays empty.

Figures are vector graphics: :func:`use_book_style` makes the notebook show every figure as
SVG and PDF, so the website shows the SVG and the PDF edition the PDF (myst-nb picks, per
builder, the best format a cell offers). Legends go off the data (:func:`legend_below`),
and numbers in titles are written as a reader writes them (:func:`format_number`: 10⁶,
not 1e+06).

Examples
--------
>>> from shufflelib.plotting import COLUMN_WIDTH, panel_grid, use_book_style
>>> use_book_style()
>>> fig, axes = panel_grid(4)
>>> axes.shape, float(fig.get_size_inches()[0]) == COLUMN_WIDTH
((4,), True)
"""

from __future__ import annotations

import logging
import math
from typing import Any

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.transforms import ScaledTranslation

__all__ = [
    "BOOK_STYLE",
    "COLUMN_WIDTH",
    "DPI",
    "FIGURE_FORMATS",
    "PIPELINE_ARROW",
    "PIPELINE_BOX",
    "format_number",
    "legend_below",
    "panel_grid",
    "pipeline_canvas",
    "pipeline_columns",
    "shuffle_model_diagram",
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
    # Vector output: text as outlines in SVG (same look in every browser), TrueType in PDF.
    "svg.fonttype": "path",
    "pdf.fonttype": 42,
}

#: The formats each figure is shown in by a notebook (:func:`use_book_style`): the website
#: shows the SVG, the PDF edition the PDF.
FIGURE_FORMATS = ("svg", "pdf")


def use_book_style() -> None:
    """Apply :data:`BOOK_STYLE` and vector figures (every chapter calls this in its setup cell).

    In a notebook (IPython with matplotlib's inline backend) every figure is then shown in
    the formats :data:`FIGURE_FORMATS`, SVG and PDF: the website's build picks the SVG, the
    PDF edition's the PDF. Elsewhere only the style is applied.

    Examples
    --------
    >>> import matplotlib as mpl
    >>> use_book_style()
    >>> mpl.rcParams["figure.dpi"], mpl.rcParams["pdf.fonttype"]
    (100.0, 42)
    """
    mpl.rcParams.update(BOOK_STYLE)
    # Embedding a font in the PDF figures (pdf.fonttype 42) subsets it with fontTools, which
    # logs "'created' timestamp seems very low" to stderr for fonts with an old header date
    # (the random population schematic's); stderr in a cell fails the strict build.
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover (IPython comes with the notebook stack)
        return
    if get_ipython() is None:
        return
    from matplotlib_inline.backend_inline import set_matplotlib_formats

    set_matplotlib_formats(*FIGURE_FORMATS)


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def format_number(value: float, digits: int = 3) -> str:
    """A number as a reader writes it in a title or a label: 10⁶, 2.5 × 10⁻⁴, 50,000, 0.25.

    Parameters
    ----------
    value
        A finite number.
    digits
        Significant digits kept (1 to 15).

    Returns
    -------
    str
        Powers of ten as ``10ⁿ``; other numbers of 10⁵ or more, or below 10⁻³, as
        ``m × 10ⁿ``; whole numbers below 10⁵ with thousands separators; the rest with
        ``digits`` significant digits. Negative numbers get a minus sign (−).

    Examples
    --------
    >>> [format_number(v) for v in (1e6, 1_000_000, 2.5e6, 50_000, 0.25, 1e-6, 3e-8, -1e-4)]
    ['10⁶', '10⁶', '2.5 × 10⁶', '50,000', '0.25', '10⁻⁶', '3 × 10⁻⁸', '−10⁻⁴']
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"value must be a real number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"value must be finite, got {value!r}")
    if not isinstance(digits, int) or not 1 <= digits <= 15:
        raise ValueError(f"digits must be an integer in [1, 15], got {digits!r}")
    if value < 0:
        return "−" + format_number(-value, digits)
    if value == 0:
        return "0"
    if isinstance(value, (int, np.integer)) and value < 10**5:
        return f"{int(value):,}"
    mantissa_text, exponent_text = f"{float(value):.{digits - 1}e}".split("e")
    mantissa, exponent = float(mantissa_text), int(exponent_text)
    if 1e-3 <= value < 1e5:
        if float(value).is_integer():
            return f"{int(value):,}"
        return f"{float(value):.{digits}g}"
    power = "10" + str(exponent).translate(_SUPERSCRIPT)
    return power if mantissa == 1 else f"{mantissa:g} × {power}"


def legend_below(target: Figure | Axes, *, ncols: int | None = None, **kwargs: Any) -> Legend | None:
    """A legend under the plot, off the data: for a whole figure, or for one panel.

    Parameters
    ----------
    target
        A :class:`~matplotlib.figure.Figure`: one legend for all its panels (each label
        once), centred under the figure. An :class:`~matplotlib.axes.Axes`: that panel's
        legend, centred under its x-axis label. An existing legend of the target's panels
        is replaced.
    ncols
        Columns of the legend (default: all entries on one row up to 4, then 2 or 3 rows).
    **kwargs
        Passed to :meth:`~matplotlib.figure.Figure.legend` (or ``Axes.legend``).

    Returns
    -------
    matplotlib.legend.Legend or None
        The legend, or ``None`` when no artist has a label.

    Examples
    --------
    >>> fig, axes = panel_grid(2)
    >>> for ax in axes:
    ...     _ = ax.plot([0, 1], label="bound")
    >>> legend = legend_below(fig)
    >>> [t.get_text() for t in legend.get_texts()], [ax.get_legend() for ax in axes]
    (['bound'], [None, None])
    >>> plt.close(fig)
    """
    if isinstance(target, Figure):
        axes, fig = list(target.axes), target
    elif isinstance(target, Axes):
        axes, fig = [target], target.figure
    else:
        raise ValueError(f"target must be a matplotlib Figure or Axes, got {type(target).__name__}")
    handles, labels = [], []
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    if not labels:
        return None
    if ncols is None:
        ncols = len(labels) if len(labels) <= 4 else math.ceil(len(labels) / math.ceil(len(labels) / 3))
    options = dict(ncols=ncols, frameon=False, loc="upper center")
    options.update(kwargs)
    if isinstance(target, Figure):
        return fig.legend(handles, labels, bbox_to_anchor=(0.5, 0.0), **options)
    # Under the panel's x-axis label: the distance from the axes' bottom to the bottom of
    # everything drawn with it (tick labels, label), in inches, stays right if the figure's
    # layout later moves the panel.
    renderer = fig.canvas.get_renderer()
    below = (target.get_window_extent(renderer).y0 - target.get_tightbbox(renderer).y0) / fig.dpi
    shift = ScaledTranslation(0, -(below + 0.05), fig.dpi_scale_trans)
    return target.legend(handles, labels, bbox_to_anchor=(0.5, 0.0), bbox_transform=target.transAxes + shift, **options)


def panel_grid(panels: int, *, ncols: int = 2, panel_height: float = 2.8, **subplots: Any) -> tuple[Figure, np.ndarray]:
    """A figure of ``panels`` axes, ``ncols`` per row, as wide as the text column, no slot empty.

    Parameters
    ----------
    panels
        Number of panels (at least 1).
    ncols
        Panels per row (1 to 3); the rows needed are stacked. A last row with fewer panels
        is shared out among them, each as wide as the row allows (three panels in two
        columns: two side by side, the third as wide as both), so no slot stays empty.
    panel_height
        Height of one row, in inches.
    **subplots
        ``sharex`` and ``sharey`` (``True``/``"all"``, ``"row"``, ``"col"`` or ``False``,
        as for :func:`matplotlib.pyplot.subplots`: panels that share an axis draw its tick
        labels once per row or column) and ``subplot_kw`` (passed to each panel).

    Returns
    -------
    (Figure, numpy.ndarray)
        The figure and a flat array of its ``panels`` axes, row by row.

    Examples
    --------
    >>> fig, axes = panel_grid(3, ncols=2, sharey=True)
    >>> len(fig.axes), len(axes)
    (3, 3)
    >>> [round(float(ax.get_position().width / axes[0].get_position().width), 1) for ax in axes]
    [1.0, 1.0, 2.2]
    >>> plt.close(fig)
    """
    if not isinstance(panels, int) or panels < 1:
        raise ValueError(f"panels must be a positive integer, got {panels!r}")
    if not isinstance(ncols, int) or not 1 <= ncols <= 3:
        raise ValueError(f"ncols must be 1, 2 or 3, got {ncols!r}")
    if not panel_height > 0:
        raise ValueError(f"panel_height must be positive, got {panel_height!r}")
    unknown = set(subplots) - {"sharex", "sharey", "subplot_kw"}
    if unknown:
        raise ValueError(f"panel_grid accepts sharex, sharey and subplot_kw, got {sorted(unknown)}")
    share = {}
    for axis in ("sharex", "sharey"):
        mode = subplots.get(axis, False)
        mode = {True: "all", False: "none"}.get(mode, mode)
        if mode not in ("all", "row", "col", "none"):
            raise ValueError(f"{axis} must be True, False, 'all', 'row', 'col' or 'none', got {mode!r}")
        share[axis] = mode
    ncols = min(ncols, panels)
    rows = math.ceil(panels / ncols)
    last = panels - ncols * (rows - 1)
    slots = math.lcm(ncols, last)
    # The tight layout engine spaces the panels when the figure is drawn, so no panel's labels
    # run into its neighbour's (a chapter may still call fig.tight_layout()).
    fig = plt.figure(figsize=(COLUMN_WIDTH, panel_height * rows), layout="tight")
    grid = fig.add_gridspec(rows, slots)
    axes: list[Axes] = []
    places = []
    for index in range(panels):
        row, col = divmod(index, ncols)
        per_row = ncols if row < rows - 1 else last
        width = slots // per_row
        places.append((row, col))
        kwargs = dict(subplots.get("subplot_kw") or {})
        for axis in ("sharex", "sharey"):
            partner = _share_partner(share[axis], places, row, col, axes)
            if partner is not None:
                kwargs[axis] = partner
        axes.append(fig.add_subplot(grid[row, col * width : (col + 1) * width], **kwargs))
    for ax, (row, col) in zip(axes, places, strict=True):
        if share["sharey"] in ("all", "row") and col > 0:
            ax.tick_params(labelleft=False)
        if share["sharex"] in ("all", "col") and _has_panel_below(places, row, col):
            ax.tick_params(labelbottom=False)
    return fig, np.array(axes, dtype=object)


def _share_partner(mode: str, places: list[tuple[int, int]], row: int, col: int, axes: list[Axes]) -> Axes | None:
    """The earlier panel whose axis the panel at (row, col) shares under ``mode``."""
    for (r, c), ax in zip(places, axes, strict=False):
        if mode == "all" or (mode == "row" and r == row) or (mode == "col" and c == col):
            return ax
    return None


def _has_panel_below(places: list[tuple[int, int]], row: int, col: int) -> bool:
    return any(r > row and c == col for r, c in places)


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

    fig, ax, ys = pipeline_canvas(n, 0.55 * n + 1.4, -0.9)
    for i, y in enumerate(ys):
        ax.text(0.7, y, f"user {i + 1}: {values[i]}", ha="center", va="center", bbox=PIPELINE_BOX)
        ax.text(3.0, y, "RR", ha="center", va="center", bbox=dict(PIPELINE_BOX, fc="#dce9f5"))
        ax.annotate("", xy=(2.55, y), xytext=(1.45, y), arrowprops=PIPELINE_ARROW)
        ax.annotate(
            "",
            xy=(5.2, ys[int(np.flatnonzero(order == i)[0])]),
            xytext=(3.45, y),
            arrowprops=dict(PIPELINE_ARROW, color="#1f4e79"),
        )
        ax.text(4.05, y + 0.12, str(reports[i]), ha="center", va="bottom", color="#1f4e79")
    pipeline_columns(
        ax,
        ys,
        (0.7, 3.0, (5.2, 1.6), (6.85, 8.1)),
        [str(reports[int(j)]) for j in order],
        f"count of ones:\n{sum(reports)} of {n}",
        "Each user randomizes locally; the shuffler removes the order; the analyzer sees only the multiset.",
    )
    return fig


#: Matplotlib ``bbox`` properties of the boxes in the shuffle-model pipelines (drawn by
#: :func:`shuffle_model_diagram` and :func:`shufflelib.personalized.schematics.pipeline_figure`).
PIPELINE_BOX = dict(boxstyle="round,pad=0.3", fc="white", ec="0.3")
#: Matplotlib ``arrowprops`` of the arrows in the shuffle-model pipelines.
PIPELINE_ARROW = dict(arrowstyle="->", color="0.4", lw=1)


def pipeline_canvas(n: int, height: float, bottom: float) -> tuple[Figure, Axes, list[int]]:
    """A column-wide figure for a pipeline of ``n`` users: no axes, ``x`` in ``[0, 10]``, ``y`` in ``[bottom, n]``.

    Returns the figure, its axes and the users' rows ``y`` (user 1 on top).

    Examples
    --------
    >>> fig, ax, ys = pipeline_canvas(3, 3.0, -0.9)
    >>> ys, [float(x) for x in ax.get_xlim()]
    ([2, 1, 0], [0.0, 10.0])
    """
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, height))
    ax.set_xlim(0, 10)
    ax.set_ylim(bottom, n)
    ax.axis("off")
    return fig, ax, [n - 1 - i for i in range(n)]


def pipeline_columns(
    ax: Axes,
    ys: list[int],
    places: tuple[float, float, tuple[float, float], tuple[float, float]],
    shuffled: list[str],
    analyzer: str,
    caption: str,
    *,
    fontsize: str | None = None,
) -> None:
    """What every shuffle-model pipeline draws besides its users' rows.

    The four column titles, the shuffler's box with the reports in their shuffled order, the
    arrow to the analyzer and its box, and the caption below.

    Parameters
    ----------
    ax, ys
        From :func:`pipeline_canvas`.
    places
        ``(users_x, randomizers_x, (shuffler_left, shuffler_width), (arrow_start, arrow_end))``:
        the centres of the first two columns, the shuffler's box, and the arrow to the analyzer.
    shuffled
        The reports' labels in the shuffled order (top to bottom).
    analyzer
        The analyzer's box text.
    caption
        One line below the pipeline.
    fontsize
        Of the reports and the analyzer's box (default: matplotlib's).

    Examples
    --------
    >>> fig, ax, ys = pipeline_canvas(2, 2.0, -0.9)
    >>> pipeline_columns(ax, ys, (0.7, 3.0, (5.2, 1.6), (6.85, 8.1)), ["1", "0"], "one 1", "Two users.")
    >>> [t.get_text() for t in ax.texts][:4]
    ['Users', 'Local randomizers', 'Shuffler', 'Analyzer']
    """
    users_x, randomizers_x, (left, width), (start, end) = places
    shuffler_x, middle = left + width / 2, (len(ys) - 1) / 2
    for x, title in [
        (users_x, "Users"),
        (randomizers_x, "Local randomizers"),
        (shuffler_x, "Shuffler"),
        (8.9, "Analyzer"),
    ]:
        ax.text(x, len(ys) - 0.35, title, ha="center", va="bottom", fontweight="bold")
    ax.add_patch(plt.Rectangle((left, -0.45), width, len(ys) - 0.1, fc="#f3e6d0", ec="0.3"))
    for label, y in zip(shuffled, ys, strict=True):
        ax.text(shuffler_x, y, label, ha="center", va="center", fontsize=fontsize)
    ax.annotate("", xy=(end, middle), xytext=(start, middle), arrowprops=PIPELINE_ARROW)
    ax.text(8.9, middle, analyzer, ha="center", va="center", bbox=dict(PIPELINE_BOX, fc="#e3f0e0"), fontsize=fontsize)
    ax.text(5, ax.get_ylim()[0] + 0.1, caption, ha="center", va="center", fontsize="small")
