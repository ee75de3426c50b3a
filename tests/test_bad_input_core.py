"""Every public name of the core modules rejects bad input with a ValueError naming the parameter."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shufflelib.estimators import count_variance, estimate_count, estimate_frequencies, frequency_variance
from shufflelib.randomizers import (
    BinaryRandomizedResponse,
    BoundedLaplace,
    Domain,
    GenericLDP,
    KRandomizedResponse,
)
from shufflelib.shuffler import histogram, shuffle
from shufflelib.simulation import simulate_binary_rr_counts, simulate_krr_histograms, simulate_messages

NAN, INF = math.nan, math.inf
RNG = np.random.default_rng(0)
BAD_EPS0 = [0, -1.0, NAN, INF, "1", True, None]
BAD_RNG = [None, 0, np.random.RandomState(0), np.random]

RR = BinaryRandomizedResponse(1.0)
KRR = KRandomizedResponse(3, 1.0)
LAP = BoundedLaplace(1.0, -1.0, 1.0)

CASES = [
    # --- constructors
    *[("BinaryRandomizedResponse", lambda e=e: BinaryRandomizedResponse(e), "eps0") for e in BAD_EPS0],
    *[("KRandomizedResponse", lambda e=e: KRandomizedResponse(3, e), "eps0") for e in BAD_EPS0],
    *[("KRandomizedResponse", lambda k=k: KRandomizedResponse(k, 1.0), "k") for k in (1, 0, -2, 2.5, NAN, "3")],
    *[("BoundedLaplace", lambda e=e: BoundedLaplace(e), "eps0") for e in BAD_EPS0],
    ("BoundedLaplace", lambda: BoundedLaplace(1.0, NAN, 1.0), "low"),
    ("BoundedLaplace", lambda: BoundedLaplace(1.0, -INF, 1.0), "low"),
    ("BoundedLaplace", lambda: BoundedLaplace(1.0, 0.0, INF), "high"),
    ("BoundedLaplace", lambda: BoundedLaplace(1.0, 0.0, [1.0, 2.0]), "high"),
    ("BoundedLaplace", lambda: BoundedLaplace(1.0, 1.0, 1.0), "high must be > low"),
    ("BoundedLaplace", lambda: BoundedLaplace(1.0, 2.0, 1.0), "high must be > low"),
    ("BoundedLaplace", lambda: BoundedLaplace(1.0, -1e308, 1e308), "high - low"),
    ("BoundedLaplace", lambda: BoundedLaplace(1e-320, 0.0, 1e10), "eps0"),
    *[("GenericLDP", lambda e=e: GenericLDP(e), "eps0") for e in BAD_EPS0],
    ("Domain", lambda: Domain(0, 1.5, discrete=True), "high"),
    ("Domain", lambda: Domain(NAN, 1.0, discrete=False), "low"),
    ("Domain", lambda: Domain(2.0, 1.0, discrete=False), "high must be >= low"),
    # --- randomize
    ("randomize", lambda: RR.randomize([0, 2], RNG), "x"),
    ("randomize", lambda: RR.randomize([0, -1], RNG), "x"),
    ("randomize", lambda: RR.randomize([0, 0.5], RNG), "x"),
    ("randomize", lambda: RR.randomize([[0, 1]], RNG), "x"),
    ("randomize", lambda: RR.randomize(1, RNG), "x"),
    ("randomize", lambda: KRR.randomize([0, NAN], RNG), "x"),
    ("randomize", lambda: KRR.randomize(["a"], RNG), "x"),
    ("randomize", lambda: LAP.randomize([0.0, 1.5], RNG), "x"),
    ("randomize", lambda: LAP.randomize([INF], RNG), "x"),
    *[("randomize", lambda r=r: KRR.randomize([0, 1], r), "rng") for r in BAD_RNG],
    *[("randomize", lambda r=r: LAP.randomize([0.0], r), "rng") for r in BAD_RNG],
    # --- likelihoods
    ("likelihood", lambda: KRR.likelihood(3, 0), "y"),
    ("likelihood", lambda: KRR.likelihood(0.5, 0), "y"),
    ("likelihood", lambda: KRR.likelihood(0, -1), "x"),
    ("likelihood", lambda: KRR.likelihood([0, 1], [0, 1, 2]), "y and x"),
    ("likelihood", lambda: LAP.likelihood(NAN, 0.0), "y"),
    ("likelihood", lambda: LAP.likelihood(0.0, 2.0), "x"),
    ("log_likelihood", lambda: RR.log_likelihood(2, 0), "y"),
    ("log_likelihood", lambda: LAP.log_likelihood(0.0, -1.5), "x"),
    ("log_likelihood", lambda: LAP.log_likelihood(np.zeros(3), np.zeros(2)), "y and x"),
    # --- blanket_sample
    *[("blanket_sample", lambda s=s: KRR.blanket_sample(s, RNG), "size") for s in (-1, 2.5, NAN, "3")],
    *[("blanket_sample", lambda r=r: LAP.blanket_sample(3, r), "rng") for r in BAD_RNG],
    # --- shuffler
    ("shuffle", lambda: shuffle(np.float64(3.0), RNG), "messages"),
    ("shuffle", lambda: shuffle(np.zeros((2, 2, 2)), RNG), "messages"),
    *[("shuffle", lambda r=r: shuffle([1, 2, 3], r), "rng") for r in BAD_RNG],
    *[("histogram", lambda k=k: histogram([0, 1], k), "k") for k in (1, 0, 2.5, NAN)],
    ("histogram", lambda: histogram([0, 3], 3), "messages"),
    ("histogram", lambda: histogram([0, -1], 3), "messages"),
    ("histogram", lambda: histogram([0, 0.5], 3), "messages"),
    ("histogram", lambda: histogram([0, NAN], 3), "messages"),
    ("histogram", lambda: histogram(np.zeros((2, 2, 2)), 3), "messages"),
    # --- estimators
    ("estimate_count", lambda: estimate_count(11, 10, 1.0), "ones"),
    ("estimate_count", lambda: estimate_count(-1, 10, 1.0), "ones"),
    ("estimate_count", lambda: estimate_count(2.5, 10, 1.0), "ones"),
    ("estimate_count", lambda: estimate_count([1, NAN], 10, 1.0), "ones"),
    *[("estimate_count", lambda n=n: estimate_count(1, n, 1.0), "n") for n in (1, 0, 2.5, NAN)],
    *[("estimate_count", lambda e=e: estimate_count(1, 10, e), "eps0") for e in BAD_EPS0],
    ("count_variance", lambda: count_variance(11, 10, 1.0), "true_count"),
    ("count_variance", lambda: count_variance(0.5, 10, 1.0), "true_count"),
    ("count_variance", lambda: count_variance(1, 1, 1.0), "n"),
    *[("count_variance", lambda e=e: count_variance(1, 10, e), "eps0") for e in BAD_EPS0],
    ("estimate_frequencies", lambda: estimate_frequencies([5, 5], 10, 3, 1.0), "counts"),
    ("estimate_frequencies", lambda: estimate_frequencies([5, 4, 0], 10, 3, 1.0), "counts must sum"),
    (
        "estimate_frequencies",
        lambda: estimate_frequencies([[5, 5, 0], [5, 4, 0]], 10, 3, 1.0),
        "counts must sum",
    ),
    ("estimate_frequencies", lambda: estimate_frequencies([11, -1, 0], 10, 3, 1.0), "counts"),
    ("estimate_frequencies", lambda: estimate_frequencies([4.5, 5.5, 0], 10, 3, 1.0), "counts"),
    ("estimate_frequencies", lambda: estimate_frequencies(np.zeros((1, 1, 3)), 0, 3, 1.0), "n"),
    ("estimate_frequencies", lambda: estimate_frequencies(np.full((1, 1, 3), 1), 3, 3, 1.0), "counts"),
    ("estimate_frequencies", lambda: estimate_frequencies(5, 5, 3, 1.0), "counts"),
    ("estimate_frequencies", lambda: estimate_frequencies([1, 0], 1, 2, 1.0), "n"),
    ("estimate_frequencies", lambda: estimate_frequencies([1], 1, 1, 1.0), "n"),
    ("estimate_frequencies", lambda: estimate_frequencies([2], 2, 1, 1.0), "k"),
    *[("estimate_frequencies", lambda e=e: estimate_frequencies([1, 1], 2, 2, e), "eps0") for e in BAD_EPS0],
    ("frequency_variance", lambda: frequency_variance([0.5, 0.4], 10, 2, 1.0), "freqs must sum"),
    ("frequency_variance", lambda: frequency_variance([1.5, -0.5], 10, 2, 1.0), "freqs"),
    ("frequency_variance", lambda: frequency_variance([0.5, 0.5], 10, 3, 1.0), "freqs"),
    ("frequency_variance", lambda: frequency_variance([[[0.5, 0.5]]], 10, 2, 1.0), "freqs"),
    ("frequency_variance", lambda: frequency_variance([NAN, 1.0], 10, 2, 1.0), "freqs"),
    ("frequency_variance", lambda: frequency_variance([0.5, 0.5], 1, 2, 1.0), "n"),
    ("frequency_variance", lambda: frequency_variance([1.0], 10, 1, 1.0), "k"),
    *[("frequency_variance", lambda e=e: frequency_variance([0.5, 0.5], 10, 2, e), "eps0") for e in BAD_EPS0],
    # --- simulation
    ("simulate_binary_rr_counts", lambda: simulate_binary_rr_counts(11, 10, 1.0, 5, RNG), "true_count"),
    ("simulate_binary_rr_counts", lambda: simulate_binary_rr_counts(-1, 10, 1.0, 5, RNG), "true_count"),
    ("simulate_binary_rr_counts", lambda: simulate_binary_rr_counts(0.5, 10, 1.0, 5, RNG), "true_count"),
    *[
        ("simulate_binary_rr_counts", lambda n=n: simulate_binary_rr_counts(0, n, 1.0, 5, RNG), "n")
        for n in (1, 0, 2.5, NAN)
    ],
    *[("simulate_binary_rr_counts", lambda e=e: simulate_binary_rr_counts(1, 10, e, 5, RNG), "eps0") for e in BAD_EPS0],
    *[
        ("simulate_binary_rr_counts", lambda s=s: simulate_binary_rr_counts(1, 10, 1.0, s, RNG), "size")
        for s in (0, -3, 1.5)
    ],
    *[("simulate_binary_rr_counts", lambda r=r: simulate_binary_rr_counts(1, 10, 1.0, 5, r), "rng") for r in BAD_RNG],
    ("simulate_krr_histograms", lambda: simulate_krr_histograms([5], 1.0, 5, RNG), "true_counts"),
    ("simulate_krr_histograms", lambda: simulate_krr_histograms([[5, 5]], 1.0, 5, RNG), "true_counts"),
    ("simulate_krr_histograms", lambda: simulate_krr_histograms([5, -1], 1.0, 5, RNG), "true_counts"),
    ("simulate_krr_histograms", lambda: simulate_krr_histograms([5, 0.5], 1.0, 5, RNG), "true_counts"),
    ("simulate_krr_histograms", lambda: simulate_krr_histograms([1, 0], 1.0, 5, RNG), "true_counts must sum"),
    ("simulate_krr_histograms", lambda: simulate_krr_histograms([5, NAN], 1.0, 5, RNG), "true_counts"),
    *[("simulate_krr_histograms", lambda e=e: simulate_krr_histograms([5, 5], e, 5, RNG), "eps0") for e in BAD_EPS0],
    *[("simulate_krr_histograms", lambda s=s: simulate_krr_histograms([5, 5], 1.0, s, RNG), "size") for s in (0, 1.5)],
    *[("simulate_krr_histograms", lambda r=r: simulate_krr_histograms([5, 5], 1.0, 5, r), "rng") for r in BAD_RNG],
    ("simulate_messages", lambda: simulate_messages(GenericLDP(1.0), [0, 1], RNG), "randomizer"),
    ("simulate_messages", lambda: simulate_messages("krr", [0, 1], RNG), "randomizer"),
    ("simulate_messages", lambda: simulate_messages(KRR, [0, 3], RNG), "x"),
    *[("simulate_messages", lambda r=r: simulate_messages(KRR, [0, 1], r), "rng") for r in BAD_RNG],
]


@pytest.mark.parametrize("name,call,match", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_bad_input_raises_value_error_naming_the_parameter(name, call, match):
    with pytest.raises(ValueError, match=match):
        call()


PUBLIC = {
    "BinaryRandomizedResponse",
    "KRandomizedResponse",
    "BoundedLaplace",
    "GenericLDP",
    "Domain",
    "randomize",
    "likelihood",
    "log_likelihood",
    "blanket_sample",
    "shuffle",
    "histogram",
    "estimate_count",
    "count_variance",
    "estimate_frequencies",
    "frequency_variance",
    "simulate_binary_rr_counts",
    "simulate_krr_histograms",
    "simulate_messages",
}


def test_every_public_name_is_covered():
    assert {c[0] for c in CASES} == PUBLIC


def test_messages_name_the_allowed_range():
    with pytest.raises(ValueError, match=r"eps0 must be a finite number > 0, got -1"):
        KRandomizedResponse(3, -1)
    with pytest.raises(ValueError, match=r"k must be an integer >= 2"):
        KRandomizedResponse(1, 1.0)
    with pytest.raises(ValueError, match=r"x must have every entry <= 2"):
        KRR.randomize([0, 3], RNG)
    with pytest.raises(ValueError, match=r"rng must be a numpy.random.Generator"):
        RR.randomize([0], None)
