"""Drawing a GAM's terms: one panel per term, the fitted function with its band."""
from __future__ import annotations

import numpy as np

from .._names import short_label
from .._validation import ValidationError
from ._base import get_ax

__all__ = ["plot_gam", "plot_gam_term"]


def plot_gam_term(effect, *, ax=None, rug=True, color="C0"):
    """One term of a GAM (an EffectResult with ``method="gam"``): a line and a shaded band for
    numeric terms, points with error bars for factors. Returns the Axes."""
    ax = get_ax(ax)
    name = short_label(effect.feature_names[0])
    if effect.categorical:
        x = np.arange(len(effect.grid))
        err = np.vstack([effect.average - effect.ci_low, effect.ci_high - effect.average])
        ax.errorbar(x, effect.average, yerr=err, fmt="o", color=color, capsize=4)
        ax.set_xticks(x)
        ax.set_xticklabels([short_label(g) for g in effect.grid], rotation=30, ha="right")
    else:
        ax.plot(effect.grid, effect.average, color=color)
        if effect.ci_low is not None:
            ax.fill_between(effect.grid, effect.ci_low, effect.ci_high, color=color, alpha=0.25, lw=0)
        if rug and effect.feature_values is not None:
            vals = np.asarray(effect.feature_values, dtype=float)
            if vals.size > 1000:  # a rug of 1000 quantiles reads the same and draws fast
                vals = np.quantile(vals, np.linspace(0, 1, 1000))
            ax.plot(vals, np.zeros_like(vals), "|", color="k", alpha=0.3, ms=6,
                    transform=ax.get_xaxis_transform())
    ax.axhline(0.0, color="0.6", lw=0.8, ls=":")
    edf = effect.info.get("edf")
    title = f"{name} (edf {edf:.1f})" if edf is not None and not effect.categorical else name
    ax.set_title(title)
    ax.set_xlabel(name)
    ax.set_ylabel(f"f({name})")
    return ax


def plot_gam(effects, *, ax=None, ncols=3, figsize=None):
    """A panel per term (the course's Wage figure).

    Parameters
    ----------
    effects : EffectResult or list of EffectResult
        ``GAM.partial_effect`` results.
    ax : matplotlib Axes or array of Axes, optional
        One Axes per term; a new figure (constrained layout) with a grid of ``ncols`` columns
        otherwise.
    ncols : int
    figsize : (float, float), optional

    Returns
    -------
    matplotlib Axes or ndarray of Axes
        A single EffectResult gives its Axes (like every other plot); a list gives a flat
        array with one Axes per term, in order (as PIMP's null-distribution plot does);
        unused panels of a new grid are hidden and not returned.
    """
    single = not isinstance(effects, (list, tuple))
    effects = [effects] if single else list(effects)
    k = len(effects)
    if k == 0:
        raise ValidationError("'effects' must hold at least one GAM term.")
    if ax is None:
        import matplotlib.pyplot as plt

        ncols = max(1, min(int(ncols), k))
        nrows = int(np.ceil(k / ncols))
        fig, grid = plt.subplots(nrows, ncols, figsize=figsize or (4 * ncols, 3.2 * nrows), squeeze=False,
                                 layout="constrained")
        for a in grid.ravel()[k:]:
            a.set_visible(False)
        axes = grid.ravel()[:k]
    else:
        axes = np.ravel(np.asarray(ax, dtype=object))
        if axes.size < k:
            raise ValidationError(f"'ax' must hold at least {k} Axes (one per term); got {axes.size}.")
        axes = axes[:k]
    for eff, a in zip(effects, axes):
        plot_gam_term(eff, ax=a)
    return axes[0] if single else axes
