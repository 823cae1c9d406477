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

from .. import _trees
from .._model import Predictor
from ..importance._sage_trees import _column_map, _rows, _TreeGame, checked_game, tree_game, tree_inputs

__all__ = ["tree_values", "tree_game", "tree_output_game"]

#: Rows per kernel call (a task of the thread pool): the rows of a call are walked together, so
#: larger blocks share more work; memory per call is ~ (tree nodes + 2·depth·outputs·8) bytes per row.
_BLOCK = 1024
#: Features of the one pair checked against brute force (2^K hybrid predictions).
_CHECK_FEATURES = 8
#: Up to this many players a boosted model's probability game takes every coalition of a row at once
#: (all_coalitions_kernel: a (2^m, background rows, classes) array per row; 10 players, 32 rows, 10 classes: 2.6 MB).
_TABLE_PLAYERS = 10


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


def _brute_force_ok(tm, fn, frame, bg, Xe, Be, cols, A, as_frame):
    """Compare the kernel with the Shapley values of 2^K hybrid predictions for one pair.

    The pair is (x', b) with x' = b except on up to K columns where x differs: the pair game
    then has K players, enumerated through the model's own predictions.
    """
    from .._trees._shap_kernels import interventional_kernel, shapley_weights
    from ._shapley import shapley_matrix as _shapley_matrix

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

    def refuse(why):
        if engine == "trees":
            raise ValidationError(f"engine='trees': {why}. Use engine='auto' or 'predict'.")
        return None, f"tree engine not used: {why}"

    not_affine = ("the explained output is not an affine function of the trees' raw score "
                  "(explain link='logit' for a binary boosted model's margin)")
    # Whether the output is affine in the raw score depends only on the model's finisher and base, which the
    # (cached) reading of its trees has: decided before the engine's check against the model's predictions, which
    # perturbs every feature (a 4-class boosted model on 2,308 genes: 3.2 s + 2.5 s of CPU for the report's two
    # refused tries, link None and "logit"). A model the reader cannot read goes on to the check, which says why.
    try:
        read = _trees.tree_model(model, lambda: _rows(game.X, as_frame))
    except Exception:  # Unsupported, or a library's internals changed: the check below reports it
        read = None
    if read is not None and _affine(read, kind, fn.column, fn.link) is None:
        return refuse(not_affine)
    predictor = Predictor(model, output=kind, as_frame=as_frame, max_rows=game.max_rows)
    info = predictor.use_engine(game.X, engine)
    tm = predictor.tree_model
    if tm is None:
        return None, info.get("engine_note")

    affine = _affine(tm, kind, fn.column, fn.link)
    if affine is None:
        return refuse(not_affine)
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



class _Probabilities:
    """What :class:`._sage_trees._TreeGame` reads of its game for f_S of every class's probability.

    Only ``player_columns`` and the shapes of ``empty_pred`` / ``full_pred`` are read: the
    empty and full coalitions are answered by :class:`_ClassGame` from the explained game.
    """

    def __init__(self, game, n_classes):
        self.player_columns = game.player_columns
        self.empty_pred = np.zeros(n_classes)
        self.full_pred = np.zeros((len(game.X), n_classes))


class _ClassGame:
    """The prediction game of P(class) with f_S(x) = 1/B Σ_b P(class | x_S, b_S̄) from the trees.

    The same game as the wrapped one (same rows, background, f_∅ and f, which are the wrapped
    game's own numbers); only the hybrid means of the other coalitions are taken from the trees
    (every class's probability of each hybrid row, then the mean over the background rows)
    instead of the model's predictions of the B hybrid rows.
    """

    releases_gil = True
    coalitions_from_trees = True

    def __init__(self, game, inner, column, table=None):
        self._game = game
        self._inner = inner
        self._column = column
        # (tm, Xe, bdir, player, m) for the tables of every coalition of a row (few players), else None
        self._table_args = table
        self._tables = {}

    def _table(self, row):
        """f_S(x_row) for every coalition S (2^m,), S as the integer Σ_{k∈S} 2^k; computed once per row."""
        hit = self._tables.get(row)
        if hit is None:
            from .._trees._shap_kernels import all_coalitions_kernel

            tm, Xe, bdir, player, m = self._table_args
            raw = all_coalitions_kernel(Xe[row], bdir, player, m, *tm.kernel_args)
            q, nb, k = raw.shape
            # as _TreeGame._means: each background row's output through the model's link, then the mean
            pred = np.asarray(tm.finish(raw.reshape(q * nb, k) + np.asarray(tm.base, dtype=float), "proba"),
                              dtype=float)
            hit = pred.reshape((q, nb) + pred.shape[1:]).mean(axis=1)[:, self._column]
            self._tables[row] = hit
        return hit

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._game, name)

    def coalition_predictions(self, rows, masks, rng, keys=None, noise=None):
        """f_S(x_i) (q,) + shape of f_∅ for pairs (row i, coalition S), as the wrapped game's."""
        g = self._game
        rows = np.asarray(rows, dtype=np.int64)
        masks = np.asarray(masks, dtype=bool)
        full = masks.all(axis=1)
        empty = ~masks.any(axis=1)
        mid = np.flatnonzero(~(full | empty))
        shape = np.shape(g.empty_pred)
        out = np.empty((len(rows),) + shape, dtype=float)
        out[full] = np.asarray(g.full_pred, dtype=float)[rows[full]].reshape((-1,) + shape)
        out[empty] = g.empty_pred
        if len(mid) and self._table_args is not None:
            code = masks[mid].astype(np.int64) @ (np.int64(1) << np.arange(masks.shape[1], dtype=np.int64))
            pred = np.empty(len(mid))
            for r in np.unique(rows[mid]):
                at = np.flatnonzero(rows[mid] == r)
                pred[at] = self._table(int(r))[code[at]]
            out[mid] = pred.reshape((len(mid),) + shape)
        elif len(mid):
            pred = self._inner.coalition_predictions(rows[mid], masks[mid], None)[:, self._column]
            out[mid] = pred.reshape((len(mid),) + shape)
        return out


def tree_output_game(model, fn, game, engine):
    """``game`` (the prediction game of P(class)) with its coalitions' means from the trees, or ``game``.

    For a classifier whose probability is not affine in its trees' raw score (a boosted model's
    softmax or sigmoid), exact TreeSHAP of the probability does not exist in closed form, but the
    coalition values the exact enumeration or the permutation estimator need -- the mean of
    P(class) over the background rows of a hybrid row -- come from the trees
    (:func:`imlkit._trees._shap_kernels.coalition_kernel`: one walk per (row, coalition, tree)
    with the set of background rows reaching each node; each background row's raw score, then
    the model's link, then the mean) at a fraction of the cost of predicting the B hybrid rows.
    Checked against the game's own predictions on a few (row, coalition) pairs first.

    Returns
    -------
    (game, note or None)
        The note says why the trees were not used (``game`` then is the argument itself).
    """
    if engine == "predict" or fn.column is None or fn.link is not None:
        return game, None
    inputs, note = tree_inputs(model, game, "proba")
    if inputs is None:
        return game, note
    tm, Xe, Be, cols = inputs
    try:
        n_classes = int(np.asarray(tm.finish(np.asarray(tm.base, dtype=float).reshape(1, -1), "proba")).shape[1])
    except Exception:  # a finisher without probabilities
        return game, "tree engine not used for f_S: the trees give no class probabilities"
    if not 0 <= fn.column < n_classes:
        return game, "tree engine not used for f_S: the explained class is not one of the trees' outputs"
    inner = _TreeGame(_Probabilities(game, n_classes), tm, "proba", Xe, Be, cols)
    table = None
    members = np.asarray(game.player_columns, dtype=bool)
    m = len(game.players)
    if m <= _TABLE_PLAYERS and np.all(members.sum(axis=0) <= 1):
        # Few players: every coalition of a row from one walk per (background row, tree) (all_coalitions_kernel)
        # -- the exact enumeration asks for all 2^m of them, the permutation estimator for most.
        from .._trees._shap_kernels import background_directions

        _, feature, kinds, thr, _, _, missing_left, cat_left, cat_known, bitsets = tm.kernel_args[:10]
        bdir = background_directions(Be, feature, kinds, thr, missing_left, cat_left, cat_known, bitsets)
        player = np.full(Xe.shape[1], -1, dtype=np.int64)
        for k_in, j in enumerate(cols):
            held = np.flatnonzero(members[:, k_in])
            if len(held):
                player[j] = held[0]
        table = (tm, Xe, bdir, player, m)
    return checked_game(game, _ClassGame(game, inner, fn.column, table), tm)
