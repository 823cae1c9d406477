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
from ._build import build_report, prepare_context, run_importance
from ._config import (
    ALL_METHODS,
    DEFAULT_METHODS,
    IMPORTANCE_METHODS,
    MODEL_NAMES,
    MethodParams,
    ReportConfig,
    method_params,
)
from ._data import ReportInputError, load_dataset, read_table

# What a user calls. The command line's plumbing (option checks, the scheduler's connection, the
# task names, input paths) lives in the private modules: imlkit.cli imports it from there.
__all__ = ["build_report", "ReportConfig", "ReportInputError", "run_importance", "prepare_context", "method_params",
           "MethodParams", "load_dataset", "read_table", "ALL_METHODS", "DEFAULT_METHODS", "IMPORTANCE_METHODS",
           "MODEL_NAMES"]
