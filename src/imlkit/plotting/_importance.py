"""Drawing of ImportanceResult: bars with interval whiskers, boxes over repeats."""
from __future__ import annotations

import numpy as np

from .._validation import ValidationError
from ._base import get_ax

__all__ = ["plot_importance"]


def plot_importance(result, kind=None, ax=None, max_features=20, **kwargs):
    """Draw an importance result.

    Parameters
    ----------
    result : ImportanceResult
    kind : {"bar", "box", "null", "convergence"}, optional
        ``"bar"``: point estimates with confidence-interval whiskers (default);
        ``"box"``: the distribution over repeats/refits; ``"null"``: PIMP's null
        distributions; ``"convergence"``: SAGE's running estimates.
    ax : matplotlib Axes, optional
    max_features : int
        Only the most important features are drawn.

    Returns
    -------
    matplotlib Axes (an array of Axes for ``"null"``)
    """
    kind = kind or result.extra.get("default_plot", "bar")
    if kind == "bar":
        return _bar(result, ax, max_features, **kwargs)
    if kind == "box":
        return _box(result, ax, max_features, **kwargs)
    if kind == "null":
        from ._null import plot_null_distributions

        return plot_null_distributions(result, ax=ax, max_features=max_features, **kwargs)
    if kind == "convergence":
        from ._convergence import plot_convergence

        return plot_convergence(result, ax=ax, **kwargs)
    raise ValidationError(f"'kind' must be one of 'bar', 'box', 'null', 'convergence'; got {kind!r}.")


def _ordered(result, max_features):
    order = np.argsort(-np.nan_to_num(result.importance, nan=-np.inf), kind="stable")[:max_features]
    return order[::-1]  # largest on top in a horizontal chart


def _title(result):
    level = result.params.get("confidence_level", 0.95)
    return f"{result.method.upper()} ({result.loss}), {int(round(level * 100))}% CI"


def _bar(result, ax, max_features, color="C0", **kwargs):
    ax = get_ax(ax, figsize=(6, 0.35 * min(len(result.feature_names), max_features) + 1.2))
    order = _ordered(result, max_features)
    names = [result.feature_names[i] for i in order]
    imp = result.importance[order]
    low, high = result.ci_low[order], result.ci_high[order]
    err = np.vstack([np.where(np.isfinite(low), imp - low, 0), np.where(np.isfinite(high), high - imp, 0)])
    ax.barh(np.arange(len(order)), imp, xerr=err, color=color, ecolor="black", capsize=3, **kwargs)
    ax.set_yticks(np.arange(len(order)))
    ax.set_yticklabels(names)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_xlabel("importance" + (" (ratio)" if result.params.get("relation") == "ratio" else ""))
    ax.set_title(_title(result))
    return ax


def _box(result, ax, max_features, **kwargs):
    if result.repeats is None:
        raise ValidationError(f"kind='box' needs per-repeat importances; this {result.method} result has none.")
    ax = get_ax(ax, figsize=(6, 0.35 * min(len(result.feature_names), max_features) + 1.2))
    order = _ordered(result, max_features)
    ax.boxplot([result.repeats[i] for i in order], orientation="horizontal", **kwargs)
    ax.set_yticks(np.arange(1, len(order) + 1))
    ax.set_yticklabels([result.feature_names[i] for i in order])
    ax.axvline(0 if result.params.get("relation") != "ratio" else 1, color="grey", lw=0.8)
    ax.set_xlabel("importance per repeat")
    ax.set_title(f"{result.method.upper()} ({result.loss})")
    return ax
