"""What more than one section says or decides (no section imports another; see test_house).

- where the model is scored: :data:`HOW_TO_HOLD_OUT`, :func:`all_rows_warning` (the top warning,
  section 7), :func:`evaluation_sentence` (section 2), :func:`fitted_outside` (sections 1-2);
- which output the effect methods describe: :func:`effect_output` (sections 4, 5, 5b);
- the model against another model on the deciding measures (sections 2 and 6):
  :func:`model_is_glm`, :func:`score_cell`, :func:`join_words`, :func:`one_difference`,
  :func:`level_note`, :func:`compare_models`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._blocks import fmt, text, warning
from ._scores import beats, min_test_rows, too_few_rows, worse

__all__ = ["HOW_TO_HOLD_OUT", "all_rows_warning", "evaluation_sentence", "fitted_outside", "split_is_ordered",
           "effect_output",
           "most_frequent_class", "classes_by_rows", "most_frequent_words",
           "model_is_glm", "score_cell", "join_words", "one_difference", "level_note",
           "compare_models", "decidable", "undecided_words", "interpretable_model", "tie_favours_simpler",
           "beats_baseline", "not_beating_words", "beyond_training_rows", "tied_at_cutoff_words", "beyond_training",
           "beyond_training_note",
           "comparison_beyond_note", "constant_prediction", "no_split_reason"]


# --------------------------------------------------------------------------- where the model is scored
#: How to give rows the model never saw (said wherever the report cannot vouch for its rows).
HOW_TO_HOLD_OUT = ("pass rows it never saw with test_data= (Python) or --test-data FILE (command line); the table "
                   "given as data then serves as the training rows of the refits and of imlkit's own models")


def all_rows_warning(ctx):
    """The top warning of a fitted model scored on the one table it came with."""
    return (f"The model was fitted outside imlkit and only one table was given, so every one of its "
            f"{len(ctx.X_test):,} rows is used to score and explain the model. imlkit cannot know which rows fitted "
            f"the model: if some did, the scores of section 2 and every importance and effect computed from them are "
            f"optimistic (a model is better on rows it was fitted on). To score the model on rows it never saw, "
            f"{HOW_TO_HOLD_OUT}.")


def evaluation_sentence(ctx):
    """Section 2's first sentence: which rows fitted the model and which score it -- true in every case."""
    n_tr, n_te = len(ctx.X_train), len(ctx.X_test)
    if ctx.evaluation == "all_rows":
        return (f"The model: {ctx.model_label}; imlkit did not fit it. It is scored on all {n_te:,} rows of the "
                f"table, and imlkit cannot know which of them fitted the model: if some did, these scores are "
                f"optimistic. The baselines are fitted and scored on the same {n_te:,} rows. To score the model on "
                f"rows it never saw, {HOW_TO_HOLD_OUT}.")
    if ctx.evaluation == "test_data":
        who = ("It was fitted outside imlkit; imlkit cannot check that the test rows were not among its training rows"
               if fitted_outside(ctx) else f"It was fitted on the {n_tr:,} rows given as data")
        return (f"The model: {ctx.model_label}. {who}. It is scored on the {n_te:,} rows given as test data, which "
                f"the baselines and imlkit's own models never see (they are fitted on the {n_tr:,} rows of data).")
    return (f"The model: {ctx.model_label}. Fitted on {n_tr:,} training rows, scored on {n_te:,} held-out test rows "
            f"({ctx.split_words}).")


def split_is_ordered(ctx):
    """Whether imlkit split the rows with ``--split ordered`` (the last rows held out); a context without a
    config (a test's) has the random split."""
    return getattr(getattr(ctx, "config", None), "split", "random") == "ordered"


def fitted_outside(ctx):
    """Whether the explained model came fitted (from Python or a model file) rather than fitted by imlkit."""
    cfg = ctx.config
    return bool(cfg.model_file) or not isinstance(cfg.model, str) and ctx.model is cfg.model


# --------------------------------------------------------------------------- the output the effects describe
def effect_output(ctx):
    """Which output the H-statistic, 2-D PD and REPID describe: the prediction, or P(class).

    ``--class`` (``ctx.target_class``) when given; otherwise None for a regression or a binary
    classifier (the effect methods' default: the probability of the second class), and the
    most frequent training class of a multi-class one (these methods need one class).
    """
    if ctx.task != "classification" or not hasattr(ctx.model, "predict_proba"):
        return None
    if ctx.target_class is not None:
        return ctx.target_class
    classes = list(getattr(ctx.model, "classes_", []))
    if len(classes) == 2:
        return None
    return most_frequent_class(ctx)


def classes_by_rows(ctx):
    """``[(class, training rows)]`` of the model's classes, the most training rows first; ties in the order of the
    model's ``classes_`` (value_counts' order among equal counts is arbitrary: iris's three classes of 35 training
    rows each made "virginica, the most frequent"). None without training rows or classes."""
    classes = list(getattr(ctx.model, "classes_", []))
    y = getattr(ctx, "y_train", None)
    if y is None or not classes:
        return None
    counts = pd.Series(np.asarray(y)).astype(str).value_counts()
    rows = [(k, int(counts.get(str(k), 0))) for k in classes]
    return [rows[i] for i in sorted(range(len(rows)), key=lambda i: (-rows[i][1], i))]


def most_frequent_class(ctx):
    """The model's class with the most training rows (ties: the first in the model's ``classes_``)."""
    ranked = classes_by_rows(ctx)
    if ranked:
        return ranked[0][0]
    return list(getattr(ctx.model, "classes_", [None]))[0]


def most_frequent_words(ctx, output, n_classes):
    """"the most frequent of the 3 classes", or, when other classes have as many training rows, "one of the 3
    classes, all tied for the most training rows (35 each)" -- never "the most frequent" of a tie."""
    ranked = classes_by_rows(ctx)
    if not ranked:
        return f"the most frequent of the {n_classes} classes"
    top = ranked[0][1]
    tied = [k for k, n in ranked if n == top]
    if len(tied) < 2 or not any(str(k) == str(output) for k in tied):
        return f"the most frequent of the {n_classes} classes"
    if len(tied) == n_classes:
        return (f"one of the {n_classes} classes, all tied for the most training rows ({top:,} each; the first in "
                f"the model's order)")
    return (f"one of {len(tied)} of the {n_classes} classes tied for the most training rows ({top:,} each; the first "
            f"in the model's order)")


def tied_at_cutoff_words(ctx, shown):
    """'' or ' (the last 3 of them chosen by the model's order among 498 classes tied at 4 training rows each)': when
    the classes ``shown`` as "the k most frequent" end inside a tie on training rows, the classes past the cutoff
    have as many rows as those shown last, so "most frequent" does not pick them (review rev8 r3-7: 1,000 classes,
    "the 5 most frequent (1, 10, 102, 103, 105)" were 5 of 501 tied at 4 rows)."""
    ranked = classes_by_rows(ctx)
    k = len(shown)
    if not ranked or k >= len(ranked):
        return ""
    cut = ranked[k - 1][1]
    if ranked[k][1] != cut:
        return ""
    tied = sum(1 for _, n in ranked if n == cut)
    inside = sum(1 for _, n in ranked[:k] if n == cut)
    which = "all of them" if inside == k else (f"the last {inside:,} of them" if inside > 1 else "the last of them")
    return (f" ({which} chosen by the model's order among {tied:,} classes tied at {cut:,} training "
            f"row{'' if cut == 1 else 's'} each)")


# --------------------------------------------------------------------------- the model against another model
def model_is_glm(ctx):
    """Whether the explained model is the report's own GLM (``--model glm``): then it is the GLM baseline."""
    cfg = getattr(ctx, "config", None)
    return cfg is not None and isinstance(cfg.model, str) and cfg.model == "glm" and not cfg.model_file


#: Interpretable model kinds: a tie with the GLM baseline is then no sign that "the simpler model may explain the data
#: as well" (a GAM, a RuleFit or a logistic regression is no more complex than the GLM).
INTERPRETABLE_KINDS = ("glm", "gam", "rulefit")


def tie_favours_simpler(ctx, other_beats_baseline=True):
    """Whether a tie between the model and an interpretable one may be read as "the simpler model may explain the
    data as well": the model is not itself interpretable (:func:`interpretable_model`), section 2 found it to beat
    the constant baseline on some measure (Weekly, strikes: neither beat a constant, and a tie of two such models
    says nothing of the simpler one), and the simpler model beats that baseline too (``other_beats_baseline``, from
    :func:`beats_baseline`: statsmodels engel, a GAM with test R² -0.44 "may explain the data as well" as a model
    with R² 0.65, from an interval of their difference that is wide only because the GAM misses by so much)."""
    check = getattr(ctx, "model_check", None)
    return not interpretable_model(ctx) and bool(getattr(check, "decided_by", ())) and bool(other_beats_baseline)


def beats_baseline(diff, deciding):
    """The deciding measures on which a model's paired difference to the constant baseline (``{measure: (value, low,
    high)}``, the model minus the baseline) lies wholly on the model's side of 0; empty when it beats it on none."""
    return tuple(m for m in deciding if m in diff and np.isfinite(diff[m][0]) and beats(diff[m], m))


def not_beating_words(other, base, diff, deciding):
    """Why a tie with ``other`` says nothing of the simpler model: it is not shown to beat the ``base`` baseline
    either, with the numbers."""
    ms = [m for m in deciding if m in diff and np.isfinite(diff[m][0])]
    if not ms:
        return ""
    nums = "; ".join(f"{m} {score_cell(diff[m])}" for m in ms)
    return (f" {other} itself is not shown to beat the {base} baseline on these rows ({other} minus the {base}: "
            f"{nums}), so the tie says nothing of whether it explains the data.")


def interpretable_model(ctx):
    """Whether the explained model is itself a GLM-like or interpretable model: imlkit's ``--model glm``/gam/rulefit
    (or imlkit's GLM, GAM, RuleFit given from Python), or a given model -- a pipeline's last step -- from
    ``sklearn.linear_model`` (LogisticRegression, Ridge, PoissonRegressor, ...)."""
    cfg = getattr(ctx, "config", None)
    if cfg is not None and isinstance(cfg.model, str) and not cfg.model_file:
        return cfg.model in INTERPRETABLE_KINDS
    est = getattr(ctx, "model", None)
    steps = getattr(est, "steps", None)
    if steps:
        est = steps[-1][1]
    module = type(est).__module__
    return module.startswith("sklearn.linear_model") or (
        module.startswith("imlkit") and type(est).__name__.lower() in INTERPRETABLE_KINDS)


# --------------------------------------------------------------------------- test rows beyond the training range
#: A model's verdict is said to rest on the test rows beyond the training range when they carry at least this share
#: of its squared error on the test rows (or the verdict turns without them).
BEYOND_SHARE = 0.5
#: ... and at least this many times their share of the rows (their loss per row at least twice the others').
BEYOND_RATIO = 2.0
#: Features named (with their rows) in that sentence; the rest are counted.
BEYOND_LISTED = 3


def beyond_training_rows(ctx):
    """(mask, words): the test rows whose value of some numeric feature lies outside that feature's [min, max] on the
    training rows, and the features that put them there ("income: 4,958 > its training maximum 2,823"). A feature
    beyond the range on every test row (a time column under an ordered split) is the split, not a few rows, and is
    left out. An empty mask when the model is scored on its own table (no training rows are known) or no feature is
    numeric."""
    from .._dtypes import numeric_or_bool_columns

    X_tr, X_te = getattr(ctx, "X_train", None), getattr(ctx, "X_test", None)
    if X_tr is None or X_te is None or getattr(ctx, "evaluation", "split") == "all_rows":
        return np.zeros(0 if X_te is None else len(X_te), dtype=bool), []
    mask = np.zeros(len(X_te), dtype=bool)
    words = []
    for c in numeric_or_bool_columns(X_tr):
        if c not in X_te.columns or str(X_tr[c].dtype) == "bool":
            continue
        tr = X_tr[c].to_numpy(dtype=float)
        te = X_te[c].to_numpy(dtype=float)
        tr = tr[np.isfinite(tr)]
        if not len(tr):
            continue
        lo, hi = float(tr.min()), float(tr.max())
        with np.errstate(invalid="ignore"):
            above, below = te > hi, te < lo
        if not (above.any() or below.any()):
            continue
        if np.all((above | below)[np.isfinite(te)]):
            # every test row beyond: the split's own order (a year under --split ordered; section 1 says so), not a
            # few rows that a verdict could rest on
            continue
        mask |= above | below
        parts = []
        if above.any():
            k = int(above.sum())
            parts.append(f"{'' if k == 1 else f'{k} rows, up to '}{fmt(float(np.nanmax(te[above])))} > its training "
                         f"maximum {fmt(hi)}")
        if below.any():
            k = int(below.sum())
            parts.append(f"{'' if k == 1 else f'{k} rows, down to '}{fmt(float(np.nanmin(te[below])))} < its training "
                         f"minimum {fmt(lo)}")
        words.append(f"{c}: {', '.join(parts)}")
    return mask, words


def beyond_training_note(ctx, pred, name, rival_pred=None, rival=None, labels=None):
    """:func:`beyond_training`'s sentence ("" when there is nothing to say)."""
    return beyond_training(ctx, pred, name, rival_pred, rival, labels)[0]


def _row_losses(ctx, out, labels=None):
    """(per-row loss, its name, the score of a mean of it): the squared error and RMSE for regression (``out`` the
    predictions or :func:`~imlkit.report._scores.model_outputs`), the Brier score's per-row terms Σ_k (p_k − 1{y =
    k})² and their mean for a classifier with probabilities aligned to ``labels``; None when there are none."""
    task = getattr(ctx, "task", None)
    if task == "regression":
        pred = out["pred"] if isinstance(out, dict) else out
        if pred is None:
            return None
        y = np.asarray(ctx.y_test, dtype=float)
        return (y - np.asarray(pred, dtype=float).reshape(-1)) ** 2, "squared error", "RMSE", \
            lambda v: float(np.sqrt(v.mean()))
    proba = out.get("proba") if isinstance(out, dict) else None
    if task != "classification" or proba is None or not labels:
        return None
    pos = {str(c): j for j, c in enumerate(labels)}
    idx = np.array([pos.get(str(v), -1) for v in np.asarray(ctx.y_test)])
    onehot = np.zeros_like(np.asarray(proba, dtype=float))
    ok = idx >= 0
    onehot[np.flatnonzero(ok), idx[ok]] = 1.0
    return ((np.asarray(proba, dtype=float) - onehot) ** 2).sum(axis=1), "Brier score", "Brier score", \
        lambda v: float(v.mean())


def beyond_training(ctx, pred, name, rival_pred=None, rival=None, labels=None, first=None):
    """(sentence, turns): a sentence when ``name``'s verdict on the test rows -- no better than a constant
    (``rival_pred`` None, regression: its R² against the rows' own mean), or losing to ``rival`` (its RMSE, or for a
    classifier its Brier score, against ``rival_pred``'s) -- rests on test rows beyond the training range of a numeric
    feature: they carry at least ``BEYOND_SHARE`` of its squared error (Brier score), or the verdict turns without
    them. It names the rows, their share and the verdict without them (statsmodels engel: one test row with income
    4,958, beyond the training maximum 2,823, carries 81% of the GAM's squared error; on the other 70 its R² is 0.63),
    and whether the verdict turns without them. ``pred``/``rival_pred``: predictions (regression) or
    :func:`~imlkit.report._scores.model_outputs` (with ``labels`` for a classifier). ``first``: the side whose score
    comes first in the printed difference (``name`` or ``rival``; default ``name``), so that a sentence that has
    given "the model minus the other" keeps that order when the other one loses. ("", False) when there is nothing
    to say."""
    if pred is None:
        return "", False
    mask, words = beyond_training_rows(ctx)
    n = len(mask)
    k = int(mask.sum())
    if k == 0 or k == n:
        return "", False
    # too few rows inside the range to say anything of the verdict there (the bike data under --split ordered: 7 of
    # 2,594): the report's own floor for a 95% interval (review r4)
    if n - k < min_test_rows(0.95):
        return "", False
    got = _row_losses(ctx, pred, labels)
    if got is None:
        return "", False
    loss, loss_word, measure, _ = got
    total = float(loss.sum())
    if not np.isfinite(total) or total <= 0:
        return "", False
    share = float(loss[mask].sum()) / total
    # the rows beyond must carry more of the error than their number does: 99% of the error on 99.7% of the rows
    # is no sign of extrapolation (their RMSE was below the rows' inside, review r4); engel's one row carrying 81%
    # on 1.4% of the rows is
    if share < BEYOND_RATIO * k / n:
        return "", False
    turns, without = _verdict_inside(ctx, pred, name, rival_pred, rival, labels, ~mask, measure, first)
    if turns is None or (share < BEYOND_SHARE and not turns):
        return "", False
    listed = "; ".join(words[:BEYOND_LISTED]) + (f"; and {len(words) - BEYOND_LISTED:,} other features"
                                                 if len(words) > BEYOND_LISTED else "")
    rows = f"{k:,} of the {n:,} test rows lie" if k > 1 else f"1 of the {n:,} test rows lies"
    them = "that row" if k == 1 else "those rows"
    tail = (f"this verdict rests on {them}, where {name} extrapolates"
            if turns else f"the verdict holds without {them}, though most of the error is there, where {name} "
                          f"extrapolates")
    return (f" {rows} beyond the training range ({listed}) and carr{'ies' if k == 1 else 'y'} "
            f"{share:.0%} of {name}'s {loss_word} on the test rows; {without}; {tail}."), turns


def _rows_of(out, keep):
    """Predictions or :func:`~imlkit.report._scores.model_outputs` restricted to the rows ``keep`` (a boolean mask)."""
    if isinstance(out, dict):
        return {k: (None if v is None else np.asarray(v)[keep]) for k, v in out.items()}
    return {"pred": np.asarray(out, dtype=float).reshape(-1)[keep], "proba": None}


def _verdict_inside(ctx, pred, name, rival_pred, rival, labels, inside, measure, first=None):
    """(turns, words): whether the verdict on every test row -- ``name`` no better than a constant (``rival_pred``
    None: its R² against the rows' own mean) or worse than ``rival`` on ``measure`` -- still holds on the rows
    ``inside`` the training range, decided as section 2 decides, by a paired percentile-bootstrap interval (not by
    two point scores: a GAM 0.4% behind a GLM on the other rows is not "still worse"). It holds when the interval
    still lies on the losing side; it turns when the interval no longer does (better, or not distinguishable: the
    verdict then rests on the rows beyond). The difference is printed as ``first`` minus the other, named so
    (default ``name`` minus ``rival``). (None, "") when no interval can be had."""
    from ._scores import score_intervals

    task = getattr(ctx, "task", None)
    y = np.asarray(ctx.y_test)[inside]
    k = int(inside.sum())
    seed = getattr(getattr(ctx, "config", None), "seed", 0)
    if rival_pred is None:
        res = score_intervals({name: _rows_of(pred, inside)}, y, task, seed, labels=labels)
        r2 = res["scores"][name].get("R²")
        if r2 is None or not np.isfinite(r2[1]):
            return None, ""
        turns = r2[1] > 0   # the interval above 0: it beats the other rows' own mean there
        verdict = "above 0" if turns else "not above 0"
        return turns, (f"on the other {k:,} its R² is {score_cell(r2)} (their own mean's is 0; the interval is "
                       f"{verdict})")
    res = score_intervals({name: _rows_of(pred, inside), rival: _rows_of(rival_pred, inside)}, y, task, seed,
                          labels=labels, reference=name)
    mine, theirs = res["scores"][name].get(measure), res["scores"][rival].get(measure)
    d = res["differences"][rival].get(measure)
    if d is None or not (np.isfinite(d[1]) and np.isfinite(d[2])):
        return None, ""
    if worse(d, measure):
        how, turns = "still worse", False
    elif beats(d, measure):
        how, turns = "better", True
    else:
        how, turns = f"not distinguishable from {rival}", True
    a, b = (rival, name) if first == rival else (name, rival)
    shown = (-d[0], -d[2], -d[1]) if first == rival else d
    return turns, (f"on the other {k:,} its {measure} is {fmt(mine[0])} against {fmt(theirs[0])} for {rival} "
                   f"(difference, {a} minus {b}, {score_cell(shown)}: {name} {how})")


def comparison_beyond_note(ctx, d, deciding, name, other, outputs, labels=None, res=None):
    """:func:`beyond_training_note` for the loser of a decided comparison of the model (``name``) with ``other`` on
    test RMSE, or a classifier's Brier score (``d``: the model minus the other; decided as :func:`compare_models`
    decides, with ``res``'s materiality floor); "" for a tie on it, or when nothing is to say."""
    from ._scores import material_floor

    m = "RMSE" if getattr(ctx, "task", None) == "regression" else "Brier score"
    if m not in deciding or m not in d or name not in outputs or other not in outputs:
        return ""
    diff = d[m]
    floor = material_floor(res, name, other, m) if res is not None else 0.0
    if worse(diff, m, floor):
        loser, winner = name, other
    elif beats(diff, m, floor):
        loser, winner = other, name
    else:
        return ""
    words = {name: "the model"}
    return beyond_training(ctx, outputs[loser], words.get(loser, f"the {loser}"), outputs[winner],
                           words.get(winner, f"the {winner}"), labels, first="the model")[0]


# --------------------------------------------------------------------------- a model that predicts one value
def constant_prediction(pred):
    """The one value ``pred`` (n,) holds when every entry is the same (exactly: a constant model, not a near one);
    None otherwise or when there is no prediction."""
    if pred is None:
        return None
    p = np.asarray(pred)
    if p.ndim != 1 or not len(p) or p.dtype.kind not in "fiub":
        return None
    p = p.astype(float)
    return float(p[0]) if np.all(p == p[0]) else None


def no_split_reason(ctx):
    """Why a tree model fitted by imlkit cannot split, when that is the reason it predicts one value: its
    ``min_samples_leaf`` m (an int) is more than half its training rows n, so no split leaves m rows on each side
    (statsmodels statecrime: HistGradientBoosting's default m = 20 on 35 training rows). "" otherwise -- a model fitted
    outside imlkit (its training rows are not known), a fractional m, or n >= 2m (then the cause is something else)."""
    if fitted_outside_safe(ctx) or getattr(ctx, "X_train", None) is None:
        return ""
    est = getattr(ctx, "model", None)
    steps = getattr(est, "steps", None)
    if steps:
        est = steps[-1][1]
    m = getattr(est, "min_samples_leaf", None)
    if not isinstance(m, (int, np.integer)) or isinstance(m, bool):
        return ""
    n = len(ctx.X_train)
    if n >= 2 * m:
        return ""
    return (f"{type(est).__name__}'s min_samples_leaf = {m} leaves no split possible on the {n:,} training rows: a "
            f"split needs at least {m} rows on each side, {2 * m} in all")


def fitted_outside_safe(ctx):
    """:func:`fitted_outside`, False for a context without a config (a test's)."""
    cfg = getattr(ctx, "config", None)
    if cfg is None:
        return False
    return fitted_outside(ctx)


# --------------------------------------------------------------------------- the model against another model: sentences
def score_cell(v):
    """A score or a difference ``(value, low, high)`` as "value [low, high]" ("–" when there is none)."""
    value, lo, hi = v
    if not np.isfinite(value):
        return "–"
    if np.isfinite(lo) and np.isfinite(hi):
        return f"{fmt(value)} [{fmt(lo)}, {fmt(hi)}]"
    return fmt(value)


def level_note(res, deciding, short=False):
    """How the verdict's intervals were made, when they differ from the table's."""
    if len(deciding) < 2:
        return "", False
    level = f"{100 * res['simultaneous_level']:.1f}%"
    if short:
        return f" ({level} simultaneous intervals)"
    return (f" ({level} paired bootstrap intervals, Bonferroni-simultaneous over the {len(deciding)} measures, so "
            f"that passing on any one of them keeps the error rate of a single {100 * res['level']:.0f}% interval)")


def join_words(items, word="and"):
    """``["a", "b", "c"]`` -> "a, b and c" (``word`` joins the last two)."""
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {word} {items[-1]}"


def one_difference(res, name, other, m, d):
    """"ROC AUC 0.971 against 0.5 for the class frequencies (majority class) (difference 0.471 [0.44, 0.49])"."""
    return (f"{m} {fmt(res['scores'][name][m][0])} against {fmt(res['scores'][other][m][0])} for the {other} "
            f"(difference {score_cell(d)})")


def not_best(other, word, lost=(), open_=()):
    """What a comparison the model loses shows: on held-out test rows, that a better model exists; on the rows of an
    all-rows evaluation ("evaluation" rows, which fitted ``other`` and may have fitted the model), only that ``other``
    fits those rows better -- its in-sample score is optimistic, so "not the best available" is not shown.

    ``lost``/``open_``: the deciding measures the model loses on and those left undecided. With some undecided the
    conclusion is said on the measures it rests on ("not the best available on balanced accuracy"): Credit's one-hot
    logistic regression lost to a completely separated GLM on balanced accuracy (a threshold at 0.5) while the Brier
    score and ROC AUC, which judge the whole probability, were undecided -- "not the best available" unqualified
    made one measure speak for the others.
    """
    if word == "test":
        if lost and open_:
            return (f"On {join_words(lost)} the report explains a model that is not the best available; on "
                    f"{join_words(open_)} neither is shown better, so it is not shown to be worse there.")
        return "The report explains a model that is not the best available."
    return (f"These rows are in-sample for the {other} (it was fitted on them), so its score is optimistic: this does "
            f"not show that a better model exists; score both on rows neither saw (--test-data) to decide.")


def decidable(res, deciding, rows_word="test rows"):
    """The deciding measures the rows of ``res`` can decide on, and ``{measure: why not}`` for the others
    (:func:`~imlkit.report._scores.too_few_rows`: too few rows overall, or a class with too few rows)."""
    why = {m: too_few_rows(res, m, rows_word) for m in deciding}
    return [m for m in deciding if not why[m]], {m: w for m, w in why.items() if w}


def undecided_words(short):
    """"on Brier score: <why>; on ROC AUC and balanced accuracy: <why>" -- measures sharing a reason named together."""
    by = {}
    for m, w in short.items():
        by.setdefault(w, []).append(m)
    return "; ".join(f"on {join_words(ms)}: {w}" for w, ms in by.items())


def compare_models(res, name, other, d, deciding, note, word="test", simpler=True, rows_word="test rows",
                   shown="the table of section 2 shows both scores with their intervals"):
    """The model against another baseline (the GLM) on the deciding measures.

    ``simpler=False`` (:func:`tie_favours_simpler`) when a tie is no sign that "the simpler model may explain the data
    as well": the model is itself an interpretable model (a GAM is not simpler than the GLM it ties with), or it is
    not shown to beat the constant baseline (two models that may both be noise). ``shown``: where the reader finds
    both scores ("" when no table shows them with intervals).
    """
    deciding, short = decidable(res, deciding, rows_word)
    if not deciding:
        return text(f"Too few {rows_word} to decide between the model and {other} ({undecided_words(short)}): no "
                    f"verdict is taken" + (f"; {shown}." if shown else "."))
    skipped = (f" Not judged on {join_words(list(short))}: too few {rows_word} ({undecided_words(short)})."
               if short else "")
    return _compare_decidable(res, name, other, d, deciding, note, word, simpler, skipped)


def _compare_decidable(res, name, other, d, deciding, note, word, simpler, skipped):
    """:func:`compare_models` on the measures the rows can decide; ``skipped`` says which they cannot."""
    blk = _comparison(res, name, other, d, deciding, note, word, simpler)
    return {**blk, "text": blk["text"] + skipped}


def _immaterial(res, name, other, ms, d):
    """"Brier score 9.46e-10 [9.18e-10, 9.73e-10], below 0.00494 (1% of the larger gain over a constant, 0.494)" for
    each measure whose difference excludes 0 but is smaller than :func:`~imlkit.report._scores.material_floor`."""
    from ._scores import MATERIAL_SHARE, material_floor

    out = []
    for m in ms:
        floor = material_floor(res, name, other, m)
        out.append(f"{m} {score_cell(d[m])}, below {fmt(floor)} ({100 * MATERIAL_SHARE:g}% of the larger gain over a "
                   f"constant on it, {fmt(floor / MATERIAL_SHARE)})")
    return "; ".join(out)


def _comparison(res, name, other, d, deciding, note, word, simpler):
    from ._scores import material_floor

    # scoped to the measures decided on: a shown measure that does not decide may separate the two (anes96's log
    # loss, a regression's MAE), so "neither fits better" unqualified says more than these intervals do
    tie = ("the simpler model may explain the data as well" if simpler
           else f"neither is shown to fit these rows better on {join_words(list(deciding))}")
    # a difference counts only when it is also material: at least MATERIAL_SHARE of the larger gain over a constant on
    # that measure (Weekly with its leak: two perfect classifiers, "the tree beats the model" on a Brier score of
    # 9.46e-10, an interval that excluded 0 only because both scores are deterministic)
    floors = {m: material_floor(res, name, other, m) for m in deciding}
    won = [m for m in deciding if beats(d[m], m, floors[m])]
    lost = [m for m in deciding if worse(d[m], m, floors[m])]
    same = [m for m in deciding if m not in won and m not in lost and (beats(d[m], m) or worse(d[m], m))]
    many = len(same) > 1
    same_words = (f"the interval{'s' if many else ''} exclude{'' if many else 's'} 0, but the "
                  f"difference{'s are' if many else ' is'} immaterial: {_immaterial(res, name, other, same, d)}")
    if len(deciding) == 1:
        m = deciding[0]
        if lost:
            tail = (": the report explains a model that is not the best available." if word == "test"
                    else f". {not_best(other, word)}")
            return warning(f"{other} beats the model on {word} {m} (difference {score_cell(d[m])}){tail}")
        if won:
            return text(f"The model improves {word} {m} over {other} from {fmt(res['scores'][other][m][0])} to "
                        f"{fmt(res['scores'][name][m][0])} (difference {score_cell(d[m])}).")
        if same:
            return text(f"The model and {other} score the same on {word} {m} on these rows ({same_words}): {tie}.")
        return text(f"The model and {other} are not distinguishable on {word} {m} (difference {score_cell(d[m])} "
                    f"includes 0): {tie}.")
    # each verdict lists the numbers of the measures that decide it; a measure whose interval includes 0 is named
    # apart ("not decided on ..."), never inside the list after "beats the model on X:" as if it were one of them
    open_ = [m for m in deciding if m not in won and m not in lost and m not in same]

    def listed(ms):
        return "; ".join(one_difference(res, name, other, m, d[m]) for m in ms)

    includes = "the interval includes 0" if len(open_) == 1 else "each interval includes 0"
    undecided = ""
    if open_ and (won or lost):
        undecided = f" Not decided on {join_words(open_, 'or')} ({includes}): {listed(open_)}."
    if same and (won or lost or open_):
        undecided += f" The same on {join_words(same)} on these rows ({same_words})."
    if lost and not won:
        return warning(f"{other} beats the model on {word} {join_words(lost)}{note}: {listed(lost)}.{undecided} "
                       f"{not_best(other, word, lost, open_ + same)}")
    if won and not lost:
        return text(f"The model improves over {other} on {word} {join_words(won)}{note}: {listed(won)}.{undecided}")
    if won:
        return text(f"The model is better than {other} on {word} {join_words(won)} and worse on "
                    f"{join_words(lost)}{note}: {listed(won + lost)}.{undecided}")
    if not open_:
        return text(f"The model and {other} score the same on {word} {join_words(same)} on these rows{note} "
                    f"({same_words}). {tie[0].upper() + tie[1:]}.")
    return text(f"The model and {other} are not distinguishable on {word} {join_words(open_)}{note}: "
                f"{listed(open_)}.{undecided} {tie[0].upper() + tie[1:]}.")
