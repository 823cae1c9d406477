"""How well each feature is explained by the others (a warning sign for marginal methods)."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse

from ._dtypes import numeric_or_bool_columns

__all__ = ["MAX_DUMMIES", "MIN_ROWS_PER_REGRESSOR", "RIDGE", "adjusted_r2", "dependence_partner", "dependence_r2"]

#: Dummy columns allowed for the categoricals other than the one with the most levels (that one
#: is absorbed exactly, whatever its number of levels). Beyond it each of them keeps its most
#: frequent levels and lumps the rest into one; the R² is then a lower bound.
MAX_DUMMIES = 1024

#: The ridge term (on the correlation scale, where every column has unit variance) used when the
#: columns are as many as the rows' degrees of freedom: there the unpenalised R² is 1 for every
#: column whatever the data, and a shrunken one still ranks how well each is explained.
RIDGE = 0.1

#: Rows per regressor below which :func:`adjusted_r2` refuses to judge (NaN): with fewer, even
#: the adjusted R² of unrelated columns scatters widely around 0 (its sd is about sqrt(d) / n).
MIN_ROWS_PER_REGRESSOR = 5


def dependence_r2(X):
    """R² of a linear regression of each numeric column on all the other columns.

    Categorical and text columns enter as dummies (they get no R² of their own: NaN); a missing
    value of a categorical is a level of its own. Exact copies give R² = 1.

    Parameters
    ----------
    X : DataFrame, shape (n, p)

    Returns
    -------
    Series indexed by column, values in [0, 1] or NaN. ``attrs["lumped"]`` lists the
    categoricals whose rare levels were lumped (see Notes); usually empty. ``attrs["ridge"]`` is
    the ridge term used (0.0: exact least squares; ``RIDGE`` when the columns are at least as
    many as the rows' degrees of freedom, where every exact R² would be 1). ``attrs["n_rows"]``
    is the rows fitted and ``attrs["n_regressors"]`` the design's columns d besides the intercept
    (the other numeric columns, the dummies and the absorbed categorical's levels minus one), for
    :func:`adjusted_r2`.

    Notes
    -----
    No dummy matrix is built. The categorical B with the most levels is absorbed by the
    within-level transformation (Frisch-Waugh-Lovell): the numeric columns minus their means
    per level of B, and the other categoricals' dummies as sufficient statistics -- counts per
    pair of levels, Σ_l n_gl n_gm / n_g -- from sparse cross-tabulations. Everything is then a
    (q + d) × (q + d) Gram matrix W of the q numeric columns and the d dummies of the other
    categoricals on the within-B scale, and the residual sum of squares of numeric column k on
    all other columns is

        RSS_k = S_kk − s_k' S_rest⁺ s_k,    S = W_NN − W_ND W_DD⁺ W_DN,

    with R²_k = 1 − RSS_k / TSS_k (TSS about the overall mean). All q residuals come from one
    eigendecomposition of S: RSS_k = 1 / (S⁺)_kk, or 0 when column k is in an exact linear
    dependence (see ``_residual_variances``). Time O(n (q + c)) plus O((q + d)³), memory
    O(n q) for any number of levels of B; d is at most ``MAX_DUMMIES`` (rare levels of the
    other categoricals are lumped beyond it). Rows with a missing or
    infinite numeric value are left out.
    """
    numeric = numeric_or_bool_columns(X)
    others = [c for c in X.columns if c not in numeric]
    out = pd.Series(np.nan, index=X.columns, dtype=float)
    out.attrs["lumped"] = []
    out.attrs["n_rows"], out.attrs["n_regressors"] = 0, 0
    if not numeric or len(X) < 3:
        return out
    keep = _finite_rows(X, numeric)
    n, q = int(keep.sum()), len(numeric)
    if n < 2:
        return out
    codes = [_codes(X[c], keep) for c in others]
    # B: the categorical with the most levels, absorbed exactly; none: one level (centring).
    b = int(np.argmax([L for _, L in codes])) if codes else None
    cb, LB = codes[b] if codes else (np.zeros(n, dtype=np.int64), 1)
    rest = [(c, *codes[k]) for k, c in enumerate(others) if k != b]
    rest = _lump(rest, n, out.attrs["lumped"])
    nb = np.bincount(cb, minlength=LB).astype(float)

    Uw, tss = _within_levels(X, numeric, keep, cb, LB, nb)
    if not rest and q > n >= LB:
        # Only numeric columns (and B) and more of them than rows: the ridge case below, its q × q Gram matrix and
        # inverse (O(n q² + q³): 17 s and 370 MB for ISLP NCI60's 6,830 genes) replaced by the n × n dual.
        ss, dropped, constant, Z = _scaled_columns(Uw, tss, [nb - nb ** 2 / n] if codes else [])
        rss = _dual_ridge_residuals(Z, RIDGE)
        d = 0
        ridge = RIDGE
    else:
        W, table_tss = _gram(Uw, cb, LB, nb, [(cc, L) for _, cc, L in rest])
        d = W.shape[0] - q
        # Total (not within) variances of the dummies, B's levels first: the scale for "constant", as a dense fit's.
        dummy_tss = ([nb - nb ** 2 / n] if codes else []) + table_tss
        S, ss, dropped, constant = _numeric_block(W, tss, dummy_tss, q)
        # With as many columns as residual degrees of freedom every column is an exact linear
        # combination of the others (R² = 1 says nothing): shrink with a ridge term, and say so.
        ridge = RIDGE if q + d >= n - LB else 0.0
        rss = _residual_variances(S, ridge)
    out.attrs["ridge"] = ridge
    out.attrs["n_rows"], out.attrs["n_regressors"] = n, q - 1 + d + LB - 1
    for k, c in enumerate(numeric):
        if constant[k]:
            continue
        out[c] = 1.0 if dropped[k] else float(np.clip(1.0 - rss[k] * ss[k] / tss[k], 0.0, 1.0))
    return out


def _finite_rows(X, numeric):
    """The rows (a boolean mask) whose numeric columns are all finite: the rows fitted."""
    # Column by column (memory: one n × q array, not a copied frame, its array and their centred
    # and demeaned copies -- 3x X's size at 2e5 rows, 250 MB at 1e6, inside every PFI call).
    keep = np.ones(len(X), dtype=bool)
    for c in numeric:
        keep &= np.isfinite(X[c].to_numpy(dtype=float))
    return keep


def _within_levels(X, numeric, keep, cb, LB, nb):
    """The numeric columns centred and demeaned within the levels ``cb`` of B, ``(n, q)``, and their TSS ``(q,)``.

    The TSS is about the overall mean (taken before the within-B demeaning).
    """
    n, q = int(keep.sum()), len(numeric)
    Uw = np.empty((n, q), order="F")
    tss = np.empty(q)
    for j, c in enumerate(numeric):
        u = X[c].to_numpy(dtype=float)
        u = u[keep] if n < len(X) else u.copy()
        u -= u.mean()
        tss[j] = u @ u
        u -= (np.bincount(cb, weights=u, minlength=LB) / nb)[cb]
        Uw[:, j] = u
    return Uw, tss


def _gram(Uw, cb, LB, nb, tables):
    """The within-B Gram matrix W ``(q + d, q + d)`` of the numeric columns and the other categoricals' dummies.

    ``tables`` holds ``(codes, levels)`` of each categorical besides B; each enters with its first
    level dropped, and its dummy blocks come from sparse cross-tabulations (counts per pair of
    levels minus Σ_g n_gl n_gm / n_g), never from a dummy matrix. Also returns each categorical's
    total dummy variances ``n_l - n_l² / n`` (a list of ``(levels,)`` arrays).
    """
    n, q = Uw.shape
    # Dummies of the other categoricals (their first level dropped), demeaned within B.
    blocks, crosstabs = [], []
    for cc, L in tables:
        crosstabs.append((cc, L, sparse.csr_matrix((np.ones(n), (cb, cc)), shape=(LB, L))))
        blocks.append(np.column_stack([np.bincount(cc, weights=Uw[:, j], minlength=L) for j in range(q)])[1:])
    d = sum(L - 1 for _, L, _ in crosstabs)
    W = np.zeros((q + d, q + d))
    W[:q, :q] = Uw.T @ Uw
    inv_nb = sparse.diags(1.0 / nb)
    table_tss = []
    off = q
    for k, (cc, L, N) in enumerate(crosstabs):
        W[:q, off:off + L - 1] = blocks[k].T
        W[off:off + L - 1, :q] = blocks[k]
        nl = np.bincount(cc, minlength=L).astype(float)
        table_tss.append(nl - nl ** 2 / n)
        off2 = q
        for k2, (cc2, L2, N2) in enumerate(crosstabs[:k + 1]):
            if k2 == k:
                cross = np.diag(nl)
            else:
                cross = sparse.csr_matrix((np.ones(n), (cc, cc2)), shape=(L, L2)).toarray()
            cross = cross - (N.T @ inv_nb @ N2).toarray()
            W[off:off + L - 1, off2:off2 + L2 - 1] = cross[1:, 1:]
            W[off2:off2 + L2 - 1, off:off + L - 1] = cross[1:, 1:].T
            off2 += L2 - 1
        off += L - 1
    return W, table_tss


def _numeric_block(W, tss, dummy_tss, q):
    """S = W_NN − W_ND W_DD⁺ W_DN on the correlation scale, with what the R² needs from the scaling.

    Returns ``(S, ss, dropped, constant)``: ``ss`` the within-B sums of squares (W's diagonal),
    ``dropped`` the columns without within-B variance (explained by B; zeroed in S) and
    ``constant`` the numeric columns without variance at all (no R² of their own).
    """
    d = W.shape[0] - q
    ss = np.diag(W).copy()
    own = np.concatenate([tss, np.concatenate([t[1:] for t in dummy_tss[1:]]) if d else np.zeros(0)])
    dropped, constant = _dropped_columns(ss, own, tss, dummy_tss)
    s = np.sqrt(np.where(dropped, 1.0, ss))
    W = W / np.outer(s, s)  # correlation scale, so the pseudo-inverses' cut-offs are relative
    W[dropped, :] = 0.0
    W[:, dropped] = 0.0
    S = W[:q, :q]
    if d:
        S = S - W[:q, q:] @ np.linalg.pinv(W[q:, q:], rcond=1e-10, hermitian=True) @ W[q:, :q]
    return S, ss, dropped, constant


def _dropped_columns(ss, own, tss, dummy_tss):
    """``(dropped, constant)`` of the columns whose within-B sums of squares are ``ss`` (numeric columns first, then
    any dummies) and total sums of squares ``own``: ``constant`` the numeric columns (``tss``) without variance
    relative to the largest total of any column (no R² of their own, and no information); ``dropped`` those and every
    column without within-B variance relative to its own total (explained by B)."""
    scale_all = max(float(tss.max()), max((float(t.max()) for t in dummy_tss), default=0.0), 1e-300)
    constant = tss <= 1e-12 * scale_all
    dropped = ss <= 1e-12 * np.maximum(own, 1e-300)
    dropped[:len(tss)] |= constant
    return dropped, constant


def _scaled_columns(Uw, tss, dummy_tss):
    """:func:`_numeric_block`'s scaling without the Gram matrix (no dummies besides B's levels): ``(ss, dropped,
    constant, Z)`` with Z (n, q) the within-B columns on the correlation scale (dropped columns zero), so that
    ``Z'Z`` is that function's S."""
    ss = np.einsum("ij,ij->j", Uw, Uw)
    dropped, constant = _dropped_columns(ss, tss, tss, dummy_tss)
    Z = Uw / np.sqrt(np.where(dropped, 1.0, ss))
    Z[:, dropped] = 0.0
    return ss, dropped, constant, Z


def _dual_ridge_residuals(Z, ridge):
    """``_residual_variances(Z'Z, ridge)`` from the n × n dual (Woodbury), for Z (n, q) with q > n.

    ((λI + Z'Z)⁻¹)_kk = (1 − z_k' (λI + ZZ')⁻¹ z_k) / λ, so one n × n solve replaces the q × q inverse: O(n² q + n³)
    time and O(n q) memory instead of O(n q² + q³) and O(q²). Equal to the primal values to rounding (2.7e-15 on
    NCI60; ``tests/test_dependence_dual.py``).
    """
    n = Z.shape[0]
    G = Z @ Z.T
    G[np.diag_indices(n)] += ridge
    MZ = np.linalg.solve(G, Z)
    diag = (1.0 - np.einsum("ij,ij->j", Z, MZ)) / ridge
    return np.maximum(1.0 / diag - ridge, 0.0)


def adjusted_r2(r2, min_rows_per_regressor=MIN_ROWS_PER_REGRESSOR):
    """Adjusted R² of :func:`dependence_r2`'s values, NaN where the rows are too few to judge.

    On n rows with d regressors the in-sample R² of unrelated columns is about d / (n − 1), so on
    few rows it grows with the number of regressors; the adjusted

        R²_adj = 1 − (1 − R²) (n − 1) / (n − d − 1)

    (Theil 1961) removes that bias. It differs from R² by (1 − R²) d / (n − d − 1): below 1e-3
    for d = 10 regressors on 1e4 rows. Where n < ``min_rows_per_regressor`` · d, or the R² was
    ridge-penalised (d ≥ n), the value is NaN: the check refuses to judge.

    Parameters
    ----------
    r2 : Series
        The output of :func:`dependence_r2` (its ``attrs`` carry n and d).
    min_rows_per_regressor : float

    Returns
    -------
    Series, values in [0, 1] or NaN; ``attrs`` as ``r2``'s.
    """
    n, d = int(r2.attrs.get("n_rows", 0)), int(r2.attrs.get("n_regressors", 0))
    out = r2.copy()
    out.attrs = dict(r2.attrs)
    if r2.attrs.get("ridge") or n - d - 1 <= 0 or n < min_rows_per_regressor * d:
        out[:] = np.nan
        return out
    out[:] = np.clip(1.0 - (1.0 - r2.to_numpy(dtype=float)) * (n - 1) / (n - d - 1), 0.0, 1.0)
    return out


def _residual_variances(S, ridge=0.0):
    """Residual variance of each column of a Gram matrix regressed on all the others, from one eigh.

    For a Gram matrix S (p × p, positive semi-definite), the least-squares residual of column k
    on the other columns is min over w with w_k = 1 of w' S w. When e_k lies in the range of S
    that minimum is 1 / (S⁺)_kk (the constrained quadratic minimum); when some null vector of S
    has a non-zero k-th entry, column k is an exact linear combination of the others and the
    residual is 0. One eigendecomposition gives both for every k: O(p³) once, instead of one
    (p − 1) × (p − 1) pseudo-inverse per column (O(p⁴)). The cut-off for "null" is the same
    relative 1e-10 as numpy's ``pinv(rcond=1e-10)``, so the numbers equal the per-column fits.

    With ``ridge`` = λ > 0 (S on the correlation scale) the value is the minimum of the ridge
    objective w' S w + λ Σ_{j≠k} w_j² at w_k = 1, that is 1 / ((S + λI)⁻¹)_kk − λ: the residual
    plus the penalty, so 1 − it is a shrunken R² that stays below 1 when p ≥ n.
    """
    if ridge > 0:
        inv = np.linalg.inv(S + ridge * np.eye(S.shape[0]))
        return np.maximum(1.0 / np.diag(inv) - ridge, 0.0)
    p = S.shape[0]
    if p == 0:
        return np.zeros(0)
    if p == 1:
        return S.diagonal().copy()
    lam, V = np.linalg.eigh(S)
    cut = 1e-10 * max(float(lam.max()), 0.0)
    pos = lam > cut
    V2 = V * V
    inv_diag = V2[:, pos] @ (1.0 / lam[pos])
    # the share of e_k in the null space: ~0 when column k is not in an exact dependence
    in_null = V2[:, ~pos].sum(axis=1)
    rss = np.where(inv_diag > 0, 1.0 / np.where(inv_diag > 0, inv_diag, 1.0), 0.0)
    return np.where(in_null > 1e-8, 0.0, rss)


def _codes(s, keep):
    """Integer codes 0..L-1 of the levels of ``s`` observed in the kept rows (missing: a level)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        raw = s.cat.codes.to_numpy()
    else:
        raw, _ = pd.factorize(s.astype(object), use_na_sentinel=False)
    raw = raw[keep]
    uniq, codes = np.unique(raw, return_inverse=True)
    return codes.astype(np.int64).ravel(), len(uniq)


def _lump(rest, n, lumped):
    """Keep at most ``MAX_DUMMIES`` dummies in all: each categorical keeps its most frequent levels."""
    if sum(L - 1 for _, _, L in rest) <= MAX_DUMMIES:
        return rest
    cap = max(2, MAX_DUMMIES // len(rest))
    out = []
    for name, cc, L in rest:
        if L > cap:
            counts = np.bincount(cc, minlength=L)
            top = np.argsort(-counts, kind="stable")[:cap - 1]
            new = np.full(L, cap - 1)
            new[top] = np.arange(cap - 1)
            cc, L = new[cc], cap
            lumped.append(name)
        out.append((name, cc, L))
    return out

def dependence_partner(X, feature):
    """The single column most associated with ``feature``, categoricals included.

    It need not carry most of ``feature``'s dependence on the other columns: when that dependence is joint
    (statsmodels scotland: COUTAX_FEMALEUNEMP = COUTAX x UNEMPF explains r² = 0.44 of COUTAX alone, with UNEMPF
    R² = 0.99), the partner's own R² is far below the R² from all the others; compare the two before calling it
    the carrier.

    Each other column's single-column R² of ``feature``, adjusted for its degrees of freedom
    (1 − (1 − R²)(n − 1)/(n − k − 1), k = 1 for a numeric column, L − 1 for one with L levels):
    a numeric column's squared Pearson r, a categorical's correlation ratio η² (the share of
    ``feature``'s variance between its level means; a missing value is a level). The adjustment
    keeps a many-level categorical (an identifier: η² = 1) from winning by its levels alone.

    Returns (partner, adjusted R², r or None, categorical) or None when no column qualifies.
    """
    x = X[feature].to_numpy(dtype=float)
    numeric = set(numeric_or_bool_columns(X))
    best = None
    for c in X.columns:
        if c == feature:
            continue
        if c in numeric:
            z = X[c].to_numpy(dtype=float)
            ok = np.isfinite(x) & np.isfinite(z)
            a, b = x[ok] - x[ok].mean(), z[ok] - z[ok].mean()
            den = np.sqrt((a @ a) * (b @ b))
            if ok.sum() < 3 or den <= 0:
                continue
            r = float(a @ b / den)
            r2, k, n = r * r, 1, int(ok.sum())
        else:
            ok = np.isfinite(x)
            codes, _ = pd.factorize(X[c].astype(object)[ok], use_na_sentinel=False)
            n, k, r = int(ok.sum()), int(codes.max()) if len(codes) else 0, None
            u = x[ok] - x[ok].mean()
            tss = u @ u
            if n < 3 or k < 1 or tss <= 0:
                continue
            counts = np.bincount(codes).astype(float)
            r2 = float((np.bincount(codes, weights=u) ** 2 / counts).sum() / tss)
        if n - k - 1 <= 0:
            continue
        adj = 1.0 - (1.0 - r2) * (n - 1) / (n - k - 1)
        if best is None or adj > best[1]:
            best = (c, adj, r, c not in numeric)
    return best
