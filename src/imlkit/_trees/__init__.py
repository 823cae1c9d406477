"""Tree engine: perturbation methods of tree ensembles evaluated from the trees.

The logic lives in :mod:`._engine` (dispatch, checks, the entry points the predictor calls),
the per-library readers in :mod:`._adapters`, and the numba walks in :mod:`._kernels` and
:mod:`._shap_kernels`. This module only names what the rest of imlkit uses.
"""
from ._engine import ENGINES, TreeEngine, TreeModel, Unsupported, check_engine, choose, predict_rows, tree_model

__all__ = ["ENGINES", "TreeEngine", "TreeModel", "Unsupported", "check_engine", "choose", "predict_rows",
           "tree_model"]
