"""The book's figure style: vector figures, numbers in titles, legends off the data, full panel grids."""

from __future__ import annotations

import base64

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from shufflelib.plotting import COLUMN_WIDTH, format_number, legend_below, panel_grid, use_book_style  # noqa: E402
from shufflelib.widgets import figure_explorer  # noqa: E402


@pytest.mark.parametrize(
    "value, text",
    [(1e6, "10⁶"), (10**8, "10⁸"), (2.5e6, "2.5 × 10⁶"), (123_456, "1.23 × 10⁵"), (50_000, "50,000"), (1000.0, "1,000"),
     (0.25, "0.25"), (1e-6, "10⁻⁶"), (3e-8, "3 × 10⁻⁸"), (-1e-4, "−10⁻⁴"), (0, "0"), (np.float64(1e5), "10⁵")],
)  # fmt: skip
def test_format_number_writes_what_a_reader_writes(value, text) -> None:
    assert format_number(value) == text
    assert "e+" not in format_number(value) and "e-" not in format_number(value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "1e6", None, True])
def test_format_number_bad_input(value) -> None:
    with pytest.raises(ValueError, match="value must be"):
        format_number(value)


@pytest.mark.parametrize("panels, ncols", [(1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (3, 3), (4, 3), (5, 3), (7, 3)])
def test_panel_grid_leaves_no_slot_empty(panels, ncols) -> None:
    fig, axes = panel_grid(panels, ncols=ncols)
    assert len(axes) == len(fig.axes) == panels
    assert fig.get_size_inches()[0] == COLUMN_WIDTH
    # every row of panels spans the figure's full width: no empty slot at the end of a row
    rows: dict[float, list] = {}
    for ax in axes:
        rows.setdefault(round(ax.get_position().y0, 6), []).append(ax.get_position())
    left, right = min(p.x0 for p in map(lambda a: a.get_position(), axes)), max(a.get_position().x1 for a in axes)
    for positions in rows.values():
        assert min(p.x0 for p in positions) == pytest.approx(left)
        assert max(p.x1 for p in positions) == pytest.approx(right)
    plt.close(fig)


def test_panel_grid_shares_axes_like_subplots() -> None:
    fig, axes = panel_grid(3, sharey=True)
    assert axes[1].get_shared_y_axes().joined(axes[0], axes[1])
    assert axes[2].get_shared_y_axes().joined(axes[0], axes[2])
    labels = [ax.yaxis.get_tick_params()["labelleft"] for ax in axes]
    assert labels == [True, False, True]  # the spanning last row starts in the first column
    with pytest.raises(ValueError, match="sharey"):
        panel_grid(2, sharey="diagonal")
    with pytest.raises(ValueError, match="accepts sharex"):
        panel_grid(2, figsize=(3, 3))
    plt.close(fig)


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@pytest.mark.parametrize("whole_figure", [True, False])
def test_legend_below_is_off_the_data(whole_figure) -> None:
    use_book_style()
    fig, axes = panel_grid(2)
    x = np.linspace(0, 1, 20)
    for ax in axes:
        for k in range(5):
            ax.plot(x, x ** (k + 1), label=f"curve {k}")
        ax.set_xlabel("x")
        ax.legend()
    fig.tight_layout()
    legend = legend_below(fig if whole_figure else axes[0])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = legend.get_window_extent(renderer)
    for ax in axes:
        for part in (
            ax.get_window_extent(renderer),
            ax.xaxis.get_tightbbox(renderer),
            ax.yaxis.get_tightbbox(renderer),
        ):
            assert not _overlaps(box, part), "the legend covers a panel or its labels"
    assert [t.get_text() for t in legend.get_texts()] == [f"curve {k}" for k in range(5)]
    assert (axes[1].get_legend() is None) is whole_figure
    plt.close(fig)


def test_notebooks_show_figures_as_svg_and_pdf() -> None:
    """In IPython, the style hook makes every figure available as SVG (site) and PDF (print)."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        use_book_style()
        fig, ax = plt.subplots()
        ax.plot([0, 1])
        data, _ = shell.display_formatter.format(fig)
        assert data["image/svg+xml"].lstrip().startswith(("<?xml", "<svg"))
        assert base64.b64decode(data["application/pdf"])[:4] == b"%PDF"
        plt.close(fig)
    finally:
        InteractiveShell.clear_instance()


def test_figure_explorer_prints_its_initial_picture() -> None:
    def plot(k):
        fig, ax = plt.subplots(figsize=(2, 2))
        ax.plot(range(k))
        ax.set_title(f"k = {k}")
        return fig

    box = figure_explorer(plot, {"k": [2, 3, 4]}, initial={"k": 4}, caption=lambda k: f"<i>k</i> = {k}")
    bundle = box._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle  # the site and JupyterLab: the live widget
    assert base64.b64decode(bundle["application/pdf"])[:4] == b"%PDF"  # print: the initial picture
    assert "VBox" not in bundle["text/plain"] and bundle["text/plain"] == "k = 4"
    tables = figure_explorer(lambda k: f"<table><tr><td>k</td><td>{k}</td></tr></table>", {"k": [1, 2]})
    assert tables._repr_mimebundle_()["text/plain"] == "k 1"
    slider = figure_explorer(plot, {"k": [2, 3]}).children[0]
    big = figure_explorer(lambda n: "<p>n</p>", {"n": [10**5, 10**6, 2 * 10**6]}).children[0]
    assert [label for label, _ in big.options] == ["10⁵", "10⁶", "2 × 10⁶"]
    assert [label for label, _ in slider.options] == ["2", "3"]


def test_panel_grid_keeps_labels_off_the_neighbouring_panel() -> None:
    fig, axes = panel_grid(2, panel_height=3.4)
    for ax in axes:
        ax.plot([0, 1], [0, 1])
        ax.set_ylabel("type II error (1 − TPR)")
    axes[1].set(xlim=(0.97, 1.0), ylim=(0, 0.01))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert not _overlaps(axes[0].get_tightbbox(renderer), axes[1].get_tightbbox(renderer))
    plt.close(fig)
