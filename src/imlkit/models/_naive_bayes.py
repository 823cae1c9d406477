"""Naive Bayes for mixed data, with its products laid open.

Categorical features get (Laplace-smoothed) class-wise frequencies, numeric features
class-wise Gaussian densities; ``explain`` lists every factor of every class's product so a
prediction can be read like the course's tax-evasion example.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from sklearn.base import ClassifierMixin

from .._dtypes import is_numeric
from .._validation import ValidationError, check_choice, check_float, check_int
from ._base import ImlkitEstimator
from ._decision_tree import _levels

__all__ = ["NaiveBayes"]


class NaiveBayes(ClassifierMixin, ImlkitEstimator):
    """Naive Bayes classifier for numeric and categorical features.

    Parameters
    ----------
    alpha : float, default 1.0
        Laplace (additive) smoothing of the categorical frequencies; ``alpha=0`` gives the raw
        relative frequencies of the course (and zero probabilities for unseen combinations).
    var_smoothing : float, default 1e-9
        Added to every class-wise variance, as a fraction of the largest variance of a
        numeric feature (scikit-learn's rule), so that a constant feature within a class does
        not produce a zero variance.
    ddof : int, default 1
        Delta degrees of freedom of the class-wise variances: 1 is the sample variance used in
        the course, 0 the maximum-likelihood estimate of scikit-learn's ``GaussianNB``.
    discretize : {None, "quantile", "uniform"}, default None
        The course's other option for continuous attributes: partition each numeric column's
        range into ``n_bins`` bins and treat the bin as a categorical (ordinal) value with
        Laplace-smoothed frequencies instead of a Gaussian density. ``"quantile"``: edges at
        the training quantiles k/n_bins (equal counts; duplicate edges merged); ``"uniform"``:
        equal widths over the training range. Bins are ``[e_k, e_{k+1})`` (scikit-learn's
        ``KBinsDiscretizer`` convention); values beyond the training range fall in the first
        or last bin. None keeps the Gaussian densities.
    n_bins : int, default 5
        Bins per numeric column when ``discretize`` is set.

    Attributes
    ----------
    classes_ : ndarray, shape (K,)
    class_count_ : ndarray, shape (K,)
    class_prior_ : ndarray, shape (K,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str, shape (p,)
        The DataFrame's column names (only when fitted on a DataFrame; names as strings).
    feature_names_ : list of str
        The column names :meth:`explain` uses (``x0, x1, ...`` when fitted on an array).
    feature_kinds_ : dict
        ``{column: "numeric" | "categorical"}``. Numeric as :func:`imlkit._dtypes.is_numeric`
        decides (integer, float; not bool); every other column is categorical.
    category_probs_ : dict of DataFrame
        For each categorical feature, P(x_j = level | class): index levels, columns classes.
    theta_, var_ : DataFrame, shape (K, p_numeric)
        Class-wise means and (smoothed) variances of the numeric features (empty when
        ``discretize`` is set).
    bin_edges_ : dict {column: ndarray}
        With ``discretize``: the inner bin edges of every numeric column; its bins then appear
        as the levels ``"[a, b)"`` in ``category_probs_`` and in :meth:`explain`.

    Notes
    -----
    Under conditional independence of the features given the class,

        P(c | x) ∝ P(c) · Π_j P(x_j | c),

    with P(x_j = a | c) = (n_{c,a} + α) / (n_c + α L_j) for a categorical feature with L_j
    levels, and P(x_j | c) = N(x_j; μ_{c,j}, σ²_{c,j}) (a density) for a numeric one. The
    products are computed as sums of logarithms. A missing value, or a level never seen in
    training, contributes the factor 1 (the feature is marginalised out, which is exact
    under the model); missing values are likewise ignored when fitting. If every class has
    likelihood 0 for a row (possible with ``alpha=0``), the posterior falls back to the prior
    with a warning.

    References
    ----------
    Tan, P.-N., Steinbach, M., Kumar, V. (2005). *Introduction to Data Mining*, Section 5.3.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"refund": ["yes", "no", "no", "yes", "no"],
    ...                   "status": ["single", "married", "single", "married", "divorced"]})
    >>> nb = NaiveBayes(alpha=1.0).fit(X, ["no", "no", "no", "no", "yes"])
    >>> query = pd.DataFrame({"refund": ["no"], "status": ["divorced"]})
    >>> nb.predict(query).tolist()
    ['yes']
    """

    _fitted_attribute = "var_"
    _allow_nan = True  # missing values are marginalised out

    def __init__(self, *, alpha=1.0, var_smoothing=1e-9, ddof=1, discretize=None, n_bins=5):
        self.alpha = alpha
        self.var_smoothing = var_smoothing
        self.ddof = ddof
        self.discretize = discretize
        self.n_bins = n_bins

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y):
        """Estimate the priors, the frequency tables and the class-wise Gaussians.

        Parameters
        ----------
        X : DataFrame or array, shape (n, p)
        y : array-like, shape (n,)
            Class labels (at least two classes).

        Returns
        -------
        self
        """
        alpha = check_float("alpha", self.alpha, low=0.0)
        var_smoothing = check_float("var_smoothing", self.var_smoothing, low=0.0)
        ddof = check_int("ddof", self.ddof, min_value=0, max_value=1)
        if self.discretize is not None:
            check_choice("discretize", self.discretize, ["quantile", "uniform"])
        n_bins = check_int("n_bins", self.n_bins, min_value=2)
        frame, y = self._check_X_y(X, y)
        classes, y_codes = self._check_classes(y)
        bin_edges = {}
        if self.discretize is not None:
            for col in frame.columns:
                if is_numeric(frame[col]):
                    bin_edges[col] = self._edges(frame[col], col, n_bins)
        self.bin_edges_ = bin_edges
        frame = self._binned(frame)
        K = classes.size
        self.classes_ = classes
        self.class_count_ = np.bincount(y_codes, minlength=K).astype(float)
        self.class_prior_ = self.class_count_ / self.class_count_.sum()
        self.feature_kinds_ = {c: "numeric" if is_numeric(frame[c]) else "categorical" for c in frame.columns}

        self.categories_, self.category_probs_ = {}, {}
        numeric = [c for c in frame.columns if self.feature_kinds_[c] == "numeric"]
        for col in frame.columns:
            if self.feature_kinds_[col] == "numeric":
                continue
            levels = _levels(frame[col])
            codes = self._codes(frame[col], levels)
            seen = codes >= 0
            counts = np.bincount(codes[seen] * K + y_codes[seen], minlength=len(levels) * K)
            counts = counts.reshape(len(levels), K).astype(float)
            denom = counts.sum(axis=0) + alpha * len(levels)
            with np.errstate(invalid="ignore", divide="ignore"):
                probs = counts + alpha
                probs = np.where(denom > 0, probs / np.where(denom > 0, denom, 1.0), 1.0)
            self.categories_[col] = levels
            self.category_probs_[col] = pd.DataFrame(probs, index=levels, columns=classes)

        means = np.zeros((K, len(numeric)))
        variances = np.zeros((K, len(numeric)))
        for j, col in enumerate(numeric):
            x = frame[col].to_numpy(dtype=float)
            for k in range(K):
                v = x[(y_codes == k) & ~np.isnan(x)]
                if v.size == 0:
                    raise ValidationError(f"Column {col!r} has no non-missing value for class {classes.tolist()[k]!r}.")
                means[k, j] = v.mean()
                variances[k, j] = v.var(ddof=ddof) if v.size > ddof else 0.0
        if numeric:
            overall = np.nanvar(frame[numeric].to_numpy(dtype=float), axis=0).max()
            # an all-constant design would otherwise leave zero variances
            epsilon = var_smoothing * (overall if overall > 0 else 1.0)
            variances = variances + epsilon
            if (variances <= 0).any():
                bad = [numeric[j] for j in np.flatnonzero((variances <= 0).any(axis=0))]
                raise ValidationError(f"Column(s) {bad} have zero variance within a class; use var_smoothing > 0.")
        self.theta_ = pd.DataFrame(means, index=classes, columns=numeric)
        self.var_ = pd.DataFrame(variances, index=classes, columns=numeric)
        return self

    def _edges(self, series, col, n_bins):
        """Inner bin edges of one numeric column (the outer ones are −∞ and +∞)."""
        x = series.to_numpy(dtype=float)
        x = x[np.isfinite(x)]
        if x.size == 0:
            raise ValidationError(f"Column {col!r} has no finite value to discretize.")
        if self.discretize == "quantile":
            e = np.quantile(x, np.linspace(0, 1, n_bins + 1))
        else:
            e = np.linspace(x.min(), x.max(), n_bins + 1)
        inner = np.unique(e[1:-1])
        return inner[(inner > x.min()) & (inner <= x.max())]  # no empty first bin

    def _binned(self, frame):
        """Numeric columns replaced by their bins, as ordered categoricals ``[a, b)``."""
        if not self.bin_edges_:
            return frame
        frame = frame.copy()
        for col, inner in self.bin_edges_.items():
            s = frame[col]
            if not is_numeric(s):
                raise ValidationError(f"Column {col!r} of 'X' was numeric when the model was fitted; "
                                      f"got dtype {s.dtype}.")
            x = s.to_numpy(dtype=float)
            edges = np.r_[-np.inf, inner, np.inf]
            labels = [f"[{a:.4g}, {b:.4g})" for a, b in zip(edges[:-1], edges[1:])]
            codes = np.searchsorted(inner, x, side="right")
            codes = np.where(np.isnan(x), -1, codes)
            frame[col] = pd.Categorical.from_codes(codes, categories=labels, ordered=True)
        return frame

    @staticmethod
    def _codes(series, levels):
        # −1 for missing values and levels not seen in fit
        return np.asarray(levels.get_indexer(series.astype(object)), dtype=np.intp)

    # ------------------------------------------------------------------ the factors
    def _frame(self, X):
        self._check_fitted()
        if isinstance(X, pd.Series):  # one row
            X = X.to_frame().T.infer_objects()
        return self._binned(self._check_X(X, reset=False))

    def _log_factors(self, frame):
        """log P(x_ij | c), shape (n, K, p); 0 (factor 1) for missing and unseen values."""
        n, K = len(frame), self.classes_.size
        out = np.zeros((n, K, len(self.feature_names_)))
        for j, col in enumerate(self.feature_names_):
            if self.feature_kinds_[col] == "numeric":
                s = frame[col]
                if not is_numeric(s):
                    raise ValidationError(f"Column {col!r} of 'X' was numeric when the model was fitted; "
                                          f"got dtype {s.dtype}.")
                x = s.to_numpy(dtype=float)[:, None]
                mu = self.theta_[col].to_numpy()[None, :]
                var = self.var_[col].to_numpy()[None, :]
                logpdf = -0.5 * np.log(2 * np.pi * var) - (x - mu) ** 2 / (2 * var)
                out[:, :, j] = np.where(np.isnan(x), 0.0, logpdf)
            else:
                codes = self._codes(frame[col], self.categories_[col])
                with np.errstate(divide="ignore"):
                    table = np.log(self.category_probs_[col].to_numpy())
                table = np.vstack([table, np.zeros((1, K))])  # row for unseen / missing: factor 1
                out[:, :, j] = table[np.where(codes < 0, len(table) - 1, codes)]
        return out

    def _joint(self, frame):
        logf = self._log_factors(frame)
        with np.errstate(divide="ignore"):
            log_prior = np.log(self.class_prior_)
        return logf, log_prior[None, :] + logf.sum(axis=2)

    def _log_posterior(self, log_joint, stacklevel=3):
        """log P(c | x) = log-joint − logsumexp over the classes: finite where P(c | x) underflows
        (a posterior of e^-2473 is 0.0 as a float, its logarithm is not -inf)."""
        dead = np.isneginf(log_joint).all(axis=1)
        if dead.any():
            warnings.warn(f"{int(dead.sum())} row(s) have likelihood 0 under every class (alpha=0 and an "
                          f"unseen combination); their posterior is the prior.", RuntimeWarning, stacklevel=stacklevel)
            log_joint = log_joint.copy()
            with np.errstate(divide="ignore"):
                log_joint[dead] = np.log(self.class_prior_)
        return log_joint - logsumexp(log_joint, axis=1, keepdims=True)

    def _posterior(self, log_joint):
        return np.exp(self._log_posterior(log_joint, stacklevel=4))

    # ------------------------------------------------------------------ prediction
    def predict_proba(self, X):
        """Posterior class probabilities, shape (n, K), columns in ``classes_`` order."""
        return self._posterior(self._joint(self._frame(X))[1])

    def predict_log_proba(self, X):
        """Logarithm of ``predict_proba``, shape (n, K)."""
        return self._log_posterior(self._joint(self._frame(X))[1])

    def predict(self, X):
        """The maximum-a-posteriori class, shape (n,)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def explain(self, X):
        """Every factor of every class's product, as a tidy table.

        Parameters
        ----------
        X : DataFrame, array of shape (n, p), or a Series (one row)

        Returns
        -------
        DataFrame, n · K · (p + 1) rows
            Columns ``row`` (index label of X), ``class``, ``term`` (``"prior"`` or a feature
            name), ``value`` (the feature's value; the class for the prior), ``factor``
            (P(c), P(x_j = a | c) or the density N(x_j; μ, σ²)), ``log_contribution``
            (log of the factor: its additive share of log P(c) P(x | c)), and, repeated on every
            term of a (row, class): ``likelihood`` = P(x | c) = Π_j factor_j, ``joint`` =
            P(c) · P(x | c) and ``posterior`` = P(c | x), each with its natural logarithm
            (``log_likelihood``, ``log_joint``, ``log_posterior``): a product of 64 densities
            (digits) is e^-2000 or less, which prints as 0 -- a likelihood the model does not
            give -- while its logarithm is finite and still ranks the classes.
        """
        frame = self._frame(X)
        logf, log_joint = self._joint(frame)
        log_post = self._log_posterior(log_joint, stacklevel=3)
        posterior = np.exp(log_post)
        n, K, p = logf.shape
        with np.errstate(divide="ignore"):
            log_prior = np.log(self.class_prior_)
        # terms along the last axis: the prior first, then the features
        logs = np.concatenate([np.broadcast_to(log_prior[None, :, None], (n, K, 1)), logf], axis=2)
        values = np.empty((n, K, p + 1), dtype=object)
        values[:, :, 0] = self.classes_[None, :]
        for j, col in enumerate(self.feature_names_):
            values[:, :, j + 1] = frame[col].to_numpy(dtype=object)[:, None]
        log_lik = logf.sum(axis=2)
        terms = ["prior", *self.feature_names_]
        out = pd.DataFrame({
            "row": np.repeat(np.asarray(frame.index, dtype=object), K * (p + 1)),
            "class": np.tile(np.repeat(self.classes_, p + 1), n),
            "term": np.tile(np.asarray(terms, dtype=object), n * K),
            "value": values.ravel(),
            "factor": np.exp(logs).ravel(),
            "log_contribution": logs.ravel(),
            "likelihood": np.repeat(np.exp(log_lik).ravel(), p + 1),
            "joint": np.repeat(np.exp(log_joint).ravel(), p + 1),
            "posterior": np.repeat(posterior.ravel(), p + 1),
            "log_likelihood": np.repeat(log_lik.ravel(), p + 1),
            "log_joint": np.repeat(log_joint.ravel(), p + 1),
            "log_posterior": np.repeat(log_post.ravel(), p + 1),
        })
        return out
