"""A small CART regression tree (numba) for the subgroup sampler: grown exactly as scikit-learn's.

:class:`imlkit.samplers.SubgroupSampler` needs one tree per sampled set S -- conditional SAGE
asks for thousands of them, on the same fitted rows and the same conditioning columns.
scikit-learn's ``DecisionTreeRegressor`` costs ~2-4 ms per small tree (512 rows), much of it
validation, per-node sorting and Python overhead; this one ~0.3 ms. This kernel grows the same tree:

* criterion: squared error summed over the outputs (multi-output regression); the best split
  of a node maximises the proxy Σ_k (S_Lk² / n_L + S_Rk² / n_R) (S: sums of the target), the
  quantity scikit-learn's ``MSE.proxy_impurity_improvement`` compares; first best wins;
* candidate thresholds between consecutive distinct values of a feature (values closer than
  1e-7 in float32 count as equal), at the midpoint ``x_lo / 2 + x_hi / 2`` (``x_lo`` if the
  midpoint rounds to ``x_hi``), rows with ``x <= threshold`` go left;
* a node is a leaf at ``max_depth``, with fewer than ``2 * min_samples_leaf`` rows, when its
  target is constant, or when no split leaves ``min_samples_leaf`` rows on each side;
* features are float32 (what scikit-learn converts them to), the target float64.

Work shared between trees: every column is sorted once and its distinct values listed once
(:func:`presort`). A column with at most ``HIST_MAX_BINS`` distinct values is split from a
histogram of the node's rows over its values (sums per value, then one pass over the values);
for the others the node keeps its rows in sorted order, and a split partitions these lists
stably, so no node sorts. Both give the same candidate splits and criterion values (up to the
order in which the sums are accumulated).

Nodes are numbered depth-first, left child first, as scikit-learn's; rows with a missing value
in a split column go to the child with more fitted rows (scikit-learn's rule for features
without missing values in training).

Equality with scikit-learn: on data where no two distinct splits of a node have the same
criterion value, the partition of the fitted rows is identical. Where two splits tie exactly
(discrete data), scikit-learn keeps the first best in a random order of the features and its
sums are accumulated in an order its (unstable) sort decides, so a tie can go either way in
either implementation; this tree then keeps the first best in column order. The partitions
then differ; both are trees of the same definition (tests/test_samplers.py and
tests/importance/test_sage.py compare them).

References
----------
Breiman, Friedman, Olshen & Stone (1984). Classification and Regression Trees.
"""
from __future__ import annotations

import numpy as np

from ._numba import njit  # numba.njit, with a cache that falls back when the package is read-only

__all__ = ["FEATURE_THRESHOLD", "HIST_MAX_BINS", "Presorted", "apply", "grow", "presort"]

#: Values of a feature closer than this count as equal (scikit-learn's FEATURE_THRESHOLD).
FEATURE_THRESHOLD = np.float32(1e-7)


#: Columns with at most this many distinct values are split from per-node histograms (one
#: pass over the node's rows, then a pass over the values); the others from sorted row lists.
HIST_MAX_BINS = 64


class Presorted:
    """What every tree on the same rows shares: per column the sort order and distinct values.

    Attributes
    ----------
    order : ndarray of int64, shape (p, n)
        ``order[c]`` sorts column c ascending (stable).
    rank : ndarray of int64, shape (p, n)
        Position of each row's value among the distinct values of its column.
    values : ndarray of float32, shape (p, max distinct)
        The distinct values of every column, ascending (padded).
    n_values : ndarray of int64, shape (p,)
    """

    def __init__(self, X32):
        X32 = np.ascontiguousarray(X32, dtype=np.float32)
        n, p = X32.shape
        self.order = np.ascontiguousarray(np.argsort(X32, axis=0, kind="stable").T.astype(np.int64))
        self.rank = np.empty((p, n), dtype=np.int64)
        uniq = []
        for c in range(p):
            u, inv = np.unique(X32[:, c], return_inverse=True)
            uniq.append(u)
            self.rank[c] = inv.reshape(-1)
        self.n_values = np.array([len(u) for u in uniq], dtype=np.int64)
        self.values = np.zeros((p, max(1, int(self.n_values.max(initial=1)))), dtype=np.float32)
        for c, u in enumerate(uniq):
            self.values[c, :len(u)] = u


def presort(X32):
    """:class:`Presorted` of ``X32`` (float32, shape (n, p), without NaN)."""
    return Presorted(X32)


@njit(cache=True, nogil=True, inline="always")
def _proxy(sum_left, total, nl, nr):
    """scikit-learn's proxy of the impurity decrease of a split (larger is better).

    With S_L, S_R the children's sums of the d targets and n_L, n_R their sizes, maximising
    Σ_o S_L,o²/n_L + S_R,o²/n_R is the same as minimising the children's summed squared error.
    """
    pl = 0.0
    pr = 0.0
    for o in range(sum_left.shape[0]):
        sl = sum_left[o]
        sr = total[o] - sl
        pl += sl * sl
        pr += sr * sr
    return pl / nl + pr / nr


@njit(cache=True, nogil=True)
def _grow(X, order, rank, values, n_values, cols, Y, max_depth, min_leaf, thr, hist_max):
    n, d = Y.shape
    k = cols.shape[0]
    # sorted row lists only for the many-valued columns; slot[j] is column j's list or -1
    slot = np.full(k, -1, dtype=np.int64)
    ks = 0
    for j in range(k):
        if n_values[cols[j]] > hist_max:
            slot[j] = ks
            ks += 1
    idx = np.empty((ks, n), dtype=np.int64)
    for j in range(k):
        if slot[j] >= 0:
            idx[slot[j]] = order[cols[j]]
    rows = np.arange(n)  # the node's rows (any order); partitioned like the sorted lists
    nb_max = 1
    for j in range(k):
        if slot[j] < 0 and n_values[cols[j]] > nb_max:
            nb_max = n_values[cols[j]]
    h_sum = np.zeros((nb_max, d))
    h_cnt = np.zeros(nb_max, dtype=np.int64)
    buf = np.empty(n, dtype=np.int64)
    go_left = np.zeros(n, dtype=np.bool_)
    cap = 2 * n + 1
    feature = np.full(cap, -1, dtype=np.int64)
    threshold = np.zeros(cap, dtype=np.float64)
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    count = np.zeros(cap, dtype=np.int64)
    leaf_id = np.full(cap, -1, dtype=np.int64)
    leaf_of_row = np.empty(n, dtype=np.int64)
    # stack of (start, end, depth, parent, is_left); the left child is processed first and
    # nodes are numbered when processed (depth-first preorder, scikit-learn's numbering)
    st_start = np.empty(cap, dtype=np.int64)
    st_end = np.empty(cap, dtype=np.int64)
    st_depth = np.empty(cap, dtype=np.int64)
    st_parent = np.empty(cap, dtype=np.int64)
    st_isleft = np.empty(cap, dtype=np.bool_)
    st_start[0], st_end[0], st_depth[0], st_parent[0], st_isleft[0] = 0, n, 0, -1, False
    top = 1
    n_nodes = 0
    n_leaves = 0
    total = np.empty(d)
    sum_left = np.empty(d)
    mean = np.empty(d)
    while top > 0:
        top -= 1
        start, end, depth = st_start[top], st_end[top], st_depth[top]
        node = n_nodes
        n_nodes += 1
        if st_parent[top] >= 0:
            if st_isleft[top]:
                left[st_parent[top]] = node
            else:
                right[st_parent[top]] = node
        m = end - start
        count[node] = m
        is_leaf = depth >= max_depth or m < 2 or m < 2 * min_leaf
        if not is_leaf:
            # constant target: nothing to gain (scikit-learn: impurity <= eps)
            for o in range(d):
                total[o] = 0.0
            for i in range(start, end):
                r = rows[i]
                for o in range(d):
                    total[o] += Y[r, o]
            for o in range(d):
                mean[o] = total[o] / m
            var = 0.0
            for i in range(start, end):
                r = rows[i]
                for o in range(d):
                    dv = Y[r, o] - mean[o]
                    var += dv * dv
            is_leaf = var / m / d <= 2.220446049250313e-16
        best_j = -1
        best_p = -1     # sorted column: first position of the right child
        best_t = 0.0
        if not is_leaf:
            best = -np.inf
            for j in range(k):
                c = cols[j]
                for o in range(d):
                    sum_left[o] = 0.0
                if slot[j] < 0:
                    # histogram of the node's rows over the column's distinct values
                    nb = n_values[c]
                    for b in range(nb):
                        h_cnt[b] = 0
                        for o in range(d):
                            h_sum[b, o] = 0.0
                    for i in range(start, end):
                        r = rows[i]
                        b = rank[c, r]
                        h_cnt[b] += 1
                        for o in range(d):
                            h_sum[b, o] += Y[r, o]
                    lo = 0
                    while h_cnt[lo] == 0:
                        lo += 1
                    hi = nb - 1
                    while h_cnt[hi] == 0:
                        hi -= 1
                    if values[c, hi] <= values[c, lo] + thr:
                        continue  # constant feature in this node
                    nl = 0
                    prev = -1
                    for b in range(lo, hi + 1):
                        if h_cnt[b] == 0:
                            continue
                        if prev >= 0 and nl >= min_leaf and values[c, b] > values[c, prev] + thr:
                            nr = m - nl
                            if nr < min_leaf:
                                break
                            proxy = _proxy(sum_left, total, nl, nr)
                            if proxy > best:
                                best = proxy
                                best_j = j
                                best_t = np.float64(values[c, prev]) / 2.0 + np.float64(values[c, b]) / 2.0
                                if best_t == np.float64(values[c, b]) or np.isinf(best_t):
                                    best_t = np.float64(values[c, prev])
                        nl += h_cnt[b]
                        for o in range(d):
                            sum_left[o] += h_sum[b, o]
                        if m - nl < min_leaf:
                            break
                        prev = b  # thresholds compare consecutive values, as scikit-learn's
                    continue
                s = slot[j]
                if X[idx[s, end - 1], c] <= X[idx[s, start], c] + thr:
                    continue  # constant feature in this node
                for i in range(start, end - 1):
                    r = idx[s, i]
                    for o in range(d):
                        sum_left[o] += Y[r, o]
                    p = i + 1  # first row of the right child
                    if p - start < min_leaf:
                        continue
                    if end - p < min_leaf:
                        break
                    if X[idx[s, p], c] <= X[r, c] + thr:
                        continue  # no threshold between equal values
                    nl = p - start
                    nr = end - p
                    proxy = _proxy(sum_left, total, nl, nr)
                    if proxy > best:
                        best = proxy
                        best_j = j
                        best_p = p
            is_leaf = best_j < 0
        if is_leaf:
            leaf_id[node] = n_leaves
            for i in range(start, end):
                leaf_of_row[rows[i]] = n_leaves
            n_leaves += 1
            continue
        c = cols[best_j]
        if slot[best_j] >= 0:
            s = slot[best_j]
            lo_v = np.float64(X[idx[s, best_p - 1], c])
            hi_v = np.float64(X[idx[s, best_p], c])
            best_t = lo_v / 2.0 + hi_v / 2.0
            if best_t == hi_v or np.isinf(best_t):
                best_t = lo_v
        feature[node] = c
        threshold[node] = best_t
        nl = 0
        for i in range(start, end):
            r = rows[i]
            g = X[r, c] <= best_t
            go_left[r] = g
            if g:
                nl += 1
        split = start + nl
        # stable partition of the row list and of every sorted list: left child's rows first.
        # Children that cannot be split need only the row list (for the leaf numbers).
        both_leaves = depth + 1 >= max_depth or (nl < 2 * min_leaf and end - split < 2 * min_leaf)
        for j in range(-1, ks):
            if j >= 0 and both_leaves:
                break
            a = start
            b = 0
            for i in range(start, end):
                r = rows[i] if j < 0 else idx[j, i]
                if go_left[r]:
                    if j < 0:
                        rows[a] = r
                    else:
                        idx[j, a] = r
                    a += 1
                else:
                    buf[b] = r
                    b += 1
            for i in range(b):
                if j < 0:
                    rows[a + i] = buf[i]
                else:
                    idx[j, a + i] = buf[i]
        st_start[top], st_end[top], st_depth[top], st_parent[top], st_isleft[top] = split, end, depth + 1, node, False
        top += 1
        st_start[top], st_end[top], st_depth[top], st_parent[top], st_isleft[top] = start, split, depth + 1, node, True
        top += 1
    return (leaf_of_row, feature[:n_nodes].copy(), threshold[:n_nodes].copy(), left[:n_nodes].copy(),
            right[:n_nodes].copy(), count[:n_nodes].copy(), leaf_id[:n_nodes].copy())


def grow(X32, pre, cols, Y, max_depth, min_samples_leaf):
    """Grow the tree on the columns ``cols`` of ``X32`` predicting ``Y``.

    Parameters
    ----------
    X32 : ndarray of float32, shape (n, p), without NaN
    pre : Presorted
        :func:`presort` of ``X32`` (computed once, shared by every tree on these rows).
    cols : sequence of int
        The columns the tree splits on.
    Y : ndarray of float64, shape (n, d)
    max_depth, min_samples_leaf : int

    Returns
    -------
    leaves : ndarray of int64, shape (n,)
        Leaf of every row, numbered 0..L-1 in depth-first order (left before right).
    tree : tuple of arrays
        ``(feature, threshold, left, right, count, leaf_id)`` per node, for :func:`apply`.
    """
    out = _grow(np.ascontiguousarray(X32, dtype=np.float32), pre.order, pre.rank, pre.values, pre.n_values,
                np.asarray(cols, dtype=np.int64), np.ascontiguousarray(Y, dtype=np.float64), int(max_depth),
                int(min_samples_leaf), FEATURE_THRESHOLD, HIST_MAX_BINS)
    return out[0], out[1:]


@njit(cache=True, nogil=True)
def _apply(X, feature, threshold, left, right, count, leaf_id):
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        node = 0
        while feature[node] >= 0:
            v = X[i, feature[node]]
            if np.isnan(v):  # missing: to the child with more fitted rows (scikit-learn's rule)
                node = left[node] if count[left[node]] > count[right[node]] else right[node]
            elif v <= threshold[node]:
                node = left[node]
            else:
                node = right[node]
        out[i] = leaf_id[node]
    return out


def apply(X32, tree):
    """Leaf (0..L-1) of every row of ``X32`` (float32, all p columns), shape (n,)."""
    return _apply(np.ascontiguousarray(X32, dtype=np.float32), *tree)
