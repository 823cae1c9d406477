"""Friedman and Popescu's H-statistic: how much of the prediction's variance is interaction."""
from __future__ import annotations

import contextvars
import itertools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._options import ENGINE, FEATURES, MAX_ROWS, N_JOBS, OUTPUT, PROGRESS, RANDOM_STATE, Option, Spec, integer
from .._parallel import parallel_map, rng_of
from .._timing import Timer
from .._validation import ValidationError, check_X, resolve_feature, resolve_features
from ._grid import ice_matrix, make_predictor, resolve_output, subsample_rows

__all__ = ["h_statistic", "HStatisticResult"]

from .._display import ResultDisplay
from ._result import PairSlicing


@dataclass(frozen=True)
class HStatisticResult(PairSlicing, ResultDisplay):
    """Overall and pairwise H² statistics.

    Attributes
    ----------
    feature_names : tuple of str
    overall : ndarray, shape (p,)
        H_j²: share of the variance of f explained by interactions of x_j with all others.
    pairwise : DataFrame
        Columns ``feature_1, feature_2, h2, h, h_unnormalized, h2_se`` (one row per pair, sorted by
        h2, descending); ``h2_se``: the bootstrap standard error of h2 (:func:`h_statistic`, Notes).
    overall_unnormalized : ndarray, shape (p,)
        The root mean square of the interaction part of f, sqrt(mean_i [f − PD_j − PD_-j]²), in
        the units of the prediction (see :func:`h_statistic`, Notes).
    overall_se : ndarray, shape (p,)
        The bootstrap standard error of each overall H_j² (:func:`h_statistic`, Notes).
    n_samples : int
        Rows the PD functions were evaluated at.
    output : str
        ``"P(class)"`` when computed on the vector of class probabilities.
    params, extra : dict
    info : dict
        What happened: ``seconds``, ``n_rows`` (= ``n_samples``), ``engine`` (see
        :data:`imlkit._record.HAPPENED`).
    """

    feature_names: tuple
    overall: np.ndarray
    pairwise: pd.DataFrame
    n_samples: int
    output: str | None = None
    params: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    method: str = "h_statistic"
    overall_unnormalized: np.ndarray | None = None
    info: dict = field(default_factory=dict)
    overall_se: np.ndarray | None = None

    def to_frame(self, kind="overall"):
        """``"overall"``: index feature, columns ``h2, h, h_unnormalized, h2_se``; ``"pairwise"``: the pair table."""
        if kind == "pairwise":
            return self.pairwise.copy()
        if kind != "overall":
            raise ValidationError(f"'kind' must be one of 'overall', 'pairwise'; got {kind!r}.")
        h2 = np.asarray(self.overall, dtype=float)
        out = pd.DataFrame({"h2": h2, "h": np.sqrt(np.clip(h2, 0, None))},
                           index=pd.Index(self.feature_names, name="feature"))
        if self.overall_unnormalized is not None:
            out["h_unnormalized"] = np.asarray(self.overall_unnormalized, dtype=float)
        if self.overall_se is not None:
            out["h2_se"] = np.asarray(self.overall_se, dtype=float)
        return out

    def explain(self):
        """What H² measures, the largest overall and pairwise values with their standard errors, and the caveats
        that apply to these numbers (rows used, unstable ratios, H² above 1, the probability scale)."""
        from ._explain import explain_hstat

        return explain_hstat(self)

    def plot(self, kind="overall", *, ax=None, **kwargs):
        """Horizontal bars of overall H² (``kind="overall"``) or of the pairs (``"pairwise"``)."""
        from ..plotting import plot_h_statistic

        return plot_h_statistic(self, kind=kind, ax=ax, **kwargs)

    __repr__ = ResultDisplay.__repr__  # the dataclass would print the arrays

    def _display_frames(self):
        return [("overall", self.to_frame()), ("pairs", self.to_frame("pairwise"))]


#: The H-statistic's options, in the order they are recorded (defaults: the signature). They are
#: checked after X and ``features``; ``pairs`` and ``output`` after them, against the features and the model.
SPEC = Spec(
    "h_statistic",
    FEATURES.but(doc="the features whose overall H is computed (None: every column); no groups"),
    Option("pairs", None, "'top', None or a list of pairs; checked against the features by _resolve_pairs",
           record=lambda pairs: pairs if isinstance(pairs, str) or pairs is None else "list"),
    Option("n_samples", integer(2), "rows the partial dependences are computed on (a seeded subsample)"),
    Option("n_top", integer(2), "pairs='top': the pairs among this many features with the largest overall H"),
    OUTPUT, MAX_ROWS, N_JOBS, RANDOM_STATE, PROGRESS, ENGINE,
)


def h_statistic(model, X, features=None, *, pairs="top", n_samples=500, n_top=5, output=None, max_rows=None,
                n_jobs=None, random_state=None, progress=False, engine="auto"):
    """Friedman & Popescu's H-statistic: overall H_j² and pairwise H_jk².

    Parameters
    ----------
    model : fitted estimator or callable
    X : DataFrame or array, shape (n, p)
    features : None, name, index or list
        Features whose overall H_j² is computed (default: all).
    pairs : "top", "all", None, or a list of pairs
        ``"top"``: every pair among the ``n_top`` features with the largest overall H²;
        ``"all"``: every pair of ``features``.
    n_samples : int, default 500
        Rows (drawn without replacement) at which the PD functions are evaluated; the cost is
        about n_samples² predictions per feature and per pair.
    n_top : int, default 5
    output : None, "predict" or a class label
        ``None``: ``predict`` for a regressor; P(positive class) for a binary classifier; for a
        multi-class classifier H is computed on the vector of class probabilities (below). A
        class label: P(class = label). Same rule as ICE, PD, ALE and REPID.
    max_rows, n_jobs, random_state, progress : as elsewhere
    engine : {"auto", "trees", "predict"}
        As in :func:`imlkit.ice`: the one-feature and the pairwise partial dependences walk the
        trees of a supported tree ensemble (two free features at once for a pair);
        ``info["engine"]`` records which ran.
        ``random_state`` draws the rows; features and pairs are spread over ``n_jobs``.

    Returns
    -------
    HStatisticResult

    Notes
    -----
    With all functions centred to mean zero over the n' sampled points,

        H_j²  = Σ_i [f(x_i) − PD_j(x_ij) − PD_-j(x_i,-j)]² / Σ_i f(x_i)²,
        H_jk² = Σ_i [PD_jk(x_ij, x_ik) − PD_j(x_ij) − PD_k(x_ik)]² / Σ_i PD_jk(x_ij, x_ik)².

    For feature j one stacked evaluation gives the matrix M[i, k] = f(x_kj, x_i,-j) over the
    sampled rows (distinct values of x_j only): PD_j(x_kj) is its column mean, PD_-j(x_i,-j)
    its row mean and f(x_i) its diagonal. PD_jk is evaluated the same way at the distinct
    sampled pairs, and reuses PD_j and PD_k. H² is 0 when its denominator is below 1e-12 of
    Σ_i f(x_i)² (a flat function has no interaction) and NaN when the model is constant.

    H² is a share: a pair whose joint PD is tiny can have H² near 1 although its interaction moves
    the prediction by almost nothing. The unnormalised statistics (the numerators of Friedman &
    Popescu's ratios alone; ``normalize=FALSE, squared=FALSE`` of Mayer's R package hstats) are
    their root mean squares, in the units of the prediction:

        h_unnormalized_j  = sqrt(mean_i [f(x_i) − PD_j(x_ij) − PD_-j(x_i,-j)]²),
        h_unnormalized_jk = sqrt(mean_i [PD_jk(x_ij, x_ik) − PD_j(x_ij) − PD_k(x_ik)]²),

    so that H² = h_unnormalized² / mean_i(denominator²): ``overall_unnormalized`` and the
    pair table's ``h_unnormalized`` column.

    Standard errors: H² is estimated from the n' sampled rows, which enter twice, as the points
    x_i of the outer sums and as the rows the partial dependences average over. A bootstrap sample
    draws n' of them with replacement (multiplicities w_i, Σ w_i = n') and recomputes every piece
    on it from the matrices above, without predicting again:

        PD*_j(x_kj)   = (1/n') Σ_l w_l M[l, k],      PD*_-j(x_i,-j) = (1/n') Σ_l w_l M[i, k_l],
        H*_j²         = Σ_i w_i [f − PD*_j − PD*_-j]²_i / Σ_i w_i f_i²,

    each function centred to its w-weighted mean (PD*_jk the same from the pair's rows of
    predictions). ``h2_se`` (``overall_se`` and the pair table's column) is the standard deviation
    of H*² over B = 200 (``N_BOOT``) samples, drawn once with ``random_state`` after the rows and
    shared by every feature and pair, so the numbers do not depend on ``n_jobs``. It is the
    sampling error of H² at these n' rows (Efron & Tibshirani 1993, ch. 6); it says nothing of
    H²'s bias (an additive model's H² on n' rows is 0 up to rounding, its bootstrap too). The tree
    engine gives every row's predictions at a pair's points as predict does (the same numbers up
    to rounding), so ``h2_se`` does not depend on ``engine``.

    For a multi-class model and ``output=None``, f is the vector of the C class probabilities
    and every square is a squared Euclidean norm, Σ_i ‖·‖² = Σ_i Σ_c (·)²: the share of the
    variance of all probabilities that is interaction (Friedman & Popescu's H with the
    squared error summed over the outputs).

    Missing values (NaN) of a feature are one more value of it: the model is evaluated with the
    feature set to NaN for every row, as the model itself sees such rows (models that
    handle NaN natively, such as HistGradientBoosting, xgboost or lightgbm).

    References
    ----------
    Friedman & Popescu (2008). Predictive learning via rule ensembles. Ann. Appl. Stat. 2(3).
    Efron & Tibshirani (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(100, 3))
    >>> h = h_statistic(lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 2], X, n_samples=50, random_state=0)
    >>> h.pairwise.loc[0, ["feature_1", "feature_2"]].tolist(), round(float(h.overall[2]), 6)
    (['x0', 'x1'], 0.0)
    """
    X, was_frame = check_X(X)
    if len(X) < 2:
        raise ValidationError("h_statistic needs at least 2 rows of X: with 1 row every partial dependence is that "
                              "row's prediction and H is 0/0; got 1 row.")
    feats = list(resolve_features(features, X.columns, allow_groups=False))
    call = SPEC.check(locals())
    n_samples, n_top, seed = call["n_samples"], call["n_top"], call["seed"]
    pair_list = _resolve_pairs(pairs, feats, X.columns)
    kind, column, label, _ = resolve_output(model, output)
    predictor = make_predictor(model, kind, was_frame, max_rows)
    rng = rng_of(seed)
    rows = subsample_rows(len(X), n_samples, rng)
    Xs = X.iloc[rows].reset_index(drop=True)
    # the bootstrap's row multiplicities, drawn once after the rows: the same for every feature and pair, whatever
    # n_jobs (the standard errors reuse the matrices below; no extra prediction); none under
    # h_statistic_without_se (h2_se NaN)
    W = rng.multinomial(len(Xs), np.full(len(Xs), 1.0 / len(Xs)), size=N_BOOT).astype(float) \
        if _STANDARD_ERRORS.get() else None
    checked = feats if pair_list is None else feats + [f for p in pair_list for f in p]
    engine_params = predictor.use_engine(Xs, engine, checked)  # the 1-D and pairwise PDs may walk the trees
    params = dict(**engine_params, **SPEC.record(call))

    with Timer() as timer:
        if pair_list is not None:
            feats_needed = list(dict.fromkeys(feats + [f for p in pair_list for f in p]))
        else:
            feats_needed = feats
        tasks = [(predictor, Xs, f, column, W) for f in feats_needed]
        res = dict(zip(feats_needed, parallel_map(_feature_task, tasks, n_jobs=n_jobs, progress=progress,
                                                   desc="H overall")))
        overall = np.array([res[f][0] for f in feats])
        overall_un = np.array([res[f][3] for f in feats])
        overall_se = np.array([res[f][5] if W is not None else np.nan for f in feats])
        if pair_list is None:  # "top"
            # the n_top features with the largest H², each pair written in column order: which of two
            # features with equal H² (g and u of g·u) ranks first is rounding, and must not flip the pair
            top = sorted(np.argsort(-np.nan_to_num(overall, nan=-1), kind="stable")[:n_top])
            top = [feats[i] for i in top]
            pair_list = list(itertools.combinations(top, 2))
        tasks = [(predictor, Xs, a, b, res[a][1], res[b][1], res[a][2], column, W,
                  *((res[a][4], res[b][4]) if W is not None else (None, None))) for a, b in pair_list]
        pair_out = parallel_map(_pair_task, tasks, n_jobs=n_jobs, progress=progress, desc="H pairs")
        pair_h2 = [out[0] for out in pair_out]
    params.update(seconds=timer.seconds, n_rows=len(Xs))
    table = pd.DataFrame({"feature_1": [a for a, _ in pair_list], "feature_2": [b for _, b in pair_list],
                          "h2": np.asarray(pair_h2, dtype=float)})
    table["h"] = np.sqrt(table["h2"].clip(lower=0))
    table["h_unnormalized"] = np.asarray([out[1] for out in pair_out], dtype=float)
    table["h2_se"] = np.asarray([out[2] if W is not None else np.nan for out in pair_out], dtype=float)
    table = table.sort_values("h2", ascending=False, na_position="last", kind="stable").reset_index(drop=True)
    return HStatisticResult(feature_names=tuple(feats), overall=overall, pairwise=table, n_samples=len(Xs),
                            output=label, params=params,
                            extra={"row_index": rows, "n_boot": N_BOOT if W is not None else 0},
                            overall_unnormalized=overall_un, overall_se=overall_se)


#: False inside :func:`h_statistic_without_se`.
_STANDARD_ERRORS = contextvars.ContextVar("h_statistic_standard_errors", default=True)


def h_statistic_without_se(*args, **kwargs):
    """:func:`h_statistic` without the bootstrap standard errors (``h2_se`` and ``overall_se`` NaN,
    ``extra["n_boot"]`` 0): for a caller that never shows them (the report's runs on each half of its
    rows), a third less work. Private: not part of the public API."""
    token = _STANDARD_ERRORS.set(False)
    try:
        return h_statistic(*args, **kwargs)
    finally:
        _STANDARD_ERRORS.reset(token)


def _resolve_pairs(pairs, feats, columns):
    """None for "top" (decided after the overall H), else the list of pairs."""
    if isinstance(pairs, str):
        if pairs == "top":
            return None
        if pairs == "all":
            return list(itertools.combinations(feats, 2))
        raise ValidationError(f"'pairs' must be 'top', 'all', None or a list of feature pairs; got {pairs!r}.")
    if pairs is None:
        return []
    out = []
    for p in pairs:
        if not isinstance(p, (tuple, list)) or len(p) != 2:
            raise ValidationError(f"'pairs' must be 'top', 'all', None or a list of feature pairs; got the "
                                  f"entry {p!r}.")
        a, b = (resolve_feature(f, columns, "pairs") for f in p)
        if a == b:
            raise ValidationError(f"'pairs' must hold two different features; got {a!r} twice.")
        out.append((a, b))
    return out


def _centre(v):
    return v - v.mean(axis=0)


#: A denominator below this share of the predictions' total sum of squares is numerical noise:
#: the function (or the pair's joint PD) is flat, and H² is then 0 rather than noise/noise.
FLAT_TOLERANCE = 1e-12


def _ratio(num, den, total):
    """H² (0 for a flat denominator, NaN for a constant model) and the unnormalised H, the root
    mean square of the numerator (over the rows; summed over the classes of a multi-class model)."""
    n = len(num)
    rms = float(np.sqrt(np.sum(num ** 2) / n))
    den = float(np.sum(den ** 2))
    if not den > FLAT_TOLERANCE * total:
        return (0.0 if total > 0 else float("nan")), rms
    return float(np.sum(num ** 2) / den), rms


def _feature_task(predictor, Xs, f, column, W=None):
    """Overall H_j² and the centred PD_j at the sampled rows, from one stacked evaluation; with bootstrap
    multiplicities ``W`` (B, n') also PD_j at the rows of each bootstrap sample (uncentred, (B, n'[, C])) and the
    standard error of H_j² (:func:`_boot_se`)."""
    # NaN is a value of its own (use_na_sentinel=False): its code is not -1.
    codes, uniq = pd.factorize(Xs[f], sort=False, use_na_sentinel=False)
    grid = np.asarray(list(uniq), dtype=object)
    M = ice_matrix(predictor, Xs, f, grid, column=column)           # (n', u) or (n', u, C)
    counts = np.bincount(codes, minlength=len(grid))
    n = len(Xs)
    f_x = M[np.arange(n), codes]
    pd_j = M.mean(axis=0)[codes]
    pd_not_j = np.tensordot(M, counts, axes=(1, 0)) / n
    f_c, pdj_c, pdnj_c = _centre(f_x), _centre(pd_j), _centre(pd_not_j)
    total = float(np.sum(f_c ** 2))
    h2, rms = _ratio(f_c - pdj_c - pdnj_c, f_c, total)
    if W is None:
        return h2, pdj_c, total, rms
    onehot = np.zeros((n, len(grid)))
    onehot[np.arange(n), codes] = 1.0
    cols = np.tensordot(W, M, axes=(1, 0)) / n                      # (B, u[, C]): PD_j on each bootstrap sample
    pdj_b = cols[:, codes]                                          # (B, n'[, C])
    pdnj_b = np.tensordot(W @ onehot, M, axes=(1, 1)) / n           # (B, n'[, C]): PD_-j over its x_j values
    f_b = np.broadcast_to(f_x, pdj_b.shape)
    return h2, pdj_c, total, rms, pdj_b, _boot_se(W, f_b - pdj_b - pdnj_b, f_b)


def _pair_task(predictor, Xs, a, b, pda_c, pdb_c, total, column, W=None, pda_b=None, pdb_b=None):
    """Pairwise H_ab² from PD_ab at the distinct sampled pairs (one stacked evaluation); with bootstrap
    multiplicities ``W`` and the features' bootstrap PDs also the standard error of H_ab², from every row's
    prediction at those pairs (the tree engine's too: :meth:`imlkit._model.Predictor.pair_predictions`)."""
    ca, ua = pd.factorize(Xs[a], sort=False, use_na_sentinel=False)
    cb, ub = pd.factorize(Xs[b], sort=False, use_na_sentinel=False)
    codes, pair_ids = pd.factorize(ca.astype(np.int64) * (len(ub) + 1) + cb, sort=False)
    first = _first_positions(codes, len(pair_ids))
    va = Xs[a].to_numpy()[first]
    vb = Xs[b].to_numpy()[first]
    if W is None:
        means = predictor.pair_means(Xs, (a, b), (va, vb), column)
    else:
        # what pair_means averages, each row's prediction kept for the bootstrap: (u, n'[, C])
        P = predictor.pair_predictions(Xs, (a, b), (va, vb), column)
        means = P.mean(axis=1)
    pd_ab = means[codes]
    pdab_c = _centre(pd_ab)
    h2, rms = _ratio(pdab_c - pda_c - pdb_c, pdab_c, total)
    if W is None:
        return h2, rms
    pdab_b = (np.tensordot(W, P, axes=(1, 1)) / len(Xs))[:, codes]  # (B, n'[, C])
    # the flat rule compares with Σ_i f(x_i)², the sample's (a bootstrap sample's differs by its sampling error)
    return h2, rms, _boot_se(W, pdab_b - pda_b - pdb_b, pdab_b, total)


#: Bootstrap samples of the rows behind ``h2_se``.
N_BOOT = 200


def _boot_se(W, num, den, total=None):
    """Standard deviation over the bootstrap samples of H² = Σ_i w_i ‖num_i‖² / Σ_i w_i ‖den_i‖².

    ``W`` (B, n): each sample's row multiplicities; ``num``, ``den`` (B, n[, C]): the uncentred numerator and
    denominator at every row as computed on that sample, each centred here to its weighted mean. ``total``: the
    flat rule's Σ_i f(x_i)² (None: the denominator's own, the overall H²). A flat denominator gives 0 as
    :func:`_ratio` does.
    """
    B, n = W.shape
    w = W.reshape(W.shape + (1,) * (num.ndim - 2))

    def centred_ss(v):
        v = v - (w * v).sum(axis=1, keepdims=True) / n
        return (w * v * v).reshape(B, -1).sum(axis=1)

    num_ss, den_ss = centred_ss(num), centred_ss(den)
    total = den_ss if total is None else np.full(B, float(total))
    flat = ~(den_ss > FLAT_TOLERANCE * total)
    h2 = np.where(flat, np.where(total > 0, 0.0, np.nan), num_ss / np.where(flat, 1.0, den_ss))
    return float(np.std(h2, ddof=1)) if B > 1 else float("nan")


def _first_positions(codes, k):
    first = np.full(k, len(codes))
    np.minimum.at(first, codes, np.arange(len(codes)))
    return first
