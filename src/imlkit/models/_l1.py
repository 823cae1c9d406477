"""L1-penalised regression for RuleFit: the lasso and logistic regression along a λ path, λ by cross-validation.

RuleFit needs this for hundreds of 0/1 rule columns; scikit-learn's liblinear and saga
solvers are slow there for small λ. The logistic path is a proximal-Newton solver in the manner
of glmnet (Friedman, Hastie & Tibshirani 2010): each Newton step is a weighted lasso solved by
accelerated proximal gradient on the Gram matrix of the *active* columns only, which stay few
along a path started at λ_max with warm starts; the columns violating the KKT condition at the
warm start enter first, and a KKT check on all columns adds any that were missed.

References
----------
Friedman, J., Hastie, T., & Tibshirani, R. (2010). Regularization paths for generalized linear
models via coordinate descent. Journal of Statistical Software, 33(1), 1-22.
"""
from __future__ import annotations

import numpy as np
from sklearn.linear_model import lasso_path

__all__ = ["l1_logistic_cv", "l1_logistic_path", "lambda_max", "lasso_cv", "sigmoid"]


def lasso_cv(X, y, folds, n_lambdas=20, lambda_ratio=1e-3, max_iter=5000):
    """Lasso with λ chosen by cross-validated squared error; the final fit walks the path too.

    Minimises ``‖y − b − Xβ‖²/(2n) + λ‖β‖₁`` (scikit-learn's Lasso) on the grid
    ``λ_max · logspace(0, log10(lambda_ratio), n_lambdas)``, ``λ_max = max|X_cᵀy_c|/n``
    (LassoCV's grid), λ minimising the mean over folds of the fold's test MSE. Unlike
    LassoCV, the full-data fit is warm-started along the grid down to the chosen λ: a cold
    coordinate-descent start at a small λ on hundreds of correlated rule columns took 48 s
    of a 55 s RuleFit fit on 20,000 rows.

    Returns
    -------
    intercept : float
    coef : ndarray, shape (p,)
    lam : float
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)

    def centred(A, v):
        mA, mv = A.mean(axis=0), v.mean()
        return np.asfortranarray(A - mA), v - mv, mA, mv

    Xc, yc, mX, my = centred(X, y)
    lmax = max(float(np.max(np.abs(Xc.T @ yc))) / len(y), 1e-12) if X.shape[1] else 1e-12
    grid = lmax * np.logspace(0, np.log10(lambda_ratio), n_lambdas)
    if X.shape[1] == 0:
        return float(my), np.zeros(0), float(grid[0])
    mse = np.zeros(len(grid))
    for tr, te in folds:
        A, v, mA, mv = centred(X[tr], y[tr])
        _, coefs, _ = lasso_path(A, v, alphas=grid, max_iter=max_iter)
        pred = mv + (X[te] - mA) @ coefs  # (n_te, m)
        mse += np.mean((y[te][:, None] - pred) ** 2, axis=0) / len(folds)
    k = int(np.argmin(mse))
    _, coefs, _ = lasso_path(Xc, yc, alphas=grid[: k + 1], max_iter=max_iter)
    coef = coefs[:, -1]
    return float(my - mX @ coef), coef, float(grid[k])


def sigmoid(z):
    """σ(z) = 1 / (1 + e^(−z)), elementwise, written with tanh so large |z| does not overflow."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # overflow-free


def _soft(x, t):
    return np.sign(x) * np.maximum(np.abs(x) - t, 0.0)


def _top_eigenvalue(G, n_iter=30):
    """Largest eigenvalue of a PSD matrix by power iteration, inflated a little to stay an upper bound."""
    v = np.ones(G.shape[0]) / np.sqrt(G.shape[0])
    lam = 0.0
    for _ in range(n_iter):
        u = G @ v
        lam = float(np.linalg.norm(u))
        if lam == 0.0:
            return float(np.abs(G).sum(axis=1).max())
        v = u / lam
    return min(1.05 * lam, float(np.abs(G).sum(axis=1).max()))  # Gershgorin caps it


def _wlasso(G, c, lam, coef, penalised, n_iter=300, tol=1e-6):
    """min_θ ½θᵀGθ − cᵀθ + λ Σ_{penalised} |θ_j| by FISTA (G positive semi-definite, small)."""
    L = max(_top_eigenvalue(G), 1e-12)
    thr = lam / L * penalised
    x = coef.copy()
    yk, t = x.copy(), 1.0
    for _ in range(n_iter):
        g = G @ yk - c
        x_new = _soft(yk - g / L, thr)
        step = x_new - x
        if np.abs(step).max() < tol:
            x = x_new
            break
        if (yk - x_new) @ step > 0:  # momentum points uphill: restart (O'Donoghue & Candès 2015)
            t = 1.0
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        yk = x_new + ((t - 1.0) / t_new) * step
        x, t = x_new, t_new
    return x


def _fit_one(X, y, lam, b, beta, max_newton=50, tol=1e-5, inner_tol=1e-6):
    """One λ of the path from the warm start ``(b, beta)``; returns the new ``(b, beta)``.

    ``X`` may be float32: every product with it is then taken in float32 (vectors are cast
    down first so numpy does not silently copy ``X`` up to float64).
    """
    n, p = X.shape
    dt = X.dtype
    eta = b + (X @ beta.astype(dt)).astype(float)
    grad = (X.T @ (y - sigmoid(eta)).astype(dt)).astype(float) / n
    # start from the nonzeros and the columns violating the KKT condition now; the KKT check
    # below adds the rest (a looser strong-rule screen made the active Gram matrix too big)
    active = (beta != 0) | (np.abs(grad) > lam)
    idx = XA = None
    for _ in range(max_newton):
        new_idx = np.flatnonzero(active)
        if idx is None or not np.array_equal(new_idx, idx):  # the column gather is the costly copy
            idx = new_idx
            XA = X[:, idx]
        eta = b + (XA @ beta[idx].astype(dt)).astype(float)
        pr = sigmoid(eta)
        w = np.maximum(pr * (1.0 - pr), 1e-5)
        z = eta + (y - pr) / w
        wX = XA * w.astype(dt)[:, None]
        G = np.empty((idx.size + 1, idx.size + 1))
        G[0, 0] = w.sum() / n
        G[0, 1:] = G[1:, 0] = wX.sum(axis=0, dtype=float) / n
        G[1:, 1:] = XA.T @ wX / n
        c = np.r_[(w * z).sum() / n, (wX.T @ z.astype(dt)).astype(float) / n]
        old = np.r_[b, beta[idx]]
        pen = np.r_[0.0, np.ones(idx.size)]
        new = _wlasso(G, c, lam, old, pen, tol=inner_tol)
        b = float(new[0])
        beta = np.zeros(p)
        beta[idx] = new[1:]
        # KKT on all columns for the logistic loss itself
        resid = y - sigmoid(b + (XA @ new[1:].astype(dt)).astype(float))
        grad = (X.T @ resid.astype(dt)).astype(float) / n
        viol = (~active) & (np.abs(grad) > lam * (1 + 1e-6))
        if viol.any():
            active |= viol
            continue
        if np.max(np.abs(new - old)) < tol:
            break
    return b, beta


def lambda_max(X, y):
    """Smallest λ at which every coefficient is 0 (intercept-only fit)."""
    return float(np.max(np.abs(X.T @ (y - y.mean()).astype(X.dtype)))) / X.shape[0]


def l1_logistic_path(X, y, lambdas):
    """Intercepts (m,) and coefficients (m, p) along the decreasing ``lambdas``.

    Minimises −(1/n) Σ [y log σ(f) + (1 − y) log(1 − σ(f))] + λ‖β‖₁ with f = b + Xβ.
    """
    X = np.asarray(X)
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(float)
    y = np.asarray(y, dtype=float)
    ybar = np.clip(y.mean(), 1e-6, 1 - 1e-6)
    b, beta = float(np.log(ybar / (1 - ybar))), np.zeros(X.shape[1])
    B, C = np.empty(len(lambdas)), np.empty((len(lambdas), X.shape[1]))
    for i, lam in enumerate(lambdas):
        b, beta = _fit_one(X, y, lam, b, beta)
        B[i], C[i] = b, beta
    return B, C


def _deviance(y, f):
    return np.mean(np.logaddexp(0.0, f) - y * f, axis=0)


def l1_logistic_cv(X, y, folds, n_lambdas=20, lambda_ratio=1e-3, patience=3):
    """λ minimising the cross-validated log-loss, and the full-data fit at that λ.

    The folds walk down the λ grid together (each with its own warm start) and stop once the
    cross-validated loss has not improved for ``patience`` grid points: the dense end of the
    path, where the solver is slowest, is rarely needed.

    Returns
    -------
    intercept : float
    coef : ndarray, shape (p,)
    lam : float
    cv_loss : ndarray, shape (m,) for the grid points visited
    lambdas : ndarray, shape (m,)
    """
    # float32 halves the cost of the Gram products that dominate; 0/1 rule columns are exact
    # column-major: the solver gathers active columns, a contiguous copy per column then
    X = np.asfortranarray(X, dtype=np.float32)
    y = np.asarray(y, dtype=float)
    lmax = max(lambda_max(X, y), 1e-12)
    grid = lmax * np.logspace(0, np.log10(lambda_ratio), n_lambdas)
    parts = [(np.asfortranarray(X[tr]), y[tr], X[te], y[te]) for tr, te in folds]  # slice once, not per λ
    states = []
    for tr, _ in folds:
        ybar = np.clip(y[tr].mean(), 1e-6, 1 - 1e-6)
        states.append((float(np.log(ybar / (1 - ybar))), np.zeros(X.shape[1])))
    n_te = sum(len(te) for _, te in folds)
    losses, best, since = [], np.inf, 0
    for lam in grid:
        total = 0.0
        for i, (Xtr, ytr, Xte, yte) in enumerate(parts):
            # the folds only rank the λs: a looser inner tolerance (10x) is enough there
            b, beta = _fit_one(Xtr, ytr, lam, *states[i], inner_tol=1e-5)
            states[i] = (b, beta)
            total += _deviance(yte, b + (Xte @ beta.astype(Xte.dtype)).astype(float)) * len(yte)
        losses.append(total / n_te)
        if losses[-1] < best - 1e-9:
            best, since = losses[-1], 0
        else:
            since += 1
            if since >= patience:
                break
    losses = np.asarray(losses)
    k = int(np.argmin(losses))
    B, C = l1_logistic_path(X, y, grid[: k + 1])
    return float(B[-1]), C[-1], float(grid[k]), losses, grid[: len(losses)]
