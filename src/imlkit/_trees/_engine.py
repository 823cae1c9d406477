"""Tree engine: ICE/PD, H-statistic and PFI of tree ensembles without predicting every modified row.

A perturbation method evaluates ``f(x_j = v, x_{i,-j})`` for many values ``v`` per row.
For a tree ensemble the engine walks each tree once per row with ``x_j`` left *free*: the grid
values reaching a node form a range, split at each threshold on ``j``, and leaf values are
added to the whole range at once (see :mod:`._kernels`). With two free features (2-D PD, the
H-statistic's pairs) the grid points reaching a node form a rectangle of index ranges, and a
leaf adds its value to a 2-D difference array. Supported: scikit-learn's
HistGradientBoosting, RandomForest, ExtraTrees and GradientBoosting regressors and classifiers,
LightGBM and XGBoost (gbtree; numeric and category splits), single decision trees, and any of
them as the last step of a Pipeline whose earlier steps act column by column (scikit-learn's
OrdinalEncoder, scalers, SimpleImputer without missing-value indicators, passthrough, inside
ColumnTransformers: the list in ``_adapters._COLUMNWISE`` says why each is one-to-one);
classifiers give probabilities through the model's link (sum of raw scores, then
sigmoid/softmax; a forest averages leaf proportions). Early-stopped XGBoost and LightGBM models
are read up to the iteration they predict with.

PFI/CFI (each row's own replacement values as its grid) walk only the trees that split on the
permuted feature: the others give every copy the row's own value, so their sum is the row's whole
raw score (all trees walked once per X) minus the splitting trees' at the row's own value, which
rides along as one more grid point (:func:`perturbed`, :func:`._kernels.perm_kernel`). Several features at once
(:func:`perturbed_many`, what PFI/CFI ask per chunk of features) share one pass: each copy's score is the row's whole
raw score plus, per tree, its leaf's value minus the row's -- by leaf masks for trees of at most 64 leaves
(:func:`._kernels.mask_kernel`), else by walking each row's path once and each copy on from where it leaves it
(:func:`._kernels.perm_many_kernel`). 1-D PD averages block by block (:func:`pd_mean`), never holding all rows' curves.

The engine proves itself before it answers (:func:`choose`): on rows of X as they are (including
rows with NaN or infinite values) and with each feature the method will replace set to other
rows' values (NaN and levels included), its predictions must equal the model's own; otherwise,
or when the model's own predict fails on those rows, the method predicts, and
``info["engine_note"]`` says why.

How it is used: the methods never call it. :class:`imlkit._model.Predictor` does:

1. ``predictor.use_engine(X, engine)`` at a method's entry point calls :func:`choose`, which
   adapts the model (cached per model object), checks the engine against the model's own
   predictions on a few rows of X, and returns a :class:`TreeEngine` (or None) and
   ``{"engine": "trees" | "predict", ["engine_note": why not]}`` for the params.
2. The predictor's ``ice``, ``predict_perturbed``, ``pair_means``, ``pair_predictions`` and ``pd_average`` ask the
   :class:`TreeEngine` (its methods of the same names return the predictions, or None when a
   feature is not one it can free) and predict the stacked rows otherwise.

``engine="auto"`` uses the trees when the model is supported and passes the check,
``"trees"`` insists (an error otherwise), ``"predict"`` never uses them.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import ModelError, ValidationError, check_choice
from ..samplers import replacement_frame
from ._adapters import Forest, Unsupported, adapt

__all__ = ["ENGINES", "TreeEngine", "TreeModel", "Unsupported", "check_engine", "choose", "predict_rows",
           "tree_model"]

ENGINES = ("auto", "trees", "predict")

#: Rows of X on which a model is checked against its own predictions at first use.
N_CHECK_ROWS = 64

_CACHE = weakref.WeakKeyDictionary()


def _kernel_module():
    # numba is imported on first use, so `import imlkit` stays fast for models without trees.
    from . import _kernels as k

    return k


def check_engine(engine):
    """Validate the ``engine`` keyword."""
    return check_choice("engine", engine, ENGINES)


@dataclass
class TreeModel:
    """A model as the engine sees it: built complete by :func:`tree_model` from the model's adapter.

    Attributes
    ----------
    forest : Forest
    base : ndarray (n_out,)
        Intercept added to the raw score (read off the model's margin when the model does not store
        it where its adapter can read it: :func:`_calibrate`).
    encode : callable(X) -> float64 (n, p)
        The model's input encoding of a DataFrame (or array).
    columns : dict or callable(name, X)
        Input column name or position -> (model column, value encoder ``values -> float64``);
        a callable when the mapping depends on the frame (LightGBM's categoricals, a Pipeline).
    finish : callable(raw (n, n_out), output) -> predictions
        Link: ``output`` is "predict" or "proba"; raises Unsupported for an output it cannot give.
    name : str
    kernel_args : tuple
        The forest's arrays as the kernels take them (:func:`._kernels.as_kernel_args`).
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
    kernel_args: tuple
    rtol: float = 1e-9
    atol: float = 1e-9
    linear: bool = False

    def column(self, key, X):
        """(model column, value encoder) of input column ``key`` (a name or position), or None."""
        if callable(self.columns):
            return self.columns(key, X)
        return self.columns.get(key)


def tree_model(model, data, fresh=False):
    """The (cached) :class:`TreeModel` of ``model``; raises :class:`Unsupported`.

    Parameters
    ----------
    model : fitted estimator
    data : DataFrame or ndarray, or a callable returning one
        Rows as the model reads them: the rows the engine is checked on (a callable is called
        only when they are read). A model whose adapter cannot read its intercept (XGBoost's
        base_score through its link) has it read off the model's own margin on these rows
        (:func:`_calibrate`); a cached model keeps the intercept of the rows it was first read on.
    fresh : bool
        Read the model again (it may have been refitted since it was cached).
    """
    try:
        hit = None if fresh else _CACHE.get(model)
    except TypeError:  # not weak-referenceable: adapt without caching
        hit = None
    if hit is not None:
        if isinstance(hit, Unsupported):
            raise hit
        return hit
    adapter, parts, base = _read(model)
    if base is None:
        try:
            base = _calibrate(adapter, parts, data() if callable(data) else data)
        except Exception:
            # The intercept depends on the rows: the next rows read the model again. (A failure
            # here is not the model's: its margin or encoding refused these rows.)
            _forget(model)
            raise
    tm = TreeModel(base=base, **parts)
    _remember(model, tm)
    return tm


def _read(model):
    """(adapter, the TreeModel's fields but the intercept, the intercept or None) of ``model``.

    A model the engine cannot read is remembered as such; so is one whose reading fails (a
    library changed its internals).
    """
    try:
        adapter = adapt(model)
        forest = adapter.trees()
        parts = dict(forest=forest, encode=adapter.encoder(), columns=adapter.columns(), finish=adapter.finisher(),
                     name=adapter.name, kernel_args=_kernel_module().as_kernel_args(forest), rtol=adapter.rtol,
                     atol=adapter.atol, linear=adapter.linear)
        return adapter, parts, adapter.intercept()
    except Unsupported as exc:
        _remember(model, exc)
        raise
    except Exception as exc:  # a library changed its internals: treat as unsupported
        err = Unsupported(f"the model could not be read ({type(exc).__name__}: {exc})")
        _remember(model, err)
        raise err from exc


def _remember(model, value):
    try:
        _CACHE[model] = value
    except TypeError:
        pass


def _forget(model):
    try:
        _CACHE.pop(model, None)
    except TypeError:
        pass


def _raw(tm, Xe, j, G, cnt, max_rows=None):
    """Raw scores (n, m, n_out) including the intercept; rows in blocks of <= max_rows·m values."""
    n, m = Xe.shape[0], G.shape[1]
    step = n if max_rows is None else max(1, int(max_rows) // max(m, 1))
    parts = []
    for s in range(0, n, step):
        Gb = G if G.shape[0] == 1 else G[s:s + step]
        cb = cnt if G.shape[0] == 1 else cnt[s:s + step]
        parts.append(_kernel_module().free_kernel(np.ascontiguousarray(Xe[s:s + step]), int(j),
                                                  np.ascontiguousarray(Gb), np.ascontiguousarray(cb, dtype=np.int64),
                                                  _all_trees(tm), _NO_WEIGHTS, _block(tm, Gb.shape[1]),
                                                  *tm.kernel_args))
    raw = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
    raw += tm.base
    return raw


_NO_WEIGHTS = np.empty(0)


def _plain_sums(tm, Xe):
    """Every encoded row's sum over all trees (n, n_out), without the intercept: by leaf masks when
    every tree has at most 64 leaves (:func:`._kernels.mask_plain_kernel`, 2-3x faster), else the
    free-feature kernel with no free feature (one walk per row and tree); the same sums bit for bit."""
    masks = _mask_tables(tm)
    if masks is not None:
        return _kernel_module().mask_plain_kernel(np.ascontiguousarray(np.asarray(Xe, dtype=np.float64).T),
                                                  MASK_KERNEL_BLOCK, *masks, *tm.kernel_args)
    return _kernel_module().free_kernel(np.ascontiguousarray(Xe, dtype=np.float64), -1, np.zeros((1, 1)),
                                        np.ones(1, dtype=np.int64), _all_trees(tm), _NO_WEIGHTS, _block(tm, 1),
                                        *tm.kernel_args)[:, 0, :]


def _all_trees(tm):
    """The numbers of all trees of ``tm`` (what the kernels walk when none can be skipped)."""
    return np.arange(len(tm.forest.roots), dtype=np.int64)


def _block(tm, m):
    """Rows per block inside the kernel: all of them (blocks of 64..4096 rows measured no faster on
    HGB and up to 3x slower on a deep forest, whose trees then leave the cache block after block)."""
    return 1 << 62


def _tree_split(tm, j):
    """(trees that split on model column j, trees that do not), as int64 arrays; cached on ``tm``."""
    cache = tm.__dict__.setdefault("_tree_split_cache", {})
    hit = cache.get(j)
    if hit is None:
        f = tm.forest
        n_nodes = len(f.feature)
        tree_of = np.repeat(np.arange(len(f.roots), dtype=np.int64), np.diff(np.append(f.roots, n_nodes)))
        uses = np.zeros(len(f.roots), dtype=bool)
        uses[tree_of[(np.asarray(f.feature) == j) & (np.asarray(f.kind) >= 0)]] = True
        hit = cache[j] = (np.flatnonzero(uses).astype(np.int64), np.flatnonzero(~uses).astype(np.int64))
    return hit


_NO_NODES = np.empty(0, dtype=np.uint8)


def _free_of(tm, j):
    """uint8 per node: 1 when the node's subtree has no split on model column j; cached on ``tm``.

    The nodes that are not free are the splits on j and their ancestors: marked from the splits
    up, one level per pass (a path stops at a node already marked, whose ancestors are marked or
    on their way); no order of the node numbers assumed.
    """
    cache = tm.__dict__.setdefault("_free_of_cache", {})
    hit = cache.get(j)
    if hit is None:
        f = tm.forest
        kind, feature = np.asarray(f.kind), np.asarray(f.feature)
        parents = _parents(tm)
        free = np.ones(len(kind), dtype=np.uint8)
        cur = np.flatnonzero((feature == j) & (kind >= 0))
        while len(cur):
            free[cur] = 0
            cur = parents[cur]
            cur = cur[cur >= 0]
            cur = cur[free[cur] != 0]
        hit = cache[j] = free
    return hit


def _parents(tm):
    """int64 per node: its parent's number, -1 at a root; cached on ``tm``."""
    hit = tm.__dict__.get("_parents_cache")
    if hit is None:
        f = tm.forest
        kind, left, right = np.asarray(f.kind), np.asarray(f.left), np.asarray(f.right)
        hit = np.full(len(kind), -1, dtype=np.int64)
        inner = np.flatnonzero(kind >= 0)
        hit[left[inner]] = inner
        hit[right[inner]] = inner
        tm.__dict__["_parents_cache"] = hit
    return hit


def _finish(tm, raw, output):
    n, m, k = raw.shape
    pred = np.asarray(tm.finish(raw.reshape(n * m, k), output), dtype=np.float64)
    return pred.reshape((n, m) + pred.shape[1:])


def predict_rows(tm, data, output):
    """The engine's prediction of each row of ``data`` (what the model's predict gives)."""
    return _predict_encoded(tm, _encoded_rows(tm.encode, tm.forest, data), output)


def _predict_encoded(tm, Xe, output):
    """The engine's prediction of each already encoded row (what the model's predict gives)."""
    raw = _raw(tm, np.ascontiguousarray(Xe, dtype=np.float64), -1, np.zeros((1, 1)), np.ones(1, dtype=np.int64))
    return _finish(tm, raw, output)[:, 0]


#: Largest X (rows × columns) that :func:`choose` encodes whole for its check (2 MB of doubles):
#: below it the encoder's fixed cost (input validation, HGB's ColumnTransformer) dominates, so one
#: encoding of X serves the check's rows and the method that follows.
SHARE_ENCODED_CELLS = 1 << 18


def _encoded_rows(encode, forest, data):
    """``encode(data)``, refused unless it has every column the trees read."""
    Xe = encode(data)
    if Xe.ndim != 2 or Xe.shape[1] <= int(forest.feature.max(initial=0)):
        # the kernels index rows by the model's feature numbers, without bounds checks
        raise Unsupported(f"X has {Xe.shape[-1]} columns in the model's encoding; the model's trees read "
                          f"{int(forest.feature.max(initial=0)) + 1}")
    return Xe


def _calibrate(adapter, parts, data):
    """Intercept (n_out,) = the median over the rows of ``data`` of the model's margin minus the
    trees' sum (XGBoost's base_score through its link; the median keeps float32 rounding out)."""
    forest = parts["forest"]
    Xe = _encoded_rows(parts["encode"], forest, data)
    trees = _kernel_module().free_kernel(Xe, -1, np.zeros((1, 1)), np.ones(1, dtype=np.int64),
                                         np.arange(len(forest.roots), dtype=np.int64), _NO_WEIGHTS, _block(None, 1),
                                         *parts["kernel_args"])[:, 0, :]
    margin = np.asarray(adapter.margin(data), dtype=np.float64).reshape(len(Xe), -1)
    if margin.shape[1] != trees.shape[1]:
        raise Unsupported("the margin has an unexpected shape")
    return np.median(margin - trees, axis=0)


class TreeEngine:
    """A model read by the tree engine, bound to what a :class:`~imlkit._model.Predictor` asks.

    Built by :func:`choose` once the model passed its check. Each method returns what the
    predictor's stacked predict would give, or None when it cannot (a feature the engine
    cannot free, a grid too large), and the predictor then predicts the stacked rows.

    Attributes
    ----------
    tm : TreeModel
    output : {"predict", "proba"}
    as_frame : bool
        The model reads DataFrames (else numpy arrays).
    max_rows : int
        Rows (times grid points) per block of the kernels.
    """

    def __init__(self, tm, output, as_frame, max_rows):
        self.tm = tm
        self.output = output
        self.as_frame = as_frame
        self.max_rows = max_rows
        self._encoded = None  # (X, its encoding): the same frame is perturbed feature after feature
        self._plain = None  # (X, every row's raw score from all trees)

    def encoded(self, X):
        """The model's encoding of X, kept while the same frame is perturbed feature after feature."""
        cached = self._encoded
        if cached is not None and cached[0] is X:
            return cached[1]
        Xe = self.tm.encode(X if self.as_frame else X.to_numpy())
        self._encoded = (X, Xe)
        return Xe

    def encoded_rows(self, X, start, stop):
        """Rows start..stop of X in the model's encoding (C order, float64): from the kept encoding
        of X when there is one, else encoded on their own (so that X's whole encoding -- 96 MB for
        1e6 rows of 12 columns -- is never held for a method that goes block by block)."""
        cached = self._encoded
        if cached is not None and cached[0] is X:
            Xb = cached[1][start:stop]
        elif X.shape[0] * X.shape[1] <= KEEP_ENCODED_CELLS:  # small: encode once, keep for the next feature
            Xb = self.encoded(X)[start:stop]
        else:
            Xb = self.tm.encode(X.iloc[start:stop] if self.as_frame else X.iloc[start:stop].to_numpy())
        return np.ascontiguousarray(Xb, dtype=np.float64)

    def plain_raw(self, X):
        """Every row's raw score (n, n_out) from all trees, without the intercept; kept for the
        frame X while it is perturbed feature after feature."""
        cached = self._plain
        if cached is not None and cached[0] is X:
            return cached[1]
        parts = [_plain_sums(self.tm, self.encoded_rows(X, s, s + PERTURBED_BLOCK))
                 for s in range(0, len(X), PERTURBED_BLOCK)]
        raw = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
        self._plain = (X, raw)
        return raw

    def predict_plain(self, X):
        """The engine's prediction of every row of X (n,) or (n, k): the walk of all trees that
        :meth:`plain_raw` keeps, through the link -- the unperturbed predictions PFI/CFI compare
        the perturbed copies with, from the same sums (a feature no tree uses then has PFI 0
        exactly), without predicting X once more."""
        raw = self.plain_raw(X) + self.tm.base
        return np.asarray(self.tm.finish(raw, self.output), dtype=np.float64)

    def skipped_share(self, X, features):
        """Share of the (feature, tree) walks PFI/CFI skip on X: trees that never split on the
        permuted feature (features the engine cannot free count as not skipped)."""
        tm = self.tm
        n_trees = len(tm.forest.roots)
        skipped = total = 0
        for c in features:
            col = _column(self, tm, X, c)
            total += n_trees
            if col is not None:
                skipped += len(_tree_split(tm, col[0])[1])
        return skipped / total if total else 0.0

    def ice(self, X, feature, grid, column=None):
        """See :func:`ice`."""
        return ice(self, X, feature, grid, column)

    def perturbed(self, X, cols, replacement, n_repeats):
        """See :func:`perturbed`."""
        return perturbed(self, X, cols, replacement, n_repeats)

    def perturbed_many(self, X, items, n_repeats):
        """See :func:`perturbed_many`."""
        return perturbed_many(self, X, items, n_repeats)

    def pair_means(self, X, features, values, column=None):
        """See :func:`pair_means`."""
        return pair_means(self, X, features, values, column)

    def pair_predictions(self, X, features, values, column=None):
        """See :func:`pair_predictions`."""
        return pair_predictions(self, X, features, values, column)

    def pd_average(self, X, features, grids, weights, column=None):
        """See :func:`pd_average`."""
        return pd_average(self, X, features, grids, weights, column)

    def pd_mean(self, X, feature, grid, weights, column=None):
        """See :func:`pd_mean`."""
        return pd_mean(self, X, feature, grid, weights, column)

    def local_predictions(self, X, feature, values, column=None):
        """See :func:`local_predictions`."""
        return local_predictions(self, X, feature, values, column)


def choose(predictor, X, engine="auto", features=None):
    """Choose the engine for ``predictor`` on data ``X``.

    The engine proves itself first: on a few rows of X (spread over X, plus rows holding NaN,
    infinite or float32-overflowing values) its predictions must equal the model's own, and
    again with each feature in ``features`` replaced by other rows' values (quantiles of the
    column, its missing value, its levels): what the methods will ask. Any disagreement, or a
    model whose own predict fails on those rows, leaves the method to predict (a note in the
    result's info says why), so that the two engines never give two answers.

    Parameters
    ----------
    predictor : imlkit._model.Predictor
    X : DataFrame, shape (n, p)
        The data the method will perturb.
    engine : {"auto", "trees", "predict"}
    features : list of str, optional
        The columns the method will replace (default: all columns of X).

    Returns
    -------
    tree_engine : TreeEngine or None
        None: predict the stacked rows.
    params : dict
        ``{"engine": "trees"}`` or ``{"engine": "predict"}``, with ``"engine_note"`` saying why
        a tree model was not evaluated by the engine.
    """
    check_engine(engine)
    if engine == "predict" or len(X) == 0:
        return None, {"engine": "predict"}
    odd = _odd_rows(X)  # (rows with inf, rows with NaN): the plain check and the perturbed check both use them
    rows = _check_rows(X, odd)
    as_frame = predictor.as_frame
    kept = []

    def sub():  # the check's rows of X (a take of X costs ~0.2 ms: only when needed)
        if not kept:
            kept.append(X.iloc[rows])
        return kept[0] if as_frame else kept[0].to_numpy()
    theirs = None
    for fresh in (False, True):  # a cached model that disagrees may have been refitted: read it again
        try:
            tm = tree_model(predictor.model, sub, fresh=fresh)
            if tm.name.startswith("Pipeline") and not as_frame:
                raise Unsupported("a Pipeline is read through the columns of a DataFrame; X is an array")
            Xe = None
            if X.shape[0] * X.shape[1] <= SHARE_ENCODED_CELLS:
                # X encoded once: the check's rows are slices of it and the method that follows
                # finds it kept (a small encoding is mostly the fixed cost of the model's encoder)
                Xe = _encoded_rows(tm.encode, tm.forest, X if as_frame else X.to_numpy())
                mine = _predict_encoded(tm, Xe[rows], predictor.output)
            else:
                mine = predict_rows(tm, sub(), predictor.output)
        except Exception as exc:  # Unsupported, or a library's internals changed
            if engine == "trees":
                raise ValidationError(f"engine='trees' needs a model the tree engine supports; {exc}. "
                                      f"Use engine='auto' or 'predict'.") from None
            return None, ({"engine": "predict"} if not _looks_like_trees(predictor.model) else
                          {"engine": "predict", "engine_note": f"tree engine not used: {exc}"})
        eng = TreeEngine(tm, predictor.output, as_frame, predictor.max_rows)
        base, chunks = _perturbed_plan(eng, X, features, odd[1])
        first = None
        try:
            if theirs is None:
                # one call of the model's predict for the unperturbed rows and the first chunk of
                # copies (one take of X for both): its fixed cost (input validation, a
                # ColumnTransformer) is most of a small call
                batch = _copies(X, base, *chunks[0], prefix=rows) if chunks else X.iloc[rows]
                pred = np.asarray(predictor.predict(batch, context="the rows of X checking the tree engine"),
                                  dtype=np.float64)
                theirs, first = pred[:len(rows)], (pred[len(rows):] if chunks else None)
        except ModelError as exc:  # e.g. inf in X: predict refuses, so the engine must not answer
            return _refused(engine, exc)
        if theirs.shape == mine.shape and np.allclose(mine, theirs, rtol=tm.rtol, atol=tm.atol):
            # the base rows in the model's encoding: slices of X's when it is kept
            Xb = np.ascontiguousarray(Xe[base]) if Xe is not None else X.iloc[base]
            try:
                note = _check_perturbed(predictor, eng, X, base, Xb, chunks, first)
            except ModelError as exc:
                return _refused(engine, exc)
            if note is None:
                eng._plain = None
                eng._encoded = None if Xe is None else (X, Xe)
                return eng, {"engine": "trees"}
            break
        diff = np.max(np.abs(mine - theirs)) if theirs.shape == mine.shape else "shape"
        note = (f"tree engine not used: it disagreed with the model's own predictions on {len(rows)} rows "
                f"(max abs difference {diff})")
    if engine == "trees":
        raise ModelError(f"engine='trees': {note}.")
    return None, {"engine": "predict", "engine_note": note}


def _refused(engine, exc):
    """The model's own predict failed on rows the engine would answer: never answer where it does not."""
    if engine == "trees":
        raise exc
    return None, {"engine": "predict", "engine_note": f"tree engine not used: the model's own predict failed on "
                                                      f"rows of X ({exc})"}


#: Rows holding NaN or infinite values that the check adds to its spread rows (each kind).
N_ODD_ROWS = 8
#: Rows (spread over X) whose features are replaced in the perturbed check, and values per feature.
N_PERTURBED_ROWS = 4
N_CHECK_VALUES = 4
N_CHECK_LEVELS = 8
#: Cells (rows x columns) of one predict call of the perturbed check (64 MB of doubles): few calls
#: even for wide data (2308 columns: 20 s with 2 MB calls, most of it per-call overhead).
CHECK_CELLS = 1 << 23
_F32_MAX = float(np.finfo(np.float32).max)


def _odd_rows(X):
    """Rows of X with an infinite (or float32-overflowing) value, and rows with a missing value."""
    inf = np.zeros(len(X), dtype=bool)
    nan = np.zeros(len(X), dtype=bool)
    for c, dtype in X.dtypes.items():  # integer and bool columns hold neither: not even read
        if dtype.kind == "f":
            v = X[c].to_numpy()
            isnan = np.isnan(v)
            nan |= isnan
            inf |= ~(np.abs(v) <= _F32_MAX) & ~isnan  # infinite, or beyond float32
        elif isinstance(dtype, pd.CategoricalDtype):
            nan |= X[c].array.codes < 0
        elif dtype.kind == "O":
            nan |= X[c].isna().to_numpy()
    return np.flatnonzero(inf)[:N_ODD_ROWS], np.flatnonzero(nan)[:N_ODD_ROWS]


def _check_rows(X, odd=None):
    """Rows of the unperturbed check: spread over X, and those holding infinite or missing values
    (``odd``: :func:`_odd_rows` of X when the caller has it -- it scans every column)."""
    spread = np.linspace(0, len(X) - 1, min(N_CHECK_ROWS, len(X))).astype(int)
    return np.unique(np.concatenate([spread, *(_odd_rows(X) if odd is None else odd)]))


def _value_rows(s):
    """Rows of column ``s`` whose values replace it in the check: its levels, or the quantiles of its
    values (infinite ones included), and one missing value if it has any."""
    if isinstance(s.dtype, np.dtype) and s.dtype.kind in "biu":  # no missing value to look for
        isna = np.zeros(len(s), dtype=bool)
    elif isinstance(s.dtype, np.dtype) and s.dtype.kind == "f":
        isna = np.isnan(s.to_numpy())
    else:
        isna = s.isna().to_numpy()
    ok = np.flatnonzero(~isna)
    if len(ok) == 0:
        out = []
    elif isinstance(s.dtype, pd.CategoricalDtype) or s.dtype.kind not in "biuf":
        _, first = np.unique(pd.factorize(s.iloc[ok])[0], return_index=True)
        out = ok[np.sort(first)[:N_CHECK_LEVELS]].tolist()
    else:
        # the rows holding the order statistics (a partial sort: a full argsort of every column
        # was 2 % of PFI's time at 1e6 rows); among tied values any row does, the values are the same
        kth = np.unique(np.linspace(0, len(ok) - 1, N_CHECK_VALUES).astype(int))
        out = ok[np.argpartition(s.to_numpy()[ok], kth)[kth]].tolist()
    if isna.any():
        out.append(int(np.flatnonzero(isna)[0]))
    return np.asarray(out, dtype=np.int64)


def _perturbed_plan(eng, X, features, nan_rows=None):
    """What the perturbed check predicts: ``(base, chunks)``.

    ``base`` indexes a few rows of X (spread over it, plus a row with a missing value); each chunk is
    ``(columns, values)``: the base rows are copied once per value of each feature of the chunk
    (``values[c]``: the rows of :func:`_value_rows`; :func:`_copies` builds them), at most
    ``CHECK_CELLS`` cells per chunk, so that the model's predict is called a few times even for
    wide data.
    """
    tm = eng.tm
    cols = list(X.columns) if features is None else [c for c in dict.fromkeys(features) if c in X.columns]
    # the full X first: a Pipeline's column probe (cached per column) then sees all of X's values
    cols = [c for c in cols if _column(eng, tm, X, c) is not None]
    if not cols:
        return np.zeros(0, dtype=int), []
    base = np.linspace(0, len(X) - 1, min(N_PERTURBED_ROWS, len(X))).astype(int)
    nan_rows = _odd_rows(X)[1] if nan_rows is None else nan_rows
    base = np.unique(np.concatenate([base, nan_rows[:1]]))
    nb = len(base)
    values = {c: _value_rows(X[c]) for c in cols}
    cols = [c for c in cols if len(values[c])]
    budget = max(1, CHECK_CELLS // max(X.shape[1], 1))
    chunks, start = [], 0
    while start < len(cols):
        chunk, rows = [], 0
        while start < len(cols) and (not chunk or rows + len(values[cols[start]]) * nb <= budget):
            chunk.append(cols[start])
            rows += len(values[cols[start]]) * nb
            start += 1
        chunks.append((chunk, {c: values[c] for c in chunk}))
    return base, chunks


def _copies(X, base, chunk, values, prefix=None):
    """The frame the model predicts for a chunk of the perturbed check: the rows ``prefix`` of X as
    they are, then the base rows once per value of each feature of the chunk, in the feature's own
    block of copies with the feature set to the value (``values[c]``: rows of X holding them).

    One take of the whole frame (fast for wide data), then each feature's column replaced whole.
    """
    nb = len(base)
    pre = np.zeros(0, dtype=np.int64) if prefix is None else np.asarray(prefix, dtype=np.int64)
    take = np.concatenate([pre, np.tile(base, sum(len(values[c]) for c in chunk))])
    copies = X.iloc[take].reset_index(drop=True)
    offset = len(pre)
    for c in chunk:
        k = len(values[c]) * nb
        src = take.copy()
        src[offset:offset + k] = np.repeat(values[c], nb)
        col = X[c].iloc[src]
        copies.isetitem(X.columns.get_loc(c), col.to_numpy() if isinstance(col.dtype, np.dtype) else col.array)
        offset += k
    return copies


_PERTURBED_CONTEXT = "the rows of X checking the tree engine, with features replaced by other rows' values"


def _check_perturbed(predictor, eng, X, base, Xb, chunks, first=None):
    """The engine against the model's predict on the copies of :func:`_perturbed_plan`.

    ``Xb``: the base rows, as a frame or already in the model's encoding (float64 array).
    ``first``: the model's predictions of the first chunk's copies when the caller already has
    them (:func:`choose` predicts them in one call with its unperturbed check rows).

    Returns
    -------
    None when they agree, else the note saying where they did not. Raises ModelError when the
    model's own predict fails on the copies.
    """
    tm = eng.tm
    nb = len(base)
    for i, (chunk, values) in enumerate(chunks):
        theirs = first if i == 0 and first is not None else \
            np.asarray(predictor.predict(_copies(X, base, chunk, values), context=_PERTURBED_CONTEXT),
                       dtype=np.float64)
        offset = 0
        for c in chunk:
            k = len(values[c]) * nb
            if isinstance(Xb, pd.DataFrame):
                replacement = pd.DataFrame({c: X[c].iloc[np.repeat(values[c], nb)].reset_index(drop=True)})
                mine = eng.perturbed(Xb, [c], replacement, len(values[c]))
            else:
                j, enc = _column(eng, tm, X, c)
                v = np.asarray(_encoded_values(enc, X[c].iloc[values[c]]), dtype=np.float64)
                mine = _perturbed_column(eng, Xb, j, np.repeat(v[:, None], nb, axis=1))
            want = theirs[offset:offset + k]
            offset += k
            if mine is None:
                continue
            if mine.shape != want.shape or not np.allclose(mine, want, rtol=tm.rtol, atol=tm.atol):
                diff = np.max(np.abs(mine - want)) if mine.shape == want.shape else "shape"
                return (f"tree engine not used: with feature {c!r} replaced by other rows' values it disagreed "
                        f"with the model's own predictions (max abs difference {diff})")
    return None


def _looks_like_trees(model):
    if hasattr(model, "steps"):  # a Pipeline: its last step
        return _looks_like_trees(model.steps[-1][1])
    return any(hasattr(model, a) for a in ("_engs", "estimators_", "tree_", "booster_", "get_booster"))


def _column(eng, tm, X, name):
    data_key = name if eng.as_frame else list(X.columns).index(name)
    col = tm.column(data_key, X)
    if col is None and eng.as_frame:
        col = tm.column(list(X.columns).index(name), X)
    return col


def _grid_values(values):
    return values.to_numpy(dtype=object) if isinstance(values, pd.Series) and not \
        pd.api.types.is_numeric_dtype(values.dtype) else np.asarray(values)


def _curves(eng, tm, Xe, j, G):
    """Predictions (n, m[, k]) with column j set to G[i, q] (G shared when it has one row)."""
    order = np.argsort(G, axis=1, kind="stable")  # NaN last
    Gs = np.take_along_axis(G, order, axis=1)
    cnt = np.sum(~np.isnan(Gs), axis=1).astype(np.int64)
    pred = _finish(tm, _raw(tm, Xe, j, Gs, cnt, eng.max_rows), eng.output)
    out = np.empty_like(pred)
    if G.shape[0] == 1:
        out[:, order[0]] = pred
    else:
        out[np.arange(len(pred))[:, None], order] = pred
    return out


def ice(eng, X, feature, grid, column=None):
    """The ICE matrix of :meth:`imlkit._model.Predictor.ice` from the trees, or None.

    Returns
    -------
    ndarray (n, m) (or (n, m, n_classes) for ``column="all"``), or None when a feature is not
    one the engine can free (or a pair's grid is too large).
    """
    tm = eng.tm
    Xe = eng.encoded(X)
    if isinstance(feature, str):
        col = _column(eng, tm, X, feature)
        if col is None:
            return None
        j, enc = col
        pred = _curves(eng, tm, Xe, j, enc(_grid_values(grid)).reshape(1, -1))
    else:
        (f1, f2), (g1, g2) = feature, grid
        c1, c2 = _column(eng, tm, X, f1), _column(eng, tm, X, f2)
        if c1 is None or c2 is None:
            return None
        v1, v2 = c1[1](_grid_values(g1)), c2[1](_grid_values(g2))
        # all m1·m2 combinations, the first feature varying slowest
        pred = _free2(eng, tm, Xe, c1[0], np.repeat(v1, len(v2)), c2[0], np.tile(v2, len(v1)))
        if pred is None:
            return None
    return _select(pred, column)


#: Doubles of per-row 2-D difference arrays held at once: the rows go in blocks whose arrays
#: are no larger than the forest's node count (at least 2**15, at most this: 32 MB), so that
#: neither the trees nor the arrays of a block fall out of cache much more than the other
#: (small boosted trees: blocks of ~100 rows were 2.5x faster than all rows at once; deep
#: forests: the reverse).
BLOCK_DOUBLES = 1 << 22
#: Largest 2-D difference array (grid cells × outputs) the engine builds (128 MB); beyond it
#: the caller predicts the stacked rows.
MAX_GRID_DOUBLES = 1 << 24
#: Every row's predictions at u points of a grid of more cells (× outputs) than this come from the leaves'
#: corners (:func:`._kernels.free2_rows_kernel`), not from a difference array per row: summing a row's array costs
#: its cells, the corners ~(leaves reached + u)·log(m2) at a higher cost per leaf. Measured (300-500 rows, HGB,
#: forests, XGBoost): at 3,000-14,000 cells the arrays were 1.3-2.8x faster, at 80,000-250,000 the corners 2-6x.
SPARSE_CELLS = 1 << 15
#: Rows whose corners :func:`._kernels.free2_rows_kernel` holds at once (all trees walk them first, then their
#: points are summed). Fewer rows keep the corners in cache, more let a deep tree serve more rows while it is in
#: cache: on a forest of 20 trees of 20,000 nodes (1e5 rows), 64 rows were 1.3x faster than 16 and as fast as 500;
#: on HGB's 100 small trees all were within 10%.
CORNER_BLOCK = 64


def _axis(values, thresholds=None):
    """Distinct values ascending with NaN last (at most once), and each value's position.

    With ``thresholds`` (the sorted numeric thresholds of every split on the feature,
    :func:`_thresholds`), values that no split tells apart -- the same thresholds below them --
    are one grid point (the smallest of them stands for all): every tree sends them the same
    way, so their predictions are the same, and the grid (a difference array per row of
    (m1 + 1)(m2 + 1) cells) shrinks to the intervals the values fall in.
    """
    v = np.asarray(values, dtype=np.float64)
    nan = np.isnan(v)
    finite = v[~nan]
    pos = np.full(len(v), 0, dtype=np.int64)
    if thresholds is None:
        uniq = np.unique(finite)
        pos[~nan] = np.searchsorted(uniq, finite)
    else:
        cls = np.searchsorted(thresholds, finite, side="left")  # the thresholds s < v: v <= s goes left
        occupied, inverse = np.unique(cls, return_inverse=True)
        uniq = np.full(len(occupied), np.inf)
        np.minimum.at(uniq, inverse, finite)
        pos[~nan] = inverse
    pos[nan] = len(uniq)
    grid = np.append(uniq, np.nan) if nan.any() else uniq
    return np.ascontiguousarray(grid, dtype=np.float64), pos


def _thresholds(tm, j):
    """The sorted distinct thresholds of the splits on model column j when all of them are numeric
    (``x <= s``), else None (a category set sends each value its own way); cached on ``tm``."""
    cache = tm.__dict__.setdefault("_thresholds_cache", {})
    if j not in cache:
        nodes = _nodes_on(tm, j)[0]
        kinds = np.asarray(tm.forest.kind)[nodes]
        cache[j] = np.unique(np.asarray(tm.forest.threshold, dtype=np.float64)[nodes]) if np.all(kinds == 0) else None
    return cache[j]


def _free2(eng, tm, Xe, j1, v1, j2, v2, weights=None):
    """Predictions at the points (v1[q], v2[q]) in the model's encoding of columns j1, j2.

    Without ``weights``: every row's predictions, (n, u[, k]). With ``weights`` (summing to 1,
    only for a model whose ``finish`` is affine): their weighted mean, (u[, k]), from one
    shared difference array. None when the grid would be too large (or j1 == j2).
    """
    if j1 == j2:
        return None
    G1, Q1 = _axis(v1, _thresholds(tm, j1))
    G2, Q2 = _axis(v2, _thresholds(tm, j2))
    cells = (len(G1) + 1) * (len(G2) + 1) * int(tm.forest.n_out)
    if cells > MAX_GRID_DOUBLES:
        return None
    kernel = _kernel_module().free2_kernel
    if weights is not None:
        raw = kernel(Xe, int(j1), G1, int(j2), G2, Q1, Q2, np.ascontiguousarray(weights, dtype=np.float64),
                     *tm.kernel_args)[0]
        raw += tm.base
        return np.asarray(tm.finish(raw, eng.output), dtype=np.float64)
    n, u = Xe.shape[0], len(Q1)
    if cells > SPARSE_CELLS:
        # a row's own difference array would cost more to sum than its leaves' corners (few points of a large grid)
        step = max(1, min(n, eng.max_rows // max(u, 1)))
        rows_kernel = _kernel_module().free2_rows_kernel
        parts = [rows_kernel(np.ascontiguousarray(Xe[s:s + step]), int(j1), G1, int(j2), G2, Q1, Q2, CORNER_BLOCK,
                             *tm.kernel_args) for s in range(0, n, step)]
    else:
        budget = min(BLOCK_DOUBLES, max(1 << 15, len(tm.forest.feature)))
        step = max(1, min(n, budget // cells, eng.max_rows // max(u, 1)))
        parts = [kernel(np.ascontiguousarray(Xe[s:s + step]), int(j1), G1, int(j2), G2, Q1, Q2, np.empty(0),
                        *tm.kernel_args) for s in range(0, n, step)]
    raw = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
    raw += tm.base
    return _finish(tm, raw, eng.output)


def _pair_setup(eng, tm, X, features, values):
    """The encoded rows and, per free feature, its column in them and its encoded values.

    Returns ``(Xe, (j1, v1), (j2, v2))``, or None when a feature is not one the engine can free.
    """
    c1, c2 = (_column(eng, tm, X, f) for f in features)
    if c1 is None or c2 is None:
        return None
    Xe = eng.encoded(X)
    return Xe, (c1[0], c1[1](_grid_values(values[0]))), (c2[0], c2[1](_grid_values(values[1])))


def pd_average(eng, X, features, grids, weights, column=None):
    """Weighted 2-D partial dependence on the product grid for a model with an affine link, or None.

    Parameters
    ----------
    features : (str, str)
    grids : (array (m1,), array (m2,))
    weights : ndarray (n,)
        Row weights (normalised here).

    Returns
    -------
    ndarray, shape (m1 * m2,), the first feature varying slowest: what
    ``np.tensordot(weights, ice(...), axes=(0, 0))`` gives; None when its link is not
    affine (then every row is evaluated, see :func:`ice`), or the
    grid is too large.
    """
    tm = eng.tm
    if not tm.linear or column == "all":
        return None
    setup = _pair_setup(eng, tm, X, features, grids)
    if setup is None:
        return None
    Xe, (j1, v1), (j2, v2) = setup
    w = np.asarray(weights, dtype=np.float64)
    pred = _free2(eng, tm, Xe, j1, np.repeat(v1, len(v2)), j2, np.tile(v2, len(v1)), weights=w / w.sum())
    if pred is None:
        return None
    if column is None:
        return pred if pred.ndim == 1 else None
    return pred[:, column]


#: Rows per block of :func:`pd_mean`: each block is encoded and walked on its own, so a PD of
#: 1e6 rows holds a block's encoding and curves (a few MB), never all rows' (418 MB at 1e6 rows).
PD_BLOCK = 1 << 15


def pd_mean(eng, X, feature, grid, weights, column=None):
    """Weighted 1-D partial dependence ``Σ_i weights[i] · f(x_feature = grid[q], x_{i,-feature})``, or None.

    The rows go in blocks of ``PD_BLOCK``, each encoded on its own (X's whole encoding is never
    held). A model whose ``finish`` is affine adds the weighted leaf values of a block into one
    difference array over the grid (the weighted mean raw score, then the link); the others
    evaluate a block's curves, then add their weighted sum.

    Parameters
    ----------
    feature : str
    grid : array (m,)
    weights : ndarray (n,)
        Row weights summing to 1.

    Returns
    -------
    ndarray, shape (m,) (or (m, n_classes) for ``column="all"``); None when the feature is not
    one the engine can free.
    """
    tm = eng.tm
    col = _column(eng, tm, X, feature)
    if col is None:
        return None
    j, enc = col
    G = enc(_grid_values(grid)).reshape(1, -1)
    order = np.argsort(G, axis=1, kind="stable")
    Gs = np.ascontiguousarray(np.take_along_axis(G, order, axis=1))
    cnt = np.sum(~np.isnan(Gs), axis=1).astype(np.int64)
    w = np.asarray(weights, dtype=np.float64)
    acc = None
    for s in range(0, len(X), PD_BLOCK):
        e = min(len(X), s + PD_BLOCK)
        Xb = eng.encoded_rows(X, s, e)
        if tm.linear:
            part = _kernel_module().free_kernel(Xb, int(j), Gs, cnt, _all_trees(tm), np.ascontiguousarray(w[s:e]),
                                                _block(tm, Gs.shape[1]), *tm.kernel_args)[0]  # (m, n_out)
        else:
            pred = _finish(tm, _raw(tm, Xb, j, Gs, cnt), eng.output)  # (b, m[, k])
            part = np.tensordot(w[s:e], pred, axes=(0, 0))
        acc = part if acc is None else acc + part
    if tm.linear:
        acc = np.asarray(tm.finish(acc + tm.base, eng.output), dtype=np.float64)  # (m[, k])
    out = np.empty_like(acc)
    out[order[0]] = acc
    if column is None:
        return out if out.ndim == 1 else None
    return out if column == "all" else out[:, column]


def pair_means(eng, X, features, values, column=None):
    """Mean over the rows of X of the predictions with two features set to given pairs, or None.

    Parameters
    ----------
    features : (str, str)
    values : (array, array), each shape (u,)
        Point q sets ``features[0]`` to ``values[0][q]`` and ``features[1]`` to ``values[1][q]``.
    column : None, int or "all"

    Returns
    -------
    ndarray, shape (u,) (or (u, n_classes) for ``column="all"``): what
    ``predict_replaced(...).mean(axis=1)`` gives, or None when a feature is not one the engine can free.
    Models with an affine link average their raw scores in one difference array; the others
    are evaluated row by row, then averaged.
    """
    tm = eng.tm
    setup = _pair_setup(eng, tm, X, features, values)
    if setup is None:
        return None
    Xe, (j1, v1), (j2, v2) = setup
    if tm.linear:
        pred = _free2(eng, tm, Xe, j1, v1, j2, v2, weights=np.full(len(Xe), 1.0 / len(Xe)))
    else:
        pred = _free2(eng, tm, Xe, j1, v1, j2, v2)
        pred = None if pred is None else pred.mean(axis=0)
    if pred is None:
        return None
    if column is None:
        return pred if pred.ndim == 1 else None
    return pred if column == "all" else pred[:, column]


def pair_predictions(eng, X, features, values, column=None):
    """Every row's prediction with two features set to given pairs, or None.

    What :meth:`imlkit._model.Predictor.pair_predictions` gives, shape (u, n) (or (u, n, n_classes) for
    ``column="all"``): the rows :func:`pair_means` averages, kept (the H-statistic's bootstrap resamples them).
    Arguments as there. None when a feature is not one the engine can free (or the grid is too large).
    """
    tm = eng.tm
    setup = _pair_setup(eng, tm, X, features, values)
    if setup is None:
        return None
    Xe, (j1, v1), (j2, v2) = setup
    pred = _free2(eng, tm, Xe, j1, v1, j2, v2)  # (n, u[, k])
    pred = None if pred is None else _select(pred, column)
    return None if pred is None else np.swapaxes(pred, 0, 1)


def _select(pred, column):
    if column is None:
        return pred if pred.ndim == 2 else None
    if column == "all":
        return pred
    return pred[:, :, column]


def perturbed(eng, X, cols, replacement, n_repeats):
    """Predictions of ``n_repeats`` copies of X with the columns ``cols`` replaced, or None.

    Parameters
    ----------
    cols : list of str
        The perturbed columns: one column goes through :func:`perturbed_many` when every tree
        has at most 64 leaves, else it is a free feature with the row's ``n_repeats`` values as
        its grid (:func:`_perturbed_column`); a group's stacked rows are walked one by one.
    replacement : DataFrame, shape (n_repeats * n, |cols|)
        Row ``r * n + i`` holds the value of copy ``r`` of row ``i``.

    Returns
    -------
    ndarray, shape (n_repeats * n,) or (n_repeats * n, k): as the model's predict of the
    stacked copies would; None when a column is not one the engine can free.
    """
    tm = eng.tm
    found = [_column(eng, tm, X, c) for c in cols]
    if any(col is None for col in found):
        return None
    n = len(X)
    if len(cols) > 1:
        Xe = eng.encoded(X)
        # A group: the stacked rows in the model's encoding, each predicted by one walk per tree.
        Xs = np.tile(Xe, (n_repeats, 1))
        for c, (j, enc) in zip(cols, found):
            Xs[:, j] = enc(_grid_values(replacement[c]))
        raw = _raw(tm, Xs, -1, np.zeros((1, 1)), np.ones(1, dtype=np.int64), eng.max_rows)
        return _finish(tm, raw, eng.output)[:, 0]
    if _mask_tables(tm) is not None:  # trees of at most 64 leaves: the leaf masks, as for several features
        return perturbed_many(eng, X, [(cols, replacement)], n_repeats)[0]
    j, enc = found[0]
    values = np.ascontiguousarray(_encoded_values(enc, replacement[cols[0]]), dtype=np.float64).reshape(n_repeats, n)
    return _perturbed_column(eng, X, j, values)


def _perturbed_column(eng, X, j, values):
    """:func:`perturbed` of one column: model column ``j`` of copy r of row i set to ``values[r, i]``
    (the model's encoding, shape (n_repeats, n)); X a DataFrame (encoded block by block through
    the engine) or its rows already in the model's encoding (float64 array)."""
    tm = eng.tm
    n_repeats, n = values.shape
    frame = isinstance(X, pd.DataFrame)
    using, skipped = _tree_split(tm, j)
    n_out = int(tm.forest.n_out)
    # Skipped trees: every copy keeps the row's whole score minus the splitting trees' at its own value.
    if not len(skipped):
        plain = np.empty((0, n_out))
    elif frame:
        plain = eng.plain_raw(X)
    else:
        plain = _plain_sums(tm, X)
    trees_ = using if len(skipped) else _all_trees(tm)
    raw = np.empty((n_repeats, n, n_out))
    kernel = _kernel_module().perm_kernel
    values = np.ascontiguousarray(values, dtype=np.float64)
    for s in range(0, n, PERTURBED_BLOCK):
        e = min(n, s + PERTURBED_BLOCK)
        kernel(eng.encoded_rows(X, s, e) if frame else np.ascontiguousarray(X[s:e]), int(j), values, plain, raw, s,
               trees_, _free_of(tm, j) if len(plain) else _NO_NODES, PERM_KERNEL_BLOCK, *tm.kernel_args)
    del values
    raw += tm.base
    pred = np.asarray(tm.finish(raw.reshape(n_repeats * n, n_out), eng.output), dtype=np.float64)
    return pred


def perturbed_many(eng, X, items, n_repeats):
    """:func:`perturbed` of several features at once: the single columns in one walk per block.

    Parameters
    ----------
    X : DataFrame, shape (n, p)
    items : list of (cols, replacement)
        ``cols`` as in :func:`perturbed`; ``replacement`` a DataFrame as there, or a
        :class:`imlkit.samplers.Draws` (the drawn rows of the sampler's data, the same values
        without the frame).
    n_repeats : int

    Returns
    -------
    list, one entry per item: what :func:`perturbed` gives (predictions (n_repeats * n,) or
    (n_repeats * n, k), or None when a column is not one the engine can free). The single
    columns the engine frees come from :func:`._kernels.mask_kernel` when every tree has at most
    64 leaves, else from :func:`._kernels.perm_many_kernel` (the same sums: every copy's score is
    the row's own plus the differences of its leaves and the row's), the others (groups) from
    :func:`perturbed`.
    """
    tm = eng.tm
    n = len(X)
    out = [None] * len(items)
    singles = []  # (item, model column, encoded values (n_repeats, n))
    for k, (cols, replacement) in enumerate(items):
        col = _column(eng, tm, X, cols[0]) if len(cols) == 1 else None
        if col is None:
            out[k] = perturbed(eng, X, cols, replacement_frame(replacement), n_repeats)
            continue
        j, enc = col
        singles.append((k, j, _replacement_values(enc, replacement, cols[0], n_repeats, n)))
    if not singles:
        return out
    n_out = int(tm.forest.n_out)
    plain = eng.plain_raw(X)
    kernels = _kernel_module()
    masks = _mask_tables(tm)
    per_feature = n_repeats * n * n_out
    budget = max(1, MANY_BLOCK_DOUBLES // max(per_feature, 1))
    for block in _feature_blocks(singles, budget):
        js = np.array([j for _, j, _ in block], dtype=np.int64)
        # the kernels read slot[f] for the split features f of the trees
        slot = np.full(max(int(np.asarray(tm.forest.feature).max(initial=0)), int(js.max())) + 1, -1, dtype=np.int64)
        slot[js] = np.arange(len(js))
        if len(block) == 1:  # the values themselves (a second copy of them is 40 MB at 1e6 rows)
            V = block[0][2].reshape(1, n_repeats, n)
        else:
            V = np.empty((len(block), n_repeats, n))
            for s, (_, _, values) in enumerate(block):
                V[s] = values
        raw = np.zeros((len(block), n_repeats, n_out, n))
        trees_, quiet = _trees_on(tm, js)
        for s0 in range(0, n, PERTURBED_BLOCK):
            e = min(n, s0 + PERTURBED_BLOCK)
            Xb = eng.encoded_rows(X, s0, e)
            if masks is not None:  # trees of at most 64 leaves: no walk (the same sums)
                kernels.mask_kernel(np.ascontiguousarray(Xb.T), slot, V, raw, s0, trees_, MASK_KERNEL_BLOCK, *masks,
                                    *tm.kernel_args)
            else:
                kernels.perm_many_kernel(Xb, slot, V, raw, s0, trees_, quiet, PERM_KERNEL_BLOCK, *tm.kernel_args)
        del V
        for s, (k, _, _) in enumerate(block):
            if n_out == 1:  # (r, 1, n) is (r, n, 1): in place (no second array of the copies at 1e6 rows)
                r_s = raw[s].reshape(n_repeats, n, 1)
                r_s += plain
            else:
                r_s = np.empty((n_repeats, n, n_out))
                np.add(raw[s].transpose(0, 2, 1), plain, out=r_s)
            r_s += tm.base
            out[k] = np.asarray(tm.finish(r_s.reshape(n_repeats * n, n_out), eng.output), dtype=np.float64)
        del raw
    return out


#: Rows per block of :func:`._kernels.mask_kernel` (see there).
MASK_KERNEL_BLOCK = 1024


def _mask_tables(tm):
    """The tables of :func:`._kernels.mask_kernel` (:func:`._kernels.mask_layout`), or None when a tree
    has more than 64 leaves; cached on ``tm``."""
    if "_mask_tables_cache" not in tm.__dict__:
        a = tm.kernel_args
        ok, *tables = _kernel_module().mask_layout(a[0], a[2], a[1], a[4], a[5])
        tm.__dict__["_mask_tables_cache"] = tuple(tables) if ok else None
    return tm.__dict__["_mask_tables_cache"]


#: Doubles of the differences :func:`perturbed_many` holds for one block of features (32 MB; at
#: least one feature's): a wide table's features go in blocks, each walked once.
MANY_BLOCK_DOUBLES = 1 << 22


def _feature_blocks(singles, budget):
    """The single columns in blocks of at most ``budget``, a model column at most once per block."""
    blocks, cur, seen = [], [], set()
    for item in singles:
        if len(cur) >= budget or item[1] in seen:
            blocks.append(cur)
            cur, seen = [], set()
        cur.append(item)
        seen.add(item[1])
    if cur:
        blocks.append(cur)
    return blocks


def _trees_on(tm, js):
    """(the trees with a split on any of the model columns ``js``, uint8 per node: 1 when its subtree
    has no such split) -- what :func:`._kernels.perm_many_kernel` walks and where its walks may end."""
    f = tm.forest
    kind, feature = np.asarray(f.kind), np.asarray(f.feature)
    on = (kind >= 0) & np.isin(feature, js)
    n_nodes = len(kind)
    tree_of = np.repeat(np.arange(len(f.roots), dtype=np.int64), np.diff(np.append(f.roots, n_nodes)))
    trees_ = np.unique(tree_of[on]).astype(np.int64)
    parents = _parents(tm)
    quiet = np.ones(n_nodes, dtype=np.uint8)
    cur = np.flatnonzero(on)
    while len(cur):  # the splits on js and their ancestors are not quiet (as in _free_of)
        quiet[cur] = 0
        cur = parents[cur]
        cur = cur[cur >= 0]
        cur = cur[quiet[cur] != 0]
    return trees_, quiet


def _replacement_values(enc, replacement, name, n_repeats, n):
    """The replacement values of column ``name`` in the model's encoding, shape (n_repeats, n)."""
    if hasattr(replacement, "rows"):  # drawn rows of the sampler's data: its column, then the draws
        source = replacement.source[name]
        rows = replacement.rows.reshape(-1)
        if isinstance(source.dtype, pd.CategoricalDtype):
            values = _encoded_codes(enc, source.cat.codes.to_numpy()[rows], source.cat.categories)
        else:
            values = enc(_grid_values(source)[rows])
    else:
        values = _encoded_values(enc, replacement[name])
    return np.ascontiguousarray(values, dtype=np.float64).reshape(n_repeats, n)


def _encoded_values(enc, values):
    """``enc(_grid_values(values))`` of a replacement column; a categorical's values through its
    categories (one encoding per level, then a lookup by code) instead of an object array of all
    n_repeats·n values -- at 1e6 rows the object array and its hash lookups cost ~300 MB and
    seconds."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
        return _encoded_codes(enc, values.cat.codes.to_numpy(), values.cat.categories)
    return enc(_grid_values(values))


def _encoded_codes(enc, codes, categories):
    """``enc`` of a categorical's values given as codes into ``categories`` (-1: missing)."""
    levels = np.empty(len(categories) + 1, dtype=object)
    levels[:-1] = categories.to_numpy(dtype=object)
    levels[-1] = np.nan  # code -1: a missing value
    # only the levels that occur: an encoder may refuse one it never saw (NaN included)
    present = np.flatnonzero(np.bincount(codes.astype(np.int64) + 1, minlength=len(levels)))
    present = np.where(present == 0, len(levels) - 1, present - 1)
    table = np.full(len(levels), np.nan)
    table[present] = np.asarray(enc(levels[present]), dtype=np.float64)
    return table[codes]


#: Largest X (rows × columns) whose whole encoding the engine keeps between features (32 MB of
#: doubles); a larger X is encoded block by block for each feature (at 1e6 rows × 12 columns
#: that costs ~1 % of PFI's time and saves 96 MB).
KEEP_ENCODED_CELLS = 1 << 22
#: Rows per block of :func:`perturbed` when X is encoded block by block (see ``KEEP_ENCODED_CELLS``);
#: the kernel sorts each row's values and keeps its difference arrays in blocks of its own
#: (``PERM_KERNEL_BLOCK``), so nothing of size rows × n_repeats is built besides the output.
PERTURBED_BLOCK = 1 << 16
#: Rows per block inside :func:`._kernels.perm_kernel` (its sorted grids and difference arrays,
#: ~100 KB at n_repeats=5, stay in cache while the trees pass; 512..4096 measured alike on HGB).
PERM_KERNEL_BLOCK = 1024


#: Row groups (distinct value tuples) beyond which :func:`local_predictions` walks all rows in one
#: kernel call (each row's values as its grid, every tree separating some group's values) instead
#: of one call per group: ``bins`` >= n makes a group of nearly every row, and a call costs ~10 us.
MAX_ALE_GROUPS = 256
#: Group by group only when that walks at most this share of the (row, tree) walks of one call
#: over all rows and the trees separating any group (bike data: HGB 13-38 %, GradientBoosting
#: 2-14 % group by group; deep forests 100 %, where one call was 20 % faster).
ALE_GROUP_SHARE = 0.5


def _ale_kernel_module():
    from . import _ale_kernels as k

    return k


def _groups(V, extra=()):
    """Rows with the same values in every copy: (values (g, k), group start (g + 1,), rows by group).

    ``extra``: arrays (n,) ordering the rows within a group (the last one first): the kernels walk
    a group's rows one after the other through each tree, and rows alike in the features the trees
    split on most take the same branches one after the other, which the processor then predicts
    (bike data, ``hr``: 10 % less time in the kernel).
    """
    n, k = V.shape
    nan = np.isnan(V)
    has_nan = bool(nan.any())
    cols = [np.ascontiguousarray(np.where(nan[:, q], np.inf, V[:, q]) if has_nan else V[:, q]) for q in range(k)]
    # NaN sorts and compares as one value (after every number, inf included)
    nan_keys = tuple(nan[:, q] for q in range(k - 1, -1, -1)) if has_nan else ()
    order = np.lexsort(tuple(extra) + tuple(cols[::-1]) + nan_keys)
    new = np.zeros(n, dtype=bool)
    new[:1] = True
    for q in range(k):  # column by column: np.any(axis=1) over k columns costs 10x
        c = cols[q][order]
        new[1:] |= c[1:] != c[:-1]
        if has_nan:
            m = nan[order, q]
            new[1:] |= m[1:] != m[:-1]
    start = np.append(np.flatnonzero(new), n).astype(np.int64)
    return np.ascontiguousarray(V[order[start[:-1]]]), start, order.astype(np.int64)


def _coarse(x):
    """``x`` as uint16 in its range (NaN last): an order of rows within a group that sorts 3x faster
    than the float64 values."""
    x = np.asarray(x, dtype=np.float64)
    ok = ~np.isnan(x)
    if not ok.any():
        return np.zeros(len(x), dtype=np.uint16)
    lo, hi = float(np.min(x[ok])), float(np.max(x[ok]))
    scale = 65534.0 / (hi - lo) if hi > lo and np.isfinite(hi - lo) else 0.0
    out = np.full(len(x), 65535, dtype=np.uint16)
    out[ok] = ((np.clip(x[ok], lo, hi) - lo) * scale).astype(np.uint16)
    return out


def _nodes_on(tm, j):
    """(the nodes that split on model column j, the tree of each), int64; cached on ``tm``."""
    cache = tm.__dict__.setdefault("_nodes_on_cache", {})
    hit = cache.get(j)
    if hit is None:
        f = tm.forest
        tree_of = np.repeat(np.arange(len(f.roots), dtype=np.int64), np.diff(np.append(f.roots, len(f.feature))))
        nodes = np.flatnonzero((np.asarray(f.feature) == j) & (np.asarray(f.kind) >= 0)).astype(np.int64)
        hit = cache[j] = (nodes, tree_of[nodes])
    return hit


def _busiest_column(tm, j):
    """The model column other than j with the most splits (-1 when none); cached on ``tm``."""
    cache = tm.__dict__.setdefault("_busiest_cache", {})
    hit = cache.get(j)
    if hit is None:
        f = tm.forest
        counts = np.bincount(np.asarray(f.feature)[np.asarray(f.kind) >= 0], minlength=max(int(j) + 1, 1))
        counts[j] = -1
        hit = cache[j] = int(np.argmax(counts)) if counts.max() > 0 else -1
    return hit


def local_predictions(eng, X, feature, values, column=None):
    """Predictions of k copies of X with ``feature`` set to ``values[q, i]``, each row shifted by a
    constant of its own (only differences between the copies of one row count), or None.

    What ALE needs: f at a row's bin edges (or its level and the neighbouring ones), then their
    differences. Rows with the same values form a group; a tree none of whose nodes on the
    feature separates a group's values puts every copy of such a row in one leaf, so it adds the
    same value to every copy and cancels from the differences. Per group only the separating
    trees (:func:`._ale_kernels.separating_trees`) are walked, all groups in one kernel call
    (:func:`._ale_kernels.pair_kernel` for two finite values, a numeric feature's bin edges;
    :func:`._ale_kernels.group_kernel` otherwise), and a walk stops where no node below separates
    the group's values (the rest of it cancels too). Many small groups, or groups that would walk
    most trees anyway (deep forests), go in one call of the free-feature kernel instead, each
    row's values as its grid. For a model
    whose ``finish`` is affine the other trees' sum is the row's constant, left out; a non-affine
    link (a classifier's sigmoid or softmax) needs the whole raw score: every tree is walked once
    at the first copy's value and the separating trees add the differences to the other copies
    (the constant is then zero).

    Parameters
    ----------
    feature : str
    values : ndarray, shape (k, n)
        Copy q of row i sets ``feature`` to ``values[q, i]`` (numbers, or levels as objects).
    column : None, int or "all"

    Returns
    -------
    ndarray, shape (k, n) (or (k, n, n_classes) for ``column="all"``), equal to
    ``Predictor.predict_replaced(X, {feature: values})`` up to a per-row constant (zero unless the
    link is affine) and float rounding; None when the feature is not one the engine can free.
    """
    tm = eng.tm
    col = _column(eng, tm, X, feature)
    if col is None:
        return None
    j, enc = col
    k, n = values.shape
    V = np.asarray(enc(_grid_values(np.asarray(values).ravel())), dtype=np.float64).reshape(k, n)
    f = tm.forest
    args = tm.kernel_args
    n_trees = len(f.roots)
    nodes, node_tree = _nodes_on(tm, j)
    busiest = _busiest_column(tm, j)  # orders the rows within a group (see _groups)
    kernels = _ale_kernel_module()
    out = None
    for s in range(0, n, PERTURBED_BLOCK):
        e = min(n, s + PERTURBED_BLOCK)
        Vb = np.ascontiguousarray(V[:, s:e].T)  # (b, k): row i's values in copies 0..k-1
        Xb = eng.encoded_rows(X, s, e)
        U, start, order = _groups(Vb, () if busiest < 0 else (_coarse(Xb[:, busiest]),))
        mask = kernels.separating_trees(U, nodes, node_tree, n_trees, args[2], args[3], args[6], args[7], args[8],
                                        args[9])
        raw = np.zeros((e - s, k, int(f.n_out)))
        walks = np.diff(start) @ mask.sum(axis=1)  # (row, tree) walks group by group
        if len(U) > MAX_ALE_GROUPS or walks > ALE_GROUP_SHARE * (e - s) * max(int(mask.any(axis=0).sum()), 1):
            # One call, each row's values as its grid: many small groups, or groups that would walk
            # most of the trees anyway (deep forests: a call per group streams the whole forest
            # through the cache again for each group, 20-40 % slower than one pass).
            q = np.argsort(Vb, axis=1, kind="stable")
            Gs = np.ascontiguousarray(np.take_along_axis(Vb, q, axis=1))
            cnt = np.sum(~np.isnan(Gs), axis=1).astype(np.int64)
            trees = np.flatnonzero(mask.any(axis=0)).astype(np.int64)
            raw[np.arange(e - s)[:, None], q] = _kernel_module().free_kernel(Xb, int(j), Gs, cnt, trees, _NO_WEIGHTS,
                                                                             _block(tm, k), *args)
            mask = mask[:0]  # nothing left to walk group by group
        if len(mask):
            # group by group in one call: only the trees separating a group's values, each walk
            # stopping where no node below separates them (the rest of such a walk cancels)
            q = np.argsort(U, axis=1, kind="stable")  # each group's values ascending, NaN last
            Us = np.ascontiguousarray(np.take_along_axis(U, q, axis=1))
            cnt = np.sum(~np.isnan(Us), axis=1).astype(np.int64)
            if k == 2 and not np.isnan(Us).any():
                # two finite values (the bin's edges): each row's difference between them
                raw[order, 1] = kernels.pair_kernel(Xb, int(j), order, start, U, nodes, _parents(tm), *args)
            else:
                part = kernels.group_kernel(Xb, int(j), order, start, Us, cnt, nodes, _parents(tm), *args)
                raw[order[:, None], q[np.repeat(np.arange(len(U)), np.diff(start))]] = part
        if not tm.linear:
            # the whole raw score at copy 0 (every tree), the separating trees' differences on top
            Xc = Xb.copy()
            Xc[:, j] = Vb[:, 0]
            whole = _kernel_module().free_kernel(Xc, -1, np.zeros((1, 1)), np.ones(1, dtype=np.int64),
                                                 _all_trees(tm), _NO_WEIGHTS, _block(tm, 1), *args)[:, 0, :]
            raw -= raw[:, :1, :].copy()
            raw += whole[:, None, :]
        raw += tm.base
        pred = _select(_finish(tm, raw, eng.output), column)
        if pred is None:
            return None
        if out is None:
            out = np.empty((k, n) + pred.shape[2:])
        out[:, s:e] = np.moveaxis(pred, 1, 0)
    return out
