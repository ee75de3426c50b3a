"""Segmented private data aggregation in the multi-message shuffle model (Wang et al.).

The modules hold the science: :mod:`~shufflelib.segmented.protocol` (Algorithms 1-2 and
the estimator), :mod:`~shufflelib.segmented.optimize` (parameter choice),
:mod:`~shufflelib.segmented.bounds` (the calculator's two bounds),
:mod:`~shufflelib.segmented.variation_ratio`, :mod:`~shufflelib.segmented.clone_pairs`,
:mod:`~shufflelib.segmented.exact_item` and :mod:`~shufflelib.segmented.group` (privacy
curves), :mod:`~shufflelib.segmented.baselines`, :mod:`~shufflelib.segmented.attacks`,
:mod:`~shufflelib.segmented.populations` and :mod:`~shufflelib.segmented.experiments`.
"""

__all__ = ["M_MAX"]

#: Largest expected number ``m`` of blanket messages per user (the box of
#: :func:`~shufflelib.segmented.optimize.check_user`; the calculator's ``--m`` reads it from here
#: without loading the modules).
M_MAX = 1e4
