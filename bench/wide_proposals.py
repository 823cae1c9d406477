"""Round 5 of issue 22: two exact savings for wide tables, checked against today's functions (not wired in).

On NCI60 (64 x 6,830 genes) two p-dependent steps outside the report's own files dominate ``--quick`` before
its refits (see ``bench/results/report_wide.md``):

1. ``imlkit._dependence.dependence_r2`` in its ridge case (as many columns as rows' degrees of freedom):
   ``np.linalg.inv`` of the q x q matrix S + lambda I, O(q^3), run three times per report (section 1, and the
   PFI warning of the screen and of PFI). The same diagonal from the n x n dual (Woodbury):

       ((lambda I + Z'Z)^-1)_kk = (1 - z_k' (lambda I + ZZ')^-1 z_k) / lambda,

   O(n^2 q + n^3). Here only for tables without categoricals (d = 0, LB = 1); with dummies, Z would first be
   residualised on the within-B dummies (the projection that ``W_DD^+`` applies).
2. ``report/_sec_data._correlation_blocks``: pandas' ``DataFrame.corr`` of every numeric pair and two index
   arrays of all p(p-1)/2 pairs (1.46 GB on NCI60) for the six largest |r|. Blockwise: the standardised
   columns, one block of 256 columns' correlations at a time, each block's top six (ties at the cut kept),
   then the same final selection over the candidates: the same pairs, memory O(256 p).

Each is timed (CPU, ``time.process_time``) beside today's function on the same table, and compared: the R²
to within 1e-12 with the same NaNs and attrs, the pairs by name (the table shows r to 4 digits).

Usage: ``OMP_NUM_THREADS=1 PYTHONPATH=src python bench/wide_proposals.py TABLE.csv TARGET``
(e.g. the ``nci60.csv`` that ``bench/report_wide.py --islp DIR`` builds).
"""
from __future__ import annotations

import resource
import sys
import time

import numpy as np
import pandas as pd


def dual_ridge_r2(X):
    """``dependence_r2(X)`` of an all-numeric table in the ridge case, from the n x n dual; None otherwise."""
    from imlkit import _dependence as D

    numeric = D.numeric_or_bool_columns(X)
    if len(numeric) != X.shape[1] or len(X) < 3:
        return None
    keep = D._finite_rows(X, numeric)
    n, q = int(keep.sum()), len(numeric)
    if n < 2 or q < n - 1:       # ridge iff q + d >= n - LB, here d = 0 and LB = 1
        return None
    cb = np.zeros(n, dtype=np.int64)
    Uw, tss = D._within_levels(X, numeric, keep, cb, 1, np.array([float(n)]))
    ss = np.einsum("ij,ij->j", Uw, Uw)
    constant = tss <= 1e-12 * max(float(tss.max()), 1e-300)
    dropped = (ss <= 1e-12 * np.maximum(tss, 1e-300)) | constant
    Z = Uw / np.sqrt(np.where(dropped, 1.0, ss))
    Z[:, dropped] = 0.0
    lam = D.RIDGE
    M = np.linalg.inv(Z @ Z.T + lam * np.eye(n))
    diag = (1.0 - np.einsum("ij,ij->j", Z, M @ Z)) / lam
    rss = np.maximum(1.0 / diag - lam, 0.0)
    vals = np.where(dropped, 1.0, np.clip(1.0 - rss * ss / np.where(constant, 1.0, tss), 0.0, 1.0))
    vals[constant] = np.nan
    out = pd.Series(vals, index=X.columns, dtype=float)
    out.attrs.update(lumped=[], ridge=lam, n_rows=n, n_regressors=q - 1)
    return out


def top_pairs(X, top=6, block=256):
    """``_correlation_blocks``' rows ``[[a, b, r], ...]`` blockwise, or None (a missing value: pandas as today)."""
    num = [c for c in X.columns if not isinstance(X[c].dtype, pd.CategoricalDtype)]
    A = X[num].to_numpy(dtype=float)
    if len(num) < 2 or not np.isfinite(A).all():
        return None
    A = A - A.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        Z = A / np.sqrt(np.einsum("ij,ij->j", A, A))   # a constant column: NaN, dropped below (pandas: NaN)
    p = Z.shape[1]
    found = []
    for a in range(0, p - 1, block):
        C = Z[:, a:a + block].T @ Z[:, a:]
        ii, jj = np.nonzero(np.triu(np.ones(C.shape, dtype=bool), k=1))
        found.append(_nearest(ii + a, jj + a, C[ii, jj], top))
    i, j, r = _nearest(*(np.concatenate(x) for x in zip(*found)), top)
    pairs = sorted(((abs(v), num[x], num[y], v) for x, y, v in zip(i, j, r)), reverse=True)
    return [[x, y, v] for _, x, y, v in pairs[:top]]


def _nearest(i, j, r, top):
    keep = np.isfinite(r)
    i, j, r = i[keep], j[keep], r[keep]
    if len(r) > top:
        cut = np.partition(-np.abs(r), top - 1)[top - 1]
        near = -np.abs(r) <= cut
        i, j, r = i[near], j[near], r[near]
    return i, j, r


def timed(fn, *args):
    r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.process_time()
    out = fn(*args)
    return out, time.process_time() - t, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - r0) / 1024


def main(path, target):
    from imlkit._dependence import dependence_r2
    from imlkit.report import _sec_data

    X = pd.read_csv(path).drop(columns=[target])
    # the pairs first: the peak RSS only grows, so the smaller peak is measured before the larger
    new_pairs, t_new, m_new = timed(top_pairs, X)
    old_pairs, t_old, m_old = timed(lambda Z: _sec_data._correlation_blocks(Z)[0]["rows"], X)
    same = new_pairs is not None and [p[:2] for p in new_pairs] == [p[:2] for p in old_pairs]
    print(f"correlation pairs: today {t_old:.2f} s CPU (+{m_old:.0f} MB peak), blockwise {t_new:.2f} s "
          f"(+{m_new:.0f} MB peak before today's ran); same pairs: {same}")
    for rows in (slice(None), slice(0, max(20, len(X) // 3))):
        Xr = X.iloc[rows]
        new, t_new, _ = timed(dual_ridge_r2, Xr)
        if new is None:
            print(f"dependence_r2 on {len(Xr)} rows: not the ridge case of an all-numeric table")
            continue
        old, t_old, _ = timed(dependence_r2, Xr)
        diff = float(np.nanmax(np.abs(old.to_numpy() - new.to_numpy())))
        print(f"dependence_r2 on {len(Xr)} rows: today {t_old:.2f} s CPU, dual {t_new:.2f} s; largest difference "
              f"{diff:.1e}, same NaNs {bool((old.isna() == new.isna()).all())}, same attrs {old.attrs == new.attrs}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
