"""Gradient estimation on the shipped MNIST digits (:mod:`shufflelib.population.gradients`, Fig. 9)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from shufflelib.population.estimation import RandomCheckin
from shufflelib.population.gradients import (
    checkin_selection,
    gradient_plans,
    heard_sums,
    laplace_sums,
    load_mnist_5k,
    logistic_gradients,
    mnist_5k_path,
    train_logistic,
)


def _toy(rng, n=6, pixels=5, classes=3):
    return rng.integers(0, 256, size=(n, pixels)).astype(float), rng.integers(0, classes, size=n)


def test_the_shipped_digits_are_500_of_each_class_with_pixels_0_to_255():
    assert mnist_5k_path().name == "mnist_5k.csv.gz"
    pixels, labels = load_mnist_5k()
    assert pixels.shape == (5000, 784) and labels.shape == (5000,)
    assert np.bincount(labels).tolist() == [500] * 10
    assert pixels.min() == 0 and pixels.max() == 255
    assert not pixels.flags.writeable


def test_gradient_is_the_derivative_of_the_cross_entropy():
    rng = np.random.default_rng(0)
    pixels, labels = _toy(rng)
    weights = rng.normal(size=(3, 6))
    grads = logistic_gradients(pixels, labels, weights, clip=1e9, classes=3)
    features = np.hstack([pixels / 255.0, np.ones((6, 1))])

    def loss(w, i):
        logits = features[i] @ w.reshape(3, 6).T
        return float(np.log(np.exp(logits).sum()) - logits[labels[i]])

    for i in range(6):
        numeric = np.array(
            [(loss(weights.ravel() + h, i) - loss(weights.ravel() - h, i)) / 2e-6 for h in np.eye(18) * 1e-6]
        )
        np.testing.assert_allclose(grads.vector(i), numeric, atol=1e-6)


def test_clipping_caps_the_l1_norm_and_leaves_small_gradients_alone():
    rng = np.random.default_rng(1)
    pixels, labels = _toy(rng, n=40)
    unclipped = logistic_gradients(pixels, labels, clip=1e9, classes=3).norms()
    clip = float(np.median(unclipped))
    grads = logistic_gradients(pixels, labels, clip=clip, classes=3)
    np.testing.assert_allclose(grads.norms(), np.minimum(unclipped, clip), rtol=1e-12)
    assert np.all(grads.scale[unclipped <= clip] == 1.0)


def test_weighted_sum_is_the_sum_of_the_vectors():
    rng = np.random.default_rng(2)
    pixels, labels = _toy(rng, n=8)
    grads = logistic_gradients(pixels, labels, rng.normal(size=(3, 6)), clip=0.5, classes=3)
    mask = rng.random(8) < 0.5
    explicit = sum(grads.vector(i) for i in np.flatnonzero(mask))
    np.testing.assert_allclose(grads.weighted_sum(mask), explicit, atol=1e-12)
    np.testing.assert_allclose(grads.mean(), sum(grads.vector(i) for i in range(8)) / 8, atol=1e-12)


def test_training_lowers_the_loss():
    pixels, labels = load_mnist_5k()
    weights = train_logistic(pixels[:500], labels[:500], steps=20)
    features = np.hstack([pixels[:500] / 255.0, np.ones((500, 1))])
    logits = features @ weights.T
    loss = np.mean(np.log(np.exp(logits).sum(axis=1)) - logits[np.arange(500), labels[:500]])
    assert loss < np.log(10) - 0.5  # the zero model's loss is log 10


def test_laplace_sums_have_the_law_of_a_sum_of_laplace_draws():
    rng = np.random.default_rng(3)
    fast = laplace_sums(np.array([3]), 2.0, 200_000, rng)[0]
    slow = rng.laplace(0.0, 2.0, size=(3, 200_000)).sum(axis=0)
    assert stats.ks_2samp(fast, slow).pvalue > 1e-3
    assert abs(fast.var() / (3 * 2 * 2.0**2) - 1) < 0.02
    assert np.all(laplace_sums(np.array([0, 0]), 1.0, 5, rng) == 0.0)
    with pytest.raises(ValueError, match="counts"):
        laplace_sums(np.array([-1]), 1.0, 5, rng)


def test_checkin_selection_hears_each_slot_at_most_once_at_the_right_rate():
    rng = np.random.default_rng(4)
    checkin = RandomCheckin(2000, 0.1)
    heard = np.array([checkin_selection(2000, 0.1, checkin.slots, rng) for _ in range(400)])
    assert heard.sum(axis=1).max() <= checkin.slots
    # A user is heard with probability alpha times its selection probability in its slot.
    rate = heard.mean()
    expected = 0.1 * checkin.selection_probability
    assert abs(rate - expected) < 4 * np.sqrt(expected / heard.size)


def test_heard_sums_estimate_the_mean_without_bias():
    pixels, labels = load_mnist_5k()
    grads = logistic_gradients(pixels[:300], labels[:300])
    rng = np.random.default_rng(5)
    rounds = heard_sums(grads, np.ones((2, 300), dtype=bool))
    assert np.all(rounds.errors(1e14, rng) < 1e-9)  # everyone heard, no noise: no error
    heard = rng.random((200, 300)) < 0.5
    rounds = heard_sums(grads, heard, reports=heard.sum(axis=1) + 10)
    low, high = rounds.errors(0.5, rng).mean(), rounds.errors(5.0, rng).mean()
    assert high < low / 5  # the noise scales like 1/eps0
    with pytest.raises(ValueError, match="reports"):
        heard_sums(grads, heard, reports=heard.sum(axis=1) - 1)


def test_gradient_plans_order_the_budgets():
    plans = gradient_plans(5000, 0.2, 0.2, 1e-5)
    assert plans["LOCAL"] == 0.2
    assert plans["LOCAL"] < plans["AMPLIFIED"] < plans["TIGHT"]
    assert gradient_plans(5000, 0.01, 0.2, 1e-5)["AMPLIFIED"] == 0.2  # Theorem 1 does not apply
