"""The static-friendly figure explorer and the exercise checker."""

from __future__ import annotations

import ipywidgets as widgets
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from shufflelib.exercises import check_answer  # noqa: E402
from shufflelib.widgets import MAX_GRID_POINTS, figure_explorer, render_png  # noqa: E402


def titled(**params):
    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.set_title(repr(sorted(params.items())))
    return fig


def test_one_picture_per_grid_point_and_linked_stacks(monkeypatch) -> None:
    links = []
    real_jslink = widgets.jslink
    monkeypatch.setattr(widgets, "jslink", lambda *args: links.append(real_jslink(*args)) or links[-1])
    grid = {"a": [1, 2, 3], "b": [10, 20]}
    box = figure_explorer(titled, grid, initial={"a": 3, "b": 10})
    *sliders, outer = box.children
    assert [s.description for s in sliders] == ["a", "b"]
    assert [s.index for s in sliders] == [2, 0]
    assert isinstance(outer, widgets.Stack) and len(outer.children) == 3
    assert outer.selected_index == 2
    pictures = []
    for inner in outer.children:
        assert isinstance(inner, widgets.Stack) and inner.selected_index == 0
        pictures.extend(bytes(child.value) for child in inner.children)
    assert len(pictures) == 6
    assert len(set(pictures)) == 6, "every grid point must have its own picture"
    assert all(p.startswith(b"\x89PNG") for p in pictures)

    # One link from slider a to the outer stack, one from slider b to each inner stack.
    assert len(links) == 1 + 3
    targets = {(link.source[0].description, id(link.target[0])) for link in links}
    assert ("a", id(outer)) in targets
    assert all(("b", id(inner)) in targets for inner in outer.children)
    assert all(link.source[1] == "index" and link.target[1] == "selected_index" for link in links)


def test_picture_order_follows_slider_order() -> None:
    seen = []

    def record(**params):
        seen.append((params["x"], params["y"]))
        return titled(**params)

    figure_explorer(record, {"x": [0, 1], "y": ["p", "q", "r"]})
    assert seen == [(0, "p"), (0, "q"), (0, "r"), (1, "p"), (1, "q"), (1, "r")]


def test_caption_is_shown_under_each_picture() -> None:
    box = figure_explorer(titled, {"x": [1, 2]}, caption=lambda x: f"<b>x = {x}</b>")
    stack = box.children[-1]
    captions = [cell.children[1].value for cell in stack.children]
    assert captions == ["<b>x = 1</b>", "<b>x = 2</b>"]


def test_html_cells_and_wrong_return_type() -> None:
    box = figure_explorer(lambda x: f"<table><tr><td>{x}</td></tr></table>", {"x": [1, 2]})
    stack = box.children[-1]
    assert [cell.value for cell in stack.children] == [
        "<table><tr><td>1</td></tr></table>",
        "<table><tr><td>2</td></tr></table>",
    ]
    with pytest.raises(ValueError, match="plot must return"):
        figure_explorer(lambda x: 42, {"x": [1]})


def test_render_png_closes_the_figure() -> None:
    fig, _ = plt.subplots()
    number = fig.number
    assert render_png(fig).startswith(b"\x89PNG")
    assert not plt.fignum_exists(number)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"plot": "not callable", "grid": {"a": [1]}}, "plot"),
        ({"plot": titled, "grid": {}}, "grid"),
        ({"plot": titled, "grid": {"a": []}}, "grid"),
        ({"plot": titled, "grid": {"a": list(range(41))}}, "grid"),
        ({"plot": titled, "grid": {"a": list(range(20)), "b": list(range(20))}}, f"at most {MAX_GRID_POINTS}"),
        ({"plot": titled, "grid": {"a": [1]}, "labels": {"z": "?"}}, "labels"),
        ({"plot": titled, "grid": {"a": [1, 2]}, "initial": {"a": 5}}, "initial"),
        ({"plot": titled, "grid": {"a": [1]}, "dpi": 5}, "dpi"),
    ],
)
def test_bad_input(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        figure_explorer(**kwargs)


def test_render_png_bad_input() -> None:
    with pytest.raises(ValueError, match="fig"):
        render_png("figure")


def test_check_answer(capsys) -> None:
    assert check_answer(0.5, 0.5)
    assert not check_answer(0.6, 0.5)
    assert "too large" in capsys.readouterr().out
    assert not check_answer(None, 0.5)
    assert "Replace None" in capsys.readouterr().out
    assert check_answer(0.5004, 0.5, rtol=1e-3)
    with pytest.raises(ValueError, match="answer"):
        check_answer("half", 0.5)
    with pytest.raises(ValueError, match="expected"):
        check_answer(0.5, float("nan"))
    with pytest.raises(ValueError, match="rtol"):
        check_answer(0.5, 0.5, rtol=-1)
