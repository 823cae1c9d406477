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

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.base import BaseEstimator
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._validation import (ModelError, ValidationError, check_bool, check_choice, check_probability,
                           check_X, check_y)
from ._design import INTERCEPT, fit_design

__all__ = ["GLM", "FAMILY_LINKS"]

#: family -> (default link, allowed links)
FAMILY_LINKS = {
    "gaussian": ("identity", ("identity", "log", "inverse")),
    "binomial": ("logit", ("logit", "probit", "cloglog", "log")),
    "poisson": ("log", ("log", "identity", "sqrt")),
    "gamma": ("negative_inverse", ("negative_inverse", "inverse", "log", "identity")),
    "exponential": ("negative_inverse", ("negative_inverse", "inverse", "log", "identity")),
}

#: Links whose weights are read multiplicatively after exp(): ratios of means or of odds.
EXP_LINKS = ("log", "logit")


# ----------------------------------------------------------------------------- plumbing
class _FamilyEstimator(BaseEstimator):
    """An estimator that is a classifier for the binomial family and a regressor otherwise."""

    def _is_binomial(self):
        return getattr(self, "family", None) == "binomial"

    def __sklearn_tags__(self):
        from sklearn.utils._tags import ClassifierTags, RegressorTags

        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        if self._is_binomial():
            tags.estimator_type = "classifier"
            tags.classifier_tags = ClassifierTags(multi_class=False)
            tags.regressor_tags = None
        else:
            tags.estimator_type = "regressor"
            tags.regressor_tags = RegressorTags()
            tags.classifier_tags = None
        return tags

    def _encode_y(self, y, n):
        """Validate ``y`` for the family; binomial labels become 0/1 with ``classes_``."""
        family = self.family
        if family == "binomial":
            y = check_y(y, n)
            classes = np.unique(y.astype(object) if y.dtype.kind == "O" else y)
            if len(classes) < 2:
                raise ValidationError(f"'y' has a single class {list(classes)}; the binomial family needs 2 classes.")
            if len(classes) > 2:
                raise ValidationError(f"'y' has {len(classes)} classes {list(classes)[:10]}; the binomial family "
                                      f"needs exactly 2.")
            self.classes_ = classes
            return (y == classes[1]).astype(float)
        y = check_y(y, n)
        try:
            y = y.astype(float)
        except (TypeError, ValueError) as exc:
            raise ValidationError(f"'y' must be numeric for the {family} family; got dtype {y.dtype}.") from exc
        if family == "poisson" and (y < 0).any():
            raise ValidationError(f"'y' must be non-negative counts for the poisson family; got {int((y < 0).sum())} "
                                  f"negative value(s) (min {y.min():g}).")
        if family in ("gamma", "exponential") and (y <= 0).any():
            raise ValidationError(f"'y' must be > 0 for the {family} family; got {int((y <= 0).sum())} value(s) "
                                  f"<= 0 (min {y.min():g}).")
        return y

    def score(self, X, y, sample_weight=None):
        """Accuracy for the binomial family, R² otherwise."""
        from sklearn.metrics import accuracy_score, r2_score

        if self._is_binomial():
            return accuracy_score(y, self.predict(X), sample_weight=sample_weight)
        return r2_score(y, self.predict(X), sample_weight=sample_weight)


def _fmt(v):
    """Course-style numbers: 1.12, 0.855, -21.8, 2185.8."""
    v = float(v)
    if abs(v) >= 100:
        return f"{v:.1f}"
    return f"{v:.3g}"


def _check_family_link(family, link):
    family = check_choice("family", family, list(FAMILY_LINKS))
    default, allowed = FAMILY_LINKS[family]
    if link is None:
        return family, default
    if not isinstance(link, str) or link not in allowed:
        known = sorted({lk for _, al in FAMILY_LINKS.values() for lk in al})
        if isinstance(link, str) and link in known:
            raise ValidationError(f"'link' {link!r} is not allowed for the {family} family; the allowed links are "
                                  f"{list(allowed)}.")
        raise ValidationError(f"'link' must be one of {list(allowed)} for the {family} family; got {link!r}.")
    return family, link


def _negative_inverse_class():
    """statsmodels link g(μ) = −1/μ, the course's link for the exponential/gamma family.

    Built on first use so that importing imlkit does not import statsmodels; registered as a
    module attribute (and served by the module ``__getattr__``) so fitted models pickle.
    """
    cls = globals().get("NegativeInverse")
    if cls is not None:
        return cls
    from statsmodels.genmod.families import links as L

    class NegativeInverse(L.Link):
        def __call__(self, p):
            return -1.0 / p

        def inverse(self, z):
            return -1.0 / z

        def deriv(self, p):
            return 1.0 / p ** 2

        def deriv2(self, p):
            return -2.0 / p ** 3

        def inverse_deriv(self, z):
            return 1.0 / z ** 2

        def inverse_deriv2(self, z):
            return -2.0 / z ** 3

    NegativeInverse.__module__ = __name__
    NegativeInverse.__qualname__ = "NegativeInverse"
    globals()["NegativeInverse"] = NegativeInverse
    return NegativeInverse


def __getattr__(name):
    if name == "NegativeInverse":
        return _negative_inverse_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _sm_family(family, link):
    """The statsmodels family object (with the course's negative inverse link when asked)."""
    import statsmodels.api as sm
    from statsmodels.genmod.families import links as L

    link_obj = {"identity": L.Identity, "log": L.Log, "inverse": L.InversePower, "logit": L.Logit,
                "probit": L.Probit, "cloglog": L.CLogLog, "sqrt": L.Sqrt,
                "negative_inverse": _negative_inverse_class()}[link]()
    cls = {"gaussian": sm.families.Gaussian, "binomial": sm.families.Binomial, "poisson": sm.families.Poisson,
           "gamma": sm.families.Gamma, "exponential": sm.families.Gamma}[family]
    # check_link=False: our table above is the allow-list (statsmodels' is narrower for gamma).
    return cls(link=link_obj, check_link=False)


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
    interactions : list of (str, str), optional
        Pairs of features whose product terms are added, e.g. ``[("workingday", "temp")]``.
    fit_intercept : bool, default True
    confidence_level : float, default 0.95
        Level of the Wald intervals in :meth:`summary` and :meth:`interpret`.

    Attributes
    ----------
    coef_ : Series, shape (n_terms,)
        The weights, indexed by design names (``"(Intercept)"``, ``"temp"``, ``"workingday[yes]"``).
    design_ : DesignSpec
        Coding learned from the training data.
    result_ : statsmodels GLMResults
    classes_ : ndarray, shape (2,)
        Binomial family only; the second class is the one modelled (``y = 1``).
    link_ : str
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

    def __init__(self, family="gaussian", link=None, interactions=None, fit_intercept=True,
                 confidence_level=0.95):
        self.family = family
        self.link = link
        self.interactions = interactions
        self.fit_intercept = fit_intercept
        self.confidence_level = confidence_level

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
        import warnings

        import statsmodels.api as sm

        family, link = _check_family_link(self.family, self.link)
        check_bool("fit_intercept", self.fit_intercept)
        check_probability("confidence_level", self.confidence_level)
        frame, was_frame = check_X(X)
        y_enc = self._encode_y(y, len(frame))
        spec = fit_design(frame, self.interactions, intercept=self.fit_intercept)
        D = spec.transform(frame)
        if D.shape[1] == 0:
            raise ValidationError("The design has no columns: give at least one feature or fit_intercept=True.")
        if len(frame) <= D.shape[1]:
            raise ValidationError(f"'X' must have more rows than model terms ({D.shape[1]}); got {len(frame)}.")
        rank = np.linalg.matrix_rank(D)
        if rank < D.shape[1]:
            warnings.warn(f"The design has rank {rank} < {D.shape[1]} columns (collinear features or a level "
                          f"that occurs with another one only); weights of collinear terms are not identified.",
                          stacklevel=2)
        try:
            with warnings.catch_warnings():
                # statsmodels warns that links outside its own allow-list may leave the domain;
                # our table is the allow-list and a fit that leaves the domain fails below.
                warnings.filterwarnings("ignore", message=".*does not respect the domain.*")
                model = sm.GLM(y_enc, D, family=_sm_family(family, link))
                result = model.fit(scale=1.0 if family == "exponential" else None)
        except Exception as exc:  # statsmodels raises assorted errors on divergence
            raise ModelError(f"The {family} GLM with {link} link failed to fit: {exc}") from exc
        if not np.all(np.isfinite(result.params)):
            raise ModelError(f"The {family} GLM with {link} link did not converge (non-finite weights).")
        self.link_ = link
        self.design_ = spec
        self.result_ = result
        self.coef_ = pd.Series(np.asarray(result.params), index=spec.names, name="weight")
        self.n_features_in_ = frame.shape[1]
        if was_frame:
            self.feature_names_in_ = np.asarray(frame.columns, dtype=object)
        self.target_name_ = getattr(y, "name", None) if isinstance(getattr(y, "name", None), str) else "y"
        return self

    def _linear_predictor(self, X):
        check_is_fitted(self, "result_")
        return self.design_.transform(X) @ self.coef_.to_numpy()

    def predict(self, X):
        """The expected value ``E[y | x]`` (the predicted class for the binomial family).

        Returns
        -------
        ndarray, shape (n,)
        """
        mu = self.result_.family.link.inverse(self._linear_predictor(X))
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
        p = np.clip(np.asarray(self.result_.family.link.inverse(self._linear_predictor(X)), dtype=float), 0, 1)
        return np.column_stack([1 - p, p])

    # -- inference
    def _z(self):
        return stats.norm.ppf(0.5 + self.confidence_level / 2)

    def summary(self):
        """The weights with standard errors, Wald intervals, statistics and p-values.

        Returns
        -------
        DataFrame, index = design names; columns ``weight, std_error, ci_low, ci_high,
        statistic, p_value`` and, for log and logit links, ``exp_weight, exp_ci_low,
        exp_ci_high`` (the course's "exp(weight) [2.5%, 97.5%]").

        Notes
        -----
        statsmodels' Wald inference: ``statistic = weight / std_error`` (z), two-sided normal
        p-value, interval ``weight ± z_{(1+level)/2} · std_error``; the standard errors use the
        estimated dispersion for gaussian and gamma, 1 for binomial, poisson and exponential.
        """
        check_is_fitted(self, "result_")
        r = self.result_
        ci = np.asarray(r.conf_int(alpha=1 - self.confidence_level))
        out = pd.DataFrame({"weight": np.asarray(r.params), "std_error": np.asarray(r.bse),
                            "ci_low": ci[:, 0], "ci_high": ci[:, 1], "statistic": np.asarray(r.tvalues),
                            "p_value": np.asarray(r.pvalues)}, index=pd.Index(self.design_.names, name="term"))
        if self.link_ in EXP_LINKS:
            out["exp_weight"] = np.exp(out["weight"])
            out["exp_ci_low"] = np.exp(out["ci_low"])
            out["exp_ci_high"] = np.exp(out["ci_high"])
        out.attrs["family"] = self.family
        out.attrs["link"] = self.link_
        out.attrs["confidence_level"] = self.confidence_level
        return out

    def contrast(self, c):
        """Estimate and interval of a linear combination ``cᵀβ`` on the link scale.

        Parameters
        ----------
        c : array-like, shape (n_terms,) or dict {design name: coefficient}

        Returns
        -------
        (estimate, std_error, ci_low, ci_high)
        """
        check_is_fitted(self, "result_")
        if isinstance(c, dict):
            vec = np.zeros(len(self.coef_))
            for k, v in c.items():
                if k not in self.coef_.index:
                    raise ValidationError(f"Unknown term {k!r}; the terms are {list(self.coef_.index)}.")
                vec[self.coef_.index.get_loc(k)] = v
            c = vec
        c = np.asarray(c, dtype=float)
        est = float(c @ self.coef_.to_numpy())
        se = float(np.sqrt(max(c @ np.asarray(self.result_.cov_params()) @ c, 0.0)))
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

    def _phrase(self, est, lo, hi):
        what, verb, expo = self._scale_words()
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
                out.append(f"When {desc}, {unit} {self._phrase(est, lo, hi)}.")
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
        check_is_fitted(self, "result_")
        spec = self.design_
        if feature is not None and feature not in spec.columns:
            raise ValidationError(f"Unknown feature {feature!r} in 'feature'; the columns are {spec.columns}.")
        level = f"{100 * self.confidence_level:g}%"
        sentences = []
        if feature is None and spec.intercept:
            est, _, lo, hi = self.contrast({INTERCEPT: 1.0})
            what, _, expo = self._scale_words()
            v = (np.exp(est), np.exp(lo), np.exp(hi)) if expo else (est, lo, hi)
            sentences.append(f"When every numeric feature is 0 and every categorical feature is at its reference "
                             f"level, {what} is {_fmt(v[0])} [{_fmt(v[1])}, {_fmt(v[2])}].")
        pairs = spec.interactions
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
            if any(focus_of[p] == f for p in pairs if f in p):
                continue  # read at every level of its moderator below
            cond = ""
            if partners:
                parts = [f"{p} = {spec.reference(p)}" if p in spec.categorical else f"{p} = 0" for p in partners]
                cond = " when " + " and ".join(parts)
            for i, col in enumerate(spec.blocks[f]):
                est, _, lo, hi = self.contrast(np.eye(len(self.coef_))[col])
                sentences.append(f"{self._unit(f, i)} {self._phrase(est, lo, hi)}{cond}"
                                 f"{'' if partners else ', all other features fixed'}.")
        for a, b in pairs:
            if feature is not None and feature not in (a, b):
                continue
            focus = focus_of[(a, b)]
            moderator = a if focus == b else b
            sentences += self._conditional(focus, moderator, (a, b))
        if sentences:
            sentences.append(f"Intervals in brackets are {level} Wald intervals.")
        return sentences
