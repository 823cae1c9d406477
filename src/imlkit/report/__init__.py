"""The HTML interpretation report: one self-contained file, images inline, no network.

``build_report(ReportConfig(...))`` (or ``imlkit report`` on the command line) fits a model,
runs the data, model, importance, effects, regional-effects and interpretable-model sections,
and writes ``report.html`` atomically into the output directory.
"""
from ._build import build_report, check_methods, connect_scheduler, prepare_context
from ._config import ALL_METHODS, DEFAULT_METHODS, IMPORTANCE_METHODS, ReportConfig, method_params
from ._data import ReportInputError, load_dataset, read_table

__all__ = ["build_report", "ReportConfig", "ReportInputError", "method_params", "load_dataset", "read_table",
           "prepare_context", "check_methods", "connect_scheduler", "ALL_METHODS", "DEFAULT_METHODS",
           "IMPORTANCE_METHODS"]
