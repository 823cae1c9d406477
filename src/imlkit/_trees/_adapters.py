"""Adapters: a fitted tree ensemble -> flat node arrays + how to encode its input and finish its output.

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
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["Forest", "TreeModel", "Unsupported", "adapt"]


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
        n = len(feature)
        off = self.n_nodes
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
        self.roots.append(off)
        self.tree_out.append(out)
        self.n_nodes += n
        self.max_depth = max(self.max_depth, _depth(np.asarray(left) , np.asarray(right), leaf))

    def build(self):
        if not self.roots:
            raise Unsupported("the model has no trees")
        c = {k: np.concatenate(v) for k, v in self.cols.items()}
        width = max([len(b) for b in self.bitsets] + [1])
        bits = np.zeros((max(len(self.bitsets), 1), width), dtype=np.uint32)
        for b, words in enumerate(self.bitsets):
            bits[b, :len(words)] = words
        return Forest(roots=np.asarray(self.roots, np.int64), bitsets=bits,
                      tree_out=np.asarray(self.tree_out, np.int64), n_out=self.n_out,
                      max_depth=self.max_depth, **c)


def _depth(left, right, leaf):
    """Depth of a tree given local child arrays (root 0)."""
    n = len(leaf)
    depth = np.zeros(n, dtype=np.int64)
    stack = [0]
    best = 0
    seen = 0
    while stack:
        nd = stack.pop()
        seen += 1
        if seen > n:
            raise Unsupported("a tree is not a tree (a node is reached twice)")
        if not leaf[nd]:
            for ch in (int(left[nd]), int(right[nd])):
                if not 0 <= ch < n:
                    raise Unsupported("a tree has a child index out of range")
                depth[ch] = depth[nd] + 1
                best = max(best, depth[ch])
                stack.append(ch)
    return best


@dataclass
class TreeModel:
    """A model as the engine sees it.

    Attributes
    ----------
    forest : Forest
    base : ndarray (n_out,)
        Intercept added to the raw score.
    encode : callable(X) -> float64 (n, p)
        The model's input encoding of a DataFrame (or array).
    columns : dict or callable(name, X)
        Input column name or position -> (model column, value encoder ``values -> float64``);
        a callable when the mapping depends on the frame (LightGBM's categoricals).
    finish : callable(raw (n, n_out), output) -> predictions
        Link: ``output`` is "predict" or "proba"; raises Unsupported for an output it cannot give.
    name : str
    rtol, atol : float
        Tolerance of the check against the model's own predictions.
    linear : bool
        ``finish`` is affine in the raw score (identity link, or a forest's averaged leaf
        proportions): a mean of predictions is then ``finish`` of the mean raw score.
    """

    forest: Forest
    base: np.ndarray
    encode: object
    columns: object
    finish: object
    name: str
    rtol: float = 1e-9
    atol: float = 1e-9
    kernel_args: tuple = field(default=None, repr=False)
    margin: object = field(default=None, repr=False)
    linear: bool = False

    def column(self, key, X):
        """(model column, value encoder) of input column ``key`` (a name or position), or None."""
        if callable(self.columns):
            return self.columns(key, X)
        return self.columns.get(key)


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


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


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


# --------------------------------------------------------------------------- scikit-learn HGB

def _hgb(model):
    preds = model._predictors
    n_out = int(model.n_trees_per_iteration_)
    b = _Builder(n_out)
    known, f_idx_map = model._bin_mapper.make_known_categories_bitsets()
    known_rows = [b.add_bitset(row) for row in np.asarray(known)]
    f_idx_map = np.asarray(f_idx_map)
    for trees in preds:
        for k, tp in enumerate(trees):
            nodes = tp.nodes
            leaf = nodes["is_leaf"].astype(bool)
            is_cat = nodes["is_categorical"].astype(bool) & ~leaf
            off = len(b.bitsets)
            for row in np.asarray(tp.raw_left_cat_bitsets):
                b.add_bitset(row)
            feat = nodes["feature_idx"].astype(np.int64)
            cat_left = np.where(is_cat, nodes["bitset_idx"].astype(np.int64) + off, 0)
            cat_known = np.where(is_cat, [known_rows[f_idx_map[f]] if c else -1 for f, c in zip(feat, is_cat)], -1) \
                if is_cat.any() else None
            b.add_tree(k, feat, np.where(leaf, -1, np.where(is_cat, 1, 0)), nodes["num_threshold"],
                       nodes["left"], nodes["right"], nodes["missing_go_to_left"], nodes["value"],
                       cat_left=cat_left, cat_known=cat_known)
    forest = b.build()
    base = np.asarray(model._baseline_prediction, dtype=np.float64).ravel()
    pre = model._preprocessor
    n_in = int(model.n_features_in_)
    if pre is None:
        columns = _positional_columns(model, n_in, _as_float)
    else:
        columns = {}
        names = getattr(model, "feature_names_in_", None)
        enc = pre.named_transformers_["encoder"]
        for tname, _, sel in pre.transformers_:
            if tname not in ("encoder", "numerical"):
                continue
            start = pre.output_indices_[tname].start
            idx = np.flatnonzero(sel) if np.asarray(sel).dtype == bool else np.asarray(sel, dtype=int)
            for rank, i in enumerate(idx):
                ve = _codes(enc.categories_[rank]) if tname == "encoder" else _as_float
                columns[int(i)] = (start + rank, ve)
                if names is not None:
                    columns[str(names[i])] = (start + rank, ve)

    def encode(X):
        return np.ascontiguousarray(model._preprocess_X(X, reset=False), dtype=np.float64)

    linear = False
    if n_out == 1 and not hasattr(model, "classes_"):
        finish = _regressor_finish(lambda raw: model._loss.link.inverse(raw[:, 0]))
        linear = type(model._loss.link).__name__ == "IdentityLink"
    else:
        finish = _classifier_finish(lambda raw: model._loss.predict_proba(raw))
    return TreeModel(forest, base, encode, columns, finish, type(model).__name__, linear=linear)


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


def _sk_encode(model):
    def encode(X):
        arr = X.to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X)
        return np.ascontiguousarray(np.asarray(arr, dtype=np.float32), dtype=np.float64)
    return encode


def _forest(model, trees=None):
    """RandomForest/ExtraTrees (mean of the trees; a classifier averages leaf proportions), or one tree."""
    trees = model.estimators_ if trees is None else trees
    T = len(trees)
    classifier = hasattr(model, "classes_")
    if classifier:
        if np.ndim(model.classes_[0]) > 0 or getattr(model, "n_outputs_", 1) != 1:
            raise Unsupported("multi-output forests are not supported")
        n_out = len(model.classes_)
    else:
        if getattr(model, "n_outputs_", 1) != 1:
            raise Unsupported("multi-output forests are not supported")
        n_out = 1
    b = _Builder(n_out, value_width=n_out)
    for tree in trees:
        b.add_tree(-1, **_tree_arrays(tree, normalize=classifier, scale=1.0 / T))
    forest = b.build()
    columns = _positional_columns(model, int(model.n_features_in_), _float32)
    finish = _classifier_finish(lambda raw: raw) if classifier else _regressor_finish(lambda raw: raw[:, 0])
    return TreeModel(forest, np.zeros(n_out), _sk_encode(model), columns, finish, type(model).__name__,
                     linear=True)


def _gradient_boosting(model):
    init = model.init_
    if not (isinstance(init, str) and init == "zero") and type(init).__name__ not in ("DummyRegressor",
                                                                                      "DummyClassifier"):
        raise Unsupported("a custom init estimator is not supported")
    est = model.estimators_
    n_out = est.shape[1]
    lr = float(model.learning_rate)
    b = _Builder(n_out)
    for i in range(est.shape[0]):
        for k in range(n_out):
            b.add_tree(k, **_tree_arrays(est[i, k], scale=lr))
    forest = b.build()
    n_in = int(model.n_features_in_)
    base = np.asarray(model._raw_predict_init(np.zeros((1, n_in), dtype=np.float32)), dtype=np.float64)[0]
    columns = _positional_columns(model, n_in, _float32)
    if hasattr(model, "classes_"):
        finish = _classifier_finish(lambda raw: model._loss.predict_proba(raw))
    else:
        finish = _regressor_finish(lambda raw: raw[:, 0])
    return TreeModel(forest, base, _sk_encode(model), columns, finish, type(model).__name__,
                     linear=not hasattr(model, "classes_"))


# --------------------------------------------------------------------------- LightGBM

def _lightgbm(model):
    booster = model.booster_ if hasattr(model, "booster_") else model
    dump = booster.dump_model()
    n_out = int(dump["num_tree_per_iteration"])
    objective = str(dump["objective"]).split()
    if dump.get("average_output"):
        raise Unsupported("LightGBM random-forest mode (average_output) is not supported")
    name = objective[0]
    params = dict(p.split(":", 1) for p in objective[1:] if ":" in p)
    infos = dump["tree_info"]
    best = getattr(model, "best_iteration_", None) if hasattr(model, "booster_") else None
    if best:
        infos = infos[:int(best) * n_out]
    b = _Builder(n_out)
    for t, info in enumerate(infos):
        lists = {k: [] for k in ("feature", "kind", "threshold", "left", "right", "missing_left", "value",
                                 "cat_left")}

        def visit(node):
            idx = len(lists["feature"])
            for k in lists:
                lists[k].append(0)
            if "leaf_value" in node or "split_feature" not in node:
                lists["kind"][idx] = -1
                lists["value"][idx] = float(node.get("leaf_value", 0.0))
                return idx
            lists["feature"][idx] = int(node["split_feature"])
            mtype = node.get("missing_type", "None")
            default_left = bool(node.get("default_left", False))
            if node["decision_type"] == "==":
                cats = [int(c) for c in str(node["threshold"]).split("||")]
                words = np.zeros(max(cats) // 32 + 1, dtype=np.uint32)
                for c in cats:
                    words[c >> 5] |= np.uint32(1) << np.uint32(c & 31)
                lists["kind"][idx] = 1
                lists["cat_left"][idx] = b.add_bitset(words)
                lists["missing_left"][idx] = 0
            elif node["decision_type"] == "<=":
                thr = float(node["threshold"])
                lists["threshold"][idx] = thr
                if mtype == "NaN":
                    lists["kind"][idx], lists["missing_left"][idx] = 0, int(default_left)
                elif mtype == "Zero":
                    lists["kind"][idx], lists["missing_left"][idx] = 2, int(default_left)
                else:  # NaN is read as 0
                    lists["kind"][idx], lists["missing_left"][idx] = 0, int(0.0 <= thr)
            else:
                raise Unsupported(f"LightGBM decision type {node['decision_type']!r}")
            lists["left"][idx] = visit(node["left_child"])
            lists["right"][idx] = visit(node["right_child"])
            return idx

        visit(info["tree_structure"])
        b.add_tree(t % n_out, **lists)
    forest = b.build()
    n_in = int(booster.num_feature())
    cats = booster.pandas_categorical or []
    names = booster.feature_name()

    def cat_lists(X):
        # LightGBM recodes the k-th pandas categorical column of the frame it predicts by the
        # k-th stored category list (codes = positions, unknown -> NaN).
        if not isinstance(X, pd.DataFrame):
            return {}
        cols = [i for i, c in enumerate(X.columns) if isinstance(X[c].dtype, pd.CategoricalDtype)]
        return {i: cats[k] for k, i in enumerate(cols) if k < len(cats)}

    def column(name, X):
        i = names.index(name) if isinstance(name, str) and name in names else name
        if not isinstance(i, (int, np.integer)) or not 0 <= i < n_in:
            return None
        if isinstance(X, pd.DataFrame) and isinstance(name, str) and name in X.columns:
            i = list(X.columns).index(name)
        lists = cat_lists(X)
        return int(i), (_codes(lists[i]) if i in lists else _as_float)

    def encode(X):
        if isinstance(X, pd.DataFrame):
            lists = cat_lists(X)
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
        return np.ascontiguousarray(X, dtype=np.float64)

    linear = name in ("regression", "regression_l1", "huber", "fair", "quantile", "mape")
    if linear:
        finish = _regressor_finish(lambda raw: raw[:, 0])
    elif name in ("poisson", "gamma", "tweedie"):
        finish = _regressor_finish(lambda raw: np.exp(raw[:, 0]))
    elif name == "binary":
        s = float(params.get("sigmoid", 1.0))
        finish = _classifier_finish(lambda raw: np.column_stack([1 - _sigmoid(s * raw[:, 0]),
                                                                 _sigmoid(s * raw[:, 0])]))
    elif name == "multiclass":
        finish = _classifier_finish(_softmax)
    else:
        raise Unsupported(f"LightGBM objective {name!r}")
    return TreeModel(forest, np.zeros(n_out), encode, column, finish, type(model).__name__, linear=linear)


# --------------------------------------------------------------------------- XGBoost

def _xgboost(model):
    booster = model.get_booster() if hasattr(model, "get_booster") else model
    config = json.loads(booster.save_config())
    lparam = config["learner"]["learner_model_param"]
    n_class = int(lparam.get("num_class", "0"))
    n_out = max(n_class, 1)
    objective = config["learner"]["objective"]["name"]
    if int(lparam.get("num_target", "1")) != 1:
        raise Unsupported("multi-target XGBoost models are not supported")
    names = booster.feature_names
    n_in = int(booster.num_features())
    name_idx = {(names[i] if names else f"f{i}"): i for i in range(n_in)}
    dumps = booster.get_dump(dump_format="json")
    npt = 1
    try:
        npt = int(config["learner"]["gradient_booster"]["gbtree_model_param"]["num_parallel_tree"])
    except (KeyError, TypeError, ValueError):
        pass
    if config["learner"]["gradient_booster"].get("name") != "gbtree":
        raise Unsupported("only the gbtree booster is supported")
    best = None
    if hasattr(model, "get_booster"):
        try:
            best = model.best_iteration
        except AttributeError:
            best = None
    if best is not None:
        dumps = dumps[:(int(best) + 1) * n_out * npt]
    cat_lists = _xgb_categories(booster) if "c" in (booster.feature_types or []) else {}
    b = _Builder(n_out)
    neg = np.float32(-np.inf)
    for t, text in enumerate(dumps):
        root = json.loads(text)
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
        arr = {k: [] for k in ("feature", "kind", "threshold", "left", "right", "missing_left", "value", "cat_left")}
        for nid in ids:
            nd = nodes[nid]
            cat_left = 0
            if "leaf" in nd:
                vals = (0, -1, 0.0, -1, -1, 0, float(nd["leaf"]))
            elif isinstance(nd.get("split_condition"), list):
                # a category split: the listed codes go "yes" (left); any other code, also one
                # outside the set's range, goes "no"; NaN goes the "missing" way (node kind 3)
                f = name_idx[nd["split"]]
                if f not in cat_lists:
                    raise Unsupported(f"XGBoost feature {nd['split']!r} has category splits but no stored categories")
                codes = [int(c) for c in nd["split_condition"]]
                words = np.zeros(max(codes + [0]) // 32 + 1, dtype=np.uint32)
                for c in codes:
                    words[c >> 5] |= np.uint32(1) << np.uint32(c & 31)
                cat_left = b.add_bitset(words)
                vals = (f, 3, 0.0, pos[int(nd["yes"])], pos[int(nd["no"])], int(nd["missing"] == nd["yes"]), 0.0)
            else:
                if "split_condition" not in nd:
                    raise Unsupported("an XGBoost split without a condition")
                thr = np.float32(nd["split_condition"])
                # xgboost: float32(x) < thr  <=>  x <= the float32 just below thr
                below = float(np.nextafter(thr, neg))
                vals = (name_idx[nd["split"]], 0, below, pos[int(nd["yes"])], pos[int(nd["no"])],
                        int(nd["missing"] == nd["yes"]), 0.0)
            for k, v in zip(arr, vals):
                arr[k].append(v)
            arr["cat_left"].append(cat_left)
        b.add_tree((t // npt) % n_out, **arr)
    forest = b.build()
    columns = {}
    for nm, i in name_idx.items():
        ve = _codes(cat_lists[i]) if i in cat_lists else _float32
        columns[nm] = (i, ve)
        columns[i] = (i, ve)

    def encode(X):
        if not cat_lists:
            arr = X.to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X)
            return np.ascontiguousarray(np.asarray(arr, dtype=np.float32), dtype=np.float64)
        if not isinstance(X, pd.DataFrame):
            raise Unsupported("an XGBoost model with categorical features is read through a DataFrame")
        # xgboost recodes a categorical column by the categories it stored at fit time
        out = np.empty((len(X), X.shape[1]))
        for i, c in enumerate(X.columns):
            col = X[c]
            out[:, i] = _codes(cat_lists[i])(col.to_numpy(dtype=object)) if i in cat_lists else \
                _float32(col.to_numpy(dtype=np.float64))
        return out

    if objective.startswith("binary:logistic") or objective == "reg:logistic":
        fn = _sigmoid
        if objective == "reg:logistic":
            finish = _regressor_finish(lambda raw: fn(raw[:, 0]))
        else:
            finish = _classifier_finish(lambda raw: np.column_stack([1 - fn(raw[:, 0]), fn(raw[:, 0])]))
    elif objective == "multi:softprob" or objective == "multi:softmax":
        finish = _classifier_finish(_softmax)
    elif objective.startswith("reg:") and objective in ("reg:squarederror", "reg:absoluteerror",
                                                        "reg:pseudohubererror", "reg:quantileerror"):
        finish = _regressor_finish(lambda raw: raw[:, 0])
    elif objective in ("count:poisson", "reg:gamma", "reg:tweedie"):
        finish = _regressor_finish(lambda raw: np.exp(raw[:, 0]))
    else:
        raise Unsupported(f"XGBoost objective {objective!r}")
    # The intercept (base_score through the objective's link) is read off the model itself:
    # the margin minus the sum of the trees on the check rows (imlkit._trees._engine._calibrate).
    linear = objective in ("reg:squarederror", "reg:absoluteerror", "reg:pseudohubererror", "reg:quantileerror")
    if hasattr(model, "get_booster"):
        # The scikit-learn wrapper predicts with the trees up to best_iteration after early
        # stopping: its own margin uses the same trees as the dump above.
        def margin(X):
            return model.predict(X, output_margin=True)
    else:
        def margin(X):
            return booster.predict(_xgb_matrix(X), output_margin=True)
    return TreeModel(forest, None, encode, columns, finish, type(model).__name__, rtol=2e-5, atol=2e-5,
                     margin=margin, linear=linear)


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


def _pipeline(model):
    steps = model.steps
    for _, step in steps[:-1]:
        _check_columnwise(step)
    inner = adapt(steps[-1][1])
    pre = model[:-1]
    mapping = {}

    def encode(X):
        return inner.encode(pre.transform(X))

    def as_frame_rows(X, key, values):
        rows = X.iloc[np.zeros(len(values), dtype=int)].reset_index(drop=True)
        dtype = X[key].dtype
        if isinstance(dtype, pd.CategoricalDtype):
            rows[key] = pd.Categorical(values, dtype=dtype)
        else:
            rows[key] = pd.Series(values, dtype=object).astype(dtype) if dtype.kind not in "biuf" else \
                np.asarray(values).astype(dtype)
        return rows

    def column(key, X):
        # Only named columns of a frame; the output column that depends on `key` is found by
        # setting the column to two different values and seeing which encoded column moves.
        if not isinstance(key, str) or not isinstance(X, pd.DataFrame) or key not in X.columns:
            return None
        # The encoder below builds rows with the column's dtype: another frame whose column has
        # another dtype (other categories) gets its own mapping.
        cache_key = (key, X[key].dtype)
        if cache_key in mapping:
            return mapping[cache_key]
        mapping[cache_key] = None
        vals = pd.unique(X[key].dropna())
        if len(vals) < 2:
            return None
        head = X.iloc[:min(len(X), 8)]
        E0 = encode(head)
        E = [encode(head.assign(**{key: as_frame_rows(head, key, [v] * len(head))[key].to_numpy()
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

        first = X.iloc[:1]  # the mapping is cached with the model: keep one row, not the data

        def enc(values):
            values = np.asarray(values, dtype=object) if np.asarray(values).dtype.kind not in "biuf" \
                else np.asarray(values)
            codes, uniq = pd.factorize(pd.Series(values), use_na_sentinel=True)
            out = np.full(len(values), np.nan)
            if len(uniq):
                col = encode(as_frame_rows(first, key, list(uniq)))[:, j]
                out[codes >= 0] = col[codes[codes >= 0]]
            if (codes < 0).any():  # missing values: what the pipeline makes of NaN
                out[codes < 0] = encode(as_frame_rows(first, key, [np.nan]))[0, j]
            return out

        mapping[cache_key] = (j, enc)
        return mapping[cache_key]

    margin = None if inner.margin is None else (lambda X: inner.margin(pre.transform(X)))
    return TreeModel(inner.forest, inner.base, encode, column, inner.finish, f"Pipeline({inner.name})",
                     rtol=inner.rtol, atol=inner.atol, margin=margin, linear=inner.linear)


def _same(a, b):
    return (a == b) | (np.isnan(a) & np.isnan(b))


# --------------------------------------------------------------------------- dispatch

def adapt(model):
    """The :class:`TreeModel` of a fitted model, or raise :class:`Unsupported`.

    Families are recognised by what the model holds (HGB's ``_predictors``, a forest's
    ``estimators_`` of trees with ``tree_``, a LightGBM booster's ``dump_model``, an XGBoost
    booster's ``get_dump``), never by class name alone.
    """
    mod = type(model).__module__
    if type(model).__name__ == "Pipeline" and hasattr(model, "steps"):
        return _pipeline(model)
    if hasattr(model, "_predictors") and hasattr(model, "_bin_mapper"):
        return _hgb(model)
    if mod.startswith("sklearn.tree") and hasattr(model, "tree_"):
        return _forest(model, [model])
    est = getattr(model, "estimators_", None)
    if mod.startswith("sklearn.ensemble") and est is not None:
        if isinstance(est, np.ndarray) and est.ndim == 2 and hasattr(model, "learning_rate"):
            return _gradient_boosting(model)
        if isinstance(est, list) and est and all(hasattr(e, "tree_") for e in est):
            return _forest(model)
    if mod.startswith("lightgbm"):
        if hasattr(model, "booster_") or hasattr(model, "dump_model"):
            return _lightgbm(model)
    if mod.startswith("xgboost"):
        if hasattr(model, "get_booster") or hasattr(model, "get_dump"):
            return _xgboost(model)
    raise Unsupported(f"{type(model).__name__} is not a tree ensemble the engine knows")
