"""Source-estimating adversaries: what they observe, their estimators, detection metrics.

``observe(spread)`` gives the snapshot adversary's view (thesis §2.1.2); the
estimators map it to scores over the infected nodes; :mod:`adversaries.metrics`
turns scores into detection probability, hop distance, rank and posterior;
:func:`simulate_and_score` runs simulate + estimate + score in one compiled loop; and
:func:`bayes_ceiling` gives the detection probability no estimator can exceed.

The estimator registry (:data:`ESTIMATORS`) is filled here: each estimator module
registers its estimators when this package imports it; the registry imports none of them.
The exact trajectory enumerations of the protocols (:data:`TRAJECTORIES`, keyed by
protocol name) are registered the same way, by :mod:`adversaries.exact`.
"""

from anonspread.adversaries import theory
from anonspread.adversaries.batch import BatchScores, EstimatorTrials, simulate_and_score
from anonspread.adversaries.bp import (
    BPConvergenceWarning,
    BPDetection,
    BPResult,
    bp,
    bp_cache_clear,
    bp_cache_info,
    bp_detection,
    bp_posterior,
)
from anonspread.adversaries.ceiling import Ceiling, bayes_ceiling, ceiling_refusal
from anonspread.adversaries.estimators import (
    RumorCost,
    TopRank,
    jordan_center,
    ml_adaptive_diffusion,
    ml_tree_protocol,
    rumor_centrality,
    rumor_cost,
    top_and_rank,
)
from anonspread.adversaries.exact import (
    TRAJECTORIES,
    LocalView,
    StateLimitError,
    Trajectories,
    exact_likelihood,
    register_trajectories,
)
from anonspread.adversaries.learned import (
    HeldOut,
    LearnedAdversary,
    learned_estimator,
    train_adversary,
)
from anonspread.adversaries.literature import lisn, netsleuth
from anonspread.adversaries.metrics import (
    Evaluation,
    detection_probability,
    evaluate,
    hop_distance,
    posterior,
    source_rank,
)
from anonspread.adversaries.observation import Snapshot, observe
from anonspread.adversaries.registry import (
    ESTIMATORS,
    OBSERVATIONS,
    EstimatorSpec,
    applicable_estimators,
    check_applicable,
    get_estimator,
    register_estimator,
)
from anonspread.adversaries.scores import Scores, pick
from anonspread.adversaries.sensors import earliest_infection_first, pinto
from anonspread.adversaries.softmargin import (
    SoftMarginCost,
    SoftMarginResult,
    soft_margin,
    soft_margin_cost,
    soft_margin_estimate,
    soft_margin_many,
)
from anonspread.adversaries.softmargin_spies import (
    SpySoftMarginResult,
    soft_margin_spies,
    soft_margin_spies_estimate,
)
from anonspread.adversaries.spies import (
    SPY_ESTIMATORS,
    SpyObservation,
    draw_spies,
    first_spy,
    get_spy_estimator,
    ml_snapshot_spies,
    ml_spies_diffusion,
    observe_spies,
    register_spy_estimator,
)

__all__ = [
    "ESTIMATORS",
    "OBSERVATIONS",
    "SPY_ESTIMATORS",
    "TRAJECTORIES",
    "BPConvergenceWarning",
    "BPDetection",
    "BPResult",
    "BatchScores",
    "Ceiling",
    "EstimatorSpec",
    "EstimatorTrials",
    "Evaluation",
    "HeldOut",
    "LearnedAdversary",
    "LocalView",
    "RumorCost",
    "Scores",
    "Snapshot",
    "SoftMarginCost",
    "SoftMarginResult",
    "SpyObservation",
    "SpySoftMarginResult",
    "StateLimitError",
    "TopRank",
    "Trajectories",
    "applicable_estimators",
    "bayes_ceiling",
    "bp",
    "bp_cache_clear",
    "bp_cache_info",
    "bp_detection",
    "bp_posterior",
    "ceiling_refusal",
    "check_applicable",
    "detection_probability",
    "draw_spies",
    "earliest_infection_first",
    "evaluate",
    "exact_likelihood",
    "first_spy",
    "get_estimator",
    "get_spy_estimator",
    "hop_distance",
    "jordan_center",
    "learned_estimator",
    "lisn",
    "ml_adaptive_diffusion",
    "ml_snapshot_spies",
    "ml_spies_diffusion",
    "ml_tree_protocol",
    "netsleuth",
    "observe",
    "observe_spies",
    "pick",
    "pinto",
    "posterior",
    "register_estimator",
    "register_spy_estimator",
    "register_trajectories",
    "rumor_centrality",
    "rumor_cost",
    "simulate_and_score",
    "soft_margin",
    "soft_margin_cost",
    "soft_margin_estimate",
    "soft_margin_many",
    "soft_margin_spies",
    "soft_margin_spies_estimate",
    "source_rank",
    "theory",
    "top_and_rank",
    "train_adversary",
]
