"""``shufflelib._laws`` against ``scipy.stats.binom`` and ``scipy.stats.poisson``: bit for bit, edges
included, frozen laws too; and the calculator's start-up: what a simple question and a population
question import (structure, not time: the time is ``benchmarks/bench_startup.py``'s)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from scipy import stats

from shufflelib._laws import binom, poisson


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


@pytest.mark.parametrize("name", ["pmf", "cdf", "sf", "logpmf"])
def test_bit_for_bit_with_scipy(name):
    rng = np.random.default_rng(7)
    size = 50_000
    n = np.floor(np.exp(rng.uniform(0.0, np.log(1e9), size)))
    n[:50], n[50:100] = 0.0, 1.0
    n[100:150] += 0.5  # not an integer: invalid
    n[150:200] = -1.0
    p = rng.uniform(0.0, 1.0, size)
    p[200:250], p[250:300], p[300:350], p[350:400] = 0.0, 1.0, -0.1, 1.5
    k = np.floor(n * rng.uniform(-0.2, 1.2, size) + rng.normal(0.0, 3.0, size))
    k[400:450] += 0.5
    k[450:460], k[460:470], k[470:480] = np.nan, np.inf, -np.inf
    assert _same(getattr(binom, name)(k, n, p), getattr(stats.binom, name)(k, n, p))


@pytest.mark.parametrize("args", [(3, 10, 0.5), (-1, 10, 0.5), (10, 10, 0.5), (11, 10, 0.5), (0, 0, 0.3), (2, 7, 0.0)])
@pytest.mark.parametrize("name", ["pmf", "cdf", "sf", "logpmf"])
def test_scalars_are_numpy_scalars_as_scipy_gives(name, args):
    ours, theirs = getattr(binom, name)(*args), getattr(stats.binom, name)(*args)
    assert _same(ours, theirs) and type(ours) is type(theirs)


def _quantile_levels(rng, size: int) -> np.ndarray:
    """Levels ``q`` for ``ppf``: uniform, far in both tails, and the edges (0, 1, outside, NaN)."""
    q = rng.uniform(0.0, 1.0, size)
    q[: size // 4] = 10.0 ** rng.uniform(-300.0, 0.0, size // 4)
    q[size // 4 : size // 2] = 1.0 - 10.0 ** rng.uniform(-16.0, 0.0, size // 4)
    q[:10], q[10:20], q[20:30], q[30:40], q[40:50] = 0.0, 1.0, -0.5, 1.5, np.nan
    return q


def test_binomial_ppf_bit_for_bit_with_scipy():
    rng = np.random.default_rng(11)
    size = 20_000
    n = np.floor(np.exp(rng.uniform(0.0, np.log(1e9), size)))
    n[50:60], n[60:70], n[70:80] = 0.0, 2.5, -1.0
    p = rng.uniform(0.0, 1.0, size)
    p[80:90], p[90:100], p[100:110] = 0.0, 1.0, 1.5
    q = _quantile_levels(rng, size)
    with warnings.catch_warnings():  # Boost's quantile search warns for the farthest levels, in SciPy too
        warnings.simplefilter("ignore", RuntimeWarning)
        assert _same(binom.ppf(q, n, p), stats.binom.ppf(q, n, p))


def _poisson_grid(rng, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Means from 1e-300 to 1e12 (and 0, negative, NaN, inf), points around them and far off."""
    mu = 10.0 ** rng.uniform(-300.0, 12.0, size)
    mu[: size // 2] = 10.0 ** rng.uniform(-3.0, 12.0, size // 2)  # most where the mass is spread
    mu[:20], mu[20:30], mu[30:40], mu[40:50] = 0.0, -1.0, np.nan, np.inf
    with np.errstate(invalid="ignore"):  # the invalid means give NaN points
        k = np.floor(mu + np.sqrt(mu) * rng.normal(0.0, 8.0, size) + rng.normal(0.0, 3.0, size))
    k[100:200] += rng.uniform(0.01, 0.99, 100)  # not integers
    k[200:300] = -np.floor(10.0 ** rng.uniform(0.0, 6.0, 100))
    k[300:400] = np.floor(10.0 ** rng.uniform(12.0, 300.0, 100))  # far above any mean
    k[400:410], k[410:420], k[420:430], k[430:440] = np.nan, np.inf, -np.inf, 0.0
    return k, mu


@pytest.mark.parametrize("name", ["pmf", "cdf", "sf", "logpmf"])
def test_poisson_bit_for_bit_with_scipy(name):
    k, mu = _poisson_grid(np.random.default_rng(5), 50_000)
    with np.errstate(invalid="ignore"):  # mu = inf: inf - inf in the log-pmf, in SciPy too
        assert _same(getattr(poisson, name)(k, mu), getattr(stats.poisson, name)(k, mu))


def test_poisson_ppf_bit_for_bit_with_scipy():
    rng = np.random.default_rng(13)
    size = 20_000
    _, mu = _poisson_grid(rng, size)
    q = _quantile_levels(rng, size)
    with np.errstate(invalid="ignore"):
        assert _same(poisson.ppf(q, mu), stats.poisson.ppf(q, mu))


@pytest.mark.parametrize("args", [(3, 2.0), (-1, 2.0), (0, 0.0), (2.5, 1.0), (1e300, 1e12), (4, -1.0)])
@pytest.mark.parametrize("name", ["pmf", "cdf", "sf", "logpmf"])
def test_poisson_scalars_are_numpy_scalars_as_scipy_gives(name, args):
    ours, theirs = getattr(poisson, name)(*args), getattr(stats.poisson, name)(*args)
    assert _same(ours, theirs) and type(ours) is type(theirs)


FROZEN = [
    ("binom", (10, 0.5)),
    ("binom", (0, 0.3)),
    ("binom", (999_999_999, 1e-9 / 3.0)),
    ("binom", (48_841, 0.2 * 0.36787944117144233)),
    ("binom", (7, -0.0)),
    ("poisson", (1e-300,)),
    ("poisson", (0.0,)),
    ("poisson", (367_879_441.17144233,)),
    ("poisson", (1e12,)),
]


@pytest.mark.parametrize(("name", "params"), FROZEN)
def test_frozen_laws_as_scipy_frozen_laws(name, params):
    ours, theirs = {"binom": binom, "poisson": poisson}[name](*params), getattr(stats, name)(*params)
    for moment in ("mean", "var", "std"):
        assert _same(getattr(ours, moment)(), getattr(theirs, moment)()), moment
        assert isinstance(getattr(ours, moment)(), np.float64)
    assert all(_same(a, b) for a, b in zip(ours.support(), theirs.support(), strict=True))
    mean, sd = float(theirs.mean()), float(theirs.std())
    k = np.floor(mean + sd * np.linspace(-40.0, 40.0, 801))
    q = np.array([0.0, 1e-300, 1e-30, 1e-17, 1e-6, 0.5, 1.0 - 1e-6, 1.0 - 1e-16, 1.0])
    for method, x in (("pmf", k), ("logpmf", k), ("cdf", k), ("sf", k), ("ppf", q)):
        assert _same(getattr(ours, method)(x), getattr(theirs, method)(x)), method
        assert _same(getattr(ours, method)(x[3]), getattr(theirs, method)(x[3])), method


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.split())


def test_a_simple_question_loads_neither_scipy_stats_nor_other_families():
    loaded = _modules_after(
        "import contextlib, io\n"
        "from shufflelib.calculator import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['epsilon', '--bound', 'clones', '--n', '100000', '--eps0', '1', '--delta', '1e-6'])"
    )
    for module in (
        "scipy.stats",
        "scipy.signal",
        "scipy.optimize",
        "scipy.linalg",
        "shufflelib.composition",
        "shufflelib.personalized.bounds",
        "shufflelib.population.bounds",
        "shufflelib.segmented.optimize",
        "shufflelib.bounds.exact",
    ):
        assert module not in loaded, module
    assert "shufflelib.bounds.clones" in loaded


@pytest.mark.parametrize("population", ["poisson:1000000000", "binomial:1000000000,0.5"])
def test_a_population_question_loads_no_scipy_stats(population):
    loaded = _modules_after(
        "import contextlib, io\n"
        "from shufflelib.calculator import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['delta', '--bound', 'pop-tight', '--population', '{population}', '--eps0', '1', '--eps', '0.5'])"
    )
    assert "shufflelib.population.tight" in loaded
    assert "scipy.stats" not in loaded


def test_a_personalized_question_loads_neither_scipy_stats_nor_scipy_signal():
    """The personalized bounds' start-up: ``theorems`` reads the binomial from ``_laws``, ``audit``
    (imported with the Monte Carlo module) and ``exact_shuffle`` import SciPy's modules on first use."""
    loaded = _modules_after(
        "import contextlib, io\n"
        "from shufflelib.calculator import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['epsilon', '--bound', 'pers-liu24', '--randomizer', 'rr', '--counts', '1,999',"
        " '--eps0', '0.5,1', '--delta', '1e-6'])"
    )
    assert "shufflelib.personalized.theorems" in loaded and "shufflelib.audit" in loaded
    assert "scipy.stats" not in loaded and "scipy.signal" not in loaded


def test_the_command_line_turns_numpys_hugepage_advice_off():
    """``python -m shufflelib`` sets ``NUMPY_MADVISE_HUGEPAGE=0`` before NumPy's import (unless it is set)."""
    code = "import shufflelib.__main__, numpy._core.multiarray as m; print(m._get_madvise_hugepage())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False"]
    env = {**os.environ, "NUMPY_MADVISE_HUGEPAGE": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split() == ["True"]
