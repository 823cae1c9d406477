"""Marginal SAGE's f_S(x) = 1/B Σ_b f(x_S, b_S̄) from the tree engine instead of B predictions.

:class:`SageGame` predicts B hybrid rows per (row, coalition). For a tree ensemble the
interventional mean comes from the trees (:func:`imlkit._trees._shap_kernels.coalition_kernel`):
one walk per (row, coalition, tree) carries the set of background rows that reach each node,
and along a SAGE ordering -- coalitions growing one player at a time on one row -- only the
trees that split on the added player's columns are walked again. When the permutation
estimator draws a background per sample (:meth:`SageGame.background_per_sample`), every row of
X's directions are computed once and each sample's B rows are transposed into the bitsets the
walk reads (:func:`sampled_coalition_kernel`).

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

import math

import numpy as np

from .._model import Predictor
from .._numba import njit
from .._trees._kernels import _go_left
from .._trees._shap_kernels import _walk_coalition, coalition_changes
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


@njit(cache=True, nogil=True)
def row_bits(X, feature, kind, thr, missing_left, cat_left, cat_known, bitsets):
    """uint64 (n, ⌈N/64⌉): bit nd & 63 of word nd >> 6 of row r is 1 when row r of X goes left at node nd.

    :func:`imlkit._trees._shap_kernels.background_directions` written as row-major bits, with the
    numeric split (kind 0) decided inline.
    """
    n_nodes = kind.shape[0]
    out = np.zeros((X.shape[0], (n_nodes + 63) // 64), dtype=np.uint64)
    for nd in range(n_nodes):
        k = kind[nd]
        if k < 0:
            continue
        f = feature[nd]
        w = nd >> 6
        bit = np.uint64(1) << np.uint64(nd & 63)
        if k == 0:
            t = thr[nd]
            miss = missing_left[nd] != 0
            for r in range(X.shape[0]):
                x = X[r, f]
                if (miss if math.isnan(x) else x <= t):
                    out[r, w] |= bit
        else:
            for r in range(X.shape[0]):
                if _go_left(X[r, f], nd, kind, thr, missing_left, cat_left, cat_known, bitsets):
                    out[r, w] |= bit
    return out


@njit(cache=True, nogil=True)
def _transpose64(a):
    """In place: bit c of a[r] becomes bit r of a[c] (a 64 x 64 bit matrix, uint64[64])."""
    j = 32
    m = np.uint64(0x00000000FFFFFFFF)
    while j != 0:
        k = 0
        while k < 64:
            t = ((a[k] >> np.uint64(j)) ^ a[k + j]) & m
            a[k] ^= t << np.uint64(j)
            a[k + j] ^= t
            k = (k + j + 1) & ~j
        j >>= 1
        m ^= m << np.uint64(j)


@njit(cache=True, nogil=True)
def sampled_coalition_kernel(X, rows, M, keys, idx, rowbits, n_nodes, n_groups, uses, per_b, roots, feature, kind,
                             thr, left, right, missing_left, cat_left, cat_known, bitsets, value, tree_out, n_out,
                             max_depth):
    """Raw scores of the hybrid rows (x_{rows[i], S_i}, z_S̄_i), z over query i's own background rows.

    As :func:`imlkit._trees._shap_kernels.coalition_kernel`, but every sample (``keys[i]``; a
    sample's queries are consecutive) has a background of its own: the B rows ``idx[keys[i]]`` of
    X. ``rowbits`` (n, ⌈N/64⌉) holds every row's direction at every node (bit nd & 63 of word
    nd >> 6); per sample the B rows' bits are transposed (64 x 64 bit blocks) into the
    (N, ⌈B/64⌉) node-major bitsets the walk reads, so a walk costs what it costs with one
    fixed background. Then, tree by tree, the sample's queries are walked, a tree's share of
    query i−1 kept when query i has the same row and its coalition differs only in columns the
    tree never splits on. Each query adds the trees' shares in tree order: (q, B, n_out) with
    ``per_b``, else (q, G, n_out), the sums over G = ``n_groups`` consecutive groups of B/G rows
    (1: all B), without the intercept and link.
    """
    q, p = M.shape
    nb = idx.shape[1]
    n_trees = roots.shape[0]
    nbo = nb if per_b else n_groups
    out = np.zeros((q, nbo, n_out))
    if q == 0 or nb == 0:
        return out
    n_words = (nb + 63) // 64
    full = np.zeros(n_words, dtype=np.uint64)
    gmask = np.zeros((n_groups, n_words), dtype=np.uint64)
    size = nb // n_groups
    for b in range(nb):
        full[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
        gmask[b // size, b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    same_row, start, changed = coalition_changes(rows, keys, M)
    cap = 2 * (max_depth + 3)
    nodes = np.empty(cap, dtype=np.int64)
    sets = np.empty((cap, n_words), dtype=np.uint64)
    val = np.zeros((nbo, n_out))
    bbits = np.zeros((n_nodes, n_words), dtype=np.uint64)
    block = np.zeros(64, dtype=np.uint64)
    node_words = rowbits.shape[1]
    i0 = 0
    while i0 < q:
        key = keys[i0]
        i1 = i0 + 1
        while i1 < q and keys[i1] == key:
            i1 += 1
        # the sample's background: bit b of bbits[nd, w] is row idx[key, 64 w + b]'s direction at node nd
        for w in range(n_words):
            for cw in range(node_words):
                for b in range(64):
                    bb = w * 64 + b
                    block[b] = rowbits[idx[key, bb], cw] if bb < nb else np.uint64(0)
                _transpose64(block)
                for k in range(64):
                    nd = cw * 64 + k
                    if nd < n_nodes:
                        bbits[nd, w] = block[k]
        for t in range(n_trees):
            root = roots[t]
            out_col = tree_out[t]
            for i in range(i0, i1):
                walk = same_row[i] == 0
                if not walk:
                    for k in range(start[i], start[i + 1]):
                        if uses[t, changed[k]]:
                            walk = True
                            break
                if walk:
                    _walk_coalition(X[rows[i]], M[i], bbits, full, gmask, sets, nodes, val, root, out_col, per_b,
                                    feature, kind, thr, left, right, missing_left, cat_left, cat_known, bitsets, value,
                                    n_out)
                for b in range(nbo):
                    if out_col >= 0:  # (val's other columns are stale: the walk zeroes out_col only)
                        out[i, b, out_col] += val[b, out_col]
                    else:
                        for c in range(n_out):
                            out[i, b, c] += val[b, c]
        i0 = i1
    return out


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
        # A fresh background per sample (SageGame.background_per_sample): every row of X's direction at every
        # node, row-major bits (bit nd & 63 of word nd >> 6), for sampled_coalition_kernel to transpose.
        self._n_nodes = len(kinds)
        self._rowbits = (row_bits(Xe, feature, kinds, thr, missing_left, cat_left, cat_known, bitsets)
                         if getattr(game, "fresh_background", 0) else None)

    def __getattr__(self, name):
        if name.startswith("_"):  # not found on the proxy itself (e.g. while unpickling): no delegation
            raise AttributeError(name)
        return getattr(self._game, name)

    def value(self, mask, rng):
        """v(S) over all rows, as :meth:`SageGame.value` (with this game's f_S)."""
        return SageGame.value(self, mask, rng)

    def background_losses(self, rows, masks, keys, backgrounds):
        """As :meth:`SageGame.background_losses`, with this game's f_S."""
        return SageGame.background_losses(self, rows, masks, keys, backgrounds)

    def _means(self, rows, masks, keys=None, backgrounds=None, groups=0):
        """f_S for query rows (q,) and player masks (q, m): (q, n_out) before reshaping.

        ``keys`` (q,) and ``backgrounds`` (n_keys, B): each query's own background rows of X
        (:func:`sampled_coalition_kernel`); None: the fixed background. ``groups``: the mean
        predictions of that many consecutive groups of the B rows, (q, groups, n_out).
        """
        from .._trees._shap_kernels import coalition_kernel

        tm = self._tm
        nb = self._nb if backgrounds is None else backgrounds.shape[1]
        if backgrounds is not None:
            idx = np.ascontiguousarray(backgrounds, dtype=np.int64)
        p_enc = self._Xe.shape[1]
        per_b = self._per_b
        step = max(1, _PER_B_ROWS // nb) if per_b else _MEAN_QUERIES
        step = max(1, min(step, _MASK_CELLS // p_enc))
        members = self._game.player_columns.astype(np.uint8)
        base = np.asarray(tm.base, dtype=float)
        parts = []
        for s in range(0, len(rows), step):
            # Columns kept from the row, in the model's encoded order (the masks of one chunk only).
            M = np.zeros((len(rows[s:s + step]), p_enc), dtype=np.uint8)
            M[:, self._cols] = masks[s:s + step].astype(np.uint8) @ members > 0
            if backgrounds is None:
                raw = coalition_kernel(self._Xe, rows[s:s + step], M, self._bbits, nb, self._uses, self._per_b,
                                       *tm.kernel_args)
            else:
                raw = sampled_coalition_kernel(self._Xe, rows[s:s + step], M, keys[s:s + step], idx, self._rowbits,
                                               self._n_nodes, max(1, groups), self._uses, per_b, *tm.kernel_args)
            if per_b:
                q, _, k = raw.shape
                pred = np.asarray(tm.finish(raw.reshape(q * nb, k) + base, self._kind), dtype=float)
                pred = pred.reshape((q, nb) + pred.shape[1:])
                parts.append(pred.reshape((q, groups, nb // groups) + pred.shape[2:]).mean(axis=2) if groups
                             else pred.mean(axis=1))
            elif groups:
                q, _, k = raw.shape
                pred = np.asarray(tm.finish(raw.reshape(q * groups, k) / (nb // groups) + base, self._kind),
                                  dtype=float)
                parts.append(pred.reshape((q, groups) + pred.shape[1:]))
            else:
                raw = raw[:, 0, :] / nb + base
                parts.append(np.asarray(tm.finish(raw, self._kind), dtype=float))
        return np.concatenate(parts, axis=0)

    def coalition_predictions(self, rows, masks, rng, keys=None, noise=None, backgrounds=None, groups=0):
        """f_S(x_i) for pairs (row i, coalition S): :meth:`SageGame.coalition_predictions` from the trees."""
        g = self._game
        rows = np.asarray(rows, dtype=np.int64)
        masks = np.asarray(masks, dtype=bool)
        full = masks.all(axis=1)
        empty = ~masks.any(axis=1) if backgrounds is None else np.zeros(len(rows), dtype=bool)
        mid = np.flatnonzero(~(full | empty))
        shape = (len(rows), groups) if groups else (len(rows),)
        out = np.empty(shape + g.empty_pred.shape, dtype=float)
        out[full] = g.full_pred[rows[full]][:, None] if groups else g.full_pred[rows[full]]
        out[empty] = g.empty_pred
        if len(mid):
            # The queries of one row side by side (stable: an ordering's coalitions stay in their
            # order), so that the kernel walks again only the trees a step changes.
            if backgrounds is None:
                order = mid[np.argsort(rows[mid], kind="stable")]
                pred = self._means(rows[order], masks[order])
            else:  # (a sample's coalitions side by side: the same row and background)
                keys = np.asarray(keys, dtype=np.int64)
                order = mid[np.argsort(keys[mid], kind="stable")]
                pred = self._means(rows[order], masks[order], keys[order], np.asarray(backgrounds), groups)
            out[order] = pred.reshape((len(order),) + shape[1:] + g.empty_pred.shape)
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
