"""Schematics of the papers' protocols, drawn for the book with matplotlib (no data).

* :func:`random_population_schematic` — the random-population paper's Fig. 1: of
  ``n'`` potential users a random subset takes part, each sends one randomized
  report, the shuffler mixes them, the server sees an anonymous multiset whose
  size ``N`` is itself random;
* :func:`segmented_schematic` — the segmented paper's Fig. 1: the level round
  (Step 1), the parameter choice (Step 2) and the data round (Step 3), where each
  user sends her reported items and blanket messages.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> fig = random_population_schematic()
>>> len(fig.axes)
1
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

__all__ = ["random_population_schematic", "segmented_schematic"]

_GREY = "0.55"
_LIGHT = "0.88"


def _box(ax, x, y, w, h, text="", face="white", edge="black", style="-", size=9, **kwargs):
    ax.add_patch(
        FancyBboxPatch(
            (x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.05", facecolor=face, edgecolor=edge, linestyle=style
        )
    )
    if text:
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size, **kwargs)


def _arrow(ax, start, end, color="black", style="-"):
    ax.annotate(
        "",
        xy=end,
        xytext=start,
        arrowprops={"arrowstyle": "->", "color": color, "linestyle": style, "shrinkA": 2, "shrinkB": 2},
    )


def _canvas(width: float, height: float, xmax: float, ymax: float) -> tuple[Figure, plt.Axes]:
    fig, ax = plt.subplots(figsize=(width, height))
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, ymax)
    ax.set_axis_off()
    return fig, ax


def random_population_schematic() -> Figure:
    """The shuffle model with a random population (after the paper's Fig. 1).

    Examples
    --------
    >>> random_population_schematic().get_size_inches().tolist()
    [7.0, 3.0]
    """
    fig, ax = _canvas(7.0, 3.0, 10.0, 4.4)
    present = [True, False, True, True, False, True]
    ys = [3.85 - 0.66 * i for i in range(len(present))]
    ax.text(0.75, 4.3, "potential users $n'$", ha="center", fontsize=9)
    for i, (y, here) in enumerate(zip(ys, present, strict=True)):
        label = "user 1" if i == 0 else f"user {i + 1}"
        face, edge = ("white", "black") if here else (_LIGHT, _GREY)
        _box(ax, 0.1, y - 0.22, 1.3, 0.44, label, face=face, edge=edge, color="black" if here else _GREY)
        if here:
            _box(ax, 2.0, y - 0.22, 1.1, 0.44, r"$\mathcal{R}(x_i)$", face=_LIGHT)
            _arrow(ax, (1.42, y), (1.98, y))
            _arrow(ax, (3.12, y), (4.38, 2.2))
        else:
            ax.text(2.55, y, "absent", ha="center", va="center", fontsize=8, color=_GREY, style="italic")
    ax.text(2.55, 4.3, "local randomizer", ha="center", fontsize=9)
    _box(ax, 4.4, 1.5, 1.6, 1.4, "shuffler\n(random\npermutation)", face="white")
    msgs = ["$t_3$", "$t_1$", "$t_6$", "$t_4$"]
    for j, m in enumerate(msgs):
        _box(ax, 6.55 + 0.5 * j, 2.0, 0.42, 0.4, m, face=_LIGHT, size=8)
    _arrow(ax, (6.02, 2.2), (6.5, 2.2))
    ax.text(7.5, 2.65, "N messages, N random", ha="center", fontsize=8)
    _box(ax, 7.0, 0.35, 2.1, 0.75, "server: sees the\nmultiset only", face="white")
    _arrow(ax, (7.5, 1.95), (8.0, 1.12))
    ax.text(5.2, 0.55, "user 1 takes part;\nhow many others do\nis random", ha="center", fontsize=8, style="italic")
    fig.tight_layout()
    return fig


def segmented_schematic() -> Figure:
    """The segmented framework's two rounds and the messages of Algorithm 2 (after the paper's Fig. 1).

    Examples
    --------
    >>> len(segmented_schematic().axes)
    1
    """
    fig, ax = _canvas(7.5, 4.6, 10.0, 6.2)
    colors = {1: "#4C72B0", 2: "#DD8452", 3: "#55A868"}
    users = [(1, ["a", "b"]), (3, ["c", "a"]), (2, ["b", "d"])]
    # Step 1: levels.
    ax.text(0.05, 6.0, "Step 1: level round", fontsize=9, weight="bold")
    for i, (level, _) in enumerate(users):
        y = 5.35 - 0.5 * i
        _box(ax, 0.1, y - 0.18, 1.1, 0.36, f"user {i + 1}", size=8)
        _box(ax, 1.55, y - 0.16, 0.5, 0.32, f"$k={level}$", face=colors[level], size=8, color="white")
        _arrow(ax, (1.22, y), (1.53, y))
        _arrow(ax, (2.07, y), (3.18, 4.85))
    _box(ax, 3.2, 4.45, 1.5, 0.8, "shuffler", size=9)
    _arrow(ax, (4.72, 4.85), (5.3, 4.85))
    _box(ax, 5.3, 4.45, 2.2, 0.8, "server: level histogram\n" + r"$\hat n_1, \hat n_2, \hat n_3$", size=8)
    # Step 2: parameters.
    ax.text(7.75, 6.0, "Step 2", fontsize=9, weight="bold")
    _box(ax, 7.75, 4.45, 2.15, 0.8, "choose $m$ and\n" + r"$\lambda_1, \lambda_2, \lambda_3$", size=8)
    _arrow(ax, (7.52, 4.85), (7.73, 4.85))
    _arrow(ax, (8.8, 4.43), (8.8, 3.75), style="--")
    ax.text(8.9, 3.95, "broadcast", fontsize=7, style="italic")
    # Step 3: data.
    ax.text(0.05, 3.75, "Step 3: data round (Algorithm 2)", fontsize=9, weight="bold")
    for i, (level, items) in enumerate(users):
        y = 3.05 - 0.95 * i
        _box(ax, 0.1, y - 0.2, 1.1, 0.4, f"user {i + 1}", size=8)
        x = 1.5
        for j, item in enumerate(items):
            sent = not (i == 0 and j == 1)  # user 1 at the conservative level drops one item
            _box(
                ax,
                x,
                y - 0.17,
                0.42,
                0.34,
                item,
                face=colors[level] if sent else "white",
                edge=colors[level],
                style="-" if sent else "--",
                size=8,
                color="white" if sent else colors[level],
            )
            x += 0.5
        for _ in range(2 if i != 1 else 1):
            _box(ax, x, y - 0.17, 0.42, 0.34, "?", face=_LIGHT, edge=_GREY, size=8)
            x += 0.5
        _arrow(ax, (x, y), (4.18, 1.95))
    ax.text(1.5, 3.45, r"items, each sent w.p. $\lambda_k$", fontsize=7, color="0.3")
    _box(ax, 4.2, 1.55, 1.5, 0.8, "shuffler", size=9)
    _arrow(ax, (5.72, 1.95), (6.2, 1.95))
    _box(
        ax,
        6.2,
        1.4,
        3.7,
        1.1,
        "server: counts $C_j$ of each item,\n" + r"$\hat W_j = (C_j - nm/d)\,/\,\sum_k \hat n_k\lambda_k$",
        size=8,
    )
    # Legend.
    _box(ax, 4.2, 0.25, 0.42, 0.34, "a", face=colors[1], size=8, color="white")
    ax.text(4.7, 0.42, "reported item", fontsize=7, va="center")
    _box(ax, 5.9, 0.25, 0.42, 0.34, "b", face="white", edge=colors[1], style="--", size=8, color=colors[1])
    ax.text(6.4, 0.42, "not sent (w.p. $1-\\lambda_k$)", fontsize=7, va="center")
    _box(ax, 8.2, 0.25, 0.42, 0.34, "?", face=_LIGHT, edge=_GREY, size=8)
    ax.text(8.7, 0.42, "blanket: uniform item", fontsize=7, va="center")
    fig.tight_layout()
    return fig
