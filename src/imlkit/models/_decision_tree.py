"""A teaching CART decision tree that shows its arithmetic.

Every split it makes is recorded in ``split_trace_`` with the parent impurity, the weighted
impurity of the two children and their difference (the gain), so that the course's worked
examples can be checked line by line. Numeric features are split at midpoints between
consecutive distinct values; categorical features are split two-way into a set of levels
that goes left and the rest.

The split search is vectorised: a node's rows are sorted by a feature once and the class
counts (or Σy, Σy²) accumulated, which scores every threshold in one array expression.
For production use the fast trees of scikit-learn; this tree is about reading the splits.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils.metaestimators import available_if

from .._class_labels import class_names
from .._dtypes import is_numeric
from .._validation import ValidationError, check_choice, check_float, check_int, check_y
from ._base import ImlkitEstimator, set_task_tags
from ._impurity import CLASSIFICATION_CRITERIA, squared_error_from_sums
from ._target import auto_task

__all__ = ["DecisionTree"]

CRITERIA = ("auto", *CLASSIFICATION_CRITERIA, "squared_error")
TASKS = ("auto", "classification", "regression")

#: Multiclass categorical splits try every two-way partition up to this many levels
#: (2^(L-1) − 1 partitions: 511 at 10 levels); beyond, one ordering per class is scanned.
MAX_EXHAUSTIVE_LEVELS = 10

#: Consecutive sorted values closer than this are not separated (scikit-learn's rule).
_FEATURE_THRESHOLD = 1e-7
_EPSILON = np.finfo(float).eps


# --------------------------------------------------------------------------- data encoding
def _levels(series):
    """The levels of a categorical column: its categories, else its sorted distinct values."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return pd.Index(series.cat.categories)
    values = pd.unique(series.dropna())
    try:
        return pd.Index(sorted(values))
    except TypeError:  # mixed types cannot be sorted; first appearance is still deterministic
        return pd.Index(values)


def _encode(frame, kinds, levels, name):
    """Numeric columns as floats, categorical columns as level codes (−1 = unseen level)."""
    Z = np.empty(frame.shape, dtype=float)
    for j, col in enumerate(frame.columns):
        s = frame[col]
        if s.isna().any():
            raise ValidationError(f"'{name}' has missing values in column {col!r}; the tree needs complete "
                                  f"data (impute first).")
        if kinds[col] == "numeric":
            if not is_numeric(s):
                raise ValidationError(f"Column {col!r} of '{name}' was numeric when the tree was fitted; "
                                      f"got dtype {s.dtype}.")
            Z[:, j] = s.to_numpy(dtype=float)
            if not np.isfinite(Z[:, j]).all():
                raise ValidationError(f"'{name}' has infinite values in column {col!r}.")
        else:
            Z[:, j] = levels[col].get_indexer(s.astype(object))  # −1 for a level not seen in fit
    return Z


# --------------------------------------------------------------------------- split search
def _impurity(stats, criterion):
    """Impurity of nodes given their statistics, shape (m, c) -> (m,).

    Classification: c = K class counts. Regression: the columns are (n, Σy, Σy²).
    """
    if criterion == "squared_error":
        return squared_error_from_sums(stats[:, 0], stats[:, 1], stats[:, 2])
    return CLASSIFICATION_CRITERIA[criterion](stats)


def _sizes(stats, criterion):
    return stats[:, 0] if criterion == "squared_error" else stats.sum(axis=1)


def _children(left, total, criterion, min_leaf):
    """Weighted child impurity of candidate splits given the left children's statistics.

    Returns n_left (m,), n_right (m,), M (m,) with invalid candidates (a child smaller than
    ``min_leaf``) set to +inf.
    """
    right = total[None, :] - left
    n_left, n_right = _sizes(left, criterion), _sizes(right, criterion)
    with np.errstate(invalid="ignore", divide="ignore"):
        weighted = (n_left * _impurity(left, criterion) + n_right * _impurity(right, criterion)) / (n_left + n_right)
    weighted = np.where((n_left >= min_leaf) & (n_right >= min_leaf), weighted, np.inf)
    return n_left, n_right, weighted


def _first_best(weighted, tol):
    """Position of the first candidate within ``tol`` of the best (stable tie-breaking)."""
    best = weighted.min()
    if not np.isfinite(best):
        return None
    return int(np.flatnonzero(weighted <= best + tol)[0])


def _numeric_split(x, stats, criterion, min_leaf, tol):
    order = np.argsort(x, kind="stable")
    xs = x[order]
    left = np.cumsum(stats[order], axis=0)[:-1]
    _, _, weighted = _children(left, stats.sum(axis=0), criterion, min_leaf)
    weighted[xs[1:] <= xs[:-1] + _FEATURE_THRESHOLD] = np.inf  # no threshold between equal values
    i = _first_best(weighted, tol)
    if i is None:
        return None
    # the midpoint, written like scikit-learn so that thresholds (and predictions) agree
    threshold = xs[i] / 2.0 + xs[i + 1] / 2.0
    if threshold == xs[i + 1] or not np.isfinite(threshold):
        threshold = xs[i]
    return weighted[i], threshold, None


def _orderings(level_stats, criterion, n_classes):
    """Orders of the levels to scan: Breiman's single ordering, or one per class."""
    n = _sizes(level_stats, criterion)
    if criterion == "squared_error":
        keys = [level_stats[:, 1] / n]                       # mean target
    elif n_classes == 2:
        keys = [level_stats[:, 1] / n]                       # proportion of the second class
    else:
        keys = [level_stats[:, k] / n for k in range(n_classes)]
    return [np.argsort(k, kind="stable") for k in keys]


def _categorical_split(codes, stats, criterion, min_leaf, tol, n_levels, n_classes):
    codes = codes.astype(np.intp)
    level_stats = np.column_stack([np.bincount(codes, weights=stats[:, c], minlength=n_levels)
                                   for c in range(stats.shape[1])])
    present = np.flatnonzero(_sizes(level_stats, criterion) > 0)
    L = present.size
    if L < 2:
        return None
    level_stats = level_stats[present]
    total = level_stats.sum(axis=0)
    if criterion != "squared_error" and n_classes > 2 and L <= MAX_EXHAUSTIVE_LEVELS:
        # every two-way partition once: the last level always goes right
        ids = np.arange(1, 2 ** (L - 1))
        masks = np.zeros((ids.size, L), dtype=bool)
        masks[:, :-1] = (ids[:, None] >> np.arange(L - 1)) & 1
        _, _, weighted = _children(masks.astype(float) @ level_stats, total, criterion, min_leaf)
        i = _first_best(weighted, tol)
        if i is None:
            return None
        return weighted[i], np.nan, (present[masks[i]], present[~masks[i]])
    best = None
    for order in _orderings(level_stats, criterion, n_classes):
        left = np.cumsum(level_stats[order], axis=0)[:-1]
        _, _, weighted = _children(left, total, criterion, min_leaf)
        i = _first_best(weighted, tol)
        if i is not None and (best is None or weighted[i] < best[0] - tol):
            best = (weighted[i], np.nan, (np.sort(present[order[: i + 1]]), np.sort(present[order[i + 1:]])))
    return best


def _multiway_split(codes, stats, criterion, min_leaf, n_levels):
    """One child per level present at the node: weighted impurity Σ_l n_l/n · I(t_l)."""
    codes = codes.astype(np.intp)
    level_stats = np.column_stack([np.bincount(codes, weights=stats[:, c], minlength=n_levels)
                                   for c in range(stats.shape[1])])
    sizes = _sizes(level_stats, criterion)
    present = np.flatnonzero(sizes > 0)
    if present.size < 2 or (sizes[present] < min_leaf).any():
        return None
    ls = level_stats[present]
    with np.errstate(invalid="ignore", divide="ignore"):
        weighted = float(np.sum(sizes[present] * _impurity(ls, criterion)) / sizes[present].sum())
    return weighted, np.nan, ("multiway", present)


# --------------------------------------------------------------------------- estimator
class DecisionTree(ImlkitEstimator):
    """CART decision tree for classification and regression that records its arithmetic.

    Parameters
    ----------
    criterion : {"auto", "gini", "entropy", "misclassification", "squared_error"}, default "auto"
        Node impurity. ``"gini"``, ``"entropy"`` and ``"misclassification"`` are for
        classification, ``"squared_error"`` (the variance of the node) for regression; entropy is
        in bits. ``"auto"``: gini for classification, squared error for regression.
    max_depth : int or None, default None
        Maximum depth (the root has depth 0); None grows until the other rules stop.
    min_samples_leaf : int, default 1
        A split is only allowed if both children keep at least this many rows.
    task : {"auto", "classification", "regression"}, default "auto"
        ``"auto"``: regression for ``criterion="squared_error"``, classification for the
        classification criteria, and with ``criterion="auto"`` from the target -- regression
        when ``y`` is continuous (numeric with a non-integer value or more than 10 distinct
        values, see ``imlkit.models._target``), classification otherwise.
    min_samples_split : int, default 2
        Nodes with fewer rows are leaves.
    min_impurity_decrease : float, default 0.0
        A node is split only if ``n_t / n · gain >= min_impurity_decrease`` (scikit-learn's
        rule).
    categorical_split : {"binary", "multiway"}, default "binary"
        How categorical features are split: two-way into the best set of levels and the rest,
        or multiway, one child per level present at the node (the course's CarType example:
        children Family (1, 3), Sports (8, 0), Luxury (1, 7) have weighted Gini 0.163). A
        multiway split competes with the binary splits of other features on the same
        weighted impurity; it favours features with many levels (as the course notes for
        information gain). Its row in ``split_trace_`` has ``kind="multiway"``, its rule
        lists the branches, ``left_levels`` holds the levels in branch order, and
        ``n_left``/``n_right`` are missing; the node's ``children`` are in ``nodes_``.

    Attributes
    ----------
    classes_ : ndarray, shape (K,)
        Sorted class labels (classification only).
    task_ : str
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (p,)
        The DataFrame's column names (only when fitted on a DataFrame; names as strings).
    feature_names_ : list of str
        The column names the splits use (``x0, x1, ...`` when fitted on an array).
    feature_kinds_ : dict
        ``{column: "numeric" | "categorical"}``. Numeric as :func:`imlkit._dtypes.is_numeric`
        decides (integer, float; not bool); every other column is categorical.
    categories_ : dict
        The levels of every categorical column.
    split_trace_ : DataFrame
        One row per split in node order: ``node, depth, feature, kind, rule, threshold,
        left_levels, n, n_left, n_right, parent_impurity, children_impurity, gain,
        weighted_gain``.
    nodes_ : DataFrame
        One row per node: depth, rule of the split (internal nodes), n, impurity, children
        and the prediction (class counts / mean).
    feature_importances_ : ndarray, shape (p,)
        Normalised total impurity decrease: ``Σ_{splits on j} n_t/n · gain_t``, divided by its
        sum over features (all zeros for a single leaf).
    node_count_ : int

    Notes
    -----
    A split of node t (n_t rows) into t_L and t_R has

        M = n_L/n_t · I(t_L) + n_R/n_t · I(t_R),    gain = I(t) − M,

    and the split with the largest gain over all features is taken; ties go to the first
    feature in column order and the smallest threshold. Numeric thresholds are midpoints
    between consecutive distinct sorted values (rows with ``x <= threshold`` go left), so on
    numeric data the tree equals scikit-learn's ``DecisionTreeClassifier``/``Regressor`` with
    the same settings (up to how exact ties between features are broken).

    Categorical features get two-way splits. For two classes and for regression the levels
    are sorted by the proportion of the second class (by the mean target) and only the L − 1
    splits along that order are scanned: for a concave impurity one of them is optimal
    among all 2^(L−1) − 1 partitions (Breiman et al. 1984, Thm 4.5; Fisher 1958 for the
    variance). For more classes every partition is tried up to ``MAX_EXHAUSTIVE_LEVELS``
    levels; beyond that one ordering per class is scanned (a heuristic). Levels absent from a
    node at fit time, and levels never seen, follow the larger child. Ordered categoricals
    are split like nominal ones (any subset of levels may go left).

    References
    ----------
    Breiman, L., Friedman, J., Olshen, R., Stone, C. (1984). *Classification and Regression
    Trees*. Wadsworth.
    Fisher, W. D. (1958). On grouping for maximum homogeneity. *JASA* 53(284), 789–798.

    Examples
    --------
    The course's Gini example: 7 vs 5 at the parent, (5, 1) and (2, 4) in the children.

    >>> import pandas as pd
    >>> X = pd.DataFrame({"A": ["yes"] * 6 + ["no"] * 6})
    >>> y = ["C1"] * 5 + ["C2"] + ["C1"] * 2 + ["C2"] * 4
    >>> tree = DecisionTree(max_depth=1).fit(X, y)
    >>> tree.split_trace_[["parent_impurity", "children_impurity", "gain"]].round(3).iloc[0].tolist()
    [0.486, 0.361, 0.125]
    """

    _fitted_attribute = "node_count_"

    def __init__(self, *, criterion="auto", max_depth=None, min_samples_leaf=1, task="auto",
                 min_samples_split=2, min_impurity_decrease=0.0, categorical_split="binary"):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.task = task
        self.min_samples_split = min_samples_split
        self.min_impurity_decrease = min_impurity_decrease
        self.categorical_split = categorical_split

    # ------------------------------------------------------------------ sklearn plumbing
    def _resolved_task(self):
        if hasattr(self, "task_"):
            return self.task_
        if self.task in ("classification", "regression"):
            return self.task
        return "regression" if self.criterion == "squared_error" else "classification"  # unfitted "auto": a guess

    def _is_classifier(self):
        return self._resolved_task() == "classification"

    def __sklearn_tags__(self):
        return set_task_tags(super().__sklearn_tags__(), self._resolved_task())

    # ------------------------------------------------------------------ fitting
    def _check_params(self, y):
        criterion = check_choice("criterion", self.criterion, CRITERIA)
        task = check_choice("task", self.task, TASKS)
        if task == "auto":
            if criterion == "auto":
                task = auto_task(y)
            else:
                task = "regression" if criterion == "squared_error" else "classification"
        if criterion == "auto":
            criterion = "squared_error" if task == "regression" else "gini"
        if task == "regression" and criterion != "squared_error":
            raise ValidationError(f"'criterion' must be 'squared_error' for regression; got {criterion!r}.")
        if task == "classification" and criterion == "squared_error":
            raise ValidationError(f"'criterion' must be one of {list(CLASSIFICATION_CRITERIA)} for "
                                  f"classification; got 'squared_error'.")
        check_int("max_depth", self.max_depth, min_value=1, allow_none=True)
        check_int("min_samples_leaf", self.min_samples_leaf, min_value=1)
        check_int("min_samples_split", self.min_samples_split, min_value=2)
        check_float("min_impurity_decrease", self.min_impurity_decrease, low=0.0)
        check_choice("categorical_split", self.categorical_split, ["binary", "multiway"])
        return criterion, task

    def fit(self, X, y):
        """Grow the tree.

        Parameters
        ----------
        X : DataFrame or array, shape (n, p)
            Numeric and categorical columns; no missing values.
        y : array-like, shape (n,)
            Class labels (classification) or numbers (regression).

        Returns
        -------
        self
        """
        frame, y = self._check_X_y(X, y)
        criterion, task = self._check_params(y)
        if task == "regression":
            y = self._check_regression_target(y)
        else:
            if self.task == "auto" and y.dtype.kind == "f" and not np.all(y == np.round(y)):
                raise ValidationError(f"criterion={criterion!r} needs a class target, but 'y' looks continuous (it "
                                      f"has non-integer float values); use criterion='auto' or "
                                      f"'squared_error' (or task='classification' to treat them as labels).")
            classes, y_codes = np.unique(y, return_inverse=True)
            if classes.size < 2:
                raise ValidationError(f"'y' must contain at least 2 classes for classification; got only one class: "
                                      f"{classes.tolist()}.")
        self.task_ = task
        self.criterion_ = criterion
        self.feature_kinds_ = {c: "numeric" if is_numeric(frame[c]) else "categorical" for c in frame.columns}
        self.categories_ = {c: _levels(frame[c]) for c in frame.columns if self.feature_kinds_[c] == "categorical"}
        Z = _encode(frame, self.feature_kinds_, self.categories_, "X")
        if task == "classification":
            self.classes_ = classes
            self.n_classes_ = classes.size
            stats = np.eye(classes.size)[y_codes]
        else:
            stats = None
        self._grow(Z, y if task == "regression" else stats)
        return self

    def _node_stats(self, target, rows):
        if self.task_ == "classification":
            return target[rows]
        yc = target[rows] - target[rows].mean()  # centring keeps Σy² − (Σy)²/n accurate
        return np.column_stack([np.ones(rows.size), yc, yc * yc])

    def _grow(self, Z, target):
        criterion = self.criterion_
        n_total = Z.shape[0]
        min_leaf = self.min_samples_leaf
        max_depth = np.inf if self.max_depth is None else self.max_depth
        cat_cols = [j for j, c in enumerate(self.feature_names_) if self.feature_kinds_[c] == "categorical"]
        n_levels = {j: len(self.categories_[self.feature_names_[j]]) for j in cat_cols}
        n_classes = getattr(self, "n_classes_", 0)
        multiway = self.categorical_split == "multiway"

        nodes = []       # dicts in preorder, left subtree before right
        trace = []
        stack = [(np.arange(n_total), 0, None, None)]
        while stack:
            rows, depth, parent, side = stack.pop()
            node_id = len(nodes)
            if isinstance(side, tuple):  # the k-th branch of a multiway split
                nodes[parent]["children"][side[1]] = node_id
            elif parent is not None:
                nodes[parent][side] = node_id
            stats = self._node_stats(target, rows)
            total = stats.sum(axis=0)
            impurity = float(_impurity(total[None, :], criterion)[0])
            value = total.copy() if self.task_ == "classification" else float(target[rows].mean())
            node = {"depth": depth, "n": rows.size, "impurity": impurity, "value": value, "feature": -1,
                    "threshold": np.nan, "left_codes": None, "default_left": True, "left": -1, "right": -1,
                    "children": None, "child_codes": None}
            nodes.append(node)
            n = rows.size
            if depth >= max_depth or n < self.min_samples_split or n < 2 * min_leaf or impurity <= _EPSILON:
                continue
            # gains this close count as ties, whatever the rounding of the arithmetic
            tol = 1e-10 * max(impurity, _EPSILON)
            best = None
            for j in range(Z.shape[1]):
                x = Z[rows, j]
                if j in n_levels and multiway:
                    found = _multiway_split(x, stats, criterion, min_leaf, n_levels[j])
                elif j in n_levels:
                    found = _categorical_split(x, stats, criterion, min_leaf, tol, n_levels[j], n_classes)
                else:
                    found = _numeric_split(x, stats, criterion, min_leaf, tol)
                if found is not None and (best is None or found[0] < best[1] - tol):
                    best = (j, *found)
            if best is None:
                continue
            j, children_impurity, threshold, codes = best
            gain = impurity - float(children_impurity)
            if n / n_total * gain + _EPSILON < self.min_impurity_decrease:
                continue
            x = Z[rows, j]
            col = self.feature_names_[j]
            if codes is not None and isinstance(codes[0], str):  # ("multiway", present levels)
                present = codes[1]
                branch_rows = [rows[x.astype(np.intp) == c] for c in present]
                sizes = [r.size for r in branch_rows]
                node.update(feature=j, children=[-1] * len(present), child_codes=present,
                            default_child=int(np.argmax(sizes)))
                levels = tuple(self.categories_[col][present].tolist())
                rule = f"{col}: " + " | ".join(map(str, levels))
                trace.append({"node": node_id, "depth": depth, "feature": col, "kind": "multiway",
                              "rule": rule, "threshold": np.nan, "left_levels": levels, "n": n,
                              "n_left": None, "n_right": None, "parent_impurity": impurity,
                              "children_impurity": float(children_impurity), "gain": gain,
                              "weighted_gain": n / n_total * gain})
                for k in range(len(present) - 1, -1, -1):  # first branch first in preorder
                    stack.append((branch_rows[k], depth + 1, node_id, ("child", k)))
                continue
            left_codes, right_codes = codes if codes is not None else (None, None)
            go_left = np.isin(x.astype(np.intp), left_codes) if left_codes is not None else x <= threshold
            n_left = int(go_left.sum())
            node.update(feature=j, threshold=threshold, left_codes=left_codes, right_codes=right_codes,
                        default_left=n_left >= n - n_left)
            if left_codes is None:
                rule, levels = f"{col} <= {threshold:.6g}", None
            else:
                levels = tuple(self.categories_[col][left_codes].tolist())
                rule = f"{col} in {{{', '.join(map(str, levels))}}}"
            trace.append({"node": node_id, "depth": depth, "feature": col, "kind": self.feature_kinds_[col],
                          "rule": rule, "threshold": threshold, "left_levels": levels, "n": n,
                          "n_left": n_left, "n_right": n - n_left, "parent_impurity": impurity,
                          "children_impurity": float(children_impurity), "gain": gain,
                          "weighted_gain": n / n_total * gain})
            stack.append((rows[~go_left], depth + 1, node_id, "right"))
            stack.append((rows[go_left], depth + 1, node_id, "left"))
        self._store(nodes, trace)

    def _store(self, nodes, trace):
        m = len(nodes)
        self.node_count_ = m
        self._feature = np.array([d["feature"] for d in nodes], dtype=np.intp)
        self._threshold = np.array([d["threshold"] for d in nodes], dtype=float)
        self._left = np.array([d["left"] for d in nodes], dtype=np.intp)
        self._right = np.array([d["right"] for d in nodes], dtype=np.intp)
        self._is_cat = np.array([d["left_codes"] is not None for d in nodes])
        self._is_multi = np.array([d["children"] is not None for d in nodes])
        width = max([len(v) for v in self.categories_.values()], default=0)
        # multiway nodes: the child of every level code; absent and unseen levels (last
        # column) go to the largest child
        self._child_table = np.full((m, width + 1), -1, dtype=np.intp)
        for i, d in enumerate(nodes):
            if d["children"] is not None:
                self._child_table[i, :] = d["children"][d["default_child"]]
                self._child_table[i, d["child_codes"]] = d["children"]
        # one row per node: does level code c go left? the last column is for unseen levels
        self._left_table = np.zeros((m, width + 1), dtype=bool)
        for i, d in enumerate(nodes):
            if d["left_codes"] is not None:
                # levels absent from the node (and unseen ones) follow the larger child
                self._left_table[i, :] = d["default_left"]
                self._left_table[i, d["left_codes"]] = True
                self._left_table[i, d["right_codes"]] = False
        if self.task_ == "classification":
            counts = np.array([d["value"] for d in nodes])
            self._value = counts / counts.sum(axis=1, keepdims=True)
        else:
            self._value = np.array([d["value"] for d in nodes], dtype=float)
        self._nodes = nodes
        columns = ["node", "depth", "feature", "kind", "rule", "threshold", "left_levels", "n", "n_left",
                   "n_right", "parent_impurity", "children_impurity", "gain", "weighted_gain"]
        self.split_trace_ = pd.DataFrame(trace, columns=columns)
        imp = np.zeros(len(self.feature_names_))
        for t in trace:
            imp[self.feature_names_.index(t["feature"])] += t["weighted_gain"]
        self.feature_importances_ = imp / imp.sum() if imp.sum() > 0 else imp
        self.nodes_ = self._nodes_frame()

    def _nodes_frame(self):
        rules = dict(zip(self.split_trace_["node"], self.split_trace_["rule"]))
        rows = []
        for i, d in enumerate(self._nodes):
            row = {"node": i, "depth": d["depth"], "split": rules.get(i), "n": d["n"],
                   "impurity": d["impurity"], "left": d["left"] if d["left"] >= 0 else None,
                   "right": d["right"] if d["right"] >= 0 else None,
                   "children": tuple(d["children"]) if d["children"] is not None else None}
            if self.task_ == "classification":
                row.update({f"n[{c}]": int(v) for c, v in zip(self.classes_, d["value"])})
                row["prediction"] = self.classes_[int(np.argmax(d["value"]))]
            else:
                row["prediction"] = d["value"]
            rows.append(row)
        return pd.DataFrame(rows).set_index("node")

    # ------------------------------------------------------------------ prediction
    def _encode_new(self, X):
        return _encode(self._check_X(X, reset=False), self.feature_kinds_, self.categories_, "X")

    def _route(self, Z):
        node = np.zeros(Z.shape[0], dtype=np.intp)
        active = np.arange(Z.shape[0])
        unseen = self._left_table.shape[1] - 1
        while active.size:
            nd = node[active]
            internal = self._feature[nd] >= 0
            active, nd = active[internal], nd[internal]
            if not active.size:
                break
            v = Z[active, self._feature[nd]]
            with np.errstate(invalid="ignore"):
                go_left = v <= self._threshold[nd]
            cat = self._is_cat[nd]
            if cat.any():
                codes = v[cat].astype(np.intp)
                go_left[cat] = self._left_table[nd[cat], np.where(codes < 0, unseen, codes)]
            nxt = np.where(go_left, self._left[nd], self._right[nd])
            multi = self._is_multi[nd]
            if multi.any():
                codes = v[multi].astype(np.intp)
                nxt[multi] = self._child_table[nd[multi], np.where(codes < 0, unseen, codes)]
            node[active] = nxt
        return node

    def apply(self, X):
        """Leaf (node id) of every row, shape (n,)."""
        return self._route(self._encode_new(X))

    def predict(self, X):
        """Majority class (classification) or leaf mean (regression), shape (n,)."""
        leaves = self.apply(X)
        if self.task_ == "classification":
            return self.classes_[np.argmax(self._value[leaves], axis=1)]
        return self._value[leaves]

    @available_if(_is_classifier)
    def predict_proba(self, X):
        """Class proportions of each row's leaf, shape (n, K), columns in ``classes_`` order."""
        leaves = self.apply(X)  # checks first that the tree is fitted
        return self._value[leaves].copy()

    def score(self, X, y):
        """Accuracy (classification) or R² (regression) on ``X``, ``y``."""
        from sklearn.metrics import accuracy_score, r2_score

        pred = self.predict(X)
        y = check_y(y, len(pred), "y")
        return float(accuracy_score(y, pred) if self.task_ == "classification" else r2_score(y, pred))

    # ------------------------------------------------------------------ text
    def export_text(self, decimals=3):
        """The tree as indented text, one line per branch and leaf.

        A classifier's leaves name their class and each count's class by :func:`imlkit._class_labels.class_names`
        of ``classes_``: fitted on a float 0.0/1.0 target they read ``class: 1 (n=..., counts 0: 3, 1: 40, ...)``,
        as the report names the classes; 0.5/1.0 stay ``0.5``/``1.0``, text stays text.

        Parameters
        ----------
        decimals : int, default 3

        Returns
        -------
        str
        """
        self._check_fitted()
        decimals = check_int("decimals", decimals, min_value=0)
        fmt = f"{{:.{decimals}f}}"
        lines = []
        # classes spelled by the one class-label rule: fitted on a float 0.0/1.0 target, "class: 1", not "class: 1.0"
        names = class_names(self.classes_) if self.task_ == "classification" else {}
        labels = [names[c] for c in self.classes_] if names else []

        def leaf_text(i):
            d = self._nodes[i]
            imp = f"{self.criterion_}={fmt.format(d['impurity'])}"
            if self.task_ == "classification":
                label = labels[int(np.argmax(d["value"]))]
                # each count named by its class: "counts=[4929, 8]" left the reader to guess the order
                counts = ", ".join(f"{c}: {int(v)}" for c, v in zip(labels, d["value"]))
                return f"class: {label} (n={d['n']}, counts {counts}, {imp})"
            return f"value: {fmt.format(d['value'])} (n={d['n']}, {imp})"

        def branch(i, indent):
            f = self._feature[i]
            if f < 0:
                lines.append(f"{indent}|--- {leaf_text(i)}")
                return
            col = self.feature_names_[f]
            d = self._nodes[i]
            if d["children"] is not None:
                for code, child in zip(d["child_codes"], d["children"]):
                    lines.append(f"{indent}|--- {col} = {self.categories_[col][code]}")
                    branch(child, indent + "|   ")
                return
            if self._is_cat[i]:
                levels = self.categories_[col][self._nodes[i]["left_codes"]].tolist()
                shown = "{" + ", ".join(map(str, levels)) + "}"
                left, right = f"{col} in {shown}", f"{col} not in {shown}"
            else:
                thr = fmt.format(self._threshold[i])
                left, right = f"{col} <= {thr}", f"{col} >  {thr}"
            lines.append(f"{indent}|--- {left}")
            branch(self._left[i], indent + "|   ")
            lines.append(f"{indent}|--- {right}")
            branch(self._right[i], indent + "|   ")

        branch(0, "")
        return "\n".join(lines)
