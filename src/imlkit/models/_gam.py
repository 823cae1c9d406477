"""GAM: penalised regression splines fitted by penalised IRLS on the p × p normal equations.

    g(E[y | x]) = β₀ + f₁(x₁) + f₂(x₂) + ... + (factor and linear terms)

Each spline term is a P-spline (cubic B-splines on equally spaced knots, a second-order
difference penalty; :mod:`._splines`) constrained to sum to zero over the training data, so
the intercept is the mean of the linear predictor and every term is a centred partial
effect. Factor terms are dummy-coded against their first level and linear terms are centred
(both through :mod:`._design`, like the GLM); they are not penalised.

Fitting never forms a dense QR of the n × p model matrix: the sparse basis gives ``XᵀWX``
and ``XᵀWz`` in one pass over the rows, and everything after that -- the smoothing
parameter search, the solve, the effective degrees of freedom, the covariance -- works on
p × p matrices. For the gaussian family the data are touched once, whatever the number of
smoothing parameters tried.
"""
from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy import linalg, optimize, stats
from sklearn.utils.metaestimators import available_if

from .._dtypes import column_kind, is_numeric
from .._validation import ModelError, ValidationError, check_choice, check_float, check_int
from ._design import collinear_partners, fit_design
from ._family import Family, _FamilyEstimator
from ._glm import _independent_columns
from ._splines import bspline_basis, difference_penalty, knots, natural_knots, natural_spline_basis, sum_to_zero

__all__ = ["GAM"]

#: The GAM's families, each with its one link: {family: (link, allowed links)} as in ``Family``.
FAMILIES = {"gaussian": ("identity", ("identity",)), "binomial": ("logit", ("logit",)),
            "poisson": ("log", ("log",)), "gamma": ("log", ("log",))}
TERM_KINDS = ("spline", "factor", "linear", "ns")
#: Penalised IRLS steps during which λ is re-chosen (performance iteration) before it is frozen.
MAX_SELECTION_ITER = 30
#: |η| beyond which a logit fit counts as diverged: σ(±40) is 0 or 1 to double precision.
MAX_LOGIT = 40.0
#: Up to this many raw columns ``XᵀWX`` is accumulated from dense row chunks (see _crossprod).
DENSE_CROSSPROD_MAX_COLS = 400
TEST_METHOD = ("Wald test of f_j = 0 on the term's fitted values with a rank-r pseudo-inverse of its "
               "Bayesian covariance, r = round(edf_j) (Wood 2013, without the fractional-rank "
               "refinement); chi-squared reference, F(r, n - edf) when the scale is estimated.")


# ----------------------------------------------------------------------------- cross-products
def _crossprod(Xraw, w=None, chunk=8192):
    """``XᵀWX`` of the sparse raw model matrix, shape (p_raw, p_raw), dense.

    For a few hundred columns, dense row chunks through BLAS beat a sparse product several
    times over (the result is dense anyway) while memory stays at ``chunk × p_raw``; wider
    models keep the sparse product, whose cost grows with the non-zeros per row only.
    """
    n, p = Xraw.shape
    if p > DENSE_CROSSPROD_MAX_COLS:
        XtW = Xraw.T if w is None else Xraw.T.multiply(w).tocsr()
        return (XtW @ Xraw).toarray()
    out = np.zeros((p, p))
    for i in range(0, n, chunk):
        D = Xraw[i:i + chunk].toarray()
        out += D.T @ (D if w is None else D * w[i:i + chunk, None])
    return out


# ----------------------------------------------------------------------------- terms
@dataclass
class _Term:
    name: str
    kind: str
    raw: slice = None           # columns of the raw (unconstrained) model matrix
    coef: slice = None          # entries of the constrained coefficient vector
    Z: np.ndarray = None        # raw -> constrained map, shape (k_raw, k)
    S: np.ndarray = None        # penalty in the constrained parametrisation, (k, k)
    rank: int = 0               # rank of S
    knots: np.ndarray = None
    levels: list = None
    center: float = 0.0
    lo: float = 0.0
    hi: float = 0.0
    values: np.ndarray = field(default=None, repr=False)
    df: int = 0                 # "ns" terms: degrees of freedom
    col_means: np.ndarray = None  # "ns" terms: training means of the basis columns


@dataclass
class _ModelMatrices:
    """What the fitting steps share: the raw model matrix and its constrained parametrisation."""
    Xraw: sp.csr_matrix         # raw model matrix, shape (n, p_raw): intercept, bases, dummies, linear
    Z: np.ndarray               # raw -> constrained coefficients, shape (p_raw, p)
    A0: np.ndarray              # ZᵀXᵀXZ, unweighted, shape (p, p)
    pen: list                   # the penalised (spline) terms
    n: int
    p: int
    method: str = None          # "gcv" or "reml" when λ is chosen, None when fixed
    lam: np.ndarray = None      # the fixed λ, one per penalised term


@dataclass
class _Solution:
    """The result of a fitting step; ``A`` and ``cf`` at the solution's working weights."""
    beta: np.ndarray
    lam: np.ndarray
    n_iter: int
    converged: bool
    A: np.ndarray = None        # ZᵀXᵀWXZ
    cf: tuple = None            # Cholesky factor of A + S_λ
    diverged: bool = False
    eta: np.ndarray = None
    mu: np.ndarray = None
    jitter: float = 0.0
    eta_max: float = 0.0


class _Smoother:
    """Penalised least squares on the working model, given its cross-products only.

    Minimises ``‖√W(z − Xβ)‖² + Σ_j λ_j βᵀS_jβ`` from ``A = XᵀWX``, ``b = XᵀWz`` and ``zᵀWz``.
    """

    def __init__(self, A, b, zz, n, terms, scale_known, ubre=False):
        self.A, self.b, self.zz, self.n = A, b, zz, n
        self.ubre = ubre
        self.pen = [t for t in terms if t.S is not None]
        self.scale_known = scale_known
        p = A.shape[0]
        self.Mp = p - sum(t.rank for t in self.pen)
        self.jitter = 1e-10 * max(float(np.mean(np.diag(A))), 1e-300)

    def penalty(self, lam):
        Sl = np.zeros_like(self.A)
        for t, lj in zip(self.pen, lam):
            Sl[t.coef, t.coef] += lj * t.S
        return Sl

    def solve(self, lam):
        Sl = self.penalty(lam)
        H = self.A + Sl
        for k in range(6):
            try:
                cf = linalg.cho_factor(H + (self.jitter * 10.0 ** (2 * k) * np.eye(len(H)) if k else 0.0),
                                       lower=True, check_finite=False)
                break
            except linalg.LinAlgError:
                continue
        else:  # pragma: no cover - only for a degenerate design
            raise ModelError("The penalised normal equations are singular; drop collinear terms.")
        beta = linalg.cho_solve(cf, self.b, check_finite=False)
        return cf, beta, Sl

    def criterion(self, rho, method):
        """The smoothness criterion at ``ρ = log λ`` and its gradient in ``ρ``.

        ``method`` is "gcv" (log GCV of the working model, Gu 1992; n·UBRE for 0/1 data,
        whose scale is exactly 1 and where GCV undersmooths) or "reml". With ``H = A + S_λ``, ``β = H⁻¹b``:
        ``∂rss/∂ρ_j = 2λ_j βᵀS_λH⁻¹S_jβ``, ``∂τ/∂ρ_j = −λ_j tr(H⁻¹S_jH⁻¹A)``,
        ``∂D_p/∂ρ_j = λ_j βᵀS_jβ``, ``∂log|H|/∂ρ_j = λ_j tr(H⁻¹S_j)``.
        """
        lam = np.exp(rho)
        cf, beta, Sl = self.solve(lam)
        n = self.n
        p = len(beta)
        Hinv = linalg.cho_solve(cf, np.eye(p), check_finite=False)
        grads = np.zeros(len(lam))
        if method == "gcv":
            rss = max(self.zz - 2 * beta @ self.b + beta @ self.A @ beta, 1e-300 * n)
            HinvA = Hinv @ self.A
            tau = float(np.trace(HinvA))
            HinvSb = Hinv @ (Sl @ beta)
            for j, (t, lj) in enumerate(zip(self.pen, lam)):
                sj = t.S @ beta[t.coef]
                drss = 2 * lj * HinvSb[t.coef] @ sj
                dtau = -lj * np.sum((Hinv[:, t.coef] @ t.S) * HinvA[t.coef, :].T)
                if self.ubre:
                    grads[j] = drss + 2 * dtau
                else:
                    grads[j] = drss / rss + 2 * dtau / max(n - tau, 1e-8)
            if self.ubre:  # n·UBRE with φ = 1 (Craven & Wahba 1979; mgcv's choice for binomial)
                return rss - n + 2.0 * tau, grads
            # log GCV: scale-free, so the optimiser's tolerances mean the same for any units of y.
            return np.log(n * rss) - 2 * np.log(max(n - tau, 1e-8)), grads
        # Laplace-approximate REML (Wood 2011), constants dropped; log|S_λ|₊ = Σ_j r_j log λ_j
        # because the penalties act on disjoint blocks.
        dp = max(self.zz - beta @ self.b, 1e-300 * n)
        logdet_h = 2.0 * np.sum(np.log(np.diag(cf[0])))
        log_s = sum(t.rank * r for t, r in zip(self.pen, rho))
        for j, (t, lj) in enumerate(zip(self.pen, lam)):
            bj = beta[t.coef]
            ddp = lj * bj @ t.S @ bj
            dlogdet = lj * np.sum(Hinv[t.coef, t.coef] * t.S)
            grads[j] = (ddp if self.scale_known else (n - self.Mp) * ddp / dp) + dlogdet - t.rank
        if self.scale_known:
            return dp + logdet_h - log_s, grads
        return (n - self.Mp) * np.log(dp) + logdet_h - log_s, grads


def _initial_rho(sm):
    """log λ that balances each penalty against its block of ``XᵀWX``."""
    out = []
    for t in sm.pen:
        a = float(np.trace(sm.A[t.coef, t.coef]))
        s = float(np.trace(t.S))
        out.append(np.log(max(a, 1e-12) / max(s, 1e-12)) - np.log(10.0))
    return np.asarray(out)


def _select(sm, method, rho_start=None, center=None):
    """Minimise GCV or REML over per-term log smoothing parameters (L-BFGS-B)."""
    center = _initial_rho(sm) if center is None else center
    if rho_start is None:
        shifts = np.arange(-8.0, 13.0, 2.0)
        vals = [sm.criterion(center + s, method)[0] for s in shifts]
        rho_start = center + shifts[int(np.argmin(vals))]
    bounds = [(c - 14.0, c + 18.0) for c in center]
    res = optimize.minimize(sm.criterion, np.clip(rho_start, [b[0] for b in bounds], [b[1] for b in bounds]),
                            args=(method,), jac=True, method="L-BFGS-B", bounds=bounds,
                            options={"maxiter": 200})
    return res.x, center


# ----------------------------------------------------------------------------- the model
class GAM(_FamilyEstimator):
    """Generalised additive model with penalised regression splines (P-splines).

    Parameters
    ----------
    terms : "auto" or dict, default "auto"
        ``{column: "spline" | "factor" | "linear" | ("ns", df)}``; columns left out are not used.
        ``("ns", df)`` is an unpenalised natural cubic regression spline with ``df`` degrees of
        freedom (R's ``ns(x, df)``, patsy's ``cr(x, df)``): ``df − 1`` interior knots at the
        quantiles k/df of the column, boundary knots at its range, linear beyond them; its
        columns are centred, so it sums to zero over the training data like a P-spline term.
        ``"auto"`` uses every column: a spline for numeric columns with at least 4 distinct
        values, linear for other numeric columns, a factor for categorical ones.
    family : {"gaussian", "binomial", "poisson", "gamma"}, default "gaussian"
        Links: identity, logit, log, log.
    smoothing : "reml", "gcv", float or dict, default "reml"
        How the smoothing parameters λ_j are chosen: per spline term by restricted maximum
        likelihood (the default: its criterion is smoother and it undersmooths less often,
        Wood 2011) or generalised cross validation (UBRE for the binomial family, whose scale
        is known), or fixed (one float for every spline term, or ``{term: λ}``). λ multiplies
        the raw difference penalty ``‖D₂β‖²``, as in pyGAM, so equal λ give pyGAM's fit.
    n_splines : int, default 20
        B-spline basis functions per spline term, at most: it is reduced to the number of
        distinct values + 2, and further (to no fewer than 4) so that the model has at most
        n / 2 coefficients; ``n_splines_`` holds the sizes used.
    penalty_order : int, default 2
        Order of the difference penalty (2: heavy smoothing tends to a straight line).
    confidence_level : float or None, default 0.95
        Level of the pointwise bands of :meth:`partial_effect`; None gives ±2 standard errors.
    max_iter : int, default 100
        Penalised IRLS iterations (non-gaussian families).
    tol : float, default 1e-8
        Relative change of the penalised deviance that stops IRLS.

    Attributes
    ----------
    terms_ : dict {term: kind}
    aliased_ : dict {column: list of str}
        Columns left out of the model because the unpenalised part of their term (the linear part
        of a spline, a linear column, a factor's dummies) is an exact linear combination of the
        other terms' (e.g. ``PriceDiff = SalePriceMM − SalePriceCH``), with the columns of that
        dependency; a warning names them. Such terms would make ``XᵀWX + S_λ`` singular whatever
        λ (as R's glm reports an aliased weight NA, the later column of the dependency goes).
    knots_ : dict {spline or ns term: ndarray}
        The knots: equally spaced (P-splines, with 3 extra on each side), or the boundary and
        quantile knots of an ``("ns", df)`` term.
    n_splines_ : dict {spline term: K}
        Basis size used per spline term (see ``n_splines``).
    converged_ : bool
        False when penalised IRLS stopped at ``max_iter`` or the fit diverged (a warning says
        which); always True for the gaussian family (one solve).
    lambdas_ : dict {spline term: λ}
    edf_ : dict {term: effective degrees of freedom}
    coef_ : ndarray, shape (p,)
        Constrained coefficients, intercept first.
    intercept_ : float
    covariance_ : ndarray, shape (p, p)
        Bayesian posterior covariance ``(XᵀWX + S_λ)⁻¹ φ`` (Wood 2006).
    scale_ : float
        φ: estimated for gaussian and gamma (Pearson / (n − edf)), 1 for binomial and poisson.
    pearson_dispersion_ : float
        Pearson χ² / (n − edf) for every family: about 1 when the family's variance holds.
    overdispersion_p_ : float
        Poisson and exponential only (their φ is fixed at 1; NaN otherwise, 0/1 rows carry no information on
        it): the one-sided p-value of the Pearson χ² against χ²(n − edf). A small one says the counts vary more
        than the family allows, so the bands of :meth:`partial_effect` and the p-values of :meth:`summary`,
        which assume φ = 1, are too narrow and too small (by about √``pearson_dispersion_`` for the bands).
    deviance_ : float
    n_iter_ : int
    classes_ : ndarray, shape (2,), binomial only.
    family_ : Family
        The family with its link (:class:`imlkit.models._family.Family`), shared with the GLM.

    Notes
    -----
    The fit minimises ``D(β) + Σ_j λ_j βᵀS_jβ`` by penalised IRLS: with working weights
    ``w = (dμ/dη)² / V(μ)`` and response ``z = η + (y − μ) dη/dμ``, each step solves
    ``(XᵀWX + S_λ) β = XᵀWz`` by Cholesky. With ``smoothing="gcv"`` or ``"reml"`` the λ_j are
    re-chosen at every step on the working model ("performance iteration", Gu 1992; Wood 2004;
    after 30 steps λ is frozen so that IRLS converges even if the choice cycles):
    GCV ``n ‖√W(z − Xβ)‖² / (n − τ)²`` with ``τ = tr((XᵀWX + S_λ)⁻¹XᵀWX)`` (UBRE
    ``‖√W(z − Xβ)‖² − n + 2τ`` for binomial), or the Laplace REML
    ``(n − M_p) log(D_p) + log|XᵀWX + S_λ| − log|S_λ|₊`` with ``D_p`` the penalised residual
    sum of squares (scale profiled out; ``D_p + log|·| − log|·|₊`` when the scale is 1;
    ``M_p`` the dimension of the penalty null space). Both are minimised over ``log λ`` by
    L-BFGS-B with exact gradients. The effective degrees of freedom of a term are the
    sum of its entries of ``diag((XᵀWX + S_λ)⁻¹XᵀWX)``. Bands use the Bayesian covariance,
    whose pointwise intervals have close to nominal average coverage (Nychka 1988).
    Each smooth satisfies ``Σ_i f_j(x_ij) = 0``.

    References
    ----------
    Hastie, T. and Tibshirani, R. (1990). Generalized Additive Models. Chapman & Hall.
    Eilers, P. H. C. and Marx, B. D. (1996). Flexible smoothing with B-splines and penalties.
    Wood, S. N. (2011). Fast stable restricted maximum likelihood and marginal likelihood
    estimation of semiparametric generalized linear models. JRSS B 73(1).
    Wood, S. N. (2013). On p-values for smooth components of an extended generalized additive
    model. Biometrika 100(1).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"x": rng.uniform(0, 1, 300)})
    >>> y = np.sin(2 * np.pi * X["x"]) + rng.normal(0, 0.2, 300)
    >>> gam = GAM().fit(X, y)
    >>> bool(3 < gam.edf_["x"] < 12)
    True
    """

    def __init__(self, *, terms="auto", family="gaussian", smoothing="reml", n_splines=20, penalty_order=2,
                 confidence_level=0.95, max_iter=100, tol=1e-8):
        self.terms = terms
        self.family = family
        self.smoothing = smoothing
        self.n_splines = n_splines
        self.penalty_order = penalty_order
        self.confidence_level = confidence_level
        self.max_iter = max_iter
        self.tol = tol

    # -- parameters and terms
    def _check_params(self):
        check_int("n_splines", self.n_splines, min_value=4)
        check_int("penalty_order", self.penalty_order, min_value=1, max_value=3)
        check_int("max_iter", self.max_iter, min_value=1)
        check_float("tol", self.tol, low=0, low_inclusive=False)
        if self.confidence_level is not None:
            check_float("confidence_level", self.confidence_level, low=0, high=1, low_inclusive=False,
                        high_inclusive=False)
        s = self.smoothing
        if isinstance(s, str):
            check_choice("smoothing", s, ["gcv", "reml"])
        elif isinstance(s, dict):
            for k, v in s.items():
                check_float(f"smoothing[{k!r}]", v, low=0, low_inclusive=False)
        elif isinstance(s, numbers.Real) and not isinstance(s, bool):
            check_float("smoothing", s, low=0, low_inclusive=False)
        else:
            raise ValidationError(f"'smoothing' must be one of 'gcv', 'reml', a number > 0 or a dict "
                                  f"{{term: number > 0}}; got {s!r}.")

    def _term_kinds(self, frame):
        self._ns_df = {}
        if isinstance(self.terms, str):
            check_choice("terms", self.terms, ["auto"])
            kinds = {}
            for c in frame.columns:
                self._refuse_dates(frame, c)
                if not is_numeric(frame[c]):
                    kinds[c] = "factor"
                else:
                    kinds[c] = "spline" if frame[c].nunique() >= 4 else "linear"
            return kinds
        if not isinstance(self.terms, dict) or not self.terms:
            raise ValidationError(f"'terms' must be 'auto' or a non-empty dict {{column: 'spline' | 'factor' | "
                                  f"'linear'}}; got {self.terms!r}.")
        kinds = {}
        for c, kind in self.terms.items():
            if c not in frame.columns:
                raise ValidationError(f"Unknown feature {c!r} in 'terms'; the columns are {list(frame.columns)}.")
            if isinstance(kind, tuple) and len(kind) == 2 and kind[0] == "ns":
                df = check_int(f"terms[{c!r}][1] (the degrees of freedom)", kind[1], min_value=1)
                if frame[c].nunique() < df + 1:
                    raise ValidationError(f"Column {c!r} has {frame[c].nunique()} distinct values; a natural spline "
                                          f"with df={df} needs at least {df + 1} (one per knot).")
                self._ns_df[c] = df
                kind = "ns"
            elif kind == "ns":
                raise ValidationError(f"terms[{c!r}]: a natural spline needs its degrees of freedom, e.g. "
                                      f"('ns', 4); got 'ns'.")
            kinds[c] = kind if kind == "ns" else check_choice(f"terms[{c!r}]", kind, TERM_KINDS[:3])
            if kind in ("spline", "linear", "ns"):
                self._refuse_dates(frame, c)
            if kind in ("spline", "linear", "ns") and not is_numeric(frame[c]):
                raise ValidationError(f"Column {c!r} is categorical; a {kind} term needs a numeric column "
                                      f"(use 'factor').")
            if kind == "spline" and frame[c].nunique() < 2:
                raise ValidationError(f"Column {c!r} has fewer than 2 distinct values; a spline term needs more.")
        return kinds

    @staticmethod
    def _refuse_dates(frame, c):
        if column_kind(frame[c]) == "datetime":
            raise ValidationError(f"Column {c!r} holds dates; a spline or linear term needs a number. Convert it "
                                  f"(e.g. to days since the first date), make it a 'factor', or leave it out of "
                                  f"'terms'.")

    def _coerce(self, frame):
        """Numeric columns used as factors become categoricals with the training levels."""
        conv = {c: lv for c, lv in self._factor_levels.items() if is_numeric(frame[c])}
        if not conv:
            return frame
        frame = frame.copy()
        for c, lv in conv.items():
            frame[c] = pd.Categorical(frame[c], categories=lv)
        return frame

    def _basis_sizes(self, frame, kinds):
        """B-spline basis size K_j per spline term, small enough for the data to carry.

        ``K_j = min(n_splines, distinct values of x_j + 2, K_max)``, at least 4 (one cubic
        piece). ``K_max`` is the largest size that keeps the model's coefficients
        (1 + Σ_j (K_j − 1) + factor and linear columns) at most ``n / 2``, so that the
        residual degrees of freedom never run out even when λ is small. Raises
        ValidationError when even K_j = 4 does not fit.
        """
        n = len(frame)
        sizes = {}
        fixed = 1  # intercept
        for c, kind in kinds.items():
            if kind == "spline":
                x = frame[c].to_numpy(dtype=float)
                sizes[c] = int(min(self.n_splines, max(4, np.unique(x[np.isfinite(x)]).size + 2)))
            elif kind == "factor":
                fixed += max(frame[c].nunique() - 1, 0)
            elif kind == "ns":
                fixed += self._ns_df[c]
            else:
                fixed += 1
        if not sizes:
            return sizes
        budget = n // 2
        for cap in range(max(sizes.values()), 3, -1):
            used = fixed + sum(min(k, cap) - 1 for k in sizes.values())
            if used <= budget:
                return {c: min(k, cap) for c, k in sizes.items()}
        need = fixed + 3 * len(sizes)
        raise ValidationError(f"'X' has too few rows for this GAM: {len(sizes)} spline term(s) need at least "
                              f"{need} coefficients even with the smallest basis (4 B-splines each), and a GAM "
                              f"here needs at least 2 rows per coefficient ({2 * need}); got {n}. Use fewer "
                              f"spline terms (terms={{column: 'linear'}}) or more rows.")

    def _build_terms(self, frame, kinds):
        cache = {}
        sizes = self._basis_sizes(frame, kinds)
        self.n_splines_ = dict(sizes)
        self._factor_levels = {c: sorted(frame[c].unique()) for c, k in kinds.items()
                               if k == "factor" and is_numeric(frame[c])}
        frame = self._coerce(frame)
        fl = [c for c, k in kinds.items() if k in ("factor", "linear")]
        self._design = fit_design(frame, features=fl, intercept=False)
        terms, raw_pos, coef_pos = [], 1, 1
        for c, kind in kinds.items():
            t = _Term(name=c, kind=kind)
            if kind == "spline":
                x = frame[c].to_numpy(dtype=float)
                if not np.isfinite(x).all():
                    raise ValidationError(f"Column {c!r} of 'X' contains NaN or infinite values.")
                t.lo, t.hi = float(x.min()), float(x.max())
                k_raw = sizes[c]
                t.knots = knots(t.lo, t.hi, k_raw)
                B = bspline_basis(x, t.knots)
                cache[c] = B
                t.Z = sum_to_zero(np.asarray(B.sum(axis=0)).ravel())
                t.S = t.Z.T @ difference_penalty(k_raw, self.penalty_order) @ t.Z
                t.S = 0.5 * (t.S + t.S.T)
                ev = np.linalg.eigvalsh(t.S)
                t.rank = int(np.sum(ev > 1e-9 * ev.max()))
                t.values = x
            elif kind == "ns":
                x = frame[c].to_numpy(dtype=float)
                if not np.isfinite(x).all():
                    raise ValidationError(f"Column {c!r} of 'X' contains NaN or infinite values.")
                t.lo, t.hi = float(x.min()), float(x.max())
                t.df = self._ns_df[c]
                try:
                    t.knots = natural_knots(x, t.df)
                except ValueError as exc:
                    raise ValidationError(f"Column {c!r}: {exc}; use a smaller df.") from None
                N = natural_spline_basis(x, t.knots)
                t.col_means = N.mean(axis=0)  # centred columns: the term sums to zero like a smooth
                cache[c] = sp.csr_matrix(N - t.col_means)
                k_raw = t.df
                t.Z = np.eye(k_raw)
                t.values = x
            else:
                cols = self._design.blocks[c]
                k_raw = len(cols)
                t.Z = np.eye(k_raw)
                if kind == "factor":
                    t.levels = list(self._design.categorical[c])
                    t.values = frame[c].astype(object).to_numpy()
                else:
                    x = frame[c].to_numpy(dtype=float)
                    t.center = float(x.mean())
                    t.lo, t.hi = float(x.min()), float(x.max())
                    t.values = x
            t.raw = slice(raw_pos, raw_pos + k_raw)
            t.coef = slice(coef_pos, coef_pos + t.Z.shape[1])
            raw_pos += k_raw
            coef_pos += t.Z.shape[1]
            terms.append(t)
        Z = np.zeros((raw_pos, coef_pos))
        Z[0, 0] = 1.0
        for t in terms:
            Z[t.raw, t.coef] = t.Z
        return terms, Z, cache

    def _raw_matrix(self, frame, cache=None):
        """The sparse raw model matrix: intercept, B-spline bases, dummies, centred linear columns.

        ``cache`` holds the training rows' spline bases already built by ``_build_terms``.
        """
        frame = self._coerce(frame)
        dense = self._design.transform(frame) if self._design.features else None
        blocks = [sp.csr_matrix(np.ones((len(frame), 1)))]
        for t in self._terms:
            if t.kind == "spline":
                x = frame[t.name].to_numpy(dtype=float)
                if not np.isfinite(x).all():
                    raise ValidationError(f"Column {t.name!r} of 'X' contains NaN or infinite values.")
                blocks.append(cache[t.name] if cache and t.name in cache else bspline_basis(x, t.knots))
            elif t.kind == "ns":
                x = frame[t.name].to_numpy(dtype=float)
                if not np.isfinite(x).all():
                    raise ValidationError(f"Column {t.name!r} of 'X' contains NaN or infinite values.")
                blocks.append(cache[t.name] if cache and t.name in cache
                              else sp.csr_matrix(natural_spline_basis(x, t.knots) - t.col_means))
            else:
                block = dense[:, self._design.blocks[t.name]]
                if t.kind == "linear":
                    block = block - t.center
                blocks.append(sp.csr_matrix(block))
        return sp.hstack(blocks, format="csr")

    # -- fitting
    def fit(self, X, y):
        """Fit by penalised IRLS, choosing the smoothing parameters as asked.

        Parameters
        ----------
        X : DataFrame or array, shape (n, p)
        y : array-like, shape (n,)

        Returns
        -------
        self
        """
        from threadpoolctl import threadpool_limits

        # Everything after the sparse cross-products works on p x p matrices, where a
        # multi-threaded BLAS on a busy machine costs 100x more than it saves.
        with threadpool_limits(limits=1, user_api="blas"):
            return self._fit(X, y)

    def _fit(self, X, y):
        """The fit in four steps: (1) the design (terms, sparse model matrix, sum-to-zero
        constraints); (2) penalised least squares (gaussian) or penalised IRLS (other families),
        (3) choosing λ inside either when ``smoothing`` is "gcv"/"reml"; (4) the final statistics
        (covariance, effective degrees of freedom, scale, deviance) at the solution."""
        self._check_params()
        fam = Family(self.family, links=FAMILIES)
        frame, y = self._check_X_y_family(X, y, fam)
        self.link_ = fam.link_name
        self.family_ = fam
        mm = self._model_matrices(frame)
        if fam.name == "gaussian":
            fit = self._fit_gaussian(mm, y)
        else:
            fit = self._fit_irls(mm, y, fam)
            self._warn_if_not_converged(fit)
            fit = self._at_solution(mm, y, fam, fit)
        self._set_statistics(mm, fit, y, fam)
        self.columns_ = list(self.feature_names_)
        return self

    # Step 1: the design
    def _model_matrices(self, frame):
        """The terms and the matrices every fitting step works with (see :class:`_ModelMatrices`)."""
        kinds = self._term_kinds(frame)
        self._terms, Z, basis = self._build_terms(frame, kinds)
        pen = [t for t in self._terms if t.S is not None]
        if isinstance(self.smoothing, dict):
            unknown = [k for k in self.smoothing if k not in [t.name for t in pen]]
            if unknown:
                raise ValidationError(f"'smoothing' names {unknown}, which are not spline terms; the spline terms "
                                      f"are {[t.name for t in pen]}.")
            missing = [t.name for t in pen if t.name not in self.smoothing]
            if missing:
                raise ValidationError(f"'smoothing' has no λ for the spline term(s) {missing}.")
        Xraw = self._raw_matrix(frame, cache=basis)
        self.aliased_ = self._aliased(Xraw)
        if self.aliased_:
            kinds = {c: k for c, k in kinds.items() if c not in self.aliased_}
            warnings.warn("The unpenalised parts of these terms are exact linear combinations of the other "
                          "terms', so no smoothing makes the fit unique; they are left out of the GAM: "
                          + "; ".join(f"{c} (collinear with {', '.join(w[:4])})" for c, w in self.aliased_.items())
                          + ".", stacklevel=4)
            self._terms, Z, basis = self._build_terms(frame, kinds)
            pen = [t for t in self._terms if t.S is not None]
            Xraw = self._raw_matrix(frame, cache=basis)
        n, p = Xraw.shape[0], Z.shape[1]
        if n <= p:
            raise ValidationError(f"'X' must have more rows than model coefficients ({p}); got {n}.")
        method = self.smoothing if isinstance(self.smoothing, str) and pen else None
        if isinstance(self.smoothing, dict):
            lam = np.array([float(self.smoothing[t.name]) for t in pen])
        elif isinstance(self.smoothing, str):
            lam = np.zeros(len(pen))  # chosen by `method` (no spline term: nothing to choose)
        else:
            lam = np.full(len(pen), float(self.smoothing))
        A0 = Z.T @ _crossprod(Xraw) @ Z  # unweighted; the test statistics need it
        return _ModelMatrices(Xraw=Xraw, Z=Z, A0=A0, pen=pen, n=n, p=p, method=method, lam=lam)

    def _aliased(self, Xraw):
        """Terms whose unpenalised columns lie in the span of the intercept's and earlier terms':
        {column: the columns of the dependency} (see ``aliased_``)."""
        cols, owner = [np.ones(Xraw.shape[0])], ["(Intercept)"]
        for t in self._terms:
            block = np.asarray(Xraw[:, t.raw] @ t.Z)
            if t.S is not None:  # a spline: only its penalty's null space (the linear part) is free
                ev, V = np.linalg.eigh(t.S)
                block = block @ V[:, ev <= 1e-9 * max(ev.max(), 1e-300)]
            cols += list(block.T)
            owner += [t.name] * block.shape[1]
        U = np.column_stack(cols)
        kept = _independent_columns(U)
        dropped = [owner[j] for j in np.setdiff1d(np.arange(U.shape[1]), kept)]
        if not dropped:
            return {}
        labels = [f"{o}#{j}" for j, o in enumerate(owner)]
        partners = collinear_partners(U, labels)
        out = {}
        for j, o in enumerate(owner):
            if o in dropped and o not in out:
                ws = [w.rsplit("#", 1)[0] for w in partners.get(labels[j], [])]
                out[o] = list(dict.fromkeys(w for w in ws if w not in (o, "(Intercept)")))
        return out

    # Step 2a: gaussian -- one penalised least squares
    def _fit_gaussian(self, mm, y):
        """Penalised least squares: the data are touched once, whatever the λ tried."""
        # Centring y (the unpenalised intercept absorbs it) keeps rss = yᵀy − 2βᵀb + βᵀAβ
        # free of cancellation when the mean of y is large against its noise.
        y_mean = float(y.mean())
        yc = y - y_mean
        b = mm.Z.T @ (mm.Xraw.T @ yc)
        sm = _Smoother(mm.A0, b, float(yc @ yc), mm.n, self._terms, scale_known=False)
        lam = self._smoothing_parameters(sm, mm)[0]
        cf, beta, _ = sm.solve(lam)
        beta = beta.copy()
        beta[0] += y_mean
        return _Solution(beta=beta, lam=lam, A=mm.A0, cf=cf, n_iter=1, converged=True)

    # Step 2b: other families -- penalised IRLS
    def _fit_irls(self, mm, y, fam):
        """Penalised IRLS from the family's starting means; λ re-chosen at each step while selecting.

        Returns the solution without its factorisation (see :meth:`_at_solution`).
        """
        Xraw, Z = mm.Xraw, mm.Z
        lam = mm.lam
        mu = fam.start_mu(y)
        eta = fam.link(mu)
        rho = center = None
        pdev_old = np.inf
        beta = None
        selecting = mm.method is not None
        converged = diverged = False
        for n_iter in range(1, self.max_iter + 1):
            w, z = fam.working(y, eta, mu)
            A = Z.T @ _crossprod(Xraw, w) @ Z
            b = Z.T @ (Xraw.T @ (w * z))
            sm = _Smoother(A, b, float(np.sum(w * z * z)), mm.n, self._terms, fam.scale_known,
                           ubre=fam.is_binomial)
            try:
                if selecting:
                    lam, rho, center = self._smoothing_parameters(sm, mm, rho, center)
                _, beta_new, Sl = sm.solve(lam)
            except ModelError:
                # the working weights vanished (fitted means at 0/1 or 0): the fit runs off
                if beta is None:
                    raise
                diverged = True
                break
            # Step halving keeps the penalised deviance from increasing (fixed λ only:
            # with λ re-chosen the objective itself moves).
            for _ in range(30):
                eta_new = Xraw @ (Z @ beta_new)
                mu_new = fam.inverse(eta_new)
                if fam.is_binomial:
                    mu_new = np.clip(mu_new, 1e-10, 1 - 1e-10)
                pdev = fam.deviance(y, mu_new) + beta_new @ Sl @ beta_new
                if beta is None or selecting or np.isfinite(pdev) and pdev <= pdev_old * (1 + 1e-12):
                    break
                beta_new = 0.5 * (beta + beta_new)
            if not np.all(np.isfinite(beta_new)) or not np.all(np.isfinite(eta_new)):
                diverged = True
                break
            tol = max(self.tol, 1e-7) if selecting else self.tol
            converged = abs(pdev - pdev_old) < tol * (abs(pdev) + 0.1)
            beta, eta, mu, pdev_old = beta_new, eta_new, mu_new, pdev
            if converged and not selecting:
                break
            if selecting and (converged or n_iter >= MAX_SELECTION_ITER):
                # Performance iteration can cycle between nearby λ; from here on λ is kept
                # and plain penalised IRLS converges (Wood 2004 notes the same remedy).
                selecting, pdev_old, converged = False, np.inf, False
        eta_max = float(np.max(np.abs(eta)))
        if fam.is_binomial and eta_max > MAX_LOGIT:
            diverged = True  # fitted probabilities of exactly 0 or 1: (quasi-)separation
        return _Solution(beta=beta, lam=lam, n_iter=n_iter, converged=converged and not diverged,
                         diverged=diverged, eta=eta, mu=mu, jitter=sm.jitter, eta_max=eta_max)

    # Step 3: smoothing parameters
    def _smoothing_parameters(self, sm, mm, rho=None, center=None):
        """λ for the working model ``sm``: chosen by GCV/UBRE or REML (``mm.method``), else the fixed ones.

        Returns ``(λ, log λ, centre of the search)``; the last two seed the next IRLS step's search.
        """
        if mm.method is None:
            return mm.lam, rho, center
        rho, center = _select(sm, mm.method, rho_start=rho, center=center)
        return np.exp(rho), rho, center

    def _warn_if_not_converged(self, fit):
        if fit.diverged:
            warnings.warn(
                f"The {self.family} GAM diverged after {fit.n_iter} penalised IRLS iterations: the linear "
                f"predictor reaches |η| = {fit.eta_max:.3g} (fitted means at the boundary, as when the classes "
                f"are (quasi-)separable by the terms). Its coefficients, bands and tests are not "
                f"meaningful; use fewer or stiffer terms (a larger 'smoothing').", stacklevel=4)
        elif not fit.converged:
            warnings.warn(f"Penalised IRLS did not converge in {self.max_iter} iterations.", stacklevel=4)

    def _at_solution(self, mm, y, fam, fit):
        """``XᵀWX`` and the Cholesky factor of ``XᵀWX + S_λ`` at the IRLS solution's weights."""
        w, _ = fam.working(y, fit.eta, fit.mu)
        A = mm.Z.T @ _crossprod(mm.Xraw, w) @ mm.Z
        Sl = np.zeros_like(A)
        for t, lj in zip(mm.pen, fit.lam):
            Sl[t.coef, t.coef] += lj * t.S
        cf = None
        for k in range(8 if fit.diverged else 1):
            try:
                cf = linalg.cho_factor(A + Sl + fit.jitter * 100.0 ** k * np.eye(mm.p), lower=True)
                break
            except linalg.LinAlgError:
                continue
        if cf is None:
            mu = np.asarray(fit.mu, dtype=float)
            edge = float(np.mean((mu < 1e-8) | (mu > 1 - 1e-8))) if fam.is_binomial else float(np.mean(mu < 1e-8))
            if edge > 0 or fit.eta_max > MAX_LOGIT:
                # Fitted means at the boundary (0/1 probabilities, zero counts) leave no
                # weight: the classes are separable or the fit ran off to infinity.
                what = "probabilities are 0 or 1" if fam.is_binomial else "means are 0"
                raise ModelError(
                    f"The {self.family} GAM has no finite solution: {100 * edge:.0f}% of its fitted {what} "
                    f"(|η| up to {fit.eta_max:.3g}), so its weights vanish, as when the classes are (quasi-)"
                    "separable by the terms. Use fewer or stiffer terms (a larger 'smoothing'), or a model that "
                    "tolerates separation.") from None
            raise ModelError(
                f"The {self.family} GAM's penalised system XᵀWX + S_λ is singular at its solution although the "
                f"fitted means are inside their range (|η| up to {fit.eta_max:.3g}; no separation): some terms are "
                "nearly collinear (their linear parts almost a combination of the others'). Leave out one column "
                "of each such group, or make the terms stiffer (a larger 'smoothing').") from None
        fit.A, fit.cf = A, cf
        return fit

    # Step 4: final statistics
    def _set_statistics(self, mm, fit, y, fam):
        """Coefficients, Bayesian covariance ``(XᵀWX + S_λ)⁻¹ φ``, effective degrees of freedom, scale."""
        beta, p = fit.beta, mm.p
        if not np.all(np.isfinite(beta)):
            raise ModelError("The GAM fit diverged (non-finite coefficients).")
        H_inv = linalg.cho_solve(fit.cf, np.eye(p))
        edf_all = np.diag(H_inv @ fit.A)
        tau = float(edf_all.sum())
        mu = fam.inverse(mm.Xraw @ (mm.Z @ beta))
        scale = fam.scale(y, mu, mm.n - tau)
        self.converged_ = bool(fit.converged)
        self.coef_ = beta
        self.intercept_ = float(beta[0])
        self._beta_raw = mm.Z @ beta
        self.covariance_ = 0.5 * (H_inv + H_inv.T) * scale
        self.scale_ = scale
        df_resid = mm.n - tau
        chi2 = float(np.sum((y - mu) ** 2 / fam.variance(mu))) if df_resid > 0 else np.nan
        self.pearson_dispersion_ = chi2 / df_resid if df_resid > 0 else np.nan
        self.overdispersion_p_ = (float(stats.chi2.sf(chi2, df_resid)) if df_resid > 0 and fam.name in
                                  ("poisson", "exponential") else np.nan)
        self.edf_total_ = tau
        self.deviance_ = fam.deviance(y, mu)
        self.n_iter_ = fit.n_iter
        self.terms_ = {t.name: t.kind for t in self._terms}
        self.knots_ = {t.name: t.knots.copy() for t in self._terms if t.kind in ("spline", "ns")}
        self.edf_ = {t.name: float(edf_all[t.coef].sum()) for t in self._terms}
        self.lambdas_ = {t.name: float(lj) for t, lj in zip(mm.pen, fit.lam)}
        self._A0 = mm.A0
        self.n_samples_ = mm.n

    # -- prediction
    def linear_predictor(self, X):
        """The linear predictor ``η = g(μ) = β₀ + Σ_j f_j(x_j)``, shape (n,), for every family.

        (For the binomial family it is also :meth:`decision_function`, the log-odds.)
        """
        frame = self._check_X(X, reset=False)  # first: NotFittedError before any fitted attribute
        return self._raw_matrix(frame) @ self._beta_raw

    def predict(self, X):
        """``E[y | x]`` (the predicted class for the binomial family), shape (n,)."""
        eta = self.linear_predictor(X)  # checks first: fitted, the training columns
        mu = self.family_.inverse(eta)
        if self._is_binomial():
            return self.classes_[(mu > 0.5).astype(int)]
        return mu

    @available_if(lambda self: self._is_binomial())
    def predict_proba(self, X):
        """Class probabilities in the order of ``classes_``, shape (n, 2)."""
        eta = self.linear_predictor(X)
        p = self.family_.inverse(eta)
        return np.column_stack([1 - p, p])

    # -- inference
    def _term(self, feature):
        self._check_fitted()
        for t in self._terms:
            if t.name == feature:
                return t
        if feature in getattr(self, "aliased_", {}):
            raise ValidationError(f"Column {feature!r} was left out of the GAM: its linear part is an exact "
                                  f"combination of {', '.join(self.aliased_[feature])}; the terms are "
                                  f"{list(self.terms_)}.")
        raise ValidationError(f"Unknown term {feature!r} in 'feature'; the terms are {list(self.terms_)}.")

    def summary(self):
        """Per term: kind, coefficients, λ, effective degrees of freedom and an approximate test.

        Returns
        -------
        DataFrame
            Index = term; columns ``kind, n_coef, lambda, edf, ref_df, statistic,
            p_value``. ``attrs["test"]`` states the test (see Notes).

        Notes
        -----
        For term ``j`` with coefficients ``β_j``, Bayesian covariance ``V_j`` and
        ``R_jᵀR_j = X_jᵀX_j``, the statistic is ``T = (R_jβ_j)ᵀ (R_j V_j R_jᵀ)^{r−} (R_jβ_j)``,
        the pseudo-inverse keeping the ``r`` largest eigenvalues, ``r = round(edf_j)`` for
        splines and the number of coefficients for factor and linear terms (then it is the
        ordinary Wald test). ``T ~ χ²_r`` when the scale is known; ``T/r ~ F(r, n − edf)``
        otherwise. Wood (2013) refines this with a fractional rank; p-values here are
        approximate, somewhat too small when λ is estimated.
        """
        self._check_fitted()
        rows = []
        for t in self._terms:
            bj = self.coef_[t.coef]
            k = len(bj)
            Vj = self.covariance_[t.coef, t.coef]
            G = self._A0[t.coef, t.coef]
            ev, U = np.linalg.eigh(0.5 * (G + G.T))
            R = (U * np.sqrt(np.clip(ev, 0, None))).T  # RᵀR = G without a Cholesky's pivoting worries
            M = R @ Vj @ R.T
            mev, MU = np.linalg.eigh(0.5 * (M + M.T))
            edf = self.edf_[t.name]
            r = int(min(k, max(1, round(edf)))) if t.kind == "spline" else k
            keep = np.argsort(mev)[::-1][:r]
            keep = keep[mev[keep] > 1e-12 * max(mev.max(), 1e-300)]
            r = max(len(keep), 1)
            proj = MU[:, keep].T @ (R @ bj)
            T = float(np.sum(proj ** 2 / mev[keep]))
            if self.family_.scale_known:
                pval = float(stats.chi2.sf(T, r))
            else:
                pval = float(stats.f.sf(T / r, r, max(self.n_samples_ - self.edf_total_, 1.0)))
            rows.append({"term": t.name, "kind": t.kind, "n_coef": k, "lambda": self.lambdas_.get(t.name, np.nan),
                         "edf": edf, "ref_df": r, "statistic": T, "p_value": pval})
        out = pd.DataFrame(rows).set_index("term")
        out.attrs["test"] = TEST_METHOD
        out.attrs["intercept"] = self.intercept_
        out.attrs["scale"] = self.scale_
        return out

    def partial_effect(self, feature, grid=100, confidence_level="default"):
        """One term's centred contribution to the linear predictor, with a pointwise band.

        Parameters
        ----------
        feature : str
            A term of the model.
        grid : int, default 100
            Grid points over the training range (numeric terms); factor terms use their levels.
        confidence_level : float or None, optional
            Level of the band (default: the model's); None gives ±2 standard errors.

        Returns
        -------
        EffectResult
            ``method="gam"``, ``output="link"``; ``ci_low``/``ci_high`` from the Bayesian
            covariance: ``f̂(x) ± z · SE(f̂(x))``, ``SE² = b(x)ᵀ V_j b(x)``; the reference level of
            a factor has effect 0 and no width. ``extra["se"]`` holds the standard errors.
        """
        from ..effects import EffectResult

        t = self._term(feature)
        level = self.confidence_level if confidence_level == "default" else confidence_level
        if level is None:
            z = 2.0
        else:
            level = check_float("confidence_level", level, low=0, high=1, low_inclusive=False, high_inclusive=False)
            z = float(stats.norm.ppf(0.5 + level / 2))
        bj = self.coef_[t.coef]
        Vj = self.covariance_[t.coef, t.coef]
        if t.kind == "factor":
            g = np.asarray(t.levels, dtype=object)
            Bz = np.vstack([np.zeros(len(bj)), np.eye(len(bj))])
        else:
            m = check_int("grid", grid, min_value=2)
            g = np.linspace(t.lo, t.hi, m)
            if t.kind == "spline":
                Bz = bspline_basis(g, t.knots).toarray() @ t.Z
            elif t.kind == "ns":
                Bz = natural_spline_basis(g, t.knots) - t.col_means
            else:
                Bz = (g - t.center)[:, None]
        f = Bz @ bj
        se = np.sqrt(np.clip(np.einsum("ij,jk,ik->i", Bz, Vj, Bz), 0, None))
        return EffectResult(method="gam", feature_names=(t.name,), grid=g, average=f, ci_low=f - z * se,
                            ci_high=f + z * se, feature_values=t.values, categorical=t.kind == "factor",
                            output="link", params={"term": t.kind, "edf": self.edf_[t.name],
                                                   "lambda": self.lambdas_.get(t.name),
                                                   "confidence_level": level, "link": self.link_,
                                                   "n_rows": len(t.values)},
                            extra={"se": se})

    def plot(self, features=None, ax=None, ncols=3, figsize=None, axes=None):
        """Every term (or ``features``) with its band, one panel each.

        Parameters
        ----------
        features : str or list of str, optional
            One term (returns its Axes) or several (default: every term).
        ax : matplotlib Axes or array of Axes, optional
            Where to draw (one Axes per term); a new figure with constrained layout otherwise.
        ncols : int, default 3
            Columns of a new grid.
        figsize : (float, float), optional
        axes : deprecated alias of ``ax``.

        Returns
        -------
        matplotlib Axes (one term named as a string) or ndarray of Axes (one per term, flat)
        """
        from ..plotting import plot_gam

        self._check_fitted()
        if ax is None:
            ax = axes
        if isinstance(features, str):
            return plot_gam(self.partial_effect(features), ax=ax, figsize=figsize)
        names = list(self.terms_) if features is None else list(features)
        return plot_gam([self.partial_effect(f) for f in names], ax=ax, ncols=ncols, figsize=figsize)
