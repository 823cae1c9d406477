"""The automatic reading beneath the importance table: where the methods disagree, and why."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._blocks import bullets, heading, text
from ._sec_data import EXTRAPOLATION_R2
from ._sec_importance import METHOD_LABELS, cli_advice  # noqa: F401 - cli_advice is public here too

__all__ = ["cli_advice", "disagreements", "reading_blocks", "unsettled"]

MARGINAL = ("pfi", "sage_marginal")
CONDITIONAL = ("cfi", "sage_conditional", "loco", "lofo")
#: Relative importance = (importance − null value) / the method's largest. A feature is
#: *important* for a method when the method's uncertainty says it is above the null value
#: (adjusted p-value <= the method's alpha, or else the interval's lower end above it) and it
#: also matters in size: among the method's top ``TOP``, relative importance >= ``FLOOR`` and
#: >= ``HIGH`` × its best relative importance over methods. It is *negligible* when its whole
#: interval lies below ``LOW`` × that best value (relative to the method's largest); a
#: p-value cannot show that (not significant is not the same as negligible).
HIGH, LOW, FLOOR, TOP = 0.5, 0.1, 0.05, 5
#: Overall H² above which a feature is said to interact.
H_INTERACTION = 0.1


def _null_value(r):
    return 1.0 if r.params.get("relation") == "ratio" else 0.0


def _evidence(r):
    """Per feature of one result: relative point estimate, relative interval top, significance.

    Returns a DataFrame indexed by feature with columns ``rel``, ``rel_high`` (NaN without a
    finite interval) and ``significant`` (bool).
    """
    null = _null_value(r)
    eff = np.asarray(r.importance, dtype=float) - null
    top = np.nanmax(np.abs(eff)) if eff.size else np.nan
    if not np.isfinite(top) or top <= 0:
        return None
    low = np.asarray(r.ci_low, dtype=float) - null
    high = np.asarray(r.ci_high, dtype=float) - null
    if r.p_adjusted is not None:
        alpha = r.params.get("alpha", 0.05)
        sig = (np.asarray(r.p_adjusted, dtype=float) <= alpha) & (eff > 0)
    else:
        sig = np.isfinite(low) & (low > 0)
    return pd.DataFrame({"rel": eff / top, "rel_high": np.where(np.isfinite(high), high / top, np.nan),
                         "significant": sig}, index=list(r.feature_names))


def _classify(results):
    """{method: DataFrame(rel, rel_high, significant, important, negligible)} over all features."""
    ev = {k: e for k, r in results.items() if (e := _evidence(r)) is not None}
    if not ev:
        return {}
    best = pd.DataFrame({k: e["rel"] for k, e in ev.items()}).max(axis=1)
    out = {}
    for k, e in ev.items():
        e = e.copy()
        b = best.reindex(e.index)
        tops = set(e["rel"].sort_values(ascending=False).index[:TOP])
        e["important"] = (e["significant"] & (e["rel"] >= FLOOR) & (e["rel"] >= HIGH * b)
                          & e.index.isin(list(tops)))
        e["negligible"] = e["rel_high"].notna() & (e["rel_high"] <= LOW * b) & (b >= FLOOR)
        out[k] = e
    return out


def disagreements(results, r2=None, h_overall=None, X=None):
    """Features that one method finds important and another negligible -- by their uncertainty.

    Importances are compared relative to each method's largest value (methods have different
    units). Feature f is *important* for a method when its adjusted p-value (or, without a
    test, its interval) says it is above 0 and it is among the method's top 5 with a
    relative importance >= 0.05 and >= half of f's best relative importance; *negligible*
    when the upper end of its interval is at most 10% of that best value. A point estimate
    alone decides neither, so intervals that overlap both readings are not a disagreement.

    Returns a list of dicts: feature, high (methods), low (methods), reason.
    """
    cls = _classify(results)
    out = []
    features = list(dict.fromkeys(f for e in cls.values() for f in e.index))
    for f in features:
        high = [m for m, e in cls.items() if f in e.index and e.at[f, "important"]]
        low = [m for m, e in cls.items() if f in e.index and e.at[f, "negligible"]]
        if not high or not low:
            continue
        out.append({"feature": f, "high": high, "low": low, "reason": _reason(f, high, low, r2, h_overall, X)})
    return out


def unsettled(results):
    """Features among a method's top 5 whose interval (or adjusted p-value) does not exclude 0.

    Returns ``{method: [features]}``: the data do not say whether they matter for that method.
    """
    out = {}
    for m, e in _classify(results).items():
        tops = e["rel"].sort_values(ascending=False).index[:TOP]
        vague = [f for f in tops if e.at[f, "rel"] >= FLOOR and not e.at[f, "significant"]]
        if vague:
            out[m] = vague
    return out


def _partner(X, f):
    if X is None or f not in X.columns or isinstance(X[f].dtype, pd.CategoricalDtype):
        return None
    num = [c for c in X.columns if c != f and not isinstance(X[c].dtype, pd.CategoricalDtype)]
    if not num:
        return None
    corr = X[num].astype(float).corrwith(X[f].astype(float)).abs().dropna()
    if corr.empty:
        return None
    return corr.idxmax(), float(corr.max())


def _reason(f, high, low, r2, h_overall, X):
    """Why the methods disagree about ``f``: dependence, information vs use, interactions, refits."""
    parts = []
    dep = np.nan if r2 is None else r2.get(f, np.nan)
    marginal_high = any(m in MARGINAL for m in high)
    conditional_low = any(m in CONDITIONAL for m in low)
    if marginal_high and conditional_low:
        if np.isfinite(dep) and dep > EXTRAPOLATION_R2:
            partner = _partner(X, f)
            with_ = f", most with {partner[0]} (|r| = {partner[1]:.2f})" if partner else ""
            parts.append(f"{f} is strongly dependent on the other features (R² = {dep:.2f}{with_}): its information "
                         f"is largely available through them, so the conditional and refit methods find little unique "
                         f"contribution, while the marginal methods also count the model's behaviour on unrealistic, "
                         f"extrapolated points.")
        elif np.isfinite(dep):
            parts.append(f"{f} is not linearly predictable from the others (R² = {dep:.2f}), but its information can "
                         f"be recovered from them non-linearly or from combinations of categories, so it adds little "
                         f"once the others are known.")
        else:
            parts.append(f"The information of {f} is largely available through the other features.")
    if "sage_conditional" in high and any(m in ("pfi", "sage_marginal") for m in low):
        parts.append(f"{f} carries information about the target that the model takes from correlated features: "
                     f"conditional SAGE credits information (question 2), while PFI and marginal SAGE show that the "
                     f"model itself barely uses {f} (question 1).")
    h = None if h_overall is None else h_overall.get(f)
    if h is not None and np.isfinite(h) and h > H_INTERACTION and "pfi" in high:
        parts.append(f"{f} interacts with other features (overall H² = {h:.2f}): PFI credits each feature of an "
                     f"interaction with its full effect, SAGE splits it among the players.")
    refit_low = any(m in ("loco", "lofo") for m in low)
    if refit_low and any(m in ("pfi", "cfi", "sage_marginal") for m in high):
        parts.append("LOCO refits the learner without the feature, and the refitted model can compensate for it; "
                     "PFI, CFI and SAGE judge the fitted model, which cannot.")
    if not parts:
        parts.append("The methods answer different questions (see the table above); the difference is not "
                     "explained by linear dependence or a strong interaction.")
    return " ".join(parts)


def _no_better_block(ctx):
    nb = ctx.model_check.no_better_than
    if not nb:
        return None
    return text(f"Read this with care: the model is no better than {nb} on the test data, so the importances "
                f"below describe noise (how the model reacts to features that do not help it predict), not "
                f"structure in the data.")


def _fmt_interval(r, f):
    j = list(r.feature_names).index(f)
    lo, hi = r.ci_low[j], r.ci_high[j]
    return f"[{lo:.3g}, {hi:.3g}]" if np.isfinite(lo) and np.isfinite(hi) else "no interval"


def reading_blocks(ctx):
    """Plain-language blocks: agreement on the top features, disagreements with reasons, PIMP.

    Every statement that a feature is important or negligible for a method rests on that
    method's interval or adjusted p-value, not on its point estimate alone.
    """
    results = ctx.importance.compared()
    nb = _no_better_block(ctx)
    if not results:
        return [heading("Automatic reading")] + ([nb] if nb else [])
    blocks = [heading("Automatic reading")]
    if nb:
        blocks.append(nb)
    cls = _classify(results)
    tops = {k: r.feature_names[int(np.nanargmax(r.importance))] for k, r in results.items()
            if len(r.importance) and np.isfinite(r.importance).any()}
    settled = {k: f for k, f in tops.items() if k in cls and bool(cls[k].at[f, "significant"])}

    def label(k):
        return METHOD_LABELS.get(k, k)

    if len(set(tops.values())) == 1 and len(settled) == len(tops):
        blocks.append(text(f"All {len(tops)} methods rank {next(iter(tops.values()))} first, and for each its "
                           f"interval (or adjusted p-value) excludes 0."))
    elif len(set(tops.values())) == 1:
        vague = [label(k) for k in tops if k not in settled]
        blocks.append(text(f"All {len(tops)} methods rank {next(iter(tops.values()))} first, but for "
                           f"{', '.join(vague)} its interval does not exclude 0."))
    else:
        parts = [f"{label(k)}: {f}" + ("" if k in settled else " (interval includes 0)") for k, f in tops.items()]
        blocks.append(text("The most important feature differs between methods: " + "; ".join(parts) + "."))
    h = ctx.effects.h_overall
    found = disagreements(results, ctx.data_outputs.dependence_r2, h, ctx.X_test)
    if found:
        items = []
        for d in found:
            hi = ", ".join(f"{label(m)} {_fmt_interval(results[m], d['feature'])}" for m in d["high"])
            lo = ", ".join(f"{label(m)} {_fmt_interval(results[m], d['feature'])}" for m in d["low"])
            items.append(f"{d['feature']}: important for {hi}, but negligible (relative to the method's largest) "
                         f"for {lo}. {d['reason']}")
        blocks.append(bullets(items, title="Where the methods disagree (a feature whose interval excludes 0 in one "
                                           "method's top 5, while another method's whole interval lies below 10% "
                                           "of its largest importance)"))
    else:
        blocks.append(text("No disagreement the intervals support: no feature is clearly important for one method "
                           "and clearly negligible for another."))
    vague = unsettled(results)
    if vague:
        items = [f"{label(m)}: {', '.join(fs)}" for m, fs in vague.items()]
        blocks.append(bullets(items, title="Among a method's largest, but not distinguishable from 0 (its interval or "
                                           "adjusted p-value includes no effect): the data do not settle these"))
    if h is not None:
        strong = [f"{f} (H² = {v:.2f})" for f, v in sorted(h.items(), key=lambda kv: -kv[1]) if v > H_INTERACTION]
        if strong:
            blocks.append(text("Features with strong interactions: " + ", ".join(strong) + ". Their PD curves "
                               "average over heterogeneous ICE curves (section 4-5)."))
    pimp = ctx.importance.pimp
    if pimp is not None and pimp.p_adjusted is not None:
        alpha = pimp.params.get("alpha", 0.05)
        not_sig = [f for f, p in zip(pimp.feature_names, pimp.p_adjusted) if not p <= alpha]
        if not_sig:
            blocks.append(text(f"PIMP finds no evidence (adjusted p > {alpha}) that these features matter more than "
                               f"under a target unrelated to the features: {', '.join(not_sig)}."))
    return blocks
