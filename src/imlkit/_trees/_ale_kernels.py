"""numba kernels of ALE on the tree engine: each row's few replacement values, walking only the
trees that can tell them apart.

ALE needs, per row, the model at a handful of values of one feature (the two edges of the row's
bin, or its level and the neighbouring ones) and only their differences. Rows that share those
values form a group (at most the number of bins or levels). A tree whose nodes on the feature
send all of a group's values the same way puts every copy of a row of that group in the same
leaf, so it adds the same value to each copy and cancels from every difference: per group only
the trees with a node on the feature that *separates* the group's values are walked
(:func:`separating_trees`), and each walked once per value (:func:`grouped_walk`). On the bike
data's HistGradientBoosting 89 of 100 trees split on ``temp``, but a given bin of 20 is
separated by a handful of them.

Node kinds and decisions are those of :mod:`._kernels` (its ``_go_left``), so a value goes where
the engine's own walk sends it.
"""
from __future__ import annotations

import math

import numpy as np

from .._numba import njit
from ._kernels import _go_left


@njit(cache=True, nogil=True)
def separating_trees(U, nodes, node_tree, n_trees, kind, thr, missing_left, cat_left, cat_known, bitsets):
    """Which trees separate each group's values.

    Parameters
    ----------
    U : float64 (g, k)
        Group g's k values of the feature (the model's encoding).
    nodes : int64 (s,)
        The nodes that split on the feature; ``node_tree`` (s,) the tree of each.
    n_trees : int

    Returns
    -------
    bool (g, n_trees)
        True where some node of tree t on the feature sends two of group g's values different
        ways (where it is False, every value of the group reaches the same leaf of t).
    """
    n_groups, k = U.shape
    mask = np.zeros((n_groups, n_trees), dtype=np.bool_)
    for g in range(n_groups):
        for a in range(nodes.shape[0]):
            t = node_tree[a]
            if mask[g, t]:
                continue
            nd = nodes[a]
            d0 = _go_left(U[g, 0], nd, kind, thr, missing_left, cat_left, cat_known, bitsets)
            for q in range(1, k):
                if _go_left(U[g, q], nd, kind, thr, missing_left, cat_left, cat_known, bitsets) != d0:
                    mask[g, t] = True
                    break
    return mask


@njit(cache=True, nogil=True)
def grouped_walk(X, j, U, group_start, row_order, mask, roots, feature, kind, thr, left, right, missing_left,
                 cat_left, cat_known, bitsets, value, tree_out, n_out):
    """Sum over the separating trees of the leaf values of each row at its group's values.

    Parameters
    ----------
    X : float64 (n, p)
        Rows in the model's encoding, in group order: group g's rows are
        ``X[group_start[g]:group_start[g + 1]]`` (contiguous, so that a group's rows stream
        through the cache: 20-35 % faster than reading them scattered at 26,000 rows).
    j : int
        The replaced feature (a column of X).
    U : float64 (g, k)
        Each group's values of feature j.
    group_start : int64 (g + 1,)
    row_order : int64 (n,)
        Row r of X is row ``row_order[r]`` of the result.
    mask : bool (g, T)
        The trees walked for each group (:func:`separating_trees`).
    Other arrays : the forest (see :func:`._kernels.free_kernel`).

    Returns
    -------
    float64 (n, k, n_out)
        ``out[i, q]``: the sum over the trees of ``mask[group of i]`` of the leaf row i reaches
        with feature j set to ``U[group, q]`` (no intercept, no link). Trees outer, rows inner:
        a tree's nodes stay in cache while the rows pass.
    """
    n = X.shape[0]
    k = U.shape[1]
    out = np.zeros((n, k, n_out))
    for t in range(roots.shape[0]):
        out_col = tree_out[t]
        root = roots[t]
        for g in range(U.shape[0]):
            if not mask[g, t]:
                continue
            for r in range(group_start[g], group_start[g + 1]):
                i = row_order[r]
                for q in range(k):
                    v = U[g, q]
                    nd = root
                    while True:
                        kd = kind[nd]
                        if kd < 0:
                            break
                        f = feature[nd]
                        x = v if f == j else X[r, f]
                        if kd == 0:  # the common case, inlined (as in free_kernel)
                            if x <= thr[nd] or math.isnan(x) and missing_left[nd] != 0:
                                nd = left[nd]
                            else:
                                nd = right[nd]
                        elif _go_left(x, nd, kind, thr, missing_left, cat_left, cat_known, bitsets):
                            nd = left[nd]
                        else:
                            nd = right[nd]
                    if out_col >= 0:
                        out[i, q, out_col] += value[nd, 0]
                    else:
                        for o in range(n_out):
                            out[i, q, o] += value[nd, o]
    return out
