"""Predictor: any fitted model or callable -> predictions, evaluated on stacked copies of X.

Perturbation methods evaluate the model on many modified copies of the same data. Per-call
overhead (input validation, thread start-up, tree traversal set-up) dominates real models,
so imlkit concatenates the copies into one frame and predicts them in as few calls as
possible, in blocks of at most ``max_rows`` rows to bound memory.

pandas input stays pandas with its dtypes (categoricals survive), so Pipelines with a
ColumnTransformer work; a model fitted on a numpy array gets a numpy array.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._validation import ModelError, ValidationError, check_int

__all__ = ["Predictor", "stack_frame", "DEFAULT_MAX_ROWS", "check_fitted", "is_classifier_model"]

#: Rows per predict call when ``max_rows=None``: large enough that call overhead vanishes,
#: small enough that a stacked block of a few dozen columns stays well below a GiB.
DEFAULT_MAX_ROWS = 1_000_000


def is_classifier_model(model):
    """True for a classifier: scikit-learn's ``is_classifier`` (also pipelines, xgboost, lightgbm)
    or, for other objects, a ``predict_proba`` together with ``classes_``."""
    try:
        from sklearn.base import is_classifier

        if is_classifier(model):
            return True
    except Exception:  # not an sklearn-compatible object
        pass
    if getattr(model, "_estimator_type", None) == "classifier":
        return True
    return hasattr(model, "predict_proba") and hasattr(model, "classes_")


def check_fitted(model, name="model"):
    """Raise :class:`ModelError` when a scikit-learn-style estimator is not fitted.

    Uses ``sklearn.utils.validation.check_is_fitted`` (which honours ``__sklearn_is_fitted__``,
    so pipelines, xgboost and lightgbm are checked too) on scikit-learn estimators and objects
    with ``__sklearn_is_fitted__``. Plain callables and other objects are taken as they are.
    """
    if not hasattr(model, "fit") or isinstance(model, type):
        return
    try:
        from sklearn.base import BaseEstimator
        from sklearn.exceptions import NotFittedError
        from sklearn.utils.validation import check_is_fitted
    except ImportError:  # pragma: no cover - sklearn is a dependency
        return
    # Only objects that follow sklearn's convention (fitted attributes end in "_") or say
    # themselves whether they are fitted: a hand-written model storing ``self.w`` is trusted.
    if not isinstance(model, BaseEstimator) and not hasattr(model, "__sklearn_is_fitted__"):
        return
    try:
        check_is_fitted(model)
    except NotFittedError:
        raise ModelError(f"The {name} ({type(model).__name__}) is not fitted; fit it first "
                         f"(e.g. {name}.fit(X_train, y_train)).") from None
    except Exception:  # not an estimator check_is_fitted understands: trust the object
        return


def stack_frame(X, n_copies, replace=None):
    """``n_copies`` copies of ``X`` stacked row-wise, with some columns replaced.

    Parameters
    ----------
    X : DataFrame, shape (n, p)
    n_copies : int
    replace : DataFrame, shape (n_copies * n, |S|), optional
        New values for the columns it names; row ``r * n + i`` is copy ``r`` of row ``i``.

    Returns
    -------
    DataFrame, shape (n_copies * n, p), with X's column order and dtypes.
    """
    cols = {}
    for name in X.columns:
        if replace is not None and name in replace.columns:
            cols[name] = _values(replace[name])
        else:
            cols[name] = _tile(X[name], n_copies)
    return pd.DataFrame(cols, columns=X.columns, copy=False)


def _tile(s, k):
    if isinstance(s.dtype, pd.CategoricalDtype):
        # Tiling the integer codes is much cheaper than tiling the objects.
        return pd.Categorical.from_codes(np.tile(s.cat.codes.to_numpy(), k), dtype=s.dtype)
    if k == 1:
        return s.reset_index(drop=True)
    tiled = np.tile(s.to_numpy(), k)
    return pd.Series(tiled, dtype=s.dtype) if s.dtype.kind not in "biufcM" else tiled


def _values(s):
    if isinstance(s, pd.Series):
        if isinstance(s.dtype, pd.CategoricalDtype) or s.dtype.kind not in "biufcM":
            return s.reset_index(drop=True)
        return s.to_numpy()
    return np.asarray(s)


class Predictor:
    """Wrap a fitted model or a callable so it predicts DataFrames in bounded blocks.

    Parameters
    ----------
    model : estimator or callable
        Anything with ``predict`` (and ``predict_proba`` when probabilities are needed), or a
        function ``X -> predictions``. Duck typing only.
    output : {"predict", "proba"}
        Which prediction the loss needs.
    as_frame : bool
        Pass DataFrames to the model (True) or numpy arrays (False, a model fitted on arrays).
    max_rows : int or None
        At most this many rows per model call (None: ``DEFAULT_MAX_ROWS``).
    """

    def __init__(self, model, output="predict", as_frame=True, max_rows=None):
        if output not in ("predict", "proba"):
            raise ValidationError(f"'output' must be one of 'predict', 'proba'; got {output!r}.")
        self.model = model
        self.output = output
        self.as_frame = as_frame
        self.max_rows = check_int("max_rows", max_rows, min_value=1, allow_none=True) or DEFAULT_MAX_ROWS
        self._fn = self._resolve(model, output)

    @staticmethod
    def _resolve(model, output):
        mname = type(model).__name__
        if output == "proba":
            if hasattr(model, "predict_proba"):
                return model.predict_proba
            if hasattr(model, "predict"):
                raise ValidationError(
                    f"The loss needs class probabilities, but the model ({mname}) has no predict_proba. "
                    f"Use a label loss such as 'zero_one', 'accuracy' or 'balanced_accuracy', or a "
                    f"classifier with predict_proba.")
            if callable(model):
                return model
        else:
            if hasattr(model, "predict"):
                return model.predict
            if callable(model):
                return model
        raise TypeError(f"'model' must have a predict method or be callable; got {mname}.")

    @property
    def classes(self):
        """The model's ``classes_`` if it has them (None for regressors and callables)."""
        return getattr(self.model, "classes_", None)

    def encode_y(self, y):
        """Class labels -> column positions in ``predict_proba`` output (for log loss, Brier)."""
        classes = self.classes
        if classes is None:
            y = np.asarray(y)
            if y.dtype.kind not in "iub" and not (y.dtype.kind == "f" and np.all(y == np.round(y))):
                raise ValidationError(
                    "A probability loss with a model without 'classes_' (a plain function) needs integer "
                    "class codes 0..k-1 as y, matching the columns of its probabilities.")
            return y.astype(int)
        classes = np.asarray(classes)
        lookup = {c: i for i, c in enumerate(classes.tolist())}
        try:
            return np.fromiter((lookup[v] for v in np.asarray(y).tolist()), dtype=int, count=len(y))
        except KeyError as exc:
            raise ValidationError(f"y contains the label {exc.args[0]!r}, which is not among the model's "
                                  f"classes {classes.tolist()}.") from None

    def predict(self, X, context="the data"):
        """Predict a DataFrame in blocks of at most ``max_rows`` rows.

        Returns
        -------
        ndarray, shape (n,) or (n, k)
        """
        n = len(X)
        if n <= self.max_rows:
            return self._call(X, context)
        parts = [self._call(X.iloc[s:s + self.max_rows], context) for s in range(0, n, self.max_rows)]
        return np.concatenate(parts, axis=0)

    def _call(self, X, context):
        data = X if self.as_frame else X.to_numpy()
        try:
            out = self._fn(data)
        except Exception as exc:
            raise ModelError(f"The model failed while predicting {context}: {type(exc).__name__}: {exc}") from exc
        out = np.asarray(out)
        if out.ndim == 2 and out.shape[1] == 1 and self.output == "predict":
            out = out[:, 0]
        if out.shape[0] != len(X):
            raise ModelError(f"The model returned {out.shape[0]} predictions for {len(X)} rows "
                             f"while predicting {context}.")
        if out.dtype.kind in "fc" and not np.isfinite(out).all():
            raise ModelError(f"The model returned NaN or infinite predictions while predicting {context}.")
        return out


def bind_model(model, loss, y, *, as_frame=True, max_rows=None):
    """A Predictor giving what ``loss`` needs, and ``y`` encoded for it.

    Probability losses get ``predict_proba`` and y as class positions; the others get
    ``predict`` and y unchanged.

    Returns
    -------
    predictor : Predictor
    y_encoded : ndarray, shape (n,)
    """
    predictor = Predictor(model, output="proba" if loss.needs_proba else "predict",
                          as_frame=as_frame, max_rows=max_rows)
    y_enc = predictor.encode_y(y) if loss.needs_proba else np.asarray(y)
    if not loss.needs_proba and not loss.needs_labels and y_enc.dtype.kind not in "biuf":
        raise ValidationError(f"loss {loss.name!r} needs a numeric target; y has dtype {y_enc.dtype}. "
                              f"For classification use 'log_loss', 'brier', 'zero_one' or 'accuracy'.")
    return predictor, y_enc
