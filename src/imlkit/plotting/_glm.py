"""Drawing a GLM's weights: a forest plot of the weights (or exp(weights)) with their intervals."""
from __future__ import annotations

import numpy as np

from .._names import short_label
from .._validation import ValidationError, check_bool

__all__ = ["plot_glm"]

INTERCEPT = "(Intercept)"


def plot_glm(summary, *, ax=None, exp=None, intercept=False, color="C0"):
    """A forest plot: one row per term, the weight as a point and its interval as a bar.

    Parameters
    ----------
    summary : DataFrame
        ``GLM.summary()``: index = terms; columns ``weight, ci_low, ci_high, estimable`` and,
        for log and logit links, ``exp_weight, exp_ci_low, exp_ci_high``.
    ax : matplotlib Axes, optional
    exp : bool, optional
        Draw ``exp(weight)`` and its interval on a log axis with a reference line at 1 (the
        factor by which the mean or the odds change); default: when the summary has the
        ``exp_`` columns. Otherwise the weights with a reference line at 0.
    intercept : bool, default False
        Include the intercept (on a different scale from the other weights).
    color : str

    Returns
    -------
    matplotlib Axes
        Estimable terms are points with horizontal interval bars (first term on top); terms
        that are not estimable are grey crosses at the reference value without a bar, their
        label ending in "(not estimable)". A penalised fit (NaN intervals) gets points only.
    """
    check_bool("intercept", intercept)
    has_exp = "exp_weight" in summary.columns
    if exp is None:
        exp = has_exp
    check_bool("exp", exp)
    if exp and not has_exp:
        raise ValidationError(f"exp=True needs a log or logit link; this GLM has the "
                              f"{summary.attrs.get('link', 'unknown')} link.")
    tab = summary if intercept else summary.drop(index=INTERCEPT, errors="ignore")
    if len(tab) == 0:
        raise ValidationError("The GLM has no term to draw besides the intercept (pass intercept=True).")
    cols = ("exp_weight", "exp_ci_low", "exp_ci_high") if exp else ("weight", "ci_low", "ci_high")
    est, lo, hi = (tab[c].to_numpy(dtype=float) for c in cols)
    ok = tab["estimable"].to_numpy(dtype=bool) if "estimable" in tab.columns else np.ones(len(tab), dtype=bool)
    ref = 1.0 if exp else 0.0
    if ax is None:  # long term names: constrained layout keeps them inside the figure
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6, 1.2 + 0.35 * len(tab)), layout="constrained")
    pos = np.arange(len(tab))[::-1]  # first term on top
    has_ci = ok & np.isfinite(lo) & np.isfinite(hi)
    if has_ci.any():
        ax.errorbar(est[has_ci], pos[has_ci], xerr=np.vstack([est[has_ci] - lo[has_ci], hi[has_ci] - est[has_ci]]),
                    fmt="none", ecolor=color, capsize=3, lw=1.2)
    if ok.any():
        ax.plot(est[ok], pos[ok], "o", color=color, ms=5, ls="none")
    if (~ok).any():
        ax.plot(np.full((~ok).sum(), ref), pos[~ok], "x", color="0.5", ms=6, ls="none")
    ax.axvline(ref, color="0.6", lw=0.8, ls=":")
    labels = [short_label(t) + (" (not estimable)" if not good else "") for t, good in zip(tab.index, ok)]
    ax.set_yticks(pos)
    ax.set_yticklabels(labels)
    ax.set_ylim(-0.6, len(tab) - 0.4)
    level = summary.attrs.get("confidence_level")
    what = "exp(weight)" if exp else "weight"
    if exp:
        ax.set_xscale("log")
    penalized = summary.attrs.get("penalized", False) or not np.isfinite(lo[ok]).any()
    if penalized:
        ax.set_xlabel(f"{what} (penalised fit, no intervals)")
    else:
        ax.set_xlabel(f"{what} with {int(round(100 * level)) if level else 95}% Wald interval")
    fam, link = summary.attrs.get("family"), summary.attrs.get("link")
    if fam and link:
        ax.set_title(f"GLM ({fam} family, {link} link)")
    return ax
