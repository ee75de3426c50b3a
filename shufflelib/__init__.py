"""shufflelib: the library behind *shuffle-dp-book*.

Local randomizers, the shuffler, estimators, fast simulation through sufficient
statistics, privacy curves, amplification-by-shuffling bounds and a Monte Carlo
auditor for the shuffle model of differential privacy.

The submodules hold the science: :mod:`shufflelib.randomizers`,
:mod:`shufflelib.shuffler`, :mod:`shufflelib.estimators`,
:mod:`shufflelib.simulation`, :mod:`shufflelib.curves`, :mod:`shufflelib.bounds`,
:mod:`shufflelib.audit`; :mod:`shufflelib.widgets` builds the book's widgets and
``python -m shufflelib`` is the privacy calculator.
"""

from .estimators import count_variance, estimate_count, estimate_frequencies, frequency_variance
from .randomizers import (
    BinaryRandomizedResponse,
    BoundedLaplace,
    Domain,
    GenericLDP,
    KRandomizedResponse,
    LocalPrivacyDescription,
    LocalRandomizer,
    RandomizerFamily,
)
from .shuffler import histogram, shuffle
from .simulation import simulate_binary_rr_counts, simulate_krr_histograms, simulate_messages

__version__ = "0.1.0"

__all__ = [
    "BinaryRandomizedResponse",
    "BoundedLaplace",
    "Domain",
    "GenericLDP",
    "KRandomizedResponse",
    "LocalPrivacyDescription",
    "LocalRandomizer",
    "RandomizerFamily",
    "count_variance",
    "estimate_count",
    "estimate_frequencies",
    "frequency_variance",
    "histogram",
    "shuffle",
    "simulate_binary_rr_counts",
    "simulate_krr_histograms",
    "simulate_messages",
]
