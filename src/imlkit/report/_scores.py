"""Test scores of the report's models with paired bootstrap intervals over the test rows.

Every score is a weighted average over test rows (or a ratio of such averages), so one
matrix of bootstrap weights ``W`` (B, n) -- row b counts how often each test row is drawn in
resample b -- gives all resampled scores of all models at once. The same ``W`` is used for
every model, so differences between models are *paired*: their interval reflects how
consistently one model beats the other on the same rows, not the spread of each alone. For classification the
resamples are stratified by class (:func:`bootstrap_weights`): every resample holds each class's test-row count, so
balanced accuracy and ROC AUC are always over all the classes.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._losses import LOG_LOSS_EPS

__all__ = ["REGRESSION_METRICS", "CLASSIFICATION_METRICS", "LOWER_IS_BETTER", "model_outputs", "scores", "class_labels",
           "bootstrap_weights", "score_intervals", "main_metric", "deciding_metrics", "simultaneous_level",
           "header", "BRIER_WORDS", "BRIER_NOTE", "largest_gain", "MAX_MISS_RATIO", "PER_CLASS_METRICS",
           "min_test_rows", "min_class_rows", "class_interval_miss", "too_few_rows", "MATERIAL_SHARE",
           "constant_scores", "material_floor", "shown_split", "SHOWN_WORDS"]

REGRESSION_METRICS = ("RMSE", "MAE", "R²")
CLASSIFICATION_METRICS = ("log loss", "Brier score", "ROC AUC", "balanced accuracy", "accuracy")
LOWER_IS_BETTER = {"RMSE", "MAE", "log loss", "Brier score"}
#: The Brier score of the report is Brier's (1950) original, summed over the classes:
#: ``sum_k (p_k - 1{y = k})^2`` averaged over rows, from 0 to 2 -- for two classes twice scikit-learn's
#: ``brier_score_loss`` (which scores the positive class only). It is kept so (not halved for two
#: classes) because it is the same for any number of classes and is the Brier loss of section 3's
#: LOCO; tables and sentences say so with these words.
BRIER_WORDS = "Brier score (sum over classes, 0–2)"
BRIER_NOTE = ("the Brier score is summed over the classes, Σ_k (p_k − 1{y = k})², from 0 to 2: for two classes "
              "twice scikit-learn's brier_score_loss")


def header(metric):
    """A metric's column header: the Brier score with its definition, every other metric by its name."""
    return BRIER_WORDS if metric == "Brier score" else metric
#: Bootstrap resamples of the test rows for the intervals.
N_BOOT = 1000


def deciding_metrics(task, has_proba=True):
    """The scores on which the model must beat the mean / majority baseline to be worth explaining.

    Regression: RMSE. Classification with probabilities: the Brier score (a *bounded*
    strictly proper score: one confident miss costs at most 2, where it can cost the log loss
    34.5) and the two discrimination measures ROC AUC (binary; multiclass: the mean of the
    one-vs-rest AUCs) and balanced accuracy; without probabilities, balanced accuracy. The
    model is "no better than the baseline" only when it beats it on none of them. The log loss
    is shown but never decides: it is unbounded, so a good classifier with a few confident
    misses has a huge log-loss interval.
    """
    if task == "regression":
        return ("RMSE",)
    return ("Brier score", "ROC AUC", "balanced accuracy") if has_proba else ("balanced accuracy",)


def main_metric(task, has_proba=True):
    """The first of :func:`deciding_metrics`: RMSE, the Brier score, or balanced accuracy without probabilities."""
    return deciding_metrics(task, has_proba)[0]


def simultaneous_level(level, k):
    """Per-measure level when the model may beat the baseline on any of ``k`` measures: ``1 - (1 - level)/k``.

    Bonferroni: a useless model then passes on some measure with probability at most
    ``(1 - level)/2`` (one-sided), as with a single measure at ``level``.
    """
    return 1.0 - (1.0 - level) / max(int(k), 1)


def class_labels(model, y_train, y_test=None):
    """The class labels as text, in the model's order, with classes only seen in the data appended."""
    labels = [str(c) for c in getattr(model, "classes_", [])]
    for part in (y_train, y_test):
        if part is not None:
            labels += sorted(set(np.asarray(part).astype(str)) - set(labels))
    return labels


def model_outputs(model, X, task, labels=None):
    """What the scores need from one model: predictions, and probabilities aligned to ``labels``.

    Returns dict(pred=(n,) float or str array, proba=(n, L) array or None).
    """
    if task == "regression":
        return {"pred": np.asarray(model.predict(X), dtype=float).ravel(), "proba": None}
    pred = np.asarray(model.predict(X)).astype(str).ravel()
    proba = None
    if hasattr(model, "predict_proba") and labels is not None:
        raw = np.asarray(model.predict_proba(X), dtype=float)
        own = [str(c) for c in getattr(model, "classes_", range(raw.shape[1]))]
        proba = np.zeros((len(pred), len(labels)))
        for j, c in enumerate(own):
            if c in labels:
                proba[:, labels.index(c)] = raw[:, j]
    return {"pred": pred, "proba": proba}


#: Most weight entries (resamples x rows) held at once; larger test sets are resampled in blocks.
MAX_WEIGHTS = 4_000_000


def bootstrap_weights(n, seed, n_boot=N_BOOT, strata=None):
    """(n_boot, n) counts of each test row in each resample (rows sum to n).

    Parameters
    ----------
    n : int
        Test rows.
    seed : int
        Seed of the draws: the same seed gives the same weights.
    n_boot : int, optional
        Resamples.
    strata : (n,) array-like, optional
        The class of each row (classification). When given, the bootstrap is *stratified*: each resample draws,
        with replacement, as many rows of every class as the test rows hold, from that class's rows only (Efron &
        Tibshirani 1993, sec. 8.4, and Davison & Hinkley 1997, sec. 3.2: the bootstrap of a design whose group sizes
        are fixed keeps them fixed). The class-conditional measures -- balanced accuracy, the mean recall, and ROC
        AUC, a comparison of the rows of one class with those of another -- are then defined in every resample; an
        unstratified draw lacks a class of ``c`` rows with probability ``(1 - c/n)^n`` and its "mean over the
        classes present" is another quantity (the majority baseline with 3 positives in 10 rows had balanced
        accuracy 0.5 [0.5, 1]). Without ``strata``, plain multinomial counts of ``n`` rows.
    """
    return np.vstack(list(_weight_blocks(n, seed, n_boot, strata)))


def _weight_blocks(n, seed, n_boot, strata=None):
    """The rows of :func:`bootstrap_weights` in blocks of at most ``MAX_WEIGHTS`` entries (same numbers)."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 20111]))
    step = max(1, MAX_WEIGHTS // max(n, 1))
    if strata is not None:
        # Within-class draws: position j of the rows sorted by class draws a row of its own class, uniformly among
        # that class's c rows (start of the class + floor(u c)); a class keeps its c draws in every resample.
        _, codes, counts = np.unique(np.asarray(strata).astype(str), return_inverse=True, return_counts=True)
        order = np.argsort(codes, kind="stable")
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        size = counts[codes[order]]
        first = starts[codes[order]]
    for start in range(0, n_boot, step):
        b = min(step, n_boot - start)
        if strata is None:
            idx = rng.integers(0, n, size=(b, n))
        else:
            pos = first + np.minimum(np.floor(rng.random((b, n)) * size).astype(np.int64), size - 1)
            idx = order[pos]
        # Row draws with replacement, counted per resample (one bincount over offset indices).
        idx = idx + (np.arange(b) * n)[:, None]
        yield np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(float)


def n_resamples(n):
    """Bootstrap resamples for ``n`` test rows: ``N_BOOT``, fewer (>= 200) when n x N_BOOT > 1e7."""
    return int(min(N_BOOT, max(200, 10_000_000 // max(n, 1))))


def _weighted_auc(W, score, pos):
    """ROC AUC = P(score_pos > score_neg) + P(tie)/2 under row weights; (B,) array.

    Rows are grouped by tied scores once; with weights the Mann-Whitney count becomes
    sum over groups of (positive weight) x (negative weight below + half the tied negative weight).
    """
    order = np.argsort(score, kind="mergesort")
    s = score[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    Wo = W[:, order]
    p = pos[order]
    gp = np.add.reduceat(Wo * p, starts, axis=1)
    gn = np.add.reduceat(Wo * ~p, starts, axis=1)
    below = np.cumsum(gn, axis=1) - gn
    num = (gp * (below + 0.5 * gn)).sum(axis=1)
    den = gp.sum(axis=1) * gn.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)



class _ClassSums:
    """Sums of a (B, n) matrix's columns within each class: ``(B, n) -> (B, K)``, classes by code."""

    def __init__(self, codes, k):
        self.order = np.argsort(codes, kind="stable")
        counts = np.bincount(codes, minlength=k)
        self.starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        self.empty = counts == 0

    def __call__(self, M):
        if M.shape[1] == 0:
            return np.zeros((M.shape[0], len(self.starts)))
        out = np.add.reduceat(M[:, self.order], np.minimum(self.starts, M.shape[1] - 1), axis=1)
        out[:, self.empty] = 0.0
        return out


#: :func:`_macro_auc` takes the matrix product up to this many test rows per class (measured, one
#: thread: 10 classes x 1,000 rows 0.08 s against 0.29 s for the loop; 100 x 6,000: 2.4 s against 26 s).
AUC_MATRIX_ROWS_PER_CLASS = 48
#: Most cells of the (n, columns) comparison matrix :func:`_macro_auc` builds at once (~32 MB).
AUC_BLOCK_CELLS = 1 << 22


def _macro_auc(W, proba, idx, present, position, codes, by_class, tot):
    """Mean over the classes present of the one-vs-rest ROC AUC under each row of weights; (B,).

    For a row i of class c, ``G[b, i]`` = the weight in resample b of the rows of other classes
    whose probability of c is below row i's (ties count half): AUC_c = sum over c's rows of
    ``W[b, i] G[b, i]`` over (weight of c) x (weight of the others), the Mann-Whitney count of
    :func:`_weighted_auc`. ``G = W @ M`` with ``M[j, i]`` the comparison of row j with row i:
    one matrix product of O(B n^2) for every class at once, where one sort-and-gather per class
    costs O(B n K) -- the product is chosen when n is below ~48 K (many classes, few rows);
    otherwise the per-class loop. Classes whose probability is the same on every row (a
    baseline's) have AUC 0.5 without either.
    """
    n = len(idx)
    cols = np.array([position.get(c, -1) for c in present], dtype=int)
    neg = n - tot  # rows of W sum to n (bootstrap counts; the point estimate's ones)
    with np.errstate(invalid="ignore", divide="ignore"):
        defined = (tot > 0) & (neg > 0)
    auc = np.full(tot.shape, np.nan)
    constant = np.ptp(proba, axis=0) == 0 if n else np.ones(proba.shape[1], dtype=bool)
    flat = (cols >= 0) & constant[np.maximum(cols, 0)]
    auc[:, flat] = np.where(defined[:, flat], 0.5, np.nan)
    todo = np.flatnonzero((cols >= 0) & ~flat)
    if len(todo) == 0:
        pass
    elif n <= AUC_MATRIX_ROWS_PER_CLASS * len(todo):
        rows = np.flatnonzero(np.isin(codes, todo))
        G = np.zeros((W.shape[0], n))
        step = max(1, AUC_BLOCK_CELLS // max(n, 1))
        for start in range(0, len(rows), step):
            i = rows[start:start + step]
            c = idx[i]
            s = proba[:, c]  # (n, block): every row's probability of row i's class
            own = s[i, np.arange(len(i))]
            M = (s < own).astype(float)
            M += 0.5 * (s == own)
            M[idx[:, None] == c[None, :]] = 0.0  # rows of the same class are not negatives
            G[:, i] = W @ M
        num = by_class(W * G)
        with np.errstate(invalid="ignore", divide="ignore"):
            auc[:, todo] = np.where(defined[:, todo], num[:, todo] / np.where(defined[:, todo],
                                                                              tot[:, todo] * neg[:, todo], 1.0),
                                    np.nan)
    else:
        for k in todo:
            auc[:, k] = _weighted_auc(W, proba[:, cols[k]], codes == k)
    known = cols >= 0
    if not known.any():
        return np.full(W.shape[0], np.nan)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a resample without two classes: NaN
        return np.nanmean(auc[:, known], axis=1)


def scores(out, y, task, W, labels=None):
    """Every metric of one model under each row of weights ``W`` (B, n): dict metric -> (B,) array.

    Regression: RMSE, MAE, R² (1 - SSE/SST, every square about the mean of all the rows of ``y``, the same
    centre for every resample). Classification: log
    loss (natural log, probabilities clipped to [float eps, 1], as scikit-learn's)), Brier score (sum over classes of
    (p_k - 1{y = k})², Brier 1950), ROC AUC (binary: of the second label; multiclass: the
    unweighted mean of one-vs-rest AUCs over the classes present), balanced accuracy (mean
    recall over the classes present), accuracy. Scores a model cannot give (no probabilities)
    are NaN.
    """
    n = W.shape[1]
    if task == "regression":
        yv = np.asarray(y, dtype=float)
        err = yv - out["pred"]
        sse = W @ err ** 2
        # R² = (SST - SSE) / SST with every squared deviation taken about the mean of all n rows, a centre held fixed
        # over the resamples: numerator and denominator are then sums over rows, and the resampled ratio is centred
        # on the estimate. With each resample's own mean (the textbook formula) SST shrank by about SST/n -- that mean
        # fits the resample better than any fixed prediction -- so every resample of the mean baseline scored on its
        # own rows had R² <= 0 and the interval excluded its estimate (Boston, a user's forest: "R² 6.66e-16
        # [-0.00946, -1.52e-06]"). The gain is summed row by row, (y - ȳ)² - (y - ŷ)², so that a prediction equal to
        # ȳ gives 0 on every resample, not the rounding of 1 - SSE/SST.
        dev = (yv - yv.mean()) ** 2 if n else yv
        sst = W @ dev
        with np.errstate(invalid="ignore", divide="ignore"):
            r2 = np.where(sst > 0, (W @ (dev - err ** 2)) / np.where(sst > 0, sst, 1.0), np.nan)
        return {"RMSE": np.sqrt(sse / n), "MAE": W @ np.abs(err) / n, "R²": r2}
    ys = np.asarray(y).astype(str)
    correct = (out["pred"] == ys).astype(float)
    res = {"accuracy": W @ correct / n}
    # Every per-class quantity is a sum of W's columns over the rows of one class: one gather of
    # W in class order and one reduceat give all of them, (B, classes present), in O(B n) -- a
    # loop of two (B, n) products per class cost O(B n K) (1,000 classes: minutes).
    present, codes = np.unique(ys, return_inverse=True)
    by_class = _ClassSums(codes, len(present))
    tot, hits = by_class(W), by_class(W * correct)
    with np.errstate(invalid="ignore", divide="ignore"):
        recalls = np.where(tot > 0, hits / np.where(tot > 0, tot, 1.0), np.nan)
    res["balanced accuracy"] = np.nanmean(recalls, axis=1)
    proba = out.get("proba")
    if proba is None or labels is None:
        nan = np.full(W.shape[0], np.nan)
        res.update({"log loss": nan, "Brier score": nan, "ROC AUC": nan})
    else:
        position = {c: k for k, c in enumerate(labels)}
        idx = np.array([position.get(c, -1) for c in ys], dtype=int)
        known = idx >= 0
        p_true = np.where(known, proba[np.arange(n), np.maximum(idx, 0)], 0.0)
        res["log loss"] = W @ -np.log(np.clip(p_true, LOG_LOSS_EPS, 1.0)) / n
        # sum_k (p_k - 1{y = k})^2 = sum_k p_k^2 - 2 p_y + 1 (a row of an unknown class: sum_k p_k^2 + 1)
        brier = np.einsum("ij,ij->i", proba, proba) - 2.0 * p_true + 1.0
        res["Brier score"] = W @ brier / n
        if len(labels) == 2:
            res["ROC AUC"] = _weighted_auc(W, proba[:, 1], ys == labels[1])
        else:
            res["ROC AUC"] = _macro_auc(W, proba, idx, present, position, codes, by_class, tot)
    return {m: res[m] for m in CLASSIFICATION_METRICS}


def _interval(values, level):
    v = values[np.isfinite(values)]
    if len(v) < 2:
        return np.nan, np.nan
    a = 100 * (1 - level) / 2
    lo, hi = np.percentile(v, [a, 100 - a])
    return float(lo), float(hi)


def score_intervals(outputs, y, task, seed, labels=None, reference=None, n_boot=None, level=0.95,
                    simultaneous=()):
    """Point scores, percentile-bootstrap intervals and paired differences to ``reference``.

    Parameters
    ----------
    outputs : dict name -> :func:`model_outputs` of that model on the test rows
    y : (n,) test targets
    reference : str, optional -- the model whose differences to the others are computed
        (the black box): difference = score(reference) - score(other), per resample.
    n_boot : int, optional -- resamples (default :func:`n_resamples`: 1000 up to 10,000 rows); for
        classification stratified by the class of ``y`` (:func:`bootstrap_weights` with ``strata=y``)
    simultaneous : sequence of metric names, optional -- their differences are also given at
        the Bonferroni level :func:`simultaneous_level` (``level``, k = len(simultaneous)), from
        the same resamples: intervals for deciding on any of the k measures.

    Returns
    -------
    dict with ``scores`` {name: {metric: (value, low, high)}} and ``differences``
    {other: {metric: (value, low, high)}}, plus ``n_boot``, ``level`` and ``constant`` (:func:`constant_scores`:
    the scale on which :func:`material_floor` judges a difference); with ``simultaneous``
    also ``simultaneous_differences`` {other: {metric: (value, low, high)}} and
    ``simultaneous_level``.
    """
    n = len(y)
    n_boot = n_resamples(n) if n_boot is None else int(n_boot)
    ones = np.ones((1, n))
    point = {k: scores(o, y, task, ones, labels) for k, o in outputs.items()}
    boot = {k: {} for k in outputs}
    strata = None if task == "regression" else np.asarray(y).astype(str)
    for W in _weight_blocks(n, seed, n_boot, strata):
        for k, o in outputs.items():
            for m, v in scores(o, y, task, W, labels).items():
                boot[k].setdefault(m, []).append(v)
    boot = {k: {m: np.concatenate(v) for m, v in d.items()} for k, d in boot.items()}
    table = {k: {m: (float(point[k][m][0]),) + _interval(boot[k][m], level) for m in point[k]} for k in outputs}
    out = {"scores": table, "differences": {}, "n_boot": n_boot, "level": level, "rows": n,
           "constant": constant_scores(y, task, labels)}
    if task != "regression":
        names, counts = np.unique(np.asarray(y).astype(str), return_counts=True)
        order = np.argsort(counts, kind="stable")
        out["class_rows"] = {str(names[i]): int(counts[i]) for i in order}
    sim_level = simultaneous_level(level, len(simultaneous))
    if simultaneous:
        out["simultaneous_differences"] = {}
        out["simultaneous_level"] = sim_level
    if reference is not None:
        for k in outputs:
            if k == reference:
                continue
            diff = {m: (float(point[reference][m][0] - point[k][m][0]), boot[reference][m] - boot[k][m])
                    for m in point[k]}
            out["differences"][k] = {m: (v,) + _interval(b, level) for m, (v, b) in diff.items()}
            if simultaneous:
                out["simultaneous_differences"][k] = {m: (diff[m][0],) + _interval(diff[m][1], sim_level)
                                                      for m in simultaneous if m in diff}
    return out


#: A verdict is taken on a measure only when its interval misses no more than this multiple of the rate its level
#: says (see :func:`min_test_rows`).
MAX_MISS_RATIO = 1.5
#: Measures that are averages over the classes present (a class's recall or one-vs-rest AUC): each class needs rows.
PER_CLASS_METRICS = ("balanced accuracy", "ROC AUC")


def min_test_rows(level):
    """Fewest test rows on which a percentile-bootstrap interval at ``level`` may decide.

    The percentile interval of a mean of ``n`` rows is, for normal data, ``mean ± z s_n / sqrt(n)`` with the plug-in
    ``s_n = s sqrt((n - 1)/n)`` and the normal quantile ``z`` where Student's t is due (Efron & Tibshirani 1993,
    ch. 13: the percentile interval is too narrow in small samples): it misses the true mean with probability
    ``P(|T_{n-1}| > z sqrt((n - 1)/n))``. This is the smallest ``n`` at which that is at most ``MAX_MISS_RATIO``
    times ``1 - level`` -- on the most favourable (normal) data; skewed scores miss more. 95%: 18 rows; 98.3% (three
    measures, Bonferroni): 32 rows.
    """
    from scipy import stats

    z = stats.norm.ppf(1.0 - (1.0 - level) / 2.0)
    n = 2
    while 2.0 * stats.t.sf(z * np.sqrt((n - 1) / n), n - 1) > MAX_MISS_RATIO * (1.0 - level):
        n += 1
    return n


def class_interval_miss(counts, level):
    """How often a percentile interval at ``level`` of a per-class measure misses, for classes of ``counts`` test rows.

    The bootstrap of :func:`score_intervals` is stratified by class (:func:`bootstrap_weights`), so balanced accuracy
    -- the mean over the classes of each class's recall, a mean over its ``c`` rows -- is resampled class by class:
    each class's part has the plug-in variance, ``(c - 1)/c`` times the unbiased one, and the resampled measure
    spreads like a sum of class means. On the most favourable data -- normal scores with the same spread in every
    class, as :func:`min_test_rows` assumes for a mean over rows -- class ``k`` adds a variance proportional to
    ``1/c_k``; the bootstrap variance is the true one times ``s = sum((c_k - 1)/c_k^2) / sum(1/c_k)``, and the
    studentised measure has Welch-Satterthwaite degrees of freedom ``nu = (sum 1/c_k)^2 / sum(1/(c_k^2 (c_k - 1)))``
    (Welch 1947). The interval then misses with probability ``P(|T_nu| > z sqrt(s))``. ROC AUC is treated alike: its
    variance is a sum of one part per class, each a mean over that class's rows (DeLong et al. 1988). One class:
    :func:`min_test_rows`' formula; a class of one row adds no spread at all (returns 1).

    Returns (miss probability, s, nu).
    """
    from scipy import stats

    c = np.asarray([v for v in counts if v > 0], dtype=float)
    if len(c) == 0 or (c < 2).any():
        return 1.0, 0.0, 0.0
    a = 1.0 / c
    shrink = float(np.sum(a * (c - 1) / c) / np.sum(a))
    df = float(np.sum(a) ** 2 / np.sum(a ** 2 / (c - 1)))
    z = stats.norm.ppf(1.0 - (1.0 - level) / 2.0)
    return float(2.0 * stats.t.sf(z * np.sqrt(shrink), df)), shrink, df


def min_class_rows(n, level):
    """Fewest test rows of one class, beside ``n`` minus that many in another, for a per-class measure (balanced
    accuracy, ROC AUC) at ``level``: the smallest ``c`` for which :func:`class_interval_miss` of ``(c, n - c)`` is at
    most ``MAX_MISS_RATIO`` times ``1 - level`` (``n`` when none is). Two classes of 16 (32 rows) are not enough at
    98.3%: the stratified bootstrap resamples each within its 16 rows, a variance shrunk by 15/16, where a mean over
    32 rows is shrunk by 31/32.
    """
    n = max(int(n), 1)
    for c in range(1, n // 2 + 1):
        if class_interval_miss((c, n - c), level)[0] <= MAX_MISS_RATIO * (1.0 - level):
            return c
    return n


def _class_word(k):
    """A class name as the report spells it: a whole number read from a float column without its ".0"."""
    try:
        f = float(k)
    except (TypeError, ValueError):
        return str(k)
    return str(int(f)) if np.isfinite(f) and f == int(f) and str(k).strip().endswith(".0") else str(k)


def too_few_rows(res, metric, rows_word="test rows"):
    """Why the test rows of :func:`score_intervals`' ``res`` are too few to decide on ``metric`` ("" when they are not).

    The rule is :func:`min_test_rows` at the level of the verdict's intervals (simultaneous when there are several
    measures) and, for balanced accuracy and ROC AUC, :func:`class_interval_miss` of the test rows' class counts at
    that level: at most ``MAX_MISS_RATIO`` times ``1 - level``.
    """
    n = res.get("rows")
    if n is None:
        return ""
    level = res.get("simultaneous_level", res["level"])
    need = min_test_rows(level)
    pct = f"{100 * level:.3g}%"
    if n < need:
        return (f"n = {n:,} {rows_word}, fewer than the {need} a {pct} percentile-bootstrap interval needs to miss at "
                f"most {MAX_MISS_RATIO:g} times as often as its level says, even for normally distributed scores")
    counts = res.get("class_rows") or {}
    if metric in PER_CLASS_METRICS and counts:
        miss, shrink, df = class_interval_miss(list(counts.values()), level)
        if miss > MAX_MISS_RATIO * (1.0 - level):
            listed = ", ".join(f"{_class_word(k)} ({v})" for k, v in list(counts.items())[:6])
            more = f" and {len(counts) - 6} more" if len(counts) > 6 else ""
            how = ("a class of one row adds no spread at all" if df == 0 else
                   f"variance {100 * shrink:.3g}% of the true one, {df:.3g} degrees of freedom (Welch-Satterthwaite)")
            return (f"the classes' {rows_word} ({'smallest first: ' if len(counts) > 1 else ''}{listed}{more}) are "
                    f"too few: the bootstrap resamples each class within its own rows, so a {pct} interval of a "
                    f"mean over classes misses {100 * miss:.3g}% of the time even for normally distributed scores "
                    f"with the same spread in every class ({how}), more than {MAX_MISS_RATIO:g} times the "
                    f"{100 * (1 - level):.3g}% its level says")
    return ""


def beats(difference, metric, floor=0.0):
    """Whether a (value, low, high) difference (model - other) shows the model better on ``metric``:
    the whole interval lies on the better side of 0, and the difference is at least ``floor`` in size
    (:func:`material_floor`; 0: any size)."""
    value, lo, hi = difference
    if not (np.isfinite(lo) and np.isfinite(hi)) or abs(value) < floor:
        return False
    return hi < 0 if metric in LOWER_IS_BETTER else lo > 0


def worse(difference, metric, floor=0.0):
    """Whether the interval of (model - other) lies entirely on the worse side of 0, and the difference is at least
    ``floor`` in size."""
    value, lo, hi = difference
    if not (np.isfinite(lo) and np.isfinite(hi)) or abs(value) < floor:
        return False
    return lo > 0 if metric in LOWER_IS_BETTER else hi < 0


#: A difference between two models counts ("beats", "not the best available") only when it is at least this share of
#: the larger of their two gains over a constant on the measure (:func:`material_floor`).
MATERIAL_SHARE = 0.01


def constant_scores(y, task, labels=None):
    """{metric: value}: the scores on the rows ``y`` of the best constant prediction there -- their mean; their class
    frequencies as probabilities and the most frequent class as the label (ROC AUC 0.5, Brier 1 - Σ p_k²)."""
    n = len(y)
    if n == 0:
        return {}
    if task == "regression":
        yv = np.asarray(y, dtype=float)
        out = {"pred": np.full(n, yv.mean()), "proba": None}
    else:
        ys = np.asarray(y).astype(str)
        names, counts = np.unique(ys, return_counts=True)
        top = names[np.lexsort((names, -counts))[0]]
        proba = None
        if labels is not None:
            freq = dict(zip(names, counts / n))
            proba = np.tile([freq.get(str(c), 0.0) for c in labels], (n, 1))
        out = {"pred": np.full(n, top, dtype=object).astype(str), "proba": proba}
    return {m: float(v[0]) for m, v in scores(out, y, task, np.ones((1, n)), labels).items()}


def material_floor(res, name, other, metric):
    """The smallest difference between ``name`` and ``other`` on ``metric`` that counts: :data:`MATERIAL_SHARE` of the
    larger of their gains over the constant of :func:`constant_scores` on the same rows -- the scale of what a model
    achieves on that measure there --, capped at :data:`REMAINING_SHARE` of what the worse of the two still misses
    of a perfect score (unless both are within :data:`NEAR_PERFECT` of it). 0 when ``res`` has no constant's score (a
    difference then counts at any size).

    Weekly with its leak (Direction = Up iff Today > 0): two perfect classifiers differed by a Brier score of 9.46e-10,
    an interval [9.18e-10, 9.73e-10] that excludes 0 only because both scores are deterministic, 2e-9 of the model's
    gain over the constant (0.494) -- "the tree beats the model ... not the best available" on rounding.
    """
    const = (res.get("constant") or {}).get(metric)
    scores_ = res.get("scores", {})
    if const is None or not np.isfinite(const) or name not in scores_ or other not in scores_:
        return 0.0
    gains = [abs(scores_[k][metric][0] - const) for k in (name, other)]
    gains = [g for g in gains if np.isfinite(g)]
    if not gains:
        return 0.0
    floor = MATERIAL_SHARE * max(gains)
    # ... but never more than REMAINING_SHARE of what the worse of the two still misses (its distance from a perfect
    # score): near-perfect models differ by little against the constant's gain, yet a GLM with RMSE 0.098 against the
    # model's 0.241 (y = 10 x1 + 0.5 x2 + noise of sd 0.1; 1% of the gain was 0.29) is no tie (review r4). Two models
    # that both miss nothing (Weekly's, 9.46e-10 apart on Brier score) keep the gain's floor.
    short = [_shortfall(scores_[k][metric][0], metric) for k in (name, other)]
    short = [v for v in short if np.isfinite(v)]
    worst = max(short) if short else np.nan
    if np.isfinite(worst) and worst > NEAR_PERFECT * abs(_shortfall(const, metric)):
        floor = min(floor, REMAINING_SHARE * worst)
    return floor


#: A difference below this share of the worse model's shortfall (from a perfect score) is not immaterial.
REMAINING_SHARE = 0.1
#: Both models within this share of the constant's shortfall of a perfect score: both are (numerically) perfect.
NEAR_PERFECT = 1e-6


def _shortfall(v, metric):
    """How far a score is from a perfect one: the loss itself (RMSE, MAE, Brier score, log loss: 0 is perfect), or
    1 minus a score whose best is 1 (R², ROC AUC, accuracy, balanced accuracy)."""
    return float(v) if metric in LOWER_IS_BETTER else 1.0 - float(v)


def largest_gain(difference, measure, baseline):
    """The largest improvement on the baseline the interval of (model - baseline) allows, as a share of the
    baseline's score (NaN when it cannot be said)."""
    _, lo, hi = difference
    best = -lo if measure in LOWER_IS_BETTER else hi
    if not (np.isfinite(best) and np.isfinite(baseline)) or baseline == 0:
        return np.nan
    return float(best / abs(baseline))


#: What each shown, never deciding measure weighs, for the sentence that says it resolves a comparison.
SHOWN_WORDS = {"log loss": "unbounded, it weighs most the rows where a model is confidently wrong",
               "accuracy": "the share of rows classified right, which favours the larger classes"}


def shown_split(res, other, deciding, rows_word="test rows"):
    """(note, split): the shown measures that do not decide (classification: log loss, and accuracy beside balanced
    accuracy) whose 95% interval of the difference (the model minus ``other``) excludes 0 by a material amount
    (:func:`material_floor`) where no deciding measure already says the same -- a tie on the deciding measures beside
    such a difference is no sign that "the simpler model may explain the data as well" (statsmodels anes96: Brier
    score, ROC AUC and balanced accuracy tie with the GLM, and log loss 0.434 against 0.298, difference 0.136
    [0.058, 0.221]). ("", False) when there is none, or when the rows are too few to decide on the measure
    (:func:`too_few_rows`). ``split`` is True when a note is given: the comparison's tie must not be read as
    "explains the data as well". Regression's MAE has its own rule (``_fit.mae_split``); R² is RMSE's ordering.
    """
    from ._blocks import fmt

    diffs = res.get("differences", {}).get(other, {})
    sim = res.get("simultaneous_differences", res.get("differences", {})).get(other, {})
    name = next((k for k in res.get("scores", {}) if k != other and k not in res.get("differences", {})), None)
    if name is None or other not in res.get("scores", {}):
        return "", False
    floors = {k: material_floor(res, name, other, k) for k in deciding if k in sim}
    parts = []
    for m in CLASSIFICATION_METRICS:
        d = diffs.get(m)
        if m in deciding or d is None or not np.isfinite(d[0]) or too_few_rows(res, m, rows_word):
            continue
        floor = material_floor(res, name, other, m)
        won, lost = beats(d, m, floor), worse(d, m, floor)
        if not (won or lost):
            continue
        if any(beats(sim[k], k, f) if won else worse(sim[k], k, f) for k, f in floors.items()):
            continue  # the verdict already says so
        side = "the model" if won else f"the {other}"
        ours, theirs = res["scores"][name][m][0], res["scores"][other][m][0]
        a, b = (ours, theirs) if won else (theirs, ours)
        against = f"the {other}" if won else "the model"
        parts.append(f"on {m} (shown, not deciding; {SHOWN_WORDS.get(m, '')}) {side} is better: {fmt(a)} against "
                     f"{fmt(b)} for {against} (difference {fmt(d[0])} [{fmt(d[1])}, {fmt(d[2])}], "
                     f"{int(round(100 * res['level']))}% interval, the model minus the {other})")
    if not parts:
        return "", False
    tie = not any(beats(sim[k], k, f) or worse(sim[k], k, f) for k, f in floors.items())
    if tie:
        return (f" That holds on the deciding measures only: {'; and '.join(parts)}; so the tie is no sign that the "
                f"model and the {other} explain the data equally well.", True)
    return f" Besides, {'; and '.join(parts)}.", True
