"""Exact interventional SHAP of a tree model's prediction from the tree engine.

The kernel (:mod:`imlkit._trees._shap_kernels`) gives the Shapley values of the raw score
(the trees' sum) in the model's encoded columns. They become the Shapley values of the
explained output when that output is an affine function of the raw score -- a regression's
identity, a forest's averaged class proportions, the log-odds of a binary boosted model --
because Shapley values are linear. Whether it is affine is measured, not assumed: the
output is evaluated at random raw scores and compared with its affine fit. Other outputs
(the probability of a boosted model) are left to the model-agnostic estimators.

Names used from the tree engine: ``Predictor.use_engine`` (which checks the model against its
own predictions) and ``Predictor.tree_model`` (the checked ``TreeModel``); ``TreeModel.encode``,
``.column``, ``.finish``, ``.base``, ``.linear``, ``.kernel_args`` (in the order of ``_kernels.as_kernel_args``),
``.forest.max_depth``, ``.atol``; and ``imlkit._trees._kernels._go_left`` (in the kernels).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._model import Predictor

__all__ = ["tree_values"]

#: Rows per kernel call (a task of the thread pool): the rows of a call are walked together, so
#: larger blocks share more work; memory per call is ~ (tree nodes + 2·depth·outputs·8) bytes per row.
_BLOCK = 1024
#: Features of the one pair checked against brute force (2^K hybrid predictions).
_CHECK_FEATURES = 8


def _affine(tm, kind, column, link):
    """(A (n_out,), c) with output = c + (raw − base) @ A, or None when the output is not affine."""
    def out(raw):
        pred = np.asarray(tm.finish(raw, kind), dtype=float)
        pred = pred[:, column] if column is not None else pred.reshape(len(raw), -1)[:, 0]
        if link == "logit":
            p = np.clip(pred, 1e-300, 1.0)
            q = np.clip(1.0 - pred, 1e-300, 1.0)
            pred = np.log(p) - np.log(q)
        return pred

    base = np.asarray(tm.base, dtype=float).reshape(-1)
    k = len(base)
    try:
        unit = base[None, :] + np.vstack([np.zeros(k), np.eye(k)])
        vals = out(unit)
        c, A = vals[0], vals[1:] - vals[0]
        rng = np.random.default_rng(0)
        probe = base[None, :] + rng.normal(scale=2.0, size=(16, k))
        want = c + (probe - base) @ A
        got = out(probe)
    except Exception:  # an output the finisher cannot give
        return None
    scale = max(1.0, float(np.max(np.abs(want))))
    if not np.all(np.isfinite(got)) or np.max(np.abs(got - want)) > 1e-9 * scale:
        return None
    return A, c


def _column_map(tm, frame, as_frame, n_enc):
    """Encoded column of each input column (all distinct), or None."""
    cols = []
    for k, name in enumerate(frame.columns):
        hit = tm.column(name if as_frame else k, frame)
        if hit is None and as_frame:
            hit = tm.column(k, frame)
        if hit is None:
            return None
        cols.append(int(hit[0]))
    if len(set(cols)) != len(cols) or max(cols) >= n_enc:
        return None
    return np.array(cols)


def _kernel_sum(Xe, Be, tm, n_jobs):
    from .._trees._shap_kernels import interventional_kernel, shapley_weights

    pos, neg = shapley_weights(tm.forest.max_depth)
    blocks = [(s, min(len(Xe), s + _BLOCK)) for s in range(0, len(Xe), _BLOCK)]

    def run(a, b):
        return interventional_kernel(np.ascontiguousarray(Xe[a:b]), Be, pos, neg, *tm.kernel_args)

    if n_jobs in (None, 1) or len(blocks) == 1:
        parts = [run(a, b) for a, b in blocks]
    else:
        from joblib import Parallel, delayed

        # The kernel releases the GIL: threads share the arrays, and each row's sum runs in
        # the same order whatever the block, so the numbers do not depend on n_jobs.
        parts = Parallel(n_jobs=n_jobs, prefer="threads")(delayed(run)(a, b) for a, b in blocks)
    return np.concatenate(parts, axis=0)


def _rows(data, as_frame):
    return data if as_frame else data.to_numpy()


def _brute_force_ok(tm, fn, frame, bg, Xe, Be, cols, A, as_frame):
    """Compare the kernel with the Shapley values of 2^K hybrid predictions for one pair.

    The pair is (x', b) with x' = b except on up to K columns where x differs: the pair game
    then has K players, enumerated through the model's own predictions.
    """
    from .._trees._shap_kernels import interventional_kernel, shapley_weights
    from ._shap import _shapley_matrix

    xe, be = Xe[0], Be[0]
    differ = [k for k, j in enumerate(cols) if not (xe[j] == be[j] or (np.isnan(xe[j]) and np.isnan(be[j])))]
    chosen = differ[:_CHECK_FEATURES]
    if not chosen:
        return True, 0.0
    K = len(chosen)
    bits = ((np.arange(2 ** K)[:, None] >> np.arange(K)[None, :]) & 1).astype(bool)
    hyb = pd.concat([bg.iloc[[0]]] * (2 ** K), ignore_index=True)
    for q, k in enumerate(chosen):
        col = frame.columns[k]
        rows = np.flatnonzero(bits[:, q])
        hyb.loc[rows, col] = frame[col].iloc[0]
    values = np.asarray(fn(_rows(hyb, as_frame)), dtype=float)
    matrix, _ = _shapley_matrix(K)
    brute = values @ matrix
    xprime = be.copy()
    xprime[cols[chosen]] = xe[cols[chosen]]
    pos, neg = shapley_weights(tm.forest.max_depth)
    raw = interventional_kernel(np.ascontiguousarray(xprime[None, :]), np.ascontiguousarray(Be[:1]), pos, neg,
                                *tm.kernel_args)[0]
    mine = raw @ A
    expect = np.zeros(len(mine))
    expect[cols[chosen]] = brute
    scale = max(float(np.max(np.abs(brute))), float(np.max(np.abs(values))), 1e-12)
    diff = float(np.max(np.abs(mine - expect)))
    return diff <= 1e-6 * scale + 10 * tm.atol * max(1.0, scale), diff


def tree_values(model, fn, game, engine, n_jobs):
    """Interventional SHAP values (n, p) of ``fn`` (see :class:`._shap._Output`) from the trees.

    Returns ``(values or None, note or None)``; None values mean "use the model's predictions".
    """
    from .._validation import ModelError, ValidationError

    if engine == "predict":
        return None, None
    kind = "proba" if fn.column is not None else "predict"
    as_frame = game.predictor.as_frame
    predictor = Predictor(model, output=kind, as_frame=as_frame, max_rows=game.max_rows)
    info = predictor.use_engine(game.X, engine)
    tm = predictor.tree_model
    if tm is None:
        return None, info.get("engine_note")

    def refuse(why):
        if engine == "trees":
            raise ValidationError(f"engine='trees': {why}. Use engine='auto' or 'predict'.")
        return None, f"tree engine not used: {why}"

    affine = _affine(tm, kind, fn.column, fn.link)
    if affine is None:
        return refuse("the explained output is not an affine function of the trees' raw score "
                      "(explain link='logit' for a binary boosted model's margin)")
    A, _ = affine
    Xe = np.asarray(tm.encode(_rows(game.X, as_frame)), dtype=np.float64)
    Be = np.asarray(tm.encode(_rows(game.background, as_frame)), dtype=np.float64)
    cols = _column_map(tm, game.X, as_frame, Xe.shape[1])
    if cols is None:
        return refuse("an input column has no single column of its own in the model's encoding")
    if not getattr(tm, "shap_checked", False):
        ok, diff = _brute_force_ok(tm, fn, game.X, game.background, Xe, Be, cols, A, as_frame)
        if not ok:
            if engine == "trees":
                raise ModelError(f"engine='trees': TreeSHAP disagreed with brute force on one pair (max abs "
                                 f"difference {diff:.3g}).")
            return None, f"tree engine not used: TreeSHAP disagreed with brute force (max abs difference {diff:.3g})"
        tm.shap_checked = True
    raw = _kernel_sum(np.ascontiguousarray(Xe), np.ascontiguousarray(Be), tm, n_jobs) / len(Be)
    phi_enc = raw @ A  # (n, p_enc)
    phi = phi_enc[:, cols]
    others = np.setdiff1d(np.arange(phi_enc.shape[1]), cols)
    if len(others) and np.max(np.abs(phi_enc[:, others])) > 1e-9 * max(1.0, float(np.max(np.abs(phi_enc)))):
        return refuse("the model uses encoded columns that are not input columns")
    return phi, None


class _TreeGame:
    """A SAGE game whose f_S(x) = 1/B Σ_b f(x_S, b_S̄) comes from the trees (:func:`coalition_mean_kernel`).

    Everything else (rows, background, losses, f_∅, f) is the wrapped game's. Valid for a model
    whose output is affine in the raw score (``TreeModel.linear``): the mean output is then the
    output of the mean raw score.
    """

    def __init__(self, game, tm, kind, Xe, Be, cols):
        self._game = game
        self._tm = tm
        self._kind = kind
        self._Xe = Xe
        self._Be = Be
        self._cols = cols
        self._directions = None

    def _bdir(self):
        """The background rows' direction at every node, computed once."""
        if getattr(self, "_directions", None) is None:
            from .._trees._shap_kernels import background_directions

            # as_kernel_args order: roots, feature, kind, thr, left, right, missing_left, cat_left, cat_known,
            # bitsets, value, tree_out, n_out, max_depth
            _, feature, kind, thr, _, _, missing_left, cat_left, cat_known, bitsets = self._tm.kernel_args[:10]
            self._directions = background_directions(self._Be, feature, kind, thr, missing_left, cat_left,
                                                     cat_known, bitsets)
        return self._directions

    def __getattr__(self, name):
        if name.startswith("_"):  # not found on the proxy itself (e.g. while unpickling): no delegation
            raise AttributeError(name)
        return getattr(self._game, name)

    def coalition_predictions(self, rows, masks, rng):
        from .._trees._shap_kernels import coalition_mean_kernel

        g = self._game
        rows = np.asarray(rows, dtype=np.intp)
        masks = np.asarray(masks, dtype=bool)
        full = masks.all(axis=1)
        empty = ~masks.any(axis=1)
        mid = np.flatnonzero(~(full | empty))
        out = np.empty((len(rows),) + g.empty_pred.shape, dtype=float)
        out[full] = g.full_pred[rows[full]]
        out[empty] = g.empty_pred
        if len(mid):
            colmask = masks[mid].astype(np.uint8) @ g.player_columns.astype(np.uint8) > 0
            M = np.zeros((len(mid), self._Xe.shape[1]), dtype=np.uint8)
            M[:, self._cols] = colmask
            raw = coalition_mean_kernel(np.ascontiguousarray(self._Xe[rows[mid]]), M, self._bdir(),
                                        *self._tm.kernel_args)
            raw += np.asarray(self._tm.base, dtype=float)
            pred = np.asarray(self._tm.finish(raw, self._kind), dtype=float)
            out[mid] = pred.reshape((len(mid),) + g.empty_pred.shape)
        return out


def tree_game(model, game, engine):
    """``game`` with f_S(x) from the tree engine when the model allows it, else ``game`` itself.

    Returns ``(game, note or None)``. The trees' f_S is checked against the game's own (stacked
    predictions) on a few (row, coalition) pairs first.
    """
    if engine == "predict" or game.vote:
        return game, None
    kind = game.predictor.output
    as_frame = game.predictor.as_frame
    predictor = Predictor(model, output=kind, as_frame=as_frame, max_rows=game.max_rows)
    try:
        info = predictor.use_engine(game.X, "auto")
    except Exception as exc:  # the output the loss needs is one the engine cannot give
        return game, f"tree engine not used: {exc}"
    tm = predictor.tree_model
    if tm is None:
        return game, info.get("engine_note")
    if not tm.linear:
        return game, "tree engine not used for f_S: the model's output is not affine in its trees' raw score"
    Xe = np.ascontiguousarray(tm.encode(_rows(game.X, as_frame)), dtype=np.float64)
    Be = np.ascontiguousarray(tm.encode(_rows(game.background, as_frame)), dtype=np.float64)
    cols = _column_map(tm, game.X, as_frame, Xe.shape[1])
    if cols is None or len(cols) != Xe.shape[1]:
        return game, "tree engine not used for f_S: the model's encoded columns are not the input columns"
    fast = _TreeGame(game, tm, kind, Xe, Be, cols)
    rng = np.random.default_rng(0)
    m = len(game.players)
    rows = rng.integers(0, len(game.X), size=8)
    masks = rng.random((8, m)) < 0.5
    mine = fast.coalition_predictions(rows, masks, None)
    theirs = np.asarray(game.coalition_predictions(rows, masks, None), dtype=float)
    scale = max(1.0, float(np.max(np.abs(theirs))))
    if mine.shape != theirs.shape or np.max(np.abs(mine - theirs)) > 1e-9 * scale + 10 * tm.atol * scale:
        return game, "tree engine not used for f_S: it disagreed with the model's own predictions"
    return fast, None
