"""Pure-DP aggregation in the shuffle model (Ghazi, Kumar and Manurangsi).

* :mod:`~shufflelib.puredp.counting`: the correlated-noise counting protocol
  (randomizer, analyzer, fast simulation through sufficient statistics, exact
  bias, variance, MSE and message counts);
* :mod:`~shufflelib.puredp.rules`: the parameter rules (the paper's, corrected,
  and a practical rule with far fewer messages) and Condition 7;
* :mod:`~shufflelib.puredp.checker`: the ``n``-independent privacy certificate,
  the exact privacy loss of the shuffled view for small ``n``, and samplers for
  the Monte Carlo auditor;
* :mod:`~shufflelib.puredp.summation` and :mod:`~shufflelib.puredp.histogram`:
  real summation (Corollary 3) and histograms (Corollary 4);
* :mod:`~shufflelib.puredp.baselines` and :mod:`~shufflelib.puredp.dlap`: the
  central discrete Laplace, local and single-message shuffled baselines.
"""

from .baselines import central_dlap_mse, local_rr_mse, shuffled_rr_pure_epsilon
from .checker import (
    Certificate,
    ExactLoss,
    exact_privacy_loss,
    lemma10_log_margin,
    privacy_certificate,
    reduced_log_ratio,
    view_logpmf,
    view_sampler,
)
from .counting import (
    CountingParams,
    analyze,
    analyze_as_printed,
    randomize,
    run_protocol,
    simulate_estimates,
    simulate_view,
)
from .dlap import dlap_variance, expected_max_abs_dlap, max_abs_dlap_bound, sample_dlap
from .histogram import (
    histogram_analyze,
    histogram_expected_messages,
    histogram_messages,
    histogram_params,
    linf_error_bound,
    simulate_histograms,
)
from .rules import RULES, condition7_minimum, condition7_violations, counting_params, paper_rule_breakdown
from .summation import (
    RealSumParams,
    level_budgets,
    real_sum_analyze,
    real_sum_messages,
    real_sum_params,
    round_to_levels,
    simulate_real_sum,
)

__all__ = [
    "RULES",
    "Certificate",
    "CountingParams",
    "ExactLoss",
    "RealSumParams",
    "analyze",
    "analyze_as_printed",
    "central_dlap_mse",
    "condition7_minimum",
    "condition7_violations",
    "counting_params",
    "paper_rule_breakdown",
    "dlap_variance",
    "exact_privacy_loss",
    "expected_max_abs_dlap",
    "max_abs_dlap_bound",
    "histogram_analyze",
    "histogram_expected_messages",
    "histogram_messages",
    "histogram_params",
    "lemma10_log_margin",
    "level_budgets",
    "linf_error_bound",
    "local_rr_mse",
    "privacy_certificate",
    "randomize",
    "real_sum_analyze",
    "real_sum_messages",
    "real_sum_params",
    "reduced_log_ratio",
    "round_to_levels",
    "run_protocol",
    "sample_dlap",
    "shuffled_rr_pure_epsilon",
    "simulate_estimates",
    "simulate_histograms",
    "simulate_real_sum",
    "simulate_view",
    "view_logpmf",
    "view_sampler",
]
