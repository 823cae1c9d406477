"""Adapters: one class per library that reads a fitted tree ensemble for the engine.

Each :class:`Adapter` subclass recognises its library's models (``can_handle``) and builds what
the engine needs: the trees as flat node arrays (``trees``), the model's input encoding
(``encoder``, ``columns``), its link (``finisher``) and intercept. :func:`adapt` walks the
registry :data:`ADAPTERS`; the engine (:func:`imlkit._trees._engine.tree_model`) turns an
adapter into a complete :class:`~imlkit._trees._engine.TreeModel`.

Each adapter reproduces exactly what the model's own ``predict``/``predict_proba`` does: the
same input encoding (scikit-learn trees compare float32 values; HGB ordinal-encodes pandas
categoricals; LightGBM recodes them by its stored category lists), the same split semantics
(``<=`` or ``<``, where NaN goes, category bitsets), the same intercept and link. Whatever an
adapter gets wrong, the engine's check against the model's own predictions catches, and the
method then falls back to ``predict``.

Adapters read private attributes of the libraries (``_predictors``, ``tree_``, ``_loss``,
booster dumps); that is why every model is checked at first use.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["ADAPTERS", "Adapter", "Forest", "Unsupported", "adapt"]


class Unsupported(Exception):
    """The model (or this configuration of it) is not handled by the tree engine."""


@dataclass
class Forest:
    """All trees of a model as flat node arrays (children are global node indices)."""

    roots: np.ndarray
    feature: np.ndarray
    kind: np.ndarray          # -1 leaf, 0 numeric <=, 1 category set, 2 numeric with zero as missing,
    #                           3 XGBoost category set
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    missing_left: np.ndarray
    cat_left: np.ndarray
    cat_known: np.ndarray
    bitsets: np.ndarray       # (B, W) uint32; bit c of row b: category code c is in set b
    value: np.ndarray         # (N, V)
    tree_out: np.ndarray      # (T,) output column of each tree, -1: all columns
    n_out: int
    max_depth: int


class _Builder:
    """Collects trees node by node into a :class:`Forest`."""

    def __init__(self, n_out, value_width=1):
        self.n_out = n_out
        self.width = value_width
        self.cols = {k: [] for k in ("feature", "kind", "threshold", "left", "right", "missing_left",
                                     "cat_left", "cat_known", "value")}
        self.roots, self.tree_out, self.bitsets = [], [], []
        self.n_nodes = 0
        self.max_depth = 0

    def add_bitset(self, words):
        self.bitsets.append(np.asarray(words, dtype=np.uint32))
        return len(self.bitsets) - 1

    def add_tree(self, out, feature, kind, threshold, left, right, missing_left, value, cat_left=None,
                 cat_known=None):
        """Arrays of one tree with tree-local child indices (-1 or anything at leaves)."""
        self.add_trees([out], [len(feature)], feature, kind, threshold, left, right, missing_left, value,
                       cat_left=cat_left, cat_known=cat_known)

    def add_trees(self, outs, sizes, feature, kind, threshold, left, right, missing_left, value, cat_left=None,
                  cat_known=None):
        """Several trees at once: their arrays one after the other, ``sizes[t]`` nodes of tree t, each
        with tree-local child indices (-1 or anything at leaves); ``outs[t]`` its output column."""
        sizes = np.asarray(sizes, dtype=np.int64)
        n = int(sizes.sum())
        starts = self.n_nodes + np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        off = np.repeat(starts, sizes)
        kind = np.asarray(kind, dtype=np.int8)
        leaf = kind < 0
        c = self.cols
        c["feature"].append(np.where(leaf, 0, feature).astype(np.int64))
        c["kind"].append(kind)
        c["threshold"].append(np.asarray(threshold, dtype=np.float64))
        c["left"].append(np.where(leaf, -1, np.asarray(left, dtype=np.int64) + off))
        c["right"].append(np.where(leaf, -1, np.asarray(right, dtype=np.int64) + off))
        c["missing_left"].append(np.asarray(missing_left, dtype=np.uint8))
        c["cat_left"].append(np.zeros(n, np.int64) if cat_left is None else np.asarray(cat_left, np.int64))
        c["cat_known"].append(np.full(n, -1, np.int64) if cat_known is None else np.asarray(cat_known, np.int64))
        c["value"].append(np.asarray(value, dtype=np.float64).reshape(n, self.width))
        self.roots.extend(starts.tolist())
        self.tree_out.extend(list(outs))
        self.n_nodes += n

    def build(self):
        if not self.roots:
            raise Unsupported("the model has no trees")
        c = {k: np.concatenate(v) for k, v in self.cols.items()}
        self.max_depth = _depth(np.asarray(self.roots, np.int64), c["left"], c["right"], c["kind"] < 0)
        width = max([len(b) for b in self.bitsets] + [1])
        bits = np.zeros((max(len(self.bitsets), 1), width), dtype=np.uint32)
        for b, words in enumerate(self.bitsets):
            bits[b, :len(words)] = words
        return Forest(roots=np.asarray(self.roots, np.int64), bitsets=bits,
                      tree_out=np.asarray(self.tree_out, np.int64), n_out=self.n_out,
                      max_depth=self.max_depth, **c)


def _concat_records(arrays):
    """np.concatenate of structured arrays of one dtype, as raw records (numpy otherwise promotes
    the fields of every array: 2 of the 3 ms of reading 100 HGB trees)."""
    dtype = arrays[0].dtype
    if any(a.dtype != dtype for a in arrays):
        return np.concatenate(arrays)
    raw = f"V{dtype.itemsize}"
    return np.concatenate([np.ascontiguousarray(a).view(raw) for a in arrays]).view(dtype)


def _depth(roots, left, right, leaf):
    """Largest depth of the trees (a root at depth 0), given the forest's node arrays (global child
    indices); raises :class:`Unsupported` unless every tree is a tree: each inner node's children
    inside its own tree, no node anyone's child twice nor a root anyone's child (then no walk from
    a root meets a node twice). Whole arrays, level by level (a loop over the nodes in Python cost
    5 ms of the 6 ms of reading a HistGradientBoosting of 100 trees)."""
    n = len(leaf)
    tree_of = np.repeat(np.arange(len(roots)), np.diff(np.append(roots, n)))
    inner = np.flatnonzero(~leaf)
    children = np.concatenate([left[inner], right[inner]])
    ok = (children >= 0) & (children < n)
    if not ok.all() or np.any(tree_of[children] != np.concatenate([tree_of[inner], tree_of[inner]])):
        raise Unsupported("a tree has a child index out of range")
    times = np.bincount(children, minlength=n)
    if times.max(initial=0) > 1 or np.any(times[roots] > 0):
        raise Unsupported("a tree is not a tree (a node is reached twice)")
    depth, frontier = 0, roots[~leaf[roots]]
    while len(frontier):
        nxt = np.concatenate([left[frontier], right[frontier]])
        frontier = nxt[~leaf[nxt]]
        depth += 1
    return depth


# --------------------------------------------------------------------------- the adapter interface

class Adapter:
    """How the engine reads one library's fitted models.

    One subclass per library, listed in :data:`ADAPTERS`. :meth:`can_handle` recognises a model
    by what it holds (never by class name alone); an instance is made for one model, raises
    :class:`Unsupported` for a configuration the engine cannot reproduce, and builds the parts of
    its :class:`~imlkit._trees._engine.TreeModel`:

    - :meth:`trees`: the model's trees as one :class:`Forest`;
    - :meth:`encoder`: ``encode(X) -> float64 (n, p)``, the model's own input encoding;
    - :meth:`columns`: input column (name or position) -> (model column, value encoder), as a
      dict or a callable ``(key, X)`` when it depends on the frame;
    - :meth:`finisher`: ``finish(raw (n, n_out), output) -> predictions``, the model's link;
    - :meth:`intercept`: the constant added to the trees' sum, or None when the model does not
      store it where the engine can read it: the engine then reads it off :meth:`margin`
      (``_engine._calibrate``).

    An adapter is short-lived: the engine builds the TreeModel from it and drops it. The
    callables it hands out keep only what they need (the engine caches TreeModels per model).

    Attributes
    ----------
    name : str
        What the engine's notes call the model.
    rtol, atol : float
        Tolerance of the check against the model's own predictions.
    linear : bool
        The finish is affine in the raw score (identity link, or a forest's averaged leaf
        proportions): a mean of predictions is then the finish of the mean raw score.
    """

    rtol = 1e-9
    atol = 1e-9
    linear = False

    def __init__(self, model):
        self.model = model
        self.name = type(model).__name__

    @staticmethod
    def can_handle(model):
        """Whether ``model`` is one of this library's models (by what it holds)."""
        raise NotImplementedError

    def trees(self):
        """All trees of the model as one :class:`Forest`."""
        raise NotImplementedError

    def encoder(self):
        """``encode(X) -> float64 (n, p)``: a DataFrame (or array) as the model's trees read it."""
        raise NotImplementedError

    def columns(self):
        """Input column -> (model column, value encoder ``values -> float64``): a dict or a callable."""
        raise NotImplementedError

    def finisher(self):
        """``finish(raw (n, n_out), output)``: ``output`` is "predict" or "proba"; raises
        :class:`Unsupported` for an output the model does not give."""
        raise NotImplementedError

    def intercept(self):
        """The raw score's constant (n_out,), or None: then read off :meth:`margin`."""
        raise NotImplementedError

    def margin(self, X):
        """The model's own raw score (n, n_out) of the rows X (for :meth:`intercept` None)."""
        raise Unsupported(f"{self.name} has no margin to read its intercept from")


# --------------------------------------------------------------------------- helpers

def _float32(values):
    return np.asarray(values, dtype=np.float32).astype(np.float64)


def _as_float(values):
    return np.asarray(values, dtype=np.float64)


def _positional_columns(model, n_features, value_encoder):
    """Input column i (and its name, if the model kept names) -> model column i."""
    names = getattr(model, "feature_names_in_", None)
    out = {}
    for i in range(n_features):
        out[i] = (i, value_encoder)
        if names is not None:
            out[str(names[i])] = (i, value_encoder)
    return out


def _codes(categories):
    index = pd.Index(categories)

    def encode(values):
        codes = index.get_indexer(pd.Index(np.asarray(values, dtype=object))).astype(np.float64)
        codes[codes < 0] = np.nan
        return codes
    return encode


def _bitset(codes):
    """uint32 words with bit c set for each category code c."""
    words = np.zeros(max(codes, default=0) // 32 + 1, dtype=np.uint32)
    for c in codes:
        words[c >> 5] |= np.uint32(1) << np.uint32(c & 31)
    return words


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _first_column(raw):
    return raw[:, 0]


def _exp_first_column(raw):
    return np.exp(raw[:, 0])


def _classifier_finish(prob_fn):
    def finish(raw, output):
        if output != "proba":
            raise Unsupported("class labels are not produced by the tree engine")
        return prob_fn(raw)
    return finish


def _regressor_finish(fn):
    def finish(raw, output):
        if output != "predict":
            raise Unsupported("a regressor has no probabilities")
        return fn(raw)
    return finish


def _float32_encode(X):
    """scikit-learn's trees (and XGBoost) compare float32 values."""
    arr = X.to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X)
    return np.ascontiguousarray(np.asarray(arr, dtype=np.float32), dtype=np.float64)


# --------------------------------------------------------------------------- scikit-learn HGB

class HistGradientBoostingAdapter(Adapter):
    """scikit-learn's HistGradientBoosting regressor and classifier (categorical splits included)."""

    @staticmethod
    def can_handle(model):
        return hasattr(model, "_predictors") and hasattr(model, "_bin_mapper")

    def __init__(self, model):
        super().__init__(model)
        self.n_out = int(model.n_trees_per_iteration_)
        self.regressor = self.n_out == 1 and not hasattr(model, "classes_")
        self.linear = self.regressor and type(model._loss.link).__name__ == "IdentityLink"

    def trees(self):
        model = self.model
        b = _Builder(self.n_out)
        known, f_idx_map = model._bin_mapper.make_known_categories_bitsets()
        known_rows = np.asarray([b.add_bitset(row) for row in np.asarray(known)], dtype=np.int64)
        f_idx_map = np.asarray(f_idx_map)
        # all trees in one set of arrays (per tree, its numpy calls were 4 ms of reading 100 trees)
        preds = [(k, tp) for trees in model._predictors for k, tp in enumerate(trees)]
        sizes = np.array([len(tp.nodes) for _, tp in preds], dtype=np.int64)
        nodes = _concat_records([tp.nodes for _, tp in preds])
        bits_off = []  # each tree's category bitsets follow those of the trees before it
        for _, tp in preds:
            bits_off.append(len(b.bitsets))
            b.bitsets.extend(np.asarray(tp.raw_left_cat_bitsets, dtype=np.uint32))
        leaf = nodes["is_leaf"].astype(bool)
        is_cat = nodes["is_categorical"].astype(bool) & ~leaf
        feat = nodes["feature_idx"].astype(np.int64)
        cat_left = np.where(is_cat, nodes["bitset_idx"].astype(np.int64) + np.repeat(bits_off, sizes), 0)
        cat_known = np.where(is_cat, known_rows[f_idx_map[np.where(is_cat, feat, 0)]], -1) if is_cat.any() else None
        b.add_trees([k for k, _ in preds], sizes, feat, np.where(leaf, -1, np.where(is_cat, 1, 0)),
                    nodes["num_threshold"], nodes["left"], nodes["right"], nodes["missing_go_to_left"], nodes["value"],
                    cat_left=cat_left, cat_known=cat_known)
        return b.build()

    def intercept(self):
        return np.asarray(self.model._baseline_prediction, dtype=np.float64).ravel()

    def columns(self):
        model = self.model
        pre = model._preprocessor
        if pre is None:
            return _positional_columns(model, int(model.n_features_in_), _as_float)
        # the preprocessor puts the categorical columns (ordinal codes) first, the numeric ones after
        columns = {}
        names = getattr(model, "feature_names_in_", None)
        for i, out, cats in _hgb_layout(pre):
            ve = _as_float if cats is None else _codes(cats)
            columns[i] = (out, ve)
            if names is not None:
                columns[str(names[i])] = (out, ve)
        return columns

    def encoder(self):
        model = self.model
        fast = _hgb_frame_encoder(model)

        def encode(X):
            Xe = fast(X) if fast is not None and isinstance(X, pd.DataFrame) else None
            if Xe is None:
                Xe = np.ascontiguousarray(model._preprocess_X(X, reset=False), dtype=np.float64)
            return Xe
        return encode

    def finisher(self):
        loss = self.model._loss
        if self.regressor:
            return _regressor_finish(lambda raw: loss.link.inverse(raw[:, 0]))
        return _classifier_finish(lambda raw: loss.predict_proba(raw))


def _hgb_layout(pre):
    """Where HistGradientBoosting's preprocessor puts each input column: a list of (input position,
    output position, the encoder's categories or None for a numeric column). The categorical
    columns (ordinal codes) come first, the numeric ones after."""
    enc = pre.named_transformers_["encoder"]
    plan = []
    for tname, _, sel in pre.transformers_:
        if tname not in ("encoder", "numerical"):
            continue
        start = pre.output_indices_[tname].start
        idx = np.flatnonzero(sel) if np.asarray(sel).dtype == bool else np.asarray(sel, dtype=int)
        for rank, i in enumerate(idx):
            plan.append((int(i), start + rank, enc.categories_[rank] if tname == "encoder" else None))
    return plan


def _hgb_frame_encoder(model):
    """HGB's encoding of a DataFrame (its ColumnTransformer's output) without the transformer, or None.

    HGB with categorical features encodes X by a ColumnTransformer: an OrdinalEncoder of the
    categorical columns (unknown and missing values to NaN), then the numeric columns as float64.
    Its fixed cost (validation, column selection, joblib's dispatch) is ~4 ms per call, most of
    what the engine's check costs on a few thousand rows; the same output comes from a lookup of
    each categorical column's values in the encoder's ``categories_`` (one per category of a
    pandas categorical, then a take by its codes) and the numeric columns as they are.

    The returned ``encode(X)`` gives None -- and the caller then uses ``_preprocess_X`` -- for any
    frame it does not handle exactly: columns not named and ordered as at fit, a numeric column of
    a non-numpy dtype (nullable, object), a categorical column of a dtype other than pandas'
    categorical or string, object or a numpy number. Whatever it gets wrong, the engine's check against the model's own
    predict catches.
    """
    pre = getattr(model, "_preprocessor", None)
    names = getattr(model, "feature_names_in_", None)
    if pre is None or names is None:
        return None
    try:
        names = [str(c) for c in names]
        plan = _hgb_layout(pre)  # (input position, output position, categories or None)
        width = max(sl.stop for sl in pre.output_indices_.values())
    except Exception:  # a scikit-learn version that keeps its preprocessor otherwise
        return None
    plan.sort(key=lambda e: e[0])
    if [p for p, _, _ in plan] != list(range(len(names))) or width != len(names):
        return None
    tables = {}  # (position, categorical dtype) -> float64 code of each of the dtype's categories

    def encode(X):
        if X.shape[1] != len(names) or [str(c) for c in X.columns] != names:
            return None
        out = np.empty((width, len(X)), dtype=np.float64)  # column by column, transposed once at the end
        # X.items(): the columns in order (a quarter of the cost of X.iloc[:, i] one by one)
        for (_, s), (i, o, cats) in zip(X.items(), plan):
            if cats is None:
                if not isinstance(s.dtype, np.dtype) or s.dtype.kind not in "biuf":
                    return None
                out[o] = s.to_numpy()
            elif isinstance(s.dtype, pd.CategoricalDtype):
                key = (i, s.dtype)
                table = tables.get(key)
                if table is None:
                    table = np.append(_category_codes(cats, s.dtype.categories.to_numpy(dtype=object)), np.nan)
                    tables[key] = table
                out[o] = table[s.array.codes]  # code -1 (missing) takes the last entry, NaN
            elif s.dtype == object or isinstance(s.dtype, pd.StringDtype) or \
                    (isinstance(s.dtype, np.dtype) and s.dtype.kind in "biuf"):
                out[o] = _category_codes(cats, s.to_numpy(dtype=object))
            else:
                return None
        return np.ascontiguousarray(out.T)
    return encode


def _category_codes(categories, values):
    """OrdinalEncoder's codes of ``values`` (object array) in ``categories``: missing and unknown
    values NaN (HGB's encoder has ``encoded_missing_value`` and ``unknown_value`` NaN)."""
    missing = pd.isna(values)
    if len(values) <= 64:  # a dtype's categories: a dict is 10x faster than two pandas Indexes
        try:
            lookup = {c: i for i, c in enumerate(categories.tolist() if hasattr(categories, "tolist") else categories)}
            codes = np.array([lookup.get(v, -1) for v in values.tolist()], dtype=np.float64)
        except TypeError:  # an unhashable value
            codes = pd.Index(categories).get_indexer(pd.Index(values, dtype=object)).astype(np.float64)
    else:
        codes = pd.Index(categories).get_indexer(pd.Index(values, dtype=object)).astype(np.float64)
    codes[(codes < 0) | missing] = np.nan
    return codes


# --------------------------------------------------------------------------- scikit-learn trees

def _tree_arrays(tree, normalize=False, scale=1.0, column=0):
    """One sklearn ``Tree`` -> arrays for :meth:`_Builder.add_tree`."""
    t = tree.tree_
    leaf = t.children_left < 0
    if t.n_outputs != 1:
        raise Unsupported("multi-output trees are not supported")
    value = t.value[:, 0, :].astype(np.float64)
    if normalize:
        s = value.sum(axis=1, keepdims=True)
        s[s == 0] = 1.0
        value = value / s
    else:
        value = value[:, column:column + 1]
    missing = getattr(t, "missing_go_to_left", None)
    missing = np.zeros(len(leaf), np.uint8) if missing is None else np.asarray(missing)
    return dict(feature=t.feature, kind=np.where(leaf, -1, 0), threshold=t.threshold, left=t.children_left,
                right=t.children_right, missing_left=missing, value=value * scale)


class _ScikitLearnTrees(Adapter):
    """What scikit-learn's own trees share: float32 input by position, no preprocessing."""

    def encoder(self):
        return _float32_encode

    def columns(self):
        return _positional_columns(self.model, int(self.model.n_features_in_), _float32)


class ForestAdapter(_ScikitLearnTrees):
    """RandomForest/ExtraTrees (the mean of the trees; a classifier averages leaf proportions) and
    single decision trees (a forest of one)."""

    linear = True

    @staticmethod
    def can_handle(model):
        mod = type(model).__module__
        if mod.startswith("sklearn.tree"):
            return hasattr(model, "tree_")
        est = getattr(model, "estimators_", None)
        return (mod.startswith("sklearn.ensemble") and isinstance(est, list) and bool(est)
                and all(hasattr(e, "tree_") for e in est))

    def __init__(self, model):
        super().__init__(model)
        self.classifier = hasattr(model, "classes_")
        if self.classifier and np.ndim(model.classes_[0]) > 0 or getattr(model, "n_outputs_", 1) != 1:
            raise Unsupported("multi-output forests are not supported")
        self.n_out = len(model.classes_) if self.classifier else 1

    def trees(self):
        trees = [self.model] if hasattr(self.model, "tree_") else self.model.estimators_
        b = _Builder(self.n_out, value_width=self.n_out)
        for tree in trees:
            b.add_tree(-1, **_tree_arrays(tree, normalize=self.classifier, scale=1.0 / len(trees)))
        return b.build()

    def intercept(self):
        return np.zeros(self.n_out)

    def finisher(self):
        return _classifier_finish(lambda raw: raw) if self.classifier else _regressor_finish(_first_column)


class GradientBoostingAdapter(_ScikitLearnTrees):
    """scikit-learn's GradientBoosting regressor and classifier (learning rate times each tree)."""

    @staticmethod
    def can_handle(model):
        est = getattr(model, "estimators_", None)
        return (type(model).__module__.startswith("sklearn.ensemble") and isinstance(est, np.ndarray)
                and est.ndim == 2 and hasattr(model, "learning_rate"))

    def __init__(self, model):
        super().__init__(model)
        init = model.init_
        if not (isinstance(init, str) and init == "zero") and type(init).__name__ not in ("DummyRegressor",
                                                                                          "DummyClassifier"):
            raise Unsupported("a custom init estimator is not supported")
        self.classifier = hasattr(model, "classes_")
        self.linear = not self.classifier

    def trees(self):
        est = self.model.estimators_
        lr = float(self.model.learning_rate)
        b = _Builder(est.shape[1])
        for i in range(est.shape[0]):
            for k in range(est.shape[1]):
                b.add_tree(k, **_tree_arrays(est[i, k], scale=lr))
        return b.build()

    def intercept(self):
        zeros = np.zeros((1, int(self.model.n_features_in_)), dtype=np.float32)
        return np.asarray(self.model._raw_predict_init(zeros), dtype=np.float64)[0]

    def finisher(self):
        if self.classifier:
            loss = self.model._loss
            return _classifier_finish(lambda raw: loss.predict_proba(raw))
        return _regressor_finish(_first_column)


# --------------------------------------------------------------------------- LightGBM

class LightGBMAdapter(Adapter):
    """LightGBM boosters and their scikit-learn wrappers (numeric and category splits, NaN or zero
    as missing; read up to the best iteration after early stopping)."""

    @staticmethod
    def can_handle(model):
        return type(model).__module__.startswith("lightgbm") and (hasattr(model, "booster_")
                                                                  or hasattr(model, "dump_model"))

    def __init__(self, model):
        super().__init__(model)
        self.booster = model.booster_ if hasattr(model, "booster_") else model
        self.dump = self.booster.dump_model()
        self.n_out = int(self.dump["num_tree_per_iteration"])
        if self.dump.get("average_output"):
            raise Unsupported("LightGBM random-forest mode (average_output) is not supported")
        objective = str(self.dump["objective"]).split()
        self.objective = objective[0]
        self.params = dict(p.split(":", 1) for p in objective[1:] if ":" in p)
        self.linear = self.objective in ("regression", "regression_l1", "huber", "fair", "quantile", "mape")
        self._link()  # an objective the engine does not know is refused before the trees are read

    def trees(self):
        infos = self.dump["tree_info"]
        best = getattr(self.model, "best_iteration_", None) if hasattr(self.model, "booster_") else None
        if best:
            infos = infos[:int(best) * self.n_out]
        b = _Builder(self.n_out)
        for t, info in enumerate(infos):
            b.add_tree(t % self.n_out, **_lgb_tree(info["tree_structure"], b))
        return b.build()

    def intercept(self):
        return np.zeros(self.n_out)

    def columns(self):
        n_in = int(self.booster.num_feature())
        names = self.booster.feature_name()
        stored = self.booster.pandas_categorical or []

        def column(name, X):
            i = names.index(name) if isinstance(name, str) and name in names else name
            if not isinstance(i, (int, np.integer)) or not 0 <= i < n_in:
                return None
            if isinstance(X, pd.DataFrame) and isinstance(name, str) and name in X.columns:
                i = list(X.columns).index(name)
            lists = _lgb_category_lists(X, stored)
            return int(i), (_codes(lists[i]) if i in lists else _as_float)
        return column

    def encoder(self):
        stored = self.booster.pandas_categorical or []

        def encode(X):
            if not isinstance(X, pd.DataFrame):
                return np.ascontiguousarray(X, dtype=np.float64)
            lists = _lgb_category_lists(X, stored)
            out = np.empty((len(X), X.shape[1]))
            for i, c in enumerate(X.columns):
                s = X[c]
                if i in lists:
                    out[:, i] = _codes(lists[i])(s.to_numpy(dtype=object))
                elif isinstance(s.dtype, pd.CategoricalDtype):
                    raise Unsupported("more categorical columns than LightGBM stored category lists")
                else:
                    out[:, i] = s.to_numpy(dtype=np.float64)
            return out
        return encode

    def _link(self):
        """(classifier, the link of the raw score) of the objective."""
        name = self.objective
        if self.linear:
            return False, _first_column
        if name in ("poisson", "gamma", "tweedie"):
            return False, _exp_first_column
        if name == "binary":
            s = float(self.params.get("sigmoid", 1.0))
            return True, lambda raw: np.column_stack([1 - _sigmoid(s * raw[:, 0]), _sigmoid(s * raw[:, 0])])
        if name == "multiclass":
            return True, _softmax
        raise Unsupported(f"LightGBM objective {name!r}")

    def finisher(self):
        classifier, link = self._link()
        return _classifier_finish(link) if classifier else _regressor_finish(link)


def _lgb_category_lists(X, stored):
    """Frame position -> categories: LightGBM recodes the k-th pandas categorical column of the
    frame it predicts by the k-th stored category list (codes = positions, unknown -> NaN)."""
    if not isinstance(X, pd.DataFrame):
        return {}
    cols = [i for i, c in enumerate(X.columns) if isinstance(X[c].dtype, pd.CategoricalDtype)]
    return {i: stored[k] for k, i in enumerate(cols) if k < len(stored)}


_NODE_ARRAYS = ("feature", "kind", "threshold", "left", "right", "missing_left", "value", "cat_left")


def _lgb_tree(structure, b):
    """One tree of a LightGBM dump -> arrays for :meth:`_Builder.add_tree` (nodes in pre-order)."""
    lists = {k: [] for k in _NODE_ARRAYS}

    def visit(node):
        idx = len(lists["feature"])
        for k in lists:
            lists[k].append(0)
        if "leaf_value" in node or "split_feature" not in node:
            lists["kind"][idx] = -1
            lists["value"][idx] = float(node.get("leaf_value", 0.0))
            return idx
        lists["feature"][idx] = int(node["split_feature"])
        _lgb_split(node, idx, lists, b)
        lists["left"][idx] = visit(node["left_child"])
        lists["right"][idx] = visit(node["right_child"])
        return idx

    visit(structure)
    return lists


def _lgb_split(node, idx, lists, b):
    """Kind, threshold or category set, and missing-value direction of one LightGBM split."""
    if node["decision_type"] == "==":
        lists["kind"][idx] = 1
        lists["cat_left"][idx] = b.add_bitset(_bitset([int(c) for c in str(node["threshold"]).split("||")]))
        lists["missing_left"][idx] = 0
    elif node["decision_type"] == "<=":
        thr = float(node["threshold"])
        lists["threshold"][idx] = thr
        mtype = node.get("missing_type", "None")
        default_left = bool(node.get("default_left", False))
        if mtype == "NaN":
            lists["kind"][idx], lists["missing_left"][idx] = 0, int(default_left)
        elif mtype == "Zero":
            lists["kind"][idx], lists["missing_left"][idx] = 2, int(default_left)
        else:  # NaN is read as 0
            lists["kind"][idx], lists["missing_left"][idx] = 0, int(0.0 <= thr)
    else:
        raise Unsupported(f"LightGBM decision type {node['decision_type']!r}")


# --------------------------------------------------------------------------- XGBoost

#: XGBoost objectives whose prediction is the raw score itself.
_XGB_IDENTITY = ("reg:squarederror", "reg:absoluteerror", "reg:pseudohubererror", "reg:quantileerror")


class XGBoostAdapter(Adapter):
    """XGBoost boosters and their scikit-learn wrappers (gbtree; numeric and category splits; read
    up to the best iteration after early stopping). The intercept (base_score through the
    objective's link) is read off the model's margin on the check rows."""

    rtol = 2e-5  # XGBoost sums the trees in float32
    atol = 2e-5

    @staticmethod
    def can_handle(model):
        return type(model).__module__.startswith("xgboost") and (hasattr(model, "get_booster")
                                                                 or hasattr(model, "get_dump"))

    def __init__(self, model):
        super().__init__(model)
        self.booster = booster = model.get_booster() if hasattr(model, "get_booster") else model
        learner = json.loads(booster.save_config())["learner"]
        lparam = learner["learner_model_param"]
        self.n_out = max(int(lparam.get("num_class", "0")), 1)
        self.objective = learner["objective"]["name"]
        if int(lparam.get("num_target", "1")) != 1:
            raise Unsupported("multi-target XGBoost models are not supported")
        try:
            self.n_parallel = int(learner["gradient_booster"]["gbtree_model_param"]["num_parallel_tree"])
        except (KeyError, TypeError, ValueError):
            self.n_parallel = 1
        if learner["gradient_booster"].get("name") != "gbtree":
            raise Unsupported("only the gbtree booster is supported")
        self.linear = self.objective in _XGB_IDENTITY
        self._link()  # an objective the engine does not know is refused before the trees are read
        names = booster.feature_names
        self.name_idx = {(names[i] if names else f"f{i}"): i for i in range(int(booster.num_features()))}
        self.categories = _xgb_categories(booster) if "c" in (booster.feature_types or []) else {}

    def _dumps(self):
        """The JSON dump of each tree the model predicts with (up to best_iteration)."""
        dumps = self.booster.get_dump(dump_format="json")
        best = None
        if hasattr(self.model, "get_booster"):
            try:
                best = self.model.best_iteration
            except AttributeError:
                best = None
        if best is not None:
            dumps = dumps[:(int(best) + 1) * self.n_out * self.n_parallel]
        return dumps

    def trees(self):
        b = _Builder(self.n_out)
        for t, text in enumerate(self._dumps()):
            b.add_tree((t // self.n_parallel) % self.n_out, **_xgb_tree(json.loads(text), self.name_idx,
                                                                        self.categories, b))
        return b.build()

    def intercept(self):
        return None

    def margin(self, X):
        if hasattr(self.model, "get_booster"):
            # The scikit-learn wrapper predicts with the trees up to best_iteration after early
            # stopping: its own margin uses the same trees as the dump.
            return self.model.predict(X, output_margin=True)
        return self.booster.predict(_xgb_matrix(X), output_margin=True)

    def columns(self):
        columns = {}
        for nm, i in self.name_idx.items():
            ve = _codes(self.categories[i]) if i in self.categories else _float32
            columns[nm] = (i, ve)
            columns[i] = (i, ve)
        return columns

    def encoder(self):
        cat_lists = self.categories
        if not cat_lists:
            return _float32_encode

        def encode(X):
            if not isinstance(X, pd.DataFrame):
                raise Unsupported("an XGBoost model with categorical features is read through a DataFrame")
            # xgboost recodes a categorical column by the categories it stored at fit time
            out = np.empty((len(X), X.shape[1]))
            for i, c in enumerate(X.columns):
                col = X[c]
                out[:, i] = _codes(cat_lists[i])(col.to_numpy(dtype=object)) if i in cat_lists else \
                    _float32(col.to_numpy(dtype=np.float64))
            return out
        return encode

    def _link(self):
        """(classifier, the link of the raw score) of the objective."""
        objective = self.objective
        if objective == "reg:logistic":
            return False, lambda raw: _sigmoid(raw[:, 0])
        if objective.startswith("binary:logistic"):
            return True, lambda raw: np.column_stack([1 - _sigmoid(raw[:, 0]), _sigmoid(raw[:, 0])])
        if objective in ("multi:softprob", "multi:softmax"):
            return True, _softmax
        if objective in _XGB_IDENTITY:
            return False, _first_column
        if objective in ("count:poisson", "reg:gamma", "reg:tweedie"):
            return False, _exp_first_column
        raise Unsupported(f"XGBoost objective {objective!r}")

    def finisher(self):
        classifier, link = self._link()
        return _classifier_finish(link) if classifier else _regressor_finish(link)


def _xgb_tree(root, name_idx, categories, b):
    """One tree of an XGBoost JSON dump -> arrays for :meth:`_Builder.add_tree` (nodes by id)."""
    nodes = {}
    stack = [root]
    while stack:
        nd = stack.pop()
        nodes[int(nd["nodeid"])] = nd
        stack.extend(nd.get("children", []))
    ids = sorted(nodes)
    pos = {nid: k for k, nid in enumerate(ids)}
    if pos[int(root["nodeid"])] != 0:
        raise Unsupported("unexpected XGBoost tree layout")
    arr = {k: [] for k in _NODE_ARRAYS}
    for nid in ids:
        for k, v in zip(_NODE_ARRAYS, _xgb_node(nodes[nid], pos, name_idx, categories, b)):
            arr[k].append(v)
    return arr


_NEG_INF32 = np.float32(-np.inf)


def _xgb_node(nd, pos, name_idx, categories, b):
    """(feature, kind, threshold, left, right, missing_left, value, cat_left) of one dumped node."""
    if "leaf" in nd:
        return 0, -1, 0.0, -1, -1, 0, float(nd["leaf"]), 0
    if isinstance(nd.get("split_condition"), list):
        # a category split: the listed codes go "yes" (left); any other code, also one outside the
        # set's range, goes "no"; NaN goes the "missing" way (node kind 3)
        f = name_idx[nd["split"]]
        if f not in categories:
            raise Unsupported(f"XGBoost feature {nd['split']!r} has category splits but no stored categories")
        cat_left = b.add_bitset(_bitset([int(c) for c in nd["split_condition"]]))
        return (f, 3, 0.0, pos[int(nd["yes"])], pos[int(nd["no"])], int(nd["missing"] == nd["yes"]), 0.0,
                cat_left)
    if "split_condition" not in nd:
        raise Unsupported("an XGBoost split without a condition")
    # xgboost: float32(x) < thr  <=>  x <= the float32 just below thr
    below = float(np.nextafter(np.float32(nd["split_condition"]), _NEG_INF32))
    return (name_idx[nd["split"]], 0, below, pos[int(nd["yes"])], pos[int(nd["no"])],
            int(nd["missing"] == nd["yes"]), 0.0, 0)


def _xgb_categories(booster):
    """Feature position -> the categories XGBoost stored at fit time (codes are positions in it)."""
    model = json.loads(booster.save_raw("json"))["learner"]["gradient_booster"]["model"]
    enc = (model.get("cats") or {}).get("enc") or []
    out = {}
    for i, kind in enumerate(booster.feature_types or []):
        if kind != "c":
            continue
        if i >= len(enc) or not enc[i].get("values"):
            raise Unsupported("an XGBoost categorical feature without stored categories")
        values, offsets = enc[i]["values"], enc[i].get("offsets")
        if offsets:  # strings: UTF-8 bytes, one slice per category
            out[i] = [bytes(values[a:b]).decode("utf-8") for a, b in zip(offsets[:-1], offsets[1:])]
        else:
            out[i] = list(values)
    return out


def _xgb_matrix(X):
    import xgboost as xgb

    return xgb.DMatrix(X, enable_categorical=True)


# --------------------------------------------------------------------------- Pipeline

#: Pipeline steps the engine sees through: each output column depends on exactly one input
#: column, value by value, and each input column reaches at most one output column. Freeing an
#: input column is then freeing its one encoded column, with the encoding of each grid value
#: read off the step itself. Only scikit-learn's own classes (a class of the same name from
#: elsewhere may do anything), each with the reason its mapping is one-to-one:
_COLUMNWISE = {
    # every column coded by its own category list (unknown, infrequent and missing values get a
    # code of their own in the same column)
    "OrdinalEncoder": "one code column per input column",
    # (x - center_j) / scale_j with statistics fitted per column; MinMaxScaler's clip is per value
    "StandardScaler": "one affine map per column",
    "MinMaxScaler": "one affine map per column (clipped per value)",
    "MaxAbsScaler": "one scale per column",
    "RobustScaler": "one affine map per column",
    # a missing value becomes the column's statistic; without add_indicator nothing else is
    # added (a column that was all-missing at fit is dropped: it reaches no output column, and the
    # engine leaves that feature to predict)
    "SimpleImputer": "missing values replaced by a per-column statistic",
}


def _check_columnwise(step):
    """Raise :class:`Unsupported` unless ``step`` maps each column to at most one column, value by value."""
    if step is None or (isinstance(step, str) and step in ("passthrough", "drop")):
        return
    name = type(step).__name__
    sklearn_class = type(step).__module__.startswith("sklearn.")
    if sklearn_class and name in _COLUMNWISE:
        if name == "SimpleImputer" and getattr(step, "add_indicator", False):
            # x -> (imputed x, 1[x missing]): one column to two; freeing the first alone would
            # leave the indicator at the row's own value.
            raise Unsupported("a Pipeline step SimpleImputer(add_indicator=True) maps a column to two "
                              "(its value and its missing-value indicator)")
        return
    if sklearn_class and name == "FunctionTransformer" and step.func is None:  # identity (ColumnTransformer's
        return  # passthrough)
    if sklearn_class and name == "Pipeline":  # a composition of column-wise maps is column-wise
        for _, sub in step.steps:
            _check_columnwise(sub)
        return
    if sklearn_class and name == "ColumnTransformer":
        # Its parts side by side (remainder included): column-wise if every part is. A column given
        # to two parts reaches two output columns; the engine's column probe sees both move and
        # leaves that feature to predict.
        for _, trans, _ in step.transformers_:
            _check_columnwise(trans)
        return
    raise Unsupported(f"a Pipeline step {name} is not known to act column by column")


class PipelineAdapter(Adapter):
    """A scikit-learn Pipeline whose last step is a model another adapter reads and whose earlier
    steps act column by column (:data:`_COLUMNWISE`). Each input column's encoded column is found
    by probing the steps (:class:`_ColumnProbe`)."""

    @staticmethod
    def can_handle(model):
        return type(model).__name__ == "Pipeline" and hasattr(model, "steps")

    def __init__(self, model):
        super().__init__(model)
        for _, step in model.steps[:-1]:
            _check_columnwise(step)
        self.inner = adapt(model.steps[-1][1])
        self.pre = model[:-1]
        self.name = f"Pipeline({self.inner.name})"
        self.rtol, self.atol, self.linear = self.inner.rtol, self.inner.atol, self.inner.linear

    def trees(self):
        return self.inner.trees()

    def intercept(self):
        return self.inner.intercept()

    def margin(self, X):
        return self.inner.margin(self.pre.transform(X))

    def encoder(self):
        inner, pre = self.inner.encoder(), self.pre

        def encode(X):
            if not isinstance(X, pd.DataFrame):
                raise Unsupported("a Pipeline is read through the columns of a DataFrame; X is an array")
            return inner(pre.transform(X))
        return encode

    def columns(self):
        return _ColumnProbe(self.encoder())

    def finisher(self):
        return self.inner.finisher()


class _ColumnProbe:
    """Input column -> (encoded column, value encoder) of a pipeline, found by setting the column to
    two different values and seeing which encoded column moves; cached per (column, dtype)."""

    def __init__(self, encode):
        self.encode = encode
        self.mapping = {}

    def __call__(self, key, X):
        # Only named columns of a frame.
        if not isinstance(key, str) or not isinstance(X, pd.DataFrame) or key not in X.columns:
            return None
        # The value encoder builds rows with the column's dtype: another frame whose column has
        # another dtype (other categories) gets its own mapping.
        cache_key = (key, X[key].dtype)
        if cache_key not in self.mapping:
            self.mapping[cache_key] = None
            self.mapping[cache_key] = self._probe(key, X)
        return self.mapping[cache_key]

    def _probe(self, key, X):
        encode = self.encode
        vals = pd.unique(X[key].dropna())
        if len(vals) < 2:
            return None
        head = X.iloc[:min(len(X), 8)]
        E0 = encode(head)
        E = [encode(head.assign(**{key: _frame_rows(head, key, [v] * len(head))[key].to_numpy()
                                   if not isinstance(X[key].dtype, pd.CategoricalDtype)
                                   else pd.Categorical([v] * len(head), dtype=X[key].dtype)}))
             for v in vals[:2]]
        moved = np.flatnonzero(np.any(~_same(E[0], E[1]), axis=0))
        if len(moved) != 1:
            return None
        j = int(moved[0])
        others = np.ones(E0.shape[1], dtype=bool)
        others[j] = False
        if not (_same(E[0][:, others], E0[:, others]).all() and _same(E[0][:, j], E[0][0, j]).all()):
            return None
        return j, _ValueEncoder(encode, X.iloc[:1], key, j)


class _ValueEncoder:
    """Values of one input column -> the pipeline's encoded column ``j`` (what the steps make of
    them, NaN included), through a one-row frame (the mapping is cached with the model: one row,
    not the data)."""

    def __init__(self, encode, first, key, j):
        self.encode, self.first, self.key, self.j = encode, first, key, j

    def __call__(self, values):
        values = np.asarray(values, dtype=object) if np.asarray(values).dtype.kind not in "biuf" \
            else np.asarray(values)
        codes, uniq = pd.factorize(pd.Series(values), use_na_sentinel=True)
        out = np.full(len(values), np.nan)
        if len(uniq):
            col = self.encode(_frame_rows(self.first, self.key, list(uniq)))[:, self.j]
            out[codes >= 0] = col[codes[codes >= 0]]
        if (codes < 0).any():  # missing values: what the pipeline makes of NaN
            out[codes < 0] = self.encode(_frame_rows(self.first, self.key, [np.nan]))[0, self.j]
        return out


def _frame_rows(X, key, values):
    """Copies of X's first row, one per value, with column ``key`` set to the values in its dtype."""
    rows = X.iloc[np.zeros(len(values), dtype=int)].reset_index(drop=True)
    dtype = X[key].dtype
    if isinstance(dtype, pd.CategoricalDtype):
        rows[key] = pd.Categorical(values, dtype=dtype)
    else:
        rows[key] = pd.Series(values, dtype=object).astype(dtype) if dtype.kind not in "biuf" else \
            np.asarray(values).astype(dtype)
    return rows


def _same(a, b):
    return (a == b) | (np.isnan(a) & np.isnan(b))


# --------------------------------------------------------------------------- the registry

#: The adapters :func:`adapt` tries, in this order (the first whose ``can_handle`` says yes reads
#: the model). A new library is one more class here.
ADAPTERS = (PipelineAdapter, HistGradientBoostingAdapter, ForestAdapter, GradientBoostingAdapter, LightGBMAdapter,
            XGBoostAdapter)


def adapt(model):
    """The :class:`Adapter` of a fitted model, or raise :class:`Unsupported`.

    Families are recognised by what the model holds (HGB's ``_predictors``, a forest's
    ``estimators_`` of trees with ``tree_``, a LightGBM booster's ``dump_model``, an XGBoost
    booster's ``get_dump``), never by class name alone.
    """
    for adapter in ADAPTERS:
        if adapter.can_handle(model):
            return adapter(model)
    raise Unsupported(f"{type(model).__name__} is not a tree ensemble the engine knows")
