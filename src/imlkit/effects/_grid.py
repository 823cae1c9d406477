"""Shared machinery of the effect methods: grids, the model's output, and the ICE matrix.

Every effect (ICE, PD, ALE, H-statistic, REPID) evaluates the model on copies of X in which
one or two columns are set to other values. The :class:`Predictor` evaluates them (from the
trees of a tree ensemble, or by stacking the copies and predicting them in chunks of whole
copies bounded by ``max_rows``), so each method is written once on top of
:func:`predict_replaced` / :func:`ice_matrix`.
"""
from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._dtypes import has_levels
from .._model import Predictor, check_fitted
from .._validation import ValidationError, check_choice, check_int

#: Fewest rows an interval needs for the ALE band through it (here, below the ALE and its explanation, which both
#: read it): the band is NaN at and beyond (in the order of the
#: accumulation) an interval with fewer. A one-row interval has no spread to estimate (it added a variance of 0, a
#: band as if its local difference were exact); at 2 to 4 rows the standard deviation rests on 1 to 3 degrees of
#: freedom, uncertain by about 1/sqrt(2·df) = 71% to 41% of itself, the t quantile that would hold the level under
#: normality is 12.7 to 3.18 (95%), and whether the local differences are near normal -- what a t band assumes --
#: cannot be seen in so few. From 5 rows (4 df, relative error 35%, t 2.78) the band is given.
MIN_BAND_ROWS = 5

__all__ = ["observed_levels", "make_grid", "resolve_output", "predict_replaced", "ice_matrix",
           "check_sample_weight", "subsample_rows", "make_predictor", "output_precision"]


def observed_levels(s):
    """The observed levels of a categorical column, in category order (else sorted)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        present = set(s.dropna().unique().tolist())
        return np.array([c for c in s.cat.categories.tolist() if c in present], dtype=object)
    vals = pd.unique(s.dropna())
    try:
        vals = sorted(vals.tolist())
    except TypeError:  # mixed types: keep order of appearance
        vals = list(vals)
    return np.array(vals, dtype=object)


def make_grid(s, grid=20, grid_type="quantile", name="grid"):
    """Grid of one feature.

    Parameters
    ----------
    s : Series, shape (n,)
    grid : int or array-like
        Number of points (an int >= 2) or explicit values (levels for a categorical feature).
        A number that is not an int (``2.5``, ``3.0``), a bool, a string and None are refused:
        a non-integer grid size would otherwise read as one explicit grid value.
    grid_type : {"quantile", "uniform"}
        Quantiles of the observed values, or equally spaced between min and max. Integer
        features use observed values (``method="nearest"``) so that encoders never see
        unseen values; a feature with at most ``grid`` distinct values uses all of them.

    Returns
    -------
    values : ndarray, shape (m,)
    categorical : bool
    """
    check_choice("grid_type", grid_type, ["quantile", "uniform"])
    feat = s.name
    size = _grid_size(grid, name)
    categorical = has_levels(s)
    if categorical:
        levels = observed_levels(s)
        if len(levels) < 2:
            raise ValidationError(f"Feature {feat!r} is constant (one level); an effect needs at least 2 "
                                  f"distinct values.")
        if size is not None:
            return levels, True
        try:
            values = np.asarray(list(grid), dtype=object)
        except TypeError:
            raise TypeError(f"'{name}' must be an int >= 2 or a list of levels of feature {feat!r}; "
                            f"got {grid!r}.") from None
        unknown = [v for v in values.tolist() if v not in set(levels.tolist())]
        if unknown:
            raise ValidationError(f"'{name}' has values {unknown} that are not levels of feature {feat!r}; "
                                  f"the levels are {levels.tolist()}.")
        if len(values) < 1:
            raise ValidationError(f"'{name}' must hold at least 1 value; got none.")
        return values, True
    x = s.to_numpy(dtype=float)
    x = x[np.isfinite(x)]
    uniq = np.unique(x)
    if len(uniq) < 2:
        raise ValidationError(f"Feature {feat!r} is constant; an effect needs at least 2 distinct values.")
    if size is not None:
        m = size
        if len(uniq) <= m:
            return uniq, False
        if grid_type == "uniform":
            return np.linspace(uniq[0], uniq[-1], m), False
        method = "nearest" if s.dtype.kind in "iu" else "linear"
        return np.unique(np.quantile(x, np.linspace(0, 1, m), method=method)), False
    try:
        values = np.asarray(grid, dtype=float).ravel()
    except (TypeError, ValueError):
        raise TypeError(f"'{name}' must be an int >= 2 or an array of numbers for feature {feat!r}; "
                        f"got {grid!r}.") from None
    if len(values) < 1 or not np.isfinite(values).all():
        raise ValidationError(f"'{name}' must hold at least 1 finite value; got {values.tolist()}.")
    return values, False


def _grid_size(grid, name):
    """The number of grid points if ``grid`` is a size (an int >= 2), None if it is a list of values.

    Any other scalar is refused: a float such as 2.5 used to become a one-point grid, a string
    a list of its characters.
    """
    if isinstance(grid, np.ndarray) and grid.ndim == 0:
        grid = grid.item()
    if isinstance(grid, (bool, np.bool_)):
        raise TypeError(f"'{name}' must be an int >= 2 (the number of grid points) or an array of grid values; "
                        f"got {grid!r}.")
    if isinstance(grid, numbers.Integral):
        return check_int(name, grid, min_value=2)
    if isinstance(grid, numbers.Number):
        raise TypeError(f"'{name}' must be an int >= 2 (the number of grid points) or an array of grid values; "
                        f"got {grid!r}, which is not a whole number of points (for explicit values pass a list, "
                        f"e.g. [{grid!r}]).")
    if grid is None or isinstance(grid, (str, bytes)):
        hint = "." if grid is None else f" (for that one value pass [{grid!r}])."
        raise TypeError(f"'{name}' must be an int >= 2 (the number of grid points) or an array of grid values; "
                        f"got {grid!r}{hint}")
    return None


def resolve_output(model, output, allow_all=True):
    """Which model output an effect is about.

    Returns
    -------
    kind : {"predict", "proba"}
    column : int, "all" or None
        Column of ``predict_proba``; ``"all"`` for every class of a multi-class model.
    label : str
        ``"prediction"`` or ``"P(class=c)"``.
    classes : ndarray or None

    ``output=None`` on a multi-class classifier means every class (``column="all"``), the
    same in ICE, PD, ALE, H-statistic and REPID; only ``allow_all=False`` (a two-feature PD,
    whose result is one surface) asks for a class.
    """
    check_fitted(model)
    has_proba = hasattr(model, "predict_proba")
    if output == "predict" or (output is None and not has_proba):
        return "predict", None, "prediction", None
    if not has_proba:
        raise ValidationError(f"'output' must be None or 'predict' for a model without predict_proba "
                              f"({type(model).__name__}); got {output!r}.")
    classes = getattr(model, "classes_", None)
    if classes is None:
        raise ValidationError("'output' needs the model's 'classes_' to pick a class; the model has none. "
                              "Use output='predict'.")
    classes = np.asarray(classes)
    if output is None:
        if len(classes) == 2:
            return "proba", 1, f"P(class={classes[1]})", classes
        if not allow_all:
            raise ValidationError(f"'output' must name one class of this multi-class model here (the result "
                                  f"holds one surface); the classes are {classes.tolist()}.")
        return "proba", "all", "P(class)", classes
    matches = np.flatnonzero(classes == output)
    if len(matches) != 1:
        raise ValidationError(f"'output' must be None, 'predict' or one of the classes {classes.tolist()}; "
                              f"got {output!r}.")
    return "proba", int(matches[0]), f"P(class={output})", classes


def make_predictor(model, kind, was_frame, max_rows):
    """A Predictor for the effect's output; an unfitted estimator raises ModelError."""
    return Predictor(model, output=kind, as_frame=was_frame, max_rows=max_rows, numeric=True)


def output_precision(predictor, X):
    """The dtype of the model's own predictions and the machine epsilon of the rounding they carry.

    The effects compute in float64 (:meth:`imlkit._model.Predictor.predict_replaced` casts), but a
    model that predicts in float32 (xgboost, lightgbm through a wrapper, a Keras-like model, a numpy
    float32 function) rounds each prediction to ε = 1.2e-7 relative, not float64's 2.2e-16. The
    predictions of the first two rows of ``X`` (one extra model call) show the dtype before the cast.

    Returns
    -------
    dtype : str
        The dtype of ``predict`` (``predict_proba`` for a probability output), e.g. ``"float32"``.
    eps : float
        ``np.finfo(dtype).eps`` for a floating dtype coarser than float64, else float64's ε
        (integers and float64 are exact in float64 up to its own rounding).
    """
    raw = np.asarray(predictor.predict(X.iloc[:2], context="the first rows of X (the dtype of the predictions)"))
    eps = float(np.finfo(float).eps)
    if raw.dtype.kind == "f":
        eps = max(eps, float(np.finfo(raw.dtype).eps))
    return str(raw.dtype), eps


def check_model_first(model):
    """The first check of every effect: a fitted model (ModelError otherwise)."""
    check_fitted(model)


def predict_replaced(predictor, X, values, column=None, context="the data", progress=False):
    """Predict ``k`` copies of X with some columns replaced copy by copy: see
    :meth:`imlkit._model.Predictor.predict_replaced`.

    Returns
    -------
    ndarray, shape (k, n) (or (k, n, n_classes) for ``column="all"``)
    """
    return predictor.predict_replaced(X, values, column=column, context=context, progress=progress)


def ice_matrix(predictor, X, feature, grid, column=None, context=None, progress=False):
    """The n x m ICE matrix ``M[i, k] = f(x_feature = grid[k], x_{i,-feature})``: see
    :meth:`imlkit._model.Predictor.ice` (which evaluates it from the trees or by stacked predict).

    Returns
    -------
    ndarray, shape (n, m) (or (n, m, n_classes) for ``column="all"``)
    """
    return predictor.ice(X, feature, grid, column=column, context=context, progress=progress)


def check_sample_weight(sample_weight, n):
    """None or a non-negative finite vector of length n with a positive sum."""
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=float).ravel()
    if w.shape[0] != n:
        raise ValidationError(f"'sample_weight' must have one weight per row of X ({n}); got {w.shape[0]}.")
    if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise ValidationError("'sample_weight' must be finite and >= 0 with a positive sum.")
    return w


def subsample_rows(n, n_samples, rng):
    """Sorted row positions of a subsample of ``n_samples`` rows (all rows when None or >= n)."""
    if n_samples is None or n_samples >= n:
        return np.arange(n)
    return np.sort(rng.choice(n, size=n_samples, replace=False))
