"""Section "Individual predictions": SHAP waterfalls of three chosen test rows and a beeswarm.

The rows: the largest error, the most extreme prediction and a typical one (the prediction
closest to the median). Tree models go through the exact TreeSHAP kernel; other models get
a smaller row budget, a smaller background and, beyond 10 features, the permutation
estimator with a capped number of orderings, so the section stays within seconds.
"""
from __future__ import annotations

import numpy as np

from .._validation import ModelError, ValidationError
from ..local import shap
from ._blocks import Section, collapse_ranked, table, text
from ._claims import evidence
from ._figures import figure_block, new_figure, report_style
from ._fit import MANY_CLASSES
from ._labels import class_label
from ._shared import effect_output

__all__ = ["section_local", "TITLE"]

TITLE = "5b. Individual predictions"
#: Background rows (from the explained rows) and, for models without trees, rows and orderings.
N_BACKGROUND = 100
N_BACKGROUND_AGNOSTIC = 32
ROWS_AGNOSTIC = 40
ORDERINGS_AGNOSTIC = 64


def _explained(ctx, X):
    """(values of the explained output (n,), class label or None, its text)."""
    if ctx.task == "classification" and hasattr(ctx.model, "predict_proba"):
        cls = effect_output(ctx)
        classes = list(ctx.model.classes_)
        c = classes[-1] if cls is None else cls
        col = [str(k) for k in classes].index(str(c))
        return (np.asarray(ctx.model.predict_proba(X), dtype=float)[:, col], classes[col],
                f"P({ctx.data.target} = {class_label(classes[col], classes)})")
    return np.asarray(ctx.model.predict(X), dtype=float), None, f"the predicted {ctx.data.target}"


def _errors(ctx, X, y):
    if ctx.task == "classification" and hasattr(ctx.model, "predict_proba"):
        proba = np.asarray(ctx.model.predict_proba(X), dtype=float)
        pos = {str(c): k for k, c in enumerate(ctx.model.classes_)}
        idx = np.array([pos.get(str(v), -1) for v in y])
        p_true = np.where(idx >= 0, proba[np.arange(len(y)), np.maximum(idx, 0)], 0.0)
        return 1.0 - p_true, "1 − P(true class)"
    return np.abs(np.asarray(y, dtype=float) - np.asarray(ctx.model.predict(X), dtype=float)), "|error|"


def choose_rows(pred, err):
    """Positions of (largest error, most extreme prediction, typical prediction), distinct when possible; only the
    largest error when every prediction is the same (statsmodels statecrime, a constant model: a "most extreme" and a
    "typical" row picked among 16 predictions of 430.1 each)."""
    if len(pred) and np.all(np.asarray(pred) == np.asarray(pred)[0]):
        return [int(np.argsort(-err, kind="stable")[0])]
    chosen = []
    for order in (np.argsort(-err, kind="stable"), np.argsort(-np.abs(pred - np.mean(pred)), kind="stable"),
                  np.argsort(np.abs(pred - np.median(pred)), kind="stable")):
        pick = next((int(i) for i in order if int(i) not in chosen), int(order[0]))
        chosen.append(pick)
    return chosen


def _record_rows(ctx, n_read, chosen, n_swarm):
    """The rows table's SHAP entry: the rows whose SHAP values were computed (the chosen three and the beeswarm's
    first ``n_swarm``), not every row read to choose them (iris, model-agnostic path: "SHAP 45 of 45" where 40 rows
    had SHAP values)."""
    from dataclasses import replace

    use = getattr(ctx, "row_use", {}).get(("shap", "test"))
    if use is None:
        return
    explained = len(set(range(n_swarm)) | {int(r) for r in chosen})
    if explained != n_read:
        ctx.row_use[("shap", "test")] = replace(use, used=explained)


def section_local(ctx):
    """The section's blocks; runs when ``shap`` is among ``--methods``."""
    if not ctx.methods("shap"):
        return Section("local", TITLE, [text("Not computed: 'shap' was not selected with --methods.")])
    X, y = ctx.rows("shap")
    pred, cls, what = _explained(ctx, X)
    err, err_name = _errors(ctx, X, y)
    rows = choose_rows(pred, err)
    n_bg = min(N_BACKGROUND, len(X))
    # Exact TreeSHAP of the probability (forests) or, for a binary boosted model whose probability is
    # not affine in its trees, of its log-odds; otherwise the smaller model-agnostic budget.
    links = (None, "logit") if cls is not None else (None,)
    first, link = None, None
    # the step's background is logged once chosen: the model-agnostic path uses N_BACKGROUND_AGNOSTIC rows, not n_bg
    # (iris: "background=45" logged, 32 used)
    with ctx.step("SHAP of the chosen rows", rows=len(rows)) as entry:
        for link in links:
            try:
                first = shap(ctx.model, X.iloc[rows], background=X.iloc[:n_bg], class_=cls, link=link,
                             engine="trees", random_state=ctx.seed)
                break
            except (ValidationError, ModelError):
                continue
        trees = first is not None
        if trees:
            Xb, bg = X, X.iloc[:n_bg]
            opts = {"link": link}
            if link == "logit":
                what = f"the log-odds of {what}"
                pred = np.log(np.clip(pred, 1e-12, 1)) - np.log(np.clip(1 - pred, 1e-12, 1))
        else:
            budget = ctx.params.max_features
            if budget is not None and X.shape[1] > budget:
                # The permutation estimator evaluates every prefix of every ordering: its cost grows with p
                # (2,308 genes: hours). Beyond the feature budget the section says so instead, and section 7 lists
                # no SHAP step or rows as used (the step was opened to try TreeSHAP; a "(not run" record also
                # keeps its rows out of the rows table): OJ's "SHAP of the chosen rows rows=3" and "SHAP test rows
                # 300 of 321" beside 5b's "Not computed" (review r1 rev8).
                entry.step = (f"SHAP (not run: no exact TreeSHAP for this model, and the permutation estimator is "
                              f"over the feature budget: {X.shape[1]:,} features, budget {budget})")
                entry.parameters.clear()
                getattr(ctx, "row_use", {}).pop(("shap", "test"), None)
                return Section("local", TITLE, [text(
                    f"Not computed: this model's SHAP values need the permutation estimator (no exact TreeSHAP for "
                    f"its output), whose cost grows with the number of features, and the table has "
                    f"{X.shape[1]:,} features, more than the report's feature budget of {budget}. Use --full "
                    f"(or --max-features {X.shape[1]}) to compute it anyway, or imlkit.shap(...) with fewer "
                    f"features.")])
            Xb, bg = X.iloc[:ROWS_AGNOSTIC], X.iloc[:min(N_BACKGROUND_AGNOSTIC, len(X))]
            # engine "auto": a boosted model's probability has no closed-form TreeSHAP, but the same game's
            # coalition values come from its trees (10 classes, 9 features: 24 s of CPU through predict_proba,
            # 2 s this way).
            opts = {"n_permutations": ORDERINGS_AGNOSTIC, "engine": "auto"}
            first = shap(ctx.model, X.iloc[rows], background=bg, class_=cls, random_state=ctx.seed, **opts)
        entry.parameters["background"] = len(bg)
    n_classes = len(getattr(ctx.model, "classes_", ()))
    swarm = None
    if trees or n_classes <= MANY_CLASSES:
        with ctx.step("SHAP beeswarm", rows=len(Xb), background=len(bg), engine=first.extra.get("engine")):
            swarm = shap(ctx.model, Xb, background=bg, class_=cls, random_state=ctx.seed, **opts)
    _record_rows(ctx, len(X), rows, len(Xb) if swarm is not None else 0)
    how = ("exact interventional TreeSHAP on the model's trees" if trees else
           "exact enumeration of the coalitions" if first.extra.get("exact") else
           f"the permutation estimator (at most {ORDERINGS_AGNOSTIC} orderings per row)")
    if not trees and first.extra.get("engine") == "trees":
        how += ", each coalition's mean over the background rows computed from the model's trees"
    # "section 3's marginal SAGE" only when section 3 has one (--methods without sage, or SAGE conditional only,
    # or a SAGE that failed: the sentence pointed at a table column that does not exist)
    sage = getattr(getattr(ctx, "importance", None), "sage_marginal", None)
    blocks = [text(f"SHAP values split each prediction ({what}) into one contribution per feature: the "
                   f"prediction minus the mean prediction over {len(bg)} background {ctx.eval_rows} "
                   f"({first.base_values[0]:.4g}) is the sum of the contributions (interventional Shapley values, "
                   f"{how}). The mean over rows of the Shapley values of each row's loss (ik.shap(..., output='loss')) "
                   f"is marginal SAGE with the same background (SAGE is the average loss-SHAP value)"
                   + ("; section 3's marginal SAGE estimates it with a background sample and orderings of its own, "
                      "so its values match these only up to that sampling." if sage is not None else "."))]
    labels = ["largest error", "most extreme prediction", "typical prediction"][:len(rows)]
    if len(rows) == 1:
        # every prediction equal: no row is more extreme or more typical than another
        blocks.append(text(f"Every one of the {len(X):,} {ctx.eval_rows} read here has the same prediction "
                           f"({what}: {pred[rows[0]]:.4g}), so no row's prediction is more extreme or more typical "
                           f"than another's: one row is explained, the one with the largest {err_name}."))
    blocks.append(table(["row", "why chosen", what, err_name],
                        [[str(X.index[r]), lab, f"{pred[r]:.4g}", f"{err[r]:.4g}"] for r, lab in zip(rows, labels)],
                        caption=(f"The three explained {ctx.eval_rows}" if len(rows) == 3 else
                                 f"The explained {ctx.eval_rows[:-1] if ctx.eval_rows.endswith('s') else ctx.eval_rows}"
                                 if len(rows) == 1 else f"The explained {ctx.eval_rows}")))
    blocks += ctx.guard("figure: SHAP waterfalls", lambda: [_waterfalls(first, labels, ctx.eval_rows)], kind="figure")
    if swarm is None:
        # The permutation estimator predicts every class's probability for each of its rows × orderings
        # × background rows; with many classes the beeswarm of ROWS_AGNOSTIC rows cost more than the rest
        # of a --quick report (100 classes: 26 s of 109 s). The three rows above are still explained.
        blocks.append(text(
            f"No beeswarm: this model has no exact TreeSHAP for its output, so the beeswarm's {len(Xb)} rows "
            f"would need the permutation estimator (up to {ORDERINGS_AGNOSTIC} orderings × {len(bg)} background "
            f"rows per row, each predicting all {n_classes:,} classes' probabilities); the report draws it only "
            f"up to {MANY_CLASSES} classes. imlkit.shap(model, X, class_=...) computes it."))
        return Section("local", TITLE, blocks)
    blocks += ctx.guard("figure: SHAP beeswarm", lambda: [_beeswarm(swarm, ctx.eval_rows)], kind="figure")
    blocks.append(_beside(ctx, swarm))
    return Section("local", TITLE, blocks)


def _waterfalls(result, labels, rows_word):
    with report_style():
        fig, axes = new_figure(nrows=len(labels), ncols=1, figsize=(7.5, 2.8 * len(labels)))
        for k, lab in enumerate(labels):
            ax = result.plot("waterfall", row=k, ax=axes[k, 0], max_display=8)
            ax.set_title(f"{lab} (row {result.data.index[k]})", fontsize=10)
        alt = (f"SHAP waterfalls of three {rows_word}" if len(labels) == 3 else
               f"SHAP waterfall of one {rows_word[:-1] if rows_word.endswith('s') else rows_word}")
        return figure_block(fig, alt,
                            caption="From the mean prediction (dashed) to the row's prediction, feature by feature "
                                    "(the largest contributions first, the rest summed)")


def _beeswarm(result, rows_word):
    with report_style():
        fig, axes = new_figure(figsize=(7.5, 0.42 * min(len(result.feature_names), 12) + 1.6))
        result.plot("beeswarm", ax=axes[0, 0], max_display=12)
        return figure_block(fig, f"SHAP beeswarm of the {rows_word}",
                            caption=f"Each dot is one of {len(result.values)} {rows_word}: its SHAP value for the "
                                    "feature, coloured by the feature's value (rank)")


def _beside(ctx, swarm):
    """Mean |SHAP| beside the importances of section 3 (each ranked)."""
    imp = swarm.importance()
    results = ctx.importance.compared() if hasattr(ctx, "importance") else {}
    heads = ["feature", "mean |SHAP| (prediction)"]
    cols, budgeted = [], []
    p = len(imp.feature_names)
    for key, r in results.items():
        if key in ("pfi", "sage_marginal"):
            name = "PFI" if key == "pfi" else "SAGE (marginal)"
            # a SAGE section 3 does not read (short of convergence by more than the reading allows) is shown as such,
            # not as a value beside the others (review rev8 r3-6: Caravan's SAGE column beside "did not converge ...
            # not read here"); the reading's own rule, Evidence.readable
            if key == "sage_marginal" and hasattr(r, "params") and not all(e.readable for e in evidence(r).values()):
                name += " (did not converge; not read)"
            heads.append(name)
            scored = {f: v for f, v in zip(r.feature_names, r.importance) if f in set(imp.feature_names)}
            cols.append(scored)
            if len(scored) < p:
                budgeted.append((name.split(" (did")[0], len(scored)))
    order = np.argsort(-imp.importance, kind="stable")
    rows = []
    for j in order:
        f = imp.feature_names[j]
        rows.append([str(f), f"{imp.importance[j]:.4g}"] + [f"{c[f]:.4g}" if f in c else "" for c in cols])
    # the caption names the importances shown beside it (anes96 --methods without pfi/sage: "beside how much it lowers
    # the loss (PFI, SAGE; section 3)" over a table of mean |SHAP| alone) and the rows the mean is over (40 of an SVC's
    # 283 test rows, beside a PFI of all 283)
    over = f"over {len(swarm.values):,} {ctx.eval_rows}"
    beside = heads[2:]
    # the first 20 open, the rest behind a summary line, as section 3's table (wide: 2,000 rows, most of them 0)
    # blank cells say why (Caravan: 70 of 85 rows blank, the 5th by mean |SHAP| among them, under no word)
    blank = ""
    if budgeted:
        blank = "; blank: not scored -- " + "; ".join(
            f"{name} scored {k:,} of the {p:,} features (the feature budget, section 3)" for name, k in budgeted)
    return collapse_ranked(table(heads, rows, caption=f"How much each feature moves the predictions (mean |SHAP| "
                                                      f"{over}, no target needed)"
                                 + (f" beside how much it lowers the loss ({', '.join(beside)}; section 3{blank})"
                                    if beside else "")))
