"""The regions of Liu et al.'s Fig. 2 and the pointwise conditions of a clone decomposition."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from shufflelib.personalized import LocalMechanism, paper_p1, paper_pi  # noqa: E402
from shufflelib.personalized.regions import region_picture  # noqa: E402
from shufflelib.personalized.schematics import pipeline_figure, regions_figure  # noqa: E402

LAPLACE = LocalMechanism("laplace")


@pytest.mark.parametrize("eps_i, eps1", [(0.5, 2.0), (1.0, 2.0), (1.0, 3.0), (2.5, 3.0)])
def test_areas_of_the_regions_are_the_papers_type_one_errors(eps_i, eps1):
    pic = region_picture(LAPLACE, eps_i, eps1, points=200_001)
    _, p0, p1 = paper_pi(LAPLACE, eps_i, 0.0, eps1)
    assert pic.area(pic.u0) == pytest.approx(float(p0), abs=2e-4)
    assert pic.area(pic.u1) == pytest.approx(float(p1), abs=2e-4)
    assert pic.p_paper == pytest.approx(min(float(p0), float(p1)))
    assert pic.w_paper == pytest.approx(paper_p1(LAPLACE, eps1))


@pytest.mark.parametrize("eps1", [0.5, 1.0, 2.0, 3.0])
def test_the_papers_weight_breaks_the_decomposition_and_the_valid_one_does_not(eps1):
    pic = region_picture(LAPLACE, eps1 / 2, eps1)
    # Laplace: the largest weight is 1 / (1 + e^eps1), exactly (the ratio is constant on z <= 0)
    assert pic.w_grid == pytest.approx(1 / (1 + math.exp(eps1)), rel=1e-12)
    assert pic.w_paper > pic.w_grid
    assert pic.weight_residual(pic.w_paper).min() < 0
    assert pic.weight_residual(pic.w_grid).min() >= -1e-15
    # the paper's clone probability is also too large for user i at x_i = x^0
    assert pic.p_paper > pic.p_grid
    assert pic.clone_residual(pic.p_paper).min() < 0
    assert pic.clone_residual(pic.p_grid).min() >= -1e-15


def test_the_valid_clone_probability_is_the_smallest_density_ratio():
    pic = region_picture(LAPLACE, 1.0, 2.0, points=4001)
    ratio = pic.gi / (pic.g0 + pic.g1)
    assert pic.p_grid == pytest.approx(ratio.min())
    # for Laplace it is attained at the peak of g_1, z = 1: eps_i e^{-eps_i} / (eps_1 (1 + e^{-eps_1}))
    assert abs(pic.z[np.argmin(ratio)] - 1.0) < 2e-3
    assert pic.p_grid == pytest.approx(1.0 * math.exp(-1.0) / (2.0 * (1 + math.exp(-2.0))), rel=1e-3)


def test_gaussian_reports_admit_no_positive_weight_in_the_limit():
    wide = region_picture(LocalMechanism("gaussian", "paper"), 1.0, 2.0, points=20_001)
    assert wide.w_grid < 1e-4 < wide.w_paper  # the likelihood ratio is unbounded


def test_a_user_between_the_inputs_uses_the_papers_grid_recipe():
    pic = region_picture(LAPLACE, 1.0, 2.0, x_i=0.5)
    assert 0 < pic.p_paper < 0.5
    assert pic.clone_residual(pic.p_grid).min() >= -1e-15


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(eps_i=2.0, eps1=2.0), "eps_i"),
        (dict(eps_i=3.0, eps1=2.0), "eps_i"),
        (dict(eps_i=-1.0, eps1=2.0), "eps_i"),
        (dict(eps_i=1.0, eps1=float("nan")), "eps1"),
        (dict(eps_i=1.0, eps1=2.0, x_i=1.5), "x_i"),
        (dict(eps_i=1.0, eps1=2.0, points=10), "points"),
    ],
)
def test_bad_input_is_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        region_picture(LAPLACE, **kwargs)


def test_randomized_response_is_refused():
    with pytest.raises(ValueError, match="mechanism"):
        region_picture(LocalMechanism("rr"), 1.0, 2.0)


def test_the_schematics_draw_their_parts():
    fig = pipeline_figure()
    texts = {t.get_text() for t in fig.axes[0].texts}
    assert {"Users", "Local randomizers", "Shuffler", "Analyzer"} <= texts
    assert any("varepsilon_4 = 0.2" in t for t in texts)
    fig = regions_figure(region_picture(LAPLACE, 1.0, 2.0), eps_i=1.0, eps1=2.0)
    assert len(fig.axes) == 3
    with pytest.raises(ValueError, match="values"):
        pipeline_figure(values=(0.5,), budgets=((1.0, 0.0),))
    with pytest.raises(ValueError, match="budgets"):
        pipeline_figure(values=(0.5, 0.2), budgets=((1.0, 0.0), (-1.0, 0.0)))
