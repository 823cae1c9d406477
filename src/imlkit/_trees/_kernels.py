"""numba kernels of the tree engine: every row with one feature "free" over a grid.

One kernel serves ICE/PD, PFI and plain prediction. For row i and tree t the traversal
carries, instead of a single node, a *set* of grid points: because the grid of row i is
sorted (NaN last), the points that reach a node form a range ``[lo, hi)`` plus possibly the
NaN point. A split on another feature moves the whole set; a numeric split ``x_j <= s`` on
the free feature cuts the range at the first grid value above ``s``; any other split on the
free feature (a category set, LightGBM's zero-as-missing) sends each point its own way, and
consecutive points going the same way stay one range. A leaf adds its value to the range
through a difference array (``+v`` at ``lo``, ``-v`` at ``hi``), so after all trees one
running sum per row gives the whole curve. The work per tree and row is one root-to-leaf
walk plus one walk per extra leaf reached, not one per grid point.

Trees are the outer loop: a tree's nodes stay in cache while all rows pass through it.

A node's kinds: -1 leaf, 0 numeric ``x <= threshold`` (NaN by ``missing_left``), 1 category
set (scikit-learn HGB / LightGBM semantics, see :func:`_go_left`), 2 numeric with zero as
missing (LightGBM ``missing_type=Zero``), 3 category set with XGBoost's semantics (codes in the
set left, every other code right, NaN by ``missing_left``).

The kernels have one signature each (all arrays are passed with fixed dtypes and C order),
compiled once and cached on disk (``cache=True``).
"""
from __future__ import annotations

import math

import numpy as np

from .._numba import njit  # numba.njit, with a cache that falls back when the package is read-only

#: LightGBM's kZeroThreshold: |x| <= this counts as zero.
ZERO_THRESHOLD = 1e-35


@njit(cache=True, nogil=True)
def _go_left(x, nd, kind, thr, missing_left, cat_left, cat_known, bitsets):
    if math.isnan(x):
        return missing_left[nd] != 0
    k = kind[nd]
    if k == 0:
        return x <= thr[nd]
    if k == 2:
        if abs(x) <= ZERO_THRESHOLD:
            return missing_left[nd] != 0
        return x <= thr[nd]
    if k == 3:  # XGBoost category set: the set goes left, any other code right (NaN: above)
        if x < 0 or x >= bitsets.shape[1] * 32:
            return False
        c = int(x)
        return (bitsets[cat_left[nd], c >> 5] >> (c & 31)) & 1 != 0
    # Category set: codes outside the bitset are missing; a known category that is not in
    # the left set goes right; an unknown one (cat_known >= 0 and bit unset) is missing.
    if x < 0 or x >= bitsets.shape[1] * 32:
        return missing_left[nd] != 0
    c = int(x)
    w = c >> 5
    b = c & 31
    if (bitsets[cat_left[nd], w] >> b) & 1:
        return True
    if cat_known[nd] < 0 or (bitsets[cat_known[nd], w] >> b) & 1:
        return False
    return missing_left[nd] != 0


@njit(cache=True, nogil=True)
def _go_left_cat(x, missing_left, cat_left, cat_known, bitsets):
    """:func:`_go_left` of a category-set node (kind 1) from the node's own entries: the same
    decision without passing six arrays (a call per decision cost 2.5x the decision)."""
    if math.isnan(x) or x < 0 or x >= bitsets.shape[1] * 32:
        return missing_left
    c = int(x)
    w = c >> 5
    b = c & 31
    if (bitsets[cat_left, w] >> b) & 1:
        return True
    if cat_known < 0 or (bitsets[cat_known, w] >> b) & 1:
        return False
    return missing_left


@njit(cache=True, nogil=True)
def free_kernel(X, j, G, cnt, trees, w, block, roots, feature, kind, thr, left, right, missing_left, cat_left,
                cat_known, bitsets, value, tree_out, n_out, max_depth):
    """Sum of the trees' leaf values for every row and grid point.

    Parameters
    ----------
    X : float64 (n, p)
        Rows in the model's encoding.
    j : int
        The free feature (a column of X); -1 for none (plain prediction).
    G : float64 (n_g, m)
        Grid per row (n_g = n) or shared (n_g = 1), ascending with NaN last.
    cnt : int64 (n_g,)
        Number of non-NaN values in each grid row.
    trees : int64 (T',)
        The trees to walk (their numbers, ascending): the others add nothing.
    w : float64 (n,) or (0,)
        Row weights: the result is the weighted sum over the rows, shape (1, m, n_out) (a shared
        grid only); an empty array gives every row's scores.
    block : int
        Rows per block: all trees walk one block of rows before the next, so that the block's
        rows, grids and difference arrays stay in cache while the trees pass over them.
    roots : int64 (T,)
        First node of each tree in the flat node arrays.
    value : float64 (N, V)
        Leaf values: V = 1 with ``tree_out[t]`` the output column of tree t, or V = n_out
        with ``tree_out[t] = -1`` (the leaf holds a value for every output).

    Returns
    -------
    float64 (n, m, n_out), or (1, m, n_out) with weights
        Raw scores without the model's intercept and link.
    """
    n = X.shape[0]
    m = G.shape[1]
    shared = G.shape[0] == 1
    mean = w.shape[0] > 0
    n_acc = 1 if mean else n
    diff = np.zeros((n_acc, m + 1, n_out))
    nan_acc = np.zeros((n_acc, n_out))
    cap = (max_depth + 2) * (m + 2)
    s_node = np.empty(cap, dtype=np.int64)
    s_lo = np.empty(cap, dtype=np.int64)
    s_hi = np.empty(cap, dtype=np.int64)
    s_nan = np.empty(cap, dtype=np.uint8)
    for b0 in range(0, n, max(block, 1)):
        b1 = min(n, b0 + max(block, 1))
        for ti in range(trees.shape[0]):
            t = trees[ti]
            out_col = tree_out[t]
            for i in range(b0, b1):
                gi = 0 if shared else i
                r = 0 if mean else i
                wi = w[i] if mean else 1.0
                c = cnt[gi]
                top = 0
                s_node[0] = roots[t]
                s_lo[0] = 0
                s_hi[0] = c
                s_nan[0] = 1 if c < m else 0
                top = 1
                while top > 0:
                    top -= 1
                    nd = s_node[top]
                    lo = s_lo[top]
                    hi = s_hi[top]
                    has_nan = s_nan[top]
                    while True:
                        kd = kind[nd]
                        if kd < 0:
                            if out_col >= 0:
                                v = wi * value[nd, 0]
                                diff[r, lo, out_col] += v
                                diff[r, hi, out_col] -= v
                                if has_nan:
                                    nan_acc[r, out_col] += v
                            else:
                                for k in range(n_out):
                                    v = wi * value[nd, k]
                                    diff[r, lo, k] += v
                                    diff[r, hi, k] -= v
                                    if has_nan:
                                        nan_acc[r, k] += v
                            break
                        f = feature[nd]
                        if f != j:
                            x = X[i, f]
                            if kd == 0:  # the common case, inlined
                                if x <= thr[nd] or math.isnan(x) and missing_left[nd] != 0:
                                    nd = left[nd]
                                else:
                                    nd = right[nd]
                            elif kd == 1:
                                if _go_left_cat(x, missing_left[nd] != 0, cat_left[nd], cat_known[nd], bitsets):
                                    nd = left[nd]
                                else:
                                    nd = right[nd]
                            elif _go_left(x, nd, kind, thr, missing_left, cat_left, cat_known, bitsets):
                                nd = left[nd]
                            else:
                                nd = right[nd]
                            continue
                        # A split on the free feature: divide the set of grid points.
                        nan_left = missing_left[nd] != 0
                        if kd == 0:
                            s = thr[nd]
                            k = lo
                            while k < hi and G[gi, k] <= s:
                                k += 1
                            # left gets [lo, k), right [k, hi); the NaN point follows missing_left
                            l_any = k > lo or (has_nan and nan_left)
                            r_any = hi > k or (has_nan and not nan_left)
                            if l_any and r_any:
                                s_node[top] = right[nd]
                                s_lo[top] = k
                                s_hi[top] = hi
                                s_nan[top] = 1 if (has_nan and not nan_left) else 0
                                top += 1
                                hi = k
                                has_nan = 1 if (has_nan and nan_left) else 0
                                nd = left[nd]
                            elif l_any:
                                nd = left[nd]
                            else:
                                nd = right[nd]
                            continue
                        # Any other split: each point its own way, runs of equal direction together.
                        if has_nan:
                            s_node[top] = left[nd] if nan_left else right[nd]
                            s_lo[top] = 0
                            s_hi[top] = 0
                            s_nan[top] = 1
                            top += 1
                        k = lo
                        ml = missing_left[nd] != 0
                        cl = cat_left[nd]
                        ck = cat_known[nd]
                        while k < hi:
                            if kd == 1:
                                d = _go_left_cat(G[gi, k], ml, cl, ck, bitsets)
                            else:
                                d = _go_left(G[gi, k], nd, kind, thr, missing_left, cat_left, cat_known, bitsets)
                            e = k + 1
                            while e < hi:
                                if kd == 1:
                                    de = _go_left_cat(G[gi, e], ml, cl, ck, bitsets)
                                else:
                                    de = _go_left(G[gi, e], nd, kind, thr, missing_left, cat_left, cat_known,
                                                  bitsets)
                                if de != d:
                                    break
                                e += 1
                            s_node[top] = left[nd] if d else right[nd]
                            s_lo[top] = k
                            s_hi[top] = e
                            s_nan[top] = 0
                            top += 1
                            k = e
                        break
    out = np.empty((n_acc, m, n_out))
    for i in range(n_acc):
        gi = 0 if shared else i
        c = cnt[gi]
        for k in range(n_out):
            run = 0.0
            for q in range(c):
                run += diff[i, q, k]
                out[i, q, k] = run
            for q in range(c, m):
                out[i, q, k] = nan_acc[i, k]
    return out


def as_kernel_args(forest):
    """The flat arrays of a forest in the dtypes and order the kernel was compiled for."""
    return (np.ascontiguousarray(forest.roots, dtype=np.int64),
            np.ascontiguousarray(forest.feature, dtype=np.int64),
            np.ascontiguousarray(forest.kind, dtype=np.int8),
            np.ascontiguousarray(forest.threshold, dtype=np.float64),
            np.ascontiguousarray(forest.left, dtype=np.int64),
            np.ascontiguousarray(forest.right, dtype=np.int64),
            np.ascontiguousarray(forest.missing_left, dtype=np.uint8),
            np.ascontiguousarray(forest.cat_left, dtype=np.int64),
            np.ascontiguousarray(forest.cat_known, dtype=np.int64),
            np.ascontiguousarray(forest.bitsets, dtype=np.uint32),
            np.ascontiguousarray(forest.value, dtype=np.float64),
            np.ascontiguousarray(forest.tree_out, dtype=np.int64),
            int(forest.n_out), int(forest.max_depth))


# --------------------------------------------------------------------------- two free features
#
# With two free features j1, j2 over a product grid G1 × G2 (each axis sorted, distinct, NaN
# last), the grid points of row i that reach a node form a product of two per-axis sets, each
# a range [lo, hi) of the non-NaN values plus possibly the NaN point: a split on j1 (or j2)
# cuts only that axis exactly as in the one-feature kernel, any other split moves the whole
# product. A leaf adds its value to (up to four) rectangles of a 2-D difference array; one 2-D
# running sum then gives every grid point. With weights the rows share one difference array
# (the weighted mean of the raw scores, what a PD needs when the model's link is linear);
# without, each row of a block has its own (:func:`free2_kernel`). A row's own array costs
# (m1 + 1)(m2 + 1) cells to sum, whatever the number u of points wanted: the H-statistic's pairs
# want u <= n' points of a grid of up to n'² cells. :func:`free2_rows_kernel` keeps instead each
# row's rectangles' corners (a few per leaf reached) and sums, for each wanted point, the corners
# at or below it in both axes: a sweep over the first axis with a Fenwick tree over the second,
# O((corners + u) log m2) per row.


@njit(cache=True, nogil=True)
def _rect(D, r, a0, a1, b0, b1, k, v):
    D[r, a0, b0, k] += v
    D[r, a1, b0, k] -= v
    D[r, a0, b1, k] -= v
    D[r, a1, b1, k] += v


@njit(cache=True, nogil=True)
def _leaf2(D, r, nd, lo0, hi0, nan0, lo1, hi1, nan1, c0, c1, w, out_col, value, n_out):
    k0 = 0 if out_col < 0 else out_col
    k1 = n_out if out_col < 0 else out_col + 1
    for k in range(k0, k1):
        v = w * value[nd, 0 if out_col >= 0 else k]
        if hi0 > lo0 and hi1 > lo1:
            _rect(D, r, lo0, hi0, lo1, hi1, k, v)
        if nan0 and hi1 > lo1:
            _rect(D, r, c0, c0 + 1, lo1, hi1, k, v)
        if hi0 > lo0 and nan1:
            _rect(D, r, lo0, hi0, c1, c1 + 1, k, v)
        if nan0 and nan1:
            _rect(D, r, c0, c0 + 1, c1, c1 + 1, k, v)


@njit(cache=True, nogil=True)
def _corner(K, V, nc, r, a, b, k, v, m1, n_out):
    K[nc, 0] = r * m1 + a
    K[nc, 1] = b * n_out + k
    V[nc] = v
    return nc + 1


@njit(cache=True, nogil=True)
def _rect_corners(K, V, nc, r, a0, a1, b0, b1, k, v, m1, m2, n_out):
    # a corner on the grid's far edge (index m1 or m2) lies beyond every point: left out
    nc = _corner(K, V, nc, r, a0, b0, k, v, m1, n_out)
    if a1 < m1:
        nc = _corner(K, V, nc, r, a1, b0, k, -v, m1, n_out)
    if b1 < m2:
        nc = _corner(K, V, nc, r, a0, b1, k, -v, m1, n_out)
        if a1 < m1:
            nc = _corner(K, V, nc, r, a1, b1, k, v, m1, n_out)
    return nc


@njit(cache=True, nogil=True)
def _leaf2_corners(K, V, nc, r, nd, lo0, hi0, nan0, lo1, hi1, nan1, c0, c1, m1, m2, out_col, value, n_out):
    k0 = 0 if out_col < 0 else out_col
    k1 = n_out if out_col < 0 else out_col + 1
    for k in range(k0, k1):
        v = value[nd, 0 if out_col >= 0 else k]
        if hi0 > lo0 and hi1 > lo1:
            nc = _rect_corners(K, V, nc, r, lo0, hi0, lo1, hi1, k, v, m1, m2, n_out)
        if nan0 and hi1 > lo1:
            nc = _rect_corners(K, V, nc, r, c0, c0 + 1, lo1, hi1, k, v, m1, m2, n_out)
        if hi0 > lo0 and nan1:
            nc = _rect_corners(K, V, nc, r, lo0, hi0, c1, c1 + 1, k, v, m1, m2, n_out)
        if nan0 and nan1:
            nc = _rect_corners(K, V, nc, r, c0, c0 + 1, c1, c1 + 1, k, v, m1, m2, n_out)
    return nc


@njit(cache=True, nogil=True)
def _nan_position(G):
    """Index of the NaN of an axis (its length when it has none)."""
    for q in range(G.shape[0]):
        if math.isnan(G[q]):
            return q
    return G.shape[0]


@njit(cache=True, nogil=True)
def _walk2(X, i0, i1, j1, G1, j2, G2, w, corners, D, K, V, roots, feature, kind, thr, left, right, missing_left,
           cat_left, cat_known, bitsets, value, tree_out, n_out, max_depth):
    """Rows i0..i1-1 of X through every tree with j1 and j2 free over G1 × G2.

    Without ``corners``: each leaf adds its value (times the row's weight ``w[i]``, or 1 for an
    empty ``w``) to the difference array ``D`` (row 0 with weights, row i without). With
    ``corners``: each leaf's rectangles' corners are written to ``K`` (row i - i0 and first-axis
    index as ``(i - i0)·m1 + a``, second-axis index and output as ``b·n_out + k``) and ``V`` (the
    signed value), corners on the far edges left out; the buffers grow as needed. Returns
    ``(K, V, number of corners)``.
    """
    m1 = G1.shape[0]
    m2 = G2.shape[0]
    c1 = _nan_position(G1)
    c2 = _nan_position(G2)
    mean = w.shape[0] > 0
    cap = min((m1 + 2) * (m2 + 2), (max_depth + 2) * (max(m1, m2) + 3)) + 4
    s_node = np.empty(cap, dtype=np.int64)
    s_lo = np.empty((cap, 2), dtype=np.int64)
    s_hi = np.empty((cap, 2), dtype=np.int64)
    s_nan = np.empty((cap, 2), dtype=np.uint8)
    lo = np.empty(2, dtype=np.int64)
    hi = np.empty(2, dtype=np.int64)
    hn = np.empty(2, dtype=np.uint8)
    # Corners of one walk, at most: its rectangles are disjoint and each holds a grid point (<= m1·m2 of them); with
    # only numeric splits on j1 and j2 a walk reaches each leaf at most once, and a leaf adds <= 4 rectangles (a
    # category split can send alternating runs of an axis to the same child, reaching a leaf many times). Checked
    # once per walk: a check per leaf made the walk (the difference arrays' too) ~35% slower.
    per_walk = 0
    if corners:
        numeric = True
        most = 0
        for nd in range(feature.shape[0]):
            if kind[nd] > 0 and (feature[nd] == j1 or feature[nd] == j2):
                numeric = False
        for t in range(roots.shape[0]):
            nodes = (roots[t + 1] if t + 1 < roots.shape[0] else feature.shape[0]) - roots[t]
            most = max(most, (nodes + 1) // 2)
        rects = m1 * m2 if not numeric else min(m1 * m2, 4 * most)
        per_walk = 4 * n_out * rects
    nc = 0
    for t in range(roots.shape[0]):
        out_col = tree_out[t]
        for i in range(i0, i1):
            r = 0 if mean else i
            wi = w[i] if mean else 1.0
            if corners and nc + per_walk > K.shape[0]:
                grown = max(2 * K.shape[0], nc + per_walk)
                K2 = np.empty((grown, 2), dtype=np.int64)
                V2 = np.empty(grown)
                K2[:nc] = K[:nc]
                V2[:nc] = V[:nc]
                K = K2
                V = V2
            s_node[0] = roots[t]
            s_lo[0, 0] = 0
            s_hi[0, 0] = c1
            s_nan[0, 0] = 1 if c1 < m1 else 0
            s_lo[0, 1] = 0
            s_hi[0, 1] = c2
            s_nan[0, 1] = 1 if c2 < m2 else 0
            top = 1
            while top > 0:
                top -= 1
                nd = s_node[top]
                for a in range(2):
                    lo[a] = s_lo[top, a]
                    hi[a] = s_hi[top, a]
                    hn[a] = s_nan[top, a]
                while True:
                    kd = kind[nd]
                    if kd < 0:
                        if corners:
                            nc = _leaf2_corners(K, V, nc, i - i0, nd, lo[0], hi[0], hn[0], lo[1], hi[1], hn[1], c1, c2,
                                                m1, m2, out_col, value, n_out)
                        else:
                            _leaf2(D, r, nd, lo[0], hi[0], hn[0], lo[1], hi[1], hn[1], c1, c2, wi, out_col, value,
                                   n_out)
                        break
                    f = feature[nd]
                    if f != j1 and f != j2:
                        x = X[i, f]
                        if kd == 0:  # inlined by hand, as in free_kernel: a shared helper (even with
                            # numba's inline="always") measured 2-3x slower on ICE/PD of HGB and forests
                            if x <= thr[nd] or math.isnan(x) and missing_left[nd] != 0:
                                nd = left[nd]
                            else:
                                nd = right[nd]
                        elif kd == 1:
                            if _go_left_cat(x, missing_left[nd] != 0, cat_left[nd], cat_known[nd], bitsets):
                                nd = left[nd]
                            else:
                                nd = right[nd]
                        elif _go_left(x, nd, kind, thr, missing_left, cat_left, cat_known, bitsets):
                            nd = left[nd]
                        else:
                            nd = right[nd]
                        continue
                    # A split on a free feature: cut that axis, the other one goes along.
                    ax = 0 if f == j1 else 1
                    G = G1 if ax == 0 else G2
                    alo = lo[ax]
                    ahi = hi[ax]
                    anan = hn[ax]
                    nan_left = missing_left[nd] != 0
                    if kd == 0:
                        s = thr[nd]
                        k = alo
                        while k < ahi and G[k] <= s:
                            k += 1
                        l_any = k > alo or (anan and nan_left)
                        r_any = ahi > k or (anan and not nan_left)
                        if l_any and r_any:
                            s_node[top] = right[nd]
                            for b in range(2):
                                s_lo[top, b] = lo[b]
                                s_hi[top, b] = hi[b]
                                s_nan[top, b] = hn[b]
                            s_lo[top, ax] = k
                            s_nan[top, ax] = 1 if (anan and not nan_left) else 0
                            top += 1
                            hi[ax] = k
                            hn[ax] = 1 if (anan and nan_left) else 0
                            nd = left[nd]
                        elif l_any:
                            nd = left[nd]
                        else:
                            nd = right[nd]
                        continue
                    # Any other split: each value its own way, runs of equal direction together.
                    if anan:
                        s_node[top] = left[nd] if nan_left else right[nd]
                        for b in range(2):
                            s_lo[top, b] = lo[b]
                            s_hi[top, b] = hi[b]
                            s_nan[top, b] = hn[b]
                        s_lo[top, ax] = 0
                        s_hi[top, ax] = 0
                        s_nan[top, ax] = 1
                        top += 1
                    k = alo
                    while k < ahi:
                        d = _go_left(G[k], nd, kind, thr, missing_left, cat_left, cat_known, bitsets)
                        e = k + 1
                        while e < ahi and _go_left(G[e], nd, kind, thr, missing_left, cat_left, cat_known,
                                                   bitsets) == d:
                            e += 1
                        s_node[top] = left[nd] if d else right[nd]
                        for b in range(2):
                            s_lo[top, b] = lo[b]
                            s_hi[top, b] = hi[b]
                            s_nan[top, b] = hn[b]
                        s_lo[top, ax] = k
                        s_hi[top, ax] = e
                        s_nan[top, ax] = 0
                        top += 1
                        k = e
                    break
    return K, V, nc


@njit(cache=True, nogil=True)
def free2_kernel(X, j1, G1, j2, G2, Q1, Q2, w, roots, feature, kind, thr, left, right, missing_left, cat_left,
                 cat_known, bitsets, value, tree_out, n_out, max_depth):
    """Sum of the trees' leaf values with features j1 and j2 free over the grid G1 × G2.

    Parameters
    ----------
    X : float64 (n, p)
        Rows in the model's encoding.
    j1, j2 : int
        The two free features (different columns of X).
    G1, G2 : float64 (m1,), (m2,)
        Each axis: distinct values, ascending, with at most one NaN, last.
    Q1, Q2 : int64 (u,)
        The grid points wanted: point q is (G1[Q1[q]], G2[Q2[q]]).
    w : float64 (n,) or (0,)
        Row weights: the result is the weighted sum over the rows, shape (1, u, n_out); an empty
        array gives every row's scores, shape (n, u, n_out).
    Other arrays : the forest (see :func:`free_kernel`).

    Returns
    -------
    float64 (n or 1, u, n_out)
        Raw scores without the model's intercept and link.
    """
    n = X.shape[0]
    m1 = G1.shape[0]
    m2 = G2.shape[0]
    u = Q1.shape[0]
    n_acc = 1 if w.shape[0] > 0 else n
    D = np.zeros((n_acc, m1 + 1, m2 + 1, n_out))
    _walk2(X, 0, n, j1, G1, j2, G2, w, False, D, np.empty((0, 2), dtype=np.int64), np.empty(0), roots, feature,
           kind, thr, left, right, missing_left, cat_left, cat_known, bitsets, value, tree_out, n_out, max_depth)
    # 2-D running sums, in place, then the wanted points.
    out = np.empty((n_acc, u, n_out))
    for r in range(n_acc):
        for k in range(n_out):
            for a in range(m1):
                for b in range(1, m2):
                    D[r, a, b, k] += D[r, a, b - 1, k]
            for a in range(1, m1):
                for b in range(m2):
                    D[r, a, b, k] += D[r, a - 1, b, k]
            for q in range(u):
                out[r, q, k] = D[r, Q1[q], Q2[q], k]
    return out


@njit(cache=True, nogil=True)
def free2_rows_kernel(X, j1, G1, j2, G2, Q1, Q2, block, roots, feature, kind, thr, left, right, missing_left,
                      cat_left, cat_known, bitsets, value, tree_out, n_out, max_depth):
    """Every row's sum of the trees' leaf values at u points of G1 × G2, from the leaves' corners.

    What :func:`free2_kernel` gives without weights, shape (n, u, n_out), for a cost that grows
    with the leaves reached and the points wanted rather than with the grid's m1·m2 cells (the
    sums are the same up to rounding: the same leaf values, added in another order). ``block``:
    rows walked (all trees) before their points are summed, so that their corners stay in cache.
    Other arguments as there.
    """
    n = X.shape[0]
    m1 = G1.shape[0]
    m2 = G2.shape[0]
    u = Q1.shape[0]
    block = max(block, 1)
    # the points by their first-axis index (a counting sort)
    q_start = np.zeros(m1 + 1, dtype=np.int64)
    for q in range(u):
        q_start[Q1[q] + 1] += 1
    for a in range(m1):
        q_start[a + 1] += q_start[a]
    q_fill = q_start[:-1].copy()
    q_order = np.empty(u, dtype=np.int64)
    for q in range(u):
        q_order[q_fill[Q1[q]]] = q
        q_fill[Q1[q]] += 1
    out = np.empty((n, u, n_out))
    fen = np.zeros((m2 + 1, n_out))  # Fenwick tree over the second axis (1-based)
    K = np.empty((0, 2), dtype=np.int64)
    V = np.empty(0)
    start = np.zeros(block * m1 + 1, dtype=np.int64)
    order = np.empty(0, dtype=np.int64)
    no_D = np.zeros((0, 1, 1, 1))
    for i0 in range(0, n, block):
        i1 = min(n, i0 + block)
        K, V, nc = _walk2(X, i0, i1, j1, G1, j2, G2, np.empty(0), True, no_D, K, V, roots, feature, kind, thr, left,
                          right, missing_left, cat_left, cat_known, bitsets, value, tree_out, n_out, max_depth)
        # the block's corners by (row, first-axis index): a counting sort
        keys = (i1 - i0) * m1
        start[:keys + 1] = 0
        for c in range(nc):
            start[K[c, 0] + 1] += 1
        for s in range(keys):
            start[s + 1] += start[s]
        if order.shape[0] < nc:
            order = np.empty(K.shape[0], dtype=np.int64)
        fill = start[:keys].copy()
        for c in range(nc):
            order[fill[K[c, 0]]] = c
            fill[K[c, 0]] += 1
        for r in range(i1 - i0):
            fen[:] = 0.0
            for a in range(m1):
                for s in range(start[r * m1 + a], start[r * m1 + a + 1]):
                    c = order[s]
                    b = K[c, 1] // n_out + 1
                    k = K[c, 1] - (b - 1) * n_out
                    v = V[c]
                    while b <= m2:
                        fen[b, k] += v
                        b += b & (-b)
                for s in range(q_start[a], q_start[a + 1]):
                    q = q_order[s]
                    for k in range(n_out):
                        b = Q2[q] + 1
                        acc = 0.0
                        while b > 0:
                            acc += fen[b, k]
                            b -= b & (-b)
                        out[i0 + r, q, k] = acc
    return out


# --------------------------------------------------------------------------- PFI: each row its own values
#
# PFI/CFI ask, for every row i, the raw score at r replacement values of one feature (copy q of
# row i takes V[q, i]). That is :func:`free_kernel` with a grid per row, but the grid's
# bookkeeping done there in numpy (sorting every row's values, a per-row grid and difference
# array for all n rows, putting the sorted results back in order) costs a few passes over
# arrays of n × (r + 1) doubles -- at 1e6 rows several 50 MB temporaries, each a cache miss per
# row. Here it happens row block by row block inside the kernel: a block's rows sort and
# de-duplicate their values (equal values -- a categorical's few levels -- go the same way
# at every split, so they are one grid point), walk the trees, and write each copy's score
# straight to its place in the (r, n) output.


@njit(cache=True, nogil=True)
def _sort_unique(g, m, idx, inv, grid):
    """Sort g[0:m] (NaN last), drop repeats; returns (non-NaN distinct values c, has_nan).

    ``grid[0:c]`` receives the distinct non-NaN values ascending, ``inv[q]`` the position of
    g[q] in it (c for NaN).
    """
    k = 0
    for q in range(m):  # non-NaN first; NaN keep their places at the end
        if not math.isnan(g[q]):
            idx[k] = q
            k += 1
    n_ok = k
    for q in range(m):
        if math.isnan(g[q]):
            idx[k] = q
            k += 1
    if n_ok <= 32:  # insertion sort: the usual n_repeats are small
        for a in range(1, n_ok):
            v = idx[a]
            gv = g[v]
            b = a - 1
            while b >= 0 and g[idx[b]] > gv:
                idx[b + 1] = idx[b]
                b -= 1
            idx[b + 1] = v
    else:
        part = np.argsort(g[idx[:n_ok]], kind="mergesort")
        tmp = idx[:n_ok].copy()
        for a in range(n_ok):
            idx[a] = tmp[part[a]]
    c = 0
    for a in range(n_ok):
        v = g[idx[a]]
        if c == 0 or v != grid[c - 1]:
            grid[c] = v
            c += 1
        inv[idx[a]] = c - 1
    for a in range(n_ok, m):
        inv[idx[a]] = c
    return c, n_ok < m


@njit(cache=True, nogil=True)
def perm_kernel(X, j, V, plain, out, s0, trees, jfree, block, roots, feature, kind, thr, left, right, missing_left,
                cat_left, cat_known, bitsets, value, tree_out, n_out, max_depth):
    """Raw scores of rows with column j set to each row's own replacement values.

    Parameters
    ----------
    X : float64 (b, p)
        Rows s0..s0+b of the data, in the model's encoding.
    j : int
        The replaced column of X.
    V : float64 (r, n)
        V[q, s0 + i]: the value of column j in copy q of row i (NaN allowed).
    plain : float64 (n, n_out) or (0, n_out)
        Every row's raw score from *all* trees (without intercept), when ``trees`` are only those
        that split on j: the others give each copy the row's own value, so copy q's score is
        ``plain[i] - s_i(X[i, j]) + s_i(V[q, i])`` with s_i the sum over ``trees`` (the row's
        own value is one more grid point). Empty: ``trees`` are all the trees, copy q's score is
        ``s_i(V[q, i])``.
    out : float64 (r, n, n_out)
        Receives copy q of row s0 + i at ``out[q, s0 + i]`` (rows outside the block untouched).
    s0 : int
    trees : int64 (T',)
        The trees to walk.
    jfree : uint8 (N,) or (0,)
        With ``plain``: 1 for a node whose subtree has no split on j. A walk whose grid points
        (the row's own value among them) are all still together when it enters such a subtree
        ends there: every copy then reaches the row's own leaf, whose value cancels in
        ``s_i(V[q, i]) - s_i(X[i, j])`` -- the rows that never meet a split on j in a tree
        cost a few nodes instead of a walk to the leaf.
    block : int
        Rows per block: a block's grids and difference arrays are built, walked by every tree
        and written out before the next.
    Other arrays : the forest (see :func:`free_kernel`).
    """
    b_rows = X.shape[0]
    r = V.shape[0]
    own = plain.shape[0] > 0
    m = r + 1 if own else r
    bs = max(1, min(block, b_rows))
    grid = np.empty((bs, m))
    inv = np.empty((bs, m), dtype=np.int64)
    cnt = np.empty(bs, dtype=np.int64)
    nan_in = np.empty(bs, dtype=np.uint8)
    diff = np.empty((bs, m + 1, n_out))
    nan_acc = np.empty((bs, n_out))
    g = np.empty(m)
    idx = np.empty(m, dtype=np.int64)
    vals = np.empty((m + 1, n_out))
    cap = (max_depth + 2) * (m + 2)
    s_node = np.empty(cap, dtype=np.int64)
    s_lo = np.empty(cap, dtype=np.int64)
    s_hi = np.empty(cap, dtype=np.int64)
    s_nan = np.empty(cap, dtype=np.uint8)
    for b0 in range(0, b_rows, bs):
        b1 = min(b_rows, b0 + bs)
        for i in range(b0, b1):
            a = i - b0
            for q in range(r):
                g[q] = V[q, s0 + i]
            if own:
                g[r] = X[i, j]
            c, has_nan = _sort_unique(g, m, idx, inv[a], grid[a])
            cnt[a] = c
            nan_in[a] = 1 if has_nan else 0
        diff[:b1 - b0] = 0.0
        nan_acc[:b1 - b0] = 0.0
        for ti in range(trees.shape[0]):
            t = trees[ti]
            out_col = tree_out[t]
            for i in range(b0, b1):
                a = i - b0
                s_node[0] = roots[t]
                s_lo[0] = 0
                s_hi[0] = cnt[a]
                s_nan[0] = nan_in[a]
                top = 1
                whole = own  # all the row's points still together (only the first walk from the root)
                while top > 0:
                    top -= 1
                    nd = s_node[top]
                    lo = s_lo[top]
                    hi = s_hi[top]
                    has_nan = s_nan[top]
                    while True:
                        if whole and jfree[nd]:
                            break
                        kd = kind[nd]
                        if kd < 0:
                            if out_col >= 0:
                                v = value[nd, 0]
                                diff[a, lo, out_col] += v
                                diff[a, hi, out_col] -= v
                                if has_nan:
                                    nan_acc[a, out_col] += v
                            else:
                                for k in range(n_out):
                                    v = value[nd, k]
                                    diff[a, lo, k] += v
                                    diff[a, hi, k] -= v
                                    if has_nan:
                                        nan_acc[a, k] += v
                            break
                        f = feature[nd]
                        if f != j:
                            x = X[i, f]
                            if kd == 0:  # the common case, inlined (as in free_kernel)
                                if x <= thr[nd] or math.isnan(x) and missing_left[nd] != 0:
                                    nd = left[nd]
                                else:
                                    nd = right[nd]
                            elif kd == 1:
                                if _go_left_cat(x, missing_left[nd] != 0, cat_left[nd], cat_known[nd], bitsets):
                                    nd = left[nd]
                                else:
                                    nd = right[nd]
                            elif _go_left(x, nd, kind, thr, missing_left, cat_left, cat_known, bitsets):
                                nd = left[nd]
                            else:
                                nd = right[nd]
                            continue
                        nan_left = missing_left[nd] != 0
                        if kd == 0:
                            s = thr[nd]
                            k = lo
                            while k < hi and grid[a, k] <= s:
                                k += 1
                            l_any = k > lo or (has_nan and nan_left)
                            r_any = hi > k or (has_nan and not nan_left)
                            if l_any and r_any:
                                s_node[top] = right[nd]
                                s_lo[top] = k
                                s_hi[top] = hi
                                s_nan[top] = 1 if (has_nan and not nan_left) else 0
                                top += 1
                                hi = k
                                has_nan = 1 if (has_nan and nan_left) else 0
                                nd = left[nd]
                                whole = False
                            elif l_any:
                                nd = left[nd]
                            else:
                                nd = right[nd]
                            continue
                        # Any other split on j: each distinct value its own way; the first run
                        # goes on here, the others (and the NaN point) wait on the stack.
                        if has_nan:
                            s_node[top] = left[nd] if nan_left else right[nd]
                            s_lo[top] = 0
                            s_hi[top] = 0
                            s_nan[top] = 1
                            top += 1
                            has_nan = 0
                            whole = False
                        if hi <= lo:  # only the NaN point was here
                            break
                        d = _go_left(grid[a, lo], nd, kind, thr, missing_left, cat_left, cat_known, bitsets)
                        e = lo + 1
                        while e < hi and _go_left(grid[a, e], nd, kind, thr, missing_left, cat_left, cat_known,
                                                  bitsets) == d:
                            e += 1
                        # the runs after the first alternate in direction (there are two)
                        k = e
                        dk = not d
                        while k < hi:
                            f2 = k + 1
                            while f2 < hi and _go_left(grid[a, f2], nd, kind, thr, missing_left, cat_left,
                                                       cat_known, bitsets) == dk:
                                f2 += 1
                            s_node[top] = left[nd] if dk else right[nd]
                            s_lo[top] = k
                            s_hi[top] = f2
                            s_nan[top] = 0
                            top += 1
                            k = f2
                            dk = not dk
                            whole = False
                        hi = e
                        nd = left[nd] if d else right[nd]
        for i in range(b0, b1):
            a = i - b0
            c = cnt[a]
            for k in range(n_out):
                run = 0.0
                for u in range(c):
                    run += diff[a, u, k]
                    vals[u, k] = run
                vals[c, k] = nan_acc[a, k]
                if own:
                    rest = plain[s0 + i, k] - vals[inv[a, r], k]
                    for q in range(r):
                        out[q, s0 + i, k] = vals[inv[a, q], k] + rest
                else:
                    for q in range(r):
                        out[q, s0 + i, k] = vals[inv[a, q], k]


# --------------------------------------------------------------------------- PFI of many features at once
#
# PFI/CFI of a table with many features ask, feature after feature, the raw scores of the rows
# with one column replaced; :func:`perm_kernel` walks every tree that splits on the feature once
# per feature -- on a boosted model whose trees split on nearly every feature, about one plain
# walk of the forest per feature. Here all the features of a block share one walk: each row
# walks its *own* path once, and at a node splitting on one of the block's features f every copy
# q of f whose value V[f, q, i] goes the other way (and had not left the path higher up) leaves
# the path there: it walks on from the other child with the row's values but column f = V to
# its own leaf, and the copy's score differs from the row's by the difference of the two
# leaves' values. A copy that never leaves the path reaches the row's own leaf and differs by
# nothing. The cost per row and tree is one walk plus the copies' walks from where they leave
# (shorter the deeper they leave), instead of one walk per feature.


@njit(cache=True, nogil=True)
def perm_many_kernel(X, slot, V, out, s0, trees, quiet, block, roots, feature, kind, thr, left, right, missing_left,
                     cat_left, cat_known, bitsets, value, tree_out, n_out, max_depth):
    """Every copy's raw score minus its row's, for several replaced columns at once.

    Parameters
    ----------
    X : float64 (b, p)
        Rows s0..s0+b of the data, in the model's encoding.
    slot : int64 (p,)
        Model column -> its place s in ``V`` and ``out``, -1 for a column not replaced here (each
        column at most one place: a place's copies change that column only).
    V : float64 (k, r, n)
        V[s, q, s0 + i]: the value of the column of place s in copy q of row i (NaN allowed).
    out : float64 (k, r, n_out, n)
        Zero where the kernel writes; receives at ``out[s, q, :, s0 + i]`` the sum over ``trees``
        of (leaf value of copy q of row i with place s's column replaced) - (leaf value of row i),
        each tree's difference added in the order of ``trees`` (rows outside the block
        untouched). A copy's raw score is then the row's own plus this.
    s0 : int
    trees : int64 (T',)
        The trees to walk: those with a split on a replaced column (the others add nothing).
    quiet : uint8 (N,) or (0,)
        1 for a node whose subtree has no split on a replaced column: a row's walk that no copy
        has left yet ends there (every copy reaches the row's leaf, a difference of 0).
    block : int
        Rows per block: all ``trees`` pass over a block of rows before the next, so that the
        rows and their values stay in cache.
    Other arrays : the forest (see :func:`free_kernel`).
    """
    b_rows = X.shape[0]
    k_slots = V.shape[0]
    r = V.shape[1]
    has_quiet = quiet.shape[0] > 0
    # the walk in which copy (s, q) left the path (a new number per walk: no reset between walks)
    left_at = np.zeros((k_slots, r), dtype=np.int64)
    cap = k_slots * r
    p_slot = np.empty(cap, dtype=np.int64)
    p_copy = np.empty(cap, dtype=np.int64)
    p_leaf = np.empty(cap, dtype=np.int64)
    walk = 0
    bs = max(1, min(block, b_rows))
    for b0 in range(0, b_rows, bs):
        b1 = min(b_rows, b0 + bs)
        for ti in range(trees.shape[0]):
            t = trees[ti]
            out_col = tree_out[t]
            for i in range(b0, b1):
                walk += 1
                n_left = 0
                nd = roots[t]
                while True:
                    if has_quiet and n_left == 0 and quiet[nd]:
                        break
                    if kind[nd] < 0:
                        # the copies that left: their leaf's value minus the row's
                        for u in range(n_left):
                            s = p_slot[u]
                            q = p_copy[u]
                            lf = p_leaf[u]
                            if out_col >= 0:
                                out[s, q, out_col, s0 + i] += value[lf, 0] - value[nd, 0]
                            else:
                                for c in range(n_out):
                                    out[s, q, c, s0 + i] += value[lf, c] - value[nd, c]
                        break
                    f = feature[nd]
                    kd = kind[nd]
                    # the decisions inlined (as in free_kernel): a call passing the forest's arrays
                    # cost ~15x the decision here
                    x = X[i, f]
                    if kd == 0:
                        go = x <= thr[nd] or (math.isnan(x) and missing_left[nd] != 0)
                    elif kd == 1:
                        go = _go_left_cat(x, missing_left[nd] != 0, cat_left[nd], cat_known[nd], bitsets)
                    else:
                        go = _go_left(x, nd, kind, thr, missing_left, cat_left, cat_known, bitsets)
                    s = slot[f]
                    if s >= 0:
                        for q in range(r):
                            if left_at[s, q] == walk:
                                continue
                            v = V[s, q, s0 + i]
                            if kd == 0:
                                gv = v <= thr[nd] or (math.isnan(v) and missing_left[nd] != 0)
                            elif kd == 1:
                                gv = _go_left_cat(v, missing_left[nd] != 0, cat_left[nd], cat_known[nd], bitsets)
                            else:
                                gv = _go_left(v, nd, kind, thr, missing_left, cat_left, cat_known, bitsets)
                            if gv == go:
                                continue
                            # copy q leaves the path: on from the other child, column f = v, to its leaf
                            left_at[s, q] = walk
                            m = right[nd] if go else left[nd]
                            while kind[m] >= 0:
                                g = feature[m]
                                km = kind[m]
                                y = v if g == f else X[i, g]
                                if km == 0:
                                    gm = y <= thr[m] or (math.isnan(y) and missing_left[m] != 0)
                                elif km == 1:
                                    gm = _go_left_cat(y, missing_left[m] != 0, cat_left[m], cat_known[m], bitsets)
                                else:
                                    gm = _go_left(y, m, kind, thr, missing_left, cat_left, cat_known, bitsets)
                                m = left[m] if gm else right[m]
                            p_slot[n_left] = s
                            p_copy[n_left] = q
                            p_leaf[n_left] = m
                            n_left += 1
                    nd = left[nd] if go else right[nd]



# --------------------------------------------------------------------------- PFI of many features: small trees
#
# The walks of :func:`perm_many_kernel` are short, and most of their time goes to decisions the
# processor guesses wrong (a copy's value is random: whether it leaves the path, and where its
# walk goes, half the guesses miss). A tree of at most 64 leaves is evaluated here without a
# guess (QuickScorer, Lucchese et al., SIGIR 2015, by rows): number its leaves left to right; a
# row goes right at a node exactly when its leaf is not in the node's left subtree, so its leaf
# is the lowest set bit of the AND, over the nodes where it goes right, of the masks of the
# leaves outside each one's left subtree. With a tree's nodes grouped by feature (A_g: the AND
# over the nodes on feature g), the row's leaf is the lowest bit of the AND of all A_g, and copy q
# of feature f's the lowest bit of (the AND of A_g over g != f, from prefix and suffix ANDs) AND
# (A_f at the copy's value). Each test runs over a block of rows at once, which the compiler
# turns into vector instructions. Every copy of every replaced feature the tree splits on adds
# (its leaf's value - the row's): 0.0 when they are the same leaf, so each copy's sum is that of
# :func:`perm_many_kernel` bit for bit (the same differences, added in the same tree order).
# Bike sharing data, HGB of 100 trees of 31 leaves, 12 features x 3 repeats x 2,594 rows: 26 ms
# here, 65 ms by the walks, 195 ms by :func:`perm_kernel` feature by feature.

#: De Bruijn sequence for the index of the lowest set bit of a uint64 without a branch.
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _k in range(64):
    _DEBRUIJN_INDEX[int((_DEBRUIJN << np.uint64(_k)) >> np.uint64(58))] = _k
del _k


@njit(cache=True, nogil=True)
def mask_layout(roots, kind, feature, left, right):
    """The tables of :func:`mask_kernel`; ``ok`` is False when a tree has more than 64 leaves.

    Returns
    -------
    ok : bool
    not_left : uint64 (N,)
        Per inner node: the mask of its tree's leaves outside its left subtree (bit k: the tree's
        k-th leaf from the left).
    leaves : int64 (L,)
        The leaves' node numbers, tree after tree, each tree's from the left; tree t's start at
        ``leaf_start[t]``.
    leaf_start : int64 (T,)
    seg_feature : int64 (S,)
        Per segment (the inner nodes of one tree on one feature): the feature. Tree t's segments
        are ``tree_seg[t]..tree_seg[t + 1]``; segment u's nodes ``seg_nodes[seg_start[u]:seg_start[u + 1]]``.
    seg_start : int64 (S + 1,)
    seg_nodes : int64 (I,)
    tree_seg : int64 (T + 1,)
    """
    n_trees = roots.shape[0]
    n_nodes = kind.shape[0]
    not_left = np.zeros(n_nodes, dtype=np.uint64)
    first = np.zeros(n_nodes, dtype=np.int64)  # a subtree's leaves are [first, end) from the left
    end = np.zeros(n_nodes, dtype=np.int64)
    leaves = np.empty(n_nodes, dtype=np.int64)
    leaf_start = np.zeros(n_trees, dtype=np.int64)
    seg_feature = np.empty(n_nodes, dtype=np.int64)
    seg_start = np.zeros(n_nodes + 1, dtype=np.int64)
    seg_nodes = np.empty(n_nodes, dtype=np.int64)
    tree_seg = np.zeros(n_trees + 1, dtype=np.int64)
    stack = np.empty(n_nodes + 1, dtype=np.int64)
    order = np.empty(n_nodes, dtype=np.int64)
    n_leaves = 0
    n_seg = 0
    n_inner = 0
    for t in range(n_trees):
        leaf_start[t] = n_leaves
        top = 1  # preorder, left before right: the leaves come from the left
        stack[0] = roots[t]
        n_ord = 0
        while top > 0:
            top -= 1
            nd = stack[top]
            order[n_ord] = nd
            n_ord += 1
            if kind[nd] < 0:
                first[nd] = n_leaves - leaf_start[t]
                end[nd] = first[nd] + 1
                leaves[n_leaves] = nd
                n_leaves += 1
            else:
                stack[top] = right[nd]
                stack[top + 1] = left[nd]
                top += 2
        if n_leaves - leaf_start[t] > 64:
            return False, not_left, leaves, leaf_start, seg_feature, seg_start, seg_nodes, tree_seg
        for a in range(n_ord - 1, -1, -1):  # children before their parents
            nd = order[a]
            if kind[nd] >= 0:
                first[nd] = first[left[nd]]
                end[nd] = end[right[nd]]
                inside = np.uint64(0)
                for k in range(first[left[nd]], end[left[nd]]):
                    inside |= np.uint64(1) << np.uint64(k)
                not_left[nd] = ~inside
        m = 0  # the tree's inner nodes, grouped by feature
        for a in range(n_ord):
            if kind[order[a]] >= 0:
                stack[m] = order[a]
                m += 1
        feats = np.empty(m, dtype=np.int64)
        for a in range(m):
            feats[a] = feature[stack[a]]
        by = np.argsort(feats, kind="mergesort")
        tree_seg[t] = n_seg
        for a in range(m):
            nd = stack[by[a]]
            if a == 0 or feature[nd] != seg_feature[n_seg - 1]:
                seg_feature[n_seg] = feature[nd]
                seg_start[n_seg] = n_inner
                n_seg += 1
            seg_nodes[n_inner] = nd
            n_inner += 1
        seg_start[n_seg] = n_inner
    tree_seg[n_trees] = n_seg
    return (True, not_left, leaves[:n_leaves].copy(), leaf_start, seg_feature[:n_seg].copy(),
            seg_start[:n_seg + 1].copy(), seg_nodes[:n_inner].copy(), tree_seg)


# The passes over a block of rows are small functions of their own: compiled alone, each loop is
# one the compiler vectorizes (inside the kernel's loop nest it did not, 2-5x slower).

@njit(cache=True, nogil=True)
def _and_numeric(xs, ms, th, missing_left, not_left):
    """ms[a] &= (all ones if xs[a] goes left at a numeric split (th, missing_left), else not_left)."""
    zero = np.uint64(0)
    for a in range(ms.shape[0]):
        x = xs[a]
        ms[a] &= not_left | (zero - np.uint64((x <= th) | (math.isnan(x) & missing_left)))


@njit(cache=True, nogil=True)
def _and_category(xs, ms, missing_left, cat_left, cat_known, bitsets, not_left):
    """:func:`_and_numeric` at a category set (:func:`_go_left_cat`'s rule, without a branch per row)."""
    n_bits = bitsets.shape[1] * 32
    zero = np.uint64(0)
    one = np.uint32(1)
    has_known = cat_known >= 0
    known_set = cat_known if has_known else cat_left
    ml = one if missing_left else np.uint32(0)
    for a in range(ms.shape[0]):
        x = xs[a]
        valid = (x >= 0) & (x < n_bits)  # False for NaN
        c = int(x) if valid else 0
        w = c >> 5
        b = np.uint32(c & 31)
        in_left = (bitsets[cat_left, w] >> b) & one
        known = ((bitsets[known_set, w] >> b) & one) if has_known else one
        # in the left set: left; a known level outside it: right; an unknown level or none: missing
        go = (in_left | ((one - known) & ml)) if valid else ml
        ms[a] &= not_left | (zero - np.uint64(go))


@njit(cache=True, nogil=True)
def _and_other(xs, ms, nd, kind, thr, missing_left, cat_left, cat_known, bitsets, not_left):
    """:func:`_and_numeric` at any other split (LightGBM's zero as missing, XGBoost's category sets)."""
    ones = np.uint64(0xFFFFFFFFFFFFFFFF)
    for a in range(ms.shape[0]):
        ms[a] &= ones if _go_left(xs[a], nd, kind, thr, missing_left, cat_left, cat_known, bitsets) else not_left


@njit(cache=True, nogil=True)
def _and_node(xs, ms, nd, kind, thr, missing_left, cat_left, cat_known, bitsets, not_left):
    """ms[a] &= the mask of inner node nd for the value xs[a]."""
    kd = kind[nd]
    if kd == 0:
        _and_numeric(xs, ms, thr[nd], missing_left[nd] != 0, not_left[nd])
    elif kd == 1:
        _and_category(xs, ms, missing_left[nd] != 0, cat_left[nd], cat_known[nd], bitsets, not_left[nd])
    else:
        _and_other(xs, ms, nd, kind, thr, missing_left, cat_left, cat_known, bitsets, not_left[nd])


@njit(cache=True, nogil=True)
def _and2(dst, a, b):
    for i in range(dst.shape[0]):
        dst[i] = a[i] & b[i]


@njit(cache=True, nogil=True)
def _leaf_value(ms, values, dst):
    """dst[a] = values[index of the lowest set bit of ms[a]] (a row's leaf: its value)."""
    for a in range(ms.shape[0]):
        m = ms[a]
        low = m & (~m + np.uint64(1))
        dst[a] = values[_DEBRUIJN_INDEX[(low * _DEBRUIJN) >> np.uint64(58)]]


@njit(cache=True, nogil=True)
def _add_leaf_difference(ms, own, values, dst):
    """dst[a] += values[lowest set bit of ms[a]] - own[a] (a copy's leaf's value minus the row's)."""
    for a in range(ms.shape[0]):
        m = ms[a]
        low = m & (~m + np.uint64(1))
        dst[a] += values[_DEBRUIJN_INDEX[(low * _DEBRUIJN) >> np.uint64(58)]] - own[a]


@njit(cache=True, nogil=True)
def mask_kernel(XT, slot, V, out, s0, trees, block, not_left, leaves, leaf_start, seg_feature, seg_start, seg_nodes,
                tree_seg, roots, feature, kind, thr, left, right, missing_left, cat_left, cat_known, bitsets, value,
                tree_out, n_out, max_depth):
    """:func:`perm_many_kernel` for trees of at most 64 leaves, by leaf masks: the same sums.

    Parameters
    ----------
    XT : float64 (p, b)
        Rows s0..s0+b of the data in the model's encoding, transposed (each feature's values of a
        block of rows contiguous: a node's test runs over them at once).
    slot, V, s0, trees
        As :func:`perm_many_kernel`.
    out : float64 (k, r, n_out, n)
        As :func:`perm_many_kernel`: receives the same sums, bit for bit.
    block : int
        Rows per block (their masks, ~30 per row and tree, stay in cache while a tree's segments
        pass over them; 1024 was 2.5x faster than 128 and as fast as 4096).
    not_left, leaves, leaf_start, seg_feature, seg_start, seg_nodes, tree_seg
        The tables of :func:`mask_layout` (every tree of at most 64 leaves).
    Other arrays : the forest (see :func:`free_kernel`).
    """
    b_rows = XT.shape[1]
    r = V.shape[1]
    ones = np.uint64(0xFFFFFFFFFFFFFFFF)
    bs = max(1, min(block, b_rows))
    max_seg = 1
    for t in range(tree_seg.shape[0] - 1):
        max_seg = max(max_seg, tree_seg[t + 1] - tree_seg[t])
    seg_mask = np.empty((max_seg, bs), dtype=np.uint64)  # per segment: A_g of each row
    pre = np.empty((max_seg + 1, bs), dtype=np.uint64)  # pre[k]: the AND of segments 0..k-1
    suf = np.empty((max_seg + 1, bs), dtype=np.uint64)  # suf[k]: the AND of segments k..
    cm = np.empty(bs, dtype=np.uint64)  # a copy's mask
    n_val = value.shape[1]
    # per value column: the leaves' values in the order of ``leaves`` (64 more: a tree's slice
    # of 64 never runs past the end)
    leaf_values = np.zeros((n_val, leaves.shape[0] + 64))
    for k in range(leaves.shape[0]):
        for c in range(n_val):
            leaf_values[c, k] = value[leaves[k], c]
    own = np.empty((n_val, bs))
    for b0 in range(0, b_rows, bs):
        b1 = min(b_rows, b0 + bs)
        nb = b1 - b0
        for ti in range(trees.shape[0]):
            t = trees[ti]
            out_col = tree_out[t]
            k0 = tree_seg[t]
            n_seg = tree_seg[t + 1] - k0
            lf0 = leaf_start[t]
            for k in range(n_seg):
                ms = seg_mask[k, :nb]
                ms[:] = ones
                xs = XT[seg_feature[k0 + k], b0:b1]
                for u in range(seg_start[k0 + k], seg_start[k0 + k + 1]):
                    _and_node(xs, ms, seg_nodes[u], kind, thr, missing_left, cat_left, cat_known, bitsets, not_left)
            pre[0, :nb] = ones
            suf[n_seg, :nb] = ones
            for k in range(n_seg):
                _and2(pre[k + 1, :nb], pre[k, :nb], seg_mask[k, :nb])
            for k in range(n_seg - 1, -1, -1):
                _and2(suf[k, :nb], suf[k + 1, :nb], seg_mask[k, :nb])
            n_cols = 1 if out_col >= 0 else n_out
            for c in range(n_cols):
                _leaf_value(pre[n_seg, :nb], leaf_values[c, lf0:lf0 + 64], own[c, :nb])
            for k in range(n_seg):
                s = slot[seg_feature[k0 + k]]
                if s < 0:
                    continue
                u0 = seg_start[k0 + k]
                u1 = seg_start[k0 + k + 1]
                for q in range(r):
                    c_mask = cm[:nb]
                    _and2(c_mask, pre[k, :nb], suf[k + 1, :nb])
                    vs = V[s, q, s0 + b0:s0 + b1]
                    for u in range(u0, u1):
                        _and_node(vs, c_mask, seg_nodes[u], kind, thr, missing_left, cat_left, cat_known, bitsets,
                                  not_left)
                    for c in range(n_cols):
                        col = out_col if out_col >= 0 else c
                        _add_leaf_difference(c_mask, own[c, :nb], leaf_values[c, lf0:lf0 + 64],
                                             out[s, q, col, s0 + b0:s0 + b1])


@njit(cache=True, nogil=True)
def mask_plain_kernel(XT, block, not_left, leaves, leaf_start, seg_feature, seg_start, seg_nodes, tree_seg, roots,
                      feature, kind, thr, left, right, missing_left, cat_left, cat_known, bitsets, value, tree_out,
                      n_out, max_depth):
    """Every row's sum of the trees' leaf values (no free feature) by leaf masks.

    What :func:`free_kernel` gives with no free feature and all trees, bit for bit (each row's
    leaf values added tree by tree from 0.0), for trees of at most 64 leaves.

    Parameters
    ----------
    XT : float64 (p, n)
        The rows in the model's encoding, transposed.
    block : int
        Rows per block (see :func:`mask_kernel`).
    Other arrays : the tables of :func:`mask_layout` and the forest (see :func:`free_kernel`).

    Returns
    -------
    float64 (n, n_out)
    """
    n = XT.shape[1]
    ones = np.uint64(0xFFFFFFFFFFFFFFFF)
    bs = max(1, min(block, n))
    acc = np.zeros((n_out, n))
    mask = np.empty(bs, dtype=np.uint64)
    n_val = value.shape[1]
    leaf_values = np.zeros((n_val, leaves.shape[0] + 64))
    for k in range(leaves.shape[0]):
        for c in range(n_val):
            leaf_values[c, k] = value[leaves[k], c]
    for b0 in range(0, n, bs):
        b1 = min(n, b0 + bs)
        nb = b1 - b0
        m = mask[:nb]
        for t in range(roots.shape[0]):
            out_col = tree_out[t]
            lf0 = leaf_start[t]
            m[:] = ones
            for k in range(tree_seg[t], tree_seg[t + 1]):
                xs = XT[seg_feature[k], b0:b1]
                for u in range(seg_start[k], seg_start[k + 1]):
                    _and_node(xs, m, seg_nodes[u], kind, thr, missing_left, cat_left, cat_known, bitsets, not_left)
            for c in range(1 if out_col >= 0 else n_out):
                _add_leaf_value(m, leaf_values[c, lf0:lf0 + 64], acc[out_col if out_col >= 0 else c, b0:b1])
    return acc.T.copy()


@njit(cache=True, nogil=True)
def _add_leaf_value(ms, values, dst):
    """dst[a] += values[lowest set bit of ms[a]] (a row's leaf's value)."""
    for a in range(ms.shape[0]):
        m = ms[a]
        low = m & (~m + np.uint64(1))
        dst[a] += values[_DEBRUIJN_INDEX[(low * _DEBRUIJN) >> np.uint64(58)]]
