"""Marginal and conditional samplers, shared by CFI and SAGE.

A sampler is fitted once on data ``X_fit`` and then draws replacement values for a set of
columns ``S`` of some rows ``X``:

* marginal: from P(X_S) -- rows of ``X_fit[S]`` ignoring the rest of the row;
* conditional: from P(X_S | X_-S = x_-S) -- values that are realistic given the other
  columns of that row.

``sample(X, features, n_samples, rng)`` returns a DataFrame of shape
``(n_samples * len(X), |S|)``: block ``r`` (rows ``r*n .. r*n+n-1``) is the ``r``-th draw for
every row of ``X``. This matches :func:`imlkit._model.stack_frame`, so a sampler's output
replaces columns of ``n_samples`` stacked copies of ``X`` directly.

Samplers hold no mutable caches visible to the caller: ``sample`` is a pure function of
its arguments and the fitted state, so a fitted sampler can be shipped to workers.

References
----------
Molnar, König, Bischl & Casalicchio (2020/2023). Model-agnostic feature importance and
effects with dependent features: a conditional subgroup approach. (cs-PFI)
Strobl et al. (2008). Conditional variable importance for random forests.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ._dtypes import is_numeric, is_numeric_or_bool
from ._validation import ValidationError, check_int, check_X, resolve_features

__all__ = [
    "Sampler",
    "MarginalSampler",
    "ConditionalPermutationSampler",
    "SubgroupSampler",
    "GaussianSampler",
    "make_sampler",
    "SAMPLER_NAMES",
    "MIN_LEAF_ROWS",
]


class Sampler:
    """Base class: ``fit(X)`` once, then ``sample(X, features, n_samples, rng)``."""

    #: True when the draws depend on the other columns of the row (conditional sampling).
    conditional = False

    def fit(self, X):
        """Remember the data the replacement values are drawn from.

        Parameters
        ----------
        X : DataFrame or array, shape (n_fit, p)
        """
        self.X_fit_, self._fit_was_frame = check_X(X, "X_fit")
        self._check_fit_data(self.X_fit_)
        return self

    def _check_fit_data(self, X):  # hook for subclasses
        pass

    def sample(self, X, features, n_samples=1, rng=None):
        """Draw replacement values for the columns ``features`` of every row of ``X``.

        Parameters
        ----------
        X : DataFrame or array, shape (n, p)
            The rows to perturb; same columns as the fitted data.
        features : str, int or list
            The columns S to replace (jointly).
        n_samples : int
            Independent draws per row.
        rng : numpy.random.Generator, int or None

        Returns
        -------
        DataFrame, shape (n_samples * n, |S|)
        """
        return self._sample(*self._checked(X, features, n_samples, rng))

    def _checked(self, X, features, n_samples, rng):
        """The arguments of :meth:`sample`, validated: (X as a frame, S, n_samples, a Generator)."""
        if not hasattr(self, "X_fit_"):
            raise ValidationError(f"This {type(self).__name__} is not fitted yet; call fit(X) first.")
        X, _ = check_X(X)
        if list(X.columns) != list(self.X_fit_.columns):
            raise ValidationError("'X' must have the same columns as the data the sampler was fitted on; "
                                  f"fitted on {list(self.X_fit_.columns)}, got {list(X.columns)}.")
        S = [c for cols in resolve_features(features, X.columns, "features", allow_groups=False).values()
             for c in cols]
        n_samples = check_int("n_samples", n_samples, min_value=1)
        rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        return X, S, n_samples, rng

    def sample_rows(self, X, features, n_samples=1, rng=None):
        """:meth:`sample`'s draws as rows of the fitted data, without building the frame; None when
        this sampler's draws are not fitted rows (Gaussian) or it draws its own way (a subclass
        overriding ``sample``).

        The same arguments and the same random numbers as :meth:`sample`: ``sample_rows(...).frame()``
        equals ``sample(...)`` (what PFI/CFI on the tree engine use, reading each column's values
        at the drawn rows instead of a frame per feature). Returns None before drawing anything.

        Parameters
        ----------
        X, features, n_samples, rng
            As :meth:`sample`.

        Returns
        -------
        Draws or None
        """
        cls = type(self)
        if cls.sample is not Sampler.sample or cls._sample is not Sampler._sample:
            return None
        X, S, n_samples, rng = self._checked(X, features, n_samples, rng)
        return Draws(self.X_fit_, S, self._draw_indices(X, S, n_samples, rng))

    def _sample(self, X, S, n_samples, rng):
        return Draws(self.X_fit_, S, self._draw_indices(X, S, n_samples, rng)).frame()

    def fit_row_indices(self, rows, features, n_samples, rng, uniforms=None):
        """Draws for rows *of the fitted data*, as indices into it; None if unsupported.

        Parameters
        ----------
        rows : ndarray of int, shape (q,)
            Positions of the rows in the fitted data.
        features : list of str
            The sampled columns S.
        n_samples : int
        rng : numpy Generator
        uniforms : ndarray of float in [0, 1), shape (n_samples, q), optional
            The randomness of the draws, given instead of taken from ``rng`` (common random
            numbers, see :meth:`common_noise`).

        Returns
        -------
        ndarray of int, shape (n_samples, q), or None
            Row ``i`` of draw ``r`` takes the values of S from fitted row ``out[r, i]``: a
            uniform draw (with replacement) from the *other* fitted rows of row i's group (the
            row itself only when it is alone in its group) -- the conditional of :meth:`sample`,
            without building, checking or encoding any frame (what conditional SAGE asks for
            thousands of times). Leaving the row out keeps its own values of S out of its
            draws: drawn back with probability 1/(group size), they made f_S(x_i) lean towards
            f(x_i) and credited a pure-noise conditioning column with that leak (finer groups
            with the column). Samplers that do not draw observed rows (Gaussian) return None.
        """
        groups = self._fit_groups(list(features), rng)
        if groups is None:
            return None
        codes, order, starts, counts = groups
        rows = np.asarray(rows, dtype=np.intp)
        # _draw_within_groups(codes, codes[rows], False, ...) with the group layout reused and the
        # row itself left out: every row of the fitted data has a non-empty group, so no marginal
        # fallback; a group of one row can only give the row back.
        c = codes[rows]
        u = rng.random((n_samples, len(rows))) if uniforms is None else uniforms
        size = counts[c]
        k = (u * np.maximum(size - 1, 1)).astype(np.intp)
        place = np.empty(len(order), dtype=np.intp)
        place[order] = np.arange(len(order))
        own = place[rows] - starts[c]  # the row's own position in its group
        k = np.where((size > 1) & (k >= own), k + 1, k)
        return order[starts[c] + k]

    # ------------------------------------------------------------------ common random numbers
    # Conditional SAGE compares f_S with f_{S∪j} on the same row. Drawn with independent
    # randomness, the difference of the two Monte-Carlo averages is noise even when adding j
    # changes nothing (a constant column: the null player would get a non-zero value). With
    # the same noise the two draws coincide whenever the two conditionals do. The noise is
    # per (row, draw) and does not depend on S, so one array serves every coalition.
    def common_noise(self, n_keys, n_samples, rng):
        """Randomness of ``n_samples`` draws for ``n_keys`` rows that any set S can reuse, or None.

        Group samplers draw a fitted row from the row's group: one uniform per (row, draw),
        shape (n_keys, n_samples). None: the sampler cannot draw from given noise (a custom
        subclass), and callers fall back to :meth:`sample`.
        """
        if type(self)._group_codes is Sampler._group_codes:
            return None
        return rng.random((n_keys, n_samples))

    def sample_with_noise(self, X, features, noise):
        """:meth:`sample` with the randomness given: ``noise`` (len(X), n_samples, ...) rows of
        :meth:`common_noise`. Same output layout as :meth:`sample`.

        Group samplers draw row i's r-th value uniformly (with replacement) from the fitted
        rows of its group, also on the fitted data itself (where :meth:`sample` permutes
        within groups instead): the same conditional, and a draw that depends on S only
        through the group. A row equal to a fitted row draws as :meth:`fit_row_indices` draws
        for that fitted row (without its own values; cross-fitted for :class:`SubgroupSampler`).
        """
        X, _ = check_X(X)
        S = list(features)
        u = np.asarray(noise, dtype=float).T  # (n_samples, n)
        idx = np.empty(u.shape, dtype=np.intp)
        # Rows of X that are rows of the fitted data draw as fit_row_indices draws them (their
        # own values left out), so conditional SAGE's two paths -- row indices or frames -- agree.
        pos = self._fitted_positions(X)
        known = pos >= 0
        if known.any():
            drawn = self.fit_row_indices(pos[known], S, u.shape[0], None, uniforms=u[:, known])
            if drawn is None:
                known[:] = False
            else:
                idx[:, known] = drawn
        rest = np.flatnonzero(~known)
        if len(rest):
            part = X if len(rest) == len(X) else X.iloc[rest].reset_index(drop=True)
            codes_fit, codes_x = self._group_codes(part, S, None)
            idx[:, rest] = _draw_within_groups(codes_fit, codes_x, False, u.shape[0], None, uniforms=u[:, rest])
        return self.X_fit_[S].iloc[idx.ravel()].reset_index(drop=True)

    def _fitted_positions(self, X):
        """Position of each row of X among the fitted rows (the first with all the same values), or −1."""
        lookup = getattr(self, "_row_lookup", None)
        if lookup is None or lookup[0] is not self.X_fit_:
            levels = _column_levels(self.X_fit_)
            codes = np.ascontiguousarray(_encode_columns(self.X_fit_, list(self.X_fit_.columns), levels))
            first = {}
            for k, row in enumerate(codes):
                first.setdefault(row.tobytes(), k)
            lookup = self._row_lookup = (self.X_fit_, levels, first)
        _, levels, first = lookup
        codes = np.ascontiguousarray(_encode_columns(X, list(X.columns), levels))
        return np.array([first.get(row.tobytes(), -1) for row in codes], dtype=np.intp)

    def _fit_groups(self, S, rng):
        """(codes, order, starts, counts) of the fitted rows' groups for S; None if not a group sampler."""
        codes = self._fit_codes(S, rng)
        if codes is None:
            return None
        return (codes,) + _group_layout(codes)

    def _fit_codes(self, S, rng):
        """Group of every fitted row for the sampled set S (None: not a group sampler)."""
        try:
            return self._group_codes(self.X_fit_, S, rng)[0]
        except NotImplementedError:
            return None

    def _is_fit_data(self, X):
        return X is self.X_fit_ or (X.shape == self.X_fit_.shape and X.equals(self.X_fit_))

    # Group-based samplers (marginal, binned conditional, subgroup) share this: rows of X
    # draw fitted rows from their own group; on the fitted data itself a draw is a
    # permutation within each group, so each group's multiset of values is kept.
    def _draw_indices(self, X, S, n_samples, rng):
        codes_fit, codes_x = self._group_codes(X, S, rng)
        same = self._is_fit_data(X)
        return _draw_within_groups(codes_fit, codes_x, same, n_samples, rng)

    def _group_codes(self, X, S, rng):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}()"


class Draws:
    """A sampler's draws as rows of its fitted data (what :meth:`Sampler.sample_rows` returns).

    Attributes
    ----------
    source : DataFrame, shape (n_fit, p)
        The fitted data.
    columns : list of str
        The sampled columns S.
    rows : ndarray of int, shape (n_samples, n)
        Draw r of row i takes the values of S from ``source`` row ``rows[r, i]``.
    """

    def __init__(self, source, columns, rows):
        self.source = source
        self.columns = list(columns)
        self.rows = rows

    def frame(self):
        """The draws as :meth:`Sampler.sample` returns them: a DataFrame (n_samples * n, |S|)."""
        return self.source[self.columns].iloc[self.rows.ravel()].reset_index(drop=True)


def replacement_frame(replacement):
    """A replacement as a DataFrame: a sampler's :class:`Draws` built into one (:meth:`Draws.frame`), a frame as it
    is. The one conversion for the methods' prediction (``imlkit._model``) and the tree engine, which both take
    either. Told apart by type: a frame with a feature named ``frame`` has a ``.frame`` too (its column)."""
    return replacement.frame() if isinstance(replacement, Draws) else replacement


def _group_layout(codes):
    """Rows sorted by group (stable), each group's first position in that order and its size."""
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
    return order, starts, counts


def _draw_within_groups(codes_fit, codes_x, same, n_samples, rng, uniforms=None):
    """Indices into the fitted rows, shape (n_samples, n): each row draws from its group.

    ``same``: X is the fitted data; every draw is then a permutation within each group.
    Otherwise row i draws uniformly (with replacement) from the fitted rows of its group; a
    group that has no fitted rows falls back to all fitted rows, with a warning.
    ``uniforms`` (n_samples, n): the randomness of those draws, given (``same`` must be False).
    """
    n = len(codes_x)
    out = np.empty((n_samples, n), dtype=np.intp)
    if same and not codes_fit.any():
        # One group (marginal sampling): a plain permutation per draw.
        for r in range(n_samples):
            out[r] = rng.permutation(n)
        return out
    if same:
        order = np.argsort(codes_fit, kind="stable")
        for r in range(n_samples):
            # lexsort by (group, random key): a uniformly random order inside each group,
            # placed back at the group's own positions -> a within-group permutation.
            shuffled = np.lexsort((rng.random(n), codes_fit))
            out[r, order] = shuffled
        return out
    order = np.argsort(codes_fit, kind="stable")
    n_groups = int(max(codes_fit.max(initial=-1), codes_x.max(initial=-1))) + 1
    counts = np.bincount(codes_fit, minlength=n_groups)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    cnt_x = counts[codes_x]
    empty = cnt_x == 0
    if empty.any():
        warnings.warn(f"{int(empty.sum())} row(s) fall in a group with no fitted rows; their values are drawn "
                      "from all fitted rows (marginally).", stacklevel=4)
    u = rng.random((n_samples, n)) if uniforms is None else uniforms
    pos = np.where(empty, (u * len(codes_fit)).astype(np.intp),
                   starts[codes_x] + (u * np.maximum(cnt_x, 1)).astype(np.intp))
    out[:] = np.where(empty, pos, order[np.minimum(pos, len(order) - 1)])
    return out


class MarginalSampler(Sampler):
    """Draws X_S from its marginal: a joint permutation of the rows of X_S (PFI).

    On the fitted data each draw is a permutation, so each column keeps its multiset of
    values; on other rows, fitted rows are drawn uniformly with replacement.

    Examples
    --------
    >>> import pandas as pd
    >>> s = MarginalSampler().fit(pd.DataFrame({"a": [1, 2, 3], "b": [4, 5, 6]}))
    >>> sorted(s.sample(s.X_fit_, "a", rng=0)["a"].tolist())
    [1, 2, 3]
    """

    def _group_codes(self, X, S, rng):
        return np.zeros(len(self.X_fit_), dtype=np.intp), np.zeros(len(X), dtype=np.intp)


def _as_float(s):
    """A number-like column as floats; a timedelta in seconds, NaT as NaN."""
    if s.dtype.kind == "m":
        return s.dt.total_seconds().to_numpy(dtype=float)
    return s.to_numpy(dtype=float)


def _encode_columns(frame, columns, levels=None):
    """Columns as float codes for trees and binning: categoricals/strings -> integer codes.

    ``levels`` maps a non-numeric column to the levels whose positions are its codes (fixed
    at fit time, so that the rows a sampler is asked about get the same codes as the rows
    it was fitted on); a level not in it, or a missing value, becomes NaN.
    """
    out = np.empty((len(frame), len(columns)), dtype=float)
    for k, c in enumerate(columns):
        s = frame[c]
        if is_numeric_or_bool(s):  # by value (bool as 0/1)
            out[:, k] = _as_float(s)
            continue
        if levels is not None and c in levels:
            codes = pd.Index(levels[c]).get_indexer(s.astype(object)).astype(float)
        elif isinstance(s.dtype, pd.CategoricalDtype):
            codes = s.cat.codes.to_numpy().astype(float)
        else:
            codes = pd.factorize(s, sort=True)[0].astype(float)
        codes[codes < 0] = np.nan
        out[:, k] = codes
    return out


def _column_levels(frame):
    """Levels of every non-numeric column: categories, or the sorted distinct values."""
    out = {}
    for c in frame.columns:
        s = frame[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            out[c] = list(s.cat.categories)
        elif not is_numeric_or_bool(s):
            out[c] = list(pd.unique(s.dropna().astype(object)))
    return out


class ConditionalPermutationSampler(Sampler):
    """Permute X_S within groups of the conditioning columns (the course's scheme).

    Groups are the combinations of the conditioning columns' values: exact values for
    categorical, boolean and low-cardinality columns (at most ``n_bins`` distinct values),
    quantile bins (``n_bins`` per column) for the other numeric ones. Within each group the
    values of X_S are permuted, which approximates sampling from P(X_S | X_-S).

    Parameters
    ----------
    n_bins : int, default 4
        Quantile bins per numeric conditioning column.
    conditioning : list of str, optional
        Columns to condition on; default all columns not in S. With many conditioning
        columns the groups become single rows and nothing moves (a warning says so); then
        condition on the few most dependent columns or use :class:`SubgroupSampler`.
    """

    conditional = True

    def __init__(self, *, n_bins=4, conditioning=None):
        self.n_bins = check_int("n_bins", n_bins, min_value=2)
        self.conditioning = conditioning

    def __repr__(self):
        return f"ConditionalPermutationSampler(n_bins={self.n_bins}, conditioning={self.conditioning!r})"

    def _group_codes(self, X, S, rng):
        cond = self.conditioning
        if cond is None:
            cond = [c for c in X.columns if c not in S]
        else:
            cond = list(resolve_features(cond, X.columns, "conditioning", allow_groups=False))
            clash = [c for c in cond if c in S]
            if clash:
                raise ValidationError(f"'conditioning' must not contain the sampled feature(s) {clash}.")
        n_fit = len(self.X_fit_)
        if not cond:
            return np.zeros(n_fit, dtype=np.intp), np.zeros(len(X), dtype=np.intp)
        keys = []
        for c in cond:
            f = self.X_fit_[c]
            x = X[c]
            if not is_numeric(f) or f.nunique() <= self.n_bins:
                both = pd.concat([f, x], ignore_index=True).astype(object)
                codes, _ = pd.factorize(both, use_na_sentinel=False)
            else:
                vals = _as_float(f)
                edges = np.unique(np.nanquantile(vals, np.linspace(0, 1, self.n_bins + 1)[1:-1]))
                codes = np.searchsorted(edges, np.concatenate([vals, _as_float(x)]), side="right")
            keys.append(codes)
        key = pd.MultiIndex.from_arrays(keys) if len(keys) > 1 else pd.Index(keys[0])
        group, _ = pd.factorize(key)
        codes_fit, codes_x = group[:n_fit].astype(np.intp), group[n_fit:].astype(np.intp)
        mean_size = n_fit / max(len(np.unique(codes_fit)), 1)
        if mean_size < 2:
            warnings.warn(f"Conditioning on {len(cond)} column(s) leaves groups of {mean_size:.1f} rows on average, "
                          "so the permutation barely moves anything; condition on fewer columns "
                          "(conditioning=[...]) or use SubgroupSampler.", stacklevel=4)
        return codes_fit, codes_x


#: Largest number of target columns of a subgroup tree; wider targets (many sampled columns,
#: one-hot levels) are reduced to their leading principal components.
_MAX_TARGETS = 8
#: Fewest fitted rows for cross-fitted draws (two halves of at least 10 rows, leaves of >= 2).
_MIN_CROSS_FIT_ROWS = 20
#: Fewest rows per leaf below which :meth:`SubgroupSampler.small_leaves_note` says that CFI and conditional SAGE are
#: shrunk. Why 10: within a leaf of L rows a row draws its own value of S back about once in L draws (a permutation
#: has one fixed point per leaf on average; a draw with replacement from the leaf, 1/L), and the tree's in-sample
#: leaves are cut where the values of S change, so their spread understates the conditional one by about as much
#: (a regression tree with n/L leaves leaves (n - n/L) of n degrees of freedom to the residuals): a floor of about
#: 1/L on the shrinkage of a feature's importance, beyond the Monte-Carlo noise of the draws. At 10 rows that floor is
#: 10% -- the share of the largest value at which the report calls a feature important -- and "auto" never goes
#: below it once there are 40 fitted rows; at the 2-row leaves of 10 fitted rows (leaf size n // 4) CFI of a
#: feature independent of the others came out at a sixteenth of its PFI (statsmodels' spector, PSI: 0.010 against
#: 0.167; 0.139 with the sampler fitted on all 32 rows) and conditional SAGE of another below 0.
MIN_LEAF_ROWS = 10


class SubgroupSampler(Sampler):
    """cs-PFI: permute X_S within the leaves of a tree that predicts X_S from X_-S.

    A CART tree learns the subgroups of X_-S in which X_S is most homogeneous; the values of
    X_S are then permuted within its leaves (on the fitted data) or drawn from the fitted
    rows of a row's leaf (on other rows), which keeps the dependence the tree captured
    (Molnar et al. 2023, "conditional subgroups"). Every draw is an observed row of X_S, so
    integer, binary and categorical columns only ever receive values they really take, and
    a joint draw of several columns is a combination that occurs in the data.

    This is imlkit's default conditional sampler (``sampler="auto"``): it makes no
    distributional assumption. On the course's mixture (X2 ~ U(0,1); X1 ~ N(0,1) if
    X2 < 0.5, else N(4, 4)) it gives CFI(X1) ≈ 0 where the Gaussian sampler gives a third
    of PFI(X1). Its approximation error is the dependence left inside a leaf: for a
    near-deterministic continuous relation (x2 = x1 + small noise) a leaf still spans a
    range of x1, so the CFI of a feature that is irrelevant given the others is small but
    not 0, and it shrinks as n grows (smaller leaves).

    The target of the tree is the standardised numeric columns of S, the ranks of its
    ordered categorical columns and the one-hot indicators of its nominal ones (a
    multi-output regression tree, so a nominal column is split by its levels' frequencies
    rather than its arbitrary codes), reduced to its 8 leading principal components when
    wider; the conditioning columns enter as numbers or level codes.

    Parameters
    ----------
    max_depth : int, default 12
    min_samples_leaf : int or "auto", default "auto"
        Fitted rows per leaf; ``"auto"``: ⌈√n_fit⌉, at least 10 (and at most a quarter of
        the fitted rows), so leaves get narrower as the data grow while each still holds
        enough rows to permute. Smaller leaves track the dependence more closely but fit
        noise in X_S, which makes the draws too similar to the original values and
        shrinks the importance of a feature that does matter. Below :data:`MIN_LEAF_ROWS`
        (10) rows per leaf -- fewer than 40 fitted rows with ``"auto"`` (80 for conditional
        SAGE's cross-fitted halves) -- CFI and conditional SAGE warn when the rows they explain
        draw from their own leaves (the sentence of :meth:`small_leaves_note`), and record
        the leaf size in the result's ``extra``.

    Notes
    -----
    The tree is scikit-learn's ``DecisionTreeRegressor`` (squared error summed over the
    targets, best splits, ``max_depth``, ``min_samples_leaf``), grown by imlkit's numba CART
    (:mod:`imlkit._sampler_cart`): the same tree at a tenth of the cost, with every column sorted once
    for all trees. When two splits of a node tie exactly (discrete data) the two may keep
    different ones -- scikit-learn decides by a random feature order -- so a few trees differ;
    both follow the same definition and CFI/SAGE values agree within their Monte Carlo error
    (on tie-free data they are identical). Conditioning columns with missing values
    use scikit-learn's tree (its missing-value routing).

    The tree is a deterministic function of the fitted data and S, so it is cached per set
    S: conditional SAGE, which asks for the same coalitions again and again, fits each tree
    once. The cache does not change any result.

    Conditional SAGE draws for the rows of the fitted data themselves (:meth:`fit_row_indices`,
    and :meth:`sample_with_noise` for rows equal to fitted rows) *cross-fitted*: the fitted rows
    are split into two fixed halves, a tree is grown on each, and a row draws from the rows of
    the other half in its leaf of its own half's tree (honest trees: one half places the splits,
    the other fills the leaves). With one tree grown and filled by the same rows, a row's draws
    carried its own values of S -- it drew itself once in a leaf's L draws, and the leaves were
    cut where the rows' own values of S changed -- so f_S(x_i) leaked x_i's dropped values: for
    S given a pure-noise column the mean draw of 2a + b correlated 0.20 with the row's own at
    n = 1,000 (0.31 at 300), and conditional SAGE gave a pure-noise feature +3.5 % of the
    largest value. Cross-fitted, that correlation is 0 within its standard error and the
    remaining bias is the noise of a finite leaf, which lowers v(S) of every coalition by
    about E Var(f | leaf) / L (L ≈ √n rows), as B draws lower it by Var / B: conservative, and
    shrinking as n grows. CFI (:meth:`sample`) keeps cs-PFI's permutation within the leaves.
    """

    conditional = True

    def __init__(self, *, max_depth=12, min_samples_leaf="auto"):
        self.max_depth = check_int("max_depth", max_depth, min_value=1)
        if not (isinstance(min_samples_leaf, str) and min_samples_leaf == "auto"):
            min_samples_leaf = check_int("min_samples_leaf", min_samples_leaf, min_value=1)
        self.min_samples_leaf = min_samples_leaf

    def __repr__(self):
        return f"SubgroupSampler(max_depth={self.max_depth}, min_samples_leaf={self.min_samples_leaf!r})"

    #: Grow the trees with imlkit's numba CART (:mod:`imlkit._sampler_cart`, the same tree as
    #: scikit-learn's ``DecisionTreeRegressor``, ~10x cheaper per tree); False: scikit-learn's.
    #: Columns with missing values always use scikit-learn's tree (its missing-value routing).
    _numba_tree = True

    def _check_fit_data(self, X):
        self._levels = _column_levels(X)
        self._ordered = {c: bool(X[c].dtype.ordered) for c in self._levels
                         if isinstance(X[c].dtype, pd.CategoricalDtype)}
        self._codes = _encode_columns(X, list(X.columns), self._levels)
        # float32 once: what the tree converts to anyway; lets the fits skip validation
        self._codes32 = np.ascontiguousarray(self._codes, dtype=np.float32)
        self._has_nan = np.isnan(self._codes).any(axis=0)
        # The target block of every column, standardised once (a column's block does not
        # depend on which other columns are sampled with it).
        self._targets = [self._target_block(c, k) for k, c in enumerate(X.columns)]
        # every column's order and distinct values, shared by all numba trees: key None for all
        # fitted rows, 0 and 1 for the two halves of the cross-fitted draws (_halves)
        self._presorted = {}
        self._split = None
        self._trees = {}

    def _target_block(self, c, k):
        """Standardised target columns of column c: its value or rank, or one indicator per nominal level."""
        v = self._codes[:, k]
        if c in self._levels and not self._ordered.get(c, False):  # nominal: one indicator per level
            block = (v[:, None] == np.arange(len(self._levels[c]))[None, :]).astype(float)
        else:  # numeric, or ordered levels by their rank
            block = v[:, None]
        # Standardise so that no column dominates the (summed) split criterion.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column: its block is 0
            sd = np.nanstd(block, axis=0)
            mean = np.nanmean(block, axis=0)
        return np.nan_to_num((block - mean) / np.where(sd > 0, sd, 1.0))

    def _leaf_size(self, n_fit):
        leaf = self.min_samples_leaf
        if leaf == "auto":
            leaf = max(MIN_LEAF_ROWS, int(np.ceil(np.sqrt(n_fit))))
        return max(1, min(leaf, n_fit // 4))

    def leaf_rows(self, cross_fitted=False):
        """Fewest fitted rows a leaf of this sampler's trees holds: the ``min_samples_leaf`` its trees are grown with.

        Parameters
        ----------
        cross_fitted : bool, default False
            The trees of conditional SAGE's cross-fitted draws (:meth:`fit_row_indices`), each grown on half of
            the fitted rows (from :data:`_MIN_CROSS_FIT_ROWS` fitted rows on; fewer draw as CFI's tree does);
            False: the tree of :meth:`sample` (CFI), grown on every fitted row.

        Returns
        -------
        int
        """
        if not hasattr(self, "X_fit_"):
            raise ValidationError("This SubgroupSampler is not fitted yet; call fit(X) first.")
        n = len(self.X_fit_)
        leaf = self._leaf_size(n)
        if cross_fitted and n >= _MIN_CROSS_FIT_ROWS:
            leaf = min(leaf, max(1, (n // 2) // 4))   # as _grow sizes a half's tree
        return leaf

    def small_leaves_note(self, method="CFI"):
        """The caveat for rows of the fitted data that draw from their own leaves (in-sample) when those leaves hold
        fewer than :data:`MIN_LEAF_ROWS` rows (see there for why), else None.

        Rows that are not fitted rows draw honestly -- their own values chose no split and are not in the pool --
        and conditional SAGE's rows of 20 or more fitted rows draw cross-fitted (see Notes): the caller asks only
        for in-sample draws.

        Parameters
        ----------
        method : str
            The method named in the sentence ("CFI", "conditional SAGE").

        Returns
        -------
        str or None
        """
        leaf = self.leaf_rows()
        if leaf >= MIN_LEAF_ROWS:
            return None
        n = len(self.X_fit_)
        why = "min_samples_leaf" if self.min_samples_leaf != "auto" else "at most a quarter of them"
        return (f"The conditional sampler was fitted on {n:,} rows, the rows {method} explains among them, so "
                f"the leaves it draws from hold {leaf} rows ({why}), fewer than {MIN_LEAF_ROWS}. A leaf is cut "
                f"where the sampled feature's values change, and within {leaf} rows a row draws its own value, or "
                f"one chosen to be close to it, more often than a draw from the feature's conditional distribution "
                f"would: that shrinks {method} towards 0, by about 1/{leaf} = {100 / leaf:.0f}% from the leaf's "
                f"size alone and possibly much more (it can fall below 0), so a value near or below 0 is no "
                f"evidence that the feature adds nothing given the others. Fit the sampler on more rows of the same "
                f"features (no target needed), or on other rows than those explained.")

    def _tree(self, S):
        """(tree, leaf of every fitted row, r_idx, group codes 0..L-1) for the sampled set S; cached.

        The tree is a deterministic function of the fitted data and S. ``tree`` is a fitted
        scikit-learn tree or the node arrays of a :mod:`imlkit._sampler_cart` tree.
        """
        key = tuple(S)
        hit = self._trees.get(key)
        if hit is None:
            tree, leaves, r_idx, _, raw = self._grow(S, None)
            hit = self._trees[key] = (tree, raw, r_idx, leaves)
        return hit

    def _target(self, S):
        """The (standardised, possibly PCA-reduced) target block of the sampled set S, all fitted rows."""
        target = np.hstack([self._targets[k] for k in self._positions(S)])
        if target.shape[1] > _MAX_TARGETS:
            # The split criterion is the total within-leaf variance of the target; its leading
            # principal components carry most of it at a fraction of the cost per split.
            U, sv, _ = np.linalg.svd(target, full_matrices=False)
            target = U[:, :_MAX_TARGETS] * sv[:_MAX_TARGETS]
        return target

    def _positions(self, S):
        # positions by dict and membership by set: list.index / "in S" were O(p^2) per coalition
        # (2,308 genes: 8 of conditional SAGE's 14 s)
        where = {c: k for k, c in enumerate(self.X_fit_.columns)}
        return [where[c] for c in S]

    def _grow(self, S, half, target=None):
        """Grow the tree of S on the fitted rows (``half`` None) or on one of the two halves (0, 1).

        Returns ``(tree, leaves, r_idx, leaves_of, raw)``: the tree (node arrays of a numba tree or
        a fitted scikit-learn tree), the leaf 0..L-1 of each of its fitting rows, the conditioning
        columns, ``leaves_of(rows)``, the leaf 0..L-1 of other fitted rows under this tree, and
        the fitting rows' leaves as the tree's ``apply`` numbers them (= ``leaves`` for a numba tree).
        """
        cols = list(self.X_fit_.columns)
        inside = set(S)
        r_idx = [k for k in range(len(cols)) if cols[k] not in inside]
        if target is None:
            target = self._target(S)
        if half is None:
            codes32 = self._codes32
        else:
            rows = self._halves()[half]
            codes32, target = self._codes32[rows], target[rows]
        # a half's tree keeps the leaf size of the whole fitted data: its leaves hold as many
        # growing rows, and about as many rows of the other half to draw from, as one tree's would
        depth, leaf = self.max_depth, min(self._leaf_size(len(self._codes32)), max(1, len(codes32) // 4))
        if self._numba_tree and not self._has_nan[r_idx].any():
            from . import _sampler_cart as _cart

            if self._presorted.get(half) is None:
                self._presorted[half] = _cart.presort(codes32)
            leaves, arrays = _cart.grow(codes32, self._presorted[half], r_idx, target, depth, leaf)
            # leaves are numbered 0..L-1 and every leaf holds fitted rows: they are the codes
            leaves = leaves.astype(np.intp)
            return (arrays, leaves, r_idx, lambda other: _cart.apply(self._codes32[other], arrays).astype(np.intp),
                    leaves)
        from sklearn.tree import DecisionTreeRegressor

        Z = np.ascontiguousarray(codes32[:, r_idx])
        tree = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf, random_state=0)
        # Validated float32 input without missing values: skip sklearn's per-fit checks.
        # With NaN the checked path computes the missing-value mask the tree needs.
        trusted = not self._has_nan[r_idx].any()
        tree.fit(Z, np.ascontiguousarray(target, dtype=np.float64), check_input=not trusted)
        # Leaf ids -> 0..L-1 once, so that every later draw indexes small arrays.
        raw = tree.apply(Z, check_input=not trusted)
        ids, leaves = np.unique(raw, return_inverse=True)

        def leaves_of(other):
            other_ids = tree.apply(np.ascontiguousarray(self._codes32[np.ix_(other, r_idx)]), check_input=not trusted)
            return np.searchsorted(ids, other_ids).astype(np.intp)

        return tree, leaves.astype(np.intp).reshape(-1), r_idx, leaves_of, raw

    def _halves(self):
        """Two fixed halves of the fitted rows, by a permutation seeded with 0 (a function of n only)."""
        if self._split is None:
            n = len(self._codes32)
            perm = np.random.default_rng(0).permutation(n)
            self._split = (np.sort(perm[: n // 2]), np.sort(perm[n // 2:]))
        return self._split

    def _cross_fitted(self, S):
        """(order, start, count): the draw pool of every fitted row for the sampled set S; cached.

        The fitted rows are split into two fixed halves and a tree is grown on each (honest
        trees: one half chooses the splits, the other fills the leaves). Fitted row i draws from
        ``order[start[i] : start[i] + count[i]]``: the rows of the *other* half that fall in i's
        leaf of the tree grown on i's own half. The pool's values of S chose no split, and row i
        is not in it, so nothing of row i's own values of S reaches its draws. A leaf that no row
        of the other half reaches (rare: a leaf holds at least ⌈√n⌉ rows of the growing half, as
        many rows of the other half on average) draws from the growing half's rows of that leaf
        instead.
        """
        key = ("cross",) + tuple(S)
        hit = self._trees.get(key)
        if hit is not None:
            return hit
        n = len(self._codes32)
        target = self._target(S)
        halves = self._halves()
        start, count = np.empty(n, dtype=np.intp), np.empty(n, dtype=np.intp)
        orders, offset = [], 0
        for h in (0, 1):
            grown, other = halves[h], halves[1 - h]
            _, leaves, _, leaves_of, _ = self._grow(S, h, target)
            n_leaves = int(leaves.max()) + 1
            other_leaves = leaves_of(other)
            empty = np.bincount(other_leaves, minlength=n_leaves) == 0
            refill = empty[leaves]
            pool = np.concatenate([other, grown[refill]])
            pool_leaves = np.concatenate([other_leaves, leaves[refill]])
            order = np.argsort(pool_leaves, kind="stable")
            counts = np.bincount(pool_leaves, minlength=n_leaves)
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
            orders.append(pool[order])
            start[grown] = offset + starts[leaves]
            count[grown] = counts[leaves]
            offset += len(pool)
        hit = self._trees[key] = (np.concatenate(orders), start, count)
        return hit

    def fit_row_indices(self, rows, features, n_samples, rng, uniforms=None):
        """Draws for rows of the fitted data, as indices into it: cross-fitted (see Notes of the class).

        Row i draws uniformly (with replacement) from the rows of the other half of the fitted
        data in its leaf of the tree grown on its own half (:meth:`_cross_fitted`). Same signature
        and layout as :meth:`Sampler.fit_row_indices`; a set S of every column, or fewer than
        :data:`_MIN_CROSS_FIT_ROWS` fitted rows, draws as the base class does.
        """
        S = list(features)
        n = len(self.X_fit_)
        if len(S) == len(self.X_fit_.columns) or n < _MIN_CROSS_FIT_ROWS:
            return super().fit_row_indices(rows, features, n_samples, rng, uniforms)
        order, start, count = self._cross_fitted(S)
        rows = np.asarray(rows, dtype=np.intp)
        u = rng.random((n_samples, len(rows))) if uniforms is None else uniforms
        return order[start[rows] + (u * count[rows]).astype(np.intp)]

    def _fit_codes(self, S, rng):
        if len(S) == len(self.X_fit_.columns):
            return np.zeros(len(self.X_fit_), dtype=np.intp)
        return self._tree(S)[3]

    def _fit_groups(self, S, rng):
        # cached with the tree: conditional SAGE draws from the same coalition many times
        key = ("layout",) + tuple(S)
        hit = self._trees.get(key)
        if hit is None:
            hit = self._trees[key] = super()._fit_groups(S, rng)
        return hit

    def _group_codes(self, X, S, rng):
        n_fit = len(self.X_fit_)
        if len(S) == len(X.columns):
            return np.zeros(n_fit, dtype=np.intp), np.zeros(len(X), dtype=np.intp)
        tree, leaves_fit, r_idx, _ = self._tree(S)
        if self._is_fit_data(X):
            leaves_x = leaves_fit
        elif isinstance(tree, tuple):  # numba tree: splits index all columns
            from . import _sampler_cart as _cart

            leaves_x = _cart.apply(_encode_columns(X, list(X.columns), self._levels), tree)
        else:
            rest = [X.columns[k] for k in r_idx]
            leaves_x = tree.apply(_encode_columns(X, rest, self._levels))
        _, inv = np.unique(np.concatenate([leaves_fit, leaves_x]), return_inverse=True)
        return inv[:n_fit].astype(np.intp), inv[n_fit:].astype(np.intp)


class GaussianSampler(Sampler):
    """Exact conditional of a multivariate normal fitted to numeric data.

    With mean μ and covariance Σ estimated on the fitted data,

        X_S | X_-S = x  ~  N(μ_S + Σ_{S,-S} Σ_{-S,-S}^{-1} (x - μ_-S),
                             Σ_{S,S} - Σ_{S,-S} Σ_{-S,-S}^{-1} Σ_{-S,S}).

    Exact only when the data are multivariate normal: on other data (mixtures, skewed or
    bounded columns, non-linear dependence) the draws follow the wrong conditional, and
    CFI/conditional SAGE then measure extrapolation as well (on the course's mixture
    example CFI of a conditionally irrelevant feature is a third of its PFI). Draws are
    continuous, so integer and binary columns get values they never take. Every column must
    be numeric; a text or categorical column is an error naming it. Choose it explicitly
    (``sampler="gaussian"``) when the data are close to Gaussian; the default is
    :class:`SubgroupSampler`.
    """

    conditional = True

    def _check_fit_data(self, X):
        bad = [c for c in X.columns if not is_numeric_or_bool(X[c]) or X[c].dtype.kind == "m"]
        if bad:
            raise ValidationError(f"GaussianSampler needs numeric columns; column(s) {bad} are not numeric. "
                                  "Use SubgroupSampler or ConditionalPermutationSampler for mixed data.")
        A = X.to_numpy(dtype=float)
        if not np.isfinite(A).all():
            bad = [c for c, ok in zip(X.columns, np.isfinite(A).all(axis=0)) if not ok]
            raise ValidationError(f"GaussianSampler needs data without NaN or infinite values; column(s) {bad} "
                                  "have some. Use sampler='subgroup' (or 'auto'), or drop/impute those rows.")
        self.mean_ = A.mean(axis=0)
        self.cov_ = np.atleast_2d(np.cov(A, rowvar=False))

    def _fit_codes(self, S, rng):  # draws are not observed rows
        return None

    def common_noise(self, n_keys, n_samples, rng):
        """Standard normals per (row, draw, column): shape (n_keys, n_samples, p)."""
        return rng.standard_normal((n_keys, n_samples, self.X_fit_.shape[1]))

    def sample_with_noise(self, X, features, noise):
        """Draws of X_S | X_-S driven by column S's normals of ``noise`` (n, n_samples, p).

        The symmetric square root of the conditional covariance maps them to the draws, so a
        column of zero conditional variance adds a zero row and column to it and leaves the
        other columns' draws unchanged.
        """
        X, _ = check_X(X)
        S = list(features)
        cols = list(X.columns)
        s_idx = np.array([cols.index(c) for c in S])
        cond_mean, cond_cov = self._conditional(X, S)
        w, V = np.linalg.eigh((cond_cov + cond_cov.T) / 2)
        root = (V * np.sqrt(np.clip(w, 0, None))) @ V.T
        z = np.moveaxis(np.asarray(noise, dtype=float)[:, :, s_idx], 1, 0)  # (n_samples, n, |S|)
        draws = cond_mean[None] + z @ root.T
        return pd.DataFrame(draws.reshape(-1, len(s_idx)), columns=S)

    def _conditional(self, X, S):
        """Mean (n, |S|) and covariance (|S|, |S|) of X_S given the other columns of each row."""
        cols = list(X.columns)
        s_idx = np.array([cols.index(c) for c in S])
        r_idx = np.array([k for k in range(len(cols)) if cols[k] not in S], dtype=int)
        A = X.to_numpy(dtype=float)
        mu, cov = self.mean_, self.cov_
        if len(r_idx):
            c_rr = cov[np.ix_(r_idx, r_idx)]
            c_sr = cov[np.ix_(s_idx, r_idx)]
            # lstsq instead of inv: exact copies of a column make Σ_{-S,-S} singular.
            B = np.linalg.lstsq(c_rr, c_sr.T, rcond=None)[0].T
            cond_mean = mu[s_idx] + (A[:, r_idx] - mu[r_idx]) @ B.T
            cond_cov = cov[np.ix_(s_idx, s_idx)] - B @ c_sr.T
        else:
            cond_mean = np.broadcast_to(mu[s_idx], (len(A), len(s_idx)))
            cond_cov = cov[np.ix_(s_idx, s_idx)]
        return cond_mean, cond_cov

    def _sample(self, X, S, n_samples, rng):
        cond_mean, cond_cov = self._conditional(X, S)
        w, V = np.linalg.eigh((cond_cov + cond_cov.T) / 2)
        root = V * np.sqrt(np.clip(w, 0, None))
        z = rng.standard_normal((n_samples, len(cond_mean), len(S)))
        draws = cond_mean[None] + z @ root.T
        return pd.DataFrame(draws.reshape(-1, len(S)), columns=S)


_SAMPLERS = {
    "marginal": MarginalSampler,
    "permutation": ConditionalPermutationSampler,
    "subgroup": SubgroupSampler,
    "gaussian": GaussianSampler,
}
SAMPLER_NAMES = ("auto",) + tuple(_SAMPLERS)


def make_sampler(sampler, X_fit):
    """Resolve ``sampler`` (a name or a Sampler) and fit it on ``X_fit``.

    ``"auto"``: :class:`SubgroupSampler` (cs-PFI) with its defaults, for every data type:
    it assumes no distribution and draws only observed values. ``"gaussian"`` is exact only
    for multivariate normal data. An already fitted Sampler instance is used as it is.
    """
    if isinstance(sampler, Sampler):
        return sampler if hasattr(sampler, "X_fit_") else sampler.fit(X_fit)
    if not isinstance(sampler, str) or sampler not in SAMPLER_NAMES:
        allowed = ", ".join(repr(s) for s in SAMPLER_NAMES)
        raise ValidationError(f"'sampler' must be one of {allowed} or a Sampler instance; got {sampler!r}.")
    if sampler == "auto":
        sampler = "subgroup"
    return _SAMPLERS[sampler]().fit(X_fit)
