"""What a report run is made of: its options and every method's parameters.

The parameters are chosen so that the default report (bike data, 70/30 split,
gradient boosting) finishes within three minutes on a 2-core machine and ``quick=True``
within one minute; every value is written into the report's "How it was made" section.
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ReportConfig", "IMPORTANCE_METHODS", "ALL_METHODS", "MODEL_NAMES", "TASKS", "method_params"]

#: Importance methods of section 3, in the order they are shown.
IMPORTANCE_METHODS = ("pfi", "cfi", "loco", "lofo", "sage", "pimp")
#: Everything ``--methods`` accepts: the importance methods and the other sections.
ALL_METHODS = IMPORTANCE_METHODS + ("effects", "hstat", "repid", "models")
#: The report's default: every section, LOFO left out because LOCO already answers its question.
DEFAULT_METHODS = ("pfi", "cfi", "loco", "sage", "pimp", "effects", "hstat", "repid", "models")
MODEL_NAMES = ("gbm", "rf", "glm", "gam", "rulefit")
TASKS = ("auto", "regression", "classification")


@dataclass
class ReportConfig:
    """Options of one report run (the command line's options, as Python values).

    ``data`` is a path to a CSV/Parquet file, a pandas DataFrame, or None for the shipped data
    set ``dataset``. ``model`` is a name (gbm, rf, glm, gam, rulefit) or a scikit-learn style
    estimator: a fitted one is explained as it is (refits use a clone), an unfitted one is
    fitted on the training split. ``features`` are the columns the model uses (None: every
    column but the target).

    ``target_class`` (``--class``) is the class whose probability sections 4-5 explain.
    ``strict`` makes any failing part fatal; otherwise it becomes a warning box in the report.
    ``progress``: False (silent), True (a bar on a terminal, else one line per step on stderr),
    "bar" or "lines". ``n_refits`` (LOCO) and ``sage_orderings`` (SAGE's maximum number of
    orderings) override the values of :func:`method_params`.
    """

    data: object = None
    dataset: str = "bike"
    target: str | None = None
    task: str = "auto"
    model: object = "gbm"
    model_file: str | None = None
    trust_model_file: bool = False
    methods: tuple = DEFAULT_METHODS
    features: tuple | None = None
    test_size: float = 0.3
    seed: int = 0
    n_jobs: int | None = None
    scheduler: str | None = None
    scheduler_timeout: float = 10.0
    out: str = "imlkit-report"
    filename: str = "report.html"
    quick: bool = False
    progress: object = False
    strict: bool = False
    target_class: str | None = None
    n_refits: int | None = None
    sage_orderings: int | None = None
    command: str = ""
    extra: dict = field(default_factory=dict)


def method_params(quick, n_refits=None, sage_orderings=None):
    """Every method's parameters for the full or the quick report.

    Rows are subsampled (from the test split) only where a method's cost grows faster than
    linearly in n or is a large multiple of one prediction: SAGE, H-statistic, REPID, and
    the ICE curves drawn. ``n_refits`` (LOCO's refits per feature) and ``sage_orderings``
    (the most orderings either SAGE run may use) replace the defaults when given.
    """
    params = _params(quick)
    if n_refits is not None:
        params["loco"]["n_refits"] = int(n_refits)
    if sage_orderings is not None:
        for removal in ("marginal", "conditional"):
            params["sage"][removal]["max_permutations"] = int(sage_orderings)
    return params


def _params(quick):
    if quick:
        return dict(
            pfi=dict(n_repeats=5),
            cfi=dict(n_repeats=5),
            loco=dict(n_refits=1, test="auto", p_adjust="holm"),
            lofo=dict(relation="difference"),
            sage=dict(rows=256, marginal=dict(n_background=32, tolerance=0.05, max_permutations=1024, batch_size=256),
                      conditional=dict(n_background=16, tolerance=0.1, max_permutations=64, batch_size=64)),
            pimp=dict(importance="pfi", n_null=10, n_repeats=2, distribution="auto", p_adjust="holm"),
            effects=dict(n_features=2, grid=15, ice_rows=150, ale_bins=15),
            hstat=dict(n_samples=120, n_pairs=3),
            repid=dict(rows=600, grid=15, max_depth=2, min_node_size=40, min_improvement=0.1),
            models=dict(rulefit_rules=8),
        )
    return dict(
        pfi=dict(n_repeats=10),
        cfi=dict(n_repeats=10),
        loco=dict(n_refits=1, test="auto", p_adjust="holm"),
        lofo=dict(relation="difference"),
        sage=dict(rows=512, marginal=dict(n_background=64, tolerance=0.05, max_permutations=2048, batch_size=256),
                  # Conditional removal fits a sampler per coalition (~0.1 s per ordering here):
                  # a budget of 384 orderings, reported as not converged when that is too few.
                  conditional=dict(n_background=32, tolerance=0.1, max_permutations=384, batch_size=128)),
        pimp=dict(importance="pfi", n_null=60, n_repeats=3, distribution="auto", p_adjust="holm"),
        effects=dict(n_features=3, grid=20, ice_rows=300, ale_bins=20),
        hstat=dict(n_samples=300, n_pairs=5),
        repid=dict(rows=2000, grid=20, max_depth=2, min_node_size=50, min_improvement=0.1),
        models=dict(rulefit_rules=10),
    )
