"""The automatic reading beneath the importance table: where the methods disagree, and why."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._context import bullets, text
from ._sec_data import EXTRAPOLATION_R2
from ._sec_importance import METHOD_LABELS

__all__ = ["reading_blocks", "disagreements"]

MARGINAL = ("pfi", "sage_marginal")
CONDITIONAL = ("cfi", "sage_conditional", "loco", "lofo")
#: Relative importance = importance / the method's largest importance. A feature is "high" for a
#: method when it is among the method's top ``TOP`` and its relative importance is at least
#: ``HIGH`` × its best relative importance over methods (and at least ``FLOOR``); "low" for a
#: method when its relative importance is at most ``LOW`` × that best value.
HIGH, LOW, FLOOR, TOP = 0.5, 0.1, 0.05, 5
#: Overall H² above which a feature is said to interact.
H_INTERACTION = 0.1


def _relative(results):
    rel = {}
    for key, r in results.items():
        top = np.nanmax(np.abs(r.importance)) if len(r.importance) else np.nan
        if not np.isfinite(top) or top <= 0:
            continue
        rel[key] = {f: float(v / top) for f, v in zip(r.feature_names, r.importance)}
    return pd.DataFrame(rel)


def disagreements(results, r2=None, h_overall=None, X=None):
    """Features that one method ranks high and another finds negligible.

    Importances are compared relative to each method's largest value (methods have different
    units). Feature f is *high* for a method if it is in the method's top 5 with a relative
    importance ≥ 0.05 and ≥ half of f's best relative importance; *low* if its relative
    importance is ≤ 10% of that best value.

    Returns a list of dicts: feature, high (methods), low (methods), reason.
    """
    rel = _relative(results)
    tops = {m: set(rel[m].dropna().sort_values(ascending=False).index[:TOP]) for m in rel.columns}
    out = []
    for f, row in rel.iterrows():
        row = row.dropna()
        best = row.max() if len(row) else np.nan
        if not np.isfinite(best) or best < FLOOR:
            continue
        high = [m for m, v in row.items() if v >= HIGH * best and f in tops[m]]
        low = [m for m, v in row.items() if v <= LOW * best]
        if not high or not low:
            continue
        out.append({"feature": f, "high": high, "low": low, "reason": _reason(f, high, low, r2, h_overall, X)})
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


def reading_blocks(ctx):
    """Plain-language blocks: agreement on the top features, disagreements with reasons, PIMP."""
    results = {k: v for k, v in ctx.importance.items() if k != "pimp"}
    if not results:
        return []
    blocks = [{"kind": "heading", "text": "Automatic reading"}]
    tops = {k: r.feature_names[int(np.nanargmax(r.importance))] for k, r in results.items()
            if len(r.importance) and np.isfinite(r.importance).any()}
    if len(set(tops.values())) == 1:
        blocks.append(text(f"All {len(tops)} methods rank {next(iter(tops.values()))} first."))
    else:
        blocks.append(text("The most important feature differs between methods: " +
                           "; ".join(f"{METHOD_LABELS.get(k, k)}: {f}" for k, f in tops.items()) + "."))
    h = ctx.effects.get("h_overall")
    found = disagreements(results, ctx.effects.get("dependence_r2"), h, ctx.X_test)
    if found:
        items = []
        for d in found:
            hi = ", ".join(METHOD_LABELS.get(m, m) for m in d["high"])
            lo = ", ".join(METHOD_LABELS.get(m, m) for m in d["low"])
            items.append(f"{d['feature']}: important for {hi}, but not for {lo}. {d['reason']}")
        blocks.append(bullets(items, title="Where the methods disagree (a feature in one method's top 5 that another "
                                           "finds negligible, relative to each method's largest importance)"))
    else:
        blocks.append(text("The methods broadly agree: no feature is important for one method and negligible "
                           "for another."))
    if h is not None:
        strong = [f"{f} (H² = {v:.2f})" for f, v in sorted(h.items(), key=lambda kv: -kv[1]) if v > H_INTERACTION]
        if strong:
            blocks.append(text("Features with strong interactions: " + ", ".join(strong) + ". Their PD curves "
                               "average over heterogeneous ICE curves (section 4-5)."))
    pimp = ctx.importance.get("pimp")
    if pimp is not None and pimp.p_adjusted is not None:
        alpha = pimp.params.get("alpha", 0.05)
        not_sig = [f for f, p in zip(pimp.feature_names, pimp.p_adjusted) if not p <= alpha]
        if not_sig:
            blocks.append(text(f"PIMP finds no evidence (adjusted p > {alpha}) that these features matter more than "
                               f"under a target unrelated to the features: {', '.join(not_sig)}."))
    return blocks
