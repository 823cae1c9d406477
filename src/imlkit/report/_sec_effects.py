"""Sections 4 and 5: effects of the most important features (ICE, PD, ALE, H) and REPID regions."""
from __future__ import annotations

import numpy as np

from .. import effects as eff
from .._display import ZERO_RTOL
from ..effects._explain import MATERIAL_EFFECT_SHARE, pct_beside, row_effect_words, row_effects
from ._blocks import Section, frame_table, heading, pre, table, text
from ._claims import H_SHARE_MAX
from ._figures import figure_block, new_figure, report_style
from ._labels import class_label
from ._ranking import H_SE_Z, h_beyond_share, h_clears, screen_ranking, top_features
from ._shared import classes_by_rows, effect_output, most_frequent_words, tied_at_cutoff_words

#: REPID's regions differ materially when the regional curves' root-mean-square difference from
#: the overall curve is at least this share of the effect's range (and the splits remove at least
#: ``min_improvement`` of the heterogeneity, REPID's own rule).
MATERIAL_REGIONAL_SHARE = MATERIAL_EFFECT_SHARE

__all__ = ["section_effects", "section_regional", "top_features", "effect_output", "choose_repid_feature",
           "effect_classes", "TopClassesAndOther", "OTHER_CLASSES", "interacting_features", "interaction_words",
           "class_label", "model_class"]


#: Up to this many classes, the effects section shows every class's probability (small multiples).
MAX_CLASS_PANELS = 6
#: Fewest complete rows for the methods that cannot take missing values (ALE, H, REPID).
MIN_COMPLETE_ROWS = 20


#: The panel of the classes beyond the most frequent ones: P(any of them) = 1 - sum of the shown classes.
OTHER_CLASSES = "all other classes"


class TopClassesAndOther:
    """A multi-class model seen as its ``top`` classes and one more class, "all other classes".

    ``predict_proba`` gives the top classes' probabilities and, last, one minus their sum (the
    probability of any other class), so ICE/PD/ALE of that column are the effects on "not one of
    the top classes". The model itself is unchanged; ``classes_`` lists ``top`` + the other class.
    """

    def __init__(self, model, top):
        self.model = model
        known = list(getattr(model, "classes_", []))
        self.columns_ = [known.index(c) for c in top]
        self.classes_ = np.array(list(top) + [OTHER_CLASSES], dtype=object)

    def predict_proba(self, X):
        p = np.asarray(self.model.predict_proba(X), dtype=float)
        shown = p[:, self.columns_]
        return np.column_stack([shown, np.clip(1.0 - shown.sum(axis=1), 0.0, 1.0)])

    def predict(self, X):
        return self.model.predict(X)


def frequent_classes(ctx, k):
    """The model's ``k`` classes with the most training rows, most frequent first."""
    ranked = classes_by_rows(ctx) or [(c, 0) for c in getattr(ctx.model, "classes_", [])]
    return [c for c, _ in ranked][:k]


def effect_classes(ctx):
    """The outputs the ICE/PD/ALE figures show: every class of a multi-class model (up to
    ``MAX_CLASS_PANELS``), the ``MAX_CLASS_PANELS - 1`` most frequent classes and
    :data:`OTHER_CLASSES` above that, else the single output of :func:`effect_output`."""
    if ctx.task != "classification" or not hasattr(ctx.model, "predict_proba") or ctx.target_class is not None:
        return [effect_output(ctx)]
    classes = list(getattr(ctx.model, "classes_", []))
    if 2 < len(classes) <= MAX_CLASS_PANELS:
        return classes
    if len(classes) > MAX_CLASS_PANELS:
        return frequent_classes(ctx, MAX_CLASS_PANELS - 1) + [OTHER_CLASSES]
    return [effect_output(ctx)]


def model_class(ctx, value):
    """A class of the model as the report spells it: by the model's ``classes_`` as a whole (:func:`~imlkit.report.
    _labels.class_label`), so a model fitted on a float 0.0/1.0/2.0 target names its classes 0, 1, 2, as the data's
    column and every panel do -- section 4 listed "(0.0, 1.0, 2.0; one column per class)" above panels "P(0)"."""
    return class_label(value, list(getattr(ctx.model, "classes_", [])) or None)


def _output_text(ctx, output):
    if ctx.task == "regression":
        return f"the predicted {ctx.data.target}"
    classes = list(getattr(ctx.model, "classes_", []))
    if output is None:
        return (f"the predicted probability of class {model_class(ctx, classes[1])}" if len(classes) > 1
                else "the prediction")
    if ctx.target_class is not None:
        return f"the predicted probability of class {model_class(ctx, output)} (chosen with --class)"
    # "one class is shown when there are more than 6" was the reason given; REPID, the H-statistic and 2-D PD explain
    # one class whatever the number of classes (Wine, 3 classes; digits, 10: section 4 shows 6 panels there)
    return (f"the predicted probability of class {model_class(ctx, output)}, "
            f"{most_frequent_words(ctx, output, len(classes))} (this method explains one class at a time; choose "
            f"another with --class)")


def _many_classes(ctx):
    """Whether the model has more than two classes and the effect methods explain one of their probabilities: the
    H-statistic and 2-D PD then describe that one class only, while section 4's figures show several (anes96 PID, 7
    classes: "Computed on 120 test rows" said nothing of which class the H² was of)."""
    return _on_probability(ctx) and len(getattr(ctx.model, "classes_", ())) > 2


def complete_rows(ctx, X, method):
    """The rows of ``X`` without a missing value, for a method that cannot take NaN; and a note or None.

    Raises ValueError when fewer than ``MIN_COMPLETE_ROWS`` rows are complete.
    """
    keep = X.notna().all(axis=1).to_numpy()
    if keep.all():
        return X, None
    Xc = X[keep].reset_index(drop=True)
    if len(Xc) < MIN_COMPLETE_ROWS:
        raise ValueError(f"{method} needs complete rows, and only {len(Xc)} of the {len(X)} {ctx.eval_rows} have no "
                         f"missing value (at least {MIN_COMPLETE_ROWS} are needed)")
    return Xc, (f"{method} cannot take missing values: it ran on the {len(Xc):,} complete rows of the {len(X):,} "
                f"{ctx.eval_rows} used ({len(X) - len(Xc):,} rows with a missing feature value left out).")


def section_effects(ctx):
    """ICE + PD and ALE for the top features, the H-statistic ranking, a 2-D PD of the top pair.

    For a multi-class model with up to ``MAX_CLASS_PANELS`` classes (and no ``--class``), ICE/PD
    and ALE are drawn for every class's probability as small multiples.
    """
    title = "4. Feature effects"
    if not ctx.methods("effects", "hstat"):
        return Section("effects", title,
                       [text("Not computed: 'effects' and 'hstat' were not selected with --methods.")])
    p = ctx.params.effects
    output = effect_output(ctx)
    outputs = effect_classes(ctx)
    feats, words = top_features(ctx, p.n_features)
    if not feats:
        return Section("effects", title, [text(f"No feature effects shown: {words}.")])
    X_ice, _ = ctx.rows("ice")
    n_classes = len(getattr(ctx.model, "classes_", []))
    if len(outputs) > 1 and outputs[-1] is OTHER_CLASSES:
        what = (f"the predicted probability of each of the {len(outputs) - 1} most frequent of the {n_classes:,} "
                f"classes ({', '.join(model_class(ctx, c) for c in outputs[:-1])}"
                f"{tied_at_cutoff_words(ctx, outputs[:-1])}) and of any of the other "
                f"{n_classes - len(outputs) + 1:,} classes ('{OTHER_CLASSES}' is one minus the shown classes' "
                f"probabilities; one column each; choose one class with --class)")
    elif len(outputs) > 1:
        what = (f"the predicted probability of each of the {len(outputs)} classes "
                f"({', '.join(model_class(ctx, c) for c in outputs)}; one column per class)")
    else:
        what = _output_text(ctx, outputs[0])
    blocks = [text(f"Effects on {what} of {words}.")]
    if ctx.methods("effects"):
        blocks[0] = text(blocks[0]["text"] + f" ICE curves (thin lines, {len(X_ice):,} {ctx.eval_rows}) with their "
                         f"mean, the partial dependence (PD, thick line); beside them the accumulated local effects "
                         f"(ALE), which stay on the data where features are dependent.")
        try:
            X_ale, note = complete_rows(ctx, ctx.rows("ale")[0], "ALE")
        except ValueError as exc:
            X_ale, note = None, None
            blocks += ctx.failure_blocks("ALE", exc)
        if note:
            blocks.append(text(note))
        for f in feats:
            blocks += ctx.guard(f"ICE/PD/ALE of {f}", lambda f=f: _effect_figure(ctx, f, outputs, X_ice, X_ale))
    if ctx.methods("hstat"):
        blocks += ctx.guard("H-statistic", lambda: _hstat_blocks(ctx, output))
    return Section("effects", title, blocks)


def _label(output, outputs, ctx):
    if len(outputs) == 1:
        return ""
    return f"P({model_class(ctx, output)}): "


def _effect_figure(ctx, f, outputs, X_ice, X_ale):
    """One figure per feature: ICE + PD (top row) and ALE (bottom row), one column per class shown."""
    p = ctx.params.effects
    ices, ales = [], []
    model = ctx.model
    if outputs and outputs[-1] is OTHER_CLASSES:
        model = TopClassesAndOther(ctx.model, outputs[:-1])
    for out in outputs:
        shown = model_class(ctx, out)
        with ctx.step(f"ICE + PD: {f}" + (f" [{shown}]" if len(outputs) > 1 else ""), grid=p.grid, rows=len(X_ice),
                      output=shown):
            ices.append(eff.ice(model, X_ice, f, grid=p.grid, output=out))
        if X_ale is not None:
            with ctx.step(f"ALE: {f}" + (f" [{shown}]" if len(outputs) > 1 else ""), bins=p.ale_bins,
                          rows=len(X_ale), output=shown):
                ales.append(eff.ale(model, X_ale, f, bins=p.ale_bins, output=out))
    k = len(outputs)
    with report_style():
        if k == 1:
            fig, ax = new_figure(1, 2, figsize=(10, 3.6))
            cells = [(ax[0, 0], ax[0, 1])]
        else:
            fig, ax = new_figure(2, k, figsize=(min(3.3 * k, 15), 6.6))
            cells = [(ax[0, i], ax[1, i]) for i in range(k)]
        for i, (out, (a_ice, a_ale)) in enumerate(zip(outputs, cells)):
            lab = _label(out, outputs, ctx)
            ices[i].plot(ax=a_ice)
            a_ice.set_title(f"{lab}ICE and PD of {f}")
            if ales:
                ales[i].plot(ax=a_ale)
                a_ale.set_title(f"{lab}ALE of {f}")
            else:
                a_ale.set_axis_off()
        cap = (f"ICE ({len(X_ice):,} rows) with PD" + (f", and ALE ({len(X_ale):,} rows)," if ales else ",")
               + f" of feature {f}" + (f" for each of the {k} classes" if k > 1 and model is ctx.model else
                                f" for the {k - 1} most frequent classes and all other classes" if k > 1 else ""))
        return [figure_block(fig, cap, caption=cap)]


def _hstat_blocks(ctx, output):
    p = ctx.params.hstat
    if ctx.X_test.shape[1] < 2:
        return [heading("Interactions: Friedman's H-statistic"),
                text(f"Not computed: the model has one feature ({ctx.X_test.columns[0]}), so there is no other feature "
                     f"to interact with (its H² is 0 by definition).")]
    X_h, _ = ctx.rows("hstat")
    X_h, note = complete_rows(ctx, X_h, "The H-statistic")
    # The feature budget: each feature's overall H² costs a pass over the rows, so above the budget
    # only the features ranked first by section 3's screen are scored (said in the text).
    budget = ctx.params.max_features
    p_all = len(X_h.columns)
    features = None if budget is None or p_all <= budget else screen_ranking(ctx)[:budget]
    with ctx.step("H-statistic", n_samples=len(X_h), pairs="top", n_top=p.n_pairs, output=model_class(ctx, output),
                  **({"features": f"the {budget} ranked first by the screen"} if features else {})):
        h = eff.h_statistic(ctx.model, X_h, features=features, pairs="top", n_samples=len(X_h), n_top=p.n_pairs,
                            output=output, n_jobs=ctx.config.n_jobs, random_state=ctx.seed, progress=ctx.progress)
    ctx.effects.h_overall = dict(zip(h.feature_names, np.asarray(h.overall, dtype=float)))
    ctx.effects.h_rows = len(X_h)
    # every computed pair's H², for section 5 to set beside REPID's split features (the same output)
    ctx.effects.h_pairs = {frozenset((a, b)): float(v) for a, b, v in
                           h.pairwise[["feature_1", "feature_2", "h2"]].itertuples(index=False)}
    # the bootstrap SE of each overall H² (the table's column), read by the sentences below and the reading's reasons
    ctx.effects.h_se = (None if h.overall_se is None else
                        dict(zip(h.feature_names, np.asarray(h.overall_se, dtype=float))))
    shown_pairs = [tuple(r) for r in h.pairwise[["feature_1", "feature_2"]].head(10).itertuples(index=False)]
    halves = _hstat_halves(ctx, X_h, list(h.feature_names), shown_pairs, output)
    overall = h.to_frame("overall")
    if halves is not None:
        ctx.effects.h_halves = {f: (a, b) for f, a, b in zip(h.feature_names, halves[0].overall, halves[1].overall)}
        overall["H² (half 1)"] = np.asarray(halves[0].overall, dtype=float)
        overall["H² (half 2)"] = np.asarray(halves[1].overall, dtype=float)
    overall = overall.sort_values("h2", ascending=False)
    blocks = [heading("Interactions: Friedman's H-statistic"),
              text("H² of a feature is the share of the prediction's variance that comes from its interactions with "
                   "all other features (0: additive); H² of a pair, the variation of the interaction part of their "
                   "joint PD relative to that of the joint PD (a share when at most 1). Computed "
                   + (f"for {_output_text(ctx, output)} " if _many_classes(ctx) else "")
                   + f"on {len(X_h)} {ctx.eval_rows}"
                   + (f", for the {budget} of {p_all:,} features ranked first by section 3's screen (PFI with one "
                      f"permutation each; the feature budget; "
                      f"--max-features N or --full changes it)." if features else ".")),
              frame_table(_h_columns(overall), caption="Overall H² (ranked)", snap=True)]
    if note:
        blocks.insert(2, text(note))
    caveats = hstat_caveats(ctx, h)
    if caveats:
        blocks.insert(2, text(caveats))
    pairs = h.to_frame("pairwise")
    # each shown pair's H² in each half (the pairs table's last two columns)
    by_pair = ([{frozenset((a, b)): v for a, b, v in half.pairwise[["feature_1", "feature_2", "h2"]]
                 .itertuples(index=False)} for half in halves] if halves is not None else None)
    if halves is not None:
        keys = [frozenset((a, b)) for a, b in zip(pairs["feature_1"], pairs["feature_2"])] if len(pairs) else []
        pair_halves = {k: (float(by_pair[0].get(k, np.nan)), float(by_pair[1].get(k, np.nan))) for k in keys}
        blocks.insert(2, text(halves_words(ctx.effects.h_overall, ctx.effects.h_halves, len(X_h),
                                           len(halves[0].extra["row_index"]), len(halves[1].extra["row_index"]),
                                           se=ctx.effects.h_se, pair_halves=pair_halves)))
    if len(pairs):
        if halves is not None:
            for k in (1, 2):
                pairs[f"H² (half {k})"] = [by_pair[k - 1].get(frozenset((a, b)), np.nan)
                                           for a, b in zip(pairs["feature_1"], pairs["feature_2"])]
        pairs = _h_columns(pairs.rename(columns={"feature_1": "feature", "feature_2": "feature "}))
        blocks.append(frame_table(pairs.head(10), caption="Pairwise H² of the top features", index=False,
                                  snap=True))
    blocks += ctx.guard("figure: H-statistic", lambda: _hstat_figure(h, pairs), kind="figure")
    if len(h.pairwise):
        blocks += ctx.guard("2-D partial dependence", lambda: _pd2_blocks(ctx, h, output, pairs))
    return blocks


def _h_columns(frame):
    """The H-statistic's table with readable column names; a standard-error column that is all NaN (none computed)
    is left out rather than shown empty."""
    if "h2_se" in frame and frame["h2_se"].isna().all():
        frame = frame.drop(columns="h2_se")
    return frame.rename(columns={"h2": "H²", "h": "H", "h2_se": "SE of H² (bootstrap over rows)",
                                 "h_unnormalized": "unnormalised H"})


def hstat_caveats(ctx, h):
    """What H² does not say here: a pairwise H² above 1 is no share (the pair's own effects cancel in their joint
    PD, Σ PD_jk² is smaller than the interaction part Σ (PD_jk − PD_j − PD_k)²), and on a probability a model that is
    additive in the log-odds (a logistic regression) shows interactions: the link couples every feature's effect."""
    out = []
    pw = h.pairwise
    over = pw[np.asarray(pw["h2"], dtype=float) > 1.0] if len(pw) else pw
    if len(over):
        named = "; ".join(f"{a} × {b} ({v:.3g})" for a, b, v in over[["feature_1", "feature_2", "h2"]]
                          .itertuples(index=False))
        out.append(f"A pairwise H² above 1 is not a share: the two features' own effects cancel in their joint PD, "
                   f"whose variation is then smaller than the interaction part (Friedman & Popescu's ratio has no "
                   f"upper bound); so here: {named}.")
    if ctx.task == "classification" and h.output is not None and "logit" not in str(h.output):
        out.append("H² is computed on the predicted probability: a model additive in the log-odds (a logistic "
                   "regression without interaction terms) has H² > 0 on this scale, because the logistic link "
                   "couples every feature's effect with the others' -- H² > 0 does not say the model has interaction "
                   "terms.")
    return " ".join(out)


#: The H-statistic's rows are split in two halves (each at least this many rows) to show how far its estimates move
#: with the rows they are computed on.
MIN_HALF_ROWS = 10


def _hstat_halves(ctx, X_h, features, pairs, output):
    """The H-statistic on each half of ``X_h`` (a seeded split; the same features and pairs), or None when a half
    would have fewer than ``MIN_HALF_ROWS`` rows.

    H² is a ratio of sums of squares over the rows it is computed on, with partial dependences estimated from the
    same rows; the two halves' values show its sampling spread (Friedman & Popescu 2008 judge H against a null
    distribution for this reason). Costs half of the main run (two runs on n/2 rows: 2 (n/2)² predictions).
    """
    from ..effects._hstat import h_statistic_without_se

    n = len(X_h)
    if n // 2 < MIN_HALF_ROWS:
        return None
    order = np.random.default_rng(ctx.seed).permutation(n)
    parts = (np.sort(order[: n // 2]), np.sort(order[n // 2:]))
    out = []
    with ctx.step("H-statistic on each half of its rows", rows=f"{len(parts[0])} + {len(parts[1])}",
                  output=model_class(ctx, output)):
        for rows in parts:
            Xp = X_h.iloc[rows].reset_index(drop=True)
            # without the bootstrap SE, which the halves never show (a third less work)
            out.append(h_statistic_without_se(ctx.model, Xp, features=features, pairs=pairs or None,
                                              n_samples=len(Xp), output=output, n_jobs=ctx.config.n_jobs,
                                              random_state=ctx.seed))
    return out


def halves_words(h_overall, h_halves, n, n1, n2, se=None, pair_halves=None):
    """The sentence on how far the overall H² moves with its rows: which features are above the report's threshold
    of a strong interaction (:data:`imlkit.report._claims.H_INTERACTION`) in both halves of the rows and which are
    not distinguishable from it (one half above, one at or below). ``se``: each feature's bootstrap SE of H²; a
    feature above the threshold in both halves but within ``H_SE_Z`` SEs of it is said to be so (wine's proline:
    H² 0.119, SE 0.0177, halves 0.114 and 0.137 on 27 rows each). ``pair_halves``: each shown pair's H² in each half
    (``{frozenset((a, b)): (half 1, half 2)}``), whose largest gap is said beside the features' (khan: the features'
    halves differ by up to 0.068, V1389 × V1003's by 0.16)."""
    from ._claims import H_INTERACTION

    gaps = [abs(a - b) for a, b in h_halves.values() if np.isfinite(a) and np.isfinite(b)]
    if not gaps:  # a flat model: every H² is 0/0
        return f"The H-statistic on each half of the {n:,} rows is undefined (the predictions do not vary)."
    spread = max(gaps)
    pair_gaps = [abs(a - b) for a, b in (pair_halves or {}).values() if np.isfinite(a) and np.isfinite(b)]
    pair_spread = max(pair_gaps) if pair_gaps else None
    # above 1 on all rows or in a half: no share of the prediction's variance, so neither strong nor unsettled
    beyond = [f for f, (a, b) in h_halves.items() if h_beyond_share(h_overall.get(f, np.nan), (a, b))]
    above = [f for f, (a, b) in h_halves.items() if a > H_INTERACTION and b > H_INTERACTION and f not in beyond]
    # above the threshold on all rows or in one half, but not in both halves
    unsettled = [f for f, (a, b) in h_halves.items() if f not in above and f not in beyond
                 and max(a, b, h_overall.get(f, 0.0)) > H_INTERACTION]
    s = (f"How far these numbers move with the rows: the H-statistic on each half of the {n:,} rows on its own ({n1:,} "
         f"and {n2:,} rows, a seeded split) gives the last two columns; "
         + (f"the halves differ by up to {spread:.2g}" if spread > ZERO_RTOL else
            "the halves agree up to rounding")
         + ("" if pair_spread is None else
            f" for the features' H², and by up to {pair_spread:.2g} for the pairs' (in the pairs table)"
            if pair_spread > ZERO_RTOL else " for the features' H², and up to rounding for the pairs'"))
    se = se or {}
    close = [f for f in above if not h_clears(h_overall.get(f, np.nan), se.get(f), H_INTERACTION)]
    if above:
        s += f". Above {H_INTERACTION} in both halves: {', '.join(above)}"
    if close:
        s += (f"; but within {H_SE_Z} bootstrap standard errors of {H_INTERACTION} on all rows, so the standard error "
              f"of H² does not tell {'it' if len(close) == 1 else 'them'} apart from the threshold: "
              + "; ".join(f"{f} (H² {h_overall[f]:.3g}, SE {se[f]:.3g}: {h_overall[f]:.3g} − {H_SE_Z} × "
                          f"{se[f]:.3g} = {h_overall[f] - H_SE_Z * se[f]:.3g})" for f in close))
    if unsettled:
        s += (f". Above {H_INTERACTION} on all rows or in one half but not in both halves, so not distinguishable "
              f"from that threshold at {n:,} rows: "
              + "; ".join(f"{f} (H² {h_overall.get(f, np.nan):.3g}; halves {h_halves[f][0]:.3g} and "
                          f"{h_halves[f][1]:.3g})" for f in unsettled))
    if beyond:
        s += f". {beyond_share_words(beyond, h_overall, h_halves)}"
    return s + "."


def beyond_share_words(features, h_overall, h_halves=None):
    """The sentence on features whose H² is above ``H_SHARE_MAX`` on all rows or in a half (no share, no strong
    interaction), with their numbers; shared by section 4 and the reading."""
    h_halves = h_halves or {}

    def item(f):
        hv = h_halves.get(f)
        return (f"{f} (H² {h_overall.get(f, np.nan):.3g}" + (f"; halves {hv[0]:.3g} and {hv[1]:.3g})" if hv else ")"))
    one = len(features) == 1
    return (f"Above {H_SHARE_MAX:g} on all rows or in a half, so no share of the prediction's variance (a share is at "
            f"most 1: the part the additive PDs leave is larger than the centred prediction itself), and not "
            f"read as {'a strong interaction' if one else 'strong interactions'}: "
            + "; ".join(item(f) for f in features))


def _hstat_figure(h, pairs):
    with report_style():
        fig, ax = new_figure(1, 2, figsize=(10, 0.25 * len(h.feature_names) + 1.5))
        h.plot(kind="overall", ax=ax[0, 0])
        if len(pairs):
            h.plot(kind="pairwise", ax=ax[0, 1])
        else:
            ax[0, 1].set_axis_off()
        return [figure_block(fig, "Bar charts of the overall and pairwise H-statistics")]


def _pd2_blocks(ctx, h, output, shown=None):
    top = h.pairwise.iloc[0]
    pair = (top["feature_1"], top["feature_2"])
    pe = ctx.params.effects
    X_pd, _ = ctx.rows("pd2")
    grid = min(pe.grid, 12)
    with ctx.step(f"2-D PD: {pair[0]} × {pair[1]}", grid=grid, rows=len(X_pd), output=model_class(ctx, output)):
        pd2 = eff.partial_dependence(ctx.model, X_pd, pair, grid=grid, output=output)
    # the pairs are ranked by H²; when every H² is 0 up to rounding (the table shows 0, as snap_zero relative to
    # 1) the first pair is not "the strongest", only the first listed: an additive model has no interacting pair
    none = float(np.nanmax(np.abs(np.asarray(h.pairwise["h2"], dtype=float)))) <= ZERO_RTOL
    # "the strongest" only when it is the largest in each half of the rows too (the halves' columns of ``shown``)
    settled = True
    if shown is not None and len(shown) > 1:
        for c in [c for c in shown.columns if str(c).startswith("H² (half")]:
            v = shown[c].to_numpy(dtype=float)
            settled = settled and bool(np.isfinite(v).any()) and int(np.nanargmax(v)) == 0
    what = (f"the first listed pair, {pair[0]} × {pair[1]} (every pairwise H² is 0 up to rounding: no pair interacts)"
            if none else f"the strongest pair: {pair[0]} × {pair[1]}" if settled else
            f"the pair with the largest H² on these rows, {pair[0]} × {pair[1]} (not the largest in each half of "
            f"the rows: which pair interacts most is not settled at {h.n_samples:,} rows)")
    with report_style():
        fig, ax = new_figure(figsize=(6, 4.2))
        pd2.plot(ax=ax[0, 0])
        ax[0, 0].set_title(f"2-D partial dependence of {pair[0]} × {pair[1]}" if none or not settled
                           else f"2-D partial dependence of {what}")
        cap = (f"2-D partial dependence of {what} ({len(X_pd):,} {ctx.eval_rows}, {grid}×{grid} grid"
               + (f"; of {_output_text(ctx, output)}" if _many_classes(ctx) else "") + ")")
        return [figure_block(fig, f"Heat map of the {cap}", caption=cap)]


def choose_repid_feature(ctx, X, candidates, grid, output):
    """The candidate whose mean-centred ICE curves are most heterogeneous.

    Heterogeneity = mean over grid points of the variance of the c-ICE curves across rows
    (the root risk of REPID divided by n·m), from :func:`imlkit.ice_heterogeneity`.
    Returns (feature, Series of heterogeneity, sorted descending).
    """
    h = eff.ice_heterogeneity(ctx.model, X, list(candidates), grid=grid, output=output)
    s = h.to_series()
    return s.index[0], s


def _root_rms(g):
    """Root mean square of the centred ICE curves around their mean (REPID's root risk per row and grid point)."""
    root = g.tree[0]
    m = np.size(g.regions[0].centered_average)
    return float(np.sqrt(max(root.risk, 0.0) / (root.n * m))) if root.n else 0.0


def section_regional(ctx):
    """REPID for the most heterogeneous top feature: the split tree and the regional PDs."""
    title = "5. Regional effects"
    if not ctx.methods("repid"):
        return Section("regional", title, [text("Not computed: 'repid' was not selected with --methods.")])
    p = ctx.params.repid
    output = effect_output(ctx)
    if ctx.X_test.shape[1] < 2:
        # Engel (income -> food expenditure): REPID failed with "'split_features' is empty", shown as a failure
        return Section("regional", title, [text(
            f"Not computed: REPID splits one feature's ICE curves by the other features, and the model has only one "
            f"feature ({ctx.X_test.columns[0]}): every row's ICE curve is the same curve (nothing else varies "
            f"between rows), so there is no heterogeneity to split.")])
    X_rep, _ = ctx.rows("repid")
    X_rep, note = complete_rows(ctx, X_rep, "REPID")
    n_cand = ctx.params.effects.n_features + 1
    candidates, _ = top_features(ctx, n_cand)
    if not candidates:
        return Section("regional", title, [text("Not computed: no feature is important for any method, so "
                                                "no feature's effect is split into regions.")])
    with ctx.step("c-ICE heterogeneity of the top features", candidates=", ".join(candidates), rows=len(X_rep),
                  grid=p.grid):
        feature, het = choose_repid_feature(ctx, X_rep, candidates, p.grid, output)
    with ctx.step(f"REPID: {feature}", rows=len(X_rep), grid=p.grid, max_depth=p.max_depth,
                  min_node_size=p.min_node_size, min_improvement=p.min_improvement, output=model_class(ctx, output)):
        g = eff.repid(ctx.model, X_rep, feature, grid=p.grid, max_depth=p.max_depth,
                      min_node_size=p.min_node_size, min_improvement=p.min_improvement, output=output)
    ctx.regional.repid = g
    # REPID's floor follows the dtype the model predicts in (a float32 xgboost too): within it, the curves are equal
    # and "the most heterogeneous" would rank rounding noise
    rounding = bool(g.extra.get("equal_up_to_rounding"))
    if rounding:
        # --model glm (additive): every candidate's heterogeneity is rounding (1.6e-30 beside 1.4e-30), so "the most
        # heterogeneous" would rank noise; the first candidate is only the largest rounding error
        chosen = (f"The mean-centred ICE curves of every top feature are equal up to rounding: the largest "
                  f"heterogeneity, {feature}'s {float(het.iloc[0]):.2g}, is at REPID's rounding floor"
                  f", so the ranking below orders rounding noise and {feature} is shown only as the first of them.")
    else:
        chosen = (f"The feature with the most heterogeneous mean-centred ICE curves among the top features is "
                  f"{feature}.")
    blocks = [text(f"REPID explains {_output_text(ctx, output)}. {chosen} REPID splits its curves by the "
                   f"other features so that the curves within a region are alike (Herbinger et al. 2022); "
                   f"{len(X_rep)} {ctx.eval_rows}, tree depth ≤ {p.max_depth}."),
              *([text(note)] if note else []),
              table(["feature", "c-ICE heterogeneity"], [[f, v] for f, v in het.items()],
                    caption="Heterogeneity of the centred ICE curves (mean variance across rows)"),
              pre(g.tree_text())]
    regions = g.to_frame().reset_index()
    blocks.append(frame_table(regions, caption="Regions (leaves)", index=False))
    scores = g.interaction_scores[g.interaction_scores > 0]
    if len(scores) and not rounding:
        share, spread, span = regional_difference(g)
        material = share >= p.min_improvement and spread >= MATERIAL_REGIONAL_SHARE * span
        strong = interacting_features(g, p.min_improvement) if material else []
        caption = (f"Features interacting with {feature}" if strong and len(strong) == len(scores) else
                   f"Split features of the REPID tree of {feature}" + (
                       f" (those whose splits remove at least {p.min_improvement:.0%} of the heterogeneity, "
                       f"γ = min_improvement, interact with it: {', '.join(strong)})" if strong else ""))
        blocks.append(table(["split feature", "interaction score (sum of intImp: the share of the heterogeneity "
                             "its splits remove)"], list(scores.items()), caption=caption))
    h_pairs = ctx.effects.h_pairs
    said = regional_words(g, feature, p.max_depth, p.min_improvement, min_node_size=p.min_node_size,
                          h_pairs=h_pairs)
    if "differs between the regions" in said and _on_probability(ctx):
        said += " " + REPID_LINK_CAVEAT
    blocks.append(text(said))
    rows = f"{len(X_rep):,} {ctx.eval_rows}"
    blocks += ctx.guard("figure: REPID", lambda: _repid_figure(g, feature, rows), kind="figure")
    return Section("regional", title, blocks)


#: REPID of a probability: regions are no evidence of interaction terms (anes96 vote, --model glm, a logistic regression
#: without interactions: "The effect of ClinLR differs between the regions ...; it interacts with PID").
REPID_LINK_CAVEAT = ("These regions are of the predicted probability: a model additive in the log-odds (a logistic "
                     "regression without interaction terms) has them too, because the logistic link makes a "
                     "feature's effect on the probability depend on where the other features put the row -- they "
                     "do not say the model has interaction terms.")


def _on_probability(ctx):
    """Whether the effect methods explain a predicted probability (a classifier with predict_proba)."""
    return ctx.task == "classification" and hasattr(ctx.model, "predict_proba")


def regional_difference(g):
    """How much REPID's regions differ: (share of heterogeneity removed, RMS difference, effect range).

    With R₀ the risk of the root (the squared deviations of the n mean-centred ICE curves from
    their mean, summed over the m grid points) and R_l those of the leaves, the share is
    1 − Σ R_l / R₀ (the sum of the splits' intImp), and the regional curves' root-mean-square
    difference from the overall curve, in the output's units, is sqrt((R₀ − Σ R_l) / (n·m)).
    The range is the largest range (max − min over the grid) of the global PD and the regional
    PDs, so an interaction whose global PD is flat still has a scale.
    """
    root = g.tree[0]
    leaves = sum(r.risk for r in g.regions)
    m = np.size(g.regions[0].centered_average)     # grid points (× classes when several are explained)
    share = 1.0 - leaves / root.risk if root.risk > 0 else 0.0
    spread = float(np.sqrt(max(root.risk - leaves, 0.0) / (root.n * m)))
    span = max(float(np.ptp(np.ravel(c))) for c in [g.average, *(r.average for r in g.regions)])
    return float(share), spread, span


def spread_by_point(g):
    """The centred ICE curves' spread at each grid point: (within, between, total), each of shape (m,) (or
    (m, classes)).

    ``within``: root mean square over the rows of their centred curve's distance from their region's curve,
    sqrt(Σ_l n_l σ²_lk / n) from each region's ``centered_std``; ``total``: the same around the overall curve (the
    within part plus the regions' curves' spread about it; REPID's ``extra["centered_std"]`` when it has it, the
    same numbers computed over all rows at once); ``between``: the regions' curves' spread about the overall curve,
    sqrt(total² − within²) (the rows' regions partition them, so the squares add). Their root mean square over the
    grid is the RMS :func:`regional_words` had used alone -- and that average shrinks as grid points fall where
    the effect is flat: Default's balance has its whole effect in the last 3 of 15 quantile points, where rows
    spread by 21% of the range while the grid-wide RMS was 4%.
    """
    n = sum(r.n for r in g.regions)
    if not n:
        z = np.zeros(np.shape(g.regions[0].centered_average))
        return z, z, z
    within2 = sum(r.n * np.asarray(r.centered_std, dtype=float) ** 2 for r in g.regions) / n
    mean = sum(r.n * np.asarray(r.centered_average, dtype=float) for r in g.regions) / n
    between2 = sum(r.n * (np.asarray(r.centered_average, dtype=float) - mean) ** 2 for r in g.regions) / n
    total = g.extra.get("centered_std")
    total2 = within2 + between2 if total is None else np.asarray(total, dtype=float) ** 2
    return np.sqrt(within2), np.sqrt(np.maximum(total2 - within2, 0.0)), np.sqrt(total2)


def _at_most(g, feature, by_point, span):
    """(largest value of ``by_point``, "at <feature> = <grid value>", that plus its share of ``span``)."""
    flat = np.ravel(by_point)
    k = int(np.argmax(flat))
    shape = np.shape(by_point)
    at = np.unravel_index(k, shape) if len(shape) > 1 else (k,)
    x = np.ravel(g.grid)[at[0]]
    x = x.item() if isinstance(x, np.generic) else x  # a level's text, not np.str_('a')
    where = (f"{feature} = {x:.4g}" if isinstance(x, (int, float)) and not isinstance(x, bool) else
             f"{feature} = {str(x)!r}")
    classes = g.extra.get("classes")
    if len(shape) > 1 and classes is not None:
        where += f", class {classes[at[1]]}"
    share = f", {flat[k] / span:.1%} of the effect's range {span:.3g}" if span > 0 else ""
    return float(flat[k]), f"at {where}", f"at {where}{share}"


#: Curves whose root-mean-square spread is below this share of the effect's range coincide up to rounding (REPID
#: itself applies its own floor, ``extra["rounding_floor"]``; this rule reads results that lack it).
ROUNDING = 1e-9


def regional_words(g, feature, max_depth, min_improvement, min_node_size=None, h_pairs=None):
    """The sentence under REPID's regions, from their numbers (:func:`regional_difference`).

    "Differs between the regions" when the splits remove at least ``min_improvement`` of the
    heterogeneity *and* the regional curves differ from the overall one by at least
    ``MATERIAL_REGIONAL_SHARE`` of the effect's range. "About the same for every row" only when the
    curves left within the regions are themselves within that share of the range *at every grid point*
    (the largest over the grid of :func:`spread_by_point`'s within-region root mean square, printed with
    where it is): a depth-limited tree that finds no region on a few hundred rows is no evidence that the
    effect is the same everywhere, so otherwise the sentence says how much heterogeneity no split explains.
    The largest point, not the root mean square over the grid sqrt(Σ R_l / (n·m)): a quantile grid puts most
    of its points where a feature has most rows, which for a threshold effect is where the effect is flat, and
    an average over those points called Default's balance "about the same for every row" (4% of the range)
    while at the 3 points where the effect happens the rows spread by up to 21%. The maximum is the plain
    reading of "for every row" (at no value of the feature do the rows differ materially) and needs no
    weighting choice. The same rule decides whether the curves differ from the overall curve materially.

    REPID's own floor (``extra["rounding_floor"]``) follows the dtype the model predicts in, so a float32
    model's rounding is "equal up to rounding" there, not split.

    Whether the effect is "about the same for every row" is decided by the rule :meth:`RegionalResult.explain`
    uses too, :func:`~imlkit.effects._explain.row_effect_words`, on the rows' own effects (each row's range over
    the grid of its centred curve minus its region's): the spread at a grid point is about half of that at the
    ends of a symmetric grid (exactly half for a binary feature), so reading it against the share had let the
    effect itself vary by twice the share (spector's PSI, review rev8 r2 F3). The per-point spreads stay as the
    numbers of where the curves differ. With fewer rows than 2 · ``min_node_size`` REPID could look for no region,
    which is no evidence either way: "about the same for every row" is then never said.

    Which split features it "interacts with": :func:`interaction_words` (at least ``min_improvement`` of the
    heterogeneity per feature; ``h_pairs``, section 4's pairwise H², beside them).
    """
    share, spread, span = regional_difference(g)
    root = g.tree[0]
    m = np.size(g.regions[0].centered_average)
    total = _root_rms(g)
    floor = g.extra.get("rounding_floor")
    if g.extra.get("equal_up_to_rounding") or (floor is None and total <= ROUNDING * max(span, 1e-300)):
        # an additive model (a linear regression): every centred ICE curve is the same up to rounding; REPID does
        # not split them (its floor), and no region can differ
        bound = f", at most REPID's rounding floor {floor:.2g}" if floor is not None else ""
        return (f"The centred ICE curves of {feature} coincide up to rounding (root mean square {total:.2g}{bound}, "
                f"against the effect's range {span:.3g}): its effect is the same for every row, so REPID does not "
                f"split them into regions.")
    left = float(np.sqrt(max(sum(r.risk for r in g.regions), 0.0) / (root.n * m))) if root.n else 0.0
    within, between, around = spread_by_point(g)
    left_max, _, left_at = _at_most(g, feature, within, span)
    total_max, _, total_at = _at_most(g, feature, around, span)
    material = MATERIAL_REGIONAL_SHARE * span
    mean_of = f"; {left:.3g} in root mean square over the grid" if m > 1 else ""
    scores = g.interaction_scores[g.interaction_scores > 0]
    # One rule with RegionalResult.explain() (review r2 F3): whether the effect is about the same for every row is
    # judged on the rows' own effects (each row's range over the grid of its centred curve minus its region's), not
    # on the spread at one grid point, which is about half of it (spector's PSI: 8.3% at a point, 17% per row)
    kind, words = row_effect_words(g, feature, min_node_size)
    if not len(scores) and kind == "unsearched":
        # heart (censors), 21 test rows, --quick (min_node_size 40): "No split improved the homogeneity ... enough" --
        # no split was possible, each region needs 40 rows; and no search is no evidence either way (spector, 10 rows:
        # "the effect of PSI is about the same for every row" was said)
        said = (f"REPID could not split the {root.n:,} rows: each region needs at least {min_node_size:,} rows "
                f"(min_node_size), so a split needs {2 * min_node_size:,}; {words}")
        if row_effects(g) is None:
            said += (f"; the centred ICE curves differ from the overall curve by up to {total_max:.3g} (root mean "
                     f"square over the rows {total_at}), a heterogeneity that splits on more rows might or might not "
                     f"explain")
        return said + ("" if said.endswith(".") else ".")
    stay = (f"at every grid point the centred ICE curves stay within {left_max:.3g} of their region's curve (root "
            f"mean square over the rows, largest {left_at}{mean_of})")
    still = (f"the centred ICE curves still differ from their region's curve by up to {left_max:.3g} (root mean "
             f"square over the rows {left_at}{mean_of}), a heterogeneity no split of depth ≤ {max_depth} by another "
             f"feature explains.")
    if kind == "same":
        tail = f"{stay}; {words}"
    elif left_max > material:
        # the rows differ from their region's curve at some grid point: a lower bound of the rows' own effects
        tail = (f"that is not evidence that the effect of {feature} is the same for every row: "
                + (f"{words} At the grid points, " if kind == "differs" else "") + still)
    elif total_max > material or kind == "differs":
        # each part below the share, not their sum: star98, a user's MLPRegressor -- regions 8.5% apart, curves within
        # them 7.0%, around the overall curve 11% (0.19 of 1.74): "about the same for every row" was said
        tail = (words if kind == "differs" else
                f"yet the effect of {feature} is not about the same for every row: the centred ICE curves differ from "
                f"the overall curve by up to {total_max:.3g} (root mean square over the rows {total_at}), above the "
                f"{MATERIAL_REGIONAL_SHARE:.0%} that would matter; the regions' curves and the curves within a region "
                f"(at most {left_max:.3g} from their region's curve, {left_at}) each stay below it, not together.")
    else:
        tail = f"{stay}; {words}."
    if not len(scores):
        return (f"No split improved the homogeneity of the {feature} curves enough (min_improvement = "
                f"{min_improvement}): REPID found no region where the effect of {feature} differs; {tail}")
    # the regions' curves judged at each grid point too (the same rule as the curves within them)
    spread_max, spread_at, _ = _at_most(g, feature, between, span)
    ratio = spread_max / span if span > 0 else np.inf
    wide = spread_max >= MATERIAL_REGIONAL_SHARE * span
    removes = share >= min_improvement
    grid_rms = f"; {spread:.3g} over the rows and the grid" if m > 1 else ""
    numbers = (f"the splits by {', '.join(scores.index)} remove {pct_beside(share, min_improvement, 0)} of the "
               f"curves' heterogeneity, and the regional curves differ from the overall one by up to "
               f"{spread_max:.3g} (root mean square over the rows {spread_at}{grid_rms}) against a "
               f"range of {span:.3g} of the effect ({pct_beside(ratio, MATERIAL_REGIONAL_SHARE)}")
    if removes and wide:
        return (f"The effect of {feature} differs between the regions: {numbers}, at least "
                f"{MATERIAL_REGIONAL_SHARE:.0%}). " + interaction_words(g, feature, min_improvement, h_pairs))
    if wide:
        # the curves differ by at least the share, but the splits remove less than min_improvement: "(25%, below the
        # 10% needed)" would be false
        return (f"The regions do not differ materially: {numbers}, at least {MATERIAL_REGIONAL_SHARE:.0%}, but the "
                f"splits remove less than the {min_improvement:.0%} of the heterogeneity needed to call it an "
                f"interaction); {tail}")
    return (f"The regions do not differ materially: {numbers}, below the {MATERIAL_REGIONAL_SHARE:.0%} needed to "
            f"call it an interaction); {tail}")


def _share(v):
    """A share of the heterogeneity as the sentences show it: 46%, 9.7%, 0.42%."""
    p = 100 * float(v)
    return f"{p:.0f}%" if p >= 10 else f"{p:.2g}%"


def interacting_features(g, min_improvement):
    """The split features whose splits together remove at least ``min_improvement`` (γ) of the root's heterogeneity
    (interaction score = the sum of their splits' intImp >= γ): the features REPID's regions say ``feature`` interacts
    with.

    Why γ: REPID splits the root only when the split removes at least γ of the heterogeneity, and a deeper node when
    its split removes at least γ times its parent's improvement -- a relative rule that shapes the tree, so after a
    root split of 46% a child split removing 4.6% of the whole passes it. A feature is called an interaction only when
    its splits remove as much as REPID asks of a first split, γ of the whole: bike's hr splits on workingday (46%)
    and atemp (9.7% + 17% = 26%), both interactions; diabetes' bmi on bp (25%) and s5 (9.4%, let through as more than
    γ x 25% = 2.5%), s5 not one."""
    scores = g.interaction_scores[g.interaction_scores > 0]
    return [f for f, v in scores.items() if v >= min_improvement]


def interaction_words(g, feature, min_improvement, h_pairs=None):
    """The sentence on which split features ``feature`` interacts with (:func:`interacting_features`), each with the
    share of the heterogeneity its splits remove and, where section 4 computed it, the H-statistic's pairwise H² of the
    two (``h_pairs``: ``{frozenset((a, b)): H²}``); the other split features, with their shares, are said not to be."""
    from ._claims import H_INTERACTION, name_list

    scores = g.interaction_scores[g.interaction_scores > 0]
    strong = interacting_features(g, min_improvement)
    weak = [f for f in scores.index if f not in strong]
    n_splits = {}
    for nd in g.tree:
        f = getattr(nd, "feature", None)
        if f is not None:
            n_splits[f] = n_splits.get(f, 0) + 1
    h_pairs = h_pairs or {}

    def h_words(f):
        h = h_pairs.get(frozenset((feature, f)))
        if h is None or not np.isfinite(h):
            return ""
        verdict = ("" if h > H_INTERACTION else f", at most the {H_INTERACTION} section 4 applies to H²: the "
                   f"H-statistic does not find this pair strong")
        return f"; section 4's pairwise H² of {feature} × {f}: {h:.3g}{verdict}"

    def item(f):
        k = n_splits.get(f, 1)
        return f"{f} ({_share(scores[f])}{f', in {k} splits' if k > 1 else ''}{h_words(f)})"

    gamma = f"{min_improvement:.0%} (min_improvement, γ)"
    if strong:
        s = (f"It interacts with {name_list([item(f) for f in strong])}: the splits by "
             f"{'this feature' if len(strong) == 1 else 'each'} remove at least the {gamma} of the heterogeneity REPID "
             f"needs for a first split.")
    else:
        s = (f"No split feature removes on its own the {gamma} of the heterogeneity REPID needs for a first split, so "
             f"none is called an interaction of {feature}.")
    if weak:
        single = len(weak) == 1 and n_splits.get(weak[0], 1) == 1
        # the bar each of their splits passed: γ x its parent split's share (REPID's rule below the root)
        nodes = {getattr(nd, "id", None): nd for nd in g.tree}
        bars = []
        for nd in g.tree:
            parent = nodes.get(getattr(nd, "parent", None))
            if getattr(nd, "feature", None) in weak and parent is not None and parent.int_imp is not None:
                bar = (f"{_share(min_improvement * parent.int_imp)} after {parent.feature}'s "
                       f"{_share(parent.int_imp)}")
                if bar not in bars:
                    bars.append(bar)
        passed = f" (here {name_list(bars)})" if bars else ""
        s += (f" {'The split' if single else 'The splits'} by {name_list([item(f) for f in weak])} "
              f"remove{'s' if single else ''} less than {min_improvement:.0%}: below the root REPID lets a split "
              f"through when it removes γ times its parent split's share{passed}, so "
              f"{'it shapes' if single or len(weak) == 1 else 'they shape'} the regions without being called an "
              f"interaction.")
    return s


def _repid_figure(g, feature, n):
    with report_style():
        fig, ax = new_figure(figsize=(7, 4))
        g.plot(ax=ax[0, 0], show_tree=False)
        cap = f"Global and regional partial dependence of {feature} ({n})"
        return [figure_block(fig, cap, caption=cap)]
