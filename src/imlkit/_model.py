"""Predictor: any fitted model or callable -> predictions, evaluated on stacked copies of X.

Perturbation methods evaluate the model on many modified copies of the same data. Per-call
overhead (input validation, thread start-up, tree traversal set-up) dominates real models,
so imlkit concatenates the copies into one frame and predicts them in as few calls as
possible, in blocks of at most ``max_rows`` rows to bound memory.

The Predictor also chooses the engine (``use_engine``): a tree ensemble that the tree engine
(:mod:`imlkit._trees`) reads and that passes its check is evaluated from its trees, without
building the copies. The methods ask for what they need -- copies with a column replaced
(``perturbed_blocks``), ICE grids (``ice``), means over rows of pair grids (``pair_means``,
``pd_average``) -- and never know which engine answered.

pandas input stays pandas with its dtypes (categoricals survive), so Pipelines with a
ColumnTransformer work; a model fitted on a numpy array gets a numpy array.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from . import _trees
from ._dtypes import has_levels
from ._parallel import progress_bar
from ._validation import ModelError, ValidationError, check_int
from .samplers import replacement_frame

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
    numeric : bool, optional
        Whether ``predict`` must return numbers (default: unless the model is a classifier,
        whose labels a label loss compares). Any other shape or dtype than the methods compute
        with is a :class:`ModelError` naming the model.
    """

    def __init__(self, model, output="predict", as_frame=True, max_rows=None, numeric=None):
        if output not in ("predict", "proba"):
            raise ValidationError(f"'output' must be one of 'predict', 'proba'; got {output!r}.")
        self.model = model
        self.output = output
        self.as_frame = as_frame
        self.numeric = (not is_classifier_model(model)) if numeric is None else bool(numeric)
        self.max_rows = check_int("max_rows", max_rows, min_value=1, allow_none=True) or DEFAULT_MAX_ROWS
        self._fn = self._resolve(model, output)
        self._trees = None  # a _trees.TreeEngine once use_engine chose the trees

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
        if out.ndim == 0 or out.shape[0] != len(X):
            got = "a scalar" if out.ndim == 0 else f"{out.shape[0]} predictions"
            raise ModelError(f"The model ({self.name}) returned {got} for {len(X)} rows while predicting {context}.")
        self._check_output(out, context)
        if out.dtype.kind in "fc" and not np.isfinite(out).all():
            raise ModelError(f"The model returned NaN or infinite predictions while predicting {context}.")
        return out

    @property
    def name(self):
        """The model's name in messages: its class, or the function's name."""
        if not hasattr(self.model, "predict") and hasattr(self.model, "__name__"):
            return f"function {self.model.__name__}"
        return type(self.model).__name__

    def _check_output(self, out, context):
        """Raise ModelError unless ``out`` has the shape and dtype the methods compute with.

        ``predict``: one value per row, shape (n,) (numbers unless ``numeric`` is False: class
        labels for a label loss). ``predict_proba``: numbers of shape (n, n_classes) for a model
        with ``classes_``; (n,) (P(positive class)) or (n, k >= 2) for a plain function.
        """
        name, n = self.name, out.shape[0]
        if self.output == "predict":
            if out.ndim != 1:
                raise ModelError(
                    f"The model ({name}) returned predictions of shape {out.shape} while predicting {context}; "
                    f"imlkit needs one number per row, shape ({n},). Give a classifier with predict_proba and "
                    f"classes_ (effects then pick a class with 'output'), or a function that returns one "
                    f"column, e.g. lambda X: f(X)[:, k].")
            if self.numeric and out.dtype.kind not in "biuf":
                raise ModelError(
                    f"The model ({name}) returned predictions that are not numeric (dtype {out.dtype}) while "
                    f"predicting {context}; this needs numbers. Class labels need a classifier and a label loss "
                    f"('zero_one', 'accuracy'); effects take a classifier's predict_proba with 'output' to pick "
                    f"a class.")
            return
        k = None if self.classes is None else len(self.classes)
        if out.dtype.kind not in "biuf":
            raise ModelError(f"The model ({name}) returned probabilities of dtype {out.dtype} while predicting "
                             f"{context}; they must be numbers.")
        if k is not None and (out.ndim != 2 or out.shape[1] != k):
            raise ModelError(f"The model ({name}) returned predict_proba of shape {out.shape} while predicting "
                             f"{context}; with {k} classes in classes_ it must have shape ({n}, {k}).")
        if out.ndim > 2 or (out.ndim == 2 and out.shape[1] < 2):
            raise ModelError(f"The model ({name}) returned probabilities of shape {out.shape} while predicting "
                             f"{context}; they must have shape ({n}, n_classes) or ({n},) for P(positive class).")

    # ------------------------------------------------------------------ the engine

    def use_engine(self, X, engine="auto", features=None):
        """Choose how the perturbed predictions of X are computed; returns the params to record.

        Parameters
        ----------
        X : DataFrame, shape (n, p)
            The data the method will perturb (a few of its rows check the tree engine).
        engine : {"auto", "trees", "predict"}
            ``"auto"``: the tree engine when it supports the model and passes its check against
            the model's own predictions (on rows of X as they are and with each feature replaced
            by other rows' values), else stacked predict; ``"trees"``: the tree engine or an
            error; ``"predict"``: always stacked predict.
        features : list of str, optional
            The columns the method will replace (the check replaces these; default all).

        Returns
        -------
        dict
            ``{"engine": "trees" | "predict"}``, with ``"engine_note"`` saying why a tree model
            was not evaluated by its trees.
        """
        self._trees, params = _trees.choose(self, X, engine, features)
        return params

    def reuse_engine(self, X, record):
        """Take the engine another model of the same learner got on the same X; returns the params to record.

        ``record``: that result's info (``"engine"``, ``"engine_note"``). On the tree engine this
        model's trees are read (:func:`imlkit._trees.tree_model`) and answer without the check of
        :meth:`use_engine` -- the check proved the reader for this learner and these rows (PIMP's
        null refits: 30 % of a null model's PFI); a model the reader cannot read is predicted
        instead (the engine never guesses).
        """
        if record.get("engine") != "trees":
            self._trees = None
            return {"engine": "predict", **({"engine_note": record["engine_note"]} if "engine_note" in record else {})}
        try:
            tm = _trees.tree_model(self.model, X if self.as_frame else X.to_numpy())
        except _trees.Unsupported as exc:
            self._trees = None
            return {"engine": "predict", "engine_note": f"tree engine not used: {exc}"}
        self._trees = _trees.TreeEngine(tm, self.output, self.as_frame, self.max_rows)
        return {"engine": "trees"}

    @property
    def engine(self):
        """``"trees"`` when the tree engine answers, else ``"predict"``."""
        return "predict" if self._trees is None else "trees"

    @property
    def tree_model(self):
        """The checked :class:`~imlkit._trees.TreeModel` when the tree engine answers, else None
        (for kernels beyond the predictor's own methods, such as TreeSHAP)."""
        return None if self._trees is None else self._trees.tm

    @property
    def tree_engine(self):
        """The :class:`~imlkit._trees.TreeEngine` answering this predictor's perturbed predictions, or
        None (PFI reads its unperturbed predictions and its hit rate from it)."""
        return self._trees

    def predict_perturbed(self, X, cols, replacement, n_repeats, context="the perturbed data"):
        """Predictions of ``n_repeats`` copies of X with the columns ``cols`` replaced.

        Parameters
        ----------
        X : DataFrame, shape (n, p)
        cols : list of str
        replacement : DataFrame, shape (n_repeats * n, |cols|)
            Row ``r * n + i`` holds the values of copy ``r`` of row ``i``.

        Returns
        -------
        ndarray, shape (n_repeats * n,) or (n_repeats * n, k)
        """
        pred = None if self._trees is None else self._trees.perturbed(X, cols, replacement, n_repeats)
        if pred is None:
            pred = self.predict(stack_frame(X, n_repeats, replacement), context=context)
        return pred

    def perturbed_blocks(self, X, cols, replacement, n_repeats, context="the perturbed data"):
        """The predictions of :meth:`predict_perturbed` in blocks of whole repeats.

        A single column on the tree engine costs O(n·r) memory whatever p is: one block. Else
        each block holds at most ``max_rows`` rows (at least one repeat), so the stacked copies
        never exceed ``max(max_rows, n)`` rows.

        Yields
        ------
        ndarray, shape (r_b * n,) or (r_b * n, k), for consecutive repeats (r_b of them)
        """
        n = len(X)
        if self._trees is not None and len(cols) == 1:
            pred = self._trees.perturbed(X, cols, replacement, n_repeats)
            if pred is not None:
                yield pred
                return
        per_block = max(1, self.max_rows // max(n, 1))
        for r0 in range(0, n_repeats, per_block):
            r1 = min(n_repeats, r0 + per_block)
            yield self.predict_perturbed(X, cols, replacement.iloc[r0 * n:r1 * n], r1 - r0, context=context)

    def predict_perturbed_together(self, X, items, n_repeats):
        """Predictions of several features' perturbed copies, from one predict call for those the
        tree engine does not answer.

        Parameters
        ----------
        items : list of (name, cols, replacement)
            As :meth:`predict_perturbed` per feature; ``replacement`` may also be a
            :class:`imlkit.samplers.Draws` (the sampler's drawn rows, the same values).

        Returns
        -------
        list of ndarray, each shape (n_repeats * n,) or (n_repeats * n, k)

        Notes
        -----
        On the tree engine the single columns share one walk of the trees
        (:func:`imlkit._trees._engine.perturbed_many`).
        """
        preds = [None] * len(items) if self._trees is None else \
            self._trees.perturbed_many(X, [(cols, replacement) for _name, cols, replacement in items], n_repeats)
        frames = [stack_frame(X, n_repeats, replacement_frame(replacement))
                  for (_name, _cols, replacement), p in zip(items, preds) if p is None]
        if frames:
            stacked = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
            names = ", ".join(repr(d[0]) for d, p in zip(items, preds) if p is None)
            slow = iter(np.split(self.predict(stacked, context=f"the data with feature(s) {names} perturbed"),
                                 len(frames)))
            preds = [next(slow) if p is None else p for p in preds]
        return preds

    def predict_replaced(self, X, values, column=None, context="the data", progress=False):
        """Predict ``k`` copies of X with some columns replaced copy by copy (stacked predict).

        Parameters
        ----------
        X : DataFrame, shape (n, p)
        values : dict {column name: array of shape (k, n)}
            ``values[c][r, i]`` is the value of column ``c`` in copy ``r`` of row ``i``.
        column : int, "all" or None
            Output column for ``predict_proba`` models.

        Returns
        -------
        ndarray, shape (k, n) (or (k, n, n_classes) for ``column="all"``)

        Notes
        -----
        The copies are stacked with :func:`stack_frame` and predicted together; to bound memory
        the stack is built in chunks of whole copies of at most ``max_rows`` rows, so with the
        default ``max_rows`` the model is called once.
        """
        n = len(X)
        k = next(iter(values.values())).shape[0]
        max_rows = self.max_rows or DEFAULT_MAX_ROWS
        per_chunk = max(1, max_rows // max(n, 1))
        starts = list(range(0, k, per_chunk))
        parts = []
        with progress_bar(len(starts), "predict", progress and len(starts) > 1) as bar:
            for s0 in starts:
                s1 = min(k, s0 + per_chunk)
                repl = pd.DataFrame({c: _replacement(X[c], v[s0:s1].ravel()) for c, v in values.items()})
                pred = self.predict(stack_frame(X, s1 - s0, repl), context=context)
                parts.append(select_output(pred, column).reshape((s1 - s0, n) + pred.shape[1:] if column == "all"
                                                                 else (s1 - s0, n)))
                bar.update(1)
        out = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
        return out.astype(float, copy=False)

    def ice(self, X, feature, grid, column=None, context=None, progress=False):
        """The n x m ICE matrix ``M[i, k] = f(x_feature = grid[k], x_{i,-feature})``.

        ``feature`` may be one column name with ``grid`` of shape (m,), or a pair of names with
        ``grid`` a pair of arrays (all m1·m2 combinations, first feature varying slowest).

        Returns
        -------
        ndarray, shape (n, m) (or (n, m, n_classes) for ``column="all"``)
        """
        M = None if self._trees is None else self._trees.ice(X, feature, grid, column)
        if M is not None:
            return M
        n = len(X)
        if isinstance(feature, str):
            g = np.asarray(grid, dtype=object if has_levels(X[feature]) else float)
            values = {feature: np.repeat(g[:, None], n, axis=1)}
            context = context or f"the grid of feature {feature!r}"
        else:
            f1, f2 = feature
            g1, g2 = (np.asarray(g, dtype=object if has_levels(X[f]) else float) for f, g in zip(feature, grid))
            a = np.repeat(g1, len(g2))
            b = np.tile(g2, len(g1))
            values = {f1: np.repeat(a[:, None], n, axis=1), f2: np.repeat(b[:, None], n, axis=1)}
            context = context or f"the grid of features {f1!r} and {f2!r}"
        out = self.predict_replaced(X, values, column=column, context=context, progress=progress)
        return np.moveaxis(out, 0, 1)

    def local_predictions(self, X, feature, values, column=None, context="the data", progress=False):
        """Predictions of ``k`` copies of X with one feature replaced, up to a constant per row.

        What ALE asks: only differences between the copies of one row matter (f at a row's two
        bin edges, or at its neighbouring levels). The tree engine may leave out, per row, the
        sum of the trees whose nodes on ``feature`` never separate the row's values (the same in
        every copy, so it cancels from every difference) and walk only the others; stacked
        predict returns the predictions themselves (:meth:`predict_replaced`).

        Parameters
        ----------
        X : DataFrame, shape (n, p)
        feature : str
        values : ndarray, shape (k, n)
            ``values[q, i]`` is the value of ``feature`` in copy ``q`` of row ``i``.
        column : int, "all" or None
            Output column for ``predict_proba`` models.

        Returns
        -------
        ndarray, shape (k, n) (or (k, n, n_classes) for ``column="all"``): ``P[q, i] = f(copy q
        of row i) − c_i`` with ``c_i`` the same for every q (zero from stacked predict).
        """
        out = None if self._trees is None else self._trees.local_predictions(X, feature, values, column)
        if out is not None:
            return out
        return self.predict_replaced(X, {feature: values}, column=column, context=context, progress=progress)

    def pd_average(self, X, features, grids, weights, column=None, progress=False):
        """Weighted 2-D partial dependence on the product grid of ``grids``.

        Parameters
        ----------
        features : (str, str)
        grids : (array (m1,), array (m2,))
        weights : ndarray (n,)
            Row weights summing to 1.

        Returns
        -------
        ndarray, shape (m1 * m2,) (first feature varying slowest, a last axis over the classes
        for ``column="all"``): ``Σ_i weights[i] · f(grid point, x_{i,-S})``.
        """
        avg = None if self._trees is None else self._trees.pd_average(X, features, grids, weights, column)
        if avg is not None:  # an affine link: averaged inside the trees
            return avg
        return np.tensordot(weights, self.ice(X, features, grids, column=column, progress=progress), axes=(0, 0))

    def pd_mean(self, X, feature, grid, weights, column=None, progress=False):
        """Weighted 1-D partial dependence, without keeping every row's curve.

        Parameters
        ----------
        feature : str
        grid : array (m,)
        weights : ndarray (n,)
            Row weights summing to 1.

        Returns
        -------
        ndarray, shape (m,) (or (m, n_classes) for ``column="all"``):
        ``Σ_i weights[i] · f(x_feature = grid[q], x_{i,-feature})``, what
        ``np.tensordot(weights, ice(...), axes=(0, 0))`` gives. The tree engine walks the rows in
        blocks (an affine link sums the weighted leaf values into one array); the stacked predict
        takes blocks of at most ``max_rows`` modified rows and adds each block's weighted curves.
        """
        avg = None if self._trees is None else self._trees.pd_mean(X, feature, grid, weights, column)
        if avg is not None:
            return avg
        n, m = len(X), max(len(grid), 1)
        step = max(1, self.max_rows // m)
        if step >= n:
            return np.tensordot(weights, self.ice(X, feature, grid, column=column, progress=progress), axes=(0, 0))
        total = None
        for s in range(0, n, step):
            part = np.tensordot(weights[s:s + step], self.ice(X.iloc[s:s + step], feature, grid, column=column),
                                axes=(0, 0))
            total = part if total is None else total + part
        return total

    def pair_means(self, X, features, values, column=None):
        """Mean over the rows of X of the predictions with two features set to given pairs.

        Parameters
        ----------
        features : (str, str)
        values : (array, array), each shape (u,)
            Point q sets ``features[0]`` to ``values[0][q]`` and ``features[1]`` to ``values[1][q]``.
        column : None, int or "all"

        Returns
        -------
        ndarray, shape (u,) (or (u, n_classes) for ``column="all"``)
        """
        means = None if self._trees is None else self._trees.pair_means(X, features, values, column)
        if means is not None:
            return means
        return self._stacked_pair_predictions(X, features, values, column).mean(axis=1)

    def pair_predictions(self, X, features, values, column=None):
        """Every row's prediction with two features set to given pairs (what :meth:`pair_means` averages; the
        H-statistic's bootstrap resamples the rows): from the tree engine when it answers, else by the model's own
        predict of the stacked rows.

        Returns
        -------
        ndarray, shape (u, n) (or (u, n, n_classes) for ``column="all"``)
        """
        if self._trees is not None:
            rows = self._trees.pair_predictions(X, features, values, column)
            if rows is not None:
                return rows
        return self._stacked_pair_predictions(X, features, values, column)

    def _stacked_pair_predictions(self, X, features, values, column=None):
        a, b = features
        va, vb = values
        n = len(X)
        return self.predict_replaced(X, {a: np.repeat(va[:, None], n, axis=1), b: np.repeat(vb[:, None], n, axis=1)},
                                     column=column, context=f"the grid of features {a!r} and {b!r}")


def _replacement(s, values):
    """A column of new values with ``s``'s dtype (categoricals stay categoricals)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        return pd.Categorical(values, dtype=s.dtype)
    if has_levels(s):
        return pd.Series(np.asarray(values, dtype=object), dtype=s.dtype)
    values = np.asarray(values)
    if s.dtype.kind in "iu" and values.dtype.kind == "f" and np.all(values == np.round(values)):
        return values.astype(s.dtype)
    return values


def select_output(pred, column):
    """The output an effect is about: ``column`` None (one number per row), an int (a column
    of the probabilities) or ``"all"``."""
    pred = np.asarray(pred)
    if column is None:
        if pred.ndim != 1:
            raise ValidationError(f"The model returned predictions of shape {pred.shape}; effects need one "
                                  f"number per row. Give a classifier with predict_proba and classes_ (then "
                                  f"output=<class label> picks a class, output=None takes all), or a function "
                                  f"that returns one column, e.g. lambda X: f(X)[:, k].")
        if pred.dtype.kind not in "biuf":
            raise ValidationError("The model's predictions are not numeric (class labels?); effects need "
                                  "numbers. Use a model with predict_proba and 'output' to pick a class.")
        return pred
    if column == "all":
        return pred
    return pred[:, column]


def bind_model(model, loss, y, *, as_frame=True, max_rows=None):
    """A Predictor giving what ``loss`` needs, and ``y`` encoded for it.

    Probability losses get ``predict_proba`` and y as class positions; the others get
    ``predict`` and y unchanged.

    Returns
    -------
    predictor : Predictor
    y_encoded : ndarray, shape (n,)
    """
    # a label loss compares class labels; every other loss computes with numbers
    predictor = Predictor(model, output="proba" if loss.needs_proba else "predict",
                          as_frame=as_frame, max_rows=max_rows, numeric=not loss.needs_labels)
    y_enc = predictor.encode_y(y) if loss.needs_proba else np.asarray(y)
    if not loss.needs_proba and not loss.needs_labels and y_enc.dtype.kind not in "biuf":
        raise ValidationError(f"loss {loss.name!r} needs a numeric target; y has dtype {y_enc.dtype}. "
                              f"For classification use 'log_loss', 'brier', 'zero_one' or 'accuracy'.")
    return predictor, y_enc
