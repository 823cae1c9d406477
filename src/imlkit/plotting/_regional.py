"""Drawing of HStatisticResult (bars) and RegionalResult (regional PDs with c-ICE bands)."""
from __future__ import annotations

import numpy as np

from .._names import short_label
from .._validation import ValidationError
from ._base import barh_figsize, category_ticks, get_ax, set_labels, wrap

__all__ = ["plot_h_statistic", "plot_regional"]


def plot_h_statistic(result, *, kind="overall", ax=None, max_features=20, color="C0", **kwargs):
    """Horizontal bars of overall H² (``kind="overall"``) or pairwise H² (``"pairwise"``).

    Returns
    -------
    matplotlib Axes
    """
    if kind == "overall":
        names = list(result.feature_names)
        vals = np.asarray(result.overall, dtype=float)
        title = "Overall interaction strength H²"
    elif kind == "pairwise":
        names = [f"{a} × {b}" for a, b in zip(result.pairwise["feature_1"], result.pairwise["feature_2"])]
        vals = result.pairwise["h2"].to_numpy(dtype=float)
        title = "Pairwise interaction strength H²"
    else:
        raise ValidationError(f"'kind' must be one of 'overall', 'pairwise'; got {kind!r}.")
    order = np.argsort(-np.nan_to_num(vals, nan=-np.inf), kind="stable")[:max_features][::-1]
    labels = [str(names[i]) for i in order]
    ax = get_ax(ax, figsize=barh_figsize(labels))
    kw = dict(color=color)
    kw.update(kwargs)
    ax.barh(np.arange(len(order)), np.nan_to_num(vals[order]), **kw)
    category_ticks(ax, np.arange(len(order)), labels, axis="y")
    ax.set_xlabel("H²")
    ax.set_title(title)
    return ax


def plot_regional(result, *, ax=None, show_tree=True, band=True, **kwargs):
    """Global PD (dashed) beside each region's PD with its c-ICE band (± one sd); the tree as text.

    The band of a region is its PD ± the standard deviation of its c-ICE curves at each grid
    point, so a narrow band means the region's curves share one shape. The tree's text stands
    right of the axes and, in a new figure, the legend below them; a new figure is made large
    enough for both.

    Returns
    -------
    matplotlib Axes
    """
    # each line's long names shortened: the tree's width sizes a new figure
    tree = "\n".join(short_label(line, limit=400) for line in result.tree_text().splitlines()) if show_tree else ""
    own_figure = ax is None
    if own_figure:
        longest = max((len(line) for line in tree.splitlines()), default=0)
        # x-small monospace: about 0.6 em of 6.9 pt per character; a legend row is ~0.15 inch
        ax = get_ax(figsize=(6 + longest * 0.6 * 6.9 / 72 + 0.3 if show_tree else 6,
                             4 + 0.15 * (len(result.regions) + 1)))
    categorical = result.categorical
    grid = np.arange(len(result.grid)) if categorical else np.asarray(result.grid, dtype=float)
    for r in result.regions:
        line, = ax.plot(grid, r.average, linewidth=2, marker="o" if categorical else None,
                        label=short_label(f"{r.rule} (n={r.n})"), **kwargs)
        if band:
            ax.fill_between(grid, r.average - r.centered_std, r.average + r.centered_std, color=line.get_color(),
                            alpha=0.15, linewidth=0)
    ax.plot(grid, result.average, "k--", linewidth=2, label="global PD")
    if categorical:
        category_ticks(ax, grid, result.grid)
    set_labels(ax, xlabel=result.feature, ylabel=result.output or "prediction")
    # the tree's text takes the right part of a new figure: the title has the plot's width
    title = short_label(f"Regional effects of {result.feature} (REPID)")
    ax.set_title(wrap(title, 5.0, 12) if own_figure else title)
    if own_figure:  # below the axes, where it hides no curve
        ax.figure.legend(*ax.get_legend_handles_labels(), loc="outside lower center", fontsize="x-small")
    else:
        ax.legend(fontsize="x-small", loc="best")
    if show_tree:
        ax.text(1.02, 1.0, tree, transform=ax.transAxes, va="top", ha="left", family="monospace",
                fontsize="x-small")
    return ax
