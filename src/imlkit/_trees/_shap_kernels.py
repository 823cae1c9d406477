"""numba kernel of interventional TreeSHAP: exact Shapley values of a tree ensemble's raw score.

For an explained row x and one background row b the *pair game* of a tree is
g(S) = tree(x_S, b_S̄): features in S take x's value, the others b's. A leaf is reached by the
hybrid row iff, along its path, every split where x and b go different ways is taken on the
side of the row that supplies the split's feature. Calling A the features whose splits must
come from x and B those that must come from b (a feature in both makes the leaf unreachable),
the leaf's share of the game is v·1[A ⊆ S, B ∩ S = ∅], whose Shapley values are

    φ_j = +v (|A|−1)! |B|! / (|A|+|B|)!   for j ∈ A,
    φ_j = −v |A|! (|B|−1)! / (|A|+|B|)!   for j ∈ B,      0 otherwise.

The walk reaches only the leaves some hybrid row can reach: where x and b
agree at a split it follows their common child, where they disagree it follows both (adding
the split's feature to A on x's side, to B on b's side), and a feature already in A or B is
routed by the row that supplies it. The interventional SHAP value of x is the mean of the pair
values over the background rows (Lundberg et al. 2020, "From local explanations to global
understanding with explainable AI for trees", Nature Machine Intelligence 2, the
"interventional" algorithm). Efficiency holds pair by pair: Σ_j φ_j = tree(x) − tree(b).
Lundberg et al. walk each pair separately; here all pairs of a call are walked at once, in
blocks of explained and background rows that share a path and its constraints (see the
kernel's Notes), which is what makes it several times faster than shap's C++ walk.

:func:`coalition_kernel` gives the same games' values instead of their Shapley values:
1/B Σ_b tree(x_S, b_S̄) for many (row, coalition) queries, SAGE's marginal f_S (see
:mod:`imlkit.importance._sage_trees`).

The node arrays are those of the tree engine (:mod:`._adapters`, :func:`._kernels.as_kernel_args`),
routed by the engine's own ``_go_left``, so every split kind (numeric, NaN direction,
category sets, LightGBM's zero-as-missing) means here what it means for prediction.
"""
from __future__ import annotations

import math

import numpy as np

from .._numba import njit
from ._kernels import _go_left

__all__ = ["shapley_weights", "interventional_kernel", "background_directions", "background_bits", "coalition_kernel"]


def shapley_weights(max_depth):
    """Tables (D, D) of the leaf weights: ``pos[a, b] = (a−1)! b!/(a+b)!``, ``neg[a, b] = a! (b−1)!/(a+b)!``.

    D = max_depth + 2 covers every |A| + |B| a path can reach; log-gamma keeps deep forests finite.
    """
    d = int(max_depth) + 2
    pos = np.zeros((d, d))
    neg = np.zeros((d, d))
    for a in range(d):
        for b in range(d):
            if a + b == 0:
                continue
            total = math.lgamma(a + b + 1)
            if a > 0:
                pos[a, b] = math.exp(math.lgamma(a) + math.lgamma(b + 1) - total)
            if b > 0:
                neg[a, b] = math.exp(math.lgamma(a + 1) + math.lgamma(b) - total)
    return pos, neg


@njit(cache=True, nogil=True)
def _directions(R, lo, hi, feature, kind, thr, missing_left, cat_left, cat_known, bitsets, out):
    """out[nd − lo, r] = 1 when row r of R goes left at node nd (the nodes lo..hi−1 of one tree)."""
    for nd in range(lo, hi):
        if kind[nd] < 0:
            continue
        f = feature[nd]
        for r in range(R.shape[0]):
            out[nd - lo, r] = 1 if _go_left(R[r, f], nd, kind, thr, missing_left, cat_left, cat_known,
                                            bitsets) else 0


@njit(cache=True, nogil=True)
def _split(buf, start, length, top, direction, ln):
    """Copy rows buf[start:start+length] to buf[top:top+length] as [left goers | right goers]; n left."""
    a = top
    z = top + length
    for q in range(start, start + length):
        r = buf[q]
        if direction[ln, r]:
            buf[a] = r
            a += 1
        else:
            z -= 1
            buf[z] = r
    return a - top


@njit(cache=True, nogil=True)
def interventional_kernel(X, Bg, pos, neg, roots, feature, kind, thr, left, right, missing_left, cat_left,
                          cat_known, bitsets, value, tree_out, n_out, max_depth):
    """Sum over background rows of the pair Shapley values of the raw score.

    Parameters
    ----------
    X : float64 (n, p)
        Explained rows in the model's encoding.
    Bg : float64 (B, p)
        Background rows in the model's encoding.
    pos, neg : float64 (D, D)
        :func:`shapley_weights` of ``max_depth``.
    roots, ..., max_depth
        The forest's flat arrays (:func:`imlkit._trees._kernels.as_kernel_args`).

    Returns
    -------
    float64 (n, p, n_out)
        Σ_b φ(x_i, b); divide by B for the interventional SHAP values.

    Notes
    -----
    All (x, b) pairs are walked together. A traversal state is (node, A, B, Rx, Rb): every
    pair of Rx × Rb reaches the node with the constraints A, B. The product form survives
    every split: on a feature in A the explained rows split by their own direction, on a
    feature in B the background rows do, and on a free feature both split and the four
    blocks (left/right × left/right) go to the unconstrained child when they agree and to
    both constrained children when they do not. A leaf credits each row of Rx with
    |Rb| · v · weight, collected per row at the deepest constrained entry of the path and
    paid to each constrained feature as the path unwinds. Each row's directions at every
    node are computed once per tree, so a split is a pass over byte columns, and the work
    of a state is O(|Rx| + |Rb|) instead of O(|Rx| · |Rb|).
    """
    n, p = X.shape
    nb = Bg.shape[0]
    n_trees = roots.shape[0]
    phi = np.zeros((n, p, n_out))
    if n == 0 or nb == 0:
        return phi
    cap = 6 * (max_depth + 3)
    s_node = np.empty(cap, dtype=np.int64)
    s_depth = np.empty(cap, dtype=np.int64)
    s_feat = np.empty(cap, dtype=np.int64)
    s_side = np.empty(cap, dtype=np.int8)
    s_xs = np.empty(cap, dtype=np.int64)
    s_xl = np.empty(cap, dtype=np.int64)
    s_bs = np.empty(cap, dtype=np.int64)
    s_bl = np.empty(cap, dtype=np.int64)
    s_xtop = np.empty(cap, dtype=np.int64)
    s_btop = np.empty(cap, dtype=np.int64)
    dp = max_depth + 2
    path_feat = np.empty(dp, dtype=np.int64)
    path_side = np.zeros(dp, dtype=np.int8)
    path_xs = np.empty(dp, dtype=np.int64)
    path_xl = np.empty(dp, dtype=np.int64)
    path_prev = np.empty(dp, dtype=np.int64)
    state = np.zeros(p, dtype=np.int8)  # 0 free, 1 in A (from x), 2 in B (from b)
    acc_pos = np.zeros((dp, n, n_out))
    acc_neg = np.zeros((dp, n, n_out))
    xbuf = np.empty(n * (max_depth + 3), dtype=np.int32)
    bbuf = np.empty(nb * (max_depth + 3), dtype=np.int32)
    largest = 0
    for t in range(n_trees):
        hi = roots[t + 1] if t + 1 < n_trees else kind.shape[0]
        largest = max(largest, hi - roots[t])
    bdir = np.zeros((largest, nb), dtype=np.uint8)
    xdir = np.zeros((largest, n), dtype=np.uint8)
    for t in range(n_trees):
        lo = roots[t]
        hi = roots[t + 1] if t + 1 < n_trees else kind.shape[0]
        _directions(Bg, lo, hi, feature, kind, thr, missing_left, cat_left, cat_known, bitsets, bdir)
        _directions(X, lo, hi, feature, kind, thr, missing_left, cat_left, cat_known, bitsets, xdir)
        out_col = tree_out[t]
        c0 = 0 if out_col < 0 else out_col
        c1 = n_out if out_col < 0 else out_col + 1
        for r in range(n):
            xbuf[r] = r
        for r in range(nb):
            bbuf[r] = r
        n_a = 0
        n_b = 0
        depth = 0
        last_c = -1
        s_node[0] = lo
        s_depth[0] = 0
        s_feat[0] = -1
        s_side[0] = 0
        s_xs[0] = 0
        s_xl[0] = n
        s_bs[0] = 0
        s_bl[0] = nb
        s_xtop[0] = n
        s_btop[0] = nb
        top = 1
        while top >= 0:
            # Unwind to the popped state's depth (to 0 once the stack is empty): pay each
            # constrained entry's collected credit to its feature, hand it to the entry above.
            d = s_depth[top - 1] if top > 0 else 0
            while depth > d:
                depth -= 1
                sd = path_side[depth]
                if sd != 0:
                    fk = path_feat[depth]
                    prev = path_prev[depth]
                    for q in range(path_xs[depth], path_xs[depth] + path_xl[depth]):
                        x = xbuf[q]
                        for c in range(c0, c1):
                            if sd == 1:
                                phi[x, fk, c] += acc_pos[depth, x, c]
                            else:
                                phi[x, fk, c] -= acc_neg[depth, x, c]
                            if prev >= 0:
                                acc_pos[prev, x, c] += acc_pos[depth, x, c]
                                acc_neg[prev, x, c] += acc_neg[depth, x, c]
                            acc_pos[depth, x, c] = 0.0
                            acc_neg[depth, x, c] = 0.0
                    state[fk] = 0
                    if sd == 1:
                        n_a -= 1
                    else:
                        n_b -= 1
                    last_c = prev
            if top == 0:
                break
            top -= 1
            nd = s_node[top]
            sd = s_side[top]
            xs = s_xs[top]
            xl = s_xl[top]
            bs = s_bs[top]
            bl = s_bl[top]
            xtop = s_xtop[top]
            btop = s_btop[top]
            path_feat[d] = s_feat[top]
            path_side[d] = sd
            path_xs[d] = xs
            path_xl[d] = xl
            depth = d + 1
            if sd != 0:
                path_prev[d] = last_c
                last_c = d
                state[s_feat[top]] = sd
                if sd == 1:
                    n_a += 1
                else:
                    n_b += 1
            if kind[nd] < 0:
                if n_a + n_b == 0:
                    continue  # these pairs share the leaf: their games are flat here
                wp = pos[n_a, n_b] * bl
                wn = neg[n_a, n_b] * bl
                for c in range(c0, c1):
                    v = value[nd, 0 if out_col >= 0 else c]
                    for q in range(xs, xs + xl):
                        x = xbuf[q]
                        acc_pos[last_c, x, c] += wp * v
                        acc_neg[last_c, x, c] += wn * v
                continue
            f = feature[nd]
            st = state[f]
            ln = nd - lo
            ld = left[nd]
            rd = right[nd]
            if st == 1:  # the explained rows route
                nl = _split(xbuf, xs, xl, xtop, xdir, ln)
                ntop = xtop + xl
                for h in range(2):
                    cx = xtop if h == 0 else xtop + nl
                    cl = nl if h == 0 else xl - nl
                    if cl == 0:
                        continue
                    s_node[top] = ld if h == 0 else rd
                    s_depth[top] = d + 1
                    s_feat[top] = -1
                    s_side[top] = 0
                    s_xs[top] = cx
                    s_xl[top] = cl
                    s_bs[top] = bs
                    s_bl[top] = bl
                    s_xtop[top] = ntop
                    s_btop[top] = btop
                    top += 1
                continue
            if st == 2:  # the background rows route
                nl = _split(bbuf, bs, bl, btop, bdir, ln)
                ntop = btop + bl
                for h in range(2):
                    cb = btop if h == 0 else btop + nl
                    cl = nl if h == 0 else bl - nl
                    if cl == 0:
                        continue
                    s_node[top] = ld if h == 0 else rd
                    s_depth[top] = d + 1
                    s_feat[top] = -1
                    s_side[top] = 0
                    s_xs[top] = xs
                    s_xl[top] = xl
                    s_bs[top] = cb
                    s_bl[top] = cl
                    s_xtop[top] = xtop
                    s_btop[top] = ntop
                    top += 1
                continue
            xnl = _split(xbuf, xs, xl, xtop, xdir, ln)
            bnl = _split(bbuf, bs, bl, btop, bdir, ln)
            nxt = xtop + xl
            nbt = btop + bl
            # Blocks: x left/right (a = 0/1) × b left/right (b = 0/1).
            for a in range(2):
                cx = xtop if a == 0 else xtop + xnl
                cxl = xnl if a == 0 else xl - xnl
                if cxl == 0:
                    continue
                for b in range(2):
                    cb = btop if b == 0 else btop + bnl
                    cbl = bnl if b == 0 else bl - bnl
                    if cbl == 0:
                        continue
                    if a == b:  # agree: the common child, no constraint
                        s_node[top] = ld if a == 0 else rd
                        s_depth[top] = d + 1
                        s_feat[top] = -1
                        s_side[top] = 0
                        s_xs[top] = cx
                        s_xl[top] = cxl
                        s_bs[top] = cb
                        s_bl[top] = cbl
                        s_xtop[top] = nxt
                        s_btop[top] = nbt
                        top += 1
                        continue
                    for side in range(1, 3):  # x's child with f in A, b's child with f in B
                        goes = a if side == 1 else b
                        s_node[top] = ld if goes == 0 else rd
                        s_depth[top] = d + 1
                        s_feat[top] = f
                        s_side[top] = side
                        s_xs[top] = cx
                        s_xl[top] = cxl
                        s_bs[top] = cb
                        s_bl[top] = cbl
                        s_xtop[top] = nxt
                        s_btop[top] = nbt
                        top += 1
    return phi


@njit(cache=True, nogil=True)
def background_directions(Bg, feature, kind, thr, missing_left, cat_left, cat_known, bitsets):
    """uint8 (N, B): 1 when background row b goes left at node nd (every node of the forest)."""
    out = np.zeros((kind.shape[0], Bg.shape[0]), dtype=np.uint8)
    _directions(Bg, 0, kind.shape[0], feature, kind, thr, missing_left, cat_left, cat_known, bitsets, out)
    return out


_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.array([0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4, 62, 55, 59, 36, 53, 51, 43, 22,
                            45, 39, 33, 30, 24, 18, 12, 5, 63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23,
                            11, 46, 26, 40, 15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6], dtype=np.int64)


@njit(cache=True, nogil=True)
def _popcount(v):
    v = v - ((v >> np.uint64(1)) & _M1)
    v = (v & _M2) + ((v >> np.uint64(2)) & _M2)
    v = (v + (v >> np.uint64(4))) & _M4
    return np.int64((v * _H01) >> np.uint64(56))


@njit(cache=True, nogil=True)
def background_bits(bdir):
    """uint64 (N, W), W = ⌈B/64⌉: bit b of word b // 64 is 1 when background row b goes left at the node."""
    n_nodes, nb = bdir.shape
    w = (nb + 63) // 64
    out = np.zeros((n_nodes, w), dtype=np.uint64)
    for nd in range(n_nodes):
        for b in range(nb):
            if bdir[nd, b]:
                out[nd, b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    return out


@njit(cache=True, nogil=True)
def ones_mask(n_words):
    """One group holding every bit of ``n_words`` words: :func:`_walk_coalition`'s sum over all background rows."""
    out = np.empty((1, n_words), dtype=np.uint64)
    for k in range(n_words):
        out[0, k] = ~np.uint64(0)
    return out


@njit(cache=True, nogil=True)
def _walk_coalition(x, m, bbits, full, gmask, sets, nodes, val, root, out_col, per_b, feature, kind, thr, left, right,
                    missing_left, cat_left, cat_known, bitsets, value, n_out):
    """One tree, one row: val[g] = Σ_{b in group g} tree(x_S, b_S̄) for the groups' bitsets ``gmask`` (G, W) -- one
    group of every bit (``ones_mask``) for the sum over all background rows -- or, with ``per_b``,
    val[b] = tree(x_S, b_S̄).

    The background rows reaching a node are a bitset (``sets[k]``, W words); ``m[f]`` is 1 for
    the columns of S. ``nodes``/``sets`` are the stack. A leaf adds its value times the count of
    each group's rows reaching it (a popcount per group and word).
    """
    n_words = full.shape[0]
    # A tree of one output (out_col >= 0) writes that column only: the others stay 0 from the
    # previous walk and are not read (coalition_kernel adds column out_col alone).
    if out_col >= 0:
        for b in range(val.shape[0]):
            val[b, out_col] = 0.0
    else:
        for b in range(val.shape[0]):
            for c in range(n_out):
                val[b, c] = 0.0
    nodes[0] = root
    for k in range(n_words):
        sets[0, k] = full[k]
    top = 1
    while top > 0:
        top -= 1
        nd = nodes[top]
        if kind[nd] < 0:
            if per_b:
                for k in range(n_words):
                    word = sets[top, k]
                    while word != 0:
                        low = word & (~word + np.uint64(1))
                        b = (k << 6) + _DEBRUIJN_INDEX[(low * _DEBRUIJN) >> np.uint64(58)]
                        word ^= low
                        if out_col >= 0:
                            val[b, out_col] += value[nd, 0]
                        else:
                            for c in range(n_out):
                                val[b, c] += value[nd, c]
            else:
                for g in range(gmask.shape[0]):
                    cnt = 0
                    for k in range(n_words):
                        cnt += _popcount(sets[top, k] & gmask[g, k])
                    if cnt == 0:
                        continue
                    if out_col >= 0:
                        val[g, out_col] += value[nd, 0] * cnt
                    else:
                        for c in range(n_out):
                            val[g, c] += value[nd, c] * cnt
            continue
        f = feature[nd]
        if m[f]:
            go = _go_left(x[f], nd, kind, thr, missing_left, cat_left, cat_known, bitsets)
            nodes[top] = left[nd] if go else right[nd]
            top += 1  # the same background rows
            continue
        any_l = False
        any_r = False
        for k in range(n_words):
            s = sets[top, k]
            lw = s & bbits[nd, k]
            rw = s & ~bbits[nd, k]
            sets[top, k] = lw
            sets[top + 1, k] = rw
            any_l = any_l or lw != 0
            any_r = any_r or rw != 0
        if any_l and any_r:
            nodes[top] = left[nd]
            nodes[top + 1] = right[nd]
            top += 2
        elif any_l:
            nodes[top] = left[nd]
            top += 1
        else:
            for k in range(n_words):
                sets[top, k] = sets[top + 1, k]
            nodes[top] = right[nd]
            top += 1


@njit(cache=True, nogil=True)
def coalition_changes(rows, keys, M):
    """The columns in which query i's coalition differs from query i−1's, as a flat list
    ``changed[start[i]:start[i+1]]``, for the queries that repeat the previous query's row and key (``same_row[i]``
    1); ``same_row[i]`` 0: another row (or another sample's background), walk every tree. (A (q, p) table would not
    fit wide data.) Returns ``(same_row, start, changed)``."""
    q, p = M.shape
    same_row = np.zeros(q, dtype=np.uint8)
    start = np.zeros(q + 1, dtype=np.int64)
    for i in range(1, q):
        k = 0
        if rows[i] == rows[i - 1] and keys[i] == keys[i - 1]:
            same_row[i] = 1
            for j in range(p):
                if M[i, j] != M[i - 1, j]:
                    k += 1
        start[i + 1] = start[i] + k
    changed = np.empty(start[q], dtype=np.int64)
    for i in range(1, q):
        k = start[i]
        if same_row[i]:
            for j in range(p):
                if M[i, j] != M[i - 1, j]:
                    changed[k] = j
                    k += 1
    return same_row, start, changed


@njit(cache=True, nogil=True)
def coalition_kernel(X, rows, M, bbits, nb, uses, per_b, roots, feature, kind, thr, left, right, missing_left,
                     cat_left, cat_known, bitsets, value, tree_out, n_out, max_depth):
    """Raw scores of the hybrid rows (x_{rows[i], S_i}, b_S̄_i) summed over the background rows b.

    Parameters
    ----------
    X : float64 (n, p)
        All rows in the model's encoding.
    rows : int64 (q,)
        Row of X of each query.
    M : uint8 (q, p)
        1 where query i's coalition S_i keeps x's value, 0 where the background row's is used.
    bbits : uint64 (N, W)
        :func:`background_bits` of the background rows' directions.
    nb : int
        B, the number of background rows.
    uses : uint8 (T, p)
        1 when tree t splits on column j.
    per_b : bool
        Keep one raw score per background row (for an output that is not affine in the raw
        score: the mean of its outputs is not the output of the mean).

    Returns
    -------
    float64 (q, B, n_out) with ``per_b``, else (q, 1, n_out)
        Sums of the trees' values without the model's intercept and link; with ``per_b`` each
        background row's own raw score, else their sum over the background rows.

    Notes
    -----
    One walk per (query, tree) carries the set of background rows reaching each node as a
    bitset: a split on a column of S sends the whole set x's way, any other split divides it
    by the rows' directions (one AND per 64 rows), and a leaf adds its value times the set's
    size (or to each of its rows with ``per_b``). A tree's share depends on S only through the
    columns the tree splits on: when query i has the row of query i−1 and its coalition
    differs only in columns the tree never splits on -- along a SAGE ordering the coalitions
    grow one player at a time -- the tree's share of query i−1 is added again instead of
    walked. Trees are the outer loop (a tree's nodes stay in cache) and each query adds the
    trees' shares in tree order, so its score is the same number whether a share was walked
    or kept, whatever the queries around it.
    """
    q, p = M.shape
    n_trees = roots.shape[0]
    nbo = nb if per_b else 1
    out = np.zeros((q, nbo, n_out))
    if q == 0 or nb == 0:
        return out
    n_words = bbits.shape[1]
    full = np.zeros(n_words, dtype=np.uint64)
    for b in range(nb):
        full[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    same_row, start, changed = coalition_changes(rows, np.zeros(q, dtype=np.int64), M)
    cap = 2 * (max_depth + 3)
    nodes = np.empty(cap, dtype=np.int64)
    sets = np.empty((cap, n_words), dtype=np.uint64)
    ones = ones_mask(n_words)   # one group of every background row: the sum over all of them
    val = np.zeros((nbo, n_out))
    # Every tree has one output (a boosted multi-class model: one tree per class): each adds to
    # its own column only, into a class-major array (a tree's adds are contiguous over queries
    # and background rows). Adding the other columns' zeros into (q, B, classes) cost
    # O(B x classes) per query and tree -- 100 classes, 32 background rows: 70% of SAGE's time --
    # and the strided adds most of the rest. Each cell still sums the same trees in tree order
    # from 0: the same numbers.
    one = n_out > 1
    for t in range(n_trees):
        if tree_out[t] < 0:
            one = False
    acc = np.zeros((n_out if one else 0, q, nbo))
    # (a one-output tree walks into a one-column buffer: its B values side by side)
    val1 = np.zeros((nbo, 1))
    for t in range(n_trees):
        root = roots[t]
        out_col = tree_out[t]
        for i in range(q):
            walk = same_row[i] == 0
            if not walk:
                for k in range(start[i], start[i + 1]):
                    if uses[t, changed[k]]:
                        walk = True
                        break
            if walk and one:
                _walk_coalition(X[rows[i]], M[i], bbits, full, ones, sets, nodes, val1, root, 0, per_b, feature,
                                kind, thr, left, right, missing_left, cat_left, cat_known, bitsets, value, 1)
            elif walk:
                _walk_coalition(X[rows[i]], M[i], bbits, full, ones, sets, nodes, val, root, out_col, per_b,
                                feature, kind, thr, left, right, missing_left, cat_left, cat_known, bitsets, value,
                                n_out)
            if one:
                for b in range(nbo):
                    acc[out_col, i, b] += val1[b, 0]
            elif out_col >= 0:  # (val's other columns are stale: _walk_coalition zeroes out_col only)
                for b in range(nbo):
                    out[i, b, out_col] += val[b, out_col]
            else:
                for b in range(nbo):
                    for c in range(n_out):
                        out[i, b, c] += val[b, c]
    if one:
        for c in range(n_out):
            for i in range(q):
                for b in range(nbo):
                    out[i, b, c] = acc[c, i, b]
    return out


@njit(cache=True, nogil=True)
def all_coalitions_kernel(x, bdir, player, m, roots, feature, kind, thr, left, right, missing_left, cat_left,
                          cat_known, bitsets, value, tree_out, n_out, max_depth):
    """Raw scores of the hybrid rows (x_S, b_S̄) of one row x for every coalition S of m players.

    Parameters
    ----------
    x : float64 (p,)
        The row in the model's encoding.
    bdir : bool (N, B)
        :func:`background_directions`: background row b goes left at node N.
    player : int64 (p,)
        Player (0..m−1) of each encoded column, −1 for a column no player holds (always the
        background row's value).
    m : int
        Players; coalition S is the integer Σ_{k∈S} 2^k.

    Returns
    -------
    float64 (2^m, B, n_out)
        Each cell the sum of the trees' values in tree order from 0, without the intercept
        and link -- the numbers :func:`coalition_kernel` gives with ``per_b`` for the same
        (row, coalition).

    Notes
    -----
    One walk per (background row, tree) instead of one per (coalition, tree): the walk follows
    x and b together and branches only at a split where they go different ways on a player
    not yet fixed (one branch puts the player in S, the other out). A leaf reached with the
    players ``ins`` in S and ``outs`` out of it holds for every coalition S ⊇ ins with
    S ∩ outs = ∅, and its value is added to each of them: per (row, b, tree) 2^m adds in all
    (the leaves partition the coalitions), a walk of at most depth branches.
    """
    nb = bdir.shape[1]
    n_s = 1 << m
    # class-major (n_out, B, 2^m): a leaf's adds stay within one (class, b) run of 2^m cells (strided adds into
    # (2^m, B, n_out) cost 2.5x); transposed at the end.
    acc = np.zeros((n_out, nb, n_s))
    cap = 2 * (max_depth + 3)
    nodes = np.empty(cap, dtype=np.int64)
    ins = np.empty(cap, dtype=np.int64)
    outs = np.empty(cap, dtype=np.int64)
    every = n_s - 1
    for t in range(roots.shape[0]):
        oc = tree_out[t]
        for b in range(nb):
            nodes[0] = roots[t]
            ins[0] = 0
            outs[0] = 0
            top = 1
            while top > 0:
                top -= 1
                nd = nodes[top]
                i_m = ins[top]
                o_m = outs[top]
                if kind[nd] < 0:
                    free = every & ~(i_m | o_m)
                    sub = free
                    while True:
                        s = i_m | sub
                        if oc >= 0:
                            acc[oc, b, s] += value[nd, 0]
                        else:
                            for c in range(n_out):
                                acc[c, b, s] += value[nd, c]
                        if sub == 0:
                            break
                        sub = (sub - 1) & free
                    continue
                f = feature[nd]
                xl = _go_left(x[f], nd, kind, thr, missing_left, cat_left, cat_known, bitsets)
                bl = bdir[nd, b] != 0
                k = player[f]
                if k < 0:
                    nodes[top] = left[nd] if bl else right[nd]
                    top += 1
                    continue
                if xl == bl:
                    nodes[top] = left[nd] if xl else right[nd]
                    top += 1
                    continue
                bit = np.int64(1) << np.int64(k)
                if i_m & bit:
                    nodes[top] = left[nd] if xl else right[nd]
                    top += 1
                elif o_m & bit:
                    nodes[top] = left[nd] if bl else right[nd]
                    top += 1
                else:
                    nodes[top] = left[nd] if xl else right[nd]
                    ins[top] = i_m | bit
                    outs[top] = o_m
                    nodes[top + 1] = left[nd] if bl else right[nd]
                    ins[top + 1] = i_m
                    outs[top + 1] = o_m | bit
                    top += 2
    out = np.empty((n_s, nb, n_out))
    for c in range(n_out):
        for b in range(nb):
            for s in range(n_s):
                out[s, b, c] = acc[c, b, s]
    return out
