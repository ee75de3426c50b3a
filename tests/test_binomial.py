"""``shufflelib._binomial`` against ``scipy.stats.binom``: bit for bit, edges included; and the
calculator's start-up: what a simple question imports (structure, not time: the time is
``benchmarks/bench_startup.py``'s)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy.stats import binom as scipy_binom

from shufflelib._binomial import binom


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
    assert _same(getattr(binom, name)(k, n, p), getattr(scipy_binom, name)(k, n, p))


@pytest.mark.parametrize("args", [(3, 10, 0.5), (-1, 10, 0.5), (10, 10, 0.5), (11, 10, 0.5), (0, 0, 0.3), (2, 7, 0.0)])
@pytest.mark.parametrize("name", ["pmf", "cdf", "sf", "logpmf"])
def test_scalars_are_numpy_scalars_as_scipy_gives(name, args):
    ours, theirs = getattr(binom, name)(*args), getattr(scipy_binom, name)(*args)
    assert _same(ours, theirs) and type(ours) is type(theirs)


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
        "shufflelib.composition",
        "shufflelib.personalized.bounds",
        "shufflelib.population.bounds",
        "shufflelib.segmented.optimize",
        "shufflelib.bounds.exact",
    ):
        assert module not in loaded, module
    assert "shufflelib.bounds.clones" in loaded
