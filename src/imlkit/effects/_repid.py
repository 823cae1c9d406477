"""REPID: regional effect plots that split the data where the ICE curves differ in shape."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._display import ResultDisplay
from .._dtypes import has_levels
from .._options import (
    ENGINE,
    GRID_TYPE,
    MAX_ROWS,
    N_SAMPLES,
    OUTPUT,
    PROGRESS,
    RANDOM_STATE,
    Option,
    Spec,
    integer,
    number,
)
from .._parallel import rng_of
from .._timing import Timer
from .._validation import ValidationError, check_X, resolve_feature, resolve_features
from ._grid import ice_matrix, make_grid, make_predictor, output_precision, resolve_output, subsample_rows
from ._ice import DEFAULT_N_SAMPLES
from ._result import OneFeatureSlicing

__all__ = ["repid", "RegionalResult", "RegionNode", "Region"]

#: REPID's rounding floor, relative to the effect's size: centred ICE curves whose root-mean-square spread is
#: at most this share of the largest range of an ICE curve are equal up to rounding (an additive model).
ROUNDING = 1e-9
#: ... and at most this many machine epsilons of the largest |prediction| (a feature with no effect: every
#: curve flat, so the range above is itself rounding).
ROUNDING_EPS = 64


@dataclass(frozen=True)
class RegionNode:
    """One node of the REPID tree.

    ``kind`` is ``"numeric"`` (left: x_z <= threshold), ``"ordinal"`` (ordered categorical
    codes, left: code <= threshold) or ``"nominal"`` (left: x_z == level); None for a leaf.
    ``int_imp`` is the split's improvement relative to the root risk.
    """

    id: int
    depth: int
    n: int
    risk: float
    parent: int | None
    rule: tuple = ()
    feature: str | None = None
    kind: str | None = None
    threshold: float | None = None
    level: object = None
    categories: tuple | None = None
    int_imp: float | None = None
    left: int | None = None
    right: int | None = None

    @property
    def is_leaf(self):
        return self.feature is None

    def condition(self, side):
        """The rule text of the left (``"left"``) or right child."""
        f = self.feature
        if self.kind == "nominal":
            return f"{f} == {self.level!r}" if side == "left" else f"{f} != {self.level!r}"
        if self.kind == "ordinal":
            k = int(np.floor(self.threshold))
            return f"{f} <= {self.categories[k]!r}" if side == "left" else f"{f} >= {self.categories[k + 1]!r}"
        return f"{f} <= {self.threshold:.4g}" if side == "left" else f"{f} > {self.threshold:.4g}"


@dataclass(frozen=True)
class Region:
    """A leaf of the REPID tree with its regional effect.

    Attributes
    ----------
    id : int
        Position in ``RegionalResult.regions`` (what ``apply`` returns).
    node : int
        Node id in the tree.
    rule : str
    n : int
    average : ndarray, shape (m,)
        Regional PD: the mean of the uncentred ICE curves of the region's rows.
    centered_average, centered_std : ndarray, shape (m,)
        Mean and standard deviation of the region's c-ICE curves per grid point.
    risk : float
        R(region) = Σ_i Σ_k (ĉ_ik − mean_k)².
    heterogeneity : float
        risk / (n · m): the mean squared deviation of the c-ICE curves from their mean.
    """

    id: int
    node: int
    rule: str
    n: int
    average: np.ndarray
    centered_average: np.ndarray
    centered_std: np.ndarray
    risk: float
    heterogeneity: float


@dataclass(frozen=True)
class RegionalResult(OneFeatureSlicing, ResultDisplay):
    """Regional effects of one feature found by REPID.

    Attributes
    ----------
    feature : str
    grid : ndarray, shape (m,)
    average : ndarray, shape (m,)
        The global PD.
    tree : tuple of RegionNode
        Node 0 is the root.
    regions : tuple of Region
        The leaves, in breadth-first order of their nodes (left before right).
    interaction_scores : Series
        Sum of ``int_imp`` over the splits on each split feature (0 for unused ones), descending.
    split_features : tuple of str
    categorical : bool
    output : str
    params, extra : dict
        ``extra``: ``root_risk``, ``centered_std``, ``rounding_floor`` (τ of :func:`repid`'s Notes: a node whose
        centred curves' root mean square is at most τ is never split), ``rounding_dtype`` and ``rounding_eps``
        (the dtype of the model's own predictions and the machine epsilon τ used) and ``equal_up_to_rounding``
        (the root is, so the tree is the root alone: an additive effect); ``row_effect_within`` and
        ``row_effect_within_max`` (how far each row's own effect is from its region's: the root mean square over
        the rows, and the largest, of the range over the grid of the row's centred curve minus its region's, see
        :func:`row_effect_spread`; per class for several classes), and ``row_effect_total``,
        ``row_effect_total_max`` (the same around the overall curve).
    info : dict
        What happened: ``seconds``, ``n_rows`` (the rows the tree was grown on), ``engine``
        (see :data:`imlkit._record.HAPPENED`).
    """

    feature: str
    grid: np.ndarray
    average: np.ndarray
    tree: tuple
    regions: tuple
    interaction_scores: pd.Series
    split_features: tuple
    categorical: bool = False
    output: str | None = None
    params: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    method: str = "repid"
    info: dict = field(default_factory=dict)

    @property
    def feature_names(self):
        return (self.feature,)

    def to_frame(self):
        """One row per region: ``rule, n, risk, heterogeneity`` (index: region id)."""
        return pd.DataFrame({"rule": [r.rule for r in self.regions], "n": [r.n for r in self.regions],
                             "risk": [r.risk for r in self.regions],
                             "heterogeneity": [r.heterogeneity for r in self.regions]},
                            index=pd.Index([r.id for r in self.regions], name="region"))

    def curves(self):
        """Long table of the global and regional PDs: ``region, rule, <feature>, average``
        (and ``class`` for a multi-class result)."""
        def frame(region, rule, avg):
            avg = np.asarray(avg)
            if avg.ndim == 1:
                return pd.DataFrame({"region": region, "rule": rule, self.feature: self.grid, "average": avg})
            classes = self.extra.get("classes", range(avg.shape[1]))
            return pd.concat([pd.DataFrame({"region": region, "rule": rule, "class": c, self.feature: self.grid,
                                            "average": avg[:, k]}) for k, c in enumerate(classes)],
                             ignore_index=True)

        frames = [frame(-1, "all", self.average)] + [frame(r.id, r.rule, r.average) for r in self.regions]
        return pd.concat(frames, ignore_index=True)

    def tree_text(self):
        """The tree as indented text with n, risk and each split's intImp."""
        lines = []
        by_id = {nd.id: nd for nd in self.tree}

        def walk(nd, prefix, label):
            head = f"{prefix}{label}n={nd.n}, risk={nd.risk:.4g}"
            if not nd.is_leaf:
                head += f", split on {nd.feature} (intImp={nd.int_imp:.3f})"
            lines.append(head)
            if not nd.is_leaf:
                walk(by_id[nd.left], prefix + "  ", nd.condition("left") + ": ")
                walk(by_id[nd.right], prefix + "  ", nd.condition("right") + ": ")

        walk(by_id[0], "", "root: ")
        return "\n".join(lines)

    def __str__(self):
        return f"REPID regions of {self.feature!r}\n" + self.tree_text()

    def apply(self, X):
        """Region id (position in ``regions``) of each row of ``X``.

        Returns
        -------
        ndarray of int, shape (n,)
        """
        X, _ = check_X(X)
        missing = [c for c in self.split_features if c not in X.columns]
        if missing:
            raise ValidationError(f"'X' lacks the split feature(s) {missing} used by this REPID tree.")
        leaf_region = {r.node: r.id for r in self.regions}
        node = np.zeros(len(X), dtype=int)
        for nd in self.tree:  # nodes are stored parent before child
            if nd.is_leaf:
                continue
            here = node == nd.id
            if not here.any():
                continue
            z = _split_values(X[nd.feature], nd.kind, nd.categories)
            if nd.kind == "nominal":
                go_left = z == nd.level
            else:
                go_left = z <= nd.threshold
            node[here & go_left] = nd.left
            node[here & ~go_left] = nd.right
        return np.array([leaf_region[k] for k in node], dtype=int)

    def explain(self):
        """The splits REPID found, the heterogeneity before and after them, the regions' curves, and -- when no
        split was made -- which rule stopped it, with its numbers."""
        from ._explain import explain_regional

        return explain_regional(self)

    def plot(self, *, ax=None, **kwargs):
        """Global PD beside each region's PD with its c-ICE band, and the tree as text."""
        from ..plotting import plot_regional

        if np.ndim(self.average) > 1:
            raise ValidationError("This REPID result holds every class of a multi-class model; the plot "
                                  "draws one curve per region: use curves(), or repid(..., output=<class>) "
                                  f"with one of {list(self.extra.get('classes', []))}.")

        return plot_regional(self, ax=ax, **kwargs)

    __repr__ = ResultDisplay.__repr__  # the dataclass would print the arrays


#: REPID's options, in the order they are recorded (defaults: the signature). They are checked after X,
#: the feature and ``split_features`` (recorded as the resolved columns).
SPEC = Spec(
    "repid",
    Option("split_features", None, "the features the regions may split on (None: every other column); resolved "
           "against X's columns"),
    Option("grid", None, "grid points of the regional PD curves (an int) or the points; checked by make_grid",
           record=lambda grid: grid if np.isscalar(grid) else "explicit"),
    Option("max_depth", integer(1), "depth of the tree of regions"),
    Option("min_node_size", integer(1), "rows a region holds at least"),
    Option("min_improvement", number(0.0), "γ: a split must improve by γ (times its parent split's improvement)"),
    GRID_TYPE, OUTPUT, MAX_ROWS, PROGRESS, ENGINE, N_SAMPLES, RANDOM_STATE,
)


def repid(model, X, feature, *, split_features=None, grid=20, max_depth=3, min_node_size=30, min_improvement=0.1,
          grid_type="quantile", output=None, max_rows=None, progress=False, engine="auto", n_samples=None,
          random_state=None):
    """Regional effect plots with implicit interaction detection (REPID).

    Parameters
    ----------
    model : fitted estimator or callable
    X : DataFrame or array, shape (n, p)
    feature : str or int
        The feature whose effect is split into regions.
    split_features : None, name, index or list
        Candidate split features (default: all others).
    grid : int or array-like, default 20
    max_depth : int, default 3
    min_node_size : int, default 30
        Fewest rows in a child.
    min_improvement : float, default 0.1
        γ: the root splits only if intImp >= γ; a deeper node only if its intImp >= γ × the
        intImp of its parent's split.
    grid_type : {"quantile", "uniform"}
    output : None, "predict" or a class label
        ``None``: ``predict`` for a regressor; P(positive class) for a binary classifier; for a
        multi-class classifier the tree is grown on the vector of class probabilities (the
        risk sums the squared deviations over the classes) and ``average`` and each region's
        curves get a last axis over ``extra["classes"]``. A class label: P(class = label). Same
        rule as ICE, PD, ALE and the H-statistic.
    max_rows : int, optional
    progress : bool
    engine : {"auto", "trees", "predict"}
        ``"auto"``: tree ensembles the tree engine supports are evaluated from their trees (one
        walk per tree and row for a whole grid) after a check against the model's own
        predictions; ``"predict"``: always the stacked predict. ``info["engine"]`` records
        which ran.
    n_samples : int, optional
        Rows whose ICE curves grow the tree, drawn without replacement. ``None`` (default): all
        rows when there are at most 10,000 (``DEFAULT_N_SAMPLES``, as for ICE and PD), else a
        subsample of 10,000 drawn with ``random_state``; pass ``n_samples=len(X)`` for every
        row. The nodes' ``n`` count these rows; ``info["n_rows"]`` records how many.
    random_state : None, int or Generator
        Only used to draw the ``n_samples`` rows.

    Returns
    -------
    RegionalResult

    Notes
    -----
    With ĉ_ik the mean-centred ICE curve of row i at grid point k (the curve minus its own
    mean over the grid), the risk of a node N is

        R(N) = Σ_{i∈N} Σ_k (ĉ_ik − mean_{N,k})²,

    and a node is split at the feature z and threshold t minimising R(left) + R(right). With
    T = Σ_{i∈N} ‖ĉ_i‖² and S_L, S_R the column sums of the curves in the children,

        R(L) + R(R) = T − ‖S_L‖²/n_L − ‖S_R‖²/n_R,

    so every threshold of z is scored at once from prefix sums over the rows sorted by z
    (O(n log n + n m) per feature). Splits are at midpoints between adjacent distinct values;
    ordered categoricals split on their codes, nominal ones one level against the rest. The
    improvement of a split is intImp = (R(N) − R(L) − R(R)) / R(root); the interaction score
    of a feature is the sum of the intImp of its splits. The regional PD is the mean of the
    uncentred ICE curves of a leaf's rows.

    intImp is relative, so it needs an absolute floor: when every centred ICE curve is the same
    up to rounding (an additive model, e.g. a linear regression), the ratio of two rounding
    errors can be any number (intImp in the hundreds). A node is therefore split only when the
    root mean square of its centred curves around their mean, sqrt(R(N) / (n_N · m)), exceeds

        τ = max(ROUNDING · max_i (max_k f_ik − min_k f_ik),  ROUNDING_EPS · ε · max_ik |f_ik|),

    with f_ik the uncentred ICE curves of the rows the tree is grown on, ``ROUNDING`` = 1e-9,
    ``ROUNDING_EPS`` = 64 and ε the machine epsilon of the model's own predictions before
    imlkit casts them to float64 (float64: 2.2e-16; a model that predicts in float32, such as
    xgboost: 1.2e-7, so its float32 rounding is not split as regions): the first term is the
    effect's size (the largest range of one curve, which a pure interaction keeps even when the
    PD is flat), the second the rounding of the predictions themselves. The dtype is read from
    one extra prediction of two rows. ``extra["rounding_floor"]`` holds τ,
    ``extra["rounding_dtype"]`` and ``extra["rounding_eps"]`` the dtype and ε it used, and
    ``extra["equal_up_to_rounding"]`` whether the root is at or below τ (then the tree is the
    root alone).

    References
    ----------
    Herbinger, Bischl & Casalicchio (2022). REPID: Regional effect plots with implicit
    interaction detection. AISTATS, PMLR 151.

    Examples
    --------
    >>> import imlkit as ik
    >>> X, _ = ik.datasets.make_regional(600, random_state=1)
    >>> r = repid(ik.datasets.regional_function, X, "x2", max_depth=1)
    >>> r.tree[0].feature, len(r.regions)
    ('x3', 2)
    """
    X, was_frame = check_X(X)
    if len(X) < 2:
        raise ValidationError("repid needs at least 2 rows of X to split into regions; got 1 row.")
    name = resolve_feature(feature, X.columns)
    if split_features is None:
        splits = [c for c in X.columns if c != name]
    else:
        splits = list(resolve_features(split_features, X.columns, "split_features", allow_groups=False))
        if name in splits:
            raise ValidationError(f"'split_features' must not contain the feature {name!r} itself.")
    if not splits:
        raise ValidationError("'split_features' is empty: REPID needs at least one other feature to split on.")
    call = SPEC.check(locals())
    max_depth, min_node_size, gamma = call["max_depth"], call["min_node_size"], call["min_improvement"]
    n_samples, seed = call["n_samples"], call["seed"]
    values, categorical = make_grid(X[name], grid, grid_type)
    # The grid comes from every row; the curves (n × m predictions) from at most n_samples.
    rows = subsample_rows(len(X), DEFAULT_N_SAMPLES if n_samples is None else n_samples, rng_of(seed))
    if len(rows) < len(X):
        X = X.iloc[rows].reset_index(drop=True)
    kind, column, label, classes = resolve_output(model, output)
    predictor = make_predictor(model, kind, was_frame, max_rows)
    encoded = {}
    for c in splits:
        z, zkind, cats = _encode(X[c])
        encoded[c] = (z, zkind, cats)
    params = dict(SPEC.record(call), split_features=splits, n_rows=len(X), **predictor.use_engine(X, engine, [name]))
    dtype, eps = output_precision(predictor, X)

    with Timer() as timer:
        F = ice_matrix(predictor, X, name, values, column=column, progress=progress)   # (n, m[, C])
        C = F - F.mean(axis=1, keepdims=True)
        # Several classes: the risk sums over grid points and classes, so the tree is grown on
        # the curves laid side by side, (n, m·C).
        floor = rounding_floor(F, eps)
        nodes = _split_regions(C.reshape(len(C), -1), encoded, splits, max_depth, min_node_size, gamma, floor)
    params["seconds"] = timer.seconds
    tree = tuple(nd for nd, _ in nodes)
    regions = []
    m = int(np.prod(C.shape[1:]))
    for nd, rows in nodes:
        if not nd.is_leaf:
            continue
        cc = C[rows]
        regions.append(Region(id=len(regions), node=nd.id, rule=" & ".join(nd.rule) or "all", n=len(rows),
                              average=F[rows].mean(axis=0), centered_average=cc.mean(axis=0),
                              centered_std=cc.std(axis=0), risk=nd.risk,
                              heterogeneity=nd.risk / (len(rows) * m)))
    within, within_max = row_effect_spread(C, [rows for nd, rows in nodes if nd.is_leaf])
    total, total_max = row_effect_spread(C, [np.arange(len(C))])
    scores = pd.Series(0.0, index=pd.Index(splits, name="feature"), name="interaction_score")
    for nd in tree:
        if not nd.is_leaf:
            scores[nd.feature] += nd.int_imp
    scores = scores.sort_values(ascending=False, kind="stable")
    return RegionalResult(feature=name, grid=values, average=F.mean(axis=0), tree=tree, regions=tuple(regions),
                          interaction_scores=scores, split_features=tuple(splits), categorical=categorical,
                          output=label, params=params,
                          extra={"root_risk": tree[0].risk, "centered_std": C.std(axis=0),
                                 "rounding_floor": floor, "rounding_dtype": dtype, "rounding_eps": eps,
                                 "equal_up_to_rounding": bool(_rms(tree[0].risk, len(C), m) <= floor),
                                 "row_effect_within": within, "row_effect_within_max": within_max,
                                 "row_effect_total": total, "row_effect_total_max": total_max,
                                 **({"classes": classes} if column == "all" else {})})


def _encode(s):
    """A split feature as (values, kind, categories): numeric, ordinal codes or nominal codes."""
    name = s.name
    if s.isna().any():
        raise ValidationError(f"Split feature {name!r} has {int(s.isna().sum())} missing value(s); REPID needs "
                              f"complete split features: drop the rows with missing {name!r}, impute it, or "
                              f"leave it out of 'split_features'.")
    if isinstance(s.dtype, pd.CategoricalDtype):
        cats = tuple(s.cat.categories.tolist())
        codes = s.cat.codes.to_numpy().astype(float)
        return codes, ("ordinal" if s.dtype.ordered else "nominal"), cats
    if has_levels(s):
        codes, uniq = pd.factorize(s, sort=True)
        return codes.astype(float), "nominal", tuple(uniq.tolist())
    return s.to_numpy(dtype=float), "numeric", None


def _split_values(s, kind, categories):
    """Values of a split feature in new data, on the scale the tree's thresholds use."""
    if kind == "numeric":
        return s.to_numpy(dtype=float)
    if kind == "ordinal":
        codes = pd.Categorical(s, categories=list(categories)).codes.astype(float)
        return np.where(codes < 0, np.nan, codes)
    return s.astype(object).to_numpy()


def best_numeric_split(C, z, min_node_size):
    """Best threshold of one ordered split feature by prefix sums.

    Parameters
    ----------
    C : ndarray, shape (n, m)
        The node's c-ICE curves.
    z : ndarray, shape (n,)
    min_node_size : int

    Returns
    -------
    (risk, threshold) : the smallest R(left) + R(right) and the midpoint threshold, or None
    when no threshold leaves ``min_node_size`` rows on both sides.
    """
    n = len(z)
    if n < 2 * min_node_size:
        return None
    order = np.argsort(z, kind="stable")
    zs = z[order]
    # Centring by the node mean leaves the risks unchanged and keeps T − ‖S‖²/n well conditioned.
    Cs = C[order] - C.mean(axis=0)
    T = float(np.einsum("ij,ij->", Cs, Cs))
    SL = np.cumsum(Cs, axis=0)[:-1]
    SR = -SL  # total column sums are 0 after centring
    nL = np.arange(1, n, dtype=float)
    nR = n - nL
    ok = (zs[:-1] < zs[1:]) & (nL >= min_node_size) & (nR >= min_node_size)
    if not ok.any():
        return None
    gain = np.einsum("ij,ij->i", SL, SL) / nL + np.einsum("ij,ij->i", SR, SR) / nR
    gain[~ok] = -np.inf
    i = int(np.argmax(gain))
    return max(T - float(gain[i]), 0.0), float((zs[i] + zs[i + 1]) / 2)


def best_nominal_split(C, codes, min_node_size):
    """Best one-level-versus-rest split of a nominal feature given as integer codes.

    Returns (risk, level code) or None.
    """
    n = len(codes)
    if n < 2 * min_node_size:
        return None
    codes = codes.astype(int)
    L = int(codes.max()) + 1
    Cc = C - C.mean(axis=0)
    T = float(np.einsum("ij,ij->", Cc, Cc))
    # (L, m) column sums per level (the rest is −S), one bincount per grid column: O(n·m) time
    # and O(L·m) memory, where a one-hot matrix would take n × L.
    S = np.column_stack([np.bincount(codes, weights=Cc[:, k], minlength=L) for k in range(Cc.shape[1])])
    nl = np.bincount(codes, minlength=L).astype(float)
    ok = (nl >= min_node_size) & (n - nl >= min_node_size)
    if not ok.any():
        return None
    s2 = np.einsum("ij,ij->i", S, S)
    gain = s2 / np.maximum(nl, 1) + s2 / np.maximum(n - nl, 1)
    gain[~ok] = -np.inf
    k = int(np.argmax(gain))
    return max(T - float(gain[k]), 0.0), k


def row_effect_spread(C, groups):
    """How far each row's own effect of the feature is from its group's: (root mean square over the rows, largest).

    ``C``: the mean-centred ICE curves, shape (n, m) or (n, m, K); ``groups``: row positions partitioning the rows
    (REPID's regions, or every row at once). Row i's difference from its group's curve, d_ik = c_ik − c̄_k, has
    mean 0 over the grid (both curves are centred), and its range over the grid, max_k d_ik − min_k d_ik, is how
    much the row's own effect (its change over the grid) differs from the group's, in the output's units and on the
    scale of the effect's range (the PD's max − min). A linear ICE curve with slope b_i over a grid of width w gives
    d_ik = (b_i − b̄)(x_k − x̄) and a range |b_i − b̄| w against the PD's |b̄| w: the ratio is the relative spread of
    the slopes, |b_i − b̄| / |b̄|. A two-point grid (a binary feature) gives |Δ_i − Δ̄| of the per-row effects
    Δ_i. The root mean square of the centred curves at one grid point is only sd(b) |x_k − x̄|, about *half* of it
    at the ends of a symmetric grid, so a rule reading that point against a share of the range lets the effect
    itself vary by twice the share (spector's PSI: per-row effects 0.32 to 0.53, sd 17% of the mean 0.438, read
    as 8.3%). Since |d_ik| ≤ max_k d_ik − min_k d_ik (d_i has mean 0), this range is never below the spread at
    any one grid point.

    Returns
    -------
    (rms, largest) : floats, or arrays of shape (K,) for several classes
        The root mean square over every row of the range, and its largest value over the rows.
    """
    C = np.asarray(C, dtype=float)
    n = C.shape[0]
    if not n:
        z = np.zeros(C.shape[2:]) if C.ndim > 2 else 0.0
        return z, z
    ranges = np.empty((n,) + C.shape[2:])
    for rows in groups:
        rows = np.asarray(rows, dtype=int)
        if len(rows):
            D = C[rows] - C[rows].mean(axis=0)
            ranges[rows] = np.ptp(D, axis=1)
    rms, top = np.sqrt(np.mean(ranges ** 2, axis=0)), np.max(ranges, axis=0)
    return (float(rms), float(top)) if np.ndim(rms) == 0 else (rms, top)


def node_risk(C):
    """R(N) = Σ_i Σ_k (c_ik − mean_k)²."""
    D = C - C.mean(axis=0)
    return float(np.einsum("ij,ij->", D, D))


def rounding_floor(F, eps=None):
    """τ of :func:`repid`'s Notes: the root mean square of centred ICE curves at or below which they are equal
    up to rounding. ``F``: the uncentred ICE curves, shape (n, m) or (n, m, C); ``eps``: the machine epsilon of
    the model's predictions (:func:`~imlkit.effects._grid.output_precision`; None: float64's)."""
    F = np.asarray(F, dtype=float)
    if F.size == 0:
        return 0.0
    eps = float(np.finfo(float).eps) if eps is None else float(eps)
    size = float(np.max(np.ptp(F, axis=1)))
    return max(ROUNDING * size, ROUNDING_EPS * eps * float(np.max(np.abs(F))))


def _rms(risk, n, m):
    """Root mean square of a node's centred curves around their mean, from its risk."""
    return float(np.sqrt(max(risk, 0.0) / (n * m))) if n and m else 0.0


def _split_regions(C, encoded, splits, max_depth, min_node_size, gamma, floor=0.0):
    """Split the rows into regions breadth-first (REPID's tree); returns [(RegionNode, row positions)] parent
    before child. A node whose curves' root mean square is at most ``floor`` is not split (rounding)."""
    root_rows = np.arange(C.shape[0])
    m = C.shape[1]
    # the root's risk computed exactly as every node's (the same rows, the same summation), so intImp <= 1
    root_risk = node_risk(C[root_rows])
    out = []
    # queue entries: (id, depth, rows, parent, rule, parent_int_imp)
    queue = [(0, 0, root_rows, None, (), None)]
    next_id = 1
    while queue:
        nid, depth, rows, parent, rule, parent_imp = queue.pop(0)
        Cn = C[rows]
        risk = node_risk(Cn)
        best = None
        if (depth < max_depth and len(rows) >= 2 * min_node_size and root_risk > 0
                and _rms(risk, len(rows), m) > floor):
            for c in splits:
                z, kind, cats = encoded[c]
                zn = z[rows]
                found = (best_nominal_split(Cn, zn, min_node_size) if kind == "nominal"
                         else best_numeric_split(Cn, zn, min_node_size))
                if found is not None and (best is None or found[0] < best[0]):
                    best = (found[0], found[1], c, kind, cats)
        if best is not None:
            int_imp = (risk - best[0]) / root_risk
            needed = gamma if parent_imp is None else gamma * parent_imp
            if int_imp < needed or int_imp <= 0:
                best = None
        if best is None:
            out.append((RegionNode(id=nid, depth=depth, n=len(rows), risk=risk, parent=parent, rule=rule), rows))
            continue
        _, cut, c, kind, cats = best
        z = encoded[c][0][rows]
        if kind == "nominal":
            go_left = z == cut
            level = cats[int(cut)]
            threshold = None
        else:
            go_left = z <= cut
            level = None
            threshold = cut
        node = RegionNode(id=nid, depth=depth, n=len(rows), risk=risk, parent=parent, rule=rule, feature=c,
                          kind=kind, threshold=threshold, level=level, categories=cats,
                          int_imp=float(int_imp), left=next_id, right=next_id + 1)
        out.append((node, rows))
        queue.append((next_id, depth + 1, rows[go_left], nid, rule + (node.condition("left"),), int_imp))
        queue.append((next_id + 1, depth + 1, rows[~go_left], nid, rule + (node.condition("right"),), int_imp))
        next_id += 2
    return out
