"""Design matrices with readable column names: dummy coding, reference levels, interactions.

Shared by :class:`~imlkit.models.GLM` (its whole design) and :class:`~imlkit.models.GAM` (its
factor and linear terms), so both name a coefficient the same way:

* a numeric column ``temp`` is one column ``temp``;
* a categorical column ``workingday`` with levels ``no < yes`` is dummy-coded against its
  first (reference) level: one column ``workingday[yes]``;
* an interaction ``("workingday", "temp")`` is the product of the two blocks:
  ``workingday[yes]:temp`` (numeric x numeric gives ``a:b``, categorical x categorical gives
  ``a[l]:b[m]`` for every pair of non-reference levels); a three-way interaction
  ``("a", "b", "c")`` is the product of three blocks, ``a:b:c``;
* a polynomial term ``{"age": 3}`` adds the raw powers ``age^2`` and ``age^3`` after ``age``.

A column is numeric when :func:`imlkit._dtypes.is_numeric` says so (integer and float, not
``bool``); every other column (``category``, text, ``bool``) is dummy-coded, except dates
(:func:`imlkit._dtypes.is_datetime`), which are refused with a message.
The levels of a ``category`` column keep their declared order (only the observed ones are
used, so no column is identically zero); other columns use their sorted distinct values.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._dtypes import is_datetime, is_numeric
from .._validation import ValidationError, check_same_columns, check_X

__all__ = ["DesignSpec", "fit_design", "is_categorical", "check_interactions", "collinear_partners"]

INTERCEPT = "(Intercept)"


def is_categorical(series):
    """True for the columns that are dummy-coded: every column that is not numeric (see :mod:`imlkit._dtypes`)."""
    return not is_numeric(series)


def _levels(series):
    if isinstance(series.dtype, pd.CategoricalDtype):
        present = set(series.dropna().unique())
        return [c for c in series.cat.categories if c in present]
    values = series.dropna().unique()
    try:
        return sorted(values)
    except TypeError:  # mixed types: keep first-seen order
        return list(values)


def check_interactions(interactions, columns, name="interactions"):
    """Validate ``[("a", "b"), ("a", "b", "c"), ...]``: known, distinct columns, nothing twice."""
    if interactions is None:
        return []
    if (isinstance(interactions, tuple) and len(interactions) in (2, 3)
            and all(isinstance(v, str) for v in interactions)):
        interactions = [interactions]
    if not isinstance(interactions, (list, tuple)):
        raise TypeError(f"'{name}' must be None or a list of pairs of column names; got {type(interactions).__name__}.")
    out, seen = [], set()
    for pair in interactions:
        if not isinstance(pair, (list, tuple)) or len(pair) not in (2, 3):
            raise ValidationError(f"'{name}' must hold pairs or triples of column names such as "
                                  f"('workingday', 'temp'); got {pair!r}.")
        term = tuple(str(v) for v in pair)
        for v in term:
            if v not in columns:
                raise ValidationError(f"Unknown feature {v!r} in '{name}'; the columns are {list(columns)}.")
        if len(set(term)) < len(term):
            raise ValidationError(f"An interaction needs {'two' if len(term) == 2 else 'three'} different "
                                  f"features; got {pair!r} in '{name}'.")
        if frozenset(term) in seen:
            raise ValidationError(f"The interaction {pair!r} appears twice in '{name}'.")
        seen.add(frozenset(term))
        out.append(term)
    return out


def check_polynomial(polynomial, columns, categorical, name="polynomial"):
    """Validate ``{column: degree}``: numeric columns, degree an int >= 2."""
    if polynomial is None:
        return {}
    if not isinstance(polynomial, dict):
        raise TypeError(f"'{name}' must be None or a dict {{column: degree}}; got {type(polynomial).__name__}.")
    out = {}
    for c, deg in polynomial.items():
        if c not in columns:
            raise ValidationError(f"Unknown feature {c!r} in '{name}'; the columns are {list(columns)}.")
        if c in categorical:
            raise ValidationError(f"Column {c!r} in '{name}' is categorical; a polynomial term needs a numeric "
                                  f"column.")
        if isinstance(deg, bool) or not isinstance(deg, (int, np.integer)) or deg < 2:
            raise ValidationError(f"'{name}[{c!r}]' must be an int >= 2 (the highest power); got {deg!r}.")
        out[c] = int(deg)
    return out


@dataclass
class DesignSpec:
    """What :func:`fit_design` learned from the training data; ``transform`` applies it.

    Attributes
    ----------
    columns : list of str
        The input columns, in order (new data must have the same).
    features : list of str
        The columns that enter the design as main effects.
    categorical : dict
        ``{column: [levels]}`` for categorical columns; the first level is the reference.
    interactions : list of tuples of 2 or 3 str
    intercept : bool
    polynomial : dict
        ``{column: degree}``: raw powers 2..degree follow the column's own design column.
    names : list of str
        Design column names, ``"(Intercept)"`` first when ``intercept``.
    blocks : dict
        ``{feature or (a, b): [design column positions]}``.
    """

    columns: list
    features: list
    categorical: dict
    interactions: list = field(default_factory=list)
    intercept: bool = True
    polynomial: dict = field(default_factory=dict)
    names: list = field(default_factory=list)
    blocks: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    def reference(self, feature):
        """The reference level of a categorical feature."""
        return self.categorical[feature][0]

    def _main_block(self, frame, feature, name):
        s = frame[feature]
        if feature in self.categorical:
            levels = self.categorical[feature]
            if isinstance(s.dtype, pd.CategoricalDtype):
                values = s.astype(object).to_numpy()
            else:
                values = s.to_numpy(dtype=object)
            lookup = {lv: i for i, lv in enumerate(levels)}
            codes = np.fromiter((lookup.get(v, -1) for v in values), dtype=np.int64, count=len(values))
            if (codes < 0).any():
                bad = pd.unique(values[codes < 0])[:5]
                if pd.isna(bad).any():
                    raise ValidationError(f"Column {feature!r} of '{name}' has missing values.")
                raise ValidationError(f"Column {feature!r} of '{name}' has level(s) {list(bad)} not seen in fit; "
                                      f"the known levels are {levels}.")
            out = np.zeros((len(values), len(levels) - 1))
            rows = np.flatnonzero(codes > 0)
            out[rows, codes[rows] - 1] = 1.0
            return out, [f"{feature}[{lv}]" for lv in levels[1:]]
        try:
            x = s.to_numpy(dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValidationError(f"Column {feature!r} of '{name}' must be numeric; got dtype {s.dtype}.") from exc
        if not np.isfinite(x).all():
            raise ValidationError(f"Column {feature!r} of '{name}' contains NaN or infinite values.")
        deg = self.polynomial.get(feature, 1)
        return x[:, None] ** np.arange(1, deg + 1)[None, :], [feature] + [f"{feature}^{k}" for k in range(2, deg + 1)]

    def transform(self, X, name="X"):
        """The design matrix of new data.

        Parameters
        ----------
        X : DataFrame or array, shape (n, p)

        Returns
        -------
        ndarray, shape (n, len(names))
        """
        frame, _ = check_X(X, name)
        check_same_columns(pd.DataFrame(columns=self.columns), frame, "the fit data", name)
        n = len(frame)
        parts, cache = [], {}
        if self.intercept:
            parts.append(np.ones((n, 1)))
        for f in self.features:
            cache[f] = self._main_block(frame, f, name)
            parts.append(cache[f][0])
        for term in self.interactions:
            for f in term:
                if f not in cache:
                    cache[f] = self._main_block(frame, f, name)
            block = cache[term[0]][0][:, :1] if term[0] not in self.categorical else cache[term[0]][0]
            for f in term[1:]:
                m = cache[f][0] if f in self.categorical else cache[f][0][:, :1]  # no powers inside products
                block = (block[:, :, None] * m[:, None, :]).reshape(n, -1)
            parts.append(block)
        return np.hstack(parts) if parts else np.empty((n, 0))


def fit_design(X, interactions=None, *, features=None, intercept=True, polynomial=None, name="X"):
    """Learn the coding of ``X`` (levels, references, names) for :meth:`DesignSpec.transform`.

    Parameters
    ----------
    X : DataFrame or array, shape (n, p)
    interactions : list of tuples of 2 or 3 str, optional
        Pairs (or triples) of columns whose product terms are added.
    polynomial : dict, optional
        ``{column: degree}``: the powers 2..degree of a numeric main effect.
    features : list of str, optional
        The columns entering as main effects (default: all).
    intercept : bool
        Put a column of ones named ``"(Intercept)"`` first.

    Returns
    -------
    DesignSpec

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"temp": [1.0, 2.0, 3.0], "workingday": pd.Categorical(["no", "yes", "no"])})
    >>> spec = fit_design(X, interactions=[("workingday", "temp")])
    >>> spec.names
    ['(Intercept)', 'temp', 'workingday[yes]', 'workingday[yes]:temp']
    >>> spec.transform(X)[:, 3]
    array([0., 2., 0.])
    """
    frame, _ = check_X(X, name)
    columns = list(frame.columns)
    features = columns if features is None else list(features)
    pairs = check_interactions(interactions, columns)
    used = list(dict.fromkeys(features + [v for p in pairs for v in p]))
    categorical = {}
    for c in used:
        if is_datetime(frame[c]):
            raise ValidationError(f"Column {c!r} of '{name}' holds dates; the design needs numeric or categorical "
                                  f"columns (turn the dates into numbers, e.g. days since the first date, or into "
                                  f"categories such as the month).")
        if is_categorical(frame[c]):
            levels = _levels(frame[c])
            if frame[c].isna().any():
                raise ValidationError(f"Column {c!r} of '{name}' has missing values.")
            if len(levels) < 2:
                raise ValidationError(f"Categorical column {c!r} of '{name}' must have at least 2 levels to be "
                                      f"dummy-coded; got {levels}.")
            categorical[c] = levels
    poly = check_polynomial(polynomial, columns, categorical)
    missing = [c for c in poly if c not in features]
    if missing:
        raise ValidationError(f"Polynomial column(s) {missing} must be main effects (in 'features').")
    spec = DesignSpec(columns=columns, features=features, categorical=categorical,
                      interactions=pairs, intercept=bool(intercept), polynomial=poly)
    names, blocks, pos = [], {}, 0
    if intercept:
        names.append(INTERCEPT)
        pos = 1

    def main_names(f):
        if f in categorical:
            return [f"{f}[{lv}]" for lv in categorical[f][1:]]
        return [f]

    for f in features:
        nm = main_names(f) + [f"{f}^{k}" for k in range(2, poly.get(f, 1) + 1)]
        names += nm
        blocks[f] = list(range(pos, pos + len(nm)))
        pos += len(nm)
    for term in pairs:
        nm = main_names(term[0])
        for f in term[1:]:
            nm = [f"{u}:{v}" for u in nm for v in main_names(f)]
        names += nm
        blocks[term] = list(range(pos, pos + len(nm)))
        pos += len(nm)
    spec.names = names
    spec.blocks = blocks
    num = [c for c in used if c not in categorical]
    # Quartiles describe a numeric moderator in interaction sentences.
    info = {}
    for c in num:
        try:
            x = frame[c].to_numpy(dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValidationError(f"Column {c!r} of '{name}' must be numeric or categorical; "
                                  f"got dtype {frame[c].dtype}.") from exc
        if not np.isfinite(x).all():
            raise ValidationError(f"Column {c!r} of '{name}' contains NaN or infinite values.")
        info[c] = np.quantile(x, [0.25, 0.5, 0.75])
    spec.info = info
    return spec


def collinear_partners(D, names, tol=1e-9):
    """For each column of ``D`` in an exact linear dependency, the other columns of that dependency.

    Parameters
    ----------
    D : ndarray, shape (n, p)
    names : sequence of str, length p
    tol : float
        Singular values below ``tol`` times the largest (of the column-scaled ``D``) span the null space.

    Returns
    -------
    dict {name: list of str}
        Only the columns with a component in the null space of ``D``. With ``N`` the null-space
        basis (rows), ``P = NᵀN`` projects onto it; columns ``j`` and ``k`` share a dependency
        when ``P_jk ≠ 0`` (e.g. ``c = a − b``: a, b and c name each other).
    """
    D = np.asarray(D, dtype=float)
    if D.shape[1] == 0:
        return {}
    norms = np.linalg.norm(D, axis=0)
    Ds = D / np.where(norms > 0, norms, 1.0)  # units must not decide what counts as "zero"
    _, sv, Vt = np.linalg.svd(Ds, full_matrices=D.shape[0] < D.shape[1])
    rank = int(np.sum(sv > tol * max(sv.max(), np.finfo(float).tiny) * max(D.shape))) if sv.size else 0
    null = Vt[rank:]
    out = {}
    if not null.size:
        return out
    P = null.T @ null
    for j in range(D.shape[1]):
        if P[j, j] < 1e-12:
            continue
        out[names[j]] = [names[k] for k in np.argsort(-np.abs(P[j]))
                         if k != j and abs(P[j, k]) > 1e-8 * P[j, j]]
    return out
