"""OneR (Holte 1993): the best rule set that tests a single feature."""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import ClassifierMixin

from .._dtypes import is_numeric
from .._validation import check_int
from ._base import ImlkitEstimator
from ._rules import Condition, DecisionList, Rule

__all__ = ["OneR"]

#: Label of the missing-value "level" in the tables.
MISSING = "<missing>"


def _intervals(x, y, n_classes, min_bucket):
    """Holte's discretisation of one numeric feature (no missing values in ``x``).

    Returns the cut points (midpoints between neighbouring values) after merging neighbouring
    intervals with the same majority class.
    """
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    n = len(xs)
    # a cut may only fall between different values, so work on runs of equal values
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    ends = np.r_[starts[1:], n]
    run_counts = np.zeros((len(starts), n_classes), dtype=np.int64)
    np.add.at(run_counts, (np.searchsorted(starts, np.arange(n), side="right") - 1, ys), 1)
    cuts, classes = [], []
    r, n_runs = 0, len(starts)
    while r < n_runs:
        counts = run_counts[r].copy()
        r += 1
        # grow until the majority class has min_bucket members
        while r < n_runs and counts.max() < min_bucket:
            counts += run_counts[r]
            r += 1
        major = int(np.argmax(counts))
        # then swallow following runs made only of the majority class
        while r < n_runs and run_counts[r].sum() == run_counts[r, major]:
            counts += run_counts[r]
            r += 1
        classes.append(major)
        if r < n_runs:
            cuts.append((xs[ends[r - 1] - 1] + xs[starts[r]]) / 2.0)
    # the last interval may hold fewer than min_bucket rows of its class: there is nothing left
    merged_cuts, merged_classes = [], [classes[0]]
    for c, k in zip(cuts, classes[1:]):
        if k == merged_classes[-1]:
            continue
        merged_cuts.append(c)
        merged_classes.append(k)
    return np.asarray(merged_cuts, dtype=float), merged_classes


class OneR(ClassifierMixin, ImlkitEstimator):
    """Holte's 1R: for each feature a value → majority-class table; keep the feature with fewest errors.

    Parameters
    ----------
    min_bucket : int, default=6
        Numeric features are cut into intervals each holding at least ``min_bucket`` rows of
        its majority class (Holte's SMALL); neighbouring intervals predicting the same class are
        merged.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (p,)
        The DataFrame's column names (only when fitted on a DataFrame; names as strings).
    feature_names_ : list of str
        The column names the rules use (``x0, x1, ...`` when fitted on an array).
    feature_ : str
        The chosen feature.
    errors_ : Series of shape (p,)
        Training errors (misclassified rows) of each feature's rule, in column order.
    tables_ : dict of str -> DataFrame
        Per feature: one row per value (or interval), the class counts, the predicted class and
        the errors.
    cuts_ : dict of str -> ndarray
        Cut points of each numeric feature.
    rules_ : DecisionList
        The chosen feature's rules (mutually exclusive and, with the default, exhaustive).

    Notes
    -----
    For feature j with values (or intervals) v, the rule predicts c(v) = argmax_c n(v, c) and
    makes err_j = Σ_v (n(v) − max_c n(v, c)) errors; OneR picks argmin_j err_j (ties: the first
    column). Missing values form their own value. Values not seen in training get the overall
    majority class.

    References
    ----------
    Holte, R. C. (1993). Very simple classification rules perform well on most commonly used
    datasets. Machine Learning, 11(1), 63-90.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"size": ["small", "big", "big", "medium"]})
    >>> OneR().fit(X, ["low", "high", "high", "medium"]).predict(X).tolist()
    ['low', 'high', 'high', 'medium']
    """

    _fitted_attribute = "rules_"
    _allow_nan = True  # a missing value is a value of its own

    def __init__(self, *, min_bucket=6):
        self.min_bucket = min_bucket

    def fit(self, X, y):
        """Build every feature's rule and keep the one with fewest training errors.

        Parameters
        ----------
        X : DataFrame or array, shape (n, p)
            Numeric and categorical columns; missing values allowed.
        y : array-like, shape (n,)
            Class labels (at least two classes; a continuous target is refused).

        Returns
        -------
        self
        """
        min_bucket = check_int("min_bucket", self.min_bucket, min_value=1)
        frame, yy = self._check_X_y(X, y)
        classes, yi = self._check_classes(yy)
        K = len(classes)
        self.classes_ = classes
        overall = int(np.argmax(np.bincount(yi, minlength=K)))
        self._majority = overall
        tables, errors, cuts, value_maps = {}, {}, {}, {}
        for col in frame.columns:
            s = frame[col]
            miss = s.isna().to_numpy()
            if is_numeric(s):
                x = s.to_numpy(dtype=float)
                c, _ = _intervals(x[~miss], yi[~miss], K, min_bucket)
                cuts[col] = c
                keys = np.full(len(x), -1, dtype=np.int64)
                keys[~miss] = np.searchsorted(c, x[~miss], side="left")  # x <= cut goes left
                edges = np.r_[-np.inf, c, np.inf]
                labels = [self._interval_label(edges[i], edges[i + 1]) for i in range(len(c) + 1)]
                n_vals = len(c) + 1
            else:
                cat = pd.Categorical(s.astype(object).where(~miss, None)) if not isinstance(
                    s.dtype, pd.CategoricalDtype) else s.array
                keys = np.asarray(cat.codes, dtype=np.int64)
                labels = list(cat.categories)
                n_vals = len(labels)
            counts = np.zeros((n_vals + 1, K), dtype=np.int64)  # last row: missing
            np.add.at(counts, (np.where(keys < 0, n_vals, keys), yi), 1)
            if not miss.any():
                counts = counts[:-1]
            else:
                labels = labels + [MISSING]
            seen = counts.sum(axis=1) > 0
            pred = np.where(seen, np.argmax(counts, axis=1), overall)
            err = counts.sum(axis=1) - counts.max(axis=1)
            tab = pd.DataFrame(counts, columns=[f"n[{c}]" for c in classes])
            tab.insert(0, "value", labels)
            tab["prediction"] = classes[pred]
            tab["errors"] = err
            tables[col] = tab[seen].reset_index(drop=True)
            errors[col] = int(err.sum())
            value_maps[col] = (labels, pred, bool(miss.any()))
        self.tables_ = tables
        self.errors_ = pd.Series(errors, name="errors", dtype=np.int64)
        self.cuts_ = cuts
        self.feature_ = str(self.errors_.idxmin())  # idxmin keeps the first of ties
        self._labels, self._pred, self._has_missing = value_maps[self.feature_]
        self._fit_proba(frame, yi)
        self.rules_ = self._make_rules()
        return self

    @staticmethod
    def _interval_label(lo, hi):
        if np.isinf(lo) and np.isinf(hi):
            return "(-inf, inf)"
        return f"({lo:.6g}, {hi:.6g}]"

    def _keys(self, frame):
        """Index into the chosen feature's table for each row; -1 for unseen values."""
        col = self.feature_
        s = frame[col]
        miss = s.isna().to_numpy()
        has_missing = self._has_missing
        n_real = len(self._labels) - int(has_missing)
        if col in self.cuts_:
            x = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
            keys = np.searchsorted(self.cuts_[col], np.nan_to_num(x), side="left")
        else:
            lookup = {v: i for i, v in enumerate(self._labels[:n_real])}
            keys = np.array([lookup.get(v, -1) for v in s.astype(object).to_numpy()], dtype=np.int64)
        keys = np.where(miss, len(self._labels) - 1 if has_missing else -1, keys)
        return keys

    def _fit_proba(self, frame, yi):
        K = len(self.classes_)
        keys = self._keys(frame)
        counts = np.zeros((len(self._labels) + 1, K))
        np.add.at(counts, (keys, yi), 1)  # key -1 lands in the last row: unseen values
        counts[-1] = np.bincount(yi, minlength=K)
        self._proba = (counts + 1.0) / (counts.sum(axis=1, keepdims=True) + K)  # Laplace: no 0/1

    def _make_rules(self):
        col = self.feature_
        rules = []
        if col in self.cuts_:
            c = self.cuts_[col]
            edges = np.r_[-np.inf, c, np.inf]
            for i in range(len(c) + 1):
                lo, hi = edges[i], edges[i + 1]
                if np.isinf(lo) and np.isinf(hi):
                    cond = []
                elif np.isinf(lo):
                    cond = [Condition(col, "<=", float(hi))]
                elif np.isinf(hi):
                    cond = [Condition(col, ">", float(lo))]
                else:
                    cond = [Condition(col, "between", (float(lo), float(hi)))]
                rules.append(Rule(cond, self.classes_[self._pred[i]]))
            if self._has_missing:
                rules.append(Rule([Condition(col, "isna")], self.classes_[self._pred[-1]]))
        else:
            n_real = len(self._labels) - int(self._has_missing)
            for i, (lab, k) in enumerate(zip(self._labels, self._pred)):
                cond = Condition(col, "isna") if i >= n_real else Condition(col, "==", lab)
                rules.append(Rule([cond], self.classes_[k]))
        return DecisionList(rules, default=self.classes_[self._majority])

    def _check_predict_X(self, X):
        return self._check_X(X, reset=False)

    def predict(self, X):
        """Predicted class per row, shape (n,)."""
        frame = self._check_predict_X(X)
        keys = self._keys(frame)
        idx = np.where(keys >= 0, self._pred[np.clip(keys, 0, None)], self._majority)
        return self.classes_[idx]

    def predict_proba(self, X):
        """Laplace-smoothed class frequencies of the row's value in training, shape (n, n_classes)."""
        frame = self._check_predict_X(X)
        return self._proba[self._keys(frame)]

    def explain(self, X):
        """Which rule of the chosen feature decides each row (see :meth:`DecisionList.explain`)."""
        frame = self._check_predict_X(X)
        return self.rules_.explain(frame)

    def __str__(self):
        return str(self.rules_) if hasattr(self, "rules_") else "OneR (not fitted)"
