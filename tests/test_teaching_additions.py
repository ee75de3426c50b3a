"""The science behind the walk-throughs added for teaching (random population, preface)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shufflelib.population.laws import PoissonPopulation, SubGaussianTail


@pytest.mark.parametrize("tau, b", [(100.0, 0.02), (50.0, 0.1), (1.0, 3.0)])
def test_subgaussian_tail_as_subexponential_dominates_it(tau: float, b: float) -> None:
    tail = SubGaussianTail(5000, tau).as_subexponential(b)
    t = np.linspace(0, 20 * tau, 2001)
    assert np.all(np.exp(-(t**2) / tau**2) <= tail.a * np.exp(-tail.b * t) * (1 + 1e-12))
    # equality where the square vanishes, t = b tau^2 / 2: the conversion is the tightest of its form
    t0 = b * tau**2 / 2
    assert math.isclose(math.exp(-(t0**2) / tau**2), tail.a * math.exp(-b * t0), rel_tol=1e-9)


def test_poisson_tail_converted_still_bounds_the_exact_tail() -> None:
    law = PoissonPopulation(5000)
    tail = law.subgaussian_tail().as_subexponential(0.01)
    for t in [0, 50, 100, 200, 300]:
        exact = float(law.cdf(math.floor(5000 - t)))
        assert exact <= tail.a * math.exp(-tail.b * t)


def test_as_subexponential_rejects_a_bad_rate() -> None:
    with pytest.raises(ValueError, match="b"):
        SubGaussianTail(5000, 10).as_subexponential(0.0)


def test_shuffle_model_diagram_shows_the_shuffled_reports_and_their_count() -> None:
    import matplotlib

    matplotlib.use("Agg")
    from shufflelib.plotting import shuffle_model_diagram

    fig = shuffle_model_diagram((1, 0, 1, 1, 0), seed=5)
    texts = [t.get_text() for t in fig.axes[0].texts]
    count = next(t for t in texts if t.startswith("count of ones"))
    # the shuffler column (x = 6) shows a permutation of the reports, whose ones the analyzer counts
    shuffled = [int(t.get_text()) for t in fig.axes[0].texts if t.get_position()[0] == 6.0 and t.get_text() in "01"]
    reports = [int(t.get_text()) for t in fig.axes[0].texts if t.get_position()[0] == 4.05]
    assert len(shuffled) == 5 and sorted(shuffled) == sorted(reports)
    assert count.endswith(f"{sum(reports)} of 5")
    with pytest.raises(ValueError, match="values"):
        shuffle_model_diagram((1, 2))


def test_figure_text_stays_legible_on_screen() -> None:
    """The smallest text the book's figures use is >= 10 px on screen.

    Figures are shown at >= 90 % of their natural size (tests/test_site.py checks this in the
    browser); widget pictures are rendered at 90 dpi and never shrunk (they fit the column).
    """
    import re
    from pathlib import Path

    from matplotlib.font_manager import FontProperties

    from shufflelib.plotting import DPI, use_book_style

    def text_height_px(size: float | str, *, dpi: float, scale: float = 1.0) -> float:
        """Screen pixels of text of this size (points, or a name relative to font.size) at ``scale``."""
        return FontProperties(size=size).get_size_in_points() * dpi / 72 * scale

    use_book_style()
    assert text_height_px("small", dpi=DPI, scale=0.9) >= 10
    assert text_height_px("small", dpi=90) >= 10
    book = Path(__file__).resolve().parents[1] / "book"
    for chapter in sorted(book.glob("*.md")):
        text = chapter.read_text()
        assert not re.search(r"fontsize=\"(x-small|xx-small)\"", text), chapter.name
        for size in re.findall(r"fontsize=(\d+(?:\.\d+)?)", text):
            assert text_height_px(float(size), dpi=90) >= 10, f"{chapter.name}: fontsize={size}"
