"""Drawing of EffectResult: ICE lines with the average on top, bars, heat maps, bands, rugs."""
from __future__ import annotations

import numpy as np

from .._names import short_label
from ._base import category_ticks, get_ax, set_labels

__all__ = ["plot_effect"]


def plot_effect(result, *, ax=None, ice=True, rug=True, band=True, color="C0", ice_color="0.5", ice_alpha=None,
                cmap="viridis", **kwargs):
    """Draw an effect (ICE, PD, ALE, a GAM term).

    Parameters
    ----------
    result : EffectResult
    ax : matplotlib Axes, optional
    ice : bool
        Draw the individual curves when the result has them.
    rug : bool
        Draw a rug of the observed feature values (numeric features).
    band : bool
        Draw ``ci_low``/``ci_high`` when present.
    color, ice_color, ice_alpha, cmap
        Colours of the average, of the ICE lines (alpha by default falls with the number of
        curves) and of a 2-D heat map.
    **kwargs
        Passed to the line (or bar, or heat map) of the average.

    Returns
    -------
    matplotlib Axes
    """
    if len(result.feature_names) == 2 and np.ndim(result.average) == 2:
        return _heatmap(result, ax, cmap, **kwargs)
    ax = get_ax(ax)
    avg = np.asarray(result.average, dtype=float)
    if avg.ndim == 2:  # multi-class: one average per class
        return _per_class(result, ax, **kwargs)
    if result.categorical:
        _bars(result, ax, avg, ice, band, color, ice_color, **kwargs)
    else:
        _lines(result, ax, avg, ice, rug, band, color, ice_color, ice_alpha, **kwargs)
    set_labels(ax, f"{result.method.upper()} of {result.feature}", result.feature, _ylabel(result))
    return ax


def _ylabel(result):
    out = result.output or "prediction"
    center = result.params.get("center")
    if result.method == "ale":
        return f"ALE of {out}"
    if center:
        return f"{out} (centred: {center})"
    return out


def _lines(result, ax, avg, ice, rug, band, color, ice_color, ice_alpha, **kwargs):
    grid = np.asarray(result.grid, dtype=float)
    if ice and result.individual is not None:
        from matplotlib.collections import LineCollection

        M = np.asarray(result.individual, dtype=float)
        alpha = ice_alpha if ice_alpha is not None else float(np.clip(20 / max(len(M), 1), 0.03, 0.5))
        segs = np.stack([np.broadcast_to(grid, M.shape), M], axis=-1)
        ax.add_collection(LineCollection(segs, colors=ice_color, alpha=alpha, linewidths=0.6, label="ICE"))
    if band and result.ci_low is not None:
        ax.fill_between(grid, result.ci_low, result.ci_high, color=color, alpha=0.2, linewidth=0,
                        label="band")
    kw = dict(color=color, linewidth=2.2, label="PD" if result.method in ("ice", "pd") else result.method.upper())
    kw.update(kwargs)
    ax.plot(grid, avg, **kw)
    ax.autoscale_view()
    if rug and result.feature_values is not None:
        vals = np.asarray(result.feature_values, dtype=float)
        vals = vals[np.isfinite(vals)]
        ax.plot(vals, np.zeros_like(vals), "|", color="k", alpha=0.3, markersize=8,
                transform=ax.get_xaxis_transform())
    if result.individual is not None or result.ci_low is not None:
        ax.legend(loc="best", fontsize="small")


def _bars(result, ax, avg, ice, band, color, ice_color, **kwargs):
    labels = [str(v) for v in np.asarray(result.grid, dtype=object)]
    pos = np.arange(len(labels))
    kw = dict(color=color, alpha=0.45 if ice and result.individual is not None else 0.8)
    kw.update(kwargs)
    ax.bar(pos, avg, **kw)
    if band and result.ci_low is not None:
        ax.errorbar(pos, avg, yerr=[avg - result.ci_low, result.ci_high - avg], fmt="none", ecolor="k", capsize=3)
    if ice and result.individual is not None:
        M = np.asarray(result.individual, dtype=float)
        jitter = np.linspace(-0.25, 0.25, len(M)) if len(M) > 1 else np.zeros(1)
        ax.scatter((pos[None, :] + jitter[:, None]).ravel(), M.ravel(), s=3, color=ice_color, zorder=3,
                   alpha=float(np.clip(20 / max(len(M), 1), 0.03, 0.5)), label="ICE")
        ax.scatter(pos, avg, marker="_", s=400, color="k", zorder=4, label="PD")
        ax.legend(loc="best", fontsize="small")
    category_ticks(ax, pos, labels)


def _per_class(result, ax, **kwargs):
    classes = result.extra.get("classes", np.arange(np.shape(result.average)[1]))
    avg = np.asarray(result.average, dtype=float)
    if result.categorical:
        labels = [str(v) for v in np.asarray(result.grid, dtype=object)]
        pos = np.arange(len(labels))
        width = 0.8 / avg.shape[1]
        for c in range(avg.shape[1]):
            ax.bar(pos + (c - (avg.shape[1] - 1) / 2) * width, avg[:, c], width=width, label=short_label(classes[c]))
        category_ticks(ax, pos, labels)
    else:
        for c in range(avg.shape[1]):
            ax.plot(np.asarray(result.grid, dtype=float), avg[:, c], label=short_label(classes[c]), **kwargs)
    ax.legend(title="class", fontsize="small")
    set_labels(ax, f"{result.method.upper()} of {result.feature}", result.feature, "P(class)")
    return ax


def _heatmap(result, ax, cmap, **kwargs):
    ax = get_ax(ax, figsize=(6, 5))
    g1, g2 = result.grid
    Z = np.asarray(result.average, dtype=float)
    cat = result.extra.get("categorical", (False, False))

    def axis_positions(g, is_cat):
        if is_cat:
            return np.arange(len(g)), [str(v) for v in g]
        return np.asarray(g, dtype=float), None

    x, xlab = axis_positions(g1, cat[0])
    y, ylab = axis_positions(g2, cat[1])
    kw = dict(cmap=cmap, shading="nearest")
    kw.update(kwargs)
    mesh = ax.pcolormesh(x, y, Z.T, **kw)
    ax.figure.colorbar(mesh, ax=ax, label=short_label(result.output or "prediction"))
    if xlab is not None:
        category_ticks(ax, x, xlab)
    if ylab is not None:
        category_ticks(ax, y, ylab, axis="y")
    set_labels(ax, f"{result.method.upper()} of {result.feature_names[0]} and {result.feature_names[1]}",
               result.feature_names[0], result.feature_names[1])
    return ax
