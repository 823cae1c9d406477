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
from scipy import special
from sklearn.utils.metaestimators import available_if

from .._validation import ValidationError, check_choice
from ._base import ImlkitEstimator, set_task_tags
from ._target import check_class_target

__all__ = ["FAMILY_LINKS", "Family"]

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
    import statsmodels.api as sm
    from statsmodels.genmod.families import links as L

    link_obj = {"identity": L.Identity, "log": L.Log, "inverse": L.InversePower, "logit": L.Logit,
                "probit": L.Probit, "cloglog": L.CLogLog, "sqrt": L.Sqrt,
                "negative_inverse": _negative_inverse_class()}[link]()
    cls = {"gaussian": sm.families.Gaussian, "binomial": sm.families.Binomial, "poisson": sm.families.Poisson,
           "gamma": sm.families.Gamma, "exponential": sm.families.Gamma}[name]
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

    def deviance(self, y, mu):
        """``D(y, μ) = 2 Σ_i [ℓ(y_i; y_i) − ℓ(y_i; μ_i)]`` (unit dispersion)."""
        return float(self.sm.deviance(y, mu))

    def start_mu(self, y):
        """Starting means for IRLS: the data moved into the family's range, as R's ``family$initialize``.

        binomial ``(y + 0.5)/2``, poisson ``y + 0.1``, otherwise ``y`` itself. (statsmodels starts
        the non-binomial families at ``(y + ȳ)/2``; with λ re-chosen along the way the GAM's
        performance iteration is path dependent, so the start is part of its definition.)
        """
        y = np.asarray(y, dtype=float)
        if self.name == "binomial":
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
