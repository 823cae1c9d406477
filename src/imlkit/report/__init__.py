"""The HTML interpretation report: one self-contained file, images inline, no network.

``build_report(ReportConfig(...))`` (or ``imlkit report`` on the command line) fits a model,
runs the data, model, importance, effects, regional-effects and interpretable-model sections,
and writes ``report.html`` atomically into the output directory. From Python (a notebook)::

    path = build_report(data=frame, target="y", model=fitted_estimator, quick=True, out="rep")

``data`` is a path or a DataFrame, ``model`` a name or an estimator (a fitted one is used as
it is; refits use a clone); the caller's config, frame and estimator are never modified. A
part that fails becomes a warning box in the report (``strict=True`` raises instead).

``run_importance(config, method="pfi")`` runs the same data preparation, split and model with a
single importance method and returns its result (``imlkit importance`` on the command line).
"""
from ._build import build_report, connect_scheduler, prepare_context, run_importance
from ._config import (
    ALL_METHODS,
    DEFAULT_METHODS,
    IMPORTANCE_METHODS,
    MIN_MAX_ROWS,
    MODEL_NAMES,
    TASKS,
    ReportConfig,
    check_features,
    check_methods,
    check_seed,
    input_paths,
    method_params,
)
from ._data import ReportInputError, load_dataset, read_table

__all__ = ["build_report", "ReportConfig", "ReportInputError", "method_params", "load_dataset", "read_table",
           "prepare_context", "check_methods", "connect_scheduler", "ALL_METHODS", "DEFAULT_METHODS",
           "IMPORTANCE_METHODS", "run_importance", "MODEL_NAMES", "TASKS", "MIN_MAX_ROWS", "check_seed",
           "check_features", "input_paths"]
