"""Section 2: is the model worth explaining? Its test scores next to simple baselines, with intervals.

The model is compared with the mean / majority-class baseline and a GLM on proper scores,
each with a paired percentile-bootstrap interval over the test rows (the same resamples for
every model, seeded by the run's seed). When the model's main score is not better than the
baseline's -- the interval of their difference includes 0 or favours the baseline -- the
report opens with a warning that the model is "no better than" the baseline: its
importance and effects then describe noise. A column that alone predicts the test target
almost perfectly is flagged as a possible leak.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._dtypes import has_levels
from ._blocks import Section, fmt, table, text, warning
from ._figures import draw_performance, figure_block, new_figure, report_style
from ._fit import MeanBaseline, baseline_models
from ._scores import (
    CLASSIFICATION_METRICS,
    LOWER_IS_BETTER,
    REGRESSION_METRICS,
    beats,
    class_labels,
    main_metric,
    model_outputs,
    score_intervals,
    worse,
)

__all__ = ["section_model", "leak_candidates", "LEAK_R2", "LEAK_ACCURACY"]

#: A single column whose one-feature model reaches this test R² (regression) ...
LEAK_R2 = 0.95
#: ... or this balanced accuracy (classification) is flagged as a possible leak.
LEAK_ACCURACY = 0.99
#: Fewest test rows for the leak check (a perfect score on a handful of rows is no evidence).
LEAK_MIN_ROWS = {"regression": 20, "classification": 50}


def _cell(v):
    value, lo, hi = v
    if not np.isfinite(value):
        return "–"
    if np.isfinite(lo) and np.isfinite(hi):
        return f"{fmt(value)} [{fmt(lo)}, {fmt(hi)}]"
    return fmt(value)


def _fit_baseline(ctx, name, est):
    """Fit one baseline; a GLM with more terms than training rows is refitted with a ridge penalty
    (imlkit's GLM ``alpha``) rather than lost, and the report says so."""
    from .._validation import ValidationError

    X, y = ctx.rows("baselines", "train")
    try:
        return est.fit(X, y)
    except ValidationError as exc:
        if "more rows than model terms" not in str(exc) or "glm" not in getattr(est, "named_steps", {}):
            raise
    est.set_params(glm__alpha=1.0)
    ctx.notes.append(f"The {name} baseline has more terms than the {len(X):,} training rows; it was "
                     f"fitted with a ridge penalty (alpha = 1 on standardised columns), so it has no intervals.")
    return est.fit(X, y)


def _fit_baselines(ctx):
    """The baselines fitted on the training rows (each in its own guard): name -> estimator, and boxes."""
    fitted, blocks = {}, []
    for name, est in baseline_models(ctx.task, ctx.X_train, ctx.y_train).items():
        def fit(name=name, est=est):
            with ctx.step(f"baseline: {name}", estimator=type(est).__name__):
                fitted[name] = _fit_baseline(ctx, name, est)
            return []

        blocks += ctx.guard(f"baseline {name}", fit)
    return fitted, blocks


def section_model(ctx):
    """Test scores with intervals of the black box, the mean/majority baseline and a GLM; the verdict."""
    task = ctx.task
    from ._sec_data import evaluation_sentence

    blocks = [text(evaluation_sentence(ctx))]
    fitted, boxes = _fit_baselines(ctx)
    labels = class_labels(ctx.model, ctx.y_train, ctx.y_test) if task == "classification" else None
    outputs = {ctx.model_label: model_outputs(ctx.model, ctx.X_test, task, labels)}
    for name, est in fitted.items():
        def predict(name=name, est=est):
            outputs[name] = model_outputs(est, ctx.X_test, task, labels)
            return []

        boxes += ctx.guard(f"baseline {name}", predict)
    has_proba = outputs[ctx.model_label]["proba"] is not None
    key = main_metric(task, has_proba)
    res = score_intervals(outputs, ctx.y_test, task, ctx.seed, labels=labels, reference=ctx.model_label)
    metrics = [m for m in (REGRESSION_METRICS if task == "regression" else CLASSIFICATION_METRICS)
               if any(np.isfinite(res["scores"][k][m][0]) for k in res["scores"])]
    how = (f"{int(100 * res['level'])}% percentile intervals from {res['n_boot']} paired bootstrap resamples of the "
           f"{len(ctx.y_test):,} test rows (seed {ctx.seed}; the same resamples for every model)")
    blocks.append(table(["model"] + metrics, [[k] + [_cell(v[m]) for m in metrics] for k, v in res["scores"].items()],
                        caption=f"Test scores ({'lower' if key in LOWER_IS_BETTER else 'higher'} {key} is better); "
                                f"{how}"))
    if res["differences"]:
        blocks.append(table(["compared with"] + metrics,
                            [[k] + [_cell(v[m]) for m in metrics] for k, v in res["differences"].items()],
                            caption="The model's score minus each baseline's score, with its paired interval"))
    blocks += boxes
    blocks += _verdict(ctx, res, fitted, key)
    blocks += ctx.guard("leak check", lambda: _leak_blocks(ctx), kind="part")
    blocks += ctx.guard("figure: model scores", lambda: _figure(ctx, res, key), kind="figure")
    return Section("model", "2. Model and baselines", blocks)


def _mean_baseline_name(fitted):
    for name, est in fitted.items():
        if isinstance(est, MeanBaseline):
            return name
    return next(iter(fitted), None)


def _verdict(ctx, res, fitted, key):
    """The "no better than" check against the mean/majority baseline and the comparison with the GLM."""
    blocks = []
    diffs = res["differences"]
    model_score = res["scores"][ctx.model_label][key]
    base = _mean_baseline_name(fitted)
    if base in diffs:
        d = diffs[base][key]
        if not beats(d, key):
            side = "favours the baseline" if worse(d, key) else "includes 0"
            msg = (f"The model is no better than the {base} baseline on the test rows: test {key} "
                   f"{_cell(model_score)} against {_cell(res['scores'][base][key])} for the {base}; the interval of "
                   f"their difference, {_cell(d)}, {side}. Its importance and effect explanations below describe "
                   f"noise (what the model does), not a relationship in the data.")
            ctx.model_check.no_better_than = base
            ctx.alerts.append(msg)
            blocks.append(warning(msg))
        else:
            blocks.append(text(f"The model beats the {base} baseline on test {key}: difference {_cell(d)} "
                               f"(the interval excludes 0)."))
    for name, d in diffs.items():
        if name == base or key not in d:
            continue
        if worse(d[key], key):
            blocks.append(warning(f"{name} beats the model on test {key} (difference {_cell(d[key])}): the report "
                                  f"explains a model that is not the best available."))
        elif beats(d[key], key):
            blocks.append(text(f"The model improves test {key} over {name} from {fmt(res['scores'][name][key][0])} to "
                               f"{fmt(model_score[0])} (difference {_cell(d[key])})."))
        else:
            blocks.append(text(f"The model and {name} are not distinguishable on test {key} (difference "
                               f"{_cell(d[key])} includes 0): the simpler model may explain the data as well."))
    return blocks


def _figure(ctx, res, key):
    perf = {k: {key: v[key][0]} for k, v in res["scores"].items()}
    intervals = {k: v[key][1:] for k, v in res["scores"].items()}
    with ctx.step("figure: model scores"), report_style():
        fig, ax = new_figure(figsize=(6, 0.4 * len(perf) + 1.2))
        draw_performance(perf, key, ax[0, 0], intervals=intervals)
        return [figure_block(fig, f"Bar chart of test {key} per model with its bootstrap interval")]


# --------------------------------------------------------------------------- possible leaks
def _single_feature_score(col_train, y_train, col_test, y_test, task, seed):
    """Test R² (regression) or balanced accuracy (classification) of a model using one column alone.

    Categorical: the training mean / majority class per level (unseen levels get the overall
    one). Numeric: a shallow tree (depth 6, leaves of >= 3 rows) -- it catches any monotone or
    step-like dependence, the usual shape of a leak.
    """
    from sklearn import metrics

    if has_levels(col_train):  # category, text and bool: per-level mean / majority
        tr, te = col_train.astype(str).to_numpy(), col_test.astype(str).to_numpy()
        frame = pd.DataFrame({"x": tr, "y": y_train.to_numpy()})
        if task == "regression":
            table_ = frame.groupby("x")["y"].mean()
            default = float(y_train.mean())
        else:
            table_ = frame.groupby("x")["y"].agg(lambda v: v.value_counts().index[0])
            default = y_train.value_counts().index[0]
        pred = pd.Series(te).map(table_).fillna(default).to_numpy() if task == "regression" else \
            np.array([table_.get(v, default) for v in te], dtype=object)
    else:
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

        cls = DecisionTreeRegressor if task == "regression" else DecisionTreeClassifier
        tree = cls(max_depth=6, min_samples_leaf=3, random_state=seed)
        xtr = np.asarray(col_train, dtype=float).reshape(-1, 1)
        xte = np.asarray(col_test, dtype=float).reshape(-1, 1)
        pred = tree.fit(xtr, y_train.to_numpy()).predict(xte)
    if task == "regression":
        return float(metrics.r2_score(y_test.to_numpy(dtype=float), np.asarray(pred, dtype=float)))
    return float(metrics.balanced_accuracy_score(y_test.astype(str).to_numpy(), np.asarray(pred).astype(str)))


def leak_candidates(X_train, y_train, X_test, y_test, task, seed=0):
    """Columns that alone predict the test target almost perfectly: list of (column, score, metric).

    A one-feature model is fitted on the training rows and scored on the test rows; a column
    is flagged when it reaches R² > ``LEAK_R2`` (regression) or balanced accuracy >=
    ``LEAK_ACCURACY`` (classification) on at least ``LEAK_MIN_ROWS`` test rows. Such a column
    is often the target in disguise (recorded after the outcome, or computed from it).
    """
    if len(y_test) < LEAK_MIN_ROWS[task] or (task == "classification" and y_test.nunique() < 2):
        return []  # a perfect score on few rows, or on one class, is no evidence
    found = []
    for c in X_train.columns:
        try:
            s = _single_feature_score(X_train[c], y_train, X_test[c], y_test, task, seed)
        except (ValueError, TypeError):  # a column a one-feature model cannot take is no leak evidence
            continue
        if (task == "regression" and s > LEAK_R2) or (task == "classification" and s >= LEAK_ACCURACY):
            found.append((c, s, "R²" if task == "regression" else "balanced accuracy"))
    return found


def _leak_blocks(ctx):
    with ctx.step("leak check (one-feature models)", columns=ctx.X_train.shape[1],
                  threshold=f"R² > {LEAK_R2}" if ctx.task == "regression" else f"balanced accuracy >= {LEAK_ACCURACY}"):
        found = leak_candidates(*ctx.rows("leak", "train"), *ctx.rows("leak"), ctx.task, ctx.seed)
    blocks = []
    for c, s, metric in found:
        msg = (f"Possible leak: the column {c!r} alone predicts {ctx.data.target!r} almost perfectly (test {metric} "
               f"{s:.3f} from a one-feature model on {ctx.row_use[('leak', 'test')].used:,} test rows). Check that "
               f"it is known before the target is; if it is computed from the target, leave it out with --features.")
        ctx.alerts.append(msg)
        blocks.append(warning(msg))
    if not found and len(ctx.y_test) >= LEAK_MIN_ROWS[ctx.task] and ctx.y_test.nunique() >= 2:
        blocks.append(text("No single column predicts the target almost perfectly on its own (no sign of a leak)."))
    return blocks

