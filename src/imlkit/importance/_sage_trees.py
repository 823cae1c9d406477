"""Marginal SAGE's f_S(x) = 1/B Σ_b f(x_S, b_S̄) from the tree engine instead of B predictions.

:class:`SageGame` predicts B hybrid rows per (row, coalition). For a tree ensemble the
interventional mean comes from the trees (:func:`imlkit._trees._shap_kernels.coalition_kernel`):
one walk per (row, coalition, tree) carries the set of background rows that reach each node,
and along a SAGE ordering -- coalitions growing one player at a time on one row -- only the
trees that split on the added player's columns are walked again.

The estimand is the game's own: the mean over the background rows of the model's *outputs*.
When the output is affine in the trees' raw score (regression, a forest's averaged class
proportions: ``TreeModel.linear``) that is the output of the mean raw score, and the kernel
sums the raw scores over the background rows. Otherwise (a boosted classifier's
probabilities, a log link) the kernel keeps each background row's raw score, and the link is
applied row by row before the mean, as the predict path averages the model's predictions.

Used by :func:`imlkit.sage`, :func:`imlkit.sage_value` and the loss SHAP values of
:func:`imlkit.shap` (all through :func:`tree_game`). Names used from the tree engine:
``Predictor.use_engine`` / ``.tree_model`` and ``TreeModel.encode``, ``.column``, ``.finish``,
``.base``, ``.linear``, ``.atol``, ``.forest`` and ``.kernel_args`` (the order of
``_kernels.as_kernel_args``).
"""
from __future__ import annotations

import numpy as np

from .._model import Predictor
from ._sage_game import SageGame

__all__ = ["tree_game"]

#: Coalitions per kernel call when the kernel keeps one raw score per background row:
#: bounds its (coalitions × B × outputs) array like the predict path's row chunks.
_PER_B_ROWS = 1 << 19
#: Coalitions per kernel call otherwise (its output is one row of raw scores per coalition).
_MEAN_QUERIES = 1 << 16
#: Cells of the (coalitions × columns) masks built per kernel call: wide data gets fewer coalitions.
_MASK_CELLS = 1 << 23
#: (row, coalition) pairs on which the trees' f_S is checked against the game's own predictions.
_N_CHECK = 8


def _rows(data, as_frame):
    return data if as_frame else data.to_numpy()


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


def _tree_uses(tm, n_cols):
    """uint8 (T, p): 1 when tree t splits on encoded column j."""
    f = tm.forest
    feature, kind = np.asarray(f.feature), np.asarray(f.kind)
    roots = np.asarray(f.roots)
    tree_of = np.repeat(np.arange(len(roots)), np.diff(np.append(roots, len(feature))))
    uses = np.zeros((len(roots), n_cols), dtype=np.uint8)
    split = kind >= 0
    uses[tree_of[split], feature[split]] = 1
    return uses


class _TreeGame:
    """A SAGE game whose f_S(x) = 1/B Σ_b f(x_S, b_S̄) comes from the trees.

    Everything else (rows, background, losses, f_∅, f) is the wrapped game's; see the module
    docstring for the two ways the mean is taken.
    """

    #: The kernel runs without the GIL: the estimator's parallel batches may share the game in threads.
    releases_gil = True

    def __init__(self, game, tm, kind, Xe, Be, cols):
        self._game = game
        self._tm = tm
        self._kind = kind
        self._Xe = Xe
        self._cols = cols
        self._per_b = not tm.linear
        self._uses = _tree_uses(tm, Xe.shape[1])
        from .._trees._shap_kernels import background_bits, background_directions

        # as_kernel_args order: roots, feature, kind, thr, left, right, missing_left, cat_left, cat_known,
        # bitsets, value, tree_out, n_out, max_depth
        _, feature, kinds, thr, _, _, missing_left, cat_left, cat_known, bitsets = tm.kernel_args[:10]
        # Every background row's direction at every node: computed once, read by every walk.
        self._nb = len(Be)
        self._bbits = background_bits(background_directions(Be, feature, kinds, thr, missing_left, cat_left,
                                                            cat_known, bitsets))

    def __getattr__(self, name):
        if name.startswith("_"):  # not found on the proxy itself (e.g. while unpickling): no delegation
            raise AttributeError(name)
        return getattr(self._game, name)

    def value(self, mask, rng):
        """v(S) over all rows, as :meth:`SageGame.value` (with this game's f_S)."""
        return SageGame.value(self, mask, rng)

    def _means(self, rows, masks):
        """f_S for query rows (q,) and player masks (q, m): (q, n_out) before reshaping."""
        from .._trees._shap_kernels import coalition_kernel

        tm = self._tm
        nb = self._nb
        p_enc = self._Xe.shape[1]
        step = max(1, _PER_B_ROWS // nb) if self._per_b else _MEAN_QUERIES
        step = max(1, min(step, _MASK_CELLS // p_enc))
        members = self._game.player_columns.astype(np.uint8)
        base = np.asarray(tm.base, dtype=float)
        parts = []
        for s in range(0, len(rows), step):
            # Columns kept from the row, in the model's encoded order (the masks of one chunk only).
            M = np.zeros((len(rows[s:s + step]), p_enc), dtype=np.uint8)
            M[:, self._cols] = masks[s:s + step].astype(np.uint8) @ members > 0
            raw = coalition_kernel(self._Xe, rows[s:s + step], M, self._bbits, nb, self._uses, self._per_b,
                                   *tm.kernel_args)
            if self._per_b:
                q, _, k = raw.shape
                pred = np.asarray(tm.finish(raw.reshape(q * nb, k) + base, self._kind), dtype=float)
                parts.append(pred.reshape((q, nb) + pred.shape[1:]).mean(axis=1))
            else:
                raw = raw[:, 0, :] / nb + base
                parts.append(np.asarray(tm.finish(raw, self._kind), dtype=float))
        return np.concatenate(parts, axis=0)

    def coalition_predictions(self, rows, masks, rng, keys=None, noise=None):
        """f_S(x_i) for pairs (row i, coalition S): :meth:`SageGame.coalition_predictions` from the trees."""
        g = self._game
        rows = np.asarray(rows, dtype=np.int64)
        masks = np.asarray(masks, dtype=bool)
        full = masks.all(axis=1)
        empty = ~masks.any(axis=1)
        mid = np.flatnonzero(~(full | empty))
        out = np.empty((len(rows),) + g.empty_pred.shape, dtype=float)
        out[full] = g.full_pred[rows[full]]
        out[empty] = g.empty_pred
        if len(mid):
            # The queries of one row side by side (stable: an ordering's coalitions stay in their
            # order), so that the kernel walks again only the trees a step changes.
            order = mid[np.argsort(rows[mid], kind="stable")]
            pred = self._means(rows[order], masks[order])
            out[order] = pred.reshape((len(order),) + g.empty_pred.shape)
        return out


def tree_inputs(model, game, output):
    """What a marginal game needs to take f_S from the trees: ``((tm, Xe, Be, cols), None)``, or
    ``(None, note)`` saying why the trees cannot be used.

    The engine is checked on the plain rows of X only (features=[]): the hybrid rows a game asks
    for are checked by the caller, every column replaced by every background row's value (the
    engine's own per-feature check would cost a predict per column, seconds on wide data).
    ``Xe`` (n, q) and ``Be`` (B, q) are X and the background encoded for the trees; ``cols`` maps
    each encoded column to its input column.
    """
    as_frame = game.predictor.as_frame
    predictor = Predictor(model, output=output, as_frame=as_frame, max_rows=game.max_rows)
    try:
        info = predictor.use_engine(game.X, "auto", features=[])
    except Exception as exc:  # the output asked for is one the engine cannot give
        return None, f"tree engine not used: {exc}"
    tm = predictor.tree_model
    if tm is None:
        return None, info.get("engine_note")
    Xe = np.ascontiguousarray(tm.encode(_rows(game.X, as_frame)), dtype=np.float64)
    Be = np.ascontiguousarray(tm.encode(_rows(game.background, as_frame)), dtype=np.float64)
    cols = _column_map(tm, game.X, as_frame, Xe.shape[1])
    if cols is None or len(cols) != Xe.shape[1]:
        return None, "tree engine not used for f_S: the model's encoded columns are not the input columns"
    return (tm, Xe, Be, cols), None


def tree_game(model, game, engine):
    """``game`` with f_S(x) from the tree engine when the model allows it, else ``game`` itself.

    Parameters
    ----------
    model : fitted estimator
    game : SageGame
        A marginal game (f_S averages fixed background rows).
    engine : {"auto", "trees", "predict"}
        ``"predict"`` returns ``game``; ``"auto"`` and ``"trees"`` try the trees (the caller
        raises for ``"trees"`` when they are not used).

    Returns
    -------
    (game, note or None)
        The note says why a tree model's f_S is not taken from its trees. The trees' f_S is
        checked against the game's own (stacked predictions) on a few (row, coalition) pairs
        before it is used.
    """
    if engine == "predict":
        return game, None
    if game.removal != "marginal":
        return game, "tree engine not used: conditional removal predicts its sampled rows"
    if game.vote:
        return game, ("tree engine not used: a label loss on a model without predict_proba takes the "
                      "majority vote of the hybrid rows")
    kind = game.predictor.output
    inputs, note = tree_inputs(model, game, kind)
    if inputs is None:
        return game, note
    tm, Xe, Be, cols = inputs
    return checked_game(game, _TreeGame(game, tm, kind, Xe, Be, cols), tm)


def checked_game(game, fast, tm):
    """``(fast, None)`` when the trees' game agrees with ``game``'s own predictions on a few (row,
    coalition) pairs, else ``(game, note)``.

    ``_N_CHECK`` random pairs (seeded), of which two complementary coalitions: every player is
    dropped (its columns take all B background values) in one of them. Agreement: within
    1e-9 of the largest value's scale, plus the trees' own tolerance.
    """
    rng = np.random.default_rng(0)
    m = len(game.players)
    rows = rng.integers(0, len(game.X), size=_N_CHECK)
    masks = rng.random((_N_CHECK, m)) < 0.5
    masks[:2] = (np.arange(m) % 2 == 0)[None, :]
    masks[1] = ~masks[1]
    mine = np.asarray(fast.coalition_predictions(rows, masks, None), dtype=float)
    theirs = np.asarray(game.coalition_predictions(rows, masks, None), dtype=float)
    scale = max(1.0, float(np.max(np.abs(theirs))))
    if mine.shape != theirs.shape or np.max(np.abs(mine - theirs)) > 1e-9 * scale + 10 * tm.atol * scale:
        return game, "tree engine not used for f_S: it disagreed with the model's own predictions"
    return fast, None
