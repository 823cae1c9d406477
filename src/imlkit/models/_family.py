"""The exponential families of the GLM and the GAM: one object per (distribution, link).

Both models fit ``g(E[y | x]) = η`` by (penalised) iteratively reweighted least squares and need
the same pieces of the family: the link ``g`` and its inverse, ``dμ/dη``, the variance function
``V(μ)``, the deviance, starting values for IRLS, whether the scale is known, and which targets
are valid. :class:`Family` provides them on top of statsmodels' families and links (the formulas
are statsmodels'; imlkit adds overflow guards and its own target checks), and
:class:`_FamilyEstimator` is the scikit-learn base of both models: a classifier for the binomial
family, a regressor otherwise.

==============  ===================  =========================================
family          GLM's default link   links allowed (``link=``)
==============  ===================  =========================================
gaussian        identity             identity, log, inverse
binomial        logit                logit, probit, cloglog, log
poisson         log                  log, identity, sqrt
gamma           negative_inverse     negative_inverse, inverse, log, identity
exponential     negative_inverse     as gamma (the gamma family, dispersion fixed at 1)
==============  ===================  =========================================

statsmodels is imported on first use, so that ``import imlkit`` does not import it.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy import special
from sklearn.utils.metaestimators import available_if

from .._validation import ValidationError, check_choice
from ._base import ImlkitEstimator, set_task_tags
from ._target import check_class_target

__all__ = ["FAMILY_LINKS", "Family", "binomial_counts", "is_two_columns"]

#: family -> (default link, allowed links)
FAMILY_LINKS = {
    "gaussian": ("identity", ("identity", "log", "inverse")),
    "binomial": ("logit", ("logit", "probit", "cloglog", "log")),
    "poisson": ("log", ("log", "identity", "sqrt")),
    "gamma": ("negative_inverse", ("negative_inverse", "inverse", "log", "identity")),
    "exponential": ("negative_inverse", ("negative_inverse", "inverse", "log", "identity")),
}

#: Families whose dispersion is fixed at 1 (the others estimate it by Pearson's χ² / residual df).
SCALE_KNOWN = ("binomial", "poisson", "exponential")

#: |η| beyond which exp(η) overflows double precision (exp(709.8) is the largest double).
_MAX_EXP = 700.0


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


def _statsmodels_family(name, link):
    """The statsmodels family object (with the course's negative inverse link when asked)."""
    # statsmodels.genmod, not statsmodels.api: the api imports all of statsmodels (0.32 s against 0.07 s)
    from statsmodels.genmod import families
    from statsmodels.genmod.families import links as L

    link_obj = {"identity": L.Identity, "log": L.Log, "inverse": L.InversePower, "logit": L.Logit,
                "probit": L.Probit, "cloglog": L.CLogLog, "sqrt": L.Sqrt,
                "negative_inverse": _negative_inverse_class()}[link]()
    cls = {"gaussian": families.Gaussian, "binomial": families.Binomial, "poisson": families.Poisson,
           "gamma": families.Gamma, "exponential": families.Gamma}[name]
    # check_link=False: FAMILY_LINKS is the allow-list (statsmodels' is narrower for gamma).
    return cls(link=link_obj, check_link=False)


class Family:
    """A distribution of ``y`` given ``x`` with its link ``g``: what IRLS needs, in one place.

    Parameters
    ----------
    name : {"gaussian", "binomial", "poisson", "gamma", "exponential"}
    link : str, optional
        One of the links allowed for ``name`` (see the module table); default: the family's
        default link in ``links``.
    links : dict, optional
        ``{family: (default link, allowed links)}``, the allow-list of the model asking
        (default :data:`FAMILY_LINKS`, the GLM's). The GAM passes its own, smaller table.

    Attributes
    ----------
    name, link_name : str
    scale_known : bool
        True for binomial, poisson and exponential (dispersion 1).
    sm : statsmodels family
        The statsmodels family with this link (built on first use, not pickled with the Family).

    Notes
    -----
    IRLS works with ``w = (dμ/dη)² / V(μ)`` and ``z = η + (y − μ) dη/dμ`` (McCullagh & Nelder
    1989, §2.5); :meth:`working` returns both. Every formula is statsmodels'.
    """

    def __init__(self, name, link=None, links=None):
        links = FAMILY_LINKS if links is None else links
        name = check_choice("family", name, list(links))
        default, allowed = links[name]
        if link is None:
            link = default
        elif not isinstance(link, str) or link not in allowed:
            known = sorted({lk for _, al in links.values() for lk in al})
            if isinstance(link, str) and link in known:
                raise ValidationError(f"'link' {link!r} is not allowed for the {name} family; the allowed links "
                                      f"are {list(allowed)}.")
            raise ValidationError(f"'link' must be one of {list(allowed)} for the {name} family; got {link!r}.")
        self.name = name
        self.link_name = link
        self._sm = None

    def __repr__(self):
        return f"Family({self.name!r}, link={self.link_name!r})"

    def __getstate__(self):
        return {"name": self.name, "link_name": self.link_name, "_sm": None}

    @property
    def sm(self):
        if self._sm is None:
            self._sm = _statsmodels_family(self.name, self.link_name)
        return self._sm

    @property
    def scale_known(self):
        return self.name in SCALE_KNOWN

    @property
    def is_binomial(self):
        return self.name == "binomial"

    # -- the link
    def link(self, mu):
        """``η = g(μ)``."""
        return np.asarray(self.sm.link(mu), dtype=float)

    def inverse(self, eta):
        """``μ = g⁻¹(η)``, without overflow: exp is capped at ``e^700`` and the logistic saturates."""
        eta = np.asarray(eta, dtype=float)
        if self.link_name == "log":
            eta = np.clip(eta, -_MAX_EXP, _MAX_EXP)
        elif self.link_name == "logit":
            return special.expit(eta)  # 1/(1 + e^−η) without overflow, accurate for small probabilities
        with np.errstate(over="ignore"):
            return np.asarray(self.sm.link.inverse(eta), dtype=float)

    def dmu_deta(self, mu):
        """``dμ/dη = 1 / g'(μ)``."""
        return 1.0 / np.asarray(self.sm.link.deriv(mu), dtype=float)

    # -- the distribution
    def variance(self, mu):
        """The variance function ``V(μ)`` (Var(y) = φ V(μ))."""
        return np.asarray(self.sm.variance(mu), dtype=float)

    def deviance(self, y, mu, weights=None):
        """``D(y, μ) = 2 Σ_i w_i [ℓ(y_i; y_i) − ℓ(y_i; μ_i)]`` (unit dispersion).

        ``weights``: prior weights ``w_i`` (default 1); for binomial counts the number of trials
        ``n_i`` with ``y_i`` the proportion of successes, which gives the binomial deviance
        ``2 Σ [s_i log(s_i/(n_i μ_i)) + f_i log(f_i/(n_i (1 − μ_i)))]`` (statsmodels' ``var_weights``).
        """
        if weights is None:
            return float(self.sm.deviance(y, mu))
        return float(self.sm.deviance(y, mu, var_weights=np.asarray(weights, dtype=float)))

    def start_mu(self, y, weights=None):
        """Starting means for IRLS: the data moved into the family's range, as R's ``family$initialize``.

        binomial ``(n y + 0.5)/(n + 1)`` (``n`` the trials in ``weights``, default 1: ``(y + 0.5)/2``),
        poisson ``y + 0.1``, otherwise ``y`` itself. (statsmodels starts the non-binomial families at
        ``(y + ȳ)/2``; with λ re-chosen along the way the GAM's performance iteration is path
        dependent, so the start is part of its definition.)
        """
        y = np.asarray(y, dtype=float)
        if self.name == "binomial":
            if weights is not None:
                n = np.asarray(weights, dtype=float)
                return (n * y + 0.5) / (n + 1)
            return (y + 0.5) / 2
        if self.name == "poisson":
            return y + 0.1
        return y.copy()

    def working(self, y, eta, mu, min_weight=1e-12):
        """IRLS working weights and response ``(w, z)`` at the current fit, each shape (n,).

        Weights are floored at ``min_weight`` so that fitted means at the boundary of the
        family's range (probabilities 0/1, zero counts) leave the normal equations solvable.
        """
        d = self.dmu_deta(mu)
        w = np.maximum(d ** 2 / np.maximum(self.variance(mu), 1e-300), min_weight)
        z = eta + (y - mu) / d
        return w, z

    def scale(self, y, mu, df_resid):
        """The dispersion φ: 1 when known, else Pearson's ``Σ (y − μ)² / V(μ)`` over ``df_resid``."""
        if self.scale_known:
            return 1.0
        return float(np.sum((y - mu) ** 2 / self.variance(mu))) / max(df_resid, 1.0)

    # -- targets
    def check_y(self, y):
        """Raise a ValidationError unless every value of (float) ``y`` is in the family's range.

        binomial: 0/1 (the estimator encodes the labels first); poisson: ``y >= 0``;
        gamma, exponential: ``y > 0``; gaussian: any finite value.
        """
        y = np.asarray(y, dtype=float)
        name = self.name
        if name == "poisson" and (y < 0).any():
            raise ValidationError(f"'y' must be non-negative counts for the poisson family; got {int((y < 0).sum())} "
                                  f"negative value(s) (min {y.min():g}).")
        if name in ("gamma", "exponential") and (y <= 0).any():
            raise ValidationError(f"'y' must be > 0 for the {name} family; got {int((y <= 0).sum())} value(s) "
                                  f"<= 0 (min {y.min():g}).")
        if name == "binomial" and not np.isin(y, (0.0, 1.0)).all():
            raise ValidationError("'y' must be 0/1 for the binomial family.")
        return y


def is_two_columns(y):
    """True for a two-column ``y`` (a DataFrame or a 2-D array-like of width 2): binomial counts."""
    if y is None or sp.issparse(y):
        return False
    if isinstance(y, pd.DataFrame):
        return y.shape[1] == 2
    shape = getattr(y, "shape", None)
    if shape is None:
        try:
            shape = np.asarray(y).shape  # lists, array-likes with __array__ only
        except (TypeError, ValueError):  # ragged lists: not counts (the 1-D checks name the problem)
            return False
    return len(shape) == 2 and shape[1] == 2


def _count_array(values, name):
    """``values`` as floats, or a ValidationError naming ``name`` (text, labels)."""
    try:
        if isinstance(values, (pd.DataFrame, pd.Series)):
            return values.to_numpy(dtype=float, na_value=np.nan)
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"'{name}' must be numeric counts for the binomial family; got values that are not "
                              f"numbers.") from exc


def _row_list(mask, k=5):
    rows = np.flatnonzero(mask)
    return ", ".join(str(int(r)) for r in rows[:k]) + (f" and {rows.size - k} more" if rows.size > k else "")


def binomial_counts(y, trials, family, n=None):
    """Binomial counts from a two-column ``y`` or from proportions with ``trials``; None for a 1-D ``y``.

    Parameters
    ----------
    y : array-like, shape (n,) or (n, 2)
        ``(n, 2)``: successes and failures per row (statsmodels' form), non-negative whole numbers.
        ``(n,)`` with ``trials``: the proportion of successes in [0, 1].
    trials : array-like of shape (n,) or None
        Positive whole numbers of trials per row; ``y · trials`` must be whole numbers.
    family : Family
        A two-column ``y`` or ``trials`` with any family but the binomial is refused.
    n : int, optional
        The rows of ``X``: ``y`` and ``trials`` must have as many.

    Returns
    -------
    None, or (successes, failures, description)
        Float arrays of whole numbers, shape (n,), and what a success is, e.g.
        ``"NABOVE out of NABOVE + NBELOW"``.

    Raises
    ------
    ValidationError
        Naming the problem: a two-column ``y`` or ``trials`` with another family, both at once, a
        ``y`` of another width, non-numeric, missing, negative or fractional counts, proportions
        outside [0, 1], rows with no trials, no successes or no failures at all.
    """
    two = is_two_columns(y)
    shape = getattr(y, "shape", None) if not sp.issparse(y) else None
    if not two and shape is not None and len(shape) == 2 and shape[1] > 2 and family.is_binomial:
        raise ValidationError(f"'y' must be 1-D (two labels) or have two columns (successes, failures) for the "
                              f"binomial family; got shape {tuple(shape)}.")
    if two and not family.is_binomial:
        raise ValidationError(f"'y' has two columns: only the binomial family takes a two-column 'y' (successes, "
                              f"failures); the {family.name} family needs a 1-D 'y'.")
    if trials is not None and not family.is_binomial:
        raise ValidationError(f"'trials' is for the binomial family only (with 'y' the proportion of successes); "
                              f"the {family.name} family takes a 1-D 'y' without trials.")
    if not two and trials is None:
        return None
    if two and trials is not None:
        raise ValidationError("Give either a two-column 'y' (successes, failures) or proportions in 'y' with "
                              "'trials', not both.")
    if two:
        arr = _count_array(y, "y")
        if isinstance(y, pd.DataFrame) and all(isinstance(c, str) for c in y.columns):
            s_name, f_name = y.columns
            what = f"{s_name} out of {s_name} + {f_name}"
        else:
            what = "y[:, 0] out of y[:, 0] + y[:, 1]"
        if n is not None and arr.shape[0] != n:
            raise ValidationError(f"X and 'y' have different lengths: X has {n} rows, y has {arr.shape[0]}.")
        bad = ~np.isfinite(arr).all(axis=1)
        if bad.any():
            raise ValidationError(f"'y' (successes, failures) has {int(bad.sum())} row(s) with a missing or "
                                  f"infinite count (rows {_row_list(bad)}).")
        bad = (arr < 0).any(axis=1)
        if bad.any():
            raise ValidationError(f"'y' (successes, failures) must hold non-negative counts; {int(bad.sum())} "
                                  f"row(s) have a negative count (rows {_row_list(bad)}; min {arr.min():g}).")
        bad = (arr != np.round(arr)).any(axis=1)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise ValidationError(f"'y' (successes, failures) must hold whole-number counts; {int(bad.sum())} "
                                  f"row(s) do not (rows {_row_list(bad)}; row {r} has {arr[r, 0]:g}, "
                                  f"{arr[r, 1]:g}). For proportions pass them as a 1-D 'y' with 'trials'.")
        successes, failures = arr[:, 0].copy(), arr[:, 1].copy()
    else:
        p = _count_array(y, "y")
        if p.ndim == 2 and p.shape[1] == 1:
            p = p[:, 0]
        if p.ndim != 1:
            raise ValidationError(f"With 'trials', 'y' must be 1-D proportions of successes; got shape {p.shape}.")
        t = _count_array(trials, "trials")
        if t.ndim != 1 or t.shape[0] != p.shape[0]:
            raise ValidationError(f"'trials' must be 1-D with one number per row of 'y' ({p.shape[0]}); got shape "
                                  f"{t.shape}.")
        if n is not None and p.shape[0] != n:
            raise ValidationError(f"X and 'y' have different lengths: X has {n} rows, y has {p.shape[0]}.")
        for arr_, nm in ((p, "y"), (t, "trials")):
            bad = ~np.isfinite(arr_)
            if bad.any():
                raise ValidationError(f"'{nm}' contains {int(bad.sum())} NaN or infinite value(s) (rows "
                                      f"{_row_list(bad)}).")
        bad = (t <= 0) | (t != np.round(t))
        if bad.any():
            raise ValidationError(f"'trials' must be positive whole numbers; {int(bad.sum())} value(s) are not "
                                  f"(rows {_row_list(bad)}; e.g. {t[bad][0]:g}).")
        bad = (p < 0) | (p > 1)
        if bad.any():
            raise ValidationError(f"With 'trials', 'y' must be proportions of successes in [0, 1]; {int(bad.sum())} "
                                  f"value(s) are outside (rows {_row_list(bad)}; e.g. {p[bad][0]:g}).")
        s = p * t
        bad = np.abs(s - np.round(s)) > 1e-6 * np.maximum(t, 1.0)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise ValidationError(f"'y' × 'trials' must be whole numbers of successes; {int(bad.sum())} row(s) are "
                                  f"not (rows {_row_list(bad)}; row {r}: {p[r]:g} × {t[r]:g} = {s[r]:g}).")
        successes = np.round(s)
        failures = t - successes
        name = y.name if isinstance(getattr(y, "name", None), str) else "y"
        what = f"{name}: the share of successes out of 'trials'"
    total = successes + failures
    bad = total == 0
    if bad.any():
        raise ValidationError(f"'y' has {int(bad.sum())} row(s) with no trials (successes + failures = 0; rows "
                              f"{_row_list(bad)}): they carry no information, drop them.")
    if successes.sum() == 0 or failures.sum() == 0:
        none = "successes" if successes.sum() == 0 else "failures"
        raise ValidationError(f"'y' has no {none} in any row; the binomial family needs both successes and "
                              f"failures.")
    return successes, failures, what


class _FamilyEstimator(ImlkitEstimator):
    """The base of the GLM and the GAM: a classifier for the binomial family, a regressor otherwise.

    A binomial model predicts one of two labels (any two: strings, booleans, 0/1), has
    ``predict_proba`` and scores by accuracy, so scikit-learn's tools (stratified folds,
    ``is_classifier``, the estimator checks) must treat it as a binary classifier, like
    ``LogisticRegression`` (whose weights are also read on the link scale). Every other family
    predicts a mean ``E[y | x]`` and is a regressor, like scikit-learn's ``PoissonRegressor``.

    Input checks (fitted or not, NaN/inf, complex, empty, 1-D or sparse input, the training
    columns at predict time) are :class:`~imlkit.models._base.ImlkitEstimator`'s.
    """

    _fitted_attribute = "coef_"
    _allow_nan = False
    _categorical_input = True

    def _is_binomial(self):
        return getattr(self, "family", None) == "binomial"

    def __sklearn_tags__(self):
        tags = set_task_tags(super().__sklearn_tags__(), "classification" if self._is_binomial() else "regression")
        if self._is_binomial():
            tags.classifier_tags.multi_class = False
        elif getattr(self, "family", None) in ("poisson", "gamma", "exponential"):
            tags.target_tags.positive_only = True  # counts >= 0, durations > 0 (Family.check_y)
        return tags

    def _check_X_y_family(self, X, y, family):
        """``fit``'s checks: ``X`` and ``y`` (:meth:`_check_X_y`, at least 2 rows), then ``y`` for ``family``.

        Returns
        -------
        frame : DataFrame, shape (n, p)
        y : ndarray of float, shape (n,)
            Binomial labels coded 0/1 (``classes_[1]`` is 1); other families' values checked
            against the family's range (:meth:`Family.check_y`).
        """
        frame, y = self._check_X_y(X, y, min_samples=2)
        return frame, self._encode_y(y, family)

    def _encode_y(self, y, family):
        if family.is_binomial:
            check_class_target(y, f"The binomial {type(self).__name__}")
            classes = np.unique(y.astype(object) if y.dtype.kind == "O" else y)
            if len(classes) < 2:
                raise ValidationError(f"'y' has a single class {list(classes)}; the binomial family needs 2 classes.")
            if len(classes) > 2:
                raise ValidationError(f"'y' has {len(classes)} classes {list(classes)[:10]}; the binomial family "
                                      f"needs exactly 2. Only binary classification is supported.")
            self.classes_ = classes
            return (y == classes[1]).astype(float)
        try:
            y = y.astype(float)
        except (TypeError, ValueError) as exc:
            raise ValidationError(f"'y' must be numeric for the {family.name} family; got dtype {y.dtype}.") from exc
        return family.check_y(y)

    @available_if(lambda self: self._is_binomial())
    def decision_function(self, X):
        """Binomial family only: the log-odds (the linear predictor for the logit link), shape (n,).

        For the logit and probit links, positive values predict ``classes_[1]`` (their inverse
        passes 0.5 at η = 0). Other families are regressors and have :meth:`linear_predictor`
        only, as scikit-learn's regressors have no ``decision_function``.
        """
        return self.linear_predictor(X)

    def score(self, X, y, sample_weight=None):
        """Accuracy for the binomial family, R² otherwise."""
        from sklearn.metrics import accuracy_score, r2_score

        if self._is_binomial():
            return accuracy_score(y, self.predict(X), sample_weight=sample_weight)
        return r2_score(y, self.predict(X), sample_weight=sample_weight)
