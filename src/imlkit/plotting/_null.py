"""Drawing of PIMP's null distributions: one small histogram per feature."""
from __future__ import annotations

import numpy as np

from .._display import p_is
from .._validation import ValidationError, check_int
from ._base import new_figure, wrap

__all__ = ["plot_null_distributions"]


def plot_null_distributions(result, *, ax=None, max_features=20, bins=20, color="C0", **kwargs):
    """Per-feature histograms of the null importances with the observed value marked.

    Parameters
    ----------
    result : ImportanceResult
        A PIMP result (``extra["null"]`` of shape (m, n_null)).
    ax : array of matplotlib Axes, optional
        At least as many Axes as drawn features (e.g. from ``plt.subplots``); a new grid of
        small Axes otherwise.
    max_features : int
        The most important features (by observed importance) are drawn.
    bins : int
        Histogram bins.

    Returns
    -------
    ndarray of matplotlib Axes
        One per drawn feature (unused Axes of a new grid are hidden).
    """
    null = result.extra.get("null") if result.extra else None
    if null is None:
        raise ValidationError(f"kind='null' needs null importances (a PIMP result); this {result.method} "
                              f"result has none.")
    max_features = check_int("max_features", max_features, min_value=1)
    null = np.asarray(null, dtype=float)
    order = np.argsort(-np.nan_to_num(result.importance, nan=-np.inf), kind="stable")[:max_features]
    k = len(order)
    if ax is None:
        ncols = min(4, k)
        nrows = int(np.ceil(k / ncols))
        fig, grid = new_figure((2.6 * ncols, 2.1 * nrows), nrows, ncols, squeeze=False)
        axes = grid.ravel()
        for a in axes[k:]:
            a.set_visible(False)
        fig.suptitle(f"PIMP null distributions ({result.params.get('importance', '')}, {result.loss})")
    else:
        axes = np.atleast_1d(np.asarray(ax, dtype=object)).ravel()
        if axes.size < k:
            raise ValidationError(f"'ax' must hold at least {k} Axes (one per feature); got {axes.size}.")
    p_adj = result.p_adjusted if result.p_adjusted is not None else result.p_value
    for a, j in zip(axes, order):
        a.hist(null[j], bins=bins, color=color, alpha=0.7, **kwargs)
        a.axvline(result.importance[j], color="red", lw=1.5)
        title = wrap(result.feature_names[j], a.figure.get_figwidth() * a.get_position().width, 9)
        if p_adj is not None:
            title += f"\np_adj {p_is(p_adj[j])}"
        a.set_title(title, fontsize=9)
        a.tick_params(labelsize=7)
    return axes[:k]
