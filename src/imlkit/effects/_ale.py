"""Accumulated local effects (ALE), first order."""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats
from scipy.spatial import distance

from .._dtypes import has_levels
from .._options import CONFIDENCE_LEVEL, ENGINE, MAX_ROWS, OUTPUT, PROGRESS, SAMPLE_WEIGHT, Option, Spec, integer
from .._timing import Timer
from .._validation import ValidationError, check_int, check_X, resolve_feature
from ._grid import MIN_BAND_ROWS, check_sample_weight, make_predictor, observed_levels, resolve_output
from ._result import EffectResult

__all__ = ["ale"]


def _check_bins(name, bins, call):
    """A number of bins (an int >= 1), or the bin edges themselves (sorted, duplicates dropped)."""
    if np.ndim(bins) == 0:
        return check_int(name, bins, min_value=1)
    edges = np.unique(np.asarray(bins, dtype=float))
    if len(edges) < 2 or not np.isfinite(edges).all():
        raise ValidationError(f"'bins' as edges must hold at least 2 distinct finite values; got {len(edges)}.")
    return edges


#: ALE's options, in the order they are checked and recorded (defaults: the signature). They are
#: checked after X and the feature, as they always were.
SPEC = Spec(
    "ale",
    Option("bins", _check_bins, "intervals at quantiles of the feature (an int), or their edges",
           record=lambda bins: bins if np.ndim(bins) == 0 else "explicit"),
    Option("min_bin_size", integer(1), "rows a bin holds at least (neighbouring quantile edges merged)"),
    SAMPLE_WEIGHT, OUTPUT, CONFIDENCE_LEVEL, MAX_ROWS, PROGRESS, ENGINE,
)


def ale(model, X, feature, *, bins=20, min_bin_size=1, sample_weight=None, output=None, confidence_level=0.95,
        max_rows=None, progress=False, engine="auto"):
    """First-order accumulated local effects of one feature.

    Parameters
    ----------
    model : fitted estimator or callable
    X : DataFrame or array, shape (n, p)
    feature : str or int
    bins : int or array-like, default 20
        Number of quantile bins of a numeric feature (fewer when quantiles tie), or explicit
        bin edges (rows outside them fall into the first or last bin). The edges are data
        values, so a feature with d distinct values has at most d − 1 bins: a larger ``bins``
        gives exactly those (every distinct value an edge) at the cost of d, not of ``bins``;
        ``info["n_bins"]`` is the number used and ``info["bins_capped"]`` says when the
        data allowed fewer than asked.
    min_bin_size : int, default 1
        Bins with fewer rows are merged into a neighbour.
    sample_weight : array-like, shape (n,), optional
    output : None, "predict" or a class label
        ``None``: ``predict`` for a regressor; P(positive class) for a binary classifier; every
        class of a multi-class classifier (``average``, ``ci_low``, ``ci_high`` and the per-bin
        ``extra`` arrays get a last axis over ``extra["classes"]``). A class label:
        P(class = label). Same rule as ICE, PD, H-statistic and REPID.
    confidence_level : float, default 0.95
        Level of the pointwise band ``ci_low, ci_high``.
    max_rows : int, optional
    progress : bool
    engine : {"auto", "trees", "predict"}
        ``"auto"``: tree ensembles the tree engine supports (scikit-learn, LightGBM, XGBoost) are
        evaluated from their trees after a check against the model's own predictions: per bin
        only the trees with a node on the feature between the bin's edges are walked (between a
        level and its neighbours for a categorical feature); ``"trees"`` insists (an error otherwise);
        ``"predict"``: always the stacked predict. ``info["engine"]`` records which ran, and
        ``info["engine_note"]`` why a tree model was predicted instead.

    Returns
    -------
    EffectResult
        ``method="ale"``; ``grid`` holds the K+1 bin edges (the levels, in ALE order, for a
        categorical feature), ``average`` the centred ALE at them; ``ci_low``/``ci_high`` a band
        from the per-bin spread of the local effects (NaN at and beyond a bin of fewer than
        5 rows; see Notes); ``extra`` holds ``bin_count``,
        ``bin_effect`` (mean local difference) and ``bin_std`` per bin.

    Notes
    -----
    With bin edges z_0 < ... < z_K (type-1 quantiles of x_j) and N_k the rows in (z_{k-1}, z_k],

        g(z_k) = Σ_{l ≤ k} 1/|N_l| Σ_{i ∈ N_l} [f(z_l, x_{i,-j}) − f(z_{l-1}, x_{i,-j})],

    and ALE = g − c with c the mean of g over the data (each bin contributing the average of
    its two edges, as Apley & Zhu's ALEPlot does), so the ALE has mean zero. The band is
    ALE(z_k) ± t·sqrt(Σ_{l ≤ k} s_l² / |N_l|), with s_l the standard deviation of the local
    differences in bin l (bins are disjoint sets of rows, so their mean errors add in
    quadrature) and t the quantile of Student's t on the Welch-Satterthwaite degrees of
    freedom of that sum, (Σ v_l)² / Σ v_l² / (|N_l| − 1) with v_l = s_l² / |N_l|. The band is
    NaN at z_k when a bin l ≤ k holds fewer than ``MIN_BAND_ROWS`` = 5 rows (one row has no
    spread to estimate; two to four leave the spread and the normality a t band assumes
    unjudged). Both edges of every row are predicted in one stacked call of 2n rows, or, for
    a tree ensemble, from the trees with a node on the feature between the bin's edges: any
    other tree gives both edges the same leaf value, which cancels from the difference.

    A categorical feature has no order: its levels are ordered by how similar the other
    features are within them (R iml's rule: Kolmogorov-Smirnov distances for numeric and
    frequency differences for categorical features, summed and scaled to one dimension by
    classical MDS); ordered categoricals keep their order. The local effect between
    neighbouring levels averages the upward jumps of the lower level's rows and the downward
    jumps of the upper level's rows.

    References
    ----------
    Apley & Zhu (2020). Visualizing the effects of predictor variables in black box supervised
    learning models. JRSS B 82(4), 1059-1086.
    Molnar, Casalicchio & Bischl (2018). iml: an R package for interpretable machine learning. JOSS.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(size=(400, 2))
    >>> e = ale(lambda Z: 3 * Z[:, 0] + Z[:, 1] ** 2, X, 0, bins=10)
    >>> round(float(np.polyfit(e.grid, e.average, 1)[0]), 6)
    3.0
    """
    X, was_frame = check_X(X)
    name = resolve_feature(feature, X.columns)
    call = SPEC.check(locals())
    bins, min_bin_size, level = call["bins"], call["min_bin_size"], call["confidence_level"]
    w = check_sample_weight(sample_weight, len(X))
    w = np.ones(len(X)) if w is None else w
    kind, column, label, classes = resolve_output(model, output)
    predictor = make_predictor(model, kind, was_frame, max_rows)
    params = SPEC.record(call)

    def use_engine():  # called by the _ale_* functions once the feature's values passed their checks
        params.update(predictor.use_engine(X, engine, [name]))
    with Timer() as timer:
        if has_levels(X[name]):
            out = _ale_categorical(predictor, X, name, w, column, level, progress, use_engine)
        else:
            out = _ale_numeric(predictor, X, name, bins, min_bin_size, w, column, level, progress, use_engine)
    params["seconds"] = timer.seconds
    params["n_rows"] = len(X)   # ALE costs 2n (categorical: 3n) predictions: every row is used
    grid, average, low, high, extra, categorical = out
    if not categorical:
        params["n_bins"] = len(grid) - 1
        n_distinct = len(np.unique(X[name].to_numpy(dtype=float)))
        if np.ndim(bins) == 0 and bins > n_distinct - 1:
            params["bins_capped"] = (f"bins={bins} asks for more bins than the {n_distinct} distinct values of "
                                     f"{name!r} allow (at most {n_distinct - 1}); every distinct value is a bin "
                                     f"edge: {len(grid) - 1} bins.")
    if column == "all":
        extra["classes"] = classes
    return EffectResult(method="ale", feature_names=(name,), grid=grid, average=average, ci_low=low, ci_high=high,
                        feature_values=X[name].to_numpy(), categorical=categorical, output=label, params=params,
                        extra=extra)


def _bin_edges(x, bins, min_bin_size):
    """Quantile edges with every bin (z_{k-1}, z_k] (the first closed) holding >= min_bin_size rows."""
    if np.ndim(bins):
        edges = bins
    else:
        # Type-1 quantiles (the inverse empirical cdf), as ALEPlot and iml use: edges are data values.
        # The quantile at k/B is the ceil(n·k/B)-th smallest value; for B >= n those indices step
        # by n/B <= 1 and so hit every order statistic: any B >= n gives the sorted distinct
        # values. Taking them directly bounds the work by the data (bins=10**9 would otherwise ask
        # for 10**9 quantiles) and avoids the rounding of n·k/B, which at B = n can skip a value.
        if bins >= len(x):
            edges = np.unique(x)
        else:
            edges = np.unique(np.quantile(x, np.linspace(0, 1, bins + 1), method="inverted_cdf"))
    if len(edges) < 2:
        return edges
    while len(edges) > 2:
        counts = np.bincount(_bin_index(x, edges), minlength=len(edges))[1:]
        small = np.flatnonzero(counts < min_bin_size)
        if not len(small):
            break
        k = small[0]
        # Merge the bin with its right neighbour by dropping its upper edge (the last bin: its lower).
        edges = np.delete(edges, k + 1 if k + 1 < len(edges) - 1 else k)
    return edges


def _bin_index(x, edges):
    """Bin k in 1..K of each value: z_{k-1} < x <= z_k, with z_0 itself in bin 1."""
    return np.clip(np.searchsorted(edges, x, side="left"), 1, len(edges) - 1)


def _weighted_stats(d, k, w, K):
    """Weighted mean, std and count of ``d`` by bin ``k`` in 0..K-1."""
    W = np.bincount(k, weights=w, minlength=K)
    cnt = np.bincount(k, minlength=K)
    mean = np.bincount(k, weights=w * d, minlength=K) / np.where(W > 0, W, 1)
    var = np.bincount(k, weights=w * (d - mean[k]) ** 2, minlength=K) / np.where(W > 0, W, 1)
    # Unbiased-like correction only where a bin has more than one row.
    var = np.where(cnt > 1, var * cnt / np.maximum(cnt - 1, 1), 0.0)
    return mean, np.sqrt(var), cnt, W


def _by_class(fn, d, *args):
    """Apply ``fn(d_c, *args) -> tuple of arrays`` to each class column of ``d`` (n, C) and
    stack the results on a last axis; a 1-D ``d`` is passed through."""
    if d.ndim == 1:
        return fn(d, *args)
    parts = [fn(d[:, c], *args) for c in range(d.shape[1])]
    return tuple(np.stack(p, axis=-1) for p in zip(*parts))




def _band_half_widths(std, cnt, level):
    """Half-widths of the pointwise band of the accumulated local effect at the K+1 edges (index 0: the first edge,
    where the accumulation starts, half-width 0).

    The accumulated effect at edge k sums the mean local differences of intervals 1..k, each with variance
    v_l = s_l² / n_l (disjoint rows, so they add); the quantile is Student's t on the Welch-Satterthwaite degrees of
    freedom of that sum, (Σ v_l)² / Σ v_l² / (n_l − 1) (where every v_l is 0 the half-width is 0 whatever the
    quantile). NaN at and beyond an interval with fewer than :data:`MIN_BAND_ROWS` rows.
    """
    cnt = np.asarray(cnt, dtype=float)
    v = np.where(cnt > 1, std ** 2 / np.maximum(cnt, 1), 0.0)
    var = np.concatenate([[0.0], np.cumsum(v)])
    denom = np.concatenate([[0.0], np.cumsum(np.where(cnt > 1, v ** 2 / np.maximum(cnt - 1, 1), 0.0))])
    pooled = np.concatenate([[1.0], np.cumsum(np.maximum(cnt - 1, 0))])
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(denom > 0, var ** 2 / denom, np.maximum(pooled, 1.0))
    half = stats.t.ppf(0.5 + level / 2, df) * np.sqrt(var)
    small = np.concatenate([[False], np.cumsum(cnt < MIN_BAND_ROWS) > 0])
    return np.where(small, np.nan, half)


def _numeric_curve(d, k, w, K, level):
    mean, std, cnt, W = _weighted_stats(d, k, w, K)
    acc = np.concatenate([[0.0], np.cumsum(mean)])
    center = np.sum(W * (acc[:-1] + acc[1:]) / 2) / W.sum()
    return acc - center, _band_half_widths(std, cnt, level), mean, std


def _categorical_curve(d, k, ww, L, W_level, level):
    mean, std, cnt, _ = _weighted_stats(d, k, ww, L - 1)
    acc = np.concatenate([[0.0], np.cumsum(mean)])
    return acc - np.sum(W_level * acc) / W_level.sum(), _band_half_widths(std, cnt, level), mean, std


def _missing_error(name, n_bad, what):
    return ValidationError(f"Feature {name!r} has {n_bad} missing or infinite value(s); ALE needs {what} of the "
                           f"feature: drop the rows with missing {name!r} (e.g. X.dropna(subset=[{name!r}])) "
                           f"or impute it.")


def _ale_numeric(predictor, X, name, bins, min_bin_size, w, column, level, progress, use_engine):
    x = X[name].to_numpy(dtype=float)
    if not np.isfinite(x).all():
        raise _missing_error(name, int((~np.isfinite(x)).sum()), "finite values")
    edges = _bin_edges(x, bins, min_bin_size)
    if len(edges) < 2:
        raise ValidationError(f"Feature {name!r} is constant; an effect needs at least 2 distinct values.")
    K = len(edges) - 1
    k = _bin_index(x, edges)
    use_engine()
    pred = predictor.local_predictions(X, name, np.stack([edges[k - 1], edges[k]]), column=column,
                                       context=f"the bin edges of feature {name!r}", progress=progress)
    d = pred[1] - pred[0]                       # (n,) or (n, C); a row's constant cancels
    average, half, mean, std = _by_class(_numeric_curve, d, k - 1, w, K, level)
    cnt = np.bincount(k - 1, minlength=K)
    extra = dict(bin_count=cnt, bin_effect=mean, bin_std=std, edges=edges)
    return edges, average, average - half, average + half, extra, False


def _ale_categorical(predictor, X, name, w, column, level, progress, use_engine):
    s = X[name]
    if s.isna().any():
        raise _missing_error(name, int(s.isna().sum()), "complete values")
    levels = observed_levels(s)
    if len(levels) < 2:
        raise ValidationError(f"Feature {name!r} is constant (one level); an effect needs at least 2 "
                              f"distinct values.")
    ordered = isinstance(s.dtype, pd.CategoricalDtype) and s.dtype.ordered
    order = np.arange(len(levels)) if ordered else order_levels(X, name, levels)
    levels = levels[order]
    L = len(levels)
    pos = pd.Index(levels.tolist()).get_indexer(s.astype(object).tolist())
    up = levels[np.minimum(pos + 1, L - 1)]
    down = levels[np.maximum(pos - 1, 0)]
    use_engine()
    pred = predictor.local_predictions(X, name, np.stack([levels[pos], up, down]), column=column,
                                       context=f"the neighbouring levels of feature {name!r}", progress=progress)
    # Interval k joins levels k and k+1: upward jumps from level k, downward jumps from level k+1.
    has_up, has_down = pos < L - 1, pos > 0
    d = np.concatenate([(pred[1] - pred[0])[has_up], (pred[0] - pred[2])[has_down]])
    k = np.concatenate([pos[has_up], pos[has_down] - 1])
    ww = np.concatenate([w[has_up], w[has_down]])
    W_level = np.bincount(pos, weights=w, minlength=L)
    average, half, mean, std = _by_class(_categorical_curve, d, k, ww, L, W_level, level)
    cnt = np.bincount(k, minlength=L - 1)
    extra = dict(bin_count=cnt, bin_effect=mean, bin_std=std, level_count=np.bincount(pos, minlength=L),
                 level_order="category order" if ordered else "similarity (MDS)")
    return levels, average, average - half, average + half, extra, True


def order_levels(X, name, levels):
    """Order the levels of a nominal feature by the similarity of the other features within them.

    Returns the permutation of ``levels`` (positions) along the first classical-MDS coordinate
    of the summed distances: Kolmogorov-Smirnov statistics between the levels' distributions
    of each numeric feature, summed absolute frequency differences for categorical ones.

    Cost per numeric feature O(L · n log n) time and O(n + L²) memory (one pass over the rows
    per level, all pairs of levels at once); per categorical feature with K levels O(n + L² K)
    time and O(L K + L²) memory.
    """
    L = len(levels)
    codes = pd.Index(levels.tolist()).get_indexer(X[name].astype(object).tolist())
    D = np.zeros((L, L))
    for col in X.columns:
        if col == name:
            continue
        s = X[col]
        if has_levels(s):
            other, uniq = pd.factorize(s.astype(object).fillna("NaN"))
            K = len(uniq)
            tab = np.bincount(codes * K + other, minlength=L * K).reshape(L, K).astype(float)
            tab = tab / np.maximum(tab.sum(axis=1, keepdims=True), 1)
            D += distance.cdist(tab, tab, "cityblock")
        else:
            D += _ks_matrix(s.to_numpy(dtype=float), codes, L)
    J = np.eye(L) - 1.0 / L
    B = -0.5 * J @ (D ** 2) @ J
    vals, vecs = np.linalg.eigh(B)
    coord = vecs[:, -1]
    if coord[-1] < coord[0]:  # eigenvector sign is arbitrary: keep the given first level first
        coord = -coord
    return np.argsort(coord, kind="stable")


def _ks_matrix(v, codes, L):
    """Two-sample Kolmogorov-Smirnov statistics between the levels' values, (L, L).

    KS(a, b) = sup_x |F_a(x) − F_b(x)| is attained at a data point of a or b, so with
    M[a, b] = max over the points x_i of level b of |F_a(x_i) − F_b(x_i)|, KS = max(M, M').
    Row a of M takes one ``searchsorted`` of all n values into level a's sorted values and a
    grouped maximum, so no Python loop runs over pairs of levels. Pairs where a level has no
    finite value get 0.
    """
    ok = np.isfinite(v)
    v, c = v[ok], codes[ok]
    order = np.lexsort((v, c))                  # by level, then value
    v, c = v[order], c[order]
    counts = np.bincount(c, minlength=L)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    # F_{c_i}(v_i) of each point in its own level (right-continuous: ties count): the last
    # position of its (level, value) pair, from a key that increases along the sort order.
    _, rank = np.unique(v, return_inverse=True)
    key = c.astype(np.int64) * (int(rank.max(initial=0)) + 1) + rank.ravel()
    own = (np.searchsorted(key, key, side="right") - starts[c]) / counts[c]
    present = np.flatnonzero(counts)
    M = np.zeros((L, L))
    for a in present:
        Fa = np.searchsorted(v[starts[a]:starts[a] + counts[a]], v, side="right") / counts[a]
        M[a, present] = np.maximum.reduceat(np.abs(Fa - own), starts[present])
    return np.maximum(M, M.T)
