"""Algorithm 1 end to end with a private level round (:mod:`shufflelib.segmented.framework`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shufflelib.segmented.framework import level_round_loss, two_rounds
from shufflelib.segmented.populations import msnbc_like


def test_level_round_loss_is_eps_p_exactly():
    for eps_p in (0.1, 1.0, 3.0):
        assert math.isclose(level_round_loss(eps_p), eps_p, rel_tol=1e-12)
    with pytest.raises(ValueError, match="eps_p"):
        level_round_loss(0.0)


def test_two_rounds_with_a_private_histogram_estimates_the_frequencies():
    rng = np.random.default_rng(0)
    population = msnbc_like(np.random.default_rng(1), size=5_000)
    n = 3_000
    sets = population.sample_sets(n, rng)
    levels = np.repeat([0, 1, 2], [750, 1500, 750])
    exact = two_rounds(sets, levels, [0.5, 1.0, 2.0], 17, 4, 0.01 / n, None, rng)
    assert exact.level_counts.tolist() == [750.0, 1500.0, 750.0]
    private = two_rounds(sets, levels, [0.5, 1.0, 2.0], 17, 4, 0.01 / n, 0.5, rng)
    assert not np.array_equal(private.level_counts, exact.level_counts)  # noise was added
    assert abs(private.level_counts.sum() - n) < 40
    for run in (exact, private):
        assert np.sum((run.estimate - population.frequencies) ** 2) < 0.02
        assert run.messages > n
