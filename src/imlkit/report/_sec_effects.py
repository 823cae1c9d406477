"""Sections 4 and 5: effects of the most important features (ICE, PD, ALE, H) and REPID regions."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import effects as eff
from ._context import Section, frame_table, table, text
from ._figures import figure_block, new_figure, report_style

__all__ = ["section_effects", "section_regional", "top_features", "effect_output", "choose_repid_feature"]


def top_features(ctx, k):
    """The ``k`` features with the largest importance, averaged over methods on a relative scale.

    Without importance results (none selected), the first ``k`` columns.
    """
    results = {m: r for m, r in ctx.importance.items() if m != "pimp"}
    cols = list(ctx.X_test.columns)
    if not results:
        return cols[:k]
    score = pd.Series(0.0, index=cols)
    for r in results.values():
        top = np.nanmax(np.abs(r.importance))
        if not np.isfinite(top) or top <= 0:
            continue
        for f, v in zip(r.feature_names, r.importance):
            if f in score.index and np.isfinite(v):
                score[f] += v / top
    return list(score.sort_values(ascending=False, kind="stable").index[:k])


def effect_output(ctx):
    """Which output the effects describe: the prediction, or P(class) for a classifier.

    A binary classifier: the second class; a multi-class one: the most frequent training class
    (the effect methods need one class).
    """
    if ctx.task != "classification" or not hasattr(ctx.model, "predict_proba"):
        return None
    classes = list(getattr(ctx.model, "classes_", []))
    if len(classes) == 2:
        return None
    counts = ctx.y_train.astype(str).value_counts()
    for c in counts.index:
        for k in classes:
            if str(k) == c:
                return k
    return classes[0]


def _output_text(ctx, output):
    if ctx.task == "regression":
        return f"the predicted {ctx.data.target}"
    if output is None:
        return f"the predicted probability of class {ctx.model.classes_[1]!s}"
    return f"the predicted probability of class {output!s} (the most frequent of {len(ctx.model.classes_)} classes)"


def section_effects(ctx):
    """ICE + PD and ALE for the top features, the H-statistic ranking, a 2-D PD of the top pair."""
    title = "4. Feature effects"
    if not ctx.methods("effects", "hstat"):
        return Section("effects", title,
                       [text("Not computed: 'effects' and 'hstat' were not selected with --methods.")])
    p = ctx.params["effects"]
    output = effect_output(ctx)
    feats = top_features(ctx, p["n_features"])
    ctx.effects["top_features"] = feats
    ctx.effects["output"] = output
    blocks = [text(f"Effects on {_output_text(ctx, output)} of the {len(feats)} most important features "
                   f"({', '.join(feats)}). ICE curves (thin lines, {p['ice_rows']} test rows) with their mean, the "
                   f"partial dependence (PD, thick line); beside them the accumulated local effects (ALE), which "
                   f"stay on the data where features are dependent.")]
    if ctx.methods("effects"):
        X_ice, _ = ctx.rows(p["ice_rows"], "ice")
        for f in feats:
            with ctx.step(f"ICE + PD: {f}", grid=p["grid"], rows=len(X_ice), output=str(output)):
                e = eff.ice(ctx.model, X_ice, f, grid=p["grid"], output=output)
            with ctx.step(f"ALE: {f}", bins=p["ale_bins"], rows=len(ctx.X_test), output=str(output)):
                a = eff.ale(ctx.model, ctx.X_test, f, bins=p["ale_bins"], output=output)
            with report_style():
                fig, ax = new_figure(1, 2, figsize=(10, 3.6))
                e.plot(ax=ax[0, 0])
                ax[0, 0].set_title(f"ICE and PD of {f}")
                a.plot(ax=ax[0, 1])
                ax[0, 1].set_title(f"ALE of {f}")
                blocks.append(figure_block(fig, f"ICE curves with PD, and ALE, of feature {f}"))
    if ctx.methods("hstat"):
        blocks += _hstat_blocks(ctx, output)
    return Section("effects", title, blocks)


def _hstat_blocks(ctx, output):
    p = ctx.params["hstat"]
    X_h, _ = ctx.rows(p["n_samples"], "hstat")
    with ctx.step("H-statistic", n_samples=len(X_h), pairs="top", n_top=p["n_pairs"], output=str(output)):
        h = eff.h_statistic(ctx.model, X_h, pairs="top", n_samples=len(X_h), n_top=p["n_pairs"], output=output,
                            n_jobs=ctx.config.n_jobs, random_state=ctx.seed, progress=ctx.progress)
    ctx.effects["h_overall"] = dict(zip(h.feature_names, np.asarray(h.overall, dtype=float)))
    ctx.effects["h_result"] = h
    overall = h.to_frame("overall").sort_values("h2", ascending=False)
    blocks = [{"kind": "heading", "text": "Interactions: Friedman's H-statistic"},
              text(f"H² of a feature is the share of the prediction's variance that comes from its interactions with "
                   f"all other features (0: additive); H² of a pair, the share of their joint PD from their "
                   f"interaction. Computed on {len(X_h)} test rows."),
              frame_table(overall.rename(columns={"h2": "H²", "h": "H"}), caption="Overall H² (ranked)")]
    pairs = h.to_frame("pairwise")
    if len(pairs):
        pairs = pairs.rename(columns={"feature_1": "feature", "feature_2": "feature ", "h2": "H²", "h": "H"})
        blocks.append(frame_table(pairs.head(10), caption="Pairwise H² of the top features", index=False))
    with report_style():
        fig, ax = new_figure(1, 2, figsize=(10, 0.25 * len(h.feature_names) + 1.5))
        h.plot(kind="overall", ax=ax[0, 0])
        if len(pairs):
            h.plot(kind="pairwise", ax=ax[0, 1])
        else:
            ax[0, 1].set_axis_off()
        blocks.append(figure_block(fig, "Bar charts of the overall and pairwise H-statistics"))
    if len(h.pairwise):
        top = h.pairwise.iloc[0]
        pair = (top["feature_1"], top["feature_2"])
        pe = ctx.params["effects"]
        X_pd, _ = ctx.rows(pe["ice_rows"], "pd2")
        grid = min(pe["grid"], 12)
        with ctx.step(f"2-D PD: {pair[0]} × {pair[1]}", grid=grid, rows=len(X_pd), output=str(output)):
            pd2 = eff.partial_dependence(ctx.model, X_pd, pair, grid=grid, output=output)
        with report_style():
            fig, ax = new_figure(figsize=(6, 4.2))
            pd2.plot(ax=ax[0, 0])
            ax[0, 0].set_title(f"2-D partial dependence of the strongest pair: {pair[0]} × {pair[1]}")
            blocks.append(figure_block(fig, f"Heat map of the 2-D partial dependence of {pair[0]} and {pair[1]}"))
    return blocks


def choose_repid_feature(ctx, X, candidates, grid, output):
    """The candidate whose mean-centred ICE curves are most heterogeneous.

    Heterogeneity = mean over grid points of the variance of the c-ICE curves across rows
    (the root risk of REPID divided by n·m). Returns (feature, Series of heterogeneity).
    """
    het = {}
    for f in candidates:
        e = eff.ice(ctx.model, X, f, grid=grid, center="mean", output=output)
        C = np.asarray(e.individual, dtype=float)
        het[f] = float(np.mean(np.var(C, axis=0))) if C.size else 0.0
    s = pd.Series(het).sort_values(ascending=False, kind="stable")
    return s.index[0], s


def section_regional(ctx):
    """REPID for the most heterogeneous top feature: the split tree and the regional PDs."""
    title = "5. Regional effects"
    if not ctx.methods("repid"):
        return Section("regional", title, [text("Not computed: 'repid' was not selected with --methods.")])
    p = ctx.params["repid"]
    output = ctx.effects.get("output", effect_output(ctx))
    X_rep, _ = ctx.rows(p["rows"], "repid")
    n_cand = ctx.params["effects"]["n_features"] + 1
    candidates = top_features(ctx, n_cand)
    with ctx.step("c-ICE heterogeneity of the top features", candidates=", ".join(candidates), rows=len(X_rep),
                  grid=p["grid"]):
        feature, het = choose_repid_feature(ctx, X_rep, candidates, p["grid"], output)
    with ctx.step(f"REPID: {feature}", rows=len(X_rep), grid=p["grid"], max_depth=p["max_depth"],
                  min_node_size=p["min_node_size"], min_improvement=p["min_improvement"], output=str(output)):
        g = eff.repid(ctx.model, X_rep, feature, grid=p["grid"], max_depth=p["max_depth"],
                      min_node_size=p["min_node_size"], min_improvement=p["min_improvement"], output=output)
    ctx.effects["repid"] = g
    blocks = [text(f"The feature with the most heterogeneous mean-centred ICE curves among the top features is "
                   f"{feature}. REPID splits its curves by the other features so that the curves within a region "
                   f"are alike (Herbinger et al. 2022); {len(X_rep)} test rows, tree depth ≤ {p['max_depth']}."),
              table(["feature", "c-ICE heterogeneity"], [[f, v] for f, v in het.items()],
                    caption="Heterogeneity of the centred ICE curves (mean variance across rows)"),
              {"kind": "pre", "text": g.tree_text()}]
    regions = g.to_frame().reset_index()
    blocks.append(frame_table(regions, caption="Regions (leaves)", index=False))
    scores = g.interaction_scores[g.interaction_scores > 0]
    if len(scores):
        blocks.append(table(["split feature", "interaction score (sum of intImp)"], list(scores.items()),
                            caption=f"Features interacting with {feature}"))
        blocks.append(text(f"The effect of {feature} differs between the regions: it interacts with "
                           f"{', '.join(scores.index)}."))
    else:
        blocks.append(text(f"No split improved the homogeneity of the {feature} curves enough "
                           f"(min_improvement = {p['min_improvement']}): its effect is about the same everywhere."))
    with report_style():
        fig, ax = new_figure(figsize=(7, 4))
        g.plot(ax=ax[0, 0], show_tree=False)
        blocks.append(figure_block(fig, f"Global and regional partial dependence of {feature}"))
    return Section("regional", title, blocks)
