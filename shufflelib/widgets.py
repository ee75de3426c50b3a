"""Widgets that stay interactive on the static website.

A widget in a Jupyter Book page normally needs a running kernel: on the static
site its sliders move but nothing happens. :func:`figure_explorer` avoids that.
It draws the figure once for every point of a small parameter grid, stacks the
pictures in nested :class:`ipywidgets.Stack` widgets, and links each slider's
position to the stacks' ``selected_index`` with :func:`ipywidgets.jslink`. A
``jslink`` runs in the browser, so the same widget works in Jupyter, in Binder
and on the website with no kernel at all. In print (the PDF edition) a widget
cannot move: the explorer then shows the figure of its initial grid point, as
a vector PDF, in place of its controls.

Examples
--------
>>> import matplotlib.pyplot as plt
>>> import numpy as np
>>> from shufflelib.widgets import figure_explorer
>>> def plot(eps0, n):
...     fig, ax = plt.subplots(figsize=(3, 2))
...     ax.plot(np.arange(n), np.full(n, eps0))
...     return fig
>>> box = figure_explorer(plot, {"eps0": [0.5, 1.0], "n": [10, 100]})
>>> len(box.children)  # two sliders and the stack of pictures
3
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence, Sized
from typing import Any

import ipywidgets
import ipywidgets as widgets
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from .plotting import format_number

__all__ = ["FigureExplorer", "figure_explorer", "render_png", "MAX_GRID_POINTS"]

#: Largest number of grid points (pictures) a single explorer precomputes.
MAX_GRID_POINTS = 240


def render_png(fig: Figure, *, dpi: int = 90) -> bytes:
    """Render a matplotlib figure to PNG bytes and close it.

    Parameters
    ----------
    fig
        The figure to render.
    dpi
        Resolution in dots per inch.

    Returns
    -------
    bytes
        The PNG file's content.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> render_png(fig)[:4]
    b'\\x89PNG'
    """
    if not isinstance(fig, Figure):
        raise ValueError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def _label(value: Any) -> str:
    """A slider's label for a grid value: 10⁶ and 2 × 10⁻⁴ for large and small numbers."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-3):
        return format_number(value, digits=6)
    return f"{value:g}" if isinstance(value, float) else str(value)


class FigureExplorer(widgets.VBox):
    """The box of :func:`figure_explorer`: its controls above the stack of pictures.

    Shown by a notebook, it offers the live widget and, for what cannot run widgets (the
    PDF edition), a still: the figure of the initial grid point as a vector PDF and a PNG
    (or, for an explorer of HTML views, the text of the initial view) instead of the
    box's Python repr.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> empty = lambda k: plt.figure(figsize=(2, 2))
    >>> box = figure_explorer(empty, {"k": [2, 3]}, caption=lambda k: f"<b>k</b> = {k}")
    >>> sorted(box._repr_mimebundle_())[:2], box._repr_mimebundle_()["text/plain"]
    (['application/pdf', 'application/vnd.jupyter.widget-view+json'], 'k = 2')
    """

    def __init__(self, children: Sequence[ipywidgets.Widget], still: Mapping[str, str]) -> None:
        super().__init__(list(children))
        self._still = dict(still)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle = dict(bundle[0] if isinstance(bundle, tuple) else bundle or {})
        bundle.update(self._still)
        return bundle


def _still(shown: Figure | str, caption: str | None) -> dict[str, str]:
    """What print shows of the initial grid point: the figure (PDF and PNG) or the HTML's text."""
    text = caption and re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", caption))).strip()
    if isinstance(shown, str):
        body = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", shown))).strip()
        return {"text/plain": "\n".join(filter(None, [body, text]))}
    still = {"text/plain": text or "(an interactive figure: its first picture is shown in print)"}
    for fmt, mime in (("pdf", "application/pdf"), ("png", "image/png")):
        buffer = io.BytesIO()
        shown.savefig(buffer, format=fmt, bbox_inches="tight")
        still[mime] = base64.b64encode(buffer.getvalue()).decode("ascii")
    return still


def _control(values: Sequence[Any], start: int, label: str) -> widgets.Widget:
    """A dropdown for categories (all values strings), a slider for ordered values."""
    common = dict(
        options=[(_label(v), i) for i, v in enumerate(values)],
        value=start,
        description=label,
        style={"description_width": "initial"},
    )
    if all(isinstance(v, str) for v in values):
        return widgets.Dropdown(**common)
    return widgets.SelectionSlider(**common, continuous_update=True, layout=widgets.Layout(width="min(32rem, 100%)"))


def figure_explorer(
    plot: Callable[..., Figure],
    grid: Mapping[str, Sequence[Any]],
    *,
    labels: Mapping[str, str] | None = None,
    initial: Mapping[str, Any] | None = None,
    caption: Callable[..., str] | None = None,
    dpi: int = 90,
) -> FigureExplorer:
    """Sliders over a parameter grid that flip between precomputed figures.

    Parameters
    ----------
    plot
        Called as ``plot(**params)`` for every point of the grid; returns a
        matplotlib :class:`~matplotlib.figure.Figure` (rendered to PNG and
        closed) or a string of HTML (shown as is, e.g. a table of numbers).
    grid
        Parameter name -> the values its control offers (1 to 40 values each,
        at most :data:`MAX_GRID_POINTS` grid points in all). A parameter whose
        values are all strings (categories, such as a population law) gets a
        dropdown; any other parameter gets a slider.
    labels
        Parameter name -> slider label (default: the parameter name).
    initial
        Parameter name -> the value selected at first (default: each list's
        middle value).
    caption
        Optional ``caption(**params) -> str`` shown (as HTML) under each figure,
        for example the numbers the figure shows.
    dpi
        Resolution of the pictures.

    Returns
    -------
    FigureExplorer
        An :class:`ipywidgets.VBox`: one slider per parameter above the stack of
        pictures; in print, the figure of the initial grid point.

    Notes
    -----
    The sliders are linked to the stacks by :func:`ipywidgets.jslink`, which
    runs in the browser. On the static site, and in a live kernel alike, moving
    a slider shows the picture precomputed for that grid point; no Python code
    runs, so the response is immediate.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> def plot(k):
    ...     fig, ax = plt.subplots(figsize=(2, 2))
    ...     ax.plot(range(k))
    ...     return fig
    >>> box = figure_explorer(plot, {"k": [2, 3, 4]}, caption=lambda k: f"k = {k}")
    >>> [type(w).__name__ for w in box.children]
    ['SelectionSlider', 'Stack']
    >>> def plot_law(law, k):
    ...     return f"<p>{law}, k = {k}</p>"
    >>> box = figure_explorer(plot_law, {"law": ["binomial", "Poisson"], "k": [2, 3]})
    >>> [type(w).__name__ for w in box.children]
    ['Dropdown', 'SelectionSlider', 'Stack']
    """
    if not callable(plot):
        raise ValueError("plot must be a callable returning a matplotlib Figure")
    if not isinstance(grid, Mapping) or not grid:
        raise ValueError("grid must be a non-empty mapping of parameter name -> values")
    names = list(grid)
    values = {}
    for name in names:
        # At most 41 values are read: a huge range or generator is refused without being listed.
        vals = list(itertools.islice(grid[name], 41))
        if not 1 <= len(vals) <= 40:
            size = len(grid[name]) if isinstance(grid[name], Sized) else "more than 40"
            raise ValueError(f"grid[{name!r}] must hold between 1 and 40 values, got {size}")
        values[name] = vals
    total = math.prod(len(v) for v in values.values())
    if total > MAX_GRID_POINTS:
        raise ValueError(f"grid must have at most {MAX_GRID_POINTS} points in all, got {total}: use fewer values")
    labels = dict(labels or {})
    unknown = (set(labels) | set(initial or {})) - set(names)
    if unknown:
        raise ValueError(f"labels and initial may only name grid parameters, got {sorted(unknown)}")
    if not isinstance(dpi, int) or not 20 <= dpi <= 300:
        raise ValueError(f"dpi must be an integer in [20, 300], got {dpi!r}")

    start = {}
    for name in names:
        if initial and name in initial:
            if initial[name] not in values[name]:
                raise ValueError(f"initial[{name!r}] must be one of grid[{name!r}], got {initial[name]!r}")
            start[name] = values[name].index(initial[name])
        else:
            start[name] = (len(values[name]) - 1) // 2

    controls = [_control(values[name], start[name], labels.get(name, name)) for name in names]
    initial_point = tuple(values[name][start[name]] for name in names)
    still: dict[str, str] = {}

    def cell(point: tuple[Any, ...]) -> widgets.Widget:
        params = dict(zip(names, point, strict=False))
        shown = plot(**params)
        if point == initial_point and isinstance(shown, (str, Figure)):
            still.update(_still(shown, caption(**params) if caption else None))
        if isinstance(shown, str):
            view: widgets.Widget = widgets.HTML(shown)
        elif isinstance(shown, Figure):
            view = widgets.Image(value=render_png(shown, dpi=dpi), format="png")
            view.layout = widgets.Layout(max_width="100%", height="auto")
        else:
            raise ValueError(
                f"plot must return a matplotlib Figure or a str of HTML, got {type(shown).__name__} at {params}"
            )
        if caption is None:
            return view
        return widgets.VBox([view, widgets.HTML(caption(**params))])

    def build(depth: int, prefix: tuple[Any, ...]) -> widgets.Widget:
        name = names[depth]
        if depth == len(names) - 1:
            children = [cell(prefix + (v,)) for v in values[name]]
        else:
            children = [build(depth + 1, prefix + (v,)) for v in values[name]]
        stack = widgets.Stack(children, selected_index=start[name])
        widgets.jslink((controls[depth], "index"), (stack, "selected_index"))
        return stack

    figures = build(0, ())
    return FigureExplorer([*controls, figures], still)
