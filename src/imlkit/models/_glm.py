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
``workingday[yes]``, product terms for interactions) comes from :mod:`._design`; the fit and
standard errors are statsmodels' own, so the numbers equal ``statsmodels.api.GLM`` on the same
design. The intervals and p-values use Student's t on the residual df where the dispersion is
estimated (gaussian, gamma, ``dispersion="pearson"``), as R's ``summary.glm`` does -- statsmodels'
``GLM(...).fit(use_t=True)``, and for the gaussian family with identity link ``OLS(...).fit()`` -- and
the normal distribution where it is known (binomial, poisson, exponential: ``fit()``'s default) and
for HC3 sandwich standard errors (as ``OLS(...).fit(cov_type="HC3")`` by default).
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.utils.metaestimators import available_if

from .._dependence import MIN_ROWS_PER_REGRESSOR, adjusted_r2
from .._validation import ModelError, ValidationError, check_bool, check_choice, check_float, check_probability
from ._design import INTERCEPT, collinear_partners, fit_design
from ._family import FAMILY_LINKS, Family, _FamilyEstimator, _statsmodels_family, binomial_counts, is_two_columns

__all__ = ["FAMILY_LINKS", "GLM"]

#: Standard error (link scale, per SD of the column) above which a weight is "not estimable".
NOT_ESTIMABLE_SE = 10.0
#: R² of a design column from the others above which its reading says "holding the others fixed is
#: outside the data" (a variance inflation factor of 10, the usual rule of thumb).
COLLINEAR_R2 = 0.9
#: R² of a design column from the others from which a reading says how little the column varies with them fixed (the
#: residual SD, ``SD·√(1 − R²)``): the share the report's data section calls "strongly dependent" (R² ≥ 0.5).
DEPENDENT_R2 = 0.5
#: R² of a non-estimable column from the others above which its cause is named as near collinearity (a variance
#: inflation factor above 100: its standard error is more than 10 times what it would be alone).
NEARLY_COLLINEAR_R2 = 0.99
#: A numeric column whose observed range is below 1/this is not read per one unit: a unit step more than
#: twice the range leaves the data from every observed value (DEGREE, a share from 0.16 to 0.31).
UNIT_BEYOND_RANGE = 2.0
#: A numeric column whose one unit is less than this share of its SD is read per the power of ten at most its SD.
UNIT_SHARE_OF_SD = 0.01
#: exp() of a weight or its interval beyond 10^±15 is not printed (a meaningless number).
MAX_EXP_LOG = np.log(1e15)

#: Rows (evenly spaced) and numeric columns beyond which the check for a feature that is a nonlinear function of
#: another (``collinearity_["function_r2"]``) is thinned: it runs in every fit, refits included.
FUNCTIONAL_ROWS = 1000
FUNCTIONAL_SPLINE_COLUMNS = 100

#: Links whose weights are read multiplicatively after exp(): ratios of means or of odds.
EXP_LINKS = ("log", "logit")

#: Level of the Breusch–Pagan test of the variance function (estimated-dispersion families): below it,
#: ``covariance="auto"`` gives HC3 sandwich intervals and the reading says why, with the test's numbers.
HETEROSCEDASTICITY_LEVEL = 0.05
#: Leverage from which a row is fitted exactly (its own weight): HC3 divides its residual by 1 − h, 0/0 there.
FULL_LEVERAGE = 1 - 1e-8

#: A Spearman ρ² or spline R² from this on says that one feature is (almost) exactly a function of another: holding
#: one fixed while the other changes is not merely outside the data but (nearly) impossible.
EXACT_FUNCTION_R2 = 0.999
#: Residual sum of squares / total sum of squares below which a column is taken as an exact polynomial of another
#: (INCOMESQ = INCOME² to double precision: about 1e-30); the candidates are pairs with a ρ² or spline R² of 0.99.
EXACT_POLYNOMIAL_RSS = 1e-10


# ----------------------------------------------------------------------------- plumbing
def _fmt(v, digits=3):
    """Course-style numbers: 1.12, 0.855, -21.8, 2185.8 (``digits`` significant digits, one decimal
    at least from 100 on)."""
    v = float(v)
    if 100 <= abs(v) < 1e15:
        return f"{v:.{max(1, digits - 2)}f}"
    return f"{v:.{digits}g}"


def _fmt_all(*values):
    """The values with the fewest significant digits (3 at least) that tell them apart.

    An estimate and the ends of its interval printed alike ("1.01 [1, 1.01]") hide the interval:
    digits are added until every pair of different values prints differently (at most 10).
    """
    values = [float(v) for v in values]
    for digits in range(3, 11):
        out = [_fmt(v, digits) for v in values]
        if all(out[i] != out[k] or values[i] == values[k]
               for i in range(len(out)) for k in range(i + 1, len(out))):
            return out
    return out


def _label(v):
    """A class label as a reader writes it: 1.0 -> 1 (a 0/1 float target), strings as they are."""
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, (np.integer, np.bool_)):
        return str(v.item())
    return str(v)


def _names(items, k=4):
    items = list(items)
    return ", ".join(items[:k]) + (f" and {len(items) - k} more" if len(items) > k else "")


#: Columns named as carrying a column's dependence: at most this many, fewer once they carry ``PARTNER_SHARE`` of it.
MAX_PARTNERS = 3
PARTNER_SHARE = 0.9


def _forward_partners(C, a, allowed, full):
    """The columns (positions in ``C``) that carry most of column ``a``'s R² ``full`` from the ``allowed`` others,
    and their own R²: forward selection, each step adding the column with the largest squared partial correlation
    with ``a`` given those chosen (R²_{S+k} = R²_S + (1 − R²_S)·r²_{ak·S}), until ``MAX_PARTNERS`` are named or they
    carry ``PARTNER_SHARE`` of ``full``. ``C``: correlation matrix of the design's columns."""
    allowed = allowed.copy()
    allowed[a] = False
    chosen, got = [], 0.0
    while len(chosen) < MAX_PARTNERS and allowed.any() and not (chosen and got >= PARTNER_SHARE * full):
        if chosen:
            S = np.array(chosen)
            A = np.linalg.pinv(C[np.ix_(S, S)])
            CS = C[S]                                           # (|S|, p)
            cov = C[a] - C[a, S] @ A @ CS                       # partial covariances with a given S
            var = 1.0 - np.einsum("ip,ij,jp->p", CS, A, CS)     # residual variances given S
            var_a = 1.0 - float(C[a, S] @ A @ C[S, a])
        else:
            cov, var, var_a = C[a].copy(), np.ones(C.shape[0]), 1.0
        with np.errstate(divide="ignore", invalid="ignore"):
            pr2 = np.where(allowed & (var > 1e-12), cov ** 2 / (var * max(var_a, 1e-12)), -1.0)
        k = int(np.argmax(pr2))
        if pr2[k] <= 0:
            break
        chosen.append(k)
        allowed[k] = False
        got = got + (1.0 - got) * float(min(pr2[k], 1.0))
    return chosen, float(min(got, 1.0)) if chosen else np.nan


def _polynomial_words(g, f, p):
    """'INCOMESQ = INCOME²', 'z = 2 + 0.5·x − x³': column ``g`` as the polynomial ``p`` (raw units) of column ``f``;
    terms whose coefficient is 0 to 10 significant digits of the largest are left out."""
    coef = np.asarray(p.coef, dtype=float)
    big = float(np.max(np.abs(coef))) if coef.size else 0.0
    powers = {1: "", 2: "²", 3: "³"}
    terms = []
    for d, c in enumerate(coef):
        if big == 0 or abs(c) <= 1e-10 * big:
            continue
        num = _fmt(abs(c), 4)
        body = num if d == 0 else (f"{f}{powers[d]}" if num == "1" else f"{num}·{f}{powers[d]}")
        sign = "−" if c < 0 else "+"
        terms.append((sign, body))
    if not terms:
        return f"{g} = 0"
    head = ("−" if terms[0][0] == "−" else "") + terms[0][1]
    return f"{g} = " + head + "".join(f" {s} {b}" for s, b in terms[1:])


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


def _breusch_pagan(resid, D):
    """(LM statistic, df, p-value) of Koenker's studentised Breusch–Pagan test: ``n·R²`` of the squared residuals
    regressed on a constant and the columns of ``D``, against χ²(df), df the rank of those columns beyond the
    constant (statsmodels' ``het_breuschpagan`` with ``robust=True``). Koenker's form does not assume normal
    errors (the original's LM does, and rejects far too often on heavy tails). (nan, 0, nan) when nothing varies."""
    u = np.asarray(resid, dtype=float) ** 2
    n = u.shape[0]
    Z = np.column_stack([np.ones(n), D])
    Z = Z[:, _independent_columns(Z)]
    df = Z.shape[1] - 1
    tss = float(np.sum((u - u.mean()) ** 2))
    if df < 1 or n <= Z.shape[1] or not tss > 0:
        return np.nan, df, np.nan
    rss = float(np.sum((u - Z @ np.linalg.lstsq(Z, u, rcond=None)[0]) ** 2))
    lm = n * max(0.0, 1.0 - rss / tss)
    return lm, df, float(stats.chi2.sf(lm, df))


def _hc3_covariance(result):
    """HC3 sandwich covariance of a statsmodels GLM fit (MacKinnon & White 1985; Long & Ervin 2000):
    ``A⁻¹ (Σ_i s_i s_iᵀ / (1 − h_i)²) A⁻¹`` with ``s_i`` row i's score and ``A = XᵀWX`` the expected information (both
    at dispersion 1: it cancels; R's ``sandwich`` uses it too, statsmodels' GLM the observed one, which differs for a
    non-canonical link), ``h_i`` the leverage of the IRLS-weighted design -- for the gaussian family with
    identity link exactly OLS's HC3 (``(XᵀX)⁻¹ Σ x_i x_iᵀ e_i²/(1 − h_i)² (XᵀX)⁻¹``), for others R's
    ``sandwich::vcovHC(type = "HC3")``. statsmodels' GLM takes ``cov_type="HC3"`` but computes HC0 (no leverage).
    Returns (covariance, number of rows of leverage 1): with such a row (``FULL_LEVERAGE``: a weight fitted to that
    row alone, its residual 0/0 after the division) HC3 is not defined and the covariance is NaN."""
    model, params = result.model, np.asarray(result.params)
    score = np.asarray(model.score_obs(params, scale=1.0), dtype=float)
    info = -np.asarray(model.hessian(params, scale=1.0, observed=False), dtype=float)
    h = np.asarray(result.get_hat_matrix_diag(observed=False), dtype=float)
    n_full = int(np.sum(h >= FULL_LEVERAGE))
    if n_full:
        return np.full(info.shape, np.nan), n_full
    u = score / (1.0 - h)[:, None]
    bread = np.linalg.inv(info)
    return bread @ (u.T @ u) @ bread, 0


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
        columns. For binomial counts ``n``, the means and the SDs are over trials (as on the data
        expanded to 0/1 rows). This is the way to fit a GLM with as many terms as rows or more, and it keeps
        the weights finite under separation. Such a fit has no standard errors: :meth:`summary`
        has NaN intervals and the sentences say "penalised fit, no interval". With at least as many terms as
        rows the penalty, not the data, sets the weights: ``estimable_`` is False for all of them and
        :meth:`interpret` names them in its closing line, "(set by the penalty: 63 rows for 301 terms)".
    dispersion : {"family", "pearson"}, default "family"
        The dispersion φ the standard errors use. "family": the family's own (1 for poisson,
        binomial and exponential; estimated for gaussian and gamma), statsmodels' default.
        "pearson": φ̂ = Pearson χ² / residual df for every family (quasi-likelihood: quasi-Poisson,
        quasi-binomial; statsmodels' ``fit(scale="X2")``) -- the same weights, standard errors
        multiplied by √φ̂. Use it when counts vary more than the family allows: :meth:`interpret`
        says when the Pearson test rejects φ = 1 (``pearson_dispersion_``, ``overdispersion_p_``).
    covariance : {"auto", "model", "HC3"}, default "auto"
        The covariance of the weights behind the standard errors, intervals, statistics and p-values of
        :meth:`summary`, :meth:`contrast` and :meth:`interpret`. "model": the family's own (the inverse Fisher
        information times the dispersion; statsmodels' default), which assumes the family's variance function
        (gaussian: a constant variance). "HC3": the HC3 sandwich (MacKinnon & White 1985), which holds on large
        samples whatever the variance of y given x. "auto": for a family whose dispersion is estimated (gaussian,
        gamma) the variance function is tested -- Koenker's studentised Breusch–Pagan test of the squared Pearson
        residuals on the design's columns (``heteroscedasticity_p_``) -- and when it rejects at
        ``HETEROSCEDASTICITY_LEVEL`` (= 0.05) the intervals are HC3 ones, else the model's. The model's intervals
        are exact (gaussian) and the narrowest valid ones when the variance function holds; when the data reject
        it they are not "95%" intervals (engel's food expenditure on income: p = 6e-15, the HC3 standard error
        1.9 times the model's, the model's "95%" interval covering 36% of resamples), so "auto" prints the
        sandwich ones -- not both: a table's intervals are the ones it stands behind -- and says why, with the
        test's p-value and the ratio of the two standard errors; :meth:`summary` keeps the model's beside
        (``model_std_error``). Families with a fixed dispersion have their own check (``overdispersion_p_``).

    Attributes
    ----------
    coef_ : Series, shape (n_terms,)
        The weights, indexed by design names (``"(Intercept)"``, ``"temp"``, ``"workingday[yes]"``).
    design_ : DesignSpec
        Coding learned from the training data.
    result_ : statsmodels GLMResults
    classes_ : ndarray, shape (2,)
        Binomial family only; the second class is the one modelled (``y = 1``). ``[0, 1]``
        (failure, success of one trial) for counts: a two-column ``y`` or ``trials``.
    estimable_ : Series of bool, shape (n_terms,)
        False for weights the data cannot determine: a design column in an exact linear
        dependency with others (collinear columns, a level that occurs with another one only), a
        non-finite standard error, or -- for a non-identity link -- a standard error above
        ``NOT_ESTIMABLE_SE`` (= 10) on the link scale per standard deviation of the column (per
        unit for 0/1 columns), i.e. a 95% interval for ``exp(weight)`` wider than a factor of
        e^39 ≈ 10^17, which is what (quasi-)separation produces. The intercept is judged at the
        centre of the design (the standard error of the prediction at the column means, the
        intercept of the centred design): its own standard error only says how far 0 of the
        columns lies from the data (Year = 0). A ridge-penalised fit (``alpha > 0``) has no standard
        errors; there every weight is False when the design has at least as many terms as rows (the
        penalty, not the data, sets them: ``"set by the penalty: 63 rows for 301 terms"``), and so is
        a weight in an exact linear dependency; the others are the data's weights, shrunk. :meth:`summary` has a
        column ``estimable`` and :meth:`interpret` gives such a weight no sentence, only the closing line with
        its cause.
    not_estimable_ : Series of str, shape (n_terms,)
        Why a weight is not estimable ("" when it is): ``"collinear with a, b"`` (the columns
        sharing its null-space direction of the design), ``"separation: 12% of the fitted
        probabilities are 0 or 1 ..."``, fitted means at 0 (log link), ``"nearly collinear with
        ..."`` (R² above ``NEARLY_COLLINEAR_R2`` = 0.99, named first: a near dependency inflates the
        standard error whatever else the fit does) or the standard error itself.
    collinearity_ : DataFrame, index = design names
        ``r_squared``: R² of each column from the other (non-constant, identified) columns, ``1 − 1/(C⁻¹)_jj`` for
        their correlation matrix ``C`` (the variance inflation factor is ``(C⁻¹)_jj``), NaN for the intercept;
        ``with``: the columns with the largest standardised weights in that regression. From ``r_squared >= 0.9`` on
        a reading says that holding the others fixed is outside the data, and from 0.5 how little the column varies
        with them fixed, naming the fitted rows the R² is from -- only when those rows are at least
        ``MIN_ROWS_PER_REGRESSOR`` (= 5) per regressor (``attrs["judged"]``, with ``attrs["n_rows"]`` and
        ``attrs["n_regressors"]``): on fewer an R² from a linear fit mostly measures the number of regressors, and
        the closing line says that the dependence was not judged. ``function_of``, ``function_r2``,
        ``function_how``: the numeric feature that nearly fixes this one through a nonlinear function the linear R²
        misses (popul and logpopul), its Spearman ρ² or spline R² (``pairwise_functional_r2``; on at most
        ``FUNCTIONAL_ROWS`` = 1000 evenly spaced rows, ranks only beyond 100 numeric columns); from 0.9 on a reading
        says that holding that feature fixed is outside the data.
    event_ : str
        Binomial family only: what the odds are of, ``"<target> = <classes_[1]>"`` (an integral
        float label reads ``1``, not ``1.0``); for counts ``"a success per trial (NABOVE out of
        NABOVE + NBELOW)"`` (the two columns' names; ``y[:, 0] out of y[:, 0] + y[:, 1]`` for an
        array; ``"<y>: the share of successes out of 'trials'"`` for proportions).
    penalized_ : bool
        True when fitted with ``alpha > 0``.
    pearson_dispersion_ : float
        Pearson χ² / residual degrees of freedom (NaN for a penalised fit or without residual df): 1 on
        average when the family's variance holds (poisson: variance = mean).
    overdispersion_p_ : float
        One-sided p-value of the Pearson χ² against χ²(residual df), the test of φ = 1, for the families
        whose dispersion is fixed at 1 (poisson, exponential, binomial counts with more than one trial per
        row); NaN otherwise (0/1 rows carry no information on the dispersion; gaussian and gamma estimate it).
    dispersion_ : float
        The dispersion the standard errors use (1 for a fixed one).
    covariance_ : {"model", "HC3"}
        The covariance the standard errors use (see ``covariance``; "model" for a penalised fit, which has none).
    heteroscedasticity_p_ : float
        p-value of Koenker's studentised Breusch–Pagan test (``n·R²`` of the squared Pearson residuals on a
        constant and the design's columns, against χ² on their rank beyond the constant; statsmodels'
        ``het_breuschpagan``), for the families whose dispersion is estimated (gaussian, gamma); NaN otherwise
        (fixed-dispersion families have ``overdispersion_p_``) and for a penalised fit.
    hc3_se_ratio_ : Series, shape (n_terms,)
        HC3 standard error / model-based standard error of each weight, computed when the HC3 covariance is used
        or the test rejects; NaN otherwise. Above 1, the model's intervals are too narrow by that factor.
    wald_coverage_ : float
        The probability that a Wald interval covers its weight: ``confidence_level``, the intervals using the
        normal quantile for a fixed dispersion and Student's t on the residual df for an estimated one (exactly so
        for the gaussian family with identity link; normal quantiles there would cover 90.9% for "95%" on 7
        residual df). NaN for a penalised fit and for HC3 intervals (whose coverage is the nominal one on large
        samples only, with no exact figure).
    link_ : str
    family_ : Family
        The family with its link (:class:`imlkit.models._family.Family`), what prediction inverts.
    n_features_in_, feature_names_in_

    Notes
    -----
    ``g(E[y | x]) = β₀ + Σ_j β_j x_j``. Categorical features enter as dummies ``x_j[l]`` against
    their first level. For log and logit links ``exp(β_j)`` is the factor by which the mean (log)
    or the odds (logit) change for a unit increase of ``x_j``; an interval for it is
    ``exp`` of the Wald interval ``β_j ± q SE_j``, ``q`` the ``1 − α/2`` quantile of the normal distribution
    for a fixed dispersion or HC3 standard errors, of Student's t on the residual df for an estimated
    dispersion (R's ``summary.glm``; statsmodels' ``use_t=True``). An interaction ``a:b`` makes the
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
                 confidence_level=0.95, alpha=0.0, polynomial=None, dispersion="family", covariance="auto"):
        self.family = family
        self.link = link
        self.interactions = interactions
        self.fit_intercept = fit_intercept
        self.confidence_level = confidence_level
        self.alpha = alpha
        self.polynomial = polynomial
        self.dispersion = dispersion
        self.covariance = covariance

    # -- fitting
    def fit(self, X, y, *, trials=None):
        """Fit by iteratively reweighted least squares (statsmodels).

        Parameters
        ----------
        X : DataFrame or array, shape (n, p)
        y : array-like, shape (n,) or (n, 2)
            The target. For the binomial family: two labels per row (one trial each), or -- as in
            statsmodels -- two columns ``(successes, failures)`` of non-negative whole-number
            counts per row (a DataFrame's column names then name the success), or, with
            ``trials``, the proportion of successes in [0, 1].
        trials : array-like, shape (n,), optional
            Binomial family only: positive whole numbers of trials per row, with ``y`` the
            proportion of successes (``y · trials`` whole numbers). Equivalent to the two-column
            ``y = (y · trials, (1 − y) · trials)``.

        Returns
        -------
        self

        Notes
        -----
        Counts fit the same model as the data expanded to one 0/1 row per trial: the same weights,
        standard errors and intervals (the deviance differs, as the saturated model does: it is
        the binomial deviance of the counts, statsmodels' and R's). ``classes_`` is then ``[0, 1]``
        (failure, success); ``predict_proba`` gives the probability of a success per trial.
        """
        from statsmodels.genmod.generalized_linear_model import GLM as StatsmodelsGLM  # not the whole api

        fam = Family(self.family, self.link)
        family, link = fam.name, fam.link_name
        check_bool("fit_intercept", self.fit_intercept)
        check_probability("confidence_level", self.confidence_level)
        alpha = check_float("alpha", self.alpha, low=0.0)
        check_choice("dispersion", self.dispersion, ["family", "pearson"])
        check_choice("covariance", self.covariance, ["auto", "model", "HC3"])
        counts = binomial_counts(y, trials, fam, n=None)
        if counts is None:
            frame, y_enc = self._check_X_y_family(X, y, fam)
            n_trials = None
        else:
            frame = self._check_X(X, reset=True)
            successes, failures, what = counts
            if successes.shape[0] != len(frame):
                raise ValidationError(f"X and 'y' have different lengths: X has {len(frame)} rows, y has "
                                      f"{successes.shape[0]}.")
            if len(frame) < 2:
                raise ValidationError(f"GLM needs at least 2 rows in 'X'; got n_samples={len(frame)}.")
            self.classes_ = np.array([0, 1])
            n_trials = successes + failures
            y_enc = successes / n_trials
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
            params = self._fit_penalized(D, y_enc, fam, alpha, trials=n_trials)
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
                    if n_trials is None:
                        model = StatsmodelsGLM(y_enc, D[:, kept], family=fam.sm)
                    else:
                        # statsmodels' own two-column form (its deviance, Pearson χ² and log-likelihood
                        # use the counts); a fresh family, as statsmodels stores the trials on it
                        model = StatsmodelsGLM(np.column_stack([successes, failures]), D[:, kept],
                                       family=_statsmodels_family(family, link))
                    scale = ("X2" if self.dispersion == "pearson" else 1.0 if family == "exponential" else None)
                    result = model.fit(scale=scale)
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
        self._sd = D.std(axis=0)
        self._spread = D.max(axis=0) - D.min(axis=0)
        self._means = D.mean(axis=0)
        self._binary = np.all((D == 0) | (D == 1), axis=0)
        self._ranges = {c: (float(np.nanmin(frame[c])), float(np.nanmax(frame[c])))
                        for c in spec.features if c not in spec.categorical}
        self.collinearity_ = self._collinearity(D)
        #: {column j: [(column k, Polynomial p)]}: the columns that are exact polynomials of j (_add_functional)
        self._polynomials = {}
        self._add_functional(D)
        self._set_dispersion(result, fam, n_trials)
        self._set_covariance(D, result, fam)
        self._set_coverage()
        ok, why = self._estimable(D, result, y_enc)
        self.estimable_ = pd.Series(ok, index=spec.names, name="estimable")
        self.not_estimable_ = pd.Series(why, index=spec.names, name="not_estimable", dtype=object)
        self.target_name_ = getattr(y, "name", None) if isinstance(getattr(y, "name", None), str) else "y"
        self._counts = counts is not None
        if counts is not None:
            if isinstance(y, pd.DataFrame) and isinstance(y.columns[0], str):
                self.target_name_ = y.columns[0]
            self.event_ = f"a success per trial ({what})"
        elif fam.is_binomial:
            self.event_ = f"{self.target_name_} = {_label(self.classes_[1])}"
        return self

    def _fit_penalized(self, D, y, fam, alpha, max_iter=100, tol=1e-10, trials=None):
        """Ridge GLM by penalised IRLS on standardised columns; weights in the original units.

        Each step solves ``(DsᵀWDs/n + alpha·P) β = DsᵀWz/n`` (P the identity without the
        intercept), halving the step while the penalised objective increases. Binomial counts
        (``trials`` per row, ``y`` the proportions) multiply the working weights by the trials and
        count ``n`` in trials, so the fit equals the one on the data expanded to 0/1 rows (the
        deviances differ by a constant).
        """
        n, p = D.shape
        # counts: every mean, SD and n is over trials, as on the expanded 0/1 rows
        rw = np.ones(n) if trials is None else np.asarray(trials, dtype=float)
        n = float(np.sum(rw))
        const = np.all(D == D[:1], axis=0)
        if trials is None:
            mean, spread = D.mean(axis=0), D.std(axis=0)
        else:
            mean = rw @ D / n
            spread = np.sqrt(np.maximum(rw @ (D - mean) ** 2 / n, 0.0))
        center = np.where(const, 0.0, mean) if self.fit_intercept else np.zeros(p)
        sd = np.where(const, 1.0, spread)
        Ds = (D - center) / sd
        P = np.diag(np.where(const, 0.0, alpha))

        def objective(b):
            return fam.deviance(y, fam.inverse(Ds @ b), weights=trials) / (2 * n) + 0.5 * b @ P @ b

        mu = fam.start_mu(y, weights=trials)
        eta = fam.link(mu)
        beta = None
        obj_old = np.inf
        for _ in range(max_iter):
            w, z = fam.working(y, eta, mu)
            if trials is not None:
                w = w * trials
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

    def _collinearity(self, D):
        """R² of each design column from the other (non-constant, kept) columns, and the columns that
        carry most of it; the same from the columns of the other features only.

        ``R²_j = 1 − 1/(C⁻¹)_jj`` for the correlation matrix ``C`` (the variance inflation factor is
        ``(C⁻¹)_jj``): ``r_squared``. The columns named with it (``with``, their own R² ``with_r2``) are
        chosen by forward selection on R² (:func:`_forward_partners`), not by the size of the
        regression weights: weights of a collinear block are large and cancel (Hitters: Hits on
        everything gave CHits +2.09, CAtBat −1.18, CRuns −0.80, which explain R² 0.19 of Hits,
        while AtBat alone explains 0.93).

        A level of a categorical feature is also judged from the columns of the *other* features
        (``features_r2``, ``features_with``, ``features_with_r2``): the dummies of one factor exclude
        each other, so they predict each other by construction (ISLP Wage: Advanced Degree had R²
        0.63 from the other columns, 0.585 of it from the other education levels, 0.094 from the other
        features). The reading speaks of the other features; the variance inflation that a rare
        reference level causes stays in ``r_squared``. Other columns: ``features_* = `` the plain ones.

        ``attrs``: ``n_rows`` (the fitted rows), ``n_regressors`` (the other columns each is regressed on) and
        ``judged`` -- False below the project's rows-per-regressor rule (:func:`imlkit._dependence.adjusted_r2`,
        ``MIN_ROWS_PER_REGRESSOR`` = 5 rows per regressor), where an R² from a linear fit mostly measures the number of
        regressors (about d / (n − 1) for unrelated columns); the readings then say nothing of a column's linear
        dependence on the others.
        """
        names = list(self.design_.names)
        p = len(names)
        r2, fr2 = np.full(p, np.nan), np.full(p, np.nan)
        partners, part_r2 = [[] for _ in names], np.full(p, np.nan)
        fpartners, fpart_r2 = [[] for _ in names], np.full(p, np.nan)
        cols = [j for j in self._kept if self._sd[j] > 0]
        n_rows, n_reg = int(D.shape[0]), max(len(cols) - 1, 0)
        if len(cols) >= 2:
            C = np.corrcoef(D[:, cols], rowvar=False)
            Ci = np.linalg.pinv(C)
            d = np.diag(Ci)
            pos = {j: a for a, j in enumerate(cols)}
            for a, j in enumerate(cols):
                r2[j] = float(np.clip(1 - 1 / d[a], 0, 1)) if d[a] > 0 else np.nan
                fr2[j] = r2[j]
                if r2[j] >= DEPENDENT_R2:
                    partners[j], part_r2[j] = _forward_partners(C, a, np.ones(len(cols), dtype=bool), r2[j])
                    partners[j] = [names[cols[k]] for k in partners[j]]
                fpartners[j], fpart_r2[j] = partners[j], part_r2[j]
            for f, block in self.design_.blocks.items():
                if not (isinstance(f, str) and f in self.design_.categorical):
                    continue
                inside = [pos[b] for b in block if b in pos]
                if len(inside) < 2:
                    continue
                others = np.ones(len(cols), dtype=bool)
                others[inside] = False
                if not others.any():
                    for b in inside:
                        fr2[cols[b]], fpartners[cols[b]], fpart_r2[cols[b]] = 0.0, [], np.nan
                    continue
                Coo = np.linalg.pinv(C[np.ix_(others, others)])
                for b in inside:
                    c = C[others, b]
                    fr2[cols[b]] = float(np.clip(c @ Coo @ c, 0, 1))
                    fpartners[cols[b]], fpart_r2[cols[b]] = [], np.nan
                    if fr2[cols[b]] >= DEPENDENT_R2:
                        found, val = _forward_partners(C, b, others, fr2[cols[b]])
                        fpartners[cols[b]], fpart_r2[cols[b]] = [names[cols[k]] for k in found], val
        out = pd.DataFrame({"r_squared": r2, "with": partners, "with_r2": part_r2, "features_r2": fr2,
                            "features_with": fpartners, "features_with_r2": fpart_r2},
                           index=pd.Index(names, name="term"))
        # the project's rule for an R² from few rows (the data section's and PFI's): adjusted_r2 refuses (NaN) below
        # MIN_ROWS_PER_REGRESSOR rows per regressor
        probe = pd.Series(np.where(np.isfinite(r2), r2, 0.0))
        probe.attrs.update(n_rows=n_rows, n_regressors=n_reg)
        judged = n_reg == 0 or bool(adjusted_r2(probe).notna().any())
        out.attrs.update(n_rows=n_rows, n_regressors=n_reg, judged=judged)
        return out

    def _set_dispersion(self, result, fam, n_trials):
        """``pearson_dispersion_``, ``overdispersion_p_`` and ``dispersion_`` (see the class docstring)."""
        self.pearson_dispersion_ = self.overdispersion_p_ = np.nan
        self.dispersion_ = np.nan if result is None else float(result.scale)
        if result is None or not result.df_resid > 0:
            return
        chi2 = float(result.pearson_chi2)
        self.pearson_dispersion_ = chi2 / float(result.df_resid)
        fixed = fam.name in ("poisson", "exponential") or (
            fam.is_binomial and n_trials is not None and np.any(np.asarray(n_trials) > 1))
        if fixed:
            self.overdispersion_p_ = float(stats.chi2.sf(chi2, float(result.df_resid)))

    def _set_covariance(self, D, result, fam):
        """``covariance_``, ``heteroscedasticity_p_``, ``hc3_se_ratio_`` and the covariance the inference uses."""
        names = self.design_.names
        self.covariance_ = "model"
        self.heteroscedasticity_p_ = np.nan
        self._variance_test = (np.nan, 0)
        self._n_full_leverage = 0
        self.hc3_se_ratio_ = pd.Series(np.nan, index=names, name="hc3_se_ratio")
        self._cov = None if result is None else np.asarray(result.cov_params(), dtype=float)
        if result is None:
            return
        # the families whose dispersion is estimated: their intervals rest on the variance function V(μ)·φ with
        # one φ for every row, which the squared Pearson residuals test (fixed-dispersion ones: overdispersion_p_)
        if not fam.scale_known and result.df_resid > 0:
            lm, df, p = _breusch_pagan(np.asarray(result.resid_pearson, dtype=float), D[:, self._kept])
            self.heteroscedasticity_p_ = p
            self._variance_test = (lm, df)
        if not (self.covariance == "HC3" or self.heteroscedastic()):
            return
        hc3, self._n_full_leverage = _hc3_covariance(result)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.sqrt(np.clip(np.diag(hc3), 0, None)) / np.asarray(result.bse, dtype=float)
        self.hc3_se_ratio_ = pd.Series(self._full(ratio), index=names, name="hc3_se_ratio")
        if self.covariance != "model" and np.all(np.isfinite(hc3)):
            self._cov = hc3
            self.covariance_ = "HC3"

    def heteroscedastic(self, level=HETEROSCEDASTICITY_LEVEL):
        """Whether the Breusch–Pagan test (``heteroscedasticity_p_``) rejects the family's variance function at
        ``level``: the variance of y given x is not V(μ)·φ with one φ (gaussian: not constant)."""
        p = getattr(self, "heteroscedasticity_p_", np.nan)
        return bool(np.isfinite(p) and p < level)

    def overdispersed(self, level=0.05):
        """Whether the Pearson test rejects the family's fixed dispersion of 1 at ``level`` (counts varying more
        than a poisson or binomial allows), for a fit whose standard errors still assume it."""
        self._check_fitted()
        return bool(self.dispersion == "family" and np.isfinite(self.overdispersion_p_)
                    and self.overdispersion_p_ < level and self.pearson_dispersion_ > 1)

    def _dispersion_words(self):
        """The closing line's words on the dispersion the intervals assume, with its numbers."""
        from .._display import p_is

        phi = self.pearson_dispersion_
        df = float(self.result_.df_resid) if self.result_ is not None else np.nan
        if self.dispersion == "pearson":
            return (f" with the dispersion estimated from the Pearson χ² ({_fmt(phi)} on {df:,.0f} residual df; "
                    f"quasi-likelihood: the {self.family} weights, standard errors times √{_fmt(phi)})")
        if not self.overdispersed():
            return ""
        return (f"; they assume the {self.family} variance (dispersion 1), but the Pearson dispersion is {_fmt(phi)} "
                f"(χ² {phi * df:,.1f} on {df:,.0f} residual df, p {p_is(self.overdispersion_p_)} against 1), so they "
                f"are too narrow: with the dispersion estimated (dispersion='pearson', quasi-likelihood) each is "
                f"√{_fmt(phi)} = {_fmt(np.sqrt(phi))} times as wide")

    def _variance_assumption(self):
        """What the model-based intervals assume of the variance of y given x, in words."""
        if self.family == "gaussian":
            return "one variance for every row (the gaussian family's)"
        if self.family == "gamma":
            return "a variance of one dispersion times the squared mean for every row (the gamma family's)"
        return f"the {self.family} family's variance function with one dispersion for every row"

    def _ratio_words(self):
        """'the HC3 standard error is 1.94 times the model's for income' (the weights with the largest ratios, the
        range of the others), and whether the model's intervals are too narrow or too wide by those factors."""
        r = self.hc3_se_ratio_
        ok = self.estimable_.to_numpy() & np.isfinite(r.to_numpy())
        names = np.asarray(self.design_.names, dtype=object)
        slopes = ok & (names != INTERCEPT)
        use = slopes if slopes.any() else ok
        if not use.any():
            return ""
        vals, who = r.to_numpy()[use], names[use]
        order = np.argsort(-vals, kind="stable")
        vals, who = vals[order], who[order]
        top, rest = vals[:3], vals[3:]
        nums = [f"{v:.3g}" for v in top]
        if len(top) == 1:
            out = f"the HC3 standard error is {nums[0]} times the model's for {who[0]}"
        else:
            out = (f"the HC3 standard errors are {', '.join(nums[:-1])} and {nums[-1]} times the model's for "
                   f"{', '.join(who[:len(top) - 1])} and {who[len(top) - 1]}")
        if rest.size:
            other = "the other weight" if rest.size == 1 else f"the other {rest.size} weights"
            span = f"{rest[0]:.3g}" if rest.size == 1 else f"from {rest[-1]:.3g} to {rest[0]:.3g}"
            out += f" ({span} for {other})"
        if vals.min() > 1:
            out += (", so the model's intervals would be too narrow by " +
                    ("that factor" if vals.size == 1 else "these factors"))
        elif vals.max() > 1:
            out += ", so the model's intervals would be too narrow where the factor is above 1 (too wide below)"
        else:
            out += ", so the model's intervals would be too wide by " + ("that factor" if vals.size == 1 else
                                                                         "these factors")
        return out

    def _covariance_words(self):
        """The closing line's words on the covariance of the intervals and, when the Breusch–Pagan test rejects the
        family's variance function, its numbers and the HC3/model ratio of the standard errors."""
        from .._display import p_is

        test = ""
        if self.heteroscedastic():
            lm, df = self._variance_test
            test = (f"{self._variance_assumption()}, which a Breusch–Pagan test rejects at the "
                    f"{HETEROSCEDASTICITY_LEVEL:g} level (Koenker's form, the squared Pearson residuals on the "
                    f"design's columns: χ² {lm:,.1f} on {df} df, p {p_is(self.heteroscedasticity_p_)})")
        if self.covariance_ == "HC3":
            how = "covariance='HC3'; " if self.covariance == "HC3" else ""
            if not test:
                return f" with HC3 sandwich standard errors ({how}MacKinnon & White 1985)"
            ratio = self._ratio_words()
            return (f" with HC3 sandwich standard errors ({how}MacKinnon & White 1985), which hold on large samples "
                    f"whatever the variance of each row, not the model-based ones: those assume {test}"
                    + (f"; {ratio}" if ratio else ""))
        if self._n_full_leverage:  # HC3 was asked for or called for, and is not defined
            k = self._n_full_leverage
            return (f"{'; they assume ' + test if test else ''}; HC3 sandwich intervals are not defined here "
                    f"({k} row{'s have' if k > 1 else ' has'} leverage 1: a weight fitted to that row alone), so these "
                    f"are the model-based ones{', which the test rejects' if test else ''}")
        if not test:
            return ""
        ratio = self._ratio_words()
        return (f"; they assume {test}" + (f"; {ratio}" if ratio else "")
                + " (covariance='HC3' or 'auto' gives sandwich intervals)")

    def _set_coverage(self):
        """``wald_coverage_``: with an estimated dispersion (gaussian, gamma, dispersion='pearson') the intervals use
        Student's t on the residual df (:meth:`_t_df`), which covers with the nominal probability (exactly for the
        gaussian family with identity link) where the normal quantile would not (copper, 13 rows and 6 terms: 90.9%
        for '95%'); with a fixed dispersion the normal quantile's level is its own."""
        r = self.result_
        self.wald_coverage_ = np.nan if r is None else float(self.confidence_level)
        if self.covariance_ == "HC3":
            self.wald_coverage_ = np.nan  # nominal on large samples only: no exact figure to give
            return
        df = self._t_df()
        if df is not None:
            # the level of the t quantile in use: 2·F_t(q; df) − 1 (the confidence level, to rounding)
            self.wald_coverage_ = float(2 * stats.t.cdf(self._quantile(), df) - 1)

    def _t_df(self):
        """The residual df of the Student t the intervals and p-values use, or None for the normal distribution.

        t(df_resid) where the dispersion is estimated (gaussian, gamma, ``dispersion="pearson"``) and the
        covariance is the model's: the estimate's own error widens the intervals, as in R's ``summary.glm`` and
        statsmodels' ``OLS(...).fit()`` / ``GLM(...).fit(use_t=True)``. Normal where the dispersion is known
        (binomial, poisson, exponential) and for HC3 sandwich standard errors, whose large-sample justification
        is normal (statsmodels' ``OLS(...).fit(cov_type="HC3")`` default, ``use_t=False``)."""
        r = getattr(self, "result_", None)
        if r is None or getattr(self, "covariance_", "model") != "model":
            return None
        if self.family_.scale_known and self.dispersion == "family":
            return None
        df = float(r.df_resid)
        return df if df > 0 else None

    def _quantile(self):
        """The ``(1 + confidence_level) / 2`` quantile of the reference distribution (:meth:`_t_df`)."""
        q = 0.5 + self.confidence_level / 2
        df = self._t_df()
        return float(stats.norm.ppf(q) if df is None else stats.t.ppf(q, df))

    def _p_value(self, stat):
        """Two-sided p-value(s) of Wald statistic(s) against the reference distribution (:meth:`_t_df`)."""
        df = self._t_df()
        a = np.abs(np.asarray(stat, dtype=float))
        return 2 * (stats.norm.sf(a) if df is None else stats.t.sf(a, df))

    def _quantile_words(self):
        """The closing line's words on the reference distribution: ' from Student's t on 14 residual df (the
        dispersion is estimated)' when the intervals use it, '' for the normal one."""
        df = self._t_df()
        if df is None:
            return ""
        why = "" if self.dispersion == "pearson" else ", as the dispersion is estimated"
        return f" from Student's t on {df:,.0f} residual df{why}"

    def coverage_words(self, slack=0.01):
        """'with the dispersion estimated on 7 residual df their coverage is 90.9%, not 95% (...)' when the
        intervals' real coverage (``wald_coverage_``) falls short of the nominal level by more than ``slack``;
        "" otherwise -- which is every fit now that an estimated dispersion gives t intervals (kept for callers)."""
        self._check_fitted()
        cover = getattr(self, "wald_coverage_", np.nan)
        if not np.isfinite(cover) or cover >= self.confidence_level - slack:
            return ""
        df = float(self.result_.df_resid)
        q = 0.5 + self.confidence_level / 2
        factor = float(stats.t.ppf(q, df) / stats.norm.ppf(q))
        exact = self.family == "gaussian" and self.link_ == "identity" and self.dispersion == "family"
        return (f"with the dispersion estimated on {df:,.0f} residual df their coverage is {'' if exact else 'about '}"
                f"{100 * cover:.1f}%, not {100 * self.confidence_level:g}% (t({df:,.0f}) intervals, {factor:.3g} "
                f"times as wide, would hold it)")

    def _add_functional(self, D):
        """``function_of`` and ``function_r2`` of ``collinearity_``: the numeric feature whose values nearly fix
        this one's (or the reverse) through a nonlinear function the linear R² misses (popul and logpopul).

        For the numeric main-effect columns (not dummies, polynomial powers or products) with 5 or more distinct
        values, the strongest of Spearman's ρ² and the spline R² either way
        (:func:`imlkit.models._functional.pairwise_functional_r2`); ``function_how`` says which: ``"rank"`` (ρ²),
        ``"spline"`` (this column on a spline of the other) or ``"spline_of"`` (the other on a spline of this one).
        """
        from ._functional import pairwise_functional_r2

        spec = self.design_
        names = list(spec.names)
        cols = [spec.blocks[f][0] for f in spec.features if f not in spec.categorical and f in spec.blocks]
        cols = [j for j in cols if j in set(self._kept) and self._sd[j] > 0 and not self._binary[j]]
        of = [""] * len(names)
        how = [""] * len(names)
        val = np.full(len(names), np.nan)
        if len(cols) >= 2:
            # every fit pays for this (refits of LOCO and PIMP, the report's CV of the ridge strength): at most
            # FUNCTIONAL_ROWS evenly spaced rows (R² and ρ² within about ±0.01 there) and, beyond
            # FUNCTIONAL_SPLINE_COLUMNS columns, ranks only (one sort; the splines cost a QR per column)
            rows = np.unique(np.linspace(0, D.shape[0] - 1, min(D.shape[0], FUNCTIONAL_ROWS)).astype(int))
            A = D[np.ix_(rows, cols)]
            rank, spline = pairwise_functional_r2(A, splines=len(cols) <= FUNCTIONAL_SPLINE_COLUMNS)
            cand = np.stack([rank, spline, spline.T])  # (3, q, q): ρ², j on a spline of k, k on a spline of j
            with np.errstate(invalid="ignore"):
                filled = np.where(np.isnan(cand), -np.inf, cand)
            for a, j in enumerate(cols):
                m, b = np.unravel_index(int(np.argmax(filled[:, a, :])), filled[:, a, :].shape)
                if np.isfinite(filled[m, a, b]):
                    of[j], how[j], val[j] = names[cols[b]], ("rank", "spline", "spline_of")[m], float(cand[m, a, b])
        self.collinearity_["function_of"] = of
        self.collinearity_["function_r2"] = val
        self.collinearity_["function_how"] = how
        self._polynomials = self._exact_polynomials(D, cols, rank, spline) if len(cols) >= 2 else {}

    @staticmethod
    def _exact_polynomials(D, cols, rank, spline):
        """{column j: [(column k, Polynomial p), ...]}: the numeric columns k that are exactly a polynomial of degree 2
        or 3 of column j on every row (``k = p(j)``: INCOMESQ = INCOME², ccard), among the pairs whose ρ² or spline R²
        (:func:`~imlkit.models._functional.pairwise_functional_r2`) is 0.99 or more. Degree 1 is linear collinearity
        (the design's rank says it). ``p`` is in the raw units of j."""
        from numpy.polynomial import Polynomial

        out = {}
        with np.errstate(invalid="ignore"):
            near = np.fmax(rank, spline) >= 0.99  # spline[k, j]: k on a spline of j
        for a, j in enumerate(cols):
            for b, k in enumerate(cols):
                if a == b or not near[b, a]:
                    continue
                x, g = D[:, j], D[:, k]
                tss = float(np.sum((g - g.mean()) ** 2))
                if tss <= 0:
                    continue
                for deg in (2, 3):
                    if np.unique(x).size <= deg + 1:
                        break
                    p = Polynomial.fit(x, g, deg)
                    if float(np.sum((g - p(x)) ** 2)) / tss < EXACT_POLYNOMIAL_RSS:
                        out.setdefault(j, []).append((k, p.convert()))
                        break
        return out

    def _estimable(self, D, result, y):
        """Which weights the data determine (see ``estimable_``), and why not (``not_estimable_``)."""
        p = D.shape[1]
        names = list(self.design_.names)
        ok = np.ones(p, dtype=bool)
        why = [""] * p
        if result is None:
            # Penalised: the penalty makes every weight finite and unique, but it is the data that must determine
            # a weight for it to be read. With at least as many terms as rows no weight is determined by the data
            # (every column is a linear combination of the others on these rows: Khan, 63 rows for 301 terms,
            # had "estimable yes" for all 301); with more rows, the weights in an exact dependency are not either.
            # The others are the unpenalised fit's, shrunk: the data determine them.
            n = D.shape[0]
            if n <= p:
                return np.zeros(p, dtype=bool), [f"set by the penalty: {n} rows for {p} terms"] * p
            partners = collinear_partners(D, names)
            for j, name in enumerate(names):
                if name in partners:
                    ok[j] = False
                    why[j] = ("set by the penalty: " + (f"collinear with {_names(partners[name])}"
                                                        if partners[name] else "a constant 0 column"))
            return ok, why
        # an exact dependency among the columns: a weight in it is not identified
        partners = collinear_partners(D, names)
        for j, name in enumerate(names):
            if name in partners:
                ok[j] = False
                why[j] = (f"too few rows ({D.shape[0]} rows for {p} terms)" if D.shape[0] < p
                          else f"collinear with {_names(partners[name])}" if partners[name] else "a constant 0 column")
        cov = np.full((p, p), np.nan)
        cov[np.ix_(self._kept, self._kept)] = np.asarray(result.cov_params())
        se = np.sqrt(np.clip(np.diag(cov), 0, None))
        icpt = names.index(INTERCEPT) if INTERCEPT in names else None
        if icpt is not None and ok[icpt]:
            # The intercept is the prediction where every column is 0, which may be far outside the
            # data (Year = 0): judge it at the centre of the design instead (the intercept of the
            # centred design, whose standard error is that of the prediction at the column means).
            c = np.where(np.isin(np.arange(p), self._kept), D.mean(axis=0), 0.0)
            c[icpt] = 1.0
            k = self._kept
            se[icpt] = float(np.sqrt(max(c[k] @ cov[np.ix_(k, k)] @ c[k], 0.0)))
        bad = ok & ~np.isfinite(se)
        if self.link_ != "identity":
            unit = np.where(self._binary | (self._sd == 0), 1.0, self._sd)
            with np.errstate(invalid="ignore"):
                bad |= ok & (se * unit > NOT_ESTIMABLE_SE)
        if bad.any():
            mu = np.asarray(result.fittedvalues, dtype=float)
            complete = False
            if self.family_.is_binomial:
                edge = np.mean((mu < 1e-8) | (mu > 1 - 1e-8))
                complete = edge >= 0.99
                cause = (f"separation: {100 * edge:.0f}% of the fitted probabilities are 0 or 1 and the weight "
                         f"runs off to infinity") if edge > 0 else None
            elif self.link_ == "log":
                edge = np.mean(mu < 1e-8)
                cause = (f"fitted means at 0 for {100 * edge:.0f}% of the rows (only zeros in a level or range) "
                         f"and the weight runs off to infinity") if edge > 0 else None
            else:
                cause = None
            for j in np.flatnonzero(bad):
                ok[j] = False
                r2 = self.collinearity_["r_squared"].iloc[j]
                # a column the others nearly determine has its standard error inflated by sqrt(VIF) whatever
                # else the fit does: that is its cause, even when some rows are also separated (Caravan's
                # MHHUUR/MHKOOP/MZFONDS/MZPART, R² 0.9988-0.9993, had been put down to separation)
                # (not under complete separation: there every weight runs off along the separating direction)
                if np.isfinite(r2) and r2 > NEARLY_COLLINEAR_R2 and not complete:
                    why[j] = (f"nearly collinear with {_names(self.collinearity_['with'].iloc[j])} "
                              f"(R² {r2:.6f} from the other columns, variance inflation {1 / (1 - r2):,.0f})"
                              + (f"; the fit also has {cause}" if cause else ""))
                elif cause:
                    why[j] = cause
                else:
                    why[j] = f"standard error {se[j]:.3g} beyond {NOT_ESTIMABLE_SE:g} per SD on the link scale"
        return ok, why

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
        """Class probabilities, columns in the order of ``classes_`` (for counts: failure and
        success of one trial).

        Returns
        -------
        ndarray, shape (n, 2)
        """
        eta = self.linear_predictor(X)
        p = np.clip(self.family_.inverse(eta), 0, 1)
        return np.column_stack([1 - p, p])

    def score(self, X, y, sample_weight=None):
        """Accuracy for the binomial family, R² otherwise.

        A two-column ``y`` (successes, failures) scores per trial: the share of trials whose outcome
        is the predicted one (``Σ s_i [p̂_i > 0.5] + f_i [p̂_i ≤ 0.5]`` over all trials), the accuracy on
        the data expanded to 0/1 rows.
        """
        if self._is_binomial() and is_two_columns(y):
            self._check_fitted()
            successes, failures, _ = binomial_counts(y, None, Family("binomial"))
            hit = self.predict_proba(X)[:, 1] > 0.5
            if successes.shape[0] != hit.shape[0]:
                raise ValidationError(f"X and 'y' have different lengths: X has {hit.shape[0]} rows, y has "
                                      f"{successes.shape[0]}.")
            w = np.ones_like(successes) if sample_weight is None else np.asarray(sample_weight, dtype=float)
            return float(np.sum(w * np.where(hit, successes, failures)) / np.sum(w * (successes + failures)))
        return super().score(X, y, sample_weight=sample_weight)

    # -- inference

    def summary(self):
        """The weights with standard errors, Wald intervals, statistics and p-values.

        Returns
        -------
        DataFrame
            Index = design names; columns ``weight, std_error, ci_low, ci_high,
            statistic, p_value`` and, for log and logit links, ``exp_weight, exp_ci_low,
            exp_ci_high`` (the course's "exp(weight) [2.5%, 97.5%]"; NaN where the weight or an end
            of its interval is beyond ±ln(10^15), a factor no reader can use), ``estimable`` (see
            ``estimable_``; the numbers of a non-estimable weight are not meaningful) and ``note``
            (why a weight is not estimable, or why its exp() is not shown; "" otherwise). A
            penalised fit (``alpha > 0``) has NaN standard errors, intervals, statistics and p-values.

        Notes
        -----
        Wald inference: ``statistic = weight / std_error``, interval ``weight ± q · std_error`` and a two-sided
        p-value, from Student's t on the residual df where the dispersion is estimated (gaussian, gamma,
        ``dispersion="pearson"``: R's ``summary.glm``, statsmodels' ``GLM(...).fit(use_t=True)`` and, for the
        gaussian family with identity link, ``OLS(...).fit()``), from the normal distribution where it is known
        (binomial, poisson, exponential: statsmodels' ``GLM(...).fit()``) and for HC3 standard errors (as
        statsmodels' ``OLS(...).fit(cov_type="HC3")``, whose default is normal). ``attrs["reference"]`` says which
        (``"t"`` or ``"normal"``) and ``attrs["df"]`` the t's degrees of freedom (NaN for the normal). The standard
        errors use the estimated dispersion for gaussian and gamma, 1 for binomial, poisson and exponential -- or,
        when ``covariance_`` is "HC3" (``attrs["covariance"]``), the HC3 sandwich, with the model's standard error
        beside in a column ``model_std_error`` (after ``std_error``).
        """
        self._check_fitted()
        r = self.result_
        idx = pd.Index(self.design_.names, name="term")
        if r is None:  # penalised: no standard errors
            nan = np.full(len(self.coef_), np.nan)
            out = pd.DataFrame({"weight": self.coef_.to_numpy(), "std_error": nan, "ci_low": nan, "ci_high": nan,
                                "statistic": nan, "p_value": nan}, index=idx)
        else:
            # Wald inference from the covariance in use, against t(df_resid) for an estimated dispersion (statsmodels'
            # use_t=True, R's summary.glm), else the normal (statsmodels' default; HC3 as OLS(...).fit(cov_type="HC3"))
            full = self._full
            w = self.coef_.to_numpy()
            se = full(np.sqrt(np.clip(np.diag(self._cov), 0, None)))
            with np.errstate(invalid="ignore", divide="ignore"):
                stat = w / se
            z = self._quantile()
            out = pd.DataFrame({"weight": w, "std_error": se, "ci_low": w - z * se, "ci_high": w + z * se,
                                "statistic": stat, "p_value": self._p_value(stat)}, index=idx)
            if self.covariance_ == "HC3":
                out.insert(2, "model_std_error", full(r.bse))
        note = self.not_estimable_.to_numpy().copy()
        if self.link_ in EXP_LINKS:
            with np.errstate(over="ignore", invalid="ignore"):
                ends = np.abs(out[["weight", "ci_low", "ci_high"]].to_numpy(dtype=float))
                huge = np.nanmax(np.where(np.isnan(ends), 0, ends), axis=1) > MAX_EXP_LOG
            for k in ("weight", "ci_low", "ci_high"):
                out["exp_" + k] = np.where(
                    huge, np.nan, np.exp(np.where(huge, 0.0, out[k])))
            for j in np.flatnonzero(huge & (note == "")):
                note[j] = self._why_no_exp(j)
        out["estimable"] = self.estimable_.to_numpy()
        out["note"] = note
        out.attrs["family"] = self.family
        out.attrs["link"] = self.link_
        out.attrs["penalized"] = self.penalized_
        out.attrs["confidence_level"] = self.confidence_level
        out.attrs["dispersion"] = self.dispersion_
        out.attrs["covariance"] = self.covariance_
        df = self._t_df()
        out.attrs["reference"] = "normal" if df is None else "t"
        out.attrs["df"] = np.nan if df is None else df
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

    def _zero_outside(self):
        """Numeric features whose training range does not contain 0: (feature, min, max)."""
        return [(f, lo, hi) for f, (lo, hi) in self._ranges.items() if lo > 0 or hi < 0]

    @staticmethod
    def _ranges_words(outside, k=3):
        """'AIRFLOW from 50 to 80, WATERTEMP from 17 to 27 and 1 more': the ranges of features that exclude 0."""
        parts = [f"{f} from {lo:g} to {hi:g}" for f, lo, hi in outside[:k]]
        more = len(outside) - len(parts)
        if more:
            return ", ".join(parts) + f" and {more} more"
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]

    def _reference_words(self):
        """' and every categorical feature at its reference level' when the design has one."""
        return " and every categorical feature at its reference level" if self.design_.categorical else ""

    @staticmethod
    def _is(what):
        """'are' after the plural 'the odds of ...', else 'is'."""
        return "are" if what.startswith("the odds") else "is"

    def _why_no_exp(self, j):
        name = self.design_.names[j]
        if name == INTERCEPT:
            out = self._zero_outside()
            if out:
                return (f"exp() not shown: the intercept is the prediction with every numeric feature at 0"
                        f"{self._reference_words()}, outside the data ({self._ranges_words(out)})")
            return "exp() not shown: beyond a factor of 10^15"
        return (f"exp() not shown: beyond a factor of 10^15 per unit; the column's SD is {_fmt(self._sd[j])} "
                f"(read it per SD: weight × SD)")

    def contrast(self, c):
        """Estimate and interval of a linear combination ``cᵀβ`` on the link scale.

        Parameters
        ----------
        c : array-like, shape (n_terms,) or dict {design name: coefficient}

        Returns
        -------
        (estimate, std_error, ci_low, ci_high)
            The interval at ``confidence_level`` from the same reference distribution as :meth:`summary` (Student's
            t on the residual df for an estimated dispersion, else normal).
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
        se = float(np.sqrt(max(c[k] @ self._cov @ c[k], 0.0)))
        z = self._quantile()
        return est, se, est - z * se, est + z * se

    # -- sentences
    def _scale_words(self):
        link, target = self.link_, self.target_name_
        if link == "log":
            if getattr(self, "_counts", False):  # binomial counts: the mean is the probability per trial
                return f"the probability of {self.event_}", "multiplies", True
            # "the expected count" only fits a count; a Poisson GLM may model any positive target
            return f"the expected {target}", "multiplies", True
        if link == "logit":
            return f"the odds of {self.event_}", "multiplies", True
        if link == "identity":
            return f"the expected {target}", "changes", False
        return f"the linear predictor ({link} link)", "changes", False

    def _contrast_estimable(self, c):
        """A combination is estimable when every weight it uses is."""
        c = np.asarray(c, dtype=float)
        return bool(np.all(self.estimable_.to_numpy()[c != 0]))

    @staticmethod
    def _unreadable(est, lo, hi, expo):
        """exp() of the estimate or an end of its interval beyond a factor of 10^15."""
        ends = [abs(v) for v in (est, lo, hi) if np.isfinite(v)]
        return bool(expo and ends and max(ends) > MAX_EXP_LOG)

    @staticmethod
    def _collides(est, lo, hi, expo):
        """At 3 significant digits the estimate and the ends of its interval print alike."""
        v = np.exp([est, lo, hi]) if expo else np.array([est, lo, hi])
        return len({_fmt(x) for x in v}) < len(set(v.tolist()))

    def _phrase(self, est, lo, hi):
        """'multiplies the odds of y = 1 by 1.12 [1.07, 1.18]', with enough digits to tell the three
        numbers apart, and '(not distinguishable from 1: ...)' when the interval holds no change -- which
        it does not show either: the sentence says the interval allows every value in it."""
        what, verb, expo = self._scale_words()
        if self.penalized_ or not self._unreadable(est, lo, hi, expo):
            return f"{verb} {what} by {self._numbers(est, lo, hi, expo, why=True)}"
        e, a, b = _fmt_all(est, lo, hi)
        return (f"changes the log of {what} by {e} [{a}, {b}] (its exp() is beyond a factor of 10^15)"
                + self._no_change_note(lo, hi, expo, why=True))

    def _unit(self, feature, i, step=1.0):
        """How column ``i`` of ``feature``'s block reads: 'Increasing x by one unit' or 'x = l (instead of r)'."""
        spec = self.design_
        if feature in spec.categorical:
            levels = spec.categorical[feature]
            return f"{feature} = {levels[i + 1]} (instead of {levels[0]})"
        if step == 1.0:
            return f"Increasing {feature} by one unit"
        return f"Increasing {feature} by {step:,.10g} units"

    def _step(self, col, est, lo, hi):
        """The round step a numeric column is read per: 1, or the power of ten at most its SD when one
        unit is under ``UNIT_SHARE_OF_SD`` of its SD, when the factor per unit would print as 1 [1, 1] or
        astronomically large, or when one unit is more than twice its observed range (one unit more is
        outside the data from every row: a share from 0.16 to 0.31)."""
        _, _, expo = self._scale_words()
        spread = float(self._spread[col])
        beyond = 0 < spread and UNIT_BEYOND_RANGE * spread < 1.0  # x + 1 is outside the data for every row
        sd = float(self._sd[col])
        # one unit a sliver of the column's spread: read per the power of ten at most its SD, whatever the numbers
        # print as -- ISLP College's F.Undergrad (SD 4,850) read "x 0.998 [0.997, 0.999] per unit", which looks like no
        # effect, beside Outstate (SD 4,023) "x 1.69 per 1,000", 3x weaker (review rev8 r1-7): the column's scale
        # decides, the same for every column
        tiny = np.isfinite(sd) and sd * UNIT_SHARE_OF_SD > 1.0
        if self.penalized_ or not (beyond or tiny or self._collides(est, lo, hi, expo)
                                   or self._unreadable(est, lo, hi, expo)):
            return 1.0
        if not np.isfinite(sd) or sd <= 0 or self._binary[col]:  # a 0/1 column has one step: 0 to 1
            return 1.0
        return float(10.0 ** np.floor(np.log10(sd)))

    def _collinear_clause(self, col):
        """'; but INCOMESQ = INCOME² exactly ...' when this column is an exact polynomial of another; '; but popul
        is a monotone function of logpopul ...' when a (nonlinear) function of another feature fixes it (ρ² or spline
        R² at ``COLLINEAR_R2``) -- looked at first: a linear R² of 0.93 says "collinear" of INCOMESQ = INCOME², where
        holding INCOME fixed is impossible, not merely rare; else '; Lag2 is collinear with ... (R² 0.99 ...)' when
        the column's linear R² from the others is at ``COLLINEAR_R2``."""
        tab = self.collinearity_
        # a level of a factor is read against the other features, not its own factor's other levels (review rev8)
        r2 = tab["features_r2"].iloc[col] if "features_r2" in tab else tab["r_squared"].iloc[col]
        name = self.design_.names[col]
        if not np.isfinite(r2):
            return ""
        clause = self._polynomial_of_clause(col, name)
        if clause:
            return clause
        if not self._dependence_judged():
            # too few fitted rows per regressor for a linear R² to say anything (the closing line says so, once)
            return self._functional_clause(col, name, np.nan)
        rows = self._fitted_rows_words()
        if r2 < COLLINEAR_R2:
            return self._functional_clause(col, name, r2) or self._dependent_clause(col, name, r2)
        v = self.collinearity_["function_r2"].iloc[col] if "function_r2" in self.collinearity_ else np.nan
        # a linear R² of 0.9 says "collinear"; a function of one other feature that leaves less than half of what the
        # linear fit leaves, and is (nearly) exact, says more (INCOMESQ, INCOME: linear 0.93, spline 1.000); a linear
        # pair (CRBI = CRuns + noise: both 0.99) keeps the linear words
        if np.isfinite(v) and v >= EXACT_FUNCTION_R2 and 1 - v < (1 - r2) / 2:
            return self._functional_clause(col, name, r2)
        return (f"; but {name} is collinear with {self._partner_words(col, r2, rows)}: holding the others fixed is "
                f"outside the data")

    def _partner_words(self, col, r2, rows=""):
        """'AtBat (R² 0.93 from it; 0.97 from the other columns on the 184 fitted rows)': the columns that carry most of
        a column's R² (see :meth:`_collinearity`), with their own R² when they carry less than all of it; ``rows``:
        :meth:`_fitted_rows_words`."""
        tab = self.collinearity_
        feats = "features_with" in tab
        who = list(tab["features_with"].iloc[col] if feats else tab["with"].iloc[col])
        own = float(tab["features_with_r2"].iloc[col]) if feats else np.nan
        others = "the other features' columns" if self._is_level(col) else "the other columns"
        if not who:
            return f"the other columns (R² {r2:.2f} from {others}{rows})"
        them = "it" if len(who) == 1 else "them"
        if not np.isfinite(own) or f"{own:.2f}" == f"{r2:.2f}":
            return f"{_names(who, 3)} (R² {r2:.2f} from {them}, as from {others}{rows})"
        return f"{_names(who, 3)} (R² {own:.2f} from {them}; {r2:.2f} from {others}{rows})"

    def _is_level(self, col):
        """Whether design column ``col`` is a level (dummy) of a categorical feature."""
        return any(isinstance(f, str) and f in self.design_.categorical and col in block
                   for f, block in self.design_.blocks.items())

    def _dependent_clause(self, col, name, r2):
        """'; Years depends on the other columns (R² 0.89 from them): with them fixed it varies by 1.59 units, 33% of
        its standard deviation -- the variation its weight is estimated from' for ``DEPENDENT_R2`` <= R² <
        ``COLLINEAR_R2`` (Hitters: section 3 called Years strongly dependent, R² 0.893, while this reading said
        nothing). The residual SD of the column's linear fit on the others is ``SD·√(1 − R²)``."""
        if not (DEPENDENT_R2 <= r2 < COLLINEAR_R2):
            return ""
        share = float(np.sqrt(max(0.0, 1.0 - r2)))
        sd = float(self._sd[col])
        units = "" if self._binary[col] or not np.isfinite(sd) else f"about {_fmt(share * sd)} units, "
        return (f"; {name} depends on the other columns (R² {r2:.2f} from them{self._fitted_rows_words()}): with them "
                f"fixed it varies by {units}{100 * share:.0f}% of its standard deviation, the variation this weight is "
                f"estimated from")

    def _dependence_judged(self):
        """Whether the fitted rows are enough for the columns' linear R² (``collinearity_.attrs["judged"]``)."""
        return bool(self.collinearity_.attrs.get("judged", True))

    def _fitted_rows_words(self):
        """' on the 263 fitted rows': the rows a column's R² from the others comes from (the report's data section
        judges the dependence on all rows, so the two can differ)."""
        n = self.collinearity_.attrs.get("n_rows")
        return f" on the {n:,} fitted rows" if n else ""

    def _undersized_words(self):
        """The closing line's words when the columns' dependence is not judged (``collinearity_.attrs["judged"]``
        False) and some read column would have had a dependence clause (R² at ``DEPENDENT_R2`` from the others):
        '; the dependence between the columns is not judged: 10 fitted rows for 4 regressors (fewer than 5 rows per
        regressor), where an R² from a linear fit mostly measures the number of regressors (...)'."""
        tab = self.collinearity_
        if self._dependence_judged():
            return ""
        names = np.asarray(self.design_.names, dtype=object)
        r2 = tab["r_squared"].to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            would = self.estimable_.to_numpy() & (names != INTERCEPT) & (r2 >= DEPENDENT_R2)
        if not would.any():
            return ""
        n, d = int(tab.attrs["n_rows"]), int(tab.attrs["n_regressors"])
        return (f"; the dependence between the columns is not judged: {n:,} fitted rows for {d:,} regressors (fewer "
                f"than {MIN_ROWS_PER_REGRESSOR} rows per regressor), where an R² from a linear fit mostly measures the "
                f"number of regressors (unrelated columns reach about d / (n − 1) = {d / (n - 1):.2f}), so no reading "
                f"says how much a column varies with the others fixed; judge it on more rows (the report's data "
                f"section uses all rows)")

    def _polynomial_of_clause(self, col, name):
        """'; but INCOMESQ = INCOME² exactly in these data: it cannot change while INCOME stays fixed' (this column
        is an exact polynomial of another, :meth:`_exact_polynomials`)."""
        names = self.design_.names
        for j, found in self._polynomials.items():
            for k, p in found:
                if k == col:
                    return (f"; but {_polynomial_words(name, names[j], p)} exactly in these data, so {name} cannot "
                            f"change while {names[j]} stays fixed: this weight is no effect of {name} alone"
                            f"{self._read_together(j)}")
        return ""

    def _read_together(self, j):
        """' (the sentences on INCOME read the two weights together)' when they do."""
        f = self.design_.names[j]
        return f" (the sentences on {f} read the two weights together)" if self._combined_partners(f) else ""

    def _functional_clause(self, col, name, r2):
        tab = self.collinearity_
        if "function_r2" not in tab:
            return ""
        v, other, how = tab["function_r2"].iloc[col], tab["function_of"].iloc[col], tab["function_how"].iloc[col]
        if not np.isfinite(v) or v < COLLINEAR_R2:
            return ""
        exact = v >= EXACT_FUNCTION_R2
        num = f"{v:.3f}" if v >= 0.995 else f"{v:.2f}"
        if how == "rank":
            what = (f"{name} and {other} fix each other's order (Spearman's ρ² {num}: one is a monotone function of "
                    f"the other)" if exact else
                    f"{name} and {other} nearly fix each other's order (Spearman's ρ² {num}: one is close to a "
                    f"monotone function of the other)")
        elif how == "spline":
            what = f"{name} is {'' if exact else 'nearly '}a function of {other} (R² {num} on a spline of {other})"
        else:
            what = f"{other} is {'' if exact else 'nearly '}a function of {name} (R² {num} on a spline of {name})"
        # whose R² it is: the sentence is about name (Weekly: "Year is nearly a function of Volume ..., which the
        # linear R² of 0.72 ..." read as Year's 0.71, where 0.72 is Volume's)
        lin = ("" if not np.isfinite(r2) else  # not judged on these rows
               f", which {name}'s linear R² of {r2:.2f} from the other columns misses" if r2 < COLLINEAR_R2 else
               f" (linear R² {r2:.2f} from the other columns)")
        if exact:
            return (f"; but {what}{lin}: {name} (almost) cannot change while {other} stays fixed, so holding {other} "
                    f"fixed while {name} changes is outside the data")
        return f"; but {what}{lin}: holding {other} fixed while {name} changes is outside the data"

    def _combined_partners(self, f):
        """[(column k, Polynomial p)]: the estimable numeric main-effect columns that are exact polynomials of ``f``'s
        (``k = p(f)``), when ``f`` and each of them enter the model alone (no interaction, no polynomial of imlkit's
        own) -- the columns whose weights :meth:`_combined_sentence` reads with ``f``'s."""
        spec = self.design_
        if f in spec.categorical or f in spec.polynomial or f not in spec.blocks:
            return []
        j = spec.blocks[f][0]
        found = self._polynomials.get(j, [])
        in_terms = {g for t in spec.interactions for g in t}
        if not found or f in in_terms or not self.estimable_.iloc[j]:
            return []
        out = []
        for k, p in found:
            g = spec.names[k]
            if g in in_terms or g in spec.polynomial or not self.estimable_.iloc[k]:
                return []
            out.append((k, p))
        return out

    def _combined_sentence(self, f, partners):
        """'INCOMESQ = INCOME² exactly in these data, so INCOME cannot change while INCOMESQ stays fixed: its weight
        alone, 220.3 [17.8, 422.9], is no effect of INCOME. Moving INCOMESQ with it, increasing INCOME by one unit
        changes the expected AVGEXP by 158 [..] at INCOME = 2.3 (its 25% quantile), ...'; the local slope
        d/dx (β_f x + Σ_k β_k p_k(x)) = β_f + Σ_k β_k p_k'(x) at the quartiles of ``f``, with the intervals of that
        combination of weights (:meth:`contrast`). None when a value is beyond 10^15 after exp()."""
        spec = self.design_
        j = spec.blocks[f][0]
        what, verb, expo = self._scale_words()
        names = [spec.names[k] for k, _ in partners]
        rel = " and ".join(_polynomial_words(spec.names[k], f, p) for k, p in partners)
        est, _, lo, hi = self.contrast(np.eye(len(self.coef_))[j])
        if self._unreadable(est, lo, hi, expo):
            return None
        alone = self._numbers(est, lo, hi, expo)
        parts = []
        for v, qname in zip(spec.info[f], ["25% quantile", "median", "75% quantile"]):
            c = np.zeros(len(self.coef_))
            c[j] = 1.0
            for k, p in partners:
                c[k] += float(p.deriv()(v))
            est, _, lo, hi = self.contrast(c)
            if self._unreadable(est, lo, hi, expo):
                return None
            parts.append(f"{self._numbers(est, lo, hi, expo)} at {f} = {_fmt(v)} (its {qname})")
        fixed = " and ".join(names)
        stay = "stays" if len(names) == 1 else "stay"
        return (f"{rel} exactly in these data, so {f} cannot change while {fixed} {stay} fixed: {f}'s weight alone, "
                f"{alone}, is no effect of {f}. Moving {fixed} with it, increasing {f} by one unit (the local slope) "
                f"{verb} {what} by {', '.join(parts[:-1])} and {parts[-1]}, all other features fixed.")

    def _numbers(self, est, lo, hi, expo, why=False):
        """'158 [12.1, 303]' (exp() of each for a log or logit link), with :meth:`_no_change_note` when the interval
        holds no change; '(penalised fit, no interval)' for a ridge fit (no note: there is no interval)."""
        if self.penalized_:
            return f"{_fmt(np.exp(est) if expo else est)} (penalised fit, no interval)"
        e, a, b = _fmt_all(*(np.exp([est, lo, hi]) if expo else (est, lo, hi)))
        return f"{e} [{a}, {b}]" + self._no_change_note(lo, hi, expo, why)

    @staticmethod
    def _no_change_note(lo, hi, expo, why):
        """' (not distinguishable from 0)' (1 for a log or logit link) when [lo, hi] holds 0 on the linear scale;
        ``why``: with the reason, as a reading's first sentence on a weight says it."""
        if not lo <= 0 <= hi:
            return ""
        # not rejecting "no change" is no evidence of it: [0.03, 3.4] allows a 97% fall as much as a 1
        none = "1" if expo else "0"
        if why:
            return (f" (not distinguishable from {none}: the data allow every value in the interval, no change "
                    f"({none}) among them)")
        return f" (not distinguishable from {none})"

    def _moderator_values(self, moderator):
        """(description, design row of the moderator's block) for each level / quartile."""
        spec = self.design_
        if moderator in spec.categorical:
            levels = spec.categorical[moderator]
            rows = np.vstack([np.zeros(len(levels) - 1), np.eye(len(levels) - 1)])
            return [(f"{moderator} = {lv}", rows[k]) for k, lv in enumerate(levels)]
        return [(f"{moderator} = {_fmt(v)} (its {name})", np.array([v])) for v, name in self._quartiles(moderator)]

    def _quartiles(self, f):
        """[(value, "25% quantile")...]: the quartiles of numeric feature ``f``, each distinct value once with every
        name it has ("25% quantile and median" when they coincide: rate_marriage's are 4, 4 and 5)."""
        q = self.design_.info.get(f, np.array([0.0, 0.0, 0.0]))
        out = []
        for v, name in zip(q, ["25% quantile", "median", "75% quantile"]):
            if out and float(v) == out[-1][0]:
                out[-1] = (out[-1][0], f"{out[-1][1]} and {name}")
            else:
                out.append((float(v), name))
        return out

    def _product_sentence(self, pair, focus, moderator):
        """One sentence per product column of interaction ``pair``: its weight with interval and p-value, what it
        is (how much ``focus``'s slope changes per unit of ``moderator``, or differs at a level from the reference),
        and whether the data tell that change from none -- the conditional slopes before it imply one (statecrime's
        murder at poverty's quartiles: 58.8, 54.3, 50.6 while the product term is -1.66 [-4.68, 1.35], p = 0.28)."""
        from .._display import p_is

        spec = self.design_
        _, _, expo = self._scale_words()
        if focus not in spec.categorical and moderator not in spec.categorical:
            focus, moderator = pair  # two numeric features: the product is symmetric, read in the pair's order
        a, b = pair
        n_b = len(self._block_names(b))
        out = []
        for k, col in enumerate(spec.blocks[pair]):
            if not self.estimable_.iloc[col]:
                continue  # named once in the closing "not estimable" line
            est, se, lo, hi = self.contrast(np.eye(len(self.coef_))[col])
            if not (np.isfinite(se) and se > 0):
                continue
            shown = expo and not self._unreadable(est, lo, hi, expo)
            kind = "factor" if shown else "slope" if not expo else "log-scale slope"
            level = dict(zip(pair, divmod(k, n_b)))  # the column's level index in each feature's block
            fi, mi = level[focus], level[moderator]
            if focus in spec.categorical:
                fl = spec.categorical[focus]
                kind = "factor" if shown else "effect" if not expo else "log-scale effect"
                whose = f"the {kind} of {focus} = {fl[fi + 1]} (against {fl[0]})"
            else:
                whose = f"{focus}'s {kind}"
            how = "the factor by which" if shown else "how much"
            changes = "is multiplied" if shown else "changes"
            if moderator in spec.categorical:
                ml = spec.categorical[moderator]
                what = (f"{how} {whose} at {moderator} = {ml[mi + 1]} "
                        f"{'is multiplied against' if shown else 'differs from'} it at {moderator} = {ml[0]}")
                same, differ = (f"the same at every level of {moderator}",
                                f"{whose} at {moderator} = {ml[mi + 1]} differs from it at {moderator} = {ml[0]}")
            else:
                what = f"{how} {whose} {changes} per unit of {moderator}"
                same = f"the same at every value of {moderator}"
                if focus not in spec.categorical:
                    what += f" (and {moderator}'s per unit of {focus})"
                    same = "the same at every value of the other feature"
                differ = f"{whose} changes with {moderator}"
            none = 1.0 if shown else 0.0
            # digits that also tell an end from no change (1.0006 would print as 1, which it is not)
            vals = np.exp([est, lo, hi]) if shown else np.array([est, lo, hi])
            e, l_, h_ = _fmt_all(*vals, none)[:3]
            nums = f"{e} [{l_}, {h_}]" + (" on the log scale" if expo and not shown else "")
            p = float(self._p_value(est / se))
            if lo <= 0 <= hi:
                verdict = (f"not distinguishable from {none:g} (p {p_is(p)}): the data allow the {kind}s above to be "
                           f"{same}")
            else:
                verdict = f"its interval excludes {none:g} (p {p_is(p)}): {differ}"
            out.append(f"The product term {spec.names[col]}, {nums}, is {what}; {verdict}.")
        return out

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
                if not self._contrast_estimable(c):
                    continue  # named once in the closing "not estimable" line
                est, _, lo, hi = self.contrast(c)
                unit = self._unit(focus, i)
                unit = unit[0].lower() + unit[1:] if unit.startswith("Increasing") else unit
                out.append(f"When {desc}, {unit} {self._phrase(est, lo, hi)}.")
        return out

    def _polynomial_sentences(self, f, cond, has_partners):
        """The local slope of a polynomial feature at its quartiles, with intervals."""
        spec = self.design_
        cols = spec.blocks[f]
        out = []
        for v, qname in self._quartiles(f):
            c = np.zeros(len(self.coef_))
            for k, col in enumerate(cols, start=1):
                c[col] = k * v ** (k - 1)  # d/dx Σ β_k x^k at x = v
            if not self._contrast_estimable(c):
                continue
            est, _, lo, hi = self.contrast(c)
            out.append(f"At {f} = {_fmt(v)} (its {qname}), increasing {f} by one unit (the local slope of its "
                       f"degree-{len(cols)} polynomial) {self._phrase(est, lo, hi)}"
                       f"{cond}{'' if has_partners else ', all other features fixed'}.")
        return out

    def _block_names(self, feature):
        spec = self.design_
        if feature in spec.categorical:
            return spec.categorical[feature][1:]
        return [feature]

    def _centre_row(self):
        """The design row at the mean of every numeric feature and the reference level of every
        categorical one (products of means for numeric interactions, powers of the mean for polynomials)."""
        spec = self.design_
        c = np.zeros(len(self.coef_))
        c[spec.names.index(INTERCEPT)] = 1.0
        means = {}
        for f in spec.features:
            if f in spec.categorical:
                continue
            cols = spec.blocks[f]
            m = self._means[cols[0]]
            for k, col in enumerate(cols, start=1):
                c[col] = m ** k
            means[f] = m
        for t in spec.interactions:
            if all(g in means for g in t):
                c[spec.blocks[t][0]] = float(np.prod([means[g] for g in t]))
        return c

    def _intercept_sentence(self):
        what, _, expo = self._scale_words()
        est, _, lo, hi = self.contrast({INTERCEPT: 1.0})
        outside = self._zero_outside()
        if not outside and not self._unreadable(est, lo, hi, expo):
            if self.penalized_:
                value = f"{_fmt(np.exp(est) if expo else est)} (penalised fit, no interval)"
            else:
                value = ", ".join(_fmt_all(*(np.exp([est, lo, hi]) if expo else (est, lo, hi))))
                value = value.replace(", ", " [", 1) + "]"
            return (f"When every numeric feature is 0 and every categorical feature is at its reference "
                    f"level, {what} {self._is(what)} {value}.")
        # The intercept extrapolates to 0 of a feature that is never near 0 (Year = 0): its value
        # says nothing about the data; the prediction at the centre of the data does.
        est, _, lo, hi = self.contrast(self._centre_row())
        v = np.exp([est, lo, hi]) if expo else np.array([est, lo, hi])
        e, a, b = _fmt_all(*v) if not self.penalized_ else (_fmt(v[0]), "", "")
        at = f"{e} [{a}, {b}]" if not self.penalized_ else f"{e} (penalised fit, no interval)"
        cats = self._reference_words()
        # the intercept is the prediction with EVERY numeric feature at 0, not with one at 0 and the others anywhere
        # (stackloss: "at AIRFLOW = 0" read as AIRFLOW's effect alone)
        if outside:
            lead = (f"The intercept is {what} with every numeric feature at 0{cats}, outside the data "
                    f"({self._ranges_words(outside)}), so it is not read; ")
        else:
            lead = "The intercept's exp() is beyond a factor of 10^15, so it is not read; "
        return f"{lead}at the mean of every numeric feature{cats}, {what} {self._is(what)} {at}."

    def interpret(self, feature=None):
        """Sentences reading the weights in the course's style.

        Parameters
        ----------
        feature : str, optional
            Only the sentences about this feature (its weights and its interactions).

        Returns
        -------
        list of str
            For example ``"Increasing stress by one unit multiplies the expected y by 1.12 [1.07, 1.18], all other
            features fixed."``; for an interaction ``("workingday", "temp")`` the effect of temp at each level of
            workingday, with intervals. Numbers carry the significant digits (3 at least) that tell the estimate and
            the ends of its interval apart; a numeric feature whose unit is tiny against its spread (the factor per
            unit would print as "1 [1, 1]") is read per a power of ten at most its SD, named in the sentence. An
            interval that holds no change says "(not distinguishable from 0)" (or "from 1" for factors); the
            intervals are :meth:`summary`'s (Student's t on the residual df for an estimated dispersion, as the
            closing line says). A feature in an interaction is read at 0 of a numeric partner only where 0 is inside
            the partner's data; otherwise at the partner's quartiles (one partner) or with a note that 0 is outside
            the data (several). A feature whose column has R² ≥ 0.9 from the other columns on the fitted rows says
            it is collinear with them (not below 5 rows per regressor, ``collinearity_.attrs["judged"]``); one that
            another feature fixes through a (nearly) exact function says so first (ρ² or spline R² ≥ 0.999). A
            feature of which another is an exact polynomial (INCOMESQ = INCOME²) is read by the slope of both
            weights together at its quartiles, with intervals (holding the other fixed is impossible); the other's
            sentence says it cannot change alone. Weights that are not estimable get no sentence: the last line
            names them with the cause (``not_estimable_``).
        """
        self._check_fitted()
        spec = self.design_
        if feature is not None and feature not in spec.columns:
            raise ValidationError(f"Unknown feature {feature!r} in 'feature'; the columns are {spec.columns}.")
        level = f"{100 * self.confidence_level:g}%"
        sentences = []
        asked = np.zeros(len(self.coef_), dtype=bool)
        if feature is None and spec.intercept:
            asked[spec.names.index(INTERCEPT)] = True
            if self.estimable_[INTERCEPT]:
                sentences.append(self._intercept_sentence())
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
            asked[spec.blocks[f]] = True
            partners = [(b if a == f else a) for a, b in pairs if f in (a, b)]
            partners += [g for t in triples if f in t for g in t if g != f and g not in partners]
            if any(focus_of[p] == f for p in pairs if f in p):
                continue  # read at every level of its moderator below
            cond = ""
            if partners:
                far = {g: (lo, hi) for g, lo, hi in self._zero_outside() if g in partners}
                pair = [t for t in pairs if f in t]
                if far and len(partners) == 1 and f not in spec.polynomial:
                    # "when Age = 0" with Age from 25 to 80 reads the model where it has no data (why the
                    # intercept is not read either): read the effect at the partner's quartiles instead
                    sentences += self._conditional(f, partners[0], pair[0])
                    continue
                parts = [f"{p} = {spec.reference(p)}" if p in spec.categorical else f"{p} = 0" for p in partners]
                cond = " when " + " and ".join(parts)
                if far:
                    cond += " (" + "; ".join(f"{g} = 0 is outside the data, {g} from {lo:g} to {hi:g}"
                                             for g, (lo, hi) in far.items()) + ")"
            if f in spec.polynomial:
                sentences += self._polynomial_sentences(f, cond, bool(partners))
                continue
            # another feature that is an exact polynomial of f (INCOMESQ = INCOME², ccard): "all other features fixed"
            # is impossible, and f's weight alone no effect (220.3 per unit where the slope runs from 180 to -48)
            combined = self._combined_partners(f) if not partners else []
            said = self._combined_sentence(f, combined) if combined else None
            if said:
                sentences.append(said)
                continue
            for i, col in enumerate(spec.blocks[f]):
                if not self.estimable_.iloc[col]:
                    continue  # named once in the closing "not estimable" line
                e = np.eye(len(self.coef_))[col]
                est, _, lo, hi = self.contrast(e)
                step = 1.0 if f in spec.categorical or partners else self._step(col, est, lo, hi)
                if step != 1.0:
                    est, _, lo, hi = self.contrast(step * e)
                sentences.append(f"{self._unit(f, i, step)} {self._phrase(est, lo, hi)}{cond}"
                                 f"{'' if partners else ', all other features fixed'}"
                                 f"{self._collinear_clause(col)}.")
        for a, b in pairs:
            if feature is not None and feature not in (a, b):
                continue
            asked[spec.blocks[(a, b)]] = True
            focus = focus_of[(a, b)]
            moderator = a if focus == b else b
            sentences += self._conditional(focus, moderator, (a, b))
            if not self.penalized_:  # a ridge fit has no interval to tell a change from none
                sentences += self._product_sentence((a, b), focus, moderator)
        for t in triples:
            if feature is not None and feature not in t:
                continue
            asked[spec.blocks[t]] = True
            for name, col in zip(np.asarray(spec.names)[spec.blocks[t]], spec.blocks[t]):
                if not self.estimable_.iloc[col]:
                    continue
                est, _, lo, hi = self.contrast(np.eye(len(self.coef_))[col])
                sentences.append(f"The three-way product term {name} {self._phrase(est, lo, hi)} per unit of the "
                                 f"product: it is how much the interaction of two of {', '.join(t)} changes with "
                                 f"the third.")
        if self.penalized_:
            if sentences:
                sentences.append(f"The weights are from a ridge-penalised fit (alpha={self.alpha:g}); they are "
                                 f"shrunk towards 0 and have no intervals.")
        elif sentences:
            cover = self.coverage_words()
            sentences.append(f"Intervals in brackets are {level} Wald intervals{self._quantile_words()}"
                             f"{self._covariance_words()}"
                             f"{self._dispersion_words()}{'; ' + cover if cover else ''}"
                             f"{self._undersized_words()}.")
        bad = asked & ~self.estimable_.to_numpy()
        if bad.any():
            by_cause = {}
            for j in np.flatnonzero(bad):
                by_cause.setdefault(self.not_estimable_.iloc[j], []).append(spec.names[j])
            parts = [f"{_names(names, 10)} ({cause})" for cause, names in by_cause.items()]
            sentences.append(f"Not estimable, so not read: {'; '.join(parts)}.")
        return sentences
