"""numba kernel of interventional TreeSHAP: exact Shapley values of a tree ensemble's raw score.

For an explained row x and one background row b the *pair game* of a tree is
g(S) = tree(x_S, b_S̄): features in S take x's value, the others b's. A leaf is reached by the
hybrid row iff, along its path, every split where x and b go different ways is taken on the
side of the row that supplies the split's feature. Calling A the features whose splits must
come from x and B those that must come from b (a feature in both makes the leaf unreachable),
the leaf's share of the game is v·1[A ⊆ S, B ∩ S = ∅], whose Shapley values are

    φ_j = +v (|A|−1)! |B|! / (|A|+|B|)!   for j ∈ A,
    φ_j = −v |A|! (|B|−1)! / (|A|+|B|)!   for j ∈ B,      0 otherwise.

The kernel walks, per (tree, x, b), only the leaves some hybrid row can reach: where x and b
agree at a split it follows their common child, where they disagree it follows both (adding
the split's feature to A on x's side, to B on b's side), and a feature already in A or B is
routed by the row that supplies it. The interventional SHAP value of x is the mean of the pair
values over the background rows (Lundberg et al. 2020, "From local explanations to global
understanding with explainable AI for trees", Nature Machine Intelligence 2, the
"interventional" algorithm). Efficiency holds pair by pair: Σ_j φ_j = tree(x) − tree(b).

The node arrays are those of the tree engine (:mod:`._adapters`, :func:`._kernels.as_kernel_args`),
routed by the engine's own ``_go_left``, so every split kind (numeric, NaN direction,
category sets, LightGBM's zero-as-missing) means here what it means for prediction.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._kernels import _go_left

__all__ = ["shapley_weights", "interventional_kernel"]


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
def _background_directions(Bg, lo, hi, feature, kind, thr, missing_left, cat_left, cat_known, bitsets, out):
    """out[nd − lo, r] = 1 when background row r goes left at node nd (nodes lo..hi−1 of one tree)."""
    for nd in range(lo, hi):
        if kind[nd] < 0:
            continue
        f = feature[nd]
        for r in range(Bg.shape[0]):
            out[nd - lo, r] = 1 if _go_left(Bg[r, f], nd, kind, thr, missing_left, cat_left, cat_known,
                                            bitsets) else 0


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
    All background rows are walked together: a traversal state is (node, A, B, the set R of
    background rows whose hybrid with x reaches the node with these constraints). Where a
    row agrees with x it stays in the unconstrained state; where it disagrees it moves to
    the two constrained ones. The pairs that share a state share its work, and a leaf is
    credited once per state with weight |R|. The background rows' directions at every node
    of a tree are computed once per tree (``_background_directions``), so a state's split is
    a pass over a byte column.
    """
    n, p = X.shape
    nb = Bg.shape[0]
    n_trees = roots.shape[0]
    phi = np.zeros((n, p, n_out))
    cap = 2 * (max_depth + 3)
    s_node = np.empty(cap, dtype=np.int64)
    s_depth = np.empty(cap, dtype=np.int64)
    s_feat = np.empty(cap, dtype=np.int64)
    s_side = np.empty(cap, dtype=np.int8)
    s_start = np.empty(cap, dtype=np.int64)
    s_len = np.empty(cap, dtype=np.int64)
    s_top = np.empty(cap, dtype=np.int64)
    path_feat = np.empty(max_depth + 2, dtype=np.int64)
    path_side = np.zeros(max_depth + 2, dtype=np.int8)
    state = np.zeros(p, dtype=np.int8)  # 0 free, 1 in A (from x), 2 in B (from b)
    acc_pos = np.zeros((max_depth + 2, n_out))
    acc_neg = np.zeros((max_depth + 2, n_out))
    buf = np.empty(nb * (2 * max_depth + 6), dtype=np.int32)
    largest = 0
    for t in range(n_trees):
        hi = roots[t + 1] if t + 1 < n_trees else kind.shape[0]
        largest = max(largest, hi - roots[t])
    bdir = np.zeros((largest, nb), dtype=np.uint8)
    for t in range(n_trees):
        lo = roots[t]
        hi = roots[t + 1] if t + 1 < n_trees else kind.shape[0]
        _background_directions(Bg, lo, hi, feature, kind, thr, missing_left, cat_left, cat_known, bitsets, bdir)
        out_col = tree_out[t]
        for r in range(nb):
            buf[r] = r
        for i in range(n):
            n_a = 0
            n_b = 0
            depth = 0
            s_node[0] = lo
            s_depth[0] = 0
            s_feat[0] = -1
            s_side[0] = 0
            s_start[0] = 0
            s_len[0] = nb
            s_top[0] = nb
            top = 1
            while top > 0:
                top -= 1
                nd = s_node[top]
                d = s_depth[top]
                r0 = s_start[top]
                rn = s_len[top]
                btop = s_top[top]
                # Leave the branch just finished: undo the constraints at depth >= d and hand
                # their subtree's leaf credit to their feature and to the entry above.
                while depth > d:
                    depth -= 1
                    sd = path_side[depth]
                    if sd != 0:
                        fk = path_feat[depth]
                        state[fk] = 0
                        if sd == 1:
                            n_a -= 1
                            for c in range(n_out):
                                phi[i, fk, c] += acc_pos[depth, c]
                        else:
                            n_b -= 1
                            for c in range(n_out):
                                phi[i, fk, c] -= acc_neg[depth, c]
                    for c in range(n_out):
                        if depth > 0:
                            acc_pos[depth - 1, c] += acc_pos[depth, c]
                            acc_neg[depth - 1, c] += acc_neg[depth, c]
                        acc_pos[depth, c] = 0.0
                        acc_neg[depth, c] = 0.0
                sd = s_side[top]
                path_feat[d] = s_feat[top]
                path_side[d] = sd
                depth = d + 1
                if sd == 1:
                    state[s_feat[top]] = 1
                    n_a += 1
                elif sd == 2:
                    state[s_feat[top]] = 2
                    n_b += 1
                if kind[nd] < 0:
                    if n_a + n_b == 0:
                        continue  # x and these rows share the leaf: their pair games are flat here
                    # Every A feature on the path gets wp·v, every B feature −wn·v: collected at
                    # the leaf's depth, paid out as the path unwinds (O(1) per leaf).
                    wp = pos[n_a, n_b] * rn
                    wn = neg[n_a, n_b] * rn
                    if out_col >= 0:
                        acc_pos[depth - 1, out_col] += wp * value[nd, 0]
                        acc_neg[depth - 1, out_col] += wn * value[nd, 0]
                    else:
                        for c in range(n_out):
                            acc_pos[depth - 1, c] += wp * value[nd, c]
                            acc_neg[depth - 1, c] += wn * value[nd, c]
                    continue
                f = feature[nd]
                st = state[f]
                ln = nd - lo
                if st == 1:
                    go = _go_left(X[i, f], nd, kind, thr, missing_left, cat_left, cat_known, bitsets)
                    s_node[top] = left[nd] if go else right[nd]
                    s_depth[top] = d + 1
                    s_feat[top] = -1
                    s_side[top] = 0
                    top += 1  # start, len and buffer top unchanged
                    continue
                # Split the rows by their own direction: [goes left | goes right] at btop.
                a = btop
                z = btop + rn
                for q in range(r0, r0 + rn):
                    r = buf[q]
                    if bdir[ln, r]:
                        buf[a] = r
                        a += 1
                    else:
                        z -= 1
                        buf[z] = r
                n_left = a - btop
                n_right = rn - n_left
                new_top = btop + rn
                if st == 2:
                    if n_left > 0:
                        s_node[top] = left[nd]
                        s_depth[top] = d + 1
                        s_feat[top] = -1
                        s_side[top] = 0
                        s_start[top] = btop
                        s_len[top] = n_left
                        s_top[top] = new_top
                        top += 1
                    if n_right > 0:
                        s_node[top] = right[nd]
                        s_depth[top] = d + 1
                        s_feat[top] = -1
                        s_side[top] = 0
                        s_start[top] = btop + n_left
                        s_len[top] = n_right
                        s_top[top] = new_top
                        top += 1
                    continue
                gx = _go_left(X[i, f], nd, kind, thr, missing_left, cat_left, cat_known, bitsets)
                if gx:
                    same_start, same_len, diff_start, diff_len = btop, n_left, btop + n_left, n_right
                    child_x, child_b = left[nd], right[nd]
                else:
                    same_start, same_len, diff_start, diff_len = btop + n_left, n_right, btop, n_left
                    child_x, child_b = right[nd], left[nd]
                if diff_len > 0:
                    s_node[top] = child_b
                    s_depth[top] = d + 1
                    s_feat[top] = f
                    s_side[top] = 2
                    s_start[top] = diff_start
                    s_len[top] = diff_len
                    s_top[top] = new_top
                    top += 1
                    s_node[top] = child_x
                    s_depth[top] = d + 1
                    s_feat[top] = f
                    s_side[top] = 1
                    s_start[top] = diff_start
                    s_len[top] = diff_len
                    s_top[top] = new_top
                    top += 1
                if same_len > 0:
                    s_node[top] = child_x
                    s_depth[top] = d + 1
                    s_feat[top] = -1
                    s_side[top] = 0
                    s_start[top] = same_start
                    s_len[top] = same_len
                    s_top[top] = new_top
                    top += 1
            # Pay out what is left on the path and reset the state for the next row.
            while depth > 0:
                depth -= 1
                sd = path_side[depth]
                if sd != 0:
                    fk = path_feat[depth]
                    state[fk] = 0
                    for c in range(n_out):
                        if sd == 1:
                            phi[i, fk, c] += acc_pos[depth, c]
                        else:
                            phi[i, fk, c] -= acc_neg[depth, c]
                for c in range(n_out):
                    if depth > 0:
                        acc_pos[depth - 1, c] += acc_pos[depth, c]
                        acc_neg[depth - 1, c] += acc_neg[depth, c]
                    acc_pos[depth, c] = 0.0
                    acc_neg[depth, c] = 0.0
    return phi
