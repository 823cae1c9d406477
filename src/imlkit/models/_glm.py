"""GLM: fitting and inference by statsmodels, coding and interpretation by imlkit.

The model is ``g(E[y | x]) = xᵀβ`` with the course's families and links:

==============  ===================  =========================================
family          default link         other links allowed (``link=``)
==============  ===================  =========================================
gaussian        identity             log, inverse
binomial        logit                probit, cloglog, log
poisson         log                  identity, sqrt
gamma           negative_inverse     inverse, log, identity
exponential     negative_inverse     inverse, log, identity (dispersion fixed at 1)
==============  ===================  =========================================

The design (dummy coding against a reference level, readable names such as
``workingday[yes]``, product terms for interactions) comes from :mod:`._design`; the fit,
standard errors, Wald statistics and intervals are statsmodels' own, so the numbers equal
``statsmodels.api.GLM`` on the same design.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.utils.metaestimators import available_if

from .._validation import ModelError, ValidationError, check_bool, check_float, check_probability
from ._design import INTERCEPT, fit_design
from ._family import FAMILY_LINKS, Family, _FamilyEstimator

__all__ = ["FAMILY_LINKS", "GLM"]

#: Standard error (link scale, per SD of the column) above which a weight is "not estimable".
NOT_ESTIMABLE_SE = 10.0
#: What the sentences say for such a weight.
NOT_ESTIMABLE = "not estimable (separation / too few rows)"

#: Links whose weights are read multiplicatively after exp(): ratios of means or of odds.
EXP_LINKS = ("log", "logit")


# ----------------------------------------------------------------------------- plumbing
def _fmt(v):
    """Course-style numbers: 1.12, 0.855, -21.8, 2185.8."""
    v = float(v)
    if abs(v) >= 100:
        return f"{v:.1f}"
    return f"{v:.3g}"


def _independent_columns(D):
    """Columns not in the span of the columns before them (R's rule for aliased terms).

    Unpivoted QR: ``|R_jj|`` is the part of column j orthogonal to columns 0..j−1, so a
    (numerically) zero ``R_jj`` marks a column that the earlier ones already express.
    """
    from scipy import linalg

    kept = np.arange(D.shape[1])
    norms = np.linalg.norm(D, axis=0)
    while kept.size:
        R = linalg.qr(D[:, kept], mode="r", check_finite=False)[0]
        small = np.abs(np.diag(R)) <= 1e-9 * np.maximum(norms[kept], np.finfo(float).tiny)
        if not small.any():
            break
        # drop the first dependent column only: a later one's R_jj is only meaningful once
        # the reflections before it come from independent columns
        kept = np.delete(kept, int(np.argmax(small)))
    return kept


# ----------------------------------------------------------------------------- the model
class GLM(_FamilyEstimator):
    """Generalised linear model with readable coefficients, intervals and sentences.

    Parameters
    ----------
    family : {"gaussian", "binomial", "poisson", "gamma", "exponential"}, default "gaussian"
        The distribution of ``y`` given ``x``. ``"exponential"`` is the gamma family with the
        dispersion fixed at 1.
    link : str, optional
        Override the family's default link (see the module table for the allowed links).
    interactions : list of tuples of 2 or 3 str, optional
        Pairs (or triples) of features whose product terms are added, e.g.
        ``[("workingday", "temp")]``; a triple ``("a", "b", "c")`` adds the three-way product
        terms ``a:b:c`` only (add the pairs too for the full hierarchy, like ``a*b*c`` in R).
    fit_intercept : bool, default True
    confidence_level : float, default 0.95
        Level of the Wald intervals in :meth:`summary` and :meth:`interpret`.
    polynomial : dict, optional
        ``{column: degree}``: raw powers of a numeric feature, ``age``, ``age^2``, ...,
        ``age^degree`` (like ``y ~ age + I(age**2)``). Its sentences give the local slope
        ``Σ_k k β_k x^(k−1)`` at the quartiles of the feature, with its interval.
    alpha : float, default 0.0
        Strength of a ridge penalty (0: the ordinary maximum-likelihood GLM). With
        ``alpha > 0`` the fit minimises ``D(β)/(2n) + (alpha/2) Σ_j β_j²`` (``D`` the deviance, as
        in glmnet) over the weights of the *standardised* design columns (each scaled to
        standard deviation 1, so the penalty does not depend on units; the intercept is not
        penalised), by penalised IRLS; the weights are reported back per unit of the original
        columns. This is the way to fit a GLM with as many terms as rows or more, and it keeps
        the weights finite under separation. Such a fit has no standard errors: :meth:`summary`
        has NaN intervals and the sentences say "penalised fit, no interval".

    Attributes
    ----------
    coef_ : Series, shape (n_terms,)
        The weights, indexed by design names (``"(Intercept)"``, ``"temp"``, ``"workingday[yes]"``).
    design_ : DesignSpec
        Coding learned from the training data.
    result_ : statsmodels GLMResults
    classes_ : ndarray, shape (2,)
        Binomial family only; the second class is the one modelled (``y = 1``).
    estimable_ : Series of bool, shape (n_terms,)
        False for weights the data cannot determine: a design column in the null space of the
        design (too few rows, collinear columns), a non-finite standard error, or -- for a
        non-identity link -- a standard error above ``NOT_ESTIMABLE_SE`` (= 10) on the link
        scale per standard deviation of the column (per unit for 0/1 and constant columns),
        i.e. a 95% interval for ``exp(weight)`` wider than a factor of e^39 ≈ 10^17, which is
        what (quasi-)separation produces. :meth:`summary` has a column ``estimable`` and
        :meth:`interpret` says "not estimable (separation / too few rows)" instead of an interval.
    penalized_ : bool
        True when fitted with ``alpha > 0``.
    link_ : str
    family_ : Family
        The family with its link (:class:`imlkit.models._family.Family`), what prediction inverts.
    n_features_in_, feature_names_in_

    Notes
    -----
    ``g(E[y | x]) = β₀ + Σ_j β_j x_j``. Categorical features enter as dummies ``x_j[l]`` against
    their first level. For log and logit links ``exp(β_j)`` is the factor by which the mean (log)
    or the odds (logit) change for a unit increase of ``x_j``; an interval for it is
    ``exp`` of the Wald interval ``β_j ± z_{1-α/2} SE_j``. An interaction ``a:b`` makes the
    effect of ``b`` depend on ``a``: its effect at level ``l`` of ``a`` is ``β_b + β_{a[l]:b}``
    with variance ``cᵀ Cov(β) c``.

    References
    ----------
    Nelder, J. A. and Wedderburn, R. W. M. (1972). Generalized linear models. JRSS A 135(3).
    Molnar, C. (2022). Interpretable Machine Learning, ch. 5.3 (GLM, GAM and more).

    Examples
    --------
    >>> from imlkit.datasets import make_coffee
    >>> X, y = make_coffee(200, random_state=0)
    >>> m = GLM(family="poisson").fit(X, y)
    >>> list(m.summary().index)
    ['(Intercept)', 'stress', 'sleep', 'work[yes]']
    """

    def __init__(self, *, family="gaussian", link=None, interactions=None, fit_intercept=True,
                 confidence_level=0.95, alpha=0.0, polynomial=None):
        self.family = family
        self.link = link
        self.interactions = interactions
        self.fit_intercept = fit_intercept
        self.confidence_level = confidence_level
        self.alpha = alpha
        self.polynomial = polynomial

    # -- fitting
    def fit(self, X, y):
        """Fit by iteratively reweighted least squares (statsmodels).

        Parameters
        ----------
        X : DataFrame or array, shape (n, p)
        y : array-like, shape (n,)

        Returns
        -------
        self
        """
        import statsmodels.api as sm

        fam = Family(self.family, self.link)
        family, link = fam.name, fam.link_name
        check_bool("fit_intercept", self.fit_intercept)
        check_probability("confidence_level", self.confidence_level)
        alpha = check_float("alpha", self.alpha, low=0.0)
        frame, y_enc = self._check_X_y_family(X, y, fam)
        spec = fit_design(frame, self.interactions, intercept=self.fit_intercept, polynomial=self.polynomial)
        D = spec.transform(frame)
        if D.shape[1] == 0:
            raise ValidationError("The design has no columns: give at least one feature or fit_intercept=True.")
        n, p = D.shape
        if n <= p and alpha == 0:
            raise ValidationError(f"'X' must have more rows than model terms: the design has {p} terms and "
                                  f"{n} rows. Set 'alpha' > 0 for a penalised GLM, or use fewer features or "
                                  f"levels.")
        if alpha > 0:
            params = self._fit_penalized(D, y_enc, fam, alpha)
            result = None
            self._kept = np.arange(p)
        else:
            kept = _independent_columns(D)
            if kept.size < p:
                dropped = [spec.names[j] for j in np.setdiff1d(np.arange(p), kept)]
                warnings.warn(f"The design has rank {kept.size} < {p} columns (collinear features or a level "
                              f"that occurs with another one only); weights of collinear terms are not "
                              f"identified: {dropped[:10]} are set to 0 (as R's glm reports them NA) and "
                              f"the weights they are collinear with are marked not estimable.", stacklevel=2)
            try:
                with warnings.catch_warnings():
                    # statsmodels warns that links outside its own allow-list may leave the domain;
                    # our table is the allow-list and a fit that leaves the domain fails below.
                    warnings.filterwarnings("ignore", message=".*does not respect the domain.*")
                    # fitting on independent columns only: IRLS on a singular design can run off
                    # (weights of 1e15 for a collinear binomial design)
                    model = sm.GLM(y_enc, D[:, kept], family=fam.sm)
                    result = model.fit(scale=1.0 if family == "exponential" else None)
            except Exception as exc:  # statsmodels raises assorted errors on divergence
                raise ModelError(f"The {family} GLM with {link} link failed to fit: {exc}") from exc
            self._kept = kept
            params = np.zeros(p)
            params[kept] = np.asarray(result.params)
        if not np.all(np.isfinite(params)):
            raise ModelError(f"The {family} GLM with {link} link did not converge (non-finite weights).")
        self.link_ = link
        self.design_ = spec
        self.result_ = result
        self.penalized_ = alpha > 0
        self.family_ = fam
        self.coef_ = pd.Series(params, index=spec.names, name="weight")
        self.estimable_ = pd.Series(self._estimable(D, result), index=spec.names, name="estimable")
        self.target_name_ = getattr(y, "name", None) if isinstance(getattr(y, "name", None), str) else "y"
        return self

    def _fit_penalized(self, D, y, fam, alpha, max_iter=100, tol=1e-10):
        """Ridge GLM by penalised IRLS on standardised columns; weights in the original units.

        Each step solves ``(DsᵀWDs/n + alpha·P) β = DsᵀWz/n`` (P the identity without the
        intercept), halving the step while the penalised objective increases.
        """
        n, p = D.shape
        const = np.all(D == D[:1], axis=0)
        center = np.where(const, 0.0, D.mean(axis=0)) if self.fit_intercept else np.zeros(p)
        sd = np.where(const, 1.0, D.std(axis=0))
        Ds = (D - center) / sd
        P = np.diag(np.where(const, 0.0, alpha))

        def objective(b):
            return fam.deviance(y, fam.inverse(Ds @ b)) / (2 * n) + 0.5 * b @ P @ b

        mu = fam.start_mu(y)
        eta = fam.link(mu)
        beta = None
        obj_old = np.inf
        for _ in range(max_iter):
            w, z = fam.working(y, eta, mu)
            A = Ds.T @ (Ds * w[:, None]) / n + P
            new = np.linalg.lstsq(A, Ds.T @ (w * z) / n, rcond=None)[0]
            obj = objective(new)
            for _ in range(30):
                if beta is None or (np.isfinite(obj) and obj <= obj_old * (1 + 1e-12)):
                    break
                new = 0.5 * (beta + new)
                obj = objective(new)
            beta = new
            eta = Ds @ beta
            mu = fam.inverse(eta)
            if abs(obj_old - obj) < tol * (abs(obj) + 1e-10):
                break
            obj_old = obj
        else:
            warnings.warn(f"The penalised {self.family} GLM did not converge in {max_iter} IRLS steps.",
                          stacklevel=3)
        out = beta / sd
        icpt = np.flatnonzero(const)
        if icpt.size and self.fit_intercept:
            out[icpt[0]] -= float(np.sum(out * center))
        return out

    def _full(self, v):
        """A per-kept-column vector of the statsmodels result at every design column (NaN elsewhere)."""
        out = np.full(len(self.coef_), np.nan)
        out[self._kept] = np.asarray(v, dtype=float)
        return out

    def _estimable(self, D, result):
        """Which weights the data determine (see ``estimable_``)."""
        p = D.shape[1]
        ok = np.ones(p, dtype=bool)
        if result is None:  # penalised: every weight is determined by the penalty
            return ok
        # null space of D: a weight with a component there is not identified
        # Vt must be p x p; full_matrices only when n < p (else U would be n x n: 12 GB at 40,000 rows)
        _, sv, Vt = np.linalg.svd(D, full_matrices=D.shape[0] < p)
        tol = sv.max() * max(D.shape) * np.finfo(float).eps if sv.size else 0.0
        null = Vt[int(np.sum(sv > tol)):]
        if null.size:
            ok &= np.linalg.norm(null, axis=0) < 1e-6
        se = self._full(result.bse)
        ok &= np.isfinite(se)
        if self.link_ != "identity":
            sd = D.std(axis=0)
            binary = np.all((D == 0) | (D == 1), axis=0)
            unit = np.where(binary | (sd == 0), 1.0, sd)
            with np.errstate(invalid="ignore"):
                ok &= ~(se * unit > NOT_ESTIMABLE_SE)
        return ok

    def linear_predictor(self, X):
        """The linear predictor ``η = g(μ) = xᵀβ``, shape (n,), for every family.

        (For the binomial family it is also :meth:`decision_function`.)
        """
        frame = self._check_X(X, reset=False)  # first: NotFittedError before any fitted attribute
        return self.design_.transform(frame) @ self.coef_.to_numpy()

    def predict(self, X):
        """The expected value ``E[y | x]`` (the predicted class for the binomial family).

        Returns
        -------
        ndarray, shape (n,)
        """
        eta = self.linear_predictor(X)  # checks first: fitted, the training columns
        mu = self.family_.inverse(eta)
        if self._is_binomial():
            return self.classes_[(mu > 0.5).astype(int)]
        return np.asarray(mu, dtype=float)

    @available_if(lambda self: self._is_binomial())
    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``.

        Returns
        -------
        ndarray, shape (n, 2)
        """
        eta = self.linear_predictor(X)
        p = np.clip(self.family_.inverse(eta), 0, 1)
        return np.column_stack([1 - p, p])

    # -- inference
    def _z(self):
        return stats.norm.ppf(0.5 + self.confidence_level / 2)

    def summary(self):
        """The weights with standard errors, Wald intervals, statistics and p-values.

        Returns
        -------
        DataFrame
            Index = design names; columns ``weight, std_error, ci_low, ci_high,
            statistic, p_value`` and, for log and logit links, ``exp_weight, exp_ci_low,
            exp_ci_high`` (the course's "exp(weight) [2.5%, 97.5%]"), and ``estimable`` (see
            ``estimable_``; the numbers of a non-estimable weight are not meaningful). A penalised
            fit (``alpha > 0``) has NaN standard errors, intervals, statistics and p-values.

        Notes
        -----
        statsmodels' Wald inference: ``statistic = weight / std_error`` (z), two-sided normal
        p-value, interval ``weight ± z_{(1+level)/2} · std_error``; the standard errors use the
        estimated dispersion for gaussian and gamma, 1 for binomial, poisson and exponential.
        """
        self._check_fitted()
        r = self.result_
        idx = pd.Index(self.design_.names, name="term")
        if r is None:  # penalised: no standard errors
            nan = np.full(len(self.coef_), np.nan)
            out = pd.DataFrame({"weight": self.coef_.to_numpy(), "std_error": nan, "ci_low": nan, "ci_high": nan,
                                "statistic": nan, "p_value": nan}, index=idx)
        else:
            ci = np.asarray(r.conf_int(alpha=1 - self.confidence_level))
            full = self._full
            out = pd.DataFrame({"weight": self.coef_.to_numpy(), "std_error": full(r.bse),
                                "ci_low": full(ci[:, 0]), "ci_high": full(ci[:, 1]),
                                "statistic": full(r.tvalues), "p_value": full(r.pvalues)}, index=idx)
        if self.link_ in EXP_LINKS:
            out["exp_weight"] = np.exp(out["weight"])
            out["exp_ci_low"] = np.exp(out["ci_low"])
            out["exp_ci_high"] = np.exp(out["ci_high"])
        out["estimable"] = self.estimable_.to_numpy()
        out.attrs["family"] = self.family
        out.attrs["link"] = self.link_
        out.attrs["penalized"] = self.penalized_
        out.attrs["confidence_level"] = self.confidence_level
        return out

    def plot(self, ax=None, exp=None, intercept=False, color="C0"):
        """Forest plot of the weights with their intervals (``exp(weight)`` for log/logit links).

        Parameters
        ----------
        ax : matplotlib Axes, optional
        exp : bool, optional
            Default: True for log and logit links (factors on a log axis, reference line at 1),
            else the weights themselves (reference line at 0).
        intercept : bool, default False
        color : str

        Returns
        -------
        matplotlib Axes
            See :func:`imlkit.plotting.plot_glm`: non-estimable terms are grey crosses without
            an interval, labelled "(not estimable)".
        """
        from ..plotting import plot_glm

        return plot_glm(self.summary(), ax=ax, exp=exp, intercept=intercept, color=color)

    def contrast(self, c):
        """Estimate and interval of a linear combination ``cᵀβ`` on the link scale.

        Parameters
        ----------
        c : array-like, shape (n_terms,) or dict {design name: coefficient}

        Returns
        -------
        (estimate, std_error, ci_low, ci_high)
        """
        self._check_fitted()
        if isinstance(c, dict):
            vec = np.zeros(len(self.coef_))
            for k, v in c.items():
                if k not in self.coef_.index:
                    raise ValidationError(f"Unknown term {k!r}; the terms are {list(self.coef_.index)}.")
                vec[self.coef_.index.get_loc(k)] = v
            c = vec
        c = np.asarray(c, dtype=float)
        est = float(c @ self.coef_.to_numpy())
        if self.result_ is None:
            return est, np.nan, np.nan, np.nan
        k = self._kept
        se = float(np.sqrt(max(c[k] @ np.asarray(self.result_.cov_params()) @ c[k], 0.0)))
        z = self._z()
        return est, se, est - z * se, est + z * se

    # -- sentences
    def _scale_words(self):
        fam, link, target = self.family, self.link_, self.target_name_
        if link == "log":
            what = "the expected count" if fam == "poisson" else f"the expected {target}"
            return what, "multiplies", True
        if link == "logit":
            return f"the odds of {target} = {self.classes_[1]}", "multiplies", True
        if link == "identity":
            return f"the expected {target}", "changes", False
        return f"the linear predictor ({link} link)", "changes", False

    def _contrast_estimable(self, c):
        """A combination is estimable when every weight it uses is."""
        c = np.asarray(c, dtype=float)
        return bool(np.all(self.estimable_.to_numpy()[c != 0]))

    def _phrase(self, est, lo, hi, estimable=True):
        what, verb, expo = self._scale_words()
        if not estimable:
            return f"{verb} {what}: {NOT_ESTIMABLE}"
        if self.penalized_:
            v = np.exp(est) if expo else est
            return f"{verb} {what} by {_fmt(v)} (penalised fit, no interval)"
        if expo:
            return f"{verb} {what} by {_fmt(np.exp(est))} [{_fmt(np.exp(lo))}, {_fmt(np.exp(hi))}]"
        return f"{verb} {what} by {_fmt(est)} [{_fmt(lo)}, {_fmt(hi)}]"

    def _unit(self, feature, i):
        """How column ``i`` of ``feature``'s block reads: 'Increasing x by one unit' or 'x = l (instead of r)'."""
        spec = self.design_
        if feature in spec.categorical:
            levels = spec.categorical[feature]
            return f"{feature} = {levels[i + 1]} (instead of {levels[0]})"
        return f"Increasing {feature} by one unit"

    def _moderator_values(self, moderator):
        """(description, design row of the moderator's block) for each level / quartile."""
        spec = self.design_
        if moderator in spec.categorical:
            levels = spec.categorical[moderator]
            rows = np.vstack([np.zeros(len(levels) - 1), np.eye(len(levels) - 1)])
            return [(f"{moderator} = {lv}", rows[k]) for k, lv in enumerate(levels)]
        q = spec.info.get(moderator, np.array([0.0, 0.0, 0.0]))
        return [(f"{moderator} = {_fmt(v)} (its {name})", np.array([v]))
                for v, name in zip(q, ["25% quantile", "median", "75% quantile"])]

    def _conditional(self, focus, moderator, pair):
        """Sentences: the effect of ``focus`` at each value of ``moderator`` (interaction ``pair``)."""
        spec = self.design_
        focus_cols = spec.blocks.get(focus)
        if focus_cols is None:  # the focus enters only through the interaction
            return []
        focus_cols = focus_cols[:len(self._block_names(focus))]  # without polynomial powers
        pair_cols = spec.blocks[pair]
        n_b = len(self._block_names(pair[1]))
        out = []
        for desc, mrow in self._moderator_values(moderator):
            for i, fc in enumerate(focus_cols):
                c = np.zeros(len(self.coef_))
                c[fc] = 1.0
                for j, mv in enumerate(mrow):
                    k = i * n_b + j if pair[0] == focus else j * n_b + i
                    c[pair_cols[k]] += mv
                est, _, lo, hi = self.contrast(c)
                unit = self._unit(focus, i)
                unit = unit[0].lower() + unit[1:] if unit.startswith("Increasing") else unit
                out.append(f"When {desc}, {unit} {self._phrase(est, lo, hi, self._contrast_estimable(c))}.")
        return out

    def _polynomial_sentences(self, f, cond, has_partners):
        """The local slope of a polynomial feature at its quartiles, with intervals."""
        spec = self.design_
        cols = spec.blocks[f]
        out = []
        for v, qname in zip(spec.info[f], ["25% quantile", "median", "75% quantile"]):
            c = np.zeros(len(self.coef_))
            for k, col in enumerate(cols, start=1):
                c[col] = k * v ** (k - 1)  # d/dx Σ β_k x^k at x = v
            est, _, lo, hi = self.contrast(c)
            out.append(f"At {f} = {_fmt(v)} (its {qname}), increasing {f} by one unit (the local slope of its "
                       f"degree-{len(cols)} polynomial) {self._phrase(est, lo, hi, self._contrast_estimable(c))}"
                       f"{cond}{'' if has_partners else ', all other features fixed'}.")
        return out

    def _block_names(self, feature):
        spec = self.design_
        if feature in spec.categorical:
            return spec.categorical[feature][1:]
        return [feature]

    def interpret(self, feature=None):
        """Sentences reading the weights in the course's style.

        Parameters
        ----------
        feature : str, optional
            Only the sentences about this feature (its weights and its interactions).

        Returns
        -------
        list of str
            For example ``"Increasing stress by one unit multiplies the expected count by 1.12
            [1.07, 1.18]."``; for an interaction ``("workingday", "temp")`` the effect of temp at
            each level of workingday, with intervals.
        """
        self._check_fitted()
        spec = self.design_
        if feature is not None and feature not in spec.columns:
            raise ValidationError(f"Unknown feature {feature!r} in 'feature'; the columns are {spec.columns}.")
        level = f"{100 * self.confidence_level:g}%"
        sentences = []
        if feature is None and spec.intercept:
            est, _, lo, hi = self.contrast({INTERCEPT: 1.0})
            what, _, expo = self._scale_words()
            v = (np.exp(est), np.exp(lo), np.exp(hi)) if expo else (est, lo, hi)
            if not self.estimable_[INTERCEPT]:
                value = f"{NOT_ESTIMABLE}"
            elif self.penalized_:
                value = f"{_fmt(v[0])} (penalised fit, no interval)"
            else:
                value = f"{_fmt(v[0])} [{_fmt(v[1])}, {_fmt(v[2])}]"
            sentences.append(f"When every numeric feature is 0 and every categorical feature is at its reference "
                             f"level, {what} is {value}.")
        pairs = [t for t in spec.interactions if len(t) == 2]
        triples = [t for t in spec.interactions if len(t) == 3]
        focus_of = {}
        for a, b in pairs:
            if feature is not None and feature in (a, b):
                focus_of[(a, b)] = feature
            elif (a in spec.categorical) != (b in spec.categorical):
                focus_of[(a, b)] = b if a in spec.categorical else a  # the numeric one, at each level
            else:
                focus_of[(a, b)] = b
        for f in spec.features:
            if feature is not None and f != feature:
                continue
            partners = [(b if a == f else a) for a, b in pairs if f in (a, b)]
            partners += [g for t in triples if f in t for g in t if g != f and g not in partners]
            if any(focus_of[p] == f for p in pairs if f in p):
                continue  # read at every level of its moderator below
            cond = ""
            if partners:
                parts = [f"{p} = {spec.reference(p)}" if p in spec.categorical else f"{p} = 0" for p in partners]
                cond = " when " + " and ".join(parts)
            if f in spec.polynomial:
                sentences += self._polynomial_sentences(f, cond, bool(partners))
                continue
            for i, col in enumerate(spec.blocks[f]):
                est, _, lo, hi = self.contrast(np.eye(len(self.coef_))[col])
                sentences.append(f"{self._unit(f, i)} {self._phrase(est, lo, hi, bool(self.estimable_.iloc[col]))}"
                                 f"{cond}"
                                 f"{'' if partners else ', all other features fixed'}.")
        for a, b in pairs:
            if feature is not None and feature not in (a, b):
                continue
            focus = focus_of[(a, b)]
            moderator = a if focus == b else b
            sentences += self._conditional(focus, moderator, (a, b))
        for t in triples:
            if feature is not None and feature not in t:
                continue
            for name, col in zip(np.asarray(spec.names)[spec.blocks[t]], spec.blocks[t]):
                est, _, lo, hi = self.contrast(np.eye(len(self.coef_))[col])
                phrase = self._phrase(est, lo, hi, bool(self.estimable_.iloc[col]))
                sentences.append(f"The three-way product term {name} {phrase} per unit of the product: it is "
                                 f"how much the interaction of two of {', '.join(t)} changes with the third.")
        if sentences and self.penalized_:
            sentences.append(f"The weights are from a ridge-penalised fit (alpha={self.alpha:g}); they are "
                             f"shrunk towards 0 and have no intervals.")
        elif sentences:
            sentences.append(f"Intervals in brackets are {level} Wald intervals.")
            if not self.estimable_.all():
                bad = list(self.estimable_.index[~self.estimable_.to_numpy()])
                sentences.append(f"Weights {NOT_ESTIMABLE}: {', '.join(bad[:10])}"
                                 f"{' and more' if len(bad) > 10 else ''}; the data do not determine them "
                                 f"(standard error beyond {NOT_ESTIMABLE_SE:g} per SD on the link scale, or "
                                 f"fewer independent rows than terms).")
        return sentences
