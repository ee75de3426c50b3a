"""shufflelib: the library behind *shuffle-dp-book*.

Local randomizers, the shuffler, estimators, fast simulation through sufficient
statistics, privacy curves, amplification-by-shuffling bounds and a Monte Carlo
auditor for the shuffle model of differential privacy.
"""

__version__ = "0.1.0"
