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

The node arrays are those of the tree engine (:mod:`._adapters`, :func:`._kernels.as_kernel_args`),
routed by the engine's own ``_go_left``, so every split kind (numeric, NaN direction,
category sets, LightGBM's zero-as-missing) means here what it means for prediction.
"""
from __future__ import annotations

import math

import numpy as np

from .._numba import njit
from ._kernels import _go_left

__all__ = ["shapley_weights", "interventional_kernel", "coalition_mean_kernel", "background_directions"]


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


@njit(cache=True, nogil=True)
def coalition_mean_kernel(X, M, bdir, roots, feature, kind, thr, left, right, missing_left, cat_left, cat_known,
                          bitsets, value, tree_out, n_out, max_depth):
    """Mean raw score over the background of the hybrid rows: 1/B Σ_b raw(x_i,S_i, b_S̄_i).

    Parameters
    ----------
    X : float64 (q, p)
        Rows in the model's encoding.
    M : uint8 (q, p)
        1 where row i's coalition S_i keeps x's value, 0 where the background row's is used.
    bdir : uint8 (N, B)
        :func:`background_directions` of the background rows (computed once per background).

    Returns
    -------
    float64 (q, n_out)
        Without the model's intercept and link.

    Notes
    -----
    One walk per (row, tree) carries the set of background rows reaching each node: a split
    on a feature in S_i sends the whole set x's way, any other split divides it by the rows'
    own directions; a leaf adds v·|set|. The cost is that of the nodes reached plus one pass
    over the set per split outside S_i, instead of B walks.
    """
    q, p = X.shape
    nb = bdir.shape[1]
    n_trees = roots.shape[0]
    out = np.zeros((q, n_out))
    if q == 0 or nb == 0:
        return out
    cap = 2 * (max_depth + 3)
    s_node = np.empty(cap, dtype=np.int64)
    s_start = np.empty(cap, dtype=np.int64)
    s_len = np.empty(cap, dtype=np.int64)
    s_top = np.empty(cap, dtype=np.int64)
    buf = np.empty(nb * (max_depth + 3), dtype=np.int32)
    for r in range(nb):
        buf[r] = r
    for t in range(n_trees):
        out_col = tree_out[t]
        for i in range(q):
            s_node[0] = roots[t]
            s_start[0] = 0
            s_len[0] = nb
            s_top[0] = nb
            top = 1
            while top > 0:
                top -= 1
                nd = s_node[top]
                r0 = s_start[top]
                rn = s_len[top]
                btop = s_top[top]
                if kind[nd] < 0:
                    if out_col >= 0:
                        out[i, out_col] += value[nd, 0] * rn
                    else:
                        for c in range(n_out):
                            out[i, c] += value[nd, c] * rn
                    continue
                f = feature[nd]
                if M[i, f]:
                    go = _go_left(X[i, f], nd, kind, thr, missing_left, cat_left, cat_known, bitsets)
                    s_node[top] = left[nd] if go else right[nd]
                    top += 1  # same rows, same buffer top
                    continue
                nl = _split(buf, r0, rn, btop, bdir, nd)
                if nl > 0:
                    s_node[top] = left[nd]
                    s_start[top] = btop
                    s_len[top] = nl
                    s_top[top] = btop + rn
                    top += 1
                if rn - nl > 0:
                    s_node[top] = right[nd]
                    s_start[top] = btop + nl
                    s_len[top] = rn - nl
                    s_top[top] = btop + rn
                    top += 1
    return out / nb
