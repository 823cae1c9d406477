"""Drawing of :class:`imlkit.local.ShapResult`: beeswarm, waterfall, bar, dependence.

Only drawing: the values, the base values and the global summary (``result.importance()``)
come from the result. The beeswarm's vertical spread (points stacked where they crowd) and
its colours (each feature's values by rank) are placement, not statistics.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import ValidationError, check_choice, check_int, resolve_feature
from ._base import barh_figsize, get_ax, label_inches

__all__ = ["plot_shap"]

KINDS = ("beeswarm", "waterfall", "bar", "dependence")


def _order(result, max_display):
    strength = np.abs(result.values).mean(axis=0)
    order = np.argsort(-strength, kind="stable")
    return order[:max_display]


def _value_label(result):
    if result.method == "shap_loss":
        return f"SHAP value of the {result.output} (loss reduction; > 0: lowers the loss)"
    return f"SHAP value (impact on {result.output})"


def _colour_values(col):
    """Values of one column mapped to [0, 1] by rank (NaN stays NaN); categoricals by their codes."""
    s = pd.Series(col)
    if isinstance(s.dtype, pd.CategoricalDtype):
        s = pd.Series(s.cat.codes.astype(float)).where(s.cat.codes >= 0)
    elif not pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
        s = pd.Series(pd.factorize(s)[0], dtype=float).where(s.notna().to_numpy())
    r = s.rank(pct=True).to_numpy(dtype=float)
    return r


def _swarm_offsets(x, width=0.4, bins=60):
    """Vertical offsets that stack points falling into the same horizontal bin (a beeswarm)."""
    x = np.asarray(x, dtype=float)
    if len(x) == 0 or np.ptp(x) == 0:
        return np.zeros(len(x))
    edges = np.linspace(x.min(), x.max(), bins + 1)
    b = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, bins - 1)
    off = np.zeros(len(x))
    counts = np.bincount(b, minlength=bins)
    step = width / max(1, counts.max())
    seen = np.zeros(bins, dtype=int)
    for i in np.argsort(x, kind="stable"):
        k = seen[b[i]]
        seen[b[i]] += 1
        off[i] = ((k + 1) // 2) * step * (1 if k % 2 else -1)
    return off


def _beeswarm(result, ax, max_display, **kwargs):
    order = _order(result, max_display)
    names = [str(result.feature_names[j]) for j in order]
    ax = get_ax(ax, figsize=(max(6.0, 4.0 + label_inches(names)), 0.45 * len(order) + 1.4))
    import matplotlib

    cmap = matplotlib.colormaps[kwargs.pop("cmap", "coolwarm")]
    for pos, j in enumerate(order[::-1]):
        v = result.values[:, j]
        cols = result.groups.get(result.feature_names[j], [result.feature_names[j]])
        colour = _colour_values(result.data[cols[0]]) if len(cols) == 1 and cols[0] in result.data else \
            np.full(len(v), np.nan)
        y = pos + _swarm_offsets(v)
        c = np.where(np.isnan(colour), 0.5, colour)
        ax.scatter(v, y, c=cmap(c), s=kwargs.get("s", 10), alpha=kwargs.get("alpha", 0.8), linewidths=0)
    ax.axvline(0, color="0.5", lw=0.8)
    ax.set_yticks(range(len(order)))
    ax.set_yticklabels(names[::-1])
    ax.set_xlabel(_value_label(result))
    sm = matplotlib.cm.ScalarMappable(cmap=cmap)
    bar = ax.figure.colorbar(sm, ax=ax, ticks=[0, 1], aspect=30)
    bar.ax.set_yticklabels(["low", "high"])
    bar.set_label("feature value (rank)")
    return ax


def _waterfall(result, ax, row, max_display):
    n = len(result.values)
    row = check_int("row", row, min_value=0, max_value=n - 1)
    phi = result.values[row]
    order = np.argsort(-np.abs(phi), kind="stable")
    shown, rest = order[:max_display], order[max_display:]
    labels, steps = [], []
    for j in shown:
        name = result.feature_names[j]
        cols = result.groups.get(name, [name])
        val = result.data[cols[0]].iloc[row] if len(cols) == 1 and cols[0] in result.data else None
        labels.append(f"{name} = {val:.4g}" if isinstance(val, (float, np.floating)) else
                      f"{name} = {val}" if val is not None else str(name))
        steps.append(phi[j])
    if len(rest):
        labels.append(f"{len(rest)} other features")
        steps.append(phi[rest].sum())
    ax = get_ax(ax, figsize=barh_figsize(labels, width=7.0))
    base = float(result.base_values[row])
    sign = -1.0 if result.method == "shap_loss" else 1.0  # a loss falls by the loss reduction
    # Draw bottom-up: the first (largest) step at the top, as the eye reads.
    start = base
    ys = np.arange(len(steps))[::-1]
    ends = base + sign * np.cumsum(steps)
    lo, hi = min(base, ends.min()), max(base, ends.max())
    pad = 0.15 * (hi - lo) if hi > lo else 1.0
    ax.set_xlim(lo - pad / 3, hi + pad)  # room on the right for the step labels
    for y, s in zip(ys, steps):
        end = start + sign * s
        good = s > 0
        ax.barh(y, end - start, left=start, color="#d62728" if (good and sign > 0) or (not good and sign < 0)
                else "#1f77b4", height=0.6)
        ax.text(max(start, end), y, f" {s:+.3g}", va="center", fontsize=8)
        start = end
    ax.axvline(base, color="0.5", lw=0.8, ls="--")
    ax.axvline(start, color="0.2", lw=0.8)
    ax.set_yticks(ys)
    ax.set_yticklabels(labels)
    what = "loss" if result.method == "shap_loss" else result.output
    ax.set_xlabel(f"{what}: base {base:.4g} → {start:.4g}")
    ax.set_title(f"row {result.data.index[row]}", fontsize=10)
    return ax


def _bar(result, ax, max_display):
    imp = result.importance()
    order = np.argsort(-np.abs(imp.importance), kind="stable")[:max_display]
    names = [str(result.feature_names[j]) for j in order]
    ax = get_ax(ax, figsize=barh_figsize(names))
    y = np.arange(len(order))[::-1]
    ax.barh(y, imp.importance[order], xerr=1.959964 * imp.std[order], color="#1f77b4", height=0.6,
            error_kw={"lw": 0.8})
    ax.set_yticks(y)
    ax.set_yticklabels(names)
    ax.axvline(0, color="0.5", lw=0.8)
    ax.set_xlabel("mean SHAP value of the loss (= marginal SAGE)" if result.method == "shap_loss"
                  else "mean |SHAP value|")
    return ax


def _dependence(result, ax, feature):
    if feature is None:
        raise ValidationError("kind='dependence' needs 'feature': the name of one feature.")
    name = resolve_feature(feature, list(result.feature_names), "feature")
    j = list(result.feature_names).index(name)
    cols = result.groups.get(name, [name])
    if len(cols) != 1 or cols[0] not in result.data:
        raise ValidationError(f"kind='dependence' needs a single-column feature; {name!r} is a group {cols}.")
    x = result.data[cols[0]]
    ax = get_ax(ax)
    if isinstance(x.dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(x.dtype):
        codes, levels = pd.factorize(x, sort=True)
        ax.scatter(codes, result.values[:, j], s=10, alpha=0.7)
        ax.set_xticks(range(len(levels)))
        ax.set_xticklabels([str(v) for v in levels], rotation=45 if len(levels) > 6 else 0)
    else:
        ax.scatter(x.to_numpy(dtype=float), result.values[:, j], s=10, alpha=0.7)
    ax.axhline(0, color="0.5", lw=0.8)
    ax.set_xlabel(name)
    ax.set_ylabel(_value_label(result))
    return ax


def plot_shap(result, kind="beeswarm", *, ax=None, row=0, feature=None, max_display=12, **kwargs):
    """Draw a :class:`imlkit.local.ShapResult`.

    Parameters
    ----------
    kind : {"beeswarm", "waterfall", "bar", "dependence"}
        ``"beeswarm"``: every row's φ per feature (features by mean |φ|, colour = the feature's
        value rank); ``"waterfall"``: one row's path from the base value to its prediction
        (or loss); ``"bar"``: ``result.importance()`` with 95 % whiskers; ``"dependence"``:
        φ_j against x_j.
    row : int
        The row (position in ``result.data``) of the waterfall.
    feature : str
        The feature of the dependence plot.
    max_display : int
        Features shown (the rest are summed in the waterfall).

    Returns
    -------
    matplotlib Axes
    """
    check_choice("kind", kind, KINDS)
    max_display = check_int("max_display", max_display, min_value=1)
    if kind == "beeswarm":
        return _beeswarm(result, ax, max_display, **kwargs)
    if kind == "waterfall":
        return _waterfall(result, ax, row, max_display)
    if kind == "bar":
        return _bar(result, ax, max_display)
    return _dependence(result, ax, feature)
