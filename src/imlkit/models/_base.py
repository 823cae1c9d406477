"""The base every imlkit model builds on: the input checks the models share, written once.

Each model used to check by hand whether it was fitted, whether new data had the training
columns, and what kind of target it got. :class:`ImlkitEstimator` does it once, with
scikit-learn's own tools underneath so that ``sklearn.utils.estimator_checks`` and the rest of
the ecosystem (pipelines, ``clone``, ``check_is_fitted``) see a well-behaved estimator:

* fitted or not: ``sklearn.utils.validation.check_is_fitted`` (through
  ``__sklearn_is_fitted__``, which looks at the one attribute a model names in
  ``_fitted_attribute``);
* ``n_features_in_`` / ``feature_names_in_`` and their consistency at predict time:
  ``sklearn.utils.validation.validate_data(..., skip_check_array=True)``;
* arrays (not DataFrames): ``sklearn.utils.check_array`` (sparse, complex, empty and 1-D input
  get scikit-learn's messages), then a DataFrame with columns ``x0, x1, ...``;
* DataFrames stay DataFrames, so categorical, text and boolean columns keep their dtype; the
  column kinds are decided by :mod:`imlkit._dtypes`;
* class targets: one rule for every classifier, :func:`imlkit.models._target.check_class_target`
  (a continuous target is refused with the same message by every model).

The subclass says what it accepts through three class attributes (``_fitted_attribute``,
``_allow_nan``, ``_categorical_input``) and calls :meth:`ImlkitEstimator._check_X_y` in ``fit``
and :meth:`ImlkitEstimator._check_X` (``reset=False``) in every method that takes new data.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import DataConversionWarning
from sklearn.utils import ClassifierTags, RegressorTags, check_array
from sklearn.utils.validation import check_is_fitted, validate_data

from .._dtypes import is_numeric
from .._validation import ValidationError, check_X, check_y
from ._target import check_class_target

__all__ = ["ImlkitEstimator", "set_task_tags"]


def set_task_tags(tags, task):
    """Mark ``tags`` as a classifier's (``task="classification"``) or a regressor's; returns ``tags``.

    For models whose task is a parameter (DecisionTree, RuleFit, GLM/GAM by family).
    """
    if task == "classification":
        tags.estimator_type = "classifier"
        tags.classifier_tags = ClassifierTags()
        tags.regressor_tags = None
    elif task == "regression":
        tags.estimator_type = "regressor"
        tags.regressor_tags = RegressorTags()
        tags.classifier_tags = None
    return tags


class ImlkitEstimator(BaseEstimator):
    """Shared input checks of imlkit's models (a scikit-learn ``BaseEstimator``).

    Subclasses set

    ``_fitted_attribute`` : str
        An attribute that exists only after a successful ``fit`` (e.g. ``"classes_"``).
    ``_allow_nan`` : bool, default False
        Whether the model handles missing values in ``X`` itself. When False, NaN in ``X`` is
        refused in ``fit`` and ``predict``. Infinite values are always refused.
    ``_categorical_input`` : bool, default True
        Whether DataFrames with category/text/bool columns (and arrays of strings) are accepted.

    After ``fit`` every model has ``n_features_in_``, ``feature_names_`` (the column names its
    rules and tables use: the DataFrame's columns as strings, or ``x0, x1, ...`` for an array)
    and, when fitted on a DataFrame, ``feature_names_in_`` (its column names as strings).
    """

    _fitted_attribute = None
    _allow_nan = False
    _categorical_input = True

    # ------------------------------------------------------------------ scikit-learn protocol
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = bool(self._allow_nan)
        tags.input_tags.categorical = bool(self._categorical_input)
        tags.input_tags.string = bool(self._categorical_input)
        tags.input_tags.sparse = False
        return tags

    def __sklearn_is_fitted__(self):
        attr = self._fitted_attribute
        if attr is None:  # a subclass that did not say: scikit-learn's rule (any attribute ending in "_")
            return any(v.endswith("_") and not v.startswith("__") for v in vars(self))
        return hasattr(self, attr)

    def _check_fitted(self):
        """Raise ``sklearn.exceptions.NotFittedError`` unless ``fit`` has completed."""
        check_is_fitted(self)

    # ------------------------------------------------------------------ X
    def _check_X(self, X, *, reset, name="X"):
        """Validate ``X`` and return it as a DataFrame with the model's column names.

        Parameters
        ----------
        X : DataFrame or array-like, shape (n, p)
        reset : bool
            True in ``fit``: record ``n_features_in_``, ``feature_names_in_`` and
            ``feature_names_``. False elsewhere: the model must be fitted and ``X`` must have
            the training columns (same names in the same order for a DataFrame, the same
            number for an array, which then gets the training names by position).

        Returns
        -------
        DataFrame, shape (n, p)

        Raises
        ------
        NotFittedError
            ``reset=False`` before ``fit``.
        TypeError
            Sparse input, or a Series.
        ValueError
            Complex values, no rows or no columns, a 1-D array, NaN (unless ``_allow_nan``),
            infinite values, other columns than in ``fit``.
        """
        if not reset:
            self._check_fitted()
        model = type(self).__name__
        if sp.issparse(X):
            raise TypeError(f"{model} does not accept sparse input for '{name}'; got a {type(X).__name__}. "
                            f"Pass a dense array (X.toarray()) or a DataFrame.")
        if isinstance(X, pd.Series):
            raise TypeError(f"'{name}' must be 2-D (a DataFrame or an array of shape (n, p)); got a Series. "
                            f"Use X.to_frame() for a single feature.")
        if isinstance(X, pd.DataFrame):
            frame = self._frame_from_frame(X, name)
        else:
            frame = self._frame_from_array(X, name)
        self._check_values(frame, name)
        # a DataFrame's column names are compared as strings (check_X turned 0, 1, ... into "0", "1", ...)
        named = frame if isinstance(X, pd.DataFrame) else X
        if reset:
            # sets n_features_in_ and, for a DataFrame, feature_names_in_
            validate_data(self, named, reset=True, skip_check_array=True)
            self.feature_names_ = list(frame.columns)
            return frame
        try:
            validate_data(self, named, reset=False, skip_check_array=True)
        except ValueError as exc:
            n_fit, p = self.n_features_in_, frame.shape[1]
            if isinstance(X, pd.DataFrame) and hasattr(self, "feature_names_in_"):
                head = f"'{name}' must have the same columns as the training X"
            else:
                head = f"'{name}' must have {n_fit} columns like the training X; got {p}"
            raise ValidationError(f"{head}. {exc}") from None
        if list(frame.columns) != self.feature_names_:
            # only after an array fit (validate_data compared the names otherwise): columns by position,
            # on a new frame so that the caller's DataFrame keeps its names
            frame = frame.set_axis(self.feature_names_, axis=1)
        return frame

    def _frame_from_frame(self, X, name):
        n, p = X.shape
        self._check_shape(n, p, name)
        complex_cols = [c for c in X.columns if pd.api.types.is_complex_dtype(X[c].dtype)]
        if complex_cols:
            raise ValueError(f"Complex data not supported: column(s) {complex_cols} of '{name}' are complex.")
        if not self._categorical_input:
            bad = [c for c in X.columns if not is_numeric(X[c])]
            if bad:
                raise ValidationError(f"{type(self).__name__} needs numeric columns; column(s) {bad} of '{name}' "
                                      f"are not numeric.")
        frame, _ = check_X(X, name)
        return frame

    def _frame_from_array(self, X, name):
        # NaN and inf are checked per column by _check_values, with the column names
        arr = check_array(X, accept_sparse=False, dtype=None if self._categorical_input else "numeric",
                          ensure_all_finite=False, ensure_2d=True, allow_nd=False, ensure_min_samples=1,
                          ensure_min_features=1,
                          estimator=self, input_name=name)
        frame = pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])
        if arr.dtype.kind == "O":
            # object arrays: a column of numbers is numeric (scikit-learn's rule); text stays text
            frame = frame.infer_objects()
        return frame

    @staticmethod
    def _check_shape(n, p, name):
        if p == 0:
            raise ValueError(f"Found array with 0 feature(s) (shape=({n}, 0)) while a minimum of 1 is required "
                             f"for '{name}'.")
        if n == 0:
            raise ValueError(f"Found array with 0 sample(s) (shape=(0, {p})) while a minimum of 1 is required "
                             f"for '{name}'.")

    def _check_values(self, frame, name):
        """No infinite values; no NaN unless the model handles missing values itself."""
        # float columns by dtype alone (a float dtype is numeric): one frame[c] per column costs seconds when wide
        numeric = [c for c, dt in zip(frame.columns, frame.dtypes) if dt.kind == "f"]
        if numeric:
            vals = frame[numeric].to_numpy(dtype=float, na_value=np.nan)
            inf = np.isinf(vals).any(axis=0)
            if inf.any():
                cols = [c for c, b in zip(numeric, inf) if b]
                raise ValidationError(f"'{name}' has infinite values (inf) in {_columns(cols)}.")
        if not self._allow_nan:
            miss = frame.isna().any(axis=0)
            if miss.any():
                cols = list(frame.columns[miss.to_numpy()])
                raise ValidationError(f"'{name}' has missing values in {_columns(cols)} (NaN); "
                                      f"{type(self).__name__} needs complete data (impute first).")

    # ------------------------------------------------------------------ y
    def _check_y(self, y, n, *, name="y"):
        """Validate a 1-D target of length ``n``; a column vector is accepted with a warning.

        Returns
        -------
        ndarray, shape (n,)
        """
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        if sp.issparse(y):
            raise TypeError(f"{type(self).__name__} does not accept a sparse '{name}'.")
        shape = getattr(y, "shape", None)
        if shape is not None and len(shape) == 2 and shape[1] == 1:
            warnings.warn("A column-vector y was passed when a 1d array was expected. Please change the shape "
                          "of y to (n_samples,), for example using ravel().", DataConversionWarning, stacklevel=3)
            y = y.iloc[:, 0] if isinstance(y, pd.DataFrame) else np.asarray(y)[:, 0]
        return check_y(y, n, name)

    def _check_X_y(self, X, y, *, min_samples=1):
        """``fit``'s checks: ``X`` (``reset=True``), then ``y`` of the same length.

        Parameters
        ----------
        min_samples : int
            Fewer rows raise ``ValueError("... needs at least k rows; got n_samples=n.")``.

        Returns
        -------
        frame : DataFrame, shape (n, p)
        y : ndarray, shape (n,)
        """
        frame = self._check_X(X, reset=True)
        yy = self._check_y(y, len(frame))
        if len(frame) < min_samples:
            raise ValidationError(f"{type(self).__name__} needs at least {min_samples} rows in 'X'; got "
                                  f"n_samples={len(frame)}.")
        return frame, yy

    def _check_regression_target(self, y, *, name="y"):
        """``y`` as floats for a regression; an object array of numbers (not bools) is accepted.

        Raises
        ------
        ValidationError
            Text, booleans or other labels: "'y' must be numeric for regression; ...".
        """
        if y.dtype.kind in "iuf":
            return y.astype(float)
        if y.dtype.kind == "O" and all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                                       for v in y):
            return y.astype(float)
        example = f" such as {y[0]!r}" if len(y) else ""
        raise ValidationError(f"'{name}' must be numeric for regression; got values of dtype {y.dtype}{example}.")

    def _check_classes(self, y):
        """The shared class-target rule: refuse a continuous ``y``, need two classes.

        Returns
        -------
        classes : ndarray, shape (K,)
            Sorted labels.
        codes : ndarray of int, shape (n,)
            Position of each label in ``classes``.
        """
        check_class_target(y, type(self).__name__)
        try:
            classes, codes = np.unique(y, return_inverse=True)
        except TypeError as exc:
            raise ValidationError(f"The labels in 'y' cannot be ordered ({exc}); use labels of one type "
                                  f"(all strings or all numbers).") from None
        if classes.size < 2:
            raise ValidationError(f"'y' must have at least 2 classes; got only one class: {classes.tolist()}.")
        return classes, codes.reshape(-1)



def _columns(cols):
    """``column 'a'`` or ``columns ['a', 'b']`` for messages."""
    return f"column {cols[0]!r}" if len(cols) == 1 else f"columns {cols}"
